//! The windower (003 lines 39675-44592): an object's covered pixels in 2x2
//! subspans (aligned to even x and y) after the drawing rectangle, the
//! scissor, the polygon stipple and the sample mask; subspans grouped into
//! SIMD8/16/32 pixel-shader threads with the kernel Table 22 names for the
//! width, and each thread's payload as 003 lines 43900-44583 lay it out
//! (the same order as Mesa's `setup_fs_payload_gfx6`,
//! src/intel/compiler/elk/elk_fs_thread_payload.cpp); with thread dispatch
//! off, the pixels go to the output merger's depth/stencil-only path. Ivy
//! Bridge's payload is the same with two additions Mesa's shared setup
//! shows: the input coverage mask after the position offsets, and the
//! setup data only with 3DSTATE_PS Attribute Enable (push constants only
//! with Push Constant Enable, which the state decoder applies). R0 and R1
//! keep the SNB layout (Mesa reads the facing from g0.0 bit 15 for
//! ver >= 6 up to Gen11, brw/elk emit_frontfacing_interpolation; the
//! subspan corners and masks of R1 come from the same shared setup).

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::aa::AaLine;
use super::coverage::Shape;
use super::setup::SetupObject;
use super::state::{RasterState, Wm, sample_grid};
use crate::eu::send::SendError;
use crate::eu::shared::{PixelBackend, PixelDispatch, SampleDispatch};
use crate::render3d::types::{DrawEnv, DrawError, PixelThread};

/// FFID of the windower (003 Table 3-1, lines 786-817).
pub(crate) const FFID_WM: u8 = 0xf;

/// GRF registers a thread has (payloads must fit).
const GRF_REGS: usize = 128;

/// One subspan: its upper-left pixel and the pixels lit in it (bit p:
/// 0 upper-left, 1 upper-right, 2 lower-left, 3 lower-right).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Subspan {
    pub x: i32,
    pub y: i32,
    pub lit: u8,
    /// Per pixel (same order) the samples covered and enabled by the
    /// sample mask: bit 0 alone with one sample.
    pub cover: [u8; 4],
}

impl Subspan {
    /// The payload's packing: Y in 31:16, X in 15:0.
    pub fn corner(&self) -> u32 {
        (self.y as u32 & 0xffff) << 16 | (self.x as u32 & 0xffff)
    }
}

/// Polygon stipple: bit 31 is the leftmost pixel of a row, row 0 the top,
/// the pattern's corner at the offsets (003 lines 41446-41582).
fn stipple_lit(pattern: &([u32; 32], u32, u32), x: i32, y: i32) -> bool {
    let (rows, xo, yo) = pattern;
    let row = (y - *yo as i32).rem_euclid(32) as usize;
    let col = (x - *xo as i32).rem_euclid(32) as u32;
    rows[row] >> (31 - col) & 1 != 0
}

