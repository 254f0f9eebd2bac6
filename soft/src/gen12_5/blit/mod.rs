//! The DG2 blitter: XY_FAST_COPY_BLT, XY_BLOCK_COPY_BLT and
//! XY_FAST_COLOR_BLT on the blitter engine (BCS), between linear, X-tiled,
//! Tile4 and Tile64 surfaces of 8 to 128 bits per pixel, in system or local
//! memory as the context's page tables place them.
//!
//! What the model does (`decode` for the fields, `surface` for the layouts):
//! * Addresses go through the running context's PPGTT (a blit has no GGTT
//!   bit; `Device::space` as for the MI commands), so the local-memory bit
//!   of a page table entry decides where a byte lands; the commands' Target
//!   Memory bits are performance hints (manual 004, XY_BLOCK_COPY_BLT DW6
//!   and DW11) and are not read. A missing translation is a page fault
//!   reported like any other; the bytes before it stay written.
//! * Tile layouts are `baregpu_hal::tiling`'s (X, Tile4, Tile64 2D single
//!   sample): the same ones the driver's CPU helpers use.
//! * Scan lines go top down, each read whole before it is written; when the
//!   source is the destination surface and starts above it, bottom up
//!   ("The source and destination surfaces CAN overlap, the hardware handles
//!   this internally", XY_BLOCK_COPY_BLT).
//! * Refused by name (the engine stops with an instruction error, the
//!   header in SOFT_UNMODELLED_COMMAND): compression, auxiliary and
//!   clear-value surfaces, resolves and fast clears, multisampling, 3D and
//!   cube surfaces, LODs and array slices other than the first,
//!   depth/stencil resources, a Tile64 mip tail holding LOD 0, legacy Tile-Y,
//!   96 bpp tiled, reserved colour depths, negative coordinates, pitches and
//!   bases against the pages' rules, the Gen12 (short) block copy. MOCS,
//!   control-surface types and compression formats have no effect without
//!   compression and are not read; neither are the MBZ fields.
//! * The legacy XY_COLOR_BLT and XY_SRC_COPY_BLT run on linear surfaces
//!   (`legacy`); the other legacy XY_* blits of DG2's tables (pattern,
//!   monochrome, text, full and chroma blits) stop the engine as unmodelled
//!   commands.

mod decode;
mod legacy;
mod surface;

use alloc::vec;

use baregpu_hal::MemoryBus;

pub use decode::Kind;

use super::Device;
use super::halt::Halt;
use super::memory::VA_MASK;
use super::memory::{Fault, Memory, Space};
use crate::command::{Cmd, F};
use decode::Blit;
use surface::Surface;

/// The blit a table command name is, if the model executes it.
pub fn of(name: &str) -> Option<Kind> {
    Some(match name {
        "XY_FAST_COPY_BLT" => Kind::FastCopy,
        "XY_BLOCK_COPY_BLT" => Kind::BlockCopy,
        "XY_FAST_COLOR_BLT" => Kind::FastColor,
        "XY_COLOR_BLT" => Kind::Color,
        "XY_SRC_COPY_BLT" => Kind::SrcCopy,
        _ => return None,
    })
}

/// The fields a blit must have in the tables.
pub fn required(kind: Kind) -> &'static [F] {
    match kind {
        Kind::Color | Kind::SrcCopy => legacy::required(kind),
        _ => decode::required(kind),
    }
}

/// Decodes one blit, the legacy ones by `legacy`: `Ok(None)` for an empty
/// rectangle.
fn decode(c: &Cmd, kind: Kind, dw: &[u32]) -> Result<Option<Blit>, decode::Refused> {
    let f = decode::fields(c, kind, dw)?;
    match kind {
        Kind::Color | Kind::SrcCopy => legacy::decode(&f, kind),
        _ => decode::decode(&f, kind),
    }
}

impl<B: MemoryBus> Device<B> {
    /// Executes one blit on engine `i`.
    pub(super) fn blit(&mut self, i: usize, c: &Cmd, kind: Kind, dw: &[u32]) -> Result<(), Halt> {
        let blit = match decode(c, kind, dw) {
            Err(name) => return Err(self.refuse(dw, name)),
            Ok(None) => return Ok(()),
            Ok(Some(b)) => b,
        };
        let space = self.space(i, None);
        let mut mem = self.memory(i);
        run(&mut mem, space, &blit).map_err(|f| Halt::of(f, dw[0]))
    }
}

/// Runs a blit scan line by scan line.
fn run<B: MemoryBus>(mem: &mut Memory<'_, B>, space: Space, b: &Blit) -> Result<(), Fault> {
    let cpp = b.cpp as u64;
    let mut line = vec![0u8; (b.width * cpp) as usize];
    // The legacy blits combine source, pattern and destination per byte.
    let mut dest = vec![0u8; if b.raster.is_some() { line.len() } else { 0 }];
    if b.src.is_none() {
        for px in line.chunks_exact_mut(b.cpp) {
            px.copy_from_slice(&b.fill[..b.cpp]);
        }
    }
    let bottom_up = b.src.is_some_and(|(s, _, sy)| s == b.dst && sy < b.y);
    for n in 0..b.height {
        let r = if bottom_up { b.height - 1 - n } else { n };
        if let Some((src, sx, sy)) = b.src {
            read_line(mem, space, &src, sx * cpp, sy + r, &mut line)?;
        }
        let out = match b.raster {
            None => &line,
            Some(ras) => {
                read_line(mem, space, &b.dst, b.x * cpp, b.y + r, &mut dest)?;
                for (k, d) in dest.iter_mut().enumerate() {
                    let byte = k % b.cpp;
                    if ras.writes[byte] {
                        let s = if b.src.is_some() { line[k] } else { 0 };
                        *d = crate::blit::rop3(ras.rop, ras.pattern[byte], s, *d);
                    }
                }
                &dest
            }
        };
        write_line(mem, space, &b.dst, b.x * cpp, b.y + r, out)?;
    }
    Ok(())
}

fn read_line<B: MemoryBus>(
    mem: &Memory<'_, B>,
    space: Space,
    s: &Surface,
    xb: u64,
    y: u64,
    buf: &mut [u8],
) -> Result<(), Fault> {
    for (addr, at, n) in s.runs(xb, y, buf.len()) {
        mem.read(space, addr & VA_MASK, &mut buf[at..at + n])?;
    }
    Ok(())
}

fn write_line<B: MemoryBus>(
    mem: &mut Memory<'_, B>,
    space: Space,
    s: &Surface,
    xb: u64,
    y: u64,
    buf: &[u8],
) -> Result<(), Fault> {
    for (addr, at, n) in s.runs(xb, y, buf.len()) {
        mem.write(space, addr & VA_MASK, &buf[at..at + n])?;
    }
    Ok(())
}
