//! The Sandy Bridge EU volume's worked examples (003_e4327438ed1f7ac3.txt,
//! EU chapters, lines 90000-102700): address registers, region figures,
//! region restrictions, swizzles, the dword multiply, the math function
//! codes, the system handler and the usage chapter.
//!
//! Translations as in `gen4.rs` (`(N|M0)`, explicit types and regions,
//! `(eq)` for `.e`/`.z`, `(W)` for `{NoMask}`); SecHalf on Gen6 is the
//! second quarter, `(8|M8)`. Much of the usage chapter is Gen4 text kept
//! unchanged; where it no longer fits Gen6 the test says so.

use super::*;
use baregpu_isa::inst::{CondMod, GroupCtrl, MathFn, PredCtrl, Type, arf};

const P: IsaGen = IsaGen::Gen6;

/// 003 lines 90252-90265: the address subregisters as a group: a0.0-a0.7
/// to r1 words 0-7, a0.4 replicated to words 8-15, r1 words 0-3 to
/// a0.0-a0.3, r1.4 replicated to a0.4-a0.7.
#[test]
fn address_register_group_access() {
    let k = kernel(
        P,
        "\
mov (8|M0) r1.0<1>:uw a0.0<8;8,1>:uw
mov (8|M0) r1.8<1>:uw a0.4<0;1,0>:uw
mov (4|M0) a0.0<1>:uw r1.0<4;4,1>:uw
mov (4|M0) a0.4<1>:uw r1.4<0;1,0>:uw
",
    );
    let a0 = i64::from(arf::A0) * 32;
    let r1 = 32;
    let words = |v: Vec<i64>, at: i64| v.iter().map(|b| (b - at) / 2).collect::<Vec<_>>();
    assert_eq!(
        words(channels(reg(k.inst(0), 0), 8), a0),
        (0..8).collect::<Vec<_>>()
    );
    assert_eq!(
        words(dst_channels(dst(k.inst(0)), 8), r1),
        (0..8).collect::<Vec<_>>()
    );
    assert_eq!(words(channels(reg(k.inst(1), 0), 8), a0), vec![4; 8]);
    assert_eq!(
        words(dst_channels(dst(k.inst(1)), 8), r1),
        (8..16).collect::<Vec<_>>()
    );
    assert_eq!(
        words(dst_channels(dst(k.inst(2)), 4), a0),
        (0..4).collect::<Vec<_>>()
    );
    assert_eq!(words(channels(reg(k.inst(3), 0), 4), r1), vec![4; 4]);
    assert_eq!(
        words(dst_channels(dst(k.inst(3)), 4), a0),
        (4..8).collect::<Vec<_>>()
    );
}

/// 003 lines 90267-90280: Vx1 indirect `r[a0.2]<4,1>:d` with ExecSize 8
/// uses ExecSize/Width = 2 address subregisters, which must be aligned to
/// that group: a0.2/a0.3 is legal, a0.3/a0.4 is not.
#[test]
fn indirect_vx1_alignment() {
    for (line, legal) in [
        ("mov (8|M0) r1.0<1>:d r[a0.2]<4,1>:d", true),
        ("mov (8|M0) r1.0<1>:d r[a0.3]<4,1>:d", false),
    ] {
        let i = one(P, line);
        let s = reg(&i, 0);
        let Region::VxH { width, hstride } = s.region else {
            panic!()
        };
        let Addr::Indirect { addr_subnr, .. } = s.addr else {
            panic!()
        };
        assert_eq!((width, hstride), (4, 1));
        let rows = i.exec_size / width;
        let used: Vec<u8> = (0..rows).map(|r| addr_subnr + r).collect();
        assert_eq!(used[0].is_multiple_of(rows), legal, "{line}: a0.{used:?}");
    }
}

/// 003 lines 91439-91446 (Figure 5-9): r4.1<16;8,2>:w with ExecSize 16:
/// rows of 8 words 2 apart, rows 16 words apart, starting at the second
/// word of r4.
#[test]
fn region_figure_5_9() {
    let i = one(P, "mov (16|M0) r10.0<1>:w r4.1<16;8,2>:w");
    let words: Vec<i64> = channels(reg(&i, 0), 16)
        .iter()
        .map(|b| (b - 4 * 32) / 2)
        .collect();
    let want: Vec<i64> = (0..16).map(|c| 1 + (c / 8) * 16 + (c % 8) * 2).collect();
    assert_eq!(words, want);
    assert_eq!(
        (words[0], words[7], words[8]),
        (1, 15, 17),
        "r4.1, r4.15, r5.1"
    );
}

