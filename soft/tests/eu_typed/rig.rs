//! The test rig: memory with a binding table, SURFACE_STATE and a
//! surface area; kernels of `send`s with preloaded payloads run through
//! the EU harness; the expected bytes of the formats and layouts used.

use baregpu_isa::IsaGen;
use baregpu_isa::message;
use baregpu_soft::eu::shared::surface::format;
use baregpu_soft::eu::shared::{BindingTable, FlatMemory, MemoryUnits, Tiling};
use baregpu_soft::eu::{ErrorKind, EuError, Harness, Step};

pub const GENS: [IsaGen; 2] = [IsaGen::Gen7, IsaGen::Gen75];

pub const MEM: u64 = 0x20_0000;
pub const MEM_LEN: usize = 0x4_0000;
/// Binding table: entry i a Surface State Base relative pointer in bits
/// 31:5 (003 lines 75392-75410). BTI 0 is the surface under test, BTI 1 a
/// SURFTYPE_NULL.
pub const TABLE: u64 = MEM + 0x100;
pub const SURFACE_STATE_BASE: u64 = MEM + 0x1000;
/// The surface's bytes, all of them compared.
pub const SURF: u64 = MEM + 0x1_0000;
pub const AREA: usize = 0x1_0000;

/// First payload register of send i: r10 + 10 i; its response: r80 + 4 i.
pub const PAY: u8 = 10;
pub const DST: u8 = 80;
/// What response registers hold before a send: disabled slots keep it.
pub const MARK: u32 = 0xABAB_ABAB;

/// SURFACE_STATE Surface Type codes (003 lines 75460-75490).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    D1 = 0,
    D2 = 1,
    D3 = 2,
    Cube = 3,
    Buffer = 4,
}

#[derive(Clone, Copy, Debug)]
pub struct Surf {
    pub kind: Kind,
    pub fmt: u32,
    /// Width, height, depth; a buffer's entry count in `w`.
    pub w: u32,
    pub h: u32,
    pub d: u32,
    /// Row pitch; a buffer's entry size.
    pub pitch: u32,
    pub tiling: Tiling,
}

impl Surf {
    pub fn two_d(fmt: u32, w: u32, h: u32, pitch: u32, tiling: Tiling) -> Surf {
        Surf {
            kind: Kind::D2,
            fmt,
            w,
            h,
            d: 1,
            pitch,
            tiling,
        }
    }

    /// Bytes per element of the formats used here (003 lines 76425-76528).
    pub fn bpp(&self) -> u64 {
        match self.fmt {
            format::R32G32B32A32_FLOAT | format::R32G32B32A32_UINT => 16,
            format::R32G32B32_FLOAT => 12,
            format::R8_UINT => 1,
            format::R16_UINT => 2,
            _ => 4,
        }
    }

    /// Offset of byte `xb` of row `y` by the tiling function of 003 lines
    /// 7400-7463: X tiles 512 bytes x 8 rows, Y tiles 128 bytes x 32 rows
    /// in 16-byte columns, 4 KB each; linear `y * pitch + xb`.
    pub fn offset(&self, xb: u64, y: u64) -> u64 {
        let pitch = u64::from(self.pitch);
        let (tw, th) = match self.tiling {
            Tiling::Linear => return y * pitch + xb,
            Tiling::X => (512, 8),
            Tiling::Y => (128, 32),
            Tiling::Tile4 => unreachable!("no Gen7 typed surface is Tile4"),
        };
        let tile = (pitch / tw) * 4096 * (y / th) + 4096 * (xb / tw);
        let (xo, yo) = (xb % tw, y % th);
        tile + match self.tiling {
            Tiling::X => tw * yo + xo,
            _ => th * 16 * (xo / 16) + 16 * yo + xo % 16,
        }
    }

