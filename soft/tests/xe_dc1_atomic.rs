//! The legacy dc1 untyped atomics of Gen12.5 threads (`XeHarness` against
//! `eu::shared::xe::XeUnits` over a host byte array): the A64 integer
//! atomic (type 12h, 32- and 64-bit data), the surface form (02h) on SLM,
//! stateless and a buffer, the float atomics (1Dh, 1Bh), every operation
//! code with and without return data, lanes predicated off, lanes
//! contending for one address, faults and refusals. The expected values
//! come from a host model keyed by the operation *code*, written from
//! Mesa brw_eu_defines.h `BRW_AOP_*` and iga64's names, not from the
//! model's tables. `descriptors_read_as_iga64_reads_them` checks that the
//! model's reading of each descriptor (operation, data width, lanes) is
//! iga64's (-p=12p71).

#![allow(clippy::needless_range_loop)]

use baregpu_isa::message::AtomicOp;
use baregpu_isa::message::xe_hdc::{Dc1, FloatAtomic, UntypedAtomic};
use baregpu_soft::eu::ErrorKind;
use baregpu_soft::eu::shared::FlatMemory;
use baregpu_soft::eu::shared::xe::{XeUnits, surface};
use baregpu_soft::eu::xe::XeHarness;

const BASE: u64 = 0x1_2340_0000;
const SIZE: usize = 0x10000;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn units(seed: u64) -> XeUnits {
    let mut m = FlatMemory::new(BASE, SIZE);
    let mut r = Rng(seed | 1);
    for b in m.bytes.iter_mut() {
        *b = r.next() as u8;
    }
    let mut u = XeUnits::new(m);
    u.state.general_state_base = BASE;
    u.slm = (0..4096).map(|_| r.next() as u8).collect();
    u
}

fn harness(src: &str) -> XeHarness {
    let mut h = XeHarness::new();
    h.load_asm(src).unwrap_or_else(|e| panic!("{src}: {e:?}"));
    h.thread.check_swsb = false;
    h
}

fn set_bytes(h: &mut XeHarness, reg: u8, off: usize, v: &[u8]) {
    let at = usize::from(reg) * 32 + off;
    h.thread.thread.grf_mut()[at..at + v.len()].copy_from_slice(v);
}

fn bytes(h: &XeHarness, reg: u8, off: usize, n: usize) -> Vec<u8> {
    let at = usize::from(reg) * 32 + off;
    h.thread.thread.grf()[at..at + n].to_vec()
}

fn le(b: &[u8]) -> u64 {
    let mut v = [0u8; 8];
    v[..b.len()].copy_from_slice(b);
    u64::from_le_bytes(v)
}

fn regs(bytes: usize) -> usize {
    bytes.div_ceil(32).max(1)
}

/// The integer operations by MDC_AOP code: iga64's name and the sources
/// a lane sends (Mesa brw_eu_defines.h BRW_AOP_AND 1 .. BRW_AOP_PREDEC
/// 15; INC, DEC and PREDEC send none, CMPWR two).
const INT_OPS: [(u8, &str, usize); 15] = [
    (1, "logical AND", 1),
    (2, "logical OR", 1),
    (3, "logical XOR", 1),
    (4, "store", 1),
    (5, "integer increment", 0),
    (6, "integer decrement", 0),
    (7, "integer add", 1),
    (8, "integer subtract", 1),
    (9, "commuted integer subtract", 1),
    (10, "signed-integer max", 1),
    (11, "signed-integer min", 1),
    (12, "unsigned-integer max", 1),
    (13, "unsigned-integer min", 1),
    (14, "integer compare and swap", 2),
    (15, "integer pre-decrement (returns pre-decrement value)", 0),
];

/// The float operations by MDC_FOP code (Mesa BRW_AOP_FMAX 1, FMIN 2,
/// FCMPWR 3, FADD 4; iga64's "subtract" 5), with iga64's names.
const FLOAT_OPS: [(u8, &str, usize); 5] = [
    (1, "max (32b)", 1),
    (2, "min (32b)", 1),
    (3, "fp-compare and swap  (32b)", 2),
    (4, "add (32b)", 1),
    (5, "subtract (32b)", 1),
];

