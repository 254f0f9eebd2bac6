//! The Ivy Bridge output merger: state from the Gen7 commands (one
//! pointer per command, hal `gen7` tables from Mesa gen7.xml), the Gen7
//! depth buffer with its write enables, the separate W-tiled stencil
//! buffer, render targets in RENDER_SURFACE_STATE, and what is refused.

use baregpu_hal::Generation;
use baregpu_hal::Packet;
use baregpu_hal::gen6::structs::{BlendState, ColorCalcState, DepthStencilState};
use baregpu_hal::gen7::commands::{
    Cmd3dstateBindingTablePointersPs, Cmd3dstateBlendStatePointers, Cmd3dstateCcStatePointers,
    Cmd3dstateClearParams, Cmd3dstateDepthBuffer, Cmd3dstateDepthStencilStatePointers,
    Cmd3dstateHierDepthBuffer, Cmd3dstateMultisample, Cmd3dstatePs, Cmd3dstateStencilBuffer,
    Cmd3dstateViewportStatePointersCc, Cmd3dstateWm,
};
use baregpu_hal::gen7::structs::RenderSurfaceState;

use super::depth::{colour_written, ref_compare, ref_op};
use super::*;

const RGBA8: u32 = 0x0C7;
const STENCIL: u64 = 0xC_0000;

pub(super) fn set<P: Packet>(f: &mut Fixture, p: &P) {
    f.packets.set(P::NAME, &pack(p));
}

/// The Gen7 draw state: the five pointer commands at the fixture's state,
/// the PS binding table at 0x20 with entry 0 at a linear 16 x 8
/// RENDER_SURFACE_STATE of `format`.
pub(super) fn fixture(format: u32, bpp: u64) -> Fixture {
    let mut f = Fixture::new(format, bpp);
    f.packets.clear();
    f.generation = Generation::Gen7;
    set(
        &mut f,
        &Cmd3dstateBlendStatePointers {
            blend_state_pointer: BLEND_AT,
            must_be_one: true,
        },
    );
    set(
        &mut f,
        &Cmd3dstateDepthStencilStatePointers {
            pointer_to_depth_stencil_state: DS_AT,
            must_be_one: true,
        },
    );
    set(
        &mut f,
        &Cmd3dstateCcStatePointers {
            color_calc_state_pointer: CC_AT,
            must_be_one: true,
        },
    );
    set(
        &mut f,
        &Cmd3dstateBindingTablePointersPs {
            pointer_to_ps_binding_table: 0x20,
        },
    );
    // CC_VIEWPORT 0 with the whole depth range: without the command the
    // merger would read one at Dynamic State Base (the pointer's reset
    // value).
    set(
        &mut f,
        &Cmd3dstateViewportStatePointersCc {
            cc_viewport_pointer: VP_AT,
        },
    );
    f.set_dw(
        DYNAMIC + u64::from(VP_AT),
        &[0f32.to_bits(), 1f32.to_bits()],
    );
    set(
        &mut f,
        &Cmd3dstateWm {
            statistics_enable: true,
            ..Default::default()
        },
    );
    surface(&mut f, format, 0);
    f
}

/// Entry 0's RENDER_SURFACE_STATE (8 dwords): linear (0) or Y tiled (2)
/// with a 512-byte pitch.
fn surface(f: &mut Fixture, format: u32, tiling: u32) {
    if tiling != 0 {
        f.tiling = tiling;
        f.pitch = 512;
    }
    let ss = RenderSurfaceState {
        surface_type: 1,
        surface_format: format,
        surface_base_address: RT,
        width: 15,
        height: 7,
        surface_pitch: (f.pitch - 1) as u32,
        tiled_surface: tiling != 0,
        tile_walk: u32::from(tiling == 2),
        ..Default::default()
    };
    f.set_dw(SURFACES + 0x40, &pack(&ss));
}

/// A Gen7 16 x 8 depth buffer of format `code` with the command's write
/// enables, and a W-tiled stencil buffer when `stencil` (else the all-zero
/// 3DSTATE_STENCIL_BUFFER Mesa sends for none).
pub(super) fn depth7(
    f: &mut Fixture,
    code: u32,
    depth_write: bool,
    stencil_write: bool,
    stencil: bool,
) {
    f.dbpp = if code == 5 { 2 } else { 4 };
    f.dpitch = 128;
    set(
        f,
        &Cmd3dstateDepthBuffer {
            surface_type: 1,
            depth_write_enable: depth_write,
            stencil_write_enable: stencil_write,
            surface_format: code,
            surface_pitch: 127,
            surface_base_address: DEPTH,
            width: 15,
            height: 7,
            ..Default::default()
        },
    );
    let sb = if stencil {
        // 16 pixels wide: one 64-byte W tile a row, programmed doubled.
        Cmd3dstateStencilBuffer {
            surface_pitch: 127,
            surface_base_address: STENCIL,
            ..Default::default()
        }
    } else {
        Cmd3dstateStencilBuffer::default()
    };
    set(f, &sb);
    set(f, &Cmd3dstateHierDepthBuffer::default());
    set(
        f,
        &Cmd3dstateClearParams {
            depth_clear_value: 0,
            depth_clear_value_valid: true,
        },
    );
}

