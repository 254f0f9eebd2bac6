//! The legacy data-port messages of the first data-cache port (dc0) that
//! DG2 kernels from older compilers still send: OWord block read and write
//! in both forms, dword and byte scattered read and write (IGC's stateful
//! and SLM accesses), scratch block read and write (IGC's spills), and the
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
//! scratch space (the dword Mesa's SCRATCH_HEADER and IGC copy from r0.5).
//! On a walker (`XeState::scratch_surface_state`) it is the offset `[27:6]`
//! of a SURFTYPE_SCRATCH surface state, of which the thread reaches its
//! own part (`lsc::scratch_part`); otherwise (the harness, tests) an offset
//! from `XeState::scratch_base`, the space `XeState::scratch_per_thread`
//! bytes long. The descriptor's offset counts
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
//! Dword and byte scattered read and write (types 03h/0Bh and 04h/0Ch,
//! 004 MSD0R_DWS lines 14510-14557, MSD0W_DWS 14558-14602, MSD0R_BS
//! 11752-11801, MSD0W_BS 11802-11850; the descriptor typed by
//! `Scattered`): the message is [header] + the lanes' offsets (one dword a
//! lane, eight to a register; with Packed Address Payload one word a lane,
//! sixteen to a register, 004 bit 29) + for a write the lanes' data (one
//! dword a lane, a byte or word lane in its low bytes). 004 prints no
//! payload layout for them; it is the one the older generations give (003
//! lines 84440-84640 and 83288-83302, the `dataport::scattered` model) and
//! IGC still builds for DG2 (vISA `translateVISAGatherInst` /
//! `translateVISAScatterInst`: offsets after an optional header, write data
//! after the offsets). `FORMS` gives each form's offset unit and size. A
//! lane off in the execution mask is not accessed and its response dword
//! is left alone; lanes run in order, so a later lane's write to the same
//! place wins. Reads zero-extend a byte or word into the lane's dword (004 Packed
//! Data Payload, bit 30: "smaller data items are zero padded to 32 bits").
//!
//! The header's Buffer Base Address (M0.5 31:10) adds to General State Base
//! on a stateless BTI (004 STATE_BASE_ADDRESS lines 34307-34311: "General
//! State Base Address + Buffer Base Address"; the field's place is the
//! older generations' header, 003 lines 83558-83562, and IGC clears it on
//! every A32 header it builds, vISA `BuildStatelessSurfaceMessageHeader`);
//! it applies to OWord blocks and scattered messages alike.
//!
//! Not modelled (refused by name): HWord blocks; the packed (16-bit) data
//! payload (004: "Only 32-bit data packing is supported"); a header on a
//! scattered SLM message (IGC: "From SKL, SLM messages forbid message
//! header", vISA `translateVISAGatherInst`, which folds the global offset
//! into the lanes' offsets instead).

use baregpu_isa::message::xe_hdc::{Dc0, Scattered, Scratch, decode_dc0};

use super::hdc::move_oword_block;
use super::lsc::bti_target;
use super::lsc::{Target, read, write};
use super::payload::{message_reg, message_regs, reg_load, reg_store, regs_for};
use super::surface::{self, XeSurface};
use super::{XeEnv, bad};
use crate::eu::send::{SendError, SendRequest};
use crate::eu::shared::BTI_SLM;
use crate::eu::shared::dataport::Unit;
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
            let tg = a32_target(env, t, b.bti, Some(hdr))?;
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
        Dc0::Scattered(s) => scattered(env, t, req, s),
    }
}

/// Where an A32 message through `bti` lands: `bti_target`, with the
/// header's Buffer Base Address (M0.5 31:10, the header at register-file
/// byte `hdr`) added on a stateless index.
fn a32_target(
    env: &mut XeEnv,
    t: &Thread,
    bti: u8,
    hdr: Option<usize>,
) -> Result<Target, SendError> {
    match (bti_target(env, bti)?, hdr) {
        (Target::Flat(base), Some(h)) => {
            let buffer = reg_load(t, h + 20, 4)? & !0x3FF;
            Ok(Target::Flat(base.wrapping_add(buffer)))
        }
        (tg, _) => Ok(tg),
    }
}

/// The scattered forms: (dword, bytes per lane of a byte message in the
/// descriptor) -> (the unit of the lanes' offsets and of the header's
/// Global Offset M0.2, bytes a lane moves in memory). Dword scattered
/// offsets count dwords, byte scattered ones bytes (003 lines 83594-83596
/// for the Global Offset, 84521 "the DWord offset" for the lanes'; IGC's
/// vISA GATHER/SCATTER passes 4-byte elements' offsets unscaled to the
/// dword message and shifts the others into bytes for the byte message,
/// `translateVISAGatherInst`); a byte message moves 1, 2 or 4 bytes a lane
/// (004 MDC_DS bits 11:10, Mesa `brw_mdc_ds`).
const FORMS: [(bool, u8, Unit, usize); 4] = [
    (true, 1, Unit::Dword, 4),
    (false, 1, Unit::Byte, 1),
    (false, 2, Unit::Byte, 2),
    (false, 4, Unit::Byte, 4),
];

