//! Sampling-engine messages (SFID 2).
//!
//! Function control: 7:0 binding-table index and 11:8 sampler index on every
//! generation; then
//! - Gen4: 15:14 message type, 13:12 return format (000 lines 3944-3947);
//! - G45: 15:12 message type, no return format (000 lines 3956-3958);
//! - Gen6: 17:16 SIMD mode, 15:12 message type, 18 MBZ (003 lines
//!   79177-79219);
//! - Gen7/7.5: 18:17 SIMD mode, 16:12 message type [ext: mesa
//!   src/intel/compiler/brw_inst.h `sampler_simd_mode`, `sampler_msg_type`].
//!
//! On Gen4/G45 the type only selects a group; the message (and its SIMD
//! width) follows from the type and the message length together (000
//! lines 3991, 3997-4022), so decoding needs the length and an undefined
//! pair is refused. SIMD32/64 messages (Gen6+ SIMD mode 3: sample_unorm,
//! sample_8x8, deinterlace; 003 lines 79404-79419) decode to
//! [`Message::Other`]; [`simd32_64_name`] names the Gen6 ones.

use super::bits::{Reader, Writer, by_code, code_for, reserved};
use super::text::{Named, Out, Parsed, named, unknown_op};
use super::{Message, MessageError};
use crate::generation::IsaGen;
use crate::inst::Sfid;

named! {
    /// What the sampler computes (names as in the manuals' mnemonics).
    pub enum SamplerOp {
        Sample = "sample",
        SampleB = "sample_b",
        SampleL = "sample_l",
        SampleC = "sample_c",
        /// Explicit derivatives (Gen4 "sample_g").
        SampleD = "sample_d",
        SampleBC = "sample_b_c",
        SampleLC = "sample_l_c",
        Ld = "ld",
        /// Gen6 "load4", Mesa "gather4".
        Gather4 = "gather4",
        Lod = "lod",
        Resinfo = "resinfo",
        SampleInfo = "sampleinfo",
        /// Sample and return the pixel kill mask too.
        SampleKillpix = "sample_killpix",
        Gather4C = "gather4_c",
        Gather4Po = "gather4_po",
        Gather4PoC = "gather4_po_c",
        SampleDC = "sample_d_c",
        LdMcs = "ld_mcs",
        Ld2dms = "ld2dms",
        Ld2dss = "ld2dss",
    }
}

named! {
    /// Pixels per message and payload layout.
    pub enum SamplerSimd {
        Simd4x2 = "4x2",
        Simd8 = "8",
        Simd16 = "16",
    }
}

named! {
    /// Gen4 (not G45) data return format (000 line 3945; 01 reserved).
    pub enum ReturnFormat {
        F32 = "f32",
        U32 = "u32",
        S32 = "s32",
    }
}

/// A sampler request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SamplerMsg {
    pub bti: u8,
    /// Sampler-state index (ignored by ld/resinfo/sampleinfo).
    pub sampler: u8,
    pub op: SamplerOp,
    pub simd: SamplerSimd,
    /// Gen4 only; `None` on every other platform.
    pub ret: Option<ReturnFormat>,
}

use SamplerOp as O;
use SamplerSimd as S;

/// Gen4/G45 (message type, message length) → message, 000 lines 3999-4022
/// (one row per table line; lengths include the header).
const GEN4_TABLE: [(u32, u8, SamplerOp, SamplerSimd); 24] = [
    (0b00, 3, O::Sample, S::Simd16),       // line 3999
    (0b00, 5, O::Sample, S::Simd16),       // line 4000
    (0b00, 7, O::Sample, S::Simd16),       // line 4001
    (0b00, 4, O::Sample, S::Simd8),        // line 4002
    (0b01, 4, O::SampleKillpix, S::Simd8), // line 4003
    (0b00, 9, O::SampleB, S::Simd16),      // line 4004
    (0b01, 9, O::SampleL, S::Simd16),      // line 4005
    (0b01, 2, O::SampleL, S::Simd4x2),     // line 4006
    (0b10, 9, O::SampleC, S::Simd16),      // line 4007
    (0b00, 2, O::SampleC, S::Simd4x2),     // line 4008
    (0b00, 6, O::SampleBC, S::Simd8),      // line 4009
    (0b01, 6, O::SampleLC, S::Simd8),      // line 4010
    (0b01, 3, O::SampleLC, S::Simd4x2),    // line 4011
    (0b11, 3, O::Ld, S::Simd16),           // line 4012
    (0b11, 5, O::Ld, S::Simd16),           // line 4013
    (0b11, 7, O::Ld, S::Simd16),           // line 4014
    (0b11, 4, O::Ld, S::Simd8),            // line 4015
    (0b11, 9, O::Ld, S::Simd16),           // line 4016
    (0b11, 2, O::Ld, S::Simd4x2),          // line 4017
    (0b10, 7, O::SampleD, S::Simd8),       // line 4018 (sample_g, 2-D)
    (0b10, 10, O::SampleD, S::Simd8),      // line 4019 (sample_g, 3-D)
    (0b10, 4, O::SampleD, S::Simd4x2),     // line 4020
    (0b10, 3, O::Resinfo, S::Simd16),      // line 4021
    (0b10, 2, O::Resinfo, S::Simd4x2),     // line 4022
                                           // Lines 4023-4025 (SIMD32 sample_unorm) give no type code: undefined.
];

