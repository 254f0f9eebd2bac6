//! Ivy Bridge: each Gen7 packet decoded from hand-packed hal packets, the
//! same scene drawn from Gen6 and from equivalent Gen7 state, the Gen7
//! payload additions, refusals, and random Gen7 state.

use alloc::vec;
use alloc::vec::Vec;

use baregpu_hal::Generation;
use baregpu_hal::gen6::commands as g6;
use baregpu_hal::gen7::commands::{
    Cmd3dstateBindingTablePointersPs, Cmd3dstateCcStatePointers, Cmd3dstateClip,
    Cmd3dstateConstantPs, Cmd3dstateDrawingRectangle, Cmd3dstateMultisample, Cmd3dstatePs,
    Cmd3dstatePushConstantAllocPs, Cmd3dstateSampleMask, Cmd3dstateSamplerStatePointersPs,
    Cmd3dstateSbe, Cmd3dstateScissorStatePointers, Cmd3dstateSf,
    Cmd3dstateViewportStatePointersSfClip, Cmd3dstateWm,
};
use baregpu_hal::gen7::structs::SfClipViewport;
use baregpu_hal::packet::Packet;

use super::super::state::{
    AttrControl, ClipMode, Cull, Fill, RasterState, Viewports, clip_viewport, sf_viewport,
};
use super::{DYNAMIC, Recorder, Rig, reg_dw, tri, vue};
use crate::eu::shared::{FlatMemory, GfxMemory};
use crate::gpe::Bases;
use crate::render3d::types::{DrawEnv, DrawError, Object, Packets, PixelThread, Vue};

/// Where the Gen7 rig keeps its SF_CLIP_VIEWPORT array.
const SF_CLIP_VP: u32 = 0x800;

fn packed<P: Packet>(p: &P) -> Vec<u32> {
    let mut dw = vec![0u32; p.dwords()];
    p.pack(&mut dw).expect("test packet packs");
    dw
}

/// A Gen7 draw's state, from typed Gen7 packets.
struct Rig7 {
    bases: Bases,
    mem: FlatMemory,
    clip: Cmd3dstateClip,
    sf: Cmd3dstateSf,
    sbe: Cmd3dstateSbe,
    wm: Cmd3dstateWm,
    ps: Cmd3dstatePs,
    rect: Cmd3dstateDrawingRectangle,
    extras: Vec<(&'static str, Vec<u32>)>,
    packets: Packets,
}

impl Rig7 {
    /// The Gen7 twin of `Rig::new`: a 64x64 target, clipping off, no
    /// viewport transform, cull none, one attribute from VUE DW8, SIMD16
    /// with perspective-pixel barycentrics and setup data at r6.
    fn new() -> Rig7 {
        Rig7 {
            bases: Bases {
                dynamic: DYNAMIC,
                instruction: 0x100_0000,
                ..Default::default()
            },
            mem: FlatMemory::new(DYNAMIC, 0x1000),
            clip: Cmd3dstateClip::default(),
            sf: Cmd3dstateSf {
                cull_mode: 1,
                ..Default::default()
            },
            sbe: Cmd3dstateSbe {
                number_of_sf_output_attributes: 1,
                vertex_urb_entry_read_length: 1,
                vertex_urb_entry_read_offset: 1,
                ..Default::default()
            },
            wm: Cmd3dstateWm {
                thread_dispatch_enable: true,
                barycentric_interpolation_mode: 1,
                ..Default::default()
            },
            ps: Cmd3dstatePs {
                kernel_start_pointer_0: 0x40,
                kernel_start_pointer_1: 0x80,
                kernel_start_pointer_2: 0xc0,
                dispatch_grf_start_register_for_constant_setup_data_0: 6,
                dispatch_grf_start_register_for_constant_setup_data_1: 10,
                dispatch_grf_start_register_for_constant_setup_data_2: 8,
                pixel_dispatch_enable_16: true,
                attribute_enable: true,
                ..Default::default()
            },
            rect: Cmd3dstateDrawingRectangle {
                clipped_drawing_rectangle_x_max: 63,
                clipped_drawing_rectangle_y_max: 63,
                ..Default::default()
            },
            extras: Vec::new(),
            packets: Packets::default(),
        }
    }

    fn set<P: Packet>(&mut self, p: &P) {
        self.extras.push((P::NAME, packed(p)));
    }

    /// SF_CLIP_VIEWPORT[i]: the transform and the guardband.
    fn viewport(&mut self, i: u32, m: [f32; 6], gb: [f32; 4]) {
        let v = SfClipViewport {
            viewport_matrix_element_m00: m[0],
            viewport_matrix_element_m11: m[1],
            viewport_matrix_element_m22: m[2],
            viewport_matrix_element_m30: m[3],
            viewport_matrix_element_m31: m[4],
            viewport_matrix_element_m32: m[5],
            x_min_clip_guardband: gb[0],
            x_max_clip_guardband: gb[1],
            y_min_clip_guardband: gb[2],
            y_max_clip_guardband: gb[3],
        };
        let bytes: Vec<u8> = packed(&v).iter().flat_map(|d| d.to_le_bytes()).collect();
        self.mem
            .write(DYNAMIC + u64::from(SF_CLIP_VP + 64 * i), &bytes)
            .expect("rig memory");
    }

