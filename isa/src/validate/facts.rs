//! Facts several rule families need: which operands an instruction reads,
//! element sizes, the execution type, the byte address of every channel of
//! an operand, and operand text for messages.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use super::Operand;
use crate::generation::IsaGen;
use crate::inst::{
    AccessMode, Addr, Body, Compression, Dst, GroupCtrl, Instruction, MathFn, Opcode, RegFile,
    RegSrc, Region, Src, Type, arf,
};
use crate::tables::{self, ArfKind};

/// Bytes in one GRF/MRF register.
pub const REG_BYTES: u32 = 32;

/// Gen4 and G45 (ComprCtrl, mask stacks, MRF payloads with implied move).
pub fn gen4(p: IsaGen) -> bool {
    p < IsaGen::Gen6
}

/// Instructions whose operands are ordinary data operands (the others keep
/// IP, notification, mask-stack or jump operands: see `opcode.rs` and
/// `flow.rs`).
pub fn is_data_op(op: Opcode) -> bool {
    !matches!(
        op,
        Opcode::Jmpi
            | Opcode::Wait
            | Opcode::Call
            | Opcode::Calla
            | Opcode::Ret
            | Opcode::Msave
            | Opcode::Mrest
            | Opcode::Push
            | Opcode::Pop
            | Opcode::Do
            | Opcode::Nop
            | Opcode::Nenop
            | Opcode::Illegal
    )
}

/// Number of sources a Gen6+ math function reads (003 lines 99259-99298).
pub fn math_srcs(f: MathFn) -> usize {
    match f {
        MathFn::Fdiv
        | MathFn::Pow
        | MathFn::IntDivQuotient
        | MathFn::IntDivRemainder
        | MathFn::IntDivQuotientRemainder => 2,
        _ => 1,
    }
}

/// INT DIV functions.
pub fn is_int_div(f: MathFn) -> bool {
    matches!(
        f,
        MathFn::IntDivQuotient | MathFn::IntDivRemainder | MathFn::IntDivQuotientRemainder
    )
}

/// The data operands of an instruction that follow the general rules.
pub struct Operands<'a> {
    pub dst: Option<&'a Dst>,
    pub srcs: Vec<(Operand, &'a Src)>,
}

const SLOTS: [Operand; 3] = [Operand::Src0, Operand::Src1, Operand::Src2];

/// The destination and the sources the instruction reads: ALU data
/// instructions (source count from the opcode table), math (by function)
/// and three-source. Send and branches have their own operand rules.
pub fn operands<'a>(p: IsaGen, inst: &'a Instruction) -> Operands<'a> {
    let mut o = Operands {
        dst: None,
        srcs: Vec::new(),
    };
    match &inst.body {
        Body::Alu(a) if is_data_op(inst.opcode) => {
            let n = tables::for_platform(p)
                .opcode_info(inst.opcode)
                .map_or(2, |i| usize::from(i.srcs).min(2));
            o.dst = Some(&a.dst);
            for (slot, s) in SLOTS.iter().zip([&a.src0, &a.src1]).take(n) {
                o.srcs.push((*slot, s));
            }
        }
        Body::Math(m) => {
            o.dst = Some(&m.dst);
            let n = math_srcs(m.function);
            for (slot, s) in SLOTS.iter().zip([&m.src0, &m.src1]).take(n) {
                o.srcs.push((*slot, s));
            }
        }
        Body::ThreeSrc(t) => {
            o.dst = Some(&t.dst);
            for (slot, s) in SLOTS.iter().zip(t.src.iter()) {
                o.srcs.push((*slot, s));
            }
        }
        _ => {}
    }
    o
}

/// The type of a source slot, if it has one.
pub fn src_type(s: &Src) -> Option<Type> {
    match s {
        Src::Reg(r) => Some(r.ty),
        Src::Imm(i) => Some(i.ty),
        Src::Vacant(_) => None,
    }
}

/// Bytes per element as the region hardware counts them: an Ivy Bridge DF
/// operand uses 4-byte elements with doubled region parameters (001 lines
/// 660-663); Haswell uses 8 [ext: Mesa brw_eu_validate.c halves DF regions
/// only for verx10 == 70].
pub fn elem_size(p: IsaGen, ty: Type) -> u32 {
    if ty == Type::Df && p == IsaGen::Gen7 {
        4
    } else {
        u32::from(ty.size())
    }
}

