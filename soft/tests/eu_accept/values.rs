//! Input values per type: the edge cases the acceptance names (NaN,
//! infinities, denormals, the ends of every integer range, values that
//! overflow or saturate, shift counts past the width) mixed with random
//! values.

use baregpu_isa::inst::Type;

/// A deterministic generator (xorshift64*), independent of the code under
/// test.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn u32(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// F bit patterns worth testing.
pub const F_EDGES: &[u32] = &[
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x3F80_0000, // 1
    0xBF80_0000, // -1
    0x7F80_0000, // +inf
    0xFF80_0000, // -inf
    0x7FC0_0000, // quiet NaN
    0xFFC0_1234, // negative NaN with payload
    0x7F80_0001, // signalling NaN
    0x0000_0001, // smallest denormal
    0x807F_FFFF, // largest negative denormal
    0x0080_0000, // smallest normal
    0x7F7F_FFFF, // largest finite
    0xFF7F_FFFF, // most negative finite
    0x3F00_0000, // 0.5
    0x3FC0_0000, // 1.5
    0x4020_0000, // 2.5
    0xC020_0000, // -2.5
    0xBF00_0000, // -0.5
    0x3EFF_FFFF, // just below 0.5
    0x4B80_0001, // 2^24 + 2
    0x4F80_0000, // 2^32
    0xCF00_0000, // -2^31
    0x4F00_0000, // 2^31
    0x477F_FF80, // 65535.5
    0x3F7F_FFFF, // just below 1
    0x2F80_0000, // 2^-32
    0x5F80_0000, // 2^64
];

/// DF bit patterns worth testing.
pub const DF_EDGES: &[u64] = &[
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x3FF0_0000_0000_0000,
    0xBFF0_0000_0000_0000,
    0x7FF0_0000_0000_0000,
    0xFFF0_0000_0000_0000,
    0x7FF8_0000_0000_0000,
    0x0000_0000_0000_0001, // DF denormal
    0x3FD5_5555_5555_5555, // 1/3: not an F
    0x47EF_FFFF_F000_0000, // beyond F max after rounding up
    0x7FEF_FFFF_FFFF_FFFF,
    0x3690_0000_0000_0000, // an F denormal's range
    0x4004_0000_0000_0000, // 2.5
    0xC1E0_0000_0000_0000, // -2^31
    0x41F0_0000_0000_0000, // 2^32
];

/// Integer bit patterns (the low bits of the type are used).
pub const INT_EDGES: &[u32] = &[
    0,
    1,
    2,
    0x7F,
    0x80,
    0xFF,
    0x7FFF,
    0x8000,
    0xFFFF,
    0x1_0000,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
    0xFFFF_FFFE,
    0x8000_0001,
    31,
    32,
    33,
    17,
    16,
    15,
];

/// Restricted-float (VF) bytes: zeros, the extremes of the 3-bit
/// exponent, ordinary values (000 lines 8229-8258).
pub const VF_EDGES: &[u8] = &[0x00, 0x80, 0x30, 0xB0, 0x7F, 0xFF, 0x01, 0x4C];

/// The bits of one element of `ty` (low `size` bytes used): an edge value
/// or a random one, as `pick` says.
pub fn element(ty: Type, rng: &mut Rng, pick: usize) -> u64 {
    let edge = pick % 3 != 2;
    match ty {
        Type::F => {
            if edge {
                u64::from(F_EDGES[rng.below(F_EDGES.len())])
            } else {
                u64::from(random_f(rng))
            }
        }
        Type::Df => {
            if edge {
                DF_EDGES[rng.below(DF_EDGES.len())]
            } else {
                let x = f64::from(f32::from_bits(random_f(rng))) * (1.0 + 1.0 / 3.0);
                x.to_bits()
            }
        }
        _ => {
            let v = if edge {
                INT_EDGES[rng.below(INT_EDGES.len())]
            } else {
                rng.u32()
            };
            // Keep the type's own bits: 0x80 is -128 as a B, 128 as a W.
            let mask = (1u64 << (8 * ty.size())) - 1;
            u64::from(v) & mask
        }
    }
}

/// A finite F of moderate magnitude with a fraction, or an extreme one.
pub fn random_f(rng: &mut Rng) -> u32 {
    loop {
        let b = match rng.below(4) {
            0 => rng.u32(),
            _ => {
                let e = 110 + rng.below(40) as u32;
                (rng.u32() & 0x807F_FFFF) | (e << 23)
            }
        };
        if f32::from_bits(b).is_finite() {
            return b;
        }
    }
}

/// The 32 bits of an immediate of `ty`: word immediates repeat their low
/// half (000 line 9776); vector immediates are random nibbles or bytes.
pub fn immediate(ty: Type, rng: &mut Rng, pick: usize) -> u64 {
    match ty {
        Type::W | Type::Uw => {
            let v = element(ty, rng, pick) & 0xFFFF;
            v | v << 16
        }
        Type::V | Type::Uv => u64::from(rng.u32()),
        Type::Vf => {
            let b: [u8; 4] = core::array::from_fn(|_| {
                if pick.is_multiple_of(2) {
                    VF_EDGES[rng.below(VF_EDGES.len())]
                } else {
                    (rng.u32() & 0xFF) as u8
                }
            });
            u64::from(u32::from_le_bytes(b))
        }
        _ => element(ty, rng, pick),
    }
}
