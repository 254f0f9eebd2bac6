//! The part of Gen12.5's RENDER_SURFACE_STATE the LSC and HDC messages
//! read, and where a surface state comes from (binding table, surface state
//! heap, bindless heap).
//!
//! Fields (hal/tables/gen12.5/structs.toml, RENDER_SURFACE_STATE, lines
//! 62-125; Mesa gen125.xml): surface type DW0 31:29 (line 67),
//! height DW2 29:16 and width DW2 13:0 (lines 91-92), depth DW3 31:21
//! (line 93), surface base address DW8-9 (line 124); for 2D surfaces also
//! the format DW0 26:18 (line 69), the tile mode DW0 13:12 (line 72) and
//! the pitch DW3 17:0 (line 95). A buffer's size is `((depth << 21) | (height << 7) | width) + 1`
//! bytes (the 27-bit entry count split over the three fields, as the
//! structs.toml note on `width` says and Mesa isl_surface_state
//! fill_buffer_surface_state writes for RAW buffers).

use crate::eu::send::SendError;
use crate::eu::shared::GfxMemory;

/// SURFTYPE_* codes (structs.toml line 67).
const SURFTYPE_2D: u32 = 1;
const SURFTYPE_BUFFER: u32 = 4;
const SURFTYPE_SCRATCH: u32 = 6;
const SURFTYPE_NULL: u32 = 7;

/// A decoded surface: a buffer (`size` bytes) or a 2D surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XeSurface {
    /// SURFTYPE_NULL: reads 0, writes dropped.
    Null,
    Buffer {
        base: u64,
        size: u64,
    },
    /// A 2D surface of `format` (the format code, DW0 26:18), linear or
    /// Tile4 (DW0 13:12: 0 and 3), `pitch` bytes a row (DW3 17:0 + 1).
    Image {
        base: u64,
        width: u32,
        height: u32,
        pitch: u32,
        format: u32,
        tile4: bool,
    },
    /// SURFTYPE_SCRATCH: `entries` per-thread spaces of `pitch` bytes
    /// (DW3 17:0 + 1), the entry count in Width/Height/Depth as a buffer's
    /// size is; a thread reaches Base + PThreadID * Pitch (004 line 6653;
    /// CFE_STATE: "Pitch = Per Thread Scratch Space, Number of entries in
    /// the buffer = Maximum Number Of Threads", lines 12356-12365).
    Scratch {
        base: u64,
        pitch: u64,
        entries: u64,
    },
}

/// Reads and decodes the 64-byte RENDER_SURFACE_STATE at `addr`.
pub fn read(memory: &mut dyn GfxMemory, addr: u64) -> Result<XeSurface, SendError> {
    let mut b = [0u8; 64];
    memory
        .read_state(addr, &mut b)
        .map_err(|f| SendError::Fault {
            addr: f.addr,
            len: f.len,
            write: false,
        })?;
    let dw = |i: usize| u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
    decode(&core::array::from_fn(dw))
}

/// Decodes the sixteen dwords of a RENDER_SURFACE_STATE.
pub fn decode(dw: &[u32; 16]) -> Result<XeSurface, SendError> {
    let ty = dw[0] >> 29;
    let base = u64::from(dw[8]) | u64::from(dw[9]) << 32;
    // A buffer uses 6:0 of Width (structs.toml line 92 note).
    let width = dw[2] & 0x7F;
    let height = dw[2] >> 16 & 0x3FFF;
    let depth = dw[3] >> 21;
    match ty {
        SURFTYPE_NULL => Ok(XeSurface::Null),
        SURFTYPE_SCRATCH => Ok(XeSurface::Scratch {
            base,
            pitch: u64::from(dw[3] & 0x3FFFF) + 1,
            entries: u64::from(depth << 21 | height << 7 | width) + 1,
        }),
        SURFTYPE_BUFFER => Ok(XeSurface::Buffer {
            base,
            size: u64::from(depth << 21 | height << 7 | width) + 1,
        }),
        SURFTYPE_2D => {
            let tile4 = match dw[0] >> 12 & 3 {
                0 => false,
                3 => true,
                _ => {
                    return Err(SendError::Bad(
                        "RENDER_SURFACE_STATE: Tile64 and X-major tile modes are not modelled",
                    ));
                }
            };
            let pitch = (dw[3] & 0x3_FFFF) + 1;
            if tile4 && !pitch.is_multiple_of(128) {
                return Err(SendError::Bad(
                    "RENDER_SURFACE_STATE: a Tile4 pitch must be a multiple of 128 bytes",
                ));
            }
            Ok(XeSurface::Image {
                base,
                width: (dw[2] & 0x3FFF) + 1,
                height: height + 1,
                pitch,
                format: dw[0] >> 18 & 0x1FF,
                tile4,
            })
        }
        _ => Err(SendError::Bad(
            "RENDER_SURFACE_STATE: only SURFTYPE_BUFFER, SURFTYPE_2D, SURFTYPE_SCRATCH and SURFTYPE_NULL are modelled for LSC",
        )),
    }
}

