//! Surface formats as the typed messages see them: which formats each
//! generation reads, writes and updates atomically, and the conversions
//! between a texel's bytes and the message's 32-bit channels.
//!
//! Support [ext: mesa src/intel/isl/isl_format.c `format_info`, columns TW
//! (typed write), TR (typed read), TA (typed atomics), as verx10: 70 Ivy
//! Bridge, 75 Haswell, 90 and up later generations]:
//! - Writes (TW 70): every format of [`READ_FROM`]; not the 96-bit RGB32
//!   formats nor YUV.
//! - Reads with conversion: R32_UINT, R32_SINT, R32_FLOAT from Gen7 (TR
//!   70); the 8- and 16-bit UINT formats from Gen7.5 (TR 75). RGBA32 and
//!   RG32 (TR 90) and every UNORM format (TR 110 and later) are not
//!   readable on Gen7 or Gen7.5; this model refuses them rather than
//!   invent what the hardware returns.
//! - Reads without conversion: on Gen7 a typed read of R8_UINT or R16_UINT
//!   returns the 32 bits found at the texel's address, unaligned and
//!   unconverted, an undocumented behaviour Mesa relies on [ext: mesa
//!   src/intel/isl/isl_storage_image.c `isl_lower_storage_image_format`;
//!   brw_fs_surface_builder.cpp `has_undefined_high_bits`].
//! - Atomics (TA 70): R32_UINT and R32_SINT.
//!
//! Write conversion [ext: intel-graphics-compiler
//! documentation/visa/instructions/SCATTER4_TYPED.md, "Type conversion"]:
//! float to UNORM clamps to [0, 1] and rounds to even; UINT and SINT clamp
//! when the channel is narrower than 32 bits (Mesa masks negative values
//! before a UINT8 write because the hardware would clamp them to 255
//! [ext: mesa brw_fs_surface_builder.cpp `emit_convert_to_scaled`]);
//! 32-bit channels are stored as sent. A NaN stores 0 in UNORM (the
//! sources are silent; this follows the D3D rule, as the render-target
//! write does).
//!
//! Read conversion: UINT widens with zeros, SINT with the sign, UNORM
//! divides by 2^n - 1 (no UNORM format is readable before Gen9, so that
//! rule only completes the conversion); channels the format lacks return
//! 0 and alpha 1
//! (1.0 for float and UNORM formats), the sampler's DX10/OGL mapping (000
//! lines 3541-3560; 003 lines 77112-77181), which typed reads share.
//!
//! Channels are stored in the order the format names them, lowest byte
//! first; B8G8R8A8 stores blue first (003 line 31552, printed there as
//! "R8G8R8A8").

use baregpu_isa::IsaGen;

use super::super::super::payload::bad;
use super::super::super::surface::format::{self, Kind};
use crate::eu::send::SendError;

/// Formats typed writes take on Gen7 and Gen7.5, each with the first
/// generation whose typed reads convert it (`None`: not before Gen9).
const READ_FROM: [(u32, Option<IsaGen>); 15] = [
    (format::R32G32B32A32_FLOAT, None), // TR 90
    (format::R32G32B32A32_SINT, None),  // TR 90
    (format::R32G32B32A32_UINT, None),  // TR 90
    (format::R32G32_FLOAT, None),       // TR 90
    (format::R32G32_SINT, None),        // TR 90
    (format::R32G32_UINT, None),        // TR 90
    (format::B8G8R8A8_UNORM, None),     // TR 125
    (format::R8G8B8A8_UNORM, None),     // TR 110
    (format::R8G8B8A8_UINT, Some(IsaGen::Gen75)),
    (format::R32_SINT, Some(IsaGen::Gen7)),
    (format::R32_UINT, Some(IsaGen::Gen7)),
    (format::R32_FLOAT, Some(IsaGen::Gen7)),
    (format::R16_UINT, Some(IsaGen::Gen75)),
    (format::R8_UNORM, None), // TR 110
    (format::R8_UINT, Some(IsaGen::Gen75)),
];

