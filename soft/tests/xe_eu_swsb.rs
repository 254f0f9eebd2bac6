//! The software-scoreboard check of Xe-HPG threads: a missing register
//! distance or token wait is reported with the instruction and the
//! register; the same kernel with the dependency annotated runs; with the
//! check off the kernel runs as hardware would.

#![allow(clippy::needless_range_loop, clippy::type_complexity)]

use baregpu_soft::eu::run::Step;
use baregpu_soft::eu::send::{SendError, SendRequest, SharedFunctions};
use baregpu_soft::eu::thread::Thread;
use baregpu_soft::eu::xe::XeHarness;
use baregpu_soft::eu::{ErrorKind, EuError};

fn run(src: &str) -> Result<(Step, XeHarness), EuError> {
    let mut h = XeHarness::new();
    h.load_asm(src).unwrap_or_else(|e| panic!("{src}: {e:?}"));
    for i in 0..8 {
        h.set_grf_ud(2, i, i as u32 + 1);
        h.set_grf_ud(3, i, 0x4000_0000);
    }
    let s = h.run(1000)?;
    Ok((s, h))
}

fn swsb_error(src: &str) -> (u32, String) {
    match run(src) {
        Err(EuError {
            ip,
            kind: ErrorKind::Swsb(what),
        }) => (ip, what),
        Err(e) => panic!("{src}: not an SWSB error: {e}"),
        Ok(_) => panic!("{src}: ran without an SWSB error"),
    }
}

#[test]
fn in_order_read_after_write_needs_a_distance() {
    let missing = "add (8|M0) r10.0<1>:d r2.0<1;1,0>:d r2.0<1;1,0>:d
add (8|M0) r11.0<1>:d r10.0<1;1,0>:d r2.0<1;1,0>:d\n";
    let (ip, what) = swsb_error(missing);
    assert_eq!(ip, 0x10);
    assert!(what.contains("r10"), "{what}");
    assert!(what.contains("add (8|M0)"), "names the instruction: {what}");
    assert!(what.contains("0x0000"), "names the writer: {what}");
    // The distance on its pipe, on every pipe, or the int pipe by name.
    for wait in ["{@1}", "{A@1}", "{I@1}"] {
        let ok = missing.replace(":d\n", &format!(":d {wait}\n"));
        let (s, h) = run(&ok).unwrap_or_else(|e| panic!("{wait}: {e}"));
        assert_eq!(s, Step::EndOfKernel);
        for i in 0..8 {
            assert_eq!(h.grf_ud(11, i), 3 * (i as u32 + 1));
        }
    }
    // A wait on the float pipe does not order an int-pipe write.
    let wrong = missing.replace(":d\n", ":d {F@1}\n");
    let (ip, _) = swsb_error(&wrong);
    assert_eq!(ip, 0x10);
    // A distance shorter than the writer's: @2 when the writer is one back.
    let short = "add (8|M0) r10.0<1>:d r2.0<1;1,0>:d r2.0<1;1,0>:d
add (8|M0) r12.0<1>:d r2.0<1;1,0>:d r2.0<1;1,0>:d
add (8|M0) r11.0<1>:d r12.0<1;1,0>:d r2.0<1;1,0>:d {@2}\n";
    let (ip, what) = swsb_error(short);
    assert_eq!(ip, 0x20);
    assert!(what.contains("r12"), "{what}");
    // An older write on the same pipe is ordered by a wait on a newer one.
    let older = "add (8|M0) r10.0<1>:d r2.0<1;1,0>:d r2.0<1;1,0>:d
add (8|M0) r12.0<1>:d r2.0<1;1,0>:d r2.0<1;1,0>:d
add (8|M0) r11.0<1>:d r10.0<1;1,0>:d r2.0<1;1,0>:d {@1}\n";
    run(older).unwrap();
    // A float write read by the int pipe: F@1 orders it.
    let cross = "add (8|M0) r10.0<1>:f r3.0<1;1,0>:f r3.0<1;1,0>:f
mov (8|M0) r11.0<1>:d r10.0<1;1,0>:d {F@1}\n";
    run(cross).unwrap();
    assert_eq!(swsb_error(&cross.replace(" {F@1}", "")).0, 0x10);
}