/// A dword or byte scattered read or write (see the module text).
fn scattered(
    env: &mut XeEnv,
    t: &mut Thread,
    req: &SendRequest,
    s: Scattered,
) -> Result<(), SendError> {
    let &(_, _, unit, size) = FORMS
        .iter()
        .find(|f| (f.0, f.1) == (s.dword, s.bytes))
        .ok_or(bad("dc0 scattered: no such element size"))?;
    if s.packed_data {
        return Err(bad(
            "dc0 scattered: packed (16-bit) data is not supported (004 MSD0R_DWS bit 30: only 32-bit data packing)",
        ));
    }
    if s.header && s.bti == BTI_SLM {
        return Err(bad(
            "dc0 scattered: a header on an SLM (BTI 254) message is forbidden (IGC: SLM messages forbid a header from SKL on)",
        ));
    }
    let lanes = if s.simd16 { 16 } else { 8 };
    let abytes = if s.packed_address { 2 } else { 4 };
    let hdr = usize::from(s.header);
    let aregs = regs_for(lanes * abytes);
    let dregs = lanes / 8;
    let need = hdr + aregs + if s.write { dregs } else { 0 };
    if message_regs(req) < need {
        return Err(bad(
            "dc0 scattered: message shorter than its header, offsets and data",
        ));
    }
    if !s.write && req.rlen != 0 && usize::from(req.rlen) < dregs {
        return Err(bad("dc0 scattered read: response shorter than the lanes"));
    }
    let header_at = if s.header {
        Some(message_reg(req, 0)?)
    } else {
        None
    };
    let global = match header_at {
        Some(h) => reg_load(t, h + 8, 4)? as u32,
        None => 0,
    };
    let tg = a32_target(env, t, s.bti, header_at)?;
    for n in 0..lanes {
        if req.channels >> n & 1 == 0 {
            continue;
        }
        let at = message_reg(req, hdr + n * abytes / REG_BYTES)? + n * abytes % REG_BYTES;
        let o = global.wrapping_add(reg_load(t, at, abytes)? as u32);
        let off = unit.bytes(u64::from(o), 1);
        // The lane's data dword: register n / 8 of the data, dword n % 8.
        let (reg, dw) = (n / 8, n % 8 * 4);
        if s.write {
            let v = reg_load(t, message_reg(req, hdr + aregs + reg)? + dw, 4)? as u32;
            write(env, tg, off, &v.to_le_bytes()[..size])?;
        } else if req.rlen != 0 {
            let d = req.dst.ok_or(bad("dc0 scattered read: null destination"))?;
            let mut b = [0u8; 4];
            read(env, tg, off, &mut b[..size])?;
            reg_store(
                t,
                (usize::from(d) + reg) * REG_BYTES + dw,
                4,
                u64::from(u32::from_le_bytes(b)),
            )?;
        }
    }
    Ok(())
}

fn scratch(
    env: &mut XeEnv,
    t: &mut Thread,
    req: &SendRequest,
    s: Scratch,
) -> Result<(), SendError> {
    if req.mlen < 1 {
        return Err(bad("dc0 scratch block: no header register"));
    }
    let hdr = usize::from(req.payload.reg) * REG_BYTES;
    let own = reg_load(t, hdr + 20, 4)? & !0x3FF;
    let space = if env.state.scratch_surface_state {
        // A walker's thread: M0.5 31:10 is the scratch surface state's
        // offset [27:6] (r0.5, from CFE_STATE); the thread's part of it.
        // 004 describes the LSC side only (line 6653); the HDC block is
        // taken to find the same part, as IGC's spill code expects.
        let at = env.state.surface_state_base.wrapping_add(own >> 4);
        match surface::read(env.memory, at)? {
            XeSurface::Scratch {
                base,
                pitch,
                entries,
            } => super::lsc::scratch_part(env.slot, base, pitch, entries)?,
            _ => {
                return Err(bad(
                    "dc0 scratch block: the surface state M0.5 names (CFE_STATE Scratch Space Buffer) is not SURFTYPE_SCRATCH",
                ));
            }
        }
    } else {
        if env.state.scratch_per_thread == 0 {
            return Err(bad("dc0 scratch block: no scratch space configured"));
        }
        Target::Buffer {
            base: env.state.scratch_base.wrapping_add(own),
            size: env.state.scratch_per_thread,
        }
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
