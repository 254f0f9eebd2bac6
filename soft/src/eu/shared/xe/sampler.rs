//! The sampler's basic forms for Gen12.5 threads, run by the older
//! generations' sampling engine (`crate::eu::shared::sampler`: filtering,
//! address modes, texel formats, LOD, writeback) on a 2D surface read from
//! Gen12.5's RENDER_SURFACE_STATE (`super::surface`, linear or Tile4).
//!
//! Messages (descriptor typed by `baregpu_isa::message::xe_sampler`,
//! Mesa `brw_sampler_desc`): sample (type 0), sample_b (1), sample_l (2),
//! sample_c (3), ld (7), lod (9), sample_lz (24) and ld_lz (26), in the
//! 32-bit SIMD8 and SIMD16 modes; the payload orders are the Gfx9+ ones of
//! Mesa `lower_sampler_logical_send` (module `sampler::params`), the
//! response Gen7's (each returned channel one register per 8 lanes, the
//! header's M0.2 15:12 masking channels out). The lz forms are sample_l and
//! ld with lod 0 (Mesa sends them for exactly that).
//!
//! Surface: binding-table index 252 is Mesa's `GFX9_BTI_BINDLESS`: the
//! extended descriptor carries the surface state's offset from Bindless
//! Surface State Base (the extended-bindless-surface-offset form Mesa uses
//! on Gfx12.5, `send_ex_bso`: ExDesc 31:6, as the LSC BSS messages read
//! it); other indices go through the binding table. Only SURFTYPE_2D
//! (single level: the Gen12.5 surface decoder reads no MIP count, so lods
//! above 0 read level 0's clamp and ld's zero) and SURFTYPE_NULL.
//!
//! Sampler state: headerless messages index the interface descriptor's
//! Sampler State Pointer from Dynamic State Base; with a header, M0.3
//! 31:5 is the pointer, from Bindless Sampler State Base when its bit 0 is
//! set and from Dynamic State Base otherwise (Mesa: Gfx11+ headers copy
//! g0.3 with bits 4:0 masked off, and a bindless sampler handle is ORed
//! with 1 when `use_bindless_sampler_offset`). The border colour pointer
//! counts from the same base.
//!
//! Not modelled (refused by name): 16-bit payloads and returns, the
//! integer-return SIMD modes, SIMD32/64, the other message types, surface
//! types other than 2D.

use alloc::vec;

use baregpu_isa::IsaGen;
use baregpu_isa::message::xe_sampler::{self, SamplerSimd as XeSimd};
use baregpu_isa::message::{SamplerMsg, SamplerOp, SamplerSimd};

use super::super::payload::Msg;
use super::super::sampler::{self, SamplerSource};
use super::super::surface::{Surface, SurfaceKind, SurfaceList, Tiling};
use super::super::{MessageEnv, SurfaceSource};
use super::payload::reg_load;
use super::surface::{self as xsurface, XeSurface};
use super::{XeEnv, bad, binding_table_entry};
use crate::eu::send::{SendError, SendRequest};
use crate::eu::thread::Thread;
use crate::eu::thread::layout::REG_BYTES;

/// Mesa `GFX9_BTI_BINDLESS`.
const BTI_BINDLESS: u8 = 252;

pub(super) fn handle(env: &mut XeEnv, t: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
    let x = xe_sampler::decode(req.desc).map_err(|_| {
        bad("sampler descriptor does not decode (reserved SIMD mode or type, see baregpu_isa::message::xe_sampler)")
    })?;
    let simd = match x.simd {
        XeSimd::Simd8 => SamplerSimd::Simd8,
        XeSimd::Simd16 => SamplerSimd::Simd16,
        XeSimd::Simd32_64 => return Err(bad("sampler: SIMD32/64 messages are not modelled")),
        _ => {
            return Err(bad(
                "sampler: 16-bit payloads and integer-return SIMD modes are not modelled",
            ));
        }
    };
    if x.return_16bit {
        return Err(bad("sampler: the 16-bit return format is not modelled"));
    }
    let (op, lz) = match x.msg_type {
        0 => (SamplerOp::Sample, false),
        1 => (SamplerOp::SampleB, false),
        2 => (SamplerOp::SampleL, false),
        3 => (SamplerOp::SampleC, false),
        7 => (SamplerOp::Ld, false),
        9 => (SamplerOp::Lod, false),
        24 => (SamplerOp::SampleL, true),
        26 => (SamplerOp::Ld, true),
        _ => {
            return Err(bad(
                "sampler: only sample, sample_b, sample_l, sample_c, ld, lod, sample_lz and ld_lz are modelled on Gen12.5",
            ));
        }
    };
    let ss = if x.bti == BTI_BINDLESS {
        env.state
            .bindless_surface_state_base
            .wrapping_add(u64::from(req.extended.desc & !0x3F))
    } else {
        binding_table_entry(env, u32::from(x.bti))?
    };
    let surface = match xsurface::read(env.memory, ss)? {
        XeSurface::Image {
            base,
            width,
            height,
            pitch,
            format,
            tile4,
        } => {
            let tiling = if tile4 { Tiling::Tile4 } else { Tiling::Linear };
            Surface::two_d(base, format, width, height, pitch, tiling)
        }
        XeSurface::Null => Surface {
            kind: SurfaceKind::Null,
            ..Surface::two_d(0, 0, 1, 1, 4, Tiling::Linear)
        },
        XeSurface::Buffer { .. } => {
            return Err(bad("sampler: buffer surfaces are not modelled on Gen12.5"));
        }
        XeSurface::Scratch { .. } => {
            return Err(bad("sampler: a scratch surface is not a texture"));
        }
    };
    let source = if x.header {
        if req.mlen < 1 {
            return Err(bad("sampler: no header register"));
        }
        let m3 = reg_load(t, usize::from(req.payload.reg) * REG_BYTES + 12, 4)? as u32;
        let base = if m3 & 1 != 0 {
            env.state.bindless_sampler_state_base
        } else {
            env.state.dynamic_state_base
        };
        SamplerSource {
            base,
            pointer: m3 & !0x1F,
        }
    } else {
        SamplerSource {
            base: env.state.dynamic_state_base,
            pointer: env.state.sampler_state_pointer,
        }
    };
    let mut list = SurfaceList {
        entries: vec![None; usize::from(x.bti) + 1],
    };
    list.bind(x.bti, surface);
    let mut menv = MessageEnv::new(&mut *env.memory, SurfaceSource::List(&mut list));
    menv.samplers = Some(source);
    let msg = SamplerMsg {
        bti: x.bti,
        sampler: x.sampler,
        op,
        simd,
        ret: None,
    };
    if t.platform() != IsaGen::Gen12_5 {
        return Err(bad("sampler: the Xe sampler serves Gen12.5 threads only"));
    }
    let mut m = Msg { thread: t, req };
    let r = sampler::handle_lz(&mut menv, &mut m, &msg, lz);
    if let (Err(_), Some(f)) = (&r, menv.fault) {
        return Err(super::fault(f, false));
    }
    r
}
