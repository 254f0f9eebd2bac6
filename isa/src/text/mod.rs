//! Assembly text: a disassembler and an assembler in the syntax of Intel's
//! `iga64`, and a printer of the older `intel-gen4asm` syntax.
//!
//! # Our syntax (all generations)
//!
//! For Gen7.5 the text is what `iga64 -p=7p5` assembles to the same bits:
//!
//! ```text
//! (W&~f0.1.any4h) add (8|M0) (lt)f0.1 (sat)r1.0<1>:f -r2.0<8;8,1>:f (abs)r3.1<0;1,0>:f {AccWrEn}
//! send (8|M0) r10:ud r2 0xA 0x02110000 {EOT}
//! if (8|M0) 32 96            // JIP and UIP: byte offsets from this instruction, or labels
//! ```
//!
//! Sub-registers count elements of the operand's type (a byte offset that is
//! not a multiple of the element size is written `r1.3b`). Float immediates
//! are written as their bits in hex (`0x3FC00000:f`), which IGA accepts.
//!
//! An integer immediate must fit its type's bits read signed or unsigned:
//! `:w`/`:uw` -2^15..2^16-1 (or the replicated dword the encoding holds,
//! `0x00020002:w`), `:d`/`:ud` and the bits of `:f`/`:v`/`:uv`/`:vf`
//! -2^31..2^32-1, `:df` -2^63..2^64-1. iga64 (`-p=7p5`) accepts the same
//! ranges but truncates what lies beyond (`0x12345:uw` becomes `0x2345`,
//! `0xffffffffffffffff:d` -1); here that is an error. Jump numbers and
//! labels must fit their field (Gen4/G45 `jmpi`: 16 bits of 128-bit
//! instructions, 000 lines 11955-11961). `{EOT}` is a send option only.
//!
//! IGA has no platform before Gen7.5, so older generations use the same
//! syntax with their own fields. Choices made here:
//!
//! * Execution group: Gen6+ QtrCtrl/NibCtrl is IGA's channel offset `(8|M8)`
//!   (offset = 8*qtr + 4*nib). Gen4/G45 ComprCtrl: SecHalf is `(8|M8)`,
//!   Compressed is the option `{Compr}`.
//! * Message registers are `mN`. The Gen4/G45 `send` names its base MRF
//!   before the implied-move source: `send (8|M0) r4:uw m1 r0:ud 0x6 0x0a10`,
//!   the SFID is the first number and the low 24 bits of the descriptor
//!   (without EOT) the second.
//!   A send destination with a stride other than 1 or an Align16 write mask
//!   other than `.xyzw` is written in full (`r20.0<1>.x:f`).
//!   A descriptor immediate typed other than UD carries its type
//!   (`0x02110203:d`, as intel-gen4asm writes them).
//! * Gen4/G45 branches print their jump count in bytes and, when non-zero,
//!   the pop count as `pop(N)`: `else (8|M0) 48 pop(1)`; Gen6 `if/else/endif/
//!   while` print their single JIP; Gen6 `break/cont/halt` and all Gen7
//!   branches JIP and UIP where IGA does.
//! * Align16 (IGA on Gen7.5 has no Align16 syntax except the three-source
//!   forms `<2;1>`, `<0;0>` and `<1>`/`<0>`): the option `{Align16}`, source
//!   regions `<vstride>` followed by a swizzle (`r2.0<4>.yxzw:f`), and the
//!   destination write mask after its stride (`r1.0<1>.xy:f`). Three-source
//!   operands that IGA cannot express use the same swizzle form.
//! * Fields the syntax leaves implicit (the unused second source of a
//!   one-source instruction, branch operands, `nop`) take the values IGA
//!   writes. Compilers write others there (Mesa's emitter copies an
//!   immediate's type code into the unused src1, gives Gen4 branches `ip`
//!   operands, Gen7 `if` a `null:d` src0 and an IMM:W src1); hardware ignores
//!   them, and the text keeps them as explicit slots after the operands:
//!   `dst=`, `src0=` or `src1=` followed by an operand, or by `file:type`
//!   (`arf`, `grf`, `mrf`, `imm`) for a slot of which only the file and type
//!   fields exist. The type of such a slot is named by its file's table
//!   (immediate types for `imm`, register types otherwise), or by the other
//!   table where that one reserves the code (`src1=arf:v` on Gen4-Gen6). A source slot whose file field says
//!   IMM but which holds register fields is `imm0<0;1,0>:w`. The printer
//!   writes a slot only where it differs from what the assembler fills in:
//!
//!   ```text
//!   mov (8|M0) r10.0<1>:w 0x76543210:v src1=arf:v
//!   (f0.0) if (8|M0) 48 96 dst=null<1>:d src0=null<0;1,0>:d src1=imm:w
//!   else (8|M0) 48 pop(1) src0=ip<4;1,0>:ud {Switch}
//!   math.inv (8|M0) r20.0<1>:f r21.0<8;8,1>:f src1=null<8;8,1>:f
//!   ```
//!
//!   [`disassemble`] checks each line by assembling it again; an instruction
//!   that still differs (none known) is written as a `.raw` line with the
//!   text as a comment, so disassembly always reassembles exactly.
//! * A send's SFID and descriptor may be written as one symbolic message
//!   instead ([`crate::message`]): `send (8|M0) r10:ud r2
//!   dc.untyped_read(bti=1, simd=8, mask=xyzw) mlen=2 rlen=4`. The
//!   disassembler keeps the numbers (IGA reads them) and, with
//!   `DisasmOptions::messages`, adds the symbolic form as a comment.
//! * `.raw 0x.. 0x.. 0x.. 0x..` (four dwords, DW0 first) emits a native
//!   word, `.raw 0x.. 0x..` a compact one.
//! * Gen6+ `call` is `call (1|M0) r10.0<1>:d 64` (or a label): src0 is
//!   implicit (`null<2;2,1>:ud`, as iga64 writes it), the target is src1.
//!
//! # Labels
//!
//! `NAME:` on a line of its own names the next instruction; any jump
//! operand may name a label instead of a number, forward or backward.
//! [`disassemble_with`] with `labels` prints `L<offset>:` lines (the byte
//! offset, as iga64 names them) before every branch target inside the
//! kernel and the label in the operand; targets outside stay numbers.
//! Where each jump field counts from is in `jumps`.
//!
//! # Compaction
//!
//! `{Compacted}` stores a line in the 64-bit form (an error if it has
//! none), `{Uncompacted}` (iga64 also accepts `{NoCompact}`) stores it
//! native. `nop {Compacted}` is the compact NOP with every table index 0
//! (the padding below), whose operands are what those entries hold. By default every other line is native; with
//! [`AsmOptions::compact`] every line the tables can compact is compacted
//! and branches are laid out on the compacted offsets (see `asm::layout`).