fn entry(fmt: u32) -> Option<Option<IsaGen>> {
    READ_FROM.iter().find(|e| e.0 == fmt).map(|e| e.1)
}

/// What a typed read of a format returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ReadKind {
    /// The texel converted to 32-bit channels.
    Convert,
    /// Gen7 R8_UINT / R16_UINT: the dword at the texel's address in red.
    Dword,
}

/// How a typed read of `fmt` behaves on `p`.
pub(super) fn readable(p: IsaGen, fmt: u32) -> Result<ReadKind, SendError> {
    match entry(fmt) {
        Some(Some(from)) if p >= from => Ok(ReadKind::Convert),
        Some(_) if p == IsaGen::Gen7 && (fmt == format::R8_UINT || fmt == format::R16_UINT) => {
            Ok(ReadKind::Dword)
        }
        Some(_) => Err(bad(
            "typed read: this surface format is not readable on this generation",
        )),
        None => Err(bad("typed message: surface format not modelled")),
    }
}

pub(super) fn writable(fmt: u32) -> Result<(), SendError> {
    entry(fmt)
        .map(|_| ())
        .ok_or(bad("typed write: surface format not modelled"))
}

pub(super) fn atomic_ok(fmt: u32) -> Result<(), SendError> {
    if fmt == format::R32_UINT || fmt == format::R32_SINT {
        Ok(())
    } else {
        Err(bad(
            "typed atomic: the surface format must be R32_UINT or R32_SINT",
        ))
    }
}

/// How one format's channels sit in a texel.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    /// Bytes per texel.
    pub bytes: usize,
    channels: usize,
    /// Bytes per channel: 1, 2 or 4.
    size: usize,
    kind: Kind,
    blue_first: bool,
}

impl Layout {
    pub fn of(fmt: u32) -> Result<Layout, SendError> {
        let unknown = bad("typed message: surface format not modelled");
        let (n, kind) = format::channels(fmt).ok_or(unknown)?;
        let bytes = format::bytes(fmt).ok_or(unknown)? as usize;
        let channels = usize::from(n);
        let size = bytes / channels.max(1);
        if kind == Kind::Yuv || !matches!(size, 1 | 2 | 4) || size * channels != bytes {
            return Err(unknown);
        }
        Ok(Layout {
            bytes,
            channels,
            size,
            kind,
            blue_first: fmt == format::B8G8R8A8_UNORM,
        })
    }

    /// Message channels (bit 0 red) the format stores.
    pub fn mask(&self) -> u8 {
        (1u8 << self.channels) - 1
    }

    /// Byte offset in the texel of message channel `c`.
    fn at(&self, c: usize) -> usize {
        let stored = if self.blue_first && c < 3 { 2 - c } else { c };
        stored * self.size
    }

    /// The value of a missing alpha channel.
    pub fn one(&self) -> u32 {
        match self.kind {
            Kind::Float | Kind::Unorm => 1.0f32.to_bits(),
            _ => 1,
        }
    }

    /// Stores the channels of `rgba` set in `mask` (and present in the
    /// format) into `texel`, converted; the other bytes stay.
    pub fn pack(&self, texel: &mut [u8], rgba: [u32; 4], mask: u8) {
        for (c, v) in rgba.iter().enumerate().take(self.channels) {
            if mask >> c & 1 == 0 {
                continue;
            }
            let at = self.at(c);
            let bytes = self.encode(*v).to_le_bytes();
            if let (Some(dst), Some(src)) =
                (texel.get_mut(at..at + self.size), bytes.get(..self.size))
            {
                dst.copy_from_slice(src);
            }
        }
    }

    /// The four message channels of `texel`.
    pub fn unpack(&self, texel: &[u8]) -> [u32; 4] {
        let mut out = [0, 0, 0, self.one()];
        for (c, o) in out.iter_mut().enumerate().take(self.channels) {
            let at = self.at(c);
            let mut b = [0u8; 4];
            if let Some(src) = texel.get(at..at + self.size) {
                b[..self.size].copy_from_slice(src);
            }
            *o = self.decode(u32::from_le_bytes(b));
        }
        out
    }

