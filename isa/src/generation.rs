//! The EU instruction-set generations.

use core::fmt;

/// An EU instruction-set generation. Finer than the hal's `Generation`:
/// Gen7.5 (Haswell) has its own encodings though its commands are Gen7's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IsaGen {
    /// Gen4: 965G/GM, G35 ("Broadwater", "Crestline").
    Gen4,
    /// Gen4.5: G41/G43/G45, GM45 ("Eaglelake", "Cantiga").
    G45,
    /// Gen6: Sandy Bridge.
    Gen6,
    /// Gen7: Ivy Bridge.
    Gen7,
    /// Gen7.5: Haswell.
    Gen75,
    /// Gen12.5 Xe-HPG: DG2 (Alchemist). Its native format is its own
    /// (`crate::xehpg`); the Gen4-Gen7.5 table-driven paths refuse it.
    Gen12_5,
}

impl IsaGen {
    /// The generations of the table-driven codec (Gen4-Gen7.5), oldest
    /// first: what the compactor, validator and software GPU cover. Gen12.5
    /// is not in it (see [`IsaGen::EVERY`]).
    pub const ALL: [IsaGen; 5] = [
        IsaGen::Gen4,
        IsaGen::G45,
        IsaGen::Gen6,
        IsaGen::Gen7,
        IsaGen::Gen75,
    ];

    /// Every generation, oldest first.
    pub const EVERY: [IsaGen; 6] = [
        IsaGen::Gen4,
        IsaGen::G45,
        IsaGen::Gen6,
        IsaGen::Gen7,
        IsaGen::Gen75,
        IsaGen::Gen12_5,
    ];

    /// Gen12 and later: SWSB, no Align16, their own native format.
    pub const fn is_xe(self) -> bool {
        matches!(self, IsaGen::Gen12_5)
    }

    /// The name used on command lines.
    pub const fn name(self) -> &'static str {
        match self {
            IsaGen::Gen4 => "gen4",
            IsaGen::G45 => "gen4.5",
            IsaGen::Gen6 => "gen6",
            IsaGen::Gen7 => "gen7",
            IsaGen::Gen75 => "gen7.5",
            IsaGen::Gen12_5 => "gen12.5",
        }
    }

    /// Parses a name or one of its aliases (`g45`, `snb`, `ivb`, `hsw`,
    /// `xehpg`, `dg2`).
    pub fn from_name(name: &str) -> Option<IsaGen> {
        Some(match name {
            "gen4" => IsaGen::Gen4,
            "gen4.5" | "g45" => IsaGen::G45,
            "gen6" | "snb" => IsaGen::Gen6,
            "gen7" | "ivb" => IsaGen::Gen7,
            "gen7.5" | "hsw" => IsaGen::Gen75,
            "gen12.5" | "xehpg" | "dg2" => IsaGen::Gen12_5,
            _ => return None,
        })
    }
}

impl fmt::Display for IsaGen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