/// Address of stencil pixel (x, y) in the W-tiled buffer: 64 x 64-byte
/// tiles of 8 x 8 blocks, in a block the bits of x and y interleave x0,
/// y0, x1, y1, x2, y2 (TiledOffsetW, 003 lines 7450-7460).
pub(super) fn w_at(x: u64, y: u64) -> u64 {
    let mut inner = 0;
    for b in 0..3 {
        inner |= (x >> b & 1) << (2 * b) | (y >> b & 1) << (2 * b + 1);
    }
    STENCIL + 512 * (x / 8) + 64 * (y / 8) + inner
}

fn depth_word(f: &Fixture, code: u32, x: u64, y: u64) -> f64 {
    let b = f.mem.get(f.depth_at(x, y), f.dbpp as usize).unwrap();
    match code {
        1 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        3 => f64::from(u32::from_le_bytes([b[0], b[1], b[2], 0])),
        _ => f64::from(u16::from_le_bytes([b[0], b[1]])),
    }
}

fn put_depth_word(f: &mut Fixture, code: u32, x: u64, y: u64, z: f64, x8: u8) {
    let at = f.depth_at(x, y);
    let ok = match code {
        1 => f.mem.put(at, &(z as f32).to_le_bytes()),
        3 => {
            let mut b = unorm(z, 16_777_215.0).to_le_bytes();
            b[3] = x8;
            f.mem.put(at, &b)
        }
        _ => f.mem.put(at, &(unorm(z, 65535.0) as u16).to_le_bytes()),
    };
    assert!(ok);
}

#[test]
fn gen7_pointer_commands_name_the_blend_state_and_a_tiled_surface() {
    // SRC_ALPHA / INV_SRC_ALPHA over a known destination, on a Y-tiled
    // target described by RENDER_SURFACE_STATE.
    let mut f = fixture(RGBA8, 4);
    surface(&mut f, RGBA8, 2);
    f.blend(
        0,
        &BlendState {
            color_buffer_blend_enable: true,
            source_blend_factor: 0x03,
            destination_blend_factor: 0x13,
            source_alpha_blend_factor: 0x03,
            destination_alpha_blend_factor: 0x13,
            pre_blend_color_clamp_enable: true,
            post_blend_color_clamp_enable: true,
            ..Default::default()
        },
    );
    f.color_calc(&ColorCalcState::default());
    f.depth_stencil(&DepthStencilState::default());
    let dst = [40u8, 80, 120, 200];
    for s in 0..8 {
        let (x, y) = xy8(s);
        let at = f.rt_at(x, y);
        f.mem.put(at, &dst);
    }
    let src = |s: usize| [0.9, 0.1 * s as f32, 0.5, 0.125 * s as f32 + 0.05];
    let w = write8(src);
    let mut om = f.om().unwrap();
    f.run(&mut om, &w).unwrap();
    for s in 0..8 {
        let (x, y) = xy8(s);
        let c = src(s).map(f64::from);
        let a = c[3];
        let want: Vec<u8> = (0..4)
            .map(|ch| unorm(c[ch] * a + f64::from(dst[ch]) / 255.0 * (1.0 - a), 255.0) as u8)
            .collect();
        let got = f.rt_bytes(x, y);
        for ch in 0..4 {
            // One step for the f32 blend against the f64 reference.
            assert!(
                (i32::from(got[ch]) - i32::from(want[ch])).abs() <= 1,
                "slot {s} channel {ch}: {got:?} vs {want:?}"
            );
        }
    }
}

