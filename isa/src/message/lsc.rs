//! Gen12.5 (Xe-HPG, DG2) load/store-cache (LSC) messages: the descriptor
//! and extended descriptor of a `send` to UGM, UGML, SLM or TGM as a typed
//! message, both ways, and the symbol `iga64 -p=12p71` prints for it.
//!
//! Unlike the older messages (`super::decode`), an LSC message reaches into
//! the extended descriptor (the surface: binding-table index or surface
//! state offset), so it has its own entry points and type, [`LscMsg`].
//!
//! Descriptor fields (004 DP_LOAD lines 19506-19586, DP_FENCE 15406-15469;
//! Mesa `brw_eu.h` `lsc_msg_desc`/`lsc_fence_msg_desc`):
//!
//! ```text
//! 31      MBZ                       30:29 address type (flat/bss/ss/bti)
//! 28:25   src0 length (mlen)        24:20 dest length (rlen)
//! 19:17   cache control             16    MBZ
//! 15      transpose                 14:12 vector size
//! 15:12   channel mask (the cmask operations instead of 15 and 14:12)
//! 11:9    data size                 8:7   address size
//! 6       MBZ                       5:0   operation
//! fence:  11:9 scope, 14:12 flush type, 15 flush range, 18 route to LSC
//! ```
//!
//! The lengths stay outside ([`decode`] ignores bits 28:20, [`encode`]
//! leaves them zero). Every other bit belongs to a field or must be zero;
//! a descriptor with a reserved code or a stray bit is refused with an
//! error that names it, and stays a number in the disassembly.
//!
//! # Symbol
//!
//! As iga64 prints it after `rd:N;` in its send comments:
//!
//! ```text
//! load.ugm.d32x4.a64                 store.slm.d8.a16
//! load.ugm.d32x32t.a32.uc.ca.bti[3]  load_quad.tgm.d32.xyw.a32.bss[0x2000]
//! atomic_iadd.ugm.d32.a64.uc.wb      store.ugm.d64x2.a32.ss[a0.2]
//! fence.ugm.evict.gpu                fence.slm.none.group.range.lsc
//! ```
//!
//! `op.sfid.data[xN][t].aN[.l1.l3][.surface]`: the vector length is
//! written when above one or transposed, `t` marks a transpose; cmask
//! operations write the enabled channels instead (`.xyw`); the cache pair is
//! absent for the state default (and always on SLM, which has none); the
//! surface is absent for flat addresses. The fence's `.range` (bit 15) and
//! `.lsc` (bit 18) are this crate's: iga64 prints neither bit.

use alloc::format;
use alloc::string::String;
use core::fmt::{self, Write};

use super::MessageError;
use crate::inst::Sfid;

/// An LSC operation (descriptor bits 5:0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LscOp {
    Load,
    LoadCmask,
    Store,
    StoreCmask,
    AtomicInc,
    AtomicDec,
    AtomicLoad,
    AtomicStore,
    AtomicAdd,
    AtomicSub,
    AtomicMin,
    AtomicMax,
    AtomicUmin,
    AtomicUmax,
    AtomicCmpxchg,
    AtomicFadd,
    AtomicFsub,
    AtomicFmin,
    AtomicFmax,
    AtomicFcmpxchg,
    AtomicAnd,
    AtomicOr,
    AtomicXor,
}

/// Operation codes (Mesa `brw_eu_defines.h` `enum lsc_opcode`; 004 DP_*
/// entries, notes table 1.5) and iga64's names (`iga64 -p=12p71` send
/// comments; IGA `MessageDecoderLSC.cpp`).
const OPS: [(LscOp, u32, &str); 23] = [
    (LscOp::Load, 0, "load"),
    (LscOp::LoadCmask, 2, "load_quad"),
    (LscOp::Store, 4, "store"),
    (LscOp::StoreCmask, 6, "store_quad"),
    (LscOp::AtomicInc, 8, "atomic_iinc"),
    (LscOp::AtomicDec, 9, "atomic_idec"),
    (LscOp::AtomicLoad, 10, "atomic_load"),
    (LscOp::AtomicStore, 11, "atomic_store"),
    (LscOp::AtomicAdd, 12, "atomic_iadd"),
    (LscOp::AtomicSub, 13, "atomic_isub"),
    (LscOp::AtomicMin, 14, "atomic_smin"),
    (LscOp::AtomicMax, 15, "atomic_smax"),
    (LscOp::AtomicUmin, 16, "atomic_umin"),
    (LscOp::AtomicUmax, 17, "atomic_umax"),
    (LscOp::AtomicCmpxchg, 18, "atomic_icas"),
    (LscOp::AtomicFadd, 19, "atomic_fadd"),
    (LscOp::AtomicFsub, 20, "atomic_fsub"),
    (LscOp::AtomicFmin, 21, "atomic_fmin"),
    (LscOp::AtomicFmax, 22, "atomic_fmax"),
    (LscOp::AtomicFcmpxchg, 23, "atomic_fcas"),
    (LscOp::AtomicAnd, 24, "atomic_and"),
    (LscOp::AtomicOr, 25, "atomic_or"),
    (LscOp::AtomicXor, 26, "atomic_xor"),
];

