//! The Ivy Bridge EU volume's worked examples (001_f8ea3ab73a649b18.txt,
//! lines 1-4164): the introduction, co-issue operands, the SIMD modes of
//! operation, address registers and accumulator selection.
//!
//! Translations as in `gen4.rs`. Gen7 has no `{Compr}`/`{SecHalf}`
//! options: execution groups are QtrCtrl, written `(8|M8)` for the second
//! quarter (`Q2`). Align16 operands `r2<4>.yzwx` are `r2.0<4>.yzwx` and a
//! write-masked destination `r3<4>.xyz` is `r3.0<1>.xyz` with {Align16}.

use super::*;
use baregpu_isa::inst::{GroupCtrl, PredCtrl, Type};

const P: IsaGen = IsaGen::Gen7;

/// 001 lines 185-193: a predicated SIMD16 add of two packed 16-float
/// arrays in r2/r3 and r4/r5 into r0/r1.
#[test]
fn predicated_simd16_add() {
    let i = one(
        P,
        "(f0.0) add (16|M0) r0.0<1>:f r2.0<8;8,1>:f r4.0<8;8,1>:f",
    );
    assert_eq!(
        (i.pred_ctrl, i.flag.reg, i.flag.subreg),
        (PredCtrl::Normal, 0, 0)
    );
    assert_eq!(i.exec_size, 16);
    let regs = |v: Vec<i64>| v.iter().map(|b| (b / 32, b % 32 / 4)).collect::<Vec<_>>();
    let s0 = regs(channels(reg(&i, 0), 16));
    assert_eq!(
        (s0[0], s0[7], s0[8], s0[15]),
        ((2, 0), (2, 7), (3, 0), (3, 7))
    );
    let s1 = regs(channels(reg(&i, 1), 16));
    assert_eq!((s1[0], s1[15]), ((4, 0), (5, 7)));
    let d = regs(dst_channels(dst(&i), 16));
    assert_eq!((d[0], d[15]), ((0, 0), (1, 7)));
}

/// 001 lines 1840-1877: Align1 float operands eligible for co-issue: no
/// gathering or scattering, source and destination "map one to one". The
/// allowed/not-allowed verdicts follow from the decoded regions: both
/// sides contiguous (stride one element) and starting at the same
/// sub-register. `r11. 0` has a stray space.
#[test]
fn coissue_operand_examples() {
    for (line, allowed) in [
        ("mov (8|M0) r10.0<1>:f r11.0<8;8,1>:f", true),
        ("mov (8|M0) r10.0<1>:f r11.0<4;4,2>:f", false),
        ("mov (8|M0) r10.0<2>:w r11.0<8;8,1>:w", false),
        ("mov (8|M0) r10.1<1>:f r11.0<4;4,1>:f", false),
        ("mov (4|M0) r10.1<1>:f r11.1<4;4,1>:f", true),
    ] {
        let i = one(P, line);
        let s = reg(&i, 0);
        let d = dst(&i);
        let size = i64::from(s.ty.size());
        let src = channels(s, i.exec_size);
        let dstc = dst_channels(d, i.exec_size);
        let packed = |v: &[i64]| v.windows(2).all(|w| w[1] - w[0] == size);
        let one_to_one =
            packed(&src) && packed(&dstc) && src.iter().zip(&dstc).all(|(a, b)| a % 32 == b % 32);
        assert_eq!(one_to_one, allowed, "{line}");
    }
}

/// Per-channel (dword of r2, dword of r2) pairs an Align16 add reads.
fn align16_reads(i: &Instruction) -> Vec<(i64, i64)> {
    let a = channels(reg(i, 0), i.exec_size);
    let b = channels(reg(i, 1), i.exec_size);
    a.iter().zip(&b).map(|(x, y)| (x / 4, y / 4)).collect()
}

