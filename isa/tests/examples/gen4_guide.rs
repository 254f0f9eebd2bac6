//! The Gen4 volume's programming-guide examples (000_5e6e9c0c4071cf6e.txt
//! lines 13990-14746): vector immediates, SWZ, dp4 with dependency
//! control, LINE, send channel enables, IP jumps and flow control. The
//! system handler and the execution-environment examples are in
//! `gen4_env.rs`.
//!
//! Translations from the manual's older syntax, applied throughout: an
//! execution size is `(N|M0)` and SecHalf is `(N|M8)`; every operand has a
//! type and every source a region (the manual leaves defaults implicit);
//! `.e`/`.g`/`.le` condition suffixes are `(eq)`/`(gt)`/`(le)`; `f0` is
//! `f0.0`; `{NoMask}` is `(W)`; `jmp` is `jmpi`; hex or `2*32`-style
//! immediates are written out; a `send` names its SFID and the low 24
//! descriptor bits separately. Errata (notes/seed-000-gen4-eu.md items
//! 18-19): flag registers f1-f3 and `.any4v/.all4v` do not exist on Gen4.

use super::*;
use baregpu_isa::inst::{Compression, CondMod, GroupCtrl, PredCtrl, ThreadCtrl, Type, arf};

const P: IsaGen = IsaGen::Gen4;
/// ARF number of mask0 (000 line 7564).
const MASK0: u8 = 0x40;

/// 000 lines 14013-14019: `mov (16) r11.0<1>:w 0x01234567:v` "assigning a
/// ramp vector, repeated once". V0 is the low nibble (lines 8241-8245), so
/// channels 0-7 get 7,6,...,0 and channels 8-15 repeat them.
#[test]
fn vector_immediate_ramp() {
    let i = one(P, "mov (16|M0) r11.0<1>:w 0x01234567:v");
    assert_eq!((i.opcode, i.exec_size), (Opcode::Mov, 16));
    let d = dst(&i);
    assert_eq!((base(&d.addr), d.hstride, d.ty), (11 * 32, 1, Type::W));
    let v = imm(&i, 0);
    assert_eq!((v.ty, v.bits), (Type::V, 0x0123_4567));
    let ramp = expand_v(v.bits);
    assert_eq!(ramp, [7, 6, 5, 4, 3, 2, 1, 0]);
    let per_channel: Vec<i8> = (0..16).map(|c| ramp[c % 8]).collect();
    assert_eq!(&per_channel[8..], &per_channel[..8], "repeated once");
}

/// 000 lines 14001-14043 (Figure 15-1): DX10 pixel-shader indexing. "op"
/// is a placeholder opcode; `add` stands in for it. `r[a0.0+32]` is IGA's
/// `r[a0.0,32]`.
#[test]
fn pixel_shader_indexing() {
    let k = kernel(
        P,
        "\
mov (16|M0) r11.0<1>:w 0x01234567:v
mul (16|M0) acc0.0<1>:w r11.0<0;16,1>:w 4:w
mac (16|M0) r10.0<1>:w r0.0<16;8,2>:w 32:w
mov (8|M0) a0.0<1>:w r10.0<0;8,1>:w
add (8|M0) r4.0<1>:f r[a0.0]<1,0>:f r2.0<0;8,1>:w
mov (8|M0) a0.0<1>:w r10.8<0;8,1>:w
add (8|M0) r5.0<1>:f r[a0.0,32]<1,0>:f r3.0<0;8,1>:w
",
    );
    // mul: one row of 16 words of r11 times 4 into the accumulator.
    let mul = k.inst(1);
    assert!(is_arf(dst(mul).file, &dst(mul).addr, arf::ACC0));
    let ramp: Vec<i64> = channels(reg(mul, 0), 16);
    assert_eq!(ramp, (0..16).map(|c| 11 * 32 + 2 * c).collect::<Vec<_>>());
    assert_eq!(
        imm(mul, 1).bits,
        0x0004_0004,
        "W immediates fill both halves"
    );
    // mac: "r0-r1 contain the 16 indices packed every other words".
    let mac = k.inst(2);
    let idx = channels(reg(mac, 0), 16);
    assert_eq!(
        idx,
        (0..16)
            .map(|c| (c / 8) * 32 + (c % 8) * 4)
            .collect::<Vec<_>>()
    );
    assert_eq!(imm(mac, 1).bits as u16, 32);
    // r10 = index*32 + 4*ramp: with 0x01234567 the ramp runs 7..0, so the
    // offsets are 28|24|...|0, not the "0|4|...|28" of the comment (which
    // needs 0x76543210, the ramp of line 14367).
    let v = expand_v(imm(k.inst(0), 0).bits);
    let adds: Vec<i64> = (0..8).map(|c| 4 * i64::from(v[c])).collect();
    assert_eq!(adds, [28, 24, 20, 16, 12, 8, 4, 0]);
    // The address register takes 8 words from r10.0, then from r10.8.
    for (m, from) in [(3, 10 * 32), (5, 10 * 32 + 16)] {
        let mv = k.inst(m);
        assert!(is_arf(dst(mv).file, &dst(mv).addr, arf::A0));
        assert_eq!(
            channels(reg(mv, 0), 8),
            (0..8).map(|c| from + 2 * c).collect::<Vec<_>>()
        );
    }
    // The operations read r[a0.n] per channel (VxH, width 1), the second
    // 32 bytes (one register) further.
    for (m, off) in [(4, 0), (6, 32)] {
        let s = reg(k.inst(m), 0);
        assert_eq!(
            s.addr,
            Addr::Indirect {
                addr_subnr: 0,
                offset: off
            }
        );
        assert_eq!(
            s.region,
            Region::VxH {
                width: 1,
                hstride: 0
            }
        );
    }
}