/// The subspans an object lights, in raster order (top to bottom, left to
/// right); `scissor` is SCISSOR_RECT[VPIndex] when the scissor is on.
pub(crate) fn subspans(
    st: &RasterState,
    scissor: Option<[i32; 4]>,
    obj: &SetupObject,
) -> Vec<Subspan> {
    let mut out = Vec::new();
    let all = (1u32 << st.ms.samples) - 1;
    let enabled = (st.sample_mask & all) as u8;
    if enabled == 0 || obj.shapes.is_empty() {
        return out;
    }
    let (one, off) = sample_grid(st);
    // The sample positions in subpixel units from the pixel's corner:
    // the programmed offsets in the PATTERN modes (not for lines in
    // OFF_PATTERN), else every sample at the pixel location (003 lines
    // 41597-41680).
    let positions = sample_positions(st, obj);
    let r = &st.rect;
    let (mut x0, mut y0, mut x1, mut y1) = (r.xmin, r.ymin, r.xmax, r.ymax);
    if let Some([sx0, sy0, sx1, sy1]) = scissor {
        // Relative to the drawing-rectangle origin (003 lines 39476-39548).
        x0 = x0.max(sx0 + r.origin_x);
        y0 = y0.max(sy0 + r.origin_y);
        x1 = x1.min(sx1 + r.origin_x);
        y1 = y1.min(sy1 + r.origin_y);
    }
    let mut bb = [i64::MAX, i64::MAX, i64::MIN, i64::MIN];
    let offs: Vec<i64> = match &positions {
        Some(p) => alloc::vec![0, p.iter().flat_map(|&(x, y)| [x, y]).max().unwrap_or(0)],
        None => alloc::vec![off],
    };
    for s in &obj.shapes {
        for &o in &offs {
            let b = s.pixel_bbox(one, o);
            bb = [
                bb[0].min(b[0]),
                bb[1].min(b[1]),
                bb[2].max(b[2]),
                bb[3].max(b[3]),
            ];
        }
    }
    let x0 = i64::from(x0).max(bb[0]);
    let y0 = i64::from(y0).max(bb[1]);
    let x1 = i64::from(x1).min(bb[2]);
    let y1 = i64::from(y1).min(bb[3]);
    if x0 > x1 || y0 > y1 {
        return out;
    }
    let stipple = if obj.stipple {
        st.stipple.as_ref()
    } else {
        None
    };
    let at = |px: i64, py: i64, sx: i64, sy: i64| {
        obj.shapes.iter().any(|s: &Shape| s.covers(px, py, sx, sy))
    };
    // The samples of pixel (px, py) covered, before the sample mask.
    let covered = |px: i64, py: i64| -> u8 {
        if px < x0 || px > x1 || py < y0 || py > y1 {
            return 0;
        }
        if let Some(p) = stipple
            && !stipple_lit(p, px as i32, py as i32)
        {
            return 0;
        }
        match &positions {
            Some(p) => p.iter().enumerate().fold(0u8, |m, (k, &(ox, oy))| {
                m | u8::from(at(px, py, px * one + ox, py * one + oy)) << k
            }),
            None if at(px, py, px * one + off, py * one + off) => all as u8,
            None => 0,
        }
    };
    let mut y = y0 & !1;
    while y <= y1 {
        let mut x = x0 & !1;
        while x <= x1 {
            let mut lit = 0u8;
            let mut cover = [0u8; 4];
            for (p, c) in cover.iter_mut().enumerate() {
                *c = covered(x + (p as i64 & 1), y + (p as i64 >> 1)) & enabled;
                if *c != 0 {
                    lit |= 1 << p;
                }
            }
            if lit != 0 {
                out.push(Subspan {
                    x: x as i32,
                    y: y as i32,
                    lit,
                    cover,
                });
            }
            x += 2;
        }
        y += 2;
    }
    out
}

/// The programmed sample positions (subpixel units from the pixel's upper
/// left corner) when `obj` is rasterised per sample: more than one sample
/// and MSRASTMODE_ON_PATTERN, or OFF_PATTERN for objects other than lines
/// (003 lines 41597-41680); `None`: all samples at the pixel location.
fn sample_positions(st: &RasterState, obj: &SetupObject) -> Option<Vec<(i64, i64)>> {
    let pattern = match st.wm.ms_raster_mode {
        3 => true,
        1 => !obj.line,
        _ => false,
    };
    if st.ms.samples <= 1 || !pattern {
        return None;
    }
    let (one, _) = sample_grid(st);
    Some(
        st.ms.offsets[..usize::from(st.ms.samples)]
            .iter()
            .map(|&(x, y)| (i64::from(x) * one / 16, i64::from(y) * one / 16))
            .collect(),
    )
}

/// The dispatch widths 3DSTATE_WM enables with the kernel each uses
/// (Table 22, 003 lines 43571-43640: a single width uses KSP[0]; with
/// several, SIMD8 KSP[0], SIMD16 KSP[2], SIMD32 KSP[1]), narrowest first.
pub(crate) fn kernels(wm: &Wm) -> Result<Vec<(u8, usize)>, DrawError> {
    let en = [(8u8, wm.enable8), (16, wm.enable16), (32, wm.enable32)];
    let n = en.iter().filter(|e| e.1).count();
    if n == 0 {
        return Err(DrawError::Invalid(
            "3DSTATE_WM dispatches threads with no pixel dispatch width enabled",
        ));
    }
    if wm.enable8 && wm.enable32 && !wm.enable16 {
        return Err(DrawError::Invalid(
            "3DSTATE_WM: 8 and 32 pixel dispatch without 16 is not in Table 22",
        ));
    }
    Ok(en
        .iter()
        .filter(|e| e.1)
        .map(|&(w, _)| {
            let k = if n == 1 {
                0
            } else {
                match w {
                    8 => 0,
                    16 => 2,
                    _ => 1,
                }
            };
            (w, k)
        })
        .collect())
}