    fn pack(&mut self) {
        let mut p = Packets::default();
        for (name, dw) in [
            (Cmd3dstateClip::NAME, packed(&self.clip)),
            (Cmd3dstateSf::NAME, packed(&self.sf)),
            (Cmd3dstateSbe::NAME, packed(&self.sbe)),
            (Cmd3dstateWm::NAME, packed(&self.wm)),
            (Cmd3dstatePs::NAME, packed(&self.ps)),
            (Cmd3dstateDrawingRectangle::NAME, packed(&self.rect)),
            (
                Cmd3dstateViewportStatePointersSfClip::NAME,
                packed(&Cmd3dstateViewportStatePointersSfClip {
                    sf_clip_viewport_pointer: SF_CLIP_VP,
                }),
            ),
        ] {
            p.set(name, &dw);
        }
        for (name, dw) in &self.extras {
            p.set(name, dw);
        }
        self.packets = p;
    }

    fn state(&mut self) -> Result<RasterState, DrawError> {
        self.pack();
        let env = DrawEnv {
            generation: Generation::Gen7,
            packets: &self.packets,
            bases: &self.bases,
            memory: &mut self.mem,
        };
        RasterState::decode(&env)
    }

    fn run(&mut self, vues: &[Vue], objects: &[Object]) -> Result<Vec<PixelThread>, DrawError> {
        self.pack();
        let mut env = DrawEnv {
            generation: Generation::Gen7,
            packets: &self.packets,
            bases: &self.bases,
            memory: &mut self.mem,
        };
        super::super::rasterize(&mut env, vues, objects, &mut Recorder::default())
    }
}

/// intel-gpu-tools lib/rendercopy_gen7.c's state, dword for dword: CLIP
/// all zero, SBE 1 output / read length 1 / offset 1, SF cull none and the
/// trifan provoking vertex 2, WM dispatch + perspective pixel barycentric,
/// PS SIMD16 + attribute enable + GRF start 6 (with its IVB Maximum
/// Number of Threads written at the Haswell shift, bit 23 up), and an
/// SF_CLIP viewport pointer of 0.
#[test]
fn rendercopy_gen7_state_decodes() {
    let mut rig = Rig7::new();
    let raw = |p: Vec<u32>, body: &[u32]| {
        let mut dw = p;
        dw[1..1 + body.len()].copy_from_slice(body);
        dw
    };
    let mut sbe_body = [0u32; 13];
    sbe_body[0] = 1 << 22 | 1 << 11 | 1 << 4;
    rig.pack();
    let mut p = Packets::default();
    p.set(
        "3DSTATE_CLIP",
        &raw(packed(&Cmd3dstateClip::default()), &[0, 0, 0]),
    );
    p.set(
        "3DSTATE_SBE",
        &raw(packed(&Cmd3dstateSbe::default()), &sbe_body),
    );
    p.set(
        "3DSTATE_SF",
        &raw(
            packed(&Cmd3dstateSf::default()),
            &[0, 1 << 29, 2 << 25, 0, 0, 0],
        ),
    );
    p.set(
        "3DSTATE_WM",
        &raw(packed(&Cmd3dstateWm::default()), &[1 << 29 | 1 << 11, 0]),
    );
    p.set(
        "3DSTATE_PS",
        &raw(
            packed(&Cmd3dstatePs::default()),
            &[
                0x40,
                1 << 27 | 2 << 18,
                0,
                85 << 23 | 1 << 10 | 1 << 1,
                6 << 16,
                0,
                0,
            ],
        ),
    );
    p.set(
        "3DSTATE_VIEWPORT_STATE_POINTERS_SF_CLIP",
        &raw(
            packed(&Cmd3dstateViewportStatePointersSfClip::default()),
            &[0],
        ),
    );
    p.set(
        "3DSTATE_DRAWING_RECTANGLE",
        &raw(
            packed(&Cmd3dstateDrawingRectangle::default()),
            &[0, 63 << 16 | 63, 0],
        ),
    );
    rig.packets = p;
    let env = DrawEnv {
        generation: Generation::Gen7,
        packets: &rig.packets,
        bases: &rig.bases,
        memory: &mut rig.mem,
    };
    let st = RasterState::decode(&env).unwrap();
    assert!(!st.clip.enable);
    assert_eq!(st.clip.mode, ClipMode::Normal);
    assert_eq!(st.sf.cull, Cull::None);
    assert_eq!(st.sf.pv_fan, 2);
    assert_eq!(
        (st.sf.outputs, st.sf.read_length, st.sf.read_offset),
        (1, 1, 1)
    );
    assert!(st.wm.dispatch);
    assert_eq!(st.wm.barycentric_modes, 1);
    assert!(st.wm.enable16 && !st.wm.enable8 && !st.wm.enable32);
    assert!(st.wm.attributes);
    assert_eq!(st.wm.grf_start[0], 6);
    assert_eq!(st.wm.ksp[0], 0x40);
    assert_eq!(st.viewports, Viewports::Gen7 { sf_clip: 0 });
    assert!(st.constants.is_empty());
    assert_eq!((st.rect.xmax, st.rect.ymax), (63, 63));

    // Its RECTLIST draws: 64x64 pixels in SIMD16 threads from KSP 0.
    let vs = [
        vue([64.0, 64.0, 0.0, 1.0], &[[1.0, 1.0, 0.0, 0.0]]),
        vue([0.0, 64.0, 0.0, 1.0], &[[0.0, 1.0, 0.0, 0.0]]),
        vue([0.0, 0.0, 0.0, 1.0], &[[0.0, 0.0, 0.0, 0.0]]),
    ];
    let obj = Object {
        kind: crate::render3d::types::ObjectKind::Rectangle,
        v: [0, 1, 2],
        topology: 0x0f,
        ordinal: 0,
    };
    let mut env = DrawEnv {
        generation: Generation::Gen7,
        packets: &rig.packets,
        bases: &rig.bases,
        memory: &mut rig.mem,
    };
    let threads = super::super::rasterize(&mut env, &vs, &[obj], &mut Recorder::default()).unwrap();
    let lit: u32 = threads.iter().map(|t| t.pixels.mask.count_ones()).sum();
    assert_eq!(lit, 64 * 64);
    assert!(
        threads
            .iter()
            .all(|t| t.pixels.simd == 16 && t.kernel == 0x100_0040)
    );
    // Setup data at r6 (R0, R1, 4 barycentric registers).
    assert!(threads.iter().all(|t| t.payload.len() == 32 * 8));
}

/// CLIP, SF and SBE fields land where the generation-neutral state has them.
#[test]
fn clip_sf_and_sbe_decode() {
    let mut rig = Rig7::new();
    rig.clip = Cmd3dstateClip {
        clip_enable: true,
        clipper_statistics_enable: true,
        api_mode: 1,
        viewport_xy_cliptest_enable: true,
        viewport_z_cliptest_enable: true,
        guardband_cliptest_enable: true,
        user_clip_distance_clip_test_enable_bitmask: 0x05,
        user_clip_distance_cull_test_enable_bitmask: 0x30,
        clip_mode: 4,
        perspective_divide_disable: true,
        non_perspective_barycentric_enable: true,
        minimum_point_width: 0x0c,
        maximum_point_width: 0x7ff,
        force_zero_rtaindex_enable: true,
        maximum_vpindex: 7,
        earlycull_enable: true,
        cull_mode: 3,
        front_winding: 1,
        ..Default::default()
    };
    rig.sf = Cmd3dstateSf {
        depth_buffer_surface_format: 5,
        legacy_global_depth_bias_enable: true,
        statistics_enable: true,
        global_depth_offset_enable_wireframe: true,
        frontface_fill_mode: 1,
        backface_fill_mode: 2,
        viewport_transform_enable: true,
        front_winding: 1,
        cull_mode: 3,
        line_width: 0x180,
        scissor_rectangle_enable: true,
        last_pixel_enable: true,
        triangle_strip_list_provoking_vertex_select: 2,
        line_strip_list_provoking_vertex_select: 1,
        triangle_fan_provoking_vertex_select: 1,
        vertex_sub_pixel_precision_select: 1,
        point_width_source: 1,
        point_width: 0x14,
        global_depth_offset_constant: 2.0,
        global_depth_offset_scale: 0.5,
        global_depth_offset_clamp: 0.25,
        ..Default::default()
    };
    rig.sbe = Cmd3dstateSbe {
        attribute_swizzle_control_mode: 1,
        number_of_sf_output_attributes: 20,
        attribute_swizzle_enable: true,
        point_sprite_texture_coordinate_origin: 1,
        vertex_urb_entry_read_length: 3,
        vertex_urb_entry_read_offset: 2,
        attribute_0_component_override_w: true,
        attribute_0_constant_source: 2,
        attribute_0_swizzle_select: 1,
        attribute_0_source_attribute: 5,
        attribute_15_component_override_x: true,
        attribute_15_swizzle_select: 3,
        attribute_15_source_attribute: 31,
        point_sprite_texture_coordinate_enable: 0x8000_0002,
        constant_interpolation_enable: 0x0010_0001,
        attribute_0_wrapshortest_enables: 0x9,
        attribute_15_wrapshortest_enables: 0x6,
        ..Default::default()
    };
    let st = rig.state().unwrap();
    let c = &st.clip;
    assert!(c.enable && c.statistics && c.d3d && c.viewport_xy && c.viewport_z && c.guardband);
    assert_eq!((c.ucd_clip, c.ucd_cull), (0x05, 0x30));
    assert_eq!(c.mode, ClipMode::AcceptAll);
    assert!(c.perspective_divide_disable && c.non_perspective && c.force_zero_rta);
    assert_eq!((c.min_point_width, c.max_point_width), (1.5, 2047.0 / 8.0));
    assert_eq!(c.max_vp_index, 7);
    let s = &st.sf;
    assert_eq!(st.depth_format, 5);
    assert!(s.legacy_depth_bias && s.statistics && s.viewport_transform && s.front_ccw);
    assert_eq!(s.depth_offset, [false, true, false]);
    assert_eq!((s.front_fill, s.back_fill), (Fill::Wireframe, Fill::Point));
    assert_eq!(s.cull, Cull::Back);
    assert_eq!(s.line_width, 3.0);
    assert!(s.scissor && s.last_pixel);
    assert_eq!((s.pv_tri, s.pv_line, s.pv_fan), (2, 1, 1));
    assert_eq!(s.subpixel_bits, 4);
    assert!(s.point_width_from_state);
    assert_eq!(s.point_width, 2.5);
    assert_eq!(
        (
            s.depth_offset_constant,
            s.depth_offset_scale,
            s.depth_offset_clamp
        ),
        (2.0, 0.5, 0.25)
    );
    // SBE: 20 outputs, swizzles on 16-31 (no SNB +16 encoding).
    assert_eq!(
        (s.outputs, s.swizzle_high, s.swizzle_enable),
        (20, true, true)
    );
    assert!(s.sprite_lower_left);
    assert_eq!((s.read_length, s.read_offset), (3, 2));
    assert_eq!(
        s.controls[0],
        AttrControl {
            override_mask: 0b1000,
            constant: 2,
            swizzle: 1,
            source: 5
        }
    );
    assert_eq!(
        s.controls[15],
        AttrControl {
            override_mask: 0b0001,
            constant: 0,
            swizzle: 3,
            source: 31
        }
    );
    assert_eq!(s.controls[7], AttrControl::default());
    assert_eq!(s.sprite_enable, 0x8000_0002);
    assert_eq!(s.flat, 0x0010_0001);
    assert_eq!(s.wrap_shortest, 0x9 | 0x6 << 60);
}

/// WM and PS fields, the pointers and the push constants.
#[test]
fn wm_ps_pointers_and_constants_decode() {
    let mut rig = Rig7::new();
    rig.wm = Cmd3dstateWm {
        statistics_enable: true,
        thread_dispatch_enable: true,
        legacy_diamond_line_rasterization: true,
        pixel_shader_computed_depth_mode: 2,
        pixel_shader_uses_source_depth: true,
        pixel_shader_uses_source_w: true,
        barycentric_interpolation_mode: 0b101001,
        pixel_shader_uses_input_coverage_mask: true,
        polygon_stipple_enable: false,
        line_stipple_enable: true,
        point_rasterization_rule: 1,
        ..Default::default()
    };
    rig.ps = Cmd3dstatePs {
        kernel_start_pointer_0: 0x1000,
        kernel_start_pointer_1: 0x2040,
        kernel_start_pointer_2: 0x3080,
        single_program_flow: true,
        vector_mask_enable: true,
        denormal_mode: 1,
        floating_point_mode: 1,
        rounding_mode: 3,
        illegal_opcode_exception_enable: true,
        mask_stack_exception_enable: true,
        software_exception_enable: true,
        scratch_space_base_pointer: 0x4_0400,
        per_thread_scratch_space: 3,
        push_constant_enable: true,
        attribute_enable: false,
        omask_present_to_rendertarget: true,
        position_xy_offset_select: 2,
        pixel_dispatch_enable_8: true,
        pixel_dispatch_enable_16: true,
        pixel_dispatch_enable_32: true,
        dispatch_grf_start_register_for_constant_setup_data_0: 7,
        dispatch_grf_start_register_for_constant_setup_data_1: 9,
        dispatch_grf_start_register_for_constant_setup_data_2: 11,
        ..Default::default()
    };
    rig.set(&Cmd3dstateScissorStatePointers {
        scissor_rect_pointer: 0x620,
    });
    rig.set(&Cmd3dstateCcStatePointers {
        color_calc_state_pointer: 0x9c0,
        must_be_one: true,
    });
    rig.set(&Cmd3dstateBindingTablePointersPs {
        pointer_to_ps_binding_table: 0x7e0,
    });
    rig.set(&Cmd3dstateSamplerStatePointersPs {
        pointer_to_ps_sampler_state: 0x5a0,
    });
    rig.set(&Cmd3dstateMultisample {
        pixel_location: 1,
        ..Default::default()
    });
    rig.set(&Cmd3dstateSampleMask { sample_mask: 0xfe });
    rig.set(&Cmd3dstatePushConstantAllocPs {
        constant_buffer_offset: 0,
        constant_buffer_size: 1,
    });
    rig.set(&Cmd3dstateConstantPs {
        constant_buffer_0_read_length: 1,
        constant_buffer_2_read_length: 1,
        pointer_to_constant_buffer_0: 0x200,
        pointer_to_constant_buffer_2: 0x300,
        ..Default::default()
    });
    // The loaded data must be there.
    assert_eq!(
        rig.state().unwrap_err(),
        DrawError::Invalid("3DSTATE_CONSTANT_PS without the push constants it loaded")
    );
    let k: Vec<u32> = (0..16).map(|i| 0xa000 + i).collect();
    rig.extras.push(("PCB_PS", k));
    let st = rig.state().unwrap();
    let w = &st.wm;
    assert!(w.statistics && w.dispatch && w.legacy_diamond_lines && w.computed_depth);
    assert!(w.uses_source_depth && w.uses_source_w && w.input_coverage_mask);
    assert_eq!(w.barycentric_modes, 0b101001);
    assert!(!w.polygon_stipple && w.line_stipple && w.point_upper_right);
    assert_eq!(w.ksp, [0x1000, 0x2040, 0x3080]);
    assert_eq!(w.grf_start, [7, 9, 11]);
    // cr0.0: ALT (0), SPF (2), VME (3), RTZ (5:4), DF denorms kept (6).
    assert_eq!(
        w.cr0,
        [
            1 | 1 << 2 | 1 << 3 | 3 << 4 | 1 << 6,
            1 << 11 | 1 << 12 | 1 << 13
        ]
    );
    assert_eq!((w.scratch_base, w.scratch_code), (0x4_0400, 3));
    assert!(w.omask && !w.attributes);
    assert_eq!(w.position_offset, 2);
    assert!(w.enable8 && w.enable16 && w.enable32);
    assert_eq!(st.scissor, 0x620);
    assert_eq!(st.cc_state, 0x9c0);
    assert_eq!(st.ps_binding_table, 0x7e0);
    assert_eq!(st.ps_samplers, 0x5a0);
    assert!(st.ul_corner);
    assert_eq!(st.sample_mask, 0xfe);
    assert_eq!(st.constants.len(), 64);
    assert_eq!(&st.constants[..4], &0xa000u32.to_le_bytes());
    // Without Push Constant Enable the payload carries none.
    rig.ps.push_constant_enable = false;
    assert!(rig.state().unwrap().constants.is_empty());
    // Two registers do not fit a 0 KiB allocation.
    rig.set(&Cmd3dstatePushConstantAllocPs {
        constant_buffer_offset: 0,
        constant_buffer_size: 0,
    });
    assert_eq!(
        rig.state().unwrap_err(),
        DrawError::Invalid(
            "3DSTATE_CONSTANT_PS reads more than 3DSTATE_PUSH_CONSTANT_ALLOC_PS reserves"
        )
    );
}

/// SF_CLIP_VIEWPORT[i] serves both the transform and the guardband.
#[test]
fn sf_clip_viewport_array() {
    let mut rig = Rig7::new();
    rig.viewport(0, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [-7.0, 7.0, -8.0, 8.0]);
    rig.viewport(
        2,
        [10.0, -20.0, 0.5, 30.0, 40.0, 0.25],
        [-1.5, 1.5, -2.5, 2.5],
    );
    let st = rig.state().unwrap();
    let mut env = DrawEnv {
        generation: Generation::Gen7,
        packets: &rig.packets,
        bases: &rig.bases,
        memory: &mut rig.mem,
    };
    assert_eq!(
        sf_viewport(&mut env, &st, 0).unwrap(),
        [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    );
    assert_eq!(
        clip_viewport(&mut env, &st, 0).unwrap(),
        [-7.0, 7.0, -8.0, 8.0]
    );
    assert_eq!(
        sf_viewport(&mut env, &st, 2).unwrap(),
        [10.0, -20.0, 0.5, 30.0, 40.0, 0.25]
    );
    assert_eq!(
        clip_viewport(&mut env, &st, 2).unwrap(),
        [-1.5, 1.5, -2.5, 2.5]
    );
    // Past the rig's memory: a fault, not a panic.
    assert!(matches!(
        sf_viewport(&mut env, &st, 200),
        Err(DrawError::Fault(_))
    ));
}

const VP: [f32; 6] = [32.0, -32.0, 0.5, 32.0, 32.0, 0.5];
const GB: [f32; 4] = [-1.5, 1.5, -1.5, 1.5];

/// A perspective scene that clips against the guardband and the near
/// plane, with a flat and a smooth attribute.
fn scene() -> (Vec<Vue>, Vec<Object>) {
    let ps = [
        [-0.9, -0.8, 0.2, 1.0],
        [2.5, -0.4, 0.6, 2.0],
        [0.1, 0.9, -1.4, 1.2],
        [0.8, 0.7, 0.3, 1.0],
    ];
    let vs = ps
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            let f = i as f32;
            vue(
                p,
                &[[f, 2.0 * f, 1.0 - f, 0.5], [3.0 + f, f * f, 0.25, 1.0]],
            )
        })
        .collect();
    (vs, vec![tri([0, 1, 2], 0x05, 0), tri([1, 3, 2], 0x05, 1)])
}

