//! The sampling engine: `sample`, `sample_b`, `sample_l`, `sample_c`,
//! `sample_b_c`, `sample_l_c`, `sample_d` (Gen7.5 also `sample_d_c`,
//! sample_d with sample_c's compare), `ld`, `resinfo` and `gather4` (Gen6
//! "load4"; Gen7 also `gather4_c`, `gather4_po` and `gather4_po_c`) for
//! SIMD8, SIMD16 and SIMD4x2
//! messages on 1D, 2D, 3D and cube surfaces, 1D/2D arrays and cube arrays
//! (Gen6+), and buffers for `ld`; `sample+killpix` (Gen4, G45, Gen6;
//! SIMD8), and on Gen6+ `lod` (SIMD8, SIMD16) and `sampleinfo`; with
//! SAMPLER_STATE: nearest and
//! (bi/tri)linear filtering, mip levels (none, nearest, linear), LOD bias
//! and clamps, every address mode including TEXCOORDMODE_CUBE (and the
//! Cube Surface Control Mode override), cube face enables and corner
//! modes, border colours, the shadow compare, non-normalized coordinates.
//!
//! Files: `params` (where each parameter sits, per generation), `state`
//! (SAMPLER_STATE, the border colour, where they are found), `lod` (LOD
//! from gradients and the manual's LOD pseudocode), `filter` (address
//! modes, filtering within and between levels, the gather4 footprint),
//! `cube` (face selection and the faces' neighbours), `texel` (one
//! texel's channels). Placement of levels, planes, array slices and cube
//! faces is [`Surface::level`] and [`Surface::slice`].
//!
//! Coordinates by surface type (003 lines 79841-79888; 000 lines
//! 4086-4097): 1D u and the array index in v; 2D u, v and the array index
//! in r; 3D u, v, r; cube the direction (u, v, r) and the cube array index
//! ai. Sample messages round the array index to nearest even and clamp it
//! (a choice, see `array_slice`); `ld` reads zero outside the slices.
//!
//! Not modelled, refused with a reason or [`SendError::Unhandled`]: arrays
//! and cube maps on Gen4/G45 (the 000 manual gives no layout for them; 3D
//! surfaces are modelled there), `sample_d` on cubes (003 lines
//! 79546-79550 want u, v and the gradients already on the face and "the
//! faceid" in r, but give neither the faceid's encoding nor the face
//! orientation; Mesa never sends it, lowering textureGrad on cubes to
//! sample_l [ext: mesa src/intel/compiler/brw_nir.c
//! `lower_txd_cube_map`]), MAPFILTER_MONO, ChromaKey (so
//! sample+killpix kills no pixel), anisotropic filtering where the manual
//! does not turn it into linear (see below), ld_mcs and MCS
//! compression, SIMD32/64 messages, YUV formats. Messages that do not exist are
//! refused when the descriptor decodes (module
//! `baregpu_isa::message::sampler`): `lod` and `sampleinfo` on Gen4/G45
//! (000 lines 3999-4025 list neither), sample+killpix on Gen7 (no Gen7
//! code in Mesa's tables). SIMD32/64 (SIMD Mode 3, Gen6+) carries only
//! the media and sample_unorm family (sample_unorm, sample_unorm+killpix,
//! sample_8x8, deinterlace, 003 lines 79400-79419; Gen4/G45's SIMD32
//! sample_unorm rows give no type code, 000 lines 4023-4025), none of
//! which the 3D path uses: refused naming the message where the manual
//! names it (`refuse_simd32_64`). SIMD4x2 forms of
//! sample, sample_b, (Gen6+) sample_c and lod are refused as the manual
//! says (see `simd4x2_allowed`), and sample+killpix in any mode but SIMD8.
//! MAPFILTER_ANISOTROPIC "will be overridden to MAPFILTER_LINEAR when
//! using a sample_l or sample_l_c message type or when Force LOD to Zero is
//! set" (000 line 3692; not Force LOD to Zero on Gen4, the [DevBW, DevCL]
//! erratum of the same line): so done; elsewhere it is refused, since
//! bilinear would answer what the hardware does not. `sample_lz` has no
//! Gen4-Gen7.5 message type.
//!
//! Multisampled surfaces (`multisample`): Gen7 ld2dms and ld2dss and
//! Gen6 ld with its sample index read one sample; resinfo and sampleinfo
//! read the surface state; ld_mcs, compressed (MCS) surfaces and the
//! other messages are refused there.
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
//! sample+killpix adds W4, the kill pixel mask (`write_kill_mask`);
//! `lod` answers in red and green (`lod_query`), `sampleinfo` in red and
//! alpha (`sampleinfo`).