/// The host's integer atomic of `code` at `bits`: (new memory, returned).
fn host_int(code: u8, bits: u32, old: u64, a: u64, b: u64) -> (u64, u64) {
    let m = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let s = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
    let new = match code {
        1 => old & a,
        2 => old | a,
        3 => old ^ a,
        4 => a,
        5 => old.wrapping_add(1),
        6 | 15 => old.wrapping_sub(1),
        7 => old.wrapping_add(a),
        8 => old.wrapping_sub(a),
        9 => a.wrapping_sub(old),
        10 => {
            if s(a) > s(old) {
                a
            } else {
                old
            }
        }
        11 => {
            if s(a) < s(old) {
                a
            } else {
                old
            }
        }
        12 => old.max(a),
        13 => old.min(a),
        14 => {
            if old == a {
                b
            } else {
                old
            }
        }
        _ => unreachable!(),
    } & m;
    (new, if code == 15 { new } else { old })
}

/// The host's float atomic of `code`: (new memory or none, returned).
fn host_float(code: u8, old: u64, a: u64, b: u64) -> (Option<u64>, u64) {
    let f = |v: u64| f32::from_bits(v as u32);
    let fb = |v: f32| u64::from(v.to_bits());
    let new = match code {
        // minNum/maxNum: a NaN gives the other operand; -0 < +0.
        1 | 2 => {
            let (x, y) = (f(old), f(a));
            let max = code == 1;
            let pick = if x.is_nan() {
                y
            } else if y.is_nan() {
                x
            } else if x == y {
                if x.is_sign_negative() != max { x } else { y }
            } else if (x < y) != max {
                x
            } else {
                y
            };
            Some(fb(pick))
        }
        3 => (f(old) == f(a)).then_some(b),
        4 => Some(fb(f(old) + f(a))),
        5 => Some(fb(f(old) - f(a))),
        _ => unreachable!(),
    };
    (new, old)
}

/// Few distinct integers, so that compares match now and then, and the
/// signed extremes.
fn int_operand(r: &mut Rng, bits: u32) -> u64 {
    let v = r.next();
    let top = 1u64 << (bits - 1);
    match v % 7 {
        0..=2 => v >> 8 & 3,
        3 => top,
        4 => top - 1,
        _ => r.next(),
    }
}

fn float_operand(r: &mut Rng) -> u64 {
    let special = [
        0x7FC0_0000u32,
        0x0000_0000,
        0x8000_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x3F80_0000,
    ];
    let v = r.next();
    if v.is_multiple_of(3) {
        u64::from(special[(v >> 8) as usize % special.len()])
    } else {
        u64::from(f32::to_bits(((v >> 16) as u16) as f32 / 64.0 - 512.0))
    }
}

/// Where the atomics land.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    /// A64 addresses.
    A64,
    /// Binding-table index 254.
    Slm,
    /// Binding-table index 255: offsets from General State Base.
    Stateless,
    /// A buffer of `size` bytes at memory offset `at` (binding-table
    /// index 5): lanes past its end read 0 and write nothing.
    Buffer { at: usize, size: usize },
}

