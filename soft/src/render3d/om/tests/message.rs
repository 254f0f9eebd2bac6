//! A render-target write message from a thread through the data port
//! into the output merger: a header-less SIMD16 write lands at the
//! dispatch's pixels, tested against the dispatch's depth.

use baregpu_hal::gen6::structs::{BlendState, DepthStencilState};
use baregpu_isa::IsaGen;
use baregpu_isa::inst::{RegFile, Type};
use baregpu_isa::message;

use super::*;
use crate::eu::send::{Payload, SendRequest};
use crate::eu::shared::{MessageEnv, SurfaceList, SurfaceSource, handle};
use crate::eu::thread::Thread;

#[test]
fn a_headerless_simd16_write_reaches_the_dispatch_pixels_through_the_merger() {
    let mut f = Fixture::new(0x0C7, 4);
    f.blend(
        0,
        &BlendState {
            pre_blend_color_clamp_enable: true,
            ..Default::default()
        },
    );
    f.depth_buffer(1);
    f.depth_stencil(&DepthStencilState {
        depth_test_enable: true,
        depth_test_function: 2, // LESS
        depth_buffer_write_enable: true,
        ..Default::default()
    });
    // Old depth 0.5 everywhere; the dispatch's depth is 0.25 on even
    // slots, 0.75 on odd ones: even slots pass.
    for x in 0..8 {
        for y in 0..2 {
            let at = f.depth_at(x, y);
            f.mem.put(at, &0.5f32.to_le_bytes());
        }
    }
    let mut d = dispatch();
    d.mask = 0xF0FF;
    for s in 0..16 {
        d.depth[s] = if s % 2 == 0 { 0.25 } else { 0.75 };
    }
    let (sfid, desc) = message::parse_symbolic(
        IsaGen::Gen6,
        "rc.rt_write(bti=0, mode=simd16, last) mlen=8 rlen=0",
    )
    .unwrap();
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
    let mut t = Thread::new(IsaGen::Gen6);
    // R = slot / 16, G = 1, B = 0, A = 1 (registers R lo, R hi, G, G, ...).
    for s in 0..16usize {
        let reg = |c: u8| 20 + 2 * c + (s / 8) as u8;
        t.set_grf_ud(reg(0), s % 8, (s as f32 / 16.0).to_bits());
        t.set_grf_ud(reg(1), s % 8, 1.0f32.to_bits());
        t.set_grf_ud(reg(2), s % 8, 0);
        t.set_grf_ud(reg(3), s % 8, 1.0f32.to_bits());
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
        // Subspan k at (2k, 0): pixels UL, UR, LL, LR.
        let (x, y) = ((2 * (s / 4) + s % 2) as u64, (s % 4 / 2) as u64);
        let lit = d.mask >> s & 1 == 1;
        let pass = lit && s % 2 == 0;
        let want = if pass {
            [unorm(s as f64 / 16.0, 255.0) as u8, 255, 0, 255]
        } else {
            [0; 4]
        };
        assert_eq!(f.rt_bytes(x, y), want, "slot {s}");
        let at = f.depth_at(x, y);
        let z = f32::from_le_bytes(f.mem.get(at, 4).unwrap().try_into().unwrap());
        assert_eq!(z, if pass { 0.25 } else { 0.5 }, "slot {s}");
    }
    assert_eq!(om.samples_passed(), 6);
}

#[test]
fn render_target_formats_through_surface_state() {
    // (format, bpp, colour, the stored bytes worked out by hand).
    let cases: [(u32, u64, [f32; 4], &[u8]); 5] = [
        // B5G6R5: red 31 in 15:11, green 0, blue 31 in 4:0.
        (0x100, 2, [1.0, 0.0, 1.0, 0.0], &[0x1F, 0xF8]),
        // R16G16_FLOAT: 1.0 = 0x3C00, -2.0 = 0xC000.
        (0x0D0, 4, [1.0, -2.0, 0.0, 0.0], &[0x00, 0x3C, 0x00, 0xC0]),
        // R10G10B10A2_UNORM: red 1023, alpha 3.
        (0x0C2, 4, [1.0, 0.0, 0.0, 1.0], &[0xFF, 0x03, 0x00, 0xC0]),
        // B8G8R8A8_UNORM: blue first.
        (0x0C0, 4, [1.0, 0.0, 0.2, 0.0], &[51, 0, 255, 0]),
        // R8_SNORM: -1.0 = 0x81.
        (0x141, 1, [-1.0, 0.0, 0.0, 0.0], &[0x81]),
    ];
    for (format, bpp, colour, want) in cases {
        let mut f = Fixture::new(format, bpp);
        f.tile_rt(1);
        // Pre-blend clamp to the target's own range (003 lines 44889-44996).
        f.blend(
            0,
            &BlendState {
                pre_blend_color_clamp_enable: true,
                color_clamp_range: 2,
                ..Default::default()
            },
        );
        let mut om = f.om().unwrap();
        f.run(&mut om, &write8(|_| colour)).unwrap();
        for s in 0..8 {
            let (x, y) = xy8(s);
            assert_eq!(f.rt_bytes(x, y), want, "format {format:#x} slot {s}");
        }
    }
}

#[test]
fn a_render_target_at_a_mip_level_writes_inside_that_level() {
    // LOD 1 of a 16 x 8 MIPLAYOUT_BELOW surface is 8 x 4 at rows 8-11
    // (003 lines 5969-6034); the write's pixel (x, y) of the level lands
    // at (x, 8 + y), and the level's edge drops pixels past 8 x 4.
    let mut f = Fixture::new(0x0C7, 4);
    let at = SURFACES + 0x40 + 8;
    let dw = f.mem.dword(at);
    // SURFACE_STATE dword 2 bits 5:2 MIP Count / LOD.
    assert!(f.mem.set_dword(at, dw | 1 << 2));
    f.blend(
        0,
        &BlendState {
            pre_blend_color_clamp_enable: true,
            ..Default::default()
        },
    );
    let mut w = write8(|_| [1.0; 4]);
    // Subspans at (0, 0) and (8, 2) of the level: the second is past its
    // width and is dropped.
    w.corners = [0, (2 << 16) | 8, 0, 0];
    let mut om = f.om().unwrap();
    f.run(&mut om, &w).unwrap();
    for s in 0..8usize {
        let (bx, by) = if s < 4 { (0, 0) } else { (8, 2) };
        let (x, y) = (bx + (s % 2) as u64, by + (s % 4 / 2) as u64);
        let want = if s < 4 { [255; 4] } else { [0; 4] };
        assert_eq!(f.rt_bytes(x, 8 + y), want, "slot {s}");
        assert_eq!(f.rt_bytes(x, y), [0; 4], "slot {s} in LOD 0");
    }
}
