//! The self-test's checkers: they accept what the CPU expects and name the
//! first wrong value. Expected layouts are built here from the manual's
//! formulas, not with the helpers the checkers use.

use alloc::vec;
use alloc::vec::Vec;

use super::fill;
use super::reduce::{self, GROUP_SIZE, Sums};
use super::tiled::{self, Layout};
use super::vector_add;
use super::*;

#[test]
fn fill_check_accepts_the_colour_and_names_the_first_wrong_pixel() {
    let (w, h, colour) = (16u32, 8u32, 0x1122_3344u32);
    let mut px: Vec<u8> = colour.to_le_bytes().repeat((w * h) as usize);
    assert_eq!(fill::check(&px, w, colour, "t"), Ok(()));
    // Pixel (5, 2): byte (2 * 16 + 5) * 4; its blue-ish byte changed.
    px[(2 * 16 + 5) * 4 + 1] = 0;
    let m = fill::check(&px, w, colour, "t").unwrap_err();
    assert_eq!(m.at, Place::Pixel { x: 5, y: 2 });
    assert_eq!((m.got, m.want), (0x1122_0044, colour));
}

#[test]
fn vector_add_check_names_the_element() {
    let want: Vec<u32> = (0..8).map(|i| 100 + i).collect();
    let mut out: Vec<u8> = want.iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(vector_add::check(&out, 4096, &want, "t"), Ok(()));
    out[6 * 4..7 * 4].copy_from_slice(&7u32.to_le_bytes());
    let m = vector_add::check(&out, 4096, &want, "t").unwrap_err();
    assert_eq!((m.at, m.got, m.want), (Place::Element(4096 + 6), 7, 106));
}

#[test]
fn vector_add_inputs_are_xorshift64_star() {
    // Vigna's xorshift64* (shifts 12, 25, 27; multiplier 2685821657736338717),
    // high half of the product, stepped here with u128 arithmetic.
    let mut s: u64 = 1;
    let mut want = Vec::new();
    for _ in 0..4 {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        want.push(((s as u128 * 2_685_821_657_736_338_717u128) as u64 >> 32) as u32);
    }
    let got: Vec<u32> = vector_add::Inputs::new(Generation::Gen4, 0)
        .take(4)
        .collect();
    assert_eq!(got, want);
    // a and b differ, and differ per generation.
    let b: Vec<u32> = vector_add::Inputs::new(Generation::Gen4, 1)
        .take(4)
        .collect();
    let a7: Vec<u32> = vector_add::Inputs::new(Generation::Gen7, 0)
        .take(4)
        .collect();
    assert_ne!(got, b);
    assert_ne!(got, a7);
}

#[test]
fn reduce_group_sums_and_check() {
    // Group 1 sums inputs 64..128: ((i * 2654435761) mod 2^32) >> 7.
    let by_hand: u64 = (64u64..128)
        .map(|i| ((i * 2_654_435_761) % (1 << 32)) >> 7)
        .sum();
    assert_eq!(reduce::group_sum(1), by_hand as u32);
    assert_eq!(GROUP_SIZE, 64);
    let want: Vec<u32> = (0..4).map(reduce::group_sum).collect();
    let mut s = Sums {
        got: want.clone(),
        want,
    };
    assert_eq!(reduce::check(&s), Ok(()));
    s.got[3] = 0;
    let m = reduce::check(&s).unwrap_err();
    assert_eq!((m.at, m.got), (Place::Group(3), 0));
    s.got.pop();
    assert_eq!(reduce::check(&s).unwrap_err().at, Place::Group(3));
}

