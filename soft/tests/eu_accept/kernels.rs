//! Running whole kernels: assembled from text with the EU toolkit, on one
//! thread against memory and surfaces (`MemoryUnits`), or on the EU array
//! as thread groups (barriers, shared local memory).

use std::sync::Arc;

use baregpu_isa::IsaGen;
use baregpu_isa::validate::{Severity, validate_kernel};
use baregpu_soft::eu::Program;
use baregpu_soft::eu::array::payload::{self, Pipeline, RootHeader};
use baregpu_soft::eu::array::{Bindings, EuArray, EuConfig, GroupId, ThreadStart};
use baregpu_soft::eu::shared::{FlatMemory, GeneralState, MemoryUnits, Surface, SurfaceList};
use baregpu_soft::eu::{Harness, Step};

/// Where the single-thread tests' memory starts and how long it is.
pub const MEM: u64 = 0x40_0000;
pub const MEM_LEN: usize = 0x1_0000;

/// Memory with one large buffer surface at binding-table index 1 over all
/// of it.
pub fn units() -> MemoryUnits {
    let mut u = MemoryUnits::new(FlatMemory::new(MEM, MEM_LEN));
    u.surfaces
        .bind(1, Surface::buffer(MEM, (MEM_LEN / 16) as u32, 16));
    u
}

/// The end of a thread: r0 to the thread spawner with EOT (003 lines
/// 50901-50949); Gen4/G45 through the implied move into m1.
pub fn end_thread(p: IsaGen) -> &'static str {
    match p {
        IsaGen::Gen4 | IsaGen::G45 => {
            "send (8|M0) null:uw m1 r0:ud ts.deref(keep_urb) mlen=1 rlen=0 {EOT}\n"
        }
        IsaGen::Gen6 => {
            "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {NoMask}\n\
             send (8|M0) null:ud m1 ts.deref(keep_urb) mlen=1 rlen=0 {EOT}\n"
        }
        _ => {
            "mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud {NoMask}\n\
             send (8|M0) null:ud r127 ts.deref(keep_urb) mlen=1 rlen=0 {EOT}\n"
        }
    }
}

/// Runs `src` on one thread with all 16 channels dispatched until its EOT;
/// `setup` preloads registers. Panics with the fault on an error.
pub fn run(p: IsaGen, src: &str, u: &mut MemoryUnits, setup: impl FnOnce(&mut Harness)) -> Harness {
    let mut h = Harness::new(p);
    h.load(&assemble_valid(p, src));
    h.thread.set_dispatch_mask(0xFFFF);
    setup(&mut h);
    let step = h
        .run_with(u, 100_000)
        .unwrap_or_else(|e| panic!("{p}: {e:?} (fault {:?})\n{src}", u.fault));
    assert_eq!(step, Step::Ended, "{p}: the kernel ends with EOT");
    h
}

pub fn program(p: IsaGen, text: &str) -> Arc<Program> {
    Arc::new(Program::new(p, &assemble_valid(p, text)))
}

/// Assembles `text` and checks it against the manuals' rules (the
/// toolkit's validator): the kernels of these tests must be valid ones.
pub fn assemble_valid(p: IsaGen, text: &str) -> Vec<u8> {
    let bytes = baregpu_isa::text::assemble(p, text)
        .unwrap_or_else(|e| panic!("{p}: kernel does not assemble: {e}\n{text}"));
    let found = validate_kernel(p, &bytes).unwrap_or_else(|e| panic!("{p}: {e:?}"));
    let errors: Vec<String> = found
        .iter()
        .filter(|(_, v)| v.severity == Severity::Error)
        .map(|(at, v)| format!("at {at}: {v}"))
        .collect();
    assert!(
        errors.is_empty(),
        "{p}: invalid kernel:\n{}\n{text}",
        errors.join("\n")
    );
    bytes
}

/// Channel numbers 0-7 as dwords in `reg` (through words in `tmp`: a V
/// immediate needs a word destination, 000 lines 8246-8248).
pub fn lane_ids(reg: u8, tmp: u8) -> String {
    format!(
        "mov (8|M0) r{tmp}.0<1>:uw 0x76543210:v\n\
         mov (8|M0) r{reg}.0<1>:ud r{tmp}.0<8;8,1>:uw\n"
    )
}

/// An EU array of the platform's shape with a small quantum, so threads
/// interleave.
pub fn array(p: IsaGen) -> EuArray {
    EuArray::new(
        p,
        EuConfig {
            quantum: 7,
            ..EuConfig::for_platform(p)
        },
    )
}

/// Starts a GPGPU thread in `slot` with `r1` in its first dwords.
pub fn start(
    a: &mut EuArray,
    slot: usize,
    program: &Arc<Program>,
    header: RootHeader,
    r1: &[u32],
    group: Option<GroupId>,
) {
    let p = a.platform();
    let h = RootHeader {
        fftid: slot as u8,
        ..header
    };
    let r0 = payload::r0(p, Pipeline::Gpgpu, &h);
    let data = payload::build(&r0, &[], r1, &[]).expect("payload");
    let s = ThreadStart {
        program: program.clone(),
        kernel: 0x1000,
        payload: data,
        dispatch_mask: 0xFF,
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
    a.start(slot, s).expect("thread start");
}
