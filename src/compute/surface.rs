//! Memory a kernel reads and writes: buffers and 2D surfaces, their CPU
//! access, and the generation-neutral description of the SURFACE_STATE each
//! one becomes when bound (the per-generation packing is in `state/`).

use alloc::vec;

use baregpu_hal::Generation;

use super::error::{ComputeError, check_max};
use super::memory::Backing;
use super::mip::MipChain;
use crate::gtt::tiling::{self, Swizzle, Tiling};
use crate::gtt::{GfxAddr, tile4};
use crate::submit::Placement;

/// Pixel formats a 2D surface (or a typed buffer) can have.
///
/// The SURFACE_FORMAT codes are the same on every generation here: 965/G45
/// manual 000 lines 3393-3485, SNB 003 lines 76508-76952, and for Ivy Bridge
/// Mesa's gen7.xml SURFACE_FORMAT enum (the hal's RENDER_SURFACE_STATE names
/// them) [ext: Mesa src/intel/genxml/gen7.xml].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// 0x140 (000 line 3482, 003 line 76946).
    R8Unorm,
    /// 0x143 (000 line 3485, 003 line 76952).
    R8Uint,
    /// 0x0D7 (000 line 3413, 003 line 76547).
    R32Uint,
    /// 0x0D8 (000 line 3414, 003 line 76549).
    R32Float,
    /// 0x0C7 (000 line 3399, 003 line 76520).
    R8G8B8A8Unorm,
    /// 0x0C0 (000 line 3393, 003 line 76508).
    B8G8R8A8Unorm,
}

impl Format {
    /// Every format, for tests and tools.
    pub const ALL: [Format; 6] = [
        Format::R8Unorm,
        Format::R8Uint,
        Format::R32Uint,
        Format::R32Float,
        Format::R8G8B8A8Unorm,
        Format::B8G8R8A8Unorm,
    ];

    /// Bytes per pixel (the "bpe" column of the same tables).
    pub const fn bytes_per_pixel(self) -> u32 {
        match self {
            Format::R8Unorm | Format::R8Uint => 1,
            Format::R32Uint | Format::R32Float | Format::R8G8B8A8Unorm | Format::B8G8R8A8Unorm => 4,
        }
    }

    /// The SURFACE_FORMAT code on `generation` (identical on all four).
    pub const fn code(self, _generation: Generation) -> u32 {
        match self {
            Format::R8Unorm => 0x140,
            Format::R8Uint => 0x143,
            Format::R32Uint => 0x0d7,
            Format::R32Float => 0x0d8,
            Format::R8G8B8A8Unorm => 0x0c7,
            Format::B8G8R8A8Unorm => 0x0c0,
        }
    }
}

/// SURFACE_FORMAT RAW: byte-addressed buffers for the untyped surface
/// messages. Ivy Bridge only [ext: Mesa gen7.xml SURFACE_FORMAT RAW = 0x1FF];
/// the SNB manual lists 1FF (003 line 77102) but its note (line 77110) ties
/// it to untyped messages, which SNB does not have.
pub const RAW_FORMAT: u32 = 0x1ff;

/// Largest SURFTYPE_BUFFER: 2^27 entries (000 "For buffer surfaces, the
/// number of entries in the buffer ranges from 1 to 2^27", SURFACE_STATE
/// Height notes, line 3236; the same on SNB, 003 lines 75895-75898).
pub const MAX_BUFFER_ENTRIES: u64 = 1 << 27;

/// Largest buffer [`super::Compute::create_buffer`] makes: what a binding
/// can reach, 2^27 entries of the widest element a [`Format`] has (4 bytes).
/// Checked before anything is allocated, so a hostile size costs nothing.
pub const MAX_BUFFER_BYTES: usize = MAX_BUFFER_ENTRIES as usize * 4;

/// Largest 2D surface side: Width/Height are 13 bits of (size - 1) on
/// 965/G45 and SNB (000 lines 3234 and 3245, 003 SURFACE_STATE DW2); Ivy Bridge
/// has 14 bits but the smaller limit keeps one rule for all.
pub const MAX_SURFACE_SIDE: u32 = 8192;

/// A CPU-visible buffer from [`super::Compute::create_buffer`]: in the
/// GGTT (Gen4-Gen7) or the compute context's PPGTT (Gen12.5).
#[derive(Debug)]
pub struct Buffer<'a> {
    /// Owned: the memory goes back to the platform when the buffer is dropped.
    pub(crate) memory: Backing<'a>,
    pub(crate) size: usize,
}