/// The fence operation code (Mesa `LSC_OP_FENCE`; 004 line 15406).
const OP_FENCE: u32 = 31;

impl LscOp {
    /// Every operation, in code order.
    pub const ALL: [LscOp; 23] = {
        let mut all = [LscOp::Load; 23];
        let mut i = 0;
        while i < 23 {
            all[i] = OPS[i].0;
            i += 1;
        }
        all
    };

    /// The descriptor code.
    pub fn code(self) -> u32 {
        OPS.iter().find(|(o, _, _)| *o == self).map_or(0, |e| e.1)
    }

    /// iga64's word.
    pub fn name(self) -> &'static str {
        OPS.iter().find(|(o, _, _)| *o == self).map_or("?", |e| e.2)
    }

    /// Carries a channel mask in bits 15:12 (Mesa `lsc_opcode_has_cmask`).
    pub fn has_cmask(self) -> bool {
        matches!(self, LscOp::LoadCmask | LscOp::StoreCmask)
    }

    pub fn is_atomic(self) -> bool {
        self.code() >= 8
    }

    pub fn is_load(self) -> bool {
        matches!(self, LscOp::Load | LscOp::LoadCmask)
    }

    pub fn is_store(self) -> bool {
        matches!(self, LscOp::Store | LscOp::StoreCmask)
    }

    /// Data operands an atomic takes per lane (Mesa `lsc_op_num_data_values`):
    /// 0 for inc/dec/load, 2 for the compare-exchanges, else 1.
    pub fn atomic_operands(self) -> u8 {
        match self {
            LscOp::AtomicInc | LscOp::AtomicDec | LscOp::AtomicLoad => 0,
            LscOp::AtomicCmpxchg | LscOp::AtomicFcmpxchg => 2,
            _ if self.is_atomic() => 1,
            _ => 0,
        }
    }

    fn from_code(code: u32) -> Option<LscOp> {
        OPS.iter().find(|e| e.1 == code).map(|e| e.0)
    }

    fn from_name(s: &str) -> Option<LscOp> {
        OPS.iter().find(|e| e.2 == s).map(|e| e.0)
    }
}

/// Address size (bits 8:7; Mesa `enum lsc_addr_size`: A16 = 1, A32 = 2,
/// A64 = 3; 0 is reserved).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddrSize {
    A16,
    A32,
    A64,
}

impl AddrSize {
    pub const ALL: [AddrSize; 3] = [AddrSize::A16, AddrSize::A32, AddrSize::A64];

    /// Bytes per address.
    pub fn bytes(self) -> u32 {
        match self {
            AddrSize::A16 => 2,
            AddrSize::A32 => 4,
            AddrSize::A64 => 8,
        }
    }

    fn code(self) -> u32 {
        match self {
            AddrSize::A16 => 1,
            AddrSize::A32 => 2,
            AddrSize::A64 => 3,
        }
    }

    fn name(self) -> &'static str {
        ["a16", "a32", "a64"][self.code() as usize - 1]
    }
}

/// Data size (bits 11:9; Mesa `enum lsc_data_size`, 7 reserved). Code 6,
/// Mesa's D16BF32, is what iga64 calls `d16u32h`: 16 bits into the high
/// half of a dword.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataSize {
    D8,
    D16,
    D32,
    D64,
    D8U32,
    D16U32,
    D16U32H,
}

impl DataSize {
    pub const ALL: [DataSize; 7] = [
        DataSize::D8,
        DataSize::D16,
        DataSize::D32,
        DataSize::D64,
        DataSize::D8U32,
        DataSize::D16U32,
        DataSize::D16U32H,
    ];
    const NAMES: [&'static str; 7] = ["d8", "d16", "d32", "d64", "d8u32", "d16u32", "d16u32h"];

    fn code(self) -> u32 {
        DataSize::ALL.iter().position(|d| *d == self).unwrap_or(0) as u32
    }

    fn name(self) -> &'static str {
        DataSize::NAMES[self.code() as usize]
    }

    /// Bytes per element in registers (Mesa `lsc_data_size_bytes`).
    pub fn reg_bytes(self) -> u32 {
        match self {
            DataSize::D8 => 1,
            DataSize::D16 => 2,
            DataSize::D64 => 8,
            _ => 4,
        }
    }
}

/// Vector lengths by code (bits 14:12; Mesa `enum lsc_vect_size`).
pub const VECTOR_LENGTHS: [u8; 8] = [1, 2, 3, 4, 8, 16, 32, 64];

/// How many elements each address reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// A vector of `len` elements (one of [`VECTOR_LENGTHS`]); transposed:
    /// the vector lies in one register run (SIMD1 block access).
    Vector { len: u8, transpose: bool },
    /// Enabled channels x=bit 0 .. w=bit 3 (bits 15:12; never 0).
    Cmask(u8),
}

impl Shape {
    /// Elements per address.
    pub fn elements(self) -> u32 {
        match self {
            Shape::Vector { len, .. } => u32::from(len),
            Shape::Cmask(m) => m.count_ones(),
        }
    }
}

/// Cache control (bits 19:17): one code, named by what it means for loads
/// and for stores and atomics (Mesa `enum lsc_cache_load`/`lsc_cache_store`;
/// iga64's words, whose atomics take the store names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheCtl(pub u8);