#[test]
fn writes_far_back_have_completed() {
    // Eleven int instructions between the write and the read: beyond the
    // int pipe's distance of 10 (Mesa brw_scoreboard.cpp max_dist).
    let mut src = String::from("add (8|M0) r10.0<1>:d r2.0<1;1,0>:d r2.0<1;1,0>:d\n");
    for _ in 0..10 {
        src.push_str("add (8|M0) r20.0<1>:d r2.0<1;1,0>:d r2.0<1;1,0>:d\n");
    }
    let near = format!("{src}mov (8|M0) r11.0<1>:d r10.0<1;1,0>:d\n");
    run(&near).unwrap();
    let mut src9 = String::from("add (8|M0) r10.0<1>:d r2.0<1;1,0>:d r2.0<1;1,0>:d\n");
    for _ in 0..8 {
        src9.push_str("add (8|M0) r20.0<1>:d r2.0<1;1,0>:d r2.0<1;1,0>:d\n");
    }
    let (ip, what) = swsb_error(&format!("{src9}mov (8|M0) r11.0<1>:d r10.0<1;1,0>:d\n"));
    assert_eq!(ip, 0x90);
    assert!(what.contains("9 int"), "{what}");
}

#[test]
fn out_of_order_math_holds_its_token() {
    let missing = "math.inv (8|M0) r12.0<1>:f r3.0<1;1,0>:f {$2}
mov (8|M0) r13.0<1>:f r12.0<1;1,0>:f\n";
    let (ip, what) = swsb_error(missing);
    assert_eq!(ip, 0x10);
    assert!(what.contains("r12") && what.contains("$2.dst"), "{what}");
    assert!(what.contains("mov (8|M0)"), "{what}");
    for fix in [
        "math.inv (8|M0) r12.0<1>:f r3.0<1;1,0>:f {$2}\nmov (8|M0) r13.0<1>:f r12.0<1;1,0>:f {$2.dst}\n",
        "math.inv (8|M0) r12.0<1>:f r3.0<1;1,0>:f {$2}\nsync.nop null {$2.dst}\nmov (8|M0) r13.0<1>:f r12.0<1;1,0>:f\n",
        "math.inv (8|M0) r12.0<1>:f r3.0<1;1,0>:f {$2}\nsync.allwr null\nmov (8|M0) r13.0<1>:f r12.0<1;1,0>:f\n",
    ] {
        let (_, h) = run(fix).unwrap_or_else(|e| panic!("{fix}: {e}"));
        assert_eq!(f32::from_bits(h.grf_ud(13, 0)), 0.5);
    }
    // Write after read: overwriting math's source before it was read.
    let war = "math.inv (8|M0) r12.0<1>:f r3.0<1;1,0>:f {$1}
mov (8|M0) r3.0<1>:f r2.0<1;1,0>:f\n";
    let (ip, what) = swsb_error(war);
    assert_eq!(ip, 0x10);
    assert!(what.contains("r3") && what.contains("$1.src"), "{what}");
    run(&war.replace("r2.0<1;1,0>:f\n", "r2.0<1;1,0>:f {$1.src}\n")).unwrap();
    // The waits of another token do not help.
    let other = missing.replace("r12.0<1;1,0>:f\n", "r12.0<1;1,0>:f {$3.dst}\n");
    assert!(other.contains("{$3.dst}"));
    assert_eq!(swsb_error(&other).0, 0x10);
}

#[test]
fn check_off_runs_as_hardware_would() {
    let missing = "add (8|M0) r10.0<1>:d r2.0<1;1,0>:d r2.0<1;1,0>:d
add (8|M0) r11.0<1>:d r10.0<1;1,0>:d r2.0<1;1,0>:d\n";
    let mut h = XeHarness::new();
    h.load_asm(missing).unwrap();
    h.thread.check_swsb = false;
    for i in 0..8 {
        h.set_grf_ud(2, i, 5);
    }
    assert_eq!(h.run(10).unwrap(), Step::EndOfKernel);
    assert_eq!(h.grf_ud(11, 3), 15);
}

