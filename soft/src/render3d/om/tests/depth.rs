//! Alpha test, depth and stencil against the reference.

use baregpu_hal::gen6::structs::{BlendState, ColorCalcState, DepthStencilState};

use super::*;

const RGBA8: u32 = 0x0C7;

/// COMPAREFUNCTION (003 lines 45509-45523): 0 ALWAYS, 1 NEVER, 2 LESS,
/// 3 EQUAL, 4 LEQUAL, 5 GREATER, 6 NOTEQUAL, 7 GEQUAL.
pub(super) fn ref_compare(f: u32, a: f64, b: f64) -> bool {
    [true, false, a < b, a == b, a <= b, a > b, a != b, a >= b][f as usize]
}

pub(super) fn colour_written(f: &Fixture, s: usize) -> bool {
    let (x, y) = xy8(s);
    f.rt_bytes(x, y) != [0; 4]
}

#[test]
fn alpha_test_in_float_and_unorm8_with_every_function() {
    let alphas = [0.0f32, 0.25, 0.5, 0.5019608, 0.75, 1.0, 0.49, 0.9];
    for func in 0..8u32 {
        for unorm8 in [false, true] {
            for s0a in [false, true] {
                let mut f = Fixture::new(RGBA8, 4);
                f.blend(
                    0,
                    &BlendState {
                        alpha_test_enable: true,
                        alpha_test_function: func,
                        pre_blend_color_clamp_enable: true,
                        ..Default::default()
                    },
                );
                f.color_calc(&ColorCalcState {
                    alpha_test_format: u32::from(!unorm8),
                    // 128 as UNORM8, 0.5 as a float.
                    alpha_reference_value: if unorm8 { 128 } else { 0.5f32.to_bits() },
                    ..Default::default()
                });
                // With source-0 alpha the colour's alpha is not looked at
                // (003 lines 44780-44783).
                let mut w = write8(|s| [1.0, 1.0, 1.0, if s0a { 0.0 } else { alphas[s] }]);
                if s0a {
                    let mut a = [0u32; 16];
                    for s in 0..8 {
                        a[s] = alphas[s].to_bits();
                    }
                    w.src0_alpha = Some(a);
                }
                let mut om = f.om().unwrap();
                f.run(&mut om, &w).unwrap();
                for (s, &a) in alphas.iter().enumerate() {
                    let pass = if unorm8 {
                        ref_compare(func, f64::from(unorm(f64::from(a), 255.0)), 128.0)
                    } else {
                        ref_compare(func, f64::from(a), 0.5)
                    };
                    assert_eq!(
                        colour_written(&f, s),
                        pass,
                        "func {func} unorm8 {unorm8} s0a {s0a} alpha {a}"
                    );
                }
                assert_eq!(
                    om.samples_passed(),
                    alphas
                        .iter()
                        .enumerate()
                        .filter(|&(s, _)| colour_written(&f, s))
                        .count() as u64
                );
            }
        }
    }
}

/// Stored depth of a pixel, as a float in [0, 1] for UNORM formats.
fn stored_depth(f: &Fixture, code: u32, x: u64, y: u64) -> (f64, u8) {
    let at = f.depth_at(x, y);
    let b = f.mem.get(at, f.dbpp as usize).unwrap();
    let byte = |i: usize| b.get(i).copied().unwrap_or(0);
    let d0 = u32::from_le_bytes([byte(0), byte(1), byte(2), byte(3)]);
    match code {
        0 => (f64::from(f32::from_bits(d0)), byte(4)),
        1 => (f64::from(f32::from_bits(d0)), 0),
        2 | 3 => (f64::from(d0 & 0xFF_FFFF), byte(3)),
        _ => (f64::from(d0 & 0xFFFF), 0),
    }
}

