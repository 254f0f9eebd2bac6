//! Typed writes and reads: conversions, channel and slot masks, slot
//! groups, bounds, surface types, per-generation read support, SIMD4x2.

use baregpu_isa::IsaGen;
use baregpu_soft::eu::shared::Tiling;
use baregpu_soft::eu::shared::surface::format;

use super::rig::*;

#[test]
fn rgba32f_writes_the_enabled_channels_of_the_enabled_slots() {
    let uv = [
        (0, 0),
        (5, 3),
        (2, 1),
        (6, 0),
        (1, 2),
        (3, 3),
        (0, 4),
        (4, 0),
    ];
    let value = |s: usize, c: usize| (s as f32 * 10.0 + c as f32 + 0.25).to_bits();
    // Slot 5 is off in the execution mask, slot 2 in the header's M0.7.
    let (dmask, m07) = (0xFF & !(1 << 5), 0xFFFF & !(1 << 2));
    for p in GENS {
        for (pitch, tiling) in [(128, Tiling::Linear), (512, Tiling::X)] {
            let s = Surf::two_d(format::R32G32B32A32_FLOAT, 6, 4, pitch, tiling);
            let mut gpu = new_gpu(p, &s);
            let mut want = area_pattern();
            for (slot, (u, v)) in uv.iter().enumerate() {
                if slot == 2 || slot == 5 {
                    continue;
                }
                if let Some(at) = s.texel(*u, *v, 0) {
                    // Mask xzw: green keeps its bytes.
                    for c in [0, 2, 3] {
                        want[at + 4 * c..at + 4 * c + 4]
                            .copy_from_slice(&value(slot, c).to_le_bytes());
                    }
                }
            }
            // Header, U, V, then R, B, A: one register each.
            let mut payload = vec![header(m07), lanes(|i| uv[i].0), lanes(|i| uv[i].1)];
            for c in [0, 2, 3] {
                payload.push(lanes(|i| value(i, c)));
            }
            let w = send(
                "typed_write(bti=0, slots=lo, mask=xzw) mlen=6 rlen=0 hdr",
                payload,
            );
            run_ok(p, &mut gpu, &[w], dmask);
            assert!(area(&gpu) == want, "{p:?} {tiling:?}");
            // Typed reads of RGBA32 come with Gen9 (TR 90): refused.
            let r = send(
                "typed_read(bti=0, slots=lo, mask=x) mlen=3 rlen=1 hdr",
                vec![header(0xFF), [0; 8], [0; 8]],
            );
            refused(p, &mut gpu, r, "not readable");
            assert!(area(&gpu) == want, "{p:?} the refused read wrote");
        }
    }
}

#[test]
fn unorm8_writes_convert_and_keep_unsent_channels() {
    let uv: [(u32, u32); 8] = [
        (0, 0),
        (8, 4),
        (3, 1),
        (9, 0),
        (1, 2),
        (7, 3),
        (2, 4),
        (5, 0),
    ];
    let value = |s: usize, c: usize| match (s, c) {
        // Out of range: clamped to 1 and 0.
        (7, 0) => 1.7f32.to_bits(),
        (7, 1) => (-0.4f32).to_bits(),
        _ => (((16 * s + 4 * c + 3) % 256) as f32 / 255.0).to_bits(),
    };
    let targets = [
        // Message channel c lands in byte c; BGRA puts R in byte 2 and B
        // in byte 0 (003 line 31552).
        (format::R8G8B8A8_UNORM, 128, Tiling::Y, [0, 1, 2, 3]),
        (format::B8G8R8A8_UNORM, 512, Tiling::X, [2, 1, 0, 3]),
    ];
    for p in GENS {
        for (fmt, pitch, tiling, byte_of) in targets {
            let s = Surf::two_d(fmt, 9, 5, pitch, tiling);
            let mut gpu = new_gpu(p, &s);
            let mut want = area_pattern();
            for (slot, (u, v)) in uv.iter().enumerate() {
                if let Some(at) = s.texel(*u, *v, 0) {
                    // Mask xyw: blue is not sent and keeps its byte.
                    for c in [0, 1, 3] {
                        want[at + byte_of[c]] = unorm8(value(slot, c));
                    }
                }
            }
            let mut payload = vec![header(0xFFFF), lanes(|i| uv[i].0), lanes(|i| uv[i].1)];
            for c in [0, 1, 3] {
                payload.push(lanes(|i| value(i, c)));
            }
            let w = send(
                "typed_write(bti=0, slots=lo, mask=xyw) mlen=6 rlen=0 hdr",
                payload,
            );
            run_ok(p, &mut gpu, &[w], u32::MAX);
            assert!(area(&gpu) == want, "{p:?} {fmt:#x}");
            // UNORM typed reads come with Gen11 (TR 110/125): refused.
            let r = send(
                "typed_read(bti=0, slots=lo, mask=xyzw) mlen=3 rlen=4 hdr",
                vec![header(0xFF), [0; 8], [0; 8]],
            );
            refused(p, &mut gpu, r, "not readable");
        }
    }
}

