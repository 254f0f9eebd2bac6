//! GPU generations the stack knows.

use core::fmt;

/// A GPU generation: the unit in which registers, commands and the EU
/// instruction set change. Decided at probe time, so a run-time value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Generation {
    /// Gen4: 965G/GM, 946GZ, G35 ("Broadwater", "Crestline").
    Gen4,
    /// Gen4.5: G41/G43/G45, Q45, B43, GM45 ("Eaglelake", "Cantiga").
    G45,
    /// Gen6: Sandy Bridge.
    Gen6,
    /// Gen7: Ivy Bridge.
    Gen7,
    /// Gen12.5: DG2 (Arc A-series "Alchemist", Data Center GPU Flex).
    Gen12_5,
}

impl Generation {
    /// Every generation, oldest first.
    pub const ALL: [Generation; 5] = [
        Generation::Gen4,
        Generation::G45,
        Generation::Gen6,
        Generation::Gen7,
        Generation::Gen12_5,
    ];

    /// The short name used on command lines and in table files.
    pub const fn name(self) -> &'static str {
        match self {
            Generation::Gen4 => "gen4",
            Generation::G45 => "g45",
            Generation::Gen6 => "gen6",
            Generation::Gen7 => "gen7",
            Generation::Gen12_5 => "gen12.5",
        }
    }

    /// Parses a generation name; accepts the aliases the tools accept.
    pub fn from_name(name: &str) -> Option<Generation> {
        Some(match name {
            "gen4" => Generation::Gen4,
            "g45" | "gen4.5" => Generation::G45,
            "gen6" | "snb" => Generation::Gen6,
            "gen7" | "ivb" => Generation::Gen7,
            "gen12.5" | "dg2" | "xe-hpg" => Generation::Gen12_5,
            _ => return None,
        })
    }
}

impl fmt::Display for Generation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for g in Generation::ALL {
            assert_eq!(Generation::from_name(g.name()), Some(g));
        }
        assert_eq!(Generation::from_name("snb"), Some(Generation::Gen6));
        assert_eq!(Generation::from_name("gen4.5"), Some(Generation::G45));
        assert_eq!(Generation::from_name("gen5"), None);
    }
}
