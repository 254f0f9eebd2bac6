//! Symbolic form of data-port messages: `<port>.<message>(fields)`.

use alloc::format;

use super::{Channels, DataPortMsg, DpOp, DpPort, ReadCache, SvbInc, Vls};
use crate::inst::Sfid;
use crate::message::MessageError;
use crate::message::sampler::byte;
use crate::message::text::{Fields, Out, Parsed, syntax, unknown_op};

/// Every message word, in `DpOp` order.
const OPS: [&str; 27] = [
    "oword_block_read",
    "oword_block_write",
    "unaligned_oword_block_read",
    "oword_dual_block_read",
    "oword_dual_block_write",
    "media_block_read",
    "media_block_write",
    "dword_scattered_read",
    "dword_scattered_write",
    "byte_scattered_read",
    "byte_scattered_write",
    "untyped_read",
    "untyped_write",
    "untyped_atomic",
    "typed_read",
    "typed_write",
    "typed_atomic",
    "dword_atomic",
    "scratch_read",
    "scratch_write",
    "fence",
    "rt_write",
    "rt_unorm_read",
    "rt_unorm_write",
    "svb_write",
    "avc_loop_filter_read",
    "flush_rt_cache",
];

fn op_name(op: &DpOp) -> &'static str {
    let i = match op {
        DpOp::OwordBlockRead { .. } => 0,
        DpOp::OwordBlockWrite { .. } => 1,
        DpOp::UnalignedOwordBlockRead { .. } => 2,
        DpOp::OwordDualBlockRead { .. } => 3,
        DpOp::OwordDualBlockWrite { .. } => 4,
        DpOp::MediaBlockRead { .. } => 5,
        DpOp::MediaBlockWrite { .. } => 6,
        DpOp::DwordScatteredRead { .. } => 7,
        DpOp::DwordScatteredWrite { .. } => 8,
        DpOp::ByteScatteredRead { .. } => 9,
        DpOp::ByteScatteredWrite { .. } => 10,
        DpOp::UntypedRead { .. } => 11,
        DpOp::UntypedWrite { .. } => 12,
        DpOp::UntypedAtomic { .. } => 13,
        DpOp::TypedRead { .. } => 14,
        DpOp::TypedWrite { .. } => 15,
        DpOp::TypedAtomic { .. } => 16,
        DpOp::DwordAtomic { .. } => 17,
        DpOp::ScratchRead { .. } => 18,
        DpOp::ScratchWrite { .. } => 19,
        DpOp::Fence { .. } => 20,
        DpOp::RtWrite { .. } => 21,
        DpOp::RtUnormRead { .. } => 22,
        DpOp::RtUnormWrite { .. } => 23,
        DpOp::SvbWrite { .. } => 24,
        DpOp::AvcLoopFilterRead { .. } => 25,
        DpOp::FlushRenderCache { .. } => 26,
    };
    OPS[i]
}

fn unit(port: DpPort) -> &'static str {
    match port {
        DpPort::Read(_) => "dpr",
        DpPort::Write => "dpw",
        DpPort::SamplerCache => "sc",
        DpPort::RenderCache => "rc",
        DpPort::ConstantCache => "cc",
        DpPort::DataCache => "dc",
        DpPort::DataCache1 => "dc1",
    }
}

const LETTERS: [char; 4] = ['x', 'y', 'z', 'w'];

/// `xyzw`, `xz`, ... for the enabled channels, `none` for none.
fn channels(c: Channels) -> alloc::string::String {
    let s: alloc::string::String = (0..4)
        .filter(|i| c.0 & (1 << i) != 0)
        .map(|i| LETTERS[i])
        .collect();
    if s.is_empty() { "none".into() } else { s }
}

fn parse_channels(s: &str, at: usize) -> Result<Channels, MessageError> {
    if s == "none" {
        return Ok(Channels(0));
    }
    let mut bits = 0u8;
    for ch in s.chars() {
        let i = LETTERS
            .iter()
            .position(|l| *l == ch)
            .ok_or_else(|| syntax(at, format!("`{s}`: a mask is letters of xyzw, or none")))?;
        if bits & (1 << i) != 0 {
            return Err(syntax(at, format!("`{s}` names a channel twice")));
        }
        bits |= 1 << i;
    }
    Ok(Channels(bits))
}

fn vls(o: &mut Out, v: Vls) {
    o.flag("vls_enable", v.enable);
    o.flag("vls_stride", v.stride);
    o.flag("vls_offset", v.offset);
}

fn read_vls(f: &mut Fields<'_>) -> Result<Vls, MessageError> {
    Ok(Vls {
        enable: f.flag("vls_enable")?,
        stride: f.flag("vls_stride")?,
        offset: f.flag("vls_offset")?,
    })
}

