//! The test rig: graphics memory holding a binding table, SURFACE_STATE,
//! SAMPLER_STATE, border colours and textures, all laid out here from the
//! manuals' bit positions (not with the model's decoders); kernels that
//! copy a prepared payload into the message registers and `send` one
//! sampler message written with the symbolic descriptor syntax.

#![allow(dead_code)]

use baregpu_isa::IsaGen;
use baregpu_soft::eu::shared::sampler::SamplerSource;
use baregpu_soft::eu::shared::{BindingTable, FlatMemory, MemoryUnits};
use baregpu_soft::eu::{ErrorKind, EuError, Harness, Step};

pub const ALL: [IsaGen; 5] = [
    IsaGen::Gen4,
    IsaGen::G45,
    IsaGen::Gen6,
    IsaGen::Gen7,
    IsaGen::Gen75,
];

pub const MEM: u64 = 0x20_0000;
const MEM_LEN: usize = 0x4_0000;
/// Binding table: entry 1 points at the texture's SURFACE_STATE.
const TABLE: u64 = MEM + 0x100;
const SURFACE_STATE_BASE: u64 = MEM + 0x400;
const SURFACE_STATE: u32 = 0x40;
/// The base SAMPLER_STATE and border colours are relative to: General
/// State Base on Gen4/G45, Dynamic State Base on Gen6+.
pub const STATE_BASE: u64 = MEM + 0x1000;
/// Sampler State Pointer of the main table, and of a second one.
pub const SAMPLERS: u32 = 0x100;
pub const SAMPLERS_B: u32 = 0x180;
/// Border Color Pointer.
pub const BORDER: u32 = 0x400;
/// Where texels start.
pub const TEX: u64 = MEM + 0x1_0000;

pub const R8G8B8A8_UNORM: u32 = 0x0C7; // 000 line 3399
pub const R32_FLOAT: u32 = 0x0D8; // 000 line 3414
pub const R32_UINT: u32 = 0x0D7; // 000 line 3413

/// A 1D or 2D texture with its mip chain, laid out by the manual's rules:
/// level L is max(1, W >> L) x max(1, H >> L) (003 lines 5987-5992),
/// padded to the 4 x 2 alignment unit (003 lines 6055-6090), placed by
/// "stepping" (003 lines 6018-6034): MIPLAYOUT_BELOW down from 0 to 1,
/// right from 1 to 2, then down; MIPLAYOUT_RIGHT right from 0 to 1, then
/// down.
#[derive(Clone, Copy, Debug)]
pub struct Tex {
    pub fmt: u32,
    pub w: u32,
    pub h: u32,
    /// MIP levels (the SURFACE_STATE field plus one).
    pub mips: u32,
    /// Surface Min LOD.
    pub min_lod: u32,
    pub right: bool,
    pub pitch: u32,
    pub one_d: bool,
}

impl Tex {
    pub fn new(fmt: u32, w: u32, h: u32, mips: u32) -> Tex {
        Tex {
            fmt,
            w,
            h,
            mips,
            min_lod: 0,
            right: false,
            pitch: 256,
            one_d: false,
        }
    }

    pub fn size(&self, l: u32) -> (u32, u32) {
        ((self.w >> l).max(1), (self.h >> l).max(1))
    }

    /// The upper-left texel of level `l`.
    pub fn origin(&self, l: u32) -> (u32, u32) {
        let pad = |n: u32, a: u32| n.div_ceil(a) * a;
        let (mut x, mut y) = (0, 0);
        for k in 0..l {
            let (w, h) = self.size(k);
            let right = if self.right { k == 0 } else { k == 1 };
            if right {
                x += pad(w, 4);
            } else {
                y += pad(h, 2);
            }
        }
        (x, y)
    }

    /// Graphics address of texel (x, y) of level `l` (linear layout).
    pub fn addr(&self, l: u32, x: u32, y: u32) -> u64 {
        let (ox, oy) = self.origin(l);
        TEX + u64::from(oy + y) * u64::from(self.pitch) + 4 * u64::from(ox + x)
    }