#[test]
fn r32_uint_round_trips_through_both_slot_groups() {
    let s = Surf::two_d(format::R32_UINT, 8, 4, 64, Tiling::Linear);
    let xy = |i: usize| (i as u32, 3 - i as u32 / 2);
    let value = |i: usize| 0x1000_0000 + 0x111 * i as u32;
    // Channels 0-7: slot 6 off; channels 8-15: channel 12 off.
    let dmask = 0b1110_1111_1011_1111;
    for p in GENS {
        let mut gpu = new_gpu(p, &s);
        let mut want = area_pattern();
        let write = send(
            "typed_write(bti=0, slots=lo, mask=x) mlen=4 rlen=0 hdr",
            vec![
                header(0xFFFF),
                lanes(|i| xy(i).0),
                lanes(|i| xy(i).1),
                lanes(value),
            ],
        );
        for i in (0..8).filter(|i| *i != 6) {
            let at = s.texel(xy(i).0, xy(i).1, 0).expect("inside");
            want[at..at + 4].copy_from_slice(&value(i).to_le_bytes());
        }
        // The read runs on channels 8-15 (8|M8) with the high slot group:
        // M0.7 bits 15:8 and the dispatch mask bits 15:8 enable its slots.
        // Slot 1 reads outside, slot 6 the texel the write skipped.
        let rxy = |i: usize| if i == 1 { (8, 0) } else { xy(i) };
        let mut read = send(
            "typed_read(bti=0, slots=hi, mask=xyzw) mlen=3 rlen=4 hdr",
            vec![
                header(0xFFFF & !(1 << 10)),
                lanes(|i| rxy(i).0),
                lanes(|i| rxy(i).1),
            ],
        );
        read.m8 = true;
        let h = run_ok(p, &mut gpu, &[write, read], dmask);
        assert!(area(&gpu) == want, "{p:?} write");
        for slot in 0..8 {
            // Slot 2 is off in M0.7 (bit 10), slot 4 in the mask (bit 12).
            let rgba = if slot == 2 || slot == 4 {
                [MARK; 4]
            } else {
                let (x, y) = rxy(slot);
                // Missing channels read 0, 0, 1 (003 lines 77112-77181);
                // outside: zeros and alpha 1 (IGC GATHER4_TYPED).
                let r = s.texel(x, y, 0).map_or(0, |at| dword_at(&want, at));
                [r, 0, 0, 1]
            };
            for (c, want) in rgba.iter().enumerate() {
                assert_eq!(resp(&h, 1, c)[slot], *want, "{p:?} slot {slot} ch {c}");
            }
        }
    }
}

#[test]
fn outside_the_surface_nothing_is_written() {
    let s = Surf::two_d(format::R32_UINT, 4, 4, 16, Tiling::Y);
    // Columns and rows at and past the edge, and "negative" coordinates.
    let uv = [
        (4, 0),
        (0, 4),
        (u32::MAX, 1),
        (2, u32::MAX),
        (4, 4),
        (100, 2),
        (3, 9),
        (1 << 20, 0),
    ];
    for p in GENS {
        let mut gpu = new_gpu(p, &s);
        let w = send(
            "typed_write(bti=0, slots=lo, mask=xyzw) mlen=7 rlen=0 hdr",
            vec![
                header(0xFF),
                lanes(|i| uv[i].0),
                lanes(|i| uv[i].1),
                [1; 8],
                [2; 8],
                [3; 8],
                [4; 8],
            ],
        );
        run_ok(p, &mut gpu, &[w], u32::MAX);
        assert!(area(&gpu) == area_pattern(), "{p:?}");
    }
}

/// U, V, R of one slot.
type Uvr = (u32, u32, u32);

