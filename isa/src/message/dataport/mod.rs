//! Data-port messages: the Gen4/G45 read and write units (SFIDs 4, 5),
//! the Gen6+ sampler, render and constant caches (4, 5, 9), the Gen7 data
//! cache (10) and the Gen7.5 second data-cache port (12).
//!
//! Every port keeps the binding-table index in bits 7:0 (000 lines 4482,
//! 4495; 003 lines 83516-83521), a message type, and message-specific
//! control bits below it. `layout.rs` has the type fields and codes,
//! `control.rs` the control bits of each message, `text.rs` the symbolic
//! form.

mod control;
mod layout;
mod text;

pub(super) use text::parse;

use super::bits::{Reader, Writer, by_code, code_for, reserved};
use super::text::named;
use super::{Message, MessageError};
use crate::generation::IsaGen;
use crate::inst::Sfid;

named! {
    /// Gen4/G45 data-port read: the cache serving the read (000 lines
    /// 4479, 4492; 11 reserved).
    pub enum ReadCache {
        Data = "data",
        Render = "render",
        Sampler = "sampler",
    }
}

/// Which data port a message goes to (and so its SFID).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DpPort {
    /// Gen4/G45 read unit (SFID 4), through a chosen cache.
    Read(ReadCache),
    /// Gen4/G45 write unit (SFID 5).
    Write,
    /// Gen6+ sampler cache (SFID 4).
    SamplerCache,
    /// Gen6+ render cache (SFID 5).
    RenderCache,
    /// Gen6+ constant cache (SFID 9).
    ConstantCache,
    /// Gen7+ data cache (SFID 10).
    DataCache,
    /// Gen7.5 data cache, second port (SFID 12).
    DataCache1,
}

impl DpPort {
    pub fn sfid(self) -> Sfid {
        match self {
            DpPort::Read(_) => Sfid::DataPortRead,
            DpPort::Write => Sfid::DataPortWrite,
            DpPort::SamplerCache => Sfid::DpSamplerCache,
            DpPort::RenderCache => Sfid::DpRenderCache,
            DpPort::ConstantCache => Sfid::DpConstantCache,
            DpPort::DataCache => Sfid::DpDataCache,
            DpPort::DataCache1 => Sfid::DpDataCache1,
        }
    }
}

named! {
    /// OWord block size: one OWord into the low or high half of a
    /// register, or 2, 4, 8 (Gen4/G45 also 6) contiguous OWords.
    pub enum OwordBlocks {
        OneLow = "1lo",
        OneHigh = "1hi",
        Two = "2",
        Four = "4",
        Eight = "8",
        /// Gen4/G45 only (000 line 4568).
        Six = "6",
    }
}

named! {
    /// OWord dual block: 1 or 4 OWords per block.
    pub enum DualBlocks {
        One = "1",
        Four = "4",
    }
}

named! {
    /// Scattered messages: 8 or 16 addresses.
    pub enum ScatterSimd {
        Simd8 = "8",
        Simd16 = "16",
    }
}

named! {
    /// Byte-scattered element size in bytes.
    pub enum ElemSize {
        Byte = "1",
        Word = "2",
        Dword = "4",
    }
}

named! {
    /// Untyped-surface and untyped-atomic SIMD mode.
    pub enum SurfaceSimd {
        Simd4x2 = "4x2",
        Simd8 = "8",
        Simd16 = "16",
    }
}

named! {
    /// Typed-surface slot group: SIMD4x2 (Gen7.5), or which 8 of 16 slots.
    pub enum Slots {
        Simd4x2 = "4x2",
        Low = "lo",
        High = "hi",
    }
}

named! {
    /// Data-port atomic operation. Gen6 DWord atomics (003 lines
    /// 84687-84714) name MIN/MAX (unsigned) umin/umax, XCHG mov and
    /// CMPXCHG cmpwr here.
    pub enum AtomicOp {
        And = "and",
        Or = "or",
        Xor = "xor",
        Mov = "mov",
        Inc = "inc",
        Dec = "dec",
        Add = "add",
        Sub = "sub",
        RevSub = "revsub",
        Imax = "imax",
        Imin = "imin",
        Umax = "umax",
        Umin = "umin",
        CmpWr = "cmpwr",
        PreDec = "predec",
    }
}

named! {
    /// Render-target write message type.
    pub enum RtMode {
        Simd16 = "simd16",
        /// SIMD16 with replicated data (tiled surfaces only).
        Simd16Rep = "simd16_rep",
        Simd8DualLo = "simd8_dual_lo",
        Simd8DualHi = "simd8_dual_hi",
        Simd8Lo = "simd8_lo",
        /// Gen6 only: SIMD8 image write.
        Simd8Image = "simd8_image",
    }
}

/// Enabled channels of a surface message, bit 0 = x (the descriptor holds
/// the complement: a disable mask).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Channels(pub u8);

/// Media block and RT UNORM vertical line stride override (bits 10, 9, 8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Vls {
    /// Use `stride` and `offset` instead of the surface state's fields.
    pub enable: bool,
    /// Skip one line between logical lines (field access).
    pub stride: bool,
    /// Start at the second line.
    pub offset: bool,
}

