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
//! pseudocode disagree on the bit's polarity, 002 lines 1256-1289). The manual allows
//! "up to four MOVA instructions" in a group (1914) and "at most one" (2010); neither
//! count is enforced.
//!
//! Not violations, by the manual: an AR use right after its MOVA* (the two-group delay is
//! inserted by hardware, 002 line 1394) and a PRED_SET* result used by the next group's
//! PRED_SEL (it takes effect there, 2002). A trans result read as PV (rather than PS) in
//! the next group is [`Rule::PvUnwritten`] when no vector unit wrote that element.

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
    /// More than two constant-file/kcache element pairs in one group. The manual's
    /// algorithm reserves two (address, element pair) ports on R700 (1656-1684); its
    /// example of four distinct cfile addresses in one group (1459-1462) is R600's
    /// four-port rule (Mesa `reserve_cfile` keeps four for R600, two pairs for R700).
    /// kcache reads share the ports, as both compilers treat them.
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
            LastBit => "002 line 1232",
            SlotAssignment => "002 lines 1253-1283; units of Tables 4.5 (1880) and 4.6 (1926)",
            TransNotLast => "002 lines 1253, 1922-1925, 1962-1964",
            SlotOrder => "002 lines 1234, 1236-1246",
            Reduction => "002 lines 1904-1906, 1978, 1980",
            DoublePrecision => "002 lines 2085, 3022-3024, 3808, 4632, 4908",
            OncePerGroup => "002 lines 1872-1874, 2026",
            PredicateBits => "002 lines 2002, 2026",
            BankSwizzle => "002 lines 1534-1540, 1625-1637",
            GprReadPort => "002 lines 1449, 1491-1510, 1686-1710",
            ConstReadPort => {
                "002 lines 1453, 1656-1684; kcache as in LLVM R600InstrInfo.cpp fitsConstReadLimitations and Mesa r600_asm.c reserve_cfile"
            }
            TransConstants => "002 lines 1356, 1457, 1611, 1712-1725",
            TransConstCycle => "002 lines 1562-1611, 1726-1745",
            LiteralCount => "002 lines 1234, 1465",
            MovaWithArIndex => "002 lines 1330, 1918",
            ArElements => "002 line 1332",
            KcacheArIndex => "002 lines 1317-1324, 1332",
            ArNotLoaded => "002 line 1328",
            KcacheUnlocked => "002 lines 1350, 7736-7745",
            KillNotLast => "002 line 1872",
            PvFirstGroup => "002 line 1338",
            PvUnwritten => "002 lines 1284, 1886-1893, 2006",
            PvAfterMova => "002 lines 1920, 2010",
            RelWriteRead => "002 lines 2032-2076",
            ClauseLength => "002 lines 810-820, 2169, 7654-7658, 7749",
            ClauseKind => "002 lines 2161, 2169, 2221",
            FetchCond => "002 lines 1026, 7649",
            MemReadField => "002 lines 2200, 8642, 8749",
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
