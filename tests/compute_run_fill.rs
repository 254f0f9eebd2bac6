//! End to end through the driver on the software GPU: a kernel fills a 2D
//! surface with a colour it reads from its constants (CURBE), writing 8x8
//! pixel blocks with the media block write message, one thread per block.
//! MEDIA_OBJECT on every generation (the block's position in its inline
//! data), MEDIA_OBJECT_WALKER on SNB and Ivy Bridge (the position from the
//! walker, in R0.1). The result is read back through the CPU and compared
//! with the host's picture of the same fill.

mod compute_run_common;

use baregpu::compute::{Compute, Dispatch, Format, KernelDesc, Resource, Swizzle, Threads, Tiling};
use baregpu::hal::Generation;
use compute_run_common::*;

const WIDTH: u32 = 64;
const HEIGHT: u32 = 32;
/// A block: 32 bytes (8 RGBA pixels) by 8 rows, the largest media block a
/// message carries in 8 registers (000 lines 4766-4799).
const BLOCK_BYTES: u32 = 32;
const BLOCK_ROWS: u32 = 8;

/// The message header (r10) for the block at byte `x`, row `y`, then the
/// eight data registers of the colour in r1.0, then the write and EOT.
fn fill_kernel(g: Generation, position: &str) -> Vec<u8> {
    let mut k = String::from("mov (8|M0) r10.0<1>:ud r0.0<8;8,1>:ud\n");
    k += position;
    // M0.2: block height - 1 in 21:16, width - 1 in bytes in 4:0.
    k += "mov (1|M0) r10.2<1>:ud 0x7001f:ud\n";
    for r in 1..=8 {
        k += &format!("mov (8|M0) {}.0<1>:ud r1.0<0;1,0>:ud\n", msg(g, r));
    }
    let hdr = if g >= Generation::Gen6 { " hdr" } else { "" };
    let desc = format!(
        "{}.media_block_write(bti=0) mlen=9 rlen=0{hdr}",
        write_port(g)
    );
    k += &send(g, "r10", "null", &desc);
    k += &end_thread(g);
    assemble(g, &k)
}

/// Position from the inline data after the one CURBE register: r2.0 bytes,
/// r2.1 rows.
const FROM_INLINE: &str = "mov (1|M0) r10.0<1>:ud r2.0<0;1,0>:ud\n\
                           mov (1|M0) r10.1<1>:ud r2.1<0;1,0>:ud\n";

/// Position from the walker: R0.1 scoreboard X in 8:0, Y in 24:16 (003
/// Table 1-23), scaled to bytes and rows of a block.
const FROM_WALKER: &str = "and (1|M0) r10.0<1>:ud r0.1<0;1,0>:ud 0x1ff:ud\n\
                           shl (1|M0) r10.0<1>:ud r10.0<0;1,0>:ud 0x5:ud\n\
                           shr (1|M0) r10.1<1>:ud r0.1<0;1,0>:ud 0x10:ud\n\
                           and (1|M0) r10.1<1>:ud r10.1<0;1,0>:ud 0x1ff:ud\n\
                           shl (1|M0) r10.1<1>:ud r10.1<0;1,0>:ud 0x3:ud\n";

/// Fills a surface of `tiling` with `colour` and checks every pixel.
fn fill(g: Generation, tiling: Tiling, walker: bool) {
    with_soft(g, |gpu, soft| {
        let mut cx = Compute::new(gpu).unwrap();
        let bin = fill_kernel(g, if walker { FROM_WALKER } else { FROM_INLINE });
        let desc = KernelDesc {
            curbe_bytes: 32,
            bindings: &[0],
            ..KernelDesc::new(&bin)
        };
        let k = cx.load_kernel(gpu, &desc).unwrap();
        let surf = cx
            .create_surface_2d(gpu, WIDTH, HEIGHT, Format::R8G8B8A8Unorm, tiling)
            .unwrap();
        // A background the kernel must overwrite everywhere.
        let row = (WIDTH * 4) as usize;
        let background = vec![0xCD; row * HEIGHT as usize];
        surf.write_pixels(Swizzle::None, &background).unwrap();
        let colour: u32 = 0x80C0_4020 ^ (g as u32);
        let (bx, by) = (WIDTH * 4 / BLOCK_BYTES, HEIGHT / BLOCK_ROWS);
        let inline: Vec<u32> = (0..by)
            .flat_map(|y| (0..bx).flat_map(move |x| [x * BLOCK_BYTES, y * BLOCK_ROWS]))
            .collect();
        let threads = if walker {
            Threads::Walker {
                width: bx,
                height: by,
                inline: &[],
            }
        } else {
            Threads::Objects {
                count: (bx * by) as usize,
                inline: &inline,
            }
        };
        let bindings = [(0, Resource::Surface(&surf))];
        let d = Dispatch {
            threads,
            curbe: &colour.to_le_bytes(),
            bindings: &bindings,
        };
        let fence = cx.dispatch(gpu, &k, &d).unwrap();
        gpu.wait(fence, DONE_US)
            .unwrap_or_else(|e| panic!("{g}: {e}\nEU: {:?}", soft.eu_report()));
        let mut got = vec![0u8; row * HEIGHT as usize];
        surf.read_pixels(Swizzle::None, &mut got).unwrap();
        let want: Vec<u8> = colour.to_le_bytes().repeat((WIDTH * HEIGHT) as usize);
        for (i, (a, b)) in got.chunks(4).zip(want.chunks(4)).enumerate() {
            let (x, y) = (i as u32 % WIDTH, i as u32 / WIDTH);
            assert_eq!(a, b, "{g} {tiling:?} walker={walker}: pixel ({x}, {y})");
        }
        let stats = soft.eu_stats();
        assert_eq!(
            stats.completed,
            u64::from(bx * by),
            "{g}: one thread per block"
        );
        assert!(soft.eu_report().is_none(), "{g}: {:?}", soft.eu_report());
    });
}

#[test]
fn media_objects_fill_a_linear_surface_on_every_generation() {
    for g in MEDIA_GENERATIONS {
        fill(g, Tiling::Linear, false);
    }
}

#[test]
fn the_media_walker_fills_a_surface_from_r0_positions() {
    for g in [Generation::Gen6, Generation::Gen7] {
        fill(g, Tiling::Linear, true);
    }
}