/// L1 and L3 words per code, loads then stores.
const CACHE_LOAD: [(&str, &str); 8] = [
    ("df", "df"),
    ("uc", "uc"),
    ("uc", "ca"),
    ("ca", "uc"),
    ("ca", "ca"),
    ("st", "uc"),
    ("st", "ca"),
    ("ri", "ca"),
];
const CACHE_STORE: [(&str, &str); 8] = [
    ("df", "df"),
    ("uc", "uc"),
    ("uc", "wb"),
    ("wt", "uc"),
    ("wt", "wb"),
    ("st", "uc"),
    ("st", "wb"),
    ("wb", "wb"),
];

impl CacheCtl {
    /// The state (surface or stateless MOCS) settings: no override.
    pub const DEFAULT: CacheCtl = CacheCtl(0);

    fn words(self, load: bool) -> (&'static str, &'static str) {
        let t = if load { &CACHE_LOAD } else { &CACHE_STORE };
        t[usize::from(self.0 & 7)]
    }
}

/// A surface-state reference: the offset held in an immediate extended
/// descriptor's bits 31:11 (a byte offset with the low 11 bits zero), or
/// the a0 subregister that holds the extended descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SurfRef {
    Offset(u32),
    A0(u8),
}

/// A binding-table reference: index in extended-descriptor bits 31:24, or
/// the a0 subregister.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BtiRef {
    Index(u8),
    A0(u8),
}

/// Address type (bits 30:29; Mesa `enum lsc_addr_surface_type`) with its
/// part of the extended descriptor (Mesa `lsc_bti_ex_desc`, `lsc_bss_ex_desc`;
/// IGA `MessageDecoderLSC.cpp` reads ExDesc bits 31:11 for BSS/SS on XeHPG).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Surface {
    /// Stateless: the address is the virtual address.
    Flat,
    /// Bindless surface state.
    Bss(SurfRef),
    /// Surface state.
    Ss(SurfRef),
    /// Binding-table index.
    Bti(BtiRef),
}

/// The extended descriptor as the send holds it, without the second
/// payload's length (bits 10:6, an instruction field on Xe-HPG).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LscExDesc {
    Imm(u32),
    A0(u8),
}

/// A load, store or atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    pub op: LscOp,
    pub addr_size: AddrSize,
    pub data: DataSize,
    pub shape: Shape,
    pub cache: CacheCtl,
    pub surface: Surface,
}

/// Fence scope (bits 11:9; Mesa `enum lsc_fence_scope`, 7 reserved) with
/// iga64's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FenceScope {
    Group,
    Local,
    Tile,
    Gpu,
    Gpus,
    SystemRelease,
    SystemAcquire,
}

const SCOPES: [(FenceScope, &str); 7] = [
    (FenceScope::Group, "group"),
    (FenceScope::Local, "local"),
    (FenceScope::Tile, "tile"),
    (FenceScope::Gpu, "gpu"),
    (FenceScope::Gpus, "gpus"),
    (FenceScope::SystemRelease, "sysrel"),
    (FenceScope::SystemAcquire, "sysacq"),
];

/// Flush after the fence (bits 14:12; Mesa `enum lsc_flush_type`; codes 6
/// and 7 iga64 calls invalid, Mesa's NONE_6 included) with iga64's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlushType {
    None,
    Evict,
    Invalidate,
    Discard,
    Clean,
    L3Only,
}

const FLUSHES: [(FlushType, &str); 6] = [
    (FlushType::None, "none"),
    (FlushType::Evict, "evict"),
    (FlushType::Invalidate, "invalidate"),
    (FlushType::Discard, "discard"),
    (FlushType::Clean, "clean"),
    (FlushType::L3Only, "flushl3"),
];

/// A fence. Bits 8:7 hold A32 as Mesa's `lsc_fence_msg_desc` writes them
/// (004 line 15406ff calls them reserved); 30:29 flat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fence {
    pub scope: FenceScope,
    pub flush: FlushType,
    /// Bit 15, "Flush Range" (004 DP_FENCE).
    pub flush_range: bool,
    /// Bit 18: route a UGM fence to the LSC (Mesa
    /// `lsc_backup_fence_routing`).
    pub route_to_lsc: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LscKind {
    Access(Access),
    Fence(Fence),
}

/// An LSC message and the shared function it goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LscMsg {
    pub sfid: Sfid,
    pub kind: LscKind,
}

/// The LSC shared functions of Xe-HPG and iga64's names (Mesa
/// `brw_eu_defines.h` GFX12_SFID_*; 004 SFID_1/D/E/F).
const SFIDS: [(Sfid, &str); 4] = [
    (Sfid::Ugm, "ugm"),
    (Sfid::Ugml, "ugml"),
    (Sfid::Slm, "slm"),
    (Sfid::Tgm, "tgm"),
];

/// Whether `sfid` takes LSC messages.
pub fn is_lsc(sfid: Sfid) -> bool {
    SFIDS.iter().any(|(s, _)| *s == sfid)
}

fn sfid_name(sfid: Sfid) -> &'static str {
    SFIDS
        .iter()
        .find(|(s, _)| *s == sfid)
        .map_or("?", |(_, n)| n)
}

