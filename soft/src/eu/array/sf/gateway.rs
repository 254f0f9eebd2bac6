//! The message gateway (SFID 3): thread-to-thread register writes through
//! gateways the recipients open, notifications, barriers and timestamps.
//!
//! Sources: Gen4/G45 000 lines 6320-6529 (open, close, forward; keys and
//! gateway sizes are checked); Gen6 003 lines 87398-87998 (adds
//! GetTimeStamp and BarrierMsg; keys and limits are no longer checked, and
//! with Bypass Gateway Control RegBase is 0 and the open check is skipped,
//! 003 lines 87410-87418). Gen7 GPGPU barriers count the threads of the
//! sender's thread group and notify them through n0 only, as the compiler
//! expects (`send` barrier then `wait n0`) [ext: Mesa brw_fs emit_barrier
//! and brw_eu_emit brw_barrier / brw_WAIT].
//!
//! Not modelled (refused as bad messages): UpdateGatewayState and MMIO
//! read/write.

use alloc::vec;
use alloc::vec::Vec;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{MsgDesc, Sfid};
use baregpu_isa::message::{self, GatewayMsg, GatewayOp, Message, Notify};

use crate::eu::send::{SendError, SendRequest};
use crate::eu::thread::Thread;
use crate::eu::thread::layout::{GRF_REGS, REG_BYTES};

use super::ArraySf;
use crate::eu::array::report::Event;

/// The gateway's record of one thread slot.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    open: bool,
    /// RegBase: the recipient's first writable register.
    regbase: u8,
    /// Gen4/G45 Gateway Size in registers.
    size: u8,
    /// Gen4/G45 key.
    key: u16,
}

/// A Gen6 barrier (MEDIA_GATEWAY_STATE, 003 lines 47992-48063).
#[derive(Clone, Debug, Default)]
struct Barrier {
    threads: u8,
    byte: u8,
    /// (slot, Barrier.Offset register) of each arrival.
    arrived: Vec<(usize, u8)>,
}

pub(crate) struct Gateway {
    entries: Vec<Entry>,
    barriers: Vec<Barrier>,
    /// Bypass Gateway Control (MEDIA_VFE_STATE, Gen6+).
    pub bypass: bool,
}

/// Error codes of the writeback (000 lines 6387, 6468; 003 lines 87770-87786).
const OK: u32 = 0b000;
const SIZE_EXCEEDED: u32 = 0b001;
const CLOSED: u32 = 0b010;
const KEY_MISMATCH: u32 = 0b011;
const LIMIT_EXCEEDED: u32 = 0b100;
const INVALID_SIZE: u32 = 0b110;
/// BarrierMsg: "Error (Barrier is inactive)" (003 line 87971).
const BARRIER_INACTIVE: u32 = 0b001;

/// The gateway's SFID in the writeback's bits 19:16.
const SFID_GATEWAY: u32 = 3;

impl Gateway {
    pub fn new(slots: usize) -> Gateway {
        Gateway {
            entries: vec![Entry::default(); slots],
            barriers: vec![Barrier::default(); 16],
            bypass: false,
        }
    }

    /// The thread in `slot` ended: its gateway closes.
    pub fn close(&mut self, slot: usize) {
        if let Some(e) = self.entries.get_mut(slot) {
            *e = Entry::default();
        }
    }

    pub fn set_barrier(&mut self, id: u8, byte: u8, threads: u8) {
        if let Some(b) = self.barriers.get_mut(usize::from(id & 0xF)) {
            b.byte = byte;
            b.threads = threads;
        }
    }
}

/// Serves a gateway message.
pub(super) fn handle(
    sf: &mut ArraySf<'_, '_>,
    thread: &mut Thread,
    req: &SendRequest,
) -> Result<(), SendError> {
    let p = sf.platform;
    let desc = MsgDesc {
        mlen: req.mlen,
        rlen: req.rlen,
        header: req.header,
        function: req.function,
    };
    let g = match message::decode(p, Sfid::Gateway, &desc) {
        Ok(Message::Gateway(g)) => g,
        _ => return Err(SendError::Bad("gateway descriptor does not decode")),
    };
    // "This bit must be set to zero for all Message Gateway messages" (003
    // line 87448); one 256-bit payload register.
    if req.header {
        return Err(SendError::Bad("gateway messages carry no header"));
    }
    if g.ack && (req.dst.is_none() || req.rlen == 0) {
        return Err(SendError::Bad("AckReq needs a response register"));
    }
    let code = match g.op {
        GatewayOp::Open if req.eot => {
            close(sf, thread, req)?;
            return Ok(());
        }
        GatewayOp::Open => open(sf, thread, req)?,
        GatewayOp::Close => close(sf, thread, req)?,
        GatewayOp::Forward => forward(sf, thread, req, &g)?,
        GatewayOp::Timestamp => return timestamp(sf, thread, req, &g),
        GatewayOp::Barrier => barrier(sf, thread, req)?,
        GatewayOp::UpdateState | GatewayOp::Mmio => {
            return Err(SendError::Bad(
                "gateway state and MMIO messages are not modelled",
            ));
        }
    };
    if g.ack
        && let Some(d) = req.dst
    {
        // Only the least significant dword of the writeback is written.
        thread.set_grf_ud(d, 0, SFID_GATEWAY << 16 | code);
    }
    Ok(())
}

