//! Floating-point helpers: bit views, denormal flushing, the constants the manual names.

/// Largest finite single: the CLAMPED ops' and PRED_SET_CLR's MAX_FLOAT (002 line 5180).
pub const MAX_FLOAT: f32 = f32::MAX;
/// What an out-of-range relative constant read returns (002 lines 1348-1350).
pub const CONST_OOB: u32 = 0x7FFF_FFFF;
/// The propagated double NaN of the DP tables (002 line 3005).
pub const NAN64: u64 = 0xFFF8_0000_0000_0000;

pub fn f(bits: u32) -> f32 {
    f32::from_bits(bits)
}

pub fn b(v: f32) -> u32 {
    v.to_bits()
}

/// A denormal becomes zero of its sign.
pub fn flush(bits: u32, on: bool) -> u32 {
    if on && bits & 0x7F80_0000 == 0 {
        bits & 0x8000_0000
    } else {
        bits
    }
}

pub fn flush64(bits: u64) -> u64 {
    if bits & 0x7FF0_0000_0000_0000 == 0 {
        bits & 0x8000_0000_0000_0000
    } else {
        bits
    }
}

/// Output modifier (002 lines 1966-1980): 0 none, 1 x2, 2 x4, 3 /2.
pub fn omod(v: f32, m: u8) -> f32 {
    match m {
        1 => v * 2.0,
        2 => v * 4.0,
        3 => v * 0.5,
        _ => v,
    }
}

/// CLAMP to [0, 1]; NaN becomes 0 (the DX rule for saturate).
pub fn saturate(v: f32) -> f32 {
    if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }
}
