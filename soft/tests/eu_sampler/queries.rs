//! The messages that ask instead of (or besides) sampling: `lod` (the LOD
//! a sample would compute, 003 lines 79659-79676), `sampleinfo` (the
//! surface's sample count and position palette index, 003 lines
//! 79649-79657), `sample+killpix` (a sample plus the kill pixel mask, 000
//! lines 4234-4246; 003 lines 80263-80278), and the SIMD32/64 messages the
//! model refuses by name (003 lines 79400-79419). Expected values are
//! worked out here from the manuals' formulas.

use baregpu_isa::IsaGen;
use baregpu_soft::eu::shared::MemoryUnits;
use baregpu_soft::eu::{ErrorKind, EuError, Harness};

use super::rig::*;
use super::volume::{Surf, gpu_with, refusal, send};

const GEN6_UP: [IsaGen; 3] = [IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75];

/// Per-subspan pixel steps (du, dv along x; du, dv along y) in normalized
/// coordinates, for a 16 x 8 texture: LOD 0, 2, -inf (no change) and
/// log2(sqrt(8^2 + 8^2)) = 3.5.
const STEPS: [[f32; 4]; 4] = [
    [1.0 / 16.0, 0.0, 0.0, 1.0 / 8.0],
    [4.0 / 16.0, 0.0, 0.0, 2.0 / 8.0],
    [0.0, 0.0, 0.0, 0.0],
    [8.0 / 16.0, 1.0, 1.0 / 16.0, 0.0],
];

/// Lane coordinates: subspan k's pixels UL, UR, LL, LR (lanes 4k to 4k +
/// 3, 003 lines 79924-79985) stepped by STEPS[k] from (0.25, 0.375).
fn subspan_coords() -> ([f32; 16], [f32; 16]) {
    let at = |l: usize, axis: usize| {
        let s = STEPS[l / 4];
        let (x, y) = ((l & 1) as f32, (l >> 1 & 1) as f32);
        let base = [0.25f32, 0.375][axis];
        base + x * s[axis] + y * s[2 + axis]
    };
    (
        core::array::from_fn(|l| at(l, 0)),
        core::array::from_fn(|l| at(l, 1)),
    )
}

/// The ideal LOD of lane `l`'s subspan from the payload's own floats (000
/// lines 2739-2745): log2 of the longer of the x and y texel gradients
/// between UL and UR, UL and LL.
fn ideal_lod(u: &[f32; 16], v: &[f32; 16], l: usize, w: f64, h: f64) -> f64 {
    let k = l & !3;
    let d = |a: &[f32; 16], o: usize| f64::from(a[k + o]) - f64::from(a[k]);
    let x = ((d(u, 1) * w).powi(2) + (d(v, 1) * h).powi(2)).sqrt();
    let y = ((d(u, 2) * w).powi(2) + (d(v, 2) * h).powi(2)).sqrt();
    x.max(y).log2()
}

