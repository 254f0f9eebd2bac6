//! The vertex fetch formats: the Source Element Formats of 003 Table 11
//! (lines 31412-31608) with their SURFACE_STATE encodings (the Sampler
//! chapter's surface format table, 003 lines 76425-77070), and their
//! conversion to up to four 32-bit components (003 lines 31403-31408:
//! "see Sampler for conversion algorithms"; the digest's rules, 003 lines
//! 4346-4395).
//!
//! Table 11 also lists formats the SNB surface format table gives no
//! encoding (the SFIXED formats, R16G16B16_UINT/SINT, the SNORM and
//! SCALED 10:10:10:2 forms): a driver cannot name them, so an unknown code
//! is an invalid element, not an unmodelled one.

/// How a channel's bits become a component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Num {
    Float,
    Unorm,
    Snorm,
    Uint,
    Sint,
    Uscaled,
    Sscaled,
}

/// How the channels lie in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// `n` channels of `bits` each, R first.
    Array { bits: u8, n: u8 },
    /// B8G8R8A8: bytes B, G, R, A.
    Bgra8,
    /// 10:10:10:2 with the first channel in bits 9:0 (`bgr`: that is B);
    /// `alpha`: how the two top bits convert (None: no alpha, X2).
    Packed { bgr: bool, alpha: Option<Num> },
    /// R11G11B10_FLOAT: unsigned small floats.
    R11G11B10,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct VertexFormat {
    pub layout: Layout,
    pub num: Num,
}

impl VertexFormat {
    /// Bytes one element reads.
    pub fn bytes(&self) -> usize {
        match self.layout {
            Layout::Array { bits, n } => usize::from(bits / 8) * usize::from(n),
            _ => 4,
        }
    }

    /// Whether its components are integers (for the missing-component
    /// default and STORE_1 choice of the caller).
    pub fn integer(&self) -> bool {
        matches!(self.num, Num::Uint | Num::Sint)
    }
}

