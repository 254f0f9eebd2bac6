//! Ivy Bridge render-target fast clear and resolve on single-sampled
//! targets with MCS: a fast-clear pixel stands for a block of the
//! target (64 x 64 for 32-bit Y-tiled, 128 x 32 for 32-bit X-tiled, from
//! Mesa's CCS block sizes and the PRM's scale-down rule as Mesa quotes
//! it), which takes the surface state's clear colour; a resolve changes
//! nothing in the model's always-resolved target.

use baregpu_hal::gen6::structs::DepthStencilState;
use baregpu_hal::gen7::commands::Cmd3dstatePs;
use baregpu_hal::gen7::structs::RenderSurfaceState;

use super::gen7::{fixture, set};
use super::*;

const RGBA8: u32 = 0x0C7;
const RGBA8_UINT: u32 = 0x0CB;
const SIDE: u64 = 128;

/// A 128 x 128 target of `format` (4 bytes a pixel) tiled X (1) or Y (2),
/// MCS on or off, clear colour bits (R, G, B, A), every pixel holding a
/// pattern of its own; the 3DSTATE_PS pass bits.
fn target(
    format: u32,
    tiling: u32,
    mcs: bool,
    cc: [u32; 4],
    fast_clear: bool,
    resolve: bool,
) -> Fixture {
    let mut f = fixture(format, 4);
    f.tiling = tiling;
    f.pitch = SIDE * 4;
    let ss = RenderSurfaceState {
        surface_type: 1,
        surface_format: format,
        surface_base_address: RT,
        width: SIDE as u32 - 1,
        height: SIDE as u32 - 1,
        surface_pitch: (f.pitch - 1) as u32,
        tiled_surface: tiling != 0,
        tile_walk: u32::from(tiling == 2),
        mcs_enable: mcs,
        mcs_base_address: 0xE_0000,
        red_clear_color: cc[0],
        green_clear_color: cc[1],
        blue_clear_color: cc[2],
        alpha_clear_color: cc[3],
        ..Default::default()
    };
    f.set_dw(SURFACES + 0x40, &pack(&ss));
    set(
        &mut f,
        &Cmd3dstatePs {
            render_target_fast_clear_enable: fast_clear,
            render_target_resolve_enable: resolve,
            ..Default::default()
        },
    );
    f.depth_stencil(&DepthStencilState::default());
    for y in 0..SIDE {
        for x in 0..SIDE {
            let at = f.rt_at(x, y);
            assert!(f.mem.put(at, &pattern(x, y)));
        }
    }
    f
}

fn pattern(x: u64, y: u64) -> [u8; 4] {
    [x as u8, y as u8, (x ^ y) as u8, 0x5A]
}

/// The replicated all-ones write Mesa's clear shader sends, lighting the
/// pixels of `lit` (x, y) in the subspans at (0, 0) and (2, 0).
fn clear_write(lit: u32) -> RtWrite {
    let mut w = write8(|_| [f32::from_bits(!0); 4]);
    w.replicated = true;
    w.mask = lit;
    w
}

#[test]
fn a_fast_clear_pixel_clears_its_block_of_the_target() {
    // Y tiled, 32 bits: 64 x 64 blocks. Slot 1 is pixel (1, 0) and slot 6
    // pixel (2, 1) of the scaled-down rectangle.
    let mut f = target(RGBA8, 2, true, [1, 0, 1, 1], true, false);
    let mut om = f.om().unwrap();
    f.run(&mut om, &clear_write(1 << 1 | 1 << 6)).unwrap();
    for y in 0..SIDE {
        for x in 0..SIDE {
            // Pixel (2, 1) stands for x 128..192, off the target.
            let cleared = (64..128).contains(&x) && y < 64;
            let want = if cleared {
                [255, 0, 255, 255]
            } else {
                pattern(x, y)
            };
            assert_eq!(f.rt_bytes(x, y), want, "({x}, {y})");
        }
    }
    // X tiled, 32 bits: 128 x 32 blocks; an integer format clears to 1.
    let mut f = target(RGBA8_UINT, 1, true, [0, 1, 1, 0], true, false);
    let mut om = f.om().unwrap();
    f.run(&mut om, &clear_write(1 << 2)).unwrap(); // pixel (0, 1)
    for y in 0..SIDE {
        for x in 0..SIDE {
            let cleared = (32..64).contains(&y);
            let want = if cleared { [0, 1, 1, 0] } else { pattern(x, y) };
            assert_eq!(f.rt_bytes(x, y), want, "({x}, {y})");
        }
    }
}

#[test]
fn a_resolve_pass_leaves_the_target_as_it_is() {
    let mut f = target(RGBA8, 2, true, [1, 1, 1, 1], false, true);
    let mut om = f.om().unwrap();
    f.run(&mut om, &clear_write(0xFF)).unwrap();
    for y in 0..SIDE {
        for x in 0..SIDE {
            assert_eq!(f.rt_bytes(x, y), pattern(x, y), "({x}, {y})");
        }
    }
}

#[test]
fn ordinary_draws_write_through_an_mcs_target() {
    let mut f = target(RGBA8, 2, true, [1, 1, 1, 1], false, false);
    let mut om = f.om().unwrap();
    f.run(&mut om, &write8(|_| [1.0, 0.0, 0.0, 1.0])).unwrap();
    for s in 0..8 {
        let (x, y) = xy8(s);
        assert_eq!(f.rt_bytes(x, y), [255, 0, 0, 255], "slot {s}");
    }
}

#[test]
fn fast_clears_without_an_mcs_or_a_tiled_target_are_refused() {
    for (tiling, mcs) in [(2, false), (0, true)] {
        let mut f = target(RGBA8, tiling, mcs, [1; 4], true, false);
        let mut om = f.om().unwrap();
        let mut w = clear_write(1);
        // The linear case must not trip the replicated-write rule first.
        w.replicated = tiling != 0;
        assert!(f.run(&mut om, &w).is_err(), "tiling {tiling} mcs {mcs}");
        assert_eq!(f.rt_bytes(0, 0), pattern(0, 0));
    }
}

#[test]
fn compressed_multisampled_targets_are_refused() {
    use baregpu_hal::gen7::commands::Cmd3dstateMultisample;
    // 4X everywhere (3DSTATE_MULTISAMPLE code 2, SURFACE_STATE DW4 bit 4
    // set: Number of Multisamples 2) with MCS Enable: Mesa's CMS.
    let mut f = target(RGBA8, 2, true, [0; 4], false, false);
    set(
        &mut f,
        &Cmd3dstateMultisample {
            number_of_multisamples: 2,
            ..Default::default()
        },
    );
    let at = SURFACES + 0x40 + 16;
    let v = f.mem.dword(at);
    assert!(f.mem.set_dword(at, v | 1 << 4));
    let mut om = f.om().unwrap();
    let e = f.run(&mut om, &write8(|_| [1.0; 4])).unwrap_err();
    assert!(
        matches!(e, crate::eu::send::SendError::Bad(s) if s.contains("compressed multisampled")),
        "{e:?}"
    );
}
