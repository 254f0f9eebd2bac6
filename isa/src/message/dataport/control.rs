//! Message-specific control bits of each data-port message, in absolute
//! function-control bit numbers. The control field is 11:8 on the Gen4
//! units and the G45 write unit, 10:8 on the G45 read unit (000 lines 4481,
//! 4494), 12:8 on Gen6 (003 line 83514), 13:8 on Gen7 [ext: mesa
//! src/intel/compiler/brw_inst.h `dp_msg_control`]; bits of it a message
//! does not use must be 0.

use super::{
    AtomicOp, Channels, DpOp, DpPort, DualBlocks, ElemSize, Kind, OwordBlocks, RtMode, ScatterSimd,
    Slots, SurfaceSimd, SvbInc, Vls,
};
use crate::generation::IsaGen;
use crate::message::MessageError;
use crate::message::bits::{Reader, Writer, by_code, code_for, reserved};

/// OWord block sizes, 10:8: 000 line 4568 (Gen4/G45, with 101 = 6 OWords),
/// 003 lines 83693-83708 and 83814-83826 (Gen6 block and unaligned block),
/// [ext: mesa brw_eu_defines.h BRW_DATAPORT_OWORD_BLOCK_*] (Gen7).
const OWORDS: [(u32, OwordBlocks); 6] = [
    (0b000, OwordBlocks::OneLow),
    (0b001, OwordBlocks::OneHigh),
    (0b010, OwordBlocks::Two),
    (0b011, OwordBlocks::Four),
    (0b100, OwordBlocks::Eight),
    (0b101, OwordBlocks::Six),
];

/// Dual-block sizes, 9:8 (003 lines 83913-83918). 000 line 4633 copies
/// the single-block list into 10:8, yet its own text (line 4608) allows
/// only 1 or 4 OWords; the Gen6 codes are used everywhere, as Mesa does
/// [ext: mesa brw_eu_defines.h BRW_DATAPORT_OWORD_DUAL_BLOCK_*].
const DUAL: [(u32, DualBlocks); 2] = [(0b00, DualBlocks::One), (0b10, DualBlocks::Four)];

/// DWord scattered block size, 9:8 (000 line 4835, 003 lines 84505-84511;
/// Gen7 keeps it as "legacy SIMD mode" bit 9 plus SIMD16 bit 8 [ext: mesa
/// brw_eu.h `brw_dp_dword_scattered_rw_desc`]).
const SCATTER: [(u32, ScatterSimd); 2] = [(0b10, ScatterSimd::Simd8), (0b11, ScatterSimd::Simd16)];

/// Byte-scattered data size, 11:10 [ext: mesa brw_eu.h
/// `brw_dp_byte_scattered_rw_desc`, GEN7_BYTE_SCATTERED_DATA_ELEMENT_*].
const ELEM: [(u32, ElemSize); 3] = [
    (0, ElemSize::Byte),
    (1, ElemSize::Word),
    (2, ElemSize::Dword),
];

/// Untyped surface SIMD mode, 13:12 [ext: mesa brw_eu.h
/// `brw_dp_untyped_surface_rw_desc`: 0 SIMD4x2, 1 SIMD16, 2 SIMD8].
const SURFACE_SIMD: [(u32, SurfaceSimd); 3] = [
    (0, SurfaceSimd::Simd4x2),
    (1, SurfaceSimd::Simd16),
    (2, SurfaceSimd::Simd8),
];

/// Gen7.5 DC1 typed slot group, 13:12 [ext: mesa brw_eu.h
/// `brw_dp_typed_surface_rw_desc`: 0 SIMD4x2, 1 + (group / 8) % 2].
const SLOTS_HSW: [(u32, Slots); 3] = [(0, Slots::Simd4x2), (1, Slots::Low), (2, Slots::High)];

/// Gen7+ atomic operation codes, 11:8 [ext: mesa brw_eu_defines.h
/// BRW_AOP_*; 0 undefined].
const AOPS: [(u32, AtomicOp); 15] = [
    (1, AtomicOp::And),
    (2, AtomicOp::Or),
    (3, AtomicOp::Xor),
    (4, AtomicOp::Mov),
    (5, AtomicOp::Inc),
    (6, AtomicOp::Dec),
    (7, AtomicOp::Add),
    (8, AtomicOp::Sub),
    (9, AtomicOp::RevSub),
    (10, AtomicOp::Imax),
    (11, AtomicOp::Imin),
    (12, AtomicOp::Umax),
    (13, AtomicOp::Umin),
    (14, AtomicOp::CmpWr),
    (15, AtomicOp::PreDec),
];

