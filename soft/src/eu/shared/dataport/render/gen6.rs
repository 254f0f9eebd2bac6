//! The Gen6, Gen7 and Gen7.5 render-target write (003 lines 84812-85793),
//! decoded into an [`RtWrite`] and handed to the output merger of the
//! draw ([`MessageEnv::pixels`]), or, for threads without one (media,
//! GPGPU, the harness), written directly as with blending off.
//!
//! Gen7 and Gen7.5 keep the Gen6 descriptor and layout: last render target
//! in bit 12, slot group in 11, type in 10:8 [ext: mesa
//! src/intel/compiler/brw_inst.h `rt_last`, `rt_slot_group`,
//! `rt_message_type`, one definition for Gen6 on]; the payload is built
//! alike for Gen6 (MRF) and Gen7 (GRF) [ext: mesa
//! src/intel/compiler/elk/elk_lower_logical_sends.cpp
//! `lower_fb_write_logical_send`]. The Gen7 manual here stops before the
//! data port.
//!
//! Header (003 lines 85004-85192; it copies R0/R1 of the PS dispatch,
//! 003 lines 43960-44080):
//! - M0.0 30:27 viewport index, 15 back facing, 13 source depth present,
//!   12 oMask present, 11 source-0 alpha present, 8:6 starting sample
//!   pair index (per-sample dispatch: refused).
//! - M0.0 26:16 render target array index: ignored, as only single 2D
//!   surfaces are taken; there an index other than 0 is out of range and
//!   falls back to the Minimum Array Element (003 lines 85089-85092).
//! - M0.2 2:0 render target index (the BLEND_STATE entry); M1.7 15:0 the
//!   pixel enables; M1.2-M1.5 the subspans' upper-left X (15:0) and Y
//!   (31:16) (003 lines 85157-85192).
//!
//! Without a header the enables, positions and flags are those of the
//! dispatch, with render target index and source-0 alpha present 0 (003
//! lines 85008-85012); Slot Group Select then picks dispatch slots 31:16
//! (003 lines 84957-84966). SIMD8 forms cover slots 7:0 of the group, the
//! DUALSRC_HI form slots 15:8 (003 lines 84971-84995).
//!
//! Payload after the header, per the sequencing table (003 lines
//! 85719-85793): source-0 alpha (one register per 8 slots), oMask (one
//! register, 16 words for the group's 16 slots, 003 lines 85415-85445),
//! the colour, source depth (one register per 8 slots). Colour: SIMD16
//! R(slots 7:0), R(15:8), G, G, B, B, A, A; SIMD8 R, G, B, A; dual source
//! source 0 R, G, B, A then source 1 R, G, B, A; replicated data one
//! register holding R, G, B, A in dwords 0-3 for every slot. The
//! sequencing key labels "1/0" as slots 15:8 (line 85732), against the
//! payload sections, which put slots 7:0 first; the payload sections are
//! taken, as the Mesa source above builds it.
//!
//! Refused as the manual forbids: source-0 alpha on dual-source and
//! replicated forms (003 lines 85115-85121), source depth on the
//! replicated form (85567-85572), oMask on SIMD8 forms (the [DevSNB+]
//! erratum, 85000-85001).
//!
//! The Gen6 SIMD8 image write (type 101, 003 lines 84991, 85203-85300)
//! has its own header: M0.0 7:0 the pixel mask, 26:16 the array index
//! ("For SURFTYPE_2D, this field must be 0"), M1.0-M1.7 each pixel's X
//! (15:0) and Y (31:16); the colour follows as in SIMD8 (003 lines
//! 85531-85533). It is written directly, on single 2D surfaces; from a
//! pixel thread with an output merger it is refused (what the colour
//! calculator does with it is not described).

use baregpu_isa::IsaGen;
use baregpu_isa::message::RtMode;

