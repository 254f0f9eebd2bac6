//! Gen4/G45 extended math messages (SFID 1). From Gen6 math is an
//! instruction, and SFID 1 does not exist (003 line 100943).
//!
//! Function control (000 lines 5872-5882): 3:0 function, 4 integer type
//! (signed), 5 precision (partial), 6 saturate, 7 source structure
//! (scalar), 8 snapshot, 15:9 reserved MBZ.

use super::MessageError;
use super::bits::{Reader, Writer, by_code, code_for, reserved};
use super::text::{Out, Parsed, unknown_op};
use crate::generation::IsaGen;
use crate::inst::MathFn;

/// An extended math request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MathMsg {
    pub function: MathFn,
    /// Bit 4: INT DIV operands are signed (ignored by other functions).
    pub signed: bool,
    /// Bit 5: partial precision (honoured only in ALT floating-point mode).
    pub partial: bool,
    /// Bit 6: saturate the result to [0, 1].
    pub saturate: bool,
    /// Bit 7: scalar source structure (channels 0 and 4 feed their group).
    pub scalar: bool,
    /// Bit 8: latch debug information for this message.
    pub snapshot: bool,
}

/// Function codes and their text (000 line 5882: 0h, 9h, Eh, Fh reserved).
const FUNCTIONS: [(u32, MathFn, &str); 12] = [
    (0x1, MathFn::Inv, "inv"),
    (0x2, MathFn::Log, "log"),
    (0x3, MathFn::Exp, "exp"),
    (0x4, MathFn::Sqrt, "sqrt"),
    (0x5, MathFn::Rsq, "rsq"),
    (0x6, MathFn::Sin, "sin"),
    (0x7, MathFn::Cos, "cos"),
    (0x8, MathFn::SinCos, "sincos"),
    (0xA, MathFn::Pow, "pow"),
    (0xB, MathFn::IntDivQuotientRemainder, "intdivmod"),
    (0xC, MathFn::IntDivQuotient, "intdiv"),
    (0xD, MathFn::IntDivRemainder, "intmod"),
];

/// The function of function-control code `code` (bits 3:0), `None` for a
/// reserved code.
pub fn function(code: u32) -> Option<MathFn> {
    by_code(&codes(), code)
}

fn codes() -> [(u32, MathFn); 12] {
    FUNCTIONS.map(|(c, f, _)| (c, f))
}

pub(super) fn decode(fc: u32) -> Result<MathMsg, MessageError> {
    let mut r = Reader::new(fc);
    let code = r.get(3, 0);
    let function = by_code(&codes(), code).ok_or(reserved("math function", 3, 0, code))?;
    let m = MathMsg {
        function,
        signed: r.flag(4),
        partial: r.flag(5),
        saturate: r.flag(6),
        scalar: r.flag(7),
        snapshot: r.flag(8),
    };
    r.finish()?;
    Ok(m)
}

pub(super) fn encode(p: IsaGen, m: &MathMsg) -> Result<u32, MessageError> {
    let mut w = Writer::default();
    let code = code_for(&codes(), m.function).ok_or(MessageError::NotOnPlatform {
        platform: p,
        what: "this math function as a message",
    })?;
    w.put(3, 0, code, "math function")?;
    w.flag(4, m.signed);
    w.flag(5, m.partial);
    w.flag(6, m.saturate);
    w.flag(7, m.scalar);
    w.flag(8, m.snapshot);
    Ok(w.bits())
}

impl MathMsg {
    pub(super) fn text(&self) -> Out {
        let name = FUNCTIONS
            .iter()
            .find(|(_, f, _)| *f == self.function)
            .map_or("fdiv", |(_, _, n)| n);
        let mut o = Out::new("math", name);
        o.flag("signed", self.signed);
        o.flag("partial", self.partial);
        o.flag("sat", self.saturate);
        o.flag("scalar", self.scalar);
        o.flag("snapshot", self.snapshot);
        o
    }
}

pub(super) fn parse(p: &mut Parsed<'_>) -> Result<MathMsg, MessageError> {
    let function = FUNCTIONS
        .iter()
        .find(|(_, _, n)| *n == p.op)
        .map(|(_, f, _)| *f)
        .ok_or_else(|| unknown_op(p))?;
    let f = &mut p.fields;
    Ok(MathMsg {
        function,
        signed: f.flag("signed")?,
        partial: f.flag("partial")?,
        saturate: f.flag("sat")?,
        scalar: f.flag("scalar")?,
        snapshot: f.flag("snapshot")?,
    })
}