/// 000 lines 14045-14066: OpenGL SWZ r1 r0.0-zx-1 in three instructions
/// (Align16). `8b'10011001` is 0x99. The comments list each vector V7
/// first: "(1 -1 1 1 1 -1 1 1)" is 0x1F111F11 read from the top nibble.
/// Read per the vector layout (lines 8241-8245), the constants negate z
/// and write -1 into x, not y and w as the expected results say: the
/// manual's constants are nibble-reversed (0x11F111F1, 0xF000F000 would
/// do what it states).
#[test]
fn swz_with_signs() {
    let k = kernel(
        P,
        "\
mul (8|M0) r1.0<1>:f r0.0<4>.xzxx:f 0x1F111F11:v {Align16}
mov (1|M0) f0.0<1>:uw 0x99:uw
(f0.0) mov (8|M0) r1.0<1>:f 0x000F000F:v
",
    );
    let mul = k.inst(0);
    let Region::Align16 { swizzle, .. } = reg(mul, 0).region else {
        panic!("Align16 source");
    };
    assert_eq!(
        (0..4).map(|c| swizzle.component(c)).collect::<Vec<_>>(),
        [0, 2, 0, 0]
    );
    let signs = expand_v(imm(mul, 1).bits);
    let mut listed = signs;
    listed.reverse();
    assert_eq!(listed, [1, -1, 1, 1, 1, -1, 1, 1], "the comment, V7 first");
    assert_eq!(signs, [1, 1, -1, 1, 1, 1, -1, 1], "channel order");
    // The flag write: channels x and w (and their second-vertex copies)
    // enabled, "masked out channels y and z".
    let flag = imm(k.inst(1), 0).bits as u16;
    let enabled: Vec<usize> = (0..8).filter(|c| flag >> c & 1 == 1).collect();
    assert_eq!(enabled, [0, 3, 4, 7]);
    let last = k.inst(2);
    assert_eq!(
        (last.pred_ctrl, last.flag.reg, last.flag.subreg),
        (PredCtrl::Normal, 0, 0)
    );
    let consts = expand_v(imm(last, 0).bits);
    let mut listed = consts;
    listed.reverse();
    assert_eq!(listed, [0, 0, 0, -1, 0, 0, 0, -1], "the comment, V7 first");
    let written: Vec<i8> = enabled.iter().map(|&c| consts[c]).collect();
    assert_eq!(written, [-1, 0, -1, 0], "x and w as encoded");
}