/// The same scene, from Gen6 state and from the equivalent Gen7 state:
/// the same threads (kernels, payloads, masks, pixels, cr0, pointers).
#[test]
fn gen6_and_gen7_draw_the_same_threads() {
    let (vs, objs) = scene();
    let k: Vec<u32> = (0..8).map(|i| 0x5000 + i).collect();

    let mut r6 = Rig::new();
    r6.sf_viewport(0, VP);
    r6.clip_viewport(0, GB);
    r6.clip.clip_enable = true;
    r6.clip.guardband_cliptest_enable = true;
    r6.clip.viewport_z_cliptest_enable = true;
    r6.sf.number_of_sf_output_attributes = 2;
    r6.sf.constant_interpolation_enable = 0b10;
    r6.sf.front_winding = 1;
    r6.wm.number_of_sf_output_attributes = 2;
    r6.wm.pixel_dispatch_enable_8 = true;
    r6.wm.pixel_shader_uses_source_depth = true;
    r6.wm.pixel_shader_uses_source_w = true;
    r6.wm.barycentric_interpolation_mode = 0b001001;
    r6.wm.dispatch_grf_start_register_for_constant_setup_data_0 = 12;
    r6.wm.dispatch_grf_start_register_for_constant_setup_data_2 = 16;
    r6.wm.single_program_flow = 1;
    r6.set(&g6::Cmd3dstateConstantPs {
        buffer_0_valid: true,
        ps_constant_buffer_0_read_length: 0,
        ..Default::default()
    });
    r6.set(&g6::Cmd3dstateBindingTablePointers {
        pointer_to_ps_binding_table: 0x7e0,
        ..Default::default()
    });
    r6.extras.push(("PCB_PS", k.clone()));
    let t6 = r6.run(&vs, &objs, &mut Recorder::default()).unwrap();

    let mut r7 = Rig7::new();
    r7.viewport(0, VP, GB);
    r7.clip.clip_enable = true;
    r7.clip.guardband_cliptest_enable = true;
    r7.clip.viewport_z_cliptest_enable = true;
    r7.sf.viewport_transform_enable = true;
    r7.sf.front_winding = 1;
    r7.sbe.number_of_sf_output_attributes = 2;
    r7.sbe.constant_interpolation_enable = 0b10;
    r7.ps.pixel_dispatch_enable_8 = true;
    r7.wm.pixel_shader_uses_source_depth = true;
    r7.wm.pixel_shader_uses_source_w = true;
    r7.wm.barycentric_interpolation_mode = 0b001001;
    r7.ps.dispatch_grf_start_register_for_constant_setup_data_0 = 12;
    r7.ps.dispatch_grf_start_register_for_constant_setup_data_2 = 16;
    r7.ps.single_program_flow = true;
    r7.ps.push_constant_enable = true;
    r7.set(&Cmd3dstatePushConstantAllocPs {
        constant_buffer_offset: 0,
        constant_buffer_size: 8,
    });
    r7.set(&Cmd3dstateConstantPs {
        constant_buffer_0_read_length: 1,
        ..Default::default()
    });
    r7.set(&Cmd3dstateBindingTablePointersPs {
        pointer_to_ps_binding_table: 0x7e0,
    });
    r7.extras.push(("PCB_PS", k));
    let t7 = r7.run(&vs, &objs).unwrap();

    // Clipping cut the scene into several pieces, SIMD16 and SIMD8 both ran.
    assert!(t6.len() > 4);
    assert!(t6.iter().any(|t| t.pixels.simd == 8) && t6.iter().any(|t| t.pixels.simd == 16));
    assert_eq!(t6, t7);
}