#[test]
fn gen7_depth_test_with_every_function_and_format_and_both_write_enables() {
    let mut rng = Rng(77);
    for code in [1u32, 3, 5] {
        for func in 0..8u32 {
            for (state_write, cmd_write) in [(false, true), (true, false), (true, true)] {
                let mut f = fixture(RGBA8, 4);
                f.blend(
                    0,
                    &BlendState {
                        pre_blend_color_clamp_enable: true,
                        ..Default::default()
                    },
                );
                depth7(&mut f, code, cmd_write, false, false);
                f.depth_stencil(&DepthStencilState {
                    depth_test_enable: true,
                    depth_test_function: func,
                    depth_buffer_write_enable: state_write,
                    ..Default::default()
                });
                let old: Vec<f64> = (0..8)
                    .map(|s| {
                        if s == 3 {
                            0.625
                        } else {
                            f64::from(rng.float(0.0, 1.0))
                        }
                    })
                    .collect();
                let src: Vec<f32> = (0..8)
                    .map(|s| if s == 3 { 0.625 } else { rng.float(0.0, 1.0) })
                    .collect();
                for (s, &o) in old.iter().enumerate() {
                    let (x, y) = xy8(s);
                    put_depth_word(&mut f, code, x, y, o, 0xA5);
                }
                let mut w = write8(|_| [1.0; 4]);
                let mut z = [0f32; 16];
                z[..8].copy_from_slice(&src);
                w.depth = Some(z);
                let mut om = f.om().unwrap();
                f.run(&mut om, &w).unwrap();
                for s in 0..8 {
                    let (x, y) = xy8(s);
                    let (o, n) = match code {
                        1 => (f64::from(old[s] as f32), f64::from(src[s])),
                        3 => (
                            f64::from(unorm(old[s], 16_777_215.0)),
                            f64::from(unorm(f64::from(src[s]), 16_777_215.0)),
                        ),
                        _ => (
                            f64::from(unorm(old[s], 65535.0)),
                            f64::from(unorm(f64::from(src[s]), 65535.0)),
                        ),
                    };
                    let pass = ref_compare(func, n, o);
                    assert_eq!(colour_written(&f, s), pass, "{code} {func} slot {s}");
                    // Written only with both enables.
                    let want = if pass && state_write && cmd_write {
                        n
                    } else {
                        o
                    };
                    assert_eq!(
                        depth_word(&f, code, x, y),
                        want,
                        "format {code} func {func} writes {state_write}/{cmd_write} slot {s}"
                    );
                    if code == 3 {
                        let b = f.mem.get(f.depth_at(x, y), 4).unwrap();
                        assert_eq!(b[3], 0xA5, "the X8 byte keeps its contents");
                    }
                }
            }
        }
    }
}

#[test]
fn gen7_separate_stencil_with_every_function_and_operation() {
    let mut rng = Rng(0x5EED);
    // Every compare function against every operation in each of the three
    // update slots, both faces, with the command's write enable on and off.
    for func in 0..8u32 {
        for op in 0..8u32 {
            for (back, cmd_write) in [(false, true), (true, true), (false, false)] {
                let mut f = fixture(RGBA8, 4);
                f.blend(
                    0,
                    &BlendState {
                        pre_blend_color_clamp_enable: true,
                        ..Default::default()
                    },
                );
                depth7(&mut f, 1, false, cmd_write, true);
                let mask = (rng.next() % 256) as u32;
                let wmask = (rng.next() % 256) as u32;
                // The op under test in one slot, the others rotated.
                let ops = [op, (op + 3) % 8, (op + 5) % 8];
                let ds = DepthStencilState {
                    stencil_test_enable: true,
                    stencil_test_function: if back { (func + 1) % 8 } else { func },
                    stencil_fail_op: if back { 0 } else { ops[0] },
                    stencil_pass_depth_fail_op: if back { 0 } else { ops[1] },
                    stencil_pass_depth_pass_op: if back { 0 } else { ops[2] },
                    stencil_buffer_write_enable: true,
                    double_sided_stencil_enable: back,
                    backface_stencil_test_function: func,
                    backface_stencil_fail_op: ops[0],
                    backface_stencil_pass_depth_fail_op: ops[1],
                    backface_stencil_pass_depth_pass_op: ops[2],
                    stencil_test_mask: if back { 0xFF } else { mask },
                    stencil_write_mask: if back { 0xFF } else { wmask },
                    backface_stencil_test_mask: mask,
                    backface_stencil_write_mask: wmask,
                    depth_test_enable: true,
                    depth_test_function: 2, // LESS
                    depth_buffer_write_enable: false,
                };
                f.depth_stencil(&ds);
                let reference = (rng.next() % 256) as u8;
                f.color_calc(&ColorCalcState {
                    stencil_reference_value: if back {
                        u32::from(!reference)
                    } else {
                        u32::from(reference)
                    },
                    backface_stencil_reference_value: u32::from(reference),
                    ..Default::default()
                });
                let old: Vec<u8> = (0..8)
                    .map(|s| match s {
                        0 => reference,
                        1 => 0,
                        2 => 255,
                        _ => rng.next() as u8,
                    })
                    .collect();
                // Depth passes (0.5 < 0.75) on odd slots only.
                for (s, &o) in old.iter().enumerate() {
                    let (x, y) = xy8(s);
                    put_depth_word(&mut f, 1, x, y, if s % 2 == 1 { 0.75 } else { 0.25 }, 0);
                    assert!(f.mem.put(w_at(x, y), &[o]));
                }
                let mut w = write8(|_| [1.0; 4]);
                w.back_facing = back;
                w.depth = Some([0.5; 16]);
                let mut om = f.om().unwrap();
                f.run(&mut om, &w).unwrap();
                let tmask = mask as u8;
                for (s, &o) in old.iter().enumerate() {
                    let (x, y) = xy8(s);
                    let spass =
                        ref_compare(func, f64::from(reference & tmask), f64::from(o & tmask));
                    let dpass = s % 2 == 1;
                    let op_taken = match (spass, dpass) {
                        (false, _) => ops[0],
                        (true, false) => ops[1],
                        (true, true) => ops[2],
                    };
                    let v = ref_op(op_taken, o, reference);
                    let want = if cmd_write {
                        (o & !(wmask as u8)) | (v & wmask as u8)
                    } else {
                        o
                    };
                    let ctx = format!("func {func} op {op} back {back} write {cmd_write} slot {s}");
                    assert_eq!(f.mem.get(w_at(x, y), 1).unwrap()[0], want, "{ctx}");
                    assert_eq!(colour_written(&f, s), spass && dpass, "{ctx}");
                }
            }
        }
    }
}

