//! Samplers in dispatches: the SAMPLER_STATE table and border colours the
//! driver writes (read back through the GGTT and the hal's reflection
//! tables, compared with the manuals' field codes), and kernels that
//! `sample` textures on the software GPU, compared with values computed
//! here from the filters' definitions (000 sampling engine chapter):
//!
//! * nearest reads the texel containing the coordinate, `floor(u * W)`
//!   (000 line 2864); bilinear weights the 2x2 texels around it by
//!   distance from their centres `i + 0.5` (000 lines 2870-2875);
//! * WRAP repeats, CLAMP repeats the edge texel, CLAMP_BORDER reads the
//!   border colour outside (000 lines 2915-2966); a format's missing
//!   channels read 0, alpha 1, also in the border colour (000 lines
//!   3541-3580, 3824);
//! * mip levels by the LOD pseudocode (000 lines 2781-2828), levels
//!   blended by TriBeta (000 line 2842).
//!
//! Kernels are IGA-syntax text with symbolic sampler descriptors; the
//! payload comes from the CURBE (register k + 1 is payload parameter row
//! k), one SIMD16 message per case, and the R, G, B, A writeback (two
//! registers each, 000 lines 4183-4246) goes to the output buffer with
//! OWord block writes, 256 bytes per case.

mod compute_common;
mod compute_run_common;

#[path = "compute_sampler/reference.rs"]
mod reference;
#[path = "compute_sampler/rig.rs"]
mod rig;
#[path = "compute_sampler/sample.rs"]
mod sample;
#[path = "compute_sampler/state.rs"]
mod state;