    /// SURFACE_STATE of this texture on `p`. Gen4-Gen6: DW0 31:29 type,
    /// 26:18 format, 10 MIP layout; DW1 base; DW2 31:19 height-1, 18:6
    /// width-1, 5:2 MIP count-1; DW3 31:21 depth-1, 19:3 pitch-1; DW4
    /// 31:28 Surface Min LOD (000 lines 3076, 3104, 3137, 3220, 3234, 3245,
    /// 3256, 3267, 3272, 3294). Gen7: DW2 29:16 height-1, 13:0 width-1;
    /// DW3 17:0 pitch-1; DW5 7:4 Surface Min LOD, 3:0 MIP count-1 [ext:
    /// mesa src/intel/genxml/gen7.xml RENDER_SURFACE_STATE].
    pub fn state(&self, p: IsaGen) -> Vec<u32> {
        let ty = if self.one_d { 0 } else { 1 };
        let head = ty << 29 | self.fmt << 18;
        let (w, h) = (self.w - 1, self.h - 1);
        if p >= IsaGen::Gen7 {
            let mut dw = vec![0u32; 8];
            dw[0] = head;
            dw[1] = TEX as u32;
            dw[2] = h << 16 | w;
            dw[3] = self.pitch - 1;
            dw[5] = self.min_lod << 4 | (self.mips - 1);
            dw
        } else {
            let len = if p == IsaGen::Gen4 { 5 } else { 6 };
            let mut dw = vec![0u32; len];
            dw[0] = head | u32::from(self.right) << 10;
            dw[1] = TEX as u32;
            dw[2] = h << 19 | w << 6 | (self.mips - 1) << 2;
            dw[3] = (self.pitch - 1) << 3;
            dw[4] = self.min_lod << 28;
            dw
        }
    }
}

/// SAMPLER_STATE fields as a test writes them.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub disable: bool,
    pub dx9: bool,
    pub preclamp: bool,
    pub base: f32,
    /// Mip Mode Filter code: 0 none, 1 nearest, 3 linear.
    pub mip: u32,
    /// Mag and Min Mode Filter codes: 0 nearest, 1 linear, 2 anisotropic,
    /// 6 mono.
    pub mag: u32,
    pub min: u32,
    pub bias: f32,
    pub shadow: u32,
    pub min_lod: f32,
    pub max_lod: f32,
    /// TCX, TCY, TCZ codes: 0 wrap, 1 mirror, 2 clamp, 3 cube, 4 clamp to
    /// border, 5 mirror once.
    pub tc: [u32; 3],
    pub border: u32,
    pub non_normalized: bool,
    pub chroma_key: bool,
}

impl Default for Spec {
    fn default() -> Spec {
        Spec {
            disable: false,
            dx9: false,
            preclamp: false,
            base: 0.0,
            mip: 0,
            mag: 0,
            min: 0,
            bias: 0.0,
            shadow: 0,
            min_lod: 0.0,
            max_lod: 13.0,
            tc: [2; 3],
            border: BORDER,
            non_normalized: false,
            chroma_key: false,
        }
    }
}

impl Spec {
    /// Both filters linear.
    pub fn linear() -> Spec {
        Spec {
            mag: 1,
            min: 1,
            ..Spec::default()
        }
    }
}

