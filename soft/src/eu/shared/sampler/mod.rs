//! The sampling engine: `sample`, `sample_b`, `sample_l`, `sample_c`,
//! `sample_b_c`, `sample_l_c`, `sample_d`, `ld` and `resinfo` for SIMD8
//! and SIMD16 messages on 1D and 2D surfaces (and buffers for `ld`), with
//! SAMPLER_STATE: nearest and (bi)linear filtering, mip levels (none,
//! nearest, linear), LOD bias and clamps, every address mode but CUBE,
//! border colours, the shadow compare, non-normalized coordinates.
//!
//! Files: `params` (where each parameter sits, per generation), `state`
//! (SAMPLER_STATE, the border colour, where they are found), `lod` (LOD
//! from gradients and the manual's LOD pseudocode), `filter` (address
//! modes, filtering within and between levels), `texel` (one texel's
//! channels). Mip level placement is [`Surface::level`].
//!
//! Not modelled, refused with a reason or [`SendError::Unhandled`]: 3D and
//! cube surfaces, surface arrays, TEXCOORDMODE_CUBE, MAPFILTER_MONO,
//! ChromaKey, anisotropic filtering where the manual does not turn it into
//! linear (see below), gather4, sample+killpix, lod, sampleinfo, the
//! multisample loads, SIMD4x2 and SIMD32 messages, YUV formats.
//! MAPFILTER_ANISOTROPIC "will be overridden to MAPFILTER_LINEAR when
//! using a sample_l or sample_l_c message type or when Force LOD to Zero is
//! set" (000 line 3692; not Force LOD to Zero on Gen4, the [DevBW, DevCL]
//! erratum of the same line): so done; elsewhere it is refused, since
//! bilinear would answer what the hardware does not. `sample_lz` has no
//! Gen4-Gen7.5 message type.
//!
//! With no [`SamplerSource`] in the [`MessageEnv`], the sample messages
//! use [`Sampling`] instead of SAMPLER_STATE (and `sample_c`, which needs
//! the Shadow Function, is unhandled).
//!
//! Payload: Gen4/G45 always start with the header M0 (000 lines
//! 3962-3988); Gen6+ only with the descriptor's header bit (003 lines
//! 79177-79182, 79221-79226). Parameter k sits in register k (SIMD8) or
//! registers 2k and 2k+1 (SIMD16, channels 0-7 then 8-15) after the header
//! (000 lines 4103-4142); parameters beyond the message are 0 (003 lines
//! 79438-79440). Header M0.2 (000 lines 3974-3988): bit 16 Force LOD to
//! Zero (Gen4/G45; "Ignored" on Gen6, 003 line 79246, and not applied on
//! Gen7), bits 15:12 mask the A, B, G, R channels out of the writeback,
//! 11:8 and 7:4 are the signed U and V texel offsets.
//!
//! `ld` (000 line 4064) reads level `lod + Surface Min LOD` with nearest
//! filtering and the "zero" address mode: a texel off the level or a lod
//! outside the MIP Count gives zeros (alpha 1 for formats without alpha).
//! `resinfo` (000 line 4054) returns (Width+1)>>LOD, (Height+1)>>LOD, the
//! array size or depth, and the MIP count, with Surface Min LOD added to
//! the delivered lod (000 line 3294); the MIP count is the number of levels
//! (the field plus one), as Mesa reads `.w` as the level count [ext: mesa
//! src/mesa/drivers/dri/i965/brw_fs_visitor.cpp `swizzle_result`, "#
//! levels is in .w"]. On Gen4 the
//! FLOAT32 return format makes resinfo return floats (000 line 3945);
//! G45+ resinfo returns UINT32 (000 line 3953).
//!
//! Writeback (000 lines 4183-4246): SIMD8 returns R, G, B, A in four
//! registers, a masked channel keeps its register unwritten; SIMD16 returns
//! two registers per channel with masked channels removed and the rest
//! moved down. Only pixels with their channel enable set are written.

mod filter;
mod lod;
mod params;
pub mod state;
mod texel;

use baregpu_isa::IsaGen;
use baregpu_isa::message::{ReturnFormat, SamplerMsg, SamplerOp, SamplerSimd};

use super::MessageEnv;
use super::payload::{Msg, Reg, bad, set_dword};
use super::surface::{Surface, SurfaceKind, format};
use crate::eu::send::SendError;
use filter::{Filter, Texture};
use lod::LodIn;
use params::Params;
use state::BorderKind;
use texel::Format;

pub use state::{
    AddressMode, BorderMode, Compare, MapFilter, MipFilter, SamplerSource, SamplerState, Sampling,
};

/// What the message header says (all zero without a header).
#[derive(Clone, Copy, Debug, Default)]
struct Header {
    present: bool,
    /// Write channel masks, bit 0 red to bit 3 alpha.
    masked: u32,
    offsets: (i64, i64),
    force_lod_zero: bool,
    /// M0.3: the Sampler State Pointer where the header carries one.
    pointer: u32,
}

