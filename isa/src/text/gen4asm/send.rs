//! gen4asm sends: `send (8) N dst src target mlen M rlen R { ... };` where
//! N is the Gen4/G45 base MRF, the Gen6 payload MRF or the Gen7 payload GRF
//! (the source operand then only has to parse). gen4asm has no raw
//! descriptor, so a send prints only when its function bits are exactly
//! what one of its message targets sets. The layouts below were learnt by
//! assembling each target with distinct field values:
//!
//! | target | Gen4/G45 function bits | Gen6 / Gen7 |
//! |---|---|---|
//! | `null`, `gateway` | 0 | 0 |
//! | `read (bti, cache, ctrl, type)` | 7:0, 15:14, 11:8, 13:12 | SFID 4, header; 7:0, -, 12:8, 15:13 / 7:0, -, 13:8, 17:14 |
//! | `write (bti, ctrl, type, commit)` | 7:0, 11:8, 14:12, 15 | header; 7:0, 12:8, 16:13, 17 / 7:0, 13:8, 17:14, - |
//! | `sampler (bti, sampler, F)` | 7:0, 11:8 | header and bit 17 / bit 18 |
//! | `math fn [signed] [scalar]` | 3:0, 4, 7 | - |
//! | `urb off swz [allocate] [used] [complete]` | 9:4, 11:10, 13, 14, 15 | header, same bits |
//! | `thread_spawner (a, b, c)` | 0, 1, 4 | same |
//!
//! It writes the descriptor as a D immediate and ignores `nomask`,
//! `NoDDClr`, `NoDDChk`, `compr` and `sechalf` on a send (the bits stay 0),
//! so those print only when clear. Ours decodes Gen6/Gen7
//! `read` with cache 2 to SFID 4 (sampler cache), the only cache printed.

use alloc::string::String;
use core::fmt::Write;

use super::{dst, options, predicate};
use crate::generation::IsaGen;
use crate::inst::{Addr, CondMod, Instruction, RegFile, Region, Send, SendDesc, Sfid, Src, Type};

/// Bits `hi:lo` of `v`.
fn bits(v: u32, hi: u32, lo: u32) -> u32 {
    (v >> lo) & ((1 << (hi - lo + 1)) - 1)
}

