//! The R6xx/R7xx blit shaders of Linux's radeon driver ("same for r6xx/r7xx"):
//! `r6xx_vs` and `r6xx_ps` in drivers/gpu/drm/radeon/r600_blit_shaders.c (little-endian
//! variant). The vertex shader fetches one 16-byte vertex and exports position and one
//! parameter; the pixel shader samples a texture and exports colour.

use baregpu_r700::cf::{CfInst, CfOp, ExportOp, ExportWord1};
use baregpu_r700::program::{Clause, Program};

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

const R6XX_VS: [u32; 12] = [
    0x0000_0004,
    0x8100_0000,
    0x0000_203c,
    0x9400_0b08,
    0x0000_4000,
    0x1420_0b1a,
    0,
    0,
    0x3c00_0000,
    0x68cd_1000,
    0x0008_0000,
    0,
];
const R6XX_PS: [u32; 8] = [
    0x0000_0002,
    0x8080_0000,
    0,
    0x9420_0688,
    0x0000_0010,
    0x000d_1000,
    0xb080_0000,
    0,
];

#[test]
fn blit_vertex_shader() {
    let b = bytes(&R6XX_VS);
    let p = Program::decode(&b).unwrap();
    // Linux's hand-written shaders run on hardware: the validator accepts them.
    assert_eq!(baregpu_r700::validate::validate(&p), vec![]);
    assert_eq!(p.encode(), b);
    assert_eq!(p.cf.len(), 3);
    // VTX clause at slot 4 (byte 32), one instruction.
    let CfInst::Word(w) = p.cf[0] else {
        panic!("{:?}", p.cf[0])
    };
    assert_eq!((w.op, w.addr, w.count, w.barrier), (CfOp::Vtx, 4, 0, true));
    // EXPORT_DONE POS 60 from R0.xy01, then EXPORT_DONE PARAM 0 from R0.zw01 with EOP.
    let expected = [(60, 1, [0, 1, 4, 5], false), (0, 2, [2, 3, 4, 5], true)];
    for (inst, (base, kind, sel, eop)) in p.cf[1..].iter().zip(expected) {
        let CfInst::Export(e) = inst else {
            panic!("{inst:?}")
        };
        assert_eq!(e.op, ExportOp::ExportDone);
        assert_eq!(
            (e.array_base, e.kind, e.rw_gpr, e.end_of_program),
            (base, kind, 0, eop)
        );
        assert_eq!(e.word1, ExportWord1::Swiz { sel });
    }
    // FETCH R0.xyzw <- buffer 0 at index R0.x, FMT_32_32_32_32_FLOAT (35), mega-fetch of 16 bytes.
    let Some(Clause::Vtx(v)) = p.clauses.get(&4) else {
        panic!("{:?}", p.clauses)
    };
    let v = v[0];
    assert_eq!(
        (v.op, v.buffer_id, v.src_gpr, v.src_sel_x, v.dst_or_semantic),
        (0, 0, 0, 0, 0)
    );
    assert_eq!((v.mega_fetch_count, v.mega_fetch, v.offset), (15, true, 0));
    assert_eq!(
        (v.data_format, v.num_format_all, v.format_comp_all),
        (35, 2, true)
    );
    assert_eq!(v.dst_sel, [0, 1, 2, 3]);
}

#[test]
fn blit_pixel_shader() {
    let b = bytes(&R6XX_PS);
    let p = Program::decode(&b).unwrap();
    // Linux's hand-written shaders run on hardware: the validator accepts them.
    assert_eq!(baregpu_r700::validate::validate(&p), vec![]);
    assert_eq!(p.encode(), b);
    // TEX clause at slot 2 (byte 16), one instruction.
    let CfInst::Word(w) = p.cf[0] else {
        panic!("{:?}", p.cf[0])
    };
    assert_eq!((w.op, w.addr, w.count, w.barrier), (CfOp::Tex, 2, 0, true));
    // EXPORT_DONE PIXEL MRT0 from R0.xyzw, EOP.
    let CfInst::Export(e) = p.cf[1] else {
        panic!("{:?}", p.cf[1])
    };
    assert_eq!(
        (e.op, e.array_base, e.kind, e.rw_gpr, e.end_of_program),
        (ExportOp::ExportDone, 0, 0, 0, true)
    );
    assert_eq!(e.word1, ExportWord1::Swiz { sel: [0, 1, 2, 3] });
    // SAMPLE R0.xyzw, R0.xy01, resource 0, sampler 0.
    let Some(Clause::Tex(t)) = p.clauses.get(&2) else {
        panic!("{:?}", p.clauses)
    };
    let t = t[0];
    assert_eq!(
        (t.op, t.resource_id, t.sampler_id, t.src_gpr, t.dst_gpr),
        (16, 0, 0, 0, 0)
    );
    assert_eq!((t.src_sel, t.dst_sel), ([0, 1, 4, 5], [0, 1, 2, 3]));
    assert_eq!(
        baregpu_r700::llvm_text::program(&p),
        [
            "TEX 0 @2",
            "EXPORT T0.XYZW",
            "Fetch clause starting at 2:",
            "  TEX_SAMPLE T0.XYZW, T0.XY01 RID:0 SID:0 CT:UUUU"
        ]
    );
}

