//! Surfaces beyond one 2D level chain: 1D/2D arrays (QPitch, Minimum
//! Array Element, the array index parameter), 3D surfaces (planes per
//! level, trilinear within a level), cube maps (face selection, face
//! enables, TEXCOORDMODE_CUBE edges and corners), gather4 and SIMD4x2
//! payloads. Layouts and expected texels are worked out here from the
//! manuals' rules, each cited where used.

use baregpu_isa::IsaGen;
use baregpu_soft::eu::shared::MemoryUnits;
use baregpu_soft::eu::{ErrorKind, EuError, Harness, Step};

use super::rig::*;

/// SURFACE_STATE dwords of a texture. Gen6 (003 lines 75428-76407; the
/// hal's gen6 table): DW0 31:29 type, 26:18 format, 9 corner mode, 5:0
/// cube face enables; DW2 31:19 height-1, 18:6 width-1, 5:2 MIP count-1;
/// DW3 31:21 depth-1, 19:3 pitch-1; DW4 27:17 Minimum Array Element.
/// Gen7 [ext: mesa gen7.xml RENDER_SURFACE_STATE]: DW0 10 Surface Array
/// Spacing; DW2 29:16 height-1, 13:0 width-1; DW3 31:21 depth-1, 17:0
/// pitch-1; DW4 28:18 Minimum Array Element; DW5 3:0 MIP count-1.
#[derive(Clone, Copy, Debug)]
pub struct Surf {
    pub ty: u32,
    pub fmt: u32,
    pub w: u32,
    pub h: u32,
    pub depth: u32,
    pub mips: u32,
    pub min_array: u32,
    pub faces: u32,
    pub average: bool,
    pub lod0_spacing: bool,
}

pub const PITCH: u32 = 256;

impl Surf {
    pub fn new(ty: u32, fmt: u32, w: u32, h: u32, depth: u32) -> Surf {
        Surf {
            ty,
            fmt,
            w,
            h,
            depth,
            mips: 1,
            min_array: 0,
            faces: 0x3F,
            average: false,
            lod0_spacing: false,
        }
    }

    pub fn state(&self, p: IsaGen) -> Vec<u32> {
        let faces = if self.ty == 3 { self.faces } else { 0 };
        let head = self.ty << 29 | self.fmt << 18 | faces;
        if p >= IsaGen::Gen7 {
            let mut dw = vec![0u32; 8];
            dw[0] = head | u32::from(self.lod0_spacing) << 10;
            dw[1] = TEX as u32;
            dw[2] = (self.h - 1) << 16 | (self.w - 1);
            dw[3] = (self.depth - 1) << 21 | (PITCH - 1);
            dw[4] = self.min_array << 18;
            dw[5] = self.mips - 1;
            dw
        } else {
            let len = if p == IsaGen::Gen4 { 5 } else { 6 };
            let mut dw = vec![0u32; len];
            dw[0] = head | u32::from(self.average) << 9;
            dw[1] = TEX as u32;
            dw[2] = (self.h - 1) << 19 | (self.w - 1) << 6 | (self.mips - 1) << 2;
            dw[3] = (self.depth - 1) << 21 | (PITCH - 1) << 3;
            dw[4] = self.min_array << 17;
            dw
        }
    }
}

/// Writes a dword texel at texel row `y`, column `x` from TEX (R32).
fn put32(gpu: &mut MemoryUnits, x: u32, y: u32, v: f32) {
    let at = TEX + u64::from(y) * u64::from(PITCH) + 4 * u64::from(x);
    assert!(gpu.memory.set_dword(at, v.to_bits()));
}

/// Sends one sampler message: payload registers `regs` (header first when
/// `hdr`), `rlen` response registers from r40, execution size 8 (16 for
/// SIMD16). Returns the response registers.
pub fn send(
    gpu: &mut MemoryUnits,
    op: &str,
    simd: &str,
    regs: &[[u32; 8]],
    rlen: usize,
    hdr: bool,
) -> Result<Vec<[u32; 8]>, EuError> {
    let p = platform(gpu);
    let lanes = if simd == "16" { 16 } else { 8 };
    let pay = |i: usize| {
        if p >= IsaGen::Gen7 {
            format!("r{}", 100 + i)
        } else {
            format!("m{}", 1 + i)
        }
    };
    let ret = if p == IsaGen::Gen4 { ", ret=f32" } else { "" };
    let h = if hdr && p >= IsaGen::Gen6 { " hdr" } else { "" };
    let text = format!(
        "sampler.{op}(bti=1, sampler=0, simd={simd}{ret}) mlen={} rlen={rlen}{h}",
        regs.len()
    );
    let mut src = String::new();
    for i in 0..regs.len() {
        src += &format!(
            "mov (8|M0) {}.0<1>:ud r{}.0<8;8,1>:ud {{NoMask}}\n",
            pay(i),
            10 + i
        );
    }
    src += &match p {
        IsaGen::Gen4 | IsaGen::G45 => {
            format!("send ({lanes}|M0) r40:ud m1 r10.0<8;8,1>:ud {text}\n")
        }
        IsaGen::Gen6 => format!("send ({lanes}|M0) r40:ud m1 {text}\n"),
        _ => format!("send ({lanes}|M0) r40:ud r100 {text}\n"),
    };
    src += match p {
        IsaGen::Gen4 | IsaGen::G45 => "send (8|M0) null:ud m1 r0:ud 0x7 0x100000 {EOT}\n",
        IsaGen::Gen6 => {
            "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {NoMask}\nsend (8|M0) null:ud m1 0x7 0x02000010 {EOT}\n"
        }
        _ => {
            "mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud {NoMask}\nsend (8|M0) null:ud r127 0x7 0x02000010 {EOT}\n"
        }
    };
    let mut hn = Harness::new(p);
    hn.load_asm(&src)
        .unwrap_or_else(|e| panic!("{p:?}: {e:?}\n{src}"));
    for (i, r) in regs.iter().enumerate() {
        for (d, v) in r.iter().enumerate() {
            hn.thread.set_grf_ud(10 + i as u8, d, *v);
        }
    }
    for r in 40..48u8 {
        for d in 0..8 {
            hn.thread.set_grf_ud(r, d, 0xDEAD_BEEF);
        }
    }
    assert_eq!(hn.run_with(gpu, 1000)?, Step::Ended, "{p:?}");
    Ok((0..rlen)
        .map(|r| core::array::from_fn(|d| hn.thread.grf_ud(40 + r as u8, d)))
        .collect())
}

