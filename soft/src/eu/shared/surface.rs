//! Surfaces as the data port and sampler see them: SURFACE_STATE decoded
//! into a [`Surface`] (and the memo of decoded states), binding-table
//! lookup from memory ([`Surfaces`], [`BindingTable`]), the byte layout of
//! linear and tiled surfaces, and bounds.
//!
//! SURFACE_STATE fields come from the hal's typed structures
//! (`baregpu_hal::{gen4, g45, gen6, gen7}::structs`), which cite the manuals
//! (000 lines 3052-3334; 003 lines 75428-76407) or Mesa for Gen7.
//!
//! Mip maps ([`Surface::level`]): every level of a 1D or 2D surface lives
//! in one "monolithic" rectangle from the base address (003 lines
//! 5969-5985; a 1D surface is a 2D one of height 1, 003 lines 5965-5967).
//! Level L is `max(1, W >> L)` by `max(1, H >> L)` texels (003 lines
//! 5987-5992), padded to the alignment unit i x j (003 lines 6055-6090:
//! i = 4; j = 2, or 4 with VALIGN_4 on Gen6+; Gen7 also has HALIGN_8
//! [ext: mesa src/intel/genxml/gen7.xml RENDER_SURFACE_STATE Surface
//! Horizontal Alignment]). Levels are placed by "stepping" (003 lines
//! 6018-6034): MIPLAYOUT_BELOW steps down from LOD 0 to 1, right from 1 to
//! 2, then down; MIPLAYOUT_RIGHT steps right from 0 to 1, then down. The
//! manual's corner equations are images lost in the text; the stepping
//! rule gives them, and they match [ext: mesa i965
//! brw_miptree_layout_2d: x += aligned width after level 1, else y +=
//! aligned height]. Gen7 has no layout bit (bit 10 is Surface Array
//! Spacing) and always steps as MIPLAYOUT_BELOW [ext: mesa
//! src/intel/isl/isl.c, ISL_DIM_LAYOUT_GFX4_2D].
//!
//! Arrays, cube faces and 3D planes ([`Surface::slice`]): array slices
//! and cube faces are QPitch rows apart ([`ArraySpacing`]); 3D levels
//! stack their planes 2^L wide (003 lines 6225-6262).

use baregpu_hal::Packet;
use baregpu_isa::IsaGen;

use alloc::vec::Vec;

use super::memory::{GfxMemory, MemFault};
use super::multisample::MsLayout;

/// SURFACE_STATE Surface Type (000 lines 3080-3090; 003 lines 75460-75490).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfaceKind {
    D1,
    D2,
    D3,
    Cube,
    Buffer,
    /// Reads return 0 and writes are dropped (000 line 3090; 003 lines
    /// 75483-75490).
    Null,
}

/// How a 2D surface's bytes are laid out (003 lines 7351-7476).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tiling {
    Linear,
    /// 512 bytes x 8 rows per 4 KB tile, rows stored one after another.
    X,
    /// 128 bytes x 32 rows per tile, 16-byte columns stored one after another.
    Y,
    /// Gen12.5 Tile4 (DG2's TileY successor; the layout is
    /// `baregpu_hal::tiling::TILE_4`'s, cited there).
    Tile4,
}

/// Bit-6 swizzling of tiled surfaces: bit 6 of the offset is XORed with the
/// listed bits. The manual leaves the choice to the memory configuration
/// (003 lines 9355-9375); which bits feed it is from Linux i915
/// (`I915_BIT_6_SWIZZLE_*`), as in the driver's `src/gtt/tiling.rs`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Bit6Swizzle {
    #[default]
    None,
    Bit9,
    Bit9Bit10,
    Bit9Bit11,
    Bit9Bit10Bit11,
}

impl Bit6Swizzle {
    fn sources(self) -> u64 {
        match self {
            Bit6Swizzle::None => 0,
            Bit6Swizzle::Bit9 => 1 << 9,
            Bit6Swizzle::Bit9Bit10 => (1 << 9) | (1 << 10),
            Bit6Swizzle::Bit9Bit11 => (1 << 9) | (1 << 11),
            Bit6Swizzle::Bit9Bit10Bit11 => (1 << 9) | (1 << 10) | (1 << 11),
        }
    }

    pub fn apply(self, offset: u64) -> u64 {
        let parity = u64::from((offset & self.sources()).count_ones() & 1);
        offset ^ (parity << 6)
    }
}