/// SAMPLER_STATE dwords. Gen4-Gen6 (000 lines 3659-3815; 003 lines
/// 77311-77871): DW0 31 disable, 29 border colour mode, 28 LOD pre-clamp,
/// 26:22 base mip U4.1, 21:20 mip filter, 19:17 mag, 16:14 min, 13:3 LOD
/// bias S4.6, 2:0 shadow function; DW1 31:22 min LOD U4.6, 21:12 max LOD
/// U4.6, 8:6/5:3/2:0 TCX/TCY/TCZ; DW2 31:5 border colour pointer; DW3 25
/// ChromaKey enable, Gen6 bit 0 non-normalized coordinates. Gen7 [ext:
/// mesa gen7.xml SAMPLER_STATE]: DW0 13:1 bias S4.8; DW1 31:20 min LOD,
/// 19:8 max LOD (U4.8), 3:1 shadow function; DW3 10 non-normalized, 8:6,
/// 5:3, 2:0 TCX/TCY/TCZ.
pub fn sampler_state(p: IsaGen, s: &Spec) -> [u32; 4] {
    let fix = |v: f32, frac: u32, bits: u32| {
        ((v * (1 << frac) as f32).round() as i32 as u32) & ((1 << bits) - 1)
    };
    let mut dw = [0u32; 4];
    dw[0] = u32::from(s.disable) << 31
        | u32::from(s.dx9) << 29
        | u32::from(s.preclamp) << 28
        | fix(s.base, 1, 5) << 22
        | s.mip << 20
        | s.mag << 17
        | s.min << 14;
    dw[2] = s.border;
    dw[3] = u32::from(s.chroma_key) << 25;
    let tc = s.tc[0] << 6 | s.tc[1] << 3 | s.tc[2];
    if p >= IsaGen::Gen7 {
        dw[0] |= fix(s.bias, 8, 13) << 1;
        dw[1] = fix(s.min_lod, 8, 12) << 20 | fix(s.max_lod, 8, 12) << 8 | s.shadow << 1;
        dw[3] |= u32::from(s.non_normalized) << 10 | tc;
    } else {
        dw[0] |= fix(s.bias, 6, 11) << 3 | s.shadow;
        dw[1] = fix(s.min_lod, 6, 10) << 22 | fix(s.max_lod, 6, 10) << 12 | tc;
        if p == IsaGen::Gen6 {
            dw[3] |= u32::from(s.non_normalized);
        }
    }
    dw
}

/// The memory units the kernels send to: memory with the binding table
/// (BTI 1 `tex`) and its SURFACE_STATE, SAMPLER_STATE taken from the main
/// table at STATE_BASE + SAMPLERS unless a message's header moves it.
pub fn new_gpu(p: IsaGen, tex: &Tex) -> MemoryUnits {
    new_gpu_state(p, &tex.state(p))
}

/// [`new_gpu`] with SURFACE_STATE dwords `state` at BTI 1.
pub fn new_gpu_state(p: IsaGen, state: &[u32]) -> MemoryUnits {
    let mut mem = FlatMemory::new(MEM, MEM_LEN);
    for (i, d) in state.iter().enumerate() {
        let at = SURFACE_STATE_BASE + u64::from(SURFACE_STATE) + 4 * i as u64;
        assert!(mem.set_dword(at, *d));
    }
    assert!(mem.set_dword(TABLE + 4, SURFACE_STATE));
    let mut gpu = MemoryUnits::new(mem);
    gpu.binding_table = Some(BindingTable {
        platform: p,
        table: TABLE,
        surface_state_base: SURFACE_STATE_BASE,
    });
    gpu.samplers = Some(SamplerSource {
        base: STATE_BASE,
        pointer: SAMPLERS,
    });
    gpu
}

/// The generation `gpu` was built for: its binding table's.
pub fn platform(gpu: &MemoryUnits) -> IsaGen {
    gpu.binding_table
        .expect("new_gpu sets a binding table")
        .platform
}

/// Writes SAMPLER_STATE entry `index` of the table at `pointer`.
pub fn put_sampler(gpu: &mut MemoryUnits, pointer: u32, index: u32, s: &Spec) {
    let at = STATE_BASE + u64::from(pointer) + 16 * u64::from(index);
    for (i, d) in sampler_state(platform(gpu), s).iter().enumerate() {
        assert!(gpu.memory.set_dword(at + 4 * i as u64, *d));
    }
}

/// The DX10/OGL border colour (floats, and on Gen7.5 the 32-bit integer
/// copy too): Gen4/G45 floats at DW0-3 (000 lines 3845-3851); Gen6 floats
/// at DW1-4 after the UNORM8 dword [ext: mesa gen6.xml
/// SAMPLER_BORDER_COLOR_STATE]; Gen7 DW0-3 [ext: mesa gen7.xml]; Gen7.5
/// floats DW0-3, 32-bit integers DW16-19 [ext: mesa gen75.xml].
pub fn put_border(gpu: &mut MemoryUnits, rgba: [f32; 4], ints: [u32; 4]) {
    let p = platform(gpu);
    let at = STATE_BASE + u64::from(BORDER);
    let skip = if p == IsaGen::Gen6 { 4 } else { 0 };
    for c in 0..4 {
        assert!(
            gpu.memory
                .set_dword(at + skip + 4 * c as u64, rgba[c].to_bits())
        );
        if p == IsaGen::Gen75 {
            assert!(gpu.memory.set_dword(at + 64 + 4 * c as u64, ints[c]));
        }
    }
}