fn put_depth(f: &mut Fixture, code: u32, x: u64, y: u64, z: f64, stencil: u8) {
    let at = f.depth_at(x, y);
    let mut b = [0u8; 8];
    match code {
        0 | 1 => {
            b[..4].copy_from_slice(&(z as f32).to_le_bytes());
            b[4] = stencil;
        }
        2 | 3 => {
            b[..4].copy_from_slice(&unorm(z, 16_777_215.0).to_le_bytes());
            b[3] = stencil;
        }
        _ => b[..2].copy_from_slice(&(unorm(z, 65535.0) as u16).to_le_bytes()),
    }
    let n = f.dbpp as usize;
    f.mem.put(at, &b[..n]);
}

#[test]
fn depth_test_with_every_function_and_format_writes_when_enabled() {
    let mut rng = Rng(99);
    for code in [0u32, 1, 2, 3, 5] {
        for func in 0..8u32 {
            for write in [false, true] {
                let mut f = Fixture::new(RGBA8, 4);
                f.blend(
                    0,
                    &BlendState {
                        pre_blend_color_clamp_enable: true,
                        ..Default::default()
                    },
                );
                f.depth_buffer(code);
                f.depth_stencil(&DepthStencilState {
                    depth_test_enable: true,
                    depth_test_function: func,
                    depth_buffer_write_enable: write,
                    ..Default::default()
                });
                // Old depth per slot; slot 2 holds exactly the source.
                let old: Vec<f64> = (0..8)
                    .map(|s| {
                        if s == 2 {
                            0.375
                        } else {
                            f64::from(rng.float(0.0, 1.0))
                        }
                    })
                    .collect();
                let src: Vec<f32> = (0..8)
                    .map(|s| if s == 2 { 0.375 } else { rng.float(0.0, 1.0) })
                    .collect();
                for (s, &o) in old.iter().enumerate() {
                    let (x, y) = xy8(s);
                    put_depth(&mut f, code, x, y, o, 0x5A);
                }
                let mut w = write8(|_| [1.0; 4]);
                let mut z = [0f32; 16];
                z[..8].copy_from_slice(&src);
                w.depth = Some(z);
                let mut om = f.om().unwrap();
                f.run(&mut om, &w).unwrap();
                let mut passed = 0;
                for s in 0..8 {
                    let (x, y) = xy8(s);
                    // Compared in the buffer's format.
                    let (o, n) = match code {
                        0 | 1 => (f64::from(old[s] as f32), f64::from(src[s])),
                        2 | 3 => (
                            f64::from(unorm(old[s], 16_777_215.0)),
                            f64::from(unorm(f64::from(src[s]), 16_777_215.0)),
                        ),
                        _ => (
                            f64::from(unorm(old[s], 65535.0)),
                            f64::from(unorm(f64::from(src[s]), 65535.0)),
                        ),
                    };
                    let pass = ref_compare(func, n, o);
                    passed += u64::from(pass);
                    assert_eq!(
                        colour_written(&f, s),
                        pass,
                        "format {code} func {func} slot {s}"
                    );
                    let (now, st) = stored_depth(&f, code, x, y);
                    let want = if pass && write { n } else { o };
                    assert_eq!(
                        now, want,
                        "format {code} func {func} write {write} slot {s}"
                    );
                    // The stencil byte is left alone.
                    if matches!(code, 0 | 2 | 3) {
                        assert_eq!(st, 0x5A);
                    }
                }
                assert_eq!(om.samples_passed(), passed);
            }
        }
    }
}

