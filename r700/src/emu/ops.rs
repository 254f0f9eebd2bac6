//! What each single-slot ALU opcode computes for one thread, from the manual's pseudocode
//! (002 chapter 9.2, lines 2957-7008; opcode numbers in `crate::alu::OP2`/`OP3`).
//! The reductions (DOT4, CUBE, MAX4) and the double-precision ops span slots and live
//! in `alu.rs`.

use super::float::{MAX_FLOAT, b, f};

/// One thread's result of one slot.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Lane {
    pub value: u32,
    /// PRED_SET*: `Some(true)` execute, `Some(false)` skip.
    pub pred: Option<bool>,
    /// KILL*: the compare held.
    pub kill: bool,
    /// MOVA*: the signed 9-bit value for AR.
    pub ar: Option<i32>,
}

fn val(v: u32) -> Lane {
    Lane {
        value: v,
        ..Lane::default()
    }
}

fn fl(v: f32) -> Lane {
    val(b(v))
}

/// How an opcode treats its operands and result: float sources are denormal-flushed,
/// float results also take OMOD and CLAMP (002 lines 1966-1980: "float only").
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    pub float_in: bool,
    pub float_out: bool,
}

const FF: Kind = Kind {
    float_in: true,
    float_out: true,
};
const FI: Kind = Kind {
    float_in: true,
    float_out: false,
};
const IF: Kind = Kind {
    float_in: false,
    float_out: true,
};
const II: Kind = Kind {
    float_in: false,
    float_out: false,
};

pub fn op2_kind(op: u16) -> Kind {
    match op {
        12..=15 | 21 | 22 | 107 | 121 => FI,
        // Integer compares whose dst is the 0.0/1.0 counter (PRED_SET*_INT, KILL*_INT).
        30 | 31 | 64..=79 | 108 | 109 => IF,
        // MOV and NOP move bits; MOVA_INT, the integer ops; the double ops, whose dwords
        // are halves of doubles (their own rules flush, 002 lines 2993-3005).
        7 | 23..=29 | 48..=63 | 96 | 112..=120 | 122..=126 => II,
        _ => FF,
    }
}

pub fn op3_kind(op: u8) -> Kind {
    match op {
        8..=11 | 28..=30 => II,
        _ => FF,
    }
}

fn pred(cond: bool, skip_value: u32) -> Lane {
    // PRED_SET*: execute -> 0.0; skip -> the counter value (002 lines 5245-6324).
    Lane {
        value: if cond { 0 } else { skip_value },
        pred: Some(cond),
        ..Lane::default()
    }
}

fn set(cond: bool) -> Lane {
    fl(if cond { 1.0 } else { 0.0 })
}

fn mask(cond: bool) -> Lane {
    val(if cond { u32::MAX } else { 0 })
}

fn kill(cond: bool) -> Lane {
    // KILL*: dst 1.0 and the pixel is killed if the compare holds (002 lines 3862-3986).
    Lane {
        value: b(if cond { 1.0 } else { 0.0 }),
        kill: cond,
        ..Lane::default()
    }
}

/// A PUSH predicate: `(src1 cond 0) && src0 == 0.0` executes with 0.0, else the counter
/// src0 + 1.0 (002 lines 5521-5545, 6043-6070).
fn push(cond: bool, s0: f32) -> Lane {
    if cond && s0 == 0.0 {
        pred(true, 0)
    } else {
        pred(false, b(s0 + 1.0))
    }
}

/// Legacy multiply: zero times anything is zero, infinities and NaNs included (002 line
/// 4585 and the MUL/MULADD/DOT4 pages).
pub fn mul_legacy(a: f32, c: f32) -> f32 {
    if a == 0.0 || c == 0.0 { 0.0 } else { a * c }
}

/// DX10 min/max: a NaN operand loses to the other (002 lines 1828-1830, 4219, 4364 say
/// only "DX10 handling of NaNs"; D3D10's rule is that the non-NaN operand is returned).
fn max_dx10(a: f32, c: f32) -> f32 {
    if a.is_nan() {
        c
    } else if c.is_nan() || a >= c {
        a
    } else {
        c
    }
}

fn min_dx10(a: f32, c: f32) -> f32 {
    if a.is_nan() {
        c
    } else if c.is_nan() || a < c {
        a
    } else {
        c
    }
}

/// FLT_TO_INT: truncate; a value that does not fit 32 bits keeps its low-order bits
/// (002 lines 3485-3497). NaN gives 0.
fn flt_to_int(v: f32) -> u32 {
    if v.is_nan() || v.is_infinite() {
        return 0;
    }
    let t = libm::truncf(v);
    // From 2^56 up a float is a multiple of 2^33: its low 32 bits are zero. Below, i64
    // holds it exactly and its low 32 bits are the two's complement result.
    if t.abs() >= 72_057_594_037_927_936.0 {
        0
    } else {
        (t as i64) as u32
    }
}