impl Buffer<'_> {
    /// Where the GPU sees the first byte.
    pub fn gfx(&self) -> GfxAddr {
        self.memory.gfx()
    }

    /// System or local memory.
    pub fn placement(&self) -> Placement {
        self.memory.placement()
    }

    /// Bytes the kernel may address (the requested size).
    pub fn size(&self) -> usize {
        self.size
    }

    /// Copies `data` into the buffer at `offset`.
    ///
    /// Call only while no submitted work uses the buffer.
    pub fn write(&self, offset: usize, data: &[u8]) -> Result<(), ComputeError> {
        write_region(&self.memory, self.size, offset, data)
    }

    /// Copies bytes at `offset` into `out`.
    ///
    /// Call only after the work that wrote the buffer completed.
    pub fn read(&self, offset: usize, out: &mut [u8]) -> Result<(), ComputeError> {
        read_region(&self.memory, self.size, offset, out)
    }
}

/// A 2D surface from [`super::Compute::create_surface_2d`], or a
/// mipmapped texture from [`super::Compute::create_texture_2d`].
#[derive(Debug)]
pub struct Surface<'a> {
    /// Owned: the memory goes back to the platform when the surface is dropped.
    pub(crate) memory: Backing<'a>,
    /// Level 0's size.
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) pitch: u32,
    pub(crate) format: Format,
    pub(crate) tiling: Tiling,
    /// Mip levels (1: level 0 only).
    pub(crate) levels: u32,
    /// Rows of memory the levels occupy (`height` for one level).
    pub(crate) rows: u32,
    /// Gen12.5's Tile4 layout (`tiling` is then [`Tiling::Linear`], the
    /// older generations' enum having no Tile4): see `gtt::tile4`.
    pub(crate) tile4: bool,
}

