//! Multisampled surfaces: every sample read back with the multisample
//! loads (Gen7 ld2dms and ld2dss, Gen6 ld with a sample index) from
//! surfaces whose samples are written here at addresses computed from
//! the layouts' definitions; the messages a multisampled surface does not
//! serve, and what is not modelled, refused.

use super::rig::*;
use baregpu_isa::IsaGen;

const R32_UINT_FMT: u32 = R32_UINT;

/// A distinct value for sample `s` of pixel (x, y).
fn value(x: u32, y: u32, s: u32) -> u32 {
    0xAB00_0000 | s << 12 | y << 4 | x
}

/// Gen6 SURFACE_STATE DW4 6:4 Number of Multisamples, Gen7 DW4 5:3 with
/// bit 6 Multisampled Surface Storage Format (1 MSFMT_DEPTH_STENCIL,
/// interleaved) and DW0 bit 10 Surface Array Spacing (1 ARYSPC_LOD0: one
/// slice is the level-0 height, padded to the alignment, apart); Gen7 DW6
/// bit 0 MCS Enable [ext: mesa src/intel/genxml/gen6.xml, gen7.xml].
fn ms_state(p: IsaGen, tex: &Tex, log2: u32, interleaved: bool, mcs: bool) -> Vec<u32> {
    let mut dw = tex.state(p);
    if p == IsaGen::Gen6 {
        dw[4] |= log2 << 4;
    } else {
        dw[0] |= 1 << 10;
        dw[4] |= u32::from(interleaved) << 6 | log2 << 3;
        dw[6] |= u32::from(mcs);
    }
    dw
}

fn put(gpu: &mut baregpu_soft::eu::shared::MemoryUnits, x: u32, y: u32, v: u32) {
    // Linear, 256-byte pitch, 4 bytes a texel (the rig's Tex).
    assert!(gpu.memory.put(
        TEX + u64::from(y) * 256 + 4 * u64::from(x),
        &v.to_le_bytes()
    ));
}

/// 4X interleaved (Mesa brw_blorp_blit.cpp encode_msaa, IMS: sample bit 0
/// goes into X bit 1, bit 1 into Y bit 1, the pixel's low bits staying in
/// bit 0): pixel (x, y) sample s at
/// X = 4 (x / 2) + 2 (s % 2) + x % 2, Y = 4 (y / 2) + 2 (s / 2) + y % 2.
fn fill_ims4(gpu: &mut baregpu_soft::eu::shared::MemoryUnits) {
    for y in 0..4 {
        for x in 0..4 {
            for s in 0..4 {
                let px = 4 * (x / 2) + 2 * (s % 2) + x % 2;
                let py = 4 * (y / 2) + 2 * (s / 2) + y % 2;
                put(gpu, px, py, value(x, y, s));
            }
        }
    }
}

/// The 16 pixels of a 4x4 surface, lane c at (c % 4, c / 4).
fn lanes() -> ([u32; 16], [u32; 16]) {
    (
        core::array::from_fn(|c| c as u32 % 4),
        core::array::from_fn(|c| c as u32 / 4),
    )
}

fn load(op: Op, s: u32) -> Msg {
    let (u, v) = lanes();
    Msg {
        u,
        v,
        si: Some([s; 16]),
        ..Msg::new(op, [0.0; 16], [0.0; 16])
    }
}

fn check(gpu: &mut baregpu_soft::eu::shared::MemoryUnits, msg: &Msg, s: u32) {
    let got = ok(gpu, msg);
    for (c, t) in got.iter().enumerate() {
        let (x, y) = (c as u32 % 4, c as u32 / 4);
        // R32_UINT: red the value, green and blue 0, alpha 1.
        assert_eq!(t, &[value(x, y, s), 0, 0, 1], "{msg:?} lane {c}");
    }
}

