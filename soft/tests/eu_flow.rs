//! Flow control per generation: nested if/else/endif with divergent
//! channels, a loop with break and continue, call/ret, halt, jmpi, and the
//! Gen4 mask stacks. Expected values are computed per channel on the host.

// Channels index several arrays at once; index loops read best.
#![allow(clippy::needless_range_loop)]

mod eu_support;

use baregpu_isa::IsaGen;
use eu_support::*;

const GEN4: [IsaGen; 2] = [IsaGen::Gen4, IsaGen::G45];
const GEN6: [IsaGen; 3] = [IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75];

/// The nested if/else of every test: channel c runs
///   if (x[c] < 4) { r10 = 1; if (x[c] < 2) r11 = 5 } else { r10 = 2 }
///   r12 = 7
fn nested_if(p: IsaGen) -> String {
    let body = |if_outer: &str, if_inner: &str, endif_inner: &str, else_: &str, endif: &str| {
        format!(
            "cmp (8|M0) (lt)f0.0 null<1>:d r2.0<8;8,1>:d 4:d\n\
             (f0.0) {if_outer}\n\
             mov (8|M0) r10.0<1>:d 1:d\n\
             cmp (8|M0) (lt)f0.1 null<1>:d r2.0<8;8,1>:d 2:d\n\
             (f0.1) {if_inner}\n\
             mov (8|M0) r11.0<1>:d 5:d\n\
             INNER:\n\
             {endif_inner}\n\
             ELSE:\n\
             {else_}\n\
             ELSEBODY:\n\
             mov (8|M0) r10.0<1>:d 2:d\n\
             ENDIF:\n\
             {endif}\n\
             AFTER:\n\
             mov (8|M0) r12.0<1>:d 7:d\n"
        )
    };
    match p {
        // The if jumps to its else (or endif); the else past the endif
        // (000 lines 11562-11605, 11806-11830).
        IsaGen::Gen4 | IsaGen::G45 => body(
            "if (8|M0) ELSE",
            "if (8|M0) INNER",
            "endif (8|M0) 0 pop(1)",
            "else (8|M0) AFTER pop(1)",
            "endif (8|M0) 0 pop(1)",
        ),
        // JIP: if to right after its else, else to the endif, endif to the
        // next place channels may wait (003 lines 98418-98558, 97921-98078).
        IsaGen::Gen6 => body(
            "if (8|M0) ELSEBODY",
            "if (8|M0) INNER",
            "endif (8|M0) ELSE",
            "else (8|M0) ENDIF",
            "endif (8|M0) AFTER",
        ),
        _ => body(
            "if (8|M0) ELSEBODY ENDIF",
            "if (8|M0) INNER INNER",
            "endif (8|M0) ELSE",
            "else (8|M0) ENDIF",
            "endif (8|M0) AFTER",
        ),
    }
}

#[test]
fn nested_if_else_divergent() {
    let inputs: [[u32; 8]; 4] = [
        [0, 1, 2, 3, 4, 5, 6, 7],
        [7, 6, 5, 4, 3, 2, 1, 0],
        [9, 9, 9, 9, 9, 9, 9, 9], // every channel takes the else
        [0, 0, 0, 0, 1, 1, 1, 1], // every channel takes both ifs' then-parts
    ];
    for p in IsaGen::ALL {
        let src = nested_if(p);
        for x in inputs {
            let h = run(p, &src, |h| {
                simd8(h);
                set_ud(h, 2, x);
            });
            for c in 0..8 {
                let (r10, r11) = if x[c] < 4 {
                    (1, if x[c] < 2 { 5 } else { 0 })
                } else {
                    (2, 0)
                };
                assert_eq!(h.thread.grf_ud(10, c), r10, "{p} {x:?} channel {c} r10");
                assert_eq!(h.thread.grf_ud(11, c), r11, "{p} {x:?} channel {c} r11");
                assert_eq!(h.thread.grf_ud(12, c), 7, "{p} {x:?} channel {c} r12");
            }
        }
    }
}