/// The vertex fetch format of SURFACE_STATE format `code`.
pub(crate) fn of(code: u32) -> Option<VertexFormat> {
    use Num::*;
    let a = |bits: u8, n: u8, num: Num| VertexFormat {
        layout: Layout::Array { bits, n },
        num,
    };
    Some(match code {
        // 256 and 192 bits.
        0x197 => a(64, 4, Float),
        0x198 => a(64, 3, Float),
        // 128 bits.
        0x000 => a(32, 4, Float),
        0x001 => a(32, 4, Sint),
        0x002 => a(32, 4, Uint),
        0x003 => a(32, 4, Unorm),
        0x004 => a(32, 4, Snorm),
        0x005 => a(64, 2, Float),
        0x007 => a(32, 4, Sscaled),
        0x008 => a(32, 4, Uscaled),
        // 96 bits.
        0x040 => a(32, 3, Float),
        0x041 => a(32, 3, Sint),
        0x042 => a(32, 3, Uint),
        0x043 => a(32, 3, Unorm),
        0x044 => a(32, 3, Snorm),
        0x045 => a(32, 3, Sscaled),
        0x046 => a(32, 3, Uscaled),
        // 64 bits.
        0x080 => a(16, 4, Unorm),
        0x081 => a(16, 4, Snorm),
        0x082 => a(16, 4, Sint),
        0x083 => a(16, 4, Uint),
        0x084 => a(16, 4, Float),
        0x093 => a(16, 4, Sscaled),
        0x094 => a(16, 4, Uscaled),
        0x085 => a(32, 2, Float),
        0x086 => a(32, 2, Sint),
        0x087 => a(32, 2, Uint),
        0x08B => a(32, 2, Unorm),
        0x08C => a(32, 2, Snorm),
        0x095 => a(32, 2, Sscaled),
        0x096 => a(32, 2, Uscaled),
        0x08D => a(64, 1, Float),
        // 48 bits.
        0x19B => a(16, 3, Float),
        0x19C => a(16, 3, Unorm),
        0x19D => a(16, 3, Snorm),
        0x19E => a(16, 3, Sscaled),
        0x19F => a(16, 3, Uscaled),
        // 32 bits.
        0x0C2 => packed(false, Unorm, Some(Unorm)),
        0x0C4 => packed(false, Uint, Some(Uint)),
        0x0C5 => packed(false, Snorm, Some(Unorm)),
        0x0D1 => packed(true, Unorm, Some(Unorm)),
        0x0F3 => packed(false, Uscaled, None),
        0x0C0 => VertexFormat {
            layout: Layout::Bgra8,
            num: Unorm,
        },
        0x0C7 => a(8, 4, Unorm),
        0x0C9 => a(8, 4, Snorm),
        0x0CA => a(8, 4, Sint),
        0x0CB => a(8, 4, Uint),
        0x0F4 => a(8, 4, Sscaled),
        0x0F5 => a(8, 4, Uscaled),
        0x0D3 => VertexFormat {
            layout: Layout::R11G11B10,
            num: Float,
        },
        0x0D0 => a(16, 2, Float),
        0x0CC => a(16, 2, Unorm),
        0x0CD => a(16, 2, Snorm),
        0x0CE => a(16, 2, Sint),
        0x0CF => a(16, 2, Uint),
        0x0F6 => a(16, 2, Sscaled),
        0x0F7 => a(16, 2, Uscaled),
        0x0D8 => a(32, 1, Float),
        0x0D6 => a(32, 1, Sint),
        0x0D7 => a(32, 1, Uint),
        0x0F8 => a(32, 1, Sscaled),
        0x0F9 => a(32, 1, Uscaled),
        0x0F2 => a(32, 1, Snorm),
        0x0F1 => a(32, 1, Unorm),
        // 24 bits.
        0x193 => a(8, 3, Unorm),
        0x194 => a(8, 3, Snorm),
        0x195 => a(8, 3, Sscaled),
        0x196 => a(8, 3, Uscaled),
        // 16 bits.
        0x106 => a(8, 2, Unorm),
        0x107 => a(8, 2, Snorm),
        0x108 => a(8, 2, Sint),
        0x109 => a(8, 2, Uint),
        0x11C => a(8, 2, Sscaled),
        0x11D => a(8, 2, Uscaled),
        0x10E => a(16, 1, Float),
        0x10A => a(16, 1, Unorm),
        0x10B => a(16, 1, Snorm),
        0x10C => a(16, 1, Sint),
        0x10D => a(16, 1, Uint),
        0x11E => a(16, 1, Sscaled),
        0x11F => a(16, 1, Uscaled),
        // 8 bits.
        0x140 => a(8, 1, Unorm),
        0x141 => a(8, 1, Snorm),
        0x142 => a(8, 1, Sint),
        0x143 => a(8, 1, Uint),
        0x149 => a(8, 1, Sscaled),
        0x14A => a(8, 1, Uscaled),
        _ => return None,
    })
}

fn packed(bgr: bool, num: Num, alpha: Option<Num>) -> VertexFormat {
    VertexFormat {
        layout: Layout::Packed { bgr, alpha },
        num,
    }
}