#[test]
fn source_depth_comes_from_the_dispatch_and_is_clamped_to_the_viewport() {
    let mut f = Fixture::new(RGBA8, 4);
    f.depth_buffer(1);
    f.viewport(0.0, 0.25);
    f.depth_stencil(&DepthStencilState {
        depth_test_enable: true,
        depth_test_function: 0,
        depth_buffer_write_enable: true,
        ..Default::default()
    });
    // The dispatch's depth is 0.5 for every slot; the viewport clamps it
    // to 0.25 (003 lines 44874-44877). The second half of a SIMD16
    // dispatch is slots 8-15.
    let mut w = write8(|_| [1.0; 4]);
    w.dispatch_slot = 8;
    let mut d = dispatch();
    d.depth[8] = 0.125;
    let mut om = f.om().unwrap();
    om.render_target(&mut f.mem, Some(&d), &w).unwrap();
    assert_eq!(stored_depth(&f, 1, 0, 0).0, 0.125);
    assert_eq!(stored_depth(&f, 1, 1, 0).0, 0.25);
}

/// Reference of the stencil operations (Table 26, 003 lines 45541-45557).
pub(super) fn ref_op(op: u32, s: u8, r: u8) -> u8 {
    match op {
        0 => s,
        1 => 0,
        2 => r,
        3 => {
            if s == 255 {
                255
            } else {
                s + 1
            }
        }
        4 => {
            if s == 0 {
                0
            } else {
                s - 1
            }
        }
        5 => {
            if s == 255 {
                0
            } else {
                s + 1
            }
        }
        6 => {
            if s == 0 {
                255
            } else {
                s - 1
            }
        }
        _ => 255 - s,
    }
}

#[test]
fn stencil_test_and_operations_with_both_faces_and_masks() {
    let mut rng = Rng(4242);
    for round in 0..400 {
        let code = if round % 2 == 0 { 2 } else { 0 };
        let mut f = Fixture::new(RGBA8, 4);
        f.blend(
            0,
            &BlendState {
                pre_blend_color_clamp_enable: true,
                ..Default::default()
            },
        );
        f.depth_buffer(code);
        let r = |rng: &mut Rng, n: u64| (rng.next() % n) as u32;
        let ds = DepthStencilState {
            stencil_test_enable: true,
            stencil_test_function: r(&mut rng, 8),
            stencil_fail_op: r(&mut rng, 8),
            stencil_pass_depth_fail_op: r(&mut rng, 8),
            stencil_pass_depth_pass_op: r(&mut rng, 8),
            stencil_buffer_write_enable: !rng.next().is_multiple_of(4),
            double_sided_stencil_enable: rng.next().is_multiple_of(2),
            backface_stencil_test_function: r(&mut rng, 8),
            backface_stencil_fail_op: r(&mut rng, 8),
            backface_stencil_pass_depth_fail_op: r(&mut rng, 8),
            backface_stencil_pass_depth_pass_op: r(&mut rng, 8),
            stencil_test_mask: r(&mut rng, 256),
            stencil_write_mask: r(&mut rng, 256),
            backface_stencil_test_mask: r(&mut rng, 256),
            backface_stencil_write_mask: r(&mut rng, 256),
            depth_test_enable: true,
            depth_test_function: 2, // LESS
            depth_buffer_write_enable: false,
        };
        f.depth_stencil(&ds);
        let cc = ColorCalcState {
            stencil_reference_value: r(&mut rng, 256),
            backface_stencil_reference_value: r(&mut rng, 256),
            ..Default::default()
        };
        f.color_calc(&cc);
        let back = rng.next().is_multiple_of(2);
        let old: Vec<u8> = (0..8).map(|_| rng.next() as u8).collect();
        let olddepth: Vec<f64> = (0..8)
            .map(|s| if s % 2 == 0 { 0.25 } else { 0.75 })
            .collect();
        for s in 0..8 {
            let (x, y) = xy8(s);
            put_depth(&mut f, code, x, y, olddepth[s], old[s]);
        }
        let mut w = write8(|_| [1.0; 4]);
        w.back_facing = back;
        w.depth = Some([0.5; 16]);
        let mut om = f.om().unwrap();
        f.run(&mut om, &w).unwrap();
        // Backface state only with double-sided stencil on a back face.
        let useback = back && ds.double_sided_stencil_enable;
        let pick = |front: u32, backv: u32| if useback { backv } else { front };
        let func = pick(ds.stencil_test_function, ds.backface_stencil_test_function);
        let tmask = pick(ds.stencil_test_mask, ds.backface_stencil_test_mask) as u8;
        let wmask = pick(ds.stencil_write_mask, ds.backface_stencil_write_mask) as u8;
        let reference = pick(
            cc.stencil_reference_value,
            cc.backface_stencil_reference_value,
        ) as u8;
        for s in 0..8 {
            let (x, y) = xy8(s);
            let spass = ref_compare(
                func,
                f64::from(reference & tmask),
                f64::from(old[s] & tmask),
            );
            let dpass = 0.5 < olddepth[s];
            let op = match (spass, dpass) {
                (false, _) => pick(ds.stencil_fail_op, ds.backface_stencil_fail_op),
                (true, false) => pick(
                    ds.stencil_pass_depth_fail_op,
                    ds.backface_stencil_pass_depth_fail_op,
                ),
                (true, true) => pick(
                    ds.stencil_pass_depth_pass_op,
                    ds.backface_stencil_pass_depth_pass_op,
                ),
            };
            let v = ref_op(op, old[s], reference);
            let want = if ds.stencil_buffer_write_enable {
                (old[s] & !wmask) | (v & wmask)
            } else {
                old[s]
            };
            assert_eq!(
                stored_depth(&f, code, x, y).1,
                want,
                "round {round} slot {s}"
            );
            assert_eq!(
                colour_written(&f, s),
                spass && dpass,
                "round {round} slot {s}"
            );
        }
    }
}