/// 000 lines 14068-14080: the two-instruction SWZ (`f0.08b'01100110` is
/// missing a space). `sel` under the flag takes the swizzled r0 where the
/// flag is set (y, z: "masked out channels x and w") and the constant
/// elsewhere.
#[test]
fn swz_with_sel() {
    let k = kernel(
        P,
        "\
mov (1|M0) f0.0<1>:uw 0x66:uw
(f0.0) sel (8|M0) r1.0<1>:f r0.0<4>.yzxy:f 0x000F000F:v {Align16}
",
    );
    let flag = imm(k.inst(0), 0).bits as u16;
    let sel = k.inst(1);
    let src = channels(reg(sel, 0), 8);
    let consts = expand_v(imm(sel, 1).bits);
    // For each channel: Some(r0 element) where the flag picks src0.
    let picks: Vec<Option<i64>> = (0..8)
        .map(|c| (flag >> c & 1 == 1).then_some(src[c] / 4))
        .collect();
    assert_eq!(picks[1], Some(2), "r1.y = r0.z");
    assert_eq!(picks[2], Some(0), "r1.z = r0.x");
    assert_eq!(picks[5..7], [Some(6), Some(4)], "second vertex");
    assert_eq!((picks[0], picks[3]), (None, None));
    // The constant lands in x and w: -1 in x, 0 in w as encoded (the
    // expected r1.x = 0, r1.w = -1 needs the reversed constant).
    assert_eq!((consts[0], consts[3]), (-1, 0));
}

/// 000 lines 14084-14101: dp4 with destination masks and dependency
/// control. The text: the first checks but does not clear the destination
/// dependency, the next two do neither, the last does not check but
/// clears. `NoDDCChk` is a typo of NoDDChk. The manual writes Align1
/// regions `<4;4,1>` on an Align16 (write-masked) instruction; the Align16
/// region is `<4>.xyzw`.
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
    let masks: Vec<u8> = (0..4).map(|i| dst(k.inst(i)).writemask).collect();
    assert_eq!(masks, [1, 2, 4, 8]);
    let clr: Vec<bool> = (0..4).map(|i| !k.inst(i).no_dd_clr).collect();
    let chk: Vec<bool> = (0..4).map(|i| !k.inst(i).no_dd_chk).collect();
    assert_eq!(clr, [false, false, false, true], "only the last clears");
    assert_eq!(chk, [true, false, false, false], "only the first checks");
    // Rows r0..r3 of the matrix against the vector in r4.
    let rows: Vec<i64> = (0..4).map(|i| base(&reg(k.inst(i), 0).addr) / 32).collect();
    assert_eq!(rows, [0, 1, 2, 3]);
}

/// 000 lines 14136-14158 (Example 15-1): LINE equations in channel serial.
/// `acc` is acc0. LINE reads the scalar Cx0 at r1.0 and X0..X7 from r2; the
/// mac adds Cy0 (r1.1) times Y0..Y7 (r3). The manual's second pair repeats
/// the first one; computing R5 needs Cx1/Cy1 (r1.4, r1.5) and r5.
#[test]
fn line_equations() {
    let k = kernel(
        P,
        "\
line (8|M0) acc0.0<1>:f r1.0<0;1,0>:f r2.0<0;8,1>:f
mac (8|M0) r4.0<1>:f r1.1<0;1,0>:f r3.0<0;8,1>:f
",
    );
    let line = k.inst(0);
    assert_eq!(line.opcode, Opcode::Line);
    assert!(is_arf(dst(line).file, &dst(line).addr, arf::ACC0));
    assert_eq!(
        channels(reg(line, 0), 8),
        vec![32; 8],
        "Cx0 for every channel"
    );
    assert_eq!(
        channels(reg(line, 1), 8),
        (0..8).map(|c| 64 + 4 * c).collect::<Vec<_>>()
    );
    let mac = k.inst(1);
    assert_eq!(channels(reg(mac, 0), 8), vec![36; 8], "Cy0");
    assert_eq!(base(&dst(mac).addr), 4 * 32);
}

/// 000 lines 14160-14197 (Example 15-2): homogeneous dot product; the
/// coefficients Cx0, Cy0, Cz0 are r0.0, r0.1, r0.2 and the chain
/// accumulates into acc0 before the last mac writes r6.
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
    let coeff: Vec<i64> = (0..3).map(|i| channels(reg(k.inst(i), 0), 8)[0]).collect();
    assert_eq!(coeff, [0, 4, 8]);
    let data: Vec<i64> = (0..3).map(|i| base(&reg(k.inst(i), 1).addr) / 32).collect();
    assert_eq!(data, [2, 3, 4]);
    assert!(is_arf(dst(k.inst(1)).file, &dst(k.inst(1)).addr, arf::ACC0));
    assert_eq!(base(&dst(k.inst(2)).addr), 6 * 32);
}

