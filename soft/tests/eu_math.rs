//! The extended-math unit against the manuals: which functions and types
//! each platform takes, the special-value tables entry by entry
//! (`eu_math/tables.rs`), accuracy sweeps against the host's f64 maths
//! (`eu_math/sweeps.rs`), and integer division.
//!
//! Manual references: 000 = Gen4/G45 PRM Vol 4, 003 = Sandy Bridge PRM,
//! 001 = Ivy Bridge EU ISA.

#[path = "eu_math/sweeps.rs"]
mod sweeps;
#[path = "eu_math/tables.rs"]
mod tables;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{MathFn, Type};
use baregpu_soft::eu::math::{
    self, GENERATED_NAN, MathError, MathMode, MessageControl, Operands, Precision,
};

const ALL_FLOAT: [MathFn; 10] = [
    MathFn::Inv,
    MathFn::Log,
    MathFn::Exp,
    MathFn::Sqrt,
    MathFn::Rsq,
    MathFn::Sin,
    MathFn::Cos,
    MathFn::SinCos,
    MathFn::Fdiv,
    MathFn::Pow,
];
const ALL_INT: [MathFn; 3] = [
    MathFn::IntDivQuotientRemainder,
    MathFn::IntDivQuotient,
    MathFn::IntDivRemainder,
];
const MESSAGE_PLATFORMS: [IsaGen; 2] = [IsaGen::Gen4, IsaGen::G45];
const INSTRUCTION_PLATFORMS: [IsaGen; 3] = [IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75];

const FLT_MAX: u32 = 0x7F7F_FFFF;
const POS_INF: u32 = 0x7F80_0000;
const NEG_INF: u32 = 0xFF80_0000;
const ONE: u32 = 0x3F80_0000;

/// Small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }
    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn bits(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
    /// Uniform in [lo, hi).
    fn uniform(&mut self, lo: f64, hi: f64) -> f32 {
        let t = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        (lo + (hi - lo) * t) as f32
    }
}

fn ieee(p: IsaGen) -> MathMode {
    MathMode::ieee(p)
}

fn alt(p: IsaGen) -> MathMode {
    MathMode::alt(p)
}

fn one(func: MathFn, a: u32, b: u32, mode: &MathMode) -> u32 {
    match math::float(func, a, b, mode) {
        Ok((r, None)) => r,
        other => panic!("{func:?}({a:#010x}, {b:#010x}) in {mode:?}: {other:?}"),
    }
}

fn is_nan(bits: u32) -> bool {
    f32::from_bits(bits).is_nan()
}

// ---- which functions, codes, types and widths ----

#[test]
fn function_sets_per_platform() {
    // Gen4/G45 message: SINCOS yes, FDIV no (000 line 5882).
    for p in MESSAGE_PLATFORMS {
        assert!(math::supports(p, MathFn::SinCos));
        assert!(!math::supports(p, MathFn::Fdiv));
    }
    // Gen6+ instruction: 8h reserved, 9h FDIV (003 lines 99286-99288).
    for p in INSTRUCTION_PLATFORMS {
        assert!(!math::supports(p, MathFn::SinCos));
        assert!(math::supports(p, MathFn::Fdiv));
    }
    for p in IsaGen::ALL {
        for f in [
            MathFn::Inv,
            MathFn::Log,
            MathFn::Exp,
            MathFn::Sqrt,
            MathFn::Rsq,
        ] {
            assert!(math::supports(p, f), "{p} {f:?}");
        }
        for f in [MathFn::Sin, MathFn::Cos, MathFn::Pow] {
            assert!(math::supports(p, f), "{p} {f:?}");
        }
        for f in ALL_INT {
            assert!(math::supports(p, f), "{p} {f:?}");
        }
    }
}