/// 001 lines 1945-1992 (SIMD4): `add dst.xyz src0.yxzw src1.zwxy` with
/// src0 in dwords 0-3 of r2, src1 in dwords 4-7, dst in r3 dwords 0-3 with
/// dword 3 unchanged. The translation prints src0's swizzle as `.yzwx`
/// where the API instruction says `.yxzw` (the SIMD4x2 form below has
/// `.yxzw`); we keep the printed one.
#[test]
fn simd4_mode() {
    let i = one(
        P,
        "(W) add (4|M0) r3.0<1>.xyz:f r2.0<4>.yzwx:f r2.4<4>.zwxy:f {Align16}",
    );
    assert!(i.no_mask);
    assert_eq!(dst(&i).writemask, 0b0111);
    let reads = align16_reads(&i);
    let r2 = 2 * 8;
    let rel: Vec<(i64, i64)> = reads.iter().map(|(a, b)| (a - r2, b - r2)).collect();
    assert_eq!(rel, [(1, 6), (2, 7), (3, 4), (0, 5)]);
}

/// 001 lines 2035-2043 (SIMD4x2): two vectors per register, the swizzle
/// repeated for each group of four channels.
#[test]
fn simd4x2_mode() {
    let i = one(
        P,
        "add (8|M0) r4.0<1>.xyz:f r2.0<4>.yxzw:f r3.0<4>.zwxy:f {Align16}",
    );
    let reads = align16_reads(&i);
    let rel: Vec<(i64, i64)> = reads.iter().map(|(a, b)| (a - 16, b - 24)).collect();
    assert_eq!(
        rel,
        [
            (1, 2),
            (0, 3),
            (2, 0),
            (3, 1),
            (5, 6),
            (4, 7),
            (6, 4),
            (7, 5)
        ]
    );
}

/// 001 lines 2062-2072: a constant vector in r2 dwords 0-3 shared by both
/// program flows: vertical stride 0, so both groups read the same dwords.
#[test]
fn simd4x2_shared_constant() {
    let i = one(
        P,
        "add (8|M0) r4.0<1>.xyz:f r2.0<0>.yzwx:f r3.0<4>.zwxy:f {Align16}",
    );
    let a: Vec<i64> = align16_reads(&i).iter().map(|(a, _)| a - 16).collect();
    assert_eq!(&a[..4], &a[4..], "shared by the two program flows");
    assert_eq!(&a[..4], &[1, 2, 3, 0]);
}

/// 001 lines 2082-2104 (SIMD16, SOA): src0 in r2-r9 (X r2-3, Y r4-5, Z
/// r6-7, W r8-9), src1 in r10-r17, dst in r18-r25. Each add's registers
/// follow from the component it names in its comment.
#[test]
fn simd16_soa() {
    let k = kernel(
        P,
        "\
add (16|M0) r18.0<1>:f r4.0<8;8,1>:f r14.0<8;8,1>:f
add (16|M0) r20.0<1>:f r6.0<8;8,1>:f r16.0<8;8,1>:f
add (16|M0) r22.0<1>:f r8.0<8;8,1>:f r10.0<8;8,1>:f
",
    );
    // dst.x = src0.y + src1.z; dst.y = src0.z + src1.w; dst.z = src0.w + src1.x
    let comp = [(0, 1, 2), (1, 2, 3), (2, 3, 0)];
    for (i, (d, s0, s1)) in comp.into_iter().enumerate() {
        let inst = k.inst(i);
        let want = (18 + 2 * d, 2 + 2 * s0, 10 + 2 * s1);
        let got = (
            base(&dst(inst).addr) / 32,
            base(&reg(inst, 0).addr) / 32,
            base(&reg(inst, 1).addr) / 32,
        );
        assert_eq!(got, want, "add {i}");
        let last = channels(reg(inst, 0), 16)[15] / 32;
        assert_eq!(last, want.1 + 1, "16 channels span two registers");
    }
}

/// 001 lines 2127-2141: the shared AOS constant as a replicated scalar
/// (src0.y = r2.1, .z = r2.2, .w = r2.3). The manual marks the lines
/// {Compr}, a Gen4 option Gen7 does not have (SIMD16 is implied): it is
/// refused, and the lines assemble without it.
#[test]
fn simd16_shared_scalar() {
    let e = assemble(
        P,
        "add (16|M0) r18.0<1>:f r2.1<0;1,0>:f r14.0<8;8,1>:f {Compr}",
    );
    assert!(e.is_err());
    let k = kernel(
        P,
        "\
add (16|M0) r18.0<1>:f r2.1<0;1,0>:f r14.0<8;8,1>:f
add (16|M0) r20.0<1>:f r2.2<0;1,0>:f r16.0<8;8,1>:f
add (16|M0) r22.0<1>:f r2.3<0;1,0>:f r10.0<8;8,1>:f
",
    );
    for (i, comp) in [1, 2, 3].into_iter().enumerate() {
        let c = channels(reg(k.inst(i), 0), 16);
        assert!(
            c.iter().all(|&b| b == 64 + 4 * comp),
            "replicated r2.{comp}"
        );
    }
}