/// Gen7 payload additions: the input coverage mask after the position
/// offsets; no setup data without Attribute Enable.
#[test]
fn gen7_payload_coverage_mask_and_attribute_enable() {
    let (vs, objs) = scene();
    let mut rig = Rig7::new();
    rig.viewport(0, VP, GB);
    rig.sf.viewport_transform_enable = true;
    rig.ps.position_xy_offset_select = 2;
    // R0, R1, 4 barycentric registers, the offsets (r6): setup data at r7.
    rig.ps.dispatch_grf_start_register_for_constant_setup_data_0 = 7;
    let base = rig.run(&vs, &objs).unwrap();
    assert!(base.len() > 2);
    assert!(base.iter().all(|t| t.payload.len() == 32 * (7 + 2)));
    // Two coverage-mask registers (r7, r8) follow the offsets: r7 now lies
    // inside the header.
    rig.wm.pixel_shader_uses_input_coverage_mask = true;
    assert_eq!(
        rig.run(&vs, &objs).unwrap_err(),
        DrawError::Invalid("3DSTATE_WM Dispatch GRF Start lies inside the PS payload header")
    );
    rig.ps.dispatch_grf_start_register_for_constant_setup_data_0 = 9;
    let with = rig.run(&vs, &objs).unwrap();
    assert_eq!(base.len(), with.len());
    for (b, t) in base.iter().zip(&with) {
        assert_eq!(t.payload.len(), 32 * (9 + 2));
        // Each pixel's dword: its one sample's coverage (helpers 0).
        for slot in 0..16 {
            let lit = t.pixels.mask >> slot & 1;
            assert_eq!(
                reg_dw(&t.payload, 7 + slot / 8, slot % 8),
                lit,
                "slot {slot}"
            );
        }
        // The header before and the setup data after are unchanged.
        assert_eq!(&b.payload[..32 * 7], &t.payload[..32 * 7]);
        assert_eq!(&b.payload[32 * 7..], &t.payload[32 * 9..]);
        assert_eq!(b.pixels, t.pixels);
    }
    rig.ps.attribute_enable = false;
    let bare = rig.run(&vs, &objs).unwrap();
    assert_eq!(bare.len(), with.len());
    assert!(bare.iter().all(|t| t.payload.len() == 32 * 9));
}

