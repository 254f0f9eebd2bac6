//! End to end: kernels assembled with `baregpu_isa::text::assemble` run on
//! the interpreter with `MemoryUnits`, reading two buffers, adding them and
//! writing a third, checked against the host.

use baregpu_isa::IsaGen;
use baregpu_isa::message;
use baregpu_soft::eu::Harness;
use baregpu_soft::eu::run::Step;
use baregpu_soft::eu::shared::{FlatMemory, MemoryUnits, Surface};

const MEM: u64 = 0x20_0000;
const A: u64 = MEM + 0x1000;
const B: u64 = MEM + 0x2000;
const C: u64 = MEM + 0x3000;

/// The descriptor immediate of `text` as the assembler takes it: Gen4/G45
/// the low 24 bits, MLEN 23:20, RLEN 19:16, function 15:0 (000 lines
/// 13390-13396); Gen6+ MLEN 28:25, RLEN 24:20, header 19, function 18:0
/// (003 lines 100890-100919).
fn desc(p: IsaGen, text: &str) -> String {
    let (_, d) = message::parse_symbolic(p, text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let v = if p <= IsaGen::G45 {
        u32::from(d.mlen) << 20 | u32::from(d.rlen) << 16 | d.function
    } else {
        u32::from(d.mlen) << 25 | u32::from(d.rlen) << 20 | u32::from(d.header) << 19 | d.function
    };
    format!("{v:#x}")
}

fn inputs() -> ([f32; 8], [f32; 8]) {
    let a = core::array::from_fn(|i| i as f32 * 1.5 - 3.0);
    let b = core::array::from_fn(|i| 100.0 / (i as f32 + 1.0));
    (a, b)
}

/// Memory with A and B filled and C zero, three buffer surfaces bound.
fn units(entries: u32, pitch: u32) -> MemoryUnits {
    let mut u = MemoryUnits::new(FlatMemory::new(MEM, 0x1_0000));
    let (a, b) = inputs();
    for i in 0..8 {
        u.memory.set_dword(A + 4 * i as u64, a[i].to_bits());
        u.memory.set_dword(B + 4 * i as u64, b[i].to_bits());
    }
    u.surfaces.bind(1, Surface::buffer(A, entries, pitch));
    u.surfaces.bind(2, Surface::buffer(B, entries, pitch));
    u.surfaces.bind(3, Surface::buffer(C, entries, pitch));
    u
}

fn run(p: IsaGen, src: &str, units: &mut MemoryUnits, setup: impl FnOnce(&mut Harness)) {
    let mut h = Harness::new(p);
    h.load_asm(src)
        .unwrap_or_else(|e| panic!("{p:?}: {e:?}\n{src}"));
    setup(&mut h);
    let step = h
        .run_with(units, 1000)
        .unwrap_or_else(|e| panic!("{p:?}: {e:?} (fault {:?})", units.fault));
    assert_eq!(step, Step::Ended, "{p:?}");
}

fn check(units: &MemoryUnits, p: IsaGen) {
    let (a, b) = inputs();
    for i in 0..8 {
        let got = f32::from_bits(units.memory.dword(C + 4 * i as u64));
        assert_eq!(got, a[i] + b[i], "{p:?} element {i}");
    }
}

#[test]
fn gen7_untyped_read_add_write() {
    for (p, sfid, unit) in [(IsaGen::Gen7, "0xA", "dc"), (IsaGen::Gen75, "0xC", "dc1")] {
        let rd = |bti| {
            desc(
                p,
                &format!("{unit}.untyped_read(bti={bti}, simd=8, mask=x) mlen=1 rlen=1"),
            )
        };
        let wr = desc(
            p,
            &format!("{unit}.untyped_write(bti=3, simd=8, mask=x) mlen=2 rlen=0"),
        );
        // r2 holds the byte address of each lane's element.
        let src = format!(
            "\
send (8|M0) r10:ud r2 {sfid} {ra}
send (8|M0) r11:ud r2 {sfid} {rb}
add (8|M0) r21.0<1>:f r10.0<8;8,1>:f r11.0<8;8,1>:f
mov (8|M0) r20.0<1>:ud r2.0<8;8,1>:ud
send (8|M0) null:ud r20 {sfid} {wr}
mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}
send (8|M0) null:ud r127 0x7 0x02000010 {{EOT}}
",
            ra = rd(1),
            rb = rd(2),
        );
        let mut u = units(32, 1);
        run(p, &src, &mut u, |h| {
            for l in 0..8 {
                h.thread.set_grf_ud(2, l, 4 * l as u32);
            }
        });
        check(&u, p);
    }
}

