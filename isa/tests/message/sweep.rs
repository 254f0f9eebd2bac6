//! Exhaustive sweeps of every function-control value.

use super::*;

/// Accepted values of the functions whose field tables are small enough to
/// count by hand (fields multiplied out; `None`: not counted).
fn expected_count(p: IsaGen, sfid: Sfid) -> Option<usize> {
    let bti_sampler = 256 * 16;
    Some(match (sfid, p) {
        (Sfid::Null, _) => 1,
        // opcode, requester, resource select
        (Sfid::ThreadSpawner, _) => 8,
        // 3 sub-functions x ack x notify(1 bit) / 7 x ack x 3 notify codes
        (Sfid::Gateway, Gen4 | G45) => 3 * 2 * 2,
        (Sfid::Gateway, _) => 7 * 2 * 3,
        // 12 functions x 5 flag bits
        (Sfid::Math, _) => 12 * 32,
        // opcodes x 64 offsets x 3 swizzles x flag bits
        (Sfid::Urb, Gen4) => 64 * 3 * 8,
        (Sfid::Urb, G45) => 64 * 3 * 16,
        (Sfid::Urb, Gen6) => 2 * 64 * 3 * 16,
        // 6 opcodes x 11-bit offset x 3 flags
        (Sfid::Urb, _) => 6 * 2048 * 8,
        // 24 table rows (each its own length) x BTI x sampler (x 3 formats)
        (Sfid::Sampler, Gen4) => 24 * bti_sampler * 3,
        (Sfid::Sampler, G45) => 24 * bti_sampler,
        // types x 3 SIMD modes x BTI x sampler, plus every SIMD32/64 value
        (Sfid::Sampler, Gen6) => 13 * 3 * bti_sampler + (1 << 17),
        (Sfid::Sampler, Gen7) => 18 * 3 * bti_sampler + (1 << 17),
        (Sfid::Sampler, _) => 19 * 3 * bti_sampler + (1 << 17),
        // Gen6 constant cache: 5 block sizes + 2 dual + 2 scattered, x BTI;
        // sampler cache adds 8 media-block VLS forms and 5 unaligned sizes.
        (Sfid::DpConstantCache, Gen6) => 9 * 256,
        (Sfid::DpSamplerCache, Gen6) => 22 * 256,
        // Kept raw: every value.
        (Sfid::Vme | Sfid::PixelInterpolator | Sfid::Cre, _) => 1 << 19,
        (Sfid::DpSamplerCache, _) => 1 << 19,
        _ => return None,
    })
}

#[test]
fn every_function_value_round_trips() {
    for p in IsaGen::ALL {
        for sfid in sfids(p) {
            // The Gen4/G45 sampler reads the length; sweep all of them.
            let mlens: Vec<u8> = if sfid == Sfid::Sampler && p < Gen6 {
                (0..16).collect()
            } else {
                vec![0]
            };
            let mut accepted = 0;
            for fc in 0..1u32 << width(p) {
                for &m in &mlens {
                    let mlen = if mlens.len() > 1 {
                        m
                    } else {
                        (1 + fc % 15) as u8
                    };
                    let rlen = (fc % if p < Gen6 { 16 } else { 32 }) as u8;
                    let d = desc(mlen, rlen, p >= Gen6 && fc & 8 != 0, fc);
                    let Ok(msg) = decode(p, sfid, &d) else {
                        continue;
                    };
                    accepted += 1;
                    assert_eq!(msg.sfid(), sfid);
                    let back = encode(p, &msg, mlen, rlen, d.header);
                    assert_eq!(back, Ok((sfid, d)), "{p} {sfid:?} {fc:#x} {msg:?}");
                    // Raw messages print as a number; check a sample of them.
                    if matches!(msg, Message::Other { .. }) && fc % 97 != 0 {
                        continue;
                    }
                    let text = print_symbolic(p, sfid, &d).unwrap();
                    assert_eq!(parse_symbolic(p, &text), Ok((sfid, d)), "{p} {text}");
                }
            }
            if let Some(n) = expected_count(p, sfid) {
                assert_eq!(accepted, n, "{p} {sfid:?}");
            }
            assert!(accepted > 0, "{p} {sfid:?}");
        }
    }
}

#[test]
fn decode_refuses_bits_above_the_function_field() {
    let wide = desc(1, 1, false, 1 << 16);
    assert!(matches!(
        decode(Gen4, Sfid::Null, &wide),
        Err(MessageError::StrayBits { .. })
    ));
    let wide = desc(1, 1, false, 1 << 19);
    assert!(matches!(
        decode(Gen7, Sfid::Vme, &wide),
        Err(MessageError::StrayBits { .. })
    ));
    assert!(matches!(
        decode(Gen4, Sfid::Null, &desc(1, 1, true, 0)),
        Err(MessageError::Length { .. })
    ));
}

/// Damaged text (bytes dropped, replaced or inserted, including non-ASCII)
/// never panics the parser; whatever still parses prints back to text that
/// parses to the same bits.
#[test]
fn damaged_text_is_refused_or_consistent() {
    let texts = [
        (
            Gen7,
            "dc.untyped_atomic(bti=1, op=add, simd=16, ret) mlen=4 rlen=2",
        ),
        (
            Gen4,
            "dpw.rt_write(bti=0, mode=simd16, last, commit) mlen=10 rlen=0",
        ),
        (
            Gen6,
            "urb.write(offset=2, swizzle=interleave, used) mlen=3 rlen=0 hdr",
        ),
        (
            Gen75,
            "dc1.typed_write(bti=5, slots=lo, mask=xz) mlen=5 rlen=0",
        ),
        (
            G45,
            "sampler.sample_c(bti=1, sampler=2, simd=16) mlen=9 rlen=8",
        ),
    ];
    let junk = [
        "",
        " ",
        "(",
        ")",
        ",",
        "=",
        "0x",
        "é",
        "\u{2028}",
        "9999999999",
        "x",
        ".",
    ];
    let mut rng = crate::common::Rng::new(99);
    let mut parsed = 0;
    for _ in 0..20_000 {
        let (p, t) = rng.pick(&texts);
        let mut s: Vec<char> = t.chars().collect();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(s.len() + 1);
            match rng.below(3) {
                0 if at < s.len() => {
                    s.remove(at);
                }
                1 if at < s.len() => s[at] = rng.pick(&['a', '1', ' ', '=', ',', '(', ')', 'ß']),
                _ => {
                    for (i, c) in rng.pick(&junk).chars().enumerate() {
                        s.insert(at + i, c);
                    }
                }
            }
        }
        let s: String = s.into_iter().collect();
        if let Ok((sfid, d)) = parse_symbolic(p, &s) {
            parsed += 1;
            let again = print_symbolic(p, sfid, &d).unwrap();
            assert_eq!(parse_symbolic(p, &again), Ok((sfid, d)), "{s} -> {again}");
        }
    }
    // Some damage is harmless (extra spaces, another number).
    assert!(parsed > 0);
}
