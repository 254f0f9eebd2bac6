//! Gen4/G45 instruction compression: `{Compr}` runs as two instructions of
//! half the execution size, the second with SecHalf and its operands moved
//! to the next register (000 lines 8746-8830).

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{
    Addr, Body, Compression, Dst, GroupCtrl, Instruction, Opcode, RegFile, Region, Src, Type,
};

/// Whether the instruction is a Gen4/G45 compressed one.
pub fn is_compressed(p: IsaGen, inst: &Instruction) -> bool {
    p <= IsaGen::G45 && inst.group == GroupCtrl::Compression(Compression::Compressed)
}

/// The two halves of a compressed instruction.
pub fn split(p: IsaGen, inst: &Instruction) -> (Instruction, Instruction) {
    let half = (inst.exec_size / 2).max(1);
    let mut a = *inst;
    a.exec_size = half;
    a.group = GroupCtrl::Compression(Compression::None);
    let mut b = a;
    b.group = GroupCtrl::Compression(Compression::SecHalf);
    // The breakpoint bit is cleared in the second half (000 line 8762).
    b.debug = false;
    // Packed-word sources of a SIMD16 instruction with a dword destination
    // of stride 1 move by half a register (000 lines 8775-8776).
    let dword_dst = inst
        .dst()
        .is_some_and(|d| d.ty.size() == 4 && d.hstride == 1);
    let mixed16 = inst.exec_size == 16 && dword_dst;
    let pln = inst.opcode == Opcode::Pln;
    match &mut a.body {
        Body::Alu(x) => x.dst = first_dst(x.dst),
        Body::Math(x) => x.dst = first_dst(x.dst),
        _ => {}
    }
    match &mut b.body {
        Body::Alu(x) => {
            x.dst = second_dst(x.dst);
            x.src0 = second_src(x.src0, mixed16, 1);
            // pln's src1 pair is two registers apart (000 line 8829).
            let step = if pln && p == IsaGen::G45 { 2 } else { 1 };
            x.src1 = second_src(x.src1, mixed16, step);
        }
        Body::Math(x) => {
            x.dst = second_dst(x.dst);
            x.src0 = second_src(x.src0, mixed16, 1);
            x.src1 = second_src(x.src1, mixed16, 1);
        }
        _ => {}
    }
    (a, b)
}

/// The first half: a Compr4 MRF destination (RegNum[7] set) clears that bit
/// (000 line 8755).
fn first_dst(mut d: Dst) -> Dst {
    if d.file == RegFile::Mrf
        && let Addr::Direct { nr, subnr } = d.addr
    {
        d.addr = Addr::Direct {
            nr: nr & 0x7F,
            subnr,
        };
    }
    d
}

fn second_dst(mut d: Dst) -> Dst {
    d.addr = match (d.file, d.addr) {
        // MRF: +1 (Compr) or, with RegNum[7] set (Compr4), +4 after clearing
        // it (000 lines 8780-8781).
        (RegFile::Mrf, Addr::Direct { nr, subnr }) => Addr::Direct {
            nr: if nr & 0x80 != 0 {
                (nr & 0x7F).wrapping_add(4)
            } else {
                nr.wrapping_add(1)
            },
            subnr,
        },
        // GRF and the accumulator: RegNum LSB set (acc0 becomes acc1).
        (_, Addr::Direct { nr, subnr }) => Addr::Direct { nr: nr | 1, subnr },
        // Indirect: the next address sub-register (the field must be even).
        (_, Addr::Indirect { addr_subnr, offset }) => Addr::Indirect {
            addr_subnr: addr_subnr | 1,
            offset,
        },
    };
    d
}

fn second_src(s: Src, mixed16: bool, step: u8) -> Src {
    let Src::Reg(mut r) = s else {
        // Immediates are unchanged (000 line 8773).
        return s;
    };
    if r.file == RegFile::Imm {
        return s;
    }
    let scalar = matches!(
        r.region,
        Region::Align1 {
            vstride: 0,
            hstride: 0,
            ..
        }
    );
    r.addr = match r.addr {
        Addr::Direct { nr, subnr } if scalar => Addr::Direct { nr, subnr },
        Addr::Direct { nr, subnr }
            if mixed16
                && matches!(r.ty, Type::W | Type::Uw)
                && matches!(r.region, Region::Align1 { hstride: 1, .. }) =>
        {
            Addr::Direct {
                nr,
                subnr: subnr | 16,
            }
        }
        Addr::Direct { nr, subnr } if step == 2 => Addr::Direct {
            nr: nr.wrapping_add(2),
            subnr,
        },
        Addr::Direct { nr, subnr } => Addr::Direct { nr: nr | 1, subnr },
        Addr::Indirect { addr_subnr, offset } => Addr::Indirect {
            addr_subnr: addr_subnr | 1,
            offset,
        },
    };
    Src::Reg(r)
}
