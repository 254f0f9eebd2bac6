//! A textured-rectangle copy as Linux's Gen6 userspace writes one (the
//! packet sequence of intel-gpu-tools' `gen6_render_copyfunc`: one batch
//! object holding commands, state, the pixel shader and the vertices; the
//! VS, GS and clipper passed through; RECTLIST in screen coordinates with
//! R16G16_SSCALED positions; a SIMD16 pixel shader that interpolates the
//! texture coordinate with `pln`, samples the source and writes the
//! colour headerless), run through `baregpu replay`, the destination
//! compared texel for texel with the source rectangle and written as a PNG.
//!
//! The commands are written here as raw dwords from the manual's headers
//! (notes seed-003 §4.1) so that nothing of the driver's 3D code is
//! involved; the indirect state is packed with the hal's structures. The
//! shader is this project's own assembly.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use baregpu::hal::Packet;
use baregpu::hal::gen6::structs as st;

fn baregpu(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(args)
        .output()
        .expect("run baregpu")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "baregpu-cli-rendercopy-{}-{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// The batch object, dword-addressed, with state packed at byte offsets.
struct Bo {
    dw: Vec<u32>,
}

impl Bo {
    fn put<P: Packet>(&mut self, at: usize, p: &P) {
        assert_eq!(at % 4, 0);
        let mut out = vec![0; p.dwords()];
        p.pack(&mut out).expect("fits");
        self.dw[at / 4..at / 4 + out.len()].copy_from_slice(&out);
    }
    fn bytes(&mut self, at: usize, b: &[u8]) {
        for (k, c) in b.chunks(4).enumerate() {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            self.dw[at / 4 + k] = u32::from_le_bytes(w);
        }
    }
}

/// The pixel shader: texture coordinate (attribute 0, setup data in r6)
/// interpolated per pixel from the perspective barycentrics (r2-r5),
/// sampled SIMD16 from binding 1 with sampler 0, written to binding 0.
const SHADER: &str = "
pln (8|M0) m2<1>:f r6.0<0;1,0>:f r2<8;8,1>:f
pln (8|M0) m3<1>:f r6.0<0;1,0>:f r4<8;8,1>:f
pln (8|M0) m4<1>:f r6.4<0;1,0>:f r2<8;8,1>:f
pln (8|M0) m5<1>:f r6.4<0;1,0>:f r4<8;8,1>:f
(W) mov (1|M0) r0.2<1>:ud 0x0:ud
mov (8|M0) m1<1>:ud r0<8;8,1>:ud
send (16|M0) r14:uw m1 sampler.sample(bti=1, sampler=0, simd=16) mlen=5 rlen=8 hdr
mov (16|M0) m2<1>:f r14<8;8,1>:f
mov (16|M0) m4<1>:f r16<8;8,1>:f
mov (16|M0) m6<1>:f r18<8;8,1>:f
mov (16|M0) m8<1>:f r20<8;8,1>:f
send (16|M0) null:ud m2 rc.rt_write(bti=0, mode=simd16, last) mlen=8 rlen=0 {EOT}
";

const BATCH: u64 = 0x10000;
const SRC: u64 = 0x40000;
const DST: u64 = 0x80000;
const W: u32 = 48;
const H: u32 = 20;

/// The batch of a copy of the `w` x `h` rectangle at (`sx`, `sy`) of the
/// source to (`dx`, `dy`) of the destination, both W x H B8G8R8A8.
fn rendercopy(kernel: &[u8], sx: u32, sy: u32, w: u32, h: u32, dx: u32, dy: u32) -> Vec<u8> {
    let mut bo = Bo { dw: vec![0; 4096] };
    // State from byte 1024: 64 zero bytes (the depth-stencil and colour-
    // calculator state point there), the binding table, the surfaces, the
    // kernel, the sampler, the CC viewport, the blend state.
    let mut at = 1024 + 64;
    let table = at;
    at += 32;
    let surface = |base: u64| st::SurfaceState {
        surface_type: st::SurfaceState::SURFACE_TYPE_SURFTYPE_2D,
        surface_format: 0x0c0,
        data_return_format: st::SurfaceState::DATA_RETURN_FORMAT_DATA_RETURN_FLOAT32,
        surface_base_address: base,
        width: W - 1,
        height: H - 1,
        surface_pitch: W * 4 - 1,
        ..Default::default()
    };
    let (dst_ss, src_ss) = (at, at + 32);
    bo.put(dst_ss, &surface(DST));
    bo.put(src_ss, &surface(SRC));
    bo.dw[table / 4] = dst_ss as u32;
    bo.dw[table / 4 + 1] = src_ss as u32;
    at += 64;
    let ksp = at.next_multiple_of(64);
    bo.bytes(ksp, kernel);
    at = (ksp + kernel.len()).next_multiple_of(32);
    let sampler = at;
    let clamp_border = st::SamplerState::TCX_ADDRESS_CONTROL_MODE_TEXCOORDMODE_CLAMP_BORDER;
    bo.put(
        sampler,
        &st::SamplerState {
            lod_preclamp_enable: 1,
            texture_border_color_mode: st::SamplerState::TEXTURE_BORDER_COLOR_MODE_DX9,
            tcx_address_control_mode: clamp_border,
            tcy_address_control_mode: clamp_border,
            tcz_address_control_mode: clamp_border,
            ..Default::default()
        },
    );
    at += 32;
    let cc_vp = at;
    bo.put(
        cc_vp,
        &st::CcViewport {
            minimum_depth: -1e35,
            maximum_depth: 1e35,
        },
    );
    at = (at + 32).next_multiple_of(64);
    let blend = at;
    bo.put(
        blend,
        &st::BlendState {
            color_buffer_blend_enable: true,
            source_blend_factor: 0x01,
            destination_blend_factor: 0x11,
            color_blend_function: 0,
            pre_blend_color_clamp_enable: true,
            post_blend_color_clamp_enable: true,
            ..Default::default()
        },
    );

    let modify = 1;
    let base = BATCH as u32 | modify;
    let mut c: Vec<u32> = vec![
        0x6904_0000, // PIPELINE_SELECT 3D
        0x790d_0001,
        0,
        0, // 3DSTATE_MULTISAMPLE: centre, one sample
        0x7818_0000,
        1, // 3DSTATE_SAMPLE_MASK
        // STATE_BASE_ADDRESS: general (unmodified), surface, dynamic,
        // indirect, instruction; upper bounds disabled.
        0x6101_0008,
        0,
        base,
        base,
        0,
        base,
        0,
        modify,
        0,
        modify,
        0x6102_0000,
        0, // STATE_SIP
        0x7805_0001,
        24,
        0, // 3DSTATE_URB: 24 VS entries of 1024 bits, no GS
        0x780d_1002,
        0,
        0,
        cc_vp as u32, // 3DSTATE_VIEWPORT_STATE_POINTERS (CC)
        0x7815_0003,
        0,
        0,
        0,
        0, // 3DSTATE_CONSTANT_VS
        0x7810_0004,
        0,
        0,
        0,
        0,
        0, // 3DSTATE_VS: pass-through
        0x7816_0003,
        0,
        0,
        0,
        0, // 3DSTATE_CONSTANT_GS
        0x7811_0005,
        0,
        0,
        0,
        0,
        0,
        0, // 3DSTATE_GS: pass-through
        0x7812_0002,
        0,
        0,
        0, // 3DSTATE_CLIP: pass-through
        0x7817_0003,
        0,
        0,
        0,
        0, // 3DSTATE_CONSTANT_PS
        0x7905_0005,
        7 << 29 | 1 << 18,
        0,
        0,
        0,
        0,
        0, // NULL depth buffer, D32_FLOAT
        0x7910_0000,
        0, // 3DSTATE_CLEAR_PARAMS
        0x7900_0002,
        0,
        (H - 1) << 16 | (W - 1),
        0, // 3DSTATE_DRAWING_RECTANGLE
        0x780e_0002,
        blend as u32 | 1,
        1024 | 1,
        1024 | 1, // 3DSTATE_CC_STATE_POINTERS
        0x7802_1002,
        0,
        0,
        sampler as u32, // 3DSTATE_SAMPLER_STATE_POINTERS (PS)
    ];
    // 3DSTATE_SF: one output, read length 1 at offset 1, no viewport
    // transform, CULL_NONE, triangle fans provoke from vertex 2.
    c.extend([0x7813_0012, 1 << 22 | 1 << 11 | 1 << 4, 0, 1 << 29, 2 << 25]);
    c.extend([0; 15]);
    // 3DSTATE_WM: the kernel, one sampler, two binding entries, setup data
    // from r6, 40 threads, SIMD16, one attribute, perspective pixel
    // barycentrics.
    c.extend([
        0x7814_0007,
        ksp as u32,
        1 << 27 | 2 << 18,
        0,
        6 << 16,
        39 << 25 | 1 << 19 | 1 << 1,
        1 << 20 | 1 << 10,
        0,
        0,
    ]);
    // 3DSTATE_VERTEX_ELEMENTS: the VUE header (zeros), x/y as
    // R16G16_SSCALED with z = w = 1.0, u/v as R32G32_FLOAT.
    c.extend([
        0x7809_0005,
        1 << 25,
        2 << 28 | 2 << 24 | 2 << 20 | 2 << 16,
        1 << 25 | 0x0f6 << 16,
        1 << 28 | 1 << 24 | 3 << 20 | 3 << 16,
        1 << 25 | 0x085 << 16 | 4,
        1 << 28 | 1 << 24 | 2 << 20 | 2 << 16,
    ]);
    c.extend([0x7801_1002, 0, 0, table as u32]); // 3DSTATE_BINDING_TABLE_POINTERS (PS)
    // 3DSTATE_VERTEX_BUFFERS: buffer 0 is the batch object, 12-byte pitch.
    let end = BATCH as u32 + 4096 * 4 - 1;
    c.extend([0x7808_0003, 12, BATCH as u32, end, 0]);
    // 3DPRIMITIVE: RECTLIST, three vertices from the first vertex after
    // the batch end.
    let prim = c.len();
    c.extend([0x7b00_0000 | 0xf << 10 | 4, 3, 0, 1, 0, 0]);
    c.push(0x0500_0000); // MI_BATCH_BUFFER_END
    if c.len() % 2 == 1 {
        c.push(0);
    }
    let first = (c.len() * 4).div_ceil(12);
    c[prim + 2] = first as u32;
    bo.dw[..c.len()].copy_from_slice(&c);
    assert!(first * 12 + 36 <= 1024, "vertices before the state");
    let vertex = |x: u32, y: u32, u: u32, v: u32| -> Vec<u8> {
        let mut b = (y << 16 | x).to_le_bytes().to_vec();
        b.extend((u as f32 / W as f32).to_le_bytes());
        b.extend((v as f32 / H as f32).to_le_bytes());
        b
    };
    let mut verts = vertex(dx + w, dy + h, sx + w, sy + h);
    verts.extend(vertex(dx, dy + h, sx, sy + h));
    verts.extend(vertex(dx, dy, sx, sy));
    bo.bytes(first * 12, &verts);
    bo.dw.iter().flat_map(|d| d.to_le_bytes()).collect()
}

/// A batch builder: kernel, source x/y, width, height, destination x/y.
type Build = fn(&[u8], u32, u32, u32, u32, u32, u32) -> Vec<u8>;

#[test]
fn a_rendercopy_batch_copies_the_rectangle_exactly() {
    copy_through_replay("gen6", SHADER, rendercopy);
}

#[test]
fn a_gen7_rendercopy_batch_copies_the_rectangle_exactly() {
    copy_through_replay("gen7", SHADER_GEN7, rendercopy_gen7);
}

/// Assembles `shader` for `generation`, replays the batch `build` makes
/// and compares the destination texel for texel.
fn copy_through_replay(generation: &str, shader: &str, build: Build) {
    let dir = scratch(generation);
    let asm = dir.join("ps.asm");
    std::fs::write(&asm, shader).unwrap();
    let bin = dir.join("ps.bin");
    let o = baregpu(&["asm", "--gen", generation, &s(&asm), "-o", &s(&bin)].map(String::from));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let kernel = std::fs::read(&bin).unwrap();

    // Source: every texel different; destination: a fill that must survive
    // outside the rectangle.
    let src: Vec<u8> = (0..W * H)
        .flat_map(|i| {
            [
                i as u8,
                (i >> 8) as u8 ^ 0x5a,
                (i * 3) as u8,
                0xff - i as u8,
            ]
        })
        .collect();
    let dst_fill = vec![0x11u8; (W * H * 4) as usize];
    let (sx, sy, w, h, dx, dy) = (5, 3, 21, 9, 17, 8);
    let batch = build(&kernel, sx, sy, w, h, dx, dy);
    let (bf, sf, df) = (
        dir.join("batch.bin"),
        dir.join("src.bin"),
        dir.join("dst.bin"),
    );
    std::fs::write(&bf, &batch).unwrap();
    std::fs::write(&sf, &src).unwrap();
    std::fs::write(&df, &dst_fill).unwrap();
    let out = dir.join("out.bin");
    let png = dir.join("out.png");
    let o = baregpu(
        &[
            "replay".into(),
            "--gen".into(),
            generation.into(),
            "--mem".into(),
            format!("{BATCH:#x}={}", s(&bf)),
            "--mem".into(),
            format!("{SRC:#x}={}", s(&sf)),
            "--mem".into(),
            format!("{DST:#x}={}", s(&df)),
            "--batch".into(),
            format!("{BATCH:#x}"),
            "--dump".into(),
            format!("{DST:#x}:{}={}", W * H * 4, s(&out)),
            "--png".into(),
            format!("{DST:#x}:{W}x{H}:b8g8r8a8={}", s(&png)),
        ][..],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got = std::fs::read(&out).unwrap();
    for y in 0..H {
        for x in 0..W {
            let at = ((y * W + x) * 4) as usize;
            let inside = (dx..dx + w).contains(&x) && (dy..dy + h).contains(&y);
            let want = if inside {
                let s_at = (((y - dy + sy) * W + (x - dx + sx)) * 4) as usize;
                &src[s_at..s_at + 4]
            } else {
                &dst_fill[at..at + 4]
            };
            assert_eq!(
                &got[at..at + 4],
                want,
                "{generation}: pixel ({x}, {y}), inside {inside}"
            );
        }
    }
    assert!(std::fs::metadata(&png).unwrap().len() > 0);
    std::fs::remove_dir_all(&dir).ok();
}

/// The Ivy Bridge pixel shader: as [`SHADER`], with Gen7's message
/// registers in the GRF (an EOT send's payload must be in r112-r127) and
/// integer texel coordinates (the sampler uses non-normalized
/// coordinates, as in igt's Gen7 copy), SIMD16 `pln` from the setup data
/// in r6.
const SHADER_GEN7: &str = "
pln (16|M0) r113.0<1>:f r6.0<0;1,0>:f r2.0<8;8,1>:f
pln (16|M0) r115.0<1>:f r6.4<0;1,0>:f r2.0<8;8,1>:f
send (16|M0) r12:uw r113 sampler.sample(bti=1, sampler=0, simd=16) mlen=4 rlen=8
mov (16|M0) r113.0<1>:f r12.0<8;8,1>:f
mov (16|M0) r115.0<1>:f r14.0<8;8,1>:f
mov (16|M0) r117.0<1>:f r16.0<8;8,1>:f
mov (16|M0) r119.0<1>:f r18.0<8;8,1>:f
send (16|M0) null:ud r113 rc.rt_write(bti=0, mode=simd16, last) mlen=8 rlen=0 {EOT}
";

/// The Gen7 form, in the order and with the values of intel-gpu-tools'
/// `gen7_render_copyfunc` (lib/rendercopy_gen7.c; opcodes from
/// lib/gen7_render.h): commands from byte 0, state from byte 2048 of the
/// same object (its surface, dynamic and instruction base), VS, HS, TE,
/// DS, GS and stream output off, no depth buffer, no depth-stencil or
/// colour-calculator pointers at all, RECTLIST vertices of four signed
/// 16-bit values (x, y, s, t) with texel coordinates.
fn rendercopy_gen7(kernel: &[u8], sx: u32, sy: u32, w: u32, h: u32, dx: u32, dy: u32) -> Vec<u8> {
    use baregpu::hal::gen7::structs as s7;
    let mut bo = Bo { dw: vec![0; 4096] };
    let mut at: usize = 2048;
    let mut take = |size: usize, align: usize| {
        let here = at.next_multiple_of(align);
        at = here + size;
        here
    };
    let surface = |base: u64| s7::RenderSurfaceState {
        surface_type: s7::RenderSurfaceState::SURFACE_TYPE_SURFTYPE_2D,
        surface_format: 192, // B8G8R8A8_UNORM
        surface_base_address: base,
        width: W - 1,
        height: H - 1,
        surface_pitch: W * 4 - 1,
        ..Default::default()
    };
    // 3DSTATE_BLEND_STATE_POINTERS, VIEWPORT_STATE_POINTERS_CC.
    let blend = take(8, 64);
    bo.put(
        blend,
        &s7::BlendState {
            source_blend_factor: 0x01,
            destination_blend_factor: 0x11,
            color_blend_function: 0,
            pre_blend_color_clamp_enable: true,
            post_blend_color_clamp_enable: true,
            ..Default::default()
        },
    );
    let cc_vp = take(8, 32);
    bo.put(
        cc_vp,
        &s7::CcViewport {
            minimum_depth: -1e35,
            maximum_depth: 1e35,
        },
    );
    let sampler = take(16, 32);
    bo.put(
        sampler,
        &s7::SamplerState {
            min_mode_filter: s7::SamplerState::MIN_MODE_FILTER_MAPFILTER_NEAREST,
            mag_mode_filter: s7::SamplerState::MAG_MODE_FILTER_MAPFILTER_NEAREST,
            tcx_address_control_mode: s7::SamplerState::TCX_ADDRESS_CONTROL_MODE_TCM_CLAMP,
            tcy_address_control_mode: s7::SamplerState::TCY_ADDRESS_CONTROL_MODE_TCM_CLAMP,
            tcz_address_control_mode: s7::SamplerState::TCZ_ADDRESS_CONTROL_MODE_TCM_CLAMP,
            non_normalized_coordinate_enable: true,
            ..Default::default()
        },
    );
    let ksp = take(kernel.len(), 64);
    bo.bytes(ksp, kernel);
    // The vertices: (x, y, s, t) of the three RECTLIST corners.
    let vb = take(24, 8);
    let corners = [
        [dx + w, dy + h, sx + w, sy + h],
        [dx, dy + h, sx, sy + h],
        [dx, dy, sx, sy],
    ];
    let verts: Vec<u8> = corners
        .iter()
        .flatten()
        .flat_map(|&v| (v as u16).to_le_bytes())
        .collect();
    bo.bytes(vb, &verts);
    let table = take(8, 32);
    let dst_ss = take(32, 32);
    bo.put(dst_ss, &surface(DST));
    let src_ss = take(32, 32);
    bo.put(src_ss, &surface(SRC));
    bo.dw[table / 4] = dst_ss as u32;
    bo.dw[table / 4 + 1] = src_ss as u32;

    let modify = 1;
    let base = BATCH as u32 | modify;
    let mut c: Vec<u32> = vec![
        0x6904_0000, // PIPELINE_SELECT 3D
        // STATE_BASE_ADDRESS: surface, dynamic and instruction state in
        // the object; upper bounds disabled.
        0x6101_0008,
        0,
        base,
        base,
        0,
        base,
        0,
        modify,
        0,
        modify,
        0x790d_0002, // 3DSTATE_MULTISAMPLE: pixel centre, one sample
        0,
        0,
        0,
        0x7818_0000, // 3DSTATE_SAMPLE_MASK
        1,
        0x7916_0000, // 3DSTATE_PUSH_CONSTANT_ALLOC_PS: 8 KiB
        8,
        // 3DSTATE_URB_VS/HS/DS/GS: 64 VS entries of two 512-bit rows
        // from 8 KiB in; HS, DS and GS none.
        0x7830_0000,
        1 << 25 | 1 << 16 | 64,
        0x7831_0000,
        2 << 25,
        0x7832_0000,
        2 << 25,
        0x7833_0000,
        1 << 25,
        0x7810_0004, // 3DSTATE_VS: no kernel, pass-through
        0,
        0,
        0,
        0,
        0,
        0x781b_0005, // 3DSTATE_HS
        0,
        0,
        0,
        0,
        0,
        0,
        0x781c_0002, // 3DSTATE_TE
        0,
        0,
        0,
        0x781d_0004, // 3DSTATE_DS
        0,
        0,
        0,
        0,
        0,
        0x7811_0005, // 3DSTATE_GS
        0,
        0,
        0,
        0,
        0,
        0,
        0x7812_0002, // 3DSTATE_CLIP: pass-through
        0,
        0,
        0,
        0x7821_0000, // 3DSTATE_VIEWPORT_STATE_POINTERS_SF_CLIP
        0,
        // 3DSTATE_SF: CULL_NONE, triangle fans provoke from vertex 2.
        0x7813_0005,
        0,
        1 << 29,
        2 << 25,
        0,
        0,
        0,
        // 3DSTATE_WM: thread dispatch, perspective pixel barycentrics.
        0x7814_0001,
        1 << 29 | 1 << 11,
        0,
        0x781e_0001, // 3DSTATE_STREAMOUT: off
        0,
        0,
        // 3DSTATE_DEPTH_BUFFER: SURFTYPE_NULL, D32_FLOAT.
        0x7805_0005,
        7 << 29 | 1 << 18,
        0,
        0,
        0,
        0,
        0,
        0x7804_0001, // 3DSTATE_CLEAR_PARAMS
        0,
        0,
        0x7824_0000, // 3DSTATE_BLEND_STATE_POINTERS
        blend as u32,
        0x7823_0000, // 3DSTATE_VIEWPORT_STATE_POINTERS_CC
        cc_vp as u32,
        0x782f_0000, // 3DSTATE_SAMPLER_STATE_POINTERS_PS
        sampler as u32,
    ];
    // 3DSTATE_SBE: one output, read length 1 at offset 1.
    c.extend([0x781f_000c, 1 << 22 | 1 << 11 | 1 << 4]);
    c.extend([0; 12]);
    // 3DSTATE_PS: the kernel, one sampler, two binding entries, 41
    // threads, SIMD16, attributes, setup data from r6.
    c.extend([
        0x7820_0006,
        ksp as u32,
        1 << 27 | 2 << 18,
        0,
        40 << 24 | 1 << 10 | 1 << 1,
        6 << 16,
        0,
        0,
    ]);
    // 3DSTATE_VERTEX_ELEMENTS: the VUE header (zeros), x/y and s/t as
    // R16G16_SSCALED with z = 0 and w = 1.0.
    c.extend([
        0x7809_0005,
        1 << 25,
        2 << 28 | 2 << 24 | 2 << 20 | 2 << 16,
        1 << 25 | 0x0f6 << 16,
        1 << 28 | 1 << 24 | 2 << 20 | 3 << 16,
        1 << 25 | 0x0f6 << 16 | 4,
        1 << 28 | 1 << 24 | 2 << 20 | 3 << 16,
    ]);
    // 3DSTATE_VERTEX_BUFFERS: buffer 0 at the vertices, address modify
    // enable, 8-byte pitch, no end (igt writes ~0).
    c.extend([0x7808_0003, 1 << 14 | 8, BATCH as u32 + vb as u32, !0, 0]);
    c.extend([0x782a_0000, table as u32]); // 3DSTATE_BINDING_TABLE_POINTERS_PS
    c.extend([0x7900_0002, 0, (H - 1) << 16 | (W - 1), 0]); // DRAWING_RECTANGLE
    // 3DPRIMITIVE: sequential RECTLIST, three vertices, one instance.
    c.extend([0x7b00_0005, 0xf, 3, 0, 1, 0, 0]);
    c.push(0x0500_0000); // MI_BATCH_BUFFER_END
    assert!(c.len() * 4 <= 2048, "commands before the state");
    bo.dw[..c.len()].copy_from_slice(&c);
    bo.dw.iter().flat_map(|d| d.to_le_bytes()).collect()
}
