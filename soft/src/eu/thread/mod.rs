//! The architectural state of one EU thread: GRF, MRF, the architecture
//! registers, the accumulator's extra precision, the per-channel IPs of the
//! Gen6+ flow model, and the values derived from cr0 that every
//! instruction needs.

pub(crate) mod arf;
pub mod layout;
pub mod slot;

use alloc::boxed::Box;
use alloc::vec;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::RegFile;

use crate::eu::fp::Rounding;
use layout::*;

/// Float controls read from cr0.0 (000 lines 8074-8141; 003 lines
/// 90735-90870; 001 lines 3150-3300), cached because every float
/// instruction needs them. Refreshed whenever cr0 is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FpCtl {
    /// cr0.0[0]: ALT floating-point mode.
    pub alt: bool,
    /// cr0.0[1]: implicit accumulator updates disabled.
    pub acc_disable: bool,
    /// cr0.0[2]: single program flow.
    pub spf: bool,
    /// cr0.0[3] (Gen6+): VMask instead of DMask.
    pub vme: bool,
    /// Rounding of float arithmetic: round toward zero on Gen4/G45 (000
    /// lines 7007-7011), round to nearest even on Gen6 (003 lines
    /// 89214-89219), cr0.0[5:4] on Gen7 (001 lines 3251-3260).
    pub rounding: Rounding,
    /// cr0.0[6] (Gen7): keep DF denormals (001 lines 3240-3250).
    pub df_denorms: bool,
    /// `alt` and `rounding` as the ALU fast paths dispatch on them.
    pub path: FloatPath,
}

/// Which lane loops float arithmetic takes, from the ALT mode and the
/// rounding mode (one byte to test per instruction).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FloatPath {
    /// IEEE mode, round to nearest even (Gen6; Gen7 by default).
    Nearest,
    /// IEEE mode, round toward zero (Gen4/G45; Gen7 by cr0.0[5:4]).
    TowardZero,
    /// IEEE mode, round up or down (Gen7 by cr0.0[5:4]).
    Directed,
    /// ALT mode: the generic path.
    Alt,
}

/// The accumulator's bits beyond its 32-bit image, per element and view
/// (what they mean and how instructions use them: `exec::acc`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AccWide {
    pub d: [i64; 16],
    pub w: [i64; 32],
    pub f: [f64; 16],
}

impl Default for AccWide {
    fn default() -> Self {
        AccWide {
            d: [0; 16],
            w: [0; 32],
            f: [0.0; 16],
        }
    }
}

/// One EU thread.
pub struct Thread {
    pub(crate) platform: IsaGen,
    /// Every register, laid out as in [`layout`].
    pub(crate) regs: Box<[u8]>,
    /// Extra accumulator precision beyond the 32-bit image in `regs`.
    pub(crate) acc: AccWide,
    /// Address of the next instruction, in bytes from the kernel start.
    pub(crate) ip: u32,
    /// Gen6+ per-channel instruction pointers (003 lines 96514-96562): a
    /// channel takes part in an instruction when its PcIP equals the IP.
    /// Channels that follow the IP are not stored: only the channels in
    /// `parked` (sent ahead by a branch) have a PcIP of their own, and they
    /// rejoin when the IP reaches it.
    pub(crate) pcip: [u32; 32],
    pub(crate) parked: u32,
    /// Gen7+ channels a `break` parked at its UIP, the loop's `while`
    /// (Mesa brw_set_uip_jip: "Gen7 UIP points to WHILE"): that `while`
    /// does not take them back into the loop; they go on after it when
    /// the loop ends (see `flow::gen6`).
    pub(crate) broken: u32,
    /// Gen6+ CallMask: the channels inside the current subroutine (003
    /// lines 97037-97149).
    pub(crate) call_mask: u32,
    /// Index in the program of the operation expected at `ip` (saves the
    /// lookup on straight-line code; checked before use).
    pub(crate) hint: usize,
    pub(crate) fp: FpCtl,
    /// Instructions executed so far (the timestamp counts them).
    pub(crate) executed: u64,
    /// Set by an EOT send or a Gen6+ halt of every channel.
    pub(crate) ended: bool,
}

