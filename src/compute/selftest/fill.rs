//! Fill: a kernel fills a 2D RGBA surface with a colour it reads from its
//! constants (CURBE), one thread per 8x8 pixel block, each writing its block
//! with one media block write. MEDIA_OBJECT on every generation (the block's
//! position in its inline data) and MEDIA_OBJECT_WALKER on SNB and Ivy
//! Bridge (the position from the walker, in R0.1). The surface starts with a
//! background the kernel must overwrite; every pixel is read back through
//! the CPU and compared with the colour.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use baregpu_hal::Generation;
use baregpu_isa::text::AsmError;

use super::kernels::{MEDIA_BLOCK_8X32, assemble, end_thread, header_flag, msg, send, write_port};
use super::{BLOCK_PIXELS, Failure, Mismatch, Params, Place, Tally, check_surface_size};
use super::{dword, launch, scoped};
use crate::compute::{Compute, Dispatch, Format, KernelDesc, Resource, Swizzle, Threads, Tiling};
use crate::platform::Platform;
use crate::submit::Gpu;

/// A block is 32 bytes (8 RGBA pixels) by 8 rows: the largest media block
/// one message carries in 8 data registers (000 lines 4766-4799).
const BLOCK_BYTES: u32 = BLOCK_PIXELS * 4;
const BLOCK_ROWS: u32 = BLOCK_PIXELS;

/// What the surface holds before the kernel runs.
const BACKGROUND: u8 = 0xCD;

/// How the threads learn their block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Launch {
    Objects,
    Walker,
}

impl Launch {
    fn name(self) -> &'static str {
        match self {
            Launch::Objects => "media objects",
            Launch::Walker => "media walker",
        }
    }
}

/// The colour of the fill on `generation` (distinct per generation, with
/// four different bytes so a swapped channel shows).
pub(super) fn colour(generation: Generation) -> u32 {
    0x80C0_4020 ^ generation as u32
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

/// The message header (r10) for the block, then the eight data registers
/// of the colour in r1.0, then the write and EOT.
fn kernel(g: Generation, launch: Launch) -> Result<Vec<u8>, AsmError> {
    let mut k = String::from("mov (8|M0) r10.0<1>:ud r0.0<8;8,1>:ud\n");
    k += match launch {
        Launch::Objects => FROM_INLINE,
        Launch::Walker => FROM_WALKER,
    };
    k += &format!("mov (1|M0) r10.2<1>:ud {MEDIA_BLOCK_8X32}\n");
    for r in 1..=8 {
        k += &format!("mov (8|M0) {}.0<1>:ud r1.0<0;1,0>:ud\n", msg(g, r));
    }
    let desc = format!(
        "{}.media_block_write(bti=0) mlen=9 rlen=0{}",
        write_port(g),
        header_flag(g)
    );
    k += &send(g, "r10", "null", &desc);
    k += &end_thread(g);
    assemble(g, &k)
}

pub(super) fn run<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    cx: &mut Compute<'a>,
    p: &Params,
    tally: &mut Tally,
) -> Result<(), Failure> {
    check_surface_size(p)?;
    fill(gpu, cx, p, Launch::Objects, tally)?;
    if cx.generation() >= Generation::Gen6 {
        fill(gpu, cx, p, Launch::Walker, tally)?;
    }
    Ok(())
}

fn fill<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    cx: &mut Compute<'a>,
    p: &Params,
    launch_by: Launch,
    tally: &mut Tally,
) -> Result<(), Failure> {
    let g = cx.generation();
    let colour = colour(g);
    let bin = kernel(g, launch_by)?;
    let (bx, by) = (p.width / BLOCK_PIXELS, p.height / BLOCK_PIXELS);
    let blocks = bx as usize * by as usize;
    // Objects: each thread's block as (byte X, row Y) inline.
    let inline: Vec<u32> = match launch_by {
        Launch::Objects => (0..by)
            .flat_map(|y| (0..bx).flat_map(move |x| [x * BLOCK_BYTES, y * BLOCK_ROWS]))
            .collect(),
        Launch::Walker => Vec::new(),
    };
    let threads = match launch_by {
        Launch::Objects => Threads::Objects {
            count: blocks,
            inline: &inline,
        },
        Launch::Walker => Threads::Walker {
            width: bx,
            height: by,
            inline: &[],
        },
    };
    let row = p.width as usize * 4;
    let mut got = vec![BACKGROUND; row * p.height as usize];
    scoped(gpu, |gpu, held| {
        let desc = KernelDesc {
            curbe_bytes: 32,
            bindings: &[0],
            ..KernelDesc::new(&bin)
        };
        held.kernels.push(cx.load_kernel(gpu, &desc)?);
        held.surfaces.push(cx.create_surface_2d(
            gpu,
            p.width,
            p.height,
            Format::R8G8B8A8Unorm,
            Tiling::Linear,
        )?);
        let (k, surf) = (&held.kernels[0], &held.surfaces[0]);
        surf.write_pixels(Swizzle::None, &got)?;
        let bindings = [(0, Resource::Surface(surf))];
        let d = Dispatch {
            threads,
            curbe: &colour.to_le_bytes(),
            bindings: &bindings,
            samplers: &[],
        };
        launch(gpu, cx, k, &d, p.timeout_us)?;
        surf.read_pixels(Swizzle::None, &mut got)?;
        Ok(())
    })?;
    tally.dispatches += 1;
    tally.threads += blocks as u64;
    check(&got, p.width, colour, launch_by.name())?;
    tally.checked += u64::from(p.width) * u64::from(p.height);
    Ok(())
}

/// Every pixel of row-major RGBA `pixels` (`width` per row) is `colour`.
pub(super) fn check(
    pixels: &[u8],
    width: u32,
    colour: u32,
    case: &'static str,
) -> Result<(), Mismatch> {
    let width = width.max(1) as usize;
    let n = pixels.len() / 4;
    match (0..n).find(|&i| dword(pixels, i) != colour) {
        None => Ok(()),
        Some(i) => Err(Mismatch {
            case,
            at: Place::Pixel {
                x: (i % width) as u32,
                y: (i / width) as u32,
            },
            got: dword(pixels, i),
            want: colour,
        }),
    }
}
