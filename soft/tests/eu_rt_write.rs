//! The render-target write on Gen6, Gen7 and Gen7.5, run through the EU
//! harness: kernels assembled from text copy a pixel-shader style R0 and a
//! prepared M1 into the two header registers, add the colour, and `send`
//! to the render cache; the surface is found through a binding table and
//! SURFACE_STATE in memory. Expected memory is built here from the
//! manual's layouts, tiling function and conversion rules, and compared
//! byte for byte over the whole render-target area, so stray writes fail
//! too.
//!
//! Manual references: 003 = Sandy Bridge PRM. Gen7/7.5 keep the Gen6
//! layout [ext: mesa src/intel/compiler/elk/elk_lower_logical_sends.cpp
//! `lower_fb_write_logical_send`]; their SURFACE_STATE bits are from
//! [ext: mesa src/intel/genxml/gen7.xml RENDER_SURFACE_STATE].

use baregpu_isa::IsaGen;
use baregpu_isa::message;
use baregpu_soft::eu::shared::surface::format;
use baregpu_soft::eu::shared::{BindingTable, FlatMemory, MemoryUnits, Tiling};
use baregpu_soft::eu::{ErrorKind, EuError, Harness, Step};

const GENS: [IsaGen; 3] = [IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75];

const MEM: u64 = 0x20_0000;
const MEM_LEN: usize = 0x4_0000;
/// Binding table; entry i holds a Surface State Base relative pointer in
/// bits 31:5 (003 lines 75392-75410).
const TABLE: u64 = MEM + 0x100;
const SURFACE_STATE_BASE: u64 = MEM + 0x1000;
/// The render target's bytes, and how many of them are compared.
const RT: u64 = MEM + 0x1_0000;
const RT_AREA: usize = 0x1_0000;

/// Render cache SFID: 0101 (003 line 100952); the same on Gen7 [ext: mesa
/// brw_eu_defines.h GEN6_SFID_DATAPORT_RENDER_CACHE].
const RC: &str = "0x5";
/// GRFs holding prepared M1 headers and colour registers.
const SRC: u8 = 2;

/// A 2D render target as the test describes it.
#[derive(Clone, Copy, Debug)]
struct Rt {
    fmt: u32,
    w: u32,
    h: u32,
    /// Array size; 1 for a single surface.
    depth: u32,
    pitch: u32,
    tiling: Tiling,
    /// Vertical Line Stride (field mode).
    field: bool,
}

impl Rt {
    fn new(fmt: u32, w: u32, h: u32, pitch: u32, tiling: Tiling) -> Rt {
        Rt {
            fmt,
            w,
            h,
            depth: 1,
            pitch,
            tiling,
            field: false,
        }
    }

    /// Bytes per pixel of the formats used here (003 lines 76425-76528).
    fn bpp(&self) -> u64 {
        match self.fmt {
            format::R32G32B32A32_FLOAT => 16,
            _ => 4,
        }
    }

    /// Offset of byte `xb` of row `y`, by the tiling function of 003 lines
    /// 7400-7463: X tiles 512 bytes x 8 rows, Y tiles 128 bytes x 32 rows
    /// in 16-byte columns, both 4 KB; linear `y * pitch + xb`.
    fn offset(&self, xb: u64, y: u64) -> u64 {
        let pitch = u64::from(self.pitch);
        let (tw, th) = match self.tiling {
            Tiling::Linear => return y * pitch + xb,
            Tiling::X => (512, 8),
            Tiling::Y => (128, 32),
            Tiling::Tile4 => unreachable!("no Gen6-Gen7.5 render target is Tile4"),
        };
        let row_size = (pitch / tw) * 4096;
        let tile = row_size * (y / th) + 4096 * (xb / tw);
        let (xo, yo) = (xb % tw, y % th);
        tile + match self.tiling {
            Tiling::X => tw * yo + xo,
            _ => th * 16 * (xo / 16) + 16 * yo + xo % 16,
        }
    }

