//! Xe-HPG operands: where each channel's element lives in the thread's
//! register array, reads and writes with their types, and the GRF
//! registers an instruction touched (for the SWSB check).
//!
//! Registers are 32 bytes on Xe-HPG as before (Mesa `REG_SIZE` for
//! verx10 125; 64-byte registers come with Xe-HPC/Xe2), so the thread's
//! flat array (`thread::layout`) holds them. The ARF codes are RegNum
//! bits 7:4 (`isa/src/xehpg/print.rs` arf_name, Mesa `brw_reg.h`
//! BRW_ARF_*): 0 null, 1 a0, 2 acc, 3 flags, 4 ce0, 7 sr0, 8 cr0, 9 n0,
//! A ip, B tdr0, C tm0.

use baregpu_isa::inst::{Addr, Dst, RegFile, RegSrc, Region, Src, Type, vf_to_f32_bits};

use crate::eu::error::ErrorKind;
use crate::eu::thread::Thread;
use crate::eu::thread::layout::{
    A0_BASE, ACC_BASE, ACC_REGS, CR0_BASE, FLAG_BASE, GRF_BASE, GRF_REGS, IP_BASE, N_BASE,
    NULL_BASE, REG_BYTES, SR0_BASE, TDR_BASE, TM_BASE,
};

/// Channels an instruction may have (SIMD32).
pub const MAX_CH: usize = 32;

/// GRF registers an instruction read and wrote, bit per register, and
/// within each register the bytes (bit per byte): IGC orders in-order
/// instructions by the bytes they touch, not whole registers (its DG2
/// payload prologue writes r127.0:uw and, one int instruction later, reads
/// r127.2:ud with `@2`; `async_work_group_copy` writes r5.6:hf and r5.7:hf
/// and reads r5.6:w with the wait reaching the first only), so the
/// in-order check compares bytes (SWSB_G4IR.cpp `hasOverlap`, LeftB and
/// RightB).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Touched {
    pub reads: u128,
    pub writes: u128,
    pub read_bytes: [u32; GRF_REGS],
    pub write_bytes: [u32; GRF_REGS],
}

impl Default for Touched {
    fn default() -> Self {
        Self {
            reads: 0,
            writes: 0,
            read_bytes: [0; GRF_REGS],
            write_bytes: [0; GRF_REGS],
        }
    }
}

impl Touched {
    fn mark(set: &mut u128, bytes: &mut [u32; GRF_REGS], off: usize, size: usize) {
        let end = off + size.max(1) - 1;
        if end < GRF_BASE + GRF_REGS * REG_BYTES {
            for b in off - GRF_BASE..=end - GRF_BASE {
                let r = b / REG_BYTES;
                *set |= 1u128 << r;
                bytes[r] |= 1 << (b % REG_BYTES);
            }
        }
    }

    pub fn read(&mut self, off: usize, size: usize) {
        Self::mark(&mut self.reads, &mut self.read_bytes, off, size)
    }

    pub fn write(&mut self, off: usize, size: usize) {
        Self::mark(&mut self.writes, &mut self.write_bytes, off, size)
    }

    /// Registers `first..first+n` read (a send payload).
    pub fn read_regs(&mut self, first: u8, n: u8) {
        for r in first..first.saturating_add(n) {
            if usize::from(r) < GRF_REGS {
                self.reads |= 1u128 << r;
                self.read_bytes[usize::from(r)] = u32::MAX;
            }
        }
    }

    pub fn write_regs(&mut self, first: u8, n: u8) {
        for r in first..first.saturating_add(n) {
            if usize::from(r) < GRF_REGS {
                self.writes |= 1u128 << r;
                self.write_bytes[usize::from(r)] = u32::MAX;
            }
        }
    }
}

/// Registers of `regs` where the bytes of `a` and `b` meet.
pub fn byte_overlap(regs: u128, a: &[u32; GRF_REGS], b: &[u32; GRF_REGS]) -> u128 {
    let mut m = regs;
    let mut out = 0;
    while m != 0 {
        let r = m.trailing_zeros() as usize;
        m &= m - 1;
        if a[r] & b[r] != 0 {
            out |= 1u128 << r;
        }
    }
    out
}