pub fn refusal(r: Result<Vec<[u32; 8]>, EuError>, why: &str) {
    match r {
        Err(EuError {
            kind: ErrorKind::SharedFunction(m),
            ..
        }) => assert!(m.contains(why), "{m:?} lacks {why:?}"),
        other => panic!("{other:?}, expected a refusal for {why}"),
    }
}

/// A SIMD8 sample_l (lod 0) payload with coordinates per lane: Gen6 u v r
/// ai lod (003 lines 79366-79390), Gen7 lod u v r ai [ext: mesa
/// elk_lower_logical_sends.cpp]. Gen4/G45 have no SIMD8 sample_l (000
/// lines 3999-4022): a SIMD8 sample (header u v r) instead, whose LOD
/// does not matter with MIPFILTER_NONE and one filter for both modes.
fn sample_l(p: IsaGen, c: &[[f32; 4]]) -> (&'static str, Vec<[u32; 8]>) {
    let prm =
        |k: usize| -> [u32; 8] { core::array::from_fn(|l| c.get(l).map_or(0, |v| v[k].to_bits())) };
    let lod = [0u32; 8];
    let mut regs = Vec::new();
    if p <= IsaGen::G45 {
        regs.push([0, 0, 0, SAMPLERS, 0, 0, 0, 0]);
        regs.extend([prm(0), prm(1), prm(2)]);
        return ("sample", regs);
    } else if p == IsaGen::Gen6 {
        regs.extend([prm(0), prm(1), prm(2), prm(3), lod]);
    } else {
        regs.extend([lod, prm(0), prm(1), prm(2), prm(3)]);
    }
    ("sample_l", regs)
}

/// Sends [`sample_l`]'s message and returns each lane's red.
fn sample_reds(gpu: &mut MemoryUnits, c: &[[f32; 4]]) -> Result<[f32; 8], EuError> {
    let (op, regs) = sample_l(platform(gpu), c);
    send(gpu, op, "8", &regs, 4, false).map(|r| reds(&r))
}

/// Red of each SIMD8 lane of a 4-register response.
fn reds(resp: &[[u32; 8]]) -> [f32; 8] {
    resp[0].map(f32::from_bits)
}

pub fn gpu_with(p: IsaGen, s: &Surf, spec: &Spec) -> MemoryUnits {
    let mut gpu = new_gpu_state(p, &s.state(p));
    put_sampler(&mut gpu, SAMPLERS, 0, spec);
    gpu
}

/// 2D arrays: slice q starts QPitch * q rows down, QPitch = h0 + h1 + 11j
/// on Gen6 (003 line 6153), + 12j on Gen7 ARYSPC_FULL and h0 with
/// ARYSPC_LOD0 [ext: mesa isl.c isl_calc_array_pitch_el_rows]; h0, h1 the
/// level heights padded to j = 2. The array index is the r parameter for
/// 2D (003 lines 79841-79870), Minimum Array Element is added (003 lines
/// 76211-76214); indices are rounded to nearest even and clamped (the
/// model's stated choice).
#[test]
fn two_d_arrays_place_slices_by_qpitch() {
    let cases = [
        (IsaGen::Gen6, false, 4 + 2 + 22),
        (IsaGen::Gen7, false, 4 + 2 + 24),
        (IsaGen::Gen75, false, 4 + 2 + 24),
        (IsaGen::Gen7, true, 4),
    ];
    for (p, lod0, qpitch) in cases {
        for min_array in [0u32, 1] {
            let s = Surf {
                min_array,
                lod0_spacing: lod0,
                ..Surf::new(1, R32_FLOAT, 4, 4, 4)
            };
            let mut gpu = gpu_with(p, &s, &Spec::default());
            for q in 0..4 {
                for y in 0..4 {
                    for x in 0..4 {
                        put32(&mut gpu, x, q * qpitch + y, (100 * q + 10 * y + x) as f32);
                    }
                }
            }
            // (u, v, index) -> the slice the rules give.
            let lanes: [([f32; 4], u32); 8] = [
                ([0.125, 0.125, 0.0, 0.0], 0),
                ([0.375, 0.625, 1.0, 0.0], 1),
                ([0.875, 0.875, 2.0, 0.0], 2),
                ([0.125, 0.375, 1.5, 0.0], 2),
                ([0.125, 0.375, 2.5, 0.0], 2),
                ([0.625, 0.125, -3.0, 0.0], 0),
                ([0.625, 0.125, 9.0, 0.0], 3),
                ([0.625, 0.125, 0.4, 0.0], 0),
            ];
            let c: Vec<[f32; 4]> = lanes.iter().map(|l| l.0).collect();
            let got = sample_reds(&mut gpu, &c).unwrap();
            for (l, (v, q)) in lanes.iter().enumerate() {
                let q = (q + min_array).min(3);
                let (x, y) = ((v[0] * 4.0) as u32, (v[1] * 4.0) as u32);
                let want = (100 * q + 10 * y + x) as f32;
                assert_eq!(got[l], want, "{p:?} lod0={lod0} min={min_array} lane {l}");
            }
        }
    }
}

