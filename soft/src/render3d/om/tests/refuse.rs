//! What the output merger refuses, and that a refusal writes nothing.

use baregpu_hal::Packet;
use baregpu_hal::gen6::commands::{Cmd3dstateDepthBuffer, Cmd3dstateMultisample};
use baregpu_hal::gen6::structs::{BlendState, DepthStencilState};

use super::*;
use crate::eu::send::SendError;

#[test]
fn draw_state_beyond_the_model_is_refused_by_new() {
    let mut f = Fixture::new(0x0C7, 4);
    // 2X is reserved on Gen6.
    let ms = Cmd3dstateMultisample {
        number_of_multisamples: 1,
        ..Default::default()
    };
    f.packets.set(Cmd3dstateMultisample::NAME, &pack(&ms));
    assert!(matches!(f.om(), Err(DrawError::Invalid(s)) if s.contains("reserved")));

    // A linear depth buffer does not exist on Gen6 (003 lines 42620-42622).
    let mut f = Fixture::new(0x0C7, 4);
    f.depth_buffer(1);
    let mut p =
        Cmd3dstateDepthBuffer::unpack(f.packets.get(Cmd3dstateDepthBuffer::NAME).unwrap()).unwrap();
    p.tiled_surface = false;
    f.packets.set(Cmd3dstateDepthBuffer::NAME, &pack(&p));
    assert!(matches!(f.om(), Err(DrawError::Invalid(s)) if s.contains("linear")));

    // Depth test without a depth buffer is UNDEFINED (003 line
    // 44887); stencil needs a format holding it (44842-44844).
    let mut f = Fixture::new(0x0C7, 4);
    f.depth_stencil(&DepthStencilState {
        depth_test_enable: true,
        ..Default::default()
    });
    assert!(matches!(f.om(), Err(DrawError::Invalid(_))));
    let mut f = Fixture::new(0x0C7, 4);
    f.depth_buffer(1);
    f.depth_stencil(&DepthStencilState {
        stencil_test_enable: true,
        ..Default::default()
    });
    assert!(matches!(f.om(), Err(DrawError::Invalid(s)) if s.contains("stencil")));
}

fn refused(f: &mut Fixture, b: BlendState, why: &str) {
    f.blend(0, &b);
    let before = f.mem.get(RT, 16 * 8 * f.bpp as usize).unwrap().to_vec();
    let mut om = f.om().unwrap();
    match f.run(&mut om, &write8(|_| [1.0; 4])) {
        Err(SendError::Bad(s)) => assert!(s.contains(why), "{s:?} lacks {why:?}"),
        other => panic!("{other:?}: expected a refusal naming {why}"),
    }
    assert_eq!(
        f.mem.get(RT, before.len()).unwrap(),
        &before[..],
        "{why}: wrote"
    );
}

#[test]
fn blend_state_beyond_the_model_is_refused_by_the_write() {
    let on = BlendState {
        pre_blend_color_clamp_enable: true,
        ..Default::default()
    };
    let cases = [
        (
            0x0C7,
            4,
            BlendState {
                alphatocoverage_enable: true,
                ..on
            },
            "alpha-to-coverage",
        ),
        (
            0x0C7,
            4,
            // Dithering with blending and the round-disable function on
            // (COLOR_CALC_STATE zero): the manual gives no rule.
            BlendState {
                color_dither_enable: true,
                color_buffer_blend_enable: true,
                ..on
            },
            "dither",
        ),
        (
            0x0C7,
            4,
            BlendState {
                color_buffer_blend_enable: true,
                logic_op_enable: true,
                ..on
            },
            "logic ops both",
        ),
        // Blending on an integer target (003 lines 44987-44989).
        (
            0x0CB,
            4,
            BlendState {
                color_buffer_blend_enable: true,
                source_blend_factor: 1,
                ..on
            },
            "UINT",
        ),
        // Logic ops on a float target (003 lines 45228-45229).
        (
            0x000,
            16,
            BlendState {
                logic_op_enable: true,
                ..on
            },
            "logic ops are only",
        ),
        // A source-1 factor without a dual-source write.
        (
            0x0C7,
            4,
            BlendState {
                color_buffer_blend_enable: true,
                source_blend_factor: 0x09,
                ..on
            },
            "source-1",
        ),
        // Reserved factor 0x16.
        (
            0x0C7,
            4,
            BlendState {
                color_buffer_blend_enable: true,
                source_blend_factor: 0x16,
                ..on
            },
            "reserved",
        ),
    ];
    for (format, bpp, b, why) in cases {
        let mut f = Fixture::new(format, bpp);
        refused(&mut f, b, why);
    }
}