#[test]
fn only_the_last_render_target_write_updates_depth_and_counts() {
    let mut f = Fixture::new(RGBA8, 4);
    f.depth_buffer(1);
    f.depth_stencil(&DepthStencilState {
        depth_test_enable: true,
        depth_test_function: 2,
        depth_buffer_write_enable: true,
        ..Default::default()
    });
    for s in 0..8 {
        let (x, y) = xy8(s);
        put_depth(&mut f, 1, x, y, 1.0, 0);
    }
    let mut w = write8(|_| [1.0; 4]);
    w.depth = Some([0.5; 16]);
    w.last = false;
    let mut om = f.om().unwrap();
    f.run(&mut om, &w).unwrap();
    assert_eq!(stored_depth(&f, 1, 0, 0).0, 1.0);
    assert_eq!(om.samples_passed(), 0);
    assert!(colour_written(&f, 0));
    w.last = true;
    f.run(&mut om, &w).unwrap();
    assert_eq!(stored_depth(&f, 1, 0, 0).0, 0.5);
    assert_eq!(om.samples_passed(), 8);
}

#[test]
fn depth_only_pixels_test_and_write_depth() {
    let mut f = Fixture::new(RGBA8, 4);
    f.depth_buffer(5);
    f.depth_stencil(&DepthStencilState {
        depth_test_enable: true,
        depth_test_function: 2,
        depth_buffer_write_enable: true,
        ..Default::default()
    });
    let mut d = dispatch();
    d.mask = 0x0F0F;
    for s in 0..16 {
        d.depth[s] = if s % 2 == 0 { 0.25 } else { 0.875 };
    }
    for x in 0..8 {
        for y in 0..2 {
            put_depth(&mut f, 5, x, y, 0.5, 0);
        }
    }
    let mut om = f.om().unwrap();
    om.depth_stencil_only(&mut f.mem, &d).unwrap();
    for s in 0..16usize {
        let (x, y) = ((2 * (s / 4) + s % 2) as u64, (s % 4 / 2) as u64);
        let lit = d.mask >> s & 1 == 1;
        let want = if lit && s % 2 == 0 {
            unorm(0.25, 65535.0)
        } else {
            unorm(0.5, 65535.0)
        };
        assert_eq!(stored_depth(&f, 5, x, y).0, f64::from(want), "slot {s}");
    }
    assert_eq!(om.samples_passed(), 4);
    // Colour is untouched.
    assert!(!(0..8).any(|s| colour_written(&f, s)));
}

