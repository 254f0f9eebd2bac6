//! The legacy dc1 untyped atomics of Gen12.5 (what IGC sends for OpenCL
//! global and local atomics on DG2): the integer atomic, A64 (type 12h,
//! dword or, bit 12 set, qword data) and through a binding-table index
//! (02h, dwords; 255/253 stateless, 254 SLM), and the float atomic, A64
//! (1Dh) and through a binding-table index (1Bh). Typed by
//! `baregpu_isa::message::xe_hdc` (004's MSD tables, cited there), which
//! also gives each form's lanes and data width.
//!
//! Layout (Mesa brw_lower_logical_sends.cpp `lower_a64_logical_send` and
//! `lower_surface_logical_send` for Gen12, and what IGC sends on DG2, e.g.
//! `send.dc1 (8|M0) r2 r55 r37:2 0x0 0x0414AEFF` for atomic_cmpxchg: the
//! compare value in r37, the new one in r38): an optional header register
//! (surface forms only), then one address per lane, packed (8 bytes for
//! A64, 4 for a surface offset); the operands in the second payload (or,
//! without one, after the addresses), operand-major: src0 of every lane,
//! then src1 (CMPWR, FCMPWR), each a register run of the lanes' elements
//! (dwords, or qwords for the 64-bit form); the return data, when bit 13
//! asks for it, has one operand's shape.
//!
//! Semantics: the Gen7 data port's (`dataport::atomic`, at the message's
//! width): every operation returns the old value but PREDEC, which
//! returns the new one; CMPWR writes src1 when memory equals src0. The
//! float operations are the LSC ones (`super::atomic`, 004 DP_ATOMIC_*:
//! IEEE minNum/maxNum, a float compare), by `FloatAtomic::operation`.
//! Lanes run one after the other in channel
//! order, so lanes on one address see the lanes below them; lanes off in
//! the execution mask touch neither memory nor their return element. A
//! fault ends the message at the lane that takes it (the A64 and LSC
//! paths' rule), buffers keep the LSC out-of-bounds rules (reads 0,
//! writes dropped).
//!
//! Refused by name: the word (16-bit) and half-float forms (004 gives no
//! payload layout for their data), operation code 0 (iga64's "64b integer
//! compare and swap" in the dword message, which 004 does not describe),
//! the float data width bit 11 and the 64-bit float codes 6 and 7, the
//! A64 float form with bit 12 set (not SIMD8), packed payloads, sends of
//! more channels than the message has lanes.

use baregpu_isa::message::lsc::DataSize;
use baregpu_isa::message::xe_hdc::{FloatAtomic, UntypedAtomic};

use super::lsc::bti_target;
use super::lsc::{Target, read, write};
use super::payload::{reg_load, reg_store, regs_for};
use super::{XeEnv, bad};
use crate::eu::send::{SendError, SendRequest};
use crate::eu::shared::dataport::atomic::{self as dp_atomic, Compare};
use crate::eu::thread::Thread;
use crate::eu::thread::layout::REG_BYTES;

/// One message's shape.
struct Form {
    lanes: usize,
    /// Bytes of an address (8 A64, 4 a surface offset).
    abytes: usize,
    header: bool,
    /// Bytes of a data element, in memory and in the registers.
    bytes: usize,
    /// Operands a lane sends: 0, 1 or 2.
    operands: usize,
    returns: bool,
    target: Target,
}

/// An integer atomic (types 02h, 12h).
pub(super) fn integer(
    env: &mut XeEnv,
    t: &mut Thread,
    req: &SendRequest,
    a: UntypedAtomic,
) -> Result<(), SendError> {
    if a.word {
        return Err(bad(
            "dc1 word (16-bit) atomics are not modelled (004 gives no data layout)",
        ));
    }
    if a.packed_address || a.packed_data {
        return Err(bad(
            "dc1 atomics: packed (16-bit) payloads are not modelled",
        ));
    }
    let op = a.operation().ok_or(bad(
        "dc1 atomic operation 0 (iga64: 64b compare and swap in the dword message) is not modelled: 004 does not describe it",
    ))?;
    let bits = u32::from(a.data_bits());
    let form = Form {
        lanes: usize::from(a.lanes()),
        abytes: if a.a64 { 8 } else { 4 },
        header: a.header,
        bytes: bits as usize / 8,
        operands: dp_atomic::sources(op),
        returns: a.returns,
        target: if a.a64 {
            Target::Flat(0)
        } else {
            bti_target(env, a.bti)?
        },
    };
    run(env, t, req, &form, |old, s0, s1| {
        let (new, ret) = dp_atomic::apply_bits(op, bits, old, s0, s1, Compare::Src0);
        (Some(new), ret)
    })
}