/// `lod` returns, in red, the LOD after SAMPLER_STATE's bias clamped to
/// [Min LOD, Max LOD] (each limited to the MIP count and moved by Surface
/// Min LOD, 000 lines 2781-2790) and, in green, the same LOD unclamped;
/// blue and alpha are 0 here. Lanes whose channel is off are not written,
/// yet their coordinates still feed their subspan's LOD (003 lines
/// 79157-79160).
#[test]
fn lod_returns_the_clamped_and_unclamped_lod() {
    let (u, v) = subspan_coords();
    // Lane 1 (upper right of subspan 0) and lane 14 off.
    let dispatch = !(1u32 << 1 | 1 << 14) & 0xFFFF;
    for p in GEN6_UP {
        // (Surface Min LOD, MIP levels).
        for (min_lod, mips) in [(0, 5), (1, 4)] {
            for simd16 in [true, false] {
                let tex = Tex {
                    min_lod,
                    ..Tex::new(R8G8B8A8_UNORM, 16, 8, mips)
                };
                let mut gpu = new_gpu(p, &tex);
                let spec = Spec {
                    mip: 1,
                    bias: 0.5,
                    min_lod: 0.5,
                    max_lod: 3.0,
                    ..Spec::default()
                };
                put_sampler(&mut gpu, SAMPLERS, 0, &spec);
                let msg = Msg {
                    simd16,
                    dispatch,
                    ..Msg::new(Op::Lod, u, v)
                };
                let got = ok(&mut gpu, &msg);
                let mip_cnt = f64::from(mips - 1);
                let lo = 0.5f64.min(mip_cnt) + f64::from(min_lod);
                let hi = 3.0f64.min(mip_cnt) + f64::from(min_lod);
                let lanes = if simd16 { 16 } else { 8 };
                for (l, t) in got.iter().enumerate().take(lanes) {
                    let what = format!("{p:?} min_lod {min_lod} simd16 {simd16} lane {l}");
                    if dispatch >> l & 1 == 0 {
                        assert_eq!(*t, [0xDEAD_BEEF; 4], "{what}");
                        continue;
                    }
                    let unclamped = ideal_lod(&u, &v, l, 16.0, 8.0) + 0.5;
                    let clamped = unclamped.clamp(lo, hi);
                    let [r, g, b, a] = floats(*t);
                    close(r, clamped, &format!("{what} clamped"));
                    if unclamped.is_infinite() {
                        assert_eq!(g, f32::NEG_INFINITY, "{what} unclamped");
                    } else {
                        close(g, unclamped, &format!("{what} unclamped"));
                    }
                    assert_eq!((b, a), (0.0, 0.0), "{what}");
                }
            }
        }
    }
}

/// On a cube map the LOD comes from the face coordinates of the
/// subspan's upper-left pixel's face: on +Z, s = (x + 1) / 2 and t = (1 -
/// y) / 2 (the API cube table, see the model's cube.rs), so steps of 0.5
/// and 0.25 in x and y on an 8 x 8 face are 2 and 1 texels: LOD 1.
#[test]
fn lod_of_a_cube_map_takes_face_gradients() {
    for p in GEN6_UP {
        let s = Surf {
            mips: 4,
            ..Surf::new(3, R8G8B8A8_UNORM, 8, 8, 1)
        };
        let mut gpu = gpu_with(p, &s, &Spec::default());
        // SIMD8 lod: u v r ai (003 lines 79366-79390; Gen7 [ext: mesa
        // elk_lower_logical_sends.cpp, coordinates alone]).
        let steps = [(0.5f32, 0.25f32), (0.125, 0.0625)];
        let mut x = [0u32; 8];
        let mut y = [0u32; 8];
        for l in 0..8 {
            let (dx, dy) = steps[l / 4];
            x[l] = (-0.5 + dx * (l & 1) as f32).to_bits();
            y[l] = (0.25 + dy * (l >> 1 & 1) as f32).to_bits();
        }
        let regs = [x, y, [1f32.to_bits(); 8], [0; 8]];
        let r = send(&mut gpu, "lod", "8", &regs, 4, false).unwrap();
        for l in 0..8 {
            let (dx, dy) = steps[l / 4];
            let texels = (f64::from(dx) / 2.0 * 8.0).max(f64::from(dy) / 2.0 * 8.0);
            let want = texels.log2();
            // Default state: Min LOD 0, Max LOD 13 limited to MIP count 3.
            close(f32::from_bits(r[1][l]), want, &format!("{p:?} lane {l}"));
            close(
                f32::from_bits(r[0][l]),
                want.clamp(0.0, 3.0),
                &format!("{p:?} lane {l} clamped"),
            );
        }
    }
}