/// Bits 28:20 (the lengths), left to the caller.
const LENGTHS: u32 = 0x1FF0_0000;

fn bits(w: u32, hi: u32, lo: u32) -> u32 {
    (w >> lo) & ((1 << (hi - lo + 1)) - 1)
}

fn reserved(field: &'static str, hi: u8, lo: u8, value: u32) -> MessageError {
    MessageError::Reserved {
        field,
        hi,
        lo,
        value,
    }
}

fn stray_ex(bits: u32) -> MessageError {
    MessageError::OutOfRange {
        field: "extended descriptor reserved bits",
        value: bits,
    }
}

/// The typed message of descriptor `desc` (bits 28:20 ignored) and
/// extended descriptor `ex` sent to `sfid`.
pub fn decode(sfid: Sfid, desc: u32, ex: LscExDesc) -> Result<LscMsg, MessageError> {
    if !is_lsc(sfid) {
        return Err(MessageError::NoSuchFunction {
            platform: crate::generation::IsaGen::Gen12_5,
            sfid,
        });
    }
    let desc = desc & !LENGTHS;
    let code = bits(desc, 5, 0);
    if code == OP_FENCE {
        return decode_fence(sfid, desc, ex).map(|f| LscMsg {
            sfid,
            kind: LscKind::Fence(f),
        });
    }
    let op = LscOp::from_code(code).ok_or(reserved("operation", 5, 0, code))?;
    // Bits 31, 16 and 6 are MBZ (004 lines 19506-19586).
    let stray = desc & (1 << 31 | 1 << 16 | 1 << 6);
    if stray != 0 {
        return Err(MessageError::StrayBits { bits: stray });
    }
    let addr_size = match bits(desc, 8, 7) {
        0 => return Err(reserved("address size", 8, 7, 0)),
        c => AddrSize::ALL[c as usize - 1],
    };
    let data = *DataSize::ALL
        .get(bits(desc, 11, 9) as usize)
        .ok_or(reserved("data size", 11, 9, 7))?;
    let shape = if op.has_cmask() {
        match bits(desc, 15, 12) {
            0 => return Err(reserved("channel mask", 15, 12, 0)),
            m => Shape::Cmask(m as u8),
        }
    } else {
        Shape::Vector {
            len: VECTOR_LENGTHS[bits(desc, 14, 12) as usize],
            transpose: desc & 1 << 15 != 0,
        }
    };
    let cache = CacheCtl(bits(desc, 19, 17) as u8);
    // SLM has no cache controls: iga64 does not read the bits there.
    if sfid == Sfid::Slm && cache != CacheCtl::DEFAULT {
        return Err(MessageError::StrayBits {
            bits: desc & 0xE_0000,
        });
    }
    let surface = decode_surface(bits(desc, 30, 29), ex)?;
    Ok(LscMsg {
        sfid,
        kind: LscKind::Access(Access {
            op,
            addr_size,
            data,
            shape,
            cache,
            surface,
        }),
    })
}

/// Extended descriptor per address type. XeHPG has no immediate offsets
/// (IGA `decodeLscImmOff` reads them from Xe2 on), so ex_desc bits a type
/// does not use must be zero: flat uses none, BTI 31:24, BSS/SS 31:11.
fn decode_surface(ty: u32, ex: LscExDesc) -> Result<Surface, MessageError> {
    let unused = |v: u32, mask: u32| {
        if v & !mask != 0 {
            Err(stray_ex(v & !mask))
        } else {
            Ok(())
        }
    };
    Ok(match (ty, ex) {
        (0, LscExDesc::Imm(v)) => {
            unused(v, 0)?;
            Surface::Flat
        }
        // A flat message has no surface in a register extended descriptor
        // either; the send keeps which register it names.
        (0, LscExDesc::A0(_)) => Surface::Flat,
        (1 | 2, LscExDesc::Imm(v)) => {
            unused(v, 0xFFFF_F800)?;
            let r = SurfRef::Offset(v);
            if ty == 1 {
                Surface::Bss(r)
            } else {
                Surface::Ss(r)
            }
        }
        (1 | 2, LscExDesc::A0(n)) => {
            let r = SurfRef::A0(n);
            if ty == 1 {
                Surface::Bss(r)
            } else {
                Surface::Ss(r)
            }
        }
        (_, LscExDesc::Imm(v)) => {
            unused(v, 0xFF00_0000)?;
            Surface::Bti(BtiRef::Index((v >> 24) as u8))
        }
        (_, LscExDesc::A0(n)) => Surface::Bti(BtiRef::A0(n)),
    })
}

