//! The depth buffer of 3DSTATE_DEPTH_BUFFER (003 lines 42515-43140) and
//! its formats (Table 7-22, 003 lines 5918-5931): D32_FLOAT_S8X24_UINT
//! (float depth in the first dword, stencil in the low byte of the
//! second), D32_FLOAT, D24_UNORM_S8_UINT (24-bit depth in the low three
//! bytes, stencil in the top byte), D24_UNORM_X8_UINT and D16_UNORM.
//!
//! Layout: Gen6 has no linear depth buffer ("This field must be set to
//! TRUE. Linear Depth Buffer is not supported", 003 lines 42620-42622) and
//! a tiled one walks Y major (003 lines 42640-42646); the Y-tile byte
//! layout is the surfaces' ([`Surface::offset`]). Depth buffer X, Y are
//! the render target's plus Depth Coordinate Offset X, Y (003 lines
//! 44806-44808: "unconditionally added").
//!
//! Hierarchical depth: the model keeps the depth buffer exact and never
//! reads or writes the HiZ buffer, which only accelerates the test. The
//! manual defines HiZ by what software sees: after a depth buffer resolve
//! "the depth buffer will contain the same contents as it would have had
//! the rendering been performed with the hierarchical depth buffer
//! disabled" (003 lines 42426-42431), and a HiZ resolve makes "rendering
//! give the same results as [...] with the hierarchical depth buffer
//! disabled" (42452-42460). So the model's depth buffer is always the
//! resolved one ([`DepthPass`]): a depth clear pass writes the clear value
//! into it, and both resolve passes change nothing. What differs from the
//! hardware is only the depth buffer's memory between a clear and the
//! resolve that must precede any use of it outside 3D rendering, which the hardware leaves stale (42426-42436).
//!
//! The separate stencil buffer that comes with HiZ on Gen6
//! (3DSTATE_STENCIL_BUFFER, 003 lines 43150-43260): S8_UINT, one byte a
//! pixel, with the depth buffer's size and coordinate offset (003 lines
//! 42500-42505), W-major tiles of 64 bytes by 64 rows (003 lines
//! 7374-7379) at the manual's TiledOffsetW (003 lines 7450-7460). Its
//! pitch is programmed at "2x the value computed based on width, as the
//! stencil buffer is stored with two rows interleaved" (003 lines
//! 43236-43237): a row of W tiles is pitch / 128 tiles [ext: mesa
//! src/mesa/drivers/dri/i965/intel_mipmap_tree.c `intel_offset_S8`,
//! row size 64 * stride / 2].
//!
//! Depth values are compared in the buffer's format: a UNORM buffer
//! compares the source depth converted to its integer (clamped to [0, 1],
//! rounded to nearest), a float buffer the floats.

use crate::eu::shared::multisample::{MsLayout, sample_location};
use crate::eu::shared::surface::{MipLayout, MipLevel, Surface, Tiling, format as surface_format};
use crate::eu::shared::{GfxMemory, MemFault};
use crate::render3d::types::DrawError;

/// 3DSTATE_DEPTH_BUFFER Surface Format (003 lines 42817-42832).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DepthFormat {
    D32FloatS8X24,
    D32Float,
    D24UnormS8,
    D24UnormX8,
    D16Unorm,
}

impl DepthFormat {
    /// Surface Format codes 0-5 (003 lines 42817-42832; Gen7 keeps the
    /// codes of the formats it has, Mesa src/intel/genxml/gen7.xml).
    pub fn of(code: u32) -> Result<DepthFormat, DrawError> {
        Ok(match code {
            0 => DepthFormat::D32FloatS8X24,
            1 => DepthFormat::D32Float,
            2 => DepthFormat::D24UnormS8,
            3 => DepthFormat::D24UnormX8,
            5 => DepthFormat::D16Unorm,
            _ => {
                return Err(DrawError::Invalid(
                    "3DSTATE_DEPTH_BUFFER: reserved surface format",
                ));
            }
        })
    }

    pub fn bytes(self) -> u64 {
        match self {
            DepthFormat::D32FloatS8X24 => 8,
            DepthFormat::D16Unorm => 2,
            _ => 4,
        }
    }

    pub fn has_stencil(self) -> bool {
        matches!(self, DepthFormat::D32FloatS8X24 | DepthFormat::D24UnormS8)
    }