/// Gen7 state the model refuses or rejects, each named.
#[test]
fn gen7_refusals_are_named() {
    let (vs, objs) = scene();
    // A change to a drawable state, and the error it must bring.
    type Case = (fn(&mut Rig7), DrawError);
    let cases: [Case; 8] = [
        (
            |r| r.wm.early_depth_stencil_control = 2,
            DrawError::Unmodelled("3DSTATE_WM Early Depth/Stencil Control other than EDSC_NORMAL"),
        ),
        (
            |r| {
                r.clip.clip_enable = true;
                r.clip.earlycull_enable = true;
                r.clip.cull_mode = 3;
            },
            DrawError::Unmodelled(
                "3DSTATE_CLIP early cull with a cull mode or front winding other than 3DSTATE_SF's",
            ),
        ),
        (
            |r| r.sbe.attribute_3_swizzle_control_mode = 1,
            DrawError::Unmodelled("3DSTATE_SBE per-attribute Swizzle Control Mode"),
        ),
        (
            |r| {
                r.set(&Cmd3dstateMultisample {
                    number_of_multisamples: 3,
                    ..Default::default()
                })
            },
            DrawError::Unmodelled(
                "per-sample pixel shader dispatch (MSDISPMODE_PERSAMPLE with more than one sample)",
            ),
        ),
        (
            |r| r.wm.multisample_rasterization_mode = 2,
            DrawError::Invalid("3DSTATE_SF and 3DSTATE_WM Multisample Rasterization Modes differ"),
        ),
        (
            |r| {
                r.wm.multisample_rasterization_mode = 1;
                r.sf.multisample_rasterization_mode = 1;
            },
            DrawError::Invalid("MSRASTMODE_xxx_PATTERN with one sample (UNDEFINED)"),
        ),
        (
            |r| r.sbe.number_of_sf_output_attributes = 33,
            DrawError::Invalid("3DSTATE_SBE Number of SF Output Attributes above 32"),
        ),
        (
            |r| r.sbe.vertex_urb_entry_read_length = 0,
            DrawError::Invalid("3DSTATE_SBE Vertex URB Entry Read Length is 0"),
        ),
    ];
    for (set, want) in cases {
        let mut rig = Rig7::new();
        rig.run(&vs, &objs).unwrap();
        set(&mut rig);
        assert_eq!(rig.run(&vs, &objs).unwrap_err(), want);
    }
    // The same early cull as the SF's is accepted (it drops what the SF
    // would drop).
    let mut rig = Rig7::new();
    rig.clip.clip_enable = true;
    rig.clip.earlycull_enable = true;
    rig.clip.cull_mode = 3;
    rig.sf.cull_mode = 3;
    assert!(rig.run(&vs, &objs).is_ok());
    // Missing Gen7 commands.
    let mut rig = Rig7::new();
    rig.pack();
    let mut p = rig.packets.clone();
    let mut only = Packets::default();
    for name in ["3DSTATE_SF", "3DSTATE_SBE", "3DSTATE_WM"] {
        only.set(name, p.get(name).unwrap());
    }
    p = only;
    let env = DrawEnv {
        generation: Generation::Gen7,
        packets: &p,
        bases: &rig.bases,
        memory: &mut rig.mem,
    };
    assert_eq!(
        RasterState::decode(&env).unwrap_err(),
        DrawError::Invalid("3DPRIMITIVE without 3DSTATE_PS")
    );
    // A generation without a raster model.
    let env = DrawEnv {
        generation: Generation::Gen12_5,
        packets: &p,
        bases: &rig.bases,
        memory: &mut rig.mem,
    };
    assert!(matches!(
        RasterState::decode(&env),
        Err(DrawError::Unmodelled(_))
    ));
}

