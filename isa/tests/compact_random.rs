//! Arbitrary words never panic, and whenever an expansion exists it compacts again to an
//! equivalent word: the same word exactly when that word picks the first matching row of
//! each table (the tables repeat some rows, and an immediate hides src1's subregister).

use baregpu_isa::IsaGen;
use baregpu_isa::compact::{self, CompactTables};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Whether compaction of `w`'s expansion must give `w` back: canonical row choices and,
/// on Gen7, the unused bit 28 clear (uncompact refuses it anyway).
fn canonical(t: &CompactTables, w: u64) -> bool {
    let index = |lo: u32| (w >> lo & 31) as usize;
    let first = |rows: &[u32; 32], i: usize, mask: u32| {
        rows.iter().position(|&r| r & mask == rows[i] & mask) == Some(i)
    };
    let subreg = t.subreg.map(u32::from);
    let src = t.src.map(u32::from);
    let datatype = t.datatype[index(13)];
    let imm = (datatype >> 5) & 3 == 3 || (datatype >> 10) & 3 == 3;
    first(&t.control, index(8), u32::MAX)
        && first(&t.datatype, index(13), u32::MAX)
        && first(&subreg, index(18), if imm { 0x3ff } else { 0x7fff })
        && first(&src, index(30), u32::MAX)
        && (imm || first(&src, index(35), u32::MAX))
}

fn ends_thread(n: [u32; 4]) -> bool {
    matches!(n[0] & 0x7f, 0x31 | 0x32) && n[3] >> 31 != 0
}

#[test]
fn random_compact_words() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for p in IsaGen::ALL {
        let (mut ok, mut same, mut eot) = (0u32, 0u32, 0u32);
        for i in 0..200_000u32 {
            let mut w = rng.next();
            if i % 2 == 0 {
                w |= 1 << 29;
            }
            let words = [w as u32, (w >> 32) as u32];
            let Ok(native) = compact::uncompact(p, words) else {
                continue;
            };
            ok += 1;
            assert!(!compact::is_compact(native[0]), "{p} {w:#018x}");
            let Some(again) = compact::compact(p, native) else {
                // Only an expansion that ends the thread may refuse to compact.
                assert!(ends_thread(native), "{p} {w:#018x} -> {native:08x?}");
                eot += 1;
                continue;
            };
            assert_eq!(compact::uncompact(p, again), Ok(native), "{p} {w:#018x}");
            let t = compact::tables(p).unwrap();
            assert_eq!(
                again == words,
                canonical(t, w),
                "{p} {w:#018x} -> {again:08x?}"
            );
            same += u32::from(again == words);
        }
        println!("{p}: {ok} expanded, {same} identical after re-compaction, {eot} EOT sends");
        if p != IsaGen::Gen4 {
            assert!(ok > 50_000 && same > 1_000, "{p}: too few valid words");
        }
    }
}

#[test]
fn flipped_native_bits_compact_only_exactly() {
    let mut rng = Rng(0x0bad_c0de_dead_beef);
    for p in IsaGen::ALL {
        let mut compactable = 0u32;
        for _ in 0..4_000 {
            let w = rng.next() | 1 << 29;
            let Ok(native) = compact::uncompact(p, [w as u32, (w >> 32) as u32]) else {
                continue;
            };
            for bit in 0..128 {
                let mut n = native;
                n[bit / 32] ^= 1 << (bit % 32);
                if let Some(c) = compact::compact(p, n) {
                    assert_eq!(compact::uncompact(p, c), Ok(n), "{p} bit {bit}");
                    assert!(bit != 29, "{p}: a word flagged compact was compacted");
                    compactable += 1;
                }
            }
        }
        println!("{p}: {compactable} one-bit variants still compact");
    }
}

#[test]
fn random_native_words() {
    let mut rng = Rng(0x5eed);
    for p in IsaGen::ALL {
        for _ in 0..100_000 {
            let (a, b) = (rng.next(), rng.next());
            // Clear the high garbage half the time so some words come close to compacting.
            let mask = if a & 1 == 0 {
                u64::MAX
            } else {
                0x01ff_ffff_00ff_ffff
            };
            let n = [
                a as u32,
                (a >> 32) as u32,
                (b & mask) as u32,
                ((b & mask) >> 32) as u32,
            ];
            if let Some(c) = compact::compact(p, n) {
                assert_eq!(compact::uncompact(p, c), Ok(n), "{p} {n:08x?}");
            }
        }
    }
}

/// Xe-HPG: arbitrary 64-bit words never panic; every expansion is a native word (CmptCtrl
/// clear) that compacts, if at all, to a word expanding to it again (every immediate row
/// of the datatype table has a type with a compact form, so none is refused); flipping any
/// one bit of an expansion gives a word that compacts only to an exact form.
#[test]
fn xehpg_random_compact_words() {
    let p = IsaGen::Gen12_5;
    let mut rng = Rng(0x0012_5125_1251_2512);
    let (mut ok, mut again_ok, mut same, mut bad_imm) = (0u32, 0u32, 0u32, 0u32);
    for i in 0..200_000u32 {
        let mut w = rng.next();
        if i % 8 != 0 {
            w |= 1 << 29;
        }
        let words = [w as u32, (w >> 32) as u32];
        let native = match compact::uncompact(p, words) {
            Ok(n) => n,
            Err(compact::CompactError::NotCompact) => {
                assert_eq!(w & 1 << 29, 0, "{w:#018x}");
                continue;
            }
            Err(compact::CompactError::ImmediateType(t)) => {
                assert!(
                    !matches!(t, 0 | 1 | 2 | 4 | 5 | 6 | 8 | 9 | 10),
                    "{w:#018x}"
                );
                bad_imm += 1;
                continue;
            }
            Err(e) => panic!("{w:#018x}: {e}"),
        };
        ok += 1;
        assert!(!compact::is_compact(native[0]), "{w:#018x}");
        let Some(again) = compact::compact(p, native) else {
            continue;
        };
        again_ok += 1;
        assert_eq!(compact::uncompact(p, again), Ok(native), "{w:#018x}");
        same += u32::from(again == words);
        if i % 50 == 0 {
            for bit in 0..128 {
                let mut n = native;
                n[bit / 32] ^= 1 << (bit % 32);
                if let Some(c) = compact::compact(p, n) {
                    assert_eq!(compact::uncompact(p, c), Ok(n), "{w:#018x} bit {bit}");
                }
            }
        }
    }
    println!(
        "gen12.5: {ok} expanded ({bad_imm} refused immediates), {again_ok} compact again, {same} to the same word"
    );
    assert_eq!(bad_imm, 0, "immediate rows of types without a compact form");
    assert!(ok > 100_000 && again_ok > 50_000 && same > 10_000);
}
