//! Operands as the interpreter executes them: every direct register
//! operand is turned once, at predecode, into the flat byte offset of each
//! channel's element ([`plan`]); immediates into their per-channel values;
//! register-indirect operands keep what is needed to compute addresses from
//! a0 at run time ([`indirect`]). [`read`] and [`write`] move elements
//! between registers and the lanes the ALU works on.

pub mod indirect;
pub mod plan;
pub mod read;
pub mod write;

use baregpu_isa::inst::Type;

use crate::eu::thread::layout::Span;

/// Channels an instruction can have.
pub const MAX_CH: usize = 32;

/// Source modifiers: absolute value first, then negate (000 line 9763; 003
/// lines 94079-94097). On integers both are arithmetic (the manuals define
/// no bitwise meaning for logic instructions: "Source modifiers are
/// allowed", 000 lines 10885-10920).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mods {
    pub abs: bool,
    pub neg: bool,
}

/// A register-indirect operand (000 lines 8353-8411).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Indirect {
    /// The register file the address indexes (its flat base and size).
    pub span: Span,
    /// First address sub-register (a0.N, 16-bit words).
    pub addr_subnr: u8,
    /// Signed byte offset added to the address.
    pub imm: i16,
    /// Region in elements: one address register per row of `width` when
    /// `per_row`, else one for the whole region (1x1).
    pub vstride: u8,
    pub width: u8,
    pub hstride: u8,
    pub per_row: bool,
    /// Align16 swizzle (None in Align1).
    pub swizzle: Option<u8>,
}

/// Where a source's elements come from.
#[derive(Clone, Debug, PartialEq)]
pub enum SrcKind {
    /// Not read by the instruction.
    Absent,
    /// Flat byte offset of each channel's element.
    Direct {
        off: [u16; MAX_CH],
    },
    /// Immediate: `period` values repeat across channels (1 for a scalar,
    /// 8 for V/UV, 4 for VF), raw bits of `ty`.
    Imm {
        vals: [u64; 8],
        period: u8,
    },
    Indirect(Indirect),
}

/// A source operand: element type (V/UV/VF already expanded to W/UW/F),
/// modifiers, and where the elements are.
#[derive(Clone, Debug, PartialEq)]
pub struct SrcPlan {
    pub ty: Type,
    pub mods: Mods,
    /// An explicit accumulator source: not denormal-flushed (000 lines
    /// 7753-7771).
    pub acc: bool,
    pub kind: SrcKind,
}

impl SrcPlan {
    pub const ABSENT: SrcPlan = SrcPlan {
        ty: Type::Ud,
        mods: Mods {
            abs: false,
            neg: false,
        },
        acc: false,
        kind: SrcKind::Absent,
    };

    pub fn is_absent(&self) -> bool {
        matches!(self.kind, SrcKind::Absent)
    }

    /// The per-channel offsets of a direct operand.
    pub fn offsets(&self) -> Option<[u16; MAX_CH]> {
        match &self.kind {
            SrcKind::Direct { off } => Some(*off),
            _ => None,
        }
    }
}

/// Where results go.
#[derive(Clone, Debug, PartialEq)]
pub enum DstKind {
    /// `null`: nothing is stored, but the type still shapes the conversion
    /// the flags see (000 lines 7587-7610).
    Null,
    Direct {
        off: [u16; MAX_CH],
    },
    Indirect(Indirect),
}

#[derive(Clone, Debug, PartialEq)]
pub struct DstPlan {
    pub ty: Type,
    /// An explicit accumulator destination (keeps the extra precision).
    pub acc: bool,
    pub kind: DstKind,
}

impl DstPlan {
    pub const NULL: DstPlan = DstPlan {
        ty: Type::Ud,
        acc: false,
        kind: DstKind::Null,
    };

    /// The per-channel offsets of a direct destination.
    pub fn kind_offsets(&self) -> Option<[u16; MAX_CH]> {
        match &self.kind {
            DstKind::Direct { off } => Some(*off),
            _ => None,
        }
    }
}