#[test]
fn buffers_1d_and_3d_surfaces_address_their_own_coordinates() {
    // A buffer takes U (V is ignored); a 1D surface U; a 3D surface U, V,
    // R with planes h rows apart.
    let cases: [(Surf, [Uvr; 8]); 3] = [
        (
            Surf {
                kind: Kind::Buffer,
                fmt: format::R32_UINT,
                w: 10,
                h: 1,
                d: 1,
                pitch: 4,
                tiling: Tiling::Linear,
            },
            [
                (0, 7, 0),
                (3, 0, 0),
                (9, 1, 0),
                (10, 0, 0),
                (7, 99, 0),
                (u32::MAX, 0, 0),
                (5, 0, 0),
                (2, 3, 0),
            ],
        ),
        (
            Surf {
                kind: Kind::D1,
                h: 1,
                ..Surf::two_d(format::R32_UINT, 8, 1, 32, Tiling::Linear)
            },
            [
                (0, 5, 0),
                (7, 0, 0),
                (8, 0, 0),
                (3, 1, 0),
                (1, 0, 0),
                (6, 2, 0),
                (9, 0, 0),
                (4, 0, 0),
            ],
        ),
        (
            Surf {
                kind: Kind::D3,
                d: 3,
                ..Surf::two_d(format::R32_FLOAT, 4, 4, 16, Tiling::Linear)
            },
            [
                (0, 0, 0),
                (3, 3, 2),
                (1, 2, 1),
                (0, 0, 3),
                (2, 1, 2),
                (4, 0, 1),
                (3, 0, 1),
                (0, 3, 0),
            ],
        ),
    ];
    let value = |i: usize| 0x4000_0000 + 0x1357 * i as u32;
    for p in GENS {
        for (s, at) in cases {
            let mut gpu = new_gpu(p, &s);
            let mut want = area_pattern();
            for (i, (u, v, r)) in at.iter().enumerate() {
                if let Some(o) = s.texel(*u, *v, *r) {
                    want[o..o + 4].copy_from_slice(&value(i).to_le_bytes());
                }
            }
            let coords = vec![
                header(0xFF),
                lanes(|i| at[i].0),
                lanes(|i| at[i].1),
                lanes(|i| at[i].2),
            ];
            let mut wp = coords.clone();
            wp.push(lanes(value));
            let w = send("typed_write(bti=0, slots=lo, mask=x) mlen=5 rlen=0 hdr", wp);
            // Read back with alpha: a float format's is 1.0.
            let r = send(
                "typed_read(bti=0, slots=lo, mask=xw) mlen=4 rlen=2 hdr",
                coords,
            );
            let h = run_ok(p, &mut gpu, &[w, r], u32::MAX);
            assert!(area(&gpu) == want, "{p:?} {:?}", s.kind);
            let one = if s.fmt == format::R32_FLOAT {
                1.0f32.to_bits()
            } else {
                1
            };
            for (i, (u, v, r)) in at.iter().enumerate() {
                let red = s.texel(*u, *v, *r).map_or(0, |o| dword_at(&want, o));
                assert_eq!(resp(&h, 1, 0)[i], red, "{p:?} {:?} slot {i}", s.kind);
                assert_eq!(resp(&h, 1, 1)[i], one, "{p:?} {:?} slot {i} alpha", s.kind);
            }
        }
        // Plane 1 of a 3D surface 3 rows high sits 3 or 4 rows down as
        // Surface Vertical Alignment says: not modelled, refused.
        let s3 = Surf {
            kind: Kind::D3,
            d: 2,
            ..Surf::two_d(format::R32_UINT, 4, 3, 16, Tiling::Linear)
        };
        let mut gpu = new_gpu(p, &s3);
        let r = send(
            "typed_read(bti=0, slots=lo, mask=x) mlen=4 rlen=1 hdr",
            vec![header(1), [0; 8], [0; 8], [1; 8]],
        );
        refused(p, &mut gpu, r, "vertical alignment");
    }
}