/// A surface, with counts one-based (SURFACE_STATE stores them minus one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Surface {
    pub kind: SurfaceKind,
    /// Graphics address of the first byte.
    pub base: u64,
    /// SURFACE_FORMAT code (000 lines 3350-3518).
    pub format: u32,
    /// Pixels per row; for a buffer, the number of entries.
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    /// Bytes from one row to the next; for a buffer, the entry size.
    pub pitch: u32,
    pub tiling: Tiling,
    pub swizzle: Bit6Swizzle,
    /// Vertical Line Stride and its offset (field access, 000 lines
    /// 3128-3135).
    pub vertical_line_stride: bool,
    pub vertical_line_stride_offset: bool,
    /// Media Boundary Pixel Mode: 0 normal, 2 progressive, 3 interlaced
    /// (000 lines 4383-4403).
    pub media_boundary: u8,
    /// Mip levels the sampler may reach from `min_lod`: SURFACE_STATE MIP
    /// Count + 1 (000 line 3256, "\[0,13\] representing \[1,14\] MIP levels").
    pub mip_count: u32,
    /// Surface Min LOD: the most detailed level the sampler reaches (000
    /// line 3294).
    pub min_lod: u32,
    pub mip_layout: MipLayout,
    /// Alignment unit of the mip layout in texels: width i and height j
    /// (003 lines 6055-6090).
    pub mip_align: (u32, u32),
    /// Minimum Array Element: added to the delivered array index (003
    /// lines 76203-76228).
    pub min_array: u32,
    /// How far apart array slices (and cube faces) are.
    pub array_spacing: ArraySpacing,
    /// Cube Face Enables, bit 5 -X, 4 +X, 3 -Y, 2 +Y, 1 -Z, 0 +Z (003 lines
    /// 75788-75803); a disabled face reads as the border colour.
    pub cube_faces: u8,
    /// Cube Map Corner Mode CUBE_AVERAGE (else CUBE_REPLICATE, 003 lines
    /// 75681-75700).
    pub cube_average: bool,
    /// Number of Multisamples as a count (1, 4, or on Gen7 8) and where
    /// the samples are stored (`multisample`).
    pub samples: u8,
    pub ms_layout: MsLayout,
    /// Gen7 MCS Enable (RENDER_SURFACE_STATE DW6 bit 0 [ext: mesa
    /// gen7.xml], read for multisampled surfaces only: single-sampled ones
    /// may overlay DW6 with the append counter or a UV plane): the
    /// samples are compressed through the MCS (not modelled).
    pub mcs: bool,
    /// Multisample Position Palette Index (003 lines 76286-76292; Gen7 DW4
    /// 2:0 [ext: mesa gen7.xml]).
    pub sample_palette: u32,
}

/// The rows from one array slice to the next (QPitch), as the generation
/// lays it out (003 lines 6137-6166 "Surface Arrays").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ArraySpacing {
    /// Gen4/G45: the 000 manual gives no array or ILK+ cube layout, so
    /// arrays and cubes are refused there.
    #[default]
    Unmodelled,
    /// `QPitch = h0 + h1 + extra * j` (h0, h1: the padded heights of levels
    /// 0 and 1): `extra` 11 on Gen6 (003 line 6153), 12 on Gen7 with
    /// ARYSPC_FULL [ext: mesa src/intel/isl/isl.c
    /// isl_calc_array_pitch_el_rows, "The QPitch equation changed slightly
    /// in Ivybridge"].
    Full { extra: u32 },
    /// Gen7 ARYSPC_LOD0: slices only hold level 0, `QPitch = h0` [ext: mesa
    /// isl.c, ISL_ARRAY_PITCH_SPAN_COMPACT; gen7.xml Surface Array Spacing].
    Lod0,
}

/// SURFACE_STATE MIP Map Layout Mode (000 line 3137; 003 lines
/// 75647-75673): where LOD 1 goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MipLayout {
    /// LOD 1 below LOD 0.
    #[default]
    Below,
    /// LOD 1 right of LOD 0 (2D non-array surfaces only).
    Right,
}

/// One mip level inside its surface: the texel position of its upper
/// left corner and its size in texels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MipLevel {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

impl Surface {
    /// A linear SURFTYPE_BUFFER of `entries` entries of `pitch` bytes.
    pub fn buffer(base: u64, entries: u32, pitch: u32) -> Surface {
        Surface {
            kind: SurfaceKind::Buffer,
            base,
            format: format::R32G32B32A32_FLOAT,
            width: entries,
            height: 1,
            depth: 1,
            pitch,
            tiling: Tiling::Linear,
            swizzle: Bit6Swizzle::None,
            vertical_line_stride: false,
            vertical_line_stride_offset: false,
            media_boundary: 0,
            mip_count: 1,
            min_lod: 0,
            mip_layout: MipLayout::Below,
            mip_align: (4, 2),
            min_array: 0,
            array_spacing: ArraySpacing::Unmodelled,
            cube_faces: 0,
            cube_average: false,
            samples: 1,
            sample_palette: 0,
            ms_layout: MsLayout::Interleaved,
            mcs: false,
        }
    }

    /// This surface with `count` mip levels laid out as `layout` (the
    /// default alignment unit 4 x 2).
    pub fn with_mips(self, count: u32, layout: MipLayout) -> Surface {
        Surface {
            mip_count: count,
            mip_layout: layout,
            ..self
        }
    }

    /// A SURFTYPE_2D of `width` x `height` pixels of `format`.
    pub fn two_d(
        base: u64,
        format: u32,
        width: u32,
        height: u32,
        pitch: u32,
        tiling: Tiling,
    ) -> Surface {
        Surface {
            kind: SurfaceKind::D2,
            format,
            width,
            height,
            pitch,
            tiling,
            ..Surface::buffer(base, 0, 0)
        }
    }

    /// SURFTYPE_NULL.
    pub fn null() -> Surface {
        Surface {
            kind: SurfaceKind::Null,
            ..Surface::buffer(0, 0, 0)
        }
    }