/// Gen6 message types for SIMD4x2/8/16 (003 lines 79366-79390; 1101-1111
/// reserved).
const GEN6_TYPES: [(u32, SamplerOp); 13] = [
    (0b0000, O::Sample),
    (0b0001, O::SampleB),
    (0b0010, O::SampleL),
    (0b0011, O::SampleC),
    (0b0100, O::SampleD),
    (0b0101, O::SampleBC),
    (0b0110, O::SampleLC),
    (0b0111, O::Ld),
    (0b1000, O::Gather4), // "load4"
    (0b1001, O::Lod),
    (0b1010, O::Resinfo),
    (0b1011, O::SampleInfo),
    (0b1100, O::SampleKillpix),
];

/// Gen7/7.5 message types [ext: mesa src/intel/compiler/brw_eu_defines.h
/// GEN5_/GEN6_/GEN7_/HSW_SAMPLER_MESSAGE_*]: 0-11 keep the Gen6 codes;
/// sample+killpix (Gen6 12) has no Gen7 code there, so 12 is refused.
const GEN7_TYPES: [(u32, SamplerOp); 19] = [
    (0, O::Sample),
    (1, O::SampleB),
    (2, O::SampleL),
    (3, O::SampleC),
    (4, O::SampleD),
    (5, O::SampleBC),
    (6, O::SampleLC),
    (7, O::Ld),
    (8, O::Gather4),
    (9, O::Lod),
    (10, O::Resinfo),
    (11, O::SampleInfo),
    (16, O::Gather4C),
    (17, O::Gather4Po),
    (18, O::Gather4PoC),
    (20, O::SampleDC), // HSW_SAMPLER_MESSAGE_SAMPLE_DERIV_COMPARE: Gen7.5 only
    (29, O::LdMcs),
    (30, O::Ld2dms),
    (31, O::Ld2dss),
];

/// Gen6 SIMD32/64 message types (SIMD Mode 3; 003 lines 79400-79419):
/// the sample_unorm, sample_8x8 and deinterlace family, with a pixel
/// shader or a media payload layout. They decode to [`Message::Other`];
/// the names serve refusals and tools. The manual prints 5-bit codes
/// whose top bit is 0 in a 4-bit field (15:12), read as 4-bit codes here.
/// Gen7 has no public table of these codes (Mesa defines none).
const GEN6_SIMD32_64: [(u32, &str); 7] = [
    (0b0000, "sample_unorm"),
    (0b0010, "sample_unorm+killpix"),
    (0b0011, "sample_8x8"),
    (0b1000, "deinterlace"),
    (0b1100, "sample_unorm (media)"),
    (0b1010, "sample_unorm+killpix (media)"),
    (0b1011, "sample_8x8 (media)"),
];

/// The name of the SIMD32/64 sampler message (SIMD Mode 3) with function
/// control `fc` on `p`, where a public source gives one (Gen6 only).
pub fn simd32_64_name(p: IsaGen, fc: u32) -> Option<&'static str> {
    let mut r = Reader::new(fc);
    if p != IsaGen::Gen6 || r.get(17, 16) != 3 {
        return None;
    }
    by_code(&GEN6_SIMD32_64, r.get(15, 12))
}

/// SIMD mode codes, Gen6 (003 lines 79184-79194) and Gen7 [ext: mesa
/// brw_eu_defines.h BRW_SAMPLER_SIMD_MODE_*]; 3 is SIMD32/64.
const SIMD_MODES: [(u32, SamplerSimd); 3] = [(0, S::Simd4x2), (1, S::Simd8), (2, S::Simd16)];

const RETURN_FORMATS: [(u32, ReturnFormat); 3] = [
    (0b00, ReturnFormat::F32),
    (0b10, ReturnFormat::U32),
    (0b11, ReturnFormat::S32),
];

/// Bit positions (type hi, type lo, SIMD hi, SIMD lo) for Gen6+.
fn gen6_fields(p: IsaGen) -> (u32, u32, u32, u32) {
    if p >= IsaGen::Gen7 {
        (16, 12, 18, 17)
    } else {
        (15, 12, 17, 16)
    }
}

fn types(p: IsaGen) -> &'static [(u32, SamplerOp)] {
    if p >= IsaGen::Gen7 {
        &GEN7_TYPES
    } else {
        &GEN6_TYPES
    }
}