/// A shared function that answers every message with a pattern in its
/// response registers (the seam later LSC work plugs into).
struct Echo;
impl SharedFunctions for Echo {
    fn send(&mut self, t: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
        if req.eot {
            return Ok(());
        }
        let Some(d) = req.dst else {
            return Err(SendError::Bad("no response register"));
        };
        for r in 0..req.rlen {
            for i in 0..8 {
                t.set_grf_ud(d + r, i, 0xABC0 + u32::from(r) * 8 + i as u32);
            }
        }
        Ok(())
    }
}

#[test]
fn sends_go_through_shared_functions_and_hold_tokens() {
    // load.ugm.d32.a32 (8): one payload register, one response register.
    let load = "send.ugm (8|M0) r20 r2 null:0 0x0 0x02100000 {$4}\n";
    let read = "mov (8|M0) r21.0<1>:ud r20.0<1;1,0>:ud";
    let eot = "send.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}\n";
    let mut h = XeHarness::new();
    h.load_asm(&format!("{load}{read} {{$4.dst}}\n{eot}"))
        .unwrap();
    // The harness alone refuses the load (no shared functions) ...
    let e = h.run(10).unwrap_err();
    assert_eq!(e.kind, ErrorKind::UnhandledSend);
    assert_eq!(e.ip, 0);
    // ... a caller's shared functions answer it; EOT ends the thread.
    let mut h = XeHarness::new();
    h.load_asm(&format!("{load}{read} {{$4.dst}}\n{eot}"))
        .unwrap();
    assert_eq!(h.run_with(&mut Echo, 10).unwrap(), Step::Ended);
    assert_eq!(h.grf_ud(21, 5), 0xABC5);
    // Reading the response without waiting on the token.
    let mut h = XeHarness::new();
    h.load_asm(&format!("{load}{read}\n{eot}")).unwrap();
    let e = h.run_with(&mut Echo, 10).unwrap_err();
    assert!(
        matches!(&e.kind, ErrorKind::Swsb(w) if w.contains("r20") && w.contains("$4")),
        "{e}"
    );
    assert_eq!(e.ip, 0x10);
}

/// In-order writes are ordered by the bytes they touch: IGC's DG2 payload
/// prologue writes r127.0:uw and one int instruction later reads r127.2
/// with `@2`, which orders the r127.2 writer two back; a read of the dword
/// just written still needs its distance.
#[test]
fn in_order_checks_compare_bytes_not_whole_registers() {
    let igc = "(W) mov (8|M0) r127.0<1>:ud 0x0:ud
(W) and (1|M0) r127.2<1>:ud r2.0<0;1,0>:ud 0xFFFFFFC0:ud {I@1}
(W) and (1|M0) r127.0<1>:uw r2.4<0;1,0>:uw 0xFF:uw
(W) add (1|M0) r127.2<1>:ud r127.2<0;1,0>:ud 0x40:uw {I@2}
";
    let (s, h) = run(igc).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s, Step::EndOfKernel);
    assert_eq!(h.grf_ud(127, 2), 0x40);
    let same = "(W) and (1|M0) r127.2<1>:ud r2.0<0;1,0>:ud 0xFFFFFFC0:ud
(W) and (1|M0) r127.0<1>:uw r2.4<0;1,0>:uw 0xFF:uw
(W) add (1|M0) r127.1<1>:ud r127.0<0;1,0>:ud 0x40:uw {I@2}
";
    let (ip, what) = swsb_error(same);
    assert_eq!(ip, 0x20, "{what}");
    // Bytes, not dwords: IGC's async_work_group_copy writes two halves of
    // one dword on the float pipe and reads the first with F@2.
    let halves = |read: &str| {
        format!(
            "(W) mov (1|M0) r5.6<1>:hf 0.0:hf
(W) mov (1|M0) r5.7<1>:hf 0.0:hf
cmp (16|M0) (eq)f0.1 null<1>:d {read}<0;1,0>:w r2.1<0;1,0>:d {{F@2}}\n"
        )
    };
    run(&halves("r5.6")).unwrap_or_else(|e| panic!("{e}"));
    let (ip, what) = swsb_error(&halves("r5.7"));
    assert_eq!(ip, 0x20, "{what}");
}

