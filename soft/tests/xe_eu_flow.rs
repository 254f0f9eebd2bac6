//! Xe-HPG flow control in the one-thread harness: nested loops with a
//! break, if/else/endif, call/ret, jmpi, goto/join and halt over
//! divergent channels, each channel checked against a host simulation of
//! the same structured program.

#![allow(clippy::needless_range_loop, clippy::type_complexity)]

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
}

/// Our Gen12.5 assembler reads branch targets as `L<byte offset>` (as
/// iga64 prints them): symbolic labels become those here (every
/// instruction is 16 bytes native).
fn resolve(src: &str) -> String {
    let mut labels = Vec::new();
    let mut n = 0;
    for line in src.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match line.strip_suffix(':') {
            Some(name) => labels.push((name.to_string(), n * 16)),
            None => n += 1,
        }
    }
    let mut out = String::new();
    for line in src.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.ends_with(':') {
            continue;
        }
        let words: Vec<String> = line
            .split(' ')
            .map(|w| match labels.iter().find(|(l, _)| l == w) {
                Some((_, off)) => format!("L{off}"),
                None => w.to_string(),
            })
            .collect();
        out.push_str(&words.join(" "));
        out.push('\n');
    }
    out
}

const KERNEL: &str = "
mov (8|M0) r10.0<1>:ud 0x0:ud
mov (8|M0) r11.0<1>:ud 0x0:ud
LOOP:
mov (8|M0) r12.0<1>:ud 0x0:ud {A@1}
LINNER:
add (8|M0) r10.0<1>:ud r10.0<1;1,0>:ud r11.0<1;1,0>:ud {A@1}
add (8|M0) r12.0<1>:ud r12.0<1;1,0>:ud 0x1:ud {A@1}
cmp (8|M0) (eq)f1.0 null<1>:ud r12.0<1;1,0>:ud r4.0<1;1,0>:ud {A@1}
(f1.0) break (8|M0) LIW LIW
cmp (8|M0) (lt)f0.0 null<1>:ud r12.0<1;1,0>:ud r3.0<1;1,0>:ud {A@1}
LIW:
(f0.0) while (8|M0) LINNER
and (8|M0) r13.0<1>:ud r11.0<1;1,0>:ud 0x1:ud {A@1}
cmp (8|M0) (ne)f0.1 null<1>:ud r13.0<1;1,0>:ud 0x0:ud {A@1}
(f0.1) if (8|M0) LELSE1 LENDIF1
add (8|M0) r10.0<1>:ud r10.0<1;1,0>:ud 0x64:ud {A@1}
else (8|M0) LENDIF1 LENDIF1
LELSE1:
add (8|M0) r10.0<1>:ud r10.0<1;1,0>:ud 0x3E8:ud {A@1}
LENDIF1:
endif (8|M0) LNEXT
LNEXT:
add (8|M0) r11.0<1>:ud r11.0<1;1,0>:ud 0x1:ud {A@1}
cmp (8|M0) (lt)f0.0 null<1>:ud r11.0<1;1,0>:ud r2.0<1;1,0>:ud {A@1}
(f0.0) while (8|M0) LOOP
call (8|M0) r20.0 LSUB
(W) jmpi (1|M0) LSKIP
mov (8|M0) r10.0<1>:ud 0x0:ud
LSUB:
add (8|M0) r10.0<1>:ud r10.0<1;1,0>:ud 0x7:ud {A@1}
ret (8|M0) r20.0
LSKIP:
cmp (8|M0) (gt)f0.0 null<1>:ud r5.0<1;1,0>:ud 0x5:ud {A@1}
(f0.0) goto (8|M0) LJ1 LJ1
add (8|M0) r10.0<1>:ud r10.0<1;1,0>:ud 0x2710:ud {A@1}
LJ1:
join (8|M0) LJ2
LJ2:
(f0.0) halt (8|M0) LEND LEND
mov (8|M0) r14.0<1>:ud 0x1:ud
LEND:
sync.nop null
";

/// The same program per channel on the host: (r10, r14).
fn host(n: u32, m: u32, k: u32, x: u32) -> (u32, u32) {
    let mut sum = 0u32;
    let mut i = 0u32;
    loop {
        let mut j = 0u32;
        loop {
            sum = sum.wrapping_add(i);
            j += 1;
            if j == k {
                break;
            }
            if j >= m {
                break;
            }
        }
        sum += if i & 1 != 0 { 100 } else { 1000 };
        i += 1;
        if i >= n {
            break;
        }
    }
    sum += 7;
    if x <= 5 {
        sum += 10000;
    }
    (sum, u32::from(x <= 5))
}