/// The execution type of the sources (000 lines 8423-8434; 003 lines
/// 91687-91709): any float gives F (DF if any DF), else any dword gives D,
/// else W (bytes and word vectors execute as words).
pub fn exec_type(srcs: &[(Operand, &Src)]) -> Option<Type> {
    let tys: Vec<Type> = srcs.iter().filter_map(|(_, s)| src_type(s)).collect();
    if tys.is_empty() {
        return None;
    }
    Some(if tys.contains(&Type::Df) {
        Type::Df
    } else if tys.iter().any(|t| t.is_float()) {
        Type::F
    } else if tys.iter().any(|t| matches!(t, Type::D | Type::Ud)) {
        Type::D
    } else {
        Type::W
    })
}

/// The execution size each region rule sees: a Gen4 compressed
/// instruction runs as two native halves (000 lines 8744-8760).
pub fn region_exec(inst: &Instruction) -> u32 {
    let exec = u32::from(inst.exec_size);
    if inst.group == GroupCtrl::Compression(Compression::Compressed) {
        (exec / 2).max(1)
    } else {
        exec
    }
}

/// Whether the instruction is a Gen4 compressed one.
pub fn compressed(inst: &Instruction) -> bool {
    inst.group == GroupCtrl::Compression(Compression::Compressed)
}

/// Byte address (register * 32 + byte) of each channel's element of a
/// direct GRF/MRF/ARF source; `None` for indirect sources.
pub fn src_addrs(p: IsaGen, exec: u32, r: &RegSrc) -> Option<Vec<u32>> {
    let Addr::Direct { nr, subnr } = r.addr else {
        return None;
    };
    let base = u32::from(nr) * REG_BYTES + u32::from(subnr);
    let size = elem_size(p, r.ty);
    let mut out = Vec::with_capacity(exec as usize);
    match r.region {
        Region::Align1 {
            vstride,
            width,
            hstride,
        } => {
            let width = u32::from(width.max(1));
            for ch in 0..exec {
                let (row, col) = (ch / width, ch % width);
                out.push(base + (row * u32::from(vstride) + col * u32::from(hstride)) * size);
            }
        }
        Region::Align16 { vstride, swizzle } => {
            for ch in 0..exec {
                let comp = u32::from(swizzle.component((ch % 4) as u8));
                out.push(base + ((ch / 4) * u32::from(vstride) + comp) * size);
            }
        }
        Region::VxH { .. } => return None,
    }
    Some(out)
}

/// Byte address of each channel's element of a direct destination.
pub fn dst_addrs(p: IsaGen, exec: u32, d: &Dst, mode: AccessMode) -> Option<Vec<u32>> {
    let Addr::Direct { nr, subnr } = d.addr else {
        return None;
    };
    let base = u32::from(nr) * REG_BYTES + u32::from(subnr);
    let size = elem_size(p, d.ty);
    let stride = match mode {
        AccessMode::Align1 => u32::from(d.hstride),
        AccessMode::Align16 => 1,
    };
    Some((0..exec).map(|ch| base + ch * stride * size).collect())
}

/// First and last register an element list touches.
pub fn reg_range(addrs: &[u32], size: u32) -> Option<(u32, u32)> {
    let first = addrs.iter().min()? / REG_BYTES;
    let last = (addrs.iter().max()? + size.max(1) - 1) / REG_BYTES;
    Some((first, last))
}

/// Whether a source region is a replicated scalar (`<0;1,0>`, Align16
/// `<0>.xxxx`).
pub fn is_scalar(r: &RegSrc) -> bool {
    match r.region {
        Region::Align1 {
            vstride, hstride, ..
        } => vstride == 0 && hstride == 0,
        Region::Align16 { vstride, swizzle } => vstride == 0 && swizzle.0 == 0,
        Region::VxH { .. } => false,
    }
}

/// Whether a register operand is the null register.
pub fn is_null(file: RegFile, addr: Addr) -> bool {
    file == RegFile::Arf && matches!(addr, Addr::Direct { nr: arf::NULL, .. })
}