#[test]
fn function_codes_follow_the_tables() {
    // 000 line 5882 and 003 lines 99259-99300: 1h INV ... 7h COS, Ah POW,
    // Bh/Ch/Dh INT DIV, on every platform.
    let shared = [
        (1, MathFn::Inv),
        (2, MathFn::Log),
        (3, MathFn::Exp),
        (4, MathFn::Sqrt),
        (5, MathFn::Rsq),
        (6, MathFn::Sin),
        (7, MathFn::Cos),
        (0xA, MathFn::Pow),
        (0xB, MathFn::IntDivQuotientRemainder),
        (0xC, MathFn::IntDivQuotient),
        (0xD, MathFn::IntDivRemainder),
    ];
    for p in IsaGen::ALL {
        for (code, f) in shared {
            assert_eq!(math::function_from_code(p, code), Ok(f), "{p} {code:#x}");
            assert_eq!(math::function_code(p, f), Some(code), "{p} {f:?}");
        }
        for code in [0u8, 0xE, 0xF, 0x10, 0xFF] {
            assert_eq!(
                math::function_from_code(p, code),
                Err(MathError::ReservedFunction(code))
            );
        }
    }
    for p in MESSAGE_PLATFORMS {
        assert_eq!(math::function_from_code(p, 8), Ok(MathFn::SinCos));
        assert_eq!(
            math::function_from_code(p, 9),
            Err(MathError::ReservedFunction(9))
        );
    }
    for p in INSTRUCTION_PLATFORMS {
        assert_eq!(
            math::function_from_code(p, 8),
            Err(MathError::ReservedFunction(8))
        );
        assert_eq!(math::function_from_code(p, 9), Ok(MathFn::Fdiv));
    }
}

#[test]
fn requests_the_hardware_rejects() {
    let x = 2.0f32.to_bits();
    for p in INSTRUCTION_PLATFORMS {
        let e = math::float(MathFn::SinCos, x, 0, &ieee(p));
        assert_eq!(
            e,
            Err(MathError::Unsupported {
                platform: p,
                func: MathFn::SinCos
            })
        );
        // FDIV "is not supported in ALT_MODE" (003 line 99335).
        assert_eq!(
            math::float(MathFn::Fdiv, x, x, &alt(p)),
            Err(MathError::FdivInAltMode)
        );
        assert_eq!(math::float(MathFn::Fdiv, x, x, &ieee(p)), Ok((ONE, None)));
    }
    for p in MESSAGE_PLATFORMS {
        let e = math::float(MathFn::Fdiv, x, x, &ieee(p));
        assert_eq!(
            e,
            Err(MathError::Unsupported {
                platform: p,
                func: MathFn::Fdiv
            })
        );
        // Saturate is "allowed only on floating point math functions" (000 line 5875).
        let sat = MathMode {
            saturate: true,
            ..ieee(p)
        };
        let e = math::int_div(MathFn::IntDivQuotient, 7, 2, true, &sat);
        assert_eq!(e, Err(MathError::SaturateOnInteger));
    }
    for p in IsaGen::ALL {
        for f in ALL_INT {
            assert_eq!(math::float(f, x, x, &ieee(p)), Err(MathError::WrongKind(f)));
        }
        for f in ALL_FLOAT.into_iter().filter(|&f| math::supports(p, f)) {
            assert_eq!(
                math::int_div(f, 7, 2, false, &ieee(p)),
                Err(MathError::WrongKind(f))
            );
        }
    }
}

#[test]
fn operand_types() {
    // 003 lines 99324-99329: INT DIV takes D or UD, never mixed; the rest F.
    let div = MathFn::IntDivQuotient;
    assert_eq!(
        math::operand_kind(div, Type::D, Some(Type::D)),
        Ok(Operands::Int { signed: true })
    );
    assert_eq!(
        math::operand_kind(div, Type::Ud, Some(Type::Ud)),
        Ok(Operands::Int { signed: false })
    );
    for (a, b) in [
        (Type::D, Type::Ud),
        (Type::Ud, Type::D),
        (Type::F, Type::F),
        (Type::W, Type::W),
    ] {
        assert_eq!(
            math::operand_kind(div, a, Some(b)),
            Err(MathError::BadTypes(div))
        );
    }
    assert_eq!(
        math::operand_kind(div, Type::D, None),
        Err(MathError::BadTypes(div))
    );
    assert_eq!(
        math::operand_kind(MathFn::Sqrt, Type::F, None),
        Ok(Operands::Float)
    );
    assert_eq!(
        math::operand_kind(MathFn::Sqrt, Type::D, None),
        Err(MathError::BadTypes(MathFn::Sqrt))
    );
    assert_eq!(
        math::operand_kind(MathFn::Pow, Type::F, Some(Type::F)),
        Ok(Operands::Float)
    );
    let e = math::operand_kind(MathFn::Pow, Type::F, Some(Type::D));
    assert_eq!(e, Err(MathError::BadTypes(MathFn::Pow)));
    let e = math::operand_kind(MathFn::Fdiv, Type::F, None);
    assert_eq!(e, Err(MathError::BadTypes(MathFn::Fdiv)));
}