/// 1D arrays take the array index from v; a 1D level is one row padded to
/// j = 2, so QPitch is 2 + 2 + 11 * 2 on Gen6.
#[test]
fn one_d_arrays_take_the_index_from_v() {
    let p = IsaGen::Gen6;
    let s = Surf::new(0, R32_FLOAT, 8, 1, 3);
    let mut gpu = gpu_with(p, &s, &Spec::default());
    for q in 0..3 {
        for x in 0..8 {
            put32(&mut gpu, x, q * 26, (10 * q + x) as f32);
        }
    }
    let c = [[0.0625, 2.0, 0.0, 0.0], [0.9375, 1.0, 7.0, 0.0]];
    let got = sample_reds(&mut gpu, &c).unwrap();
    assert_eq!(&got[..2], &[20.0, 17.0]);
}

/// Arrays and cubes have no modelled Gen4/G45 layout: refused by name.
#[test]
fn gen4_arrays_and_cubes_are_refused() {
    for p in [IsaGen::Gen4, IsaGen::G45] {
        for ty in [1, 3] {
            let s = Surf::new(ty, R32_FLOAT, 4, 4, 2);
            let mut gpu = gpu_with(p, &s, &Spec::default());
            let c = [[0.5, 0.5, 0.5, 0.0]];
            let (op, regs) = sample_l(p, &c);
            refusal(
                send(&mut gpu, op, "8", &regs, 4, false),
                "not modelled on Gen4/G45",
            );
        }
    }
}

/// The 3D layout (003 lines 6225-6262): level 0's planes stacked down,
/// level 1's two wide below them, each plane the padded level size (4 x 2
/// alignment). A 4x4x4 surface with 2 levels: level 0 plane z at row 4z;
/// level 1 (2x2x2) at row 16, planes at columns 0 and 4.
fn volume(p: IsaGen, spec: &Spec) -> MemoryUnits {
    let s = Surf {
        mips: 2,
        ..Surf::new(2, R32_FLOAT, 4, 4, 4)
    };
    let mut gpu = gpu_with(p, &s, spec);
    for z in 0..4 {
        for y in 0..4 {
            for x in 0..4 {
                put32(&mut gpu, x, 4 * z + y, (100 * z + 10 * y + x) as f32);
            }
        }
    }
    for z in 0..2 {
        for y in 0..2 {
            for x in 0..2 {
                put32(
                    &mut gpu,
                    4 * z + x,
                    16 + y,
                    (1000 + 100 * z + 10 * y + x) as f32,
                );
            }
        }
    }
    gpu
}

#[test]
fn three_d_planes_and_levels() {
    for p in [
        IsaGen::Gen4,
        IsaGen::G45,
        IsaGen::Gen6,
        IsaGen::Gen7,
        IsaGen::Gen75,
    ] {
        let mut gpu = volume(p, &Spec::default());
        let c = [
            [0.125, 0.125, 0.125, 0.0],
            [0.375, 0.875, 0.625, 0.0],
            [0.875, 0.375, 0.875, 0.0],
        ];
        let got = sample_reds(&mut gpu, &c).unwrap();
        assert_eq!(&got[..3], &[0.0, 231.0, 313.0], "{p:?}");
        // Level 1 through sample_l with lod 1 (nearest mip filter); Gen4
        // and G45 only have its SIMD4x2 form (000 line 4006): header, then
        // u v r lod of sample 0 in dwords 0-3.
        let spec = Spec {
            mip: 1,
            ..Spec::default()
        };
        put_sampler(&mut gpu, SAMPLERS, 0, &spec);
        let (u, v, r) = (0.75f32, 0.25f32, 0.75f32);
        let red = if p <= IsaGen::G45 {
            let regs = [
                [0, 0, 0, SAMPLERS, 0, 0, 0, 0],
                [u, v, r, 1.0, u, v, r, 1.0].map(f32::to_bits),
            ];
            send(&mut gpu, "sample_l", "4x2", &regs, 1, false).unwrap()[0][0]
        } else {
            let (op, mut regs) = sample_l(p, &[[u, v, r, 0.0]]);
            let lod_at = if p == IsaGen::Gen6 { 4 } else { 0 };
            regs[lod_at] = [1f32.to_bits(); 8];
            send(&mut gpu, op, "8", &regs, 4, false).unwrap()[0][0]
        };
        assert_eq!(f32::from_bits(red), 1101.0, "{p:?}");
    }
}

/// Linear filtering of a 3D level is trilinear: 8 taps weighted by the
/// distance to the texel centres in x, y and z (003 lines 73382-73383).
#[test]
fn three_d_linear_filters_between_planes() {
    let p = IsaGen::Gen7;
    let mut gpu = volume(p, &Spec::linear());
    // x = 0.3125 * 4 - 0.5 = 0.75, y = 0.5 * 4 - 0.5 = 1.5, z = 0.25 * 4 -
    // 0.5 = 0.5: texels x 0-1, y 1-2, z 0-1.
    let c = [[0.3125, 0.5, 0.25, 0.0]];
    let got = sample_reds(&mut gpu, &c).unwrap();
    let mut want = 0.0;
    for (z, wz) in [(0, 0.5), (1, 0.5)] {
        for (y, wy) in [(1, 0.5), (2, 0.5)] {
            for (x, wx) in [(0, 0.25), (1, 0.75)] {
                want += wx * wy * wz * f64::from(100 * z + 10 * y + x);
            }
        }
    }
    close(got[0], want, "trilinear in a 3D level");
}

