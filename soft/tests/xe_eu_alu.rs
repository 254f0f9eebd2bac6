//! Xe-HPG ALU in the one-thread harness (`XeHarness`): kernels in IGA
//! syntax, random seeded inputs, every result checked against a host
//! computation.

use baregpu_soft::eu::ErrorKind;
use baregpu_soft::eu::run::Step;
use baregpu_soft::eu::xe::XeHarness;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
    /// A finite float of moderate magnitude (sign, exponent -20..20).
    fn float(&mut self) -> f32 {
        let m = self.next() & 0x7F_FFFF;
        let e = 127 - 20 + self.next() % 41;
        f32::from_bits((self.next() & 0x8000_0000) | e << 23 | m)
    }
}

/// Runs `src` with r2..r5 preloaded (dwords), returns the harness.
fn run(src: &str, regs: &[[u32; 8]; 4]) -> XeHarness {
    let mut h = XeHarness::new();
    h.load_asm(src).unwrap_or_else(|e| panic!("{src}: {e:?}"));
    for (r, vals) in regs.iter().enumerate() {
        for (i, v) in vals.iter().enumerate() {
            h.set_grf_ud(2 + r as u8, i, *v);
        }
    }
    let step = h.run(100).unwrap_or_else(|e| panic!("{src}: {e}"));
    assert_eq!(step, Step::EndOfKernel, "{src}");
    h
}

fn randoms(rng: &mut Rng, f: impl Fn(&mut Rng) -> u32) -> [[u32; 8]; 4] {
    let mut r = [[0; 8]; 4];
    for reg in r.iter_mut() {
        for v in reg.iter_mut() {
            *v = f(rng);
        }
    }
    r
}

#[test]
fn smoke_kernel_with_flow_math_and_eot() {
    let src = "mov (8|M0) r10.0<1>:ud r2.0<1;1,0>:ud
add (8|M0) r11.0<1>:f r2.0<1;1,0>:f r3.0<1;1,0>:f
math.inv (8|M0) r17.0<1>:f r3.0<1;1,0>:f {$1}
sync.nop null {$1.dst}
mov (8|M0) r18.0<1>:f r17.0<1;1,0>:f
send.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}
";
    let mut h = XeHarness::new();
    h.load_asm(src).unwrap();
    for i in 0..8 {
        h.set_grf_ud(2, i, (i as f32 + 1.0).to_bits());
        h.set_grf_ud(3, i, 2.0f32.to_bits());
    }
    assert_eq!(h.run(100).unwrap(), Step::Ended);
    for i in 0..8 {
        assert_eq!(f32::from_bits(h.grf_ud(11, i)), i as f32 + 3.0);
        assert_eq!(f32::from_bits(h.grf_ud(18, i)), 0.5);
    }
}