/// OpenGateway: M0.5[28:21] RegBase; Gen4/G45 also M0.5[10:8] Gateway
/// Size (1-32 registers) and M0.4[15:0] Key (000 lines 6350-6388; 003
/// lines 87510-87590, where size and key are gone).
fn open(sf: &mut ArraySf<'_, '_>, thread: &Thread, req: &SendRequest) -> Result<u32, SendError> {
    let m5 = sf.payload_dword(thread, req, 0, 5)?;
    let m4 = sf.payload_dword(thread, req, 0, 4)?;
    let regbase = ((m5 >> 21) & 0x7F) as u8;
    let (size, key) = if sf.platform <= IsaGen::G45 {
        let code = (m5 >> 8) & 7;
        if code > 5 {
            return Ok(SIZE_EXCEEDED);
        }
        (1u8 << code, (m4 & 0xFFFF) as u16)
    } else {
        (GRF_REGS as u8, 0)
    };
    if let Some(e) = sf.gateway.entries.get_mut(sf.slot) {
        *e = Entry {
            open: true,
            regbase,
            size,
            key,
        };
    }
    Ok(OK)
}

fn close(sf: &mut ArraySf<'_, '_>, _thread: &Thread, _req: &SendRequest) -> Result<u32, SendError> {
    sf.gateway.close(sf.slot);
    Ok(OK)
}

/// ForwardMsg: write 1 byte, 1 word (Gen6+), 1, 2 or 4 dwords of M0.0-M0.3
/// into the recipient's GRF at RegBase + M0.5[28:21], byte M0.5[20:16];
/// recipient EUID M0.4[27:24], TID M0.4[17:16] (Gen4) or [18:16] (Gen6);
/// then notify it if the descriptor asks (000 lines 6416-6475; 003 lines
/// 87643-87792).
fn forward(
    sf: &mut ArraySf<'_, '_>,
    thread: &mut Thread,
    req: &SendRequest,
    g: &GatewayMsg,
) -> Result<u32, SendError> {
    let p = sf.platform;
    let m5 = sf.payload_dword(thread, req, 0, 5)?;
    let m4 = sf.payload_dword(thread, req, 0, 4)?;
    let data: Vec<u32> = (0..4)
        .map(|d| sf.payload_dword(thread, req, 0, d))
        .collect::<Result<_, _>>()?;
    let len = match ((m5 >> 8) & 7, p <= IsaGen::G45) {
        (0b000, _) => 1,
        (0b001, false) => 2,
        (0b010, _) => 4,
        (0b011, _) => 8,
        (0b100, _) => 16,
        _ => return Ok(INVALID_SIZE),
    };
    let reg_offset = (m5 >> 21) & 0x7F;
    let byte = ((m5 >> 16) & 0x1F) as usize & !(len - 1);
    let tid_mask = if p <= IsaGen::G45 { 3 } else { 7 };
    let Some(to) = sf.slot_of((m4 >> 24) & 0xF, (m4 >> 16) & tid_mask) else {
        return Ok(CLOSED);
    };
    let entry = sf.gateway.entries.get(to).copied().unwrap_or_default();
    let bypass = sf.gateway.bypass && p >= IsaGen::Gen6;
    let regbase = if bypass { 0 } else { u32::from(entry.regbase) };
    if !bypass {
        if !entry.open {
            return Ok(CLOSED);
        }
        // Keys and the size limit are checked before SNB only (003 lines
        // 87778-87781 mark both codes [Pre-DevSNB]).
        if p <= IsaGen::G45 {
            if entry.key != (m4 & 0xFFFF) as u16 {
                return Ok(KEY_MISMATCH);
            }
            if reg_offset >= u32::from(entry.size) {
                return Ok(LIMIT_EXCEEDED);
            }
        }
    }
    let reg = regbase + reg_offset;
    // "R0 can not be used as destination GRF register" (003 line 87686).
    if reg == 0 || reg as usize >= GRF_REGS {
        return Err(SendError::Bad("forwarded write outside r1-r127"));
    }
    let mut bytes = [0u8; 16];
    for (k, d) in data.iter().enumerate() {
        bytes[k * 4..k * 4 + 4].copy_from_slice(&d.to_le_bytes());
    }
    let at = reg as usize * REG_BYTES + byte;
    let wrote = sf.with_thread(thread, to, |t| {
        if let Some(dst) = t.grf_mut().get_mut(at..at + len) {
            dst.copy_from_slice(&bytes[..len]);
        }
    });
    if wrote.is_none() {
        return Ok(CLOSED);
    }
    match g.notify {
        Notify::None => {}
        Notify::N0 => sf.notify(thread, to, 0),
        Notify::N2 => sf.notify(thread, to, 2),
    }
    Ok(OK)
}