    /// Decodes SURFACE_STATE as `p` lays it out: 5 dwords on Gen4, 6 on
    /// G45 and Gen6, 8 on Gen7/7.5 (Gen7.5 keeps the Gen7 positions of
    /// every field used here [ext: mesa src/intel/genxml/gen75.xml
    /// RENDER_SURFACE_STATE]).
    pub fn from_surface_state(p: IsaGen, dw: &[u32]) -> Result<Surface, SurfaceError> {
        let bad = |_| SurfaceError::BadState("SURFACE_STATE is truncated");
        // Alignment unit j: 4 with VALIGN_4, else 2 (003 lines 6086-6090;
        // Gen4/G45 have no field and start every level on an even row, 003
        // lines 5978-5981). i: 4, or 8 with Gen7 HALIGN_8.
        let j = |valign: u32| if valign == 1 { 4 } else { 2 };
        let raw = match p {
            IsaGen::Gen4 => {
                let s = baregpu_hal::gen4::structs::SurfaceState::unpack(dw).map_err(bad)?;
                RawState {
                    right: s.mip_map_layout_mode == 1,
                    ..raw_of!(&s)
                }
            }
            IsaGen::G45 => {
                let s = baregpu_hal::g45::structs::SurfaceState::unpack(dw).map_err(bad)?;
                RawState {
                    right: s.mip_map_layout_mode == 1,
                    ..raw_of!(&s)
                }
            }
            IsaGen::Gen6 => {
                let s = baregpu_hal::gen6::structs::SurfaceState::unpack(dw).map_err(bad)?;
                RawState {
                    right: s.mip_map_layout_mode == 1,
                    mip_align: (4, j(s.surface_vertical_alignment)),
                    min_array: s.minimum_array_element,
                    spacing: ArraySpacing::Full { extra: 11 },
                    cube_faces: s.cube_face_enables as u8,
                    cube_average: s.cube_map_corner_mode == 1,
                    // Every Gen6 multisampled surface interleaves its
                    // samples (Mesa src/intel/isl/isl_gfx6.c
                    // isl_gfx6_choose_msaa_layout).
                    samples_code: s.number_of_multisamples,
                    sample_palette: s.multisample_position_palette_index,
                    ..raw_of!(&s)
                }
            }
            IsaGen::Gen12_5 => {
                return Err(SurfaceError::BadState("no Gen12.5 SURFACE_STATE model"));
            }
            IsaGen::Gen7 | IsaGen::Gen75 => {
                let s = baregpu_hal::gen7::structs::RenderSurfaceState::unpack(dw).map_err(bad)?;
                let i = if s.surface_horizontal_alignment == 1 {
                    8
                } else {
                    4
                };
                RawState {
                    mip_align: (i, j(s.surface_vertical_alignment)),
                    min_array: s.minimum_array_element,
                    spacing: if s.surface_array_spacing == 1 {
                        ArraySpacing::Lod0
                    } else {
                        ArraySpacing::Full { extra: 12 }
                    },
                    cube_faces: s.cube_face_enables as u8,
                    sample_palette: s.multisample_position_palette_index,
                    // The hal's gen7 table has no Cube Map Corner Mode:
                    // CUBE_REPLICATE.
                    samples_code: s.number_of_multisamples,
                    // Multisampled Surface Storage Format: MSFMT_MSS (0)
                    // keeps each sample in an array slice,
                    // MSFMT_DEPTH_STENCIL (1) interleaves them (Mesa
                    // src/intel/genxml/gen7.xml RENDER_SURFACE_STATE; isl
                    // isl_encode_multisample_layout).
                    ms_layout: if s.multisampled_surface_storage_format == 1 {
                        MsLayout::Interleaved
                    } else {
                        MsLayout::Array
                    },
                    mcs: s.mcs_enable,
                    ..raw_of!(&s)
                }
            }
        };
        raw.surface(p)
    }

    /// SURFTYPE_BUFFER entries (the one-based count).
    pub fn entries(&self) -> u64 {
        match self.kind {
            SurfaceKind::Buffer => u64::from(self.width),
            _ => 0,
        }
    }

    /// Bytes of a buffer for bounds checks when each entry is `element`
    /// bytes.
    pub fn buffer_bytes(&self, element: u64) -> u64 {
        self.entries().saturating_mul(element)
    }

    /// Bytes per pixel of the format, if this model knows it.
    pub fn bytes_per_pixel(&self) -> Option<u32> {
        format::bytes(self.format)
    }

    /// Bytes in one row of pixels.
    pub fn row_bytes(&self) -> Option<u64> {
        self.bytes_per_pixel()
            .map(|b| u64::from(b) * u64::from(self.width))
    }

