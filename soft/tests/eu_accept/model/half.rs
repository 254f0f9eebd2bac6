//! IEEE half precision (1 sign, 5 exponent, 10 fraction bits) for the
//! Ivy Bridge f32to16/f16to32 instructions (001 line 665), computed on
//! the host with integer arithmetic.

/// F to half, rounded to nearest even; infinities and NaN keep their class,
/// overflow gives infinity, tiny values round through the half denormals.
pub fn f32_to_f16(b: u32) -> u16 {
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xFF) as i32;
    let frac = b & 0x7F_FFFF;
    if exp == 0xFF {
        return sign | 0x7C00 | if frac != 0 { 0x200 } else { 0 };
    }
    if exp == 0 {
        // F denormals are below half's smallest denormal (2^-24).
        return sign;
    }
    // Value = m * 2^(exp - 150), m with 24 bits.
    let m = u64::from(frac | 0x80_0000);
    let e = exp - 150;
    // Half ulp at this magnitude: 2^(max(unbiased, -14) - 10).
    let unbiased = exp - 127;
    let q = unbiased.max(-14) - 10;
    let shift = q - e; // how many bits of m fall below the half ulp
    let units = if shift <= 0 {
        m << (-shift) as u32
    } else if shift >= 64 {
        0
    } else {
        let s = shift as u32;
        let whole = m >> s;
        let rem = m & ((1 << s) - 1);
        let half = 1u64 << (s - 1);
        if rem > half || (rem == half && whole & 1 == 1) {
            whole + 1
        } else {
            whole
        }
    };
    // units * 2^q: encode (units may carry into the next binade).
    let (mut ue, mut um) = (q + 10, units);
    if um == 0 {
        return sign;
    }
    while um >= 1 << 11 {
        um >>= 1;
        ue += 1;
    }
    if ue > 15 {
        return sign | 0x7C00;
    }
    if um < 1 << 10 {
        // Denormal half: exponent field 0, units of 2^-24.
        return sign | um as u16;
    }
    sign | (((ue + 15) as u16) << 10) | (um as u16 & 0x3FF)
}

/// Half to F, exact (half denormals are normal F numbers).
pub fn f16_to_f32(h: u16) -> u32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from((h >> 10) & 0x1F);
    let frac = u32::from(h & 0x3FF);
    match exp {
        0 => {
            let v = frac as f32 * f32::powi(2.0, -24);
            sign | v.to_bits()
        }
        0x1F => sign | 0x7F80_0000 | frac << 13,
        _ => sign | ((exp + 112) << 23) | frac << 13,
    }
}