    /// Bits of a UNORM depth, 0 for a float one.
    fn unorm_bits(self) -> u32 {
        match self {
            DepthFormat::D24UnormS8 | DepthFormat::D24UnormX8 => 24,
            DepthFormat::D16Unorm => 16,
            _ => 0,
        }
    }
}

/// What a draw does to the depth buffer: 3DSTATE_WM Depth Buffer Clear,
/// Depth Buffer Resolve Enable and Hierarchical Depth Buffer Resolve
/// Enable (003 lines 39999-40070; Gen7 keeps the three bits [ext: mesa
/// src/intel/genxml/gen7.xml 3DSTATE_WM]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum DepthPass {
    /// Rendering: the depth and stencil tests and updates of the state.
    #[default]
    Draw,
    /// Depth Buffer Clear: "the depth buffer is initialized as a
    /// side-effect of rendering pixels" (003 line 40005), with the clear
    /// value of 3DSTATE_CLEAR_PARAMS (003 lines 43376-43484); stencil as
    /// the state says (a clear sets REPLACE, 003 lines 42383-42387).
    Clear,
    /// Either resolve with HiZ enabled: nothing changes in the model's
    /// always-resolved depth buffer (see the module text). With HiZ off
    /// "enabling this field will have no effect" (003 lines 40040-40041,
    /// 40064-40065): the draw is a [`DepthPass::Draw`].
    Resolve,
}

impl DepthPass {
    /// The pass of 3DSTATE_WM's three bits for a depth buffer with HiZ
    /// enabled or not; two of them at once are forbidden (003 lines
    /// 40034-40036, 40058-40060).
    pub fn of(
        clear: bool,
        resolve: bool,
        hiz_resolve: bool,
        hiz: bool,
    ) -> Result<DepthPass, DrawError> {
        match (clear, resolve, hiz_resolve) {
            (false, false, false) => Ok(DepthPass::Draw),
            (true, false, false) => Ok(DepthPass::Clear),
            (false, _, _) if !(resolve && hiz_resolve) => Ok(if hiz {
                DepthPass::Resolve
            } else {
                DepthPass::Draw
            }),
            _ => Err(DrawError::Invalid(
                "3DSTATE_WM: more than one of depth buffer clear, depth resolve and HiZ resolve",
            )),
        }
    }
}

/// A depth value as the buffer stores it.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub(super) enum Depth {
    Unorm(u32),
    Float(f32),
}

/// One pixel of the depth buffer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct DepthPixel {
    pub depth: Depth,
    pub stencil: u8,
}

/// The depth buffer of the draw, as the generation's commands describe it
/// (the per-generation decoders beside it).
#[derive(Clone, Copy, Debug)]
pub(super) struct DepthBuffer {
    pub format: DepthFormat,
    /// Separate Stencil Buffer Enable (Gen6; always on Gen7), and the
    /// buffer 3DSTATE_STENCIL_BUFFER gave it.
    pub separate_stencil: bool,
    pub stencil: Option<StencilBuffer>,
    /// Hierarchical Depth Buffer Enable: only changes what the resolve
    /// passes do ([`DepthPass`]).
    pub hiz: bool,
    surface: Surface,
    /// The LOD rendered into, placed by the mip layout; the separate
    /// stencil buffer has no LOD ("assumed by hardware to be zero", 003
    /// line 42506).
    level: MipLevel,
    offset: (i32, i32),
    /// The Gen7 command's Depth Write Enable and Stencil Write Enable
    /// (true on Gen6, which has neither): a write needs these and
    /// DEPTH_STENCIL_STATE's enable.
    pub depth_write: bool,
    pub stencil_write: bool,
    /// Samples a pixel, inherited from 3DSTATE_MULTISAMPLE (003 lines
    /// 41663-41666).
    pub samples: u8,
}

/// A separate W-tiled S8_UINT stencil buffer: its base and W tiles per row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct StencilBuffer {
    pub base: u64,
    pub tiles_per_row: u64,
}

impl StencilBuffer {
    /// From 3DSTATE_STENCIL_BUFFER's base and Surface Pitch field: "Range
    /// [127, 128K-1] ... also restricted to a multiple of 128B" (003 lines
    /// 43223-43224), programmed at twice the row of W tiles (see the module
    /// text; on Gen7 alike [ext: mesa src/mesa/drivers/dri/i965/
    /// gen7_misc_state.c: "While the Ivybridge PRM lacks this comment, the
    /// BSpec contains the same text"]).
    pub fn of(base: u64, pitch_field: u32) -> Result<StencilBuffer, DrawError> {
        let pitch = pitch_field + 1;
        if pitch < 128 || !pitch.is_multiple_of(128) {
            return Err(DrawError::Invalid(
                "3DSTATE_STENCIL_BUFFER: pitch not a multiple of 128 bytes",
            ));
        }
        Ok(StencilBuffer {
            base,
            tiles_per_row: u64::from(pitch / 128),
        })
    }
}

