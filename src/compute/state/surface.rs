//! The SURFACE_STATE fields this driver sets, which 965/G45, SNB and Ivy
//! Bridge lay out under the same names. The structures are distinct types
//! per generation, so [`surface_state!`] writes one filler per generation
//! module; each invocation carries that generation's citation.

/// `fn surface_state(d: &SurfaceDesc) -> $ty`, for a generation's
/// SURFACE_STATE type `$ty`:
///
/// * the format, base address and the render cache read-write mode
///   `$read_write` (the data port writes through the render cache need it:
///   003 line 83649, the same bit on 965 and Ivy Bridge);
/// * BUFFER: the entry count split over width, height and depth
///   ([`SurfaceDesc::buffer_split`] on `$generation`), pitch = the structure
///   size minus one (000 line 3272; SNB notes seed-003 §3.9; Ivy Bridge
///   [ext: Mesa isl buffer_fill_state, SurfacePitch = stride - 1]);
/// * 2D: sizes and pitch minus one, MIP Count, tiling on or off, and Y or
///   X walk.
///
/// [`SurfaceDesc::buffer_split`]: crate::compute::surface::SurfaceDesc::buffer_split
macro_rules! surface_state {
    ($(#[$doc:meta])* $ty:ty, $generation:expr, $read_write:expr) => {
        $(#[$doc])*
        pub(crate) fn surface_state(d: &crate::compute::surface::SurfaceDesc) -> $ty {
            use crate::compute::surface::{SurfaceDesc, SurfaceKind};
            use crate::gtt::tiling::Tiling;
            type S = $ty;
            let mut st = S {
                surface_format: d.format,
                render_cache_read_write_mode: $read_write,
                surface_base_address: d.base,
                ..Default::default()
            };
            match d.kind {
                SurfaceKind::Buffer { entries, stride } => {
                    let (w, h, depth) = SurfaceDesc::buffer_split(entries, $generation);
                    st.surface_type = S::SURFACE_TYPE_SURFTYPE_BUFFER;
                    st.width = w;
                    st.height = h;
                    st.depth = depth;
                    st.surface_pitch = stride - 1;
                }
                SurfaceKind::Image2d {
                    width,
                    height,
                    pitch,
                    tiling,
                    levels,
                    ..
                } => {
                    st.surface_type = S::SURFACE_TYPE_SURFTYPE_2D;
                    st.width = width - 1;
                    st.height = height - 1;
                    st.surface_pitch = pitch - 1;
                    // MIP Count: levels minus one; MIPLAYOUT_BELOW, Surface
                    // Min LOD 0 and the 4 x 2 alignment unit stay at their
                    // defaults (compute/mip.rs lays the levels out so).
                    st.mip_count_lod = levels - 1;
                    st.tiled_surface = tiling != Tiling::Linear;
                    st.tile_walk = if tiling == Tiling::Y {
                        S::TILE_WALK_TILEWALK_YMAJOR
                    } else {
                        S::TILE_WALK_TILEWALK_XMAJOR
                    };
                }
            }
            st
        }
    };
}

pub(crate) use surface_state;
