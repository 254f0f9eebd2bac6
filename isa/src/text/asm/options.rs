//! Instruction controls written around the operands: the `{...}` options,
//! the execution group `(8|M8)` and the flag of predicate and condition.

use super::super::parse::Line;
use super::{Res, err};
use crate::generation::IsaGen;
use crate::inst::{Compression, CondMod, FlagReg, GroupCtrl, Opcode, PredCtrl, ThreadCtrl};
use crate::tables;

/// The `{...}` options of a line.
#[derive(Default)]
pub(super) struct Options {
    pub align16: bool,
    pub compr: bool,
    pub compacted: bool,
    pub uncompacted: bool,
    pub acc_wr: bool,
    pub mask_ex: bool,
    pub debug: bool,
    pub no_dd_chk: bool,
    pub no_dd_clr: bool,
    pub thread: Option<ThreadCtrl>,
    pub eot: bool,
    pub no_mask: bool,
}

impl Options {
    /// Reads the option names of `l`; an unknown name is an error at its column.
    pub(super) fn read(l: &Line, line: usize) -> Res<Options> {
        let mut opts = Options::default();
        for (name, col) in &l.options {
            match name.as_str() {
                "Align1" => {}
                "Align16" => opts.align16 = true,
                "Compr" => opts.compr = true,
                "Compacted" => opts.compacted = true,
                // iga64 accepts both spellings of "store native".
                "Uncompacted" | "NoCompact" => opts.uncompacted = true,
                "AccWrEn" => opts.acc_wr = true,
                "MaskCtrlEx" => opts.mask_ex = true,
                "Breakpoint" => opts.debug = true,
                "NoDDChk" => opts.no_dd_chk = true,
                "NoDDClr" => opts.no_dd_clr = true,
                "Atomic" => opts.thread = Some(ThreadCtrl::Atomic),
                "Switch" => opts.thread = Some(ThreadCtrl::Switch),
                "EOT" => opts.eot = true,
                "NoMask" => opts.no_mask = true,
                _ => return err(line, *col, alloc::format!("unknown option {name}")),
            }
            if opts.compacted && opts.uncompacted {
                return err(
                    line,
                    *col,
                    "{Compacted} and {Uncompacted} exclude each other",
                );
            }
        }
        Ok(opts)
    }
}

/// Execution size and channel group. Gen4/G45 state compression with
/// `{Compr}` and SecHalf as `M8`; Gen6+ map the offset to QtrCtrl/NibCtrl.
pub(super) fn exec_group(
    p: IsaGen,
    l: &Line,
    line: usize,
    opcode: Opcode,
    compr: bool,
) -> Res<(u8, GroupCtrl)> {
    let t = tables::for_platform(p);
    let (exec_size, m) = match (l.exec, opcode) {
        (Some(e), _) => e,
        // These have no execution size in the syntax; IGA writes 1.
        (None, Opcode::Jmpi | Opcode::Nop | Opcode::Wait) => (1, 0),
        (None, _) => return err(line, l.mnemonic_col, "missing execution size, e.g. (8|M0)"),
    };
    let group = if t.compressions.is_some() {
        match (m, compr) {
            (0, false) => GroupCtrl::Compression(Compression::None),
            (0, true) => GroupCtrl::Compression(Compression::Compressed),
            (8, false) => GroupCtrl::Compression(Compression::SecHalf),
            _ => {
                return err(
                    line,
                    l.mnemonic_col,
                    "Gen4/G45 groups are M0, M8 (SecHalf) or {Compr}",
                );
            }
        }
    } else {
        let nib = m % 8 == 4;
        if compr || (nib && t.fields.nib_ctrl.is_none()) || m / 8 > 3 {
            return err(
                line,
                l.mnemonic_col,
                alloc::format!("channel offset M{m} has no encoding on {p}"),
            );
        }
        GroupCtrl::Quarter { qtr: m / 8, nib }
    };
    Ok((exec_size, group))
}

/// Predicate, its inversion, condition modifier and the one flag register
/// both name (the encoding has a single flag field).
pub(super) fn flags(l: &Line, line: usize) -> Res<(FlagReg, PredCtrl, bool, CondMod)> {
    let mut flag = FlagReg::default();
    let (mut pred_ctrl, mut pred_inv) = (PredCtrl::None, false);
    if let Some((inv, r, s, ctrl)) = l.pred {
        flag = FlagReg { reg: r, subreg: s };
        pred_ctrl = ctrl;
        pred_inv = inv;
    }
    let mut cond_mod = CondMod::None;
    if let Some((cm, r, s)) = l.cond {
        if l.pred.is_some() && (flag.reg, flag.subreg) != (r, s) {
            return err(
                line,
                l.mnemonic_col,
                "predicate and condition modifier use one flag register",
            );
        }
        flag = FlagReg { reg: r, subreg: s };
        cond_mod = cm;
    }
    Ok((flag, pred_ctrl, pred_inv, cond_mod))
}
