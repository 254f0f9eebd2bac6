//! Execution controls of one instruction: channel group, flag bits,
//! accumulator elements, execution type.

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{AccessMode, Body, Compression, GroupCtrl, Instruction, Opcode, Src, Type};

use crate::eu::exec::{Ctl, Dom};

/// The source slots an instruction reads as data (the execution type
/// looks at these).
pub fn data_srcs(inst: &Instruction, nsrc: u8) -> [Option<&Src>; 3] {
    let all = inst.srcs();
    let mut out = [None; 3];
    for (i, s) in all.iter().enumerate().take(usize::from(nsrc).min(3)) {
        out[i] = *s;
    }
    out
}

fn src_type(s: &Src) -> Option<Type> {
    match s {
        Src::Reg(r) if r.file != baregpu_isa::inst::RegFile::Imm => Some(r.ty),
        Src::Imm(i) => Some(i.ty),
        _ => None,
    }
}

/// The execution type (000 lines 8423-8434; 003 lines 91687-91709): F if
/// any source is F (or VF), DF if any is DF (Gen7), else D if any is a
/// dword integer, else W (bytes and words compute as words).
pub fn domain(inst: &Instruction, nsrc: u8) -> Dom {
    let mut any_f = false;
    let mut any_df = false;
    let mut any_d = false;
    for ty in data_srcs(inst, nsrc)
        .iter()
        .flatten()
        .filter_map(|s| src_type(s))
    {
        match ty {
            Type::F | Type::Vf => any_f = true,
            Type::Df => any_df = true,
            Type::D | Type::Ud => any_d = true,
            _ => {}
        }
    }
    if any_df {
        Dom::Df
    } else if any_f {
        Dom::F
    } else if any_d || nsrc == 0 {
        Dom::D
    } else {
        Dom::W
    }
}

/// Whether the opcode implicitly updates the accumulator on Gen4/G45: the
/// parallel (100xxxx) and vector (101xxxx) arithmetic groups (000 lines
/// 10189-10197, 7699-7720).
pub fn gen4_implicit_acc(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Add | Mul
            | Avg
            | Frc
            | Rndu
            | Rndd
            | Rnde
            | Rndz
            | Mac
            | Mach
            | Lzd
            | Sad2
            | Sada2
            | Dp4
            | Dph
            | Dp3
            | Dp2
            | Line
            | Pln
    )
}

/// Builds the controls. `sec_half` marks a Gen4/G45 second half (SecHalf,
/// or the second half of a compressed instruction).
pub fn build(p: IsaGen, inst: &Instruction, dom: Dom, sec_half: bool, raw: bool) -> Ctl {
    let exec = inst.exec_size.min(32);
    let gen4 = p <= IsaGen::G45;
    let first = if gen4 {
        // SecHalf with ExecSize below 16 uses the upper 8 mask and flag
        // bits; with 16 (the halves of a 32-channel instruction) all 16
        // (000 lines 8757-8760).
        if sec_half && exec <= 8 { 8 } else { 0 }
    } else {
        inst.first_channel()
    };
    let subreg = inst.flag.subreg & 1;
    let (flag_reg, flag_first, flag_wrap, flag_sub) = match p {
        // One flag register of two 16-bit sub-registers; the channel group
        // picks bits inside the sub-register (003 lines 94636-94699: "first
        // half"/"second half" for the quarters).
        IsaGen::Gen4 | IsaGen::G45 | IsaGen::Gen6 => (0, first % 16, 16, subreg * 16),
        // Two 32-bit flag registers split in halves, quarters or eighths by
        // QtrCtrl/NibCtrl (001 lines 2862-2864).
        // Gen12.5 never gets here: its code runs in `eu::xe`.
        IsaGen::Gen7 | IsaGen::Gen75 | IsaGen::Gen12_5 => {
            (inst.flag.reg & 1, subreg * 16 + first, 32, 0)
        }
    };
    let acc_write = if gen4 {
        gen4_implicit_acc(inst.opcode)
    } else {
        inst.acc_wr_ctrl
    };
    let view_slots_per_reg: u8 = match dom {
        Dom::W => 16,
        Dom::Df => 4,
        _ => 8,
    };
    let acc_first = if gen4 {
        // SecHalf selects acc1 (000 lines 7699-7701), except that on the 965
        // (BW/CL) ExecSize 16 forces acc0 (000 lines 8796-8798).
        let exec16_errata = p == IsaGen::Gen4 && exec >= 16;
        if sec_half && !exec16_errata {
            view_slots_per_reg
        } else {
            0
        }
    } else {
        match (p, dom) {
            // Gen7: acc1 exists for F only; other types use acc0 whatever
            // the quarter (001 lines 2689-2692).
            (IsaGen::Gen7 | IsaGen::Gen75, Dom::F) => first % 16,
            (IsaGen::Gen7 | IsaGen::Gen75, _) => 0,
            // Gen6: the quarter selects acc0/acc1 for every type (003 lines
            // 90305-90400).
            (_, Dom::W) => first % 32,
            _ => first % 16,
        }
    };
    let align16 = inst.access_mode == AccessMode::Align16;
    let wmask = match (&inst.body, align16) {
        (Body::Alu(a), true) => a.dst.writemask,
        (Body::Math(m), true) => m.dst.writemask,
        (Body::ThreeSrc(t), _) => t.dst.writemask,
        _ => 0xF,
    };
    let step = if p == IsaGen::Gen7 && dom == Dom::Df {
        2
    } else {
        1
    };
    Ctl {
        exec,
        step,
        mask_first: first,
        flag_reg,
        flag_first,
        flag_wrap,
        flag_sub,
        pred: inst.pred_ctrl,
        pred_inv: inst.pred_inv,
        cond: inst.cond_mod,
        sat: inst.saturate,
        no_mask: inst.no_mask,
        wmask,
        align16,
        dom,
        acc_write,
        acc_first,
        raw,
    }
}

/// Whether a group field marks the Gen4/G45 second half.
pub fn is_sec_half(g: GroupCtrl) -> bool {
    g == GroupCtrl::Compression(Compression::SecHalf)
}