/// Random Gen7 state and vertices end in threads or an error, never a
/// panic.
#[test]
fn random_gen7_state_does_not_panic() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        1.0e30,
        f32::NAN,
        f32::INFINITY,
        1.0e-30,
    ];
    let (mut ran, mut drew) = (0, 0);
    for _ in 0..400 {
        let mut rig = Rig7::new();
        rig.viewport(0, VP, [-2.0, 2.0, -2.0, 2.0]);
        let headers = [
            ("3DSTATE_CLIP", packed(&Cmd3dstateClip::default())),
            ("3DSTATE_SF", packed(&Cmd3dstateSf::default())),
            ("3DSTATE_SBE", packed(&Cmd3dstateSbe::default())),
            ("3DSTATE_WM", packed(&Cmd3dstateWm::default())),
            ("3DSTATE_PS", packed(&Cmd3dstatePs::default())),
        ];
        for (name, mut dw) in headers {
            for d in dw.iter_mut().skip(1) {
                *d = next() as u32;
            }
            // Mostly decodable: valid fill modes, clip mode, outputs, read
            // length, single-sample modes, normal early depth, no clears,
            // the setup data past the largest header; the rest random.
            match name {
                "3DSTATE_CLIP" => {
                    dw[2] = (dw[2] & !(7 << 13)) | [0, 3, 4][(dw[2] >> 13) as usize % 3] << 13;
                    dw[1] &= !(1 << 18);
                }
                "3DSTATE_SF" => {
                    dw[1] &= !(1 << 6 | 1 << 4);
                    dw[2] &= !(3 << 8 | 1 << 31);
                }
                "3DSTATE_SBE" => {
                    dw[1] =
                        (dw[1] & !(0x3f << 22 | 0x1f << 11)) | (dw[1] >> 22 & 0xf) << 22 | 1 << 11;
                    for d in &mut dw[2..10] {
                        *d &= !(1 << 11 | 1 << 27);
                    }
                }
                "3DSTATE_WM" => {
                    dw[1] &= !(1 << 30 | 1 << 28 | 1 << 27 | 3 << 21 | 3);
                }
                _ => {
                    dw[4] = (dw[4] & !(1 << 8 | 1 << 6 | 7))
                        | [1, 2, 3, 6, 7][(dw[4] & 7) as usize % 5];
                    dw[5] = 40 << 16 | 40 << 8 | 40;
                }
            }
            rig.extras.push((name, dw));
        }
        let vs: Vec<Vue> = (0..6)
            .map(|_| {
                let mut f = || {
                    let r = next();
                    if r % 3 == 0 {
                        specials[(r >> 8) as usize % specials.len()]
                    } else {
                        ((r >> 16) % 4000) as f32 / 1000.0 - 2.0
                    }
                };
                let p = [f(), f(), f(), f()];
                let mut v = vue(p, &[[f(), f(), f(), f()], [f(), f(), f(), f()]]);
                v.dw[2] = f().to_bits() % 20;
                v
            })
            .collect();
        let objs: Vec<Object> = (0..4)
            .map(|k| {
                let r = next();
                Object {
                    kind: [
                        crate::render3d::types::ObjectKind::Point,
                        crate::render3d::types::ObjectKind::Line,
                        crate::render3d::types::ObjectKind::Triangle,
                        crate::render3d::types::ObjectKind::Rectangle,
                    ][r as usize % 4],
                    v: [
                        (r >> 8) as u32 % 6,
                        (r >> 16) as u32 % 6,
                        (r >> 24) as u32 % 6,
                    ],
                    topology: (r >> 32) as u8 % 0x18,
                    ordinal: k,
                }
            })
            .collect();
        if let Ok(t) = rig.run(&vs, &objs) {
            ran += 1;
            drew += usize::from(!t.is_empty());
        }
    }
    assert!(ran > 100 && drew > 20, "{ran} ran, {drew} drew");
}

