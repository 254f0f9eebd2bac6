//! The URB shared function: threads write entries (Gen4-Gen6 URB_WRITE;
//! Gen7 OWord/HWord writes and reads) into a [`Urb`] byte array.
//!
//! A handle here is the first 256-bit row of its entry: the fixed
//! functions that hand out handles map theirs onto rows. The Gen6 GS
//! unit's side of its threads' messages (FF_SYNC, URB_WRITE's Allocate,
//! Used and Complete, the header's PrimType/PrimStart/PrimEnd) is
//! [`GsSnoop`], present while GS threads run; without it those requests
//! are refused as unhandled, as are the Gen7 atomics. The Ivy Bridge GS
//! unit takes its threads' vertex counts from the ending write
//! ([`Gs7Snoop`]).
//!
//! Gen4-Gen6 URB_WRITE (000 lines 6569-6777; 003 lines 88204-88420):
//! header `M0.0[15:0]` handle 0, `M0.1[15:0]` handle 1; the descriptor's offset
//! counts 256-bit rows from the entry start.
//! - NOSWIZZLE: M1.. go to consecutive rows; channel enables ignored (000
//!   lines 6659-6699; 003 lines 88351-88383).
//! - INTERLEAVED: each register's low four dwords continue handle 0's
//!   entry, its high four handle 1's; the channel enables gate the dwords
//!   (000 lines 6701-6739).
//! - TRANSPOSE: every 3 registers become 4 rows, Table 8-2 (000 lines
//!   6741-6776); channel enables ignored.
//!
//! Gen7 [ext: mesa brw_eu_defines.h GEN7_URB_OPCODE_*]: HWord messages
//! move whole 32-byte rows, OWord messages 16-byte halves; the global and
//! per-slot offsets count the message's unit. Interleaved writes send slot
//! 0's data in the low four dwords and slot 1's in the high four. The
//! header, as Mesa's vec4 generators quote the IVB PRM (vol 4 part 2,
//! 2.4.3.1; elk_vec4_generator.cpp `generate_gs_set_write_offset`,
//! `generate_gs_set_channel_masks`, `generate_tcs_input_urb_offsets`
//! "m0.0-0.1: URB handles", "m0.3-0.4" offsets, "m0.5 bits 8-15 are
//! channel enables"): handles in M0.0 and M0.1, per-slot offsets in M0.3
//! and M0.4, and M0.5 bits 15:8 channel masks ANDed with the channel enables
//! (bit 8 + d for dword d of each register, interleaved or not); a dword
//! whose final enable is 0 is neither written nor read back.

use alloc::vec;
use alloc::vec::Vec;

use baregpu_isa::message::{UrbMsg, UrbOp, UrbOp7, UrbSwizzle};

use super::MessageEnv;
use super::payload::{Msg, Reg, bad, dword_of, set_dword};
use crate::eu::send::SendError;

/// URB storage: 256-bit rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Urb {
    pub bytes: Vec<u8>,
    /// The GS unit snooping its thread's messages, while one runs.
    pub gs: Option<GsSnoop>,
    /// The Ivy Bridge GS unit snooping its thread's ending URB write.
    pub gs7: Option<Gs7Snoop>,
}

/// What the Ivy Bridge GS unit takes from its thread's messages: the
/// header of the URB write that ends the thread, whose M0.2 holds "GS
/// Number of Output Vertices for Slot 0" in bits 15:0 and for slot 1 in
/// 31:16 [ext: mesa elk_vec4_generator.cpp `generate_gs_set_vertex_count`
/// packs the two counts as words 4 and 5 of the header; elk_vec4_gs_visitor.cpp
/// `emit_thread_end` sends it as an mlen 1 URB write with EOT]. One GS
/// thread runs at a time (`render3d::front::gs7`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Gs7Snoop {
    /// The two slots' vertex counts, once the thread sent its EOT write.
    pub counts: Option<[u16; 2]>,
}