/// The DX9 border colour: one dword of UNORM8 A:B:G:R (000 lines
/// 3837-3843; Gen6 DW0 and Gen7 DW0 hold the same [ext: mesa]).
pub fn put_border_dx9(gpu: &mut MemoryUnits, rgba: [u8; 4]) {
    assert!(
        gpu.memory
            .set_dword(STATE_BASE + u64::from(BORDER), u32::from_le_bytes(rgba))
    );
}

/// Texel (x, y) of level `l` of `tex`: four bytes (RGBA8) or a dword.
pub fn put_texel(gpu: &mut MemoryUnits, tex: &Tex, l: u32, x: u32, y: u32, v: [u8; 4]) {
    assert!(gpu.memory.put(tex.addr(l, x, y), &v));
}

/// Sampler messages the tests send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Sample,
    SampleB,
    SampleL,
    SampleC,
    SampleD,
    Ld,
    Resinfo,
    Lod,
    SampleInfo,
    SampleKillpix,
    /// Gen7.5 only.
    SampleDC,
    /// Gen7 multisample loads.
    Ld2dms,
    Ld2dss,
    LdMcs,
}

/// One message: operation, SIMD width, sampler index, optional header
/// (always sent on Gen4/G45), and per-lane parameters as raw dwords.
#[derive(Clone, Copy, Debug)]
pub struct Msg {
    pub op: Op,
    pub simd16: bool,
    pub sampler: u32,
    /// Header M0.2 and M0.3 (Sampler State Pointer); `None`: no header on
    /// Gen6+, a zero M0.2 and the main table's pointer on Gen4/G45.
    pub header: Option<(u32, u32)>,
    pub u: [u32; 16],
    pub v: [u32; 16],
    /// lod (sample_l, ld, resinfo) or bias (sample_b).
    pub lod: [u32; 16],
    pub reference: [u32; 16],
    /// du/dx, dv/dx, du/dy, dv/dy (sample_d).
    pub gradients: [[u32; 16]; 4],
    /// Gen4 Data Return Format.
    pub ret: &'static str,
    /// The thread's dispatch mask (the send's channel enables).
    pub dispatch: u32,
    /// The sample index (ld2dms, ld2dss; Gen6 ld sends it when `Some`).
    pub si: Option<[u32; 16]>,
    /// ld2dms's MCS value.
    pub mcs: [u32; 16],
}

impl Msg {
    /// A SIMD16 message with float coordinates.
    pub fn new(op: Op, u: [f32; 16], v: [f32; 16]) -> Msg {
        Msg {
            op,
            simd16: true,
            sampler: 0,
            header: None,
            u: u.map(f32::to_bits),
            v: v.map(f32::to_bits),
            lod: [0; 16],
            reference: [0; 16],
            gradients: [[0; 16]; 4],
            ret: "f32",
            dispatch: u32::MAX,
            si: None,
            mcs: [0; 16],
        }
    }

    pub fn lod(self, lod: f32) -> Msg {
        Msg {
            lod: [lod.to_bits(); 16],
            ..self
        }
    }