/// The message's parameters, every lane (0 past the message's end).
struct Args {
    lanes: usize,
    u: [u32; 16],
    v: [u32; 16],
    lod: [u32; 16],
    reference: [u32; 16],
    gradients: [[u32; 16]; 4],
}

pub(super) fn handle(env: &mut MessageEnv, m: &mut Msg, s: &SamplerMsg) -> Result<(), SendError> {
    let p = m.platform();
    let lanes = match s.simd {
        SamplerSimd::Simd8 => 8,
        SamplerSimd::Simd16 => 16,
        SamplerSimd::Simd4x2 => return Err(SendError::Unhandled),
    };
    let present = p <= IsaGen::G45 || m.req.header;
    let h = usize::from(present);
    let prm = params::params(p, s.op, usize::from(m.req.mlen), h).ok_or(SendError::Unhandled)?;
    let header = if present {
        let m2 = m.dword(0, 2)?;
        let offset = |bits: u32| i64::from(((bits & 0xF) as i32) << 28 >> 28);
        Header {
            present,
            masked: (m2 >> 12) & 0xF,
            offsets: (offset(m2 >> 8), offset(m2 >> 4)),
            force_lod_zero: p <= IsaGen::G45 && m2 >> 16 & 1 != 0,
            pointer: m.dword(0, 3)?,
        }
    } else {
        Header::default()
    };
    if header.masked == 0xF {
        return Err(bad("sampler: all four channels masked"));
    }
    let per = lanes / 8;
    let rlen = if lanes == 16 {
        2 * (4 - header.masked.count_ones() as usize)
    } else {
        4
    };
    m.need(h, rlen)?;
    let args = gather(m, h, per, lanes, &prm)?;
    let surface = env.surface(s.bti)?;
    let ce = m.enables();
    let texels = match s.op {
        SamplerOp::Resinfo => resinfo(p, s, &surface, &args, ce),
        SamplerOp::Ld => ld(env, &surface, &args, header, ce)?,
        _ => sample(env, p, s, &surface, &args, header, ce)?,
    };
    write_back(m, &texels, header.masked, lanes, ce)
}

/// Reads every parameter `prm` names, for every lane.
fn gather(m: &Msg, h: usize, per: usize, lanes: usize, prm: &Params) -> Result<Args, SendError> {
    let one = |k: Option<usize>| -> Result<[u32; 16], SendError> {
        let mut out = [0u32; 16];
        let Some(k) = k else {
            return Ok(out);
        };
        for (c, o) in out.iter_mut().enumerate().take(lanes) {
            let r = h + k * per + c / 8;
            if r < usize::from(m.req.mlen) {
                *o = m.dword(r, c % 8)?;
            }
        }
        Ok(out)
    };
    let g = prm.gradients.map(|g| g.map(Some)).unwrap_or([None; 4]);
    Ok(Args {
        lanes,
        u: one(Some(prm.u))?,
        v: one(Some(prm.v))?,
        lod: one(prm.lod)?,
        reference: one(prm.reference)?,
        gradients: [one(g[0])?, one(g[1])?, one(g[2])?, one(g[3])?],
    })
}

/// resinfo for every enabled lane (000 line 4054).
fn resinfo(p: IsaGen, s: &SamplerMsg, surface: &Surface, a: &Args, ce: u32) -> [[u32; 4]; 16] {
    let mut out = [[0u32; 4]; 16];
    for (c, t) in out.iter_mut().enumerate().take(a.lanes) {
        if ce >> c & 1 == 0 {
            continue;
        }
        let lod = a.lod[c].saturating_add(surface.min_lod);
        let sh = |n: u32| n.checked_shr(lod).unwrap_or(0);
        // "Depth==0 ? 0 : Depth+1" with Depth the field (one less).
        let array = if surface.depth <= 1 { 0 } else { surface.depth };
        let mips = surface.mip_count;
        *t = match surface.kind {
            SurfaceKind::Null => [0; 4],
            SurfaceKind::D1 => [sh(surface.width), array, 0, mips],
            SurfaceKind::D3 => [
                sh(surface.width),
                sh(surface.height),
                sh(surface.depth),
                mips,
            ],
            // Cube blue: 0 before [DevGT], the array size after; [DevGT]
            // is read as Gen6 here (a choice: 000 does not define it).
            SurfaceKind::Cube if p < IsaGen::Gen6 => {
                [sh(surface.width), sh(surface.height), 0, mips]
            }
            _ => [sh(surface.width), sh(surface.height), array, mips],
        };
        if s.ret == Some(ReturnFormat::F32) {
            *t = t.map(|v| (v as f32).to_bits());
        }
    }
    out
}