/// The ARF kind of a direct ARF operand.
pub fn arf_kind(p: IsaGen, file: RegFile, addr: Addr) -> Option<ArfKind> {
    match (file, addr) {
        (RegFile::Arf, Addr::Direct { nr, .. }) => tables::for_platform(p).arf_kind(nr),
        _ => None,
    }
}

/// Whether a register operand is an accumulator.
pub fn is_acc(p: IsaGen, file: RegFile, addr: Addr) -> bool {
    arf_kind(p, file, addr) == Some(ArfKind::Accumulator)
}

/// The register part of an operand as assembly writes it: `r2.3`, `m1`,
/// `acc0`, `null`, `r[a0.2,32]`.
pub fn reg_text(p: IsaGen, file: RegFile, addr: Addr, ty: Type) -> String {
    let mut s = String::new();
    let size = u32::from(ty.size()).max(1);
    // Writing into a String cannot fail.
    let _ = match (file, addr) {
        (_, Addr::Indirect { addr_subnr, offset }) => {
            write!(s, "r[a0.{addr_subnr},{offset}]")
        }
        (RegFile::Arf, Addr::Direct { nr, subnr }) => {
            let n = nr & 0xF;
            let _ = match tables::for_platform(p).arf_kind(nr) {
                Some(ArfKind::Null) => write!(s, "null"),
                Some(ArfKind::Ip) => write!(s, "ip"),
                Some(ArfKind::Address) => write!(s, "a{n}"),
                Some(ArfKind::Accumulator) => write!(s, "acc{n}"),
                Some(ArfKind::Flag) => write!(s, "f{n}"),
                Some(ArfKind::Mask) => write!(s, "mask{n}"),
                Some(ArfKind::MaskStack) => write!(s, "ms{n}"),
                Some(ArfKind::MaskStackDepth) => write!(s, "msd{n}"),
                Some(ArfKind::State) => write!(s, "sr{n}"),
                Some(ArfKind::Control) => write!(s, "cr{n}"),
                Some(ArfKind::Notification) => write!(s, "n{n}"),
                Some(ArfKind::ThreadDependency) => write!(s, "tdr{n}"),
                Some(ArfKind::Timestamp) => write!(s, "tm{n}"),
                None => write!(s, "arf{nr:#04x}"),
            };
            if nr != arf::NULL && nr != arf::IP {
                sub_text(&mut s, u32::from(subnr), size);
            }
            Ok(())
        }
        (RegFile::Mrf, Addr::Direct { nr, subnr }) => {
            let _ = write!(s, "m{nr}");
            sub_text(&mut s, u32::from(subnr), size);
            Ok(())
        }
        (_, Addr::Direct { nr, subnr }) => {
            let _ = write!(s, "r{nr}");
            sub_text(&mut s, u32::from(subnr), size);
            Ok(())
        }
    };
    s
}

fn sub_text(s: &mut String, subnr: u32, size: u32) {
    let _ = if subnr.is_multiple_of(size) {
        write!(s, ".{}", subnr / size)
    } else {
        write!(s, ".{subnr}b")
    };
}

/// A source as assembly writes it: `r2.1<8;4,2>:d`, `0x3f800000:f`.
pub fn src_text(p: IsaGen, s: &Src) -> String {
    match s {
        Src::Reg(r) => {
            let mut out = String::new();
            if r.negate {
                out.push('-');
            }
            if r.abs {
                out.push_str("(abs)");
            }
            out.push_str(&reg_text(p, r.file, r.addr, r.ty));
            let _ = match r.region {
                Region::Align1 {
                    vstride,
                    width,
                    hstride,
                } => write!(out, "<{vstride};{width},{hstride}>"),
                Region::VxH { width, hstride } => write!(out, "<{width},{hstride}>"),
                Region::Align16 { vstride, .. } => write!(out, "<{vstride}>"),
            };
            let _ = write!(out, ":{}", r.ty.name());
            out
        }
        Src::Imm(i) => alloc::format!("{:#x}:{}", i.bits, i.ty.name()),
        Src::Vacant(v) => alloc::format!("(no operand):{}", v.ty.name()),
    }
}

/// A destination as assembly writes it: `r1.2<2>:w`.
pub fn dst_text(p: IsaGen, d: &Dst) -> String {
    let mut s = reg_text(p, d.file, d.addr, d.ty);
    let _ = write!(s, "<{}>:{}", d.hstride, d.ty.name());
    s
}