    /// Offset from the base of byte `x` of physical row `y`, by the tiling
    /// algorithm of 003 lines 7382-7476 (Gen4 uses the same tile shapes):
    /// X tiles `RowSize * (y / 8) + 4096 * (x / 512) + 512 * (y % 8) +
    /// x % 512`, Y tiles `... + 32 * 16 * ((x % 128) / 16) + 16 * (y % 32)
    /// + x % 16`, linear `y * pitch + x`.
    pub fn offset(&self, x: u64, y: u64) -> u64 {
        let pitch = u64::from(self.pitch);
        let (tw, th) = match self.tiling {
            Tiling::Linear => return y.saturating_mul(pitch).saturating_add(x),
            Tiling::Tile4 => {
                let (x, y) = (x.min(usize::MAX as u64), y.min(usize::MAX as u64));
                return baregpu_hal::tiling::TILE_4.offset(pitch as usize, x as usize, y as usize)
                    as u64;
            }
            Tiling::X => (512, 8),
            Tiling::Y => (128, 32),
        };
        let row_size = (pitch / tw).saturating_mul(4096);
        let tile = row_size
            .saturating_mul(y / th)
            .saturating_add(4096u64.saturating_mul(x / tw));
        let (xo, yo) = (x % tw, y % th);
        let within = match self.tiling {
            Tiling::X => tw * yo + xo,
            _ => th * 16 * (xo / 16) + 16 * yo + xo % 16,
        };
        self.swizzle.apply(tile.saturating_add(within))
    }

    /// Graphics address of byte `x` of physical row `y`.
    pub fn address(&self, x: u64, y: u64) -> u64 {
        self.base.wrapping_add(self.offset(x, y))
    }

    /// Where mip level `lod` (absolute: 0 is the base map, before Surface
    /// Min LOD) lies, by the layout rules in the module doc; `None` past
    /// the 14 levels a surface can have (000 line 2723).
    pub fn level(&self, lod: u32) -> Option<MipLevel> {
        if lod > 13 {
            return None;
        }
        let height = if self.kind == SurfaceKind::D1 {
            1
        } else {
            self.height
        };
        let size = |n: u32, l: u32| (n >> l).max(1);
        let (i, j) = (self.mip_align.0.max(1), self.mip_align.1.max(1));
        // Padded width and height of level l.
        let pw = |l: u32| size(self.width, l).div_ceil(i).saturating_mul(i);
        let ph = |l: u32| size(height, l).div_ceil(j).saturating_mul(j);
        let (mut x, mut y) = (0u32, 0u32);
        for l in 0..lod {
            // The step from level l to level l + 1.
            let right = match self.mip_layout {
                MipLayout::Below => l == 1,
                MipLayout::Right => l == 0,
            };
            if right {
                x = x.saturating_add(pw(l));
            } else {
                y = y.saturating_add(ph(l));
            }
        }
        Some(MipLevel {
            x,
            y,
            width: size(self.width, lod),
            height: size(height, lod),
        })
    }
}

impl Surface {
    /// Rows from one array slice (or cube face) to the next, by
    /// [`ArraySpacing`]; `None` where the layout is not modelled.
    pub fn qpitch(&self) -> Option<u32> {
        let j = self.mip_align.1.max(1);
        let height = if self.kind == SurfaceKind::D1 {
            1
        } else {
            self.height
        };
        // H1 is minified from H0 whatever the MIP Count (isl computes it
        // the same way).
        let h = |l: u32| (height >> l).max(1).div_ceil(j).saturating_mul(j);
        match self.array_spacing {
            ArraySpacing::Unmodelled => None,
            ArraySpacing::Full { extra } => Some(
                h(0).saturating_add(h(1))
                    .saturating_add(extra.saturating_mul(j)),
            ),
            ArraySpacing::Lod0 => Some(h(0)),
        }
    }

    /// Where level `lod` of slice `q` lies: for a 3D surface `q` is the
    /// depth plane of that level, for arrays and cubes the array slice
    /// (cube face `f` of cube `c` is slice `6c + f`, 003 lines 6192-6223).
    /// `None` past the 14 levels, or for a slice this model cannot place.
    ///
    /// 3D surfaces (003 lines 6225-6262, "3D Surfaces"; the same layout on
    /// Gen4-Gen7.5 [ext: mesa isl.c ISL_DIM_LAYOUT_GFX4_3D]): "All of the
    /// LOD=0 q-planes are stacked vertically, then below that, the LOD=1
    /// q-planes are stacked two-wide, then the LOD=2 q-planes are stacked
    /// four-wide below that, and so on", level L having `max(1, D >> L)`
    /// planes of the padded level size; no alignment in depth.
    pub fn slice(&self, lod: u32, q: u32) -> Option<MipLevel> {
        if self.kind == SurfaceKind::D3 {
            return self.plane_3d(lod, q);
        }
        let level = self.level(lod)?;
        if q == 0 {
            return Some(level);
        }
        let y = level.y.checked_add(self.qpitch()?.checked_mul(q)?)?;
        Some(MipLevel { y, ..level })
    }

    fn plane_3d(&self, lod: u32, q: u32) -> Option<MipLevel> {
        if lod > 13 {
            return None;
        }
        let (i, j) = (self.mip_align.0.max(1), self.mip_align.1.max(1));
        let size = |n: u32, l: u32| (n >> l).max(1);
        let pw = |l: u32| size(self.width, l).div_ceil(i).saturating_mul(i);
        let ph = |l: u32| size(self.height, l).div_ceil(j).saturating_mul(j);
        let mut y = 0u32;
        for l in 0..lod {
            // Level l: its planes in rows of 2^l.
            let rows = size(self.depth, l).div_ceil(1 << l);
            y = y.checked_add(rows.checked_mul(ph(l))?)?;
        }
        let across = 1u32 << lod;
        let x = (q % across).checked_mul(pw(lod))?;
        let y = y.checked_add((q / across).checked_mul(ph(lod))?)?;
        Some(MipLevel {
            x,
            y,
            width: size(self.width, lod),
            height: size(self.height, lod),
        })
    }
}

