//! Anti-aliased lines (003 lines 38180-38225, 41114-41254): the SF's
//! rectangle and the windower's coverage (Antialias Alpha) of each pixel.
//!
//! - The rectangle: centred on and aligned to the line, its parallel edges
//!   Line Width / 2 from it, its cap edges perpendicular to it and Line End
//!   Cap Antialiasing Region Width (the SF's copy, 3DSTATE_SF) beyond the
//!   end points. Pixels whose sample lies inside are produced; corners are
//!   rounded to the vertex subpixel grid and edges follow the top-left
//!   rule (model choices: the manual gives no edge rule for it).
//! - The coverage, with the true distance (AALINEDISTANCE_TRUE): along the
//!   parallel edges it ramps from 0 at the edge to 1 at Line Antialiasing
//!   Region Width / 2 inside; along the caps from 1 at the end point to 0
//!   at Line End Cap Antialiasing Region Width (the WM's copy, 3DSTATE_WM)
//!   beyond it; near the corners the two multiply. A pixel takes the
//!   distance from its sample to the closest parallel edge.
//! - The value: U0.8 on CTG+ (003 lines 41125-41127), 0-255 with 255 the
//!   full coverage (the manual's worked example divides by 255, lines
//!   41228-41240).
//!
//! Where it goes: on Gen6+ the coverage is "bypassed data" the windower
//! hands the render cache with the pixels (003 lines 84957-84960); the
//! payload has no register for it (Mesa elk setup_fs_payload_gfx6, unlike
//! Gen4's aa_dest_stencil_reg) and the render-target write no field. The
//! output merger multiplies Source 0 alpha by it before alpha-to-coverage
//! (003 lines 44748-44751).

use super::coverage::{Rule, Shape};

/// One anti-aliased line as setup hands it on: end points in pixels (as
/// snapped) and the windower's widths.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct AaLine {
    pub p0: (f64, f64),
    pub p1: (f64, f64),
    /// Line Width / 2.
    pub half_width: f64,
    /// Line Antialiasing Region Width (3DSTATE_WM).
    pub region: f64,
    /// Line End Cap Antialiasing Region Width (3DSTATE_WM's copy).
    pub cap: f64,
}

impl AaLine {
    /// Unit direction and length of the line (`None` when it has none).
    fn axis(&self) -> Option<((f64, f64), f64)> {
        let (dx, dy) = (self.p1.0 - self.p0.0, self.p1.1 - self.p0.1);
        let len = libm::sqrt(dx * dx + dy * dy);
        (len > 0.0).then_some(((dx / len, dy / len), len))
    }

    /// The SF's rectangle in subpixel units (`one` a pixel), its cap edges
    /// `sf_cap` pixels beyond the end points.
    pub fn rectangle(&self, sf_cap: f64, one: i64) -> Option<Shape> {
        let ((ux, uy), _) = self.axis()?;
        let (nx, ny) = (-uy, ux);
        let h = self.half_width;
        let at = |p: (f64, f64), along: f64, across: f64| {
            let x = p.0 + ux * along + nx * across;
            let y = p.1 + uy * along + ny * across;
            (
                libm::rint(x * one as f64) as i64,
                libm::rint(y * one as f64) as i64,
            )
        };
        Shape::polygon(
            &[
                at(self.p0, -sf_cap, h),
                at(self.p1, sf_cap, h),
                at(self.p1, sf_cap, -h),
                at(self.p0, -sf_cap, -h),
            ],
            Rule::TopLeft,
        )
    }

    /// The coverage of the sample at (`x`, `y`) pixels, 0-255.
    pub fn alpha(&self, x: f64, y: f64) -> u8 {
        let Some(((ux, uy), len)) = self.axis() else {
            return 0;
        };
        let (rx, ry) = (x - self.p0.0, y - self.p0.1);
        let along = rx * ux + ry * uy;
        let across = libm::fabs(-rx * uy + ry * ux);
        let ramp = |v: f64| v.clamp(0.0, 1.0);
        let edge = ramp((self.half_width - across) / (self.region / 2.0));
        let beyond = if along < 0.0 {
            -along
        } else if along > len {
            along - len
        } else {
            0.0
        };
        let cap = ramp(1.0 - beyond / self.cap);
        libm::rint(edge * cap * 255.0) as u8
    }
}