/// Where a depth buffer is: base, size in pixels (one-based), pitch in
/// bytes (one-based), the LOD rendered into and the mip layout.
#[derive(Clone, Copy, Debug)]
pub(super) struct Placement {
    pub base: u64,
    pub width: u32,
    pub height: u32,
    pub pitch: u32,
    pub lod: u32,
    pub mip_layout: MipLayout,
    /// The mip alignment unit (i, j) in pixels.
    pub align: (u32, u32),
    pub offset: (i32, i32),
}

impl DepthBuffer {
    /// A 2D Y-tiled depth buffer (Gen6 requires tiling Y, 003 lines
    /// 42620-42646; Gen7's command has no tiling fields, its depth buffer is
    /// always Y tiled [ext: mesa src/intel/genxml/gen7.xml
    /// 3DSTATE_DEPTH_BUFFER]).
    pub fn two_d(format: DepthFormat, at: Placement) -> Result<DepthBuffer, DrawError> {
        // The surface helper wants a colour format only for its pitch
        // arithmetic, which uses the given pitch.
        let surface = Surface {
            mip_align: at.align,
            mip_layout: at.mip_layout,
            ..Surface::two_d(
                at.base,
                surface_format::R32_UINT,
                at.width,
                at.height,
                at.pitch,
                Tiling::Y,
            )
        };
        let level = surface
            .level(at.lod)
            .ok_or(DrawError::Invalid("3DSTATE_DEPTH_BUFFER: LOD beyond 13"))?;
        Ok(DepthBuffer {
            format,
            separate_stencil: false,
            stencil: None,
            hiz: false,
            surface,
            level,
            offset: at.offset,
            depth_write: true,
            stencil_write: true,
            samples: 1,
        })
    }

    /// Whether stencil lives in this buffer (its format or the separate
    /// stencil buffer).
    pub fn has_stencil(&self) -> bool {
        self.format.has_stencil() || self.stencil.is_some()
    }

    /// Where sample `s` of the depth-buffer pixel of render-target pixel
    /// (x, y) is stored, or `None` outside the buffer. The buffer's size
    /// is in pixels; its samples are interleaved on both generations
    /// (Mesa src/intel/isl/isl_gfx6.c and isl_gfx7.c choose
    /// ISL_MSAA_LAYOUT_INTERLEAVED for depth and stencil; see
    /// `multisample`).
    fn pixel(&self, x: u32, y: u32, s: u8) -> Option<(u64, u64)> {
        let dx = i64::from(x) + i64::from(self.offset.0);
        let dy = i64::from(y) + i64::from(self.offset.1);
        let l = &self.level;
        if dx < 0 || dy < 0 || dx >= i64::from(l.width) || dy >= i64::from(l.height) {
            return None;
        }
        let (sx, sy, _) =
            sample_location(MsLayout::Interleaved, self.samples, dx as u32, dy as u32, s);
        Some((u64::from(sx), u64::from(sy)))
    }

    /// Graphics address of sample `s` of the depth pixel of render-target
    /// pixel (x, y).
    fn address(&self, x: u32, y: u32, s: u8) -> Option<u64> {
        let (dx, dy) = self.pixel(x, y, s)?;
        let (lx, ly) = (dx + u64::from(self.level.x), dy + u64::from(self.level.y));
        Some(self.surface.address(lx * self.format.bytes(), ly))
    }

    /// Graphics address of the separate stencil byte of (x, y):
    /// TiledOffsetW (003 lines 7450-7460).
    fn stencil_address(&self, x: u32, y: u32, s: u8) -> Option<u64> {
        let StencilBuffer {
            base,
            tiles_per_row: pitch,
        } = self.stencil?;
        let (x, y) = self.pixel(x, y, s)?;
        let (xo, yo) = (x % 64, y % 64);
        let off = pitch * 4096 * (y / 64)
            + 4096 * (x / 64)
            + 512 * (xo / 8)
            + 64 * (yo / 8)
            + 32 * ((yo / 4) % 2)
            + 16 * ((xo / 4) % 2)
            + 8 * ((yo / 2) % 2)
            + 4 * ((xo / 2) % 2)
            + 2 * (yo % 2)
            + xo % 2;
        Some(base.wrapping_add(off))
    }

