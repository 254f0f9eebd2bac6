//! Where each parameter of a sampler message sits, per generation and
//! SIMD mode (SIMD8/16: parameter k is payload register k after the
//! header, or registers 2k and 2k + 1 for SIMD16; SIMD4x2: parameters 4n
//! to 4n + 3 share register n).
//!
//! - Gen4/G45 (000 lines 3999-4022): sample u v r; sample_b u v r bias;
//!   sample_l u v r lod; sample_c u v r ref; sample_b_c u v r bias ref;
//!   sample_l_c u v r lod ref; ld u v r lod; resinfo lod; sample_g (2-D
//!   form, message length 7) u v dudx dvdx dudy dvdy, (3-D form, length
//!   10) u v r dudx dvdx drdx dudy dvdy drdy; sample+killpix (SIMD8,
//!   length 4) u v r. No lod or sampleinfo message. The SIMD4x2 rows
//!   place some parameters apart: resinfo's lod is parameter 3 (line
//!   4022) and sample_g has u v r - dudx dvdx drdx - dudy dvdy drdy (line
//!   4020).
//! - Gen6 (003 lines 79366-79390): sample u v r ai; load4 (gather4) u v
//!   r ai; sample_b u v r ai
//!   bias; sample_l u v r ai lod; sample_c u v r ai ref; sample_d u v r ai
//!   dudx dudy dvdx dvdy drdx drdy; sample_b_c u v r ai ref bias;
//!   sample_l_c u v r ai ref lod; ld u v r lod; LOD u v r ai; resinfo
//!   lod; sampleinfo none; sample+killpix u v r.
//! - Gen7/7.5 SIMD8/16 [ext: mesa
//!   src/intel/compiler/elk/elk_lower_logical_sends.cpp
//!   `lower_sampler_logical_send`, "[hdr], [ref], x, dPdx.x, dPdy.x, y,
//!   ..."]: the shadow reference first, then the LOD or bias, then the
//!   coordinates; sample_d interleaves each coordinate with its two
//!   derivatives (Gen7.5's sample_d_c puts the reference first [ext:
//!   mesa, "[hdr], [ref], x, dPdx.x, ..."; brw_eu_defines.h
//!   HSW_SAMPLER_MESSAGE_SAMPLE_DERIV_COMPARE]); ld is "intermixed: u,
//!   lod, v, r"; gather4 takes the sample layout and gather4_c the
//!   sample_c one; gather4_po "more crazy intermixing": u v offu offv r,
//!   after the reference for gather4_po_c; lod takes the coordinates
//!   alone, as sample does; sampleinfo has no parameter ("Sampleinfo
//!   message - takes no parameters, but mlen = 0 is illegal", [ext: mesa
//!   src/intel/compiler/brw_vec4_nir.cpp], so it is sent with a header).
//!   The multisample loads [ext: mesa
//!   src/intel/compiler/elk/elk_lower_logical_sends.cpp, case
//!   ELK_SHADER_OPCODE_TXF_CMS/TXF_UMS/TXF_MCS: the sample index (not
//!   ld_mcs), the MCS value (ld2dms only), then the coordinates, "no
//!   offsetting for this message"]: ld2dms si mcs u v r; ld2dss si u v r;
//!   ld_mcs u v r.
//! - Gen6 ld adds the sample index after lod: u v r lod si (003 line
//!   79380).
//! - Gen12.5 SIMD8/16 (the Gfx9+ orders of Mesa
//!   src/intel/compiler/brw_lower_logical_sends.cpp
//!   `lower_sampler_logical_send`): Gen7's, but ld is "u, v, lod, r"; the
//!   lz forms (`lz`: sample_lz, type 24, for sample_l and ld_lz, type 26,
//!   for ld, which Mesa sends when the lod is zero) drop the lod
//!   parameter, the rest moving up: sample_lz u v r ai, ld_lz u v r.
//! - Gen7/7.5 SIMD4x2 keeps the Gen6 order: Mesa's vec4 back end, which
//!   sends every Gen7 SIMD4x2 sampler message, writes the coordinates to
//!   parameters 0-3, the reference or lod to 4 (lod 5 after a
//!   reference), ld's lod to 3, sample_d's gradients to 4-9 and Gen7.5
//!   sample_d_c's reference to 10, and gather4_po's reference to 3 and
//!   offsets to 4-5 [ext: mesa src/intel/compiler/brw_vec4_nir.cpp
//!   `nir_emit_texture`, `param_base + 1`; brw_vec4_generator.cpp
//!   `generate_tex` sends them unchanged with
//!   BRW_SAMPLER_SIMD_MODE_SIMD4X2].

