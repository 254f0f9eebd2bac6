//! Gen7 and Gen7.5 typed surface read, write and atomic messages: Ivy
//! Bridge sends them to the render cache, Haswell to data cache 1 (its
//! render cache keeps the codes) [ext: mesa brw_lower_logical_sends.cpp
//! `lower_surface_logical_send` picks the SFID of typed messages that
//! way].
//!
//! Payload [ext: same function; brw_eu.h `brw_dp_typed_surface_rw_desc`,
//! `brw_dp_typed_atomic_desc`; IGC vISA builder
//! `buildTypedSurfaceAddressPayload`]:
//! - A header, required (003 lines 83369-83373, the Gen7 render-cache
//!   summary: "Typed Surface Read yes 1D, 2D, 3D, 4D 8"). Its M0.7 holds
//!   the slot (sample) mask: Mesa writes the sample mask there for typed
//!   messages, and IVB vec4 code sets it to 0x11 to keep only slots 0 and 4
//!   of a SIMD8 message [ext: mesa brw_vec4_surface_builder.cpp
//!   `emit_typed_message_header`].
//! - SIMD8 (vector width 8, the only one on Gen7): U, then V, R, LOD as far
//!   as the message goes, one register each, slot s in dword s; then the
//!   data, one register per phase. The address parameters are what the
//!   length leaves after the header and the data (valid patterns U; U V;
//!   U V R; U V R LOD, with unused ones as padding [ext: IGC]); the ones
//!   not sent are 0. Write data: one register per enabled channel, in
//!   R, G, B, A order; atomic data: src0, then src1 (CMPWR). The slot
//!   group takes the low or high 8 bits of the execution mask and of M0.7
//!   (Mesa picks the high group for the second and fourth quarters).
//!   Response: reads one register per enabled channel, atomics one.
//! - SIMD4x2 (Gen7.5 DC1 only; Mesa never emits it for Ivy Bridge): slot
//!   0 in dwords 0-3, slot 1 in dwords 4-7 of each register. The address
//!   register holds U, V, R, LOD, the write data register R, G, B, A, the
//!   atomic data register src0 and src1 (as x and y), and the response the
//!   channels in the same places (atomics: dword 4s) [ext: mesa
//!   brw_vec4_surface_builder.cpp, vectors of four per slot]. Mesa's
//!   Haswell vec4 code leaves M0.7 zero, so here the execution mask alone
//!   enables: a slot by any of its four channels, a channel by its own.
//!
//! Slots are served in order; a disabled slot's response dwords are left
//! alone. Null surfaces: reads return zeros, writes are dropped (003 lines
//! 75483-75486), atomics return 0. Ivy Bridge typed atomics are reported
//! to corrupt memory on a null surface instead [ext: mesa
//! brw_fs_surface_builder.cpp `emit_typed_atomic_check`]; this model keeps
//! the documented rule.
//!
//! Files: `texel` (coordinates to addresses, bounds), `format` (which
//! formats each generation takes, conversions).

pub(crate) mod format;
mod texel;

use baregpu_isa::IsaGen;
use baregpu_isa::message::{AtomicOp, Channels, Slots};

use super::super::payload::{Msg, Reg, bad, set_dword};
use super::super::surface::{Surface, SurfaceKind};
use super::super::{BTI_SLM, MessageEnv};
use super::atomic::{self, Compare};
use crate::eu::send::SendError;
use format::{Layout, ReadKind};
use texel::Coords;

/// Where a message's registers are, and which slots it serves.
struct Plan {
    simd4x2: bool,
    /// Address registers after the header (SIMD8: the parameters sent).
    addr_regs: usize,
    /// Enabled slots, bit s for slot s.
    on: u32,
    /// SIMD4x2 channel enables, bit 4s + c.
    channel_on: u32,
}

impl Plan {
    /// Checks the header and lengths of a message with `data` data
    /// registers and `rlen` response registers.
    fn new(m: &Msg, slots: Slots, data: usize, rlen: usize) -> Result<Plan, SendError> {
        if !m.req.header {
            return Err(bad("typed messages need a header"));
        }
        if slots == Slots::Simd4x2 && m.platform() < IsaGen::Gen75 {
            return Err(bad("SIMD4x2 typed messages exist from Gen7.5"));
        }
        // The header, an address register, the data.
        m.need(2 + data, rlen)?;
        let ce = m.enables();
        if slots == Slots::Simd4x2 {
            let on = (0..2)
                .filter(|s| ce >> (4 * s) & 0xF != 0)
                .fold(0, |a, s| a | 1 << s);
            return Ok(Plan {
                simd4x2: true,
                addr_regs: 1,
                on,
                channel_on: ce & 0xFF,
            });
        }
        let addr_regs = usize::from(m.req.mlen) - 1 - data;
        if addr_regs > 4 {
            return Err(bad(
                "typed message longer than its header, U, V, R, LOD and data",
            ));
        }
        // The 16 channel enables as the group of 16 the instruction's
        // channels belong to sees them, ANDed with the header's mask.
        let group = if slots == Slots::High { 8 } else { 0 };
        let abs = (ce << (m.req.first_channel % 16)) & 0xFFFF;
        let on = (abs & m.dword(0, 7)?) >> group & 0xFF;
        Ok(Plan {
            simd4x2: false,
            addr_regs,
            on,
            channel_on: u32::MAX,
        })
    }