/// MOVA clamp: below -256 is -256, above 255 is -256 too (002 lines 4487-4500).
fn mova_clamp(x: f32) -> i32 {
    let d = if x >= -256.0 { x } else { -256.0 };
    if d > 255.0 || d.is_nan() {
        -256
    } else {
        d as i32
    }
}

fn recip_clamped(r: f32) -> f32 {
    if r.is_infinite() {
        MAX_FLOAT.copysign(r)
    } else {
        r
    }
}

fn recip_ff(r: f32) -> f32 {
    if r.is_infinite() {
        0.0f32.copysign(r)
    } else {
        r
    }
}

/// The OP2 single-slot opcodes. `s` holds the sources after ABS/NEG and flushing.
pub fn op2(op: u16, s: [u32; 3]) -> Option<Lane> {
    let (a, c) = (f(s[0]), f(s[1]));
    let (i, j) = (s[0] as i32, s[1] as i32);
    let (u, v) = (s[0], s[1]);
    Some(match op {
        0 => fl(a + c),
        1 => fl(mul_legacy(a, c)),
        2 => fl(a * c),
        // MAX/MIN: the pseudocode's compare decides, so a NaN operand yields src1 (4222, 4339).
        3 => fl(if a >= c { a } else { c }),
        4 => fl(if a < c { a } else { c }),
        5 => fl(max_dx10(a, c)),
        6 => fl(min_dx10(a, c)),
        8 => set(a == c),
        9 => set(a > c),
        10 => set(a >= c),
        11 => set(a != c),
        12 => mask(a == c),
        13 => mask(a > c),
        14 => mask(a >= c),
        15 => mask(a != c),
        16 => fl(a - libm::floorf(a)),
        17 => fl(libm::truncf(a)),
        18 => fl(libm::ceilf(a)),
        19 => fl(libm::rintf(a)),
        20 => fl(libm::floorf(a)),
        21 => {
            let r = mova_clamp(libm::floorf(a + 0.5));
            Lane {
                value: r as u32,
                ar: Some(r),
                ..Lane::default()
            }
        }
        22 => {
            let r = mova_clamp(libm::floorf(a));
            Lane {
                value: r as u32,
                ar: Some(r),
                ..Lane::default()
            }
        }
        // MOVA_GPR_INT (96): the manual lists the opcode (8078) without a page; Mesa's sb
        // optimizer loads AR with it where it would use MOVA_INT (sb_sched.cpp
        // create_ar_load, `uses_mova_gpr`) and folds its GPR result as a MOV of the source
        // (sb_expr.cpp fold_alu_op1), so it is MOVA_INT here. Mesa's r600_isa.c lists it for
        // R600 only.
        24 | 96 => {
            // MOVA_INT: below -256 or above 255 gives -256, as MOVA (002 lines 4556-4566).
            let r = if (-256..=255).contains(&i) { i } else { -256 };
            Lane {
                value: r as u32,
                ar: Some(r),
                ..Lane::default()
            }
        }
        25 => val(u),
        // PRED_SET*_UINT and the float PRED_SETs: dst 0.0 or 1.0 (5350-6324).
        30 => pred(u > v, b(1.0)),
        31 => pred(u >= v, b(1.0)),
        32 => pred(a == c, b(1.0)),
        33 => pred(a > c, b(1.0)),
        34 => pred(a >= c, b(1.0)),
        35 => pred(a != c, b(1.0)),
        36 => {
            // PRED_SET_INV (5245-5283).
            if a == 1.0 {
                pred(true, 0)
            } else if a == 0.0 {
                pred(false, b(1.0))
            } else {
                pred(false, s[0])
            }
        }
        37 => {
            // PRED_SET_POP (5284-5310).
            if a <= c {
                pred(true, 0)
            } else {
                pred(false, b(a - c))
            }
        }
        38 => pred(false, b(MAX_FLOAT)),
        39 => {
            if a == 0.0 {
                pred(true, 0)
            } else {
                pred(false, s[0])
            }
        }
        40 => push(c == 0.0, a),
        41 => push(c > 0.0, a),
        42 => push(c >= 0.0, a),
        43 => push(c != 0.0, a),
        44 => kill(a == c),
        45 => kill(a > c),
        46 => kill(a >= c),
        47 => kill(a != c),
        48 => val(u & v),
        49 => val(u | v),
        50 => val(u ^ v),
        51 => val(!u),
        52 => val(u.wrapping_add(v)),
        // src0 - src1: 6945's "src1 - src0" is an erratum (Mesa sfn maps isub in order).
        53 => val(u.wrapping_sub(v)),
        54 => val(i.max(j) as u32),
        55 => val(i.min(j) as u32),
        56 => val(u.max(v)),
        57 => val(u.min(v)),
        58 => mask(u == v),
        59 => mask(i > j),
        60 => mask(i >= j),
        61 => mask(u != v),
        62 => mask(u > v),
        63 => mask(u >= v),
        64 => kill(u > v),
        65 => kill(u >= v),
        66 => pred(u == v, b(1.0)),
        67 => pred(i > j, b(1.0)),
        68 => pred(i >= j, b(1.0)),
        69 => pred(u != v, b(1.0)),
        70 => kill(u == v),
        71 => kill(i > j),
        72 => kill(i >= j),
        73 => kill(u != v),
        // Integer PUSH predicates: src1 against 0, src0 the float counter (5580-6171).
        74 => push(j == 0, a),
        75 => push(j > 0, a),
        76 => push(j >= 0, a),
        77 => push(j != 0, a),
        78 => push(j < 0, a),
        79 => push(j <= 0, a),
        // EXP_IEEE, LOG_*, RECIP_*, RECIPSQRT_*, SQRT: the manual says "approximate"; these
        // are the correctly rounded host values with the exact special cases it lists.
        97 => fl(libm::exp2f(a)),
        98 => {
            let r = if a == 1.0 { 0.0 } else { libm::log2f(a) };
            fl(if r == f32::NEG_INFINITY {
                -MAX_FLOAT
            } else {
                r
            })
        }
        99 => fl(if a == 1.0 { 0.0 } else { libm::log2f(a) }),
        100 => fl(recip_clamped(1.0 / a)),
        101 => fl(recip_ff(1.0 / a)),
        102 => fl(1.0 / a),
        103 => fl(recip_clamped(1.0 / libm::sqrtf(a))),
        104 => fl(recip_ff(1.0 / libm::sqrtf(a))),
        105 => fl(1.0 / libm::sqrtf(a)),
        106 => fl(libm::sqrtf(a)),
        107 => val(flt_to_int(a)),
        108 => fl(i as f32),
        109 => fl(u as f32),
        // SIN/COS take the angle divided by 2*pi on R700 (Mesa r600_shader.c tgsi_trig:
        // "r700 - normalize by dividing by 2PI", fdo bug 27901); 002 line 3350 says [-pi, pi].
        110 => fl(libm::sinf(a * core::f32::consts::TAU)),
        111 => fl(libm::cosf(a * core::f32::consts::TAU)),
        // Shifts: a count above 31 shifts everything out (002 lines 3131-3134, 4159-4187).
        112 => val(if v > 31 {
            (i >> 31) as u32
        } else {
            (i >> v) as u32
        }),
        113 => val(if v > 31 { 0 } else { u >> v }),
        114 => val(if v > 31 { 0 } else { u << v }),
        115 => val((i as i64 * j as i64) as u32),
        116 => val(((i as i64 * j as i64) >> 32) as u32),
        117 => val((u as u64 * v as u64) as u32),
        118 => val(((u as u64 * v as u64) >> 32) as u32),
        // RECIP_INT/UINT: 2^32 / x, the reciprocal the divide expansion uses (LLVM
        // AMDGPUISelLowering "RCP = URECIP(Den) = 2^32 / Den"); x = 0 is undefined (6398-6415),
        // here all ones.
        119 => val(if i == 0 {
            u32::MAX
        } else {
            ((1i64 << 32) / i as i64) as u32
        }),
        120 => val(if u == 0 {
            u32::MAX
        } else {
            ((1u64 << 32) / u as u64).min(u32::MAX as u64) as u32
        }),
        // FLT_TO_UINT: no chapter-9 body; truncation with the same low-bits rule.
        121 => val(flt_to_int(a)),
        _ => return None,
    })
}

