//! Surfaces written as PNG pictures (`--png` on `run` and `replay`): the
//! pixel formats the render targets, textures and depth buffers here use,
//! converted to 8-bit RGBA (colour) or 8-bit grey (single channels and
//! depth), from linear or tiled memory.
//!
//! `replay`'s form names the surface in graphics memory:
//! `<addr>:<width>x<height>:<format>[:pitch=<bytes>][:linear|:x|:y]=<file>`.

use baregpu::gtt::tiling::{self, Swizzle, Tiling};

/// How a surface's pixels are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PixelFormat {
    B8G8R8A8,
    B8G8R8X8,
    R8G8B8A8,
    R8,
    /// A float channel shown from 0.0 (black) to 1.0 (white).
    R32Float,
    /// Depth: 16-bit unorm, 24-bit unorm under 8 bits of stencil, float.
    D16,
    D24S8,
    D32Float,
}

impl PixelFormat {
    pub const NAMES: &'static str = "b8g8r8a8, b8g8r8x8, r8g8b8a8, r8, r32f, d16, d24s8, d32f";

    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "b8g8r8a8" => PixelFormat::B8G8R8A8,
            "b8g8r8x8" => PixelFormat::B8G8R8X8,
            "r8g8b8a8" => PixelFormat::R8G8B8A8,
            "r8" => PixelFormat::R8,
            "r32f" => PixelFormat::R32Float,
            "d16" => PixelFormat::D16,
            "d24s8" => PixelFormat::D24S8,
            "d32f" => PixelFormat::D32Float,
            _ => return None,
        })
    }

    pub const fn bytes(self) -> usize {
        match self {
            PixelFormat::R8 => 1,
            PixelFormat::D16 => 2,
            _ => 4,
        }
    }

    const fn colour(self) -> bool {
        matches!(
            self,
            PixelFormat::B8G8R8A8 | PixelFormat::B8G8R8X8 | PixelFormat::R8G8B8A8
        )
    }
}

/// Where a surface is and how it is laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SurfaceShape {
    pub width: u32,
    pub height: u32,
    pub pitch: usize,
    pub format: PixelFormat,
    pub tiling: Tiling,
}

impl SurfaceShape {
    /// Bytes of memory the surface occupies (whole tile rows when tiled).
    pub fn bytes(&self) -> usize {
        tiling::surface_size(self.tiling, self.pitch, self.height as usize)
    }
}

/// A `replay --png` request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PngDump {
    pub gfx: u64,
    pub shape: SurfaceShape,
    pub file: String,
}

/// Parses `<addr>:<w>x<h>:<format>[:pitch=<n>][:linear|:x|:y]=<file>`.
pub fn parse_dump(
    s: &str,
    number: impl Fn(&str) -> Result<u64, String>,
) -> Result<PngDump, String> {
    let bad = |why: &str| {
        format!(
            "--png {s:?}: {why}; expected <addr>:<width>x<height>:<format>[:pitch=<bytes>]\
             [:linear|:x|:y]=<file> with a format of {}",
            PixelFormat::NAMES
        )
    };
    let (spec, file) = s.rsplit_once('=').ok_or_else(|| bad("no =<file>"))?;
    if file.is_empty() {
        return Err(bad("empty file name"));
    }
    let mut parts = spec.split(':');
    let gfx = number(parts.next().unwrap_or("")).map_err(|e| bad(&e))?;
    let size = parts.next().ok_or_else(|| bad("no size"))?;
    let (w, h) = size
        .split_once('x')
        .ok_or_else(|| bad("the size is <width>x<height>"))?;
    let width =
        u32::try_from(number(w).map_err(|e| bad(&e))?).map_err(|_| bad("width too large"))?;
    let height =
        u32::try_from(number(h).map_err(|e| bad(&e))?).map_err(|_| bad("height too large"))?;
    if width == 0 || height == 0 || width > 16384 || height > 16384 {
        return Err(bad("width and height are 1-16384"));
    }
    let format = parts
        .next()
        .and_then(PixelFormat::from_name)
        .ok_or_else(|| bad("unknown format"))?;
    let (mut pitch, mut layout) = (None, Tiling::Linear);
    for p in parts {
        match p {
            "linear" => layout = Tiling::Linear,
            "x" => layout = Tiling::X,
            "y" => layout = Tiling::Y,
            _ => match p.strip_prefix("pitch=") {
                Some(n) => pitch = Some(number(n).map_err(|e| bad(&e))? as usize),
                None => return Err(bad(&format!("unknown option {p:?}"))),
            },
        }
    }
    let row = width as usize * format.bytes();
    let pitch = match pitch {
        Some(p) => p,
        None => tiling::align_pitch(layout, row).ok_or_else(|| bad("rows too wide"))?,
    };
    if pitch < row || !tiling::pitch_is_valid(layout, pitch) {
        return Err(bad(&format!(
            "pitch {pitch} does not hold {row}-byte rows or is not valid for {layout:?} tiling"
        )));
    }
    Ok(PngDump {
        gfx,
        shape: SurfaceShape {
            width,
            height,
            pitch,
            format,
            tiling: layout,
        },
        file: file.to_string(),
    })
}