impl Surface<'_> {
    pub fn gfx(&self) -> GfxAddr {
        self.memory.gfx()
    }
    /// Laid out in Tile4 (Gen12.5, [`super::Compute::create_surface_tile4`]).
    pub fn is_tile4(&self) -> bool {
        self.tile4
    }
    pub fn width(&self) -> u32 {
        self.width
    }
    pub fn height(&self) -> u32 {
        self.height
    }
    /// Bytes from one row (of pixels, or of tiles times the tile height) to the next.
    pub fn pitch(&self) -> u32 {
        self.pitch
    }
    pub fn format(&self) -> Format {
        self.format
    }
    pub fn tiling(&self) -> Tiling {
        self.tiling
    }
    /// Mip levels (1 unless made by [`super::Compute::create_texture_2d`]).
    pub fn levels(&self) -> u32 {
        self.levels
    }
    /// Bytes of memory the surface occupies (whole tile rows when tiled).
    pub fn size(&self) -> usize {
        if self.tile4 {
            return tile4::tile4_size(self.pitch as usize, self.rows as usize);
        }
        tiling::surface_size(self.tiling, self.pitch as usize, self.rows as usize)
    }

    /// The surface's memory as it is (tiled bytes for a tiled surface), from
    /// `offset`: to inspect a layout after the work that wrote it completed.
    pub fn read_raw(&self, offset: usize, out: &mut [u8]) -> Result<(), ComputeError> {
        read_region(&self.memory, self.size(), offset, out)
    }

    /// Width and height of mip level `level`, if the surface has it.
    pub fn level_size(&self, level: u32) -> Option<(u32, u32)> {
        (level < self.levels).then(|| self.chain().size(level))
    }

    fn chain(&self) -> MipChain {
        MipChain {
            width: self.width,
            height: self.height,
            levels: self.levels,
        }
    }

    /// Byte range of row `y` of `level` in the surface's memory (linear
    /// surfaces only: mipmapped ones are linear).
    fn level_row(&self, level: u32, y: u32) -> core::ops::Range<usize> {
        let chain = self.chain();
        let (x0, y0) = chain.origin(level);
        let (w, _) = chain.size(level);
        let bpp = self.format.bytes_per_pixel() as usize;
        let start = (y0 + y) as usize * self.pitch as usize + x0 as usize * bpp;
        start..start + w as usize * bpp
    }

    /// Stores row-major pixels of mip level `level` (its width times the
    /// bytes per pixel per row, no padding) where the sampler reads them.
    /// Level 0 of a one-level surface is [`Surface::write_pixels`].
    ///
    /// Call only while no submitted work uses the surface.
    pub fn write_level(
        &self,
        swizzle: Swizzle,
        level: u32,
        pixels: &[u8],
    ) -> Result<(), ComputeError> {
        let (_, h) = self.level_bytes(level, pixels.len())?;
        if self.levels == 1 {
            return self.write_pixels(swizzle, pixels);
        }
        let row = pixels.len() / h as usize;
        for (y, src) in pixels.chunks(row).enumerate() {
            let r = self.level_row(level, y as u32);
            write_region(&self.memory, self.size(), r.start, src)?;
        }
        Ok(())
    }

    /// Reads mip level `level` back as row-major pixels (the inverse of
    /// [`Surface::write_level`]).
    pub fn read_level(
        &self,
        swizzle: Swizzle,
        level: u32,
        pixels: &mut [u8],
    ) -> Result<(), ComputeError> {
        let (_, h) = self.level_bytes(level, pixels.len())?;
        if self.levels == 1 {
            return self.read_pixels(swizzle, pixels);
        }
        let row = pixels.len() / h as usize;
        for (y, dst) in pixels.chunks_mut(row).enumerate() {
            let r = self.level_row(level, y as u32);
            read_region(&self.memory, self.size(), r.start, dst)?;
        }
        Ok(())
    }

    /// Checks that `len` bytes are exactly level `level`; its size.
    fn level_bytes(&self, level: u32, len: usize) -> Result<(u32, u32), ComputeError> {
        let (w, h) = self
            .level_size(level)
            .ok_or(ComputeError::Invalid("the surface has no such mip level"))?;
        let bytes = w as usize * h as usize * self.format.bytes_per_pixel() as usize;
        if len != bytes {
            return Err(ComputeError::Invalid(
                "pixel data does not match the mip level's size",
            ));
        }
        Ok((w, h))
    }

    /// Stores row-major pixels (`width * bpp` bytes per row, no padding) in
    /// the surface's layout. `swizzle` is the bit-6 swizzle the memory
    /// controller applies to this tiling (see [`Swizzle`]).
    ///
    /// Call only while no submitted work uses the surface.
    pub fn write_pixels(&self, swizzle: Swizzle, pixels: &[u8]) -> Result<(), ComputeError> {
        let row = self.width as usize * self.format.bytes_per_pixel() as usize;
        // Read, lay the pixels out, write back: bytes the layout does not
        // cover (pitch padding) keep what they held.
        let mut dst = vec![0; self.size()];
        read_region(&self.memory, self.size(), 0, &mut dst)?;
        if self.tile4 {
            tile4::linear_to_tile4(
                &mut dst,
                self.pitch as usize,
                pixels,
                row,
                row,
                self.height as usize,
            )
            .map_err(|_| ComputeError::Invalid("pixel data does not match the surface size"))?;
            return write_region(&self.memory, self.size(), 0, &dst);
        }
        tiling::linear_to_tiled(
            &mut dst,
            self.tiling,
            swizzle,
            self.pitch as usize,
            pixels,
            row,
            row,
            self.height as usize,
        )
        .map_err(|_| ComputeError::Invalid("pixel data does not match the surface size"))?;
        write_region(&self.memory, self.size(), 0, &dst)
    }

    /// Reads the surface back as row-major pixels (the inverse of
    /// [`Surface::write_pixels`]).
    pub fn read_pixels(&self, swizzle: Swizzle, pixels: &mut [u8]) -> Result<(), ComputeError> {
        let row = self.width as usize * self.format.bytes_per_pixel() as usize;
        let mut src = vec![0; self.size()];
        read_region(&self.memory, self.size(), 0, &mut src)?;
        if self.tile4 {
            return tile4::tile4_to_linear(
                pixels,
                row,
                &src,
                self.pitch as usize,
                row,
                self.height as usize,
            )
            .map_err(|_| ComputeError::Invalid("pixel buffer does not match the surface size"));
        }
        tiling::tiled_to_linear(
            pixels,
            row,
            &src,
            self.tiling,
            swizzle,
            self.pitch as usize,
            row,
            self.height as usize,
        )
        .map_err(|_| ComputeError::Invalid("pixel buffer does not match the surface size"))
    }
}

/// What a binding table entry points at.
#[derive(Clone, Copy, Debug)]
pub enum Resource<'a> {
    /// The whole buffer, untyped: RAW bytes on Ivy Bridge (untyped surface
    /// messages), R32_UINT dwords on the older generations (OWord block and
    /// DWord scattered messages ignore the format, 000 SURFACE_STATE Surface
    /// Format, line 3104).
    Buffer(&'a Buffer<'a>),
    /// The buffer as an array of `format` elements (sampler `ld`, typed reads).
    TypedBuffer(&'a Buffer<'a>, Format),
    /// A 2D surface.
    Surface(&'a Surface<'a>),
}