impl DataPortMsg {
    pub(in crate::message) fn text(&self) -> Out {
        let mut o = Out::new(unit(self.port), op_name(&self.op));
        let bti = |o: &mut Out, b: u8| o.num("bti", b.into());
        match self.op {
            DpOp::OwordBlockRead { bti: b, owords }
            | DpOp::OwordBlockWrite { bti: b, owords }
            | DpOp::UnalignedOwordBlockRead { bti: b, owords } => {
                bti(&mut o, b);
                o.word("owords", owords);
            }
            DpOp::OwordDualBlockRead { bti: b, owords }
            | DpOp::OwordDualBlockWrite { bti: b, owords } => {
                bti(&mut o, b);
                o.word("owords", owords);
            }
            DpOp::MediaBlockRead { bti: b, vls: v }
            | DpOp::MediaBlockWrite { bti: b, vls: v }
            | DpOp::RtUnormRead { bti: b, vls: v }
            | DpOp::RtUnormWrite { bti: b, vls: v } => {
                bti(&mut o, b);
                vls(&mut o, v);
            }
            DpOp::DwordScatteredRead { bti: b, simd }
            | DpOp::DwordScatteredWrite { bti: b, simd } => {
                bti(&mut o, b);
                o.word("simd", simd);
            }
            DpOp::ByteScatteredRead { bti: b, simd, size }
            | DpOp::ByteScatteredWrite { bti: b, simd, size } => {
                bti(&mut o, b);
                o.word("simd", simd);
                o.word("size", size);
            }
            DpOp::UntypedRead { bti: b, simd, mask }
            | DpOp::UntypedWrite { bti: b, simd, mask } => {
                bti(&mut o, b);
                o.word("simd", simd);
                o.word_str("mask", channels(mask));
            }
            DpOp::UntypedAtomic {
                bti: b,
                op,
                simd,
                ret,
            } => {
                bti(&mut o, b);
                o.word("op", op);
                o.word("simd", simd);
                o.flag("ret", ret);
            }
            DpOp::TypedRead {
                bti: b,
                slots,
                mask,
            }
            | DpOp::TypedWrite {
                bti: b,
                slots,
                mask,
            } => {
                bti(&mut o, b);
                o.word("slots", slots);
                o.word_str("mask", channels(mask));
            }
            DpOp::TypedAtomic {
                bti: b,
                op,
                slots,
                ret,
            } => {
                bti(&mut o, b);
                o.word("op", op);
                o.word("slots", slots);
                o.flag("ret", ret);
            }
            DpOp::DwordAtomic {
                bti: b,
                op,
                two_src,
            } => {
                bti(&mut o, b);
                o.word("op", op);
                o.flag("two_src", two_src);
            }
            DpOp::ScratchRead {
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
            } => {
                o.num("regs", regs.into());
                o.num("offset", offset.into());
                o.flag("dword", dword);
                o.flag("invalidate", invalidate);
            }
            DpOp::Fence { bti: b, commit } => {
                bti(&mut o, b);
                o.flag("commit", commit);
            }
            DpOp::RtWrite {
                bti: b,
                mode,
                last,
                slot_hi,
            } => {
                bti(&mut o, b);
                o.word("mode", mode);
                o.flag("last", last);
                o.flag("slot_hi", slot_hi);
            }
            DpOp::SvbWrite { bti: b, inc } => {
                bti(&mut o, b);
                o.flag("inc_svbi", inc.svbi);
                o.flag("inc_prims", inc.prims_written);
                o.flag("inc_storage", inc.storage_needed);
            }
            DpOp::AvcLoopFilterRead { bti: b } | DpOp::FlushRenderCache { bti: b } => {
                bti(&mut o, b)
            }
        }
        if let DpPort::Read(cache) = self.port {
            o.word("cache", cache);
        }
        o.flag("commit", self.commit);
        o
    }
}