/// The fields every generation's SURFACE_STATE has, before interpretation.
struct RawState {
    surface_type: u32,
    format: u32,
    base: u64,
    width: u32,
    height: u32,
    depth: u32,
    pitch: u32,
    tiled: bool,
    walk_y: bool,
    vls: bool,
    vls_offset: bool,
    boundary: u32,
    mip_count: u32,
    min_lod: u32,
    /// MIP Map Layout Mode bit (0 where the generation has none).
    right: bool,
    mip_align: (u32, u32),
    min_array: u32,
    spacing: ArraySpacing,
    cube_faces: u8,
    cube_average: bool,
    /// Number of Multisamples (log2; 0 where the generation has none).
    samples_code: u32,
    ms_layout: MsLayout,
    mcs: bool,
    sample_palette: u32,
}

macro_rules! raw_of {
    ($s:expr) => {{
        let s = $s;
        RawState {
            surface_type: s.surface_type,
            format: s.surface_format,
            base: s.surface_base_address,
            width: s.width,
            height: s.height,
            depth: s.depth,
            pitch: s.surface_pitch,
            tiled: s.tiled_surface,
            walk_y: s.tile_walk != 0,
            vls: s.vertical_line_stride != 0,
            vls_offset: s.vertical_line_stride_offset != 0,
            boundary: s.media_boundary_pixel_mode,
            mip_count: s.mip_count_lod,
            min_lod: s.surface_min_lod,
            right: false,
            mip_align: (4, 2),
            min_array: 0,
            spacing: ArraySpacing::Unmodelled,
            cube_faces: 0,
            cube_average: false,
            samples_code: 0,
            ms_layout: MsLayout::Interleaved,
            mcs: false,
            sample_palette: 0,
        }
    }};
}
use raw_of;

impl RawState {
    fn surface(&self, p: IsaGen) -> Result<Surface, SurfaceError> {
        let kind = match self.surface_type {
            0 => SurfaceKind::D1,
            1 => SurfaceKind::D2,
            2 => SurfaceKind::D3,
            3 => SurfaceKind::Cube,
            4 => SurfaceKind::Buffer,
            7 => SurfaceKind::Null,
            _ => return Err(SurfaceError::BadState("reserved surface type")),
        };
        let tiling = match (self.tiled, self.walk_y) {
            (false, _) => Tiling::Linear,
            (true, false) => Tiling::X,
            (true, true) => Tiling::Y,
        };
        let (width, height, depth) = if kind == SurfaceKind::Buffer {
            // Entries - 1 split over Width[6:0], Height and Depth: 13 + 7
            // bits on Gen4-Gen6 (000 lines 3234-3245, 003 line 75895),
            // 14 + 6 bits on Gen7 [ext: mesa gen7 buffer SURFACE_STATE:
            // height holds bits 20:7, depth 26:21].
            let (hbits, dshift) = if p >= IsaGen::Gen7 {
                (14, 21)
            } else {
                (13, 20)
            };
            let m1 = (self.width & 0x7F)
                | (self.height & ((1 << hbits) - 1)) << 7
                | (self.depth & 0x7F) << dshift;
            (m1.saturating_add(1), 1, 1)
        } else {
            (
                self.width.saturating_add(1),
                self.height.saturating_add(1),
                self.depth.saturating_add(1),
            )
        };
        // log2 of the count: 1X, 4X, and 8X (Gen7; reserved on Gen6, 003
        // SURFACE_STATE); 2X and 16X are later generations'.
        let samples = match (self.samples_code, p >= IsaGen::Gen7) {
            (0, _) => 1,
            (2, _) => 4,
            (3, true) => 8,
            _ => return Err(SurfaceError::BadState("reserved Number of Multisamples")),
        };
        Ok(Surface {
            kind,
            base: self.base,
            format: self.format,
            width,
            height,
            depth,
            pitch: self.pitch.saturating_add(1),
            tiling,
            swizzle: Bit6Swizzle::None,
            vertical_line_stride: self.vls,
            vertical_line_stride_offset: self.vls_offset,
            media_boundary: self.boundary as u8,
            // The sampler's reading of MIP Count (000 line 3256); render
            // targets read the same field as their LOD.
            mip_count: self.mip_count.saturating_add(1),
            min_lod: self.min_lod,
            mip_layout: if self.right {
                MipLayout::Right
            } else {
                MipLayout::Below
            },
            mip_align: self.mip_align,
            min_array: self.min_array,
            array_spacing: self.spacing,
            cube_faces: self.cube_faces,
            cube_average: self.cube_average,
            samples,
            ms_layout: self.ms_layout,
            mcs: self.mcs && samples > 1,
            sample_palette: self.sample_palette,
        })
    }
}

/// Where a thread's binding table is: the table's graphics address and the
/// Surface State Base Address its entries are relative to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindingTable {
    pub platform: IsaGen,
    pub table: u64,
    pub surface_state_base: u64,
}