#[test]
fn gen6_oword_block_read_add_write() {
    let p = IsaGen::Gen6;
    let rd = |bti| {
        desc(
            p,
            &format!("rc.oword_block_read(bti={bti}, owords=2) mlen=1 rlen=1 hdr"),
        )
    };
    let wr = desc(p, "rc.oword_block_write(bti=3, owords=2) mlen=2 rlen=0 hdr");
    // The header is r0 (zero here: Global Offset 0).
    let src = format!(
        "\
mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}
send (8|M0) r10:ud m1 0x5 {ra}
send (8|M0) r11:ud m1 0x5 {rb}
add (8|M0) r12.0<1>:f r10.0<8;8,1>:f r11.0<8;8,1>:f
mov (8|M0) m2.0<1>:ud r12.0<8;8,1>:ud
send (8|M0) null:ud m1 0x5 {wr}
send (8|M0) null:ud m1 0x7 0x02000010 {{EOT}}
",
        ra = rd(1),
        rb = rd(2),
    );
    let mut u = units(2, 16);
    run(p, &src, &mut u, |_| {});
    check(&u, p);
}

#[test]
fn gen4_dword_scattered_read_add_write() {
    for p in [IsaGen::Gen4, IsaGen::G45] {
        let rd = |bti| {
            desc(
                p,
                &format!("dpr.dword_scattered_read(bti={bti}, simd=8, cache=data) mlen=2 rlen=1"),
            )
        };
        let wr = desc(p, "dpw.dword_scattered_write(bti=3, simd=8) mlen=3 rlen=0");
        // The implied move copies r0 (zero: Global Offset 0) into the
        // header m1; m2 holds the byte offsets from r2.
        let src = format!(
            "\
mov (8|M0) m2.0<1>:ud r2.0<8;8,1>:ud
send (8|M0) r10:ud m1 r0:ud 0x4 {ra}
send (8|M0) r11:ud m1 r0:ud 0x4 {rb}
add (8|M0) r12.0<1>:f r10.0<8;8,1>:f r11.0<8;8,1>:f
mov (8|M0) m3.0<1>:ud r12.0<8;8,1>:ud
send (8|M0) null:ud m1 r0:ud 0x5 {wr}
send (8|M0) null:ud m1 r0:ud 0x7 0x100000 {{EOT}}
",
            ra = rd(1),
            rb = rd(2),
        );
        let mut u = units(2, 16);
        run(p, &src, &mut u, |h| {
            for l in 0..8 {
                h.thread.set_grf_ud(2, l, 4 * l as u32);
            }
        });
        check(&u, p);
    }
}

#[test]
fn gen4_extended_math_message_in_a_kernel() {
    // sqrt through SFID 1 with the implied move of r2 into m1.
    let p = IsaGen::Gen4;
    let src = format!(
        "\
send (8|M0) r10:f m1 r2.0<8;8,1>:f 0x1 {m}
mov (8|M0) m2.0<1>:ud r3.0<8;8,1>:ud
mov (8|M0) m3.0<1>:ud r10.0<8;8,1>:ud
send (8|M0) null:ud m1 r0:ud 0x5 {wr}
send (8|M0) null:ud m1 r0:ud 0x7 0x100000 {{EOT}}
",
        m = desc(p, "math.sqrt() mlen=1 rlen=1"),
        wr = desc(p, "dpw.dword_scattered_write(bti=3, simd=8) mlen=3 rlen=0"),
    );
    let mut u = units(2, 16);
    run(p, &src, &mut u, |h| {
        for l in 0..8 {
            h.thread.set_grf_f(2, l, ((l + 1) * (l + 1)) as f32);
            h.thread.set_grf_ud(3, l, 4 * l as u32);
        }
    });
    for l in 0..8 {
        let got: Vec<f32> = (0..8)
            .map(|i| f32::from_bits(u.memory.dword(C + 4 * i)))
            .collect();
        assert_eq!(got[l as usize], (l + 1) as f32, "{got:?}");
    }
}