/// 003 lines 91491-91497 (Figure 5-10): r5.0<1;8,2>:w, interleaved rows:
/// channel 1 at r5.2, channel 8 at r5.1, "just next to channel 0".
#[test]
fn region_interleaved_rows() {
    let i = one(P, "mov (16|M0) r10.0<1>:w r5.0<1;8,2>:w");
    let words: Vec<i64> = channels(reg(&i, 0), 16)
        .iter()
        .map(|b| (b - 5 * 32) / 2)
        .collect();
    assert_eq!((words[0], words[1], words[8]), (0, 2, 1));
}

/// 003 lines 91613-91618 (Figure 5-12): a byte source with HorzStride 0,
/// Width 8, VertStride 16 at r1.14 replicates r1.14 for channels 0-7 and
/// the byte 16 further for channels 8-15. The text calls it "r1.20 (20 =
/// 14+16)"; 14 + 16 is 30.
#[test]
fn replicated_scalars() {
    let i = one(P, "add (16|M0) r6.0<1>:w r1.14<16;8,0>:b r2.0<16;8,1>:b");
    let bytes: Vec<i64> = channels(reg(&i, 0), 16).iter().map(|b| b - 32).collect();
    assert_eq!(&bytes[..8], &[14; 8]);
    assert_eq!(&bytes[8..], &[30; 8]);
}

/// 003 lines 91828-91857: the illegal region examples. The destination
/// must be aligned to the execution type (rule 10.1), a SIMD1 destination
/// needs a non-zero stride (10.1.2), and a row may not cross a register
/// (a row of 2 dwords from r2.7 runs into r3). `<2;2;1>` has a `;` for a
/// `,`. Each rule's condition holds on the decoded fields.
#[test]
fn region_restriction_examples() {
    let exec_size_bytes = |i: &Instruction| i64::from(reg(i, 0).ty.size());
    for line in [
        "mov (1|M0) r0.1<1>:b r2.0<0;1,0>:w",
        "mov (2|M0) r0.0<1>:b r2.0<0;1,0>:w",
        "mov (2|M0) r0.0<2>:b r2.0<0;1,0>:d",
        "mov (2|M0) r0.0<2>:b r2.0<0;1,0>:f",
        "mov (1|M0) r0.2<1>:b r2.0<0;1,0>:d",
    ] {
        let i = one(P, line);
        let d = dst(&i);
        let t = exec_size_bytes(&i);
        let stride = i64::from(d.hstride) * i64::from(d.ty.size());
        let misaligned = base(&d.addr) % t != 0;
        let narrow = i.exec_size > 1 && stride < t;
        assert!(misaligned || narrow, "{line} breaks rule 10.1");
    }
    let i = one(P, "mov (1|M0) r0.0<0>:b r0.0<0;1,0>:d");
    assert_eq!((i.exec_size, dst(&i).hstride), (1, 0), "rule 10.1.2");
    let i = one(P, "mov (2|M0) r1.0<1>:d r2.7<2;2;1>:d");
    let regs: Vec<i64> = channels(reg(&i, 0), 2).iter().map(|b| b / 32).collect();
    assert_eq!(regs, [2, 3], "one row across r2 and r3");
}

/// 003 lines 94250-94260: ChanSel: "r0.0<4>.zywz:f would assign Chan0 =
/// Data2, Chan1 = Data1, Chan2 = Data3, Chan3 = Data2; Chan4 = Data6, ...".
#[test]
fn align16_channel_select() {
    let i = one(P, "mov (8|M0) r1.0<1>:f r0.0<4>.zywz:f {Align16}");
    let data: Vec<i64> = channels(reg(&i, 0), 8).iter().map(|b| b / 4).collect();
    assert_eq!(data, [2, 1, 3, 2, 6, 5, 7, 6]);
}

/// 003 lines 99008-99025: 32x32-bit multiply: mul into acc0, mach for the
/// high dword into a temporary (`rTemp`, here r7), then moves of the high
/// (r5) and low (r6, from acc0) halves. `<8;8,1>d` lacks a ':'; the
/// manual's moves read `rTemp:d`/`acc0:d` without a region, here <8;8,1>.
#[test]
fn dword_multiply() {
    let k = kernel(
        P,
        "\
mul (8|M0) acc0.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d
mach (8|M0) r7.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d {AccWrEn}
mov (8|M0) r5.0<1>:d r7.0<8;8,1>:d
mov (8|M0) r6.0<1>:d acc0.0<8;8,1>:d
",
    );
    let ops: Vec<Opcode> = k.entries.iter().map(|e| e.inst.opcode).collect();
    assert_eq!(ops, [Opcode::Mul, Opcode::Mach, Opcode::Mov, Opcode::Mov]);
    assert!(is_arf(dst(k.inst(0)).file, &dst(k.inst(0)).addr, arf::ACC0));
    assert!(is_arf(
        reg(k.inst(3), 0).file,
        &reg(k.inst(3), 0).addr,
        arf::ACC0
    ));
    for i in 0..4 {
        assert_eq!(dst(k.inst(i)).ty, Type::D, "dword integers only");
        assert!(!k.inst(i).saturate, "no saturation");
    }
    assert_eq!(base(&reg(k.inst(2), 0).addr), base(&dst(k.inst(1)).addr));
}

