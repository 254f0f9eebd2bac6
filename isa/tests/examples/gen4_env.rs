//! The Gen4 volume's examples outside the programming guide
//! (000_5e6e9c0c4071cf6e.txt): the send example of chapter 2, the
//! execution-environment chapter (SIMD modes, mask stack, region rule 14,
//! compression) and the system handler (lines 9420-9610).
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
use baregpu_isa::inst::{Compression, GroupCtrl, PredCtrl, arf};

const P: IsaGen = IsaGen::Gen4;
/// ARF number of ms0 (000 line 7565).
const MS0: u8 = 0x50;

/// 000 lines 1022-1031: "send (16) r5 m3 r0 0x01110001": an implied move
/// of r0 to m3, then a message to the Extended Math unit (SFID 1, bits
/// 27:24) with a 1-register payload and a 1-register reply into r5;
/// function 1 is INV (lines 5868-5883).
#[test]
fn send_to_extended_math() {
    let i = one(P, "send (16|M0) r5:uw m3 r0:uw 0x1 0x110001");
    let (s, sfid, d) = send(&i);
    assert_eq!(i.exec_size, 16);
    assert_eq!(
        (sfid, s.base_mrf, d.mlen, d.rlen),
        (Some(Sfid::Math), Some(3), 1, 1)
    );
    assert_eq!(d.function & 0xF, 1, "INV");
    assert_eq!(base(&s.dst.addr), 5 * 32);
    let Src::Reg(r) = s.src0 else { panic!() };
    assert_eq!(base(&r.addr), 0, "implied move from r0");
}

/// 000 lines 9420-9610: the system routine shell. ACC_DISABLE_MASK is
/// printed 0xFFFFFFFFD (36 bits); we use the Gen6 copy's 0xFFFFFFFD (003
/// line 93172). ANDed into cr0.0 it clears bit 1, Accumulator Disable,
/// which *enables* implicit accumulator updates (line 8092) although the
/// comment says "disable accumulator" and line 9243 asks the routine to
/// set the bit. MASTER_EXCP_MASK clears bit 31, the Master Exception State
/// (line 8077). DPW (0x05000000) is SFID 5 and ML9 an MLEN of 9; the manual also
/// redefines DPW as 0x000 (the function field). ML2 is used but never
/// defined (0x00200000). Its later sends write `send (8) m0 null null`,
/// operands swapped against `send (8) null m0 null`. `mov (1) IP EXIT`
/// needs the absolute address of a label, which our syntax cannot name.
#[test]
fn system_handler() {
    let k = kernel(
        P,
        "\
(W) and (1|M0) cr0.0<1>:ud cr0.0<0;1,0>:ud 0xFFFFFFFD:ud {Switch}
(W) shr (1|M0) r0.4<1>:ud sr0.0<0;1,0>:uw 6:uw
(W) add (1|M0) r0.4<1>:ud r0.4<0;1,0>:ud sr0.0<0;1,0>:ub
(W) mul (1|M0) r0.4<1>:ud r0.4<0;1,0>:ud 16384:ud
(W) mov (8|M0) m0.0<1>:ud r0.0<8;8,1>:ud
(W) add (1|M0) m0.2<1>:ud r0.4<0;1,0>:ud 0:ud
(W) send (8|M0) null:uw m0 null:ud 0x5 0x900000
(W) mov (16|M0) m1.0<1>:ud r0.0<8;8,1>:ud {Compr}
(W) send (8|M0) null:uw m0 null:ud 0x5 0x200000
(W) mov (1|M0) r1.0<1>:uw f0.0<0;1,0>:uw
NEXT:
(W) cmp (1|M0) (eq)f0.0 null<1>:uw cr0.4<0;1,0>:uw 0:uw
(W) lzd (1|M0) r1.1<1>:uw cr0.4<0;1,0>:uw
(W) jmpi (1|M0) r1.1<0;1,0>:uw
(W) and (1|M0) cr0.0<1>:ud cr0.0<0;1,0>:ud 0x7FFFFFFF:ud {Switch}
nop
",
    );
    let acc_disable = imm(k.inst(0), 1).bits as u32;
    assert_eq!(!acc_disable, 1 << 1, "clears bit 1 only");
    assert!(is_arf(dst(k.inst(0)).file, &dst(k.inst(0)).addr, arf::CR0));
    // Scratch offset: (sr0.0 >> 6) + sr0.0 byte, times the block size.
    assert_eq!(imm(k.inst(1), 1).bits as u16, 6);
    assert_eq!(imm(k.inst(3), 1).bits, 16384);
    for (i, mlen) in [(6, 9), (8, 2)] {
        let (s, sfid, d) = send(k.inst(i));
        assert_eq!(
            (sfid, d.mlen, d.rlen, d.function),
            (Some(Sfid::DataPortWrite), mlen, 0, 0)
        );
        assert_eq!(s.base_mrf, Some(0));
        assert!(is_arf(s.dst.file, &s.dst.addr, arf::NULL));
    }
    assert_eq!(base(&dst(k.inst(5)).addr), 8, "m0.2 holds the offset");
    assert!(is_arf(
        reg(k.inst(10), 0).file,
        &reg(k.inst(10), 0).addr,
        arf::CR0
    ));
    assert_eq!(
        reg(k.inst(10), 0).addr,
        Addr::Direct {
            nr: arf::CR0,
            subnr: 8
        },
        "cr0.4:uw"
    );
    assert_eq!(k.inst(12).opcode, Opcode::Jmpi);
    assert!(
        matches!(k.inst(12).srcs()[1], Some(Src::Reg(_))),
        "indexed by r1.1"
    );
    assert_eq!(
        !(imm(k.inst(13), 1).bits as u32),
        1 << 31,
        "Master Exception State"
    );
}