/// ld on 3D and array surfaces: r is z (3D) or the array index (2D);
/// outside the surface reads zero (003 lines 79872-79888).
#[test]
fn ld_reads_planes_and_slices() {
    let p = IsaGen::Gen7;
    let mut gpu = volume(p, &Spec::default());
    // Gen7 ld: u lod v r [ext: mesa elk: "intermixed: u, lod, v, r"].
    let int =
        |v: [i32; 3]| -> [u32; 8] { core::array::from_fn(|l| v.get(l).map_or(0, |&x| x as u32)) };
    let regs = [int([1, 3, 0]), [0; 8], int([2, 0, 1]), int([3, 1, 4])];
    let got = reds(&send(&mut gpu, "ld", "8", &regs, 4, false).unwrap());
    assert_eq!(&got[..3], &[321.0, 103.0, 0.0]);
}

/// A cube: face q of a 4x4 face size at rows 28q (QPitch 4 + 2 + 11 * 2,
/// Gen6), texel value 100q + 10y + x; faces +X, -X, +Y, -Y, +Z, -Z are q
/// 0-5 (003 lines 6192-6208).
fn cube_gpu(p: IsaGen, s: &Surf, spec: &Spec) -> MemoryUnits {
    let qpitch = if p >= IsaGen::Gen7 { 30 } else { 28 };
    let mut gpu = gpu_with(p, s, spec);
    for q in 0..6 * s.depth {
        for y in 0..4 {
            for x in 0..4 {
                put32(&mut gpu, x, q * qpitch + y, (100 * q + 10 * y + x) as f32);
            }
        }
    }
    gpu
}

fn cube_value(face: u32, x: u32, y: u32) -> f32 {
    (100 * face + 10 * y + x) as f32
}

/// Face selection by the major axis and the API orientation table (OpenGL
/// 4.6 table 8.19): e.g. +X has s along -z and t along -y.
#[test]
fn cube_faces_by_major_axis() {
    for p in [IsaGen::Gen6, IsaGen::Gen7] {
        let mut gpu = cube_gpu(p, &Surf::new(3, R32_FLOAT, 4, 4, 1), &Spec::default());
        // (direction) -> (face, s texel, t texel)
        let lanes: [([f32; 4], (u32, u32, u32)); 8] = [
            // +X: s = (-z + 1)/2 = 0.125 -> 0, t = (-y + 1)/2 = 0.875 -> 3.
            ([1.0, -0.75, 0.75, 0.0], (0, 0, 3)),
            // -X: s = (z + 1)/2, t = (-y + 1)/2.
            ([-1.0, 0.25, 0.75, 0.0], (1, 3, 1)),
            // +Y: s = (x + 1)/2, t = (z + 1)/2.
            ([-0.75, 1.0, 0.25, 0.0], (2, 0, 2)),
            // -Y: s = (x + 1)/2, t = (-z + 1)/2.
            ([0.75, -1.0, 0.25, 0.0], (3, 3, 1)),
            // +Z: s = (x + 1)/2, t = (-y + 1)/2.
            ([0.25, 0.75, 1.0, 0.0], (4, 2, 0)),
            // -Z: s = (-x + 1)/2, t = (-y + 1)/2.
            ([0.25, -0.25, -1.0, 0.0], (5, 1, 2)),
            // Undivided: the sampler divides by the major magnitude.
            ([0.0, 0.0, -3.0, 0.0], (5, 2, 2)),
            // A tie of all three: Z first (the model's stated choice).
            ([1.0, 1.0, 1.0, 0.0], (4, 3, 0)),
        ];
        let c: Vec<[f32; 4]> = lanes.iter().map(|l| l.0).collect();
        let got = sample_reds(&mut gpu, &c).unwrap();
        for (l, (_, (f, x, y))) in lanes.iter().enumerate() {
            assert_eq!(got[l], cube_value(*f, *x, *y), "{p:?} lane {l}");
        }
    }
}

/// Cube Face Enables: a disabled face reads the border colour (003 lines
/// 75788-75803).
#[test]
fn disabled_cube_faces_read_the_border_colour() {
    let p = IsaGen::Gen6;
    let s = Surf {
        faces: 0x3F & !(1 << 1), // -Z off
        ..Surf::new(3, R32_FLOAT, 4, 4, 1)
    };
    let mut gpu = cube_gpu(p, &s, &Spec::default());
    put_border(&mut gpu, [7.5, 0.0, 0.0, 1.0], [0; 4]);
    let c = [[0.0, 0.0, -1.0, 0.0], [0.0, 0.0, 1.0, 0.0]];
    let got = sample_reds(&mut gpu, &c).unwrap();
    assert_eq!(&got[..2], &[7.5, cube_value(4, 2, 2)]);
}