/// The message target text for `function` (and the header bit it needs),
/// or `None` if gen4asm would not write these bits.
fn target(p: IsaGen, sfid: Sfid, f: u32, header: bool) -> Option<String> {
    let gen4 = p < IsaGen::Gen6;
    let gen7 = p >= IsaGen::Gen7;
    // (text, bits the text accounts for, header)
    let (text, covered, want_header) = match sfid {
        Sfid::Null => (String::from("null"), 0, false),
        Sfid::Gateway => (String::from("gateway"), 0, false),
        Sfid::ThreadSpawner => (
            alloc::format!(
                "thread_spawner ({}, {}, {})",
                f & 1,
                bits(f, 1, 1),
                bits(f, 4, 4)
            ),
            0x13,
            false,
        ),
        Sfid::Urb => {
            let swz = match bits(f, 11, 10) {
                1 => "interleave",
                2 => "transpose",
                _ => return None,
            };
            let mut t = alloc::format!("urb {} {swz}", bits(f, 9, 4));
            for (bit, word) in [(13, " allocate"), (14, " used"), (15, " complete")] {
                if f & (1 << bit) != 0 {
                    t.push_str(word);
                }
            }
            (t, 0xEFF0, !gen4)
        }
        Sfid::Math if gen4 => {
            let name = match f & 0xF {
                1 => "inv",
                2 => "log",
                3 => "exp",
                4 => "sqrt",
                5 => "rsq",
                6 => "sin",
                7 => "cos",
                8 => "sincos",
                0xA => "pow",
                0xB => "intdivmod",
                0xC => "intdiv",
                0xD => "intmod",
                _ => return None,
            };
            let mut t = alloc::format!("math {name}");
            if f & 0x10 != 0 {
                t.push_str(" signed");
            }
            if f & 0x80 != 0 {
                t.push_str(" scalar");
            }
            (t, 0x9F, false)
        }
        Sfid::Sampler => {
            let simd = match p {
                IsaGen::Gen4 | IsaGen::G45 => 0,
                IsaGen::Gen6 => 1 << 17,
                _ => 1 << 18,
            };
            if f & simd != simd {
                return None;
            }
            (
                alloc::format!("sampler ({}, {}, F)", f & 0xFF, bits(f, 11, 8)),
                0xFFF | simd,
                !gen4,
            )
        }
        Sfid::DataPortRead if gen4 => (
            alloc::format!(
                "read ({}, {}, {}, {})",
                f & 0xFF,
                bits(f, 15, 14),
                bits(f, 11, 8),
                bits(f, 13, 12)
            ),
            0xFFFF,
            false,
        ),
        Sfid::DataPortWrite if gen4 => (
            alloc::format!(
                "write ({}, {}, {}, {})",
                f & 0xFF,
                bits(f, 11, 8),
                bits(f, 14, 12),
                bits(f, 15, 15)
            ),
            0xFFFF,
            false,
        ),
        Sfid::DpSamplerCache if !gen7 => (
            alloc::format!(
                "read ({}, 2, {}, {})",
                f & 0xFF,
                bits(f, 12, 8),
                bits(f, 15, 13)
            ),
            0xFFFF,
            true,
        ),
        Sfid::DpSamplerCache => (
            alloc::format!(
                "read ({}, 2, {}, {})",
                f & 0xFF,
                bits(f, 13, 8),
                bits(f, 17, 14)
            ),
            0x3FFFF,
            true,
        ),
        Sfid::DpRenderCache if !gen7 => (
            alloc::format!(
                "write ({}, {}, {}, {})",
                f & 0xFF,
                bits(f, 12, 8),
                bits(f, 16, 13),
                bits(f, 17, 17)
            ),
            0x3FFFF,
            true,
        ),
        Sfid::DpRenderCache => (
            alloc::format!(
                "write ({}, {}, {}, 0)",
                f & 0xFF,
                bits(f, 13, 8),
                bits(f, 17, 14)
            ),
            0x3FFFF,
            true,
        ),
        _ => return None,
    };
    if f & !covered != 0 || header != want_header {
        return None;
    }
    Some(text)
}

/// A send whose descriptor gen4asm can state.
pub(super) fn send(p: IsaGen, inst: &Instruction, s: &Send) -> Option<String> {
    let SendDesc::Imm { ty: Type::D, desc } = s.desc else {
        return None;
    };
    let sfid = s.sfid?;
    if inst.saturate
        || inst.cond_mod != CondMod::None
        || inst.access_mode != crate::inst::AccessMode::Align1
        || inst.no_mask
        || inst.no_dd_clr
        || inst.no_dd_chk
    {
        return None;
    }
    let Src::Reg(r) = &s.src0 else {
        return None;
    };
    let scalar = Region::Align1 {
        vstride: 0,
        width: 1,
        hstride: 0,
    };
    let Addr::Direct { nr, subnr: 0 } = r.addr else {
        return None;
    };
    if r.region != scalar || r.negate || r.abs {
        return None;
    }
    // The number after the execution size and the source operand text.
    let (lead, payload) = match (p, s.base_mrf, r.file) {
        (IsaGen::Gen4 | IsaGen::G45, Some(m), RegFile::Grf) => {
            (m, alloc::format!("g{nr}<0,1,0>{}", super::ty(r.ty)?))
        }
        // It types the Gen6/Gen7 payload D whatever the text says.
        (IsaGen::Gen6, None, RegFile::Mrf) | (IsaGen::Gen7, None, RegFile::Grf)
            if r.ty == Type::D =>
        {
            (nr, String::from("g0<0,1,0>UD"))
        }
        _ => return None,
    };
    let t = target(p, sfid, desc.function, desc.header)?;
    let mut out = String::new();
    predicate(&mut out, inst)?;
    out.push_str(inst.opcode.mnemonic());
    if inst.pred_ctrl == crate::inst::PredCtrl::None && inst.flag != Default::default() {
        return None;
    }
    write!(out, " ({}) {lead} ", inst.exec_size).ok()?;
    dst(p, &mut out, &s.dst, false)?;
    write!(out, " {payload} {t} mlen {} rlen {}", desc.mlen, desc.rlen).ok()?;
    options(&mut out, inst, if s.eot { " EOT" } else { "" }, true)?;
    Some(out)
}
