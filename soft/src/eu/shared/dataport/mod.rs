//! The data-port messages of every port: Gen4/G45 read and write units,
//! Gen6 sampler, constant and render caches, Gen7 data cache (and Gen7.5
//! DC1 untyped messages), Gen7 render and constant caches.
//!
//! Files: `block` (OWord block, unaligned block, dual block), `scattered`
//! (DWord and byte scattered), `untyped` (Gen7 untyped surface read/write
//! and atomics, the Gen6 DWord atomic), `atomic` (the operations),
//! `media` (media block on linear and tiled surfaces), `scratch` (Gen7
//! scratch blocks, memory fence, render-cache flush), `render` (render
//! target write as far as clears need, streamed vertex buffer write),
//! `typed` (Gen7/7.5 typed surface read, write and atomics).
//!
//! Ordering: every message completes before the send returns, so reads
//! after writes always see them; write commits and fences only answer.

pub mod atomic;
mod block;
mod media;
mod render;
pub(crate) use render::target as render_target;
mod scattered;
mod scratch;
pub(crate) mod typed;
mod untyped;

use baregpu_isa::IsaGen;
use baregpu_isa::message::{DataPortMsg, DpOp};

use super::access::Window;
use super::payload::{Msg, bad};
use super::surface::SurfaceKind;
use super::{BTI_SLM, BTI_STATELESS, MessageEnv};
use crate::eu::send::SendError;

/// Units of the header's Global Offset and of per-slot offsets. Gen4/G45
/// count bytes for every message (000 lines 4518, 4643, 4840);
/// Gen6+ count OWords for the aligned OWord messages, DWords for the
/// DWord messages and bytes for the unaligned and byte messages (003 lines
/// 83583-83606, 83934, 84521).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Unit {
    Byte,
    Dword,
    Oword,
}

impl Unit {
    /// Byte offset of `n` units, with the low bits the manuals say to
    /// discard (OWord aligned, 000 line 4576; DWord aligned, 4863).
    pub fn bytes(self, n: u64, align: u64) -> u64 {
        let b = match self {
            Unit::Byte => n,
            Unit::Dword => n.wrapping_mul(4),
            Unit::Oword => n.wrapping_mul(16),
        };
        b & !(align - 1)
    }
}

/// The unit of a message's offsets on `p` (`gen6` is the unit for messages
/// that count other units from Gen6 on).
pub(super) fn unit(p: IsaGen, gen6: Unit) -> Unit {
    if p <= IsaGen::G45 { Unit::Byte } else { gen6 }
}

/// A message's header: present on every Gen4/G45 data-port message; from
/// Gen6 the descriptor's Header Present bit says (003 lines 79177-79182,
/// 83401-83406).
pub(super) fn has_header(m: &Msg) -> bool {
    m.platform() <= IsaGen::G45 || m.req.header
}

/// Gen6 requires the header on every message but the render-target write
/// (003 line 83406); Gen7 on the block, scratch, fence and media messages
/// (003 lines 83233-83343, the Gen7 summary that leaked into the SNB
/// volume).
pub(super) fn require_header(m: &Msg) -> Result<(), SendError> {
    if has_header(m) {
        Ok(())
    } else {
        Err(bad("this data-port message needs a header"))
    }
}

/// Gen6 needs the header on these messages; Gen7 makes it optional for
/// the dual-block, scattered and untyped messages (003 lines 83233-83319).
pub(super) fn header_on_gen6(m: &Msg) -> Result<(), SendError> {
    if m.platform() == IsaGen::Gen6 {
        require_header(m)
    } else {
        Ok(())
    }
}

/// The header's Global Offset (M0.2), 0 without a header (003 line 83347).
pub(super) fn global_offset(m: &Msg) -> Result<u32, SendError> {
    if has_header(m) { m.dword(0, 2) } else { Ok(0) }
}

/// First payload register after the header.
pub(super) fn after_header(m: &Msg) -> usize {
    usize::from(has_header(m))
}