fn decode_fence(sfid: Sfid, desc: u32, ex: LscExDesc) -> Result<Fence, MessageError> {
    // Owned: 5:0, 8:7 (A32), 11:9, 14:12, 15, 18.
    let stray = desc & !(0x3F | 0x180 | 0xE00 | 0x7000 | 1 << 15 | 1 << 18);
    if stray != 0 {
        return Err(MessageError::StrayBits { bits: stray });
    }
    if bits(desc, 8, 7) != 2 {
        return Err(reserved("fence address size (A32)", 8, 7, bits(desc, 8, 7)));
    }
    if let LscExDesc::Imm(v) = ex
        && v != 0
    {
        return Err(stray_ex(v));
    }
    if matches!(ex, LscExDesc::A0(_)) {
        return Err(MessageError::NotOnPlatform {
            platform: crate::generation::IsaGen::Gen12_5,
            what: "a fence with a register extended descriptor",
        });
    }
    let _ = sfid;
    let scope = SCOPES
        .get(bits(desc, 11, 9) as usize)
        .ok_or(reserved("fence scope", 11, 9, 7))?
        .0;
    let flush = FLUSHES
        .get(bits(desc, 14, 12) as usize)
        .ok_or(reserved("flush type", 14, 12, bits(desc, 14, 12)))?
        .0;
    Ok(Fence {
        scope,
        flush,
        flush_range: desc & 1 << 15 != 0,
        route_to_lsc: desc & 1 << 18 != 0,
    })
}

/// The descriptor (lengths zero) and extended descriptor of `msg`; the
/// result decodes back to `msg`.
pub fn encode(msg: &LscMsg) -> Result<(u32, LscExDesc), MessageError> {
    if !is_lsc(msg.sfid) {
        return Err(MessageError::NoSuchFunction {
            platform: crate::generation::IsaGen::Gen12_5,
            sfid: msg.sfid,
        });
    }
    let (desc, ex) = match &msg.kind {
        LscKind::Fence(f) => {
            let scope = SCOPES.iter().position(|s| s.0 == f.scope).unwrap_or(0) as u32;
            let flush = FLUSHES.iter().position(|s| s.0 == f.flush).unwrap_or(0) as u32;
            let d = OP_FENCE
                | 2 << 7
                | scope << 9
                | flush << 12
                | u32::from(f.flush_range) << 15
                | u32::from(f.route_to_lsc) << 18;
            (d, LscExDesc::Imm(0))
        }
        LscKind::Access(a) => {
            let shape = match a.shape {
                Shape::Cmask(m) if a.op.has_cmask() && (1..16).contains(&m) => u32::from(m) << 12,
                Shape::Vector { len, transpose } if !a.op.has_cmask() => {
                    let code = VECTOR_LENGTHS.iter().position(|l| *l == len).ok_or(
                        MessageError::OutOfRange {
                            field: "vector length",
                            value: len.into(),
                        },
                    )? as u32;
                    code << 12 | u32::from(transpose) << 15
                }
                Shape::Cmask(m) => {
                    return Err(MessageError::OutOfRange {
                        field: "channel mask",
                        value: m.into(),
                    });
                }
                Shape::Vector { len, .. } => {
                    return Err(MessageError::OutOfRange {
                        field: "vector length of a cmask operation",
                        value: len.into(),
                    });
                }
            };
            if a.cache.0 > 7 {
                return Err(MessageError::OutOfRange {
                    field: "cache control",
                    value: a.cache.0.into(),
                });
            }
            let (ty, ex) = match a.surface {
                Surface::Flat => (0, LscExDesc::Imm(0)),
                Surface::Bss(r) | Surface::Ss(r) => {
                    let ty = if matches!(a.surface, Surface::Bss(_)) {
                        1
                    } else {
                        2
                    };
                    match r {
                        SurfRef::Offset(v) if v & 0x7FF == 0 => (ty, LscExDesc::Imm(v)),
                        SurfRef::Offset(v) => {
                            return Err(MessageError::OutOfRange {
                                field: "surface state offset (bits 10:0 must be 0)",
                                value: v,
                            });
                        }
                        SurfRef::A0(n) => (ty, LscExDesc::A0(n)),
                    }
                }
                Surface::Bti(BtiRef::Index(i)) => (3, LscExDesc::Imm(u32::from(i) << 24)),
                Surface::Bti(BtiRef::A0(n)) => (3, LscExDesc::A0(n)),
            };
            let d = a.op.code()
                | a.addr_size.code() << 7
                | a.data.code() << 9
                | shape
                | u32::from(a.cache.0) << 17
                | ty << 29;
            (d, ex)
        }
    };
    match decode(msg.sfid, desc, ex) {
        Ok(back) if back == *msg => Ok((desc, ex)),
        Ok(_) => Err(MessageError::NotOnPlatform {
            platform: crate::generation::IsaGen::Gen12_5,
            what: "this LSC message",
        }),
        Err(e) => Err(e),
    }
}