/// One message of `desc` (function bits) over `lanes` lanes of `bytes`
/// data, `k` operands, predicated by `pred`: checks the returned values,
/// the untouched lanes and the memory against the host run lane by lane.
#[allow(clippy::too_many_arguments)]
fn check_message(
    rng: &mut Rng,
    desc: u32,
    place: Place,
    lanes: usize,
    bytes_per: usize,
    k: usize,
    returns: bool,
    float: bool,
    host: &dyn Fn(u64, u64, u64) -> (Option<u64>, u64),
) {
    let mut u = units(rng.next());
    let abytes = if place == Place::A64 { 8 } else { 4 };
    let alen = regs(lanes * abytes);
    let dr = regs(lanes * bytes_per);
    let rlen = if returns { dr } else { 0 };
    let pred: u32 = 0xB7D5 & ((1 << lanes) - 1);
    let d = desc | (alen as u32) << 25 | (rlen as u32) << 20;
    let dst = if returns { "r40" } else { "null" };
    let src1 = if k > 0 {
        format!("r50:{}", k * dr)
    } else {
        "null:0".to_string()
    };
    let src = format!(
        "mov (1|M0) f0.0<1>:uw 0x{pred:x}:uw\n(f0.0) send.dc1 ({lanes}|M0) {dst} r20 {src1} 0x0 0x{d:08X}\n"
    );
    let mut h = harness(&src);
    if let Place::Buffer { at, size } = place {
        u.state.surface_state_base = BASE;
        u.state.binding_table = BASE + 0xF000;
        for (i, w) in surface::encode_buffer(BASE + at as u64, size as u64)
            .iter()
            .enumerate()
        {
            u.memory.set_dword(BASE + 0xE000 + 4 * i as u64, *w);
        }
        u.memory.set_dword(BASE + 0xF000 + 4 * 5, 0xE000);
    }
    // Lanes on four addresses (several lanes on each), element-aligned;
    // in a buffer, the last address lies past its end.
    let slots: Vec<u64> = (0..4).map(|i| 0x100 + 0x48 * i as u64).collect();
    let offs: Vec<u64> = (0..lanes)
        .map(|n| match place {
            Place::Buffer { size, .. } if n % 4 == 3 => size as u64 + 8,
            _ => slots[(n * 5 + n / 3) % 4],
        })
        .collect();
    for (n, o) in offs.iter().enumerate() {
        match place {
            Place::A64 => set_bytes(&mut h, 20, n * 8, &(BASE + o).to_le_bytes()),
            _ => set_bytes(&mut h, 20, n * 4, &(*o as u32).to_le_bytes()),
        }
    }
    let pick = |r: &mut Rng| -> u64 {
        if float {
            float_operand(r)
        } else {
            int_operand(r, 8 * bytes_per as u32)
        }
    };
    // Start memory at the slots from the operands' values too.
    let mut mem: Vec<u8> = match place {
        Place::Slm => u.slm.clone(),
        _ => u.memory.bytes.clone(),
    };
    let mem_at = |o: u64| -> Option<usize> {
        match place {
            Place::Buffer { at, size } => {
                (o as usize + bytes_per <= size).then_some(at + o as usize)
            }
            _ => Some(o as usize),
        }
    };
    for o in &slots {
        let v = pick(rng);
        if let Some(i) = mem_at(*o) {
            mem[i..i + bytes_per].copy_from_slice(&v.to_le_bytes()[..bytes_per]);
        }
    }
    match place {
        Place::Slm => u.slm.copy_from_slice(&mem),
        _ => u.memory.bytes.copy_from_slice(&mem),
    }
    let mask = if bytes_per == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * bytes_per)) - 1
    };
    let mut ops = vec![[0u64; 2]; lanes];
    for j in 0..k {
        for (n, op) in ops.iter_mut().enumerate() {
            let v = pick(rng) & mask;
            op[j] = v;
            set_bytes(
                &mut h,
                50,
                j * dr * 32 + n * bytes_per,
                &v.to_le_bytes()[..bytes_per],
            );
        }
    }
    for r in 40..40 + dr as u8 {
        for i in 0..8 {
            h.set_grf_ud(r, i, 0xDEAD_0000 + i as u32);
        }
    }
    let before = bytes(&h, 40, 0, dr * 32);
    // The host, lane by lane in channel order.
    let mut rets = vec![None; lanes];
    for n in 0..lanes {
        if pred >> n & 1 == 0 {
            continue;
        }
        let (old, at) = match mem_at(offs[n]) {
            Some(i) => (le(&mem[i..i + bytes_per]), Some(i)),
            None => (0, None),
        };
        let (new, ret) = host(old, ops[n][0], ops[n][1]);
        if let (Some(v), Some(i)) = (new, at) {
            mem[i..i + bytes_per].copy_from_slice(&v.to_le_bytes()[..bytes_per]);
        }
        rets[n] = Some(ret);
    }
    h.run_with(&mut u, 10)
        .unwrap_or_else(|e| panic!("{src}: {e}"));
    let got_mem = match place {
        Place::Slm => &u.slm,
        _ => &u.memory.bytes,
    };
    assert!(*got_mem == mem, "{src} {place:?}: memory");
    for n in 0..lanes {
        let at = n * bytes_per;
        let got = le(&bytes(&h, 40, at, bytes_per));
        let want = match rets[n] {
            Some(r) if returns => r,
            _ => le(&before[at..at + bytes_per]),
        };
        assert_eq!(got, want, "{src} {place:?}: lane {n}");
    }
}

