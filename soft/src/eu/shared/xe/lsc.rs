//! LSC loads, stores, atomics and fences on UGM/UGML (flat, BTI, SS, BSS
//! buffers) and SLM, as 004's DP_* pseudocode runs them (DP_LOAD lines
//! 19506-19586; the atomics 6638-7340; DP_FENCE 15406-15469):
//!
//! ```text
//! for n in 0..32: if ChEn[n]: for v in 0..vect_size:
//!   transpose: dest[n].data[v] = mem[base + src0[n]].data[v]
//!   else:      dest[v].data[n] = mem[base + src0[n]].data[v]
//! ```
//!
//! Register layouts: the address payload holds the lanes' addresses packed
//! (2, 4 or 8 bytes each, 004 "src0_length = roundup(addr_size *
//! simd_size / grf_size)"); data is component-major: component `v` of every
//! lane, then the next component, each component starting on a register
//! (004 dest_length; Mesa `lsc_msg_desc` rlen = vector times
//! DIV_ROUND_UP(exec times bytes, REG_SIZE)); a lane takes `DataSize::reg_bytes` bytes (Mesa
//! `lsc_data_size_bytes`: d8 1, d16 2, d8u32/d16u32/d16u32h 4, d64 8).
//! Transposed, lane 0's address reaches `vect_size` consecutive elements,
//! packed in the registers. Disabled lanes neither access memory nor have
//! their registers written.
//!
//! Atomics run lane by lane in channel order (the pseudocode's `for n`),
//! so lanes hitting one address see each other's results; each returns the
//! old value when the response length asks for it.
//!
//! Cache controls are decoded (by `baregpu_isa::message::lsc`) and ignored:
//! the model has no caches. Fences are ordering points, and a sequential
//! model is always ordered: decoded, checked, and answered with the one
//! register 004 says a fence writes when it asks for a response.

use baregpu_isa::inst::Sfid;
use baregpu_isa::message::lsc::{
    self as lmsg, Access, AddrSize, BtiRef, DataSize, LscExDesc, LscKind, LscOp, Shape, SurfRef,
    Surface,
};

use super::payload::{reg_load, reg_store, regs_for};
use super::surface::{self, XeSurface};
use super::{XeEnv, bad, fault};
use crate::eu::send::{SendError, SendRequest};
use crate::eu::thread::Thread;
use crate::eu::thread::layout::{GRF_REGS, REG_BYTES};

/// Where an LSC access's offsets land.
#[derive(Clone, Copy, Debug)]
pub(super) enum Target {
    /// A virtual address: base + offset, faults are errors.
    Flat(u64),
    /// The group's shared local memory.
    Slm,
    /// A buffer: an element reaching past `size` reads 0 and its write is
    /// dropped. 004 has no bounds text; this is the rule the data port of
    /// the older generations states for every buffer message (000 lines
    /// 4561, 4627, 4826; 003 lines 83680, 83899, 84489), taken here for
    /// DG2's buffers as well.
    Buffer { base: u64, size: u64 },
    /// SURFTYPE_NULL.
    Null,
    /// A 2D surface (TGM only).
    Image(XeSurface),
}

/// Serves one LSC message to `sfid`.
pub(super) fn handle(env: &mut XeEnv, t: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
    let sfid = req.sfid.ok_or(bad("reserved shared function ID"))?;
    // The extended descriptor as read (an a0 value was read when the send
    // ran), without the second payload's length in 10:6.
    let ex = LscExDesc::Imm(req.extended.desc & !0x7C0);
    let msg = lmsg::decode(sfid, req.desc, ex).map_err(|_| {
        bad("LSC descriptor does not decode (reserved code or must-be-zero bit, see baregpu_isa::message::lsc)")
    })?;
    match msg.kind {
        LscKind::Fence(_) => {
            // Ordered already; a fence with a response writes one register
            // (004 DP_FENCE: dest length 1), whose content is not defined.
            if req.rlen > 1 {
                return Err(bad("LSC fence: response length above 1"));
            }
            Ok(())
        }
        LscKind::Access(a) => access(env, t, req, sfid, &a),
    }
}

