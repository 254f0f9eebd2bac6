//! End to end through the driver on the software GPU: a kernel writes a
//! picture (pixel (x, y) = y << 16 | x) into linear, X-tiled and Y-tiled
//! surfaces with media block writes, and the surface memory, read through
//! the GGTT, must equal the host's picture laid out by the CPU tiling
//! helpers (`baregpu::gtt::tiling::linear_to_tiled`). Every generation with
//! a media pipeline.

mod compute_run_common;

use baregpu::compute::{Compute, Dispatch, Format, KernelDesc, Resource, Threads, Tiling};
use baregpu::gtt::tiling::{Swizzle, linear_to_tiled, surface_size};
use baregpu::hal::Generation;
use compute_run_common::*;

const WIDTH: u32 = 128;
const HEIGHT: u32 = 64;

/// Inline data r1.0 = block X in bytes, r1.1 = block Y in rows. Lanes
/// 0-7 are the block's 8 pixels of a row.
fn picture_kernel(g: Generation) -> Vec<u8> {
    let mut k = String::new();
    k += "mov (8|M0) r20.0<1>:ud 0x76543210:v\n";
    k += "shr (1|M0) r21.0<1>:ud r1.0<0;1,0>:ud 0x2:ud\n";
    k += "add (8|M0) r22.0<1>:ud r20.0<8;8,1>:ud r21.0<0;1,0>:ud\n";
    k += "shl (1|M0) r23.0<1>:ud r1.1<0;1,0>:ud 0x10:ud\n";
    k += "add (8|M0) r24.0<1>:ud r22.0<8;8,1>:ud r23.0<0;1,0>:ud\n";
    for r in 0..8 {
        k += &format!(
            "add (8|M0) {}.0<1>:ud r24.0<8;8,1>:ud {:#x}:ud\n",
            msg(g, r + 1),
            r << 16
        );
    }
    k += "mov (8|M0) r10.0<1>:ud r0.0<8;8,1>:ud\n";
    k += "mov (1|M0) r10.0<1>:ud r1.0<0;1,0>:ud\n";
    k += "mov (1|M0) r10.1<1>:ud r1.1<0;1,0>:ud\n";
    k += "mov (1|M0) r10.2<1>:ud 0x7001f:ud\n";
    let hdr = if g >= Generation::Gen6 { " hdr" } else { "" };
    let desc = format!(
        "{}.media_block_write(bti=3) mlen=9 rlen=0{hdr}",
        write_port(g)
    );
    k += &send(g, "r10", "null", &desc);
    k += &end_thread(g);
    assemble(g, &k)
}

fn write_picture(g: Generation, tiling: Tiling) {
    with_soft_platform(g, |gpu, soft, p| {
        let mut cx = Compute::new(gpu).unwrap();
        let bin = picture_kernel(g);
        let k = cx
            .load_kernel(
                gpu,
                &KernelDesc {
                    bindings: &[3],
                    ..KernelDesc::new(&bin)
                },
            )
            .unwrap();
        let surf = cx
            .create_surface_2d(gpu, WIDTH, HEIGHT, Format::R32Uint, tiling)
            .unwrap();
        let (bx, by) = (WIDTH * 4 / 32, HEIGHT / 8);
        let inline: Vec<u32> = (0..by)
            .flat_map(|y| (0..bx).flat_map(move |x| [x * 32, y * 8]))
            .collect();
        let bindings = [(3, Resource::Surface(&surf))];
        let d = Dispatch {
            threads: Threads::Objects {
                count: (bx * by) as usize,
                inline: &inline,
            },
            curbe: &[],
            bindings: &bindings,
        };
        let fence = cx.dispatch(gpu, &k, &d).unwrap();
        gpu.wait(fence, DONE_US)
            .unwrap_or_else(|e| panic!("{g}: {e}\nEU: {:?}", soft.eu_report()));

        // The host's picture, tiled by the CPU helper.
        let row = (WIDTH * 4) as usize;
        let picture: Vec<u8> = (0..HEIGHT)
            .flat_map(|y| (0..WIDTH).flat_map(move |x| (y << 16 | x).to_le_bytes()))
            .collect();
        let pitch = surf.pitch() as usize;
        let size = surface_size(tiling, pitch, HEIGHT as usize);
        let mut want = ggtt_bytes(gpu, p, surf.gfx().0, size);
        linear_to_tiled(
            &mut want,
            tiling,
            Swizzle::None,
            pitch,
            &picture,
            row,
            row,
            HEIGHT as usize,
        )
        .unwrap();
        let got = ggtt_bytes(gpu, p, surf.gfx().0, size);
        if let Some(i) = (0..size).find(|&i| got[i] != want[i]) {
            panic!(
                "{g} {tiling:?}: byte {i:#x} is {:#04x}, the CPU tiling says {:#04x}",
                got[i], want[i]
            );
        }
    });
}

#[test]
fn kernels_write_tiled_surfaces_as_the_cpu_tiles_them() {
    for g in MEDIA_GENERATIONS {
        for tiling in [Tiling::Linear, Tiling::X, Tiling::Y] {
            write_picture(g, tiling);
        }
    }
}