fn int_desc(a64: bool, bti: u8, op: u8, bit12: bool, returns: bool) -> u32 {
    Dc1::Atomic(UntypedAtomic {
        a64,
        word: false,
        bti,
        op,
        bit12,
        returns,
        header: false,
        packed_address: false,
        packed_data: false,
    })
    .encode()
    .unwrap()
}

fn float_desc(a64: bool, bti: u8, op: u8, simd8: bool, returns: bool) -> u32 {
    Dc1::FloatAtomic(FloatAtomic {
        a64,
        half: false,
        bti,
        op,
        wide: false,
        simd_bit: simd8,
        returns,
        header: false,
        packed_address: false,
        packed_data: false,
    })
    .encode()
    .unwrap()
}

/// The A64 integer atomic: every code, dword and qword data (bit 12),
/// with and without return, SIMD8 with lanes off and lanes contending.
#[test]
fn a64_integer_every_operation_width_and_return() {
    let mut rng = Rng(0xA64_A70);
    let mut runs = 0;
    for (code, _, k) in INT_OPS {
        for qword in [false, true] {
            for returns in [false, true] {
                let bits = if qword { 64 } else { 32 };
                let desc = int_desc(true, 0xFF, code, qword, returns);
                let host = |o, a, b| {
                    let (n, r) = host_int(code, bits, o, a, b);
                    (Some(n), r)
                };
                check_message(
                    &mut rng,
                    desc,
                    Place::A64,
                    8,
                    bits as usize / 8,
                    k,
                    returns,
                    false,
                    &host,
                );
                runs += 1;
            }
        }
    }
    assert_eq!(runs, 15 * 2 * 2);
}

/// The surface form (02h): every code on SLM in SIMD16 (bit 12 clear)
/// and SIMD8 (set), and through the stateless index and a buffer whose
/// end cuts some lanes.
#[test]
fn surface_integer_every_operation_and_place() {
    let mut rng = Rng(0x5_1A70);
    for (code, _, k) in INT_OPS {
        let host = |o, a, b| {
            let (n, r) = host_int(code, 32, o, a, b);
            (Some(n), r)
        };
        for (place, bti, simd8) in [
            (Place::Slm, 254, false),
            (Place::Slm, 254, true),
            (Place::Stateless, 255, false),
            (
                Place::Buffer {
                    at: 0x4000,
                    size: 0x200,
                },
                5,
                true,
            ),
        ] {
            let returns = code % 2 == 0 || place == Place::Slm;
            let desc = int_desc(false, bti, code, simd8, returns);
            let lanes = if simd8 { 8 } else { 16 };
            check_message(&mut rng, desc, place, lanes, 4, k, returns, false, &host);
        }
    }
}

/// The float atomics, A64 (SIMD8) and on SLM (SIMD16 and SIMD8), every
/// code with and without return, NaNs and signed zeros among the values.
#[test]
fn float_every_operation() {
    let mut rng = Rng(0xF_A70);
    for (code, _, k) in FLOAT_OPS {
        let host = |o, a, b| host_float(code, o, a, b);
        for returns in [false, true] {
            for _ in 0..3 {
                check_message(
                    &mut rng,
                    float_desc(true, 0xFF, code, false, returns),
                    Place::A64,
                    8,
                    4,
                    k,
                    returns,
                    true,
                    &host,
                );
            }
            for simd8 in [false, true] {
                check_message(
                    &mut rng,
                    float_desc(false, 254, code, simd8, returns),
                    Place::Slm,
                    if simd8 { 8 } else { 16 },
                    4,
                    k,
                    returns,
                    true,
                    &host,
                );
            }
        }
    }
}