#[test]
fn uint8_reads_convert_on_gen75_and_return_a_raw_dword_on_gen7() {
    // RGBA8_UINT: typed reads from Gen7.5 (TR 75), zero-extended; on Gen7
    // refused. Writes clamp to 255 (IGC SCATTER4_TYPED).
    let s = Surf::two_d(format::R8G8B8A8_UINT, 4, 2, 16, Tiling::Linear);
    let value = |i: usize, c: usize| [40 * i as u32, 300 + i as u32, 7, 255 - i as u32][c];
    let (x, y) = (|i: usize| i as u32 % 4, |i: usize| i as u32 / 4);
    for p in GENS {
        let mut gpu = new_gpu(p, &s);
        let mut payload = vec![header(0xFF), lanes(x), lanes(y)];
        for c in 0..4 {
            payload.push(lanes(|i| value(i, c)));
        }
        let w = send(
            "typed_write(bti=0, slots=lo, mask=xyzw) mlen=7 rlen=0 hdr",
            payload,
        );
        let r = send(
            "typed_read(bti=0, slots=lo, mask=yw) mlen=3 rlen=2 hdr",
            vec![header(0xFF), lanes(x), lanes(y)],
        );
        if p == IsaGen::Gen7 {
            run_ok(p, &mut gpu, &[w], u32::MAX);
            refused(p, &mut gpu, r, "not readable");
            continue;
        }
        let h = run_ok(p, &mut gpu, &[w, r], u32::MAX);
        for i in 0..8 {
            assert_eq!(resp(&h, 1, 0)[i], value(i, 1).min(255), "{p:?} green {i}");
            assert_eq!(resp(&h, 1, 1)[i], value(i, 3), "{p:?} alpha {i}");
        }
    }
    // R8_UINT: Gen7.5 returns the byte; Gen7 an unaligned 32-bit read,
    // the dword at the texel's address [ext: mesa isl_storage_image.c].
    let s = Surf::two_d(format::R8_UINT, 8, 2, 8, Tiling::Linear);
    let (x, y) = (|i: usize| 7 - i as u32, |i: usize| i as u32 % 2);
    for p in GENS {
        let mut gpu = new_gpu(p, &s);
        let r = send(
            "typed_read(bti=0, slots=lo, mask=x) mlen=3 rlen=1 hdr",
            vec![header(0xFF), lanes(x), lanes(y)],
        );
        let h = run_ok(p, &mut gpu, &[r], u32::MAX);
        let area = area_pattern();
        for i in 0..8 {
            let at = s.texel(x(i), y(i), 0).expect("inside");
            let want = if p == IsaGen::Gen7 {
                dword_at(&area, at)
            } else {
                u32::from(area[at])
            };
            assert_eq!(resp(&h, 0, 0)[i], want, "{p:?} slot {i}");
        }
    }
}

#[test]
fn simd4x2_uses_four_dwords_per_slot() {
    // Gen7.5 DC1 only. Slot 0 in dwords 0-3, slot 1 in 4-7: U, V, R, LOD
    // in one register, R, G, B, A in the next. M0.7 is zero, as Mesa's
    // vec4 code leaves it: the execution mask alone enables.
    let p = IsaGen::Gen75;
    let s = Surf::two_d(format::R8G8B8A8_UINT, 4, 4, 16, Tiling::Linear);
    let mut gpu = new_gpu(p, &s);
    let addr = [2, 3, 0, 0, 1, 0, 0, 0];
    let data = [10, 20, 30, 40, 50, 60, 70, 80];
    let w = send(
        "typed_write(bti=0, slots=4x2, mask=xyzw) mlen=3 rlen=0 hdr",
        vec![header(0), addr, data],
    );
    let r = send(
        "typed_read(bti=0, slots=4x2, mask=xyzw) mlen=2 rlen=1 hdr",
        vec![header(0), addr],
    );
    // Channels 2 (slot 0 blue) and 7 (slot 1 alpha) are off.
    let h = run_ok(p, &mut gpu, &[w, r], 0b0111_1011);
    let mut want = area_pattern();
    let (t0, t1) = (s.texel(2, 3, 0).expect("t0"), s.texel(1, 0, 0).expect("t1"));
    for (c, v) in [(0, 10), (1, 20), (3, 40)] {
        want[t0 + c] = v;
    }
    for (c, v) in [(0, 50), (1, 60), (2, 70)] {
        want[t1 + c] = v;
    }
    assert!(area(&gpu) == want, "{p:?}");
    // The read returns the enabled channels in the same places.
    let got = resp(&h, 1, 0);
    for (d, at) in [
        (0, t0),
        (1, t0 + 1),
        (3, t0 + 3),
        (4, t1),
        (5, t1 + 1),
        (6, t1 + 2),
    ] {
        assert_eq!(got[d], u32::from(want[at]), "dword {d}");
    }
    assert_eq!((got[2], got[7]), (MARK, MARK), "disabled channels");
}

#[test]
fn a_null_surface_reads_zeros_and_takes_writes() {
    let s = Surf::two_d(format::R32_UINT, 4, 4, 16, Tiling::Linear);
    for p in GENS {
        let mut gpu = new_gpu(p, &s);
        let w = send(
            "typed_write(bti=1, slots=lo, mask=x) mlen=4 rlen=0 hdr",
            vec![header(0xFF), [0; 8], [0; 8], [9; 8]],
        );
        let r = send(
            "typed_read(bti=1, slots=lo, mask=xyzw) mlen=3 rlen=4 hdr",
            vec![header(0xFF), [0; 8], [0; 8]],
        );
        let h = run_ok(p, &mut gpu, &[w, r], 0x0F);
        assert!(area(&gpu) == area_pattern(), "{p:?}");
        // All zeros, alpha too (003 lines 75483-75486); slots 4-7 are off.
        for c in 0..4 {
            let want = lanes(|i| if i < 4 { 0 } else { MARK });
            assert_eq!(resp(&h, 1, c), want, "{p:?} channel {c}");
        }
    }
}
