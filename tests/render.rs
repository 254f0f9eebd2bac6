//! The 3D API's batches on Sandy Bridge, read back the way the hardware
//! reads them (commands through the hal's decoder, indirect state through
//! the GGTT): the packet order of the manual's sequence, the fields each
//! packet carries for the draw, and the draws the API refuses.

use baregpu::compute::{ComputeError, Format, KernelDesc, Tiling};
use baregpu::hal::Generation;
use baregpu::render::*;

mod compute_common;
use compute_common::*;

/// Three vertices: position (x, y, z, w) then a colour, 32 bytes each.
fn triangle() -> Vec<u8> {
    let v: [[f32; 8]; 3] = [
        [-1.0, -1.0, 0.5, 1.0, 1.0, 0.0, 0.0, 1.0],
        [1.0, -1.0, 0.5, 1.0, 0.0, 1.0, 0.0, 1.0],
        [0.0, 1.0, 0.5, 1.0, 0.0, 0.0, 1.0, 1.0],
    ];
    v.iter().flatten().flat_map(|f| f.to_le_bytes()).collect()
}

const ELEMENTS: [VertexElement; 2] = [
    VertexElement::new(0, 0, VertexFormat::R32G32B32A32Float),
    VertexElement::new(0, 16, VertexFormat::R32G32B32A32Float),
];