/// The thread's part of a scratch surface: Base + PThreadID * Pitch, Pitch
/// bytes long (004 line 6653). A thread ID past the entries is refused
/// (the driver sizes the surface for CFE_STATE's Maximum Number of
/// Threads, 004 lines 12356-12365).
pub(super) fn scratch_part(
    slot: u32,
    base: u64,
    pitch: u64,
    entries: u64,
) -> Result<Target, SendError> {
    if u64::from(slot) >= entries {
        return Err(bad("scratch surface: the thread's ID is past its entries"));
    }
    Ok(Target::Buffer {
        base: base.wrapping_add(u64::from(slot) * pitch),
        size: pitch,
    })
}

/// The target of an access's surface.
pub(super) fn target(env: &mut XeEnv, sfid: Sfid, s: Surface) -> Result<Target, SendError> {
    if sfid == Sfid::Slm {
        return match s {
            Surface::Flat => Ok(Target::Slm),
            _ => Err(bad(
                "LSC: SLM messages must have a flat address type (004 DP_LOAD)",
            )),
        };
    }
    let state_at = match s {
        Surface::Flat if sfid == Sfid::Tgm => {
            return Err(bad(
                "LSC: typed (TGM) messages need a surface, not a flat address",
            ));
        }
        Surface::Flat => return Ok(Target::Flat(env.state.flat_base)),
        // ExDesc 31:6 is the byte offset of the surface state (bits 10:6
        // are the second payload's length in an immediate, zero here).
        Surface::Ss(SurfRef::Offset(o)) => env
            .state
            .surface_state_base
            .wrapping_add(u64::from(o & !0x3F)),
        Surface::Bss(SurfRef::Offset(o)) => env
            .state
            .bindless_surface_state_base
            .wrapping_add(u64::from(o & !0x3F)),
        Surface::Bti(BtiRef::Index(i)) => super::binding_table_entry(env, u32::from(i))?,
        _ => return Err(bad("LSC: surface reference not resolved")),
    };
    Ok(match surface::read(env.memory, state_at)? {
        XeSurface::Null => Target::Null,
        XeSurface::Buffer { .. } if sfid == Sfid::Tgm => {
            return Err(bad(
                "LSC: typed (TGM) message on a buffer surface (2D surfaces only here)",
            ));
        }
        XeSurface::Buffer { base, size } => Target::Buffer { base, size },
        XeSurface::Scratch { .. } if sfid == Sfid::Tgm => {
            return Err(bad("LSC: typed (TGM) message on a scratch surface"));
        }
        XeSurface::Scratch {
            base,
            pitch,
            entries,
        } => scratch_part(env.slot, base, pitch, entries)?,
        img @ XeSurface::Image { .. } if sfid == Sfid::Tgm => Target::Image(img),
        XeSurface::Image { .. } => {
            return Err(bad(
                "LSC: stateful UGM messages are only allowed on SURFTYPE_BUFFER (004 DP_LOAD Address Type)",
            ));
        }
    })
}

/// The legacy data-port messages' (dc0, dc1) binding-table indices:
/// index 255 (stateless, IA-coherent) and 253 (stateless,
/// non-coherent: Mesa brw_eu_defines.h GFX8_BTI_STATELESS_NON_COHERENT,
/// the index IGC's DG2 payload loads use) are stateless; 254 is SLM; any
/// other index is a buffer. The stateless ones count from General State
/// Base (`XeState::general_state_base`). Coherence with the CPU's caches is
/// not modelled.
pub(super) fn bti_target(env: &mut XeEnv, bti: u8) -> Result<Target, SendError> {
    match bti {
        255 | 253 => Ok(Target::Flat(env.state.general_state_base)),
        254 => target(env, Sfid::Slm, Surface::Flat),
        i => target(env, Sfid::Ugm, Surface::Bti(BtiRef::Index(i))),
    }
}

fn tg_image(t: Target) -> Option<XeSurface> {
    match t {
        Target::Image(s) => Some(s),
        _ => None,
    }
}

/// The part of an SLM address the hardware looks at: its low 16 bits
/// (a group has at most 64 KiB). IGC relies on it: its `__local` pointers
/// carry bit 28 (VALID_LOCAL_HIGH_BITS 0x10000000) so that a valid one is
/// never the null bit pattern, "only the low 16 bits ... of SLM addresses
/// are significant" [ext: IGC Compiler/Optimizer/OpenCLPasses/
/// LocalBuffers/InlineLocalsResolution.hpp; vc GenXSLMResolution.cpp
/// NullProtection]; its DG2 code ORs it into dc1 SLM offsets.
fn slm_offset(off: u64) -> u64 {
    off & 0xFFFF
}

