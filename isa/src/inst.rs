//! The generation-neutral EU instruction.
//!
//! One [`Instruction`] describes a native (128-bit) instruction of any
//! generation from Gen4 to Gen7.5. Fields are normalised for an interpreter
//! (execution size as a count, strides in elements, sub-register offsets in
//! bytes, jump offsets in bytes, typed enums), yet the representation is
//! exact: the codec maps every decodable word to exactly one `Instruction`
//! and back. Where hardware ignores bits that software may still set (the
//! flag sub-register without predication, the unused second source of a
//! one-source instruction, both halves of a word immediate), the raw value is
//! kept here rather than dropped.
//!
//! Room for Gen12.5: [`Instruction::swsb`], [`Send::src1`] and
//! [`Send::ex_desc`] stay `None` on older generations; three-source operands
//! use the ordinary [`Src`]/[`Region`] types so Align1 three-source forms fit.

mod build;
mod opcode;

pub use build::vf_to_f32_bits;
pub use opcode::Opcode;

/// Numeric type of an operand. Which codes a generation uses for which type
/// (register and immediate tables differ) is in `tables`.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// Unsigned doubleword.
    Ud,
    /// Signed doubleword.
    D,
    /// Unsigned word.
    Uw,
    /// Signed word.
    W,
    /// Unsigned byte (registers only).
    Ub,
    /// Signed byte (registers only).
    B,
    /// 32-bit float.
    F,
    /// 64-bit float (Gen7+ registers; Gen7.5 `dim` immediate).
    Df,
    /// Eight signed 4-bit integers (immediate only).
    V,
    /// Eight unsigned 4-bit integers (immediate only, Gen6+).
    Uv,
    /// Four 8-bit restricted floats (immediate only).
    Vf,
    /// Unsigned quadword (Gen12.5).
    Uq,
    /// Signed quadword (Gen12.5).
    Q,
    /// 16-bit IEEE half float (Gen12.5).
    Hf,
    /// 16-bit bfloat (Gen12.5).
    Bf,
}

impl Type {
    /// Size of one element in bytes (vector immediates: the element they
    /// expand to: word for V/UV, float for VF).
    pub const fn size(self) -> u8 {
        match self {
            Type::Ub | Type::B => 1,
            Type::Uw | Type::W | Type::V | Type::Uv | Type::Hf | Type::Bf => 2,
            Type::Ud | Type::D | Type::F | Type::Vf => 4,
            Type::Df | Type::Uq | Type::Q => 8,
        }
    }

    /// Floating-point types (F, DF, VF, HF, BF).
    pub const fn is_float(self) -> bool {
        matches!(self, Type::F | Type::Df | Type::Vf | Type::Hf | Type::Bf)
    }

    /// The assembly suffix (`ud`, `f`, `vf` ...).
    pub const fn name(self) -> &'static str {
        match self {
            Type::Ud => "ud",
            Type::D => "d",
            Type::Uw => "uw",
            Type::W => "w",
            Type::Ub => "ub",
            Type::B => "b",
            Type::F => "f",
            Type::Df => "df",
            Type::V => "v",
            Type::Uv => "uv",
            Type::Vf => "vf",
            Type::Uq => "uq",
            Type::Q => "q",
            Type::Hf => "hf",
            Type::Bf => "bf",
        }
    }
}

/// Register file of an operand slot. `Imm` marks an immediate source; in a
/// placeholder slot (see [`Vacant`]) any code may appear.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegFile {
    /// Architecture registers (null, a0, acc, f, cr0, ip ...).
    Arf,
    /// General registers r0-r127.
    Grf,
    /// Message registers (Gen4-Gen6 only).
    Mrf,
    /// Immediate.
    Imm,
}

/// Well-known ARF register numbers (RegNum: type in bits 7:4, number in 3:0).
pub mod arf {
    /// The null register.
    pub const NULL: u8 = 0x00;
    /// Address register a0.
    pub const A0: u8 = 0x10;
    /// Accumulator acc0 (acc1 = 0x21).
    pub const ACC0: u8 = 0x20;
    /// Flag register f0 (f1 = 0x31 on Gen7).
    pub const F0: u8 = 0x30;
    /// State register sr0.
    pub const SR0: u8 = 0x70;
    /// Control register cr0.
    pub const CR0: u8 = 0x80;
    /// Notification register n0.
    pub const N0: u8 = 0x90;
    /// Instruction pointer.
    pub const IP: u8 = 0xA0;
}