/// 000 lines 9588-9606: clearing the GRF scoreboard: with f0 = 0 the
/// predicated moves write no channel, and {NoDDChk} skips the dependency
/// check on the hung register.
#[test]
fn clear_dependencies() {
    let k = kernel(
        P,
        "\
mov (1|M0) f0.0<1>:uw 0:uw
(f0.0) mov (8|M0) r0.0<1>:ud 0:ud {NoDDChk}
(f0.0) mov (8|M0) r1.0<1>:ud 0:ud {NoDDChk}
(f0.0) mov (8|M0) r127.0<1>:ud 0:ud {NoDDChk}
",
    );
    let flag = imm(k.inst(0), 0).bits as u16;
    for i in 1..4 {
        let m = k.inst(i);
        assert!(m.no_dd_chk && m.pred_ctrl == PredCtrl::Normal && !m.pred_inv);
        let enabled = (0..m.exec_size).filter(|c| flag >> c & 1 == 1).count();
        assert_eq!(enabled, 0);
    }
    assert_eq!(base(&dst(k.inst(3)).addr), 127 * 32);
}

/// 000 lines 8715-8740: `add (16) ... {Compr}` is split into two native
/// instructions, the second on the next registers with {SecHalf}. The
/// manual writes the destination with a source region `<8;8,1>`; a
/// destination has a stride only (`<1>`).
#[test]
fn compression_splits_in_two() {
    let k = kernel(
        P,
        "\
add (16|M0) r4.0<1>:d r2.0<8;8,1>:d r0.0<8;8,1>:d {Compr}
add (8|M0) r4.0<1>:d r2.0<8;8,1>:d r0.0<8;8,1>:d
add (8|M8) r5.0<1>:d r3.0<8;8,1>:d r1.0<8;8,1>:d
",
    );
    let c = k.inst(0);
    assert_eq!(c.group, GroupCtrl::Compression(Compression::Compressed));
    // The halves: the LSB of each RegNum set for the second (lines 8764, 8778).
    let regs = |i: &Instruction| {
        [
            base(&dst(i).addr),
            base(&reg(i, 0).addr),
            base(&reg(i, 1).addr),
        ]
        .map(|b| b / 32)
    };
    let first = regs(c);
    let second = first.map(|r| r + 1);
    assert_eq!(regs(k.inst(1)), first);
    assert_eq!(regs(k.inst(2)), second);
    assert_eq!(
        k.inst(2).group,
        GroupCtrl::Compression(Compression::SecHalf)
    );
}

/// 000 lines 8862-8888: a compressed instruction with an indirect source:
/// the second half uses the next address subregister (bit 1 of its byte
/// number set). With a0.2 = 0x40 and a0.3 = 0x50 (one dword write at
/// a0.1), the two halves read r2.0 and r2.8 words, as the direct forms do.
#[test]
fn compressed_indirect_source() {
    let k = kernel(
        P,
        "\
mov (1|M0) a0.1<1>:d 0x00500040:d
add (16|M0) (sat)r26.0<2>:ub r[a0.2]<8;8,1>:w r26.0<16;8,2>:ub {Compr}
add (8|M0) (sat)r26.0<2>:ub r2.0<8;8,1>:w r26.0<16;8,2>:ub
add (8|M0) (sat)r27.0<2>:ub r2.8<8;8,1>:w r27.0<16;8,2>:ub
",
    );
    let v = imm(k.inst(0), 0).bits as u32;
    let d = dst(k.inst(0));
    assert_eq!(
        base(&d.addr) - i64::from(arf::A0) * 32,
        4,
        "a0.1:d is bytes 4-7"
    );
    // Little-endian words of the dword: a0.2 then a0.3.
    let a0 = [0, 0, v & 0xFFFF, v >> 16];
    let s = reg(k.inst(1), 0);
    let Addr::Indirect { addr_subnr, offset } = s.addr else {
        panic!()
    };
    assert!(k.inst(1).saturate);
    let halves =
        [addr_subnr, addr_subnr | 1].map(|n| i64::from(a0[usize::from(n)]) + i64::from(offset));
    let direct = [base(&reg(k.inst(2), 0).addr), base(&reg(k.inst(3), 0).addr)];
    assert_eq!(halves, direct);
}