#[test]
fn the_separate_stencil_buffer_is_w_tiled_with_a_doubled_pitch() {
    use baregpu_hal::Packet;
    use baregpu_hal::gen6::commands::{Cmd3dstateDepthBuffer, Cmd3dstateStencilBuffer};
    const STENCIL: u64 = 0xC_0000;
    let mut f = Fixture::new(RGBA8, 4);
    f.depth_buffer(1);
    let mut p =
        Cmd3dstateDepthBuffer::unpack(f.packets.get(Cmd3dstateDepthBuffer::NAME).unwrap()).unwrap();
    p.hierarchical_depth_buffer_enable = true;
    p.separate_stencil_buffer_enable = true;
    f.packets.set(Cmd3dstateDepthBuffer::NAME, &pack(&p));
    // 16 pixels wide: one 64-byte W tile a row, programmed as 128 bytes.
    let s = Cmd3dstateStencilBuffer {
        surface_pitch: 127,
        surface_base_address: STENCIL,
        ..Default::default()
    };
    f.packets.set(Cmd3dstateStencilBuffer::NAME, &pack(&s));
    // W-major tiles of 64 x 64 bytes in 8 x 8 blocks (003 lines
    // 7374-7379); inside a block, the bits of y and x interleave from
    // bit 0: x0, y0, x1, y1, x2, y2 (TiledOffsetW, 003 lines 7450-7460).
    let w_at = |x: u64, y: u64| {
        let mut inner = 0;
        for b in 0..3 {
            inner |= (x >> b & 1) << (2 * b) | (y >> b & 1) << (2 * b + 1);
        }
        STENCIL + 512 * (x / 8) + 64 * (y / 8) + inner
    };
    f.depth_stencil(&DepthStencilState {
        stencil_test_enable: true,
        stencil_test_function: 3,      // EQUAL
        stencil_pass_depth_pass_op: 2, // REPLACE
        stencil_fail_op: 1,            // ZERO
        stencil_buffer_write_enable: true,
        stencil_test_mask: 0xFF,
        stencil_write_mask: 0xFF,
        ..Default::default()
    });
    f.color_calc(&ColorCalcState {
        stencil_reference_value: 0x42,
        ..Default::default()
    });
    // Slots whose stencil is 0x42 pass and keep it; the others go to 0.
    for s in 0..8 {
        let (x, y) = xy8(s);
        let v = if s % 3 == 0 { 0x42 } else { 0x17 };
        f.mem.put(w_at(x, y), &[v]);
    }
    let mut w = write8(|_| [1.0; 4]);
    w.depth = Some([0.5; 16]);
    let mut om = f.om().unwrap();
    f.run(&mut om, &w).unwrap();
    for s in 0..8 {
        let (x, y) = xy8(s);
        let pass = s % 3 == 0;
        assert_eq!(
            f.mem.get(w_at(x, y), 1).unwrap()[0],
            if pass { 0x42 } else { 0 },
            "slot {s}"
        );
        assert_eq!(colour_written(&f, s), pass, "slot {s}");
    }
}

