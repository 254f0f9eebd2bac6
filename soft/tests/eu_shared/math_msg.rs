//! The Gen4/G45 extended-math message: payload and writeback layouts (000
//! lines 5900-5978), vector and scalar structure, the 16-channel G45 form,
//! against host arithmetic.

use baregpu_isa::IsaGen;

use super::rig::*;

fn f(v: f32) -> u32 {
    v.to_bits()
}

#[test]
fn vector_inv_writes_enabled_channels_only() {
    for p in [IsaGen::Gen4, IsaGen::G45] {
        let mut rig = Rig::new(p);
        let x = [2.0f32, 4.0, -8.0, 0.5, 1.0, 16.0, 0.25, -1.0];
        rig.set(0, x.map(f));
        rig.mark_response(1, 0xFEED);
        let ce = 0b1011_0111;
        rig.ok("math.inv() mlen=1 rlen=1", 8, ce);
        for (c, v) in x.iter().enumerate() {
            let want = if ce >> c & 1 != 0 { f(1.0 / v) } else { 0xFEED };
            assert_eq!(rig.resp(0)[c], want, "{p:?} channel {c}");
        }
    }
}

#[test]
fn scalar_structure_broadcasts_channels_0_and_4() {
    let mut rig = Rig::new(IsaGen::Gen4);
    rig.set(
        0,
        [
            f(9.0),
            f(1.0),
            f(1.0),
            f(1.0),
            f(25.0),
            f(1.0),
            f(1.0),
            f(1.0),
        ],
    );
    rig.mark_response(1, 0);
    // Group 0 fully enabled, group 1 only channel 6.
    rig.ok("math.sqrt(scalar) mlen=1 rlen=1", 8, 0b0100_1111);
    assert_eq!(
        rig.resp(0),
        [f(3.0), f(3.0), f(3.0), f(3.0), 0, 0, f(5.0), 0]
    );
}

#[test]
fn int_div_takes_the_divisor_first_and_returns_two_registers() {
    // M0 = denominator, M1 = numerator (000 lines 5913, 5921); W0 the
    // quotient, W1 the remainder (000 line 5958).
    let num: [i32; 8] = [7, -7, 7, -7, 100, 0, 5, -5];
    let den: [i32; 8] = [2, 2, -2, -2, 7, 3, 0, 0];
    let mut rig = Rig::new(IsaGen::Gen4);
    rig.set(0, den.map(|v| v as u32));
    rig.set(1, num.map(|v| v as u32));
    rig.ok("math.intdivmod(signed) mlen=2 rlen=2", 8, 0xFF);
    for c in 0..8 {
        let (q, r) = if den[c] == 0 {
            // Divide by zero (000 lines 6304-6309).
            let v = if num[c] < 0 { 0x8000_0000 } else { 0x7FFF_FFFF };
            (v, v)
        } else {
            ((num[c] / den[c]) as u32, (num[c] % den[c]) as u32)
        };
        assert_eq!((rig.resp(0)[c], rig.resp(1)[c]), (q, r), "channel {c}");
    }
}

#[test]
fn pow_reads_base_then_exponent() {
    let mut rig = Rig::new(IsaGen::G45);
    rig.set(0, [2.0f32, 3.0, 10.0, 4.0, 1.0, 2.0, 5.0, 9.0].map(f));
    rig.set(1, [3.0f32, 2.0, 2.0, 0.5, 7.0, -1.0, 0.0, 0.5].map(f));
    rig.ok("math.pow() mlen=2 rlen=1", 8, 0xFF);
    let want = [8.0f32, 9.0, 100.0, 2.0, 1.0, 0.5, 1.0, 3.0].map(f);
    assert_eq!(rig.resp(0), want);
}

#[test]
fn sincos_returns_sines_then_cosines() {
    let mut rig = Rig::new(IsaGen::Gen4);
    let x: [f32; 8] = [0.0, 0.5, 1.0, -2.0, 3.0, 10.0, -0.25, 6.0];
    rig.set(0, x.map(f));
    rig.ok("math.sincos() mlen=1 rlen=2", 8, 0xFF);
    for (c, v) in x.iter().enumerate() {
        let (s, k) = (
            f32::from_bits(rig.resp(0)[c]),
            f32::from_bits(rig.resp(1)[c]),
        );
        // Absolute error 0.0008 within +/-100 pi (000 line 6260).
        assert!(
            (f64::from(s) - f64::from(*v).sin()).abs() < 8e-4,
            "sin ch {c}"
        );
        assert!(
            (f64::from(k) - f64::from(*v).cos()).abs() < 8e-4,
            "cos ch {c}"
        );
    }
}

#[test]
fn g45_sixteen_channel_messages_use_two_registers() {
    let mut rig = Rig::new(IsaGen::G45);
    let x: [f32; 16] = core::array::from_fn(|c| ((c + 1) * (c + 1)) as f32);
    rig.set(0, core::array::from_fn(|c| f(x[c])));
    rig.set(1, core::array::from_fn(|c| f(x[8 + c])));
    rig.mark_response(2, 0);
    rig.ok("math.sqrt() mlen=2 rlen=2", 16, 0xFF0F);
    for c in 0..16 {
        let want = if 0xFF0F >> c & 1 != 0 {
            f((c + 1) as f32)
        } else {
            0
        };
        assert_eq!(rig.resp(c / 8)[c % 8], want, "channel {c}");
    }
    // Gen4 has no 16-channel form (000 line 5906: [DevCTG+]).
    let mut gen4 = Rig::new(IsaGen::Gen4);
    assert!(gen4.send("math.sqrt() mlen=2 rlen=2", 16, 0xFFFF).is_err());
}