#[test]
fn gen7_stencil_only_draws_never_touch_the_null_depth_address() {
    // Mesa's stencil-only form: a 2D depth buffer at address 0 with pitch
    // field 0; here at an address outside memory, so a read would fault.
    let mut f = fixture(RGBA8, 4);
    depth7(&mut f, 1, false, true, true);
    let mut p =
        Cmd3dstateDepthBuffer::unpack(f.packets.get(Cmd3dstateDepthBuffer::NAME).unwrap()).unwrap();
    p.surface_base_address = 0x4000_0000;
    p.surface_pitch = 0;
    set(&mut f, &p);
    f.depth_stencil(&DepthStencilState {
        stencil_test_enable: true,
        stencil_test_function: 0,      // ALWAYS
        stencil_pass_depth_pass_op: 5, // INCR
        stencil_buffer_write_enable: true,
        stencil_test_mask: 0xFF,
        stencil_write_mask: 0xFF,
        ..Default::default()
    });
    f.color_calc(&ColorCalcState::default());
    for s in 0..8 {
        let (x, y) = xy8(s);
        f.mem.put(w_at(x, y), &[s as u8 * 10]);
    }
    let mut om = f.om().unwrap();
    f.run(&mut om, &write8(|_| [1.0; 4])).unwrap();
    for s in 0..8 {
        let (x, y) = xy8(s);
        assert_eq!(f.mem.get(w_at(x, y), 1).unwrap()[0], s as u8 * 10 + 1);
    }
    assert_eq!(om.samples_passed(), 8);
}

#[test]
fn gen7_source_depth_and_omask_flags_come_from_wm_and_ps() {
    let mut f = fixture(RGBA8, 4);
    set(
        &mut f,
        &Cmd3dstateWm {
            pixel_shader_computed_depth_mode: 1,
            ..Default::default()
        },
    );
    set(
        &mut f,
        &Cmd3dstatePs {
            omask_present_to_rendertarget: true,
            ..Default::default()
        },
    );
    let om = f.om().unwrap();
    let flags = om.dispatch_flags();
    assert!(flags.source_depth && flags.omask);
}

#[test]
fn gen7_cc_viewport_clamps_the_source_depth() {
    let mut f = fixture(RGBA8, 4);
    set(
        &mut f,
        &Cmd3dstateViewportStatePointersCc {
            cc_viewport_pointer: VP_AT,
        },
    );
    f.set_dw(
        DYNAMIC + u64::from(VP_AT),
        &[0.25f32.to_bits(), 0.5f32.to_bits()],
    );
    depth7(&mut f, 1, true, false, false);
    f.depth_stencil(&DepthStencilState {
        depth_test_enable: true,
        depth_test_function: 0, // ALWAYS
        depth_buffer_write_enable: true,
        ..Default::default()
    });
    let mut w = write8(|_| [1.0; 4]);
    let mut z = [0.9f32; 16];
    z[1] = 0.1;
    z[2] = 0.375;
    w.depth = Some(z);
    let mut om = f.om().unwrap();
    f.run(&mut om, &w).unwrap();
    let d = |s| {
        let (x, y) = xy8(s);
        depth_word(&f, 1, x, y)
    };
    assert_eq!((d(0), d(1), d(2)), (0.5, 0.25, 0.375));
}