/// G45 streamed-vertex-buffer write counters to increment (bits 10, 9, 8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SvbInc {
    pub svbi: bool,
    pub prims_written: bool,
    pub storage_needed: bool,
}

/// A data-port message and its own control fields. `bti` is the
/// binding-table index (255 stateless; Gen7 254 shared local memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DpOp {
    OwordBlockRead {
        bti: u8,
        owords: OwordBlocks,
    },
    OwordBlockWrite {
        bti: u8,
        owords: OwordBlocks,
    },
    UnalignedOwordBlockRead {
        bti: u8,
        owords: OwordBlocks,
    },
    OwordDualBlockRead {
        bti: u8,
        owords: DualBlocks,
    },
    OwordDualBlockWrite {
        bti: u8,
        owords: DualBlocks,
    },
    MediaBlockRead {
        bti: u8,
        vls: Vls,
    },
    MediaBlockWrite {
        bti: u8,
        vls: Vls,
    },
    DwordScatteredRead {
        bti: u8,
        simd: ScatterSimd,
    },
    DwordScatteredWrite {
        bti: u8,
        simd: ScatterSimd,
    },
    ByteScatteredRead {
        bti: u8,
        simd: ScatterSimd,
        size: ElemSize,
    },
    ByteScatteredWrite {
        bti: u8,
        simd: ScatterSimd,
        size: ElemSize,
    },
    UntypedRead {
        bti: u8,
        simd: SurfaceSimd,
        mask: Channels,
    },
    UntypedWrite {
        bti: u8,
        simd: SurfaceSimd,
        mask: Channels,
    },
    /// `ret`: return the old values.
    UntypedAtomic {
        bti: u8,
        op: AtomicOp,
        simd: SurfaceSimd,
        ret: bool,
    },
    TypedRead {
        bti: u8,
        slots: Slots,
        mask: Channels,
    },
    TypedWrite {
        bti: u8,
        slots: Slots,
        mask: Channels,
    },
    TypedAtomic {
        bti: u8,
        op: AtomicOp,
        slots: Slots,
        ret: bool,
    },
    /// Gen6 render-cache DWord atomic; `two_src` sends the second source.
    DwordAtomic {
        bti: u8,
        op: AtomicOp,
        two_src: bool,
    },
    /// Gen7 scratch block read: `regs` registers at `offset` HWords from
    /// the thread's scratch space.
    ScratchRead {
        regs: u8,
        offset: u16,
        dword: bool,
        invalidate: bool,
    },
    ScratchWrite {
        regs: u8,
        offset: u16,
        dword: bool,
        invalidate: bool,
    },
    /// Gen7 memory fence; `commit` returns a reply when done.
    Fence {
        bti: u8,
        commit: bool,
    },
    RtWrite {
        bti: u8,
        mode: RtMode,
        last: bool,
        slot_hi: bool,
    },
    RtUnormRead {
        bti: u8,
        vls: Vls,
    },
    RtUnormWrite {
        bti: u8,
        vls: Vls,
    },
    SvbWrite {
        bti: u8,
        inc: SvbInc,
    },
    AvcLoopFilterRead {
        bti: u8,
    },
    FlushRenderCache {
        bti: u8,
    },
}

/// Message kinds as the type tables name them (a few ops have two codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    OwordBlockRead,
    OwordBlockWrite,
    UnalignedOwordBlockRead,
    OwordDualBlockRead,
    OwordDualBlockWrite,
    MediaBlockRead,
    MediaBlockWrite,
    DwordScatteredRead,
    DwordScatteredWrite,
    ByteScatteredRead,
    ByteScatteredWrite,
    UntypedRead,
    UntypedWrite,
    UntypedAtomic,
    /// Gen7.5 DC1 has its own code for SIMD4x2 untyped atomics.
    UntypedAtomic4x2,
    TypedRead,
    TypedWrite,
    TypedAtomic,
    TypedAtomic4x2,
    DwordAtomic,
    Fence,
    RtWrite,
    RtUnormRead,
    RtUnormWrite,
    SvbWrite,
    AvcLoopFilterRead,
    FlushRenderCache,
}