/// The window a buffer message addresses through `bti`, with entries of
/// `element` bytes for surfaces.
///
/// - 255, stateless: General State Base + the header's Immediate Buffer
///   Base Address `M0.5[31:10]`, bounded by the General State Access Upper
///   Bound (000 lines 4327-4340, 4513; 003 lines 81028-81049,
///   83558-83562). Without a header (Gen7) the immediate base is 0.
/// - 254 on Gen7: shared local memory [ext: mesa GEN7_BTI_SLM].
/// - otherwise SURFACE_STATE: a SURFTYPE_BUFFER of `entries * element`
///   bytes, or SURFTYPE_NULL.
pub(super) fn buffer_window(
    env: &mut MessageEnv,
    m: &Msg,
    bti: u8,
    element: u64,
) -> Result<Window, SendError> {
    if bti == BTI_STATELESS {
        let imm = if has_header(m) {
            u64::from(m.dword(0, 5)? & !0x3FF)
        } else {
            0
        };
        let gs = env.general_state;
        let base = gs.base.wrapping_add(imm);
        return Ok(Window::Mem {
            base,
            size: gs.upper_bound.saturating_sub(base),
        });
    }
    if bti == BTI_SLM && m.platform() >= IsaGen::Gen7 {
        return Ok(Window::Slm);
    }
    let s = env.surface(bti)?;
    match s.kind {
        SurfaceKind::Null => Ok(Window::Null),
        SurfaceKind::Buffer => Ok(Window::Mem {
            base: s.base,
            size: s.buffer_bytes(element),
        }),
        _ => Err(bad(
            "buffer message to a surface that is not SURFTYPE_BUFFER",
        )),
    }
}

/// Entry size for bounds of the OWord and DWord buffer messages: 16 bytes
/// on Gen4-Gen6 whatever the pitch (000 line 4541; 003 lines
/// 83641-83643); the surface pitch on Gen7, where Mesa describes raw
/// buffers with a 1-byte pitch [ext: mesa brw_wm_surface_state.c
/// `brw_emit_buffer_surface_state`, stride from the format or 1 for RAW].
pub(super) fn element(env: &mut MessageEnv, m: &Msg, bti: u8) -> Result<u64, SendError> {
    if m.platform() < IsaGen::Gen7 || bti >= BTI_SLM {
        return Ok(16);
    }
    Ok(u64::from(env.surface(bti)?.pitch))
}

/// Serves a data-port message.
pub(super) fn handle(env: &mut MessageEnv, m: &mut Msg, d: &DataPortMsg) -> Result<(), SendError> {
    match d.op {
        DpOp::OwordBlockRead { bti, owords } => block::read(env, m, bti, owords, false),
        DpOp::UnalignedOwordBlockRead { bti, owords } => block::read(env, m, bti, owords, true),
        DpOp::OwordBlockWrite { bti, owords } => block::write(env, m, bti, owords),
        DpOp::OwordDualBlockRead { bti, owords } => block::dual_read(env, m, bti, owords),
        DpOp::OwordDualBlockWrite { bti, owords } => block::dual_write(env, m, bti, owords),
        DpOp::DwordScatteredRead { bti, simd } => scattered::dword_read(env, m, bti, simd),
        DpOp::DwordScatteredWrite { bti, simd } => scattered::dword_write(env, m, bti, simd),
        DpOp::ByteScatteredRead { bti, simd, size } => {
            scattered::byte_read(env, m, bti, simd, size)
        }
        DpOp::ByteScatteredWrite { bti, simd, size } => {
            scattered::byte_write(env, m, bti, simd, size)
        }
        DpOp::MediaBlockRead { bti, vls } => media::read(env, m, bti, vls),
        DpOp::MediaBlockWrite { bti, vls } => media::write(env, m, bti, vls),
        DpOp::UntypedRead { bti, simd, mask } => untyped::read(env, m, bti, simd, mask),
        DpOp::UntypedWrite { bti, simd, mask } => untyped::write(env, m, bti, simd, mask),
        DpOp::UntypedAtomic { bti, op, simd, ret } => untyped::atomic(env, m, bti, op, simd, ret),
        DpOp::DwordAtomic { bti, op, two_src } => untyped::dword_atomic(env, m, bti, op, two_src),
        DpOp::ScratchRead {
            regs,
            offset,
            dword,
            ..
        } => scratch::read(env, m, regs, offset, dword),
        DpOp::ScratchWrite {
            regs,
            offset,
            dword,
            ..
        } => scratch::write(env, m, regs, offset, dword),
        DpOp::Fence { .. } => scratch::fence(m),
        DpOp::FlushRenderCache { .. } => Ok(()),
        DpOp::RtWrite {
            bti,
            mode,
            last,
            slot_hi,
        } => render::rt_write(env, m, bti, mode, last, slot_hi),
        DpOp::SvbWrite { bti, .. } => render::svb_write(env, m, bti),
        DpOp::TypedRead { bti, slots, mask } => typed::read(env, m, bti, slots, mask),
        DpOp::TypedWrite { bti, slots, mask } => typed::write(env, m, bti, slots, mask),
        DpOp::TypedAtomic {
            bti,
            op,
            slots,
            ret,
        } => typed::atomic(env, m, bti, op, slots, ret),
        DpOp::RtUnormRead { .. } | DpOp::RtUnormWrite { .. } | DpOp::AvcLoopFilterRead { .. } => {
            Err(SendError::Unhandled)
        }
    }
}