/// GetTimeStamp (Gen6+, 003 lines 87794-87898): absolute and relative
/// time into the low or high half of the response register (M0.5[31]),
/// each a 64-bit count whose low dword keeps bits 19:0 zero. The model's
/// time is the array's instruction clock; there are no context switches,
/// so both counts are the same.
fn timestamp(
    sf: &mut ArraySf<'_, '_>,
    thread: &mut Thread,
    req: &SendRequest,
    g: &GatewayMsg,
) -> Result<(), SendError> {
    let Some(d) = req.dst.filter(|_| g.ack) else {
        return Err(SendError::Bad("GetTimeStamp needs AckReq and a response"));
    };
    let high = sf.payload_dword(thread, req, 0, 5)? >> 31 != 0;
    let now = sf.now(thread) << 20;
    let first = if high { 4 } else { 0 };
    let words = [
        now as u32,
        (now >> 32) as u32,
        now as u32,
        (now >> 32) as u32,
    ];
    for (k, w) in words.iter().enumerate() {
        thread.set_grf_ud(d, first + k, *w);
    }
    Ok(())
}

/// BarrierMsg: one more thread reached barrier M0.2[27:24].
///
/// Gen7 thread groups: the barrier of the sender's group completes when
/// all its threads have arrived; each is notified on n0. Otherwise (Gen6,
/// and Gen7 media threads) the barrier's thread count and byte come from
/// MEDIA_GATEWAY_STATE; on completion each requester gets the byte in its
/// register RegBase + Barrier.Offset (M0.2[23:16], "the least significant
/// bit ... is ignored" on SNB, line 87942) and an N0 notification (003
/// lines 87900-87998).
fn barrier(
    sf: &mut ArraySf<'_, '_>,
    thread: &mut Thread,
    req: &SendRequest,
) -> Result<u32, SendError> {
    let m2 = sf.payload_dword(thread, req, 0, 2)?;
    let id = ((m2 >> 24) & 0xF) as u8;
    sf.event(Event::BarrierArrive { slot: sf.slot });
    if let Some(gid) = sf.ctx.group {
        let Some(group) = sf.groups.get_mut(gid) else {
            return Err(SendError::Bad("barrier message from a thread of no group"));
        };
        if group.barrier_id != Some(id) {
            return Ok(BARRIER_INACTIVE);
        }
        group.arrived.push(sf.slot);
        let target = group.spec.barrier_threads.max(1) as usize;
        if group.arrived.len() < target {
            return Ok(OK);
        }
        let done: Vec<usize> = core::mem::take(&mut group.arrived);
        for slot in &done {
            sf.notify(thread, *slot, 0);
        }
        sf.barriers += 1;
        sf.event(Event::BarrierDone {
            threads: done.len() as u32,
        });
        return Ok(OK);
    }
    let offset = ((m2 >> 16) & 0x7F) as u8 & !1;
    let b = &mut sf.gateway.barriers[usize::from(id)];
    if b.threads == 0 {
        return Ok(BARRIER_INACTIVE);
    }
    b.arrived.push((sf.slot, offset));
    if b.arrived.len() < usize::from(b.threads) {
        return Ok(OK);
    }
    let byte = b.byte;
    let done: Vec<(usize, u8)> = core::mem::take(&mut b.arrived);
    for (slot, offset) in &done {
        let regbase = if sf.gateway.bypass {
            0
        } else {
            sf.gateway.entries.get(*slot).map_or(0, |e| e.regbase)
        };
        let at = (usize::from(regbase) + usize::from(*offset)) * REG_BYTES;
        sf.with_thread(thread, *slot, |t| {
            if let Some(x) = t.grf_mut().get_mut(at) {
                *x = byte;
            }
        });
        sf.notify(thread, *slot, 0);
    }
    sf.barriers += 1;
    sf.event(Event::BarrierDone {
        threads: done.len() as u32,
    });
    Ok(OK)
}
