//! Unit tests of the tables: internal consistency, the per-generation
//! differences the manuals state, and a check that field positions never
//! overlap and leave exactly the documented reserved bits.

use super::*;
use crate::generation::IsaGen;
use crate::inst::{CondMod, PredCtrl, RegFile, Sfid, Type};

fn has(p: IsaGen, op: Opcode) -> bool {
    for_platform(p).opcode_info(op).is_some()
}

#[test]
fn opcode_numbers_are_unique_seven_bit_codes() {
    for p in IsaGen::ALL {
        let t = for_platform(p);
        for (i, a) in t.opcodes.iter().enumerate() {
            assert!(a.code < 0x80, "{p}: {:?}", a.opcode);
            assert!(a.srcs <= 3);
            for b in &t.opcodes[i + 1..] {
                assert_ne!(a.code, b.code, "{p}: {:?} and {:?}", a.opcode, b.opcode);
                assert_ne!(a.opcode, b.opcode, "{p}");
            }
            assert_eq!(t.opcode(a.code), Some(a));
        }
    }
}

#[test]
fn a_mnemonic_keeps_its_number_across_generations() {
    for a in IsaGen::ALL {
        for b in IsaGen::ALL {
            for oa in for_platform(a).opcodes {
                if let Some(ob) = for_platform(b).opcode_info(oa.opcode) {
                    assert_eq!(oa.code, ob.code, "{:?} on {a} and {b}", oa.opcode);
                }
            }
        }
    }
}

#[test]
fn opcode_sets_follow_the_manuals() {
    use IsaGen::*;
    use Opcode::*;
    // [DevCTG-B+] only: movi, pln, nenop.
    for op in [Movi, Pln, Nenop] {
        assert!(!has(Gen4, op) && has(G45, op), "{op:?}");
    }
    // Mask-stack flow control ends with Gen4.5.
    for op in [Iff, Do, Msave, Mrest, Push, Pop] {
        assert!(has(G45, op) && !has(Gen6, op) && !has(Gen7, op), "{op:?}");
    }
    // Gen6 additions, some dropped again on Gen7.
    for op in [Math, Mad, Lrp, Call, Ret, Sendc] {
        assert!(!has(G45, op) && has(Gen6, op) && has(Gen75, op), "{op:?}");
    }
    for op in [Case, Fork] {
        assert!(has(Gen6, op) && !has(Gen7, op), "{op:?}");
    }
    assert!(has(Gen6, Nenop) && !has(Gen7, Nenop));
    // Gen7 additions (001 lines 629-673).
    for op in [
        Bfrev, Bfe, Bfi1, Bfi2, Cbit, Fbh, Fbl, Addc, Subb, Brd, Brc, F32to16, F16to32,
    ] {
        assert!(!has(Gen6, op) && has(Gen7, op) && has(Gen75, op), "{op:?}");
    }
    // Haswell only.
    for op in [Dim, Calla] {
        assert!(!has(Gen7, op) && has(Gen75, op), "{op:?}");
    }
    let t = for_platform(Gen6);
    assert_eq!(t.opcode(0x26).map(|o| o.opcode), Some(Case));
    assert_eq!(for_platform(Gen4).opcode(0x26).map(|o| o.opcode), Some(Do));
    assert_eq!(for_platform(Gen7).opcode(0x23).map(|o| o.opcode), Some(Brc));
    assert_eq!(for_platform(Gen4).opcode(0x23).map(|o| o.opcode), Some(Iff));
    assert_eq!(
        for_platform(Gen4).opcode(0x25).map(|o| o.opcode),
        Some(Endif)
    );
}

#[test]
fn layouts_and_source_counts() {
    for p in IsaGen::ALL {
        for o in for_platform(p).opcodes {
            let three = matches!(
                o.opcode,
                Opcode::Mad | Opcode::Lrp | Opcode::Bfe | Opcode::Bfi2
            );
            assert_eq!(o.layout == Layout::ThreeSrc, three, "{p} {:?}", o.opcode);
            assert_eq!(o.srcs == 3, three, "{p} {:?}", o.opcode);
            assert_eq!(o.layout == Layout::Math, o.opcode == Opcode::Math);
            assert_eq!(
                o.layout == Layout::Send,
                matches!(o.opcode, Opcode::Send | Opcode::Sendc)
            );
        }
        let t = for_platform(p);
        assert_eq!(t.opcode_info(Opcode::Mov).map(|o| o.srcs), Some(1));
        assert_eq!(t.opcode_info(Opcode::Add).map(|o| o.srcs), Some(2));
        assert_eq!(t.opcode_info(Opcode::Nop).map(|o| o.srcs), Some(0));
    }
}