/// Reads `buf.len()` bytes at `off` of the target.
pub(super) fn read(env: &mut XeEnv, tg: Target, off: u64, buf: &mut [u8]) -> Result<(), SendError> {
    let n = buf.len() as u64;
    match tg {
        Target::Flat(base) => env
            .memory
            .read(base.wrapping_add(off), buf)
            .map_err(|f| fault(f, false)),
        Target::Slm => {
            let slm = env
                .slm
                .as_deref()
                .ok_or(bad("LSC: no shared local memory"))?;
            let off = slm_offset(off);
            match off.checked_add(n).filter(|e| *e <= slm.len() as u64) {
                Some(_) => buf.copy_from_slice(&slm[off as usize..(off + n) as usize]),
                None => buf.fill(0),
            }
            Ok(())
        }
        Target::Buffer { base, size } => {
            if off.checked_add(n).is_none_or(|e| e > size) {
                buf.fill(0);
                return Ok(());
            }
            env.memory
                .read(base.wrapping_add(off), buf)
                .map_err(|f| fault(f, false))
        }
        Target::Null | Target::Image(_) => {
            buf.fill(0);
            Ok(())
        }
    }
}

/// Writes `data` at `off` of the target (dropped out of bounds).
pub(super) fn write(env: &mut XeEnv, tg: Target, off: u64, data: &[u8]) -> Result<(), SendError> {
    let n = data.len() as u64;
    match tg {
        Target::Flat(base) => env
            .memory
            .write(base.wrapping_add(off), data)
            .map_err(|f| fault(f, true)),
        Target::Slm => {
            let slm = env
                .slm
                .as_deref_mut()
                .ok_or(bad("LSC: no shared local memory"))?;
            let off = slm_offset(off);
            if let Some(e) = off.checked_add(n).filter(|e| *e <= slm.len() as u64) {
                slm[off as usize..e as usize].copy_from_slice(data);
            }
            Ok(())
        }
        Target::Buffer { base, size } => {
            if off.checked_add(n).is_none_or(|e| e > size) {
                return Ok(());
            }
            env.memory
                .write(base.wrapping_add(off), data)
                .map_err(|f| fault(f, true))
        }
        Target::Null | Target::Image(_) => Ok(()),
    }
}

/// Memory bytes of one element.
fn mem_bytes(d: DataSize) -> usize {
    match d {
        DataSize::D8 | DataSize::D8U32 => 1,
        DataSize::D16 | DataSize::D16U32 | DataSize::D16U32H => 2,
        DataSize::D32 => 4,
        DataSize::D64 => 8,
    }
}

/// Register bytes of an element from its memory bytes (zero-extended;
/// d16u32h into the high half, 004 DP_DATA_SIZE / Mesa LSC_DATA_SIZE_D16BF32).
fn widen(d: DataSize, m: u64) -> u64 {
    match d {
        DataSize::D16U32H => (m & 0xFFFF) << 16,
        _ => m,
    }
}

/// Memory value of a register element.
fn narrow(d: DataSize, r: u64) -> u64 {
    match d {
        DataSize::D16U32H => r >> 16 & 0xFFFF,
        _ => r & mask(mem_bytes(d)),
    }
}

fn mask(bytes: usize) -> u64 {
    if bytes >= 8 {
        u64::MAX
    } else {
        (1u64 << (bytes * 8)) - 1
    }
}