/// Without thread dispatch a Gen7 draw needs no 3DSTATE_PS: its pixels go
/// to the depth/stencil-only path, the same ones a dispatching draw lights.
#[test]
fn depth_only_gen7_draw_without_ps() {
    let (vs, objs) = scene();
    let mut rig = Rig7::new();
    rig.viewport(0, VP, GB);
    rig.sf.viewport_transform_enable = true;
    let threads = rig.run(&vs, &objs).unwrap();
    let lit: Vec<_> = threads.iter().map(|t| t.pixels.clone()).collect();
    rig.wm.thread_dispatch_enable = false;
    rig.pack();
    let mut only = Packets::default();
    for name in [
        "3DSTATE_CLIP",
        "3DSTATE_SF",
        "3DSTATE_SBE",
        "3DSTATE_WM",
        "3DSTATE_DRAWING_RECTANGLE",
        "3DSTATE_VIEWPORT_STATE_POINTERS_SF_CLIP",
    ] {
        only.set(name, rig.packets.get(name).unwrap());
    }
    let mut env = DrawEnv {
        generation: Generation::Gen7,
        packets: &only,
        bases: &rig.bases,
        memory: &mut rig.mem,
    };
    let mut om = Recorder::default();
    let none = super::super::rasterize(&mut env, &vs, &objs, &mut om).unwrap();
    assert!(none.is_empty());
    assert!(!lit.is_empty());
    assert_eq!(super::lit_pixels(&om.depth_only), super::lit_pixels(&lit));
}