/// The blit vertex shader on the emulator: each thread is a vertex (R0.x = vertex id, as
/// Mesa's VS gets it), fetches its 16-byte vertex and exports POS60 = (x, y, 0, 1) and
/// PARAM0 = (z, w, 0, 1); checked against the host's vertex data.
#[test]
fn blit_vertex_shader_runs() {
    use baregpu_r700::emu::{self, Grid, Options, VtxResource};
    let verts: Vec<[f32; 4]> = (0..6)
        .map(|i| {
            [
                i as f32 * 1.5,
                -(i as f32),
                0.25 * i as f32,
                100.0 + i as f32,
            ]
        })
        .collect();
    let mut vb: Vec<u8> = verts
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let mut pos = vec![0u8; 6 * 64 * 16];
    let mut param = vec![0u8; 6 * 64 * 16];
    let opts = Options {
        vtx_resources: vec![(
            0,
            VtxResource::buffer(emu::address(0, 0), vb.len() as u32, 16, 35, 0),
        )],
        export_base: [None, Some(emu::address(1, 0)), Some(emu::address(2, 0))],
        ..Options::default()
    };
    let report = emu::run(
        &bytes(&R6XX_VS),
        &mut [&mut vb, &mut pos, &mut param],
        Grid {
            groups: [1, 1, 1],
            group_size: [6, 1, 1],
        },
        &opts,
    )
    .unwrap();
    assert_eq!(report.dropped_writes, 0);
    let vec4 = |buf: &[u8], t: usize, n: usize| -> [f32; 4] {
        let at = (t * 64 + n) * 16;
        core::array::from_fn(|c| {
            f32::from_le_bytes(buf[at + 4 * c..at + 4 * c + 4].try_into().unwrap())
        })
    };
    for (t, v) in verts.iter().enumerate() {
        assert_eq!(
            vec4(&pos, t, 60),
            [v[0], v[1], 0.0, 1.0],
            "vertex {t} position"
        );
        assert_eq!(
            vec4(&param, t, 0),
            [v[2], v[3], 0.0, 1.0],
            "vertex {t} parameter"
        );
    }
}

/// The blit pixel shader on the emulator: R0 holds each pixel's unnormalised texture
/// coordinate (loaded as an input, as SPI would interpolate it); it samples (point) and
/// exports MRT0; checked against the host's texel.
#[test]
fn blit_pixel_shader_runs() {
    use baregpu_r700::emu::{self, Grid, Inputs, Options, Sampler, TexResource};
    let (w, h) = (8u32, 4u32);
    let texel = |x: u32, y: u32| [x as f32, y as f32, (x * y) as f32 * 0.5, 1.0];
    let mut tex = Vec::new();
    for y in 0..h {
        for x in 0..w {
            tex.extend(texel(x, y).iter().flat_map(|f| f.to_le_bytes()));
        }
    }
    let pixels: Vec<(u32, u32)> = (0..20).map(|i| ((i * 3) % w, (i * 5) % h)).collect();
    let mut coords: Vec<u8> = pixels
        .iter()
        .flat_map(|&(x, y)| [x as f32 + 0.5, y as f32 + 0.25, 0.0, 0.0])
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let mut colour = vec![0u8; pixels.len() * 64 * 16];
    let opts = Options {
        tex_resources: vec![(
            0,
            TexResource::linear(1, emu::address(0, 0), [w, h], w, 35, 0, false),
        )],
        samplers: vec![(0, Sampler::point(2))],
        inputs: Some(Inputs {
            address: emu::address(1, 0),
            first: 0,
            count: 1,
        }),
        export_base: [Some(emu::address(2, 0)), None, None],
        ..Options::default()
    };
    emu::run(
        &bytes(&R6XX_PS),
        &mut [&mut tex, &mut coords, &mut colour],
        Grid {
            groups: [1, 1, 1],
            group_size: [pixels.len() as u32, 1, 1],
        },
        &opts,
    )
    .unwrap();
    for (t, &(x, y)) in pixels.iter().enumerate() {
        let at = t * 64 * 16;
        let got: [f32; 4] = core::array::from_fn(|c| {
            f32::from_le_bytes(colour[at + 4 * c..at + 4 * c + 4].try_into().unwrap())
        });
        assert_eq!(got, texel(x, y), "pixel {t} at ({x}, {y})");
    }
}