/// What a SURFACE_STATE has to say, before per-generation packing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SurfaceDesc {
    pub base: u64,
    /// SURFACE_FORMAT code.
    pub format: u32,
    pub kind: SurfaceKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SurfaceKind {
    /// SURFTYPE_BUFFER of `entries` elements `stride` bytes apart.
    Buffer { entries: u32, stride: u32 },
    /// SURFTYPE_2D with `levels` mip levels.
    Image2d {
        width: u32,
        height: u32,
        pitch: u32,
        tiling: Tiling,
        levels: u32,
        /// Gen12.5 Tile4 (`tiling` is then Linear).
        tile4: bool,
    },
}

impl SurfaceDesc {
    /// The SURFACE_STATE contents for `resource` on `generation`.
    pub(crate) fn of(
        resource: &Resource<'_>,
        generation: Generation,
    ) -> Result<Self, ComputeError> {
        let buffer = |b: &Buffer<'_>, format: u32, stride: u32| -> Result<Self, ComputeError> {
            let entries = (b.size as u64) / stride as u64;
            if entries == 0 {
                return Err(ComputeError::Invalid("buffer smaller than one element"));
            }
            check_max("buffer entries", entries, MAX_BUFFER_ENTRIES)?;
            Ok(SurfaceDesc {
                base: b.gfx().0,
                format,
                kind: SurfaceKind::Buffer {
                    entries: entries as u32,
                    stride,
                },
            })
        };
        match *resource {
            Resource::Buffer(b) if raw_buffers(generation) => buffer(b, RAW_FORMAT, 1),
            Resource::Buffer(b) => buffer(b, Format::R32Uint.code(generation), 4),
            Resource::TypedBuffer(b, f) => buffer(b, f.code(generation), f.bytes_per_pixel()),
            Resource::Surface(s) => Ok(SurfaceDesc {
                base: s.gfx().0,
                format: s.format.code(generation),
                kind: SurfaceKind::Image2d {
                    width: s.width,
                    height: s.height,
                    pitch: s.pitch,
                    tiling: s.tiling,
                    levels: s.levels,
                    tile4: s.tile4,
                },
            }),
        }
    }

    /// Entries - 1 split into the (Width, Height, Depth) fields of a
    /// SURFTYPE_BUFFER: bits 6:0, 19:7, 26:20 on 965/G45/SNB (000 lines 3234,
    /// 3245 and 3267; 003 lines 75895-75898); bits 6:0, 20:7, 26:21 on
    /// Ivy Bridge [ext: Mesa src/intel/isl/isl_surface_state.c,
    /// buffer_fill_state, GFX_VER >= 7].
    pub(crate) fn buffer_split(entries: u32, generation: Generation) -> (u32, u32, u32) {
        let e = entries.saturating_sub(1);
        if raw_buffers(generation) {
            (e & 0x7f, (e >> 7) & 0x3fff, (e >> 21) & 0x3f)
        } else {
            (e & 0x7f, (e >> 7) & 0x1fff, (e >> 20) & 0x7f)
        }
    }
}

/// [`read_region`] on DMA memory (the render path's own buffers).
pub(crate) fn read_dma_region(
    memory: &crate::platform::Dma<'_>,
    limit: usize,
    offset: usize,
    out: &mut [u8],
) -> Result<(), ComputeError> {
    offset
        .checked_add(out.len())
        .filter(|&e| e <= limit)
        .and_then(|_| memory.read(offset, out).ok())
        .ok_or(ComputeError::Invalid("read past the end of the buffer"))
}

/// Untyped buffers are RAW surfaces and split their size as Ivy Bridge's
/// (Width 6:0, Height 20:7, Depth from bit 21): Ivy Bridge, and Gen12.5
/// [ext: Mesa gen125.xml RENDER_SURFACE_STATE; isl buffer_fill_state_s].
fn raw_buffers(generation: Generation) -> bool {
    matches!(generation, Generation::Gen7 | Generation::Gen12_5)
}

/// Bounds-checked copy into the first `limit` bytes of the memory.
pub(crate) fn write_region(
    memory: &Backing<'_>,
    limit: usize,
    offset: usize,
    data: &[u8],
) -> Result<(), ComputeError> {
    offset
        .checked_add(data.len())
        .filter(|&e| e <= limit)
        .ok_or(ComputeError::Invalid("write past the end of the buffer"))
        .and_then(|_| memory.write(offset, data))
}

/// Bounds-checked copy out of the first `limit` bytes of the memory.
pub(crate) fn read_region(
    memory: &Backing<'_>,
    limit: usize,
    offset: usize,
    out: &mut [u8],
) -> Result<(), ComputeError> {
    offset
        .checked_add(out.len())
        .filter(|&e| e <= limit)
        .ok_or(ComputeError::Invalid("read past the end of the buffer"))
        .and_then(|_| memory.read(offset, out))
}
