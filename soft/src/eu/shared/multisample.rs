//! Where the samples of a multisampled surface are stored: one place for
//! the output merger's render-target and depth writes and the
//! sampler's multisample loads (`sampler::multisample`).
//!
//! Two layouts (Mesa src/mesa/drivers/dri/i965/brw_blorp_blit.cpp, the
//! encode_msaa comment of brw_blorp_blit_program; Mesa src/intel/isl
//! ISL_MSAA_LAYOUT_INTERLEAVED / ISL_MSAA_LAYOUT_ARRAY):
//!
//! - Interleaved (IMS): every surface on Sandy Bridge, and on Ivy Bridge
//!   depth and stencil and surfaces with Multisampled Surface Storage
//!   Format MSFMT_DEPTH_STENCIL. The sample index goes into bit 1 of the
//!   X and Y coordinates (4X), and bit 2 of X too (8X): the surface is
//!   stored as one twice (4X) or four times (8X) as wide and twice as
//!   high, each 2x2 pixel block becoming 4x4 (8x4) samples.
//! - Array (Ivy Bridge MSFMT_MSS, UMS): sample `s` is array slice `s`
//!   (the surface's QPitch apart), X and Y unchanged.

/// How a multisampled surface stores its samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MsLayout {
    Interleaved,
    Array,
}

/// Where sample `s` of pixel (`x`, `y`) of a surface with `samples`
/// samples a pixel lies: (x, y) in the stored surface and the array slice
/// it is in. One sample is the pixel itself.
pub fn sample_location(layout: MsLayout, samples: u8, x: u32, y: u32, s: u8) -> (u32, u32, u32) {
    let s = u32::from(s);
    match (layout, samples) {
        (_, 0 | 1) => (x, y, 0),
        (MsLayout::Array, _) => (x, y, s),
        (MsLayout::Interleaved, 8) => (
            (x & !1) << 2 | (s & 4) | (s & 1) << 1 | (x & 1),
            (y & !1) << 1 | (s & 2) | (y & 1),
            0,
        ),
        // 4X (and 2X, which neither generation has).
        (MsLayout::Interleaved, _) => (
            (x & !1) << 1 | (s & 1) << 1 | (x & 1),
            (y & !1) << 1 | (s & 2) | (y & 1),
            0,
        ),
    }
}