#[test]
fn operand_and_result_counts() {
    // Two message registers in for POW and INT DIV (000 line 5904), FDIV
    // reads src1 (003 line 99204); two out for SINCOS and INT DIV q+r
    // (000 line 5958; 003 lines 99321-99322).
    for f in ALL_FLOAT.into_iter().chain(ALL_INT) {
        let two_in = matches!(f, MathFn::Pow | MathFn::Fdiv) || ALL_INT.contains(&f);
        assert_eq!(math::operand_count(f), if two_in { 2 } else { 1 }, "{f:?}");
        let two_out = matches!(f, MathFn::SinCos | MathFn::IntDivQuotientRemainder);
        assert_eq!(math::result_count(f), if two_out { 2 } else { 1 }, "{f:?}");
    }
}

#[test]
fn widest_requests() {
    // Gen4 8 channels (000 line 5864); G45 16 except POW and INT DIV
    // (000 line 5908); Gen6 never SIMD16 (003 line 99333); Gen7 SIMD16
    // except INT DIV (IVB PRM, quoted by Mesa).
    for f in ALL_FLOAT.into_iter().chain(ALL_INT) {
        let two = f == MathFn::Pow || ALL_INT.contains(&f);
        if f != MathFn::Fdiv {
            assert_eq!(math::max_exec_size(IsaGen::Gen4, f), 8);
            assert_eq!(
                math::max_exec_size(IsaGen::G45, f),
                if two { 8 } else { 16 }
            );
        }
        if f == MathFn::SinCos {
            continue;
        }
        assert_eq!(math::max_exec_size(IsaGen::Gen6, f), 8);
        let int = ALL_INT.contains(&f);
        for p in [IsaGen::Gen7, IsaGen::Gen75] {
            assert_eq!(math::max_exec_size(p, f), if int { 8 } else { 16 });
        }
    }
}

#[test]
fn message_descriptor_bits() {
    // 000 lines 5868-5882: 3:0 function, 4 signed, 5 partial, 6 saturate,
    // 7 scalar, 8 snapshot, 15:9 MBZ.
    for p in MESSAGE_PLATFORMS {
        let c = MessageControl::decode(p, 0x01FA).expect("POW with every option");
        assert_eq!(c.function, MathFn::Pow);
        assert!(c.signed && c.saturate && c.scalar && c.snapshot);
        assert_eq!(c.precision, Precision::Partial);
        let m = c.mode(p, true);
        assert!(m.alt && m.saturate && m.platform == p);
        let c = MessageControl::decode(p, 0x0004).expect("plain SQRT");
        assert_eq!(c.function, MathFn::Sqrt);
        assert!(!c.signed && !c.saturate && !c.scalar && !c.snapshot);
        assert_eq!(c.precision, Precision::Full);
        let c = MessageControl::decode(p, 0x001B).expect("signed INT DIV q+r");
        assert_eq!(
            (c.function, c.signed),
            (MathFn::IntDivQuotientRemainder, true)
        );
        for mbz in [0x0200u16, 0x8000, 0xFE00] {
            let e = MessageControl::decode(p, mbz | 1);
            assert_eq!(e, Err(MathError::ReservedBits(u32::from(mbz))));
        }
        assert_eq!(
            MessageControl::decode(p, 0x0009),
            Err(MathError::ReservedFunction(9))
        );
        assert_eq!(
            MessageControl::decode(p, 0x004C),
            Err(MathError::SaturateOnInteger)
        );
    }
    for p in INSTRUCTION_PLATFORMS {
        assert_eq!(
            MessageControl::decode(p, 1),
            Err(MathError::NoMessageForm(p))
        );
    }
}

// ---- integer division ----