#[test]
fn gen7_state_beyond_the_model_is_refused() {
    let refused = |edit: &dyn Fn(&mut Fixture), what: &str| {
        let mut f = fixture(RGBA8, 4);
        depth7(&mut f, 1, true, true, true);
        edit(&mut f);
        match f.om() {
            Err(DrawError::Unmodelled(s)) | Err(DrawError::Invalid(s)) => {
                assert!(s.contains(what), "{s:?} should name {what:?}")
            }
            Ok(_) => panic!("{what}: accepted"),
            Err(e) => panic!("{what}: {e:?}"),
        }
    };
    let edit_db = |f: &mut Fixture, e: &dyn Fn(&mut Cmd3dstateDepthBuffer)| {
        let mut p =
            Cmd3dstateDepthBuffer::unpack(f.packets.get(Cmd3dstateDepthBuffer::NAME).unwrap())
                .unwrap();
        e(&mut p);
        set(f, &p);
    };
    // The combined formats of Gen6 are not Gen7 depth formats.
    for code in [0, 2, 4, 6, 7] {
        refused(
            &|f| edit_db(f, &|p| p.surface_format = code),
            "not a Gen7 depth format",
        );
    }
    refused(&|f| edit_db(f, &|p| p.depth = 1), "arrays");
    refused(
        &|f| {
            set(
                f,
                &Cmd3dstateStencilBuffer {
                    surface_pitch: 99,
                    surface_base_address: STENCIL,
                    ..Default::default()
                },
            )
        },
        "multiple of 128",
    );
    refused(
        &|f| {
            set(
                f,
                &Cmd3dstateMultisample {
                    number_of_multisamples: 1,
                    ..Default::default()
                },
            )
        },
        "reserved Number of Multisamples",
    );
    refused(
        &|f| {
            set(
                f,
                &Cmd3dstateWm {
                    early_depth_stencil_control: 2,
                    ..Default::default()
                },
            )
        },
        "Early Depth",
    );
    refused(
        &|f| {
            set(
                f,
                &Cmd3dstatePs {
                    render_target_fast_clear_enable: true,
                    render_target_resolve_enable: true,
                    ..Default::default()
                },
            )
        },
        "fast clear and resolve both",
    );
    // Stencil enabled with the all-zero stencil buffer command.
    refused(
        &|f| {
            set(f, &Cmd3dstateStencilBuffer::default());
            f.depth_stencil(&DepthStencilState {
                stencil_test_enable: true,
                ..Default::default()
            });
        },
        "stencil",
    );
}

#[test]
fn gen7_multisampled_render_targets_are_refused_on_write() {
    // Number of Multisamples 4X (DW4 bit 4), with and without MCS Enable
    // (DW6 bit 0).
    for bits in [&[(4u64, 4u32)][..], &[(4, 4), (6, 0)]] {
        let mut f = fixture(RGBA8, 4);
        f.depth_stencil(&DepthStencilState::default());
        for &(dw, bit) in bits {
            let at = SURFACES + 0x40 + 4 * dw;
            let v = f.mem.dword(at);
            assert!(f.mem.set_dword(at, v | 1 << bit));
        }
        let mut om = f.om().unwrap();
        let e = f.run(&mut om, &write8(|_| [1.0; 4])).unwrap_err();
        assert!(
            matches!(e, crate::eu::send::SendError::Bad(s) if s.to_lowercase().contains("multisample")),
            "{e:?}"
        );
        assert_eq!(f.rt_bytes(0, 0), [0; 4]);
    }
}