/// for (i = 1;; i++) { if (i >= limit) break; if (i == 2) continue; sum += i }
fn loop_kernel(p: IsaGen) -> String {
    let (do_, brk, cnt, whl) = match p {
        IsaGen::Gen4 | IsaGen::G45 => (
            "do (8|M0) null<1>:ud null<0;1,0>:ud\n",
            "break (8|M0) END",
            "cont (8|M0) WHILE",
            "while (8|M0) TOP",
        ),
        // A break or cont directly in the loop has JIP = UIP (003 lines
        // 97560-97565). The break UIP is past the while here on Gen7 too
        // (the Gen6 layout); Mesa's Gen7 layout, UIP at the while, is in
        // eu_flow_mesa.rs.
        _ => (
            "",
            "break (8|M0) END END",
            "cont (8|M0) WHILE WHILE",
            "while (8|M0) TOP",
        ),
    };
    format!(
        "mov (8|M0) r10.0<1>:d 0:d\n\
         mov (8|M0) r11.0<1>:d 0:d\n\
         {do_}\
         TOP:\n\
         add (8|M0) r11.0<1>:d r11.0<8;8,1>:d 1:d\n\
         cmp (8|M0) (ge)f0.0 null<1>:d r11.0<8;8,1>:d r3.0<8;8,1>:d\n\
         (f0.0) {brk}\n\
         cmp (8|M0) (eq)f0.1 null<1>:d r11.0<8;8,1>:d 2:d\n\
         (f0.1) {cnt}\n\
         add (8|M0) r10.0<1>:d r10.0<8;8,1>:d r11.0<8;8,1>:d\n\
         WHILE:\n\
         {whl}\n\
         END:\n\
         mov (8|M0) r12.0<1>:d 3:d\n"
    )
}

#[test]
fn loop_with_break_and_continue() {
    let limits: [[u32; 8]; 3] = [[1, 2, 3, 4, 5, 6, 7, 12], [3; 8], [9, 1, 1, 1, 1, 1, 1, 1]];
    for p in IsaGen::ALL {
        let src = loop_kernel(p);
        for lim in limits {
            let h = run(p, &src, |h| {
                simd8(h);
                set_ud(h, 3, lim);
            });
            for c in 0..8 {
                let want: u32 = (1..lim[c]).filter(|&i| i != 2).sum();
                assert_eq!(
                    h.thread.grf_ud(10, c),
                    want,
                    "{p} limit {} channel {c}",
                    lim[c]
                );
                assert_eq!(h.thread.grf_ud(11, c), lim[c], "{p} counter channel {c}");
                assert_eq!(h.thread.grf_ud(12, c), 3, "{p} after the loop");
            }
            if p <= IsaGen::G45 {
                // The masks are back to the dispatch mask and the stacks empty.
                let mask = h
                    .thread
                    .register(baregpu_isa::inst::RegFile::Arf, 0x40)
                    .unwrap();
                assert_eq!(&mask[..8], &[0xFF, 0, 0xFF, 0, 0xFF, 0, 0xFF, 0], "{p}");
                let depth = h
                    .thread
                    .register(baregpu_isa::inst::RegFile::Arf, 0x60)
                    .unwrap();
                assert_eq!(&depth[..4], &[0; 4], "{p}");
            }
        }
    }
}

/// call/ret (003 lines 97037-97149, 99998-100080): the predicated channels
/// run the subroutine, the return IP and CallMask are in dst dwords 0/1.
#[test]
fn call_and_return() {
    for p in GEN6 {
        let src = "mov (8|M0) r10.0<1>:d 1:d\n\
                   (f0.0) call (8|M0) r5.0<1>:ud SUB\n\
                   add (8|M0) r10.0<1>:d r10.0<8;8,1>:d 100:d\n\
                   (W) jmpi END\n\
                   SUB:\n\
                   mul (8|M0) r10.0<1>:d r10.0<8;8,1>:d 3:d\n\
                   ret (8|M0) null<1>:ud r5.0<2;2,1>:ud\n\
                   END:\n\
                   mov (8|M0) r11.0<1>:d 2:d\n";
        for flags in [0xFFu32, 0b1010_0101, 0] {
            let h = run(p, src, |h| {
                simd8(h);
                h.thread.set_flag(0, flags);
            });
            for c in 0..8 {
                let called = flags >> c & 1 != 0;
                let want = if called { 103 } else { 101 };
                assert_eq!(
                    h.thread.grf_ud(10, c),
                    want,
                    "{p} flags {flags:#x} channel {c}"
                );
                assert_eq!(h.thread.grf_ud(11, c), 2, "{p}");
            }
            if flags != 0 {
                assert_eq!(h.thread.grf_ud(5, 0), 32, "{p} return IP");
                assert_eq!(h.thread.grf_ud(5, 1), flags, "{p} CallMask");
            }
        }
    }
}

