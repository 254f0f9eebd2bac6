//! Every single-slot ALU opcode on special values, against a host computation written from
//! the manual's pseudocode (002 chapter 9.2), plus groups: PV/PS, two-phase commit,
//! predication, relative addressing, kcache, reductions, double precision.

mod emu_common;

use baregpu_r700::alu::{AluForm, OP2, OP3};
use baregpu_r700::cf::CfAluOp;
use baregpu_r700::emu::{self, ConstBuffer, Options, VtxResource};
use baregpu_r700::fetch::VtxInst;
use emu_common::*;

const MAXF: f32 = f32::MAX;

fn fb(v: f32) -> u32 {
    v.to_bits()
}

/// The special values the manual's tables range over: zeros, denormals, ones, infinities,
/// NaNs, MAX_FLOAT, and integer patterns.
fn specials() -> Vec<u32> {
    vec![
        fb(0.0),
        fb(-0.0),
        0x0000_0001, // +denormal
        0x8040_0000, // -denormal
        fb(1.0),
        fb(-1.0),
        fb(0.5),
        fb(2.5),
        fb(-3.75),
        fb(1e30),
        fb(MAXF),
        fb(-MAXF),
        fb(f32::INFINITY),
        fb(f32::NEG_INFINITY),
        0x7FC0_0000,
        0xFFC0_0001,
        1,
        31,
        32,
        33,
        0x8000_0000,
        0xFFFF_FFFF,
        0x7FFF_FFFF,
        0x1234_5678,
    ]
}

#[derive(Clone, Copy, Debug)]
enum Want {
    Bits(u32),
    /// Within 2 ulp (the manual's "approximate" transcendentals).
    Near(f32),
}

struct Expect {
    v: Want,
    pred: Option<bool>,
    kill: bool,
}