/// TEXCOORDMODE_CUBE (003 lines 73549-73555): bilinear taps past a face
/// edge come from the adjacent face; at a corner the missing texel is the
/// opposite corner's (CUBE_REPLICATE) or the average of the three
/// (CUBE_AVERAGE), 003 lines 75681-75700. Neighbours worked out from the
/// cube's geometry: +Z's left column (x = -1) touches -X's right column
/// (-X's s runs with +z), same rows; +Z's top row (y = +1) touches +Y's
/// bottom row (+Y's t runs with +z), same columns.
#[test]
fn cube_mode_filters_across_edges_and_corners() {
    let p = IsaGen::Gen6;
    for (average, mode, override_) in [(false, 3, false), (true, 3, false), (false, 2, true)] {
        let s = Surf {
            average,
            ..Surf::new(3, R32_FLOAT, 4, 4, 1)
        };
        let spec = Spec {
            tc: [mode, mode, 2],
            ..Spec::linear()
        };
        let mut gpu = cube_gpu(p, &s, &spec);
        if override_ {
            // CUBECTRLMODE_OVERRIDE: SAMPLER_STATE DW1 bit 9 (003 lines
            // 77611-77625).
            let at = STATE_BASE + u64::from(SAMPLERS) + 4;
            let dw1 = gpu.memory.dword(at);
            assert!(gpu.memory.set_dword(at, dw1 | 1 << 9));
        }
        // +Z at s = 0, t = 0.375: x = -0.5 (taps -1, 0 at 0.5 each), y =
        // 1.5 - 0.5 = 1 (taps 1, 2 with weights 1, 0).
        // +Z at the corner s = 0, t = 0: taps (-1,-1) missing, (0,-1) +Y
        // (0,3), (-1,0) -X (3,0), (0,0) +Z (0,0); 0.25 each.
        // Ties pick +Z (the model's stated choice), so s = 0 exactly.
        let c = [[-1.0, 0.25, 1.0, 0.0], [-1.0, 1.0, 1.0, 0.0]];
        let got = sample_reds(&mut gpu, &c).unwrap();
        let edge = 0.5 * (cube_value(1, 3, 1) + cube_value(4, 0, 1));
        assert_eq!(got[0], edge, "edge, average={average}");
        let (z, y, x) = (
            cube_value(4, 0, 0),
            cube_value(2, 0, 3),
            cube_value(1, 3, 0),
        );
        let missing = if average { (z + y + x) / 3.0 } else { z };
        close(got[1], f64::from(0.25 * (z + y + x + missing)), "corner");
    }
}

/// Without TEXCOORDMODE_CUBE the face edge clamps like any 2D surface.
#[test]
fn cube_without_cube_mode_clamps_inside_the_face() {
    let p = IsaGen::Gen7;
    let mut gpu = cube_gpu(p, &Surf::new(3, R32_FLOAT, 4, 4, 1), &Spec::linear());
    let c = [[-1.0, 0.25, 1.0, 0.0]];
    let got = sample_reds(&mut gpu, &c).unwrap();
    assert_eq!(got[0], cube_value(4, 0, 1));
}

/// Cube arrays: cube n is slices 6n to 6n + 5, the ai parameter picks it
/// (003 lines 6221-6223, 79841-79870).
#[test]
fn cube_arrays_take_ai() {
    let p = IsaGen::Gen7;
    let mut gpu = cube_gpu(p, &Surf::new(3, R32_FLOAT, 4, 4, 2), &Spec::default());
    let c = [[0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]];
    let got = sample_reds(&mut gpu, &c).unwrap();
    assert_eq!(&got[..2], &[cube_value(8, 2, 2), cube_value(2, 2, 2)]);
}

/// gather4: the bilinear footprint, "upper left sample = alpha channel,
/// upper right sample = blue channel, lower left sample = red channel,
/// lower right sample = green channel" (003 lines 79679-79690). Gen7
/// selects the channel with header M0.2 bits 17:16 [ext: mesa
/// brw_fs_nir.cpp]; Gen6's load4 needs a one-channel format.
#[test]
fn gather4_returns_the_footprint_in_order() {
    // x = u * 4 - 0.5 = 1.25 -> columns 1, 2; y = 1.75 -> rows 1, 2.
    let (u, v) = (1.75f32 / 4.0, 2.25f32 / 4.0);
    for p in [IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75] {
        let (fmt, ch) = if p == IsaGen::Gen6 {
            (R32_FLOAT, 0)
        } else {
            (R8G8B8A8_UNORM, 1)
        };
        let s = Surf::new(1, fmt, 4, 4, 1);
        let mut gpu = gpu_with(p, &s, &Spec::default());
        let val = |x: u32, y: u32| 10 * y + x;
        for y in 0..4 {
            for x in 0..4 {
                let at = TEX + u64::from(y * PITCH + 4 * x);
                let v = val(x, y);
                let bytes = if fmt == R32_FLOAT {
                    (v as f32).to_bits().to_le_bytes()
                } else {
                    [0, v as u8, 0, 255]
                };
                assert!(gpu.memory.put(at, &bytes));
            }
        }
        let lane = |x: f32| -> [u32; 8] { [x.to_bits(); 8] };
        let mut regs = vec![[0, 0, ch << 16, 0, 0, 0, 0, 0]];
        regs.extend([lane(u), lane(v)]);
        let resp = send(&mut gpu, "gather4", "8", &regs, 4, true).unwrap();
        let got: [f32; 4] = core::array::from_fn(|c| f32::from_bits(resp[c][0]));
        let f = |x, y| {
            let v = val(x, y) as f32;
            if fmt == R32_FLOAT { v } else { v / 255.0 }
        };
        assert_eq!(got, [f(1, 2), f(2, 2), f(2, 1), f(1, 1)], "{p:?}");
    }
    // Gen6: a four-channel format is refused.
    let p = IsaGen::Gen6;
    let mut gpu = gpu_with(p, &Surf::new(1, R8G8B8A8_UNORM, 4, 4, 1), &Spec::default());
    refusal(
        send(&mut gpu, "gather4", "8", &[[0; 8], [0; 8]], 4, false),
        "one channel",
    );
}