/// What the manual rules out for `lod`: SIMD4x2 (003 line 79674), UINT
/// and SINT formats (79672-79673); anisotropic filtering is refused as not
/// modelled.
#[test]
fn lod_refusals() {
    let (u, v) = subspan_coords();
    for p in GEN6_UP {
        let mut gpu = new_gpu(p, &Tex::new(R32_UINT, 16, 8, 1));
        put_sampler(&mut gpu, SAMPLERS, 0, &Spec::default());
        refused(&mut gpu, &Msg::new(Op::Lod, u, v), "UINT or SINT");
        let mut gpu = new_gpu(p, &Tex::new(R8G8B8A8_UNORM, 16, 8, 1));
        put_sampler(
            &mut gpu,
            SAMPLERS,
            0,
            &Spec {
                min: 2,
                ..Spec::default()
            },
        );
        refused(&mut gpu, &Msg::new(Op::Lod, u, v), "ANISOTROPIC");
        put_sampler(&mut gpu, SAMPLERS, 0, &Spec::default());
        refusal(
            send(&mut gpu, "lod", "4x2", &[[0; 8]], 1, false),
            "not supported in SIMD4x2",
        );
    }
}

/// SURFACE_STATE with Number of Multisamples `code` and Multisample
/// Position Palette Index `palette`: Gen6 DW4 6:4 and 2:0 (003 lines
/// 76257-76292), Gen7 DW4 5:3 and 2:0 [ext: mesa gen7.xml
/// RENDER_SURFACE_STATE]; surface type 7 (SURFTYPE_NULL) when `null`.
fn ms_state(p: IsaGen, code: u32, palette: u32, null: bool) -> Vec<u32> {
    let mut dw = Tex::new(R8G8B8A8_UNORM, 16, 8, 1).state(p);
    let shift = if p >= IsaGen::Gen7 { 3 } else { 4 };
    dw[4] |= code << shift | palette;
    if null {
        dw[0] = dw[0] & !(7 << 29) | 7 << 29;
    }
    dw
}

/// `sampleinfo` returns the sample count in red and the palette index
/// plus one in alpha (003 lines 79649-79654), green and blue 0 here; on
/// Gen6 a null surface still returns its fields (the erratum, 79655-79657),
/// on Gen7 zeros. The message has no parameter: a header alone.
#[test]
fn sampleinfo_returns_the_sample_count_and_palette_index() {
    let none = [0f32; 16];
    let dispatch = 0xFFFF & !(1 << 2 | 1 << 9);
    for p in GEN6_UP {
        let mut cases = vec![(0, 0, false, [1, 0, 0, 1]), (2, 5, false, [4, 0, 0, 6])];
        if p >= IsaGen::Gen7 {
            cases.push((3, 2, false, [8, 0, 0, 3]));
            cases.push((2, 3, true, [0, 0, 0, 0]));
        } else {
            cases.push((2, 3, true, [4, 0, 0, 4]));
        }
        for (code, palette, null, want) in cases {
            for simd16 in [true, false] {
                let mut gpu = new_gpu_state(p, &ms_state(p, code, palette, null));
                let msg = Msg {
                    simd16,
                    dispatch,
                    header: Some((0, SAMPLERS)),
                    ..Msg::new(Op::SampleInfo, none, none)
                };
                let got = ok(&mut gpu, &msg);
                let lanes = if simd16 { 16 } else { 8 };
                for (l, t) in got.iter().enumerate().take(lanes) {
                    let want = if dispatch >> l & 1 != 0 {
                        want
                    } else {
                        [0xDEAD_BEEF; 4]
                    };
                    assert_eq!(*t, want, "{p:?} code {code} null {null} lane {l}");
                }
            }
        }
        // SIMD4x2: one register, both samples (003 lines 80279-80300).
        let mut gpu = new_gpu_state(p, &ms_state(p, 2, 5, false));
        let r = send(&mut gpu, "sampleinfo", "4x2", &[[0; 8]], 1, true).unwrap();
        assert_eq!(r[0], [4, 0, 0, 6, 4, 0, 0, 6], "{p:?}");
        // Codes 1 and 4-7 are reserved.
        let mut gpu = new_gpu_state(p, &ms_state(p, 1, 0, false));
        refusal(
            send(&mut gpu, "sampleinfo", "8", &[[0; 8]], 4, true),
            "reserved",
        );
    }
}