#[test]
fn divergent_nested_loops_branches_calls_and_halt() {
    let mut rng = Rng(0xf10f_0001);
    for round in 0..40 {
        let mut h = XeHarness::new();
        h.load_asm(&resolve(KERNEL)).unwrap();
        // A SIMD8 dispatch.
        h.thread.thread.set_dispatch_mask(0xFF);
        let mut inputs = [[0u32; 4]; 8];
        for (c, inp) in inputs.iter_mut().enumerate() {
            *inp = [
                rng.next() % 6,
                rng.next() % 5,
                rng.next() % 6,
                rng.next() % 10,
            ];
            for (r, v) in inp.iter().enumerate() {
                h.set_grf_ud(2 + r as u8, c, *v);
            }
        }
        let step = h
            .run(100_000)
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert_eq!(step, Step::EndOfKernel);
        for (c, [n, m, k, x]) in inputs.iter().copied().enumerate() {
            let (sum, wrote) = host(n, m, k, x);
            assert_eq!(
                h.grf_ud(10, c),
                sum,
                "round {round} ch {c}: n {n} m {m} k {k} x {x}"
            );
            assert_eq!(h.grf_ud(14, c), wrote, "halt: ch {c} x {x}");
        }
    }
}

/// Channels off in the dispatch mask take no part; an if whose channels
/// all fail jumps over the block; SIMD16 branches move both halves.
#[test]
fn dispatch_mask_and_uniform_jumps() {
    let src = "
cmp (16|M0) (gt)f0.0 null<1>:ud r2.0<1;1,0>:ud 0x10:ud
(f0.0) if (16|M0) LENDIF1 LENDIF1
mov (16|M0) r10.0<1>:ud 0x1:ud
LENDIF1:
endif (16|M0) LNEXT
LNEXT:
mov (16|M0) r12.0<1>:ud 0x2:ud
";
    let mut h = XeHarness::new();
    h.load_asm(&resolve(src)).unwrap();
    for c in 0..16 {
        h.set_grf_ud(2 + (c / 8) as u8, c % 8, if c % 3 == 0 { 100 } else { 1 });
    }
    h.thread.thread.set_dispatch_mask(0x7FFF);
    assert_eq!(h.run(100).unwrap(), Step::EndOfKernel);
    for c in 0..16 {
        let in_if = c % 3 == 0 && c != 15;
        assert_eq!(
            h.grf_ud(10 + (c / 8) as u8, c % 8),
            u32::from(in_if),
            "ch {c}"
        );
        assert_eq!(
            h.grf_ud(12 + (c / 8) as u8, c % 8),
            if c == 15 { 0 } else { 2 }
        );
    }
    // No channel passes: the if jumps to the endif at once.
    let mut h = XeHarness::new();
    h.load_asm(&resolve(src)).unwrap();
    h.thread.thread.set_dispatch_mask(0xFFFF);
    assert_eq!(h.run(100).unwrap(), Step::EndOfKernel);
    assert_eq!(h.thread.thread.executed(), 4, "cmp, if, endif, mov");
}