#[test]
fn the_depth_coordinate_offset_moves_the_depth_pixel() {
    use baregpu_hal::Packet;
    use baregpu_hal::gen6::commands::Cmd3dstateDepthBuffer;
    let mut f = Fixture::new(RGBA8, 4);
    f.depth_buffer(1);
    let mut p =
        Cmd3dstateDepthBuffer::unpack(f.packets.get(Cmd3dstateDepthBuffer::NAME).unwrap()).unwrap();
    // "unconditionally added to the RT pixel coordinates" (003 lines
    // 44806-44808).
    p.depth_coordinate_offset_x = 3;
    p.depth_coordinate_offset_y = 1;
    f.packets.set(Cmd3dstateDepthBuffer::NAME, &pack(&p));
    f.depth_stencil(&DepthStencilState {
        depth_buffer_write_enable: true,
        ..Default::default()
    });
    let mut w = write8(|_| [1.0; 4]);
    w.depth = Some(core::array::from_fn(|s| s as f32 / 16.0));
    let mut om = f.om().unwrap();
    f.run(&mut om, &w).unwrap();
    for s in 0..8 {
        let (x, y) = xy8(s);
        assert_eq!(
            stored_depth(&f, 1, x + 3, y + 1).0,
            s as f64 / 16.0,
            "slot {s}"
        );
    }
    // A pixel moved off the buffer is refused, not written elsewhere.
    p.depth_coordinate_offset_x = -1;
    f.packets.set(Cmd3dstateDepthBuffer::NAME, &pack(&p));
    let mut om = f.om().unwrap();
    assert!(f.run(&mut om, &w).is_err());
}

#[test]
fn a_depth_buffer_at_a_mip_level_uses_that_level() {
    use baregpu_hal::Packet;
    use baregpu_hal::gen6::commands::Cmd3dstateDepthBuffer;
    // LOD 1 of the 16 x 8 D32_FLOAT buffer: 8 x 4 at rows 8-11
    // (MIPLAYOUT_BELOW, j = 4: LOD 0 takes 8 rows).
    let mut f = Fixture::new(RGBA8, 4);
    f.depth_buffer(1);
    let mut p =
        Cmd3dstateDepthBuffer::unpack(f.packets.get(Cmd3dstateDepthBuffer::NAME).unwrap()).unwrap();
    p.lod = 1;
    f.packets.set(Cmd3dstateDepthBuffer::NAME, &pack(&p));
    f.depth_stencil(&DepthStencilState {
        depth_buffer_write_enable: true,
        ..Default::default()
    });
    let mut w = write8(|_| [1.0; 4]);
    w.depth = Some(core::array::from_fn(|s| s as f32 / 16.0));
    let mut om = f.om().unwrap();
    f.run(&mut om, &w).unwrap();
    for s in 0..8 {
        let (x, y) = xy8(s);
        assert_eq!(stored_depth(&f, 1, x, 8 + y).0, s as f64 / 16.0, "slot {s}");
        assert_eq!(stored_depth(&f, 1, x, y).0, 0.0, "slot {s} in LOD 0");
    }
}

#[test]
fn ps_depth_count_follows_the_wm_statistics_enable() {
    use baregpu_hal::Packet;
    use baregpu_hal::gen6::commands::Cmd3dstateWm;
    // (statistics, dispatch) -> counted: the manual's rule (003 lines
    // 46478-46481), and Sandy Bridge counting without a pixel shader
    // whatever the bit (Mesa blorp_clear.c).
    for (statistics, threads, counted) in [
        (true, true, true),
        (false, true, false),
        (false, false, true),
    ] {
        let mut f = Fixture::new(RGBA8, 4);
        f.depth_buffer(5);
        f.depth_stencil(&DepthStencilState {
            depth_buffer_write_enable: true,
            ..Default::default()
        });
        let wm = Cmd3dstateWm {
            statistics_enable: statistics,
            thread_dispatch_enable: threads,
            ..Default::default()
        };
        f.packets.set(Cmd3dstateWm::NAME, &pack(&wm));
        let mut d = dispatch();
        d.mask = 0x00F3;
        let mut om = f.om().unwrap();
        om.depth_stencil_only(&mut f.mem, &d).unwrap();
        let want = if counted { 6 } else { 0 };
        assert_eq!(
            om.samples_passed(),
            want,
            "statistics {statistics} dispatch {threads}"
        );
        // The depth is written either way.
        assert_eq!(stored_depth(&f, 5, 0, 0).0, f64::from(unorm(0.5, 65535.0)));
    }
}