/// Gen6 DWord atomic operation codes, 11:8 (003 lines 84679-84714; 1101-1111
/// "unsupported").
const AOPS_GEN6: [(u32, AtomicOp); 13] = [
    (0b0000, AtomicOp::Add),
    (0b0001, AtomicOp::Sub),
    (0b0010, AtomicOp::Inc),
    (0b0011, AtomicOp::Dec),
    (0b0100, AtomicOp::Umin),
    (0b0101, AtomicOp::Umax),
    (0b0110, AtomicOp::Mov),
    (0b0111, AtomicOp::CmpWr),
    (0b1000, AtomicOp::And),
    (0b1001, AtomicOp::Or),
    (0b1010, AtomicOp::Xor),
    (0b1011, AtomicOp::Imin),
    (0b1100, AtomicOp::Imax),
];

/// Render-target write types, 10:8: 000 line 4966 (Gen4/G45, 101-111
/// reserved), 003 lines 84981-84991 (Gen6 adds 101, "[DevSNB Only]"; line
/// 84978 calls SIMD16_REPDATA "111", a misprint of the list's 001),
/// [ext: mesa BRW_DATAPORT_RENDER_TARGET_WRITE_*] (Gen7: 000-100).
const RT_MODES: [(u32, RtMode); 6] = [
    (0b000, RtMode::Simd16),
    (0b001, RtMode::Simd16Rep),
    (0b010, RtMode::Simd8DualLo),
    (0b011, RtMode::Simd8DualHi),
    (0b100, RtMode::Simd8Lo),
    (0b101, RtMode::Simd8Image),
];

/// Vertical line stride override, 10/9/8 (000 lines 4733-4746; 003 lines
/// 84142-84200 media block, 85842 RT UNORM, which 003 dates [DevCTG] to
/// [DevSNB], so it also gives the G45 RT UNORM bits).
fn vls(r: &mut Reader) -> Vls {
    Vls {
        enable: r.flag(10),
        stride: r.flag(9),
        offset: r.flag(8),
    }
}

fn put_vls(w: &mut Writer, v: Vls) {
    w.flag(10, v.enable);
    w.flag(9, v.stride);
    w.flag(8, v.offset);
}

fn mask(r: &mut Reader) -> Channels {
    Channels(!r.get(11, 8) as u8 & 0xF)
}

impl AtomicOp {
    /// The operation of a Gen7+ MDC_AOP code (bits 11:8 of the untyped,
    /// typed and counter atomics; Gen12.5's legacy dc1 keeps the codes),
    /// `None` for 0.
    pub fn from_aop(code: u32) -> Option<AtomicOp> {
        by_code(&AOPS, code)
    }
}

fn aop(r: &mut Reader, p: IsaGen) -> Result<AtomicOp, MessageError> {
    let code = r.get(11, 8);
    let table: &[(u32, AtomicOp)] = if p == IsaGen::Gen6 { &AOPS_GEN6 } else { &AOPS };
    by_code(table, code).ok_or(reserved("atomic operation", 11, 8, code))
}

fn pick<T: Copy>(
    r: &mut Reader,
    hi: u32,
    lo: u32,
    table: &[(u32, T)],
    field: &'static str,
) -> Result<T, MessageError> {
    let code = r.get(hi, lo);
    by_code(table, code).ok_or(reserved(field, hi, lo, code))
}

/// The Gen7 render cache keeps IVB's typed layout: slot group in bit 13
/// [ext: mesa brw_eu.h `brw_dp_typed_surface_rw_desc`, non-HSW branch].
fn typed_slots(r: &mut Reader, port: DpPort) -> Result<Slots, MessageError> {
    if port == DpPort::DataCache1 {
        pick(r, 13, 12, &SLOTS_HSW, "slot group")
    } else {
        Ok(if r.flag(13) { Slots::High } else { Slots::Low })
    }
}