/// SIMD4x2 (003 lines 79989-80010, 80279-80300): parameters 0-3 of sample
/// 0 in dwords 0-3 of the first payload register and of sample 1 in
/// dwords 4-7, parameters 4-7 in the next register; the response is one
/// register, sample 0's RGBA in dwords 0-3, sample 1's in 4-7, masked
/// channels left unwritten. Gen7 keeps Gen6's parameter order in SIMD4x2
/// (Mesa's vec4 back end writes u v r ai, then the lod, or ld's lod after
/// u v r [ext: mesa src/intel/compiler/brw_vec4_nir.cpp
/// `nir_emit_texture`]).
#[test]
fn simd4x2_sample_l_ld_resinfo() {
    for p in [IsaGen::Gen6, IsaGen::Gen7] {
        let s = Surf::new(1, R8G8B8A8_UNORM, 4, 4, 1);
        let mut gpu = gpu_with(p, &s, &Spec::default());
        for y in 0..4 {
            for x in 0..4 {
                let at = TEX + u64::from(y * PITCH + 4 * x);
                assert!(gpu.memory.put(at, &[(10 * y + x) as u8, 1, 2, 255]));
            }
        }
        let f = |x: f32| x.to_bits();
        let (a, b) = ((0.125f32, 0.875f32), (0.625f32, 0.375f32));
        // sample_l: u v r ai | lod.
        let regs: Vec<[u32; 8]> = vec![[f(a.0), f(a.1), 0, 0, f(b.0), f(b.1), 0, 0], [0; 8]];
        let r = send(&mut gpu, "sample_l", "4x2", &regs, 1, false).unwrap()[0];
        let unorm = |k: u32| f((k as f32) / 255.0);
        assert_eq!(r[0], unorm(30), "{p:?}");
        assert_eq!(r[4], unorm(12), "{p:?}");
        assert_eq!(r[3], f(1.0));
        // Green masked (header M0.2 bit 13): dwords 1 and 5 unwritten.
        let mut hregs = vec![[0, 0, 1 << 13, 0, 0, 0, 0, 0]];
        hregs.extend(regs.iter().copied());
        let r = send(&mut gpu, "sample_l", "4x2", &hregs, 1, true).unwrap()[0];
        assert_eq!((r[1], r[5]), (0xDEAD_BEEF, 0xDEAD_BEEF), "{p:?}");
        assert_eq!(r[4], unorm(12));
        // ld: u v r lod.
        let regs = [[3, 1, 0, 0, 0, 2, 0, 0]];
        let r = send(&mut gpu, "ld", "4x2", &regs, 1, false).unwrap()[0];
        assert_eq!((r[0], r[4]), (unorm(13), unorm(20)), "{p:?}");
        // resinfo lod 1 and 0: width, height, depth 0, levels.
        let r = send(
            &mut gpu,
            "resinfo",
            "4x2",
            &[[1, 0, 0, 0, 0, 0, 0, 0]],
            1,
            false,
        )
        .unwrap()[0];
        assert_eq!(r, [2, 2, 0, 1, 4, 4, 0, 1], "{p:?}");
        // sample has no SIMD4x2 form (003 line 79453).
        refusal(
            send(&mut gpu, "sample", "4x2", &[[0; 8]], 1, false),
            "not supported in SIMD4x2",
        );
    }
}

/// Hostile states and payloads: huge depths, NaN coordinates, indices far
/// out of range give answers or errors, never panics.
#[test]
fn hostile_volumes_do_not_panic() {
    for p in [IsaGen::Gen4, IsaGen::Gen6, IsaGen::Gen7] {
        for ty in [0, 1, 2, 3] {
            let s = Surf {
                mips: 14,
                min_array: 0x7FF,
                ..Surf::new(ty, R32_FLOAT, 0x800, 0x800, 0x800)
            };
            let mut gpu = gpu_with(p, &s, &Spec::linear());
            let c = [
                [f32::NAN, f32::INFINITY, -1e30, f32::NAN],
                [1e30, -1e30, f32::NAN, 1e30],
            ];
            let _ = sample_reds(&mut gpu, &c);
            let _ = send(&mut gpu, "ld", "8", &[[u32::MAX; 8]; 4], 4, false);
        }
    }
}

/// A SIMD8 `sample` (u v r ai from parameter 0, Gen6 and Gen7 alike: 003
/// lines 79366-79390; [ext: mesa elk]) of direction or coordinates `c`.
fn sample8(gpu: &mut MemoryUnits, c: &[[f32; 4]; 8]) -> [f32; 8] {
    let prm = |k: usize| -> [u32; 8] { core::array::from_fn(|l| c[l][k].to_bits()) };
    let regs = [prm(0), prm(1), prm(2), prm(3)];
    reds(&send(gpu, "sample", "8", &regs, 4, false).unwrap())
}