/// iga64's symbol (see the module documentation).
impl fmt::Display for LscMsg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sfid = sfid_name(self.sfid);
        match &self.kind {
            LscKind::Fence(fence) => {
                let flush = FLUSHES
                    .iter()
                    .find(|e| e.0 == fence.flush)
                    .map_or("?", |e| e.1);
                let scope = SCOPES
                    .iter()
                    .find(|e| e.0 == fence.scope)
                    .map_or("?", |e| e.1);
                write!(f, "fence.{sfid}.{flush}.{scope}")?;
                if fence.flush_range {
                    f.write_str(".range")?;
                }
                if fence.route_to_lsc {
                    f.write_str(".lsc")?;
                }
                Ok(())
            }
            LscKind::Access(a) => {
                write!(f, "{}.{sfid}.{}", a.op.name(), a.data.name())?;
                match a.shape {
                    Shape::Vector { len, transpose } => {
                        if len > 1 || transpose {
                            write!(f, "x{len}")?;
                        }
                        if transpose {
                            f.write_char('t')?;
                        }
                    }
                    Shape::Cmask(m) => {
                        f.write_char('.')?;
                        for (i, c) in ['x', 'y', 'z', 'w'].into_iter().enumerate() {
                            if m & 1 << i != 0 {
                                f.write_char(c)?;
                            }
                        }
                    }
                }
                write!(f, ".{}", a.addr_size.name())?;
                if a.cache != CacheCtl::DEFAULT {
                    let (l1, l3) = a.cache.words(a.op.is_load());
                    write!(f, ".{l1}.{l3}")?;
                }
                match a.surface {
                    Surface::Flat => Ok(()),
                    Surface::Bss(r) | Surface::Ss(r) => {
                        let w = if matches!(a.surface, Surface::Bss(_)) {
                            "bss"
                        } else {
                            "ss"
                        };
                        match r {
                            SurfRef::Offset(v) => write!(f, ".{w}[{v:#X}]"),
                            SurfRef::A0(n) => write!(f, ".{w}[a0.{n}]"),
                        }
                    }
                    Surface::Bti(BtiRef::Index(i)) => write!(f, ".bti[{i}]"),
                    Surface::Bti(BtiRef::A0(n)) => write!(f, ".bti[a0.{n}]"),
                }
            }
        }
    }
}

fn syntax(at: usize, what: String) -> MessageError {
    MessageError::Syntax { at, what }
}

/// Reads a symbol as [`fmt::Display`] writes it (and iga64 prints it).
pub fn parse(text: &str) -> Result<LscMsg, MessageError> {
    let mut parts = Parts { text, at: 0 };
    let op_word = parts.next_word()?;
    let sfid_word = parts.next_word()?;
    let sfid = SFIDS
        .iter()
        .find(|(_, n)| *n == sfid_word)
        .map(|(s, _)| *s)
        .ok_or_else(|| syntax(0, format!("`{sfid_word}` is not an LSC shared function")))?;
    if op_word == "fence" {
        let flush_w = parts.next_word()?;
        let scope_w = parts.next_word()?;
        let flush = FLUSHES
            .iter()
            .find(|e| e.1 == flush_w)
            .ok_or_else(|| syntax(parts.at, format!("unknown flush type `{flush_w}`")))?
            .0;
        let scope = SCOPES
            .iter()
            .find(|e| e.1 == scope_w)
            .ok_or_else(|| syntax(parts.at, format!("unknown fence scope `{scope_w}`")))?
            .0;
        let mut fence = Fence {
            scope,
            flush,
            flush_range: false,
            route_to_lsc: false,
        };
        while !parts.done() {
            match parts.next_word()? {
                "range" if !fence.flush_range && !fence.route_to_lsc => fence.flush_range = true,
                "lsc" if !fence.route_to_lsc => fence.route_to_lsc = true,
                w => {
                    return Err(syntax(
                        parts.at,
                        format!("unexpected `{w}` after the fence"),
                    ));
                }
            }
        }
        return Ok(LscMsg {
            sfid,
            kind: LscKind::Fence(fence),
        });
    }
    let op = LscOp::from_name(op_word)
        .ok_or_else(|| syntax(0, format!("unknown LSC operation `{op_word}`")))?;
    // Data size, then `xN[t]` glued to it or `.channels`.
    let data_w = parts.next_word()?;
    let split = data_w.find('x').unwrap_or(data_w.len());
    let (data_name, vec) = data_w.split_at(split);
    let data = DataSize::ALL
        .into_iter()
        .find(|d| d.name() == data_name)
        .ok_or_else(|| syntax(parts.at, format!("unknown data size `{data_name}`")))?;
    let shape = if op.has_cmask() {
        if !vec.is_empty() {
            return Err(syntax(
                parts.at,
                "a cmask operation has no vector length".into(),
            ));
        }
        let w = parts.next_word()?;
        let mut m = 0u8;
        let mut last = None;
        for c in w.chars() {
            let i = "xyzw"
                .find(c)
                .ok_or_else(|| syntax(parts.at, format!("bad channel `{c}`")))?;
            if last.is_some_and(|l| l >= i) {
                return Err(syntax(parts.at, format!("channels `{w}` out of order")));
            }
            last = Some(i);
            m |= 1 << i;
        }
        Shape::Cmask(m)
    } else if vec.is_empty() {
        Shape::Vector {
            len: 1,
            transpose: false,
        }
    } else {
        let digits = vec[1..].trim_end_matches('t');
        let transpose = digits.len() + 2 == vec.len();
        let len: u8 = digits
            .parse()
            .ok()
            .filter(|l| VECTOR_LENGTHS.contains(l))
            .ok_or_else(|| syntax(parts.at, format!("bad vector length `{vec}`")))?;
        if len == 1 && !transpose {
            return Err(syntax(parts.at, "`x1` is written only transposed".into()));
        }
        Shape::Vector { len, transpose }
    };
    let a_w = parts.next_word()?;
    let addr_size = AddrSize::ALL
        .into_iter()
        .find(|a| a.name() == a_w)
        .ok_or_else(|| syntax(parts.at, format!("unknown address size `{a_w}`")))?;
    let mut cache = CacheCtl::DEFAULT;
    let mut surface = Surface::Flat;
    while !parts.done() {
        let at = parts.at;
        let w = parts.next_word()?;
        if let Some((kind, inner)) = w.split_once('[') {
            let inner = inner
                .strip_suffix(']')
                .ok_or_else(|| syntax(at, format!("unclosed `[` in `{w}`")))?;
            if !parts.done() {
                return Err(syntax(parts.at, "the surface comes last".into()));
            }
            let a0 = inner
                .strip_prefix("a0.")
                .map(|n| n.parse::<u8>().ok().filter(|n| *n < 16));
            surface = match (kind, a0) {
                (_, Some(None)) => return Err(syntax(at, format!("bad register `{inner}`"))),
                ("bti", Some(Some(n))) => Surface::Bti(BtiRef::A0(n)),
                ("bti", None) => {
                    Surface::Bti(BtiRef::Index(inner.parse().map_err(|_| {
                        syntax(at, format!("bad binding table index `{inner}`"))
                    })?))
                }
                ("bss" | "ss", _) => {
                    let r = match a0 {
                        Some(Some(n)) => SurfRef::A0(n),
                        _ => SurfRef::Offset(
                            inner
                                .strip_prefix("0x")
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .ok_or_else(|| syntax(at, format!("bad offset `{inner}`")))?,
                        ),
                    };
                    if kind == "bss" {
                        Surface::Bss(r)
                    } else {
                        Surface::Ss(r)
                    }
                }
                _ => return Err(syntax(at, format!("unknown surface `{kind}`"))),
            };
        } else {
            let l3 = parts.next_word()?;
            let table = if op.is_load() {
                &CACHE_LOAD
            } else {
                &CACHE_STORE
            };
            let code = table
                .iter()
                .position(|&(a, b)| a == w && b == l3)
                .filter(|c| *c != 0 && cache == CacheCtl::DEFAULT)
                .ok_or_else(|| syntax(at, format!("unknown cache control `{w}.{l3}`")))?;
            cache = CacheCtl(code as u8);
        }
    }
    Ok(LscMsg {
        sfid,
        kind: LscKind::Access(Access {
            op,
            addr_size,
            data,
            shape,
            cache,
            surface,
        }),
    })
}