#[test]
fn gen7_line_stipple_decodes_and_draws_as_on_gen6() {
    use baregpu_hal::gen7::commands::Cmd3dstateLineStipple;
    let (pattern, repeat) = (0xc3a5u32, 3u32);
    let vs: Vec<Vue> = [(1.5, 2.5), (40.5, 9.5)]
        .iter()
        .map(|p| vue([p.0, p.1, 0.0, 1.0], &[[0.0; 4]]))
        .collect();
    let objs = [Object {
        kind: crate::render3d::types::ObjectKind::Line,
        v: [0, 1, 1],
        topology: 0x02,
        ordinal: 0,
    }];
    let mut r7 = Rig7::new();
    r7.wm.line_stipple_enable = true;
    r7.set(&Cmd3dstateLineStipple {
        line_stipple_pattern: pattern,
        line_stipple_repeat_count: repeat,
        // Gen7's U1.16 inverse at 31:15 (Mesa gen7.xml).
        line_stipple_inverse_repeat_count: 65536 / repeat,
        ..Default::default()
    });
    let ls = r7.state().unwrap().line_stipple.unwrap();
    assert_eq!((u32::from(ls.pattern), ls.repeat), (pattern, repeat));
    let t7 = r7.run(&vs, &objs).unwrap();
    let mut r6 = Rig::new();
    r6.wm.line_stipple_enable = true;
    r6.set(&g6::Cmd3dstateLineStipple {
        line_stipple_pattern: pattern,
        line_stipple_repeat_count: repeat,
        line_stipple_inverse_repeat_count: 8192 / repeat,
        ..Default::default()
    });
    let t6 = r6.run(&vs, &objs, &mut Recorder::default()).unwrap();
    let px = |t: &[PixelThread]| {
        let ds: Vec<_> = t.iter().map(|t| t.pixels.clone()).collect();
        super::lit_pixels(&ds)
    };
    let (p6, p7) = (px(&t6), px(&t7));
    assert_eq!(p6, p7);
    // The stipple kept some of the 39 pixels, not all.
    assert!(!p7.is_empty() && p7.len() < 39, "{}", p7.len());
}

/// Ivy Bridge 8X: each sample's coverage at its programmed offset (DW3
/// holding samples 4-7) against the host's top-left rule, and the input
/// coverage mask in the payload carrying each pixel's covered samples.
#[test]
fn gen7_8x_pattern_coverage_reaches_the_payload() {
    // Ordered by distance from the centre, as the programming note asks.
    let offs: [(u8, u8); 8] = [
        (9, 9),
        (7, 5),
        (12, 7),
        (3, 10),
        (5, 13),
        (10, 2),
        (1, 4),
        (14, 14),
    ];
    let o = |k: usize| (u32::from(offs[k].0), u32::from(offs[k].1));
    let mut rig = Rig7::new();
    rig.set(&Cmd3dstateMultisample {
        number_of_multisamples: 3,
        sample0_x_offset: o(0).0,
        sample0_y_offset: o(0).1,
        sample1_x_offset: o(1).0,
        sample1_y_offset: o(1).1,
        sample2_x_offset: o(2).0,
        sample2_y_offset: o(2).1,
        sample3_x_offset: o(3).0,
        sample3_y_offset: o(3).1,
        sample4_x_offset: o(4).0,
        sample4_y_offset: o(4).1,
        sample5_x_offset: o(5).0,
        sample5_y_offset: o(5).1,
        sample6_x_offset: o(6).0,
        sample6_y_offset: o(6).1,
        sample7_x_offset: o(7).0,
        sample7_y_offset: o(7).1,
        ..Default::default()
    });
    rig.sf.multisample_rasterization_mode = 3;
    rig.wm.multisample_rasterization_mode = 3;
    rig.wm.multisample_dispatch_mode = 1;
    rig.wm.pixel_shader_uses_input_coverage_mask = true;
    // R0, R1, four barycentric registers, two of coverage: setup at r8.
    rig.ps.dispatch_grf_start_register_for_constant_setup_data_0 = 8;
    let t = rig
        .run(&super::msaa::tri_vues(), &[tri([0, 1, 2], 0x04, 0)])
        .unwrap();
    let partial = super::msaa::check(&t, &offs, 0xff);
    assert!(partial > 40, "{partial}");
    for th in &t {
        let s = th.pixels.samples.as_ref().unwrap();
        assert_eq!(s.count, 8);
        for slot in 0..16 {
            let want = if th.pixels.mask >> slot & 1 != 0 {
                u32::from(s.coverage[slot])
            } else {
                0
            };
            assert_eq!(reg_dw(&th.payload, 6 + slot / 8, slot % 8), want);
        }
    }
    // Mode OFF_PATTERN draws triangles the same way.
    rig.sf.multisample_rasterization_mode = 1;
    rig.wm.multisample_rasterization_mode = 1;
    let again = rig
        .run(&super::msaa::tri_vues(), &[tri([0, 1, 2], 0x04, 0)])
        .unwrap();
    assert_eq!(again, t);
}