mod cube;
mod filter;
mod lod;
mod multisample;
mod params;
pub mod state;
mod texel;

use baregpu_isa::IsaGen;
use baregpu_isa::message::{ReturnFormat, SamplerMsg, SamplerOp, SamplerSimd, simd32_64_name};

use super::MessageEnv;
use super::payload::{Msg, Reg, bad, set_dword};
use super::surface::{Surface, SurfaceKind, format};
use crate::eu::send::SendError;
use filter::{At, Filter, Texture};
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
    /// M0.2 bits 17:16: the channel gather4 returns (Gen7).
    gather_channel: usize,
}

/// The message's parameters, every lane (0 past the message's end).
struct Args {
    lanes: usize,
    u: [u32; 16],
    v: [u32; 16],
    r: [u32; 16],
    ai: [u32; 16],
    lod: [u32; 16],
    reference: [u32; 16],
    /// dudx, dvdx, dudy, dvdy, drdx, drdy.
    gradients: [[u32; 16]; 6],
    /// gather4_po's offu and offv.
    offsets: [[u32; 16]; 2],
    /// The sample index (the multisample loads).
    si: [u32; 16],
}

pub(super) fn handle(env: &mut MessageEnv, m: &mut Msg, s: &SamplerMsg) -> Result<(), SendError> {
    handle_lz(env, m, s, false)
}

/// [`handle`], with `lz` the Gen12.5 lod-zero forms (sample_lz as a
/// sample_l and ld_lz as an ld whose lod is 0 and absent from the payload,
/// module `params`).
pub(super) fn handle_lz(
    env: &mut MessageEnv,
    m: &mut Msg,
    s: &SamplerMsg,
    lz: bool,
) -> Result<(), SendError> {
    let p = m.platform();
    let (lanes, simd4x2) = match s.simd {
        SamplerSimd::Simd8 => (8usize, false),
        SamplerSimd::Simd16 => (16, false),
        SamplerSimd::Simd4x2 => (2, true),
    };
    let present = p <= IsaGen::G45 || m.req.header;
    let h = usize::from(present);
    let prm = params::params(p, s.op, usize::from(m.req.mlen), h, simd4x2, lz)
        .ok_or(SendError::Unhandled)?;
    let header = if present {
        let m2 = m.dword(0, 2)?;
        let offset = |bits: u32| i64::from(((bits & 0xF) as i32) << 28 >> 28);
        Header {
            present,
            masked: (m2 >> 12) & 0xF,
            offsets: (offset(m2 >> 8), offset(m2 >> 4)),
            force_lod_zero: p <= IsaGen::G45 && m2 >> 16 & 1 != 0,
            pointer: m.dword(0, 3)?,
            gather_channel: if p >= IsaGen::Gen7 {
                (m2 >> 16 & 3) as usize
            } else {
                0
            },
        }
    } else {
        Header::default()
    };
    if header.masked == 0xF {
        return Err(bad("sampler: all four channels masked"));
    }
    if simd4x2 {
        simd4x2_allowed(p, s.op, header)?;
    }
    let killpix = s.op == SamplerOp::SampleKillpix;
    if killpix && s.simd != SamplerSimd::Simd8 {
        return Err(bad("sample+killpix is supported only in SIMD8 mode"));
    }
    let per = lanes.div_ceil(8);
    let rlen = match lanes {
        16 => 2 * (4 - header.masked.count_ones() as usize),
        // sample+killpix adds W4, the kill pixel mask.
        8 => 4 + usize::from(killpix),
        // SIMD4x2: "a single message register containing all four channels
        // of each of the two" samples (003 lines 80279-80282).
        _ => 1,
    };
    m.need(h, rlen)?;
    let args = gather(m, h, per, lanes, &prm)?;
    let surface = env.surface(s.bti)?;
    let ms_load = multisample::serves(p, s.op, &surface)?;
    let ce = if simd4x2 {
        // "If any of the high 4 bits are asserted, that sample is valid.
        // If any of the low 4 bits are asserted, that sample is valid" (003
        // lines 79162-79164).
        let e = m.enables();
        u32::from(e & 0xF != 0) | u32::from(e >> 4 & 0xF != 0) << 1
    } else {
        m.enables()
    };
    let texels = match s.op {
        SamplerOp::Resinfo => resinfo(p, s, &surface, &args, ce),
        SamplerOp::SampleInfo => sampleinfo(p, &surface, lanes, ce)?,
        _ if ms_load => multisample::load(env, s.op, &surface, &args, header, ce)?,
        SamplerOp::Ld => ld(env, &surface, &args, header, ce)?,
        SamplerOp::Lod => lod_query(env, p, s, &surface, &args, header, ce)?,
        _ => sample(env, p, s, &surface, &args, header, ce)?,
    };
    if simd4x2 {
        return write_back_4x2(m, &texels, header.masked, ce);
    }
    write_back(m, &texels, header.masked, lanes, ce)?;
    if killpix {
        write_kill_mask(m, p, ce)?;
    }
    Ok(())
}