/// `sample` takes its LOD from the subspan's upper-left, upper-right and
/// lower-left pixels (lanes 4k, 4k + 1, 4k + 2; 003 lines 79157-79160,
/// 79966-79985), and on a 3D surface r counts in planes (003 lines
/// 73382-73383): dr/dx = 0.5 of 4 planes is 2 texels, LOD 1.
#[test]
fn subspan_lod_counts_r_on_3d_surfaces() {
    let p = IsaGen::Gen6;
    let spec = Spec {
        mip: 1,
        ..Spec::default()
    };
    let mut gpu = volume(p, &spec);
    let a = [0.75, 0.25, 0.25, 0.0];
    let b = [0.75, 0.25, 0.75, 0.0];
    let z = [0.125, 0.125, 0.125, 0.0];
    // Subspan 0: UL a, UR b (dr/dx 0.5), LL a, LR a. Subspan 1: no
    // gradient, magnified: level 0.
    let got = sample8(&mut gpu, &[a, b, a, a, z, z, z, z]);
    // Level 1 (2x2x2): a is texel (1, 0) of plane 0, b of plane 1.
    assert_eq!(&got[..5], &[1001.0, 1101.0, 1001.0, 1001.0, 0.0]);
}

/// Cube LOD: the face coordinates' differences on the upper-left pixel's
/// face, in texels of the face (the model's stated choice). UL (0, 0, 1)
/// and UR (1, 0, 1) differ by 0.5 in s on +Z: 2 texels of 4, LOD 1 (the
/// raw direction differs by 1, which would give LOD 2).
#[test]
fn subspan_lod_on_cube_faces() {
    let p = IsaGen::Gen7;
    let s = Surf {
        mips: 3,
        ..Surf::new(3, R32_FLOAT, 4, 4, 1)
    };
    let spec = Spec {
        mip: 1,
        ..Spec::default()
    };
    let mut gpu = cube_gpu(p, &s, &spec);
    // Per face (QPitch 30): level 1 (2x2) at row 4, level 2 (1x1) at
    // column 4, row 4 (MIPLAYOUT_BELOW stepping, 003 lines 6018-6034).
    for q in 0..6 {
        for y in 0..2 {
            for x in 0..2 {
                put32(
                    &mut gpu,
                    x,
                    30 * q + 4 + y,
                    (1000 + 100 * q + 10 * y + x) as f32,
                );
            }
        }
        put32(&mut gpu, 4, 30 * q + 4, (2000 + 100 * q) as f32);
    }
    let ul = [0.0, 0.0, 1.0, 0.0];
    let ur = [1.0, 0.0, 1.0, 0.0];
    let got = sample8(&mut gpu, &[ul, ur, ul, ul, ul, ul, ul, ul]);
    // UL on level 1 of +Z: s = t = 0.5, texel (1, 1).
    assert_eq!(got[0], 1411.0);
    // The second subspan has no gradient: level 0, texel (2, 2).
    assert_eq!(got[4], cube_value(4, 2, 2));
}

/// sample_d on a 3D surface: drdx and drdy join the gradient vectors (003
/// lines 73382-73383). Gen7 sends u dudx dudy v dvdx dvdy r drdx drdy
/// [ext: mesa elk_lower_logical_sends.cpp]: drdx 0.5 of 4 planes, LOD 1.
#[test]
fn sample_d_uses_r_gradients() {
    let p = IsaGen::Gen7;
    let spec = Spec {
        mip: 1,
        ..Spec::default()
    };
    let mut gpu = volume(p, &spec);
    let all = |x: f32| [x.to_bits(); 8];
    let (z, a) = (all(0.0), [0.75, 0.25, 0.25]);
    let regs = [all(a[0]), z, z, all(a[1]), z, z, all(a[2]), all(0.5), z];
    let got = reds(&send(&mut gpu, "sample_d", "8", &regs, 4, false).unwrap());
    assert_eq!(got[0], 1001.0);
    // Without the r gradient the LOD is -inf: level 0, texel (3, 1, 1).
    let regs = [all(a[0]), z, z, all(a[1]), z, z, all(a[2]), z, z];
    let got = reds(&send(&mut gpu, "sample_d", "8", &regs, 4, false).unwrap());
    assert_eq!(got[0], 113.0);
}