impl BindingTable {
    /// Entry `bti`: a dword whose bits 31:5 point to SURFACE_STATE,
    /// Surface State Base relative (000 lines 3044-3050; 003 lines
    /// 75392-75410).
    pub fn resolve(&self, memory: &mut dyn GfxMemory, bti: u8) -> Result<Surface, SurfaceError> {
        self.resolve_with(memory, bti, None)
    }

    /// [`Self::resolve`], decoding SURFACE_STATE through `memo` when given.
    pub fn resolve_with(
        &self,
        memory: &mut dyn GfxMemory,
        bti: u8,
        memo: Option<&mut SurfaceMemo>,
    ) -> Result<Surface, SurfaceError> {
        let mut entry = [0u8; 4];
        let at = self.table.wrapping_add(4 * u64::from(bti));
        memory
            .read_state(at, &mut entry)
            .map_err(SurfaceError::Fault)?;
        let pointer = u64::from(u32::from_le_bytes(entry) & !0x1F);
        let len = match self.platform {
            IsaGen::Gen4 => 5,
            IsaGen::G45 | IsaGen::Gen6 => 6,
            // Gen12.5 surfaces are refused in `from_surface_state`.
            IsaGen::Gen7 | IsaGen::Gen75 | IsaGen::Gen12_5 => 8,
        };
        let mut bytes = [0u8; 32];
        let state = self.surface_state_base.wrapping_add(pointer);
        memory
            .read_state(state, &mut bytes[..len * 4])
            .map_err(SurfaceError::Fault)?;
        let mut dw = [0u32; 8];
        for (i, d) in dw.iter_mut().enumerate().take(len) {
            let b = &bytes[i * 4..i * 4 + 4];
            *d = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        match memo {
            Some(m) => m.decode(self.platform, &dw[..len]),
            None => Surface::from_surface_state(self.platform, &dw[..len]),
        }
    }
}

/// Why a binding-table index gives no surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfaceError {
    /// Nothing bound at this index.
    Unbound(u8),
    /// The binding table or SURFACE_STATE could not be read.
    Fault(MemFault),
    /// SURFACE_STATE holds a surface type this model does not take.
    BadState(&'static str),
}

/// The binding-table lookup: index (0-253) to surface.
pub trait Surfaces {
    fn surface(&mut self, bti: u8) -> Result<Surface, SurfaceError>;
}

/// Surfaces given as a list: entry `i` is binding-table index `i`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SurfaceList {
    pub entries: Vec<Option<Surface>>,
}

impl SurfaceList {
    pub fn new() -> SurfaceList {
        SurfaceList::default()
    }

    /// Binds `surface` at `bti`, growing the list as needed.
    pub fn bind(&mut self, bti: u8, surface: Surface) {
        let i = usize::from(bti);
        if self.entries.len() <= i {
            self.entries.resize(i + 1, None);
        }
        self.entries[i] = Some(surface);
    }
}

impl Surfaces for SurfaceList {
    fn surface(&mut self, bti: u8) -> Result<Surface, SurfaceError> {
        self.entries
            .get(usize::from(bti))
            .copied()
            .flatten()
            .ok_or(SurfaceError::Unbound(bti))
    }
}

/// SURFACE_STATEs decoded lately.
#[derive(Clone, Debug, Default)]
pub struct SurfaceMemo {
    entries: [Option<(IsaGen, [u32; 8], Surface)>; SURFACES],
    /// Next entry to replace.
    next: usize,
}

const SURFACES: usize = 8;

impl SurfaceMemo {
    /// [`Surface::from_surface_state`] of `dw`, from memory when decoded
    /// before; errors are not kept.
    pub fn decode(&mut self, p: IsaGen, dw: &[u32]) -> Result<Surface, SurfaceError> {
        if dw.len() > 8 {
            return Surface::from_surface_state(p, dw);
        }
        // Unused dwords stay zero: the platform fixes the state's length.
        let mut key = [0u32; 8];
        key[..dw.len()].copy_from_slice(dw);
        let hit = self
            .entries
            .iter()
            .flatten()
            .find(|(ep, ek, _)| *ep == p && *ek == key);
        if let Some((.., s)) = hit {
            return Ok(*s);
        }
        let s = Surface::from_surface_state(p, dw)?;
        self.entries[self.next] = Some((p, key, s));
        self.next = (self.next + 1) % SURFACES;
        Ok(s)
    }
}