/// Surface memory for the picture, placed with the manual's tiling
/// function (003 lines 7382-7476) for the single-tile-row cases below.
fn by_hand(tiling: Tiling, pitch: usize, width: u32, height: u32) -> Vec<u8> {
    let rows = match tiling {
        Tiling::Linear => height as usize,
        Tiling::X => (height as usize).div_ceil(8) * 8,
        Tiling::Y => (height as usize).div_ceil(32) * 32,
    };
    let mut m = vec![0u8; pitch * rows];
    for y in 0..height as usize {
        for x in 0..width as usize {
            let xb = x * 4;
            let at = match tiling {
                // One tile per 512 bytes of a row; 8 rows per tile row.
                Tiling::X => {
                    (y / 8) * (pitch / 512) * 4096 + (xb / 512) * 4096 + 512 * (y % 8) + xb % 512
                }
                // 16-byte columns of 32 rows.
                Tiling::Y => {
                    (y / 32) * (pitch / 128) * 4096
                        + (xb / 128) * 4096
                        + 512 * ((xb % 128) / 16)
                        + 16 * (y % 32)
                        + xb % 16
                }
                Tiling::Linear => y * pitch + xb,
            };
            m[at..at + 4].copy_from_slice(&tiled::pixel(x as u32, y as u32).to_le_bytes());
        }
    }
    m
}

#[test]
fn tiled_check_accepts_the_manuals_layout_and_names_pixels_and_padding() {
    for (tiling, pitch) in [(Tiling::Linear, 256), (Tiling::X, 512), (Tiling::Y, 256)] {
        let l = Layout {
            tiling,
            swizzle: Swizzle::None,
            pitch,
            width: 64,
            height: 40,
        };
        let mut m = by_hand(tiling, pitch, 64, 40);
        assert_eq!(tiled::check(&m, &l), Ok(()), "{tiling:?}");
        // The second byte of pixel (37, 33).
        let xb = 37 * 4;
        let at = match tiling {
            Tiling::Linear => 33 * pitch + xb,
            Tiling::X => 4 * (pitch / 512) * 4096 + 512 + xb,
            Tiling::Y => (pitch / 128) * 4096 + 4096 + 512 + 16 + 4,
        };
        m[at + 1] ^= 0xff;
        let e = tiled::check(&m, &l).unwrap_err();
        let Failure::Mismatch(mm) = e else {
            panic!("{tiling:?}: {e:?}")
        };
        assert_eq!(mm.at, Place::Pixel { x: 37, y: 33 }, "{tiling:?}");
        assert_eq!(mm.want, (33 << 16) | 37);
        assert_eq!(mm.got, mm.want ^ 0xff00);
    }
    // X tiles are 512 bytes wide: a 64-pixel row leaves 256 bytes of padding.
    let l = Layout {
        tiling: Tiling::X,
        swizzle: Swizzle::None,
        pitch: 512,
        width: 64,
        height: 8,
    };
    let mut m = by_hand(Tiling::X, 512, 64, 8);
    m[3 * 512 + 300] = 1;
    let e = tiled::check(&m, &l).unwrap_err();
    assert_eq!(
        e,
        Failure::Mismatch(Mismatch {
            case: "X-tiled surface",
            at: Place::Byte(3 * 512 + 300),
            got: 1,
            want: 0,
        })
    );
}

#[test]
fn errors_say_where_and_what() {
    let e = SelfTestError {
        scenario: Scenario::Fill,
        generation: Generation::Gen6,
        failure: Failure::Mismatch(Mismatch {
            case: "media walker",
            at: Place::Pixel { x: 3, y: 9 },
            got: 0xcdcd_cdcd,
            want: 0x80c0_4022,
        }),
    };
    let text = alloc::format!("{e}");
    assert!(text.contains("fill"), "{text}");
    assert!(
        text.contains("media walker: pixel (3, 9) is 0xcdcdcdcd"),
        "{text}"
    );
    assert!(text.contains("0x80c04022"), "{text}");
}

#[test]
fn only_ivy_bridge_and_dg2_run_the_reduction() {
    for g in [
        Generation::Gen4,
        Generation::G45,
        Generation::Gen6,
        Generation::Gen7,
    ] {
        assert_eq!(Scenario::Reduce.runs_on(g), g == Generation::Gen7);
        assert!(Scenario::Fill.runs_on(g) && Scenario::Tiled.runs_on(g));
    }
    // DG2 runs all four (selftest/xe.rs) when built with its tables.
    for s in Scenario::ALL {
        assert_eq!(s.runs_on(Generation::Gen12_5), cfg!(feature = "gen12_5"));
    }
}