/// The components of one element read from `bytes` (`fmt.bytes()` long,
/// or all zeros for a fetch out of bounds), R, G, B, A; `None` for the
/// channels the format lacks ("-" in Table 11: their value is
/// UNPREDICTABLE, 003 lines 31612-31614).
pub(crate) fn convert(fmt: &VertexFormat, bytes: &[u8]) -> [Option<u32>; 4] {
    let mut out = [None; 4];
    let le = |at: usize, n: usize| -> u64 {
        let mut v = 0u64;
        for k in 0..n {
            v |= u64::from(bytes.get(at + k).copied().unwrap_or(0)) << (8 * k);
        }
        v
    };
    match fmt.layout {
        Layout::Array { bits, n } => {
            let nb = usize::from(bits / 8);
            for (c, o) in out.iter_mut().enumerate().take(usize::from(n)) {
                *o = Some(channel(le(c * nb, nb), u32::from(bits), fmt.num));
            }
        }
        Layout::Bgra8 => {
            let v = le(0, 4);
            let byte = |k: u64| v >> (8 * k) & 0xFF;
            // Memory B, G, R, A; the components are R, G, B, A as the
            // sampler returns them [ext: Mesa isl_format_layout.csv
            // B8G8R8A8_UNORM, used for GL_BGRA vertex arrays].
            for (c, k) in [2u64, 1, 0, 3].iter().enumerate() {
                out[c] = Some(channel(byte(*k), 8, fmt.num));
            }
        }
        Layout::Packed { bgr, alpha } => {
            let v = le(0, 4);
            let f = |k: u32| v >> (10 * k) & 0x3FF;
            let (r, b) = if bgr { (f(2), f(0)) } else { (f(0), f(2)) };
            out[0] = Some(channel(r, 10, fmt.num));
            out[1] = Some(channel(f(1), 10, fmt.num));
            out[2] = Some(channel(b, 10, fmt.num));
            out[3] = alpha.map(|num| channel(v >> 30 & 3, 2, num));
        }
        Layout::R11G11B10 => {
            let v = le(0, 4) as u32;
            out[0] = Some(small_float(v & 0x7FF, 6).to_bits());
            out[1] = Some(small_float(v >> 11 & 0x7FF, 6).to_bits());
            out[2] = Some(small_float(v >> 22 & 0x3FF, 5).to_bits());
        }
    }
    out
}

/// One channel of `bits` bits as its 32-bit component.
fn channel(raw: u64, bits: u32, num: Num) -> u32 {
    let max = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let raw = raw & max;
    let signed = || -> i64 {
        if bits == 64 {
            raw as i64
        } else {
            ((raw << (64 - bits)) as i64) >> (64 - bits)
        }
    };
    let f = |x: f64| (x as f32).to_bits();
    match num {
        Num::Float => match bits {
            64 => (f64::from_bits(raw) as f32).to_bits(),
            32 => raw as u32,
            16 => half(raw as u16).to_bits(),
            _ => 0,
        },
        // c / (2^n - 1).
        Num::Unorm => f(raw as f64 / max as f64),
        // max(c / (2^(n-1) - 1), -1).
        Num::Snorm => {
            let m = ((1u64 << (bits - 1)) - 1) as f64;
            f((signed() as f64 / m).max(-1.0))
        }
        Num::Uint => raw as u32,
        Num::Sint => signed() as u32,
        // Integer to float, rounded to nearest even (`as` rounds so).
        Num::Uscaled => (raw as f32).to_bits(),
        Num::Sscaled => (signed() as f32).to_bits(),
    }
}

/// 2^e for the small exponents of half and small floats (exact).
fn pow2(e: i32) -> f32 {
    f32::from_bits(((e + 127) as u32) << 23)
}

/// IEEE half to single (exact).
pub(crate) fn half(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let e = i32::from(h >> 10 & 0x1F);
    let m = f32::from(h & 0x3FF);
    match e {
        0 => sign * m * pow2(-24),
        31 if m == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        _ => sign * (1.0 + m / 1024.0) * pow2(e - 15),
    }
}

