//! What each platform's math unit accepts: functions and their codes,
//! operand types, channel counts, and the Gen4/G45 message function-control
//! bits. The interpreter and the sends helper use these to report a bad
//! request before evaluating it.

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{MathFn, MsgDesc, Sfid, Type};
use baregpu_isa::message::{self, MathMsg, Message};
use baregpu_isa::tables;

use super::{MathError, MathMode, Precision};

/// Gen4/G45 is the extended-math *message* (SFID 1); Gen6+ the `math`
/// instruction.
const fn is_message_form(platform: IsaGen) -> bool {
    matches!(platform, IsaGen::Gen4 | IsaGen::G45)
}

/// The function behind function-control code `code` (bits 3:0): the
/// Gen4/G45 message's codes (000 line 5882; 8h is SINCOS) or the Gen6+
/// `math` instruction's (003 lines 99259-99300; 8h reserved, 9h FDIV; Gen7
/// keeps them), both from the EU toolkit's tables.
fn code_table(platform: IsaGen, code: u8) -> Option<MathFn> {
    if is_message_form(platform) {
        baregpu_isa::message::math_function(u32::from(code))
    } else {
        tables::for_platform(platform)
            .math_fns
            .get(usize::from(code))
            .copied()
            .flatten()
    }
}

/// The function with function-control code `code` (bits 3:0) on `platform`.
pub fn function_from_code(platform: IsaGen, code: u8) -> Result<MathFn, MathError> {
    code_table(platform, code).ok_or(MathError::ReservedFunction(code))
}

/// The function-control code of `func` on `platform`, if it exists there.
pub fn function_code(platform: IsaGen, func: MathFn) -> Option<u8> {
    (0u8..16).find(|&c| code_table(platform, c) == Some(func))
}

/// Whether `platform` has `func`: SINCOS only in the Gen4/G45 message,
/// FDIV only in the Gen6+ instruction (tables above).
pub fn supports(platform: IsaGen, func: MathFn) -> bool {
    function_code(platform, func).is_some()
}

/// The three integer-divide functions.
pub const fn is_int_div(func: MathFn) -> bool {
    matches!(
        func,
        MathFn::IntDivQuotientRemainder | MathFn::IntDivQuotient | MathFn::IntDivRemainder
    )
}

/// Source operands read: POW, FDIV and INT DIV take two (000 line 5904;
/// 003 line 99331: single-source functions have a null src1).
pub const fn operand_count(func: MathFn) -> u8 {
    match func {
        MathFn::Pow | MathFn::Fdiv => 2,
        f if is_int_div(f) => 2,
        _ => 1,
    }
}

/// Results written: SINCOS (sin, cos) and INT DIV quotient+remainder write
/// two registers (000 line 5958; 003 lines 99321-99322).
pub const fn result_count(func: MathFn) -> u8 {
    match func {
        MathFn::SinCos | MathFn::IntDivQuotientRemainder => 2,
        _ => 1,
    }
}

/// Widest request per message or instruction:
/// - Gen4: 8 channels (000 line 5864).
/// - G45 ([DevCTG+]): 16-channel messages for every function except POW
///   and INT DIV (000 line 5908).
/// - Gen6: "can not be SIMD16" (003 line 99333).
/// - Gen7/7.5: SIMD16 except INT DIV [ext: IVB PRM vol 4 part 3 p. 192,
///   "INT DIV function does not support SIMD16", quoted in Mesa
///   src/gallium/drivers/ilo/shader/toy_legalize.c].
pub fn max_exec_size(platform: IsaGen, func: MathFn) -> u8 {
    let two_operand = operand_count(func) == 2;
    match platform {
        IsaGen::Gen4 | IsaGen::Gen6 => 8,
        IsaGen::G45 => {
            if two_operand {
                8
            } else {
                16
            }
        }
        // Gen12.5 code runs in `eu::xe`, which does not use this table.
        IsaGen::Gen7 | IsaGen::Gen75 | IsaGen::Gen12_5 => {
            if is_int_div(func) {
                8
            } else {
                16
            }
        }
    }
}

/// How the sources of a Gen6+ `math` instruction are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operands {
    /// 32-bit float sources: call [`super::float`].
    Float,
    /// D (signed) or UD (unsigned) sources: call [`super::int_div`].
    Int { signed: bool },
}