/// Checks the shape rules 004 states for `a` on `sfid` at this execution
/// size, each refused by name.
fn check(a: &Access, sfid: Sfid, exec: usize) -> Result<(), SendError> {
    let (len, transpose) = match a.shape {
        Shape::Vector { len, transpose } => (usize::from(len), transpose),
        Shape::Cmask(_) => (0, false),
    };
    let narrow_data = matches!(a.data, DataSize::D8 | DataSize::D16);
    if narrow_data && (len > 1 || transpose) {
        return Err(bad(
            "LSC: 8- and 16-bit data only with vector size 1 and no transpose (004 DP_LOAD Data Size)",
        ));
    }
    if matches!(a.shape, Shape::Cmask(_)) && a.data != DataSize::D32 {
        return Err(bad(
            "LSC: load_quad/store_quad take d32 only (004 DP_LOAD_CMASK)",
        ));
    }
    if transpose && exec != 1 {
        return Err(bad(
            "LSC: transposed vectors are restricted to Exec_Mask == 1 (004 DP_LOAD Transpose)",
        ));
    }
    if !transpose && len > 0 {
        let limit = match (sfid, a.data) {
            (Sfid::Ugml, _) => 4,
            (_, DataSize::D64) => 4,
            _ => 8,
        };
        if len > limit || (sfid == Sfid::Ugml && len == 3) {
            return Err(bad(
                "LSC: untransposed vector longer than the port takes (004 DP_LOAD Vector Size: 8 for D32, 4 for D64, UGML 4 and no 3)",
            ));
        }
        if (len >= 8 || (a.data == DataSize::D64 && len >= 3)) && exec > 8 {
            return Err(bad(
                "LSC: vector size 8 (or d64 x3) and above is restricted to SIMT8 (004 DP_LOAD)",
            ));
        }
    }
    if a.op.is_atomic() {
        if !matches!(
            a.shape,
            Shape::Vector {
                len: 1,
                transpose: false
            }
        ) {
            return Err(bad(
                "LSC: atomics are SIMT with vector size 1 (004 DP_ATOMIC_*)",
            ));
        }
        if matches!(sfid, Sfid::Slm | Sfid::Tgm) && a.data == DataSize::D64 {
            return Err(bad(
                "LSC: 64-bit atomics are not allowed on SLM or TGM (004 DP_ATOMIC_*)",
            ));
        }
        let float = matches!(
            a.op,
            LscOp::AtomicFadd
                | LscOp::AtomicFsub
                | LscOp::AtomicFmin
                | LscOp::AtomicFmax
                | LscOp::AtomicFcmpxchg
        );
        if float && sfid == Sfid::Tgm {
            return Err(bad(
                "LSC: floating point atomics are not supported on TGM (004 DP_ATOMIC_FMAX)",
            ));
        }
        if float && a.data == DataSize::D16U32 {
            return Err(bad("LSC: half-float (d16u32) atomics are not modelled yet"));
        }
        let ok = if float {
            a.data == DataSize::D32
        } else {
            matches!(a.data, DataSize::D16U32 | DataSize::D32 | DataSize::D64)
        };
        if !ok {
            return Err(bad(
                "LSC: atomic data size not d16u32, d32 or d64 (float atomics: d32)",
            ));
        }
    }
    if sfid == Sfid::Tgm && a.addr_size != AddrSize::A32 {
        return Err(bad("LSC: typed (TGM) coordinates are A32"));
    }
    if a.addr_size == AddrSize::A16 && !matches!(sfid, Sfid::Slm) && a.surface == Surface::Flat {
        return Err(bad("LSC: A16 flat addresses only on SLM"));
    }
    Ok(())
}