/// The PNG of a surface whose memory is `raw` (at least `shape.bytes()`).
pub fn encode(shape: &SurfaceShape, raw: &[u8]) -> Result<Vec<u8>, String> {
    let (w, h) = (shape.width as usize, shape.height as usize);
    let row = w * shape.format.bytes();
    let mut linear = vec![0u8; row * h];
    tiling::tiled_to_linear(
        &mut linear,
        row,
        raw,
        shape.tiling,
        Swizzle::None,
        shape.pitch,
        row,
        h,
    )
    .map_err(|e| format!("the surface's memory: {e}"))?;
    encode_rows(shape.format, shape.width, shape.height, &linear)
}

/// The PNG of `height` rows of `width` pixels of `format`, packed.
pub fn encode_rows(
    format: PixelFormat,
    width: u32,
    height: u32,
    linear: &[u8],
) -> Result<Vec<u8>, String> {
    let (w, h) = (width as usize, height as usize);
    if linear.len() < w * h * format.bytes() {
        return Err("fewer bytes than the picture's pixels".into());
    }
    let colour = format.colour();
    let mut pixels = Vec::with_capacity(w * h * if colour { 4 } else { 1 });
    for p in linear[..w * h * format.bytes()].chunks_exact(format.bytes()) {
        let dw = |p: &[u8]| u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
        match format {
            PixelFormat::B8G8R8A8 => pixels.extend([p[2], p[1], p[0], p[3]]),
            PixelFormat::B8G8R8X8 => pixels.extend([p[2], p[1], p[0], 0xff]),
            PixelFormat::R8G8B8A8 => pixels.extend([p[0], p[1], p[2], p[3]]),
            PixelFormat::R8 => pixels.push(p[0]),
            PixelFormat::R32Float | PixelFormat::D32Float => {
                pixels.push(unit_to_byte(f32::from_bits(dw(p))))
            }
            PixelFormat::D16 => pixels.push(p[1]),
            // Depth in bits 23:0: its top byte.
            PixelFormat::D24S8 => pixels.push(p[2]),
        }
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(if colour {
            png::ColorType::Rgba
        } else {
            png::ColorType::Grayscale
        });
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(|e| format!("PNG: {e}"))?;
        writer
            .write_image_data(&pixels)
            .map_err(|e| format!("PNG: {e}"))?;
    }
    Ok(out)
}

/// 0.0-1.0 to 0-255, NaN black.
fn unit_to_byte(v: f32) -> u8 {
    if v.is_nan() {
        0
    } else {
        (v.clamp(0.0, 1.0) * 255.0).round() as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(s: &str) -> Result<u64, String> {
        match s.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16),
            None => s.parse(),
        }
        .map_err(|e| e.to_string())
    }

    #[test]
    fn requests_parse_with_defaults_and_errors() {
        let d = parse_dump("0x10000:64x32:b8g8r8a8=out.png", num).unwrap();
        assert_eq!(d.gfx, 0x10000);
        assert_eq!(d.shape.pitch, 256);
        assert_eq!(d.shape.tiling, Tiling::Linear);
        let d = parse_dump("0x10000:64x32:d24s8:y=z.png", num).unwrap();
        assert_eq!((d.shape.tiling, d.shape.pitch), (Tiling::Y, 256));
        assert_eq!(d.shape.bytes(), 256 * 32);
        let d = parse_dump("0x10000:10x2:r8:pitch=64=a.png", num).unwrap();
        assert_eq!(d.shape.pitch, 64);
        for bad in [
            "0x10000:64x32:rgb=a.png",
            "0x10000:64:b8g8r8a8=a.png",
            "0x10000:0x32:b8g8r8a8=a.png",
            "0x10000:64x32:b8g8r8a8",
            "0x10000:64x32:b8g8r8a8:pitch=100=a.png",
            "0x10000:64x32:b8g8r8a8:z=a.png",
        ] {
            assert!(parse_dump(bad, num).is_err(), "{bad}");
        }
    }

    /// Decodes the PNG back with the same crate and compares pixel by pixel
    /// against the memory the picture was made of.
    #[test]
    fn pictures_hold_the_surfaces_pixels() {
        let shape = SurfaceShape {
            width: 3,
            height: 2,
            pitch: 64,
            format: PixelFormat::B8G8R8A8,
            tiling: Tiling::Linear,
        };
        let mut raw = vec![0u8; 128];
        // Pixel (2, 1): blue 10, green 20, red 30, alpha 40.
        raw[64 + 8..64 + 12].copy_from_slice(&[10, 20, 30, 40]);
        let png = encode(&shape, &raw).unwrap();
        let dec = png::Decoder::new(std::io::Cursor::new(png));
        let mut reader = dec.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (3, 2));
        assert_eq!(&buf[(3 + 2) * 4..(3 + 2) * 4 + 4], &[30, 20, 10, 40]);
        assert_eq!(&buf[..4], &[0, 0, 0, 0]);

        // A Y-tiled float depth buffer: (1, 0) at 0.5 is grey 128.
        let shape = SurfaceShape {
            width: 4,
            height: 1,
            pitch: 128,
            format: PixelFormat::D32Float,
            tiling: Tiling::Y,
        };
        let mut raw = vec![0u8; shape.bytes()];
        // Y tiles store 16-byte columns of 32 rows: (x=1, y=0) is bytes 4-7.
        raw[4..8].copy_from_slice(&0.5f32.to_le_bytes());
        let png = encode(&shape, &raw).unwrap();
        let mut reader = png::Decoder::new(std::io::Cursor::new(png))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        reader.next_frame(&mut buf).unwrap();
        assert_eq!(&buf[..4], &[0, 128, 0, 0]);
    }
}
