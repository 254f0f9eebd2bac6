//! What the EU array tests share: kernels assembled from text, threads
//! started with the payloads the media/GPGPU dispatchers build, a flat
//! graphics memory, and a loop that runs the array until it is idle.

#![allow(dead_code)]

use std::sync::Arc;

use baregpu_isa::IsaGen;
use baregpu_soft::eu::Program;
use baregpu_soft::eu::array::payload::{self, Pipeline, RootHeader};
use baregpu_soft::eu::array::{Bindings, EuArray, EuConfig, GroupId, ThreadStart};
use baregpu_soft::eu::shared::{FlatMemory, GeneralState, SurfaceList};

/// Bytes of the test memory, at graphics address 0.
pub const MEM_BYTES: usize = 1 << 20;

pub fn memory() -> FlatMemory {
    FlatMemory::new(0, MEM_BYTES)
}

pub fn program(p: IsaGen, text: &str) -> Arc<Program> {
    let bytes = baregpu_isa::text::assemble(p, text)
        .unwrap_or_else(|e| panic!("{p}: test kernel does not assemble: {e}\n{text}"));
    Arc::new(Program::new(p, &bytes))
}

/// The end of a thread: R0 to the thread spawner with EOT (003 lines
/// 50901-50949).
pub fn end_thread(p: IsaGen) -> &'static str {
    match p {
        IsaGen::Gen4 | IsaGen::G45 => {
            "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud\n\
             send (8|M0) null:uw m1 null:ud ts.deref(keep_urb) mlen=1 rlen=0 {EOT}\n"
        }
        IsaGen::Gen6 => {
            "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud\n\
             send (8|M0) null:ud m1 ts.deref(keep_urb) mlen=1 rlen=0 {EOT}\n"
        }
        _ => {
            "mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud\n\
             send (8|M0) null:ud r127 ts.deref(keep_urb) mlen=1 rlen=0 {EOT}\n"
        }
    }
}

/// A thread start: R0 of `pipeline` with FFTID = `slot`, then r1 with
/// `r1` in its first dwords.
pub fn start(
    a: &mut EuArray,
    slot: usize,
    program: &Arc<Program>,
    pipeline: Pipeline,
    header: RootHeader,
    r1: &[u32],
    group: Option<GroupId>,
) {
    let p = a.platform();
    let h = RootHeader {
        fftid: slot as u8,
        ..header
    };
    let r0 = payload::r0(p, pipeline, &h);
    let data = payload::build(&r0, &[], r1, &[]).unwrap();
    let s = ThreadStart {
        program: program.clone(),
        kernel: 0x1000,
        payload: data,
        dispatch_mask: 0xFFFF,
        cr0: [0, 0],
        ffid: 7,
        sr0_1_high: slot as u8,
        bindings: Bindings::List(SurfaceList::new()),
        general_state: GeneralState::default(),
        scratch: None,
        samplers: None,
        group,
        index: slot as u8,
        pixel: None,
    };
    a.start(slot, s).unwrap();
}

/// Starts `r1s.len()` threads of `program`, thread `i` with `r1s[i]` in r1,
/// each as soon as a slot is free, running the array in between; then runs
/// it until idle. Panics if it stops with a report or stalls.
pub fn run_threads(
    a: &mut EuArray,
    mem: &mut FlatMemory,
    program: &Arc<Program>,
    r1s: &[Vec<u32>],
) {
    let mut next = 0;
    while next < r1s.len() || !a.is_idle() {
        while next < r1s.len() {
            let Some(slot) = a.free_slot() else { break };
            start(
                a,
                slot,
                program,
                Pipeline::Gpgpu,
                RootHeader::default(),
                &r1s[next],
                None,
            );
            next += 1;
        }
        let r = a.run(mem, 10_000);
        assert!(a.report().is_none(), "{}", a.report().unwrap());
        assert!(!r.stalled, "every thread sleeps");
    }
}

/// A Gen7 array of `eus` x `threads` with a quantum.
pub fn gen7_array(eus: u8, threads: u8, quantum: u32) -> EuArray {
    EuArray::new(
        IsaGen::Gen7,
        EuConfig {
            eus,
            threads_per_eu: threads,
            quantum,
            ..EuConfig::for_platform(IsaGen::Gen7)
        },
    )
}

pub fn dword(m: &FlatMemory, addr: u64) -> u32 {
    m.dword(addr)
}