/// Dot-separated words, a `[...]` kept whole.
struct Parts<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Parts<'a> {
    fn done(&self) -> bool {
        self.at >= self.text.len()
    }

    fn next_word(&mut self) -> Result<&'a str, MessageError> {
        let rest = &self.text[self.at.min(self.text.len())..];
        if rest.is_empty() {
            return Err(syntax(self.at, "symbol ends early".into()));
        }
        let mut depth = 0;
        let mut end = rest.len();
        for (i, c) in rest.char_indices() {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                '.' if depth == 0 => {
                    end = i;
                    break;
                }
                _ => {}
            }
        }
        let w = &rest[..end];
        if w.is_empty() {
            return Err(syntax(self.at, "empty word".into()));
        }
        self.at += end + 1;
        Ok(w)
    }
}

/// The comment iga64 writes after an LSC send: `wr:M+N, rd:R; symbol`
/// (message length, second payload length, response length). iga64 writes
/// a fence without our `.range`/`.lsc` words (bits 15 and 18; IGC's
/// `fence.ugm.none.local` sends set bit 18, tests/xehpg_igc.rs).
pub fn comment(msg: &LscMsg, mlen: u8, src1_len: u8, rlen: u8) -> String {
    let plain;
    let msg = match msg.kind {
        LscKind::Fence(f) => {
            plain = LscMsg {
                kind: LscKind::Fence(Fence {
                    flush_range: false,
                    route_to_lsc: false,
                    ..f
                }),
                ..*msg
            };
            &plain
        }
        _ => msg,
    };
    format!("wr:{mlen}+{src1_len}, rd:{rlen}; {msg}")
}

