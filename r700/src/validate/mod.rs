//! The manual's legality rules for a decoded [`Program`]: instruction-group formation,
//! GPR and constant read ports with the bank swizzles, literals, clause limits, kcache
//! locking, and the dependencies between adjacent ALU groups. Every rule is a [`Rule`]
//! that names the manual lines it comes from; a violation names the clause, group and
//! slot.
//!
//! What decoding already refuses (reserved opcodes and values, a sixth slot before LAST,
//! a COUNT that splits a group, misaligned fetch clauses) is not repeated here. Rules
//! that depend on host state the binary does not carry (program type for KILL and
//! EXPORT, the GPR count, NUM_CLAUSE_TEMP_GPRS, CONFIG.ALU_INST_PREFER_VECTOR, whether
//! the part has double precision or burst reads) are not checked; the unit assignment
//! follows Mesa and LLVM, which both assume that a LAST instruction whose vector unit is
//! free goes to that unit (Mesa `r600_asm.c` assign_alu_units; the manual's prose and
//! pseudocode disagree on the bit's polarity, 002 lines 1270-1289).

mod clause;
mod group;
mod ops;

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::program::Program;

/// One rule of the manual. [`Rule::cite`] gives its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// LAST is set on the group's last instruction only.
    LastBit,
    /// Two instructions need the same ALU unit (the slot-assignment algorithm).
    SlotAssignment,
    /// An instruction that goes to ALU.Trans is not the group's last.
    TransNotLast,
    /// Vector-unit instructions are not in X, Y, Z, W order.
    SlotOrder,
    /// DOT4, DOT4_IEEE, CUBE, MAX4 not on all four vector units alike.
    Reduction,
    /// A double-precision instruction not on the slot pair (or all four) it needs.
    DoublePrecision,
    /// Two PRED_SET*, two KILL, or a PRED_SET* and a KILL in one group.
    OncePerGroup,
    /// UPDATE_PRED / UPDATE_EXEC_MASK on an instruction that computes no predicate.
    PredicateBits,
    /// A bank swizzle the unit does not have (ALU.Trans has SCL_210..SCL_221 only).
    BankSwizzle,
    /// More than one distinct GPR element per vector element and cycle.
    GprReadPort,
    /// More than two constant-file/kcache element pairs in one group.
    ConstReadPort,
    /// ALU.Trans references more than two constants.
    TransConstants,
    /// ALU.Trans loads a GPR, PV or PS operand in a cycle its constants use.
    TransConstCycle,
    /// The literal dwords after a group do not match what its sources select.
    LiteralCount,
    /// A MOVA* in a group that uses AR-relative addressing.
    MovaWithArIndex,
    /// Two different AR elements used for indexing in one group.
    ArElements,
    /// AR-relative addressing of a kcache constant.
    KcacheArIndex,
    /// AR-relative addressing with no MOVA* loading that AR element earlier in the clause.
    ArNotLoaded,
    /// A kcache constant outside the lines the clause's CF instruction locks.
    KcacheUnlocked,
    /// A KILL that is not in the clause's last group.
    KillNotLast,
    /// PV or PS read in the first group of a clause.
    PvFirstGroup,
    /// PV/PS element read that the previous group did not produce (empty unit, NOP,
    /// PV.Y-W after a reduction that writes PV.X only).
    PvUnwritten,
    /// PV read of the element a MOVA* produced in the previous group.
    PvAfterMova,
    /// GPR written through AR in one group and read without the same AR index in the next
    /// (or the reverse): the hardware does not detect the dependency.
    RelWriteRead,
    /// The CF COUNT does not match the clause, or the clause is over its length limit.
    ClauseLength,
    /// A clause's contents do not match the CF instruction that starts it.
    ClauseKind,
    /// A fetch-clause CF instruction with a COND other than ACTIVE.
    FetchCond,
    /// A memory-read field with a value the manual forbids.
    MemReadField,
}