/// The encoded dwords of a buffer surface (for tests and drivers).
pub fn encode_buffer(base: u64, size: u64) -> [u32; 16] {
    let n = size.saturating_sub(1) as u32;
    let mut dw = [0u32; 16];
    dw[0] = SURFTYPE_BUFFER << 29 | 0x1FF << 18;
    dw[2] = (n >> 7 & 0x3FFF) << 16 | (n & 0x7F);
    dw[3] = (n >> 21) << 21;
    dw[8] = base as u32;
    dw[9] = (base >> 32) as u32;
    dw
}

/// The encoded dwords of a scratch surface of `entries` spaces of
/// `pitch` bytes (for tests and drivers).
pub fn encode_scratch(base: u64, pitch: u64, entries: u64) -> [u32; 16] {
    let mut dw = encode_buffer(base, entries);
    dw[0] = SURFTYPE_SCRATCH << 29 | 0x1FF << 18;
    dw[3] |= (pitch.saturating_sub(1) as u32) & 0x3FFFF;
    dw
}

/// The encoded dwords of a 2D surface (for tests and drivers).
pub fn encode_image(
    base: u64,
    width: u32,
    height: u32,
    pitch: u32,
    format: u32,
    tile4: bool,
) -> [u32; 16] {
    let mut dw = [0u32; 16];
    dw[0] = SURFTYPE_2D << 29 | (format & 0x1FF) << 18 | if tile4 { 3 << 12 } else { 0 };
    dw[2] = (height.saturating_sub(1) & 0x3FFF) << 16 | (width.saturating_sub(1) & 0x3FFF);
    dw[3] = pitch.saturating_sub(1) & 0x3_FFFF;
    dw[8] = base as u32;
    dw[9] = (base >> 32) as u32;
    dw
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer's size spreads over Width 6:0, Height and Depth: sizes that
    /// use each field decode back, and the fields sit where structs.toml
    /// puts them.
    #[test]
    fn buffer_sizes_over_width_height_depth() {
        for size in [
            1u64,
            100,
            128,
            0x3A0,
            1 << 21,
            (1 << 21) + 0x1234,
            0x8000_0000,
            1 << 32,
        ] {
            let dw = encode_buffer(0x1_0000_1000, size);
            assert_eq!(
                decode(&dw),
                Ok(XeSurface::Buffer {
                    base: 0x1_0000_1000,
                    size
                }),
                "{size:#x}"
            );
            let n = (size - 1) as u32;
            assert_eq!(dw[2] & 0x7F, n & 0x7F);
            assert_eq!(dw[2] >> 16 & 0x3FFF, n >> 7 & 0x3FFF);
            assert_eq!(dw[3] >> 21, n >> 21);
        }
        let mut dw = encode_buffer(0, 16);
        dw[0] = 2 << 29; // SURFTYPE_3D
        assert!(matches!(decode(&dw), Err(SendError::Bad(w)) if w.contains("SURFTYPE_BUFFER")));
        dw[0] = 1 << 29 | 1 << 12; // 2D, Tile64
        assert!(matches!(decode(&dw), Err(SendError::Bad(w)) if w.contains("Tile64")));
    }
}