/// 003 lines 99157-99296: math's function control FC[3:0] (in bits 27:24
/// of the instruction, the condition-modifier field): 1 INV, 2 LOG, 3 EXP,
/// 4 SQRT, 5 RSQ, 6 SIN, 7 COS, 9 FDIV, A POW, B/C/D INT DIV.
#[test]
fn math_function_codes() {
    for (name, f, code, two) in [
        ("inv", MathFn::Inv, 1, false),
        ("log", MathFn::Log, 2, false),
        ("exp", MathFn::Exp, 3, false),
        ("sqt", MathFn::Sqrt, 4, false),
        ("rsqt", MathFn::Rsq, 5, false),
        ("sin", MathFn::Sin, 6, false),
        ("cos", MathFn::Cos, 7, false),
        ("fdiv", MathFn::Fdiv, 9, true),
        ("pow", MathFn::Pow, 0xA, true),
        ("idiv", MathFn::IntDivQuotientRemainder, 0xB, true),
        ("iqot", MathFn::IntDivQuotient, 0xC, true),
        ("irem", MathFn::IntDivRemainder, 0xD, true),
    ] {
        let ty = if code >= 0xB { "d" } else { "f" };
        let src1 = if two {
            format!(" r4.0<8;8,1>:{ty}")
        } else {
            String::new()
        };
        let line = format!("math.{name} (8|M0) r1.0<1>:{ty} r2.0<8;8,1>:{ty}{src1}");
        let bytes = assemble(P, &line).unwrap();
        let dw0 = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        assert_eq!((dw0 & 0x7F, dw0 >> 24 & 0xF), (0x38, code), "{line}");
        let i = one(P, &line);
        let Body::Math(m) = &i.body else { panic!() };
        assert_eq!(m.function, f);
    }
    // SINCOS (8) is Gen4's only (000 lines 5868-5883); Gen6 reserves 8.
    assert!(assemble(P, "math.sincos (8|M0) r1.0<1>:f r2.0<8;8,1>:f").is_err());
}

/// 003 lines 93163-93475: the Gen6 copy of the system routine shell. It
/// keeps Gen4's descriptor constants: DPW|ML9|RL0 = 0x05900000 read with
/// the Gen6 descriptor layout (MLEN 28:25, RLEN 24:20; 003 lines
/// 100890-100945) is MLEN 2, RLEN 25, not a 9-register write. The jump
/// table uses `jmpi` on a register, and the routine ends in `nop`.
#[test]
fn system_handler() {
    let k = kernel(
        P,
        "\
(W) shr (1|M0) r0.4<1>:ud sr0.0<0;1,0>:uw 6:uw
(W) add (1|M0) r0.4<1>:ud r0.4<0;1,0>:ud sr0.0<0;1,0>:ub
(W) mul (1|M0) r0.4<1>:ud r0.4<0;1,0>:ud 16384:ud
(W) mov (8|M0) m0.0<1>:ud r0.0<8;8,1>:ud
(W) send (8|M0) null:ud m0 0x5 0x05900000
(W) cmp (1|M0) (eq)f0.0 null<1>:uw cr0.4<0;1,0>:uw 0:uw
(W) lzd (1|M0) r1.1<1>:uw cr0.4<0;1,0>:uw
(W) jmpi (1|M0) r1.1<0;1,0>:uw
(W) and (1|M0) cr0.0<1>:ud cr0.0<0;1,0>:ud 0x7FFFFFFF:ud
nop
",
    );
    let (s, sfid, d) = send(k.inst(4));
    assert_eq!(sfid, Some(Sfid::DpRenderCache), "SFID 5 on Gen6");
    assert_eq!(
        (d.mlen, d.rlen),
        (2, 25),
        "Gen4 constants in the Gen6 layout"
    );
    assert_eq!(reg_of(&s.src0), 0, "m0");
    assert_eq!(k.inst(5).cond_mod, CondMod::Z);
    assert!(matches!(k.inst(7).srcs()[1], Some(Src::Reg(_))));
    assert_eq!(k.inst(9).opcode, Opcode::Nop);
}