    /// Offset of texel (x, y, z), or None outside. 3D planes of LOD 0 are
    /// stacked, here `h` rows apart (h a multiple of 4, so the alignment
    /// does not matter: 003 lines 6232-6233, 6255-6262).
    pub fn texel(&self, x: u32, y: u32, z: u32) -> Option<usize> {
        let inside = match self.kind {
            Kind::Buffer | Kind::D1 => x < self.w,
            Kind::D2 | Kind::Cube => x < self.w && y < self.h,
            Kind::D3 => x < self.w && y < self.h && z < self.d,
        };
        let row = match self.kind {
            Kind::Buffer => return inside.then(|| (u64::from(x) * u64::from(self.pitch)) as usize),
            Kind::D1 => 0,
            Kind::D2 | Kind::Cube => y,
            Kind::D3 => y + z * self.h,
        };
        inside.then(|| self.offset(u64::from(x) * self.bpp(), u64::from(row)) as usize)
    }

    /// Gen7 SURFACE_STATE [ext: gen7.xml RENDER_SURFACE_STATE]: DW0 31:29
    /// type, 26:18 format, 14 tiled, 13 walk; DW1 base; DW2 29:16 height-1,
    /// 13:0 width-1; DW3 31:21 depth-1, 17:0 pitch-1. Buffers split
    /// entries-1 over width 6:0, height 20:7, depth 26:21.
    pub fn state(&self) -> [u32; 8] {
        let (tiled, walk) = match self.tiling {
            Tiling::Linear => (0, 0),
            Tiling::X => (1, 0),
            Tiling::Y => (1, 1),
            Tiling::Tile4 => unreachable!("no Gen7 typed surface is Tile4"),
        };
        let (w, h, d) = if self.kind == Kind::Buffer {
            let n = self.w - 1;
            (n & 0x7F, n >> 7 & 0x3FFF, n >> 21 & 0x3F)
        } else {
            (self.w - 1, self.h - 1, self.d - 1)
        };
        let mut dw = [0u32; 8];
        dw[0] = (self.kind as u32) << 29 | self.fmt << 18 | tiled << 14 | walk << 13;
        dw[1] = SURF as u32;
        dw[2] = h << 16 | w;
        dw[3] = d << 21 | (self.pitch - 1);
        dw
    }
}

/// Byte i of the surface area before a test.
pub fn pattern(i: usize) -> u8 {
    (i.wrapping_mul(7).wrapping_add(3) & 0xFF) as u8
}

pub fn area_pattern() -> Vec<u8> {
    (0..AREA).map(pattern).collect()
}

pub fn dword_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// The memory units the kernels send to: memory with the binding table
/// (BTI 0 `s`, BTI 1 a SURFTYPE_NULL), SURFACE_STATE and the surface
/// area filled with the pattern, served through SURFACE_STATE in memory.
pub fn new_gpu(p: IsaGen, s: &Surf) -> MemoryUnits {
    let mut mem = FlatMemory::new(MEM, MEM_LEN);
    let mut null = [0u32; 8];
    null[0] = 7 << 29; // SURFTYPE_NULL
    for (bti, (off, dw)) in [(0x40u32, s.state()), (0x80, null)].into_iter().enumerate() {
        for (i, d) in dw.iter().enumerate() {
            assert!(mem.set_dword(SURFACE_STATE_BASE + u64::from(off) + 4 * i as u64, *d));
        }
        assert!(mem.set_dword(TABLE + 4 * bti as u64, off));
    }
    assert!(mem.put(SURF, &area_pattern()));
    let mut gpu = MemoryUnits::new(mem);
    gpu.binding_table = Some(BindingTable {
        platform: p,
        table: TABLE,
        surface_state_base: SURFACE_STATE_BASE,
    });
    gpu
}

/// The surface area's bytes now.
pub fn area(gpu: &MemoryUnits) -> Vec<u8> {
    gpu.memory.get(SURF, AREA).expect("surface area").to_vec()
}

/// The port of the typed messages: Gen7 render cache (SFID 5), Gen7.5
/// data cache 1 (SFID 12) [ext: mesa brw_eu_defines.h].
pub fn port(p: IsaGen) -> (&'static str, &'static str) {
    if p == IsaGen::Gen75 {
        ("dc1", "0xC")
    } else {
        ("rc", "0x5")
    }
}

/// One send of a kernel: `op` the message with its fields (the unit is
/// added), `m8` for the second quarter (8|M8), the payload registers.
pub struct Send {
    pub op: String,
    pub m8: bool,
    pub payload: Vec<[u32; 8]>,
    /// First payload register, if not r10 + 10 i.
    pub at: Option<u8>,
}