/// A one-level 16 x 8 RGBA8 texture whose texel (x, y) is (x, y, x + y,
/// 200).
fn killpix_texture(p: IsaGen) -> MemoryUnits {
    let tex = Tex::new(R8G8B8A8_UNORM, 16, 8, 1);
    let mut gpu = new_gpu(p, &tex);
    for y in 0..8 {
        for x in 0..16 {
            put_texel(
                &mut gpu,
                &tex,
                0,
                x,
                y,
                [x as u8, y as u8, (x + y) as u8, 200],
            );
        }
    }
    gpu
}

/// sample+killpix samples as `sample` does (nearest here: the texel under
/// each coordinate) and returns W4: dword 0 holds 0xffff in 31:16 and the
/// Active Pixel Mask in 15:0, 1 for every pixel ChromaKey did not kill
/// (none: ChromaKey off), the high byte always 1; on Gen4 (965, [DevBW,
/// DevCL]) the erratum's mask, 0 for pixels whose channel is off; dwords
/// 1-7 not written. SIMD8 only (000 line 4003; 003 line 79469); Gen7 has
/// no code for it.
#[test]
fn sample_killpix_returns_the_kill_mask() {
    let u: [f32; 16] = core::array::from_fn(|l| ((l * 5 % 16) as f32 + 0.5) / 16.0);
    let v: [f32; 16] = core::array::from_fn(|l| ((l * 3 % 8) as f32 + 0.5) / 8.0);
    let dispatch = 0b1011_0111u32;
    for p in [IsaGen::Gen4, IsaGen::G45, IsaGen::Gen6] {
        let mut gpu = killpix_texture(p);
        put_sampler(&mut gpu, SAMPLERS, 0, &Spec::default());
        let msg = Msg {
            simd16: false,
            dispatch,
            ..Msg::new(Op::SampleKillpix, u, v)
        };
        let regs = exec(&mut gpu, &msg).unwrap_or_else(|e| panic!("{p:?}: {e:?}"));
        for l in 0..8 {
            let (x, y) = (l * 5 % 16, l * 3 % 8);
            let want = [x, y, x + y, 200].map(|k| unorm(k as u8));
            for (ch, reg) in regs.iter().take(4).enumerate() {
                let got = reg[l];
                if dispatch >> l & 1 == 0 {
                    assert_eq!(got, 0xDEAD_BEEF, "{p:?} lane {l}");
                } else {
                    close(f32::from_bits(got), want[ch], &format!("{p:?} lane {l}"));
                }
            }
        }
        let active = if p == IsaGen::Gen4 {
            0xFF00 | dispatch
        } else {
            0xFFFF
        };
        assert_eq!(regs[4][0], 0xFFFF_0000 | active, "{p:?} W4.0");
        assert_eq!(regs[4][1..], [0xDEAD_BEEF; 7], "{p:?} W4.1-7");
        // ChromaKey, whose kills the mask reports, is not modelled.
        put_sampler(
            &mut gpu,
            SAMPLERS,
            0,
            &Spec {
                chroma_key: true,
                ..Spec::default()
            },
        );
        refused(&mut gpu, &msg, "ChromaKey");
    }
    // Gen6 has a SIMD16 code but no SIMD16 form.
    let mut gpu = killpix_texture(IsaGen::Gen6);
    put_sampler(&mut gpu, SAMPLERS, 0, &Spec::default());
    refused(
        &mut gpu,
        &Msg::new(Op::SampleKillpix, u, v),
        "only in SIMD8",
    );
}