    fn slots(&self) -> impl Iterator<Item = usize> + use<> {
        let on = self.on;
        (0..8).filter(move |s| on >> s & 1 != 0)
    }

    /// Whether channel `c` of slot `s` takes part.
    fn channel(&self, s: usize, c: usize) -> bool {
        !self.simd4x2 || self.channel_on >> (4 * s + c) & 1 != 0
    }

    fn coords(&self, m: &Msg, s: usize) -> Result<Coords, SendError> {
        let mut p = [0u32; 4];
        for (k, v) in p.iter_mut().enumerate() {
            *v = if self.simd4x2 {
                m.dword(1, 4 * s + k)?
            } else if k < self.addr_regs {
                m.dword(1 + k, s)?
            } else {
                0
            };
        }
        Ok(Coords {
            u: p[0],
            v: p[1],
            r: p[2],
            lod: p[3],
        })
    }

    /// Each enabled slot's texel address in `surf` (`None` outside), all
    /// found before any access, so that a refused coordinate leaves
    /// memory alone.
    fn texels(&self, m: &Msg, surf: &Surface, bpp: usize) -> Result<[Option<u64>; 8], SendError> {
        let mut at = [None; 8];
        for s in self.slots() {
            at[s] = texel::locate(surf, bpp as u64, &self.coords(m, s)?)?;
        }
        Ok(at)
    }

    /// Data of slot `s`: SIMD8 phase `phase` (its own register), SIMD4x2
    /// component `comp` (of the one data register).
    fn data(&self, m: &Msg, phase: usize, comp: usize, s: usize) -> Result<u32, SendError> {
        let first = 1 + self.addr_regs;
        if self.simd4x2 {
            m.dword(first, 4 * s + comp)
        } else {
            m.dword(first + phase, s)
        }
    }

    /// Response register and dword of slot `s`: SIMD8 phase `phase`,
    /// SIMD4x2 component `comp`.
    fn out_at(&self, phase: usize, comp: usize, s: usize) -> (usize, usize) {
        if self.simd4x2 {
            (0, 4 * s + comp)
        } else {
            (phase, s)
        }
    }
}

fn enabled(mask: Channels) -> impl Iterator<Item = usize> {
    (0..4).filter(move |c| mask.0 >> c & 1 != 0)
}

/// The surface at `bti`, `None` for SURFTYPE_NULL.
fn open(env: &mut MessageEnv, bti: u8) -> Result<Option<Surface>, SendError> {
    // Typed access is through a surface: SLM and stateless are not typed
    // [ext: IGC vISA GATHER4_TYPED rules out the SLM and stateless
    // surfaces].
    if bti >= BTI_SLM {
        return Err(bad("typed messages need a surface binding-table entry"));
    }
    let s = env.surface(bti)?;
    if s.kind == SurfaceKind::Null {
        return Ok(None);
    }
    if s.vertical_line_stride {
        return Err(bad("typed message: field-mode surfaces are not modelled"));
    }
    Ok(Some(s))
}

/// Response registers being built: bytes and the dwords written.
struct Out {
    regs: [(Reg, u8); 4],
}

impl Out {
    fn new() -> Out {
        Out {
            regs: [([0; 32], 0); 4],
        }
    }

    fn put(&mut self, (r, d): (usize, usize), v: u32) {
        if let Some((reg, dwords)) = self.regs.get_mut(r) {
            set_dword(reg, d, v);
            *dwords |= 1 << d;
        }
    }

    fn send(&self, m: &mut Msg, regs: usize) -> Result<(), SendError> {
        for (r, (reg, dwords)) in self.regs.iter().enumerate().take(regs) {
            m.respond(r, reg, *dwords)?;
        }
        Ok(())
    }
}