/// halt: the predicated channels go to UIP (the end) and rejoin there
/// (003 lines 98321-98417); Gen4 clears them from AMask (000 lines
/// 11752-11790).
#[test]
fn halt_channels() {
    for p in IsaGen::ALL {
        let halt = if p <= IsaGen::G45 {
            "(f0.0) halt (8|M0) END\n"
        } else {
            "(f0.0) halt (8|M0) END END\n"
        };
        let restore = if p <= IsaGen::G45 {
            // AMask is not restored by hardware: put the dispatch mask back.
            "(W) mov (1|M0) mask0.0<1>:uw 0xff:uw {Switch}\n"
        } else {
            ""
        };
        let src = format!(
            "cmp (8|M0) (lt)f0.0 null<1>:d r2.0<8;8,1>:d 4:d\n{halt}mov (8|M0) r10.0<1>:d 9:d\nEND:\n{restore}mov (8|M0) r11.0<1>:d 1:d\n"
        );
        let h = run(p, &src, |h| {
            simd8(h);
            set_ud(h, 2, [0, 5, 1, 6, 2, 7, 3, 8]);
        });
        for c in 0..8 {
            let halted = [0, 5, 1, 6, 2, 7, 3, 8][c] < 4;
            assert_eq!(
                h.thread.grf_ud(10, c),
                if halted { 0 } else { 9 },
                "{p} channel {c}"
            );
            assert_eq!(h.thread.grf_ud(11, c), 1, "{p} channel {c} after the halt");
        }
    }
}

/// jmpi (000 lines 11925-11976; 003 lines 98559-98645): forward over an
/// instruction, and a backward loop counted down with a predicated jmpi.
#[test]
fn jmpi_forward_and_loop() {
    for p in IsaGen::ALL {
        let src = "mov (1|M0) r10.0<1>:d 0:d\n\
                   mov (1|M0) r11.0<1>:d 5:d\n\
                   (W) jmpi SKIP\n\
                   mov (1|M0) r10.0<1>:d 99:d\n\
                   SKIP:\n\
                   add (1|M0) r10.0<1>:d r10.0<0;1,0>:d 2:d\n\
                   add (1|M0) (gt)f0.0 r11.0<1>:d r11.0<0;1,0>:d -1:d\n\
                   (W&f0.0) jmpi SKIP\n";
        let h = run(p, src, simd8);
        assert_eq!(h.thread.grf_ud(10, 0), 10, "{p}: five passes of +2");
        assert_eq!(h.thread.grf_ud(11, 0), 0, "{p}");
    }
}

/// Single program flow (cr0.0[2]): branches move the whole thread, no
/// channel diverges (000 lines 10640-10660; 003 line 98546, 97034).
#[test]
fn single_program_flow() {
    for p in IsaGen::ALL {
        let src = nested_if(p);
        let h = run(p, &src, |h| {
            simd8(h);
            h.thread.set_cr0(0, 4);
            set_ud(h, 2, [0, 1, 2, 3, 4, 5, 6, 7]);
        });
        // Some channel passes each if, so the whole thread runs the
        // then-parts; Gen4's else then finds IMask = ~IMask & top non-zero
        // for the channels that failed; Gen6+ SPF else jumps to the endif.
        for c in 0..8 {
            assert_eq!(h.thread.grf_ud(12, c), 7, "{p} channel {c}");
        }
        if p >= IsaGen::Gen6 {
            assert_eq!(ud(&h, 10), [1; 8], "{p} no divergence");
            assert_eq!(ud(&h, 11), [5; 8], "{p}");
        }
    }
}

/// Gen4 mask-stack instructions: msave pushes a mask and loads EMask,
/// mrest restores it; push/pop move the depth (000 lines 12326-12820); a
/// pop past the bottom is a mask-stack exception when cr0.1[11] enables it.
#[test]
fn gen4_mask_stack_instructions() {
    for p in GEN4 {
        // Operands as the manual writes them: mask0.1:uw is IMask, ms0.0 the
        // IStack, ms0.16 bytes (ms0.8:uw) the LStack (000 lines 7830-7845,
        // 7905-7910). The reads of mask0 use NoMask: msave narrows IMask.
        let src = "msave (1|M0) ms0.0<1>:uw mask0.1<0;1,0>:uw\n\
                   (W) mov (8|M0) r10.0<1>:uw mask0.0<8;8,1>:uw {Switch}\n\
                   mrest (1|M0) mask0.1<1>:uw ms0.0<0;1,0>:uw\n\
                   (W) mov (8|M0) r11.0<1>:uw mask0.0<8;8,1>:uw {Switch}\n\
                   push (1|M0) ms0.8<1>:uw mask0.2<0;1,0>:uw\n\
                   push (1|M0) ms0.8<1>:uw mask0.2<0;1,0>:uw\n\
                   mov (2|M0) r12.0<1>:uw msd0.0<2;2,1>:uw {Switch}\n\
                   pop (1|M0) ms0.8<1>:uw ms0.8<0;1,0>:uw 2:uw\n\
                   mov (2|M0) r13.0<1>:uw msd0.0<2;2,1>:uw {Switch}\n";
        let h = run(p, src, |h| h.thread.set_dispatch_mask(0xFFFF));
        // msave loaded IMask with the EMask of the instruction: ExecSize 1
        // keeps channel 0 only (000 lines 10739-10751).
        assert_eq!(h.thread.grf_uw(10, 1), 0x0001, "{p} IMask after msave");
        assert_eq!(h.thread.grf_uw(11, 1), 0xFFFF, "{p} IMask after mrest");
        assert_eq!(
            (h.thread.grf_uw(12, 0), h.thread.grf_uw(12, 1)),
            (0, 2),
            "{p} depths"
        );
        assert_eq!(
            (h.thread.grf_uw(13, 0), h.thread.grf_uw(13, 1)),
            (0, 0),
            "{p} popped"
        );

        let mut hh = baregpu_soft::eu::Harness::new(p);
        hh.load_asm("pop (1|M0) ms0.8<1>:uw ms0.8<0;1,0>:uw 1:uw\n")
            .unwrap();
        hh.thread.set_cr0(1, 1 << 11);
        let e = hh.run(10).unwrap_err();
        assert_eq!(e.kind, baregpu_soft::eu::ErrorKind::MaskStack, "{p}");
    }
}