    /// SURFACE_STATE dwords of this SURFTYPE_2D on `p`: Gen6 DW0 31:29
    /// type, 26:18 format, 12 vertical line stride; DW1 base; DW2 31:19
    /// height-1, 18:6 width-1; DW3 31:21 depth-1, 19:3 pitch-1, 1 tiled,
    /// 0 tile walk (003 lines 75437, 75549, 75587, 75828, 75872, 75908,
    /// 76040, 76078, 76110, 76143). Gen7 moves tiled/walk to DW0 14/13,
    /// height/width to DW2 29:16/13:0, pitch to DW3 17:0 [ext: gen7.xml].
    fn state(&self, p: IsaGen) -> Vec<u32> {
        let (tiled, walk) = match self.tiling {
            Tiling::Linear => (0, 0),
            Tiling::X => (1, 0),
            Tiling::Y => (1, 1),
            Tiling::Tile4 => unreachable!("no Gen6-Gen7.5 render target is Tile4"),
        };
        let vls = u32::from(self.field);
        let head = 1 << 29 | self.fmt << 18 | vls << 12;
        let base = RT as u32;
        if p >= IsaGen::Gen7 {
            let mut dw = vec![0u32; 8];
            dw[0] = head | tiled << 14 | walk << 13;
            dw[1] = base;
            dw[2] = (self.h - 1) << 16 | (self.w - 1);
            dw[3] = (self.depth - 1) << 21 | (self.pitch - 1);
            dw
        } else {
            let mut dw = vec![0u32; 6];
            dw[0] = head;
            dw[1] = base;
            dw[2] = (self.h - 1) << 19 | (self.w - 1) << 6;
            dw[3] = (self.depth - 1) << 21 | (self.pitch - 1) << 3 | tiled << 1 | walk;
            dw
        }
    }

    /// The stored bytes of a colour sent as `rgba` (003 lines 44889-44990:
    /// UNORM clamped to [0, 1], scaled by 255, rounded; UINT clamped to the
    /// format's range; FLOAT as sent; B8G8R8A8 stores blue first, 003 line
    /// 31552).
    fn stored(&self, rgba: [u32; 4]) -> Vec<u8> {
        match self.fmt {
            format::R8G8B8A8_UNORM => [0, 1, 2, 3].map(|c| unorm8(rgba[c])).to_vec(),
            format::B8G8R8A8_UNORM => [2, 1, 0, 3].map(|c| unorm8(rgba[c])).to_vec(),
            format::R8G8B8A8_UINT => rgba.map(|v| v.min(255) as u8).to_vec(),
            format::R32G32B32A32_FLOAT => rgba.iter().flat_map(|v| v.to_le_bytes()).collect(),
            other => panic!("no expected layout for format {other:#x}"),
        }
    }
}

/// Float to 8-bit UNORM. The manual leaves the rounding of ties open
/// (003 lines 45144-45145), so test colours must not land on one.
fn unorm8(bits: u32) -> u8 {
    let f = f64::from(f32::from_bits(bits)).clamp(0.0, 1.0) * 255.0;
    assert!(
        (f.fract() - 0.5).abs() > 1e-3,
        "test colour {f} is a rounding tie"
    );
    f.round() as u8
}

/// Byte i of the render-target area before a test: a pattern no colour of
/// these tests reproduces everywhere.
fn pattern(i: usize) -> u8 {
    (i.wrapping_mul(7).wrapping_add(3) & 0xFF) as u8
}

/// The memory units the kernels send to: memory with the binding table
/// and surfaces (BTI 0 the render target, BTI 1 a SURFTYPE_NULL), served
/// through SURFACE_STATE in memory.
fn new_gpu(p: IsaGen, rt: &Rt) -> MemoryUnits {
    let mut mem = FlatMemory::new(MEM, MEM_LEN);
    let null = {
        let mut dw = rt.state(p);
        dw[0] = 7 << 29; // SURFTYPE_NULL (003 lines 75483-75490)
        dw
    };
    for (bti, (off, dw)) in [(0x40u32, rt.state(p)), (0x80, null)]
        .into_iter()
        .enumerate()
    {
        for (i, d) in dw.iter().enumerate() {
            assert!(mem.set_dword(SURFACE_STATE_BASE + u64::from(off) + 4 * i as u64, *d));
        }
        assert!(mem.set_dword(TABLE + 4 * bti as u64, off));
    }
    let fill: Vec<u8> = (0..RT_AREA).map(pattern).collect();
    assert!(mem.put(RT, &fill));
    let mut gpu = MemoryUnits::new(mem);
    gpu.binding_table = Some(BindingTable {
        platform: p,
        table: TABLE,
        surface_state_base: SURFACE_STATE_BASE,
    });
    gpu
}