use baregpu_isa::IsaGen;
use baregpu_isa::message::SamplerOp;

/// Parameter indices of one operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Params {
    pub u: usize,
    pub v: usize,
    /// The third coordinate: 3D `r`, cube `z`, 2D array index (003 lines
    /// 79841-79870).
    pub r: Option<usize>,
    /// The cube array index `ai`.
    pub ai: Option<usize>,
    /// The lod (sample_l, ld, resinfo) or bias (sample_b) parameter.
    pub lod: Option<usize>,
    /// The shadow reference (sample_c family).
    pub reference: Option<usize>,
    /// dudx, dvdx, dudy, dvdy (sample_d).
    pub gradients: Option<[usize; 4]>,
    /// drdx, drdy (sample_d on 3D surfaces).
    pub rgrad: Option<[usize; 2]>,
    /// offu, offv (gather4_po).
    pub offsets: Option<[usize; 2]>,
    /// The sample index (Gen6 ld, Gen7 ld2dms and ld2dss).
    pub si: Option<usize>,
}

/// Coordinates u, v, r, ai at `base`, `base + 1`, ...
const fn coords(base: usize) -> Params {
    Params {
        u: base,
        v: base + 1,
        r: Some(base + 2),
        ai: Some(base + 3),
        lod: None,
        reference: None,
        gradients: None,
        rgrad: None,
        offsets: None,
        si: None,
    }
}

/// `base` with its lod and reference parameters.
const fn with(base: Params, lod: Option<usize>, reference: Option<usize>) -> Params {
    Params {
        lod,
        reference,
        ..base
    }
}