/// Eight lanes incrementing one address see each other in lane order:
/// lane n gets the start value plus n (IGC's histogram relies on every
/// increment landing, the order is the hardware's lower lane first).
#[test]
fn lanes_on_one_address_run_lowest_first() {
    let mut u = units(7);
    let desc = int_desc(true, 0xFF, 5, false, true) | 2 << 25 | 1 << 20;
    let mut h = harness(&format!(
        "send.dc1 (8|M0) r40 r20 null:0 0x0 0x{desc:08X}\n"
    ));
    for n in 0..8 {
        set_bytes(&mut h, 20, n * 8, &(BASE + 0x40).to_le_bytes());
    }
    u.memory.set_dword(BASE + 0x40, 100);
    h.run_with(&mut u, 10).unwrap();
    for n in 0..8 {
        assert_eq!(h.grf_ud(40, n), 100 + n as u32, "lane {n}");
    }
    assert_eq!(u.memory.bytes[0x40..0x44], 108u32.to_le_bytes());
    // A compare-and-swap chain: lane n swaps n for n + 1, so every lane
    // matches only after the lanes below it ran.
    let desc = int_desc(true, 0xFF, 14, false, true) | 2 << 25 | 1 << 20;
    let mut h = harness(&format!("send.dc1 (8|M0) r40 r20 r50:2 0x0 0x{desc:08X}\n"));
    for n in 0..8 {
        set_bytes(&mut h, 20, n * 8, &(BASE + 0x80).to_le_bytes());
        h.set_grf_ud(50, n, n as u32);
        h.set_grf_ud(51, n, n as u32 + 1);
    }
    u.memory.set_dword(BASE + 0x80, 0);
    h.run_with(&mut u, 10).unwrap();
    for n in 0..8 {
        assert_eq!(h.grf_ud(40, n), n as u32, "lane {n}");
    }
    assert_eq!(u.memory.bytes[0x80..0x84], 8u32.to_le_bytes());
}

/// A lane on an address outside memory faults naming it; the lanes below
/// it are done, those above it are not (the LSC and A64 paths' rule).
#[test]
fn a64_fault_names_the_address_and_stops_there() {
    let mut u = units(9);
    let desc = int_desc(true, 0xFF, 7, true, false) | 2 << 25;
    let mut h = harness(&format!(
        "send.dc1 (8|M0) null r20 r50:2 0x0 0x{desc:08X}\n"
    ));
    for n in 0..8 {
        let a = if n == 3 {
            0xDEAD_0000_0000
        } else {
            BASE + 0x200 + 8 * n as u64
        };
        set_bytes(&mut h, 20, n * 8, &a.to_le_bytes());
        set_bytes(&mut h, 50, n * 8, &1u64.to_le_bytes());
    }
    let before = u.memory.bytes.clone();
    let e = h.run_with(&mut u, 10).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::MemoryFault {
            addr: 0xDEAD_0000_0000,
            len: 8,
            write: false
        }
    );
    for n in 0..8 {
        let o = 0x200 + 8 * n;
        let was = le(&before[o..o + 8]);
        let want = if n < 3 { was.wrapping_add(1) } else { was };
        assert_eq!(le(&u.memory.bytes[o..o + 8]), want, "lane {n}");
    }
}

/// What the model does not serve is an error naming it, not a panic.
#[test]
fn refusals_name_what_is_missing() {
    let word = Dc1::Atomic(UntypedAtomic {
        a64: true,
        word: true,
        bti: 0xFF,
        op: 7,
        bit12: false,
        returns: false,
        header: false,
        packed_address: false,
        packed_data: false,
    })
    .encode()
    .unwrap();
    let wide_float = Dc1::FloatAtomic(FloatAtomic {
        a64: true,
        half: false,
        bti: 0xFF,
        op: 4,
        wide: true,
        simd_bit: false,
        returns: false,
        header: false,
        packed_address: false,
        packed_data: false,
    })
    .encode()
    .unwrap();
    let cases = [
        (8, word, "word"),
        (8, int_desc(true, 0xFF, 0, false, false), "operation 0"),
        (8, wide_float, "data width"),
        (
            8,
            float_desc(true, 0xFF, 6, false, false),
            "operations 6 and 7",
        ),
        (8, float_desc(true, 0xFF, 1, true, false), "only SIMD8"),
        (16, int_desc(true, 0xFF, 7, false, false), "SIMD8"),
        (
            8,
            int_desc(true, 0xFF, 7, false, false) & !(0x1F << 25) | 1 << 25,
            "message length",
        ),
    ];
    for (exec, desc, why) in cases {
        let mut u = units(3);
        let d = if desc >> 25 == 0 {
            desc | 2 << 25
        } else {
            desc
        };
        let mut h = harness(&format!(
            "send.dc1 ({exec}|M0) null r20 r50:2 0x0 0x{d:08X}\n"
        ));
        for n in 0..16 {
            set_bytes(&mut h, 20, n * 8, &(BASE + 8 * n as u64).to_le_bytes());
        }
        let before = u.memory.bytes.clone();
        let e = h.run_with(&mut u, 10).unwrap_err();
        assert!(format!("{e}").contains(why), "{why}: {e}");
        assert!(u.memory.bytes == before, "{why}: memory untouched");
    }
}