/// The surface formats this model knows (000 lines 3350-3518): codes,
/// sizes and how the sampler turns them into channels.
pub mod format {
    pub const R32G32B32A32_FLOAT: u32 = 0x000; // line 3350
    pub const R32G32B32A32_SINT: u32 = 0x001; // line 3351
    pub const R32G32B32A32_UINT: u32 = 0x002; // line 3352
    pub const R32G32B32_FLOAT: u32 = 0x040; // line 3359
    pub const R32G32B32_SINT: u32 = 0x041; // line 3360
    pub const R32G32B32_UINT: u32 = 0x042; // line 3361
    pub const R32G32_FLOAT: u32 = 0x085; // line 3371
    pub const R32G32_SINT: u32 = 0x086; // line 3372
    pub const R32G32_UINT: u32 = 0x087; // line 3373
    pub const B8G8R8A8_UNORM: u32 = 0x0C0; // line 3393
    pub const R8G8B8A8_UNORM: u32 = 0x0C7; // line 3399
    pub const R8G8B8A8_UINT: u32 = 0x0CB; // line 3403
    pub const R32_SINT: u32 = 0x0D6; // line 3412
    pub const R32_UINT: u32 = 0x0D7; // line 3413
    pub const R32_FLOAT: u32 = 0x0D8; // line 3414
    pub const R16_UINT: u32 = 0x10D; // line 3461
    pub const R8_UNORM: u32 = 0x140; // line 3482
    pub const R8_UINT: u32 = 0x143; // line 3485
    /// YUV 4:2:2 formats: 16 bits per pixel although the table gives BPE 0
    /// (000 line 4719).
    pub const YCRCB_NORMAL: u32 = 0x182; // line 3504
    pub const YCRCB_SWAPUVY: u32 = 0x183; // line 3505
    pub const YCRCB_SWAPUV: u32 = 0x18F; // line 3517
    pub const YCRCB_SWAPY: u32 = 0x190; // line 3518