impl Rule {
    /// The manual lines (002_*.txt) or the public source the rule comes from.
    pub fn cite(self) -> &'static str {
        use Rule::*;
        match self {
            LastBit => "002 lines 1232-1233",
            SlotAssignment => "002 lines 1253-1283 (units of Tables 4.5/4.6, 1876-1949)",
            TransNotLast => "002 lines 1253-1254, 1926-1930",
            SlotOrder => "002 lines 1234-1248",
            Reduction => "002 lines 1902-1904, 1978-1987",
            DoublePrecision => "002 lines 2085, 3022-3024, 3808, 4632, 4908",
            OncePerGroup => "002 lines 1868-1872, 2020-2021",
            PredicateBits => "002 lines 2000-2001, 2020",
            BankSwizzle => "002 lines 1536-1541, 1654-1665",
            GprReadPort => "002 lines 1473-1480, 1511-1512, 1685-1745",
            ConstReadPort => {
                "002 lines 1441-1443, 1667-1683; kcache as in LLVM R600InstrInfo.cpp fitsConstReadLimitations and Mesa r600_asm.c reserve_cfile"
            }
            TransConstants => "002 lines 1356, 1457, 1631, 1717-1722",
            TransConstCycle => "002 lines 1590-1631, 1732-1740",
            LiteralCount => "002 lines 1234-1236, 1463-1466",
            MovaWithArIndex => "002 lines 1387-1388, 1918",
            ArElements => "002 lines 1390-1391",
            KcacheArIndex => "002 lines 1372-1379, 1391-1392",
            ArNotLoaded => "002 lines 1385-1386, 1374",
            KcacheUnlocked => "002 lines 1401-1402, 1420-1423, 7739-7748",
            KillNotLast => "002 line 1868",
            PvFirstGroup => "002 lines 1396-1398",
            PvUnwritten => "002 lines 1284, 1890-1900, 1995",
            PvAfterMova => "002 lines 1920-1921, 2008-2009",
            RelWriteRead => "002 lines 2030-2080",
            ClauseLength => "002 lines 816-818, 2169, 7654-7658, 7752",
            ClauseKind => "002 lines 2161, 2169, 2221-2225",
            FetchCond => "002 lines 1026, 7649",
            MemReadField => "002 lines 2201, 8643-8645, 8749",
        }
    }

    /// The rule's name as messages show it.
    pub fn name(self) -> &'static str {
        use Rule::*;
        match self {
            LastBit => "last-bit",
            SlotAssignment => "slot-assignment",
            TransNotLast => "trans-not-last",
            SlotOrder => "slot-order",
            Reduction => "reduction",
            DoublePrecision => "double-precision",
            OncePerGroup => "once-per-group",
            PredicateBits => "predicate-bits",
            BankSwizzle => "bank-swizzle",
            GprReadPort => "gpr-read-port",
            ConstReadPort => "const-read-port",
            TransConstants => "trans-constants",
            TransConstCycle => "trans-const-cycle",
            LiteralCount => "literal-count",
            MovaWithArIndex => "mova-with-ar-index",
            ArElements => "ar-elements",
            KcacheArIndex => "kcache-ar-index",
            ArNotLoaded => "ar-not-loaded",
            KcacheUnlocked => "kcache-unlocked",
            KillNotLast => "kill-not-last",
            PvFirstGroup => "pv-first-group",
            PvUnwritten => "pv-unwritten",
            PvAfterMova => "pv-after-mova",
            RelWriteRead => "rel-write-read",
            ClauseLength => "clause-length",
            ClauseKind => "clause-kind",
            FetchCond => "fetch-cond",
            MemReadField => "mem-read-field",
        }
    }
}

/// Where a violation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The CF instruction at this index (slot) of the CF program.
    Cf { index: usize },
    /// An ALU group (0-based within its clause) and, when one is to blame, the
    /// instruction's position in the group (0-4).
    Group {
        clause: u32,
        group: usize,
        slot: Option<usize>,
    },
    /// A fetch/MEM instruction (0-based within its clause).
    Fetch { clause: u32, index: usize },
    /// A whole clause.
    Clause { clause: u32 },
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Place::Cf { index } => write!(f, "CF {index}"),
            Place::Group {
                clause,
                group,
                slot: Some(s),
            } => write!(f, "clause @{clause} group {group} slot {s}"),
            Place::Group {
                clause,
                group,
                slot: None,
            } => write!(f, "clause @{clause} group {group}"),
            Place::Fetch { clause, index } => write!(f, "clause @{clause} instruction {index}"),
            Place::Clause { clause } => write!(f, "clause @{clause}"),
        }
    }
}

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub rule: Rule,
    pub place: Place,
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {} ({})",
            self.place,
            self.rule.name(),
            self.detail,
            self.rule.cite()
        )
    }
}

/// Checks every rule; an empty list means the program is legal as far as the manual's
/// static rules go.
pub fn validate(p: &Program) -> Vec<Violation> {
    let mut out = Vec::new();
    clause::check(p, &mut out);
    out
}
