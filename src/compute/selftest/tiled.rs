//! Tiled surfaces: a kernel writes a picture (pixel (x, y) = y << 16 | x)
//! into linear, X-tiled and Y-tiled R32_UINT surfaces with media block
//! writes, one thread per 8x8 block. The surface's memory must equal the
//! CPU's picture laid out by the CPU tiling helpers
//! ([`crate::gtt::tiling::linear_to_tiled`]) over a zeroed surface: each
//! pixel where the helpers put it, and the tile padding left alone.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use baregpu_hal::Generation;
use baregpu_isa::text::AsmError;

use super::kernels::{MEDIA_BLOCK_8X32, assemble, end_thread, header_flag, msg, send, write_port};
use super::{BLOCK_PIXELS, Failure, Mismatch, Params, Place, Tally, check_surface_size};
use super::{dword, launch, scoped};
use crate::compute::surface::read_region;
use crate::compute::{Compute, ComputeError, Dispatch, Format, KernelDesc, Resource, Threads};
use crate::gtt::tiling::{Swizzle, Tiling, linear_to_tiled, surface_size, tiled_offset};
use crate::platform::Platform;
use crate::submit::Gpu;

/// The binding table index the kernel writes (not 0, so the binding table
/// has entries before it).
const BTI: u32 = 3;

/// The picture's pixel at (x, y).
pub(super) const fn pixel(x: u32, y: u32) -> u32 {
    (y << 16) | x
}

/// Inline data r1.0 = block X in bytes, r1.1 = block Y in rows. Lanes 0-7
/// are the block's 8 pixels of a row; register r of the payload is row r.
fn kernel(g: Generation) -> Result<Vec<u8>, AsmError> {
    let mut k = String::new();
    k += "mov (8|M0) r126.0<1>:uw 0x76543210:v\n";
    k += "mov (8|M0) r20.0<1>:ud r126.0<8;8,1>:uw\n";
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
    k += &format!("mov (1|M0) r10.2<1>:ud {MEDIA_BLOCK_8X32}\n");
    let desc = format!(
        "{}.media_block_write(bti={BTI}) mlen=9 rlen=0{}",
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
    // Also keeps x and y within the 16-bit halves of a pixel.
    check_surface_size(p)?;
    let bin = kernel(cx.generation())?;
    for tiling in Tiling::ALL {
        write_picture(gpu, cx, p, &bin, tiling, tally)?;
    }
    Ok(())
}

fn write_picture<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    cx: &mut Compute<'a>,
    p: &Params,
    bin: &[u8],
    tiling: Tiling,
    tally: &mut Tally,
) -> Result<(), Failure> {
    let (bx, by) = (p.width / BLOCK_PIXELS, p.height / BLOCK_PIXELS);
    let blocks = bx as usize * by as usize;
    let inline: Vec<u32> = (0..by)
        .flat_map(|y| (0..bx).flat_map(move |x| [x * BLOCK_PIXELS * 4, y * BLOCK_PIXELS]))
        .collect();
    let (memory, pitch) = scoped(gpu, |gpu, held| {
        let desc = KernelDesc {
            bindings: &[BTI],
            ..KernelDesc::new(bin)
        };
        held.kernels.push(cx.load_kernel(gpu, &desc)?);
        held.surfaces.push(cx.create_surface_2d(
            gpu,
            p.width,
            p.height,
            Format::R32Uint,
            tiling,
        )?);
        let surf = &held.surfaces[0];
        let bindings = [(BTI, Resource::Surface(surf))];
        let d = Dispatch {
            threads: Threads::Objects {
                count: blocks,
                inline: &inline,
            },
            curbe: &[],
            bindings: &bindings,
            samplers: &[],
        };
        launch(gpu, cx, &held.kernels[0], &d, p.timeout_us)?;
        let mut memory = vec![0u8; surf.size()];
        read_region(&surf.memory, surf.size(), 0, &mut memory)?;
        Ok((memory, surf.pitch() as usize))
    })?;
    tally.dispatches += 1;
    tally.threads += blocks as u64;
    let layout = Layout {
        tiling,
        swizzle: p.swizzle(tiling),
        pitch,
        width: p.width,
        height: p.height,
    };
    check(&memory, &layout)?;
    tally.checked += u64::from(p.width) * u64::from(p.height);
    Ok(())
}

/// How a surface lies in memory.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub tiling: Tiling,
    pub swizzle: Swizzle,
    pub pitch: usize,
    pub width: u32,
    pub height: u32,
}

impl Layout {
    fn case(&self) -> &'static str {
        match self.tiling {
            Tiling::Linear => "linear surface",
            Tiling::X => "X-tiled surface",
            Tiling::Y => "Y-tiled surface",
        }
    }
}

/// The memory of a zeroed surface after the picture was written, as the
/// CPU tiling helpers lay it out.
pub(super) fn expected(l: &Layout) -> Result<Vec<u8>, ComputeError> {
    let row = l.width as usize * 4;
    let picture: Vec<u8> = (0..l.height)
        .flat_map(|y| (0..l.width).flat_map(move |x| pixel(x, y).to_le_bytes()))
        .collect();
    let mut want = vec![0u8; surface_size(l.tiling, l.pitch, l.height as usize)];
    linear_to_tiled(
        &mut want,
        l.tiling,
        l.swizzle,
        l.pitch,
        &picture,
        row,
        row,
        l.height as usize,
    )
    .map_err(|_| ComputeError::Invalid("the surface layout does not hold the picture"))?;
    Ok(want)
}

/// `memory` is [`expected`]; the first difference is named by its pixel
/// (found with [`tiled_offset`]), or as a padding byte.
pub(super) fn check(memory: &[u8], l: &Layout) -> Result<(), Failure> {
    let want = expected(l)?;
    let Some(at) = (0..want.len()).find(|&i| memory.get(i) != want.get(i)) else {
        return Ok(());
    };
    let covering = (0..l.height)
        .flat_map(|y| (0..l.width).map(move |x| (x, y)))
        .find(|&(x, y)| {
            let o = tiled_offset(l.tiling, l.swizzle, l.pitch, x as usize * 4, y as usize);
            (o..o + 4).contains(&at)
        });
    let m = match covering {
        Some((x, y)) => {
            let o = tiled_offset(l.tiling, l.swizzle, l.pitch, x as usize * 4, y as usize);
            Mismatch {
                case: l.case(),
                at: Place::Pixel { x, y },
                got: dword(memory.get(o..).unwrap_or(&[]), 0),
                want: pixel(x, y),
            }
        }
        None => Mismatch {
            case: l.case(),
            at: Place::Byte(at),
            got: memory.get(at).copied().map_or(0, u32::from),
            want: want.get(at).copied().map_or(0, u32::from),
        },
    };
    Err(m.into())
}
