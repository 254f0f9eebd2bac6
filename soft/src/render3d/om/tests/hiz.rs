//! The depth buffer clear and resolve passes of 3DSTATE_WM (003 lines
//! 39999-40070, 42341-42480) on Sandy Bridge and Ivy Bridge: the model's
//! depth buffer always holds what it would hold without HiZ, so a clear
//! pass writes 3DSTATE_CLEAR_PARAMS's value (or one pixel's interpolated
//! depth) with the stencil the state asks for, and a resolve with HiZ on
//! changes nothing.

use baregpu_hal::Packet;
use baregpu_hal::gen6::commands as g6;
use baregpu_hal::gen6::structs::{ColorCalcState, DepthStencilState};
use baregpu_hal::gen7::commands as g7;

use super::gen7::{depth7, fixture, set, w_at};
use super::*;

const RGBA8: u32 = 0x0C7;
/// COMPAREFUNCTION_ALWAYS, _NEVER; STENCILOP_REPLACE (003 Table 7-23,
/// DEPTH_STENCIL_STATE).
const ALWAYS: u32 = 0;
const NEVER: u32 = 1;
const REPLACE: u32 = 2;

/// The 24-bit depth of (x, y) in a D24_UNORM_X8_UINT buffer.
fn d24(f: &Fixture, x: u64, y: u64) -> u32 {
    let b = f.mem.get(f.depth_at(x, y), 4).unwrap();
    u32::from_le_bytes([b[0], b[1], b[2], 0])
}

/// (x, y) of dispatch slot `s` of [`dispatch`]'s subspans.
fn xy16(s: usize) -> (u64, u64) {
    ((2 * (s / 4) + s % 2) as u64, (s % 4 / 2) as u64)
}

/// An Ivy Bridge D24_UNORM_X8_UINT depth buffer with a stencil buffer,
/// HiZ on or off, every depth pixel 0x00AB_CDEF and every stencil byte
/// 0x11, and 3DSTATE_WM with the given pass bits.
fn gen7_pass(hiz: bool, clear: bool, resolve: bool, hiz_resolve: bool) -> Fixture {
    let mut f = fixture(RGBA8, 4);
    depth7(&mut f, 3, true, true, true);
    let mut p =
        g7::Cmd3dstateDepthBuffer::unpack(f.packets.get(g7::Cmd3dstateDepthBuffer::NAME).unwrap())
            .unwrap();
    p.hierarchical_depth_buffer_enable = hiz;
    set(&mut f, &p);
    set(
        &mut f,
        &g7::Cmd3dstateWm {
            statistics_enable: true,
            depth_buffer_clear: clear,
            depth_buffer_resolve_enable: resolve,
            hierarchical_depth_buffer_resolve_enable: hiz_resolve,
            ..Default::default()
        },
    );
    for y in 0..8 {
        for x in 0..16 {
            let at = f.depth_at(x, y);
            assert!(f.mem.put(at, &0x00AB_CDEFu32.to_le_bytes()));
            assert!(f.mem.put(w_at(x, y), &[0x11]));
        }
    }
    f
}

/// Half the pixels of [`dispatch`] lit, each slot with its own depth.
fn half_lit() -> PixelDispatch {
    let mut d = dispatch();
    d.mask = 0x5A3C;
    for (s, z) in d.depth.iter_mut().enumerate() {
        *z = 0.25 + s as f32 / 64.0;
    }
    d
}