/// Branches issue on the int pipe and count there (IGC
/// `isIntegerPipeInstructionXe`): a `join` between a write and its reader
/// makes the write two int instructions back.
#[test]
fn branches_count_on_the_int_pipe() {
    let src = |wait: &str| {
        format!(
            "add (8|M0) r10.0<1>:d r2.0<1;1,0>:d r2.0<1;1,0>:d
join (8|M0) L32
L32:
add (8|M0) r11.0<1>:d r10.0<1;1,0>:d r2.0<1;1,0>:d {{{wait}}}\n"
        )
    };
    // I@2 names the add (the join is one back); counting the join out,
    // it would name an instruction before the add and leave it pending.
    let (_, h) = run(&src("I@2")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(h.grf_ud(11, 7), 24);
    let (ip, what) = swsb_error(&src("I@3"));
    assert_eq!(ip, 0x20);
    assert!(what.contains("2 int"), "{what}");
}

/// An instruction's pipe follows its destination type: `mov r:f r:ud` is a
/// float instruction (IGC `isFloatPipeInstructionXe`, Mesa
/// `inferred_exec_pipe`), so F@1 orders it and I@1 does not.
#[test]
fn a_float_destination_runs_on_the_float_pipe() {
    let src = |wait: &str| {
        format!(
            "mov (8|M0) r10.0<1>:f r2.0<1;1,0>:ud
add (8|M0) r11.0<1>:f r10.0<1;1,0>:f r10.0<1;1,0>:f {{{wait}}}\n"
        )
    };
    let (_, h) = run(&src("F@1")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(f32::from_bits(h.grf_ud(11, 2)), 6.0);
    let (ip, what) = swsb_error(&src("I@1"));
    assert_eq!(ip, 0x10);
    assert!(what.contains("1 float"), "{what}");
    // A bare @1 on a float instruction reading an int-typed source also
    // waits on the int pipe (the source type names it: Mesa
    // `inferred_sync_pipe`).
    let mixed = "add (8|M0) r10.0<1>:d r2.0<1;1,0>:d r2.0<1;1,0>:d
mov (8|M0) r11.0<1>:f r10.0<1;1,0>:d {@1}\n";
    let (_, h) = run(mixed).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(f32::from_bits(h.grf_ud(11, 1)), 4.0);
    assert_eq!(swsb_error(&mixed.replace(" {@1}", " {F@1}")).0, 0x10);
}

/// A write is complete once 11 instructions of any pipe issued after it
/// (IGC SWSB_MAX_ALU_DEPENDENCE_DISTANCE), even when its own pipe issued
/// fewer than 10.
#[test]
fn eleven_instructions_of_any_pipe_complete_a_write() {
    let with = |n: usize| {
        let mut s = String::from("add (8|M0) r10.0<1>:f r3.0<1;1,0>:f r3.0<1;1,0>:f\n");
        for _ in 0..n {
            s.push_str("add (8|M0) r20.0<1>:d r2.0<1;1,0>:d r2.0<1;1,0>:d\n");
        }
        s + "mov (8|M0) r11.0<1>:f r10.0<1;1,0>:f\n"
    };
    run(&with(10)).unwrap_or_else(|e| panic!("{e}"));
    let (ip, what) = swsb_error(&with(9));
    assert_eq!(ip, 0xa0);
    assert!(what.contains("1 float"), "{what}");
}

/// A jump the thread takes completes the in-order writes before it (IGC's
/// and IGA's distances run in program order; a loop's back edge carries no
/// wait).
#[test]
fn a_taken_jump_completes_in_order_writes() {
    let src = |target: &str| {
        format!(
            "add (8|M0) r10.0<1>:d r2.0<1;1,0>:d r2.0<1;1,0>:d
(W) jmpi (1|M0) {target}
L32:
add (8|M0) r12.0<1>:d r2.0<1;1,0>:d r2.0<1;1,0>:d
L48:
add (8|M0) r11.0<1>:d r10.0<1;1,0>:d r2.0<1;1,0>:d\n"
        )
    };
    let (_, h) = run(&src("L48")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(h.grf_ud(11, 0), 3);
    assert_eq!(h.grf_ud(12, 0), 0, "jumped over");
    // The same jump to the next instruction is not taken.
    let (ip, what) = swsb_error(&src("L32"));
    assert_eq!(ip, 0x30);
    assert!(what.contains("r10") && what.contains("3 int"), "{what}");
}

/// Sends to one shared function under the same predicate and channels read
/// their payloads in order (IGC `WARDepRequired`): a wait for the later
/// one's sources covers the earlier one's, and the later one may overwrite
/// the earlier one's payload; another function, or other channels, may not.
#[test]
fn sends_of_one_function_read_their_payloads_in_order() {
    let eot = "send.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}\n";
    let go = |src: &str| {
        let mut h = XeHarness::new();
        h.load_asm(&format!("{src}{eot}"))
            .unwrap_or_else(|e| panic!("{src}: {e:?}"));
        h.run_with(&mut Echo, 20)
    };
    let first = "send.ugm (8|M0) r20 r2 null:0 0x0 0x02100000 {$4}\n";
    // A wait on the later load's sources orders the earlier's.
    let later_src = format!(
        "{first}send.ugm (8|M0) r21 r5 null:0 0x0 0x02100000 {{$5}}
mov (8|M0) r2.0<1>:ud r9.0<1;1,0>:ud {{$5.src}}\n"
    );
    assert_eq!(go(&later_src).unwrap(), Step::Ended);
    // Without any wait the overwrite is reported.
    let none = later_src.replace(" {$5.src}", "");
    let e = go(&none).unwrap_err();
    assert!(
        matches!(&e.kind, ErrorKind::Swsb(w) if w.contains("r2") && w.contains("$4.src")),
        "{e}"
    );
    // Loads on other channels are in no order with the first.
    let other = later_src.replace("send.ugm (8|M0) r21", "send.ugm (8|M8) r21");
    let e = go(&other).unwrap_err();
    assert!(
        matches!(&e.kind, ErrorKind::Swsb(w) if w.contains("$4.src")),
        "{e}"
    );
    // A later load of the same function may write the earlier's payload.
    let overwrite = format!("{first}send.ugm (8|M0) r2 r5 null:0 0x0 0x02100000 {{$5}}\n");
    assert_eq!(go(&overwrite).unwrap(), Step::Ended);
    // An SLM load may not.
    let slm = overwrite.replace("send.ugm (8|M0) r2 r5", "send.slm (8|M0) r2 r5");
    assert!(slm.contains("send.ugm") && slm.contains("send.slm"));
    let e = go(&slm).unwrap_err();
    assert!(
        matches!(&e.kind, ErrorKind::Swsb(w) if w.contains("r2") && w.contains("$4.src")),
        "{e}"
    );
    // Legacy data-port reads: one to a surface, one to SLM (binding-table
    // entry 254) are in no order either (IGC `hasSameFunctionID` tells SLM
    // apart); two to the surface are.
    let dc1 = |bti: &str| {
        format!(
            "send.dc1 (8|M0) r20 r2 null:0 0x0 0x02106E00 {{$4}}
send.dc1 (8|M0) r2 r5 null:0 0x0 0x02106E{bti} {{$5}}\n"
        )
    };
    assert_eq!(go(&dc1("00")).unwrap(), Step::Ended);
    let e = go(&dc1("FE")).unwrap_err();
    assert!(
        matches!(&e.kind, ErrorKind::Swsb(w) if w.contains("$4.src")),
        "{e}"
    );
}