/// The bytes `[base, base+len)` of the flat array one register operand may
/// address: the GRF, or the registers of one ARF kind. `write`: the
/// destination (read-only ARFs are refused).
fn span(file: RegFile, nr: u8, write: bool) -> Result<(usize, usize, usize), ErrorKind> {
    let n = usize::from(nr & 0xF);
    let one = |base: usize, count: usize| -> Result<(usize, usize, usize), ErrorKind> {
        if n < count {
            Ok((base, count * REG_BYTES, n * REG_BYTES))
        } else {
            Err(ErrorKind::BadOperand("ARF register number beyond its kind"))
        }
    };
    match file {
        RegFile::Grf => Ok((GRF_BASE, GRF_REGS * REG_BYTES, usize::from(nr) * REG_BYTES)),
        RegFile::Mrf => Err(ErrorKind::BadOperand("Xe-HPG has no MRF")),
        RegFile::Imm => Err(ErrorKind::BadOperand("immediate as a register")),
        RegFile::Arf => match nr >> 4 {
            // Reads of null are zero; writes go nowhere (the caller skips).
            0 => Ok((NULL_BASE, 2 * REG_BYTES, 0)),
            1 => one(A0_BASE, 1),
            // Xe-HPG has acc0-acc7 (IGC splits a SIMD32 float product over
            // acc0-acc1 and acc2-acc3); acc8-acc15 are the madm/invm/rsqtm
            // math-macro registers mme0-mme7, which are not modelled
            // [ext: IGC visa/iga/IGALibrary/Models/Models.cpp
            // REGISTER_SPECIFICATIONS, ARF_ACC and ARF_MME for XE_HPG].
            2 if n < ACC_REGS => one(ACC_BASE, ACC_REGS),
            2 => Err(ErrorKind::BadOperand(
                "acc8-acc15 (math-macro registers mme0-mme7) are not modelled",
            )),
            // f0 and f1, 32 bits each (f0.0-f1.1).
            3 => one(FLAG_BASE, 2),
            // ce0: the channel enables; read-only (modelled as sr0.2's
            // dispatch mask image below).
            4 if !write => Ok((SR0_BASE + 8, 4, 0)),
            7 if !write => one(SR0_BASE, 1),
            7 => Err(ErrorKind::BadOperand("sr0 is read-only")),
            8 => one(CR0_BASE, 1),
            9 => one(N_BASE, 1),
            0xA if !write => one(IP_BASE, 1),
            0xB => one(TDR_BASE, 1),
            0xC if !write => one(TM_BASE, 1),
            _ => Err(ErrorKind::BadOperand("reserved or read-only ARF register")),
        },
    }
}

/// Whether an ARF operand is the null register.
pub fn is_null(file: RegFile, addr: &Addr) -> bool {
    file == RegFile::Arf && matches!(addr, Addr::Direct { nr, .. } if nr >> 4 == 0)
}

/// A planned source: per-channel byte offsets or immediate values.
#[derive(Clone, Debug)]
pub enum Plan {
    Offsets {
        ty: Type,
        off: [u32; MAX_CH],
        negate: bool,
        abs: bool,
    },
    Imm {
        ty: Type,
        vals: [u64; MAX_CH],
    },
}

impl Plan {
    pub fn ty(&self) -> Type {
        match self {
            Plan::Offsets { ty, .. } | Plan::Imm { ty, .. } => *ty,
        }
    }

    pub fn mods(&self) -> (bool, bool) {
        match self {
            Plan::Offsets { negate, abs, .. } => (*negate, *abs),
            Plan::Imm { .. } => (false, false),
        }
    }

    /// Raw bits of channel `c` (in the element's type).
    pub fn raw(&self, t: &Thread, c: usize) -> u64 {
        match self {
            Plan::Offsets { ty, off, .. } => t.load(off[c] as usize, usize::from(ty.size())),
            Plan::Imm { vals, .. } => vals[c],
        }
    }
}

/// An immediate expanded per channel: V/UV nibbles as words, VF bytes as
/// floats (004's immediate formats; Mesa brw_reg.h).
fn imm_plan(ty: Type, bits: u64, exec: usize) -> Plan {
    let mut vals = [0u64; MAX_CH];
    for (c, v) in vals.iter_mut().enumerate().take(exec) {
        *v = match ty {
            Type::V => {
                let n = (bits >> ((c % 8) * 4)) & 0xF;
                (((n as i64) << 60 >> 60) as u64) & 0xFFFF
            }
            Type::Uv => (bits >> ((c % 8) * 4)) & 0xF,
            Type::Vf => u64::from(vf_to_f32_bits(((bits >> ((c % 4) * 8)) & 0xFF) as u8)),
            Type::Ub | Type::B => bits & 0xFF,
            Type::Uw | Type::W | Type::Hf | Type::Bf => bits & 0xFFFF,
            Type::Ud | Type::D | Type::F => bits & 0xFFFF_FFFF,
            _ => bits,
        };
    }
    let ty = match ty {
        Type::V => Type::W,
        Type::Uv => Type::Uw,
        Type::Vf => Type::F,
        t => t,
    };
    Plan::Imm { ty, vals }
}

