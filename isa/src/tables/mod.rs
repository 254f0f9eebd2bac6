//! Per-generation encoding tables of the native (128-bit) instruction format.
//!
//! Each generation family has one file holding constant data only: field
//! bit positions, opcode numbers with their source counts and instruction
//! layouts, type codes, register-file codes, predicate and condition
//! codes, math functions, SFIDs and jump units. Every entry cites its
//! source: a manual in `shared/prm` as "file lines A-B", or a public
//! driver/assembler as "[ext: ...]" where the manuals are silent.
//!
//! Bits that no field of an instruction's form covers are reserved: the
//! decoder rejects a word that sets any of them.

mod common;
mod gen4;
mod gen6;
mod gen7;

pub use common::{HSTRIDES, VSTRIDE_VXH, VSTRIDES, WIDTHS};

/// RegFile codes of a vacant slot (`inst::Vacant`) on every generation: the
/// Gen4-Gen6 codes. Hardware ignores the field there, so Gen7's reserved
/// MRF code (no MRF, 001 lines 2168-2192) must still decode.
pub const VACANT_FILES: [Option<RegFile>; 4] = gen4::REG_FILES;

use crate::generation::IsaGen;
use crate::inst::{
    Compression, CondMod, MathFn, Opcode, PredCtrl, RegFile, Sfid, ThreadCtrl, Type,
};

/// An inclusive bit range `hi:lo` of the 128-bit instruction word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bits {
    pub hi: u8,
    pub lo: u8,
}

/// Shorthand for table literals.
pub const fn bits(hi: u8, lo: u8) -> Bits {
    Bits { hi, lo }
}

impl Bits {
    /// Width in bits.
    pub const fn width(self) -> u32 {
        (self.hi - self.lo + 1) as u32
    }

    /// The mask of this range within the 128-bit word.
    pub const fn mask(self) -> u128 {
        (u128::MAX >> (127 - (self.hi - self.lo) as u32)) << self.lo
    }
}

/// Where a branch keeps its offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JumpLayout {
    /// Gen4/G45: DW3 is an exit code, jump count 15:0 and pop count 19:16.
    Count,
    /// Gen6: JIP in the destination region bits (63:48).
    DstJip,
    /// Gen6 break/cont/halt, Gen7: JIP in 111:96, UIP in 127:112.
    JipUip,
}

/// Which body form an opcode decodes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Alu,
    Math,
    ThreeSrc,
    Send,
    Branch(JumpLayout),
}

/// One opcode of a generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    pub code: u8,
    pub opcode: Opcode,
    /// Data source operands read (the manuals' "#src" without jump offsets;
    /// the larger count where an operand is optional, as Gen6 if's compare).
    pub srcs: u8,
    pub layout: Layout,
}

/// Shorthand for opcode table literals.
pub const fn op(code: u8, opcode: Opcode, srcs: u8, layout: Layout) -> OpInfo {
    OpInfo {
        code,
        opcode,
        srcs,
        layout,
    }
}

/// Joins two opcode lists (a generation extending its predecessor).
pub(crate) const fn concat_ops<const A: usize, const B: usize, const C: usize>(
    a: [OpInfo; A],
    b: [OpInfo; B],
) -> [OpInfo; C] {
    assert!(A + B == C);
    let mut out = [op(0, Opcode::Illegal, 0, Layout::Alu); C];
    let mut i = 0;
    while i < A {
        out[i] = a[i];
        i += 1;
    }
    while i < C {
        out[i] = b[i - A];
        i += 1;
    }
    out
}

/// Meaning of bit 28.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bit28 {
    Reserved,
    MaskCtrlEx,
    AccWrCtrl,
}

/// Destination fields of the one/two-source format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DstFields {
    pub file: Bits,
    pub ty: Bits,
    pub addr_mode: Bits,
    pub hstride: Bits,
    pub nr: Bits,
    pub subnr: Bits,
    /// Align16 `SubRegNum[4]`.
    pub subnr16: Bits,
    pub writemask: Bits,
    pub addr_subnr: Bits,
    pub addr_imm: Bits,
    /// Align16 `AddrImm[9:4]`.
    pub addr_imm16: Bits,
}

