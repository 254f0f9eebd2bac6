//! Register-indirect addressing (000 lines 8353-8411; 003 lines
//! 90203-90295): the origin is an address sub-register plus a signed byte
//! offset; in Vx1/VxH mode each row of `width` elements has its own address
//! sub-register.

use super::{Indirect, MAX_CH};
use crate::eu::error::ErrorKind;
use crate::eu::thread::Thread;
use crate::eu::thread::layout::A0_BASE;

/// Flat offsets of the elements of `n` channels. `size` is the bytes each
/// access touches, `esize` the element size of the region formula. A
/// channel whose address leaves the register file is an error when it is
/// enabled in `en`; a disabled one reads from the start of the file.
pub fn offsets(
    t: &Thread,
    ind: &Indirect,
    n: usize,
    esize: usize,
    size: usize,
    en: u32,
) -> Result<[u16; MAX_CH], ErrorKind> {
    let a0 = |i: usize| -> i32 { t.load(A0_BASE + (i & 7) * 2, 2) as i32 };
    let sub = usize::from(ind.addr_subnr);
    let w = usize::from(ind.width.max(1));
    let mut out = [0u16; MAX_CH];
    for (c, o) in out.iter_mut().enumerate().take(n) {
        let (row, col) = (c / w, c % w);
        let addr = if ind.per_row {
            a0(sub + row) + i32::from(ind.imm) + (col * usize::from(ind.hstride) * esize) as i32
        } else if let Some(swz) = ind.swizzle {
            let comp = (usize::from(swz) >> ((c % 4) * 2)) & 3;
            a0(sub)
                + i32::from(ind.imm)
                + ((c / 4) * usize::from(ind.vstride) * esize + comp * esize) as i32
        } else {
            a0(sub)
                + i32::from(ind.imm)
                + (row * usize::from(ind.vstride) * esize + col * usize::from(ind.hstride) * esize)
                    as i32
        };
        let ok = addr >= 0 && (addr as usize) + size <= ind.span.len;
        *o = if ok {
            (ind.span.base + addr as usize) as u16
        } else if en & (1 << c) != 0 {
            return Err(ErrorKind::IndirectOutOfRange { addr });
        } else {
            ind.span.base as u16
        };
    }
    Ok(out)
}