/// The width for the next thread with `left` subspans to go: the WM "will
/// attempt to dispatch the largest allowed grouping" (003 line 43540); the
/// narrowest enabled width that takes all that is left serves the tail (a
/// model choice for the manual's small-object consideration).
pub(crate) fn pick_width(widths: &[(u8, usize)], left: usize) -> (u8, usize) {
    for &w in widths {
        if usize::from(w.0) / 4 >= left {
            return w;
        }
    }
    widths[widths.len() - 1]
}

/// The Antialias Alpha of each slot of an anti-aliased line's thread, at
/// the pixel's sample (helpers get theirs too; only lit slots are used).
/// It rides with the pixels to the output merger (see `aa`).
fn aa_alpha(st: &RasterState, aa: &AaLine, spans: &[Subspan]) -> [u8; 32] {
    let (one, off) = sample_grid(st);
    let so = off as f64 / one as f64;
    let mut a = [0u8; 32];
    for (k, ss) in spans.iter().enumerate().take(8) {
        for q in 0..4 {
            let x = f64::from(ss.x + (q as i32 & 1)) + so;
            let y = f64::from(ss.y + (q as i32 >> 1)) + so;
            a[4 * k + q] = aa.alpha(x, y);
        }
    }
    a
}

/// Per-slot values the windower computes for a thread.
struct Slots {
    /// Barycentrics b1, b2 per mode (0-2 perspective pixel/centroid/
    /// sample, 3-5 linear): with one sample all three locations are the
    /// sample position.
    persp: [[f32; 2]; 32],
    linear: [[f32; 2]; 32],
    depth: [f32; 32],
    w: [f32; 32],
}

fn slots(st: &RasterState, obj: &SetupObject, spans: &[Subspan]) -> Slots {
    let mut s = Slots {
        persp: [[0.0; 2]; 32],
        linear: [[0.0; 2]; 32],
        depth: [0.0; 32],
        w: [0.0; 32],
    };
    let (one, off) = sample_grid(st);
    let so = off as f64 / one as f64;
    let p = &obj.plane;
    for (k, ss) in spans.iter().enumerate() {
        for q in 0..4 {
            let slot = 4 * k + q;
            // Helpers (unlit pixels of a lit subspan) get values too.
            let px = f64::from(ss.x + (q as i32 & 1)) + so;
            let py = f64::from(ss.y + (q as i32 >> 1)) + so;
            let l = p.lambda(px, py);
            let wgt = [
                l[0] * f64::from(p.rhw[0]),
                l[1] * f64::from(p.rhw[1]),
                l[2] * f64::from(p.rhw[2]),
            ];
            let sum = wgt[0] + wgt[1] + wgt[2];
            let lin = match obj.linear_map {
                Some(m) => [0, 1, 2].map(|j| (0..3).map(|k| l[k] * m[k][j]).sum::<f64>()),
                None => l,
            };
            s.linear[slot] = [lin[1] as f32, lin[2] as f32];
            s.persp[slot] = [(wgt[1] / sum) as f32, (wgt[2] / sum) as f32];
            s.depth[slot] = depth_at(obj, px, py);
            s.w[slot] = (1.0 / sum) as f32;
        }
    }
    s
}

/// The object's source depth at (`x`, `y`) pixels.
fn depth_at(obj: &SetupObject, x: f64, y: f64) -> f32 {
    let p = &obj.plane;
    let l = p.lambda(x, y);
    let z =
        f64::from(p.z[0]) + l[1] * f64::from(p.z[1] - p.z[0]) + l[2] * f64::from(p.z[2] - p.z[0]);
    z as f32 + obj.depth_bias
}

/// Each slot's samples for the output merger: coverage and the depth at
/// each sample's position (the pixel location when all samples are
/// there).
fn sample_dispatch(st: &RasterState, obj: &SetupObject, spans: &[Subspan]) -> SampleDispatch {
    let (one, off) = sample_grid(st);
    let positions = sample_positions(st, obj);
    let mut d = SampleDispatch {
        count: st.ms.samples,
        coverage: [0; 32],
        depth: [[0.0; 8]; 32],
    };
    for (k, ss) in spans.iter().enumerate().take(8) {
        for q in 0..4 {
            let slot = 4 * k + q;
            d.coverage[slot] = ss.cover[q];
            let px = f64::from(ss.x + (q as i32 & 1));
            let py = f64::from(ss.y + (q as i32 >> 1));
            for s in 0..usize::from(st.ms.samples).min(8) {
                let (ox, oy) = positions.as_ref().map_or((off, off), |p| p[s]);
                d.depth[slot][s] = depth_at(
                    obj,
                    px + ox as f64 / one as f64,
                    py + oy as f64 / one as f64,
                );
            }
        }
    }
    d
}