/// The data-port message `p` writes for the port of `sfid`.
pub(in crate::message) fn parse(
    sfid: Sfid,
    p: &mut Parsed<'_>,
) -> Result<DataPortMsg, MessageError> {
    let Some(index) = OPS.iter().position(|o| *o == p.op) else {
        return Err(unknown_op(p));
    };
    let f = &mut p.fields;
    let mut port = match sfid {
        Sfid::DataPortRead => DpPort::Read(ReadCache::Data),
        Sfid::DataPortWrite => DpPort::Write,
        Sfid::DpSamplerCache => DpPort::SamplerCache,
        Sfid::DpRenderCache => DpPort::RenderCache,
        Sfid::DpConstantCache => DpPort::ConstantCache,
        Sfid::DpDataCache => DpPort::DataCache,
        _ => DpPort::DataCache1,
    };
    if let DpPort::Read(_) = port {
        port = DpPort::Read(f.word("cache")?);
    }
    // Scratch messages have no binding-table index.
    let bti = if matches!(index, 18 | 19) {
        0
    } else {
        byte(f.num("bti")?, "bti")?
    };
    let mask = |f: &mut Fields<'_>| -> Result<Channels, MessageError> {
        match f.opt_str("mask")? {
            Some((s, at)) => parse_channels(s, at),
            None => Ok(Channels(0xF)),
        }
    };
    let op = match index {
        0 => DpOp::OwordBlockRead {
            bti,
            owords: f.word("owords")?,
        },
        1 => DpOp::OwordBlockWrite {
            bti,
            owords: f.word("owords")?,
        },
        2 => DpOp::UnalignedOwordBlockRead {
            bti,
            owords: f.word("owords")?,
        },
        3 => DpOp::OwordDualBlockRead {
            bti,
            owords: f.word("owords")?,
        },
        4 => DpOp::OwordDualBlockWrite {
            bti,
            owords: f.word("owords")?,
        },
        5 => DpOp::MediaBlockRead {
            bti,
            vls: read_vls(f)?,
        },
        6 => DpOp::MediaBlockWrite {
            bti,
            vls: read_vls(f)?,
        },
        7 => DpOp::DwordScatteredRead {
            bti,
            simd: f.word("simd")?,
        },
        8 => DpOp::DwordScatteredWrite {
            bti,
            simd: f.word("simd")?,
        },
        9 => DpOp::ByteScatteredRead {
            bti,
            simd: f.word("simd")?,
            size: f.word("size")?,
        },
        10 => DpOp::ByteScatteredWrite {
            bti,
            simd: f.word("simd")?,
            size: f.word("size")?,
        },
        11 => DpOp::UntypedRead {
            bti,
            simd: f.word("simd")?,
            mask: mask(f)?,
        },
        12 => DpOp::UntypedWrite {
            bti,
            simd: f.word("simd")?,
            mask: mask(f)?,
        },
        13 => DpOp::UntypedAtomic {
            bti,
            op: f.word("op")?,
            simd: f.word("simd")?,
            ret: f.flag("ret")?,
        },
        14 => DpOp::TypedRead {
            bti,
            slots: f.word("slots")?,
            mask: mask(f)?,
        },
        15 => DpOp::TypedWrite {
            bti,
            slots: f.word("slots")?,
            mask: mask(f)?,
        },
        16 => DpOp::TypedAtomic {
            bti,
            op: f.word("op")?,
            slots: f.word("slots")?,
            ret: f.flag("ret")?,
        },
        17 => DpOp::DwordAtomic {
            bti,
            op: f.word("op")?,
            two_src: f.flag("two_src")?,
        },
        18 | 19 => {
            let regs = byte(f.num("regs")?, "regs")?;
            let offset = f.num("offset")?;
            let offset = u16::try_from(offset).map_err(|_| MessageError::OutOfRange {
                field: "offset",
                value: offset,
            })?;
            let (dword, invalidate) = (f.flag("dword")?, f.flag("invalidate")?);
            if index == 18 {
                DpOp::ScratchRead {
                    regs,
                    offset,
                    dword,
                    invalidate,
                }
            } else {
                DpOp::ScratchWrite {
                    regs,
                    offset,
                    dword,
                    invalidate,
                }
            }
        }
        // The fence's own commit flag; no port with a fence has a
        // write-commit bit.
        20 => {
            return Ok(DataPortMsg {
                port,
                commit: false,
                op: DpOp::Fence {
                    bti,
                    commit: f.flag("commit")?,
                },
            });
        }
        21 => DpOp::RtWrite {
            bti,
            mode: f.word("mode")?,
            last: f.flag("last")?,
            slot_hi: f.flag("slot_hi")?,
        },
        22 => DpOp::RtUnormRead {
            bti,
            vls: read_vls(f)?,
        },
        23 => DpOp::RtUnormWrite {
            bti,
            vls: read_vls(f)?,
        },
        24 => DpOp::SvbWrite {
            bti,
            inc: SvbInc {
                svbi: f.flag("inc_svbi")?,
                prims_written: f.flag("inc_prims")?,
                storage_needed: f.flag("inc_storage")?,
            },
        },
        25 => DpOp::AvcLoopFilterRead { bti },
        _ => DpOp::FlushRenderCache { bti },
    };
    Ok(DataPortMsg {
        port,
        commit: f.flag("commit")?,
        op,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_masks_round_trip() {
        for bits in 0..16u8 {
            let s = channels(Channels(bits));
            assert_eq!(parse_channels(&s, 0).unwrap(), Channels(bits), "{s}");
        }
        assert_eq!(channels(Channels(0b0101)), "xz");
        assert!(parse_channels("xx", 0).is_err());
        assert!(parse_channels("xq", 0).is_err());
    }

    #[test]
    fn every_op_word_is_distinct() {
        for (i, a) in OPS.iter().enumerate() {
            assert!(OPS[i + 1..].iter().all(|b| a != b), "{a}");
        }
    }
}
