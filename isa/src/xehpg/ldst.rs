//! iga64's load/store syntax for LSC sends (what `iga64 -p=12p71
//! -Xprint-ldst` prints and `iga64 -a` reads):
//!
//! ```text
//! load.ugm.d32x4.a64 (16|M0)  r10:8  [r20:4]  {$1}
//! store.ugm.d32.a32.uc.wb (16|M0)  bti[3][r20:2]  r30:2  {$1}
//! atomic_iadd.slm.d32.a32 (16|M0)  r10:2  [r20:2]  r30:2  {$1}
//! load_quad.tgm.d32.xyw.a32 (16|M0)  r10:6  bss[0x2000][r20:2]  {$1}
//! ```
//!
//! The mnemonic is the message symbol of `crate::message::lsc` without its
//! surface, which sits before the address payload instead; `:N` are the
//! lengths (response, message, second payload). A store has no
//! destination (null, length 0), a load no second payload. The result is
//! an ordinary `send`; a surface in a0 becomes an ExBSO extended
//! descriptor, as iga64 writes it. (iga64 prints this form also for sends
//! it does not capture, a store with a response or a flat message with an
//! a0 extended descriptor; those are printed as plain sends here.)

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::codec::{msg_desc, send_reg};
use super::parse::{R, exec_group, reg, swsb};
use crate::inst::{
    Addr, Body, Dst, ExDesc, Instruction, Opcode, RegFile, Send, SendDesc, Src, ThreadCtrl, Type,
    WRITEMASK_XYZW,
};
use crate::message::lsc::{self, LscExDesc, LscKind, LscOp};

/// Whether the line's mnemonic token starts an LSC load/store/atomic.
pub fn is_ldst(token: &str) -> bool {
    let head = token.split('.').next().unwrap_or("");
    LscOp::ALL.iter().any(|o| o.name() == head)
}

/// `rN:len` or `null:0`/`null`.
fn payload(s: &str) -> R<(RegFile, u8, u8)> {
    let (r, len) = match s.split_once(':') {
        Some((r, l)) => (
            r,
            l.parse::<u8>().map_err(|_| format!("bad length in {s}"))?,
        ),
        None if s == "null" => (s, 0),
        None => return Err(format!("{s}: a payload needs :length")),
    };
    let (file, nr, sub) = reg(r, Type::Ub)?;
    if sub != 0 {
        return Err(format!("{s}: a payload starts at a whole register"));
    }
    Ok((file, nr, len))
}

/// Reads one ldst line; `inst` carries the predicate already parsed and
/// `toks` start at the mnemonic.
pub fn parse_ldst(mut inst: Instruction, toks: &[&str]) -> R<Instruction> {
    let mnemonic = toks[0];
    let mut k = 1;
    if let Some(e) = toks
        .get(k)
        .filter(|t| t.starts_with('(') && t.contains('|'))
    {
        let (n, g) = exec_group(e)?;
        inst.exec_size = n;
        inst.group = g;
        k += 1;
    }
    let mut ops: Vec<&str> = Vec::new();
    let mut sw: Vec<String> = Vec::new();
    let mut eot = false;
    for t in &toks[k..] {
        if let Some(o) = t.strip_prefix('{') {
            for o in o.trim_end_matches('}').split(',') {
                match o {
                    "EOT" => eot = true,
                    "Atomic" => inst.thread_ctrl = ThreadCtrl::Atomic,
                    "Breakpoint" => inst.debug = true,
                    // Implied by an a0 surface.
                    "ExBSO" => {}
                    s => sw.push(s.into()),
                }
            }
        } else {
            ops.push(t);
        }
    }
    if !sw.is_empty() {
        inst.swsb = swsb(&sw.join(","))?;
    }
    let op_name = mnemonic.split('.').next().unwrap_or("");
    let op = LscOp::ALL
        .into_iter()
        .find(|o| o.name() == op_name)
        .ok_or_else(|| format!("unknown LSC operation {op_name}"))?;
    let want = if op.is_atomic() { 3 } else { 2 };
    if ops.len() != want {
        return Err(format!(
            "{mnemonic}: {want} operands expected, found {}",
            ops.len()
        ));
    }
    let (dst, addr, src1) = if op.is_store() {
        ("null:0", ops[0], ops[1])
    } else if op.is_atomic() {
        (ops[0], ops[1], ops[2])
    } else {
        (ops[0], ops[1], "null:0")
    };
    let open = addr
        .rfind('[')
        .filter(|_| addr.ends_with(']'))
        .ok_or_else(|| format!("{addr}: the address payload is [rN:len]"))?;
    let (surface, inner) = (&addr[..open], &addr[open + 1..addr.len() - 1]);
    let symbol = if surface.is_empty() {
        String::from(mnemonic)
    } else {
        format!("{mnemonic}.{surface}")
    };
    let msg = lsc::parse(&symbol).map_err(|e| format!("{symbol}: {e}"))?;
    if matches!(msg.kind, LscKind::Fence(_)) {
        return Err("a fence has no load/store form".into());
    }
    let (desc, ex) = lsc::encode(&msg).map_err(|e| format!("{symbol}: {e}"))?;
    let (df, dn, rlen) = payload(dst)?;
    let (af, an, mlen) = payload(inner)?;
    let (sf, sn, len1) = payload(src1)?;
    if af != RegFile::Grf {
        return Err(format!("{inner}: the address payload is in GRF"));
    }
    if mlen > 15 || rlen > 31 || len1 > 31 {
        return Err(format!("{mnemonic}: a payload length is out of range"));
    }
    let word = desc | u32::from(mlen) << 25 | u32::from(rlen) << 20;
    inst.opcode = Opcode::Send;
    inst.body = Body::Send(Send {
        dst: Dst {
            file: df,
            ty: Type::Ud,
            addr: Addr::Direct { nr: dn, subnr: 0 },
            hstride: 1,
            writemask: WRITEMASK_XYZW,
        },
        src0: Src::Reg(send_reg(af, an)),
        desc: SendDesc::Imm {
            ty: Type::Ud,
            desc: msg_desc(word),
        },
        sfid: Some(msg.sfid),
        base_mrf: None,
        eot,
        src1: Some(Src::Reg(send_reg(sf, sn))),
        ex_desc: Some(match ex {
            LscExDesc::Imm(v) => ExDesc::Imm(v | u32::from(len1) << 6),
            LscExDesc::A0(n) => ExDesc::Reg {
                subnr: n,
                src1_len: Some(len1),
            },
        }),
    });
    Ok(inst)
}