fn div_all(p: IsaGen, a: u32, b: u32, signed: bool) -> (u32, u32) {
    let m = ieee(p);
    let (q, r) = math::int_div(MathFn::IntDivQuotientRemainder, a, b, signed, &m).unwrap();
    let r = r.expect("q+r writes two results");
    assert_eq!(
        math::int_div(MathFn::IntDivQuotient, a, b, signed, &m),
        Ok((q, None))
    );
    assert_eq!(
        math::int_div(MathFn::IntDivRemainder, a, b, signed, &m),
        Ok((r, None))
    );
    (q, r)
}

#[test]
fn signed_division_by_zero_table() {
    // IDIV table, 000 lines 6304-6309: divisor 0 gives Q = R = 0x7FFFFFFF
    // for a positive or zero dividend, 0x80000000 for a negative one.
    for p in IsaGen::ALL {
        for n in [1i32, 7, i32::MAX, 0] {
            assert_eq!(
                div_all(p, n as u32, 0, true),
                (0x7FFF_FFFF, 0x7FFF_FFFF),
                "{n}"
            );
        }
        for n in [-1i32, -7, i32::MIN] {
            assert_eq!(
                div_all(p, n as u32, 0, true),
                (0x8000_0000, 0x8000_0000),
                "{n}"
            );
        }
        // Zero dividend, non-zero divisor: 0 (000 lines 6306-6307).
        assert_eq!(div_all(p, 0, 5, true), (0, 0));
        assert_eq!(div_all(p, 0, (-5i32) as u32, true), (0, 0));
    }
}

#[test]
fn unsigned_division_by_zero_table() {
    // UDIV table, 000 lines 6310-6314: divisor 0 gives all ones; a zero
    // dividend over a non-zero divisor gives 0.
    for p in IsaGen::ALL {
        for n in [0u32, 1, 0x8000_0000, u32::MAX] {
            assert_eq!(div_all(p, n, 0, false), (u32::MAX, u32::MAX), "{n}");
        }
        assert_eq!(div_all(p, 0, 9, false), (0, 0));
    }
}

#[test]
fn signed_division_signs() {
    // Sign table, 000 lines 6297-6300: (+,+) -> Q+ R+; (+,-) -> Q- R+;
    // (-,+) -> Q- R-; (-,-) -> Q+ R-.
    let cases = [
        (7i32, 2i32, 3i32, 1i32),
        (7, -2, -3, 1),
        (-7, 2, -3, -1),
        (-7, -2, 3, -1),
    ];
    for p in IsaGen::ALL {
        for (n, d, q, r) in cases {
            assert_eq!(
                div_all(p, n as u32, d as u32, true),
                (q as u32, r as u32),
                "{n}/{d}"
            );
        }
        // INT_MIN / -1: the manuals are silent; our documented choice is
        // the two's-complement wrap.
        assert_eq!(
            div_all(p, i32::MIN as u32, (-1i32) as u32, true),
            (0x8000_0000, 0)
        );
    }
}

#[test]
fn division_sweep_against_host() {
    let mut rng = Rng::new(0xD1D1);
    for i in 0..200_000u32 {
        let a = rng.bits();
        // Small divisors now and then, so quotients are not all 0 or 1.
        let b = if i % 3 == 0 {
            rng.bits() >> (rng.bits() % 32)
        } else {
            rng.bits()
        };
        let b = if i % 7 == 0 { b | 1 } else { b };
        let p = IsaGen::ALL[i as usize % 5];
        if b != 0 {
            let (q, r) = div_all(p, a, b, false);
            assert_eq!((q, r), (a / b, a % b), "{a} / {b} unsigned");
        }
        let (n, d) = (i64::from(a as i32), i64::from(b as i32));
        if d != 0 && !(n == i64::from(i32::MIN) && d == -1) {
            // Host i64 division truncates toward zero, as the table asks.
            let q = n / d;
            let r = n - q * d;
            assert_eq!(
                div_all(p, a, b, true),
                (q as i32 as u32, r as i32 as u32),
                "{n} / {d}"
            );
            assert!(
                r == 0 || (r < 0) == (n < 0),
                "remainder takes the dividend's sign"
            );
        }
    }
}