/// 000 lines 14203-14262: COS for a SIMD16 pixel shader through the
/// Extended Math unit: two SIMD8 sends (the second {SecHalf}) on negated
/// absolute r2/r3, then compressed moves replicate the result. MATHBOX is
/// SFID 1, COS is function 7 (lines 5868-5883).
#[test]
fn extended_math_cos_simd16() {
    let k = kernel(
        P,
        "\
send (8|M0) r8:f m0 -(abs)r2:f 0x1 0x110007
send (8|M8) r9:f m1 -(abs)r3:f 0x1 0x110007
mov (16|M0) r10.0<1>:f r8.0<8;8,1>:f {Compr}
mov (16|M0) r12.0<1>:f r8.0<8;8,1>:f {Compr}
mov (16|M0) r14.0<1>:f r8.0<8;8,1>:f {Compr}
",
    );
    for (i, mrf, src) in [(0, 0, 2), (1, 1, 3)] {
        let (s, sfid, d) = send(k.inst(i));
        assert_eq!(
            (sfid, d.function, d.mlen, d.rlen),
            (Some(Sfid::Math), 7, 1, 1)
        );
        assert_eq!(s.base_mrf, Some(mrf));
        let Src::Reg(r) = s.src0 else { panic!() };
        assert!(r.negate && r.abs);
        assert_eq!(base(&r.addr), src * 32);
    }
    assert_eq!(
        k.inst(1).group,
        GroupCtrl::Compression(Compression::SecHalf)
    );
    for i in 2..5 {
        assert_eq!(
            k.inst(i).group,
            GroupCtrl::Compression(Compression::Compressed)
        );
    }
    // The predicated variant (lines 14265-14272) uses f1-f3 and .any4v,
    // which Gen4 does not have (erratum 19): both are refused.
    let e = assemble(P, "(f1.0) mov (16|M0) r10.0<1>:f r8.0<8;8,1>:f {Compr}").unwrap_err();
    assert!(e.message.contains("FlagReg"), "{e}");
    let e = assemble(
        P,
        "(f0.0.any4v) mov (16|M0) r10.0<1>:f r8.0<8;8,1>:f {Compr}",
    )
    .unwrap_err();
    assert!(e.message.contains("any4v"), "{e}");
}