pub(super) fn decode(
    p: IsaGen,
    port: DpPort,
    kind: Kind,
    r: &mut Reader,
) -> Result<DpOp, MessageError> {
    let bti = r.get(7, 0) as u8;
    let gen4 = p < IsaGen::Gen6;
    Ok(match kind {
        Kind::OwordBlockRead | Kind::OwordBlockWrite | Kind::UnalignedOwordBlockRead => {
            let owords = match pick(r, 10, 8, &OWORDS, "block size")? {
                OwordBlocks::Six if !gen4 => return Err(reserved("block size", 10, 8, 0b101)),
                o => o,
            };
            match kind {
                Kind::OwordBlockRead => DpOp::OwordBlockRead { bti, owords },
                Kind::OwordBlockWrite => DpOp::OwordBlockWrite { bti, owords },
                _ => DpOp::UnalignedOwordBlockRead { bti, owords },
            }
        }
        Kind::OwordDualBlockRead => DpOp::OwordDualBlockRead {
            bti,
            owords: pick(r, 9, 8, &DUAL, "block size")?,
        },
        Kind::OwordDualBlockWrite => DpOp::OwordDualBlockWrite {
            bti,
            owords: pick(r, 9, 8, &DUAL, "block size")?,
        },
        Kind::MediaBlockRead => DpOp::MediaBlockRead { bti, vls: vls(r) },
        Kind::MediaBlockWrite => DpOp::MediaBlockWrite { bti, vls: vls(r) },
        Kind::RtUnormRead => DpOp::RtUnormRead { bti, vls: vls(r) },
        Kind::RtUnormWrite => DpOp::RtUnormWrite { bti, vls: vls(r) },
        Kind::DwordScatteredRead => DpOp::DwordScatteredRead {
            bti,
            simd: pick(r, 9, 8, &SCATTER, "block size")?,
        },
        Kind::DwordScatteredWrite => DpOp::DwordScatteredWrite {
            bti,
            simd: pick(r, 9, 8, &SCATTER, "block size")?,
        },
        Kind::ByteScatteredRead | Kind::ByteScatteredWrite => {
            let simd = if r.flag(8) {
                ScatterSimd::Simd16
            } else {
                ScatterSimd::Simd8
            };
            let size = pick(r, 11, 10, &ELEM, "data size")?;
            if kind == Kind::ByteScatteredRead {
                DpOp::ByteScatteredRead { bti, simd, size }
            } else {
                DpOp::ByteScatteredWrite { bti, simd, size }
            }
        }
        Kind::UntypedRead | Kind::UntypedWrite => {
            let mask = mask(r);
            let simd = pick(r, 13, 12, &SURFACE_SIMD, "SIMD mode")?;
            if kind == Kind::UntypedRead {
                DpOp::UntypedRead { bti, simd, mask }
            } else {
                DpOp::UntypedWrite { bti, simd, mask }
            }
        }
        // Op 11:8, SIMD8 bit 12, return data bit 13 [ext: mesa brw_eu.h
        // `brw_dp_untyped_atomic_desc`].
        Kind::UntypedAtomic => DpOp::UntypedAtomic {
            bti,
            op: aop(r, p)?,
            simd: if r.flag(12) {
                SurfaceSimd::Simd8
            } else {
                SurfaceSimd::Simd16
            },
            ret: r.flag(13),
        },
        Kind::UntypedAtomic4x2 => DpOp::UntypedAtomic {
            bti,
            op: aop(r, p)?,
            simd: SurfaceSimd::Simd4x2,
            ret: r.flag(13),
        },
        Kind::TypedRead | Kind::TypedWrite => {
            let mask = mask(r);
            let slots = typed_slots(r, port)?;
            if kind == Kind::TypedRead {
                DpOp::TypedRead { bti, slots, mask }
            } else {
                DpOp::TypedWrite { bti, slots, mask }
            }
        }
        // Op 11:8, high slot group bit 12, return data bit 13 [ext: mesa
        // brw_eu.h `brw_dp_typed_atomic_desc`].
        Kind::TypedAtomic => DpOp::TypedAtomic {
            bti,
            op: aop(r, p)?,
            slots: if r.flag(12) { Slots::High } else { Slots::Low },
            ret: r.flag(13),
        },
        Kind::TypedAtomic4x2 => DpOp::TypedAtomic {
            bti,
            op: aop(r, p)?,
            slots: Slots::Simd4x2,
            ret: r.flag(13),
        },
        // 003 lines 84672-84679: two-source bit 12, operation 11:8.
        Kind::DwordAtomic => DpOp::DwordAtomic {
            bti,
            op: aop(r, p)?,
            two_src: r.flag(12),
        },
        // Commit enable is control bit 5 [ext: mesa brw_eu_emit.c
        // `brw_set_memory_fence_message`].
        Kind::Fence => DpOp::Fence {
            bti,
            commit: r.flag(13),
        },
        Kind::RtWrite => {
            let code = r.get(10, 8);
            let mode = match by_code(&RT_MODES, code) {
                Some(RtMode::Simd8Image) if p != IsaGen::Gen6 => None,
                m => m,
            }
            .ok_or(reserved("render-target write type", 10, 8, code))?;
            // Last RT: bit 11 on Gen4/G45 (000 line 4961), 12 from Gen6 with
            // slot group in 11 (003 lines 84949-84966, where the bit number
            // lost its "1").
            let (last, slot_hi) = if gen4 {
                (r.flag(11), false)
            } else {
                (r.flag(12), r.flag(11))
            };
            DpOp::RtWrite {
                bti,
                mode,
                last,
                slot_hi,
            }
        }
        // G45 only (000 lines 5272-5274); ignored on Gen4 and Gen6 (003
        // lines 86104-86108), so those bits must be 0 there.
        Kind::SvbWrite => DpOp::SvbWrite {
            bti,
            inc: if p == IsaGen::G45 {
                SvbInc {
                    svbi: r.flag(10),
                    prims_written: r.flag(9),
                    storage_needed: r.flag(8),
                }
            } else {
                SvbInc::default()
            },
        },
        // No control bits (000 lines 5417-5418, 5829-5830).
        Kind::AvcLoopFilterRead => DpOp::AvcLoopFilterRead { bti },
        Kind::FlushRenderCache => DpOp::FlushRenderCache { bti },
    })
}