fn put(regs: &mut Vec<u8>, dw: [u32; 8]) {
    for d in dw {
        regs.extend_from_slice(&d.to_le_bytes());
    }
}

fn floats(v: impl Iterator<Item = f32>) -> [u32; 8] {
    let mut dw = [0u32; 8];
    for (d, f) in dw.iter_mut().zip(v) {
        *d = f.to_bits();
    }
    dw
}

/// Makes the threads of one object and hands its pixels on.
pub(crate) struct Windower<'s> {
    st: &'s RasterState,
    instruction_base: u64,
    /// R0.6: counts the threads the windower dispatched.
    thread_id: u32,
    /// R0.7: counts the objects.
    primitive_id: u32,
}

impl<'s> Windower<'s> {
    pub fn new(st: &'s RasterState, instruction_base: u64) -> Self {
        Windower {
            st,
            instruction_base,
            thread_id: 0,
            primitive_id: 0,
        }
    }

    /// The payload of one thread (003 lines 43900-44583).
    fn payload(
        &self,
        obj: &SetupObject,
        spans: &[Subspan],
        simd: u8,
        ksp: usize,
        s: &Slots,
    ) -> Result<Vec<u8>, DrawError> {
        let st = self.st;
        let wm = &st.wm;
        let mut r = Vec::with_capacity(32 * 32);
        // R0.
        let r0_0 = (obj.vp_index & 0xf) << 27
            | (obj.rta_index & 0x7ff) << 16
            | u32::from(obj.back_facing) << 15
            | u32::from(wm.computed_depth) << 13
            | u32::from(wm.omask) << 12
            | u32::from(obj.topology & 0x1f);
        put(
            &mut r,
            [
                r0_0,
                st.cc_state & !0x3f,
                0,
                (st.ps_samplers & !0x1f) | u32::from(wm.scratch_code & 0xf),
                st.ps_binding_table & !0x1f,
                // FFTID (7:0) is the dispatcher's to fill in.
                wm.scratch_base & !0x3ff,
                self.thread_id & 0xff_ffff,
                self.primitive_id & 0xff_ffff,
            ],
        );
        // R1 (and R2 for SIMD32): subspan corners and pixel masks.
        for group in 0..usize::from(simd).div_ceil(16) {
            let mut dw = [0u32; 8];
            let mut mask = 0u32;
            for i in 0..4 {
                if let Some(ss) = spans.get(4 * group + i) {
                    dw[2 + i] = ss.corner();
                    mask |= u32::from(ss.lit) << (4 * i);
                }
            }
            dw[7] = mask << 16 | mask;
            put(&mut r, dw);
        }
        // Per 16 slots: barycentrics (mode order), source depth, source W,
        // position offsets.
        let per = usize::from(simd.min(16));
        for half in 0..usize::from(simd) / per {
            let base = 16 * half;
            for mode in 0..6 {
                if wm.barycentric_modes & (1 << mode) == 0 {
                    continue;
                }
                let b = if mode < 3 { &s.persp } else { &s.linear };
                for g in 0..per / 8 {
                    let at = base + 8 * g;
                    put(&mut r, floats((at..at + 8).map(|i| b[i][0])));
                    put(&mut r, floats((at..at + 8).map(|i| b[i][1])));
                }
            }
            if wm.uses_source_depth {
                for g in 0..per / 8 {
                    let at = base + 8 * g;
                    put(&mut r, floats((at..at + 8).map(|i| s.depth[i])));
                }
            }
            if wm.uses_source_w {
                for g in 0..per / 8 {
                    let at = base + 8 * g;
                    put(&mut r, floats((at..at + 8).map(|i| s.w[i])));
                }
            }
            if matches!(wm.position_offset, 2 | 3) {
                // U4.4 X (low byte) and Y per slot: one sample, at the
                // centre (0.5) or the corner (0).
                let o = if st.ul_corner { 0u8 } else { 0x08 };
                let mut bytes = [0u8; 32];
                for b in bytes.iter_mut().take(2 * per) {
                    *b = o;
                }
                r.extend_from_slice(&bytes);
            }
            if wm.input_coverage_mask {
                // Gen7: a dword per pixel with its covered samples, after
                // the position offsets (Mesa elk_fs_thread_payload.cpp
                // setup_fs_payload_gfx6, "MSAA input coverage mask", ver >=
                // 7): bit s for sample s; helpers have none.
                for g in 0..per / 8 {
                    let at = base + 8 * g;
                    put(
                        &mut r,
                        core::array::from_fn(|i| {
                            let slot = at + i;
                            spans
                                .get(slot / 4)
                                .map_or(0, |ss| u32::from(ss.cover[slot % 4]))
                        }),
                    );
                }
            }
        }
        let start = wm.grf_start[ksp] as usize;
        if r.len() / 32 > start {
            return Err(DrawError::Invalid(
                "3DSTATE_WM Dispatch GRF Start lies inside the PS payload header",
            ));
        }
        r.resize(32 * start, 0);
        r.extend_from_slice(&st.constants);
        if wm.attributes {
            for a in &obj.attrs {
                let [x, y, z, w] = *a;
                put(&mut r, [x[0], x[1], 0, x[2], y[0], y[1], 0, y[2]]);
                put(&mut r, [z[0], z[1], 0, z[2], w[0], w[1], 0, w[2]]);
            }
        }
        if r.len() / 32 > GRF_REGS {
            return Err(DrawError::Invalid("PS payload larger than the GRF"));
        }
        Ok(r)
    }