/// The render-target area's bytes now.
fn area(gpu: &MemoryUnits) -> Vec<u8> {
    gpu.memory.get(RT, RT_AREA).expect("RT area").to_vec()
}

/// The render-target area as the manual says it ends up: the pattern,
/// with `stored` bytes at each (x, y) written.
struct Expected {
    rt: Rt,
    bytes: Vec<u8>,
}

impl Expected {
    fn new(rt: Rt) -> Expected {
        Expected {
            rt,
            bytes: (0..RT_AREA).map(pattern).collect(),
        }
    }

    /// A lit pixel: written if inside the surface, dropped outside (003
    /// lines 84865-84867).
    fn pixel(&mut self, x: u32, y: u32, rgba: [u32; 4]) {
        if x >= self.rt.w || y >= self.rt.h {
            return;
        }
        let at = self.rt.offset(u64::from(x) * self.rt.bpp(), u64::from(y)) as usize;
        let v = self.rt.stored(rgba);
        self.bytes[at..at + v.len()].copy_from_slice(&v);
    }
}

/// One render-target write of a kernel: its descriptor text, SIMD width,
/// and the prepared M1 and colour registers.
struct RtSend {
    text: String,
    exec: u8,
    m1: [u32; 8],
    colour: Vec<[u32; 8]>,
}