fn flush(x: u32) -> u32 {
    if x & 0x7F80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

fn e(v: u32) -> Expect {
    Expect {
        v: Want::Bits(v),
        pred: None,
        kill: false,
    }
}

fn ef(v: f32) -> Expect {
    e(flush(fb(v)))
}

fn near(v: f32) -> Expect {
    Expect {
        v: Want::Near(v),
        pred: None,
        kill: false,
    }
}

fn p(cond: bool, skip: f32) -> Expect {
    Expect {
        v: Want::Bits(if cond { 0 } else { fb(skip) }),
        pred: Some(cond),
        kill: false,
    }
}

fn k(cond: bool) -> Expect {
    Expect {
        v: Want::Bits(fb(if cond { 1.0 } else { 0.0 })),
        pred: None,
        kill: cond,
    }
}

fn b1(c: bool) -> f32 {
    if c { 1.0 } else { 0.0 }
}

fn m(c: bool) -> u32 {
    if c { u32::MAX } else { 0 }
}

/// Float sources are denormal-flushed (integer ones are not).
fn float_in(op2: Option<u16>, op3: Option<u8>) -> bool {
    match (op2, op3) {
        (Some(o), _) => !matches!(o, 24..=26 | 30 | 31 | 48..=79 | 96 | 108 | 109 | 112..=120),
        (_, Some(o)) => !matches!(o, 28..=30),
        _ => false,
    }
}

/// OP2, from the pseudocode pages (lines per opcode in `baregpu_r700::alu::OP2`'s notes).
fn ref2(op: u16, a: u32, b: u32) -> Option<Expect> {
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    let (i, j) = (a as i32, b as i32);
    let pushf = |c: bool| {
        if c && x == 0.0 {
            p(true, 0.0)
        } else {
            p(false, x + 1.0)
        }
    };
    Some(match op {
        0 => ef(x + y),
        1 => ef(if x == 0.0 || y == 0.0 { 0.0 } else { x * y }),
        2 => ef(x * y),
        3 => ef(if x >= y { x } else { y }),
        4 => ef(if x < y { x } else { y }),
        5 => ef(if x.is_nan() {
            y
        } else if y.is_nan() || x >= y {
            x
        } else {
            y
        }),
        6 => ef(if x.is_nan() {
            y
        } else if y.is_nan() || x < y {
            x
        } else {
            y
        }),
        8 => ef(b1(x == y)),
        9 => ef(b1(x > y)),
        10 => ef(b1(x >= y)),
        11 => ef(b1(x != y)),
        12 => e(m(x == y)),
        13 => e(m(x > y)),
        14 => e(m(x >= y)),
        15 => e(m(x != y)),
        16 => ef(x - x.floor()),
        17 => ef(x.trunc()),
        18 => ef(x.ceil()),
        19 => ef(x.round_ties_even()),
        20 => ef(x.floor()),
        25 => e(a),
        30 => p(a > b, 1.0),
        31 => p(a >= b, 1.0),
        32 => p(x == y, 1.0),
        33 => p(x > y, 1.0),
        34 => p(x >= y, 1.0),
        35 => p(x != y, 1.0),
        36 => {
            if x == 1.0 {
                p(true, 0.0)
            } else if x == 0.0 {
                p(false, 1.0)
            } else {
                Expect {
                    v: Want::Bits(a),
                    pred: Some(false),
                    kill: false,
                }
            }
        }
        37 => {
            if x <= y {
                p(true, 0.0)
            } else {
                p(false, x - y)
            }
        }
        38 => p(false, MAXF),
        39 => {
            if x == 0.0 {
                p(true, 0.0)
            } else {
                Expect {
                    v: Want::Bits(a),
                    pred: Some(false),
                    kill: false,
                }
            }
        }
        40 => pushf(y == 0.0),
        41 => pushf(y > 0.0),
        42 => pushf(y >= 0.0),
        43 => pushf(y != 0.0),
        44 => k(x == y),
        45 => k(x > y),
        46 => k(x >= y),
        47 => k(x != y),
        48 => e(a & b),
        49 => e(a | b),
        50 => e(a ^ b),
        51 => e(!a),
        52 => e(a.wrapping_add(b)),
        53 => e(a.wrapping_sub(b)),
        54 => e(i.max(j) as u32),
        55 => e(i.min(j) as u32),
        56 => e(a.max(b)),
        57 => e(a.min(b)),
        58 => e(m(a == b)),
        59 => e(m(i > j)),
        60 => e(m(i >= j)),
        61 => e(m(a != b)),
        62 => e(m(a > b)),
        63 => e(m(a >= b)),
        64 => k(a > b),
        65 => k(a >= b),
        66 => p(a == b, 1.0),
        67 => p(i > j, 1.0),
        68 => p(i >= j, 1.0),
        69 => p(a != b, 1.0),
        70 => k(a == b),
        71 => k(i > j),
        72 => k(i >= j),
        73 => k(a != b),
        74 => pushf(j == 0),
        75 => pushf(j > 0),
        76 => pushf(j >= 0),
        77 => pushf(j != 0),
        78 => pushf(j < 0),
        79 => pushf(j <= 0),
        97 => near(x.exp2()),
        98 => {
            let r = if x == 1.0 { 0.0 } else { x.log2() };
            near(if r == f32::NEG_INFINITY { -MAXF } else { r })
        }
        99 => near(if x == 1.0 { 0.0 } else { x.log2() }),
        100 => {
            let r = 1.0 / x;
            ef(if r.is_infinite() { MAXF.copysign(r) } else { r })
        }
        101 => {
            let r = 1.0 / x;
            ef(if r.is_infinite() {
                0.0f32.copysign(r)
            } else {
                r
            })
        }
        102 => ef(1.0 / x),
        103 => {
            let r = 1.0 / x.sqrt();
            near(if r.is_infinite() { MAXF.copysign(r) } else { r })
        }
        104 => {
            let r = 1.0 / x.sqrt();
            near(if r.is_infinite() {
                0.0f32.copysign(r)
            } else {
                r
            })
        }
        105 => near(1.0 / x.sqrt()),
        106 => near(x.sqrt()),
        107 | 121 => e(if x.is_finite() {
            // The low 32 bits of the integer, computed in f64 (exact for integers).
            (x.trunc() as f64).rem_euclid(4_294_967_296.0) as u32
        } else {
            0
        }),
        108 => ef(i as f32),
        109 => ef(a as f32),
        110 => near((x * std::f32::consts::TAU).sin()),
        111 => near((x * std::f32::consts::TAU).cos()),
        112 => e(if b > 31 {
            (i >> 31) as u32
        } else {
            (i >> b) as u32
        }),
        113 => e(a.checked_shr(b).unwrap_or(0)),
        114 => e(a.checked_shl(b).unwrap_or(0)),
        115 => e((i as i64).wrapping_mul(j as i64) as u32),
        116 => e(((i as i64 * j as i64) >> 32) as u32),
        117 => e(a.wrapping_mul(b)),
        118 => e(((a as u64 * b as u64) >> 32) as u32),
        119 => e(if i == 0 {
            u32::MAX
        } else {
            ((1i64 << 32) / i as i64) as u32
        }),
        120 => e(if a == 0 {
            u32::MAX
        } else {
            ((1u64 << 32) / a as u64).min(u32::MAX as u64) as u32
        }),
        _ => return None,
    })
}

fn ref3(op: u8, a: u32, b: u32, c: u32) -> Option<Expect> {
    let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
    let sc = |v: f32, s: u8| [v, v * 2.0, v * 4.0, v * 0.5][s as usize];
    let leg = |x: f32, y: f32| if x == 0.0 || y == 0.0 { 0.0 } else { x * y };
    Some(match op {
        12..=15 => {
            let r = if y == -MAXF || y == f32::NEG_INFINITY || y.is_nan() || z <= 0.0 || z.is_nan()
            {
                -MAXF
            } else {
                leg(x, y)
            };
            ef(sc(r, op - 12))
        }
        16..=19 => ef(sc(leg(x, y) + z, op - 16)),
        20..=23 => ef(sc(x * y + z, op - 20)),
        24 => e(flush(if x == 0.0 { b } else { c })),
        25 => e(flush(if x > 0.0 { b } else { c })),
        26 => e(flush(if x >= 0.0 { b } else { c })),
        28 => e(if a == 0 { b } else { c }),
        29 => e(if (a as i32) > 0 { b } else { c }),
        30 => e(if (a as i32) >= 0 { b } else { c }),
        _ => return None,
    })
}

/// A program: VTX fetch of the thread's (a, b, c) into R1, the op into R3.x, then a
/// predicated pair of MOVs into R3.y (pred set) / R3.z (pred clear); exports R1 and R3.
fn program(inst: baregpu_r700::alu::AluInst) -> Vec<u8> {
    let fetch = VtxInst {
        op: 0,
        fetch_type: 0,
        fetch_whole_quad: false,
        buffer_id: 0,
        src_gpr: 0,
        src_rel: false,
        src_sel_x: 0,
        mega_fetch_count: 15,
        dst_or_semantic: 1,
        dst_sel: [0, 1, 2, 3],
        use_const_fields: false,
        data_format: 34, // FMT_32_32_32_32
        num_format_all: 1,
        format_comp_all: false,
        srf_mode_all: false,
        offset: 0,
        endian_swap: 0,
        const_buf_no_stride: false,
        mega_fetch: true,
        alt_const: false,
    };
    let mut yes = op2(25, (3, 1), gpr(249, 0), gpr(249, 0));
    yes.pred_sel = 3;
    let mut no = op2(25, (3, 2), gpr(249, 0), gpr(249, 0));
    no.pred_sel = 2;
    build(vec![
        C::Vtx(vec![fetch]),
        C::Alu(
            CfAluOp::Alu,
            vec![group(vec![inst], vec![]), group(vec![yes, no], vec![])],
        ),
        export_params(1, 3),
    ])
}

fn check_op(
    name: &str,
    inst: baregpu_r700::alu::AluInst,
    cases: &[[u32; 3]],
    r: impl Fn(u32, u32, u32) -> Expect,
) {
    let bytes = program(inst);
    let mut input: Vec<u8> = cases
        .iter()
        .flat_map(|c| c.iter().chain(&[0]).flat_map(|w| w.to_le_bytes()))
        .collect();
    let mut opts = Options {
        vtx_resources: vec![(
            0,
            VtxResource::buffer(emu::address(1, 0), input.len() as u32, 16, 34, 1),
        )],
        ..Options::default()
    };
    let (rep, out) =
        run_params(&bytes, cases.len() as u32, 3, &mut opts, &mut [&mut input]).unwrap();
    let mut kills = 0;
    for (t, c) in cases.iter().enumerate() {
        let (a, b, cc) = (c[0], c[1], c[2]);
        assert_eq!(
            &out[t][0][..3],
            &c[..],
            "{name}: the fetch delivered the inputs"
        );
        let want = r(a, b, cc);
        let got = out[t][2][0];
        match want.v {
            Want::Bits(w) => assert!(
                got == w
                    || (f32::from_bits(w).is_nan()
                        && f32::from_bits(got).is_nan()
                        && !matches!(name, "MOV" | "CNDE_INT")),
                "{name}({a:#010x}, {b:#010x}, {cc:#010x}) = {got:#010x}, want {w:#010x}"
            ),
            Want::Near(w) => {
                let g = f32::from_bits(got);
                let ok = if w.is_nan() {
                    g.is_nan()
                } else if w.is_infinite() || w == 0.0 {
                    g == w
                } else {
                    ((g - w) / w).abs() <= 2.5e-7
                };
                assert!(ok, "{name}({a:#010x}) = {g:e}, want about {w:e}");
            }
        }
        let pred = out[t][2][1] == fb(1.0);
        let unpred = out[t][2][2] == fb(1.0);
        assert_eq!(pred, !unpred, "{name}: exactly one predicated MOV runs");
        assert_eq!(
            pred,
            want.pred.unwrap_or(true),
            "{name}({a:#x}, {b:#x}): predicate"
        );
        kills += want.kill as u64;
    }
    assert_eq!(rep.killed, kills, "{name}: killed threads");
}

fn cases(n: usize) -> Vec<[u32; 3]> {
    let s = specials();
    let mut out = Vec::new();
    for (i, &a) in s.iter().enumerate() {
        for (j, &b) in s.iter().enumerate() {
            if n == 1 && j > 0 {
                break;
            }
            out.push([a, b, s[(i * 7 + j * 3) % s.len()]]);
        }
    }
    out
}

#[test]
fn every_single_slot_op2_against_the_pseudocode() {
    let mut tested = 0;
    for info in OP2 {
        let op = info.opcode;
        // Multi-slot (reductions, doubles), MOVA* and NOP are tested below.
        if matches!(op, 7 | 21 | 22 | 23 | 24 | 26 | 27 | 28 | 29 | 80..=83 | 96 | 122..=126) {
            continue;
        }
        let mut i = op2(op, (3, 0), gpr(1, 0), gpr(1, 1));
        if let AluForm::Op2 {
            ref mut update_pred,
            ..
        } = i.form
        {
            *update_pred = true;
        }
        let fin = float_in(Some(op), None);
        check_op(
            info.name,
            i,
            &cases(info.srcs.max(1) as usize),
            |a, b, _| {
                let (a, b) = if fin { (flush(a), flush(b)) } else { (a, b) };
                ref2(op, a, b).unwrap_or_else(|| panic!("no reference for {}", info.name))
            },
        );
        tested += 1;
    }
    assert_eq!(tested, 96, "every single-slot OP2 opcode has a reference");
}

#[test]
fn every_single_slot_op3_against_the_pseudocode() {
    for info in OP3.iter().filter(|o| o.opcode >= 12) {
        let op = info.opcode as u8;
        let i = op3(op, (3, 0), gpr(1, 0), gpr(1, 1), gpr(1, 2));
        let fin = float_in(None, Some(op));
        check_op(info.name, i, &cases(2), |a, b, c| {
            let (a, b, c) = if fin {
                (flush(a), flush(b), flush(c))
            } else {
                (a, b, c)
            };
            ref3(op, a, b, c).unwrap()
        });
    }
}

/// OMOD and CLAMP apply to float results, after the op (002 lines 1966-1980).
#[test]
fn output_modifiers() {
    for (omod, clamp, x, want) in [
        (1u8, false, 0.75f32, 1.5f32),
        (2, false, 0.75, 3.0),
        (3, false, 0.75, 0.375),
        (1, true, 0.75, 1.0),
        (0, true, -2.0, 0.0),
    ] {
        let mut i = op2(0, (3, 0), gpr(1, 0), gpr(248, 0));
        i.clamp = clamp;
        if let AluForm::Op2 {
            omod: ref mut o, ..
        } = i.form
        {
            *o = omod;
        }
        check_op("ADD+omod", i, &[[fb(x), 0, 0]], |_, _, _| e(fb(want)));
    }
    // Integer results take neither: ADD_INT with CLAMP keeps its bits.
    let mut i = op2(52, (3, 0), gpr(1, 0), gpr(1, 1));
    i.clamp = true;
    check_op("ADD_INT+clamp", i, &[[0x7FFF_0000, 0x10, 0]], |_, _, _| {
        e(0x7FFF_0010)
    });
}

fn run_groups(
    groups: Vec<baregpu_r700::alu::AluGroup>,
    threads: u32,
    opts: &mut Options,
) -> Vec<Vec<[u32; 4]>> {
    let bytes = build(vec![C::Alu(CfAluOp::Alu, groups), export_params(3, 4)]);
    run_params(&bytes, threads, 4, opts, &mut []).unwrap().1
}

/// All slots read before any writes; PV/PS forward the previous group; Trans wins a GPR.
#[test]
fn two_phase_commit_pv_ps_and_trans_priority() {
    let g0 = group(
        vec![
            op2(0, (3, 0), gpr(249, 0), gpr(249, 0)), // R3.x = 2.0
            op2(0, (3, 1), gpr(252, 0), gpr(252, 0)), // R3.y = 1.0
            op2(25, (4, 0), lit(0), gpr(0, 0)),       // R4.x = literal 7.0
        ],
        vec![fb(7.0), 0],
    );
    // R3.x and R3.y swap through one group: both read before either writes.
    let g1 = group(
        vec![
            op2(25, (3, 0), gpr(3, 1), gpr(0, 0)),
            op2(25, (3, 1), gpr(3, 0), gpr(0, 0)),
        ],
        vec![],
    );
    // PV.x / PV.y hold g1's results, PS holds nothing (empty Trans): R5 = PV.x + PV.y.
    let g2 = group(
        vec![
            op2(0, (5, 0), gpr(254, 0), gpr(254, 1)),
            // X and Trans both write R5.w: Trans wins the GPR, PV.w keeps the vector value.
            op2(25, (5, 3), gpr(249, 0), gpr(0, 0)),
            op2(108, (5, 3), gpr(250, 0), gpr(0, 0)), // Trans: INT_TO_FLT 1 -> but R5.w taken by W
        ],
        vec![],
    );
    let g3 = group(
        vec![
            op2(25, (6, 0), gpr(254, 3), gpr(0, 0)), // PV.w: the W unit's 1.0
            op2(25, (6, 1), gpr(255, 0), gpr(0, 0)), // PS: Trans's 1.0
        ],
        vec![],
    );
    let mut opts = Options::default();
    let out = run_groups(vec![g0, g1, g2, g3], 4, &mut opts);
    for t in &out {
        assert_eq!(t[0][0], fb(1.0), "R3.x got old R3.y");
        assert_eq!(t[0][1], fb(2.0), "R3.y got old R3.x");
        assert_eq!(t[1][0], fb(7.0), "literal");
        assert_eq!(t[2][0], fb(3.0), "PV.x + PV.y");
        assert_eq!(t[2][3], fb(1.0), "R5.w");
        assert_eq!(t[3][0], fb(1.0));
        assert_eq!(t[3][1], fb(1.0));
    }
}

/// MOVA, MOVA_FLOOR, MOVA_INT and MOVA_GPR_INT (as MOVA_INT: Mesa sb loads AR with either)
/// into AR.x (002 lines 4473-4566: out of [-256, 255] is -256), observed through AR-relative cfile reads in the next group: c[0 + AR] and
/// c[255 + AR] with c[i].x = i, out of [0, 255] 0x7FFFFFFF.
#[test]
fn mova_variants_and_relative_addressing() {
    let host = |op: u16, x: u32| -> i32 {
        let clamp = |f: f32| {
            let f = if f >= -256.0 { f } else { -256.0 };
            if f > 255.0 { -256 } else { f as i32 }
        };
        match op {
            21 => clamp((f32::from_bits(x) + 0.5).floor()),
            22 => clamp(f32::from_bits(x).floor()),
            _ => {
                let i = x as i32;
                if (-256..=255).contains(&i) { i } else { -256 }
            }
        }
    };
    let mut opts = Options::default();
    for i in 0..256 {
        opts.cfile[i][0] = i as u32;
    }
    let floats = [
        1.4f32,
        1.5,
        -0.6,
        -0.5,
        0.0,
        255.4,
        255.5,
        255.6,
        -256.4,
        -300.0,
        1e30,
        f32::NAN,
    ];
    let ints = [0i32, 1, -1, 255, 256, -256, -257, i32::MAX, i32::MIN];
    let cases = floats
        .iter()
        .map(|f| (21u16, f.to_bits()))
        .chain(floats.iter().map(|f| (22, f.to_bits())))
        .chain(ints.iter().map(|&i| (24, i as u32)))
        .chain(ints.iter().map(|&i| (96, i as u32)));
    for (op, x) in cases {
        let mut mova = op2(op, (10, 0), lit(0), gpr(0, 0));
        if let AluForm::Op2 {
            ref mut write_mask, ..
        } = mova.form
        {
            *write_mask = false;
        }
        let mut low = op2(25, (3, 0), gpr(256, 0), gpr(0, 0));
        low.src0.rel = true;
        let mut high = op2(25, (3, 1), gpr(256 + 255, 0), gpr(0, 0));
        high.src0.rel = true;
        let out = run_groups(
            vec![
                group(vec![mova], vec![x, 0]),
                group(vec![low, high], vec![]),
            ],
            1,
            &mut opts,
        );
        let ar = host(op, x);
        let read = |i: i32| {
            if (0..=255).contains(&i) {
                i as u32
            } else {
                0x7FFF_FFFF
            }
        };
        assert_eq!(
            &out[0][0][..2],
            &[read(ar), read(255 + ar)],
            "op {op} of {x:#x}: AR {ar}"
        );
    }
}

/// AR.x indexes GPRs (whatever AR element INDEX_MODE names); out of range reads GPR0.
#[test]
fn relative_gpr_addressing() {
    let mut mova = op2(24, (10, 0), lit(0), gpr(0, 0));
    if let AluForm::Op2 {
        ref mut write_mask, ..
    } = mova.form
    {
        *write_mask = false;
    }
    let set = group(
        vec![
            op2(25, (7, 0), lit(0), gpr(0, 0)),
            op2(25, (0, 1), lit(1), gpr(0, 0)),
        ],
        vec![0x77, 0x99],
    );
    let mut opts = Options::default();
    for (ar, want) in [(1u32, [0x77, 0]), (200, [0, 0x99])] {
        let mut rel = op2(25, (3, 0), gpr(6, 0), gpr(0, 0));
        rel.src0.rel = true;
        rel.index_mode = 2; // AR.z named, AR.x used for GPRs
        let mut rel_y = op2(25, (3, 1), gpr(6, 1), gpr(0, 0));
        rel_y.src0.rel = true;
        let out = run_groups(
            vec![
                set.clone(),
                group(vec![mova], vec![ar, 0]),
                group(vec![rel, rel_y], vec![]),
            ],
            1,
            &mut opts,
        );
        assert_eq!(&out[0][0][..2], &want, "AR {ar}");
    }
}

/// DOT4 (legacy 0*x), DOT4_IEEE, MAX4 and CUBE on all four vector units.
#[test]
fn reductions() {
    let vals = [fb(1.0), fb(2.0), fb(0.0), fb(-3.0)];
    let other = [fb(4.0), fb(0.5), fb(f32::INFINITY), fb(2.0)];
    let mk = |op: u16| {
        group(
            (0..4).map(|c| op2(op, (3, c), lit(c), gpr(1, c))).collect(),
            vals.to_vec(),
        )
    };
    let setup = group(
        (0..4).map(|c| op2(25, (1, c), lit(c), gpr(0, 0))).collect(),
        other.to_vec(),
    );
    let mut opts = Options::default();
    let out = run_groups(vec![setup.clone(), mk(80)], 1, &mut opts);
    // 1*4 + 2*0.5 + 0*inf(=0, legacy) + -3*2 = -1
    assert_eq!(out[0][0], [fb(-1.0); 4]);
    let out = run_groups(vec![setup.clone(), mk(81)], 1, &mut opts);
    assert!(f32::from_bits(out[0][0][0]).is_nan(), "IEEE 0*inf is NaN");
    let out = run_groups(vec![setup, mk(83)], 1, &mut opts);
    assert_eq!(out[0][0], [fb(2.0); 4]);
    // CUBE of (x, y, z) = (0.5, -0.25, -2): major axis -Z, face 5, S = -x, T = -y.
    let v = [0.5f32, -0.25, -2.0];
    let src0 = [2usize, 2, 0, 1]; // zzxy
    let src1 = [1usize, 0, 2, 2]; // yxzz
    let cube = group(
        (0..4)
            .map(|c| op2(82, (3, c as u8), lit(src0[c] as u8), lit(src1[c] as u8)))
            .collect(),
        vec![fb(v[0]), fb(v[1]), fb(v[2]), 0],
    );
    let out = run_groups(vec![cube], 1, &mut opts);
    assert_eq!(out[0][0], [fb(0.25), fb(-0.5), fb(-4.0), fb(5.0)]);
}

/// ADD_64 and FLT32_TO_FLT64 with the manual's bit-exact examples (002 lines 3042-3077,
/// 3566-3589): high dword in X, low in Y; results low in X, high in Y.
#[test]
fn double_precision_examples() {
    let add = group(
        vec![
            op2(23, (3, 0), lit(0), lit(2)),
            op2(23, (3, 1), lit(1), lit(3)),
        ],
        vec![0x4008_0000, 0, 0x4018_0000, 0],
    );
    let conv = group(
        vec![
            op2(29, (4, 0), lit(0), gpr(248, 0)),
            op2(29, (4, 1), lit(1), gpr(248, 0)),
        ],
        vec![fb(0.5), 0],
    );
    let mut opts = Options::default();
    let out = run_groups(vec![add, conv], 1, &mut opts);
    assert_eq!(&out[0][0][..2], &[0, 0x4022_0000], "3.0 + 6.0 = 9.0");
    assert_eq!(&out[0][1][..2], &[0, 0x3FE0_0000], "flt32_to_flt64(0.5)");
}

/// kcache windows read constant buffers; the cfile; out-of-range relative reads.
#[test]
fn kcache_and_constant_file() {
    let mut cb = vec![0u8; 64 * 16];
    for (i, w) in cb.chunks_exact_mut(4).enumerate() {
        w.copy_from_slice(&(i as u32 * 3).to_le_bytes());
    }
    let mut opts = Options::default();
    opts.const_buffers[2] = Some(ConstBuffer {
        address: emu::address(1, 0),
        size: cb.len() as u32,
    });
    opts.cfile[200] = [10, 11, 12, 13];
    // Window 0: bank 2, LOCK_1 at line 1 -> KC0[5] is constant 21; window 1: bank 2,
    // LOCK_2 at line 2 -> KC1[20] is constant 52.
    let g = group(
        vec![
            op2(25, (3, 0), gpr(128 + 5, 2), gpr(0, 0)),
            op2(25, (3, 1), gpr(160 + 20, 1), gpr(0, 0)),
            op2(25, (3, 2), gpr(256 + 200, 3), gpr(0, 0)),
            op2(25, (3, 3), gpr(128 + 20, 0), gpr(0, 0)), // past LOCK_1's 16: 0x7FFFFFFF
        ],
        vec![],
    );
    let bytes = build(vec![
        C::AluK(CfAluOp::Alu, [(2, 1, 1), (2, 2, 2)], vec![g]),
        export_params(3, 1),
    ]);
    let (_, out) = run_params(&bytes, 1, 1, &mut opts, &mut [&mut cb]).unwrap();
    assert_eq!(
        out[0][0],
        [(21 * 4 + 2) * 3, (52 * 4 + 1) * 3, 13, 0x7FFF_FFFF]
    );
}

/// Denormal flushing is an option: off, a denormal sum stays denormal.
#[test]
fn denormal_flushing_option() {
    let g = group(vec![op2(0, (3, 0), lit(0), lit(0))], vec![1, 0]);
    let mut opts = Options::default();
    assert_eq!(run_groups(vec![g.clone()], 1, &mut opts)[0][0][0], 0);
    opts.flush_denormals = false;
    assert_eq!(run_groups(vec![g], 1, &mut opts)[0][0][0], 2);
}

/// Relative constant-file reads: AR.x indexes, out of [0, 255] reads 0x7FFFFFFF (002 line
/// 1348); clause temporaries do not outlive their clause.
#[test]
fn relative_cfile_and_clause_temps() {
    let mut opts = Options {
        clause_temps: 2,
        ..Options::default()
    };
    opts.cfile[5] = [50, 51, 52, 53];
    let mut mova = op2(24, (10, 0), lit(0), gpr(0, 0));
    if let AluForm::Op2 {
        ref mut write_mask, ..
    } = mova.form
    {
        *write_mask = false;
    }
    let mut near = op2(25, (3, 0), gpr(256 + 2, 1), gpr(0, 0));
    near.src0.rel = true;
    let mut far = op2(25, (3, 1), gpr(256 + 254, 0), gpr(0, 0));
    far.src0.rel = true;
    let temp = op2(25, (127, 0), lit(1), gpr(0, 0));
    let bytes = build(vec![
        C::Alu(
            CfAluOp::Alu,
            vec![
                group(vec![mova, temp], vec![3, 77]),
                group(vec![near, far], vec![]),
                group(vec![op2(25, (3, 2), gpr(127, 0), gpr(0, 0))], vec![]),
            ],
        ),
        C::Alu(
            CfAluOp::Alu,
            vec![group(vec![op2(25, (3, 3), gpr(127, 0), gpr(0, 0))], vec![])],
        ),
        export_params(3, 1),
    ]);
    let (_, out) = run_params(&bytes, 1, 1, &mut opts, &mut []).unwrap();
    assert_eq!(out[0][0], [51, 0x7FFF_FFFF, 77, 0]);
}

/// Loads doubles into R1 (high dwords) and R2 (low dwords), one per element.
fn doubles(vals: &[u64]) -> Vec<baregpu_r700::alu::AluGroup> {
    let mov = |r: u8, half: fn(u64) -> u32| {
        group(
            (0..vals.len())
                .map(|c| op2(25, (r, c as u8), lit(c as u8), gpr(0, 0)))
                .collect(),
            vals.iter().map(|&v| half(v)).collect(),
        )
    };
    vec![mov(1, |v| (v >> 32) as u32), mov(2, |v| v as u32)]
}

/// A two-slot double op on the pair at `pair` (0 XY, 2 ZW): the even unit reads the high
/// dwords (R1), the odd one the low dwords (R2), of elements `a` and `b`.
fn dp2(op: u16, pair: u8, a: u8, b: u8) -> Vec<baregpu_r700::alu::AluInst> {
    vec![
        op2(op, (3, pair), gpr(1, a), gpr(1, b)),
        op2(op, (3, pair + 1), gpr(2, a), gpr(2, b)),
    ]
}

/// The manual's bit-exact double-precision examples: MUL_64 (4647), MULADD_64 (4925-4957),
/// FRACT_64 (3752), LDEXP_64 (4063-4100), PRED_SETE_64 / PRED_SETGE_64 (5437-5477,
/// 5691-5731), FREXP_64 of 3.0 (3821-3834: 0.75 * 2^2).
#[test]
fn double_precision_manual_examples() {
    let (three, six, twelve) = (3.0f64.to_bits(), 6.0f64.to_bits(), 12.0f64.to_bits());
    let mut opts = Options::default();
    let four = |op: u16| -> Vec<baregpu_r700::alu::AluInst> {
        (0..4)
            .map(|c| {
                let r = if c == 3 { 2 } else { 1 };
                op2(op, (3, c), gpr(r, 0), gpr(r, 1))
            })
            .collect()
    };
    let mut g = doubles(&[three, six]);
    g.push(group(four(27), vec![]));
    let out = run_groups(g, 1, &mut opts);
    assert_eq!(out[0][0], [0, 0x4032_0000, 0, 0x4032_0000], "MUL_64 3*6");

    let mut g = doubles(&[three, six, twelve]);
    let mad: Vec<_> = (0..4)
        .map(|c| {
            let r = if c == 3 { 2 } else { 1 };
            op3(8, (3, c), gpr(r, 0), gpr(r, 1), gpr(r, 2))
        })
        .collect();
    g.push(group(mad, vec![]));
    let out = run_groups(g, 1, &mut opts);
    assert_eq!(
        out[0][0],
        [0, 0x403E_0000, 0, 0x403E_0000],
        "MULADD_64 3*6+12"
    );

    let mut g = doubles(&[0x4021_A0F4_F077_BCA7, 0x402A_39F1_A0AC_1721]);
    let mut f = dp2(123, 0, 0, 0);
    f.extend(dp2(123, 2, 1, 1));
    g.push(group(f, vec![]));
    let out = run_groups(g, 1, &mut opts);
    assert_eq!(
        out[0][0],
        [0x077B_CA70, 0x3FEA_0F4F, 0x560B_9080, 0x3FBC_F8D0],
        "FRACT_64"
    );

    // LDEXP_64: the exponent is an integer in src1.
    let mut g = doubles(&[0x47F0_0000_6FC6_A731, 0xC7EF_FFFE_E072_B19F, 0x2C6, 0x15E]);
    let mut l = vec![
        op2(122, (3, 0), gpr(1, 0), gpr(2, 2)),
        op2(122, (3, 1), gpr(2, 0), gpr(2, 2)),
        op2(122, (3, 2), gpr(1, 1), gpr(2, 3)),
        op2(122, (3, 3), gpr(2, 1), gpr(2, 3)),
    ];
    g.push(group(std::mem::take(&mut l), vec![]));
    let out = run_groups(g, 1, &mut opts);
    assert_eq!(
        out[0][0],
        [0x6FC6_A731, 0x7450_0000, 0xE072_B19F, 0xDDCF_FFFE],
        "LDEXP_64"
    );

    // PRED_SETE_64 (6 == 6: 0, execute) and PRED_SETGE_64 (3 >= 6: all ones, skip); the
    // predicate decides which of two predicated MOVs runs.
    for (op, a, b, want, pred) in [
        (125u16, 0u8, 0u8, 0u32, true),
        (126, 1, 0, u32::MAX, false),
        (124, 0, 1, 0, true),
    ] {
        let mut g = doubles(&[six, three]);
        let mut p = dp2(op, 0, a, b);
        for i in &mut p {
            if let AluForm::Op2 {
                ref mut update_pred,
                ..
            } = i.form
            {
                *update_pred = true;
            }
        }
        g.push(group(p, vec![]));
        let mut yes = op2(25, (4, 0), gpr(249, 0), gpr(0, 0));
        yes.pred_sel = 3;
        g.push(group(vec![yes], vec![]));
        let out = run_groups(g, 1, &mut opts);
        assert_eq!(&out[0][0][..2], &[want, want], "op {op}");
        assert_eq!(out[0][1][0] == 0x3F80_0000, pred, "op {op} predicate");
    }

    let mut g = doubles(&[three]);
    g.push(group(
        (0..4)
            .map(|c| op2(7, (3, c), gpr(1 + (c == 1) as u16, 0), gpr(0, 0)))
            .collect(),
        vec![],
    ));
    let out = run_groups(g, 1, &mut opts);
    let frac = 0.75f64.to_bits();
    assert_eq!(
        out[0][0],
        [2, 0, frac as u32, (frac >> 32) as u32],
        "FREXP_64(3.0)"
    );
}

/// CUBE on each face, against the OpenGL cube-map selection table (major axis, sc, tc;
/// faces +X -X +Y -Y +Z -Z = 0-5): W = face, Z = 2 * major axis, Y = sc, X = tc.
#[test]
fn cube_faces() {
    let host = |x: f32, y: f32, z: f32| -> [f32; 4] {
        let (face, ma, sc, tc) = if z.abs() >= x.abs() && z.abs() >= y.abs() {
            if z >= 0.0 {
                (4.0, z, x, -y)
            } else {
                (5.0, z, -x, -y)
            }
        } else if y.abs() >= x.abs() {
            if y >= 0.0 {
                (2.0, y, x, z)
            } else {
                (3.0, y, x, -z)
            }
        } else if x >= 0.0 {
            (0.0, x, -z, -y)
        } else {
            (1.0, x, z, -y)
        };
        [tc, sc, 2.0 * ma, face]
    };
    let mut opts = Options::default();
    for v in [
        [2.0f32, 0.5, -0.25],
        [-3.0, 1.0, 2.0],
        [0.1, 4.0, -1.0],
        [0.5, -6.0, 0.25],
        [0.2, 0.3, 0.9],
        [-0.2, 0.3, -0.9],
    ] {
        let src0 = [2u8, 2, 0, 1]; // zzxy
        let src1 = [1u8, 0, 2, 2]; // yxzz
        let cube = group(
            (0..4)
                .map(|c| op2(82, (3, c as u8), lit(src0[c]), lit(src1[c])))
                .collect(),
            vec![fb(v[0]), fb(v[1]), fb(v[2]), 0],
        );
        let out = run_groups(vec![cube], 1, &mut opts);
        assert_eq!(out[0][0], host(v[0], v[1], v[2]).map(fb), "CUBE {v:?}");
    }
}

/// Unit assignment (002 lines 1249-1290): shifts go to any unit, two of them share a group;
/// a second Trans-only op in a group is an error, not a panic.
#[test]
fn unit_assignment() {
    let shifts = group(
        vec![
            op2(114, (3, 0), lit(0), gpr(250, 0)),
            op2(113, (3, 1), lit(0), gpr(250, 0)),
            op2(112, (3, 2), lit(1), gpr(250, 0)),
            op2(115, (3, 3), lit(0), lit(0)), // MULLO_INT: Trans
        ],
        vec![6, 0x8000_0000],
    );
    let mut opts = Options::default();
    let out = run_groups(vec![shifts], 1, &mut opts);
    assert_eq!(out[0][0], [12, 3, 0xC000_0000, 36]);
    let two = group(
        vec![
            op2(115, (3, 0), lit(0), lit(0)),
            op2(117, (3, 1), lit(0), lit(0)),
        ],
        vec![6, 0],
    );
    let bytes = build(vec![C::Alu(CfAluOp::Alu, vec![two]), export_params(3, 1)]);
    let e = run_params(&bytes, 1, 1, &mut opts, &mut []).unwrap_err();
    assert!(e.to_string().contains("Trans"), "{e}");
}

/// DOT4 adds in the pseudocode's order, W + Z + Y + X: with 1e8, 1, -1e8, 1 that order
/// gives 1 where X-first would give 0 (002 lines 3397-3400); all -0 products give -0.
#[test]
fn dot4_order_and_signed_zero() {
    let mut opts = Options::default();
    for (a, want) in [
        ([1.0f32, -1e8, 1.0, 1e8], 1.0f32),
        ([-0.0, -0.0, -0.0, -0.0], -0.0),
    ] {
        let g = group(
            (0..4)
                .map(|c| op2(81, (3, c), lit(c), gpr(249, 0)))
                .collect(),
            a.map(fb).to_vec(),
        );
        let w = ((a[3] + a[2]) + a[1]) + a[0];
        assert_eq!(w.to_bits(), want.to_bits(), "host order");
        let out = run_groups(vec![g], 1, &mut opts);
        assert_eq!(out[0][0][0], fb(want), "DOT4_IEEE {a:?}");
    }
}