    /// A 32-bit message value as the channel stores it (the low `size`
    /// bytes are kept).
    fn encode(&self, v: u32) -> u32 {
        format::encode_channel(self.kind, 8 * self.size as u32, v)
    }

    /// A stored channel as the message returns it.
    fn decode(&self, v: u32) -> u32 {
        let bits = 8 * self.size as u32;
        match self.kind {
            Kind::Unorm => {
                let max = ((1u64 << bits) - 1) as f32;
                (v as f32 / max).to_bits()
            }
            Kind::Sint if bits < 32 => {
                let shift = 32 - bits;
                (((v << shift) as i32) >> shift) as u32
            }
            _ => v,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unorm_ties_go_to_even() {
        // f * (2^n - 1) = k + 1/2 with f an f32 in [0, 1] needs 2^n - 1
        // to divide 2k + 1, so 0.5 is the only exact tie, and its floor is
        // odd: to even and away from zero agree for every input here.
        let unorm = |f: f32, bits| format::encode_channel(Kind::Unorm, bits, f.to_bits());
        assert_eq!(unorm(0.5, 8), 128);
        assert_eq!(unorm(0.5, 16), 32768);
        assert_eq!(unorm(-3.0, 8), 0);
        assert_eq!(unorm(7.0, 8), 255);
        assert_eq!(unorm(f32::NAN, 8), 0);
        // Not a tie: 0.2 * 255 = 51.000000759 rounds to 51.
        assert_eq!(unorm(0.2, 8), 51);
    }

    #[test]
    fn narrow_integers_clamp_and_widen() {
        let u8l = Layout::of(format::R8_UINT).expect("R8_UINT");
        let mut t = [0xEEu8; 1];
        u8l.pack(&mut t, [300, 9, 9, 9], 0b1);
        assert_eq!(t, [255]);
        // A negative value sent as a dword is a large unsigned one.
        u8l.pack(&mut t, [(-5i32) as u32, 0, 0, 0], 0b1);
        assert_eq!(t, [255]);
        assert_eq!(u8l.unpack(&[0x80]), [0x80, 0, 0, 1]);
    }

    #[test]
    fn blue_first_swaps_red_and_blue() {
        let l = Layout::of(format::B8G8R8A8_UNORM).expect("BGRA8");
        let mut t = [0u8; 4];
        // 51/255, 102/255, 153/255, 1.0 store exactly 51, 102, 153, 255.
        let rgba = [51.0f32, 102.0, 153.0, 255.0].map(|k| (k / 255.0).to_bits());
        l.pack(&mut t, rgba, 0xF);
        assert_eq!(t, [153, 102, 51, 255]);
        // A partial mask keeps the other bytes.
        l.pack(&mut t, [0, 0, 0, 0], 0b0100);
        assert_eq!(t, [0, 102, 51, 255]);
    }

    #[test]
    fn read_support_follows_the_generation() {
        use IsaGen::*;
        assert_eq!(readable(Gen7, format::R32_UINT), Ok(ReadKind::Convert));
        assert_eq!(readable(Gen7, format::R8_UINT), Ok(ReadKind::Dword));
        assert_eq!(readable(Gen75, format::R8_UINT), Ok(ReadKind::Convert));
        assert_eq!(
            readable(Gen75, format::R8G8B8A8_UINT),
            Ok(ReadKind::Convert)
        );
        assert!(readable(Gen7, format::R8G8B8A8_UINT).is_err());
        assert!(readable(Gen75, format::R8G8B8A8_UNORM).is_err());
        assert!(readable(Gen75, format::R32G32B32A32_FLOAT).is_err());
        assert!(writable(format::R32G32B32_FLOAT).is_err());
        assert!(atomic_ok(format::R32_FLOAT).is_err());
    }
}