    /// The pixel at render-target (x, y), `None` outside the buffer. The
    /// depth buffer's memory is read only when `need_depth` or its format
    /// holds the stencil: a stencil-only Gen7 draw names a depth buffer at
    /// address 0 [ext: mesa src/mesa/drivers/dri/i965/gen7_misc_state.c
    /// `gen7_emit_depth_stencil_hiz`, no depth miptree: base 0, pitch 0].
    pub fn read(
        &self,
        memory: &mut dyn GfxMemory,
        (x, y, s): (u32, u32, u8),
        need_depth: bool,
    ) -> Result<Option<DepthPixel>, MemFault> {
        let Some(at) = self.address(x, y, s) else {
            return Ok(None);
        };
        let mut b = [0u8; 8];
        let n = self.format.bytes() as usize;
        if need_depth || self.format.has_stencil() {
            memory.read(at, &mut b[..n])?;
        }
        let d0 = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let mut p = match self.format {
            DepthFormat::D32FloatS8X24 => DepthPixel {
                depth: Depth::Float(f32::from_bits(d0)),
                stencil: b[4],
            },
            DepthFormat::D32Float => DepthPixel {
                depth: Depth::Float(f32::from_bits(d0)),
                stencil: 0,
            },
            DepthFormat::D24UnormS8 | DepthFormat::D24UnormX8 => DepthPixel {
                depth: Depth::Unorm(d0 & 0xFF_FFFF),
                stencil: b[3],
            },
            DepthFormat::D16Unorm => DepthPixel {
                depth: Depth::Unorm(u32::from(u16::from_le_bytes([b[0], b[1]]))),
                stencil: 0,
            },
        };
        if let Some(at) = self.stencil_address(x, y, s) {
            let mut b = [0u8];
            memory.read(at, &mut b)?;
            p.stencil = b[0];
        }
        Ok(Some(p))
    }

    /// Stores `p`: depth when `depth`, the stencil byte when `stencil`.
    /// The X8 byte of D24_UNORM_X8_UINT keeps its contents.
    pub fn write(
        &self,
        memory: &mut dyn GfxMemory,
        (x, y, s): (u32, u32, u8),
        p: DepthPixel,
        depth: bool,
        stencil: bool,
    ) -> Result<(), MemFault> {
        let Some(at) = self.address(x, y, s) else {
            return Ok(());
        };
        if stencil && let Some(sa) = self.stencil_address(x, y, s) {
            memory.write(sa, &[p.stencil])?;
        }
        if !(depth || stencil && self.format.has_stencil()) {
            return Ok(());
        }
        let mut b = [0u8; 8];
        let n = self.format.bytes() as usize;
        memory.read(at, &mut b[..n])?;
        let d = match p.depth {
            Depth::Unorm(v) => v,
            Depth::Float(f) => f.to_bits(),
        };
        if depth {
            match self.format {
                DepthFormat::D16Unorm => b[..2].copy_from_slice(&(d as u16).to_le_bytes()),
                DepthFormat::D24UnormS8 | DepthFormat::D24UnormX8 => {
                    b[..3].copy_from_slice(&d.to_le_bytes()[..3]);
                }
                _ => b[..4].copy_from_slice(&d.to_le_bytes()),
            }
        }
        if stencil {
            match self.format {
                DepthFormat::D32FloatS8X24 => b[4] = p.stencil,
                DepthFormat::D24UnormS8 => b[3] = p.stencil,
                _ => {}
            }
        }
        memory.write(at, &b[..n])
    }

    /// 3DSTATE_CLEAR_PARAMS Depth Clear Value as this buffer stores it:
    /// float bits for the D32 formats, UNORM in 23:0 or 15:0 (003 lines
    /// 43452-43468).
    pub fn clear_value(&self, raw: u32) -> Depth {
        match self.format.unorm_bits() {
            0 => Depth::Float(f32::from_bits(raw)),
            bits => Depth::Unorm(raw & ((1 << bits) - 1)),
        }
    }

    /// A source depth (already clamped to the viewport's range) as this
    /// buffer stores it.
    pub fn quantise(&self, z: f32) -> Depth {
        match self.format.unorm_bits() {
            0 => Depth::Float(z),
            bits => Depth::Unorm(surface_format::encode_channel(
                surface_format::Kind::Unorm,
                bits,
                z.to_bits(),
            )),
        }
    }
}
