//! Issue 6 acceptance, instructions no existing test executed with a
//! checked result: `movi` (G45, Gen6, Gen7, Gen7.5) for every type, Gen4/
//! G45 `iff`, `nop` and `nenop`, `wait` with no notification pending on
//! every platform, and Gen6+ `sendc`.

mod eu_accept;

use baregpu_isa::IsaGen;
use baregpu_soft::eu::{Harness, Step};
use eu_accept::kernels::{self, MEM, end_thread};
use eu_accept::values::Rng;

fn assemble(p: IsaGen, src: &str) -> Harness {
    let mut h = Harness::new(p);
    h.load_asm(src)
        .unwrap_or_else(|e| panic!("{p}: {e}\n{src}"));
    h.thread.set_dispatch_mask(0xFFFF);
    h
}

fn byte(h: &Harness, reg: u8, b: usize) -> u8 {
    h.thread.grf()[usize::from(reg) * 32 + b]
}

/// movi: every channel reads the register a0.0 names, at the sub-register
/// its own a0.n gives, aligned down to the element size (000 lines
/// 12242-12325: byte n of a dword movi comes from a0.n[4:2] & "00".."11").
#[test]
fn movi_gathers_through_the_address_registers() {
    let types = [
        ("ub", 1),
        ("b", 1),
        ("uw", 2),
        ("w", 2),
        ("ud", 4),
        ("d", 4),
        ("f", 4),
    ];
    for p in [IsaGen::G45, IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75] {
        let mut rng = Rng(0x30F1 + p as u64);
        for (ty, size) in types {
            let src = format!("movi (8|M0) r10.0<1>:{ty} r[a0.0]<8;8,1>:{ty}\n");
            let mut h = assemble(p, &src);
            let pattern: Vec<u8> = (0..32).map(|_| (rng.u32() & 0xFF) as u8).collect();
            let sub: Vec<u16> = (0..8).map(|_| (rng.u32() % 32) as u16).collect();
            h.thread.grf_mut()[20 * 32..21 * 32].copy_from_slice(&pattern);
            for b in &mut h.thread.grf_mut()[10 * 32..11 * 32] {
                *b = 0x5A;
            }
            // a0.0 selects r20; a0.n (n > 0) only its sub-register (the
            // register field of the others is ignored, so point it
            // elsewhere).
            for (n, s) in sub.iter().enumerate() {
                let reg = if n == 0 { 20 } else { 7 };
                h.thread.set_a0(n, reg * 32 + s);
            }
            assert_eq!(h.run(8), Ok(Step::EndOfKernel), "{p} {ty}");
            for (n, s) in sub.iter().enumerate() {
                let at = usize::from(*s) & !(size - 1);
                for k in 0..size {
                    assert_eq!(
                        byte(&h, 10, n * size + k),
                        pattern[at + k],
                        "{p} movi :{ty} channel {n} byte {k} (a0.{n} = {s})"
                    );
                }
            }
        }
    }
}

/// iff pushes the mask only when some channel is enabled and otherwise
/// jumps past its endif (000 lines 11869-11925).
#[test]
fn gen4_iff_runs_its_block_for_enabled_channels_or_jumps_past_it() {
    let src = "cmp (8|M0) (lt)f0.0 null<1>:d r2.0<8;8,1>:d 4:d\n\
               (f0.0) iff (8|M0) AFTER\n\
               mov (8|M0) r10.0<1>:d 1:d\n\
               endif (8|M0) 0 pop(1)\n\
               AFTER:\n\
               mov (8|M0) r12.0<1>:d 7:d\n\
               cmp (8|M0) (lt)f0.0 null<1>:d r2.0<8;8,1>:d 100:d\n\
               (f0.0) iff (8|M0) AFTER2\n\
               mov (8|M0) r13.0<1>:d 3:d\n\
               endif (8|M0) 0 pop(1)\n\
               AFTER2:\n";
    for p in [IsaGen::Gen4, IsaGen::G45] {
        for x in [[0u32, 5, 1, 6, 2, 7, 3, 9], [9; 8], [0; 8]] {
            let mut h = assemble(p, src);
            h.thread.set_dispatch_mask(0xFF);
            for (c, v) in x.iter().enumerate() {
                h.thread.set_grf_ud(2, c, *v);
            }
            assert_eq!(h.run(64), Ok(Step::EndOfKernel), "{p} {x:?}");
            for c in 0..8 {
                let in_block = x[c] < 4;
                assert_eq!(
                    h.thread.grf_ud(10, c),
                    u32::from(in_block),
                    "{p} {x:?} ch{c}"
                );
                // After the endif (or the jump) every channel runs again.
                assert_eq!(h.thread.grf_ud(12, c), 7, "{p} {x:?} ch{c}");
                // The mask stack is balanced: a second iff sees every channel.
                assert_eq!(h.thread.grf_ud(13, c), 3, "{p} {x:?} ch{c}");
            }
        }
    }
}