/// Records one Sandy Bridge draw of `triangle()` into a 64x32 target and
/// hands the decoded commands to `check`; the error if it is refused.
fn record(
    tweak: impl FnOnce(&mut Draw<'_>),
    check: impl FnOnce(&mut HostGpu<'_>, &baregpu::platform::host::HostPlatform, &[Cmd]),
) -> Result<(), ComputeError> {
    record_on(Generation::Gen6, None, tweak, check)
}

/// [`record`] on `generation`.
fn record_on(
    generation: Generation,
    depth: Option<DepthFormat>,
    tweak: impl FnOnce(&mut Draw<'_>),
    check: impl FnOnce(&mut HostGpu<'_>, &baregpu::platform::host::HostPlatform, &[Cmd]),
) -> Result<(), ComputeError> {
    let mut out = Ok(());
    with_gpu(generation, |gpu, p| {
        let mut r = Renderer::new(gpu).unwrap();
        let target = r
            .compute()
            .create_surface_2d(gpu, 64, 32, Format::B8G8R8A8Unorm, Tiling::Linear)
            .unwrap();
        let vb = r.compute().upload_buffer(gpu, &triangle()).unwrap();
        let z = depth.map(|f| r.create_depth_buffer(gpu, 64, 32, f).unwrap());
        let bin = eot_kernel(generation);
        let ps = r
            .compute_mut()
            .load_kernel(gpu, &KernelDesc::new(&bin))
            .unwrap();
        let buffers = [VertexBuffer {
            buffer: &vb,
            pitch: 32,
            step: Step::PerVertex,
        }];
        let mut d = Draw {
            target: &target,
            depth: z.as_ref(),
            vertex_buffers: &buffers,
            elements: &ELEMENTS,
            index: None,
            topology: Topology::TriangleList,
            first_vertex: 0,
            vertex_count: 3,
            first_instance: 0,
            instance_count: 1,
            base_vertex: 0,
            vs: None,
            gs: None,
            stream_output: None,
            ps: PixelShader {
                simd8: None,
                simd16: Some(PixelKernel {
                    kernel: &ps,
                    grf_start: 6,
                }),
                barycentrics: Barycentrics::PERSPECTIVE_PIXEL,
                uses_source_depth: false,
                uses_source_w: false,
                kills_pixels: false,
                computes_depth: false,
                constants: &[],
            },
            attributes: 1,
            flat: 0,
            viewport: Viewport {
                x: 0.0,
                y: 0.0,
                width: 64.0,
                height: 32.0,
                min_depth: 0.0,
                max_depth: 1.0,
            },
            raster: Raster::default(),
            blend: Blend::default(),
            depth_stencil: DepthStencil::default(),
            textures: &[],
            samplers: &[],
        };
        tweak(&mut d);
        match r.record(gpu, &d) {
            Ok(batch) => {
                let cmds = commands(generation, &batch);
                check(gpu, p, &cmds);
            }
            Err(e) => out = Err(e),
        }
    });
    out
}

#[test]
fn a_draw_follows_the_manuals_sequence() {
    record(
        |_| {},
        |_, _, cmds| {
            let mut want = vec!["PIPE_CONTROL"; 4];
            want.extend([
                "PIPELINE_SELECT",
                "STATE_BASE_ADDRESS",
                "PIPE_CONTROL",
                "3DSTATE_MULTISAMPLE",
                "3DSTATE_SAMPLE_MASK",
                "3DSTATE_URB",
                "3DSTATE_VIEWPORT_STATE_POINTERS",
                "3DSTATE_CC_STATE_POINTERS",
                "3DSTATE_BINDING_TABLE_POINTERS",
                "3DSTATE_CONSTANT_VS",
                "3DSTATE_VS",
                "3DSTATE_CONSTANT_GS",
                "3DSTATE_GS",
                "3DSTATE_CLIP",
                "3DSTATE_SF",
                "3DSTATE_CONSTANT_PS",
                "3DSTATE_WM",
                "3DSTATE_DEPTH_BUFFER",
                "3DSTATE_CLEAR_PARAMS",
                "3DSTATE_DRAWING_RECTANGLE",
                "3DSTATE_VERTEX_BUFFERS",
                "3DSTATE_VERTEX_ELEMENTS",
                "3DPRIMITIVE",
            ]);
            want.extend(["PIPE_CONTROL"; 3]);
            want.push("MI_BATCH_BUFFER_END");
            assert_eq!(names(cmds), want);
        },
    )
    .unwrap();
}

#[test]
fn the_packets_carry_the_draw() {
    record(
        |_| {},
        |gpu, p, cmds| {
            // No vertex shader: vertex fetch writes the header, then the
            // draw's two elements.
            let ve = one(cmds, "3DSTATE_VERTEX_ELEMENTS");
            assert_eq!(ve.dwords.len(), 1 + 2 * 3);
            // Header element: every component STORE_0 (2).
            assert_eq!(ve.dwords[2] >> 16 & 0x7777, 0x2222);
            assert_eq!(ve.dwords[1] >> 25 & 1, 1, "valid");
            // The position: STORE_SRC (1), offset 0, R32G32B32A32_FLOAT.
            assert_eq!(ve.dwords[4] >> 16 & 0x7777, 0x1111);
            assert_eq!(ve.dwords[5] & 0x7ff, 16, "colour offset");
            assert_eq!(one(cmds, "3DSTATE_VS").get("vs_function_enable"), 0);
            let urb = one(cmds, "3DSTATE_URB");
            let entries = urb.get("vs_number_of_urb_entries");
            assert!(entries >= 24 && entries.is_multiple_of(4), "{entries}");
            let sf = one(cmds, "3DSTATE_SF");
            assert_eq!(sf.get("number_of_sf_output_attributes"), 1);
            assert_eq!(sf.get("vertex_urb_entry_read_offset"), 1);
            assert_eq!(sf.get("vertex_urb_entry_read_length"), 1);
            assert_eq!(sf.get("cull_mode"), 1, "CULLMODE_NONE, not 0 (both)");
            assert_eq!(sf.get("viewport_transform_enable"), 1);
            let wm = one(cmds, "3DSTATE_WM");
            assert_eq!(wm.get("pixel_dispatch_enable_16"), 1);
            assert_eq!(wm.get("pixel_dispatch_enable_8"), 0);
            assert_eq!(wm.get("thread_dispatch_enable"), 1);
            assert_eq!(wm.get("number_of_sf_output_attributes"), 1);
            assert_eq!(
                wm.get("dispatch_grf_start_register_for_constant_setup_data_0"),
                6
            );
            assert_eq!(wm.get("barycentric_interpolation_mode"), 1);
            let prim = one(cmds, "3DPRIMITIVE");
            assert_eq!(prim.get("primitive_topology_type"), 4);
            assert_eq!(prim.get("vertex_count_per_instance"), 3);
            assert_eq!(prim.get("instance_count"), 1);
            let rect = one(cmds, "3DSTATE_DRAWING_RECTANGLE");
            assert_eq!(rect.get("clipped_drawing_rectangle_x_max"), 63);
            assert_eq!(rect.get("clipped_drawing_rectangle_y_max"), 31);
            // The SF viewport maps NDC to the 64x32 pixels, y down.
            let (_, dynamic) = bases(Generation::Gen6, cmds);
            let vp = one(cmds, "3DSTATE_VIEWPORT_STATE_POINTERS");
            let sfvp = state_at(
                gpu,
                p,
                "SF_VIEWPORT",
                dynamic + vp.get("pointer_to_sf_viewport"),
            );
            let f = |n: &str| f32::from_bits(sfvp.get(n) as u32);
            assert_eq!(
                [
                    f("viewport_matrix_element_m00"),
                    f("viewport_matrix_element_m11"),
                    f("viewport_matrix_element_m30"),
                    f("viewport_matrix_element_m31"),
                ],
                [32.0, -16.0, 32.0, 16.0]
            );
            // Blending off, every channel written, UNORM pre-blend clamp.
            let cc = one(cmds, "3DSTATE_CC_STATE_POINTERS");
            let blend = state_at(
                gpu,
                p,
                "BLEND_STATE",
                dynamic + cc.get("pointer_to_blend_state"),
            );
            assert_eq!(blend.get("color_buffer_blend_enable"), 0);
            assert_eq!(blend.get("pre_blend_color_clamp_enable"), 1);
            assert_eq!(blend.get("write_disable_red"), 0);
        },
    )
    .unwrap();
}

#[test]
fn blending_and_depth_state_reach_their_structures() {
    let mut depth_format = None;
    record(
        |d| {
            d.blend = Blend {
                color: Some(BlendEquation {
                    src: BlendFactor::SrcAlpha,
                    dst: BlendFactor::InvSrcAlpha,
                    op: BlendOp::Add,
                }),
                alpha: None,
                write_mask: 0b0111,
                constant: [0.25, 0.5, 0.75, 1.0],
            };
            d.raster.cull = Cull::Back;
            d.raster.front_ccw = true;
        },
        |gpu, p, cmds| {
            let (_, dynamic) = bases(Generation::Gen6, cmds);
            let cc = one(cmds, "3DSTATE_CC_STATE_POINTERS");
            let b = state_at(
                gpu,
                p,
                "BLEND_STATE",
                dynamic + cc.get("pointer_to_blend_state"),
            );
            assert_eq!(b.get("color_buffer_blend_enable"), 1);
            assert_eq!(b.get("source_blend_factor"), 0x03);
            assert_eq!(b.get("destination_blend_factor"), 0x13);
            assert_eq!(b.get("source_alpha_blend_factor"), 0x03);
            assert_eq!(b.get("write_disable_alpha"), 1);
            assert_eq!(b.get("write_disable_blue"), 0);
            let c = state_at(
                gpu,
                p,
                "COLOR_CALC_STATE",
                dynamic + cc.get("pointer_to_color_calc_state"),
            );
            assert_eq!(
                f32::from_bits(c.get("blend_constant_color_green") as u32),
                0.5
            );
            let sf = one(cmds, "3DSTATE_SF");
            assert_eq!(sf.get("cull_mode"), 3);
            assert_eq!(sf.get("front_winding"), 1);
            depth_format = Some(one(cmds, "3DSTATE_DEPTH_BUFFER").get("surface_type"));
        },
    )
    .unwrap();
    // No depth buffer: a NULL surface.
    assert_eq!(depth_format, Some(7));
}

#[test]
fn draws_the_hardware_cannot_do_are_refused() {
    let depth_without_buffer = record(
        |d| d.depth_stencil.depth_test = Some(Compare::Less),
        |_, _, _| panic!("recorded"),
    );
    assert!(matches!(
        depth_without_buffer,
        Err(ComputeError::Invalid(_))
    ));
    let no_vertices = record(|d| d.vertex_count = 0, |_, _, _| panic!("recorded"));
    assert!(matches!(no_vertices, Err(ComputeError::Invalid(_))));
    let too_many_attributes = record(|d| d.attributes = 2, |_, _, _| panic!("recorded"));
    assert!(matches!(too_many_attributes, Err(ComputeError::Invalid(_))));
    let bad_viewport = record(
        |d| d.viewport.width = f32::NAN,
        |_, _, _| panic!("recorded"),
    );
    assert!(matches!(bad_viewport, Err(ComputeError::Invalid(_))));
    let no_elements = record(|d| d.elements = &[], |_, _, _| panic!("recorded"));
    assert!(matches!(no_elements, Err(ComputeError::Invalid(_))));
    // A rectangle list is a topology like any other.
    record(
        |d| d.topology = Topology::RectList,
        |_, _, cmds| assert_eq!(one(cmds, "3DPRIMITIVE").get("primitive_topology_type"), 0xf),
    )
    .unwrap();
}

#[test]
fn ivy_bridge_draws_follow_linuxs_sequence() {
    record_on(
        Generation::Gen7,
        None,
        |_| {},
        |gpu, p, cmds| {
            let mut want = vec!["PIPE_CONTROL"; 2];
            want.extend([
                "PIPELINE_SELECT",
                "STATE_BASE_ADDRESS",
                "3DSTATE_MULTISAMPLE",
                "3DSTATE_SAMPLE_MASK",
                "3DSTATE_PUSH_CONSTANT_ALLOC_VS",
                "3DSTATE_PUSH_CONSTANT_ALLOC_GS",
                "3DSTATE_PUSH_CONSTANT_ALLOC_PS",
                "3DSTATE_URB_VS",
                "3DSTATE_URB_HS",
                "3DSTATE_URB_DS",
                "3DSTATE_URB_GS",
                "PIPE_CONTROL",
                "3DSTATE_CONSTANT_VS",
                "3DSTATE_VS",
                "3DSTATE_HS",
                "3DSTATE_TE",
                "3DSTATE_DS",
                "3DSTATE_GS",
                "3DSTATE_STREAMOUT",
                "3DSTATE_CLIP",
                "3DSTATE_SF",
                "3DSTATE_SBE",
                "3DSTATE_WM",
                "3DSTATE_CONSTANT_PS",
                "3DSTATE_PS",
                "3DSTATE_VIEWPORT_STATE_POINTERS_SF_CLIP",
                "3DSTATE_VIEWPORT_STATE_POINTERS_CC",
                "3DSTATE_BLEND_STATE_POINTERS",
                "3DSTATE_DEPTH_STENCIL_STATE_POINTERS",
                "3DSTATE_CC_STATE_POINTERS",
                "3DSTATE_BINDING_TABLE_POINTERS_VS",
                "3DSTATE_BINDING_TABLE_POINTERS_PS",
                "3DSTATE_DEPTH_BUFFER",
                "3DSTATE_HIER_DEPTH_BUFFER",
                "3DSTATE_STENCIL_BUFFER",
                "3DSTATE_CLEAR_PARAMS",
                "3DSTATE_DRAWING_RECTANGLE",
                "3DSTATE_VERTEX_BUFFERS",
                "3DSTATE_VERTEX_ELEMENTS",
                "3DPRIMITIVE",
                "PIPE_CONTROL",
                "MI_BATCH_BUFFER_END",
            ]);
            assert_eq!(names(cmds), want);
            // The VS entries: at least 32, a multiple of 8 for small entries.
            let urb = one(cmds, "3DSTATE_URB_VS");
            let entries = urb.get("vs_number_of_urb_entries");
            assert!(entries >= 32 && entries.is_multiple_of(8), "{entries}");
            assert_eq!(
                urb.get("vs_urb_starting_address"),
                2,
                "after 16 KiB of constants"
            );
            let sbe = one(cmds, "3DSTATE_SBE");
            assert_eq!(sbe.get("number_of_sf_output_attributes"), 1);
            assert_eq!(sbe.get("vertex_urb_entry_read_offset"), 1);
            let ps = one(cmds, "3DSTATE_PS");
            assert_eq!(ps.get("pixel_dispatch_enable_16"), 1);
            assert_eq!(ps.get("attribute_enable"), 1);
            assert_eq!(
                ps.get("dispatch_grf_start_register_for_constant_setup_data_0"),
                6
            );
            assert_eq!(one(cmds, "3DSTATE_WM").get("thread_dispatch_enable"), 1);
            // The vertex buffer's address is taken only with Address Modify.
            let vb = one(cmds, "3DSTATE_VERTEX_BUFFERS");
            assert_eq!(vb.dwords[1] >> 14 & 1, 1);
            assert_eq!(one(cmds, "3DSTATE_SF").get("cull_mode"), 1);
            // The merged viewport maps NDC to the 64x32 pixels.
            let (_, dynamic) = bases(Generation::Gen7, cmds);
            let at = one(cmds, "3DSTATE_VIEWPORT_STATE_POINTERS_SF_CLIP")
                .get("sf_clip_viewport_pointer");
            let vp = state_at(gpu, p, "SF_CLIP_VIEWPORT", dynamic + at);
            let f = |n: &str| f32::from_bits(vp.get(n) as u32);
            assert_eq!(
                [
                    f("viewport_matrix_element_m00"),
                    f("viewport_matrix_element_m31")
                ],
                [32.0, 16.0]
            );
            assert_eq!(f("x_max_clip_guardband"), 1.0);
        },
    )
    .unwrap();
}

/// A stencil face that replaces with `reference` where the test passes.
fn replace_face(write_mask: u8) -> StencilFace {
    StencilFace {
        compare: Compare::Equal,
        fail: StencilOp::Zero,
        depth_fail: StencilOp::DecrementWrap,
        pass: StencilOp::Replace,
        read_mask: 0x0f,
        write_mask,
        reference: 0x42,
    }
}

#[test]
fn ivy_bridge_stencil_uses_a_separate_w_tiled_buffer() {
    for write_mask in [0xffu8, 0] {
        record_on(
            Generation::Gen7,
            Some(DepthFormat::D24UnormS8Uint),
            |d| {
                d.depth_stencil.depth_test = Some(Compare::Less);
                d.depth_stencil.depth_write = true;
                d.depth_stencil.stencil = Some((replace_face(write_mask), None));
            },
            |gpu, p, cmds| {
                let z = one(cmds, "3DSTATE_DEPTH_BUFFER");
                // Depth only in the depth buffer (gen7.xml has no combined
                // formats): D24_UNORM_X8_UINT.
                assert_eq!(z.get("surface_format"), 3);
                assert_eq!(z.get("depth_write_enable"), 1);
                // Mesa: stencil_mt && Stencil._WriteEnabled.
                assert_eq!(
                    z.get("stencil_write_enable"),
                    u64::from(write_mask != 0),
                    "write mask {write_mask:#x}"
                );
                let sb = one(cmds, "3DSTATE_STENCIL_BUFFER");
                // 64 pixels: one 64-byte W tile a row, programmed doubled.
                assert_eq!(sb.get("surface_pitch"), 127);
                let (depth_at, stencil_at) = (
                    z.get("surface_base_address"),
                    sb.get("surface_base_address"),
                );
                assert!(stencil_at != 0 && stencil_at.is_multiple_of(4096));
                // 64 x 32 pixels of 4 bytes in Y tiles: 2 tiles of 4 KiB;
                // the stencil buffer lies outside them.
                assert!(stencil_at >= depth_at + 8192 || stencil_at + 4096 <= depth_at);
                let (_, dynamic) = bases(Generation::Gen7, cmds);
                let at = one(cmds, "3DSTATE_DEPTH_STENCIL_STATE_POINTERS")
                    .get("pointer_to_depth_stencil_state");
                let ds = state_at(gpu, p, "DEPTH_STENCIL_STATE", dynamic + at);
                assert_eq!(ds.get("stencil_test_enable"), 1);
                assert_eq!(ds.get("stencil_test_function"), 3, "EQUAL");
                assert_eq!(ds.get("stencil_fail_op"), 1, "ZERO");
                assert_eq!(ds.get("stencil_pass_depth_fail_op"), 6, "DECR");
                assert_eq!(ds.get("stencil_pass_depth_pass_op"), 2, "REPLACE");
                assert_eq!(ds.get("stencil_test_mask"), 0x0f);
                assert_eq!(ds.get("stencil_write_mask"), u64::from(write_mask));
                assert_eq!(
                    ds.get("stencil_buffer_write_enable"),
                    u64::from(write_mask != 0)
                );
                let cc = one(cmds, "3DSTATE_CC_STATE_POINTERS").get("color_calc_state_pointer");
                let cc = state_at(gpu, p, "COLOR_CALC_STATE", dynamic + cc);
                assert_eq!(cc.get("stencil_reference_value"), 0x42);
            },
        )
        .unwrap();
    }
    // Without stencil the stencil buffer command is all zero, as Mesa's.
    record_on(
        Generation::Gen7,
        Some(DepthFormat::D32Float),
        |d| d.depth_stencil.depth_test = Some(Compare::Less),
        |_, _, cmds| {
            let sb = one(cmds, "3DSTATE_STENCIL_BUFFER");
            assert!(sb.dwords[1..].iter().all(|&d| d == 0), "{:x?}", sb.dwords);
            assert_eq!(
                one(cmds, "3DSTATE_DEPTH_BUFFER").get("stencil_write_enable"),
                0
            );
        },
    )
    .unwrap();
    // Stencil still needs a format that asks for it.
    let no_stencil = record_on(
        Generation::Gen7,
        Some(DepthFormat::D24UnormX8),
        |d| d.depth_stencil.stencil = Some((replace_face(0xff), None)),
        |_, _, _| panic!("recorded"),
    );
    assert!(matches!(no_stencil, Err(ComputeError::Invalid(_))));
}

#[test]
fn ivy_bridge_depth_buffers_clear_their_stencil_buffer_too() {
    with_gpu(Generation::Gen7, |gpu, _| {
        let r = Renderer::new(gpu).unwrap();
        // 100 x 70 pixels: 2 x 2 W tiles.
        let z = r
            .create_depth_buffer(gpu, 100, 70, DepthFormat::D24UnormS8Uint)
            .unwrap();
        assert!(z.stencil_gfx().is_some());
        z.clear(1.0, 0x3c).unwrap();
        let mut s = vec![0u8; 4 * 4096];
        z.read_stencil_raw(0, &mut s).unwrap();
        assert!(s.iter().all(|&b| b == 0x3c));
        let mut d = [0u8; 4];
        z.read_raw(0, &mut d).unwrap();
        assert_eq!(u32::from_le_bytes(d) & 0xff_ffff, 0xff_ffff);
        // Beyond the four tiles there is nothing.
        assert!(z.read_stencil_raw(4 * 4096, &mut [0u8; 1]).is_err());
        let plain = r
            .create_depth_buffer(gpu, 100, 70, DepthFormat::D32Float)
            .unwrap();
        assert!(plain.stencil_gfx().is_none());
        Renderer::free_depth_buffer(gpu, z);
        Renderer::free_depth_buffer(gpu, plain);
    });
    // Sandy Bridge keeps stencil in the D24_UNORM_S8_UINT buffer.
    with_gpu(Generation::Gen6, |gpu, _| {
        let r = Renderer::new(gpu).unwrap();
        let z = r
            .create_depth_buffer(gpu, 64, 32, DepthFormat::D24UnormS8Uint)
            .unwrap();
        assert!(z.stencil_gfx().is_none());
        z.clear(0.0, 7).unwrap();
        let mut d = [0u8; 4];
        z.read_raw(0, &mut d).unwrap();
        assert_eq!(d[3], 7);
    });
}

#[test]
fn a_depth_buffer_is_y_tiled_and_tested() {
    record_on(
        Generation::Gen6,
        Some(DepthFormat::D24UnormS8Uint),
        |d| {
            d.depth_stencil.depth_test = Some(Compare::Less);
            d.depth_stencil.depth_write = true;
        },
        |gpu, p, cmds| {
            let z = one(cmds, "3DSTATE_DEPTH_BUFFER");
            assert_eq!(z.get("surface_type"), 1, "2D");
            assert_eq!(z.get("tiled_surface"), 1);
            assert_eq!(z.get("tile_walk"), 1, "Y major");
            assert_eq!(z.get("surface_format"), 2, "D24_UNORM_S8_UINT");
            assert_eq!(z.get("width"), 63);
            assert_eq!(z.get("height"), 31);
            // 64 pixels of 4 bytes, rounded up to a Y tile's 128 bytes.
            assert_eq!(z.get("surface_pitch"), 255);
            let (_, dynamic) = bases(Generation::Gen6, cmds);
            let cc = one(cmds, "3DSTATE_CC_STATE_POINTERS");
            let ds = state_at(
                gpu,
                p,
                "DEPTH_STENCIL_STATE",
                dynamic + cc.get("pointer_to_depth_stencil_state"),
            );
            assert_eq!(ds.get("depth_test_enable"), 1);
            assert_eq!(ds.get("depth_test_function"), 2, "LESS");
            assert_eq!(ds.get("depth_buffer_write_enable"), 1);
            assert_eq!(ds.get("stencil_test_enable"), 0);
        },
    )
    .unwrap();
}

#[test]
fn the_3d_api_starts_at_sandy_bridge() {
    for g in [Generation::Gen4, Generation::G45] {
        with_gpu(g, |gpu, _| {
            assert!(matches!(
                Renderer::new(gpu),
                Err(ComputeError::Unsupported { .. })
            ));
        });
    }
}

/// intel-gpu-tools' decoder reads the driver's batches with the same
/// command boundaries: every command our decoder finds starts where
/// `intel_dump_decode` starts one, and it finds nothing unknown (a wrong
/// header or length would shift every later command).
#[test]
fn intel_dump_decode_reads_the_batches_alike() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/ensure-packages.sh");
    let ensured = std::process::Command::new("sh")
        .args([
            script,
            "the batch decoder oracle",
            "intel_dump_decode",
            "intel-gpu-tools",
        ])
        .output()
        .expect("run tools/ensure-packages.sh");
    assert!(
        ensured.status.success(),
        "intel_dump_decode is missing and could not be installed: {}",
        String::from_utf8_lossy(&ensured.stderr)
    );
    // Device IDs the decoder keys its tables on: SNB GT1 and IVB GT1
    // desktop (Linux i915_pciids.h INTEL_SNB_D_GT1_IDS 0x0102,
    // INTEL_IVB_D_GT1_IDS 0x0152).
    // The Ivy Bridge form with stencil carries a real
    // 3DSTATE_STENCIL_BUFFER.
    for (g, devid, stencil) in [
        (Generation::Gen6, "0x0102", false),
        (Generation::Gen7, "0x0152", false),
        (Generation::Gen7, "0x0152", true),
    ] {
        let mut words: Vec<u32> = Vec::new();
        let mut ours: Vec<usize> = Vec::new();
        record_on(
            g,
            Some(if stencil {
                DepthFormat::D24UnormS8Uint
            } else {
                DepthFormat::D32Float
            }),
            |d| {
                d.depth_stencil.depth_test = Some(Compare::LessEqual);
                if stencil {
                    d.depth_stencil.stencil = Some((replace_face(0xff), None));
                }
            },
            |_, _, cmds| {
                for c in cmds {
                    ours.push(c.offset * 4);
                    words.extend(&c.dwords);
                }
            },
        )
        .unwrap();
        let dir = std::env::temp_dir().join(format!("baregpu-dump-decode-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("{g}-{stencil}.bin"));
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&file, bytes).unwrap();
        let out = std::process::Command::new("intel_dump_decode")
            .args(["-d", devid, "-b"])
            .arg(&file)
            .output()
            .expect("run intel_dump_decode");
        let text = String::from_utf8_lossy(&out.stdout);
        // Command lines: "0x<offset>: [HEAD] 0x<dword>: <NAME>"; field lines
        // indent the text after the second colon.
        let mut theirs = Vec::new();
        for line in text.lines() {
            let parts: Vec<&str> = line.splitn(3, ": ").collect();
            if parts.len() == 3 && !parts[2].starts_with(' ') {
                let at = usize::from_str_radix(parts[0].trim_start_matches("0x"), 16).unwrap();
                assert!(
                    !parts[2].contains("UNKNOWN") && !parts[2].contains("bad"),
                    "{g}: {line}"
                );
                theirs.push(at);
            }
        }
        // Our offsets are dwords of the whole batch; the file holds the
        // commands back to back, which they already are (no gaps).
        let ours: Vec<usize> = ours.iter().map(|o| o - ours[0]).collect();
        assert_eq!(theirs, ours, "{g}:\n{text}");
        assert!(theirs.len() > 30, "{g}: {} commands", theirs.len());
        std::fs::remove_dir_all(&dir).ok();
    }
}