pub(super) fn decode(p: IsaGen, fc: u32, mlen: u8) -> Result<Message, MessageError> {
    let mut r = Reader::new(fc);
    let bti = r.get(7, 0) as u8;
    let sampler = r.get(11, 8) as u8;
    let (op, simd, ret) = match p {
        IsaGen::Gen4 | IsaGen::G45 => {
            let (ty, ret) = if p == IsaGen::Gen4 {
                let code = r.get(13, 12);
                let ret = by_code(&RETURN_FORMATS, code).ok_or(reserved(
                    "return format",
                    13,
                    12,
                    code,
                ))?;
                (r.get(15, 14), Some(ret))
            } else {
                // G45 keeps Gen4's codes in a 4-bit field; codes above 3
                // (sample_unorm) are not given (000 lines 3956, 4023-4025).
                let ty = r.get(15, 12);
                if ty > 3 {
                    return Err(reserved("sampler message type", 15, 12, ty));
                }
                (ty, None)
            };
            let row = GEN4_TABLE
                .iter()
                .find(|(t, m, _, _)| *t == ty && *m == mlen)
                .ok_or(MessageError::SamplerLength {
                    msg_type: ty as u8,
                    mlen,
                })?;
            (row.2, row.3, ret)
        }
        _ => {
            let (thi, tlo, shi, slo) = gen6_fields(p);
            let simd_code = r.get(shi, slo);
            let Some(simd) = by_code(&SIMD_MODES, simd_code) else {
                return Ok(Message::Other {
                    sfid: Sfid::Sampler,
                    function: fc,
                });
            };
            let code = r.get(thi, tlo);
            let op = match by_code(types(p), code) {
                Some(O::SampleDC) if p != IsaGen::Gen75 => None,
                o => o,
            }
            .ok_or(reserved("sampler message type", thi, tlo, code))?;
            (op, simd, None)
        }
    };
    r.finish()?;
    Ok(Message::Sampler(SamplerMsg {
        bti,
        sampler,
        op,
        simd,
        ret,
    }))
}

pub(super) fn encode(p: IsaGen, s: &SamplerMsg, mlen: u8) -> Result<u32, MessageError> {
    let mut w = Writer::default();
    w.put(7, 0, s.bti.into(), "bti")?;
    w.put(11, 8, s.sampler.into(), "sampler")?;
    let missing = MessageError::NotOnPlatform {
        platform: p,
        what: "this sampler message",
    };
    match p {
        IsaGen::Gen4 | IsaGen::G45 => {
            let ty = GEN4_TABLE
                .iter()
                .find(|(_, _, o, m)| *o == s.op && *m == s.simd)
                .map(|row| row.0)
                .ok_or(missing)?;
            if !GEN4_TABLE.iter().any(|(t, m, _, _)| *t == ty && *m == mlen) {
                return Err(MessageError::SamplerLength {
                    msg_type: ty as u8,
                    mlen,
                });
            }
            if p == IsaGen::Gen4 {
                let ret = s.ret.ok_or(MessageError::NotOnPlatform {
                    platform: p,
                    what: "a sampler message without a return format",
                })?;
                w.put(15, 14, ty, "sampler message type")?;
                w.put(13, 12, code_for(&RETURN_FORMATS, ret).unwrap_or(0), "ret")?;
            } else {
                w.put(15, 12, ty, "sampler message type")?;
            }
        }
        _ => {
            let (thi, tlo, shi, slo) = gen6_fields(p);
            let code = code_for(types(p), s.op).ok_or(missing)?;
            w.put(thi, tlo, code, "sampler message type")?;
            w.put(shi, slo, code_for(&SIMD_MODES, s.simd).unwrap_or(0), "simd")?;
        }
    }
    Ok(w.bits())
}

impl SamplerMsg {
    pub(super) fn text(&self) -> Out {
        let mut o = Out::new("sampler", self.op.name());
        o.num("bti", self.bti.into());
        o.num("sampler", self.sampler.into());
        o.word("simd", self.simd);
        if let Some(ret) = self.ret {
            o.word("ret", ret);
        }
        o
    }
}

pub(super) fn parse(p: &mut Parsed<'_>) -> Result<SamplerMsg, MessageError> {
    let op = SamplerOp::from_name(p.op).ok_or_else(|| unknown_op(p))?;
    let f = &mut p.fields;
    Ok(SamplerMsg {
        bti: byte(f.num("bti")?, "bti")?,
        sampler: byte(f.num("sampler")?, "sampler")?,
        op,
        simd: f.word("simd")?,
        ret: f.opt_word("ret")?,
    })
}

/// A text number that must fit a byte field.
pub(super) fn byte(v: u32, field: &'static str) -> Result<u8, MessageError> {
    u8::try_from(v).map_err(|_| MessageError::OutOfRange { field, value: v })
}