use super::super::super::MessageEnv;
use super::super::super::memory::{GfxMemory, MemFault};
use super::super::super::payload::{Msg, bad};
use super::super::super::pixel::{DispatchFlags, PixelDispatch, RtWrite};
use super::target::{Target, pixel_xy};
use crate::eu::send::SendError;

/// The colour payload forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Colour {
    Simd16,
    Simd8,
    Replicated,
    /// Dual source; `hi` covers slots 15:8 of the group.
    Dual {
        hi: bool,
    },
}

impl Colour {
    fn of(mode: RtMode) -> Result<Colour, SendError> {
        match mode {
            RtMode::Simd16 => Ok(Colour::Simd16),
            RtMode::Simd8Lo => Ok(Colour::Simd8),
            RtMode::Simd16Rep => Ok(Colour::Replicated),
            RtMode::Simd8DualLo => Ok(Colour::Dual { hi: false }),
            RtMode::Simd8DualHi => Ok(Colour::Dual { hi: true }),
            RtMode::Simd8Image => Err(bad(
                "render-target write: the SIMD8 image write has its own layout",
            )),
        }
    }

    fn slots(self) -> usize {
        match self {
            Colour::Simd16 | Colour::Replicated => 16,
            _ => 8,
        }
    }

    fn regs(self) -> usize {
        match self {
            Colour::Simd16 | Colour::Dual { .. } => 8,
            Colour::Simd8 => 4,
            Colour::Replicated => 1,
        }
    }

    /// First slot of the 16-slot group the message covers.
    fn first(self) -> usize {
        match self {
            Colour::Dual { hi: true } => 8,
            _ => 0,
        }
    }

    /// Register (counted from the first colour register) and dword of
    /// channel `c` of `slot` of source `src`.
    fn at(self, src: usize, slot: usize, c: usize) -> (usize, usize) {
        match self {
            Colour::Simd16 => (2 * c + slot / 8, slot % 8),
            Colour::Simd8 => (c, slot),
            Colour::Dual { .. } => (4 * src + c, slot),
            Colour::Replicated => (0, c),
        }
    }
}

/// Header registers (003 line 85004).
const HEADER: usize = 2;

/// M0.0 bits (003 lines 85094-85133).
const BACK_FACING: u32 = 1 << 15;
const SOURCE_DEPTH: u32 = 1 << 13;
const OMASK: u32 = 1 << 12;
const SOURCE0_ALPHA: u32 = 1 << 11;
const SAMPLE_PAIR: u32 = 0b111 << 6;