/// Checks the source types of a `math` instruction: INT DIV takes D or UD
/// and both sources alike, every other function F (003 lines 99324-99329).
/// `src1` is the second source's type for two-operand functions; for the
/// others it is the null register and is not examined.
pub fn operand_kind(func: MathFn, src0: Type, src1: Option<Type>) -> Result<Operands, MathError> {
    if is_int_div(func) {
        let signed = match (src0, src1) {
            (Type::D, Some(Type::D)) => true,
            (Type::Ud, Some(Type::Ud)) => false,
            _ => return Err(MathError::BadTypes(func)),
        };
        return Ok(Operands::Int { signed });
    }
    let second_ok = operand_count(func) == 1 || src1 == Some(Type::F);
    if src0 == Type::F && second_ok {
        Ok(Operands::Float)
    } else {
        Err(MathError::BadTypes(func))
    }
}

/// The function-control bits of a Gen4/G45 extended-math message
/// descriptor, bits 15:0 (000 lines 5868-5882). Bits 19:16 are not part of
/// the shared function's field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageControl {
    /// Bits 3:0.
    pub function: MathFn,
    /// Bit 4, Integer Type: INT DIV sources and results are signed
    /// (ignored by the other functions).
    pub signed: bool,
    /// Bit 5, Precision: partial (a hint, honoured only in ALT mode).
    pub precision: Precision,
    /// Bit 6: saturate the result to [0, 1] (float functions only).
    pub saturate: bool,
    /// Bit 7, Source Structure: scalar (channel 0 feeds channels 0-3,
    /// channel 4 feeds 4-7; 000 lines 5884-5899) rather than per channel.
    pub scalar: bool,
    /// Bit 8: latch debug data into the EM snapshot register.
    pub snapshot: bool,
}

impl MessageControl {
    /// Decodes the low 16 descriptor bits. Errors: not a Gen4/G45 platform
    /// (Gen6+ has no extended-math message), a reserved function code, MBZ
    /// bits 15:9 set (000 line 5872), saturate on INT DIV ("allowed only on
    /// floating point math functions", 000 line 5875).
    pub fn decode(platform: IsaGen, bits: u16) -> Result<Self, MathError> {
        if !is_message_form(platform) {
            return Err(MathError::NoMessageForm(platform));
        }
        let mbz = bits & 0xFE00;
        if mbz != 0 {
            return Err(MathError::ReservedBits(u32::from(mbz)));
        }
        // The reserved function codes, as the unit reports them.
        function_from_code(platform, (bits & 0xF) as u8)?;
        // The bit layout is the toolkit's (one definition for the
        // assembler, the disassembler and this unit).
        let desc = MsgDesc {
            mlen: 1,
            rlen: 1,
            header: false,
            function: u32::from(bits),
        };
        match message::decode(platform, Sfid::Math, &desc) {
            Ok(Message::Math(m)) => Self::from_message(platform, &m),
            _ => Err(MathError::ReservedBits(u32::from(bits))),
        }
    }

    /// The controls of a message the toolkit decoded. Errors: not a
    /// Gen4/G45 platform, a function the platform lacks, saturate on INT
    /// DIV ("allowed only on floating point math functions", 000 line
    /// 5875).
    pub fn from_message(platform: IsaGen, m: &MathMsg) -> Result<Self, MathError> {
        if !is_message_form(platform) {
            return Err(MathError::NoMessageForm(platform));
        }
        if !supports(platform, m.function) {
            return Err(MathError::Unsupported {
                platform,
                func: m.function,
            });
        }
        if m.saturate && is_int_div(m.function) {
            return Err(MathError::SaturateOnInteger);
        }
        Ok(Self {
            function: m.function,
            signed: m.signed,
            precision: if m.partial {
                Precision::Partial
            } else {
                Precision::Full
            },
            saturate: m.saturate,
            scalar: m.scalar,
            snapshot: m.snapshot,
        })
    }

    /// The evaluation mode for this message; `alt` is cr0 bit 0, which the
    /// request carries to the unit (000 lines 5882 and 6982).
    pub fn mode(&self, platform: IsaGen, alt: bool) -> MathMode {
        MathMode {
            platform,
            alt,
            precision: self.precision,
            saturate: self.saturate,
        }
    }
}
