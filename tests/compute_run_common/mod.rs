//! What the end-to-end compute tests share: a driver on the software GPU
//! (with the `SoftGpu` handle, for its EU report and configuration), the
//! generations with a media pipeline, and the per-generation pieces of EU
//! assembly every kernel needs (where a message payload lives, how a
//! thread ends). Kernels are IGA-syntax text assembled with
//! `baregpu_isa::text::assemble`.

#![allow(dead_code)]

use baregpu::hal::Generation;
use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu::{Gpu, GpuError};
use baregpu_isa::Platform as Isa;
use baregpu_soft::SoftGpu;

pub type HostGpu<'a> = Gpu<'a, HostPlatform>;
pub type Soft<'a> = SoftGpu<PlatformBus<'a, HostPlatform>>;

/// Every generation whose media pipeline the driver programs.
pub const MEDIA_GENERATIONS: [Generation; 4] = [
    Generation::Gen4,
    Generation::G45,
    Generation::Gen6,
    Generation::Gen7,
];

/// Fence timeout for work that must complete (virtual microseconds of the
/// host platform's clock; the software GPU advances while it is polled).
pub const DONE_US: u64 = 5_000_000;

/// Runs `f` with a driver of `generation` on a fresh software GPU.
pub fn with_soft(generation: Generation, f: impl FnOnce(&mut HostGpu<'_>, &Soft<'_>)) {
    with_soft_platform(generation, |gpu, soft, _| f(gpu, soft));
}

/// [`with_soft`], also handing over the host platform (its memory).
pub fn with_soft_platform(
    generation: Generation,
    f: impl FnOnce(&mut HostGpu<'_>, &Soft<'_>, &HostPlatform),
) {
    let p = HostPlatform::new();
    let soft = SoftGpu::new(generation, PlatformBus::new(&p)).expect("software GPU");
    let mut gpu = Gpu::new(&p, &soft, generation).expect("GPU bring-up");
    f(&mut gpu, &soft, &p);
}

/// `len` bytes at GGTT address `addr` as the GPU sees them: each page's
/// PTE read back from the GTT alias in the register BAR, then the
/// platform's CPU view of its physical page. PTE address bits: 35:32 in
/// 7:4 on 965/G45 [ext: Linux intel-gtt i965_write_entry], 39:32 in 11:4
/// on SNB and Ivy Bridge (003 lines 6875-6963).
pub fn ggtt_bytes(gpu: &mut HostGpu<'_>, p: &HostPlatform, addr: u64, len: usize) -> Vec<u8> {
    use baregpu::{PhysAddr, Platform};
    let high = match gpu.generation() {
        Generation::Gen4 | Generation::G45 => 0xF,
        _ => 0xFF,
    };
    let alias = gpu.ggtt().layout().alias_offset;
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        let at = addr + out.len() as u64;
        let pte = gpu.mmio().read32(alias + (at >> 12) as u32 * 4);
        assert_eq!(pte & 1, 1, "page {at:#x} is mapped");
        let phys = u64::from(pte & 0xFFFF_F000) | u64::from((pte >> 4) & high) << 32;
        let page = p.phys_to_virt(PhysAddr(phys)).expect("platform memory");
        let off = (at & 0xFFF) as usize;
        let take = (4096 - off).min(len - out.len());
        // SAFETY: a live page of the test's platform, read while the GPU is idle.
        out.extend_from_slice(unsafe { std::slice::from_raw_parts(page.as_ptr().add(off), take) });
    }
    out
}

pub fn isa(generation: Generation) -> Isa {
    match generation {
        Generation::Gen4 => Isa::Gen4,
        Generation::G45 => Isa::G45,
        Generation::Gen6 => Isa::Gen6,
        _ => Isa::Gen7,
    }
}

/// Assembles `text` for `generation`, panicking with the assembler's
/// message (a test kernel that does not assemble is a test bug).
pub fn assemble(generation: Generation, text: &str) -> Vec<u8> {
    baregpu_isa::text::assemble(isa(generation), text)
        .unwrap_or_else(|e| panic!("{generation}: kernel does not assemble: {e}\n{text}"))
}

/// Where message payloads are built: MRFs before Gen7 (m1 is the base
/// register of the payload), GRFs r112 and up on Gen7, where the MRF is
/// gone (001 lines 2168-2192) and an EOT payload must lie in r112-r127
/// [ext: Mesa brw_eu_validate].
pub fn msg(generation: Generation, k: u32) -> String {
    match generation {
        Generation::Gen7 => format!("r{}", 112 + k),
        _ => format!("m{}", 1 + k),
    }
}

/// `send` of a message whose header is in GRF `header` and whose other
/// registers were written to `msg(1)`, `msg(2)`, ...: the header is copied
/// to `msg(0)` first. Gen4/G45 name no source for the send (`null`: no
/// implied move, 000 lines 13346-13349), since the assembler encodes a
/// send's GRF source with a scalar region, which would replicate dword 0.
pub fn send(generation: Generation, header: &str, dst: &str, descriptor: &str) -> String {
    send_n(generation, 8, header, dst, descriptor)
}

/// [`send`] with execution size `n`: its channel enables reach the shared
/// function (an 8-OWord block write needs 16 channels: the execution mask
/// gates the dwords of its data registers, 003 lines 83631-83772).
pub fn send_n(generation: Generation, n: u32, header: &str, dst: &str, descriptor: &str) -> String {
    let m0 = msg(generation, 0);
    let copy = format!("mov (8|M0) {m0}.0<1>:ud {header}.0<8;8,1>:ud\n");
    match generation {
        Generation::Gen4 | Generation::G45 => {
            format!("{copy}send ({n}|M0) {dst}:uw {m0} null:ud {descriptor}\n")
        }
        _ => format!("{copy}send ({n}|M0) {dst}:ud {m0} {descriptor}\n"),
    }
}

/// The end of a root thread: R0 to the thread spawner with EOT, keeping
/// the URB handle (003 lines 50901-50949: descriptor 0x10 = dereference,
/// root, resource select; mlen 1). On Gen7 from r127 (an EOT payload must
/// lie in r112-r127).
pub fn end_thread(generation: Generation) -> String {
    let desc = "ts.deref(keep_urb) mlen=1 rlen=0 {EOT}";
    match generation {
        Generation::Gen7 => {
            format!("mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud\nsend (8|M0) null:ud r127 {desc}\n")
        }
        _ => send(generation, "r0", "null", desc),
    }
}

/// The data port unit word of the render cache on each generation: the
/// Gen4/G45 write port, the Gen6/Gen7 render cache.
pub fn write_port(generation: Generation) -> &'static str {
    match generation {
        Generation::Gen4 | Generation::G45 => "dpw",
        _ => "rc",
    }
}

/// The driver's hang report, or a panic naming what came instead.
pub fn expect_hang(r: Result<(), GpuError>) -> Box<baregpu::submit::ErrorState> {
    match r {
        Err(GpuError::Hang(state)) => state,
        other => panic!("expected a hang, got {other:?}"),
    }
}
