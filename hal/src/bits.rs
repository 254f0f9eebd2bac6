//! Bit-field access over dword slices, shared by generated code, the
//! decoder and tools.

/// Reads `width` (1-64) bits starting at absolute bit `start`; dwords past
/// the end of the slice read as zero.
#[inline]
pub fn get(dwords: &[u32], start: u32, width: u32) -> u64 {
    let mut value = 0u64;
    let mut done = 0;
    while done < width {
        let bit = start + done;
        let dw = dwords.get((bit / 32) as usize).copied().unwrap_or(0);
        let shift = bit % 32;
        let take = (32 - shift).min(width - done);
        let chunk = (dw >> shift) as u64 & ((1u64 << take) - 1);
        value |= chunk << done;
        done += take;
    }
    value
}

/// Writes the low `width` bits of `value` at absolute bit `start`; bits
/// past the end of the slice are dropped.
#[inline]
pub fn put(dwords: &mut [u32], start: u32, width: u32, value: u64) {
    let mut done = 0;
    while done < width {
        let bit = start + done;
        let shift = bit % 32;
        let take = (32 - shift).min(width - done);
        let mask = (((1u64 << take) - 1) as u32) << shift;
        if let Some(dw) = dwords.get_mut((bit / 32) as usize) {
            *dw = (*dw & !mask) | ((((value >> done) as u32) << shift) & mask);
        }
        done += take;
    }
}

/// Sign-extends the low `width` bits of `raw`.
#[inline]
pub const fn sign_extend(raw: u64, width: u32) -> i64 {
    if width >= 64 {
        raw as i64
    } else {
        let s = 64 - width;
        ((raw << s) as i64) >> s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_and_put_across_dwords() {
        let mut d = [0u32; 3];
        put(&mut d, 34, 46, 0x3fff_1234_5678);
        assert_eq!(get(&d, 34, 46), 0x3fff_1234_5678);
        assert_eq!(d[0], 0);
        assert_eq!(d[1], (0x3fff_1234_5678u64 << 2) as u32);
        put(&mut d, 0, 32, 0xffff_ffff);
        assert_eq!(get(&d, 0, 64), 0xffff_ffff | (d[1] as u64) << 32);
        assert_eq!(get(&d, 90, 10), 0, "past the end reads zero");
        put(&mut d, 90, 10, 0x3ff); // dropped past the end, no panic
        assert_eq!(sign_extend(0x1f, 5), -1);
        assert_eq!(sign_extend(0x0f, 5), 15);
    }
}