pub mod asm;
pub mod disasm;
pub mod gen4asm;
pub(crate) mod jumps;
pub mod parse;
pub mod print;

pub use asm::{
    AsmError, AsmOptions, Program, assemble, assemble_program, assemble_program_with, assemble_with,
};
pub use disasm::{DisasmError, DisasmOptions, disassemble, disassemble_to, disassemble_with};
pub use print::print_instruction;

use crate::generation::IsaGen;
use crate::inst::{CondMod, MathFn, PredCtrl, Type};
use crate::tables::{self, ArfKind};

/// Condition modifier names (IGA's `(lt)` ...), Gen4's round increment `r`.
pub(crate) const COND_NAMES: [(CondMod, &str); 9] = [
    (CondMod::Z, "eq"),
    (CondMod::Nz, "ne"),
    (CondMod::G, "gt"),
    (CondMod::Ge, "ge"),
    (CondMod::L, "lt"),
    (CondMod::Le, "le"),
    (CondMod::R, "r"),
    (CondMod::O, "ov"),
    (CondMod::U, "un"),
];

/// Predicate control suffixes after the flag (`f0.0.any4h`).
pub(crate) const PRED_NAMES: [(PredCtrl, &str); 16] = [
    (PredCtrl::AnyV, "anyv"),
    (PredCtrl::AllV, "allv"),
    (PredCtrl::Any2H, "any2h"),
    (PredCtrl::All2H, "all2h"),
    (PredCtrl::Any4H, "any4h"),
    (PredCtrl::All4H, "all4h"),
    (PredCtrl::Any8H, "any8h"),
    (PredCtrl::All8H, "all8h"),
    (PredCtrl::Any16H, "any16h"),
    (PredCtrl::All16H, "all16h"),
    (PredCtrl::Any32H, "any32h"),
    (PredCtrl::All32H, "all32h"),
    (PredCtrl::X, "x"),
    (PredCtrl::Y, "y"),
    (PredCtrl::Z, "z"),
    (PredCtrl::W, "w"),
];

/// `math` function names as IGA spells them.
pub(crate) const MATH_NAMES: [(MathFn, &str); 13] = [
    (MathFn::Inv, "inv"),
    (MathFn::Log, "log"),
    (MathFn::Exp, "exp"),
    (MathFn::Sqrt, "sqt"),
    (MathFn::Rsq, "rsqt"),
    (MathFn::Sin, "sin"),
    (MathFn::Cos, "cos"),
    (MathFn::SinCos, "sincos"),
    (MathFn::Fdiv, "fdiv"),
    (MathFn::Pow, "pow"),
    (MathFn::IntDivQuotientRemainder, "idiv"),
    (MathFn::IntDivQuotient, "iqot"),
    (MathFn::IntDivRemainder, "irem"),
];

/// Every type suffix.
pub(crate) const TYPES: [Type; 11] = [
    Type::Ud,
    Type::D,
    Type::Uw,
    Type::W,
    Type::Ub,
    Type::B,
    Type::F,
    Type::Df,
    Type::V,
    Type::Uv,
    Type::Vf,
];

/// ARF register name prefixes by kind. `ip` and `null` take no number.
pub(crate) const ARF_NAMES: [(ArfKind, &str); 13] = [
    (ArfKind::Null, "null"),
    (ArfKind::Address, "a"),
    (ArfKind::Accumulator, "acc"),
    (ArfKind::Flag, "f"),
    (ArfKind::Mask, "mask"),
    (ArfKind::MaskStack, "ms"),
    (ArfKind::MaskStackDepth, "msd"),
    (ArfKind::State, "sr"),
    (ArfKind::Control, "cr"),
    (ArfKind::Notification, "n"),
    (ArfKind::Ip, "ip"),
    (ArfKind::ThreadDependency, "tdr"),
    (ArfKind::Timestamp, "tm"),
];

/// The ARF kind whose register numbers start at `nr & 0xF0` on `p`.
pub(crate) fn arf_base(p: IsaGen, kind: ArfKind) -> Option<u8> {
    let t = tables::for_platform(p);
    (0u8..16)
        .find(|&i| t.arf_kind(i << 4) == Some(kind))
        .map(|i| i << 4)
}
