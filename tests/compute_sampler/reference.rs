//! The host's reference sampler, written from the manuals' definitions:
//! texel addressing, nearest and bilinear filtering in a level, and the
//! mip-level choice for an explicit LOD.

use baregpu::compute::{AddressMode, MipFilter, Sampler};

/// A texture level as the sampler returns its texels: four channels each.
pub struct Level {
    pub w: u32,
    pub h: u32,
    pub texels: Vec<[f64; 4]>,
}

#[derive(Clone, Copy, PartialEq)]
pub enum Mode {
    Wrap,
    Clamp,
    Border,
}

impl Mode {
    pub fn of(m: AddressMode) -> Mode {
        match m {
            AddressMode::Wrap => Mode::Wrap,
            AddressMode::Clamp => Mode::Clamp,
            AddressMode::ClampBorder => Mode::Border,
            other => panic!("no reference for {other:?}"),
        }
    }

    /// Texel index `i` of `n`, or None for a border texel (000 lines
    /// 2924-2966).
    fn index(self, i: i64, n: u32) -> Option<u32> {
        let n = i64::from(n);
        match self {
            Mode::Wrap => Some(i.rem_euclid(n) as u32),
            Mode::Clamp => Some(i.clamp(0, n - 1) as u32),
            Mode::Border => (0..n).contains(&i).then_some(i as u32),
        }
    }
}

/// Level `l` sampled at (u, v) with `linear` or nearest filtering.
pub fn filter(l: &Level, linear: bool, mode: Mode, border: [f64; 4], u: f32, v: f32) -> [f64; 4] {
    let texel = |i: i64, j: i64| match (mode.index(i, l.w), mode.index(j, l.h)) {
        (Some(x), Some(y)) => l.texels[(y * l.w + x) as usize],
        _ => border,
    };
    let (x, y) = (f64::from(u) * f64::from(l.w), f64::from(v) * f64::from(l.h));
    if !linear {
        return texel(x.floor() as i64, y.floor() as i64);
    }
    let (x, y) = (x - 0.5, y - 0.5);
    let (i, j) = (x.floor(), y.floor());
    let (a, b) = (x - i, y - j);
    let (i, j) = (i as i64, j as i64);
    let taps = [
        (texel(i, j), (1.0 - a) * (1.0 - b)),
        (texel(i + 1, j), a * (1.0 - b)),
        (texel(i, j + 1), (1.0 - a) * b),
        (texel(i + 1, j + 1), a * b),
    ];
    core::array::from_fn(|c| taps.iter().map(|(t, w)| t[c] * w).sum())
}

/// Levels (absolute) and TriBeta for an explicit `lod` (sample_l) by the
/// pseudocode of 000 lines 2781-2828, with LOD PreClamp on (the driver's
/// OGL mode), no bias, Base Mip Level and Surface Min LOD 0.
pub fn pick(s: &Sampler, levels: u32, lod: f32) -> (u32, u32, f64) {
    let mip_cnt = f64::from(levels - 1);
    let max_lod = f64::from(s.max_lod).min(mip_cnt);
    let min_lod = f64::from(s.min_lod).min(mip_cnt);
    let lod = f64::from(lod).min(max_lod).max(min_lod);
    let (lo, hi) = (min_lod.floor(), max_lod.ceil());
    if lod <= 0.0 || s.mip_filter == MipFilter::None {
        let l = 0f64.min(hi).max(lo) as u32;
        return (l, l, 0.0);
    }
    match s.mip_filter {
        MipFilter::Nearest => {
            let l = (lod + 0.5).min(hi).max(lo).floor() as u32;
            (l, l, 0.0)
        }
        _ => {
            let l0 = lod.floor();
            let l1 = (l0 + 1.0).min(hi).max(lo);
            (l0 as u32, l1 as u32, lod - l0)
        }
    }
}

/// UNORM8 texel bytes as the sampler returns them: k / 255 (000 line 3945).
pub fn unorm(t: [u8; 4]) -> [f64; 4] {
    t.map(|k| f64::from(k) / 255.0)
}

pub fn close(got: f32, want: f64, what: &str) {
    assert!(
        (f64::from(got) - want).abs() <= 1e-5,
        "{what}: got {got}, want {want}"
    );
}