pub fn send(op: impl Into<String>, payload: Vec<[u32; 8]>) -> Send {
    Send {
        op: op.into(),
        m8: false,
        payload,
        at: None,
    }
}

/// The header: M0.7 the slot mask, the rest zero.
pub fn header(mask: u32) -> [u32; 8] {
    [0, 0, 0, 0, 0, 0, 0, mask]
}

pub fn lanes(f: impl Fn(usize) -> u32) -> [u32; 8] {
    core::array::from_fn(f)
}

/// The descriptor immediate: MLEN 28:25, RLEN 24:20, header 19, function
/// 18:0 (003 lines 100890-100919).
pub fn desc(p: IsaGen, text: &str) -> (String, u8) {
    let (_, d) = message::parse_symbolic(p, text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let v =
        u32::from(d.mlen) << 25 | u32::from(d.rlen) << 20 | u32::from(d.header) << 19 | d.function;
    (format!("{v:#x}"), d.rlen)
}

/// Runs `sends` with dispatch mask `dmask`, then ends the thread.
pub fn run(
    p: IsaGen,
    gpu: &mut MemoryUnits,
    sends: &[Send],
    dmask: u32,
) -> (Result<Step, EuError>, Harness) {
    let (unit, sfid) = port(p);
    let mut src = String::new();
    let mut h = Harness::new(p);
    for (i, s) in sends.iter().enumerate() {
        let pay = s.at.unwrap_or(PAY + 10 * i as u8);
        let (d, rlen) = desc(p, &format!("{unit}.{}", s.op));
        let dst = if rlen > 0 {
            format!("r{}:ud", DST + 4 * i as u8)
        } else {
            "null:ud".into()
        };
        let q = if s.m8 { 8 } else { 0 };
        src += &format!("send (8|M{q}) {dst} r{pay} {sfid} {d}\n");
        for (r, v) in s.payload.iter().enumerate() {
            for (k, x) in v.iter().enumerate() {
                h.thread.set_grf_ud(pay + r as u8, k, *x);
            }
        }
        for r in 0..4 {
            for k in 0..8 {
                h.thread.set_grf_ud(DST + 4 * i as u8 + r, k, MARK);
            }
        }
    }
    src += "mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud {NoMask}\n";
    src += "send (8|M0) null:ud r127 0x7 0x02000010 {EOT}\n";
    h.load_asm(&src)
        .unwrap_or_else(|e| panic!("{p:?}: {e:?}\n{src}"));
    h.thread.set_dispatch_mask(dmask);
    let r = h.run_with(gpu, 100);
    (r, h)
}

pub fn run_ok(p: IsaGen, gpu: &mut MemoryUnits, sends: &[Send], dmask: u32) -> Harness {
    let (r, h) = run(p, gpu, sends, dmask);
    assert_eq!(r, Ok(Step::Ended), "{p:?}");
    h
}

/// Response register `r` of send `i`.
pub fn resp(h: &Harness, i: usize, r: usize) -> [u32; 8] {
    lanes(|d| h.thread.grf_ud(DST + 4 * i as u8 + r as u8, d))
}

/// A send that must be refused with an error naming `why`.
pub fn refused(p: IsaGen, gpu: &mut MemoryUnits, s: Send, why: &str) {
    let text = s.op.clone();
    match run(p, gpu, &[s], u32::MAX).0 {
        Err(EuError {
            kind: ErrorKind::SharedFunction(msg),
            ..
        }) => assert!(msg.contains(why), "{p:?} {text}: {msg:?} lacks {why:?}"),
        other => panic!("{p:?} {text}: {other:?}, expected a refusal for {why}"),
    }
}

/// Float to 8-bit UNORM: clamp to [0, 1], scale by 255, round [ext: IGC
/// SCATTER4_TYPED, type conversion table]; test values avoid ties.
pub fn unorm8(bits: u32) -> u8 {
    let f = f64::from(f32::from_bits(bits)).clamp(0.0, 1.0) * 255.0;
    assert!((f.fract() - 0.5).abs() > 1e-3, "{f} is a tie");
    f.round() as u8
}
