//! Execution control: which channels an instruction runs on (execution
//! size, dispatch and flow masks, NoMask, predication, the Align16 write
//! mask), and how condition modifiers write flag bits.

pub mod acc;
pub mod flags;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{CondMod, PredCtrl};

use crate::eu::thread::Thread;
use crate::eu::thread::layout::{FLAG_BASE, MASK_BASE, REG_BYTES};

/// The execution type class an instruction computes in (000 lines
/// 8423-8434; 003 lines 91687-91709): any F source makes it F, else any
/// dword integer makes it D, else W. Gen7 adds DF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dom {
    F,
    Df,
    /// Integer, dword execution (64-bit accumulator elements).
    D,
    /// Integer, word execution (33-bit accumulator elements).
    W,
}

impl Dom {
    pub const fn is_int(self) -> bool {
        matches!(self, Dom::D | Dom::W)
    }
}

/// Per-instruction execution controls, resolved at predecode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ctl {
    /// Channels.
    pub exec: u8,
    /// Channels step: 2 for Ivy Bridge DF (a DF element per channel pair,
    /// 001 lines 660-663), else 1.
    pub step: u8,
    /// Bit of the dispatch/flow masks channel 0 uses: the first channel of
    /// the quarter/nibble on Gen6+ (003 lines 94636-94699), 8 for Gen4
    /// SecHalf (000 lines 8757-8760).
    pub mask_first: u8,
    /// Flag register (f0/f1) of predication and the condition modifier.
    pub flag_reg: u8,
    /// Flag bit of channel 0 (sub-register and channel group folded in).
    pub flag_first: u8,
    /// Flag bits wrap within 16 (one sub-register, Gen4-Gen6) or 32 (the
    /// whole register, Gen7: 001 lines 2862-2864).
    pub flag_wrap: u8,
    /// The 16-bit sub-register the flag bits are in (bit offset 0 or 16).
    pub flag_sub: u8,
    pub pred: PredCtrl,
    pub pred_inv: bool,
    pub cond: CondMod,
    pub sat: bool,
    pub no_mask: bool,
    /// Align16 destination write mask, repeated every 4 channels.
    pub wmask: u8,
    pub align16: bool,
    pub dom: Dom,
    /// The instruction writes the implicit accumulator (Gen4: arithmetic
    /// opcodes unless cr0.0[1], 000 lines 7699-7720; Gen6+: AccWrCtrl, 003
    /// lines 94489-94494).
    pub acc_write: bool,
    /// Accumulator element channel 0 uses (acc1 for Gen4 SecHalf, the
    /// quarter on Gen6+).
    pub acc_first: u8,
    /// A raw move: same source and destination type and nothing that
    /// manipulates the data, so denormals and NaN bits pass (000 lines
    /// 8586-8593).
    pub raw: bool,
}

impl Ctl {
    /// The enables of this instruction when the masks leave `on` (what
    /// [`Thread::channels_on`] returns) on: all channels with NoMask, else
    /// the instruction's channel group of `on`; then the Align16 write
    /// mask.
    #[inline(always)]
    pub(crate) fn enables_from(&self, p: IsaGen, on: u32) -> u32 {
        let all = self.all();
        let mut m = if self.no_mask {
            all
        } else if p <= IsaGen::G45 {
            (on >> self.mask_first) & all
        } else {
            on.rotate_right(u32::from(self.mask_first)) & all
        };
        if self.align16 && self.wmask & 0xF != 0xF {
            let mut w = 0u32;
            for c in 0..usize::from(self.exec) {
                if self.wmask >> (c % 4) & 1 != 0 {
                    w |= 1 << c;
                }
            }
            m &= w;
        }
        m
    }

    /// Mask of channels `0..exec`.
    pub const fn all(&self) -> u32 {
        if self.exec >= 32 {
            u32::MAX
        } else {
            (1u32 << self.exec) - 1
        }
    }

    /// Flag bit (0-31 within f`flag_reg`) of channel `c`.
    #[inline(always)]
    pub const fn flag_bit(&self, c: usize) -> u32 {
        let c = c as u32 + self.flag_first as u32;
        if self.flag_wrap == 16 {
            self.flag_sub as u32 + c % 16
        } else {
            c % 32
        }
    }
}

impl Thread {
    /// Channel enables without predication: execution size, the dispatch
    /// mask (or VMask) and the flow masks unless NoMask, the Align16 write
    /// mask. Bit `c` is channel `c`.
    pub(crate) fn enables(&self, ctl: &Ctl, ip: u32) -> u32 {
        let _ = ip;
        ctl.enables_from(self.platform, self.channels_on())
    }