fn reg_of(s: &Src) -> i64 {
    match s {
        Src::Reg(r) => base(&r.addr) / 32,
        other => panic!("{other:?}"),
    }
}

/// 003 lines 101845-101872: the SWZ emulation, as in the Gen4 volume but
/// with src0 swizzle `.xzxz` (Gen4: `.xzxx`); the same nibble-reversed
/// constants (see gen4.rs `swz_with_signs`).
#[test]
fn swz_emulation() {
    let k = kernel(
        P,
        "\
mul (8|M0) r1.0<1>:f r0.0<4>.xzxz:f 0x1F111F11:v {Align16}
mov (1|M0) f0.0<1>:uw 0x99:uw
(f0.0) mov (8|M0) r1.0<1>:f 0x000F000F:v
mov (1|M0) f0.0<1>:uw 0x66:uw
(f0.0) sel (8|M0) r1.0<1>:f r0.0<4>.yzxy:f 0x000F000F:v {Align16}
",
    );
    let data: Vec<i64> = channels(reg(k.inst(0), 0), 8)
        .iter()
        .map(|b| b / 4)
        .collect();
    assert_eq!(data, [0, 2, 0, 2, 4, 6, 4, 6]);
    assert_eq!(expand_v(imm(k.inst(0), 1).bits), [1, 1, -1, 1, 1, 1, -1, 1]);
    assert_eq!(k.inst(4).pred_ctrl, PredCtrl::Normal);
    let sel: Vec<i64> = channels(reg(k.inst(4), 0), 4)
        .iter()
        .map(|b| b / 4)
        .collect();
    assert_eq!(&sel[1..3], &[2, 0], "r1.y = r0.z, r1.z = r0.x");
}

/// 003 lines 101881-101899: dp4 with destination masks and dependency
/// control (`NoDDCChk` is NoDDChk; Align16 regions for `<4;4,1>`).
#[test]
fn dp4_dependency_control() {
    let k = kernel(
        P,
        "\
dp4 (8|M0) r5.0<1>.x:f r0.0<4>.xyzw:f r4.0<4>.xyzw:f {Align16,NoDDClr}
dp4 (8|M0) r5.0<1>.y:f r1.0<4>.xyzw:f r4.0<4>.xyzw:f {Align16,NoDDClr,NoDDChk}
dp4 (8|M0) r5.0<1>.z:f r2.0<4>.xyzw:f r4.0<4>.xyzw:f {Align16,NoDDClr,NoDDChk}
dp4 (8|M0) r5.0<1>.w:f r3.0<4>.xyzw:f r4.0<4>.xyzw:f {Align16,NoDDChk}
",
    );
    let flags: Vec<(u8, bool, bool)> = (0..4)
        .map(|i| {
            (
                dst(k.inst(i)).writemask,
                k.inst(i).no_dd_clr,
                k.inst(i).no_dd_chk,
            )
        })
        .collect();
    assert_eq!(
        flags,
        [
            (1, true, false),
            (2, true, true),
            (4, true, true),
            (8, false, true)
        ]
    );
}

/// 003 lines 101933-101970 (Example 9-1): homogeneous dot product with
/// line and mac through the accumulator.
#[test]
fn dph_channel_serial() {
    let k = kernel(
        P,
        "\
line (8|M0) acc0.0<1>:f r0.0<0;1,0>:f r2.0<0;8,1>:f
mac (8|M0) acc0.0<1>:f r0.1<0;1,0>:f r3.0<0;8,1>:f
mac (8|M0) r6.0<1>:f r0.2<0;1,0>:f r4.0<0;8,1>:f
",
    );
    let ops: Vec<Opcode> = k.entries.iter().map(|e| e.inst.opcode).collect();
    assert_eq!(ops, [Opcode::Line, Opcode::Mac, Opcode::Mac]);
    let coeff: Vec<i64> = (0..3).map(|i| channels(reg(k.inst(i), 0), 8)[7]).collect();
    assert_eq!(coeff, [0, 4, 8], "Cx0, Cy0, Cz0 replicated");
}