/// SIMD Mode 3 messages are refused by name where the manual names them
/// (Gen6: 01100 sample_unorm with the media payload, 003 line 79415) and
/// as SIMD32/64 otherwise.
#[test]
fn simd32_64_messages_are_refused_by_name() {
    // (platform, function control: BTI 1, type, SIMD mode 3, why).
    let cases = [
        (
            IsaGen::Gen6,
            1 | 0b1100 << 12 | 3 << 16,
            "sample_unorm (media)",
        ),
        (IsaGen::Gen6, 1 | 0b0011 << 12 | 3 << 16, "sample_8x8"),
        (IsaGen::Gen7, 1 | 3 << 17, "SIMD Mode 3"),
    ];
    for (p, fc, why) in cases {
        let mut gpu = killpix_texture(p);
        let (pay, send) = if p >= IsaGen::Gen7 {
            ("r100", "send (16|M0) r40:uw r100")
        } else {
            ("m1", "send (16|M0) r40:uw m1")
        };
        let src = format!(
            "mov (8|M0) {pay}.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
             {send} sampler.raw(fc={fc:#x}) mlen=2 rlen=8 hdr\n"
        );
        let mut h = Harness::new(p);
        h.load_asm(&src)
            .unwrap_or_else(|e| panic!("{p:?}: {e:?}\n{src}"));
        match h.run_with(&mut gpu, 100) {
            Err(EuError {
                kind: ErrorKind::SharedFunction(m),
                ..
            }) => assert!(m.contains(why), "{p:?}: {m:?} lacks {why:?}"),
            other => panic!("{p:?}: {other:?}, expected a refusal naming {why}"),
        }
    }
}

/// Gen7.5's sample_d_c (HSW_SAMPLER_MESSAGE_SAMPLE_DERIV_COMPARE [ext:
/// mesa brw_eu_defines.h]; payload ref, u, du/dx, du/dy, v, dv/dx, dv/dy
/// [ext: mesa elk_lower_logical_sends.cpp]): the level comes from the
/// message's gradients as for sample_d (000 lines 2739-2745), then each
/// texel is compared with the reference as for sample_c (PREFILTEROP_LESS:
/// 0 where texel < ref, 000 lines 3009-3016). Level L of the R32_FLOAT
/// texture holds 0.1 (L + 1) everywhere, so with ref 0.25 levels 0 and 1
/// read 0 and the others 1.
#[test]
fn sample_d_c_compares_at_the_gradients_level() {
    let p = IsaGen::Gen75;
    let tex = Tex::new(R32_FLOAT, 16, 8, 5);
    let mut gpu = new_gpu(p, &tex);
    for l in 0..5 {
        let (w, h) = tex.size(l);
        for y in 0..h {
            for x in 0..w {
                let t = (0.1 * (l + 1) as f32).to_bits().to_le_bytes();
                put_texel(&mut gpu, &tex, l, x, y, t);
            }
        }
    }
    put_sampler(
        &mut gpu,
        SAMPLERS,
        0,
        &Spec {
            mip: 1,
            shadow: 2,
            ..Spec::default()
        },
    );
    // Lane l: a gradient of 2^(l / 2 + 0.2) texels along x (even lanes)
    // or y, away from the level boundaries.
    let len = |l: usize| 2f64.powf(l as f64 / 2.0 + 0.2);
    let texels = |l: usize| -> [f64; 4] {
        if l.is_multiple_of(2) {
            [len(l), 0.0, 0.0, 0.5]
        } else {
            [0.0, 0.5, 0.0, len(l)]
        }
    };
    let scale = [16.0, 8.0, 16.0, 8.0];
    let grads: [[u32; 16]; 4] = core::array::from_fn(|k| {
        core::array::from_fn(|l| ((texels(l)[k] / scale[k]) as f32).to_bits())
    });
    let reference = 0.25f32;
    let (u, v) = (
        [0.7f32; 16],
        core::array::from_fn(|l| (l as f32 + 0.5) / 16.0),
    );
    let msg = Msg {
        simd16: false,
        gradients: grads,
        reference: [reference.to_bits(); 16],
        ..Msg::new(Op::SampleDC, u, v)
    };
    let got = ok(&mut gpu, &msg);
    for (l, t) in got.iter().enumerate().take(8) {
        let [dudx, dvdx, dudy, dvdy] = texels(l);
        let lod = dudx.hypot(dvdx).max(dudy.hypot(dvdy)).log2();
        // MIPFILTER_NEAREST with Max LOD 13 limited to MIP count 4.
        let level = if lod <= 0.0 {
            0
        } else {
            (lod + 0.5).min(4.0).floor() as u32
        };
        let texel = 0.1 * (level + 1) as f32;
        let want = if texel < reference { 0.0 } else { 1.0 };
        assert_eq!(f32::from_bits(t[0]), want, "lane {l} level {level}");
    }
}
