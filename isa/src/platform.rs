//! The EU instruction-set generations.

use core::fmt;

/// An EU instruction-set generation. Finer than the hal's `Generation`:
/// Gen7.5 (Haswell) has its own encodings though its commands are Gen7's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Platform {
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
}

impl Platform {
    /// Every platform, oldest first.
    pub const ALL: [Platform; 5] = [
        Platform::Gen4,
        Platform::G45,
        Platform::Gen6,
        Platform::Gen7,
        Platform::Gen75,
    ];

    /// The name used on command lines.
    pub const fn name(self) -> &'static str {
        match self {
            Platform::Gen4 => "gen4",
            Platform::G45 => "gen4.5",
            Platform::Gen6 => "gen6",
            Platform::Gen7 => "gen7",
            Platform::Gen75 => "gen7.5",
        }
    }

    /// Parses a name or one of its aliases (`g45`, `snb`, `ivb`, `hsw`).
    pub fn from_name(name: &str) -> Option<Platform> {
        Some(match name {
            "gen4" => Platform::Gen4,
            "gen4.5" | "g45" => Platform::G45,
            "gen6" | "snb" => Platform::Gen6,
            "gen7" | "ivb" => Platform::Gen7,
            "gen7.5" | "hsw" => Platform::Gen75,
            _ => return None,
        })
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