/// Source fields of the one/two-source format (src0 in DW2, src1 in DW3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SrcFields {
    pub file: Bits,
    pub ty: Bits,
    pub vstride: Bits,
    pub width: Bits,
    pub hstride: Bits,
    /// Align16 `ChanSel[7:4]` (z, w).
    pub swizzle_hi: Bits,
    /// Align16 `ChanSel[3:0]` (x, y).
    pub swizzle_lo: Bits,
    pub addr_mode: Bits,
    pub negate: Bits,
    pub abs: Bits,
    pub nr: Bits,
    pub subnr: Bits,
    pub subnr16: Bits,
    pub addr_subnr: Bits,
    pub addr_imm: Bits,
    pub addr_imm16: Bits,
}

/// One source of the three-source format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Src3Fields {
    pub rep_ctrl: Bits,
    pub swizzle: Bits,
    /// Sub-register in dwords.
    pub subnr: Bits,
    pub nr: Bits,
    pub negate: Bits,
    pub abs: Bits,
}

/// Fields of the three-source format (Gen6+).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreeSrcFields {
    /// Gen6: 0 = GRF, 1 = MRF. Absent on Gen7 (no MRF).
    pub dst_file: Option<Bits>,
    pub flag_subreg: Bits,
    pub flag_reg: Option<Bits>,
    pub src_type: Option<Bits>,
    pub dst_type: Option<Bits>,
    pub nib_ctrl: Option<Bits>,
    pub dst_writemask: Bits,
    /// Destination sub-register in dwords.
    pub dst_subnr: Bits,
    pub dst_nr: Bits,
    pub src: [Src3Fields; 3],
}

/// Where `send` keeps its descriptor fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendLayout {
    /// Gen4/G45: base MRF in 27:24, SFID inside the immediate descriptor.
    Gen4 {
        sfid: Bits,
        mlen: Bits,
        rlen: Bits,
        function: Bits,
    },
    /// Gen6+: SFID in 27:24, header-present bit in the descriptor.
    Gen6 {
        mlen: Bits,
        rlen: Bits,
        header: Bits,
        function: Bits,
    },
}

/// Bit positions of the native format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fields {
    pub opcode: Bits,
    pub access_mode: Bits,
    pub mask_ctrl: Bits,
    pub no_dd_clr: Bits,
    pub no_dd_chk: Bits,
    pub group: Bits,
    pub thread_ctrl: Bits,
    pub pred_ctrl: Bits,
    pub pred_inv: Bits,
    pub exec_size: Bits,
    /// CondModifier; also the send SFID/base MRF and the math function.
    pub cond_mod: Bits,
    pub bit28: Bits,
    pub bit28_meaning: Bit28,
    /// CmptCtrl, where compaction exists.
    pub cmpt: Option<Bits>,
    pub debug: Bits,
    pub saturate: Bits,
    pub nib_ctrl: Option<Bits>,
    pub flag_reg: Option<Bits>,
    pub flag_subreg: Bits,
    pub eot: Bits,
    /// Gen6 JIP of if/else/endif/while/case/fork (dst region bits).
    pub dst_jip: Bits,
    /// JIP/jump count in DW3.
    pub jip: Bits,
    /// UIP in DW3.
    pub uip: Bits,
    /// Gen4 exit-code pop count.
    pub pop: Bits,
    /// A 32-bit immediate (DW3), whichever source it belongs to.
    pub imm32: Bits,
    /// A 64-bit immediate (`dim`).
    pub imm64: Bits,
    pub dst: DstFields,
    pub src0: SrcFields,
    pub src1: SrcFields,
    pub three_src: Option<ThreeSrcFields>,
    pub send: SendLayout,
}

/// ARF register kinds by `RegNum[7:4]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArfKind {
    Null,
    Address,
    Accumulator,
    Flag,
    Mask,
    MaskStack,
    MaskStackDepth,
    State,
    Control,
    Notification,
    Ip,
    ThreadDependency,
    Timestamp,
}

/// Everything the codec needs to know about one generation.
#[derive(Debug)]
pub struct GenTables {
    pub platform: IsaGen,
    pub fields: Fields,
    pub opcodes: &'static [OpInfo],
    /// RegFile codes (2 bits) of operands.
    pub reg_files: [Option<RegFile>; 4],
    /// Register type codes.
    pub reg_types: [Option<Type>; 8],
    /// Immediate type codes.
    pub imm_types: [Option<Type>; 8],
    /// Gen7 three-source type codes (Gen6: implicitly F, `None`).
    pub three_src_types: Option<[Option<Type>; 4]>,
    pub exec_sizes: [Option<u8>; 8],
    pub thread_ctrls: [Option<ThreadCtrl>; 4],
    /// Gen4/G45 ComprCtrl codes; `None` where bits 13:12 are QtrCtrl.
    pub compressions: Option<[Option<Compression>; 4]>,
    pub pred_align1: [Option<PredCtrl>; 16],
    pub pred_align16: [Option<PredCtrl>; 16],
    pub cond_mods: [Option<CondMod>; 16],
    pub math_fns: [Option<MathFn>; 16],
    pub sfids: [Option<Sfid>; 16],
    /// Flag registers (f0 only, or f0 and f1).
    pub flag_regs: u8,
    /// Bytes per unit of JIP/UIP/jump count.
    pub jump_unit: u8,
    /// Bytes per unit of a `jmpi` index.
    pub jmpi_unit: u8,
    /// ARF kinds by `RegNum[7:4]`.
    pub arf: [Option<ArfKind>; 16],
}