/// A reading of a descriptor: operation symbol, address bits, data bits,
/// channels, and whether the atomic returns data.
type Reading = (String, u32, u32, u32, bool);

/// iga64's reading of a dc1 descriptor (`iga64 -p=12p71 -Xdsd`); `None`
/// when iga64 is missing (off CI).
fn iga64_reads(desc: u32) -> Option<Reading> {
    let r = match std::process::Command::new("iga64")
        .args(["-p=12p71", "-Xdsd", "dc1", "0x0"])
        .arg(format!("0x{desc:08X}"))
        .output()
    {
        Ok(r) => r,
        Err(_) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "iga64 not found (required on CI)"
            );
            return None;
        }
    };
    let out = String::from_utf8_lossy(&r.stdout).into_owned();
    assert!(r.status.success(), "iga64 -Xdsd 0x{desc:08X}: {out}");
    let field = |name: &str| -> String {
        out.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .unwrap_or_else(|| panic!("0x{desc:08X}: no {name} in\n{out}"))
            .trim()
            .to_string()
    };
    // "64b (per channel)", "8 channels"
    let num = |v: String| -> u32 {
        v.split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    Some((
        field("Op:"),
        num(field("Address Size:")),
        num(field("Data Size:")),
        num(field("Execution Width:")),
        out.contains("atomic returns result"),
    ))
}

/// iga64's symbols of the model's integer operations (its `-Xdsd` Op).
fn iga_symbol(op: AtomicOp) -> &'static str {
    match op {
        AtomicOp::And => "atomic_and",
        AtomicOp::Or => "atomic_or",
        AtomicOp::Xor => "atomic_xor",
        AtomicOp::Mov => "atomic_store",
        AtomicOp::Inc => "atomic_iinc",
        AtomicOp::Dec => "atomic_idec",
        AtomicOp::Add => "atomic_iadd",
        AtomicOp::Sub => "atomic_isub",
        AtomicOp::RevSub => "atomic_irsub",
        AtomicOp::Imax => "atomic_smax",
        AtomicOp::Imin => "atomic_smin",
        AtomicOp::Umax => "atomic_umax",
        AtomicOp::Umin => "atomic_umin",
        AtomicOp::CmpWr => "atomic_icas",
        AtomicOp::PreDec => "atomic_ipdec",
    }
}