/// What the Gen6 GS unit sees of its thread's URB messages ("FF units of
/// the 3D pipeline snoop these messages", 003 lines 88045-88050): the
/// handles it hands out and takes back, the vertices completed as used,
/// the SVBIs and the counts FF_SYNC and the EOT write report. One GS
/// thread runs at a time (`render3d::front::gs`), so this is its state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GsSnoop {
    /// Handles (first rows) of the GS's free URB entries.
    pub free: Vec<u16>,
    /// Rows of a GS URB entry.
    pub entry_rows: usize,
    /// Entries the GS has (the retained-handle limit is min(32, this),
    /// 003 lines 34960-34966).
    pub entries: usize,
    /// Handles the thread holds: allocated, not yet completed.
    pub retained: Vec<u16>,
    /// Vertices completed with Used, in completion order: the entry's
    /// dwords and the header's M0.2 bits 6:0 (PrimType 6:2, PrimStart 1,
    /// PrimEnd 0; 003 lines 88266-88285).
    pub out: Vec<(Vec<u32>, u8)>,
    /// 3DSTATE_GS Rendering Enabled: the thread may take handles.
    pub rendering: bool,
    /// 3DSTATE_GS SVBI Post-Increment Enable: FF_SYNC's SO counts and
    /// the EOT write's SONumPrimsWritten are then ignored (003 lines
    /// 88291-88293, 88613-88615).
    pub post_increment: bool,
    /// The four SVBIs and their maxima (3DSTATE_GS_SVB_INDEX).
    pub svbi: [u32; 4],
    pub svbi_max: [u32; 4],
    /// The thread sent its FF_SYNC.
    pub synced: bool,
    /// NumGSPrimsGenerated (GS_PRIMITIVES_COUNT), NumSOPrimsNeeded
    /// (SO_PRIM_STORAGE_NEEDED) and SONumPrimsWritten
    /// (SO_NUM_PRIMS_WRITTEN) reported so far.
    pub gs_prims: u64,
    pub so_storage: u64,
    pub so_written: u64,
}

impl Urb {
    /// A URB of `rows` zeroed 256-bit rows.
    pub fn new(rows: usize) -> Urb {
        Urb {
            bytes: vec![0; rows * 32],
            gs: None,
            gs7: None,
        }
    }

