//! What the validator needs to know about each ALU opcode: which units can run it and
//! which side effects it has. Opcode numbers are those of [`crate::alu::OP2`] / `OP3`.

use crate::alu::{AluForm, AluInst};

/// Where an instruction may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Units {
    Any,
    /// ALU.[X,Y,Z,W] only (Table 4.5, 002 lines 1880-1903).
    Vector,
    /// ALU.Trans only (Table 4.6, 002 lines 1926-1961).
    Trans,
}

/// Table 4.5 also lists ADD_INT, under "Reduction Operations" (1880-1884); it is not a
/// reduction and Table 4.4's integer list lacks it, so the row is taken as misplaced:
/// Mesa's R700 column gives ADD_INT to any unit (`r600_isa.c`, AF_VS) and llc puts it
/// in the trans slot.
pub fn units(i: &AluInst) -> Units {
    match i.form {
        AluForm::Op2 { opcode, .. } => match opcode {
            // DOT4, DOT4_IEEE, CUBE, MAX4; MOVA, MOVA_FLOOR, MOVA_INT, MOVA_GPR_INT;
            // the _64 ops.
            80..=83 | 21 | 22 | 24 | 96 | 7 | 23 | 27 | 28 | 29 | 122..=126 => Units::Vector,
            // EXP_IEEE .. UINT_TO_FLT, SIN, COS, MULLO/MULHI, RECIP_INT/UINT, FLT_TO_UINT.
            97..=111 | 115..=121 => Units::Trans,
            _ => Units::Any,
        },
        AluForm::Op3 { opcode, .. } => match opcode {
            // MUL_LIT* (Table 4.6); MULADD_64* (Table 4.5).
            12..=15 => Units::Trans,
            8..=11 => Units::Vector,
            _ => Units::Any,
        },
    }
}

fn op2(i: &AluInst) -> Option<u16> {
    match i.form {
        AluForm::Op2 { opcode, .. } => Some(opcode),
        AluForm::Op3 { .. } => None,
    }
}

/// PRED_SET* in the manual's sense: computes a predicate (002 lines 1874, 2026;
/// opcode pages of the PRED_SET* family, Mesa AF_PRED / AF_PRED_PUSH).
pub fn is_pred_set(i: &AluInst) -> bool {
    matches!(op2(i), Some(30..=43 | 66..=69 | 74..=79 | 124..=126))
}

/// KILL* (44-47, 64-65, 70-73).
pub fn is_kill(i: &AluInst) -> bool {
    matches!(op2(i), Some(44..=47 | 64 | 65 | 70..=73))
}

/// MOVA* (Table 4.5: MOVA, MOVA_FLOOR, MOVA_INT; MOVA_GPR_INT 96 loads AR too).
pub fn is_mova(i: &AluInst) -> bool {
    matches!(op2(i), Some(21 | 22 | 24 | 96))
}

pub fn is_nop(i: &AluInst) -> bool {
    op2(i) == Some(26)
}

/// Reductions that run on all four vector units (002 lines 1904-1906).
pub fn is_reduction(i: &AluInst) -> bool {
    matches!(op2(i), Some(80..=83))
}

/// Reductions whose result is in PV.X only (DOT4, DOT4_IEEE, MAX4: 002 lines 1886-1893);
/// CUBE writes all four.
pub fn pv_x_only(i: &AluInst) -> bool {
    matches!(op2(i), Some(80 | 81 | 83))
}

/// How many vector slots a double-precision instruction spans: 2 (an X,Y or Z,W pair)
/// or 4 (002 lines 3022-3024, 3551-3553, 3643-3645, 3735-3737, 3808, 4041-4045,
/// 4632, 4908, 5422-5424, 5660-5662).
pub fn dp_width(i: &AluInst) -> Option<usize> {
    match i.form {
        AluForm::Op2 { opcode, .. } => match opcode {
            23 | 28 | 29 | 122..=126 => Some(2),
            7 | 27 => Some(4),
            _ => None,
        },
        AluForm::Op3 { opcode, .. } => (8..=11).contains(&opcode).then_some(4),
    }
}
