//! One flat byte array holds every register a thread can name, so that an
//! operand of any file is a byte offset and a region: GRF, then MRF, then
//! one 32-byte slot per architecture register. Each ARF kind that has
//! several registers (acc0/acc1, f0/f1) gets consecutive slots, so a region
//! that spans two registers behaves as it does in the GRF.

use baregpu_isa::IsaGen;
use baregpu_isa::inst::RegFile;
use baregpu_isa::tables::{self, ArfKind};

/// Bytes in one register (every file): 256 bits (000 lines 7474-7510).
pub const REG_BYTES: usize = 32;
/// GRF registers per thread: r0-r127 on every generation (000 lines
/// 7474-7510; 003 lines 89946-89962; 001 lines 2193-2252).
pub const GRF_REGS: usize = 128;

pub const GRF_BASE: usize = 0;
pub const MRF_BASE: usize = GRF_BASE + GRF_REGS * REG_BYTES;
/// Room for the largest MRF (Gen6: m0-m23, 003 lines 90004-90007).
pub const MRF_MAX: usize = 24;
const ARF_BASE: usize = MRF_BASE + MRF_MAX * REG_BYTES;

/// Reads of `null` come from here (kept zero; two registers so a region
/// that spans two registers stays inside).
pub const NULL_BASE: usize = ARF_BASE;
pub const A0_BASE: usize = NULL_BASE + 2 * REG_BYTES;
/// acc0, acc1, ...: two registers before Xe, eight on Xe-HPG.
pub const ACC_BASE: usize = A0_BASE + REG_BYTES;
/// Accumulator registers the widest generation has (Xe-HPG's acc0-acc7).
pub const ACC_REGS: usize = 8;
/// f0 then f1 (each 32 bits used).
pub const FLAG_BASE: usize = ACC_BASE + ACC_REGS * REG_BYTES;
/// Gen4/G45 mask0: AMask, IMask, LMask, CMask as words (000 lines 7815-7848).
pub const MASK_BASE: usize = FLAG_BASE + 2 * REG_BYTES;
/// Gen4/G45 ms0: IStack counters in bytes 0-15, LStack in 16-31.
pub const MS_BASE: usize = MASK_BASE + REG_BYTES;
/// Gen4/G45 msd0: IStack depth in bits 3:0, LStack depth in 19:16.
pub const MSD_BASE: usize = MS_BASE + REG_BYTES;
pub const SR0_BASE: usize = MSD_BASE + REG_BYTES;
pub const CR0_BASE: usize = SR0_BASE + REG_BYTES;
/// n0 (and Gen4's n1).
pub const N_BASE: usize = CR0_BASE + REG_BYTES;
pub const IP_BASE: usize = N_BASE + 2 * REG_BYTES;
pub const TDR_BASE: usize = IP_BASE + REG_BYTES;
pub const TM_BASE: usize = TDR_BASE + REG_BYTES;
/// Padding so a region starting in the last slot cannot leave the array.
const PAD: usize = 2 * REG_BYTES;
pub const FLAT_BYTES: usize = TM_BASE + REG_BYTES + PAD;

/// Where a register file starts and how many bytes it has, for direct and
/// indirect addressing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub base: usize,
    pub len: usize,
}

/// MRF registers of a platform: 16 on Gen4/G45 (000 lines 7511-7551), 24 on
/// Gen6 (003 lines 90004-90007), none on Gen7 (001 lines 2168-2192).
pub const fn mrf_regs(p: IsaGen) -> usize {
    match p {
        IsaGen::Gen4 | IsaGen::G45 => 16,
        IsaGen::Gen6 => 24,
        IsaGen::Gen7 | IsaGen::Gen75 | IsaGen::Gen12_5 => 0,
    }
}

/// The bytes of one register operand's file and register: GRF and MRF by
/// number; an ARF register by kind and instance. `None` for reserved
/// numbers. For the GRF and MRF the span is the whole file (regions may
/// cross registers); for an ARF it is the registers of that kind.
pub fn register_span(p: IsaGen, file: RegFile, nr: u8) -> Option<(Span, usize)> {
    let n = usize::from(nr);
    match file {
        RegFile::Grf => (n < GRF_REGS).then_some((
            Span {
                base: GRF_BASE,
                len: GRF_REGS * REG_BYTES,
            },
            n * REG_BYTES,
        )),
        RegFile::Mrf => (n < mrf_regs(p)).then_some((
            Span {
                base: MRF_BASE,
                len: mrf_regs(p) * REG_BYTES,
            },
            n * REG_BYTES,
        )),
        RegFile::Imm => None,
        RegFile::Arf => {
            let kind = tables::for_platform(p).arf_kind(nr)?;
            let inst = n & 0xF;
            let (base, count) = arf_slots(p, kind)?;
            // `null` reads come from two zero registers so a two-register
            // region of null stays inside.
            let regs = if kind == ArfKind::Null { 2 } else { count };
            (inst < count).then_some((
                Span {
                    base,
                    len: regs * REG_BYTES,
                },
                inst * REG_BYTES,
            ))
        }
    }
}

/// First slot and number of registers of an ARF kind on a platform.
fn arf_slots(p: IsaGen, kind: ArfKind) -> Option<(usize, usize)> {
    let gen7 = p >= IsaGen::Gen7;
    Some(match kind {
        ArfKind::Null => (NULL_BASE, 1),
        ArfKind::Address => (A0_BASE, 1),
        // acc0 and acc1 (000 lines 7676-7700; 001 lines 2664-2690).
        ArfKind::Accumulator => (ACC_BASE, 2),
        // f0 only before Gen7, f0 and f1 on Gen7 (001 lines 2852-2890).
        ArfKind::Flag => (FLAG_BASE, if gen7 { 2 } else { 1 }),
        ArfKind::Mask => (MASK_BASE, 1),
        ArfKind::MaskStack => (MS_BASE, 1),
        ArfKind::MaskStackDepth => (MSD_BASE, 1),
        ArfKind::State => (SR0_BASE, 1),
        ArfKind::Control => (CR0_BASE, 1),
        // n0 and n1 on Gen4 (000 lines 8142-8199); n0 only later (003 lines
        // 91011-91127).
        ArfKind::Notification => (N_BASE, if p <= IsaGen::G45 { 2 } else { 1 }),
        ArfKind::Ip => (IP_BASE, 1),
        ArfKind::ThreadDependency => (TDR_BASE, 1),
        ArfKind::Timestamp => (TM_BASE, 1),
    })
}