/// Operand access mode (bit 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessMode {
    /// Byte-aligned regions.
    Align1,
    /// 16-byte-aligned operands with swizzles and write masks.
    Align16,
}

/// Thread control (bits 15:14).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThreadCtrl {
    Normal,
    Atomic,
    Switch,
}

/// Gen4/G45 compression control (bits 13:12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compression {
    /// Uncompressed, first half of implicit registers.
    None,
    /// Uncompressed, second half of implicit registers (acc1, flag bits 15:8).
    SecHalf,
    /// One instruction executed as two halves.
    Compressed,
}

/// Which channel group an instruction covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GroupCtrl {
    /// Gen4/G45: ComprCtrl.
    Compression(Compression),
    /// Gen6+: QtrCtrl (0-3) and, on Gen7, NibCtrl (bit 47).
    Quarter { qtr: u8, nib: bool },
}

impl GroupCtrl {
    /// First channel covered, for Gen6+ quarter control (Gen4: 8 for
    /// SecHalf, else 0).
    pub const fn first_channel(self, exec_size: u8) -> u8 {
        match self {
            GroupCtrl::Compression(Compression::SecHalf) => 8,
            GroupCtrl::Compression(_) => 0,
            GroupCtrl::Quarter { qtr, nib } => match exec_size {
                0..=4 => (qtr * 2 + nib as u8) * 4,
                8 => qtr * 8,
                16 => (qtr >> 1) * 16,
                _ => 0,
            },
        }
    }
}

/// Predicate control (bits 19:16). The code of a variant depends on the
/// access mode: X/Y/Z/W exist only in Align16, the vertical and 2/8/16/32
/// groups only in Align1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PredCtrl {
    None,
    /// Each channel uses its own flag bit.
    Normal,
    AnyV,
    AllV,
    Any2H,
    All2H,
    Any4H,
    All4H,
    Any8H,
    All8H,
    Any16H,
    All16H,
    Any32H,
    All32H,
    X,
    Y,
    Z,
    W,
}

/// Condition modifier (bits 27:24 outside send/math).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CondMod {
    None,
    /// Zero / equal.
    Z,
    /// Not zero / not equal.
    Nz,
    G,
    Ge,
    L,
    Le,
    /// Round increment (Gen4/G45 only).
    R,
    /// Overflow.
    O,
    /// Unordered (NaN).
    U,
}

/// Flag register and sub-register used by predication and the condition
/// modifier (Gen4-6: only f0, subregister 0 or 1; Gen7: f0 or f1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FlagReg {
    pub reg: u8,
    pub subreg: u8,
}

/// Gen6+ `math` function control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    Inv,
    Log,
    Exp,
    Sqrt,
    Rsq,
    Sin,
    Cos,
    /// Gen4 extended-math message only.
    SinCos,
    Fdiv,
    Pow,
    /// Integer divide writing quotient to dst and remainder to dst+1.
    IntDivQuotientRemainder,
    IntDivQuotient,
    IntDivRemainder,
    /// Gen12.5 IEEE macros: a math-macro selector in place of every
    /// sub-register (as on `madm`).
    Invm,
    Rsqtm,
}

/// Shared-function ID (message target).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sfid {
    Null,
    /// Gen4 extended math.
    Math,
    Sampler,
    Gateway,
    /// Gen4 data port read.
    DataPortRead,
    /// Gen4 data port write.
    DataPortWrite,
    Urb,
    ThreadSpawner,
    /// Gen6+ video motion estimation.
    Vme,
    /// Gen6+ data port through the sampler cache.
    DpSamplerCache,
    /// Gen6+ data port through the render cache.
    DpRenderCache,
    /// Gen6+ data port through the constant cache.
    DpConstantCache,
    /// Gen7+ data cache.
    DpDataCache,
    /// Gen7+ pixel interpolator.
    PixelInterpolator,
    /// Gen7.5 second data-cache port.
    DpDataCache1,
    /// Gen7.5 check-and-refinement engine.
    Cre,
    /// Gen12.5 untyped global memory, load/store cache (LSC) port.
    Ugm,
    /// Gen12.5 untyped global memory, LSC, "ugml" port.
    Ugml,
    /// Gen12.5 typed global memory (LSC).
    Tgm,
    /// Gen12.5 shared local memory (LSC).
    Slm,
    /// Gen12.5 bindless thread dispatch.
    Btd,
    /// Gen12.5 ray-tracing accelerator.
    Rta,
}