/// 003 lines 102096-102110: the SIMD16 scratch ramp; {SecHalf} on Gen6 is
/// the second quarter (QtrCtrl 1, `M8`).
#[test]
fn scratch_ramp_second_half() {
    let k = kernel(
        P,
        "\
(W) mov (8|M0) r3.0<1>:d 0x76543210:v
(W) mul (16|M0) acc0.0<1>:d r3.0<8;8,1>:d 16:d
(W) add (8|M8) acc0.0<1>:d acc0.0<8;8,1>:d 64:d
(W) add (16|M0) m2.0<1>:d acc0.0<8;8,1>:d 512:d
",
    );
    assert_eq!(expand_v(imm(k.inst(0), 0).bits), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(k.inst(2).group, GroupCtrl::Quarter { qtr: 1, nib: false });
    assert_eq!(k.inst(2).first_channel(), 8);
    assert_eq!(dst(k.inst(3)).file, RegFile::Mrf);
}

/// 003 lines 102198-102235 (Example 9-2): if/else/endif with Gen6's JIPs:
/// `if` to the else, `else` to the endif, and `endif` (written without a
/// target) to the instruction after it, where execution continues.
#[test]
fn if_else_endif() {
    let k = kernel(
        P,
        "\
cmp (8|M0) (eq)f0.0 null<1>:d r5.0<8;8,1>:d r4.0<8;8,1>:d
(f0.0) if (8|M0) HERE_1
nop
HERE_1:
else (8|M0) HERE_2
nop
HERE_2:
endif (8|M0) NEXT
NEXT:
nop
",
    );
    assert_eq!(k.lands(P, 1), [k.label("HERE_1")]);
    assert_eq!(k.lands(P, 3), [k.label("HERE_2")]);
    assert_eq!(k.lands(P, 5), [k.label("NEXT")]);
    // The JIP sits in bits 63:48 in 64-bit units (003 lines 97017-97027,
    // 98418-98470): 32 bytes are 4 units.
    let bytes = assemble(P, "(f0.0) if (8|M0) 32").unwrap();
    let dw1 = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
    assert_eq!(dw1 >> 16, 4);
    let Body::Branch(b) = &k.inst(1).body else {
        panic!()
    };
    assert!(matches!(b.jump, Jump::Jip { jip: 32 }));
}

/// 003 lines 102496-102525 (Example 9-8): a loop with a non-nested break.
/// Gen6 has no `do` and no mask registers (the example keeps Gen4's `do`
/// and `mov (1) CMask LMask`); `BrkCode(i,d)` becomes JIP and UIP: JIP to
/// the end of the innermost loop block (the while), UIP to the first
/// instruction after the loop (003 lines 97004-97006). `cmp.z.f0 (8) null
/// r2 d3` reads r3.
#[test]
fn loop_with_break() {
    assert!(
        assemble(P, "do (1|M0) null<0>:ud null<0;1,0>:ud").is_err(),
        "no do"
    );
    let k = kernel(
        P,
        "\
BEGIN_LOOP:
cmp (8|M0) (eq)f0.0 null<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d
(f0.0) break (8|M0) WHILE HERE_1
nop
WHILE:
while (8|M0) BEGIN_LOOP
HERE_1:
nop
",
    );
    assert_eq!(k.lands(P, 1), [k.label("WHILE"), k.label("HERE_1")]);
    assert_eq!(k.lands(P, 3), [k.label("BEGIN_LOOP")]);
    let Body::Branch(b) = &k.inst(1).body else {
        panic!()
    };
    assert!(
        matches!(b.jump, Jump::JipUip { .. }),
        "Gen6 break has JIP and UIP"
    );
}

/// 003 lines 102632-102690 (Example 9-11): the indexed jump table with
/// `jmpi r0<0,1,0>` (`<0;1,0>`); the table entries still say `jmp`. A
/// jmpi index counts 64-bit units from the next instruction (003 lines
/// 98602-98619), so case k (16-byte entries) needs r0 = 2k.
#[test]
fn indexed_jump_table() {
    let k = kernel(
        P,
        "\
(W) jmpi (1|M0) r0.0<0;1,0>:d
(W) jmpi HERE_0
(W) jmpi HERE_1
(W) jmpi HERE_2
(W) jmpi HERE_3
HERE_0:
nop
(W) jmpi DONE
HERE_1:
nop
(W) jmpi DONE
HERE_2:
nop
(W) jmpi DONE
HERE_3:
nop
DONE:
nop
",
    );
    let next = k.entries[1].offset;
    for (case, label) in ["HERE_0", "HERE_1", "HERE_2", "HERE_3"].iter().enumerate() {
        let index = 2 * case;
        assert_eq!(next + 8 * index, k.entries[1 + case].offset);
        assert_eq!(k.lands(P, 1 + case), [k.label(label)]);
    }
    for i in [6, 8, 10] {
        assert_eq!(k.lands(P, i), [k.label("DONE")]);
    }
}