    /// How texels become the four returned channels.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Kind {
        Float,
        Uint,
        Sint,
        Unorm,
        /// Packed YUV: the data port only (no sampler model).
        Yuv,
    }

    /// (code, bytes per pixel, channel count, kind); channels are in the
    /// order the name lists them (B8G8R8A8 is swapped by the sampler).
    const TABLE: [(u32, u32, u8, Kind); 22] = [
        (R32G32B32A32_FLOAT, 16, 4, Kind::Float),
        (R32G32B32A32_SINT, 16, 4, Kind::Sint),
        (R32G32B32A32_UINT, 16, 4, Kind::Uint),
        (R32G32B32_FLOAT, 12, 3, Kind::Float),
        (R32G32B32_SINT, 12, 3, Kind::Sint),
        (R32G32B32_UINT, 12, 3, Kind::Uint),
        (R32G32_FLOAT, 8, 2, Kind::Float),
        (R32G32_SINT, 8, 2, Kind::Sint),
        (R32G32_UINT, 8, 2, Kind::Uint),
        (B8G8R8A8_UNORM, 4, 4, Kind::Unorm),
        (R8G8B8A8_UNORM, 4, 4, Kind::Unorm),
        (R8G8B8A8_UINT, 4, 4, Kind::Uint),
        (R32_SINT, 4, 1, Kind::Sint),
        (R32_UINT, 4, 1, Kind::Uint),
        (R32_FLOAT, 4, 1, Kind::Float),
        (R16_UINT, 2, 1, Kind::Uint),
        (R8_UNORM, 1, 1, Kind::Unorm),
        (R8_UINT, 1, 1, Kind::Uint),
        (YCRCB_NORMAL, 2, 3, Kind::Yuv),
        (YCRCB_SWAPUVY, 2, 3, Kind::Yuv),
        (YCRCB_SWAPUV, 2, 3, Kind::Yuv),
        (YCRCB_SWAPY, 2, 3, Kind::Yuv),
    ];

    fn find(code: u32) -> Option<&'static (u32, u32, u8, Kind)> {
        TABLE.iter().find(|e| e.0 == code)
    }

    pub fn bytes(code: u32) -> Option<u32> {
        find(code).map(|e| e.1)
    }

    pub fn channels(code: u32) -> Option<(u8, Kind)> {
        find(code).map(|e| (e.2, e.3))
    }

    /// A 32-bit message value as a channel of `bits` bits of `kind` stores
    /// it (the low `bits` are written), for the render-target and typed
    /// writes: UNORM from a float, clamped to [0, 1], scaled and rounded
    /// to nearest (the only f32 that lands exactly on a tie is 0.5, so ties
    /// up and ties to even agree; NaN stores 0); narrow UINT and SINT
    /// clamped to their range (003 lines 44987-44989); the rest as sent.
    pub fn encode_channel(kind: Kind, bits: u32, v: u32) -> u32 {
        match kind {
            Kind::Unorm => unorm(f32::from_bits(v), bits),
            Kind::Uint if bits < 32 => v.min((1 << bits) - 1),
            Kind::Sint if bits < 32 => {
                let (lo, hi) = (-(1i32 << (bits - 1)), (1i32 << (bits - 1)) - 1);
                (v as i32).clamp(lo, hi) as u32
            }
            _ => v,
        }
    }

    /// Float to an unsigned normalised integer of `bits` bits. The product
    /// of an f32 and a scale below 2^32 is exact in f64, so the rounding
    /// decision is exact.
    fn unorm(f: f32, bits: u32) -> u32 {
        if f.is_nan() {
            return 0;
        }
        let max = ((1u64 << bits) - 1) as f64;
        let scaled = f64::from(f.clamp(0.0, 1.0)) * max;
        // Non-negative, so truncation is the floor.
        let whole = scaled as u64;
        let up = scaled - whole as f64 >= 0.5;
        (whole + u64::from(up)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Number of Multisamples: SNB DW4 6:4 (003 SURFACE_STATE), IVB DW4
    /// 5:3 with Multisampled Surface Storage Format in bit 6 (Mesa
    /// gen7.xml); 8X is reserved on SNB.
    #[test]
    fn sample_counts_and_layouts_decode() {
        let mut dw = [0u32; 6];
        dw[0] = 1 << 29;
        assert_eq!(
            Surface::from_surface_state(IsaGen::Gen6, &dw)
                .unwrap()
                .samples,
            1
        );
        dw[4] = 2 << 4;
        let s = Surface::from_surface_state(IsaGen::Gen6, &dw).unwrap();
        assert_eq!((s.samples, s.ms_layout), (4, MsLayout::Interleaved));
        dw[4] = 3 << 4;
        assert!(Surface::from_surface_state(IsaGen::Gen6, &dw).is_err());
        let mut dw = [0u32; 8];
        dw[0] = 1 << 29;
        dw[4] = 3 << 3;
        let s = Surface::from_surface_state(IsaGen::Gen7, &dw).unwrap();
        assert_eq!((s.samples, s.ms_layout), (8, MsLayout::Array));
        dw[4] = 1 << 6 | 2 << 3;
        let s = Surface::from_surface_state(IsaGen::Gen7, &dw).unwrap();
        assert_eq!((s.samples, s.ms_layout), (4, MsLayout::Interleaved));
        assert!(!s.mcs);
        // DW6 bit 0 MCS Enable, read on multisampled surfaces only.
        dw[6] = 1;
        assert!(Surface::from_surface_state(IsaGen::Gen7, &dw).unwrap().mcs);
        dw[4] = 0;
        assert!(!Surface::from_surface_state(IsaGen::Gen7, &dw).unwrap().mcs);
        dw[4] = 1 << 3;
        assert!(Surface::from_surface_state(IsaGen::Gen7, &dw).is_err());
    }

    /// Gen6 DW0 9 corner mode, 5:0 face enables; DW4 27:17 Minimum Array
    /// Element (003 lines 75681-75803, 76203). Gen7 DW0 10 array spacing,
    /// DW4 28:18 Minimum Array Element [ext: mesa gen7.xml].
    #[test]
    fn array_and_cube_fields_decode() {
        let mut dw = [0u32; 6];
        dw[0] = 3 << 29 | 1 << 9 | 0x2A;
        dw[2] = 7 << 19 | 7 << 6;
        dw[3] = 2 << 21;
        dw[4] = 12 << 17;
        let s = Surface::from_surface_state(IsaGen::Gen6, &dw).unwrap();
        assert_eq!((s.kind, s.depth, s.min_array), (SurfaceKind::Cube, 3, 12));
        assert_eq!((s.cube_faces, s.cube_average), (0x2A, true));
        assert_eq!(s.array_spacing, ArraySpacing::Full { extra: 11 });
        // QPitch = h0 + h1 + 11 j = 8 + 4 + 22.
        assert_eq!(s.qpitch(), Some(34));
        let mut dw = [0u32; 8];
        dw[0] = 1 << 29 | 1 << 16 | 1 << 10;
        dw[2] = 5 << 16 | 7;
        dw[4] = 3 << 18;
        let s = Surface::from_surface_state(IsaGen::Gen7, &dw).unwrap();
        assert_eq!((s.min_array, s.array_spacing), (3, ArraySpacing::Lod0));
        // VALIGN_4: h0 = 6 padded to 8.
        assert_eq!(s.qpitch(), Some(8));
        assert_eq!(s.slice(0, 2).map(|l| l.y), Some(16));
        dw[0] &= !(1 << 10);
        let s = Surface::from_surface_state(IsaGen::Gen7, &dw).unwrap();
        // h0 8 + h1 (3 -> 4) + 12 * 4.
        assert_eq!(s.qpitch(), Some(60));
        // Gen4 arrays have no modelled spacing.
        let s = Surface::from_surface_state(IsaGen::Gen4, &[1 << 29, 0, 0, 1 << 21, 0]).unwrap();
        assert_eq!((s.qpitch(), s.slice(0, 1)), (None, None));
        assert!(s.slice(0, 0).is_some());
    }

    /// 3D: level L's planes 2^L across, each the padded level size (003
    /// lines 6225-6262). 10x6x5, alignment 4x2: level 0 planes 12x6 at rows
    /// 6z; level 1 (5x3x2, padded 8x4) at row 30, two across; level 2
    /// (2x1x1, padded 4x2) at row 34.
    #[test]
    fn three_d_planes() {
        let s = Surface {
            kind: SurfaceKind::D3,
            depth: 5,
            mip_count: 3,
            ..Surface::two_d(0, format::R32_FLOAT, 10, 6, 64, Tiling::Linear)
        };
        let at = |l, q| s.slice(l, q).map(|m| (m.x, m.y, m.width, m.height));
        assert_eq!(at(0, 4), Some((0, 24, 10, 6)));
        assert_eq!(at(1, 0), Some((0, 30, 5, 3)));
        assert_eq!(at(1, 1), Some((8, 30, 5, 3)));
        assert_eq!(at(2, 0), Some((0, 34, 2, 1)));
        assert_eq!(at(14, 0), None);
        // Hostile sizes saturate to None or a position, never overflow.
        let huge = Surface {
            depth: u32::MAX,
            height: u32::MAX,
            ..s
        };
        let _ = huge.slice(13, u32::MAX);
    }
}