/// The descriptor immediate of `text`: MLEN 28:25, RLEN 24:20, header
/// present 19, function control 18:0 (003 lines 100890-100919).
fn desc(p: IsaGen, text: &str) -> String {
    let (_, d) = message::parse_symbolic(p, text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let v =
        u32::from(d.mlen) << 25 | u32::from(d.rlen) << 20 | u32::from(d.header) << 19 | d.function;
    format!("{v:#x}")
}

/// A pixel-shader dispatch R0 (003 lines 43960-44045): viewport index 2,
/// render target array index 5, back facing, topology 3, a colour
/// calculator pointer, FFTID 0x2A. None of it changes what is written: the
/// array index is out of range for a single surface and falls back to
/// element 0 (003 lines 85089-85092).
const R0: [u32; 8] = [2 << 27 | 5 << 16 | 1 << 15 | 3, 0x1240, 0, 0, 0, 0x2A, 0, 0];

/// Assembles and runs a kernel that sends each of `sends` (header M0 =
/// R0 with `m0_flags` ORed into dword 0, M1 and colour from GRFs), then
/// ends. Gen6 builds the payload in MRFs from m1, Gen7 in GRFs from r100
/// (it has no MRFs). `flag` predicates the sends on f0.0.
fn run(
    p: IsaGen,
    gpu: &mut MemoryUnits,
    sends: &[RtSend],
    flag: Option<u32>,
    m0_flags: u32,
) -> Result<Step, EuError> {
    let pay = |i: usize| {
        if p >= IsaGen::Gen7 {
            format!("r{}", 100 + i)
        } else {
            format!("m{}", 1 + i)
        }
    };
    let mut src = String::new();
    let mut r0 = R0;
    r0[0] |= m0_flags;
    // GRFs from r2 on, preloaded with each send's M1 and colour.
    let mut regs: Vec<[u32; 8]> = Vec::new();
    let mut preload = |v: [u32; 8]| {
        regs.push(v);
        SRC + (regs.len() - 1) as u8
    };
    for s in sends {
        let mut copy = vec![(0u8, 0usize), (preload(s.m1), 1)];
        for (i, c) in s.colour.iter().enumerate() {
            copy.push((preload(*c), 2 + i));
        }
        for (from, to) in copy {
            src += &format!(
                "mov (8|M0) {}.0<1>:ud r{from}.0<8;8,1>:ud {{NoMask}}\n",
                pay(to)
            );
        }
        let (pred, dst) = (
            if flag.is_some() { "(f0.0) " } else { "" },
            if s.exec == 16 { "null:uw" } else { "null:ud" },
        );
        src += &format!(
            "{pred}send ({}|M0) {dst} {} {RC} {}\n",
            s.exec,
            pay(0),
            desc(p, &s.text)
        );
    }
    // End of thread through the thread spawner, its payload a copy of R0
    // (on Gen7 from r112-r127).
    if p >= IsaGen::Gen7 {
        src += "mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud {NoMask}\n";
        src += "send (8|M0) null:ud r127 0x7 0x02000010 {EOT}\n";
    } else {
        src += "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {NoMask}\n";
        src += "send (8|M0) null:ud m1 0x7 0x02000010 {EOT}\n";
    }
    let mut h = Harness::new(p);
    h.load_asm(&src)
        .unwrap_or_else(|e| panic!("{p:?}: {e:?}\n{src}"));
    for (r, v) in core::iter::once((0, r0)).chain((SRC..).zip(regs)) {
        for (i, d) in v.iter().enumerate() {
            h.thread.set_grf_ud(r, i, *d);
        }
    }
    if let Some(f) = flag {
        h.thread.set_flag(0, f);
    }
    h.run_with(gpu, 1000)
}

fn run_ok(p: IsaGen, gpu: &mut MemoryUnits, sends: &[RtSend], flag: Option<u32>) {
    assert_eq!(run(p, gpu, sends, flag, 0), Ok(Step::Ended), "{p:?}");
}

/// M1: subspan upper-left X in 15:0 and Y in 31:16 in dwords 2-5,
/// dispatched mask 31:16 and pixel enables 15:0 in dword 7 (003 lines
/// 85139-85192). The dispatched mask is only for the scoreboard: all ones.
fn m1(spans: [(u32, u32); 4], enables: u32) -> [u32; 8] {
    let mut r = [0u32; 8];
    for (i, (x, y)) in spans.iter().enumerate() {
        r[2 + i] = y << 16 | x;
    }
    r[7] = 0xFFFF << 16 | enables;
    r
}

/// Pixel of slot `s`: subspan s / 4, pixels UL, UR, LL, LR (003 lines
/// 84870-84900).
fn slot_xy(spans: &[(u32, u32)], s: usize) -> (u32, u32) {
    let (x, y) = spans[s / 4];
    (x + (s % 2) as u32, y + (s % 4 / 2) as u32)
}

/// Colour channel `c` of slot `s` in the single-source tests: k / 255
/// with k distinct per slot and channel, so UNORM stores exactly k.
fn slot_colour(s: usize, c: usize) -> u32 {
    let k = (16 * s + 4 * c + 3) % 256;
    (k as f32 / 255.0).to_bits()
}

#[test]
fn replicated_clear_fills_a_rectangle() {
    // The clear rectangle [5, 23) x [3, 10) over a 21 x 9 surface: partial
    // subspans on every edge take partial enables, and the lit pixels past
    // column 20 and row 8 land in tile padding unless dropped.
    let (x0, x1, y0, y1) = (5u32, 23u32, 3u32, 10u32);
    let unorm = [0.25f32, 0.6, 1.7, -0.4].map(f32::to_bits);
    let float = [0.25f32, 0.6, 0.125, 1.0].map(f32::to_bits);
    let targets = [
        (
            Rt::new(format::B8G8R8A8_UNORM, 21, 9, 512, Tiling::X),
            unorm,
        ),
        (
            Rt::new(format::R8G8B8A8_UNORM, 21, 9, 128, Tiling::Y),
            unorm,
        ),
        // 128-bit formats may not be Y-major (003 line 75563).
        (
            Rt::new(format::R32G32B32A32_FLOAT, 21, 9, 512, Tiling::X),
            float,
        ),
    ];
    for p in GENS {
        for (rt, rgba) in targets {
            let mut gpu = new_gpu(p, &rt);
            let mut want = Expected::new(rt);
            // Subspans covering the rectangle, four per message.
            let spans: Vec<(u32, u32)> = (y0 / 2..y1.div_ceil(2))
                .flat_map(|sy| (x0 / 2..x1.div_ceil(2)).map(move |sx| (2 * sx, 2 * sy)))
                .collect();
            assert_eq!(spans.len() % 4, 0);
            let mut sends = Vec::new();
            for group in spans.chunks(4) {
                let mut enables = 0;
                for s in 0..16 {
                    let (x, y) = slot_xy(group, s);
                    if (x0..x1).contains(&x) && (y0..y1).contains(&y) {
                        enables |= 1 << s;
                        want.pixel(x, y, rgba);
                    }
                }
                // Dwords 4-7 of the colour register are reserved (003
                // lines 85579-85591): junk there must not matter.
                let colour = [rgba[0], rgba[1], rgba[2], rgba[3], 0xDEAD, 1, 2, 3];
                sends.push(RtSend {
                    text: "rc.rt_write(bti=0, mode=simd16_rep, last) mlen=3 rlen=0 hdr".into(),
                    exec: 16,
                    m1: m1([group[0], group[1], group[2], group[3]], enables),
                    colour: vec![colour],
                });
            }
            run_ok(p, &mut gpu, &sends, None);
            assert!(area(&gpu) == want.bytes, "{p:?} {rt:?}");
        }
    }
}

#[test]
fn simd16_single_source_writes_each_lit_slot() {
    // Subspan 3 straddles the bottom-right corner: of its four pixels only
    // the upper left is inside.
    let spans = [(0, 0), (4, 2), (2, 4), (11, 5)];
    let enables = 0b1011_0111_1110_1101u32;
    let targets = [
        Rt::new(format::R32G32B32A32_FLOAT, 12, 6, 256, Tiling::Linear),
        Rt::new(format::R8G8B8A8_UNORM, 12, 6, 128, Tiling::Y),
    ];
    for p in GENS {
        for rt in targets {
            let mut gpu = new_gpu(p, &rt);
            let mut want = Expected::new(rt);
            // R(slots 7:0), R(15:8), G, G, B, B, A, A (003 lines
            // 85474-85527).
            let colour: Vec<[u32; 8]> = (0..8)
                .map(|r| core::array::from_fn(|d| slot_colour(8 * (r % 2) + d, r / 2)))
                .collect();
            for s in (0..16).filter(|s| enables >> s & 1 != 0) {
                let (x, y) = slot_xy(&spans, s);
                want.pixel(x, y, core::array::from_fn(|c| slot_colour(s, c)));
            }
            let send = RtSend {
                text: "rc.rt_write(bti=0, mode=simd16, last) mlen=10 rlen=0 hdr".into(),
                exec: 16,
                m1: m1(spans, enables),
                colour,
            };
            // The execution mask is ignored (003 lines 84862-84863): the
            // send runs with channels 8-15 predicated off.
            run_ok(p, &mut gpu, &[send], Some(0x00FF));
            assert!(area(&gpu) == want.bytes, "{p:?} {rt:?}");
        }
    }
}

#[test]
fn simd8_single_source_in_either_slot_group() {
    // With a header, positions and enables come from it; Slot Group Select
    // only picks bypassed antialias/coverage data (003 lines 84957-84961),
    // so both groups write the same pixels.
    let spans = [(2, 0), (7, 3)];
    let enables = 0b1011_1101u32;
    let rt = Rt::new(format::R8G8B8A8_UINT, 8, 4, 64, Tiling::Linear);
    // UINT channels above 255 clamp (003 lines 44987-44989).
    let value = |s: usize, c: usize| -> u32 {
        match c {
            0 => 300 + s as u32,
            1 => s as u32,
            2 => 70_000,
            _ => 254 - s as u32,
        }
    };
    for p in GENS {
        for group in ["", ", slot_hi"] {
            let mut gpu = new_gpu(p, &rt);
            let mut want = Expected::new(rt);
            // R, G, B, A for slots 7:0 (003 lines 85529-85560).
            let colour: Vec<[u32; 8]> = (0..4)
                .map(|c| core::array::from_fn(|s| value(s, c)))
                .collect();
            for s in (0..8).filter(|s| enables >> s & 1 != 0) {
                let (x, y) = slot_xy(&spans, s);
                want.pixel(x, y, core::array::from_fn(|c| value(s, c)));
            }
            let send = RtSend {
                text: format!("rc.rt_write(bti=0, mode=simd8_lo, last{group}) mlen=6 rlen=0 hdr"),
                exec: 8,
                // Enables above slot 7 are not the message's: set, unused.
                m1: m1([spans[0], spans[1], (0, 0), (0, 0)], enables | 0xFF00),
                colour,
            };
            run_ok(p, &mut gpu, &[send], None);
            assert!(area(&gpu) == want.bytes, "{p:?}{group}");
        }
    }
}

#[test]
fn a_null_surface_takes_the_write() {
    let rt = Rt::new(format::R8G8B8A8_UNORM, 8, 8, 64, Tiling::Linear);
    for p in GENS {
        let mut gpu = new_gpu(p, &rt);
        let send = RtSend {
            text: "rc.rt_write(bti=1, mode=simd16_rep, last) mlen=3 rlen=0 hdr".into(),
            exec: 16,
            m1: m1([(0, 0), (2, 0), (4, 0), (6, 0)], 0xFFFF),
            colour: vec![[0x3F80_0000; 8]],
        };
        run_ok(p, &mut gpu, &[send], None);
        assert!(area(&gpu) == Expected::new(rt).bytes, "{p:?}");
    }
}

/// Runs one refused send with `m0_flags` in M0.0 and checks that the
/// error names `why` and that nothing was written.
fn refused(p: IsaGen, rt: Rt, send: RtSend, m0_flags: u32, why: &str) {
    let mut gpu = new_gpu(p, &rt);
    let text = send.text.clone();
    match run(p, &mut gpu, &[send], None, m0_flags) {
        Err(EuError {
            kind: ErrorKind::SharedFunction(msg),
            ..
        }) => assert!(msg.contains(why), "{p:?} {text}: {msg:?} lacks {why:?}"),
        other => panic!("{p:?} {text}: {other:?}, expected a refusal for {why}"),
    }
    assert!(area(&gpu) == Expected::new(rt).bytes, "{p:?} {text} wrote");
}

fn simd8(text: &str, regs: usize) -> RtSend {
    RtSend {
        text: text.into(),
        exec: 8,
        m1: m1([(0, 0), (2, 0), (0, 0), (0, 0)], 0xFF),
        colour: vec![[0x3F00_0000; 8]; regs],
    }
}

#[test]
fn headerless_messages_are_refused() {
    // Without a header the positions are the PS dispatch's (003 lines
    // 85008-85010), which the harness does not have.
    let rt = Rt::new(format::R8G8B8A8_UNORM, 8, 8, 64, Tiling::X);
    for p in GENS {
        // No header: the four registers are all colour (003 lines
        // 85724-85726); what this kernel puts in them does not matter, as
        // the message is refused before any is read.
        let send = simd8("rc.rt_write(bti=0, mode=simd8_lo, last) mlen=4 rlen=0", 2);
        refused(p, rt, send, 0, "without a header");
    }
}

#[test]
fn unmodelled_forms_are_refused() {
    let linear = Rt::new(format::R8G8B8A8_UNORM, 8, 8, 64, Tiling::Linear);
    let tiled = Rt::new(format::R8G8B8A8_UNORM, 8, 8, 512, Tiling::X);
    let array = Rt { depth: 2, ..tiled };
    let field = Rt {
        field: true,
        ..tiled
    };
    // A message of `mlen` registers: header and mlen - 2 others.
    let msg = |mode: &str, bti: u32, mlen: usize| {
        let t = format!("rc.rt_write(bti={bti}, mode={mode}) mlen={mlen} rlen=0 hdr");
        simd8(&t, mlen - 2)
    };
    for p in GENS {
        let mut cases = vec![
            // Header flags in M0.0 (003 lines 85103-85133), each with the
            // length of its sequencing row (003 lines 85758-85793).
            (linear, msg("simd8_lo", 0, 7), 1 << 13, "source depth"),
            (linear, msg("simd8_lo", 0, 7), 1 << 12, "oMask"),
            (linear, msg("simd8_lo", 0, 7), 1 << 11, "source 0 alpha"),
            (linear, msg("simd8_lo", 0, 6), 1 << 6, "per-sample"),
            // Header + source 0 RGBA + source 1 RGBA (003 lines
            // 85599-85640).
            (linear, msg("simd8_dual_lo", 0, 10), 0, "dual source"),
            (linear, msg("simd8_dual_hi", 0, 10), 0, "dual source"),
            // Replicated data on linear memory is undefined (003 lines
            // 84978-84979).
            (linear, msg("simd16_rep", 0, 3), 0, "linear"),
            // A length that is no sequencing row.
            (linear, msg("simd8_lo", 0, 7), 0, "length"),
            // BTI 255 is the stateless model, not allowed (003 line 84839).
            (linear, msg("simd8_lo", 255, 6), 0, "stateless"),
            (array, msg("simd8_lo", 0, 6), 0, "arrays"),
            // Field mode is not allowed (003 line 84848).
            (field, msg("simd8_lo", 0, 6), 0, "field"),
        ];
        if p == IsaGen::Gen6 {
            // The image write's M0.0 26:16 is an array index that must
            // be 0 on a 2D surface (003 lines 85287-85289); R0's is 5.
            cases.push((linear, msg("simd8_image", 0, 6), 0, "array index"));
        }
        for (rt, send, flags, why) in cases {
            refused(p, rt, send, flags, why);
        }
    }
}