#[test]
fn code_tables_invert() {
    for p in IsaGen::ALL {
        let t = for_platform(p);
        fn check<T: PartialEq + Copy + core::fmt::Debug>(p: IsaGen, table: &[Option<T>]) {
            for (code, v) in table.iter().enumerate() {
                if let Some(v) = v {
                    assert_eq!(code_of(table, *v), Some(code as u8), "{p}: {v:?}");
                    assert_eq!(lookup(table, code as u32), Some(*v));
                }
            }
            assert_eq!(lookup(table, table.len() as u32), None);
        }
        check(p, &t.reg_files);
        check(p, &t.reg_types);
        check(p, &t.imm_types);
        check(p, &t.exec_sizes);
        check(p, &t.thread_ctrls);
        check(p, &t.pred_align1);
        check(p, &t.pred_align16);
        check(p, &t.cond_mods);
        check(p, &t.math_fns);
        check(p, &t.sfids);
        check(p, &VSTRIDES);
        check(p, &WIDTHS);
        check(p, &HSTRIDES);
    }
}

#[test]
fn type_and_file_codes_per_generation() {
    use IsaGen::*;
    for p in IsaGen::ALL {
        let t = for_platform(p);
        assert_eq!(t.reg_types[7], Some(Type::F));
        assert_eq!(t.imm_types[7], Some(Type::F));
        assert_eq!(t.imm_types[5], Some(Type::Vf));
        assert_eq!(t.imm_types[6], Some(Type::V));
        // No byte immediates anywhere, no DF immediate in the table.
        for ty in [Type::B, Type::Ub, Type::Df] {
            assert_eq!(code_of(&t.imm_types, ty), None, "{p}");
        }
        let gen7 = matches!(p, Gen7 | Gen75);
        assert_eq!(
            t.reg_types[6],
            gen7.then_some(Type::Df),
            "{p}: register code 110"
        );
        assert_eq!(
            t.imm_types[4],
            (!matches!(p, Gen4 | G45)).then_some(Type::Uv),
            "{p}: immediate 100"
        );
        assert_eq!(t.reg_files[2], (!gen7).then_some(RegFile::Mrf), "{p}: MRF");
        assert_eq!(t.three_src_types.is_some(), gen7);
        assert_eq!(t.fields.three_src.is_some(), !matches!(p, Gen4 | G45));
        assert_eq!(t.flag_regs, if gen7 { 2 } else { 1 });
        assert_eq!(t.jump_unit, if matches!(p, Gen4 | G45) { 16 } else { 8 });
        assert_eq!(t.compressions.is_some(), matches!(p, Gen4 | G45));
    }
    assert_eq!(
        for_platform(Gen7).three_src_types,
        Some([Some(Type::F), Some(Type::D), Some(Type::Ud), Some(Type::Df)])
    );
}

#[test]
fn predicate_condition_and_sfid_codes_per_generation() {
    use IsaGen::*;
    for p in IsaGen::ALL {
        let t = for_platform(p);
        let gen7 = matches!(p, Gen7 | Gen75);
        assert_eq!(t.pred_align1[12], gen7.then_some(PredCtrl::Any32H));
        assert_eq!(t.pred_align1[13], gen7.then_some(PredCtrl::All32H));
        assert_eq!(
            &t.pred_align16[2..6],
            &[
                Some(PredCtrl::X),
                Some(PredCtrl::Y),
                Some(PredCtrl::Z),
                Some(PredCtrl::W)
            ]
        );
        assert_eq!(
            t.cond_mods[7],
            matches!(p, Gen4 | G45).then_some(CondMod::R)
        );
        assert_eq!(t.sfids[1], matches!(p, Gen4 | G45).then_some(Sfid::Math));
        assert_eq!(t.sfids[10], gen7.then_some(Sfid::DpDataCache));
        assert_eq!(t.sfids[13], (p == Gen75).then_some(Sfid::Cre));
        assert_eq!(
            t.math_fns.iter().flatten().count(),
            if matches!(p, Gen4 | G45) { 0 } else { 12 }
        );
    }
}