pub(super) fn encode(
    p: IsaGen,
    port: DpPort,
    op: &DpOp,
    w: &mut Writer,
) -> Result<(), MessageError> {
    let owords = |w: &mut Writer, o| w.put(10, 8, code_for(&OWORDS, o).unwrap_or(0), "owords");
    let aop = |w: &mut Writer, o| {
        let table: &[(u32, AtomicOp)] = if p == IsaGen::Gen6 { &AOPS_GEN6 } else { &AOPS };
        let code = code_for(table, o).ok_or(MessageError::NotOnPlatform {
            platform: p,
            what: "this atomic operation",
        })?;
        w.put(11, 8, code, "op")
    };
    let mask = |w: &mut Writer, m: Channels| w.put(11, 8, u32::from(!m.0 & 0xF), "mask");
    let bti = match *op {
        DpOp::OwordBlockRead { bti, owords: o }
        | DpOp::OwordBlockWrite { bti, owords: o }
        | DpOp::UnalignedOwordBlockRead { bti, owords: o } => {
            owords(w, o)?;
            bti
        }
        DpOp::OwordDualBlockRead { bti, owords: o }
        | DpOp::OwordDualBlockWrite { bti, owords: o } => {
            w.put(9, 8, code_for(&DUAL, o).unwrap_or(0), "owords")?;
            bti
        }
        DpOp::MediaBlockRead { bti, vls }
        | DpOp::MediaBlockWrite { bti, vls }
        | DpOp::RtUnormRead { bti, vls }
        | DpOp::RtUnormWrite { bti, vls } => {
            put_vls(w, vls);
            bti
        }
        DpOp::DwordScatteredRead { bti, simd } | DpOp::DwordScatteredWrite { bti, simd } => {
            w.put(9, 8, code_for(&SCATTER, simd).unwrap_or(0), "simd")?;
            bti
        }
        DpOp::ByteScatteredRead { bti, simd, size }
        | DpOp::ByteScatteredWrite { bti, simd, size } => {
            w.flag(8, simd == ScatterSimd::Simd16);
            w.put(11, 10, code_for(&ELEM, size).unwrap_or(0), "size")?;
            bti
        }
        DpOp::UntypedRead { bti, simd, mask: m } | DpOp::UntypedWrite { bti, simd, mask: m } => {
            mask(w, m)?;
            w.put(13, 12, code_for(&SURFACE_SIMD, simd).unwrap_or(0), "simd")?;
            bti
        }
        DpOp::UntypedAtomic { bti, op, simd, ret } => {
            aop(w, op)?;
            w.flag(12, simd == SurfaceSimd::Simd8);
            w.flag(13, ret);
            bti
        }
        DpOp::TypedRead {
            bti,
            slots,
            mask: m,
        }
        | DpOp::TypedWrite {
            bti,
            slots,
            mask: m,
        } => {
            mask(w, m)?;
            if port == DpPort::DataCache1 {
                w.put(13, 12, code_for(&SLOTS_HSW, slots).unwrap_or(0), "slots")?;
            } else if slots == Slots::Simd4x2 {
                return Err(MessageError::NotOnPlatform {
                    platform: p,
                    what: "SIMD4x2 typed messages on this port",
                });
            } else {
                w.flag(13, slots == Slots::High);
            }
            bti
        }
        DpOp::TypedAtomic {
            bti,
            op,
            slots,
            ret,
        } => {
            aop(w, op)?;
            w.flag(12, slots == Slots::High);
            w.flag(13, ret);
            bti
        }
        DpOp::DwordAtomic { bti, op, two_src } => {
            aop(w, op)?;
            w.flag(12, two_src);
            bti
        }
        DpOp::Fence { bti, commit } => {
            w.flag(13, commit);
            bti
        }
        DpOp::RtWrite {
            bti,
            mode,
            last,
            slot_hi,
        } => {
            w.put(10, 8, code_for(&RT_MODES, mode).unwrap_or(0), "mode")?;
            if p < IsaGen::Gen6 {
                w.flag(11, last);
            } else {
                w.flag(12, last);
                w.flag(11, slot_hi);
            }
            bti
        }
        DpOp::SvbWrite { bti, inc } => {
            w.flag(10, inc.svbi);
            w.flag(9, inc.prims_written);
            w.flag(8, inc.storage_needed);
            bti
        }
        DpOp::AvcLoopFilterRead { bti } | DpOp::FlushRenderCache { bti } => bti,
        DpOp::ScratchRead { .. } | DpOp::ScratchWrite { .. } => return encode_scratch(op, w),
    };
    w.put(7, 0, bti.into(), "bti")
}