fn access(
    env: &mut XeEnv,
    t: &mut Thread,
    req: &SendRequest,
    sfid: Sfid,
    a: &Access,
) -> Result<(), SendError> {
    let exec = usize::from(req.exec_size).clamp(1, 32);
    check(a, sfid, exec)?;
    let tg = target(env, sfid, a.surface)?;
    if sfid == Sfid::Tgm {
        return super::tgm::access(env, t, req, a, tg_image(tg));
    }
    let (vlen, transpose, cmask) = match a.shape {
        Shape::Vector { len, transpose } => (usize::from(len), transpose, 0xFu8),
        Shape::Cmask(m) => (m.count_ones() as usize, false, m),
    };
    let abytes = a.addr_size.bytes() as usize;
    let lanes = if transpose { 1 } else { exec };
    if usize::from(req.mlen) * REG_BYTES < lanes * abytes {
        return Err(bad("LSC: message length shorter than the address payload"));
    }
    let rb = a.data.reg_bytes() as usize;
    let mb = mem_bytes(a.data);
    // Bytes between components in a data payload.
    let stride = if transpose {
        rb
    } else {
        regs_for(exec * rb) * REG_BYTES
    };
    let data_regs = if transpose {
        regs_for(vlen * rb)
    } else {
        vlen * regs_for(exec * rb)
    };
    let base = usize::from(req.payload.reg) * REG_BYTES;
    if base + usize::from(req.mlen) * REG_BYTES > GRF_REGS * REG_BYTES {
        return Err(bad("LSC: address payload runs past r127"));
    }
    let addr =
        |t: &Thread, n: usize| -> Result<u64, SendError> { reg_load(t, base + n * abytes, abytes) };
    let dst = req.dst.map(|r| usize::from(r) * REG_BYTES);
    let src1 = req.extended.src1.map(|r| usize::from(r) * REG_BYTES);
    let enabled = |n: usize| req.channels >> n & 1 != 0;
    let elem_step = if a.data == DataSize::D64 {
        8
    } else {
        mb as u64
    };

    if a.op.is_load() {
        if req.rlen == 0 {
            return Ok(()); // a prefetch: no caches to fill
        }
        if usize::from(req.rlen) < data_regs {
            return Err(bad("LSC load: response length shorter than the data"));
        }
        let Some(dst) = dst else {
            return Err(bad("LSC load: null destination with a response length"));
        };
        for n in 0..lanes {
            if !enabled(n) {
                continue;
            }
            let off = addr(t, n)?;
            let mut comp = 0;
            for v in 0..4.max(vlen) {
                let present = if a.op.has_cmask() {
                    v < 4 && cmask >> v & 1 != 0
                } else {
                    v < vlen
                };
                if !present {
                    continue;
                }
                let mut b = [0u8; 8];
                read(
                    env,
                    tg,
                    off.wrapping_add(v as u64 * elem_step),
                    &mut b[..mb],
                )?;
                let val = widen(a.data, u64::from_le_bytes(b));
                let at = if transpose {
                    dst + comp * rb
                } else {
                    dst + comp * stride + n * rb
                };
                reg_store(t, at, rb, val)?;
                comp += 1;
            }
        }
        return Ok(());
    }
    if a.op.is_store() {
        let Some(src1) = src1 else {
            return Err(bad("LSC store: no second payload (src1) with the data"));
        };
        if usize::from(req.extended.src1_len) < data_regs {
            return Err(bad("LSC store: second payload shorter than the data"));
        }
        for n in 0..lanes {
            if !enabled(n) {
                continue;
            }
            let off = addr(t, n)?;
            let mut comp = 0;
            for v in 0..4.max(vlen) {
                let present = if a.op.has_cmask() {
                    v < 4 && cmask >> v & 1 != 0
                } else {
                    v < vlen
                };
                if !present {
                    continue;
                }
                let at = if transpose {
                    src1 + comp * rb
                } else {
                    src1 + comp * stride + n * rb
                };
                let val = narrow(a.data, reg_load(t, at, rb)?);
                write(
                    env,
                    tg,
                    off.wrapping_add(v as u64 * elem_step),
                    &val.to_le_bytes()[..mb],
                )?;
                comp += 1;
            }
        }
        return Ok(());
    }
    // Atomics.
    let operands = usize::from(a.op.atomic_operands());
    if operands > 0 {
        if src1.is_none() {
            return Err(bad(
                "LSC atomic: no second payload (src1) with the operands",
            ));
        }
        if usize::from(req.extended.src1_len) < operands * regs_for(exec * rb) {
            return Err(bad("LSC atomic: second payload shorter than the operands"));
        }
    }
    let ret = req.rlen > 0;
    if ret && usize::from(req.rlen) < regs_for(exec * rb) {
        return Err(bad("LSC atomic: response length shorter than the data"));
    }
    for n in 0..exec {
        if !enabled(n) {
            continue;
        }
        let off = addr(t, n)?;
        let src = |t: &Thread, k: usize| -> Result<u64, SendError> {
            match src1 {
                Some(s) => Ok(narrow(a.data, reg_load(t, s + k * stride + n * rb, rb)?)),
                None => Ok(0),
            }
        };
        let x = src(t, 0)?;
        let y = if operands == 2 { src(t, 1)? } else { 0 };
        let mut b = [0u8; 8];
        read(env, tg, off, &mut b[..mb])?;
        let old = u64::from_le_bytes(b);
        if let Some(new) = super::atomic::apply(a.op, a.data, old, x, y) {
            write(env, tg, off, &new.to_le_bytes()[..mb])?;
        }
        if ret && let Some(d) = dst {
            reg_store(t, d + n * rb, rb, widen(a.data, old))?;
        }
    }
    Ok(())
}