/// The OP3 single-slot opcodes (MUL_LIT*, MULADD*, CND*).
pub fn op3(op: u8, s: [u32; 3]) -> Option<Lane> {
    let (a, c, d) = (f(s[0]), f(s[1]), f(s[2]));
    let scale = |v: f32, k: u8| match k & 3 {
        1 => v * 2.0,
        2 => v * 4.0,
        3 => v * 0.5,
        _ => v,
    };
    Some(match op {
        12..=15 => {
            // MUL_LIT (002 lines 4700-4720), then its fixed scale.
            let r = if c == -MAX_FLOAT
                || c == f32::NEG_INFINITY
                || c.is_nan()
                || d <= 0.0
                || d.is_nan()
            {
                -MAX_FLOAT
            } else {
                mul_legacy(a, c)
            };
            fl(scale(r, op - 12))
        }
        // MULADD keeps the legacy zero rule, MULADD_IEEE does not; both round the
        // product before the add (the glossary's "fused" is not followed: LLVM and Mesa
        // select MULADD for fmad, not fma).
        16..=19 => fl(scale(mul_legacy(a, c) + d, op - 16)),
        20..=23 => fl(scale(a * c + d, op - 20)),
        // CNDE/CNDGT/CNDGE (CMOV* in chapter 9, 3155-3333): float compare with 0.
        24 => val(if a == 0.0 { s[1] } else { s[2] }),
        25 => val(if a > 0.0 { s[1] } else { s[2] }),
        26 => val(if a >= 0.0 { s[1] } else { s[2] }),
        28 => val(if s[0] == 0 { s[1] } else { s[2] }),
        29 => val(if (s[0] as i32) > 0 { s[1] } else { s[2] }),
        30 => val(if (s[0] as i32) >= 0 { s[1] } else { s[2] }),
        _ => return None,
    })
}