/// W4 of sample+killpix (000 lines 4234-4246; 003 lines 80263-80278): in
/// dword 0, bits 31:16 the Dispatch Pixel Mask, "always 0xffff", and 15:0
/// the Active Pixel Mask, "set to 1 except those pixels that have been
/// killed as a result of chroma key with kill pixel mode", the high 8 bits
/// always 1; dwords 1-7 are not written. ChromaKey is refused in
/// SAMPLER_STATE, so no pixel is killed. The [DevBW, DevCL] erratum says
/// the mask must be ORed with the inverse of the execution mask there: on
/// Gen4 (965) the bits of pixels whose channel is off read 0.
fn write_kill_mask(m: &mut Msg, p: IsaGen, ce: u32) -> Result<(), SendError> {
    let active = if p == IsaGen::Gen4 {
        0xFF00 | (ce & 0xFF)
    } else {
        0xFFFF
    };
    let mut reg: Reg = [0; 32];
    set_dword(&mut reg, 0, 0xFFFF_0000 | active);
    m.respond(4, &reg, 1)
}

/// sampleinfo (003 lines 79649-79657): "the number of samples (UINT32)
/// and the sample position palette index (UINT32) for the surface are
/// returned in the red and alpha channels", the index "incremented by one
/// from its value in the surface state"; green and blue are not given and
/// return 0 here (a choice). "[DevSNB] Errata: If the Surface Type is
/// SURFTYPE_NULL, the values of the above state fields from SURFACE_STATE
/// are returned, rather than zeros that would normally be expected": Gen6
/// returns the fields, Gen7 zeros (the expected values; no Gen7 manual
/// here). Gen7 keeps the message [ext: mesa brw_eu_defines.h
/// GFX6_SAMPLER_MESSAGE_SAMPLE_SAMPLEINFO used for Gen7
/// `texture_samples`, read from `.x`; brw_vec4_nir.cpp].
fn sampleinfo(
    p: IsaGen,
    surface: &Surface,
    lanes: usize,
    ce: u32,
) -> Result<[[u32; 4]; 16], SendError> {
    let mut out = [[0u32; 4]; 16];
    if surface.kind == SurfaceKind::Null && p >= IsaGen::Gen7 {
        return Ok(out);
    }
    // A reserved Number of Multisamples fails the surface's decoding.
    let info = [
        u32::from(surface.samples),
        0,
        0,
        surface.sample_palette.saturating_add(1),
    ];
    for (c, t) in out.iter_mut().enumerate().take(lanes) {
        if ce >> c & 1 != 0 {
            *t = info;
        }
    }
    Ok(out)
}

/// SIMD32/64 messages (SIMD Mode 3, the only sampler messages that
/// decode to [`baregpu_isa::message::Message::Other`]): the Gen6 manual
/// defines sample_unorm, sample_unorm+killpix, sample_8x8 and deinterlace
/// there, media and pixel-shader forms alike (003 lines 79400-79419; the
/// Gen4/G45 sample_unorm rows give no type code, 000 lines 4023-4025);
/// none is modelled, and the refusal names it.
pub(super) fn refuse_simd32_64(p: IsaGen, function: u32) -> SendError {
    match simd32_64_name(p, function) {
        Some("sample_unorm") => bad("sampler: SIMD32/64 sample_unorm is not modelled"),
        Some("sample_unorm+killpix") => {
            bad("sampler: SIMD32/64 sample_unorm+killpix is not modelled")
        }
        Some("sample_8x8") => bad("sampler: SIMD32/64 sample_8x8 is not modelled"),
        Some("deinterlace") => bad("sampler: SIMD32/64 deinterlace is not modelled"),
        Some("sample_unorm (media)") => {
            bad("sampler: SIMD32/64 sample_unorm (media) is not modelled")
        }
        Some("sample_unorm+killpix (media)") => {
            bad("sampler: SIMD32/64 sample_unorm+killpix (media) is not modelled")
        }
        Some("sample_8x8 (media)") => bad("sampler: SIMD32/64 sample_8x8 (media) is not modelled"),
        _ => bad("sampler: SIMD32/64 messages (SIMD Mode 3) are not modelled"),
    }
}