/// In-order pipe a register-distance dependency waits on (Gen12.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pipe {
    /// `@n`: the pipe of the instruction itself.
    Same,
    /// `A@n`: every in-order pipe.
    All,
    /// `F@n`: float pipe.
    Float,
    /// `I@n`: integer pipe.
    Int,
    /// `L@n`: long (64-bit) pipe.
    Long,
}

/// What an SBID token annotation does (Gen12.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenMode {
    /// `$n`: this out-of-order instruction allocates token n.
    Set,
    /// `$n.dst`: wait until token n's destination is written.
    Dst,
    /// `$n.src`: wait until token n's sources are read.
    Src,
}

/// Software scoreboard annotation of a Gen12.5 instruction (SWSB byte).
/// `None` on Gen4-Gen7.5 and for the empty annotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Swsb {
    /// Register distance 1-7 on a pipe.
    Dist { pipe: Pipe, dist: u8 },
    /// An SBID token 0-15.
    Token { mode: TokenMode, sbid: u8 },
    /// Distance and token in one byte: the token is `Set` on send/math
    /// (out-of-order instructions) and `Dst` on everything else; the
    /// distance's pipe is `All` on send, `Same` elsewhere.
    Both { dist: u8, sbid: u8 },
}

/// Where a register operand starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Addr {
    /// Register number and byte offset within it (Align16: 0 or 16).
    Direct { nr: u8, subnr: u8 },
    /// Address sub-register a0.N plus a signed byte offset (-512..=511;
    /// Align16: a multiple of 16).
    Indirect { addr_subnr: u8, offset: i16 },
}

/// Align16 source swizzle: two bits per channel, x in bits 1:0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle(pub u8);

impl Swizzle {
    /// The identity swizzle `.xyzw`.
    pub const XYZW: Swizzle = Swizzle(0xE4);
    /// Replicate x.
    pub const XXXX: Swizzle = Swizzle(0x00);

    /// The source component (0-3) channel `i` (0-3) reads.
    pub const fn component(self, i: u8) -> u8 {
        (self.0 >> ((i & 3) * 2)) & 3
    }
}

/// Align16 destination write mask, bit 0 = x.
pub const WRITEMASK_XYZW: u8 = 0xF;

/// A source region. Strides and width are in elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Region {
    /// Align1 `<vstride;width,hstride>`.
    Align1 { vstride: u8, width: u8, hstride: u8 },
    /// Align1 indirect with one address sub-register per row of `width`
    /// elements (vertical stride code 1111b: Vx1, or VxH when width is 1).
    VxH { width: u8, hstride: u8 },
    /// Align16: vertical stride (0 replicates one 4-vector) and swizzle.
    Align16 { vstride: u8, swizzle: Swizzle },
}

/// A destination register operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dst {
    pub file: RegFile,
    pub ty: Type,
    pub addr: Addr,
    /// Horizontal stride in elements (0, 1, 2, 4). Kept in Align16 too,
    /// where hardware ignores it but binaries carry a value.
    pub hstride: u8,
    /// Align16 channel write mask; [`WRITEMASK_XYZW`] in Align1.
    pub writemask: u8,
}

/// A source register operand (region, modifiers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegSrc {
    pub file: RegFile,
    pub ty: Type,
    pub addr: Addr,
    pub region: Region,
    pub negate: bool,
    pub abs: bool,
}

/// An immediate: its type and raw bits (low 32 bits, or 64 for a `dim`
/// DF immediate). Word immediates keep both 16-bit halves as encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Imm {
    pub ty: Type,
    pub bits: u64,
}

/// An operand slot of which only the register-file and type fields exist:
/// the rest of its bits hold another operand's immediate or a jump offset.
/// Hardware reads neither field, so any code is kept: `ty` is what the
/// slot file's type table names the code, or the other (register/immediate)
/// table where that one reserves it (`tables::GenTables::vacant_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vacant {
    pub file: RegFile,
    pub ty: Type,
}

/// A source operand slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Src {
    Reg(RegSrc),
    Imm(Imm),
    Vacant(Vacant),
}

/// Destination slot of a branch: a register, or (Gen6 if/else/endif/while/
/// case) only file and type because the JIP fills the region bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DstSlot {
    Reg(Dst),
    Vacant(Vacant),
}

/// One- or two-source instruction (also jmpi, call, ret, wait, nop ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Alu {
    pub dst: Dst,
    pub src0: Src,
    /// Present in the encoding even for one-source instructions.
    pub src1: Src,
}