/// ld for every enabled lane.
fn ld(
    env: &mut MessageEnv,
    surface: &Surface,
    a: &Args,
    header: Header,
    ce: u32,
) -> Result<[[u32; 4]; 16], SendError> {
    let mut out = [[0u32; 4]; 16];
    if surface.kind == SurfaceKind::Null {
        return Ok(out);
    }
    let f = Format::of(surface, BorderMode::Dx10Ogl)?;
    let (du, dv) = header.offsets;
    for (c, t) in out.iter_mut().enumerate().take(a.lanes) {
        if ce >> c & 1 == 0 {
            continue;
        }
        let x = i64::from(a.u[c] as i32) + du;
        let y = i64::from(a.v[c] as i32) + dv;
        *t = match surface.kind {
            SurfaceKind::Buffer => {
                if (0..i64::from(surface.width)).contains(&x) {
                    texel::read(env, surface, &f, x as u64, 0)?
                } else {
                    f.zero()
                }
            }
            SurfaceKind::D1 | SurfaceKind::D2 => {
                check_single(surface)?;
                let y = if surface.kind == SurfaceKind::D1 {
                    0
                } else {
                    y
                };
                let lod = a.lod[c];
                let level = (lod < surface.mip_count)
                    .then(|| surface.level(surface.min_lod.saturating_add(lod)))
                    .flatten();
                match level {
                    Some(l)
                        if (0..i64::from(l.width)).contains(&x)
                            && (0..i64::from(l.height)).contains(&y) =>
                    {
                        let (x, y) = (u64::from(l.x) + x as u64, u64::from(l.y) + y as u64);
                        texel::read(env, surface, &f, x, y)?
                    }
                    _ => f.zero(),
                }
            }
            _ => return Err(bad("sampler: 3D and cube surfaces are not modelled")),
        };
    }
    Ok(out)
}

/// Refuses surface arrays (Depth > 0 on a 1D or 2D surface).
fn check_single(surface: &Surface) -> Result<(), SendError> {
    if surface.depth > 1 {
        return Err(bad("sampler: surface arrays are not modelled"));
    }
    Ok(())
}

/// Float formats filter from Gen5 on, UNORM ones always; integer formats
/// never ("Sampling Engine Filtering": 000 lines 3350 and 3414 leave
/// R32G32B32A32_FLOAT and R32_FLOAT blank, 003 lines 76425 and 76549 mark
/// them [DevILK+]).
fn filterable(p: IsaGen, f: &Format) -> bool {
    match f.kind {
        format::Kind::Unorm => true,
        format::Kind::Float => p >= IsaGen::Gen6,
        _ => false,
    }
}