    fn dispatch_of(
        st: &RasterState,
        obj: &SetupObject,
        spans: &[Subspan],
        simd: u8,
        s: &Slots,
    ) -> PixelDispatch {
        let mut corners = [0u32; 8];
        let mut mask = 0u32;
        for (k, ss) in spans.iter().enumerate() {
            corners[k] = ss.corner();
            mask |= u32::from(ss.lit) << (4 * k);
        }
        PixelDispatch {
            simd,
            corners,
            mask,
            depth: s.depth,
            front_facing: !obj.back_facing,
            aa_alpha: obj.aa.as_ref().map(|aa| aa_alpha(st, aa, spans)),
            samples: (st.ms.samples > 1).then(|| Box::new(sample_dispatch(st, obj, spans))),
        }
    }

    /// Dispatches the subspans of one object: pixel-shader threads into
    /// `out`, or with thread dispatch off their depth and stencil through
    /// `pixels`.
    pub fn dispatch(
        &mut self,
        env: &mut DrawEnv<'_>,
        obj: &SetupObject,
        spans: &[Subspan],
        pixels: &mut dyn PixelBackend,
        out: &mut Vec<PixelThread>,
    ) -> Result<(), DrawError> {
        self.primitive_id = self.primitive_id.wrapping_add(1);
        if spans.is_empty() {
            return Ok(());
        }
        let wm = &self.st.wm;
        if !wm.dispatch {
            for group in spans.chunks(4) {
                let d = Self::dispatch_of(self.st, obj, group, 16, &slots(self.st, obj, group));
                pixels
                    .depth_stencil_only(env.memory, &d)
                    .map_err(|e| match e {
                        SendError::Bad(why) => DrawError::Invalid(why),
                        SendError::Fault { .. } => {
                            DrawError::Invalid("memory fault in the depth/stencil-only path")
                        }
                        SendError::Unhandled => {
                            DrawError::Invalid("the output merger has no depth/stencil-only path")
                        }
                    })?;
            }
            return Ok(());
        }
        let widths = kernels(wm)?;
        let mut at = 0;
        while at < spans.len() {
            let (simd, ksp) = pick_width(&widths, spans.len() - at);
            let n = (usize::from(simd) / 4).min(spans.len() - at);
            let group = &spans[at..at + n];
            at += n;
            let s = slots(self.st, obj, group);
            let payload = self.payload(obj, group, simd, ksp, &s)?;
            let dispatch_mask = if n >= 8 {
                u32::MAX
            } else {
                (1u32 << (4 * n)) - 1
            };
            out.push(PixelThread {
                kernel: self.instruction_base.wrapping_add(u64::from(wm.ksp[ksp])),
                payload,
                dispatch_mask,
                pixels: Self::dispatch_of(self.st, obj, group, simd, &s),
                cr0: wm.cr0,
                ffid: FFID_WM,
                binding_table: self.st.ps_binding_table,
                sampler_state: self.st.ps_samplers,
                scratch_base: wm.scratch_base,
                scratch_code: wm.scratch_code,
                grf_start: wm.grf_start[ksp] as u8,
            });
            self.thread_id = self.thread_id.wrapping_add(1);
        }
        Ok(())
    }
}
