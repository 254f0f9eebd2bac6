//! The legacy data-port messages of the first data-cache port (dc0) that
//! DG2 kernels from older compilers still send: OWord block read and write
//! in both forms, scratch block read and write (IGC's spills), and the
//! memory fence. Typed by `baregpu_isa::message::xe_hdc::dc0` (004's MSD
//! tables, cited there).
//!
//! OWord blocks (Mesa brw_lower_logical_sends.cpp
//! `lower_surface_block_logical_send`, which builds them for Gfx9-12): the
//! one header register holds the offset in M0.2; the block types 00h/08h
//! count it in OWords (Mesa shifts the byte address right by 4 for them),
//! 01h/09h in bytes (Mesa's "unaligned" read, sent when the address is not
//! known to be 16-byte aligned; 004 and iga64 name 01h/09h "aligned" after
//! the HWord form sharing their codes). Mesa builds only the OWord-unit
//! form for SLM; the byte form is taken on SLM the same way. The data is
//! laid out as the dc1 A64 block's (`super::hdc::move_oword_block`), and a
//! block moves whole whatever the execution mask (Mesa sends them NoMask).
//! Binding-table index 255 is stateless (`XeState::flat_base`), 254 SLM,
//! others buffers with the LSC out-of-bounds rules.
//!
//! Scratch blocks: the header's M0.5 bits 31:10 locate the thread's
//! scratch space (the dword Mesa's SCRATCH_HEADER and IGC copy from r0.5),
//! taken here as an offset from `XeState::scratch_base`, the space
//! `XeState::scratch_per_thread` bytes long; the descriptor's offset counts
//! 32-byte registers. Accesses past the space read 0 and are dropped, the
//! rule of the older generations' scratch model (`dataport::scratch`).
//! Reads return whole registers; a write with bit 16 set (IGC sets it on
//! every DG2 spill, the bit Gen7-Gen11 give the DWord channel mode) stores
//! dword d of each register only where channel d is enabled, as the older
//! model reads that mode; clear, whole registers.
//!
//! Memory fence: every message completes before the send returns, so a
//! fence only answers; with a response length it writes (at most) its one
//! register, whose content is not defined (Mesa `brw_memory_fence`).
//!
//! Not modelled (refused by name): HWord blocks, dword and byte scattered.

use baregpu_isa::message::xe_hdc::{Dc0, Scratch, decode_dc0};

use super::hdc::{bti_target, move_oword_block};
use super::lsc::{Target, read, write};
use super::payload::reg_load;
use super::{XeEnv, bad};
use crate::eu::send::{SendError, SendRequest};
use crate::eu::thread::Thread;
use crate::eu::thread::layout::REG_BYTES;

pub(super) fn handle(env: &mut XeEnv, t: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
    let m = decode_dc0(req.desc).map_err(|_| {
        bad("dc0 descriptor does not decode (reserved type, code or bit; see baregpu_isa::message::xe_hdc::dc0)")
    })?;
    match m {
        Dc0::Block(b) => {
            if req.mlen < 1 {
                return Err(bad("dc0 OWord block: no header register"));
            }
            let hdr = usize::from(req.payload.reg) * REG_BYTES;
            let m2 = reg_load(t, hdr + 8, 4)?;
            let off = if b.aligned { m2 } else { m2 << 4 };
            let tg = bti_target(env, b.bti)?;
            move_oword_block(env, t, req, tg, off, b.write, b.count)
        }
        Dc0::Scratch(s) => scratch(env, t, req, s),
        Dc0::Fence(_) => {
            if req.rlen > 1 {
                return Err(bad("dc0 memory fence: response length above 1"));
            }
            Ok(())
        }
        Dc0::HwordBlock(_) => Err(bad("dc0 HWord blocks are not modelled on Gen12.5")),
        Dc0::Scattered(_) => Err(bad(
            "dc0 dword and byte scattered messages are not modelled on Gen12.5",
        )),
    }
}

fn scratch(
    env: &mut XeEnv,
    t: &mut Thread,
    req: &SendRequest,
    s: Scratch,
) -> Result<(), SendError> {
    if env.state.scratch_per_thread == 0 {
        return Err(bad("dc0 scratch block: no scratch space configured"));
    }
    if req.mlen < 1 {
        return Err(bad("dc0 scratch block: no header register"));
    }
    let hdr = usize::from(req.payload.reg) * REG_BYTES;
    let own = reg_load(t, hdr + 20, 4)? & !0x3FF;
    let space = Target::Buffer {
        base: env.state.scratch_base.wrapping_add(own),
        size: env.state.scratch_per_thread,
    };
    let regs = usize::from(s.regs);
    let at = u64::from(s.offset) * REG_BYTES as u64;
    if s.write {
        // Split send: the data is the second payload; a single payload
        // carries it after the header.
        let data = match req.extended.src1 {
            Some(r) if usize::from(req.extended.src1_len) >= regs => usize::from(r),
            Some(_) => {
                return Err(bad(
                    "dc0 scratch write: second payload shorter than the registers",
                ));
            }
            None if usize::from(req.mlen) > regs => usize::from(req.payload.reg) + 1,
            None => return Err(bad("dc0 scratch write: no data registers")),
        };
        let enabled = |d: usize| !s.write_bit16 || req.channels >> d & 1 != 0;
        for r in 0..regs {
            for d in 0..REG_BYTES / 4 {
                if !enabled(d) {
                    continue;
                }
                let v = reg_load(t, (data + r) * REG_BYTES + 4 * d, 4)? as u32;
                let o = at + (r * REG_BYTES + 4 * d) as u64;
                write(env, space, o, &v.to_le_bytes())?;
            }
        }
        Ok(())
    } else {
        if req.rlen == 0 {
            return Ok(());
        }
        if usize::from(req.rlen) < regs {
            return Err(bad("dc0 scratch read: response shorter than the registers"));
        }
        let d = req.dst.ok_or(bad("dc0 scratch read: null destination"))?;
        // Register by register: one past the space reads 0 alone.
        for r in 0..regs {
            let mut buf = [0u8; REG_BYTES];
            read(env, space, at + (r * REG_BYTES) as u64, &mut buf)?;
            let from = (usize::from(d) + r) * REG_BYTES;
            t.grf_mut()
                .get_mut(from..from + REG_BYTES)
                .ok_or(bad("dc0 scratch read: response runs past r127"))?
                .copy_from_slice(&buf);
        }
        Ok(())
    }
}
