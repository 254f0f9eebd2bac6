//! Opcode mnemonics.

/// Declares [`Opcode`], its mnemonics and the list of all variants from one
/// table, so the three cannot disagree.
macro_rules! opcodes {
    ($($name:ident = $mnemonic:literal,)*) => {
        /// Every EU mnemonic from Gen4 to Gen7.5. Which ones exist, and their
        /// opcode numbers, are per-generation tables (`tables`).
        /// Non-exhaustive so later generations can add mnemonics without
        /// breaking matches.
        #[non_exhaustive]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Opcode {
            $($name,)*
        }

        impl Opcode {
            /// Every mnemonic, in opcode-number order of the generation that
            /// has it.
            pub const ALL: [Opcode; [$($mnemonic),*].len()] = [$(Opcode::$name),*];

            /// The assembly mnemonic.
            pub const fn mnemonic(self) -> &'static str {
                match self {
                    $(Opcode::$name => $mnemonic,)*
                }
            }
        }
    };
}

#[rustfmt::skip]
opcodes! {
    Illegal = "illegal", Mov = "mov", Sel = "sel", Movi = "movi", Not = "not", And = "and",
    Or = "or", Xor = "xor", Shr = "shr", Shl = "shl", Dim = "dim", Asr = "asr", Cmp = "cmp",
    Cmpn = "cmpn", F32to16 = "f32to16", F16to32 = "f16to32", Bfrev = "bfrev", Bfe = "bfe",
    Bfi1 = "bfi1", Bfi2 = "bfi2", Jmpi = "jmpi", Brd = "brd", If = "if", Iff = "iff", Brc = "brc",
    Else = "else", Endif = "endif", Do = "do", Case = "case", While = "while", Break = "break",
    Cont = "cont", Halt = "halt", Calla = "calla", Msave = "msave", Call = "call", Mrest = "mrest",
    Ret = "ret", Push = "push", Fork = "fork", Pop = "pop", Wait = "wait", Send = "send",
    Sendc = "sendc", Math = "math", Add = "add", Mul = "mul", Avg = "avg", Frc = "frc",
    Rndu = "rndu", Rndd = "rndd", Rnde = "rnde", Rndz = "rndz", Mac = "mac", Mach = "mach",
    Lzd = "lzd", Fbh = "fbh", Fbl = "fbl", Cbit = "cbit", Addc = "addc", Subb = "subb",
    Sad2 = "sad2", Sada2 = "sada2", Dp4 = "dp4", Dph = "dph", Dp3 = "dp3", Dp2 = "dp2",
    Line = "line", Pln = "pln", Mad = "mad", Lrp = "lrp", Nenop = "nenop", Nop = "nop",
    Sync = "sync", Smov = "smov", Ror = "ror", Rol = "rol", Csel = "csel", Goto = "goto",
    Join = "join", Add3 = "add3", Dp4a = "dp4a", Dpas = "dpas",
    Dpasw = "dpasw", Bfn = "bfn", Madm = "madm",
}

impl Opcode {
    /// Looks a mnemonic up (exact, lower case).
    pub fn from_mnemonic(name: &str) -> Option<Opcode> {
        Opcode::ALL.iter().copied().find(|op| op.mnemonic() == name)
    }
}