impl DpOp {
    /// The type-table entry this op uses (`None` for scratch, which Gen7
    /// selects with bit 18 instead).
    fn kind(&self) -> Option<Kind> {
        Some(match self {
            DpOp::OwordBlockRead { .. } => Kind::OwordBlockRead,
            DpOp::OwordBlockWrite { .. } => Kind::OwordBlockWrite,
            DpOp::UnalignedOwordBlockRead { .. } => Kind::UnalignedOwordBlockRead,
            DpOp::OwordDualBlockRead { .. } => Kind::OwordDualBlockRead,
            DpOp::OwordDualBlockWrite { .. } => Kind::OwordDualBlockWrite,
            DpOp::MediaBlockRead { .. } => Kind::MediaBlockRead,
            DpOp::MediaBlockWrite { .. } => Kind::MediaBlockWrite,
            DpOp::DwordScatteredRead { .. } => Kind::DwordScatteredRead,
            DpOp::DwordScatteredWrite { .. } => Kind::DwordScatteredWrite,
            DpOp::ByteScatteredRead { .. } => Kind::ByteScatteredRead,
            DpOp::ByteScatteredWrite { .. } => Kind::ByteScatteredWrite,
            DpOp::UntypedRead { .. } => Kind::UntypedRead,
            DpOp::UntypedWrite { .. } => Kind::UntypedWrite,
            DpOp::UntypedAtomic {
                simd: SurfaceSimd::Simd4x2,
                ..
            } => Kind::UntypedAtomic4x2,
            DpOp::UntypedAtomic { .. } => Kind::UntypedAtomic,
            DpOp::TypedRead { .. } => Kind::TypedRead,
            DpOp::TypedWrite { .. } => Kind::TypedWrite,
            DpOp::TypedAtomic {
                slots: Slots::Simd4x2,
                ..
            } => Kind::TypedAtomic4x2,
            DpOp::TypedAtomic { .. } => Kind::TypedAtomic,
            DpOp::DwordAtomic { .. } => Kind::DwordAtomic,
            DpOp::ScratchRead { .. } | DpOp::ScratchWrite { .. } => return None,
            DpOp::Fence { .. } => Kind::Fence,
            DpOp::RtWrite { .. } => Kind::RtWrite,
            DpOp::RtUnormRead { .. } => Kind::RtUnormRead,
            DpOp::RtUnormWrite { .. } => Kind::RtUnormWrite,
            DpOp::SvbWrite { .. } => Kind::SvbWrite,
            DpOp::AvcLoopFilterRead { .. } => Kind::AvcLoopFilterRead,
            DpOp::FlushRenderCache { .. } => Kind::FlushRenderCache,
        })
    }
}

/// A data-port request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DataPortMsg {
    pub port: DpPort,
    /// Send a write-commit reply (Gen4/G45 write unit, Gen6 render cache;
    /// the bit exists on every message of those ports).
    pub commit: bool,
    pub op: DpOp,
}

/// Gen4/G45 read-cache codes.
const CACHES: [(u32, ReadCache); 3] = [
    (0b00, ReadCache::Data),
    (0b01, ReadCache::Render),
    (0b10, ReadCache::Sampler),
];

fn port_of(sfid: Sfid) -> Option<DpPort> {
    Some(match sfid {
        Sfid::DataPortRead => DpPort::Read(ReadCache::Data),
        Sfid::DataPortWrite => DpPort::Write,
        Sfid::DpSamplerCache => DpPort::SamplerCache,
        Sfid::DpRenderCache => DpPort::RenderCache,
        Sfid::DpConstantCache => DpPort::ConstantCache,
        Sfid::DpDataCache => DpPort::DataCache,
        Sfid::DpDataCache1 => DpPort::DataCache1,
        _ => return None,
    })
}

pub(super) fn decode(p: IsaGen, sfid: Sfid, fc: u32) -> Result<Message, MessageError> {
    let raw = Message::Other { sfid, function: fc };
    let (Some(l), Some(mut port)) = (layout::of(p, sfid), port_of(sfid)) else {
        return Ok(raw);
    };
    let mut r = Reader::new(fc);
    if let DpPort::Read(_) = port {
        let code = r.get(15, 14);
        port = DpPort::Read(by_code(&CACHES, code).ok_or(reserved("read cache", 15, 14, code))?);
    }
    let commit = l.commit.is_some_and(|bit| r.flag(bit));
    let op = if l.scratch && r.flag(18) {
        control::decode_scratch(&mut r)?
    } else {
        let (hi, lo) = l.ty;
        let code = r.get(hi, lo);
        if l.raw.contains(&code) {
            return Ok(raw);
        }
        let kind =
            by_code(l.types, code).ok_or(reserved("data-port message type", hi, lo, code))?;
        control::decode(p, port, kind, &mut r)?
    };
    r.finish()?;
    Ok(Message::DataPort(DataPortMsg { port, commit, op }))
}

pub(super) fn encode(p: IsaGen, d: &DataPortMsg) -> Result<u32, MessageError> {
    let missing = |what| MessageError::NotOnPlatform { platform: p, what };
    let l = layout::of(p, d.port.sfid()).ok_or(missing("this data port"))?;
    let mut w = Writer::default();
    if let DpPort::Read(cache) = d.port {
        w.put(15, 14, code_for(&CACHES, cache).unwrap_or(0), "cache")?;
    }
    if d.commit {
        w.flag(l.commit.ok_or(missing("write commit on this port"))?, true);
    }
    match d.op.kind() {
        None if l.scratch => {
            w.flag(18, true);
            control::encode_scratch(&d.op, &mut w)?;
        }
        None => return Err(missing("a scratch message on this port")),
        Some(kind) => {
            let code = code_for(l.types, kind).ok_or(missing("this message on this port"))?;
            w.put(l.ty.0, l.ty.1, code, "data-port message type")?;
            control::encode(p, d.port, &d.op, &mut w)?;
        }
    }
    Ok(w.bits())
}