/// The parameter layout of `op` on `p` for a message of `mlen` registers
/// including the header (`header` registers) in SIMD4x2 mode or not;
/// `None` for an operation this model does not serve.
pub(super) fn params(
    p: IsaGen,
    op: SamplerOp,
    mlen: usize,
    header: usize,
    simd4x2: bool,
    lz: bool,
) -> Option<Params> {
    use SamplerOp as O;
    // Gen4/G45 have no ai parameter but sample_c's, which addresses cube
    // arrays Gen4 does not have.
    let gen4 = Params {
        ai: None,
        ..coords(0)
    };
    Some(match p {
        IsaGen::Gen4 | IsaGen::G45 => match op {
            O::Sample | O::SampleKillpix => gen4,
            O::SampleB | O::SampleL | O::Ld => with(gen4, Some(3), None),
            O::SampleC => with(gen4, None, Some(3)),
            O::SampleBC | O::SampleLC => with(gen4, Some(3), Some(4)),
            O::Resinfo if simd4x2 => with(uv(0, 0), Some(3), None),
            O::Resinfo => with(uv(0, 0), Some(0), None),
            O::SampleD if simd4x2 => Params {
                gradients: Some([4, 5, 8, 9]),
                rgrad: Some([6, 10]),
                ..gen4
            },
            // sample_g: the 2-D form has 6 parameters, the 3-D form 9
            // (SIMD8: one register each).
            O::SampleD if mlen == header + 6 => Params {
                gradients: Some([2, 3, 4, 5]),
                ..uv(0, 1)
            },
            O::SampleD => Params {
                gradients: Some([3, 4, 6, 7]),
                rgrad: Some([5, 8]),
                ..gen4
            },
            _ => return None,
        },
        IsaGen::Gen6 => gen6_order(op)?,
        IsaGen::Gen12_5 if simd4x2 => return None,
        IsaGen::Gen12_5 => match op {
            O::SampleL if lz => coords(0),
            O::Ld if lz => Params {
                ai: None,
                ..coords(0)
            },
            O::Ld => Params {
                r: Some(3),
                ai: None,
                ..with(coords(0), Some(2), None)
            },
            O::Sample | O::SampleB | O::SampleL | O::SampleC | O::Lod => {
                params(IsaGen::Gen7, op, mlen, header, false, false)?
            }
            _ => return None,
        },
        IsaGen::Gen7 | IsaGen::Gen75 if simd4x2 => match op {
            O::Gather4C => with(coords(0), None, Some(4)),
            O::SampleDC if p == IsaGen::Gen75 => Params {
                reference: Some(10),
                ..gen6_order(O::SampleD)?
            },
            O::Gather4Po | O::Gather4PoC => Params {
                ai: None,
                reference: (op == O::Gather4PoC).then_some(3),
                offsets: Some([4, 5]),
                ..coords(0)
            },
            _ => gen6_order(op)?,
        },
        IsaGen::Gen7 | IsaGen::Gen75 => match op {
            O::Sample | O::Gather4 | O::Lod => coords(0),
            O::SampleInfo => uv(0, 0),
            O::SampleB | O::SampleL => with(coords(1), Some(0), None),
            O::SampleC | O::Gather4C => with(coords(1), None, Some(0)),
            O::SampleBC | O::SampleLC => with(coords(2), Some(1), Some(0)),
            // Each coordinate with its two derivatives, then the rest of
            // the coordinates.
            O::SampleD => Params {
                u: 0,
                v: 3,
                r: Some(6),
                ai: Some(9),
                gradients: Some([1, 4, 2, 5]),
                rgrad: Some([7, 8]),
                ..coords(0)
            },
            // Gen7.5's sample_d_c: the reference, then sample_d's layout
            // one parameter later.
            O::SampleDC if p == IsaGen::Gen75 => Params {
                u: 1,
                v: 4,
                r: Some(7),
                ai: Some(10),
                reference: Some(0),
                gradients: Some([2, 5, 3, 6]),
                rgrad: Some([8, 9]),
                ..coords(0)
            },
            // u, v, offu, offv, r (after the reference for gather4_po_c).
            O::Gather4Po | O::Gather4PoC => {
                let b = usize::from(op == O::Gather4PoC);
                Params {
                    u: b,
                    v: b + 1,
                    r: Some(b + 4),
                    ai: None,
                    reference: (b == 1).then_some(0),
                    offsets: Some([b + 2, b + 3]),
                    ..coords(0)
                }
            }
            O::Ld => Params {
                u: 0,
                v: 2,
                r: Some(3),
                ai: None,
                ..with(coords(0), Some(1), None)
            },
            O::Resinfo => with(uv(0, 0), Some(0), None),
            // The sample index, the MCS value (parameter 1, ignored
            // without MCS Enable, module `multisample`), then the integer
            // coordinates; no lod (level 0).
            O::Ld2dms => Params {
                si: Some(0),
                ..uv_r(2)
            },
            O::Ld2dss => Params {
                si: Some(0),
                ..uv_r(1)
            },
            O::LdMcs => uv_r(0),
            _ => return None,
        },
    })
}

/// The Gen6 order (003 lines 79366-79390), every SIMD mode.
fn gen6_order(op: SamplerOp) -> Option<Params> {
    use SamplerOp as O;
    Some(match op {
        O::Sample | O::Gather4 | O::Lod => coords(0),
        O::SampleKillpix => Params {
            ai: None,
            ..coords(0)
        },
        O::SampleInfo => uv(0, 0),
        O::SampleB | O::SampleL => with(coords(0), Some(4), None),
        O::SampleC => with(coords(0), None, Some(4)),
        O::SampleBC | O::SampleLC => with(coords(0), Some(5), Some(4)),
        O::SampleD => Params {
            gradients: Some([4, 6, 5, 7]),
            rgrad: Some([8, 9]),
            ..coords(0)
        },
        // si: the sample index (003 line 79380).
        O::Ld => Params {
            si: Some(4),
            ..with(
                Params {
                    ai: None,
                    ..coords(0)
                },
                Some(3),
                None,
            )
        },
        O::Resinfo => with(uv(0, 0), Some(0), None),
        _ => return None,
    })
}

/// u, v and r at `base`, `base + 1`, `base + 2`.
const fn uv_r(base: usize) -> Params {
    Params {
        r: Some(base + 2),
        ..uv(base, base + 1)
    }
}

/// u and v only (resinfo and sampleinfo read neither: their lod, if any,
/// is set by the caller).
const fn uv(u: usize, v: usize) -> Params {
    Params {
        u,
        v,
        r: None,
        ai: None,
        lod: None,
        reference: None,
        gradients: None,
        rgrad: None,
        offsets: None,
        si: None,
    }
}