/// The message decoded: `dispatch` is the sending thread's pixels (needed
/// without a header), `flags` what its R0.0 said (header-less only).
pub(super) fn decode(
    m: &Msg,
    bti: u8,
    mode: RtMode,
    last: bool,
    slot_hi: bool,
    dispatch: Option<&PixelDispatch>,
    flags: DispatchFlags,
) -> Result<RtWrite, SendError> {
    let colour = Colour::of(mode)?;
    let header = m.req.header;
    let hdr = if header { HEADER } else { 0 };
    m.need(hdr, 0)?;
    let m00 = if header {
        m.dword(0, 0)?
    } else {
        let facing = dispatch.is_some_and(|d| !d.front_facing);
        (u32::from(flags.source_depth) * SOURCE_DEPTH)
            | (u32::from(flags.omask) * OMASK)
            | (u32::from(facing) * BACK_FACING)
    };
    if m00 & SAMPLE_PAIR != 0 {
        return Err(bad(
            "render-target write: per-sample dispatch (starting sample pair) is not modelled",
        ));
    }
    let s0a = m00 & SOURCE0_ALPHA != 0;
    let omask = m00 & OMASK != 0;
    let sz = m00 & SOURCE_DEPTH != 0;
    if s0a && matches!(colour, Colour::Dual { .. } | Colour::Replicated) {
        return Err(bad(
            "render-target write: source 0 alpha is not allowed with dual-source or replicated data",
        ));
    }
    if sz && colour == Colour::Replicated {
        return Err(bad(
            "render-target write: source depth is not allowed with replicated data",
        ));
    }
    if omask && matches!(colour, Colour::Simd8 | Colour::Dual { .. }) {
        return Err(bad(
            "render-target write: oMask is not supported with SIMD8 messages (DevSNB+ erratum)",
        ));
    }
    let slots = colour.slots();
    let data_regs = slots / 8;
    let s0a_at = hdr;
    let omask_at = s0a_at + if s0a { data_regs } else { 0 };
    let colour_at = omask_at + usize::from(omask);
    let depth_at = colour_at + colour.regs();
    let end = depth_at + if sz { data_regs } else { 0 };
    // Every legal form is one sequencing row (003 lines 85721-85793).
    if usize::from(m.req.mlen) != end {
        return Err(bad(
            "render-target write: message length does not match its header, flags and colour",
        ));
    }
    let first = colour.first();
    let group = if slot_hi { 16 } else { 0 };
    let (mask, corners) = if header {
        let enables = (m.dword(1, 7)? & 0xFFFF) >> first;
        let mut corners = [0u32; 4];
        for (k, c) in corners.iter_mut().enumerate().take(slots / 4) {
            *c = m.dword(1, 2 + first / 4 + k)?;
        }
        (enables, corners)
    } else {
        let d = dispatch.ok_or(bad(
            "render-target write without a header needs a pixel-shader dispatch (its pixel positions)",
        ))?;
        let from = group + first;
        if from + slots > usize::from(d.simd).max(8) {
            return Err(bad(
                "render-target write: slot group beyond the thread's dispatch width",
            ));
        }
        let mut corners = [0u32; 4];
        for (k, c) in corners.iter_mut().enumerate().take(slots / 4) {
            *c = d.corners[from / 4 + k];
        }
        (d.mask >> from, corners)
    };
    let mask = mask & ((1u32 << slots) - 1);
    let mut w = RtWrite {
        binding_table_index: bti,
        render_target_index: if header {
            (m.dword(0, 2)? & 7) as u8
        } else {
            0
        },
        last,
        slots,
        mask,
        corners,
        dispatch_slot: group + first,
        back_facing: m00 & BACK_FACING != 0,
        viewport_index: (m00 >> 27 & 0xF) as u8,
        color: [[0; 4]; 16],
        color1: None,
        replicated: colour == Colour::Replicated,
        src0_alpha: None,
        depth: None,
        omask: None,
    };
    let sources = if matches!(colour, Colour::Dual { .. }) {
        2
    } else {
        1
    };
    for src in 0..sources {
        let mut out = [[0u32; 4]; 16];
        for (slot, px) in out.iter_mut().enumerate().take(slots) {
            for (c, v) in px.iter_mut().enumerate() {
                let (reg, dw) = colour.at(src, slot, c);
                *v = m.dword(colour_at + reg, dw)?;
            }
        }
        if src == 0 {
            w.color = out;
        } else {
            w.color1 = Some(out);
        }
    }
    let per_slot = |at: usize| -> Result<[u32; 16], SendError> {
        let mut v = [0u32; 16];
        for (slot, x) in v.iter_mut().enumerate().take(slots) {
            *x = m.dword(at + slot / 8, slot % 8)?;
        }
        Ok(v)
    };
    if s0a {
        w.src0_alpha = Some(per_slot(s0a_at)?);
    }
    if sz {
        w.depth = Some(per_slot(depth_at)?.map(f32::from_bits));
    }
    if omask {
        // Word k of the register is the oMask of slot k of the group.
        let mut v = [0u16; 16];
        for (slot, x) in v.iter_mut().enumerate().take(slots) {
            let k = first + slot;
            *x = (m.dword(omask_at, k / 2)? >> (16 * (k % 2))) as u16;
        }
        w.omask = Some(v);
    }
    Ok(w)
}