/// The sample messages for every enabled lane.
fn sample(
    env: &mut MessageEnv,
    p: IsaGen,
    s: &SamplerMsg,
    surface: &Surface,
    a: &Args,
    header: Header,
    ce: u32,
) -> Result<[[u32; 4]; 16], SendError> {
    use SamplerOp as O;
    let mut out = [[0u32; 4]; 16];
    let shadow_op = matches!(s.op, O::SampleC | O::SampleBC | O::SampleLC);
    // A null surface reads zeros (000 line 3090).
    if surface.kind == SurfaceKind::Null {
        return Ok(out);
    }
    let (st, base) = match env.samplers {
        Some(src) => {
            let from_header = p <= IsaGen::G45 || (p == IsaGen::Gen75 && header.present);
            let pointer = if from_header {
                header.pointer
            } else {
                src.pointer
            };
            (state::read(env, p, src.base, pointer, s.sampler)?, src.base)
        }
        None if shadow_op => return Err(SendError::Unhandled),
        None => (env.sampling.state(), 0),
    };
    if st.disabled {
        return Ok(out);
    }
    let one_d = match surface.kind {
        SurfaceKind::D1 => true,
        SurfaceKind::D2 => false,
        _ => {
            return Err(bad(
                "sampler: only 1D and 2D surfaces are sampled in this model",
            ));
        }
    };
    check_single(surface)?;
    let f = Format::of(surface, st.border_mode)?;
    // Anisotropic becomes linear only where the manual says so.
    let explicit =
        matches!(s.op, O::SampleL | O::SampleLC) || (p == IsaGen::G45 && header.force_lod_zero);
    let resolve = |m: MapFilter| match m {
        MapFilter::Anisotropic if !explicit => Err(bad(
            "sampler: MAPFILTER_ANISOTROPIC is not modelled (only sample_l makes it linear)",
        )),
        m => Ok(Filter::of(m)),
    };
    let filters = (resolve(st.mag_filter)?, resolve(st.min_filter)?);
    let filtering = filters.0 == Filter::Linear
        || filters.1 == Filter::Linear
        || st.mip_filter == MipFilter::Linear;
    if shadow_op {
        // Shadow maps: R32_FLOAT is the modelled format with the
        // shadow-map column set (000 line 3414; 003 line 76549).
        if surface.format != format::R32_FLOAT {
            return Err(bad("sample_c: surface format without shadow-map support"));
        }
        if st.border_mode == BorderMode::Dx9 {
            return Err(bad("sample_c with the DX9 border colour mode is undefined"));
        }
    } else if filtering && !filterable(p, &f) {
        // Linear filters are allowed for any format with sample_c only
        // (000 line 4046).
        return Err(bad(
            "sampler: linear filtering of a format without Sampling Engine Filtering",
        ));
    }
    let axis = |i: usize| {
        st.address[i].ok_or(bad(
            "SAMPLER_STATE: TEXCOORDMODE_CUBE or a reserved address mode on a sampled axis",
        ))
    };
    let modes = [axis(0)?, if one_d { AddressMode::Clamp } else { axis(1)? }];
    if st.non_normalized
        && modes
            .iter()
            .any(|m| !matches!(m, AddressMode::Clamp | AddressMode::ClampBorder))
    {
        // 003 lines 77866-77867.
        return Err(bad(
            "SAMPLER_STATE: non-normalized coordinates need CLAMP or CLAMP_BORDER",
        ));
    }
    let border = if modes.contains(&AddressMode::ClampBorder) {
        let kind = if f.is_float() {
            BorderKind::Float
        } else {
            BorderKind::Int(f.channel_bits())
        };
        let c = state::border_color(env, p, base, &st, kind)?;
        match st.border_mode {
            BorderMode::Dx10Ogl => f.mask_missing(c),
            BorderMode::Dx9 => c,
        }
    } else {
        f.zero()
    };
    let tex = Texture {
        surface,
        format: f,
        border,
        modes,
        normalized: !st.non_normalized,
        offsets: header.offsets,
    };
    let fl = |x: u32| f64::from(f32::from_bits(x));
    let (w, h) = if st.non_normalized {
        (1.0, 1.0)
    } else {
        (f64::from(surface.width), f64::from(surface.height))
    };
    let vscale = if one_d { 0.0 } else { 1.0 };
    // LOD from the gradients inside the subspan of lane c.
    let subspan = |c: usize| {
        if header.force_lod_zero {
            return 0.0;
        }
        let k = c & !3;
        let d = |x: &[u32; 16], o: usize| fl(x[k + o]) - fl(x[k]);
        let g = [
            d(&a.u, 1),
            vscale * d(&a.v, 1),
            d(&a.u, 2),
            vscale * d(&a.v, 2),
        ];
        lod::from_gradients(g, w, h)
    };
    for (c, t) in out.iter_mut().enumerate().take(a.lanes) {
        if ce >> c & 1 == 0 {
            continue;
        }
        let lod_in = match s.op {
            O::SampleB | O::SampleBC => LodIn::Biased(subspan(c), fl(a.lod[c])),
            O::SampleL | O::SampleLC => LodIn::Explicit(fl(a.lod[c])),
            O::SampleD if header.force_lod_zero => LodIn::Computed(0.0),
            O::SampleD => {
                let g = a.gradients.map(|g| fl(g[c]));
                LodIn::Computed(lod::from_gradients(
                    [g[0], vscale * g[1], g[2], vscale * g[3]],
                    w,
                    h,
                ))
            }
            _ => LodIn::Computed(subspan(c)),
        };
        let pick = lod::pick(&st, surface, lod_in);
        let shadow = shadow_op.then(|| (st.shadow, f32::from_bits(a.reference[c])));
        let uv = (f32::from_bits(a.u[c]), f32::from_bits(a.v[c]));
        *t = tex.sample(env, &pick, filters, uv, shadow)?;
    }
    Ok(out)
}

/// Writes the response: channel slots after removing masked ones (SIMD16
/// only), enabled pixels only.
fn write_back(
    m: &mut Msg,
    texels: &[[u32; 4]; 16],
    masked: u32,
    lanes: usize,
    ce: u32,
) -> Result<(), SendError> {
    let per = lanes / 8;
    let planes: [[u32; 16]; 4] = core::array::from_fn(|ch| core::array::from_fn(|c| texels[c][ch]));
    let mut slot = 0;
    for (ch, plane) in planes.iter().enumerate() {
        let off = masked >> ch & 1 != 0;
        if off && lanes == 16 {
            continue;
        }
        for ph in 0..per {
            let mut reg: Reg = [0; 32];
            let mut dwords = 0u8;
            for d in 0..8 {
                let c = ph * 8 + d;
                if ce >> c & 1 != 0 {
                    set_dword(&mut reg, d, plane[c]);
                    dwords |= 1 << d;
                }
            }
            if !off {
                m.respond(slot, &reg, dwords)?;
            }
            slot += 1;
        }
    }
    Ok(())
}