#[test]
fn a_gen7_render_target_write_from_a_thread_reaches_the_merger() {
    use baregpu_isa::IsaGen;
    use baregpu_isa::inst::{RegFile, Sfid, Type};
    use baregpu_isa::message;

    use crate::eu::send::{Payload, SendRequest};
    use crate::eu::shared::{MessageEnv, SurfaceList, SurfaceSource, handle};
    use crate::eu::thread::Thread;

    let mut f = fixture(RGBA8, 4);
    f.blend(
        0,
        &BlendState {
            pre_blend_color_clamp_enable: true,
            ..Default::default()
        },
    );
    depth7(&mut f, 1, true, true, true);
    f.depth_stencil(&DepthStencilState {
        stencil_test_enable: true,
        stencil_test_function: 0,      // ALWAYS
        stencil_pass_depth_fail_op: 1, // ZERO
        stencil_pass_depth_pass_op: 5, // INCR
        stencil_buffer_write_enable: true,
        stencil_test_mask: 0xFF,
        stencil_write_mask: 0xFF,
        depth_test_enable: true,
        depth_test_function: 2, // LESS
        depth_buffer_write_enable: true,
        ..Default::default()
    });
    f.color_calc(&ColorCalcState::default());
    for x in 0..8 {
        for y in 0..2 {
            put_depth_word(&mut f, 1, x, y, 0.5, 0);
            assert!(f.mem.put(w_at(x, y), &[9]));
        }
    }
    let mut d = dispatch();
    for s in 0..16 {
        d.depth[s] = if s % 2 == 0 { 0.25 } else { 0.75 };
    }
    // The Gen7 descriptor: render cache SFID, message type 12 in 17:14,
    // Last Render Target in 12, SIMD16 type 0 in 10:8, the BTI in 7:0
    // [ext: mesa src/intel/compiler/brw_eu_defines.h
    // GEN7_DATAPORT_RC_RENDER_TARGET_WRITE, brw_inst.h rt_last,
    // rt_message_type].
    let (sfid, desc) = message::parse_symbolic(
        IsaGen::Gen7,
        "rc.rt_write(bti=0, mode=simd16, last) mlen=8 rlen=0",
    )
    .unwrap();
    assert_eq!(sfid, Sfid::DpRenderCache);
    assert_eq!(
        (
            desc.function >> 14 & 0xF,
            desc.function >> 12 & 1,
            desc.function >> 8 & 7
        ),
        (12, 1, 0)
    );
    let req = SendRequest {
        ip: 0,
        sfid: Some(sfid),
        desc: 0,
        mlen: desc.mlen,
        rlen: desc.rlen,
        header: desc.header,
        function: desc.function,
        payload: Payload {
            file: RegFile::Grf,
            reg: 20,
        },
        dst: None,
        dst_type: Type::Ud,
        exec_size: 16,
        first_channel: 0,
        channels: 0xFFFF,
        eot: false,
        conditional: false,
        extended: crate::eu::send::ExtendedSend::NONE,
    };
    let mut t = Thread::new(IsaGen::Gen7);
    for s in 0..16usize {
        let reg = |c: u8| 20 + 2 * c + (s / 8) as u8;
        for c in 0..4 {
            t.set_grf_ud(reg(c), s % 8, 1.0f32.to_bits());
        }
    }
    let mut om = f.om().unwrap();
    let mut list = SurfaceList::new();
    {
        let mut env = MessageEnv::new(&mut f.mem, SurfaceSource::List(&mut list));
        env.pixels = Some(&mut om);
        env.pixel_dispatch = Some(&d);
        handle(&mut env, &mut t, &req).unwrap();
    }
    for s in 0..16usize {
        let (x, y) = ((2 * (s / 4) + s % 2) as u64, (s % 4 / 2) as u64);
        let pass = s % 2 == 0;
        assert_eq!(f.rt_bytes(x, y), if pass { [255; 4] } else { [0; 4] });
        assert_eq!(depth_word(&f, 1, x, y), if pass { 0.25 } else { 0.5 });
        assert_eq!(
            f.mem.get(w_at(x, y), 1).unwrap()[0],
            if pass { 10 } else { 0 },
            "slot {s}"
        );
    }
    assert_eq!(om.samples_passed(), 8);
}

#[test]
fn gen7_pointers_never_sent_read_their_state_at_the_dynamic_base() {
    // No 3DSTATE_DEPTH_STENCIL_STATE_POINTERS: the pointer's reset value
    // (0) names the DEPTH_STENCIL_STATE at Dynamic State Base itself, here
    // a depth test that never passes.
    let mut f = fixture(RGBA8, 4);
    f.packets.remove(Cmd3dstateDepthStencilStatePointers::NAME);
    depth7(&mut f, 1, true, false, false);
    let never = DepthStencilState {
        depth_test_enable: true,
        depth_test_function: 1, // NEVER
        ..Default::default()
    };
    f.set_dw(DYNAMIC, &pack(&never));
    let mut om = f.om().unwrap();
    f.run(&mut om, &write8(|_| [1.0; 4])).unwrap();
    assert!(
        (0..8).all(|s| !colour_written(&f, s)),
        "nothing passes NEVER"
    );
    // The same state where the pointer names it lets every pixel through
    // once the base holds ALWAYS.
    let always = DepthStencilState {
        depth_test_enable: true,
        depth_test_function: 0,
        ..Default::default()
    };
    f.set_dw(DYNAMIC, &pack(&always));
    let mut om = f.om().unwrap();
    f.run(&mut om, &write8(|_| [1.0; 4])).unwrap();
    assert!((0..8).all(|s| colour_written(&f, s)));
}

#[test]
fn gen7_stencil_writes_the_depth_buffer_command_disables_are_not_refused() {
    // DEPTH_STENCIL_STATE asks for stencil writes (test off) while the
    // NULL depth buffer's command leaves Stencil Write Enable clear, as in
    // Linux's Gen7 copy: no write can happen, so the draw runs.
    let mut f = fixture(RGBA8, 4);
    set(
        &mut f,
        &Cmd3dstateDepthBuffer {
            surface_type: 7,
            surface_format: 1,
            ..Default::default()
        },
    );
    f.depth_stencil(&DepthStencilState {
        stencil_buffer_write_enable: true,
        ..Default::default()
    });
    let mut om = f.om().unwrap();
    f.run(&mut om, &write8(|_| [1.0; 4])).unwrap();
    assert!((0..8).all(|s| colour_written(&f, s)));
    // With the command's enable set there is still no stencil buffer to
    // write: refused (003 lines 45318-45321).
    set(
        &mut f,
        &Cmd3dstateDepthBuffer {
            surface_type: 7,
            surface_format: 1,
            stencil_write_enable: true,
            ..Default::default()
        },
    );
    assert!(matches!(f.om(), Err(DrawError::Invalid(_))));
}