/// Gen6+ `math`: the function replaces the condition modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Math {
    pub function: MathFn,
    pub dst: Dst,
    pub src0: Src,
    pub src1: Src,
}

/// Three-source instruction (mad, lrp, bfe, bfi2). Gen6/7: Align16, GRF
/// sources, direct addressing, sub-registers in dwords, `vstride` 0
/// (replicate) or 4, one source type shared by all three.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ThreeSrc {
    pub dst: Dst,
    pub src: [Src; 3],
}

/// Branch offsets, in bytes relative to the branch instruction itself
/// (the hardware adds them to the IP before incrementing it). The encoded
/// counts are these divided by the generation's unit
/// (`tables::GenTables::jump_unit`: 16 on Gen4/G45, 8 from Gen6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Jump {
    /// Gen4/G45: jump count and mask-stack pop count (DW3).
    Count { jump: i32, pop: u8 },
    /// Gen6 if/else/endif/while/case/fork: JIP in the destination bits.
    Jip { jip: i32 },
    /// Gen6 break/cont/halt, all Gen7 branches: JIP and UIP in DW3.
    JipUip { jip: i32, uip: i32 },
}

/// A branch whose offsets are fields rather than an ordinary operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Branch {
    pub dst: DstSlot,
    /// When DW3 holds the jump, src0 is kept as encoded even if its file
    /// field says IMM (a placeholder some assemblers write).
    pub src0: Src,
    pub src1: Src,
    pub jump: Jump,
}

/// Immediate message descriptor, normalised across layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MsgDesc {
    /// Message length in registers.
    pub mlen: u8,
    /// Response length in registers.
    pub rlen: u8,
    /// Header present (Gen6+; always false on Gen4).
    pub header: bool,
    /// Function control (Gen4: 16 bits, Gen6+: 19 bits).
    pub function: u32,
}

/// The message descriptor: immediate, or a register (a0.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SendDesc {
    Imm { ty: Type, desc: MsgDesc },
    Reg(RegSrc),
}

/// Extended descriptor of split sends (Gen9+). Unused before.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExDesc {
    Imm(u32),
    /// In a0.`subnr`. `src1_len`: Gen12.5's ExBSO form, where the second
    /// payload's length is an instruction field rather than bits 10:6 of
    /// the register (None: taken from the register).
    Reg {
        subnr: u8,
        src1_len: Option<u8>,
    },
}

/// `send`/`sendc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Send {
    /// Writeback (post-destination) register, or null.
    pub dst: Dst,
    /// Payload: Gen4 implied-move source (GRF or null), Gen6 first MRF,
    /// Gen7 first GRF.
    pub src0: Src,
    pub desc: SendDesc,
    /// Target function. Gen4/G45 keep it in an immediate descriptor, so it
    /// is `None` there when the descriptor is a register.
    pub sfid: Option<Sfid>,
    /// Gen4/G45: first message register of the payload (bits 27:24).
    pub base_mrf: Option<u8>,
    /// End of thread.
    pub eot: bool,
    /// Second payload of split sends (Gen9+); `None` here.
    pub src1: Option<Src>,
    /// Extended descriptor of split sends (Gen9+); `None` here.
    pub ex_desc: Option<ExDesc>,
}

/// Operands and opcode-specific fields. Which variant an opcode uses on a
/// given generation is a table entry (`tables::Layout`).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Body {
    Alu(Alu),
    Math(Math),
    ThreeSrc(ThreeSrc),
    Send(Send),
    Branch(Branch),
    /// Gen12.5 `sync`.
    Sync(Sync),
    /// Gen12.5 `bfn`.
    Bfn(Bfn),
    /// Gen12.5 `dpas`, `dpasw`.
    Dpas(Dpas),
}

/// Gen12.5 `bfn`: the three-source layout with an 8-bit boolean function
/// (the result bit is `function >> (s0 | s1 << 1 | s2 << 2) & 1`; 004
/// lines 11140-11200) and no source modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bfn {
    pub function: u8,
    pub dst: Dst,
    pub src: [Src; 3],
}

/// Element precision of a dpas src1/src2 (SubBytePrecision, 004 lines
/// 13756-14070): the whole type, or 4-/2-bit elements of a byte type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    Full,
    Bits4,
    Bits2,
}

/// Gen12.5 `dpas`/`dpasw`: systolic depth (1, 2, 4, 8) and repeat count
/// (1-8); register operands only, with their implied `<1;1,0>` region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dpas {
    pub depth: u8,
    pub repeat: u8,
    pub dst: Dst,
    pub src: [Src; 3],
    /// src1's and src2's element precision.
    pub precision: [Precision; 2],
}