impl Thread {
    /// A thread in its dispatch state: registers zero, every channel of the
    /// dispatch mask enabled, IEEE float mode, IP 0.
    pub fn new(platform: IsaGen) -> Thread {
        let mut t = Thread {
            platform,
            regs: vec![0u8; FLAT_BYTES].into_boxed_slice(),
            acc: AccWide::default(),
            ip: 0,
            pcip: [0; 32],
            parked: 0,
            broken: 0,
            call_mask: 0,
            hint: usize::MAX,
            fp: FpCtl {
                alt: false,
                acc_disable: false,
                spf: false,
                vme: false,
                rounding: Rounding::NearestEven,
                df_denorms: false,
                path: FloatPath::Nearest,
            },
            executed: 0,
            ended: false,
        };
        t.set_dispatch_mask(u32::MAX);
        t.refresh_cr0();
        t
    }

    pub fn platform(&self) -> IsaGen {
        self.platform
    }

    /// Address of the next instruction, in bytes from the kernel start.
    pub fn ip(&self) -> u32 {
        self.ip
    }

    /// Moves the thread (and, on Gen6+, every channel) to `ip`.
    pub fn set_ip(&mut self, ip: u32) {
        self.ip = ip;
        self.pcip = [ip; 32];
        self.parked = 0;
        self.broken = 0;
        self.hint = usize::MAX;
    }

    /// Whether the thread has ended (EOT).
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Instructions executed since the thread was created.
    pub fn executed(&self) -> u64 {
        self.executed
    }

    /// The 4096 bytes of r0-r127.
    pub fn grf(&self) -> &[u8] {
        &self.regs[GRF_BASE..MRF_BASE]
    }

    pub fn grf_mut(&mut self) -> &mut [u8] {
        &mut self.regs[GRF_BASE..MRF_BASE]
    }

    /// The message registers of this platform (empty on Gen7).
    pub fn mrf(&self) -> &[u8] {
        &self.regs[MRF_BASE..MRF_BASE + mrf_regs(self.platform) * REG_BYTES]
    }

    pub fn mrf_mut(&mut self) -> &mut [u8] {
        let n = mrf_regs(self.platform) * REG_BYTES;
        &mut self.regs[MRF_BASE..MRF_BASE + n]
    }

    /// The 32 bytes of one register (`None` for a reserved number).
    pub fn register(&self, file: RegFile, nr: u8) -> Option<&[u8]> {
        let (span, at) = register_span(self.platform, file, nr)?;
        let start = span.base + at;
        self.regs.get(start..start + REG_BYTES)
    }

    /// Dword `i` (0-7) of GRF register `reg` (indices wrap into r0-r127).
    pub fn grf_ud(&self, reg: u8, i: usize) -> u32 {
        self.load32(grf_off(reg, i * 4))
    }

    pub fn set_grf_ud(&mut self, reg: u8, i: usize, v: u32) {
        self.store32(grf_off(reg, i * 4), v)
    }

    pub fn grf_f(&self, reg: u8, i: usize) -> f32 {
        f32::from_bits(self.grf_ud(reg, i))
    }

    pub fn set_grf_f(&mut self, reg: u8, i: usize, v: f32) {
        self.set_grf_ud(reg, i, v.to_bits())
    }

    /// Word `i` (0-15) of GRF register `reg`.
    pub fn grf_uw(&self, reg: u8, i: usize) -> u16 {
        self.load(grf_off(reg, i * 2), 2) as u16
    }

    pub fn set_grf_uw(&mut self, reg: u8, i: usize, v: u16) {
        self.store(grf_off(reg, i * 2), 2, u64::from(v))
    }

    /// Flag register `reg` (f0 or, on Gen7, f1) as 32 bits: f*.0 low.
    pub fn flag(&self, reg: u8) -> u32 {
        self.load32(FLAG_BASE + usize::from(reg & 1) * REG_BYTES)
    }

    pub fn set_flag(&mut self, reg: u8, v: u32) {
        self.store32(FLAG_BASE + usize::from(reg & 1) * REG_BYTES, v)
    }

    /// Address sub-register a0.`i` (0-15: a0 is 32 bytes of 16-bit
    /// sub-registers, IGC visa/iga/IGALibrary/Models/Models.cpp ARF_A up to
    /// XE3; IGC's SIMD16 VxH region `r[a0.0]<1,0>` on DG2 reads a0.0-a0.15,
    /// the Gen4-7 paths use a0.0-a0.7).
    pub fn a0(&self, i: usize) -> u16 {
        self.load(A0_BASE + (i & 15) * 2, 2) as u16
    }