/// An unsigned float with a 5-bit exponent (bias 15) and `mbits` of
/// mantissa (R11G11B10_FLOAT: 6 for R and G, 5 for B).
fn small_float(v: u32, mbits: u32) -> f32 {
    let e = (v >> mbits) as i32;
    let m = (v & ((1 << mbits) - 1)) as f32;
    let scale = (1u32 << mbits) as f32;
    match e {
        0 => m / scale * pow2(-14),
        31 if m == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (1.0 + m / scale) * pow2(e - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(code: u32, bytes: &[u8]) -> [Option<u32>; 4] {
        convert(&of(code).unwrap(), bytes)
    }
    fn fl(x: Option<u32>) -> f32 {
        f32::from_bits(x.unwrap())
    }

    #[test]
    fn normalized_formats_scale_by_the_channel_maximum() {
        let c = conv(0x0C7, &[0, 255, 51, 128]);
        assert_eq!([fl(c[0]), fl(c[1]), fl(c[2])], [0.0, 1.0, 0.2]);
        assert_eq!(fl(c[3]), 128.0 / 255.0);
        // SNORM: -128 clamps to -1, -127 is -1 too, 127 is 1.
        let s = conv(0x0C9, &[0x80, 0x81, 0x7F, 0]);
        assert_eq!(
            [fl(s[0]), fl(s[1]), fl(s[2]), fl(s[3])],
            [-1.0, -1.0, 1.0, 0.0]
        );
        let u16n = conv(0x10A, &[0xFF, 0xFF]);
        assert_eq!(fl(u16n[0]), 1.0);
        assert_eq!(u16n[1], None, "R16_UNORM has no G");
    }

    #[test]
    fn integer_and_scaled_formats() {
        let i = conv(0x0CE, &[0xFE, 0xFF, 0x05, 0x00]); // R16G16_SINT
        assert_eq!([i[0], i[1]], [Some(-2i32 as u32), Some(5)]);
        let sc = conv(0x11E, &[0xFE, 0xFF]); // R16_SSCALED
        assert_eq!(fl(sc[0]), -2.0);
        // R32_USCALED of 2^24+1 rounds to nearest even.
        let big = conv(0x0F9, &(16_777_217u32).to_le_bytes());
        assert_eq!(fl(big[0]), 16_777_216.0);
    }

    #[test]
    fn packed_and_float_formats() {
        // R10G10B10A2_UNORM: R = 1023, G = 0, B = 511, A = 3.
        let v: u32 = 1023 | 511 << 20 | 3 << 30;
        let p = conv(0x0C2, &v.to_le_bytes());
        assert_eq!([fl(p[0]), fl(p[1]), fl(p[3])], [1.0, 0.0, 1.0]);
        assert_eq!(fl(p[2]), 511.0 / 1023.0);
        // B10G10R10A2 swaps R and B.
        let q = conv(0x0D1, &v.to_le_bytes());
        assert_eq!(fl(q[0]), 511.0 / 1023.0);
        assert_eq!(fl(q[2]), 1.0);
        // Half floats: 1.0 = 0x3C00, -2.5 = 0xC100.
        let h = conv(0x0D0, &[0x00, 0x3C, 0x00, 0xC1]);
        assert_eq!([fl(h[0]), fl(h[1])], [1.0, -2.5]);
        // 64-bit floats narrow.
        let d = conv(0x08D, &0.5f64.to_le_bytes());
        assert_eq!(fl(d[0]), 0.5);
        // R11G11B10: exponent 15, mantissa 0 is 1.0 in each.
        let r11: u32 = (15 << 6) | (15 << 6) << 11 | (15 << 5) << 22;
        let f = conv(0x0D3, &r11.to_le_bytes());
        assert_eq!([fl(f[0]), fl(f[1]), fl(f[2])], [1.0, 1.0, 1.0]);
        assert_eq!(f[3], None);
        // BGRA bytes give R, G, B, A.
        let b = conv(0x0C0, &[255, 0, 0, 255]);
        assert_eq!([fl(b[0]), fl(b[2])], [0.0, 1.0]);
    }

    #[test]
    fn unknown_codes_are_not_vertex_formats() {
        assert!(of(0x0FA).is_none(), "R8B8G8A8_UNORM is no VF format");
        assert!(of(0x1FF).is_none());
    }
}