    /// The channels the masks leave on, before the instruction's channel
    /// group is applied: on Gen4/G45 EMask = AMask & IMask & LMask & CMask
    /// (000 lines 10705-10737); on Gen6+ DMask or VMask (cr0.0[3]) without
    /// the channels parked at another IP (PcIP != IP, 003 lines
    /// 96514-96562).
    #[inline(always)]
    pub(crate) fn channels_on(&self) -> u32 {
        if self.platform <= IsaGen::G45 {
            let w = |i: usize| self.load(MASK_BASE + i * 2, 2) as u32;
            w(0) & w(1) & w(2) & w(3)
        } else {
            let dm = if self.fp.vme {
                self.sr0(3)
            } else {
                self.sr0(2)
            };
            dm & !self.parked
        }
    }

    /// The flag register `reg` (32 bits: sub-register .0 low).
    #[inline(always)]
    pub(crate) fn flag_reg(&self, reg: u8) -> u32 {
        self.load32(FLAG_BASE + usize::from(reg & 1) * REG_BYTES)
    }

    /// The predicate mask (all ones without predication), bit `c` for
    /// channel `c` (000 lines 8608-8717; 003 lines 91910-92058).
    pub(crate) fn pmask(&self, ctl: &Ctl) -> u32 {
        if ctl.pred == PredCtrl::None {
            return u32::MAX;
        }
        let f = self.flag_reg(ctl.flag_reg);
        let bit = |b: u32| f >> (b % 32) & 1 != 0;
        let mut m = 0u32;
        for c in 0..usize::from(ctl.exec) {
            let b = ctl.flag_bit(c);
            let v = match ctl.pred {
                PredCtrl::None | PredCtrl::Normal => bit(b),
                PredCtrl::AnyV | PredCtrl::AllV => {
                    // Across sub-registers channel by channel: f0.0 with f0.1
                    // on Gen4-Gen6 (000 lines 8699-8713); f0.0 with f1.0 on
                    // Gen7 [ext: Mesa src/intel/compiler/brw_fs.cpp
                    // flags_read: vertical modes combine f0.0 and f1.0].
                    let lane = b % 16;
                    let (x, y) = if self.platform >= IsaGen::Gen7 {
                        let f1 = self.flag_reg(1);
                        (self.flag_reg(0) >> lane & 1 != 0, f1 >> lane & 1 != 0)
                    } else {
                        (f >> lane & 1 != 0, f >> (16 + lane) & 1 != 0)
                    };
                    if ctl.pred == PredCtrl::AnyV {
                        x || y
                    } else {
                        x && y
                    }
                }
                PredCtrl::X | PredCtrl::Y | PredCtrl::Z | PredCtrl::W => {
                    let k = match ctl.pred {
                        PredCtrl::X => 0,
                        PredCtrl::Y => 1,
                        PredCtrl::Z => 2,
                        _ => 3,
                    };
                    bit(b - b % 4 + k)
                }
                _ => {
                    let (g, any) = group(ctl.pred);
                    // Groups are aligned in flag-bit space, inside the
                    // sub-register (Gen4-6) or the register (Gen7).
                    let span = u32::from(ctl.flag_wrap);
                    let g = g.min(span);
                    let base = if span == 16 {
                        u32::from(ctl.flag_sub)
                    } else {
                        0
                    };
                    let start = base + ((b - base) / g) * g;
                    let mut acc = !any;
                    for i in 0..g {
                        if any {
                            acc |= bit(start + i);
                        } else {
                            acc &= bit(start + i);
                        }
                    }
                    acc
                }
            };
            if v != ctl.pred_inv {
                m |= 1 << c;
            }
        }
        m
    }
}

/// Group size and OR (true) / AND (false) of a horizontal predicate. The
/// printed pseudocode starts the AND from FALSE (000 line 8690), which
/// would make every `all` false: it must start from TRUE.
fn group(p: PredCtrl) -> (u32, bool) {
    match p {
        PredCtrl::Any2H => (2, true),
        PredCtrl::All2H => (2, false),
        PredCtrl::Any4H => (4, true),
        PredCtrl::All4H => (4, false),
        PredCtrl::Any8H => (8, true),
        PredCtrl::All8H => (8, false),
        PredCtrl::Any16H => (16, true),
        PredCtrl::All16H => (16, false),
        PredCtrl::Any32H => (32, true),
        PredCtrl::All32H => (32, false),
        _ => (1, true),
    }
}