/// SIMD4x2 forms: no LOD can be computed without a subspan, so sample,
/// sample_b, sample_c (but for Gen4/G45 with Force LOD to Zero) and lod
/// are not supported (003 lines 79453, 79484, 79518-79520, 79674; 000 line
/// 4046); sample+killpix is SIMD8 only (checked in [`handle`]); "unlike
/// sample_c, sample_g_c is allowed as a SIMD4x2 message" (003 line 79567).
fn simd4x2_allowed(p: IsaGen, op: SamplerOp, header: Header) -> Result<(), SendError> {
    use SamplerOp as O;
    match op {
        O::SampleL
        | O::SampleLC
        | O::SampleD
        | O::SampleDC
        | O::Ld
        | O::Resinfo
        | O::SampleInfo
        | O::Gather4
        | O::Gather4C
        | O::Gather4Po
        | O::Gather4PoC => Ok(()),
        O::Lod => Err(bad("sampler: lod is not supported in SIMD4x2 mode")),
        O::SampleC if p <= IsaGen::G45 && header.force_lod_zero => Ok(()),
        O::Sample => Err(bad("sampler: sample is not supported in SIMD4x2 mode")),
        O::SampleB | O::SampleBC => Err(bad("sampler: sample_b is not supported in SIMD4x2 mode")),
        O::SampleC => Err(bad(
            "sampler: SIMD4x2 sample_c needs Force LOD to Zero (Gen4/G45) and is not supported from Gen6",
        )),
        _ => Err(bad("sampler: message type not supported in SIMD4x2 mode")),
    }
}

