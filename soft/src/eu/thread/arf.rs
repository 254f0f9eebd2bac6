//! Architecture registers as instruction operands: what reading `ip` or
//! `tm0` returns, and what writing a0, cr0, sr0 or `ip` does beyond storing
//! bytes. The predecoder marks which instructions need these hooks, so
//! ordinary instructions pay nothing.

use baregpu_isa::IsaGen;

use super::layout::*;
use super::{FloatPath, Thread};
use crate::eu::fp::Rounding;

/// Which architecture registers an instruction explicitly reads or writes,
/// beyond plain storage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ArfUse {
    pub reads_ip: bool,
    pub reads_tm: bool,
    pub writes_a0: bool,
    pub writes_cr0: bool,
    pub writes_sr0: bool,
    pub writes_ip: bool,
}

impl ArfUse {
    pub const fn any_write(&self) -> bool {
        self.writes_a0 || self.writes_cr0 || self.writes_sr0 || self.writes_ip
    }
}

/// State saved before an instruction that writes special registers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ArfSaved {
    cr0: u32,
    sr0: [u32; 4],
}

impl Thread {
    /// a0.2-a0.7 hold only 12 bits: the high 4 bits are dropped on write
    /// and read back as zero (000 lines 7634-7675; 001 lines 2612-2618).
    pub(crate) fn mask_a0(&mut self) {
        for i in 2..8 {
            let v = self.load(A0_BASE + i * 2, 2) & 0x0FFF;
            self.store(A0_BASE + i * 2, 2, v);
        }
    }

    /// Re-reads the cached controls from cr0.0.
    pub(crate) fn refresh_cr0(&mut self) {
        let c = self.cr0(0);
        let p = self.platform;
        self.fp.alt = c & 1 != 0;
        self.fp.acc_disable = c & 2 != 0;
        self.fp.spf = c & 4 != 0;
        // VME exists from Gen6 (003 lines 90801-90806).
        self.fp.vme = p >= IsaGen::Gen6 && c & 8 != 0;
        self.fp.rounding = match p {
            IsaGen::Gen4 | IsaGen::G45 => Rounding::TowardZero,
            IsaGen::Gen6 => Rounding::NearestEven,
            // Gen12.5 threads run in `eu::xe`, which reads cr0 itself.
            IsaGen::Gen7 | IsaGen::Gen75 | IsaGen::Gen12_5 => match (c >> 4) & 3 {
                0 => Rounding::NearestEven,
                1 => Rounding::Up,
                2 => Rounding::Down,
                _ => Rounding::TowardZero,
            },
        };
        self.fp.df_denorms = p >= IsaGen::Gen7 && c & 0x40 != 0;
        self.fp.path = match (self.fp.alt, self.fp.rounding) {
            (true, _) => FloatPath::Alt,
            (false, Rounding::NearestEven) => FloatPath::Nearest,
            (false, Rounding::TowardZero) => FloatPath::TowardZero,
            (false, _) => FloatPath::Directed,
        };
    }

    /// Puts the values an instruction may read into the `ip` and `tm0`
    /// images: `ip` reads as the address of the current instruction (000
    /// lines 8200-8228); tm0 counts executed instructions (001 lines
    /// 3842-3959 define a free-running counter; its rate is ours).
    pub(crate) fn sync_arf_reads(&mut self, u: ArfUse, ip: u32) {
        if u.reads_ip {
            self.store32(IP_BASE, ip);
        }
        if u.reads_tm {
            self.store32(TM_BASE, self.executed as u32);
            self.store32(TM_BASE + 4, (self.executed >> 32) as u32);
        }
    }

    pub(crate) fn save_arf(&mut self, ip: u32) -> ArfSaved {
        self.store32(IP_BASE, ip);
        ArfSaved {
            cr0: self.cr0(0),
            sr0: [self.sr0(0), self.sr0(1), self.sr0(2), self.sr0(3)],
        }
    }

    /// Applies the side effects of writes to special registers. Returns the
    /// new IP when `ip` was written.
    pub(crate) fn finish_arf_writes(&mut self, u: ArfUse, saved: &ArfSaved) -> Option<u32> {
        if u.writes_a0 {
            self.mask_a0();
        }
        if u.writes_sr0 {
            // sr0 is read-only to the thread (000 lines 8016-8036; 003
            // lines 90522-90523): drop the write.
            for (i, v) in saved.sr0.iter().enumerate() {
                self.store32(SR0_BASE + i * 4, *v);
            }
        }
        let mut jump = None;
        if u.writes_cr0 {
            // cr0.0[31] Master Exception State: writing 1 has no effect;
            // writing 0 when it was 1 returns to AIP in cr0.2 (003 lines
            // 90737-90748; 001 lines 3188-3198).
            let new = self.cr0(0);
            let old_m = saved.cr0 & 0x8000_0000;
            let mut v = (new & 0x7FFF_FFFF) | old_m;
            if old_m != 0 && new & 0x8000_0000 == 0 {
                v &= 0x7FFF_FFFF;
                jump = Some(self.cr0(2) & !0xF);
            }
            self.store32(CR0_BASE, v);
            self.refresh_cr0();
        }
        if u.writes_ip {
            // A write is a jump (to the same instruction when the value is
            // unchanged); the low bits below the jump unit are not kept (000
            // lines 8200-8228, 14416-14445).
            let v = self.load32(IP_BASE);
            let unit = if self.platform <= IsaGen::G45 { 16 } else { 8 };
            jump = Some(v & !(unit - 1));
        }
        jump
    }
}