/// Writing `ip` is a jump; reading it gives the instruction's own address
/// (000 lines 8200-8228, 14416-14445: `add (1) ip ip <bytes>`).
#[test]
fn ip_writes_jump() {
    for p in IsaGen::ALL {
        let src = "mov (1|M0) r10.0<1>:d 1:d\n\
                   (W) add (1|M0) ip<1>:ud ip<0;1,0>:ud 32:ud\n\
                   mov (1|M0) r10.0<1>:d 2:d\n\
                   mov (1|M0) r11.0<1>:d 3:d\n";
        let h = run(p, src, simd8);
        assert_eq!(
            h.thread.grf_ud(10, 0),
            1,
            "{p}: the mov after the jump was skipped"
        );
        assert_eq!(h.thread.grf_ud(11, 0), 3, "{p}");
    }
}

/// Gen6 `if` with an embedded compare: the condition modifier compares
/// src0 with src1 instead of the predicate and writes no flag (003 lines
/// 98418-98470). The assembler has no syntax for it, so the instruction is
/// built from an assembled `if`.
#[test]
fn gen6_if_embedded_compare() {
    use baregpu_isa::codec::{decode, encode, to_dwords};
    use baregpu_isa::inst::{Body, CondMod, RegSrc, Src, Type};
    let p = IsaGen::Gen6;
    let src =
        "if (8|M0) 32\nmov (8|M0) r10.0<1>:d 1:d\nendif (8|M0) 16\nmov (8|M0) r11.0<1>:d 2:d\n";
    let mut bytes = baregpu_isa::text::assemble(p, src).unwrap();
    let word = |b: &[u8]| {
        (0..4).fold(0u128, |w, i| {
            w | u128::from(u32::from_le_bytes([
                b[4 * i],
                b[4 * i + 1],
                b[4 * i + 2],
                b[4 * i + 3],
            ])) << (32 * i)
        })
    };
    let mut inst = decode(p, word(&bytes[..16])).unwrap();
    inst.cond_mod = CondMod::L;
    if let Body::Branch(b) = &mut inst.body {
        b.src0 = Src::Reg(RegSrc::grf(2, 0, Type::D, 8, 8, 1));
        b.src1 = Src::Reg(RegSrc::grf(3, 0, Type::D, 8, 8, 1));
    }
    let Ok(w) = encode(p, &inst) else {
        panic!("the encoder takes an if with a compare");
    };
    let dw = to_dwords(w);
    for (i, d) in dw.iter().enumerate() {
        bytes[4 * i..4 * i + 4].copy_from_slice(&d.to_le_bytes());
    }
    let mut h = baregpu_soft::eu::Harness::new(p);
    h.load(&bytes);
    simd8(&mut h);
    set_ud(&mut h, 2, [0, 5, 2, 7, 4, 9, 6, 11]);
    set_ud(&mut h, 3, [4; 8]);
    assert_eq!(h.run(100), Ok(baregpu_soft::eu::Step::EndOfKernel));
    for c in 0..8 {
        let less = [0, 5, 2, 7, 4, 9, 6, 11][c] < 4;
        assert_eq!(h.thread.grf_ud(10, c), u32::from(less), "channel {c}");
        assert_eq!(h.thread.grf_ud(11, c), 2, "channel {c}");
    }
    assert_eq!(h.thread.flag(0), 0, "no flag written");
}