#[test]
fn ld2dms_reads_every_sample_of_4x_interleaved_and_8x_array_surfaces() {
    let tex = Tex::new(R32_UINT_FMT, 4, 4, 1);
    // 4X MSFMT_DEPTH_STENCIL.
    let mut gpu = new_gpu_state(IsaGen::Gen7, &ms_state(IsaGen::Gen7, &tex, 2, true, false));
    fill_ims4(&mut gpu);
    for s in 0..4 {
        check(&mut gpu, &load(Op::Ld2dms, s), s);
        check(&mut gpu, &load(Op::Ld2dss, s), s);
    }
    // An MCS value without MCS Enable is ignored.
    let msg = Msg {
        mcs: [0xFF; 16],
        ..load(Op::Ld2dms, 3)
    };
    check(&mut gpu, &msg, 3);
    // The sample index is clamped to the samples (003 lines 79623-79624).
    check(&mut gpu, &load(Op::Ld2dms, 9), 3);

    // 8X MSFMT_MSS on Gen7 and Gen7.5: sample s is array slice s, 4 rows
    // (the level-0 height, ARYSPC_LOD0) apart.
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        let mut gpu = new_gpu_state(p, &ms_state(p, &tex, 3, false, false));
        for y in 0..4 {
            for x in 0..4 {
                for s in 0..8 {
                    put(&mut gpu, x, 4 * s + y, value(x, y, s));
                }
            }
        }
        for s in 0..8 {
            check(&mut gpu, &load(Op::Ld2dms, s), s);
        }
        // SIMD8: one register a parameter, pixels (0..4, 0..2).
        let msg = Msg {
            simd16: false,
            ..load(Op::Ld2dms, 5)
        };
        let got = ok(&mut gpu, &msg);
        for (c, t) in got.iter().enumerate().take(8) {
            assert_eq!(
                t,
                &[value(c as u32 % 4, c as u32 / 4, 5), 0, 0, 1],
                "SIMD8 lane {c}"
            );
        }
        // Outside the surface: zero (alpha one).
        let msg = Msg {
            u: [4; 16],
            ..load(Op::Ld2dms, 0)
        };
        assert_eq!(ok(&mut gpu, &msg)[0], [0, 0, 0, 1]);
    }
}

#[test]
fn gen6_ld_reads_every_sample_of_a_4x_surface() {
    let tex = Tex::new(R32_UINT_FMT, 4, 4, 1);
    let mut gpu = new_gpu_state(IsaGen::Gen6, &ms_state(IsaGen::Gen6, &tex, 2, true, false));
    fill_ims4(&mut gpu);
    for s in 0..4 {
        check(&mut gpu, &load(Op::Ld, s), s);
    }
}

#[test]
fn multisampled_surfaces_refuse_what_is_not_modelled() {
    let u = [0.5f32; 16];
    let v = [0.5f32; 16];
    let tex = Tex::new(R8G8B8A8_UNORM, 4, 4, 1);
    for p in [IsaGen::Gen6, IsaGen::Gen7] {
        let mut gpu = new_gpu_state(p, &ms_state(p, &tex, 2, true, false));
        refused(
            &mut gpu,
            &Msg::new(Op::SampleL, u, v).lod(0.0),
            "multisampled",
        );
        // The same surface single-sampled samples.
        let mut gpu = new_gpu(p, &tex);
        ok(&mut gpu, &Msg::new(Op::SampleL, u, v).lod(0.0));
    }
    let p = IsaGen::Gen7;
    let mut gpu = new_gpu_state(p, &ms_state(p, &tex, 2, false, true));
    refused(&mut gpu, &load(Op::Ld2dms, 0), "MCS Enable");
    refused(&mut gpu, &load(Op::LdMcs, 0), "MCS Enable");
    let mut gpu = new_gpu_state(p, &ms_state(p, &tex, 2, false, false));
    refused(&mut gpu, &load(Op::LdMcs, 0), "ld_mcs");
    // Gen7's ld does not read samples.
    refused(&mut gpu, &load(Op::Ld, 0), "multisampled");
    let mut gpu = new_gpu(p, &tex);
    refused(&mut gpu, &load(Op::Ld2dms, 0), "single-sampled");
    // A 1D multisampled surface (SURFTYPE_1D, DW0 31:29 = 0): ld2dms wants
    // SURFTYPE_2D (003 lines 79644-79645).
    let mut dw = ms_state(p, &tex, 2, false, false);
    dw[0] &= !(7 << 29);
    let mut gpu = new_gpu_state(p, &dw);
    refused(&mut gpu, &load(Op::Ld2dms, 0), "SURFTYPE_2D");
    // SURFTYPE_NULL (7) reads zeros.
    dw[0] |= 7 << 29;
    let mut gpu = new_gpu_state(p, &dw);
    assert_eq!(ok(&mut gpu, &load(Op::Ld2dms, 0))[0], [0; 4]);
}