    /// The parameters in payload order (000 lines 3999-4022; 003 lines
    /// 79366-79390; Gen7 [ext: mesa elk_lower_logical_sends.cpp: shadow
    /// reference, then lod or bias, then u v; ld u lod v; sample_d u dudx
    /// dudy v dvdx dvdy]). `r` and `ai` are sent as 0.
    fn params(&self, p: IsaGen) -> Vec<[u32; 16]> {
        let (u, v, l, r, z) = (self.u, self.v, self.lod, self.reference, [0u32; 16]);
        let [dudx, dvdx, dudy, dvdy] = self.gradients;
        let si = self.si.unwrap_or(z);
        match (p, self.op) {
            // Gen6 ld: u v r lod si (003 line 79380); Gen7 ld2dms si mcs
            // u v, ld2dss si u v, ld_mcs u v [ext: mesa
            // elk_lower_logical_sends.cpp, TXF_CMS/TXF_UMS/TXF_MCS].
            (IsaGen::Gen6, Op::Ld) if self.si.is_some() => vec![u, v, z, l, si],
            (_, Op::Ld2dms) => vec![si, self.mcs, u, v],
            (_, Op::Ld2dss) => vec![si, u, v],
            (_, Op::LdMcs) => vec![u, v],
            (IsaGen::Gen4 | IsaGen::G45, Op::SampleD) => vec![u, v, dudx, dvdx, dudy, dvdy],
            (IsaGen::Gen6, Op::SampleD) => vec![u, v, z, z, dudx, dudy, dvdx, dvdy],
            (_, Op::SampleD) => vec![u, dudx, dudy, v, dvdx, dvdy],
            (_, Op::SampleDC) => vec![r, u, dudx, dudy, v, dvdx, dvdy],
            (_, Op::Resinfo) => vec![l],
            (_, Op::SampleInfo) => vec![],
            (IsaGen::Gen4 | IsaGen::G45, Op::SampleKillpix) => vec![u, v, z],
            (_, Op::Sample | Op::Lod | Op::SampleKillpix) => vec![u, v],
            (IsaGen::Gen4 | IsaGen::G45, Op::SampleC) => vec![u, v, z, r],
            (IsaGen::Gen4 | IsaGen::G45, _) => vec![u, v, z, l],
            (IsaGen::Gen6, Op::Ld) => vec![u, v, z, l],
            (IsaGen::Gen6, Op::SampleC) => vec![u, v, z, z, r],
            (IsaGen::Gen6, _) => vec![u, v, z, z, l],
            (_, Op::Ld) => vec![u, l, v],
            (_, Op::SampleC) => vec![r, u, v],
            _ => vec![l, u, v],
        }
    }

    fn name(&self) -> &'static str {
        match self.op {
            Op::Sample => "sample",
            Op::SampleB => "sample_b",
            Op::SampleL => "sample_l",
            Op::SampleC => "sample_c",
            Op::SampleD => "sample_d",
            Op::Ld => "ld",
            Op::Resinfo => "resinfo",
            Op::Lod => "lod",
            Op::SampleInfo => "sampleinfo",
            Op::SampleKillpix => "sample_killpix",
            Op::SampleDC => "sample_d_c",
            Op::Ld2dms => "ld2dms",
            Op::Ld2dss => "ld2dss",
            Op::LdMcs => "ld_mcs",
        }
    }
}

/// Runs `msg` in a kernel on `gpu`: the payload is built in GRFs r10 on,
/// copied to m1 on (Gen4-Gen6; the Gen4/G45 implied move copies r10 and
/// r11 again) or r100 on (Gen7), sent with the response in r40 on, and the
/// thread ends through the thread spawner. Returns R, G, B, A per lane.
pub fn run(gpu: &mut MemoryUnits, msg: &Msg) -> Result<[[u32; 4]; 16], EuError> {
    let per = if msg.simd16 { 2 } else { 1 };
    let lanes = 8 * per;
    let r = exec(gpu, msg)?;
    Ok(core::array::from_fn(|l| {
        core::array::from_fn(|ch| {
            if l >= lanes {
                return 0xDEAD_BEEF;
            }
            r[ch * per + l / 8][l % 8]
        })
    }))
}