#[test]
fn a_render_target_whose_sample_count_differs_is_refused() {
    let mut f = Fixture::new(0x0C7, 4);
    // SURFACE_STATE dword 4 bits 6:4 Number of Multisamples (003 SURFACE_STATE).
    let at = SURFACES + 0x40 + 16;
    let dw = f.mem.dword(at);
    assert!(f.mem.set_dword(at, dw | 2 << 4));
    // 4X against 3DSTATE_MULTISAMPLE's 1X: they must match.
    refused(
        &mut f,
        BlendState::default(),
        "Number of Multisamples differs",
    );
}

#[test]
fn generations_other_than_gen6_and_gen7_are_refused() {
    let mut f = Fixture::new(0x0C7, 4);
    let mut env = DrawEnv {
        generation: baregpu_hal::Generation::Gen12_5,
        packets: &f.packets,
        bases: &f.bases,
        memory: &mut f.mem,
    };
    assert!(matches!(
        OutputMerger::new(&mut env),
        Err(DrawError::Unmodelled(_))
    ));
}

#[test]
fn a_replicated_write_ignores_the_blend_state() {
    // Blending that would zero the colour, a failing alpha test and all
    // channels disabled: the replicated-data write stores the colour.
    let mut f = Fixture::new(0x0C7, 4);
    f.tile_rt(2);
    f.blend(
        0,
        &BlendState {
            color_buffer_blend_enable: true,
            source_blend_factor: 0x11,
            destination_blend_factor: 0x11,
            alpha_test_enable: true,
            alpha_test_function: 1,
            write_disable_red: true,
            ..Default::default()
        },
    );
    let mut w = write8(|_| [1.0, 0.5, 0.0, 1.0]);
    w.replicated = true;
    let mut om = f.om().unwrap();
    f.run(&mut om, &w).unwrap();
    assert_eq!(f.rt_bytes(0, 0), [255, 128, 0, 255]);
}

#[test]
fn hierarchical_depth_takes_the_depth_buffer_and_needs_its_stencil_buffer() {
    let hiz = |f: &mut Fixture, code: u32| {
        f.depth_buffer(code);
        let mut p =
            Cmd3dstateDepthBuffer::unpack(f.packets.get(Cmd3dstateDepthBuffer::NAME).unwrap())
                .unwrap();
        p.hierarchical_depth_buffer_enable = true;
        p.separate_stencil_buffer_enable = true;
        f.packets.set(Cmd3dstateDepthBuffer::NAME, &pack(&p));
    };
    // Depth alone works on the depth buffer.
    let mut f = Fixture::new(0x0C7, 4);
    hiz(&mut f, 1);
    f.depth_stencil(&DepthStencilState {
        depth_test_enable: true,
        depth_buffer_write_enable: true,
        ..Default::default()
    });
    let mut om = f.om().unwrap();
    let mut w = write8(|_| [1.0; 4]);
    w.depth = Some([0.75; 16]);
    f.run(&mut om, &w).unwrap();
    let at = f.depth_at(0, 0);
    assert_eq!(f.mem.get(at, 4).unwrap(), 0.75f32.to_le_bytes());
    // Stencil with the separate buffer enabled but never given is
    // refused; a combined format with HiZ is invalid (003 lines
    // 42780-42782).
    f.depth_stencil(&DepthStencilState {
        stencil_test_enable: true,
        ..Default::default()
    });
    assert!(matches!(f.om(), Err(DrawError::Invalid(s)) if s.contains("3DSTATE_STENCIL_BUFFER")));
    let mut f = Fixture::new(0x0C7, 4);
    hiz(&mut f, 2);
    assert!(matches!(f.om(), Err(DrawError::Invalid(_))));
}