/// 000 lines 14334-14376: scratch offsets "2*32" and "2*32+16" for the two
/// vertices, and the ramp 0x76543210:v (0..7) for SIMD16 scratch writes,
/// the second half {SecHalf}, the MRF payload at m2 offset by 2*256.
#[test]
fn scratch_offsets_and_ramp() {
    let k = kernel(
        P,
        "\
(W) mov (8|M0) r3.0<1>:d r0.0<8;8,1>:d
(W) mov (1|M0) r3.0<1>:d 64:d
(W) mov (1|M0) r3.1<1>:d 80:d
(W) mov (8|M0) r3.0<1>:d 0x76543210:v
(W) mul (16|M0) acc0.0<1>:d r3.0<8;8,1>:d 16:d
(W) add (8|M8) acc0.0<1>:d acc0.0<8;8,1>:d 64:d
(W) add (16|M0) m2.0<1>:d acc0.0<8;8,1>:d 512:d
",
    );
    assert!((0..7).all(|i| k.inst(i).no_mask));
    assert_eq!(base(&dst(k.inst(1)).addr), 96);
    assert_eq!(base(&dst(k.inst(2)).addr), 100, "r3.1 is the second dword");
    assert_eq!((imm(k.inst(1), 0).bits, imm(k.inst(2), 0).bits), (64, 80));
    assert_eq!(expand_v(imm(k.inst(3), 0).bits), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(
        k.inst(5).group,
        GroupCtrl::Compression(Compression::SecHalf)
    );
    assert_eq!(dst(k.inst(6)).file, RegFile::Mrf);
    assert_eq!(imm(k.inst(6), 1).bits, 2 * 256);
}

/// 000 lines 14400-14440: jumps by writing IP. "IP, when used as a source
/// operand, reflects the memory address of the instruction in which it is
/// used" and its 4 LSBs are not kept, so `add (1) IP IP n` lands on
/// (address + n) with the low 4 bits cleared.
#[test]
fn ip_relative_jumps() {
    let k = kernel(
        P,
        "\
add (1|M0) ip<1>:ud ip<0;1,0>:ud 64:ud
add (1|M0) ip<1>:ud ip<0;1,0>:ud 0x35:ud
nop
nop
HERE_1:
nop
HERE_2:
nop
nop
add (1|M0) ip<1>:ud ip<0;1,0>:ud -32:d
add (1|M0) ip<1>:ud ip<0;1,0>:ud 0:ud
add (1|M0) ip<1>:ud ip<0;1,0>:ud 0xF:ud
",
    );
    let lands = |i: usize| {
        let e = &k.entries[i];
        assert!(is_arf(dst(&e.inst).file, &dst(&e.inst).addr, arf::IP));
        assert!(is_arf(reg(&e.inst, 0).file, &reg(&e.inst, 0).addr, arf::IP));
        let n = i64::from(imm(&e.inst, 1).bits as u32 as i32);
        ((e.offset as i64 + n) & !0xF) as usize
    };
    assert_eq!(lands(0), k.label("HERE_1"));
    assert_eq!(lands(1), k.label("HERE_1"), "4 LSBs don't care");
    assert_eq!(lands(7), k.label("HERE_2"));
    assert_eq!(lands(8), k.entries[8].offset, "infinite loop");
    assert_eq!(lands(9), k.entries[9].offset, "infinite loop");
}

/// 000 lines 14446-14474 (Example 15-3): if/else/endif. The targets are
/// the labelled instructions; `else` and `endif` pop the IStack once and
/// `endif` has no jump (its count is MBZ, lines 11640-11670), so the
/// manual's operand-less `endif` is `endif 0 pop(1)`.
#[test]
fn if_else_endif() {
    let k = kernel(
        P,
        "\
cmp (8|M0) (eq)f0.0 null<1>:d r5.0<8;8,1>:d r4.0<8;8,1>:d
(f0.0) if (8|M0) HERE_1
nop
HERE_1:
else (8|M0) HERE_2 pop(1)
nop
HERE_2:
endif (8|M0) 0 pop(1)
nop
",
    );
    let cmp = k.inst(0);
    assert_eq!((cmp.cond_mod, cmp.flag.subreg), (CondMod::Z, 0));
    assert_eq!(k.lands(P, 1), [k.label("HERE_1")]);
    assert_eq!(k.lands(P, 3), [k.label("HERE_2")]);
    for i in [3, 5] {
        let Body::Branch(b) = &k.inst(i).body else {
            panic!()
        };
        assert!(matches!(b.jump, Jump::Count { pop: 1, .. }));
    }
    assert_eq!(k.lands(P, 5), [k.entries[5].offset], "endif does not jump");
}

/// 000 lines 14478-14505 (Example 15-4): `iff` jumps one instruction past
/// the endif when no channel takes it.
#[test]
fn fast_if() {
    let k = kernel(
        P,
        "\
cmp (8|M0) (eq)f0.0 null<1>:d r5.0<8;8,1>:d r4.0<8;8,1>:d
(f0.0) iff (8|M0) HERE_1
nop
endif (8|M0) 0 pop(1)
HERE_1:
nop
",
    );
    assert_eq!(k.inst(1).opcode, Opcode::Iff);
    let target = k.lands(P, 1)[0];
    assert_eq!(k.index_at(target), Some(4), "one past the endif");
}

/// 000 lines 14507-14546 (Example 15-5): cascade branching with two
/// endifs; `cmp.g` is `(gt)`.
#[test]
fn cascade_if_elseif() {
    let k = kernel(
        P,
        "\
cmp (8|M0) (eq)f0.0 null<1>:d r5.0<8;8,1>:d r4.0<8;8,1>:d
(f0.0) if (8|M0) HERE_1
nop
HERE_1:
else (8|M0) HERE_2 pop(1)
cmp (8|M0) (gt)f0.0 null<1>:d r6.0<8;8,1>:d r7.0<8;8,1>:d
(f0.0) if (8|M0) HERE_3
nop
HERE_3:
else (8|M0) HERE_4 pop(1)
nop
HERE_4:
endif (8|M0) 0 pop(1)
HERE_2:
endif (8|M0) 0 pop(1)
",
    );
    assert_eq!(k.inst(4).cond_mod, CondMod::G);
    for (i, label) in [(1, "HERE_1"), (3, "HERE_2"), (5, "HERE_3"), (7, "HERE_4")] {
        assert_eq!(k.lands(P, i), [k.label(label)], "{label}");
    }
    // The inner else jumps to the inner endif, the outer one past it.
    assert_eq!(k.index_at(k.label("HERE_4")), Some(9));
    assert_eq!(k.index_at(k.label("HERE_2")), Some(10));
}

/// 000 lines 14548-14565 (Example 15-6): "if (r0 > r1) OR (r2 <= r3)". The
/// manual's second flag `f1` is f0.1 on Gen4 (erratum 19); `or (1) f0:w
/// f0:w f1:w` combines the two 16-bit flag subregisters.
#[test]
fn compound_branch() {
    let k = kernel(
        P,
        "\
cmp (8|M0) (gt)f0.0 null<1>:d r0.0<8;8,1>:d r1.0<8;8,1>:d
cmp (8|M0) (le)f0.1 null<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d
or (1|M0) f0.0<1>:uw f0.0<0;1,0>:uw f0.1<0;1,0>:uw
(f0.0) if (8|M0) HERE_1
nop
HERE_1:
endif (8|M0) 0 pop(1)
",
    );
    assert_eq!((k.inst(0).cond_mod, k.inst(0).flag.subreg), (CondMod::G, 0));
    assert_eq!(
        (k.inst(1).cond_mod, k.inst(1).flag.subreg),
        (CondMod::Le, 1)
    );
    let or = k.inst(2);
    let flags = [dst(or).addr, reg(or, 0).addr, reg(or, 1).addr];
    assert_eq!(flags.map(|a| base(&a) - i64::from(arf::F0) * 32), [0, 0, 2]);
    assert_eq!(k.lands(P, 3), [k.label("HERE_1")]);
    // Example 15-7 (lines 14567-14586) needs f1-f3 and .all4v: refused.
    assert!(assemble(P, "(f0.0.all4v) if (16|M0) 32").is_err());
}

/// 000 lines 14585-14714 (Examples 15-8 to 15-11): loops. `do` pushes the
/// masks; CMask and LMask are mask0.3 and mask0.2 (lines 7834-7842),
/// written with {Switch} (line 7844); `while` jumps back to the first instruction
/// after `do`; `BrkCode(i,d)` is a pop count i and a target d.
#[test]
fn loops_with_break_and_cont() {
    let k = kernel(
        P,
        "\
do (1|M0) null<0>:ud null<0;1,0>:ud
BEGIN_LOOP:
(W) mov (1|M0) mask0.3<1>:uw mask0.2<0;1,0>:uw {Switch}
cmp (8|M0) (eq)f0.0 null<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d
(f0.0) break (8|M0) HERE_1 pop(3)
(f0.0) cont (8|M0) CONT pop(0)
nop
CONT:
(f0.0) while (8|M0) BEGIN_LOOP
HERE_1:
nop
",
    );
    assert_eq!(k.inst(0).opcode, Opcode::Do);
    let mv = k.inst(1);
    assert_eq!(mv.thread_ctrl, ThreadCtrl::Switch);
    assert_eq!(base(&dst(mv).addr) - i64::from(MASK0) * 32, 6, "CMask");
    assert_eq!(base(&reg(mv, 0).addr) - i64::from(MASK0) * 32, 4, "LMask");
    assert_eq!(k.lands(P, 3), [k.label("HERE_1")]);
    let Body::Branch(b) = &k.inst(3).body else {
        panic!()
    };
    assert!(
        matches!(b.jump, Jump::Count { pop: 3, .. }),
        "3 levels deep"
    );
    assert_eq!(k.lands(P, 4), [k.label("CONT")], "cont lands on the while");
    let back = k.lands(P, 6)[0];
    assert_eq!(k.index_at(back), Some(1), "first instruction after do");
    assert!((back as i64) < k.entries[6].offset as i64);
}

/// 000 lines 14716-14746 (Example 15-12): an indexed jump into a jump
/// table. `jmp r0<0,1,0>` is `jmpi` with a scalar register; the
/// `.default_execution_size` pragma has no equivalent (sizes are explicit).
/// Index k lands on table entry k, k instructions past the next one.
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
    let first = k.entries[0].offset + 16;
    for (idx, label) in ["HERE_0", "HERE_1", "HERE_2", "HERE_3"].iter().enumerate() {
        assert_eq!(first + 16 * idx, k.entries[1 + idx].offset, "index {idx}");
        assert_eq!(k.lands(P, 1 + idx), [k.label(label)]);
    }
    for i in [6, 8, 10] {
        assert_eq!(k.lands(P, i), [k.label("DONE")]);
    }
}