/// Reads every parameter `prm` names, for every lane. SIMD8/16: parameter
/// k in register k (or 2k, 2k + 1), a lane per dword; SIMD4x2: parameters
/// 4n to 4n + 3 of sample 0 in dwords 0-3 of register n and of sample 1 in
/// dwords 4-7 (003 lines 79989-80010; 000 lines 4143-4160).
fn gather(m: &Msg, h: usize, per: usize, lanes: usize, prm: &Params) -> Result<Args, SendError> {
    let one = |k: Option<usize>| -> Result<[u32; 16], SendError> {
        let mut out = [0u32; 16];
        let Some(k) = k else {
            return Ok(out);
        };
        for (c, o) in out.iter_mut().enumerate().take(lanes) {
            let (r, d) = if lanes == 2 {
                (h + k / 4, 4 * c + k % 4)
            } else {
                (h + k * per + c / 8, c % 8)
            };
            if r < usize::from(m.req.mlen) {
                *o = m.dword(r, d)?;
            }
        }
        Ok(out)
    };
    let g = prm.gradients.map(|g| g.map(Some)).unwrap_or([None; 4]);
    let rg = prm.rgrad.map(|g| g.map(Some)).unwrap_or([None; 2]);
    let off = prm.offsets.map(|o| o.map(Some)).unwrap_or([None; 2]);
    Ok(Args {
        lanes,
        u: one(Some(prm.u))?,
        v: one(Some(prm.v))?,
        r: one(prm.r)?,
        ai: one(prm.ai)?,
        lod: one(prm.lod)?,
        reference: one(prm.reference)?,
        gradients: [
            one(g[0])?,
            one(g[1])?,
            one(g[2])?,
            one(g[3])?,
            one(rg[0])?,
            one(rg[1])?,
        ],
        offsets: [one(off[0])?, one(off[1])?],
        si: one(prm.si)?,
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

/// Checks that a surface's arrays and cube faces can be placed: the
/// Gen4/G45 layouts are not modelled ([`super::surface::ArraySpacing::Unmodelled`]).
fn check_layout(surface: &Surface) -> Result<(), SendError> {
    let arrayed = matches!(surface.kind, SurfaceKind::D1 | SurfaceKind::D2) && surface.depth > 1;
    if (arrayed || surface.kind == SurfaceKind::Cube) && surface.qpitch().is_none() {
        return Err(bad(
            "sampler: surface arrays and cube maps are not modelled on Gen4/G45 (the 000 manual gives no layout)",
        ));
    }
    Ok(())
}

/// The array slice of a sample message's "unnormalized array index" (003
/// lines 79841-79870): rounded to the nearest integer (ties to even, as
/// the APIs ask; the manual gives no rounding), Minimum Array Element
/// added (003 lines 76211-76214), clamped to the last slice (a choice: the
/// manual says nothing of indices past Depth).
fn array_slice(surface: &Surface, index: f64) -> u32 {
    let last = surface.depth.saturating_sub(1);
    let i = if index.is_nan() {
        0.0
    } else {
        libm::rint(index)
    };
    let i = i.clamp(0.0, f64::from(last)) as u32;
    surface.min_array.saturating_add(i).min(last)
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
    check_layout(surface)?;
    let f = Format::of(surface, BorderMode::Dx10Ogl)?;
    let (du, dv) = header.offsets;
    for (c, t) in out.iter_mut().enumerate().take(a.lanes) {
        if ce >> c & 1 == 0 {
            continue;
        }
        let int = |x: u32| i64::from(x as i32);
        let x = int(a.u[c]) + du;
        let y = int(a.v[c]) + dv;
        // u, v, r by surface type: 1D x and array index, 2D x, y and array
        // index, 3D x, y, z (003 lines 79872-79888); outside: zero.
        let (y, q) = match surface.kind {
            SurfaceKind::D1 => (0, int(a.v[c])),
            SurfaceKind::D2 => (y, int(a.r[c])),
            _ => (y, int(a.r[c])),
        };
        *t = match surface.kind {
            SurfaceKind::Buffer => {
                if (0..i64::from(surface.width)).contains(&x) {
                    texel::read(env, surface, &f, x as u64, 0)?
                } else {
                    f.zero()
                }
            }
            SurfaceKind::D1 | SurfaceKind::D2 | SurfaceKind::D3 => {
                let lod = a.lod[c];
                let abs = surface.min_lod.saturating_add(lod);
                let (slice, count) = if surface.kind == SurfaceKind::D3 {
                    (
                        q,
                        i64::from(surface.depth.checked_shr(abs).unwrap_or(0).max(1)),
                    )
                } else {
                    let min = i64::from(surface.min_array);
                    (q + min, i64::from(surface.depth))
                };
                let inside = (0..count).contains(&slice) && q >= 0;
                let level = (lod < surface.mip_count && inside)
                    .then(|| surface.slice(abs, slice as u32))
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
            _ => return Err(bad("sampler: ld on a cube surface is not defined")),
        };
    }
    Ok(out)
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

/// The sample and gather4 messages for every enabled lane.
///
/// gather4 (003 lines 79679-79715, Gen6's "load4"; Gen7 adds gather4_c
/// [ext: mesa brw_eu_defines.h GFX7_SAMPLER_MESSAGE_SAMPLE_GATHER4_C]):
/// the bilinear footprint of the level LOD 0 selects ("For SURFTYPE_2D LOD
/// is forced to zero"), unfiltered, "upper left sample = alpha channel,
/// upper right sample = blue channel, lower left sample = red channel,
/// lower right sample = green channel". The channel gathered: Gen6 allows
/// single-channel formats only and returns their red; Gen7 takes it from
/// header M0.2 bits 17:16 [ext: mesa brw_fs_nir.cpp, "Stuff the channel
/// select bits in the top of the texture offset"; the offsets are M0.2
/// 11:0]. gather4_c compares each texel's red. gather4_po and
/// gather4_po_c (Gen7 [ext: mesa GFX7_SAMPLER_MESSAGE_SAMPLE_GATHER4_PO,
/// _PO_C]) take the texel offsets per pixel from the offu and offv
/// parameters instead of the header (see [`offset6`]), on SURFTYPE_2D
/// only (003 lines 79702-79703). Refused: the surface types other than 2D
/// and cube, and on Gen6 the manual's MIPFILTER_NONE and one-channel,
/// non-integer format rules. Not modelled: Ivy Bridge's RG32F green
/// select fault Mesa works around [ext: mesa gather_channel_quirk_mask].
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
    let shadow_op = matches!(
        s.op,
        O::SampleC | O::SampleBC | O::SampleLC | O::SampleDC | O::Gather4C | O::Gather4PoC
    );
    let per_pixel_offsets = matches!(s.op, O::Gather4Po | O::Gather4PoC);
    let gather = per_pixel_offsets || matches!(s.op, O::Gather4 | O::Gather4C);
    // A null surface reads zeros (000 line 3090).
    if surface.kind == SurfaceKind::Null {
        return Ok(out);
    }
    let (st, base) = read_state(env, p, s, header, shadow_op)?;
    if st.disabled {
        return Ok(out);
    }
    let kind = surface.kind;
    if !matches!(
        kind,
        SurfaceKind::D1 | SurfaceKind::D2 | SurfaceKind::D3 | SurfaceKind::Cube
    ) {
        return Err(bad(
            "sampler: the sample messages take 1D, 2D, 3D and cube surfaces",
        ));
    }
    check_layout(surface)?;
    let cube = kind == SurfaceKind::Cube;
    let f = Format::of(surface, st.border_mode)?;
    if gather {
        if !matches!(kind, SurfaceKind::D2 | SurfaceKind::Cube) {
            return Err(bad(
                "gather4: the surface must be SURFTYPE_2D or SURFTYPE_CUBE",
            ));
        }
        if per_pixel_offsets && kind != SurfaceKind::D2 {
            return Err(bad("gather4_po: the surface must be SURFTYPE_2D"));
        }
        // The SNB manual's rule; Gen7 has no manual here and Mesa gathers
        // from mipmapped samplers there, so Gen7 takes the LOD-0 level.
        if p == IsaGen::Gen6 && st.mip_filter != MipFilter::None {
            return Err(bad("gather4: Mip Mode Filter must be MIPFILTER_NONE"));
        }
        if p == IsaGen::Gen6 && (f.channels != 1 || !filterable(p, &f)) {
            return Err(bad(
                "gather4 (Gen6 load4): the surface format must have one channel and not be UINT or SINT",
            ));
        }
    }
    if matches!(s.op, O::SampleD | O::SampleDC) && cube {
        return Err(bad(
            "sample_d and sample_d_c on cube surfaces are not modelled",
        ));
    }
    // Anisotropic becomes linear only where the manual says so.
    let explicit =
        matches!(s.op, O::SampleL | O::SampleLC) || (p == IsaGen::G45 && header.force_lod_zero);
    let resolve = |m: MapFilter| match m {
        MapFilter::Anisotropic if !explicit => Err(bad(
            "sampler: MAPFILTER_ANISOTROPIC is not modelled (only sample_l makes it linear)",
        )),
        m => Ok(Filter::of(m)),
    };
    let filters = if gather {
        (Filter::Linear, Filter::Linear)
    } else {
        (resolve(st.mag_filter)?, resolve(st.min_filter)?)
    };
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
    } else if filtering && !gather && !filterable(p, &f) {
        // Linear filters are allowed for any format with sample_c only
        // (000 line 4046).
        return Err(bad(
            "sampler: linear filtering of a format without Sampling Engine Filtering",
        ));
    }
    let used = [true, kind != SurfaceKind::D1, kind == SurfaceKind::D3];
    let mut modes = [AddressMode::Clamp; 3];
    for (i, m) in modes.iter_mut().enumerate() {
        if used[i] || (cube && i < 2) {
            *m = st.address[i].ok_or(bad(
                "SAMPLER_STATE: a reserved address mode on a sampled axis",
            ))?;
        }
    }
    if cube {
        // TEXCOORDMODE_CUBE on either face axis, or the override, crosses
        // face edges (a choice for mixed settings: the manual defines the
        // mode for cube maps as a whole).
        if st.cube_override || modes[..2].contains(&AddressMode::Cube) {
            modes = [AddressMode::Cube, AddressMode::Cube, AddressMode::Clamp];
        }
        if st.non_normalized {
            return Err(bad(
                "SAMPLER_STATE: non-normalized coordinates on a cube surface",
            ));
        }
    } else if modes.contains(&AddressMode::Cube) {
        return Err(bad(
            "SAMPLER_STATE: TEXCOORDMODE_CUBE on a surface that is not a cube",
        ));
    }
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
    let faces_off = cube && surface.cube_faces & 0x3F != 0x3F;
    let border = if modes.contains(&AddressMode::ClampBorder) || faces_off {
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
    let size = lod_size(surface, st.non_normalized);
    let dir = |c: usize| [fl(a.u[c]), fl(a.v[c]), fl(a.r[c])];
    let subspan = |c: usize| {
        if header.force_lod_zero {
            0.0
        } else {
            subspan_lod(a, c, surface, size)
        }
    };
    for (c, t) in out.iter_mut().enumerate().take(a.lanes) {
        if ce >> c & 1 == 0 {
            continue;
        }
        let lod_in = match s.op {
            _ if gather => LodIn::Computed(0.0),
            O::SampleB | O::SampleBC => LodIn::Biased(subspan(c), fl(a.lod[c])),
            O::SampleL | O::SampleLC => LodIn::Explicit(fl(a.lod[c])),
            O::SampleD | O::SampleDC if header.force_lod_zero => LodIn::Computed(0.0),
            O::SampleD | O::SampleDC => {
                let g = a.gradients.map(|g| fl(g[c]));
                LodIn::Computed(lod::from_gradients(
                    [g[0], g[1], g[4]],
                    [g[2], g[3], g[5]],
                    size,
                ))
            }
            _ => LodIn::Computed(subspan(c)),
        };
        let pick = if gather {
            // LOD forced to zero: no bias, the most detailed level the
            // clamps allow.
            let st = SamplerState {
                lod_bias: 0.0,
                ..st
            };
            lod::pick(&st, surface, lod_in)
        } else {
            lod::pick(&st, surface, lod_in)
        };
        let shadow = shadow_op.then(|| (st.shadow, f32::from_bits(a.reference[c])));
        let at = match kind {
            SurfaceKind::D1 => At {
                u: fl(a.u[c]),
                v: 0.0,
                r: 0.0,
                slice: array_slice(surface, fl(a.v[c])),
                face: None,
            },
            SurfaceKind::D2 => At {
                u: fl(a.u[c]),
                v: fl(a.v[c]),
                r: 0.0,
                slice: array_slice(surface, fl(a.r[c])),
                face: None,
            },
            SurfaceKind::D3 => At {
                u: fl(a.u[c]),
                v: fl(a.v[c]),
                r: fl(a.r[c]),
                slice: 0,
                face: None,
            },
            _ => {
                let (face, u, v) = cube::select(dir(c));
                // Cube arrays: the Depth field counts cubes (003 lines
                // 76070-76074); Minimum Array Element counts 2D slices.
                let cubes = surface.depth.max(1);
                let i = fl(a.ai[c]);
                let i = if i.is_nan() { 0.0 } else { libm::rint(i) };
                let n = i.clamp(0.0, f64::from(cubes - 1)) as u32;
                At {
                    u,
                    v,
                    r: 0.0,
                    slice: surface.min_array.saturating_add(n.saturating_mul(6)),
                    face: Some(face),
                }
            }
        };
        *t = if gather {
            let lane = Texture {
                offsets: if per_pixel_offsets {
                    (offset6(a.offsets[0][c]), offset6(a.offsets[1][c]))
                } else {
                    tex.offsets
                },
                ..tex
            };
            let [ul, ur, ll, lr] = lane.footprint(env, pick.level0, &at, shadow)?;
            let ch = if shadow_op { 0 } else { header.gather_channel };
            [ll[ch], lr[ch], ur[ch], ul[ch]]
        } else {
            tex.sample(env, &pick, filters, &at, shadow)?
        };
    }
    Ok(out)
}

/// The SAMPLER_STATE a message uses (module `state` says which pointer)
/// and the base its pointers are relative to. Without a
/// [`SamplerSource`], the [`Sampling`] fallback, which has no Shadow
/// Function: a shadow compare is then unhandled.
fn read_state(
    env: &mut MessageEnv,
    p: IsaGen,
    s: &SamplerMsg,
    header: Header,
    shadow_op: bool,
) -> Result<(SamplerState, u64), SendError> {
    match env.samplers {
        Some(src) => {
            // Gen12.5: the Xe side resolved the header's pointer (and its
            // bindless bit) into `src` already (`xe::sampler`).
            let from_header = p <= IsaGen::G45 || (p == IsaGen::Gen75 && header.present);
            let pointer = if from_header {
                header.pointer
            } else {
                src.pointer
            };
            Ok((state::read(env, p, src.base, pointer, s.sampler)?, src.base))
        }
        None if shadow_op => Err(SendError::Unhandled),
        None => Ok((env.sampling.state(), 0)),
    }
}

/// What one unit of u, v and r is in texels of level 0 for the LOD: the
/// surface's width, height and depth (1 with unnormalized coordinates);
/// 0 for an axis the LOD does not see (v on 1D, r but on 3D).
fn lod_size(surface: &Surface, non_normalized: bool) -> [f64; 3] {
    let kind = surface.kind;
    let full = if non_normalized {
        [1.0, 1.0, 0.0]
    } else {
        [
            f64::from(surface.width),
            f64::from(surface.height),
            f64::from(surface.depth),
        ]
    };
    [
        full[0],
        if kind != SurfaceKind::D1 {
            full[1]
        } else {
            0.0
        },
        if kind == SurfaceKind::D3 {
            full[2]
        } else {
            0.0
        },
    ]
}

/// The LOD lane `c` computes from the gradients inside its subspan (module
/// `lod`): cube maps on the face of the subspan's upper-left pixel, in
/// texels of a face.
fn subspan_lod(a: &Args, c: usize, surface: &Surface, size: [f64; 3]) -> f64 {
    let fl = |x: u32| f64::from(f32::from_bits(x));
    let k = c & !3;
    if surface.kind == SurfaceKind::Cube {
        let dir = |c: usize| [fl(a.u[c]), fl(a.v[c]), fl(a.r[c])];
        let (face, ..) = cube::select(dir(k));
        let at = |o: usize| cube::on_face(face, dir(k + o));
        let (ul, ur, ll) = (at(0), at(1), at(2));
        let n = f64::from(surface.width);
        return lod::from_gradients(
            [ur.0 - ul.0, ur.1 - ul.1, 0.0],
            [ll.0 - ul.0, ll.1 - ul.1, 0.0],
            [n, n, 0.0],
        );
    }
    let d = |x: &[u32; 16], o: usize| fl(x[k + o]) - fl(x[k]);
    lod::from_gradients(
        [d(&a.u, 1), d(&a.v, 1), d(&a.r, 1)],
        [d(&a.u, 2), d(&a.v, 2), d(&a.r, 2)],
        size,
    )
}

/// The lod message for every enabled lane (003 lines 79659-79676):
/// "LOD is computed as if the surface will be sampled, using the indicated
/// sampler state, and the clamped and unclamped LOD values are returned in
/// the red and green channels, respectively, in FLOAT32 format. The blue
/// and alpha channels are undefined" (0 here); Mesa hands red and green
/// on unchanged as textureQueryLod's x (the level accessed) and y (the
/// computed LOD) [ext: mesa src/mesa/drivers/dri/i965/brw_fs_visitor.cpp
/// `emit_texture`, ir_lod without a fixup]. The LOD is the one
/// `sample` computes (gradients between adjacent pixels, SAMPLER_STATE
/// bias and clamps, see [`lod::query`]). Gen7 keeps the message and the
/// sample payload [ext: mesa elk_lower_logical_sends.cpp, LOD sends the
/// coordinates alone; brw_eu_defines.h GFX5_SAMPLER_MESSAGE_LOD]; Gen4/G45
/// have none. Refused: the surface types and formats the manual excludes
/// (UINT, SINT), and MAPFILTER_ANISOTROPIC, whose LOD is not modelled.
/// Sampler Disable and null surfaces return zeros, as for `sample`.
fn lod_query(
    env: &mut MessageEnv,
    p: IsaGen,
    s: &SamplerMsg,
    surface: &Surface,
    a: &Args,
    header: Header,
    ce: u32,
) -> Result<[[u32; 4]; 16], SendError> {
    let mut out = [[0u32; 4]; 16];
    if surface.kind == SurfaceKind::Null {
        return Ok(out);
    }
    let (st, _) = read_state(env, p, s, header, false)?;
    if st.disabled {
        return Ok(out);
    }
    if !matches!(
        surface.kind,
        SurfaceKind::D1 | SurfaceKind::D2 | SurfaceKind::D3 | SurfaceKind::Cube
    ) {
        return Err(bad("lod: the surface must be 1D, 2D, 3D or cube"));
    }
    let f = Format::of(surface, st.border_mode)?;
    if matches!(f.kind, format::Kind::Uint | format::Kind::Sint) {
        return Err(bad("lod: the surface format cannot be UINT or SINT"));
    }
    if st.min_filter == MapFilter::Anisotropic || st.mag_filter == MapFilter::Anisotropic {
        return Err(bad(
            "lod: MAPFILTER_ANISOTROPIC is not modelled (its LOD differs)",
        ));
    }
    if surface.kind == SurfaceKind::Cube && st.non_normalized {
        return Err(bad(
            "SAMPLER_STATE: non-normalized coordinates on a cube surface",
        ));
    }
    let size = lod_size(surface, st.non_normalized);
    for (c, t) in out.iter_mut().enumerate().take(a.lanes) {
        if ce >> c & 1 == 0 {
            continue;
        }
        let computed = if header.force_lod_zero {
            0.0
        } else {
            subspan_lod(a, c, surface, size)
        };
        let (clamped, unclamped) = lod::query(&st, surface, LodIn::Computed(computed));
        *t = [
            (clamped as f32).to_bits(),
            (unclamped as f32).to_bits(),
            0,
            0,
        ];
    }
    Ok(out)
}

/// A gather4_po offset, an integer parameter (003 lines 79833-79835) the
/// header's U and V Offsets give way to (003 lines 79277, 79288): the low
/// 6 bits as a signed number. The width is a choice: the manual gives
/// none, and Mesa offers exactly the 6-bit range [-32, 31] from Gen7 on
/// [ext: mesa
/// src/mesa/drivers/dri/i965/brw_context.c MinProgramTextureGatherOffset,
/// MaxProgramTextureGatherOffset].
fn offset6(x: u32) -> i64 {
    i64::from(((x & 0x3F) as i32) << 26 >> 26)
}

/// Writes a SIMD4x2 response: one register, sample 0's R, G, B, A in
/// dwords 0-3 and sample 1's in 4-7; the write channel mask and the active
/// samples choose what is written (003 lines 80279-80300).
fn write_back_4x2(
    m: &mut Msg,
    texels: &[[u32; 4]; 16],
    masked: u32,
    active: u32,
) -> Result<(), SendError> {
    let mut reg: Reg = [0; 32];
    let mut dwords = 0u8;
    for (c, t) in texels.iter().enumerate().take(2) {
        if active >> c & 1 == 0 {
            continue;
        }
        for (ch, v) in t.iter().enumerate() {
            if masked >> ch & 1 == 0 {
                set_dword(&mut reg, 4 * c + ch, *v);
                dwords |= 1 << (4 * c + ch);
            }
        }
    }
    m.respond(0, &reg, dwords)
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