    /// Dword `d` of row `row` (0 outside).
    pub fn dword(&self, row: usize, d: usize) -> u32 {
        let at = row * 32 + (d & 7) * 4;
        self.bytes
            .get(at..at + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn put(&mut self, byte: usize, v: u32) -> Result<(), SendError> {
        let end = byte
            .checked_add(4)
            .ok_or(bad("URB access beyond the URB"))?;
        let b = self
            .bytes
            .get_mut(byte..end)
            .ok_or(bad("URB access beyond the URB"))?;
        b.copy_from_slice(&v.to_le_bytes());
        Ok(())
    }

    fn get(&self, byte: usize) -> Result<u32, SendError> {
        let end = byte
            .checked_add(4)
            .ok_or(bad("URB access beyond the URB"))?;
        let b = self
            .bytes
            .get(byte..end)
            .ok_or(bad("URB access beyond the URB"))?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

pub(super) fn handle(env: &mut MessageEnv, m: &mut Msg, u: &UrbMsg) -> Result<(), SendError> {
    let urb = env.urb.as_deref_mut().ok_or(bad("no URB configured"))?;
    match *u {
        UrbMsg::Legacy {
            op: UrbOp::Write,
            offset,
            swizzle,
            allocate,
            used,
            complete,
            ..
        } => {
            if urb.gs.is_none() {
                if allocate {
                    return Err(SendError::Unhandled);
                }
                return legacy_write(urb, m, usize::from(offset), swizzle);
            }
            gs_write(
                urb,
                m,
                usize::from(offset),
                swizzle,
                [allocate, used, complete],
            )
        }
        UrbMsg::Legacy {
            op: UrbOp::FfSync, ..
        } => ff_sync(urb, m),
        UrbMsg::Gen7 {
            op,
            offset,
            interleave,
            per_slot,
            ..
        } => gen7(urb, m, op, usize::from(offset), interleave, per_slot),
    }
}

/// FF_SYNC (003 lines 88560-88685): header M0.0 NumSOVertsToWrite
/// (31:16) and NumSOPrimsNeeded (15:0), M0.1[15:0] NumGSPrimsGenerated;
/// the writeback W0.0 holds the initial handle (11:0; Handle ID 23:16,
/// here 0), W0.1-4 the SVBIs the thread starts from. The SVBIs then move
/// on by the vertices it will write, each held at its Maximum Index
/// ("enforced by the device", 003 lines 33520-33530). Mesa sends it once
/// per thread, before any output [ext: mesa gfx6_gs_visitor.cpp
/// `emit_thread_end`, brw_vec4_generator.cpp `generate_gs_ff_sync`].
fn ff_sync(urb: &mut Urb, m: &mut Msg) -> Result<(), SendError> {
    m.need(1, 0)?;
    let so = m.dword(0, 0)?;
    let prims = m.dword(0, 1)? & 0xFFFF;
    let gs = urb.gs.as_mut().ok_or(SendError::Unhandled)?;
    if gs.synced {
        return Err(bad("a second FF_SYNC from one GS thread"));
    }
    gs.synced = true;
    gs.gs_prims += u64::from(prims);
    let start = gs.svbi;
    if !gs.post_increment {
        gs.so_storage += u64::from(so & 0xFFFF);
        let verts = so >> 16;
        for (v, max) in gs.svbi.iter_mut().zip(gs.svbi_max) {
            *v = v.saturating_add(verts).min(max.max(*v));
        }
    }
    let handle = if gs.rendering { take_handle(gs)? } else { 0 };
    if m.req.rlen > 0 {
        let mut w: Reg = [0; 32];
        set_dword(&mut w, 0, u32::from(handle) & 0xFFF);
        for (k, v) in start.iter().enumerate() {
            set_dword(&mut w, 1 + k, *v);
        }
        m.respond(0, &w, 0xFF)?;
    }
    Ok(())
}

/// A free GS entry for the thread to hold.
fn take_handle(gs: &mut GsSnoop) -> Result<u16, SendError> {
    if gs.retained.len() >= gs.entries.min(32) {
        return Err(bad("a GS thread retains more URB handles than allowed"));
    }
    let h = gs
        .free
        .pop()
        .ok_or(bad("no free GS URB entry for the thread"))?;
    gs.retained.push(h);
    Ok(h)
}

/// URB_WRITE from a GS thread (003 lines 88073-88260): the data, then
/// Complete hands handle 0 on (Used: its vertex with the header's
/// PrimType/Start/End; clear: dereferenced), Allocate returns a new handle
/// in W0.0 (W0.1-7 zero), and the EOT write carries SONumPrimsWritten in
/// M0.2[26:16]. The combinations the manual's table calls invalid are
/// refused.
fn gs_write(
    urb: &mut Urb,
    m: &mut Msg,
    offset: usize,
    swizzle: UrbSwizzle,
    [allocate, used, complete]: [bool; 3],
) -> Result<(), SendError> {
    if allocate && m.req.eot {
        return Err(bad("URB_WRITE with Allocate and EOT"));
    }
    if m.req.mlen > 1 {
        legacy_write(urb, m, offset, swizzle)?;
    } else {
        m.need(1, 0)?;
    }
    let h0 = m.dword(0, 0)? & 0xFFFF;
    let flags = (m.dword(0, 2)? & 0x7F) as u8;
    let so_written = (m.dword(0, 2)? >> 16) & 0x7FF;
    let Urb { bytes, gs, .. } = urb;
    let gs = gs.as_mut().ok_or(SendError::Unhandled)?;
    if complete {
        let k = gs
            .retained
            .iter()
            .position(|&h| u32::from(h) == h0)
            .ok_or(bad(
                "URB_WRITE completes a handle the GS thread does not hold",
            ))?;
        let h = gs.retained.swap_remove(k);
        if used {
            let first = usize::from(h);
            let dw = (0..gs.entry_rows * 8)
                .map(|i| {
                    let at = (first + i / 8) * 32 + (i % 8) * 4;
                    bytes
                        .get(at..at + 4)
                        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                })
                .collect();
            gs.out.push((dw, flags));
        }
        // The vertex is read back now, so its entry is free again.
        gs.free.push(h);
    } else if m.req.eot && !gs.retained.is_empty() {
        return Err(bad("a GS thread ends holding an incomplete URB entry"));
    }
    if m.req.eot && !gs.post_increment {
        gs.so_written += u64::from(so_written);
    }
    if allocate {
        if !gs.rendering {
            return Err(bad("GS handle allocation with Rendering Enabled clear"));
        }
        let h = take_handle(gs)?;
        let mut w: Reg = [0; 32];
        set_dword(&mut w, 0, u32::from(h));
        m.respond(0, &w, 0xFF)?;
    }
    Ok(())
}

fn handle_row(m: &Msg, d: usize) -> Result<usize, SendError> {
    Ok((m.dword(0, d)? & 0xFFFF) as usize)
}

fn legacy_write(
    urb: &mut Urb,
    m: &mut Msg,
    offset: usize,
    swizzle: UrbSwizzle,
) -> Result<(), SendError> {
    let data = usize::from(m.req.mlen).saturating_sub(1);
    let h0 = handle_row(m, 0)?;
    match swizzle {
        UrbSwizzle::None => {
            for i in 0..data {
                let reg = m.reg(1 + i)?;
                for d in 0..8 {
                    urb.put((h0 + offset + i) * 32 + d * 4, dword_of(&reg, d))?;
                }
            }
        }
        UrbSwizzle::Interleave => {
            let h1 = handle_row(m, 1)?;
            let ce = m.enables();
            for i in 0..data {
                let reg = m.reg(1 + i)?;
                for d in 0..8 {
                    if ce >> d & 1 == 0 {
                        continue;
                    }
                    let h = if d < 4 { h0 } else { h1 };
                    let k = 4 * i + d % 4; // dword of the vertex
                    urb.put((h + offset) * 32 + k * 4, dword_of(&reg, d))?;
                }
            }
        }
        UrbSwizzle::Transpose => {
            if data % 3 != 0 {
                return Err(bad("URB transpose needs a multiple of 3 registers"));
            }
            for g in 0..data / 3 {
                let src = [m.reg(1 + 3 * g)?, m.reg(2 + 3 * g)?, m.reg(3 + 3 * g)?];
                for k in 0..4 {
                    let row = h0 + offset + 4 * g + k;
                    for half in 0..2 {
                        let col = 2 * k + half;
                        let quad = [
                            dword_of(&src[0], col),
                            dword_of(&src[1], col),
                            0,
                            dword_of(&src[2], col),
                        ];
                        for (j, v) in quad.iter().enumerate() {
                            urb.put(row * 32 + (4 * half + j) * 4, *v)?;
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

fn gen7(
    urb: &mut Urb,
    m: &mut Msg,
    op: UrbOp7,
    offset: usize,
    interleave: bool,
    per_slot: bool,
) -> Result<(), SendError> {
    let (unit, write) = match op {
        UrbOp7::WriteHword => (32, true),
        UrbOp7::WriteOword => (16, true),
        UrbOp7::ReadHword => (32, false),
        UrbOp7::ReadOword => (16, false),
        UrbOp7::AtomicMov | UrbOp7::AtomicInc => return Err(SendError::Unhandled),
    };
    // Byte where slot `s`'s data starts.
    let start = |s: usize| -> Result<usize, SendError> {
        let handle = handle_row(m, s)?;
        let extra = if per_slot {
            m.dword(0, 3 + s)? as usize
        } else {
            0
        };
        offset
            .checked_add(extra)
            .and_then(|o| o.checked_mul(unit))
            .and_then(|o| o.checked_add(handle * 32))
            .ok_or(bad("URB access beyond the URB"))
    };
    let slots = if interleave { 2 } else { 1 };
    let starts = [start(0)?, if slots == 2 { start(1)? } else { 0 }];
    let regs = if write {
        usize::from(m.req.mlen).saturating_sub(1)
    } else {
        usize::from(m.req.rlen)
    };
    let enabled = (m.dword(0, 5)? >> 8) & m.enables() & 0xFF;
    if write
        && m.req.eot
        && let Some(gs) = urb.gs7.as_mut()
    {
        let counts = m.dword(0, 2)?;
        gs.counts = Some([counts as u16, (counts >> 16) as u16]);
    }
    for i in 0..regs {
        if write {
            let reg = m.reg(1 + i)?;
            for d in 0..8 {
                if enabled >> d & 1 == 0 {
                    continue;
                }
                let (s, k) = if interleave {
                    (d / 4, 4 * i + d % 4)
                } else {
                    (0, 8 * i + d)
                };
                urb.put(starts[s].saturating_add(4 * k), dword_of(&reg, d))?;
            }
        } else {
            let mut reg: Reg = [0; 32];
            for d in 0..8 {
                let (s, k) = if interleave {
                    (d / 4, 4 * i + d % 4)
                } else {
                    (0, 8 * i + d)
                };
                set_dword(&mut reg, d, urb.get(starts[s].saturating_add(4 * k))?);
            }
            m.respond(i, &reg, enabled as u8)?;
        }
    }
    Ok(())
}