#[test]
fn gen7_depth_mip_levels_align_d16_to_8_by_4_and_the_rest_to_4_by_4() {
    // A 20 x 16 buffer at LOD 2: MIPLAYOUT_BELOW puts LOD 1 (10 x 8) under
    // LOD 0 at row 16, LOD 2 (5 x 4) beside LOD 1 at x = LOD 1's width
    // aligned to i (16 for D16_UNORM's i = 8, 12 for i = 4), row 16.
    for (code, x0) in [(5u32, 16u64), (1, 12), (3, 12)] {
        let mut f = fixture(RGBA8, 4);
        depth7(&mut f, code, true, false, false);
        let mut p =
            Cmd3dstateDepthBuffer::unpack(f.packets.get(Cmd3dstateDepthBuffer::NAME).unwrap())
                .unwrap();
        p.width = 19;
        p.height = 15;
        p.lod = 2;
        set(&mut f, &p);
        f.depth_stencil(&DepthStencilState {
            depth_buffer_write_enable: true,
            ..Default::default()
        });
        let mut w = write8(|_| [1.0; 4]);
        w.mask = 0x01; // pixel (0, 0) only
        w.depth = Some([0.5; 16]);
        let mut om = f.om().unwrap();
        f.run(&mut om, &w).unwrap();
        let want = depth_word_of(code, 0.5);
        assert_eq!(depth_word(&f, code, x0, 16), want, "format {code}");
        // Nothing else in the first tile rows was written.
        let written = (0..32)
            .flat_map(|y| (0..f.dpitch / f.dbpp).map(move |x| (x, y)))
            .filter(|&(x, y)| depth_word(&f, code, x, y) != 0.0)
            .count();
        assert_eq!(written, 1, "format {code}");
    }
}

/// The stored word of depth `z` in format `code`, as [`depth_word`] reads it.
fn depth_word_of(code: u32, z: f64) -> f64 {
    match code {
        1 => z,
        3 => f64::from(unorm(z, 16_777_215.0)),
        _ => f64::from(unorm(z, 65535.0)),
    }
}

/// Sample `s` of pixel (x, y) in an 8X interleaved surface: the 2x2
/// pixel block is an 8x4 block of samples; sample bit 0 picks the odd
/// column pair, bit 1 the lower row pair, bit 2 the right half (Mesa
/// brw_blorp_blit.cpp, encode_msaa for 8X).
fn ims8(x: u64, y: u64, s: u64) -> (u64, u64) {
    (
        8 * (x / 2) + 4 * (s / 4) + 2 * (s % 2) + x % 2,
        4 * (y / 2) + 2 * (s / 2 % 2) + y % 2,
    )
}

