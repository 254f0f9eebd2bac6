//! The windower: Table 22's kernels, the grouping of subspans into
//! threads, and the payload's register layout.

use alloc::vec::Vec;

use baregpu_hal::gen6::commands::Cmd3dstateConstantPs;

use super::super::windower::{kernels, pick_width};
use super::{Recorder, Rig, reg_dw, reg_f, tri, vue};
use crate::render3d::types::Vue;

#[test]
fn table_22_kernels() {
    let mut rig = Rig::new();
    // (8, 16, 32 enabled) -> (width, KSP index) per enabled width.
    type Case = ((bool, bool, bool), &'static [(u8, usize)]);
    let cases: [Case; 6] = [
        ((true, false, false), &[(8, 0)]),
        ((false, true, false), &[(16, 0)]),
        ((true, true, false), &[(8, 0), (16, 2)]),
        ((false, false, true), &[(32, 0)]),
        ((false, true, true), &[(16, 2), (32, 1)]),
        ((true, true, true), &[(8, 0), (16, 2), (32, 1)]),
    ];
    for ((e8, e16, e32), want) in cases {
        rig.wm.pixel_dispatch_enable_8 = e8;
        rig.wm.pixel_dispatch_enable_16 = e16;
        rig.wm.pixel_dispatch_enable_32 = e32;
        let st = rig.state().unwrap();
        assert_eq!(kernels(&st.wm).unwrap(), want);
    }
    rig.wm.pixel_dispatch_enable_8 = true;
    rig.wm.pixel_dispatch_enable_16 = false;
    rig.wm.pixel_dispatch_enable_32 = true;
    let st = rig.state().unwrap();
    assert!(kernels(&st.wm).is_err());
    // The tail takes the narrowest width that holds it.
    let w = [(8u8, 0usize), (16, 2)];
    assert_eq!(pick_width(&w, 9), (16, 2));
    assert_eq!(pick_width(&w, 3), (16, 2));
    assert_eq!(pick_width(&w, 2), (8, 0));
}

/// A screen-space rectangle of two triangles covering [0, 8) x [0, 2):
/// four subspans.
fn strip() -> Vec<Vue> {
    let a = |x: f32, y: f32| vue([x, y, 0.5, 1.0], &[[x, y, 1.0, 2.0]]);
    [a(0.0, 0.0), a(8.0, 0.0), a(0.0, 2.0), a(8.0, 2.0)].into()
}

#[test]
fn payload_layout_simd8_with_every_phase() {
    let mut rig = Rig::new();
    rig.wm.pixel_dispatch_enable_16 = false;
    rig.wm.pixel_dispatch_enable_8 = true;
    // Perspective pixel + linear pixel barycentrics, source depth and W,
    // position offsets: R0, R1, 2 + 2, 1, 1, 1 = 9 registers, then the
    // padding to r12, two constant registers, the setup data.
    rig.wm.barycentric_interpolation_mode = 0b1001;
    rig.wm.pixel_shader_uses_source_depth = true;
    rig.wm.pixel_shader_uses_source_w = true;
    rig.wm.position_xy_offset_select = 2;
    rig.wm.dispatch_grf_start_register_for_constant_setup_data_0 = 12;
    rig.set(&Cmd3dstateConstantPs {
        buffer_0_valid: true,
        pointer_to_ps_constant_buffer_0: 0x800,
        ps_constant_buffer_0_read_length: 1,
        ..Default::default()
    });
    let vs = strip();
    let objs = [tri([0, 1, 2], 0x05, 0), tri([1, 3, 2], 0x05, 1)];
    // The front end loads the constants when the command executes.
    assert!(rig.run(&vs, &objs, &mut Recorder::default()).is_err());
    let k: Vec<u32> = (0..16).map(|i| 0xc000 + i).collect();
    rig.extras.push(("PCB_PS", k));
    let threads = rig.run(&vs, &objs, &mut Recorder::default()).unwrap();
    assert!(!threads.is_empty());
    let t = &threads[0];
    assert_eq!(t.pixels.simd, 8);
    assert_eq!(t.kernel, 0x100_0000 + 0x40);
    assert_eq!(t.payload.len(), 32 * (12 + 2 + 2));
    // R1: subspans 0 and 1 of the first triangle (top-left half of the
    // strip: y 0..1, the diagonal from (8,0) to (0,2)).
    assert_eq!(reg_dw(&t.payload, 1, 2), t.pixels.corners[0]);
    assert_eq!(
        reg_dw(&t.payload, 1, 7),
        t.pixels.mask << 16 | t.pixels.mask
    );
    // Barycentrics: w = 1, so the perspective ones equal the linear ones,
    // and b1 + b2 <= 1 inside.
    for s in 0..8 {
        assert_eq!(reg_f(&t.payload, 2, s), reg_f(&t.payload, 4, s));
        assert_eq!(reg_f(&t.payload, 3, s), reg_f(&t.payload, 5, s));
    }
    // Source depth (z = 0.5 everywhere) and W (1).
    for s in 0..8 {
        assert_eq!(reg_f(&t.payload, 6, s), 0.5);
        assert_eq!(reg_f(&t.payload, 7, s), 1.0);
    }
    // Position offsets: 0.5 in U4.4 for X and Y of each slot.
    assert_eq!(reg_dw(&t.payload, 8, 0), 0x0808_0808);
    assert_eq!(reg_dw(&t.payload, 8, 3), 0x0808_0808);
    assert_eq!(reg_dw(&t.payload, 8, 4), 0);
    // Padding, then the constants at r12.
    assert_eq!(reg_dw(&t.payload, 9, 0), 0);
    for i in 0..16 {
        assert_eq!(reg_dw(&t.payload, 12 + i / 8, i % 8), 0xc000 + i as u32);
    }
    // Setup data: attribute 0's x, y at r14 as a1, a2, -, a0 pairs.
    let (a1, a2, a0) = (
        reg_f(&t.payload, 14, 0),
        reg_f(&t.payload, 14, 1),
        reg_f(&t.payload, 14, 3),
    );
    // x at v0 = 0, v1 = 8, v2 = 0.
    assert_eq!((a0, a1, a2), (0.0, 8.0, 0.0));
    assert_eq!(reg_f(&t.payload, 15, 7), 2.0);
}

#[test]
fn grf_start_inside_the_header_is_refused() {
    let mut rig = Rig::new();
    rig.wm.dispatch_grf_start_register_for_constant_setup_data_0 = 3;
    let vs = strip();
    assert!(
        rig.run(&vs, &[tri([0, 1, 2], 0x04, 0)], &mut Recorder::default())
            .is_err()
    );
}

#[test]
fn simd32_payload_repeats_the_phases_per_16_slots() {
    let mut rig = Rig::new();
    rig.wm.pixel_dispatch_enable_16 = false;
    rig.wm.pixel_dispatch_enable_32 = true;
    rig.wm.pixel_shader_uses_source_depth = true;
    rig.wm.dispatch_grf_start_register_for_constant_setup_data_0 = 16;
    // A 16x4 rectangle: 16 subspans, two SIMD32 threads.
    let a = |x: f32, y: f32| vue([x, y, 0.25, 1.0], &[[x, y, 0.0, 0.0]]);
    let vs: Vec<Vue> = [a(16.0, 4.0), a(0.0, 4.0), a(0.0, 0.0)].into();
    let o = crate::render3d::types::Object {
        kind: crate::render3d::types::ObjectKind::Rectangle,
        v: [0, 1, 2],
        topology: 0x0f,
        ordinal: 0,
    };
    let threads = rig.run(&vs, &[o], &mut Recorder::default()).unwrap();
    assert_eq!(threads.len(), 2);
    let t = &threads[0];
    assert_eq!(
        (t.pixels.simd, t.dispatch_mask, t.pixels.mask),
        (32, u32::MAX, u32::MAX)
    );
    // R0, R1, R2, then for slots 0-15: b (4), depth (2); for 16-31 the same.
    assert_eq!(reg_dw(&t.payload, 2, 2), t.pixels.corners[4]);
    for s in 0..8 {
        assert_eq!(reg_f(&t.payload, 7, s), 0.25);
        assert_eq!(reg_f(&t.payload, 14, s), 0.25);
    }
    // Linear x at slot 16 (subspan 4's upper-left): b1 weighs v1 - v0.
    let c = t.pixels.corners[4];
    let x = (c & 0xffff) as f32 + 0.5;
    let (b1, b2) = (reg_f(&t.payload, 9, 0), reg_f(&t.payload, 10, 0));
    let a1 = reg_f(&t.payload, 16, 0);
    let a2 = reg_f(&t.payload, 16, 1);
    let a0 = reg_f(&t.payload, 16, 3);
    assert!((a0 + a1 * b1 + a2 * b2 - x).abs() < 1e-4);
}

#[test]
fn mixed_widths_use_their_own_kernel_and_grf_start() {
    let mut rig = Rig::new();
    rig.wm.pixel_dispatch_enable_8 = true;
    // A 10x2 rectangle: five subspans, a SIMD16 thread (KSP[2], setup
    // data at r8) then a SIMD8 one (KSP[0], at r6).
    let a = |x: f32, y: f32| vue([x, y, 0.0, 1.0], &[[x, 0.0, 0.0, 0.0]]);
    let vs: Vec<Vue> = [a(10.0, 2.0), a(0.0, 2.0), a(0.0, 0.0)].into();
    let o = crate::render3d::types::Object {
        kind: crate::render3d::types::ObjectKind::Rectangle,
        v: [0, 1, 2],
        topology: 0x0f,
        ordinal: 0,
    };
    let t = rig.run(&vs, &[o], &mut Recorder::default()).unwrap();
    assert_eq!(t.len(), 2);
    assert_eq!(
        (t[0].pixels.simd, t[0].kernel, t[0].grf_start),
        (16, 0x100_0000 + 0xc0, 8)
    );
    assert_eq!(
        (t[1].pixels.simd, t[1].kernel, t[1].grf_start),
        (8, 0x100_0000 + 0x40, 6)
    );
    assert_eq!((t[0].dispatch_mask, t[1].dispatch_mask), (0xffff, 0xf));
    assert_eq!(t[0].payload.len(), 32 * 10);
    assert_eq!(t[1].payload.len(), 32 * 8);
    // a0 of x is v0's 10 in both.
    assert_eq!(reg_f(&t[0].payload, 8, 3), 10.0);
    assert_eq!(reg_f(&t[1].payload, 6, 3), 10.0);
    assert_eq!(t[1].pixels.corners[0], 8);
}