#[test]
fn a_gen7_depth_clear_pass_writes_the_clear_value_and_the_stencil_reference() {
    let mut f = gen7_pass(true, true, false, false);
    set(
        &mut f,
        &g7::Cmd3dstateClearParams {
            depth_clear_value: 0xFF12_3456,
            depth_clear_value_valid: true,
        },
    );
    // The manual's clear: depth test off, depth write on; stencil test on
    // with REPLACE, the reference being the clear value (003 lines
    // 42381-42387).
    f.depth_stencil(&DepthStencilState {
        depth_buffer_write_enable: true,
        stencil_test_enable: true,
        stencil_test_function: ALWAYS,
        stencil_pass_depth_pass_op: REPLACE,
        stencil_buffer_write_enable: true,
        stencil_test_mask: 0xFF,
        stencil_write_mask: 0xFF,
        ..Default::default()
    });
    f.color_calc(&ColorCalcState {
        stencil_reference_value: 0x5A,
        ..Default::default()
    });
    let d = half_lit();
    let mut om = f.om().unwrap();
    om.depth_stencil_only(&mut f.mem, &d).unwrap();
    for s in 0..16 {
        let (x, y) = xy16(s);
        let lit = d.mask >> s & 1 == 1;
        // U24 UNORM in bits 23:0 (003 lines 43452-43468): 31:24 ignored.
        let (z, st) = if lit {
            (0x12_3456, 0x5A)
        } else {
            (0xAB_CDEF, 0x11)
        };
        assert_eq!(d24(&f, x, y), z, "depth of slot {s}");
        assert_eq!(
            f.mem.get(w_at(x, y), 1).unwrap()[0],
            st,
            "stencil of slot {s}"
        );
    }
    assert_eq!(om.samples_passed(), u64::from(d.mask.count_ones()));
}

#[test]
fn without_a_valid_clear_value_one_pixels_depth_clears_them_all() {
    // "If clear, the depth clear value is obtained from interpolated depth
    // of an arbitrary pixel of the primitive" (003 lines 43429-43431): the
    // model takes the first lit slot's.
    let mut f = gen7_pass(true, true, false, false);
    set(&mut f, &g7::Cmd3dstateClearParams::default());
    f.depth_stencil(&DepthStencilState {
        depth_buffer_write_enable: true,
        ..Default::default()
    });
    let d = half_lit();
    let first = d.mask.trailing_zeros() as usize;
    let want = unorm(f64::from(d.depth[first]), 16_777_215.0);
    let mut om = f.om().unwrap();
    om.depth_stencil_only(&mut f.mem, &d).unwrap();
    for s in 0..16 {
        let (x, y) = xy16(s);
        let lit = d.mask >> s & 1 == 1;
        assert_eq!(
            d24(&f, x, y),
            if lit { want } else { 0xAB_CDEF },
            "slot {s}"
        );
    }
}

#[test]
fn resolve_passes_with_hiz_change_nothing_and_without_hiz_draw() {
    // Depth resolve: depth test NEVER with writes on; HiZ resolve: test
    // off, writes on (003 lines 42441-42447, 42463-42470).
    for (resolve, hiz_resolve, test) in [(true, false, true), (false, true, false)] {
        for hiz in [true, false] {
            let mut f = gen7_pass(hiz, false, resolve, hiz_resolve);
            f.depth_stencil(&DepthStencilState {
                depth_test_enable: test,
                depth_test_function: NEVER,
                depth_buffer_write_enable: true,
                ..Default::default()
            });
            let d = half_lit();
            let mut om = f.om().unwrap();
            om.depth_stencil_only(&mut f.mem, &d).unwrap();
            for s in 0..16 {
                let (x, y) = xy16(s);
                // With HiZ off the bits "have no effect": a plain draw,
                // which writes its depth where the test (off) passes.
                let drawn = !hiz && !test && d.mask >> s & 1 == 1;
                let want = if drawn {
                    unorm(f64::from(d.depth[s]), 16_777_215.0)
                } else {
                    0xAB_CDEF
                };
                assert_eq!(d24(&f, x, y), want, "hiz {hiz} resolve {resolve} slot {s}");
            }
            if hiz {
                assert_eq!(om.samples_passed(), 0);
            }
        }
    }
}