/// The LSC message of a Gen12.5 send with an immediate descriptor, and the
/// second payload's length when the send holds it; `None` for other
/// functions or a register descriptor.
pub fn of_send(send: &crate::inst::Send) -> Option<(Result<LscMsg, MessageError>, Option<u8>)> {
    use crate::inst::{ExDesc, SendDesc};
    let sfid = send.sfid.filter(|s| is_lsc(*s))?;
    let SendDesc::Imm { desc, .. } = &send.desc else {
        return None;
    };
    let word = desc.function | u32::from(desc.header) << 19;
    let (ex, src1_len) = match send.ex_desc? {
        ExDesc::Imm(v) => (LscExDesc::Imm(v & !0x7C0), Some(((v >> 6) & 0x1F) as u8)),
        ExDesc::Reg { subnr, src1_len } => (LscExDesc::A0(subnr), src1_len),
    };
    Some((decode(sfid, word, ex), src1_len))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    /// Every descriptor over the fields' bits (opcode, address size, data
    /// size, bits 15:12, cache, address type, each MBZ bit) that decodes
    /// encodes back to the same bits and prints a symbol that parses back
    /// to the same message; the ones that do not decode are exactly those
    /// with a reserved code or a stray bit.
    #[test]
    fn descriptor_space_round_trips() {
        let mut ok = 0;
        for (sfid, _) in SFIDS {
            for op in 0..64u32 {
                for low in 0..(1u32 << 9) {
                    // bits 8:7 address size, 11:9 data size, 15:12 shape/transpose
                    let fields = (low & 3) << 7 | (low >> 2 & 7) << 9 | ((low >> 5) & 0xF) << 12;
                    for hi in 0..(1u32 << 5) {
                        let cache = hi & 7;
                        let ty = hi >> 3;
                        let desc = op | fields | cache << 17 | ty << 29;
                        let ex = match ty {
                            0 => LscExDesc::Imm(0),
                            3 => LscExDesc::Imm(0x0500_0000),
                            _ => LscExDesc::Imm(0x1234_5800),
                        };
                        let Ok(m) = decode(sfid, desc, ex) else {
                            continue;
                        };
                        ok += 1;
                        assert_eq!(encode(&m), Ok((desc, ex)), "{desc:#x} {m}");
                        let text = m.to_string();
                        assert_eq!(parse(&text), Ok(m), "{text}");
                    }
                }
            }
        }
        // 23 operations x 3 address sizes x 7 data sizes x (16 shapes, or
        // 15 masks) x 8 caches (1 on SLM) x 4 types, plus the fences.
        let access = 21 * 16 + 2 * 15;
        let fences = 7 * 6 * 4; // scope x flush x (range, lsc)
        assert_eq!(
            ok,
            3 * (access * 3 * 7 * 8 * 4 + fences) + access * 3 * 7 * 4 + fences
        );
    }

    #[test]
    fn reserved_bits_are_refused() {
        let load = 0x0000_0500; // load.d32.a32 flat
        assert!(decode(Sfid::Ugm, load, LscExDesc::Imm(0)).is_ok());
        for bit in [6, 16, 31] {
            assert_eq!(
                decode(Sfid::Ugm, load | 1 << bit, LscExDesc::Imm(0)),
                Err(MessageError::StrayBits { bits: 1 << bit })
            );
        }
        // flat with an immediate ex_desc offset (Xe2's, not XeHPG's)
        assert!(decode(Sfid::Ugm, load, LscExDesc::Imm(0x1000)).is_err());
        // BTI with ex_desc 23:12 set
        assert!(decode(Sfid::Ugm, load | 3 << 29, LscExDesc::Imm(0x0300_1000)).is_err());
        // SLM with a cache control
        assert!(decode(Sfid::Slm, load | 1 << 17, LscExDesc::Imm(0)).is_err());
        // cmask 0, address size 0, data size 7
        assert!(decode(Sfid::Ugm, 0x0000_0102, LscExDesc::Imm(0)).is_err());
        assert!(decode(Sfid::Ugm, 0x0000_0400, LscExDesc::Imm(0)).is_err());
        assert!(decode(Sfid::Ugm, 0x0000_0F00, LscExDesc::Imm(0)).is_err());
        // not an LSC function
        assert!(decode(Sfid::Urb, load, LscExDesc::Imm(0)).is_err());
    }

    #[test]
    fn documented_symbols_parse_and_print_back() {
        let doc = include_str!("lsc.rs");
        let start = doc.find("//! load.ugm.d32x4.a64").unwrap_or(0);
        let mut n = 0;
        for line in doc[start..].lines().take_while(|l| *l != "//! ```") {
            for sym in line.trim_start_matches("//!").split_whitespace() {
                let m = parse(sym).unwrap_or_else(|e| panic!("{sym}: {e}"));
                assert_eq!(m.to_string(), sym);
                let (d, ex) = encode(&m).unwrap_or_else(|e| panic!("{sym}: {e}"));
                assert_eq!(decode(m.sfid, d, ex), Ok(m));
                n += 1;
            }
        }
        assert_eq!(n, 8);
    }

    /// Symbols read from `iga64 -p=12p71` send comments, with their words.
    #[test]
    fn iga_examples() {
        for (sfid, desc, ex, text) in [
            (Sfid::Ugm, 0x0420_E580, 0, "load.ugm.d32x32t.a64"),
            (Sfid::Slm, 0x4000_0084, 0, "store.slm.d8.a16.ss[0x0]"),
            (Sfid::Ugm, 0x0210_011F, 0, "fence.ugm.none.group"),
            (
                Sfid::Ugm,
                0x642E_0500,
                0x0500_0000,
                "load.ugm.d32.a32.ri.ca.bti[5]",
            ),
            (Sfid::Ugm, 0x042E_050C, 0, "atomic_iadd.ugm.d32.a32.wb.wb"),
            (
                Sfid::Tgm,
                0x2460_B502,
                0x2000,
                "load_quad.tgm.d32.xyw.a32.bss[0x2000]",
            ),
            (Sfid::Ugm, 0x0420_0D80, 0, "load.ugm.d16u32h.a64"),
        ] {
            let m = decode(sfid, desc, LscExDesc::Imm(ex)).unwrap();
            assert_eq!(m.to_string(), text);
            assert_eq!(encode(&m), Ok((desc & !LENGTHS, LscExDesc::Imm(ex))));
        }
    }
}