/// The kernels above (symbolic labels and all) assemble with
/// `iga64 -p=12p71` to exactly our bits: the tests run the encoding
/// Intel's assembler produces. Skipped (with a note) without iga64.
#[test]
fn kernels_match_iga64() {
    let dir = std::env::temp_dir().join(format!("baregpu-xe-flow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (n, k) in [KERNEL, BRANCHES].iter().enumerate() {
        let (src, out) = (dir.join(format!("k{n}.asm")), dir.join(format!("k{n}.bin")));
        std::fs::write(&src, k).unwrap();
        let Ok(r) = std::process::Command::new("iga64")
            .args(["-p=12p71", "-a"])
            .arg(&src)
            .arg("-o")
            .arg(&out)
            .output()
        else {
            eprintln!("iga64 not found: skipping the oracle comparison");
            return;
        };
        assert!(
            r.status.success(),
            "iga64: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        let theirs = std::fs::read(&out).unwrap();
        let ours = baregpu_isa::text::assemble(baregpu_isa::IsaGen::Gen12_5, &resolve(k)).unwrap();
        assert_eq!(ours.len(), theirs.len(), "kernel {n}");
        for (i, (a, b)) in ours.chunks(16).zip(theirs.chunks(16)).enumerate() {
            assert_eq!(a, b, "kernel {n} instruction {i}");
        }
    }
}

const BRANCHES: &str = "
cmp (8|M0) (gt)f0.0 null<1>:ud r2.0<1;1,0>:ud 0x5:ud
(f0.0) brc (8|M0) LU LU
mov (8|M0) r10.0<1>:ud 0x1:ud
LU:
mov (8|M0) r11.0<1>:ud 0x2:ud
(f0.0) brd (8|M0) LB
mov (8|M0) r12.0<1>:ud 0x3:ud
LB:
mov (8|M0) r13.0<1>:ud 0x4:ud
";

/// brc sends the predicated channels to UIP and the others through the
/// block; brd sends the predicated channels to JIP and the thread follows
/// them when any went, leaving the others behind (004 lines 11339-11523).
#[test]
fn branch_converging_and_diverging() {
    let src = BRANCHES;
    let mut rng = Rng(0xf10f_0002);
    for _ in 0..10 {
        let mut h = XeHarness::new();
        h.load_asm(&resolve(src)).unwrap();
        h.thread.thread.set_dispatch_mask(0xFF);
        let x: Vec<u32> = (0..8).map(|_| rng.next() % 10).collect();
        for (c, v) in x.iter().enumerate() {
            h.set_grf_ud(2, c, *v);
        }
        assert_eq!(h.run(100).unwrap(), Step::EndOfKernel);
        let any = x.iter().any(|v| *v > 5);
        for (c, v) in x.iter().enumerate() {
            let taken = *v > 5;
            assert_eq!(h.grf_ud(10, c), u32::from(!taken), "brc block ch {c}");
            assert_eq!(h.grf_ud(11, c), 2, "after brc ch {c}");
            // With any channel branched away, the thread went with it:
            // the others wait at the mov that never runs again.
            let (r12, r13) = match (any, taken) {
                (false, _) => (3, 4),
                (true, true) => (0, 4),
                (true, false) => (0, 0),
            };
            assert_eq!(
                (h.grf_ud(12, c), h.grf_ud(13, c)),
                (r12, r13),
                "brd ch {c} {x:?}"
            );
        }
    }
}

/// IGC's loop back edge, `goto.b` (BranchCtrl): channels whose predicate
/// holds go back to the loop head (UIP), the others wait at the next
/// instruction, and the thread follows the looping channels until none is
/// left (004 lines 15965-15972). Each channel loops its own count of times.
#[test]
fn a_branch_ctrl_goto_loops_each_channel_its_own_times() {
    let src = "
mov (8|M0) r10.0<1>:ud 0x0:ud
LHEAD:
add (8|M0) r10.0<1>:ud r10.0<1;1,0>:ud r3.0<1;1,0>:ud {I@1}
add (8|M0) r2.0<1>:ud r2.0<1;1,0>:ud 0xFFFFFFFF:ud
cmp (8|M0) (gt)f0.0 null<1>:ud r2.0<1;1,0>:ud 0x0:ud {I@1}
(f0.0) goto.b (8|M0) LOUT LHEAD
LOUT:
join (8|M0) LEND
LEND:
add (8|M0) r11.0<1>:ud r10.0<1;1,0>:ud 0x1:ud {I@1}
";
    let mut rng = Rng(0xf10f_0003);
    for round in 0..10 {
        let mut h = XeHarness::new();
        h.load_asm(&resolve(src)).unwrap();
        h.thread.thread.set_dispatch_mask(0xFF);
        let counts: Vec<u32> = (0..8).map(|_| 1 + rng.next() % 7).collect();
        for (c, n) in counts.iter().enumerate() {
            h.set_grf_ud(2, c, *n);
            h.set_grf_ud(3, c, 10 + c as u32);
        }
        assert_eq!(h.run(10_000).unwrap(), Step::EndOfKernel, "round {round}");
        for (c, n) in counts.iter().enumerate() {
            let sum = n * (10 + c as u32);
            assert_eq!(h.grf_ud(10, c), sum, "round {round} ch {c} n {n}");
            // Every channel reached the code after the loop once.
            assert_eq!(h.grf_ud(11, c), sum + 1, "round {round} ch {c}");
        }
    }
}