/// Asserts the ranges are pairwise disjoint; returns their union.
fn disjoint(p: IsaGen, what: &str, fields: &[Bits]) -> u128 {
    let mut seen = 0u128;
    for (i, b) in fields.iter().enumerate() {
        assert!(b.hi < 128 && b.lo <= b.hi, "{p} {what} #{i}");
        assert_eq!(seen & b.mask(), 0, "{p} {what}: field #{i} {b:?} overlaps");
        seen |= b.mask();
    }
    seen
}

fn range(hi: u8, lo: u8) -> u128 {
    bits(hi, lo).mask()
}

/// In every access/addressing mode the one/two-source fields tile the word,
/// leaving exactly the reserved bits the manuals name.
#[test]
fn native_fields_tile_the_word() {
    for p in IsaGen::ALL {
        let f = for_platform(p).fields;
        let mut dw0 = vec![
            f.opcode,
            f.access_mode,
            f.mask_ctrl,
            f.no_dd_clr,
            f.no_dd_chk,
            f.group,
            f.thread_ctrl,
            f.pred_ctrl,
            f.pred_inv,
            f.exec_size,
            f.cond_mod,
            f.debug,
            f.saturate,
            f.flag_subreg,
        ];
        if f.bit28_meaning != Bit28::Reserved {
            dw0.push(f.bit28);
        }
        dw0.extend(f.cmpt);
        dw0.extend(f.nib_ctrl);
        dw0.extend(f.flag_reg);
        let (d, s0, s1) = (f.dst, f.src0, f.src1);
        let dst_a1 = [d.file, d.ty, d.addr_mode, d.hstride, d.nr, d.subnr];
        let dst_a16 = [
            d.file,
            d.ty,
            d.addr_mode,
            d.hstride,
            d.nr,
            d.subnr16,
            d.writemask,
        ];
        let dst_ia1 = [
            d.file,
            d.ty,
            d.addr_mode,
            d.hstride,
            d.addr_subnr,
            d.addr_imm,
        ];
        let dst_ia16 = [
            d.file,
            d.ty,
            d.addr_mode,
            d.hstride,
            d.addr_subnr,
            d.addr_imm16,
            d.writemask,
        ];
        let src = |s: SrcFields, a16: bool, ind: bool| {
            let mut v = vec![s.file, s.ty, s.vstride, s.addr_mode, s.negate, s.abs];
            if a16 {
                v.extend([s.swizzle_hi, s.swizzle_lo]);
            } else {
                v.extend([s.width, s.hstride]);
            }
            match (ind, a16) {
                (false, false) => v.extend([s.nr, s.subnr]),
                (false, true) => v.extend([s.nr, s.subnr16]),
                (true, false) => v.extend([s.addr_subnr, s.addr_imm]),
                (true, true) => v.extend([s.addr_subnr, s.addr_imm16]),
            }
            v
        };
        // Reserved in every form: bit 7 (000 line 9843), DW2 95:90 or 95:91
        // (Gen7 flag register), DW3 127:121; bit 47 before Gen7; bit 28 on
        // the 965; bit 29 on the 965.
        let mut reserved = range(7, 7) | range(127, 121);
        reserved |= if f.flag_reg.is_some() {
            range(95, 91)
        } else {
            range(95, 90)
        };
        if f.nib_ctrl.is_none() {
            reserved |= range(47, 47);
        }
        if f.bit28_meaning == Bit28::Reserved {
            reserved |= range(28, 28);
        }
        if f.cmpt.is_none() {
            reserved |= range(29, 29);
        }
        for a16 in [false, true] {
            for ind in [false, true] {
                let dst = match (a16, ind) {
                    (false, false) => dst_a1.to_vec(),
                    (true, false) => dst_a16.to_vec(),
                    (false, true) => dst_ia1.to_vec(),
                    (true, true) => dst_ia16.to_vec(),
                };
                let mut all = dw0.clone();
                all.extend(dst);
                all.extend(src(s0, a16, ind));
                all.extend(src(s1, a16, ind));
                let used = disjoint(p, "1/2-src", &all);
                // Align16 leaves ChanSel's unused neighbours: 84 and 116.
                let extra = if a16 {
                    range(84, 84) | range(116, 116)
                } else {
                    0
                };
                assert_eq!(
                    !used,
                    reserved | extra,
                    "{p} a16={a16} indirect={ind}: {:#034x}",
                    !used
                );
            }
        }
        // An immediate is the whole of DW3.
        assert_eq!(f.imm32.mask(), range(127, 96));
    }
}