pub(super) fn write(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    mode: RtMode,
    last: bool,
    slot_hi: bool,
) -> Result<(), SendError> {
    if mode == RtMode::Simd8Image {
        return image_write(env, m, bti);
    }
    let flags = env
        .pixels
        .as_deref()
        .map(|p| p.dispatch_flags())
        .unwrap_or_default();
    let w = decode(m, bti, mode, last, slot_hi, env.pixel_dispatch, flags)?;
    if let Some(backend) = env.pixels.as_deref_mut() {
        let mut memory = Recording {
            memory: &mut *env.memory,
            fault: None,
        };
        let r = backend.render_target(&mut memory, env.pixel_dispatch, &w);
        if let Some(f) = memory.fault {
            env.fault = Some(f);
        }
        env.last_surface = None;
        return r;
    }
    direct(env, &w)
}

/// The SIMD8 image write (module doc).
fn image_write(env: &mut MessageEnv, m: &Msg, bti: u8) -> Result<(), SendError> {
    if m.platform() != IsaGen::Gen6 {
        return Err(bad("the SIMD8 image write exists on Gen6 only"));
    }
    if !m.req.header {
        return Err(bad(
            "SIMD8 image write without a header (its pixel coordinates)",
        ));
    }
    if env.pixels.is_some() {
        return Err(bad(
            "SIMD8 image write from a pixel thread of a draw is not modelled",
        ));
    }
    if usize::from(m.req.mlen) != HEADER + 4 {
        return Err(bad(
            "SIMD8 image write: message length is not header and SIMD8 colour",
        ));
    }
    let m00 = m.dword(0, 0)?;
    if m00 >> 16 & 0x7FF != 0 {
        return Err(bad(
            "SIMD8 image write: array index other than 0 (only single 2D surfaces are modelled)",
        ));
    }
    let Some(t) = Target::open(env, bti, false)? else {
        return Ok(());
    };
    for slot in (0..8).filter(|s| m00 >> s & 1 != 0) {
        let xy = m.dword(1, slot)?;
        let mut rgba = [0u32; 4];
        for (c, v) in rgba.iter_mut().enumerate() {
            *v = m.dword(HEADER + c, slot)?;
        }
        t.store(env, xy & 0xFFFF, xy >> 16, rgba)?;
    }
    Ok(())
}

/// The write without an output merger: as with blending off and every
/// channel enabled; the forms that need the merger are refused.
fn direct(env: &mut MessageEnv, w: &RtWrite) -> Result<(), SendError> {
    if w.depth.is_some() || w.omask.is_some() || w.src0_alpha.is_some() || w.color1.is_some() {
        return Err(bad(
            "render-target write: source depth, oMask, source 0 alpha and dual source need the 3D pipeline's output merger",
        ));
    }
    let Some(t) = Target::open(env, w.binding_table_index, w.replicated)? else {
        return Ok(());
    };
    for slot in (0..w.slots).filter(|s| w.mask >> s & 1 != 0) {
        let (x, y) = pixel_xy(w.corners[slot / 4], slot);
        t.store(env, x, y, w.color[slot])?;
    }
    Ok(())
}

/// Graphics memory that keeps the first fault, so that the thread's
/// [`MessageEnv::fault`] names it when the output merger hits one.
struct Recording<'m> {
    memory: &'m mut dyn GfxMemory,
    fault: Option<MemFault>,
}

impl GfxMemory for Recording<'_> {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault> {
        let r = self.memory.read(addr, buf);
        if let Err(f) = r {
            self.fault.get_or_insert(f);
        }
        r
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        let r = self.memory.write(addr, data);
        if let Err(f) = r {
            self.fault.get_or_insert(f);
        }
        r
    }

    fn read_state(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault> {
        let r = self.memory.read_state(addr, buf);
        if let Err(f) = r {
            self.fault.get_or_insert(f);
        }
        r
    }

    fn state_epoch(&self) -> Option<u64> {
        self.memory.state_epoch()
    }
}
