//! The accumulator's extra precision. The 32-bit view of acc0/acc1 lives
//! in the register image (what an explicit `acc0` operand reads); here are
//! the bits beyond it, per element, by execution type (000 lines 7736-7745
//! Table 11-9; 003 lines 90401-90431; 001 lines 2762-2812):
//! - D/UD: 64-bit two's complement per dword element (acc0 0-7, acc1 8-15);
//! - W/UW: 33-bit two's complement per word element (acc0 0-15, acc1 16-31);
//! - F: Gen4/G45 keep a 54-bit mantissa; we keep the exact f64 of the
//!   unrounded result (53 bits). Gen6+ store F at F precision.
//!
//! The storage (`thread::AccWide`) is thread state, so the thread does not
//! import this module; the semantics are here.

use crate::eu::thread::Thread;
use crate::eu::thread::layout::ACC_BASE;

/// Which view an accumulator element is written or read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AccView {
    /// Dword integer (64-bit extended).
    D,
    /// Word integer (33-bit extended).
    W,
}

impl AccView {
    /// Bytes each element occupies in the image.
    pub const fn size(self) -> usize {
        match self {
            AccView::W => 2,
            AccView::D => 4,
        }
    }

    /// Elements in acc0 + acc1.
    pub const fn slots(self) -> usize {
        64 / self.size()
    }
}

/// Wraps to 33 bits, sign-extended (the word accumulator's width).
const fn wrap33(v: i64) -> i64 {
    (v << 31) >> 31
}

impl Thread {
    /// Writes accumulator element `slot` with an integer value.
    pub(crate) fn acc_put_int(&mut self, view: AccView, slot: usize, v: i64) {
        let slot = slot % view.slots();
        let off = ACC_BASE + slot * view.size();
        match view {
            AccView::W => {
                self.acc.w[slot] = wrap33(v);
                self.store(off, 2, v as u64);
            }
            _ => {
                self.acc.d[slot % 16] = v;
                self.store(off, 4, v as u64);
            }
        }
    }

    /// Writes accumulator element `slot` with an F result: `bits` is the
    /// rounded F, `wide` the unrounded value Gen4/G45 keep.
    pub(crate) fn acc_put_f32(&mut self, slot: usize, bits: u32, wide: f64) {
        let slot = slot % 16;
        self.acc.f[slot] = wide;
        self.store32(ACC_BASE + slot * 4, bits);
    }

    /// Writes a Gen7 DF element: 4 of 8 bytes in acc0 (001 lines
    /// 2790-2795).
    pub(crate) fn acc_put_f64(&mut self, slot: usize, bits: u64) {
        let slot = slot % 8;
        self.store(ACC_BASE + slot * 8, 8, bits);
    }

    /// The integer value of accumulator element `slot`.
    pub(crate) fn acc_int(&self, view: AccView, slot: usize) -> i64 {
        let slot = slot % view.slots();
        match view {
            AccView::W => self.acc.w[slot],
            _ => self.acc.d[slot % 16],
        }
    }

    /// The F value of element `slot` as the implicit-source reader sees it:
    /// the extra-precision value on Gen4/G45, the stored F later.
    pub(crate) fn acc_f(&self, slot: usize, extended: bool) -> f64 {
        let slot = slot % 16;
        if extended {
            self.acc.f[slot]
        } else {
            f64::from(f32::from_bits(self.load32(ACC_BASE + slot * 4)))
        }
    }
}