/// Gen7 scratch block size, 13:12: registers - 1, so 2 is undefined [ext:
/// mesa brw_eu_emit.c `gen7_set_dp_scratch_message`: `num_regs - 1` before
/// Gen8]. IGA (iga64 -p=7p5 -Xdsd) reads the field as log2 (Gen8 style);
/// Mesa's Gen7 code is taken, being what drives the hardware.
const SCRATCH_REGS: [(u32, u8); 3] = [(0, 1), (1, 2), (3, 4)];

/// Gen7 scratch messages (bit 18 set) [ext: mesa src/intel/compiler/brw_inst.h
/// `scratch_read_write` 17, `scratch_type` 16 (1 = DWord),
/// `scratch_invalidate_after_read` 15, `scratch_block_size` 13:12,
/// `scratch_addr_offset` 11:0 (HWords)]; bit 14 must be 0.
pub(super) fn decode_scratch(r: &mut Reader) -> Result<DpOp, MessageError> {
    let write = r.flag(17);
    let dword = r.flag(16);
    let invalidate = r.flag(15);
    let regs = pick(r, 13, 12, &SCRATCH_REGS, "scratch block size")?;
    let offset = r.get(11, 0) as u16;
    Ok(if write {
        DpOp::ScratchWrite {
            regs,
            offset,
            dword,
            invalidate,
        }
    } else {
        DpOp::ScratchRead {
            regs,
            offset,
            dword,
            invalidate,
        }
    })
}

pub(super) fn encode_scratch(op: &DpOp, w: &mut Writer) -> Result<(), MessageError> {
    let (DpOp::ScratchRead {
        regs,
        offset,
        dword,
        invalidate,
    }
    | DpOp::ScratchWrite {
        regs,
        offset,
        dword,
        invalidate,
    }) = *op
    else {
        return Ok(());
    };
    w.flag(17, matches!(op, DpOp::ScratchWrite { .. }));
    w.flag(16, dword);
    w.flag(15, invalidate);
    let size = code_for(&SCRATCH_REGS, regs).ok_or(MessageError::OutOfRange {
        field: "regs",
        value: regs.into(),
    })?;
    w.put(13, 12, size, "regs")?;
    w.put(11, 0, offset.into(), "offset")
}