/// Gen12.5 `sync` function (cond-modifier bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SyncFn {
    Nop,
    AllRd,
    AllWr,
    Fence,
    Bar,
    Host,
}

/// Gen12.5 `sync`: a function and one source (null or an immediate mask).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sync {
    pub function: SyncFn,
    pub src0: Src,
}

/// A decoded native instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instruction {
    pub opcode: Opcode,
    /// Channels: 1, 2, 4, 8, 16 or 32.
    pub exec_size: u8,
    pub access_mode: AccessMode,
    /// MaskCtrl/WECtrl: write channels regardless of the execution masks.
    pub no_mask: bool,
    /// G45 MaskCtrlEx (bit 28); false elsewhere.
    pub mask_ctrl_ex: bool,
    /// Gen6+ AccWrCtrl (bit 28): also write the accumulator.
    pub acc_wr_ctrl: bool,
    pub no_dd_clr: bool,
    pub no_dd_chk: bool,
    pub group: GroupCtrl,
    pub thread_ctrl: ThreadCtrl,
    pub pred_ctrl: PredCtrl,
    /// Kept even without predication (hardware ignores it then).
    pub pred_inv: bool,
    /// Kept even when neither predication nor a condition modifier uses it.
    /// On Gen7.5 `dim` with an immediate, bits 90:89 belong to the 64-bit
    /// immediate: `flag` then mirrors immediate bits 26:25 (the encoder
    /// checks they agree).
    pub flag: FlagReg,
    /// `CondMod::None` for send and math, whose bits 27:24 mean otherwise.
    pub cond_mod: CondMod,
    pub saturate: bool,
    /// DebugCtrl: breakpoint before this instruction.
    pub debug: bool,
    /// Gen12+ software scoreboard; `None` before.
    pub swsb: Option<Swsb>,
    pub body: Body,
}

impl Instruction {
    /// An instruction with every control field at its default (Align1, no
    /// predication, no modifiers) for the given group encoding.
    pub const fn new(opcode: Opcode, exec_size: u8, group: GroupCtrl, body: Body) -> Self {
        Instruction {
            opcode,
            exec_size,
            access_mode: AccessMode::Align1,
            no_mask: false,
            mask_ctrl_ex: false,
            acc_wr_ctrl: false,
            no_dd_clr: false,
            no_dd_chk: false,
            group,
            thread_ctrl: ThreadCtrl::Normal,
            pred_ctrl: PredCtrl::None,
            pred_inv: false,
            flag: FlagReg { reg: 0, subreg: 0 },
            cond_mod: CondMod::None,
            saturate: false,
            debug: false,
            swsb: None,
            body,
        }
    }

    /// The destination register, if the body has one.
    pub fn dst(&self) -> Option<&Dst> {
        match &self.body {
            Body::Alu(a) => Some(&a.dst),
            Body::Math(m) => Some(&m.dst),
            Body::ThreeSrc(t) => Some(&t.dst),
            Body::Send(s) => Some(&s.dst),
            Body::Branch(b) => match &b.dst {
                DstSlot::Reg(d) => Some(d),
                DstSlot::Vacant(_) => None,
            },
            Body::Sync(_) => None,
            Body::Bfn(b) => Some(&b.dst),
            Body::Dpas(d) => Some(&d.dst),
        }
    }

    /// The source slots in order (src0, src1, src2), as encoded.
    pub fn srcs(&self) -> [Option<&Src>; 3] {
        match &self.body {
            Body::Alu(a) => [Some(&a.src0), Some(&a.src1), None],
            Body::Math(m) => [Some(&m.src0), Some(&m.src1), None],
            Body::ThreeSrc(t) => [Some(&t.src[0]), Some(&t.src[1]), Some(&t.src[2])],
            Body::Send(s) => [Some(&s.src0), None, None],
            Body::Branch(b) => [Some(&b.src0), Some(&b.src1), None],
            Body::Sync(s) => [Some(&s.src0), None, None],
            Body::Bfn(b) => [Some(&b.src[0]), Some(&b.src[1]), Some(&b.src[2])],
            Body::Dpas(d) => [Some(&d.src[0]), Some(&d.src[1]), Some(&d.src[2])],
        }
    }

    /// First channel this instruction covers (quarter/nibble/SecHalf).
    pub const fn first_channel(&self) -> u8 {
        self.group.first_channel(self.exec_size)
    }
}
