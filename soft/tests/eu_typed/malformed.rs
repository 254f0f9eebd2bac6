//! Malformed and unmodelled typed messages: each is an error, never a
//! panic, and writes nothing.

use baregpu_soft::eu::shared::Tiling;
use baregpu_soft::eu::shared::surface::format;

use super::rig::*;

#[test]
fn malformed_and_unmodelled_messages_are_errors() {
    let r32 = Surf::two_d(format::R32_UINT, 4, 4, 16, Tiling::Linear);
    let rgb32 = Surf::two_d(format::R32G32B32_FLOAT, 4, 4, 48, Tiling::Linear);
    let f32s = Surf::two_d(format::R32_FLOAT, 4, 4, 16, Tiling::Linear);
    let array = Surf { d: 3, ..r32 };
    let cube = Surf {
        kind: Kind::Cube,
        d: 1,
        ..r32
    };
    let regs = |n: usize| {
        let mut v = vec![header(0xFF)];
        v.extend(std::iter::repeat_n([1u32; 8], n - 1));
        v
    };
    let mut lod = regs(4);
    lod.push([1; 8]);
    let mut slice1 = regs(3);
    slice1.push([1; 8]); // R = 1
    slice1.push([5; 8]);
    let cases: Vec<(Surf, &str, Vec<[u32; 8]>, &str)> = vec![
        // The header is required (003 lines 83369-83373).
        (
            r32,
            "typed_write(bti=0, slots=lo, mask=x) mlen=3 rlen=0",
            regs(3),
            "header",
        ),
        // Header, U and four data registers at least.
        (
            r32,
            "typed_write(bti=0, slots=lo, mask=xyzw) mlen=5 rlen=0 hdr",
            regs(5),
            "shorter",
        ),
        // Five address parameters.
        (
            r32,
            "typed_read(bti=0, slots=lo, mask=x) mlen=6 rlen=1 hdr",
            regs(6),
            "longer",
        ),
        (
            r32,
            "typed_read(bti=0, slots=lo, mask=xyzw) mlen=3 rlen=2 hdr",
            regs(3),
            "response length",
        ),
        (
            r32,
            "typed_read(bti=0, slots=lo, mask=none) mlen=3 rlen=1 hdr",
            regs(3),
            "every channel",
        ),
        (
            r32,
            "typed_read(bti=0, slots=lo, mask=x) mlen=5 rlen=1 hdr",
            lod,
            "mip levels",
        ),
        (
            r32,
            "typed_write(bti=255, slots=lo, mask=x) mlen=3 rlen=0 hdr",
            regs(3),
            "binding-table",
        ),
        (
            r32,
            "typed_write(bti=254, slots=lo, mask=x) mlen=3 rlen=0 hdr",
            regs(3),
            "binding-table",
        ),
        // RGB32 formats take no typed writes (isl TW x).
        (
            rgb32,
            "typed_write(bti=0, slots=lo, mask=x) mlen=3 rlen=0 hdr",
            regs(3),
            "not modelled",
        ),
        (
            f32s,
            "typed_atomic(bti=0, op=add, slots=lo, ret) mlen=3 rlen=1 hdr",
            regs(3),
            "R32_UINT or R32_SINT",
        ),
        (
            array,
            "typed_write(bti=0, slots=lo, mask=x) mlen=5 rlen=0 hdr",
            slice1,
            "array slices",
        ),
        (
            cube,
            "typed_write(bti=0, slots=lo, mask=x) mlen=3 rlen=0 hdr",
            regs(3),
            "cube",
        ),
    ];
    for p in GENS {
        for (s, op, payload, why) in cases.clone() {
            let mut gpu = new_gpu(p, &s);
            refused(p, &mut gpu, send(op, payload), why);
            assert!(area(&gpu) == area_pattern(), "{p:?} {op} wrote");
        }
        // A payload that runs off the register file: header r124, U r125,
        // V r126, red r127, green r128 (none).
        let mut gpu = new_gpu(p, &r32);
        let mut s = send(
            "typed_write(bti=0, slots=lo, mask=xyzw) mlen=7 rlen=0 hdr",
            vec![header(0xFF), [0; 8], [0; 8], [1; 8]],
        );
        s.at = Some(124);
        refused(p, &mut gpu, s, "register file");
        assert!(area(&gpu) == area_pattern(), "{p:?} wrote");
    }
}

#[test]
fn every_short_length_is_an_error_not_a_panic() {
    // Every message length below what each message needs, with and
    // without a response, on both generations.
    let s = Surf::two_d(format::R32_UINT, 4, 4, 16, Tiling::Linear);
    for p in GENS {
        let ops = [
            ("typed_write(bti=0, slots=lo, mask=xyzw)", 6),
            ("typed_read(bti=0, slots=lo, mask=xy)", 2),
            ("typed_atomic(bti=0, op=cmpwr, slots=lo, ret)", 4),
        ];
        for (op, need) in ops {
            for mlen in 1..need {
                let rlen = usize::from(!op.starts_with("typed_write")) * 2;
                let text = format!("{op} mlen={mlen} rlen={rlen} hdr");
                let mut gpu = new_gpu(p, &s);
                refused(p, &mut gpu, send(text, vec![header(0xFF); mlen]), "shorter");
                assert!(area(&gpu) == area_pattern(), "{p:?} {op} mlen {mlen}");
            }
        }
    }
}

#[test]
fn a_refused_coordinate_in_any_slot_leaves_memory_alone() {
    // Slots 0-2 and 4-7 are fine; slot 3 asks for LOD 1 (not modelled).
    // Every coordinate is checked before the first write or atomic.
    let s = Surf::two_d(format::R32_UINT, 8, 1, 32, Tiling::Linear);
    for p in GENS {
        let lod = lanes(|i| u32::from(i == 3));
        let coords = vec![header(0xFF), lanes(|i| i as u32), [0; 8], [0; 8], lod];
        let mut w = coords.clone();
        w.push([7; 8]);
        let mut a = coords;
        a.push([7; 8]);
        for (op, payload) in [
            ("typed_write(bti=0, slots=lo, mask=x) mlen=6 rlen=0 hdr", w),
            (
                "typed_atomic(bti=0, op=add, slots=lo, ret) mlen=6 rlen=1 hdr",
                a,
            ),
        ] {
            let mut gpu = new_gpu(p, &s);
            refused(p, &mut gpu, send(op, payload), "mip levels");
            assert!(area(&gpu) == area_pattern(), "{p:?} {op} wrote");
        }
    }
}