/// Every descriptor the model serves (every integer code, A64 dword and
/// qword, surface SIMD8 and SIMD16, every float code, with and without
/// return): iga64 reads the same operation, address and data width,
/// channels and return as the model (`iga64 -Xdsd`), assembles the send
/// to our bits and names the message as the host table does; and the
/// model serves each send with the payload lengths of its own reading.
#[test]
fn descriptors_read_as_iga64_reads_them() {
    // (descriptor, our reading, sources, iga64's description)
    let mut forms: Vec<(u32, Reading, usize, String)> = Vec::new();
    for (code, name, k) in INT_OPS {
        for (a64, bit12) in [(true, false), (true, true), (false, false), (false, true)] {
            for returns in [false, true] {
                let a = UntypedAtomic {
                    a64,
                    word: false,
                    bti: if a64 { 0xFF } else { 254 },
                    op: code,
                    bit12,
                    returns,
                    header: false,
                    packed_address: false,
                    packed_data: false,
                };
                let op = a.operation().expect("codes 1-15 have an operation");
                let ours = (
                    iga_symbol(op).to_string(),
                    if a64 { 64 } else { 32 },
                    u32::from(a.data_bits()),
                    u32::from(a.lanes()),
                    returns,
                );
                let a64w = if a64 { " a64" } else { "" };
                let text = format!("untyped{a64w} atomic int{} {name}", a.data_bits());
                forms.push((Dc1::Atomic(a).encode().unwrap(), ours, k, text));
            }
        }
    }
    for (code, name, k) in FLOAT_OPS {
        for (a64, simd8) in [(true, false), (false, false), (false, true)] {
            for returns in [false, true] {
                let a = FloatAtomic {
                    a64,
                    half: false,
                    bti: if a64 { 0xFF } else { 254 },
                    op: code,
                    wide: false,
                    simd_bit: simd8,
                    returns,
                    header: false,
                    packed_address: false,
                    packed_data: false,
                };
                let op = a.operation().expect("codes 1-5 have an operation");
                let lanes = a.lanes().expect("served forms have lanes");
                let ours = (
                    op.name().to_string(),
                    if a64 { 64 } else { 32 },
                    32,
                    u32::from(lanes),
                    returns,
                );
                let a64w = if a64 { "a64 " } else { "" };
                let ret = if returns { " with return" } else { "" };
                let text = format!("{a64w}float atomic {name}{ret}");
                forms.push((Dc1::FloatAtomic(a).encode().unwrap(), ours, k, text));
            }
        }
    }
    // The sends as the model reads them: lengths from its lanes and widths.
    let lines: Vec<String> = forms
        .iter()
        .map(|(desc, (_, abits, dbits, lanes, returns), k, _)| {
            let dr = regs(*lanes as usize * *dbits as usize / 8);
            let alen = regs(*lanes as usize * *abits as usize / 8);
            let d = desc | (alen as u32) << 25 | (u32::from(*returns) * dr as u32) << 20;
            let dst = if *returns { "r40" } else { "null" };
            let src1 = if *k > 0 {
                format!("r50:{}", k * dr)
            } else {
                "null:0".into()
            };
            format!("send.dc1 ({lanes}|M0) {dst} r20 {src1} 0x0 0x{d:08X}")
        })
        .collect();
    for l in &lines {
        let mut u = units(5);
        let mut h = harness(&format!("mov (1|M0) f0.0<1>:uw 0x1:uw\n(f0.0) {l}\n"));
        set_bytes(&mut h, 20, 0, &(BASE + 0x100).to_le_bytes());
        h.run_with(&mut u, 10)
            .unwrap_or_else(|e| panic!("{l}: {e}"));
    }
    for (desc, ours, _, _) in &forms {
        let Some(theirs) = iga64_reads(*desc | 2 << 25) else {
            eprintln!("iga64 not found: skipping the oracle comparison");
            return;
        };
        assert_eq!(
            &theirs, ours,
            "0x{desc:08X}: iga64 reads (op, address bits, data bits, channels, returns)"
        );
    }
    // iga64 assembles the sends to our bits and names each message.
    let dir = std::env::temp_dir().join(format!("baregpu-xe-dc1-atomic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, bin) = (dir.join("k.asm"), dir.join("k.bin"));
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&src, &text).unwrap();
    let r = std::process::Command::new("iga64")
        .args(["-p=12p71", "-a"])
        .arg(&src)
        .arg("-o")
        .arg(&bin)
        .output()
        .unwrap();
    assert!(
        r.status.success(),
        "iga64: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    let theirs = std::fs::read(&bin).unwrap();
    let ours = baregpu_isa::text::assemble(baregpu_isa::IsaGen::Gen12_5, &text).unwrap();
    assert_eq!(ours, theirs, "iga64 assembles the sends to our bits");
    let r = std::process::Command::new("iga64")
        .args(["-p=12p71", "-d"])
        .arg(&bin)
        .output()
        .unwrap();
    assert!(r.status.success());
    let out = String::from_utf8_lossy(&r.stdout);
    let comments: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("send"))
        .map(|l| l.rsplit_once("; ").map_or("", |c| c.1).trim())
        .collect();
    assert_eq!(comments.len(), forms.len(), "{out}");
    for (i, (c, f)) in comments.iter().zip(&forms).enumerate() {
        assert_eq!(*c, f.3, "{}", lines[i]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