/// `run` returning response registers r40-r47 as they are after the
/// message (0xDEADBEEF where nothing was written).
pub fn exec(gpu: &mut MemoryUnits, msg: &Msg) -> Result<[[u32; 8]; 8], EuError> {
    let p = platform(gpu);
    let header = p <= IsaGen::G45 || msg.header.is_some();
    let (m2, m3) = msg.header.unwrap_or((0, SAMPLERS));
    let per = if msg.simd16 { 2 } else { 1 };
    let mut regs: Vec<[u32; 8]> = Vec::new();
    if header {
        regs.push([0, 0, m2, m3, 0, 0, 0, 0]);
    }
    for prm in msg.params(p) {
        for half in 0..per {
            regs.push(core::array::from_fn(|d| prm[8 * half + d]));
        }
    }
    let mlen = regs.len();
    let lanes = 8 * per;
    let rlen = if msg.op == Op::SampleKillpix {
        5
    } else {
        4 * per
    };
    let pay = |i: usize| {
        if p >= IsaGen::Gen7 {
            format!("r{}", 100 + i)
        } else {
            format!("m{}", 1 + i)
        }
    };
    let ret = if p == IsaGen::Gen4 {
        format!(", ret={}", msg.ret)
    } else {
        String::new()
    };
    let text = format!(
        "sampler.{}(bti=1, sampler={}, simd={lanes}{ret}) mlen={mlen} rlen={rlen}{}",
        msg.name(),
        msg.sampler,
        if header && p >= IsaGen::Gen6 {
            " hdr"
        } else {
            ""
        },
    );
    let mut src = String::new();
    for i in 0..mlen {
        src += &format!(
            "mov (8|M0) {}.0<1>:ud r{}.0<8;8,1>:ud {{NoMask}}\n",
            pay(i),
            10 + i
        );
    }
    let dst = if msg.simd16 { "r40:uw" } else { "r40:ud" };
    src += &match p {
        IsaGen::Gen4 | IsaGen::G45 => {
            format!("send ({lanes}|M0) {dst} m1 r10.0<8;8,1>:ud {text}\n")
        }
        IsaGen::Gen6 => format!("send ({lanes}|M0) {dst} m1 {text}\n"),
        _ => format!("send ({lanes}|M0) {dst} r100 {text}\n"),
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
    let mut h = Harness::new(p);
    h.load_asm(&src)
        .unwrap_or_else(|e| panic!("{p:?}: {e:?}\n{src}"));
    for (i, r) in regs.iter().enumerate() {
        for (d, v) in r.iter().enumerate() {
            h.thread.set_grf_ud(10 + i as u8, d, *v);
        }
    }
    // Marks the response so lanes and channels not written stay visible.
    for r in 40..48u8 {
        for d in 0..8 {
            h.thread.set_grf_ud(r, d, 0xDEAD_BEEF);
        }
    }
    h.thread.set_dispatch_mask(msg.dispatch);
    assert_eq!(h.run_with(gpu, 1000)?, Step::Ended, "{p:?}");
    Ok(core::array::from_fn(|r| {
        core::array::from_fn(|d| h.thread.grf_ud(40 + r as u8, d))
    }))
}

/// `run` that must succeed.
pub fn ok(gpu: &mut MemoryUnits, msg: &Msg) -> [[u32; 4]; 16] {
    run(gpu, msg).unwrap_or_else(|e| panic!("{:?} {msg:?}: {e:?}", platform(gpu)))
}

/// `run` that must be refused with a message containing `why`.
pub fn refused(gpu: &mut MemoryUnits, msg: &Msg, why: &str) {
    match run(gpu, msg) {
        Err(EuError {
            kind: ErrorKind::SharedFunction(m),
            ..
        }) => assert!(m.contains(why), "{:?}: {m:?} lacks {why:?}", platform(gpu)),
        other => panic!(
            "{:?} {msg:?}: {other:?}, expected a refusal for {why}",
            platform(gpu)
        ),
    }
}

/// The four channels of a lane as floats.
pub fn floats(t: [u32; 4]) -> [f32; 4] {
    t.map(f32::from_bits)
}

/// UNORM8 to float, as the sampler converts it (000 line 3945: UNORM
/// returns FLOAT32): `k / 255`.
pub fn unorm(k: u8) -> f64 {
    f64::from(k) / 255.0
}

/// Asserts `got` within 1e-6 of `want` (the filtered value is rounded to
/// float once; the expected one is computed in double precision).
pub fn close(got: f32, want: f64, what: &str) {
    assert!(
        (f64::from(got) - want).abs() <= 1e-6,
        "{what}: got {got}, want {want}"
    );
}