#[test]
fn three_source_fields_tile_the_word() {
    for p in [IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75] {
        let f = for_platform(p).fields;
        let Some(ts) = f.three_src else {
            panic!("{p}: no three-source format")
        };
        let mut all = vec![
            f.opcode,
            f.access_mode,
            f.mask_ctrl,
            f.no_dd_clr,
            f.no_dd_chk,
            f.group,
            f.thread_ctrl,
            f.pred_ctrl,
            f.pred_inv,
            f.exec_size,
            f.cond_mod,
            f.bit28,
            f.debug,
            f.saturate,
            ts.flag_subreg,
            ts.dst_writemask,
            ts.dst_subnr,
            ts.dst_nr,
        ];
        all.extend(f.cmpt);
        all.extend(
            [
                ts.dst_file,
                ts.flag_reg,
                ts.src_type,
                ts.dst_type,
                ts.nib_ctrl,
            ]
            .into_iter()
            .flatten(),
        );
        for s in ts.src {
            all.extend([s.rep_ctrl, s.swizzle, s.subnr, s.nr, s.negate, s.abs]);
        }
        let used = disjoint(p, "3-src", &all);
        // 003 lines 95011-95066, 95280-95331: DW1 16:10 and 3:2 reserved
        // (Gen7 takes 34, 43:42, 45:44, 47), DW2 20, DW3 9 and 31:30.
        let mut reserved = range(7, 7) | range(84, 84) | range(105, 105) | range(127, 126);
        reserved |= if p == IsaGen::Gen6 {
            range(35, 34) | range(48, 42)
        } else {
            range(35, 35) | range(46, 46) | range(48, 48) | range(32, 32)
        };
        assert_eq!(!used, reserved, "{p}: {:#034x}", !used);
    }
}

#[test]
fn send_descriptor_fields() {
    for p in IsaGen::ALL {
        let f = for_platform(p).fields;
        match f.send {
            SendLayout::Gen4 {
                sfid,
                mlen,
                rlen,
                function,
            } => {
                let used = disjoint(p, "send", &[f.eot, sfid, mlen, rlen, function]);
                // Table 14-15: descriptor bits 30:28 MBZ.
                assert_eq!(!used & range(127, 96), range(126, 124));
            }
            SendLayout::Gen6 {
                mlen,
                rlen,
                header,
                function,
            } => {
                let used = disjoint(p, "send", &[f.eot, mlen, rlen, header, function]);
                // Table 8-15: descriptor bits 30:29 MBZ.
                assert_eq!(!used & range(127, 96), range(126, 125));
            }
        }
    }
}

#[test]
fn arf_kinds() {
    for p in IsaGen::ALL {
        let t = for_platform(p);
        assert_eq!(t.arf_kind(0x00), Some(ArfKind::Null));
        assert_eq!(t.arf_kind(0x21), Some(ArfKind::Accumulator));
        assert_eq!(t.arf_kind(0x30), Some(ArfKind::Flag));
        assert_eq!(t.arf_kind(0xA0), Some(ArfKind::Ip));
        assert_eq!(t.arf_kind(0xF0), None);
        let mask_stack = matches!(p, IsaGen::Gen4 | IsaGen::G45);
        assert_eq!(t.arf_kind(0x40).is_some(), mask_stack);
        assert_eq!(
            t.arf_kind(0xC0) == Some(ArfKind::Timestamp),
            matches!(p, IsaGen::Gen7 | IsaGen::Gen75)
        );
    }
}

/// A vacant slot's type field reads as some type for every file and code
/// (hardware ignores it, so no code may be undecodable), and writes back
/// as the same code.
#[test]
fn every_vacant_type_code_reads_and_writes_back() {
    for p in IsaGen::ALL {
        let t = for_platform(p);
        for file in [RegFile::Arf, RegFile::Grf, RegFile::Mrf, RegFile::Imm] {
            for code in 0..8u32 {
                let ty = t
                    .vacant_type(file, code)
                    .unwrap_or_else(|| panic!("{p}: {file:?} type code {code}"));
                assert_eq!(
                    t.vacant_code(file, ty).map(u32::from),
                    Some(code),
                    "{p}: {file:?} {ty:?}"
                );
            }
        }
    }
}