/// Ivy Bridge 8X: MSFMT_MSS keeps sample s in array slice s (QPitch rows
/// apart: h0 with ARYSPC_LOD0, h0 + h1 + 12 j with ARYSPC_FULL, j = 2
/// here), MSFMT_DEPTH_STENCIL interleaves; the depth buffer's samples are
/// interleaved either way.
#[test]
fn gen7_8x_targets_store_samples_in_slices_or_interleaved() {
    let mut rng = Rng(0x8888_1234_abcd_0001);
    for (storage, spacing, qpitch) in [(0u32, 1u32, 8u64), (0, 0, 8 + 4 + 12 * 2), (1, 0, 0)] {
        let mut f = fixture(RGBA8, 4);
        surface(&mut f, RGBA8, 2);
        let at = SURFACES + 0x40;
        let dw: Vec<u32> = (0..8).map(|i| f.mem.dword(at + 4 * i)).collect();
        let mut ss = RenderSurfaceState::unpack(&dw).unwrap();
        ss.number_of_multisamples = 3;
        ss.multisampled_surface_storage_format = storage;
        ss.surface_array_spacing = spacing;
        f.set_dw(at, &pack(&ss));
        set(
            &mut f,
            &Cmd3dstateMultisample {
                number_of_multisamples: 3,
                ..Default::default()
            },
        );
        // An 8X D32_FLOAT depth buffer, 64 samples (256 bytes) a row.
        depth7(&mut f, 1, true, true, false);
        let mut p =
            Cmd3dstateDepthBuffer::unpack(f.packets.get(Cmd3dstateDepthBuffer::NAME).unwrap())
                .unwrap();
        p.surface_pitch = 255;
        set(&mut f, &p);
        f.dpitch = 256;
        f.depth_stencil(&DepthStencilState {
            depth_test_enable: true,
            depth_test_function: 0, // ALWAYS
            depth_buffer_write_enable: true,
            ..Default::default()
        });
        let cover: Vec<u8> = (0..8).map(|_| rng.next() as u8).collect();
        let d = PixelDispatch {
            samples: Some(alloc::boxed::Box::new(crate::eu::shared::SampleDispatch {
                count: 8,
                coverage: core::array::from_fn(|s| cover[s % 8]),
                depth: core::array::from_fn(|slot| {
                    core::array::from_fn(|s| (slot * 8 + s) as f32 / 64.0)
                }),
            })),
            ..dispatch()
        };
        let w = write8(|s| [s as f32 / 8.0, 1.0, 0.0, 1.0]);
        let mut om = f.om().unwrap();
        om.render_target(&mut f.mem, Some(&d), &w).unwrap();
        for (slot, &c) in cover.iter().enumerate() {
            let (x, y) = xy8(slot);
            for s in 0..8u64 {
                let (cx, cy) = if storage == 0 {
                    (x, y + s * qpitch)
                } else {
                    ims8(x, y, s)
                };
                let on = c >> s & 1 != 0;
                let want = if on {
                    alloc::vec![unorm(slot as f64 / 8.0, 255.0) as u8, 255, 0, 255]
                } else {
                    alloc::vec![0; 4]
                };
                assert_eq!(
                    f.rt_bytes(cx, cy),
                    want,
                    "storage {storage} slot {slot} sample {s}"
                );
                let (dx, dy) = ims8(x, y, s);
                let want_z = if on {
                    (slot * 8 + s as usize) as f64 / 64.0
                } else {
                    0.0
                };
                assert_eq!(
                    depth_word(&f, 1, dx, dy),
                    want_z,
                    "depth slot {slot} sample {s}"
                );
            }
        }
    }
}

/// 4X separate stencil: each covered sample's byte, at its interleaved
/// place in the W-tiled buffer, goes through the stencil test and
/// operation on its own (INCR on pass); uncovered samples keep theirs.
#[test]
fn gen7_4x_stencil_updates_each_covered_sample() {
    let mut f = fixture(RGBA8, 4);
    surface(&mut f, RGBA8, 2);
    let at = SURFACES + 0x40;
    let dw: Vec<u32> = (0..8).map(|i| f.mem.dword(at + 4 * i)).collect();
    let mut ss = RenderSurfaceState::unpack(&dw).unwrap();
    ss.number_of_multisamples = 2;
    f.set_dw(at, &pack(&ss));
    set(
        &mut f,
        &Cmd3dstateMultisample {
            number_of_multisamples: 2,
            ..Default::default()
        },
    );
    depth7(&mut f, 1, false, true, true);
    f.depth_stencil(&DepthStencilState {
        stencil_test_enable: true,
        stencil_test_function: 5,      // GREATER: reference > stored
        stencil_pass_depth_pass_op: 3, // INCRSAT
        stencil_buffer_write_enable: true,
        stencil_test_mask: 0xff,
        stencil_write_mask: 0xff,
        ..Default::default()
    });
    f.color_calc(&ColorCalcState {
        stencil_reference_value: 100,
        ..Default::default()
    });
    // Stored stencil: sample s of slot k holds 90 + 5 ((k + s) mod 4).
    let old = |slot: usize, s: usize| 90 + ((slot + s) % 4) as u8 * 5;
    for slot in 0..8 {
        let (x, y) = xy8(slot);
        for s in 0..4 {
            let (sx, sy) = super::msaa::ims4(x, y, s as u64);
            assert!(f.mem.put(w_at(sx, sy), &[old(slot, s)]));
        }
    }
    let cover = |slot: usize| (0b1011u8).rotate_left(slot as u32) & 0xf;
    let d = PixelDispatch {
        samples: Some(alloc::boxed::Box::new(crate::eu::shared::SampleDispatch {
            count: 4,
            coverage: core::array::from_fn(cover),
            depth: [[0.5; 8]; 32],
        })),
        ..dispatch()
    };
    let mut om = f.om().unwrap();
    om.render_target(&mut f.mem, Some(&d), &write8(|_| [1.0; 4]))
        .unwrap();
    for slot in 0..8 {
        let (x, y) = xy8(slot);
        for s in 0..4 {
            let (sx, sy) = super::msaa::ims4(x, y, s as u64);
            let o = old(slot, s);
            let want = if cover(slot) >> s & 1 != 0 && 100 > o {
                o + 1
            } else {
                o
            };
            assert_eq!(
                f.mem.get(w_at(sx, sy), 1).unwrap()[0],
                want,
                "slot {slot} sample {s}"
            );
        }
    }
}