/// 001 lines 2148-2156 (SIMD8): the SIMD16 add as two SIMD8 instructions,
/// the second on the next registers for channels 8-15 ({SecHalf}: Q2).
#[test]
fn simd8_halves() {
    let k = kernel(
        P,
        "\
add (8|M0) r18.0<1>:f r4.0<8;8,1>:f r14.0<8;8,1>:f
add (8|M8) r19.0<1>:f r5.0<8;8,1>:f r15.0<8;8,1>:f
",
    );
    assert_eq!(k.inst(1).group, GroupCtrl::Quarter { qtr: 1, nib: false });
    assert_eq!(
        (k.inst(0).first_channel(), k.inst(1).first_channel()),
        (0, 8)
    );
    let regs = |i: &Instruction| {
        [
            base(&dst(i).addr),
            base(&reg(i, 0).addr),
            base(&reg(i, 1).addr),
        ]
        .map(|b| b / 32)
    };
    assert_eq!(regs(k.inst(1)), regs(k.inst(0)).map(|r| r + 1));
}

/// 001 lines 2560-2600: the address-register examples of the Gen6 volume
/// (there merged into running text): group access, and the Vx1 rule that
/// a0.2/a0.3 is legal and a0.3/a0.4 is not.
#[test]
fn address_registers() {
    let i = one(P, "mov (8|M0) r1.8<1>:uw a0.4<0;1,0>:uw");
    assert_eq!(
        channels(reg(&i, 0), 8),
        vec![i64::from(arf_a0()) * 32 + 8; 8]
    );
    for (line, legal) in [
        ("mov (8|M0) r1.0<1>:d r[a0.2]<4,1>:d", true),
        ("mov (8|M0) r1.0<1>:d r[a0.3]<4,1>:d", false),
    ] {
        let i = one(P, line);
        let Addr::Indirect { addr_subnr, .. } = reg(&i, 0).addr else {
            panic!()
        };
        assert_eq!(addr_subnr.is_multiple_of(2), legal, "{line}");
    }
}

fn arf_a0() -> u8 {
    baregpu_isa::inst::arf::A0
}

/// 001 lines 2680-2709: implicit accumulator updates with {AccWrEn}:
/// SIMD16 uses acc0 and acc1; SIMD8 acc0; QtrCtrl Q2 selects acc1. The
/// manual's `Ac cWrEn` has a stray space; its last example uses half
/// floats (`:hf`, `H2`), which Gen7 does not have: refused.
#[test]
fn accumulator_selection() {
    let k = kernel(
        P,
        "\
add (16|M0) r10.0<1>:f r11.0<8;8,1>:f r12.0<8;8,1>:f {AccWrEn}
add (8|M0) r10.0<1>:f r11.0<8;8,1>:f r12.0<8;8,1>:f {AccWrEn}
add (8|M8) r10.0<1>:f r11.0<8;8,1>:f r12.0<8;8,1>:f {AccWrEn}
",
    );
    // acc0 holds 8 floats; channel c updates acc(c / 8).
    let accs = |i: &Instruction| {
        let first = i.first_channel();
        (first..first + i.exec_size)
            .map(|c| c / 8)
            .collect::<std::collections::BTreeSet<_>>()
    };
    assert!((0..3).all(|i| k.inst(i).acc_wr_ctrl));
    assert_eq!(accs(k.inst(0)).into_iter().collect::<Vec<_>>(), [0, 1]);
    assert_eq!(accs(k.inst(1)).into_iter().collect::<Vec<_>>(), [0]);
    assert_eq!(
        accs(k.inst(2)).into_iter().collect::<Vec<_>>(),
        [1],
        "Q2: acc1"
    );
    assert_eq!(dst(k.inst(0)).ty, Type::F, "acc1 for floats only");
    assert!(assemble(P, "add (16|M0) r10.0<1>:hf r11.0<8;8,1>:hf r12.0<8;8,1>:hf").is_err());
}