impl GenTables {
    /// The opcode with this 7-bit number.
    pub fn opcode(&self, code: u8) -> Option<&'static OpInfo> {
        self.opcodes.iter().find(|o| o.code == code)
    }

    /// The table entry of a mnemonic.
    pub fn opcode_info(&self, opcode: Opcode) -> Option<&'static OpInfo> {
        self.opcodes.iter().find(|o| o.opcode == opcode)
    }

    /// Register-type table for a slot of the given file (immediates have
    /// their own codes).
    pub fn types_for(&self, file: RegFile) -> &[Option<Type>; 8] {
        if file == RegFile::Imm {
            &self.imm_types
        } else {
            &self.reg_types
        }
    }

    /// The type a vacant slot's type field names (a slot of which only
    /// file and type exist, see `inst::Vacant`). Hardware reads no operand
    /// there, so a code is kept even where the table of the slot's file
    /// reserves it: emitters copy the immediate's code into the unused
    /// src1 with file ARF (Mesa elk_eu_emit.c elk_set_src0:
    /// `elk_inst_set_src1_reg_hw_type(.., elk_inst_src0_reg_hw_type(..))`),
    /// so such a code is read with the other (immediate/register) table.
    /// Every 3-bit code names a type in one of the two tables.
    pub fn vacant_type(&self, file: RegFile, code: u32) -> Option<Type> {
        let other = if file == RegFile::Imm {
            &self.reg_types
        } else {
            &self.imm_types
        };
        lookup(self.types_for(file), code).or_else(|| lookup(other, code))
    }

    /// The code [`Self::vacant_type`] reads as `ty`.
    pub fn vacant_code(&self, file: RegFile, ty: Type) -> Option<u8> {
        let other = if file == RegFile::Imm {
            &self.reg_types
        } else {
            &self.imm_types
        };
        code_of(self.types_for(file), ty).or_else(|| {
            code_of(other, ty).filter(|&c| lookup(self.types_for(file), u32::from(c)).is_none())
        })
    }

    /// Predicate table for an access mode.
    pub fn preds(&self, align16: bool) -> &[Option<PredCtrl>; 16] {
        if align16 {
            &self.pred_align16
        } else {
            &self.pred_align1
        }
    }

    /// The ARF kind of a register number.
    pub fn arf_kind(&self, nr: u8) -> Option<ArfKind> {
        self.arf.get(usize::from(nr >> 4)).copied().flatten()
    }
}

/// The tables of a platform.
pub fn for_platform(platform: IsaGen) -> &'static GenTables {
    match platform {
        IsaGen::Gen4 => &gen4::GEN4,
        IsaGen::G45 => &gen4::G45,
        IsaGen::Gen6 => &gen6::GEN6,
        IsaGen::Gen7 => &gen7::GEN7,
        IsaGen::Gen75 => &gen7::GEN75,
        // Xe-HPG's native format is not this table's shape (`crate::xehpg`
        // has its own); this entry has no opcodes, so any table-driven path
        // reached with Gen12.5 refuses every word instead of misreading it.
        IsaGen::Gen12_5 => &gen7::GEN12_5_NONE,
    }
}

/// Index of `value` in a code table.
pub fn code_of<T: PartialEq + Copy>(table: &[Option<T>], value: T) -> Option<u8> {
    table
        .iter()
        .position(|e| *e == Some(value))
        .and_then(|i| u8::try_from(i).ok())
}

/// Entry `code` of a code table.
pub fn lookup<T: Copy>(table: &[Option<T>], code: u32) -> Option<T> {
    usize::try_from(code)
        .ok()
        .and_then(|i| table.get(i))
        .copied()
        .flatten()
}

#[cfg(test)]
mod tests;