#[test]
fn passes_against_the_manuals_rules_are_refused() {
    let invalid = |f: &mut Fixture, what: &str| match f.om() {
        Err(DrawError::Invalid(s)) => assert!(s.contains(what), "{s:?} should name {what:?}"),
        Err(e) => panic!("{what}: {e:?}"),
        Ok(_) => panic!("{what}: accepted"),
    };
    // Two pass bits at once (003 lines 40034-40036, 40058-40060).
    for (c, r, h) in [
        (true, true, false),
        (true, false, true),
        (false, true, true),
    ] {
        let mut f = gen7_pass(true, c, r, h);
        f.depth_stencil(&DepthStencilState::default());
        invalid(&mut f, "more than one");
    }
    // A clear with the depth test on (003 lines 40009-40010).
    let mut f = gen7_pass(true, true, false, false);
    f.depth_stencil(&DepthStencilState {
        depth_test_enable: true,
        depth_buffer_write_enable: true,
        ..Default::default()
    });
    invalid(&mut f, "depth test");
    // A pixel shader writing during a pass (003 lines 42394-42395).
    let mut f = gen7_pass(true, true, false, false);
    f.depth_stencil(&DepthStencilState {
        depth_buffer_write_enable: true,
        ..Default::default()
    });
    let mut om = f.om().unwrap();
    let w = write8(|_| [1.0; 4]);
    assert!(f.run(&mut om, &w).is_err());
    assert!(!(0..8).any(|s| super::depth::colour_written(&f, s)));
}

#[test]
fn a_gen6_depth_clear_pass_with_hiz_and_separate_stencil() {
    for valid in [true, false] {
        let mut f = Fixture::new(RGBA8, 4);
        f.depth_buffer(1); // D32_FLOAT
        let mut p = g6::Cmd3dstateDepthBuffer::unpack(
            f.packets.get(g6::Cmd3dstateDepthBuffer::NAME).unwrap(),
        )
        .unwrap();
        p.hierarchical_depth_buffer_enable = true;
        p.separate_stencil_buffer_enable = true;
        f.packets.set(g6::Cmd3dstateDepthBuffer::NAME, &pack(&p));
        let wm = g6::Cmd3dstateWm {
            depth_buffer_clear: true,
            ..Default::default()
        };
        f.packets.set(g6::Cmd3dstateWm::NAME, &pack(&wm));
        let cp = g6::Cmd3dstateClearParams {
            depth_clear_value_valid: valid,
            depth_clear_value: 0.625f32.to_bits(),
        };
        f.packets.set(g6::Cmd3dstateClearParams::NAME, &pack(&cp));
        f.depth_stencil(&DepthStencilState {
            depth_buffer_write_enable: true,
            ..Default::default()
        });
        for y in 0..8 {
            for x in 0..16 {
                let at = f.depth_at(x, y);
                assert!(f.mem.put(at, &2.0f32.to_le_bytes()));
            }
        }
        let d = half_lit();
        let want = if valid {
            0.625
        } else {
            d.depth[d.mask.trailing_zeros() as usize]
        };
        let mut om = f.om().unwrap();
        om.depth_stencil_only(&mut f.mem, &d).unwrap();
        for s in 0..16 {
            let (x, y) = xy16(s);
            let b = f.mem.get(f.depth_at(x, y), 4).unwrap();
            let z = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            let lit = d.mask >> s & 1 == 1;
            assert_eq!(z, if lit { want } else { 2.0 }, "valid {valid} slot {s}");
        }
        // A depth resolve of the same buffer leaves it as it is.
        let wm = g6::Cmd3dstateWm {
            depth_buffer_resolve_enable: true,
            ..Default::default()
        };
        f.packets.set(g6::Cmd3dstateWm::NAME, &pack(&wm));
        f.depth_stencil(&DepthStencilState {
            depth_test_enable: true,
            depth_test_function: NEVER,
            depth_buffer_write_enable: true,
            ..Default::default()
        });
        let before = f.mem.get(DEPTH, 4096).unwrap().to_vec();
        let mut om = f.om().unwrap();
        om.depth_stencil_only(&mut f.mem, &dispatch()).unwrap();
        assert_eq!(f.mem.get(DEPTH, 4096).unwrap(), &before[..]);
    }
}