/// 000 lines 8536-8580 (rule 14 examples): `send r4 null m1 0x0122005b`
/// writes r4 and r5: SFID 1 (math), MLEN 2, RLEN 2, function 0x5b = INT
/// DIV quotient and remainder (0xB), signed (bit 4) (lines 5868-5883).
/// `mov (8) r10 r4<8;4,1>` reads two rows, r4 and r5 (dwords assumed; the
/// manual gives no types). The manual's operand order "r4 null m1" is dst,
/// implied-move source, MRF; ours names the MRF first.
#[test]
fn two_register_results_and_two_row_regions() {
    let k = kernel(
        P,
        "\
send (8|M0) r4:d m1 null:ud 0x1 0x22005b
(f0.0) jmpi L0
nop
L0:
mov (8|M0) r10.0<1>:d r4.0<8;4,1>:d
",
    );
    let (s, sfid, d) = send(k.inst(0));
    assert_eq!((sfid, d.mlen, d.rlen), (Some(Sfid::Math), 2, 2));
    assert_eq!((d.function & 0xF, d.function >> 4 & 1), (0xB, 1));
    let written: Vec<i64> = (0..i64::from(d.rlen))
        .map(|r| base(&s.dst.addr) / 32 + r)
        .collect();
    assert_eq!(written, [4, 5]);
    let rows: Vec<i64> = channels(reg(k.inst(3), 0), 8)
        .iter()
        .map(|b| b / 32)
        .collect();
    assert_eq!(
        rows,
        [4, 4, 4, 4, 5, 5, 5, 5],
        "source0 uses both r4 and r5"
    );
    assert_eq!(
        k.lands(P, 1),
        [k.label("L0")],
        "the jump target reads two rows"
    );
}

/// 000 lines 7900-7910: saving and restoring the mask stack as a whole
/// (16 words) through r5.
#[test]
fn mask_stack_save_restore() {
    let k = kernel(
        P,
        "\
mov (16|M0) r5.0<1>:w ms0.0<16;16,1>:w {Switch}
mov (16|M0) ms0.0<1>:w r5.0<16;16,1>:w {Switch}
",
    );
    let ms = i64::from(MS0) * 32;
    assert_eq!(
        channels(reg(k.inst(0), 0), 16),
        (0..16).map(|c| ms + 2 * c).collect::<Vec<_>>()
    );
    assert_eq!(
        dst_channels(dst(k.inst(1)), 16),
        (0..16).map(|c| ms + 2 * c).collect::<Vec<_>>()
    );
}

/// 000 lines 7352-7360 (SIMD4): `add dst.xyz src0.yxzw src1.zwxy` with src0
/// in dwords 0-3 of r2 and src1 in dwords 4-7. The manual prints src1's
/// swizzle `.zwx` (a letter lost) and src0's `.yzwx` where the API
/// instruction has `.yxzw`; we keep `.yzwx` and complete `.zwxy`.
#[test]
fn simd4_align16() {
    let i = one(
        P,
        "(W) add (4|M0) r3.0<1>.xyz:f r2.0<4>.yzwx:f r2.4<4>.zwxy:f {Align16}",
    );
    assert!(i.no_mask && i.exec_size == 4);
    assert_eq!(dst(&i).writemask, 0b0111, "w unchanged");
    let s0: Vec<i64> = channels(reg(&i, 0), 4)
        .iter()
        .map(|b| (b - 64) / 4)
        .collect();
    let s1: Vec<i64> = channels(reg(&i, 1), 4)
        .iter()
        .map(|b| (b - 64) / 4)
        .collect();
    assert_eq!(s0, [1, 2, 3, 0], "dwords of r2 per channel");
    assert_eq!(s1, [6, 7, 4, 5], "dwords 4-7 of r2");
}