/// The byte address of a register operand's start, from a0 for indirect
/// ones (GRF only; a0.N holds a byte address in the GRF).
fn start(
    t: &Thread,
    file: RegFile,
    addr: &Addr,
    write: bool,
    row: usize,
) -> Result<(usize, usize, usize), ErrorKind> {
    match *addr {
        Addr::Direct { nr, subnr } => {
            let (base, len, at) = span(file, nr, write)?;
            Ok((base, len, at + usize::from(subnr)))
        }
        Addr::Indirect { addr_subnr, offset } => {
            if file != RegFile::Grf {
                return Err(ErrorKind::BadOperand("indirect addressing outside the GRF"));
            }
            let a = i32::from(t.a0((usize::from(addr_subnr) + row) & 15)) + i32::from(offset);
            if a < 0 || a as usize >= GRF_REGS * REG_BYTES {
                return Err(ErrorKind::IndirectOutOfRange { addr: a });
            }
            Ok((GRF_BASE, GRF_REGS * REG_BYTES, a as usize))
        }
    }
}

/// Plans a source of `exec` channels. `three`: a three-source operand,
/// whose region is `<V;H>` (src0, src1) or `<H>` (src2) with the width
/// implied: V/H, one when H is 0, the whole row when V is 0 (Mesa
/// brw_eu_emit.c brw_alu3 gfx12 region encoding; the decoder stores
/// width 1 and V 0 for src2).
pub fn src(
    t: &Thread,
    s: &Src,
    exec: usize,
    three: bool,
    touched: &mut Touched,
) -> Result<Plan, ErrorKind> {
    match s {
        Src::Imm(i) => Ok(imm_plan(i.ty, i.bits, exec)),
        Src::Vacant(_) => Err(ErrorKind::BadOperand("missing source")),
        Src::Reg(r) => reg_src(t, r, exec, three, touched),
    }
}

fn reg_src(
    t: &Thread,
    r: &RegSrc,
    exec: usize,
    three: bool,
    touched: &mut Touched,
) -> Result<Plan, ErrorKind> {
    let size = usize::from(r.ty.size());
    let mut off = [0u32; MAX_CH];
    let (vs, w, hs, per_row) = match r.region {
        Region::Align1 {
            vstride, hstride, ..
        } if three => {
            let (v, h) = (usize::from(vstride), usize::from(hstride));
            let w = if h == 0 {
                1
            } else if v == 0 {
                MAX_CH
            } else {
                (v / h).max(1)
            };
            (v, w, h, false)
        }
        Region::Align1 {
            vstride,
            width,
            hstride,
        } => (
            usize::from(vstride),
            usize::from(width.max(1)),
            usize::from(hstride),
            false,
        ),
        Region::VxH { width, hstride } => {
            (0, usize::from(width.max(1)), usize::from(hstride), true)
        }
        Region::Align16 { .. } => {
            return Err(ErrorKind::BadOperand("Align16 does not exist on Xe-HPG"));
        }
    };
    let mut first = None;
    for (c, o) in off.iter_mut().enumerate().take(exec) {
        let (row, col) = (c / w, c % w);
        let (base, len, at) = if per_row {
            start(t, r.file, &r.addr, false, row)?
        } else {
            match first {
                Some(f) => f,
                None => {
                    let f = start(t, r.file, &r.addr, false, 0)?;
                    first = Some(f);
                    f
                }
            }
        };
        let e = if per_row {
            at + col * hs * size
        } else {
            at + (row * vs + col * hs) * size
        };
        if e + size > len {
            return Err(ErrorKind::BadOperand(
                "source region leaves its register file",
            ));
        }
        if r.file == RegFile::Grf {
            touched.read(base + e, size);
        }
        *o = (base + e) as u32;
    }
    Ok(Plan::Offsets {
        ty: r.ty,
        off,
        negate: r.negate,
        abs: r.abs,
    })
}

/// A planned destination: per-channel offsets, or `None` for null.
pub fn dst(
    t: &Thread,
    d: &Dst,
    exec: usize,
    touched: &mut Touched,
) -> Result<Option<[u32; MAX_CH]>, ErrorKind> {
    if is_null(d.file, &d.addr) {
        return Ok(None);
    }
    let size = usize::from(d.ty.size());
    let hs = usize::from(d.hstride.max(1));
    let (base, len, at) = start(t, d.file, &d.addr, true, 0)?;
    let mut off = [0u32; MAX_CH];
    for (c, o) in off.iter_mut().enumerate().take(exec) {
        let e = at + c * hs * size;
        if e + size > len {
            return Err(ErrorKind::BadOperand(
                "destination region leaves its register file",
            ));
        }
        if d.file == RegFile::Grf {
            touched.write(base + e, size);
        }
        *o = (base + e) as u32;
    }
    Ok(Some(off))
}