    pub fn set_a0(&mut self, i: usize, v: u16) {
        self.store(A0_BASE + (i & 7) * 2, 2, u64::from(v));
        self.mask_a0();
    }

    /// cr0.`i` (0-3).
    pub fn cr0(&self, i: usize) -> u32 {
        self.load32(CR0_BASE + (i & 3) * 4)
    }

    /// Sets cr0.`i` as the dispatcher does (no exception side effects).
    pub fn set_cr0(&mut self, i: usize, v: u32) {
        self.store32(CR0_BASE + (i & 3) * 4, v);
        self.refresh_cr0();
    }

    /// sr0.`i` (0-3).
    pub fn sr0(&self, i: usize) -> u32 {
        self.load32(SR0_BASE + (i & 3) * 4)
    }

    /// Sets sr0.`i` as the dispatcher does (sr0 is read-only to the thread).
    pub fn set_sr0(&mut self, i: usize, v: u32) {
        self.store32(SR0_BASE + (i & 3) * 4, v)
    }

    /// The dispatch mask: `sr0.1[15:0]` on Gen4/G45 (000 lines 8016-8036),
    /// sr0.2 on Gen6+ (003 line 90641).
    pub fn dispatch_mask(&self) -> u32 {
        if self.platform <= IsaGen::G45 {
            self.sr0(1) & 0xFFFF
        } else {
            self.sr0(2)
        }
    }

    /// Sets the dispatch mask (and what the dispatcher derives from it: the
    /// Gen4 mask0 sub-registers, 000 line 7815; the Gen6+ VMask, the OR of
    /// each 4-channel group, 003 lines 90651-90653).
    pub fn set_dispatch_mask(&mut self, mask: u32) {
        if self.platform <= IsaGen::G45 {
            let m = mask & 0xFFFF;
            let sr1 = self.sr0(1) & !0xFFFF;
            self.set_sr0(1, sr1 | m);
            for i in 0..4 {
                self.store(MASK_BASE + i * 2, 2, u64::from(m));
            }
        } else {
            self.set_sr0(2, mask);
            let mut v = 0;
            for g in 0..8 {
                if mask >> (g * 4) & 0xF != 0 {
                    v |= 0xF << (g * 4);
                }
            }
            self.set_sr0(3, v);
        }
    }

    /// The 64 bytes of acc0 and acc1 as 32-bit values (the extra precision
    /// is not visible here).
    pub fn acc_image(&self) -> &[u8] {
        &self.regs[ACC_BASE..ACC_BASE + 2 * REG_BYTES]
    }

    // --- raw access to the flat array (offsets are always in range: every
    // caller derives them from layout constants or checked operand plans;
    // a bad offset reads 0 / writes nothing rather than panicking) ---

    #[inline(always)]
    pub(crate) fn load32(&self, off: usize) -> u32 {
        self.regs
            .get(off..off + 4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map_or(0, u32::from_le_bytes)
    }

    #[inline(always)]
    pub(crate) fn store32(&mut self, off: usize, v: u32) {
        if let Some(b) = self.regs.get_mut(off..off + 4) {
            b.copy_from_slice(&v.to_le_bytes());
        }
    }

    /// Little-endian value of `size` (1, 2, 4 or 8) bytes.
    #[inline(always)]
    pub(crate) fn load(&self, off: usize, size: usize) -> u64 {
        let r = &self.regs;
        match size {
            4 => r
                .get(off..off + 4)
                .and_then(|b| <[u8; 4]>::try_from(b).ok())
                .map_or(0, |b| u64::from(u32::from_le_bytes(b))),
            2 => r
                .get(off..off + 2)
                .and_then(|b| <[u8; 2]>::try_from(b).ok())
                .map_or(0, |b| u64::from(u16::from_le_bytes(b))),
            1 => r.get(off).map_or(0, |b| u64::from(*b)),
            _ => r
                .get(off..off + 8)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .map_or(0, u64::from_le_bytes),
        }
    }

    #[inline(always)]
    pub(crate) fn store(&mut self, off: usize, size: usize, v: u64) {
        if let Some(b) = self.regs.get_mut(off..off + size) {
            b.copy_from_slice(&v.to_le_bytes()[..size]);
        }
    }
}

/// Byte offset of byte `byte` of GRF register `reg` in the flat array.
fn grf_off(reg: u8, byte: usize) -> usize {
    GRF_BASE + (usize::from(reg) % GRF_REGS) * REG_BYTES + (byte % REG_BYTES)
}