pub(super) fn read(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    slots: Slots,
    mask: Channels,
) -> Result<(), SendError> {
    let channels = enabled(mask).count();
    if channels == 0 {
        return Err(bad("typed read with every channel masked"));
    }
    let rlen = if slots == Slots::Simd4x2 { 1 } else { channels };
    let plan = Plan::new(m, slots, 0, rlen)?;
    let surface = match open(env, bti)? {
        Some(s) => {
            let kind = format::readable(m.platform(), s.format)?;
            let layout = Layout::of(s.format)?;
            Some((kind, layout, plan.texels(m, &s, layout.bytes)?))
        }
        None => None,
    };
    let mut out = Out::new();
    for s in plan.slots() {
        let rgba = match &surface {
            None => [0; 4],
            Some((kind, layout, at)) => match at[s] {
                None => [0, 0, 0, layout.one()],
                Some(addr) => fetch(env, addr, *kind, layout)?,
            },
        };
        for (k, c) in enabled(mask).enumerate() {
            if plan.channel(s, c) {
                out.put(plan.out_at(k, c, s), rgba[c]);
            }
        }
    }
    out.send(m, rlen)
}

/// The four channels of the texel at `addr`.
fn fetch(
    env: &mut MessageEnv,
    addr: u64,
    kind: ReadKind,
    layout: &Layout,
) -> Result<[u32; 4], SendError> {
    let mut texel = [0u8; 16];
    match kind {
        ReadKind::Convert => {
            let t = &mut texel[..layout.bytes];
            env.mem_read(addr, t)?;
            Ok(layout.unpack(t))
        }
        ReadKind::Dword => {
            env.mem_read(addr, &mut texel[..4])?;
            let [a, b, c, d, ..] = texel;
            Ok([u32::from_le_bytes([a, b, c, d]), 0, 0, layout.one()])
        }
    }
}

pub(super) fn write(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    slots: Slots,
    mask: Channels,
) -> Result<(), SendError> {
    let channels = enabled(mask).count();
    if channels == 0 {
        return Err(bad("typed write with every channel masked"));
    }
    let data = if slots == Slots::Simd4x2 { 1 } else { channels };
    let plan = Plan::new(m, slots, data, 0)?;
    let Some(surf) = open(env, bti)? else {
        return Ok(());
    };
    format::writable(surf.format)?;
    let layout = Layout::of(surf.format)?;
    let at = plan.texels(m, &surf, layout.bytes)?;
    for s in plan.slots() {
        let Some(addr) = at[s] else {
            continue;
        };
        let mut rgba = [0u32; 4];
        let mut sent = 0u8;
        for (k, c) in enabled(mask).enumerate() {
            if plan.channel(s, c) {
                rgba[c] = plan.data(m, k, c, s)?;
                sent |= 1 << c;
            }
        }
        let stored = sent & layout.mask();
        if stored == 0 {
            continue;
        }
        let mut texel = [0u8; 16];
        let t = &mut texel[..layout.bytes];
        // Channels not written keep their bytes.
        if stored != layout.mask() {
            env.mem_read(addr, t)?;
        }
        layout.pack(t, rgba, stored);
        env.mem_write(addr, t)?;
    }
    Ok(())
}

pub(super) fn atomic(
    env: &mut MessageEnv,
    m: &mut Msg,
    bti: u8,
    op: AtomicOp,
    slots: Slots,
    ret: bool,
) -> Result<(), SendError> {
    let srcs = atomic::sources(op);
    let data = if slots == Slots::Simd4x2 {
        usize::from(srcs > 0)
    } else {
        srcs
    };
    let plan = Plan::new(m, slots, data, usize::from(ret))?;
    let at = match open(env, bti)? {
        Some(surf) => {
            format::atomic_ok(surf.format)?;
            plan.texels(m, &surf, 4)?
        }
        None => [None; 8],
    };
    let mut out = Out::new();
    for s in plan.slots() {
        let old = match at[s] {
            None => 0,
            Some(addr) => {
                let src = |i: usize| {
                    if i < srcs {
                        plan.data(m, i, i, s)
                    } else {
                        Ok(0)
                    }
                };
                let (s0, s1) = (src(0)?, src(1)?);
                update(env, addr, op, s0, s1)?
            }
        };
        out.put(plan.out_at(0, 0, s), old);
    }
    if ret {
        out.send(m, 1)?;
    }
    Ok(())
}

/// One atomic on the dword at `addr`: the value returned. CMPWR compares
/// with src0 and writes src1, as the untyped atomics do.
fn update(
    env: &mut MessageEnv,
    addr: u64,
    op: AtomicOp,
    s0: u32,
    s1: u32,
) -> Result<u32, SendError> {
    let mut b = [0u8; 4];
    env.mem_read(addr, &mut b)?;
    let (new, ret) = atomic::apply(op, u32::from_le_bytes(b), s0, s1, Compare::Src0);
    env.mem_write(addr, &new.to_le_bytes())?;
    Ok(ret)
}