/// nop does nothing (000 lines 12544-12562); nenop, where the opcode
/// exists (G45, Gen6), is not executed (000 lines 12517-12543).
#[test]
fn nop_and_nenop_change_nothing() {
    for p in IsaGen::ALL {
        let mut ops = vec!["nop"];
        if matches!(p, IsaGen::G45 | IsaGen::Gen6) {
            ops.push("nenop (1|M0) null<1>:ud null<0;1,0>:ud");
        }
        for op in ops {
            let src =
                format!("mov (8|M0) r10.0<1>:ud 0x11:ud\n{op}\nmov (8|M0) r11.0<1>:ud 0x22:ud\n");
            let mut h = assemble(p, &src);
            h.thread.set_dispatch_mask(0xFF);
            let mut rng = Rng(p as u64 + 99);
            for b in h.thread.grf_mut().iter_mut() {
                *b = (rng.u32() & 0xFF) as u8;
            }
            let before = h.thread.grf().to_vec();
            let flags = h.thread.flag(0);
            assert_eq!(h.run(8), Ok(Step::EndOfKernel), "{p} {op}");
            let after = h.thread.grf();
            for (i, (a, b)) in before.iter().zip(after).enumerate() {
                let reg = i / 32;
                if reg != 10 && reg != 11 {
                    assert_eq!(a, b, "{p} {op}: byte {i} changed");
                }
            }
            for c in 0..8 {
                assert_eq!(h.thread.grf_ud(10, c), 0x11, "{p} {op}");
                assert_eq!(h.thread.grf_ud(11, c), 0x22, "{p} {op}");
            }
            assert_eq!(h.thread.flag(0), flags, "{p} {op}");
        }
    }
}

/// wait with n0.0 = 0 sleeps at the same IP until notified (000 lines
/// 13562-13610; 003 lines 101280-101300).
#[test]
fn wait_without_a_notification_sleeps_in_place() {
    for p in IsaGen::ALL {
        let src = "mov (8|M0) r10.0<1>:ud 0x1:ud\n\
                   wait (1|M0) n0.0<0;1,0>:ud\n\
                   mov (8|M0) r11.0<1>:ud 0x2:ud\n";
        let mut h = assemble(p, src);
        h.thread.set_dispatch_mask(0xFF);
        assert_eq!(h.run(8), Ok(Step::Waiting), "{p}");
        assert_eq!(h.thread.ip(), 16, "{p}: the IP stays at the wait");
        assert_eq!(h.thread.grf_ud(10, 0), 1, "{p}");
        assert_ne!(h.thread.grf_ud(11, 0), 2, "{p}: nothing after the wait ran");
    }
}

/// sendc is send after the thread's dependencies retire (003 lines
/// 100969-101020); one thread has none to wait for, so a kernel whose
/// loads and stores use sendc computes what the send version does.
#[test]
fn sendc_moves_data_like_send() {
    for p in [IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75] {
        let mut u = kernels::units();
        let mut rng = Rng(0x5E2D + p as u64);
        let a: Vec<u32> = (0..8).map(|_| rng.u32()).collect();
        for (i, v) in a.iter().enumerate() {
            u.memory.set_dword(MEM + 4 * i as u64, *v);
        }
        // Payload registers: MRFs on Gen6, GRFs from Gen7.
        let (hdr, off, data, unit) = if p == IsaGen::Gen6 {
            ("m1", "m2", "m3", "rc")
        } else {
            ("r112", "r113", "r114", "dc")
        };
        let mut src = format!(
            "mov (8|M0) {hdr}.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
             mov (8|M0) r20.0<1>:uw 0x76543210:v\n\
             mov (8|M0) r21.0<1>:ud r20.0<8;8,1>:uw\n\
             mov (8|M0) {off}.0<1>:ud r21.0<8;8,1>:ud\n\
             sendc (8|M0) r10:ud {hdr} {unit}.dword_scattered_read(bti=1, simd=8) mlen=2 rlen=1 hdr\n\
             xor (8|M0) {data}.0<1>:ud r10.0<8;8,1>:ud 0x5a5a5a5a:ud\n\
             add (8|M0) {off}.0<1>:ud r21.0<8;8,1>:ud 0x10:ud\n\
             sendc (8|M0) null:ud {hdr} {unit}.dword_scattered_write(bti=1, simd=8) mlen=3 rlen=0 hdr\n"
        );
        src += end_thread(p);
        kernels::run(p, &src, &mut u, |h| h.thread.set_dispatch_mask(0xFF));
        for (i, v) in a.iter().enumerate() {
            assert_eq!(
                u.memory.dword(MEM + 0x40 + 4 * i as u64),
                v ^ 0x5A5A_5A5A,
                "{p} dword {i}"
            );
        }
    }
}