/// gather4_po (Gen7 [ext: mesa GFX7_SAMPLER_MESSAGE_SAMPLE_GATHER4_PO]):
/// gather4 with integer texel offsets per pixel (003 lines 79833-79835)
/// in place of the header's U and V offsets (003 lines 79277, 79288);
/// SIMD8 payload u v offu offv [r], SIMD4x2 u v r ref | offu offv [ext:
/// mesa elk_lower_logical_sends.cpp "More crazy intermixing";
/// brw_vec4_nir.cpp]. The offsets are taken as 6-bit signed numbers (the
/// model's choice, Mesa's range [-32, 31]); CLAMP keeps the footprint on
/// the 8 x 8 surface.
#[test]
fn gather4_po_offsets_each_pixel() {
    // x = u * 8 - 0.5 = 3.25 -> columns 3, 4; y = 3.75 -> rows 3, 4.
    let (u, v) = (3.75f32 / 8.0, 4.25f32 / 8.0);
    let offu: [i32; 8] = [0, 1, -1, 2, -3, 0, 63, 32];
    let offv: [i32; 8] = [0, 0, 1, -2, 1, 3, 64, 0];
    let six = |o: i32| (o << 26) >> 26;
    let val = |x: i64, y: i64| (10 * y.clamp(0, 7) + x.clamp(0, 7)) as f32;
    // (ll, lr, ur, ul) of lane l's offset footprint, then compared with
    // `reference` (PREFILTEROP_LESS: texel < ref gives 0) when present.
    let want = |l: usize, reference: Option<f32>| -> [f32; 4] {
        let (x, y) = (3 + i64::from(six(offu[l])), 3 + i64::from(six(offv[l])));
        let t = [val(x, y + 1), val(x + 1, y + 1), val(x + 1, y), val(x, y)];
        match reference {
            Some(r) => t.map(|t| if t < r { 0.0 } else { 1.0 }),
            None => t,
        }
    };
    for p in [IsaGen::Gen7, IsaGen::Gen75] {
        let s = Surf::new(1, R32_FLOAT, 8, 8, 1);
        let less = Spec {
            shadow: 2,
            ..Spec::default()
        };
        let mut gpu = gpu_with(p, &s, &less);
        for y in 0..8 {
            for x in 0..8 {
                put32(&mut gpu, x, y, val(x.into(), y.into()));
            }
        }
        let lane = |x: f32| -> [u32; 8] { [x.to_bits(); 8] };
        // A header U Offset of 2, which offu replaces; M0.3 the sampler
        // state pointer Gen7.5 takes from the header.
        let header = [0, 0, 2 << 8, SAMPLERS, 0, 0, 0, 0];
        let regs = [
            header,
            lane(u),
            lane(v),
            offu.map(|o| o as u32),
            offv.map(|o| o as u32),
        ];
        // Each lane's four channels.
        let per_lane = |r: Vec<[u32; 8]>| -> [[f32; 4]; 8] {
            core::array::from_fn(|l| core::array::from_fn(|c| f32::from_bits(r[c][l])))
        };
        let r = send(&mut gpu, "gather4_po", "8", &regs, 4, true).unwrap();
        for (l, got) in per_lane(r).iter().enumerate() {
            assert_eq!(*got, want(l, None), "{p:?} lane {l}");
        }
        let reference = 34.5f32;
        let mut regs_c = vec![header, lane(reference)];
        regs_c.extend_from_slice(&regs[1..]);
        let r = send(&mut gpu, "gather4_po_c", "8", &regs_c, 4, true).unwrap();
        for (l, got) in per_lane(r).iter().enumerate() {
            assert_eq!(
                *got,
                want(l, Some(reference)),
                "{p:?} gather4_po_c lane {l}"
            );
        }
        // SIMD4x2: lanes 1 and 3's offsets.
        let (a, b) = (1, 3);
        let regs = [
            header,
            [u, v, 0.0, 0.0, u, v, 0.0, 0.0].map(f32::to_bits),
            [offu[a], offv[a], 0, 0, offu[b], offv[b], 0, 0].map(|o| o as u32),
        ];
        let r = send(&mut gpu, "gather4_po", "4x2", &regs, 1, true).unwrap()[0];
        let got: [f32; 8] = r.map(f32::from_bits);
        assert_eq!(got[..4], want(a, None), "{p:?} SIMD4x2 sample 0");
        assert_eq!(got[4..], want(b, None), "{p:?} SIMD4x2 sample 1");
        // Cube surfaces are gather4's only (003 line 79703).
        let mut gpu = gpu_with(p, &Surf::new(3, R32_FLOAT, 8, 8, 1), &Spec::default());
        refusal(
            send(&mut gpu, "gather4_po", "8", &regs[..3], 4, true),
            "SURFTYPE_2D",
        );
    }
}

/// Gen4/G45 SIMD4x2 rows that place parameters apart (000 lines 4020 and
/// 4022): resinfo's lod is parameter 3, sample_g's gradients parameters
/// 4-6 (d/dx) and 8-10 (d/dy). The 16 x 16 surface has 5 levels, each
/// texel's red its level (times 40), so the level a gradient picks shows.
#[test]
fn gen4_simd4x2_resinfo_and_sample_g() {
    for p in [IsaGen::Gen4, IsaGen::G45] {
        let tex = Tex::new(R8G8B8A8_UNORM, 16, 16, 5);
        let mut gpu = new_gpu(p, &tex);
        put_sampler(
            &mut gpu,
            SAMPLERS,
            0,
            &Spec {
                mip: 1,
                ..Spec::default()
            },
        );
        for l in 0..5 {
            let (w, h) = tex.size(l);
            for y in 0..h {
                for x in 0..w {
                    put_texel(&mut gpu, &tex, l, x, y, [(40 * l) as u8, 0, 0, 255]);
                }
            }
        }
        let header = [0, 0, 0, SAMPLERS, 0, 0, 0, 0];
        // resinfo, lod 1 and 2 in parameter 3 of each sample.
        let r = send(
            &mut gpu,
            "resinfo",
            "4x2",
            &[header, [0, 0, 0, 1, 0, 0, 0, 2]],
            1,
            true,
        )
        .unwrap()[0];
        // Gen4's descriptor asks for FLOAT32 (000 line 3945), G45 returns
        // UINT32 (line 3953).
        let want = [8, 8, 0, 5, 4, 4, 0, 5];
        if p == IsaGen::Gen4 {
            assert_eq!(r, want.map(|k| (k as f32).to_bits()), "{p:?}");
        } else {
            assert_eq!(r, want, "{p:?}");
        }
        // sample_g: sample 0 with 2 texels along x (LOD 1), sample 1 with
        // 8 along y (LOD 3); the gradients that do not count are 0.
        let f = |x: f32| x.to_bits();
        let (u, v) = (f(0.3), f(0.6));
        let regs = [
            header,
            [u, v, 0, 0, u, v, 0, 0],
            [f(2.0 / 16.0), 0, 0, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, f(8.0 / 16.0), 0, 0],
        ];
        let r = send(&mut gpu, "sample_d", "4x2", &regs, 1, true).unwrap()[0];
        assert_eq!((r[0], r[4]), (f(40.0 / 255.0), f(120.0 / 255.0)), "{p:?}");
    }
}