/// A float atomic (types 1Bh, 1Dh).
pub(super) fn float(
    env: &mut XeEnv,
    t: &mut Thread,
    req: &SendRequest,
    a: FloatAtomic,
) -> Result<(), SendError> {
    if a.half {
        return Err(bad(
            "dc1 half-float atomics are not modelled (004 gives no data layout)",
        ));
    }
    if a.wide {
        return Err(bad(
            "dc1 float atomics: data width bit 11 (not 32-bit floats) is not modelled",
        ));
    }
    if a.packed_address || a.packed_data {
        return Err(bad(
            "dc1 atomics: packed (16-bit) payloads are not modelled",
        ));
    }
    let op = a.operation().ok_or(bad(
        "dc1 float atomic operations 6 and 7 (64-bit) are not modelled",
    ))?;
    let lanes = a.lanes().ok_or(bad(
        "dc1 A64 float atomic with SIMD mode bit 12 set: 004 allows only SIMD8 (bit 12 clear)",
    ))?;
    let form = Form {
        lanes: usize::from(lanes),
        abytes: if a.a64 { 8 } else { 4 },
        header: a.header,
        bytes: 4,
        operands: usize::from(op.atomic_operands()),
        returns: a.returns,
        target: if a.a64 {
            Target::Flat(0)
        } else {
            bti_target(env, a.bti)?
        },
    };
    run(env, t, req, &form, |old, s0, s1| {
        (super::atomic::apply(op, DataSize::D32, old, s0, s1), old)
    })
}

/// Runs `f` (old, src0, src1 -> new value to store or none, value
/// returned) on each enabled lane in channel order.
fn run(
    env: &mut XeEnv,
    t: &mut Thread,
    req: &SendRequest,
    form: &Form,
    f: impl Fn(u64, u64, u64) -> (Option<u64>, u64),
) -> Result<(), SendError> {
    if usize::from(req.exec_size) > form.lanes {
        return Err(bad(
            "dc1 atomic: the send has more channels than the message has lanes (A64 atomics are SIMD8)",
        ));
    }
    let hdr = usize::from(form.header);
    let addr_regs = regs_for(form.lanes * form.abytes);
    if usize::from(req.mlen) < hdr + addr_regs {
        return Err(bad("dc1 atomic: message length shorter than the addresses"));
    }
    // Bytes from one operand to the next.
    let stride = regs_for(form.lanes * form.bytes) * REG_BYTES;
    let data_regs = form.operands * stride / REG_BYTES;
    let data = if form.operands == 0 {
        0
    } else if let Some(s) = req.extended.src1 {
        if usize::from(req.extended.src1_len) < data_regs {
            return Err(bad("dc1 atomic: second payload shorter than the operands"));
        }
        usize::from(s) * REG_BYTES
    } else {
        // One payload: the operands follow the addresses.
        if usize::from(req.mlen) < hdr + addr_regs + data_regs {
            return Err(bad("dc1 atomic: message length shorter than the operands"));
        }
        (usize::from(req.payload.reg) + hdr + addr_regs) * REG_BYTES
    };
    let dst = match (form.returns, req.dst) {
        (true, Some(d)) => {
            if usize::from(req.rlen) < stride / REG_BYTES {
                return Err(bad(
                    "dc1 atomic: response length shorter than the return data",
                ));
            }
            Some(usize::from(d) * REG_BYTES)
        }
        _ => None,
    };
    let abase = (usize::from(req.payload.reg) + hdr) * REG_BYTES;
    let n_bytes = form.bytes;
    for n in 0..form.lanes {
        if req.channels >> n & 1 == 0 {
            continue;
        }
        let addr = reg_load(t, abase + n * form.abytes, form.abytes)?;
        let src = |t: &Thread, k: usize| -> Result<u64, SendError> {
            if k < form.operands {
                reg_load(t, data + k * stride + n * n_bytes, n_bytes)
            } else {
                Ok(0)
            }
        };
        let (s0, s1) = (src(t, 0)?, src(t, 1)?);
        let mut b = [0u8; 8];
        read(env, form.target, addr, &mut b[..n_bytes])?;
        let old = u64::from_le_bytes(b);
        let (new, ret) = f(old, s0, s1);
        if let Some(v) = new {
            write(env, form.target, addr, &v.to_le_bytes()[..n_bytes])?;
        }
        if let Some(d) = dst {
            reg_store(t, d + n * n_bytes, n_bytes, ret)?;
        }
    }
    Ok(())
}
