//! Condition modifiers: the signals of a result and the flag bits they set
//! (000 lines 9094-9168; 003 lines 92510-92690).

use baregpu_isa::inst::{CondMod, Type};

use super::Ctl;
use crate::eu::fp;
use crate::eu::thread::Thread;
use crate::eu::thread::layout::{FLAG_BASE, REG_BYTES};

/// Signals of one channel's result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Signals {
    pub zero: bool,
    pub sign: bool,
    /// NaN computed (NC); always false for integers.
    pub nan: bool,
    /// Overflow (OF): the result was outside the destination type's range.
    pub of: bool,
    /// Round increment (INC) of rndu/rnde/rndz (Gen4 `.r`).
    pub inc: bool,
}

/// The post signals of a destination value after saturation and
/// conversion (000 lines 9110-9124): sign and zero of the value in its own
/// type, NaN for floats.
pub fn post(raw: u64, ty: Type, of: bool, inc: bool) -> Signals {
    let (zero, sign, nan) = match ty {
        Type::F | Type::Vf => {
            let b = raw as u32;
            (b & 0x7FFF_FFFF == 0, b & 0x8000_0000 != 0, fp::is_nan32(b))
        }
        Type::Df => (
            raw & 0x7FFF_FFFF_FFFF_FFFF == 0,
            raw >> 63 != 0,
            fp::is_nan64(raw),
        ),
        t => {
            let v = fp::int_value(raw, t);
            (v == 0, v < 0, false)
        }
    };
    Signals {
        zero,
        sign,
        nan,
        of,
        inc,
    }
}

/// The flag value of a condition for an arithmetic result (000 lines
/// 9137-9148). NaN forces every comparison false except `.nz`.
pub fn cond(cm: CondMod, s: Signals) -> bool {
    let n = !s.nan;
    match cm {
        CondMod::None => false,
        CondMod::Z => s.zero && n,
        CondMod::Nz => !(s.zero && n),
        CondMod::G => !s.sign && !s.zero && n,
        CondMod::Ge => (!s.sign || s.zero) && n,
        CondMod::L => s.sign && !s.zero && n,
        CondMod::Le => (s.sign || s.zero) && n,
        CondMod::R => s.inc && !s.of,
        CondMod::O => s.of,
        CondMod::U => s.nan,
    }
}

impl Thread {
    /// Sets the flag bits of the channels enabled in `en` to the bits of
    /// `val` (bit `c` for channel `c`); other bits keep their value: the
    /// flag register has per-bit write enables (000 line 7794; 001 lines
    /// 2849-2852).
    pub(crate) fn write_flags(&mut self, ctl: &Ctl, en: u32, val: u32) {
        let off = FLAG_BASE + usize::from(ctl.flag_reg & 1) * REG_BYTES;
        let mut f = self.load32(off);
        let mut c = 0;
        while c < usize::from(ctl.exec) {
            if en >> c & 1 != 0 {
                let b = ctl.flag_bit(c);
                f = (f & !(1 << b)) | ((val >> c & 1) << b);
                if ctl.step == 2 {
                    // An Ivy Bridge DF element owns a channel pair.
                    let b2 = ctl.flag_bit(c + 1);
                    f = (f & !(1 << b2)) | ((val >> c & 1) << b2);
                }
            }
            c += usize::from(ctl.step.max(1));
        }
        self.store32(off, f);
    }
}
