//! Vector add: c = a + b over 32-bit integers (wrapping), checked element
//! by element against the CPU.
//!
//! * 965, G45, SNB: media objects. Each thread adds 256 elements in eight
//!   steps of an OWord block read of each input (8 OWords = 32 dwords into
//!   four registers), four SIMD8 adds and an OWord block write (000 lines
//!   4503-4664; 003 lines 83580-83772). The sends are SIMD16: the 16
//!   channel enables gate the registers' OWords (000 lines 4553-4557). Its
//!   first element's offset comes in its inline data, in bytes on Gen4/G45
//!   and OWords on SNB (the Global Offset units, 000 line 4518, 003 lines
//!   83583-83606).
//! * Ivy Bridge: GPGPU_WALKER, groups of 64 invocations run by four SIMD16
//!   threads; each thread finds its elements from the group ID in R0.1 and
//!   its index in the group, which its own CURBE block carries, and moves
//!   data with SIMD16 untyped surface reads and writes of RAW buffers
//!   [ext: Mesa brw_eu_defines.h untyped surface messages].
//!
//! The inputs are pseudo-random streams the CPU regenerates for the check,
//! and data moves between the CPU and the buffers a page at a time, so a
//! large run needs no host copies of the vectors.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use baregpu_hal::Generation;
use baregpu_isa::text::AsmError;

use super::kernels::{assemble, end_thread, header_flag, msg, read_port, send_n, write_port};
use super::{Failure, Mismatch, Params, Place, Tally, dword, launch, scoped};
use crate::compute::surface::MAX_BUFFER_ENTRIES;
use crate::compute::{
    Buffer, Compute, ComputeError, Dispatch, KernelDesc, Resource, Simd, Threads,
};
use crate::platform::Platform;
use crate::submit::Gpu;

/// Elements one thread adds.
const PER_THREAD: usize = 256;
/// Elements one OWord block message moves: 8 OWords of 4 dwords.
const BLOCK: usize = 32;
/// Threads in one GPGPU group (64 invocations at SIMD16).
const GROUP_THREADS: usize = 4;
/// Elements come in whole groups.
pub(super) const GRAIN: usize = PER_THREAD * GROUP_THREADS;
/// Bytes copied between the CPU and a buffer at a time.
const CHUNK: usize = 4096;

/// The media kernel: r1.0 = the thread's first offset (bytes or OWords).
fn media_kernel(g: Generation) -> Result<Vec<u8>, AsmError> {
    // 965/G45 reads go through the data cache of the read port.
    let cache = match g {
        Generation::Gen4 | Generation::G45 => ", cache=data",
        _ => "",
    };
    let hdr = header_flag(g);
    // The Global Offset of the next block: 128 bytes, or 8 OWords.
    let step = if g >= Generation::Gen6 { 8 } else { 128 };
    let mut k = String::from("mov (8|M0) r10.0<1>:ud r0.0<8;8,1>:ud\n");
    for s in 0..PER_THREAD / BLOCK {
        k += &format!("add (1|M0) r10.2<1>:ud r1.0<0;1,0>:ud {:#x}:ud\n", s * step);
        for (bti, dst) in [(0, "r20"), (1, "r24")] {
            let desc = format!(
                "{}.oword_block_read(bti={bti}, owords=8{cache}) mlen=1 rlen=4{hdr}",
                read_port(g)
            );
            k += &send_n(g, 16, "r10", dst, &desc);
        }
        for r in 0..4 {
            k += &format!(
                "add (8|M0) {}.0<1>:ud r{}.0<8;8,1>:ud r{}.0<8;8,1>:ud\n",
                msg(g, r + 1),
                20 + r,
                24 + r
            );
        }
        let desc = format!(
            "{}.oword_block_write(bti=2, owords=8) mlen=5 rlen=0{hdr}",
            write_port(g)
        );
        k += &send_n(g, 16, "r10", "null", &desc);
    }
    k += &end_thread(g);
    assemble(g, &k)
}

/// The GPGPU kernel: r0.1 = group ID X, r1.0 = thread index in the group.
fn gpgpu_kernel() -> Result<Vec<u8>, AsmError> {
    let g = Generation::Gen7;
    let mut k = String::new();
    // Lanes 0-15 in r30, r31.
    k += "mov (8|M0) r126.0<1>:uw 0x76543210:v\n";
    k += "mov (8|M0) r30.0<1>:ud r126.0<8;8,1>:uw\n";
    k += "add (8|M0) r31.0<1>:ud r30.0<8;8,1>:ud 0x8:ud\n";
    // First element: (X * 4 + t) * 256.
    k += "shl (1|M0) r32.0<1>:ud r0.1<0;1,0>:ud 0x2:ud\n";
    k += "add (1|M0) r32.0<1>:ud r32.0<0;1,0>:ud r1.0<0;1,0>:ud\n";
    k += "shl (1|M0) r32.0<1>:ud r32.0<0;1,0>:ud 0x8:ud\n";
    // Byte addresses of the first 16 elements in r36, r37.
    k += "add (8|M0) r36.0<1>:ud r30.0<8;8,1>:ud r32.0<0;1,0>:ud\n";
    k += "add (8|M0) r37.0<1>:ud r31.0<8;8,1>:ud r32.0<0;1,0>:ud\n";
    k += "shl (8|M0) r36.0<1>:ud r36.0<8;8,1>:ud 0x2:ud\n";
    k += "shl (8|M0) r37.0<1>:ud r37.0<8;8,1>:ud 0x2:ud\n";
    for s in 0..PER_THREAD / 16 {
        let off = s * 64;
        k += &format!("add (8|M0) r112.0<1>:ud r36.0<8;8,1>:ud {off:#x}:ud\n");
        k += &format!("add (8|M0) r113.0<1>:ud r37.0<8;8,1>:ud {off:#x}:ud\n");
        k += "send (16|M0) r20:ud r112 dc.untyped_read(bti=0, simd=16, mask=x) mlen=2 rlen=2\n";
        k += "send (16|M0) r22:ud r112 dc.untyped_read(bti=1, simd=16, mask=x) mlen=2 rlen=2\n";
        k += "add (8|M0) r114.0<1>:ud r20.0<8;8,1>:ud r22.0<8;8,1>:ud\n";
        k += "add (8|M0) r115.0<1>:ud r21.0<8;8,1>:ud r23.0<8;8,1>:ud\n";
        k += "send (16|M0) null:ud r112 dc.untyped_write(bti=2, simd=16, mask=x) mlen=4 rlen=0\n";
    }
    k += &end_thread(g);
    assemble(g, &k)
}

/// xorshift64* (Vigna): inputs the CPU can regenerate. The seed must not be 0.
#[derive(Clone, Debug)]
pub(super) struct Inputs(u64);

impl Inputs {
    /// Input `which` (0 = a, 1 = b) on `generation`.
    pub(super) fn new(generation: Generation, which: u64) -> Self {
        Inputs(1 + 1000 * which + generation as u64)
    }
}

impl Iterator for Inputs {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        let s = &mut self.0;
        *s ^= *s >> 12;
        *s ^= *s << 25;
        *s ^= *s >> 27;
        Some((s.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32)
    }
}

/// A buffer of `n` dwords from `values`, written a chunk at a time.
fn upload<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    cx: &Compute<'a>,
    n: usize,
    values: impl Iterator<Item = u32>,
) -> Result<Buffer<'a>, ComputeError> {
    let buffer = cx.create_buffer(gpu, n * 4)?;
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut at = 0;
    for v in values.take(n) {
        chunk.extend_from_slice(&v.to_le_bytes());
        if chunk.len() == CHUNK {
            buffer.write(at, &chunk)?;
            at += CHUNK;
            chunk.clear();
        }
    }
    buffer.write(at, &chunk)?;
    Ok(buffer)
}

pub(super) fn run<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    cx: &mut Compute<'a>,
    p: &Params,
    tally: &mut Tally,
) -> Result<(), Failure> {
    let g = cx.generation();
    let n = p.elements;
    if n == 0 || !n.is_multiple_of(GRAIN) {
        return Err(Failure::BadParams(
            "vector add elements must be a non-zero multiple of 1024",
        ));
    }
    // Ivy Bridge RAW buffers count bytes in their 2^27 entries.
    if (n as u64).saturating_mul(4) > MAX_BUFFER_ENTRIES {
        return Err(Failure::BadParams(
            "vector add elements must fit a buffer of 2^27 bytes",
        ));
    }
    // Below 2^25 elements: the offsets and counts fit 32 bits.
    let threads = n / PER_THREAD;
    let groups = (threads / GROUP_THREADS) as u32;
    // Media threads' first offsets: bytes on 965/G45, OWords on SNB.
    let unit = if g >= Generation::Gen6 { 16 } else { 1 };
    let inline: Vec<u32> = if g == Generation::Gen7 {
        Vec::new()
    } else {
        (0..threads)
            .map(|t| (t * PER_THREAD * 4 / unit) as u32)
            .collect()
    };
    // GPGPU: one CURBE block per thread of a group, its index in dword 0.
    let per_thread_curbe: Vec<u8> = (0..GROUP_THREADS as u32)
        .flat_map(|t| {
            let mut block = [0u8; 32];
            block[..4].copy_from_slice(&t.to_le_bytes());
            block
        })
        .collect();
    let bin = if g == Generation::Gen7 {
        gpgpu_kernel()?
    } else {
        media_kernel(g)?
    };
    let (desc, work, curbe) = if g == Generation::Gen7 {
        let desc = KernelDesc {
            simd: Simd::Simd16,
            curbe_bytes: 32,
            bindings: &[0, 1, 2],
            ..KernelDesc::new(&bin)
        };
        let work = Threads::Groups {
            groups: [groups, 1, 1],
            group_size: [(GROUP_THREADS * 16) as u32, 1, 1],
        };
        (desc, work, &per_thread_curbe[..])
    } else {
        let desc = KernelDesc {
            bindings: &[0, 1, 2],
            ..KernelDesc::new(&bin)
        };
        let work = Threads::Objects {
            count: threads,
            inline: &inline,
        };
        (desc, work, &[][..])
    };
    let case = match work {
        Threads::Groups { .. } => "GPGPU groups",
        _ => "media objects",
    };
    scoped(gpu, |gpu, held| {
        held.kernels.push(cx.load_kernel(gpu, &desc)?);
        held.buffers.push(upload(gpu, cx, n, Inputs::new(g, 0))?);
        held.buffers.push(upload(gpu, cx, n, Inputs::new(g, 1))?);
        held.buffers.push(cx.create_buffer(gpu, n * 4)?);
        let bindings = [
            (0, Resource::Buffer(&held.buffers[0])),
            (1, Resource::Buffer(&held.buffers[1])),
            (2, Resource::Buffer(&held.buffers[2])),
        ];
        let d = Dispatch {
            threads: work,
            curbe,
            bindings: &bindings,
            samplers: &[],
        };
        launch(gpu, cx, &held.kernels[0], &d, p.timeout_us)?;
        tally.dispatches += 1;
        tally.threads += threads as u64;
        // The CPU's sums, compared a chunk at a time.
        let mut want = Inputs::new(g, 0)
            .zip(Inputs::new(g, 1))
            .map(|(a, b)| a.wrapping_add(b));
        let (mut out, mut sums) = ([0u8; CHUNK], [0u32; CHUNK / 4]);
        for first in (0..n).step_by(CHUNK / 4) {
            let len = (n - first).min(CHUNK / 4);
            held.buffers[2].read(first * 4, &mut out[..len * 4])?;
            sums.iter_mut().zip(&mut want).for_each(|(s, w)| *s = w);
            check(&out[..len * 4], first, &sums[..len], case)?;
        }
        Ok(())
    })?;
    tally.checked += n as u64;
    Ok(())
}

/// The dwords of `out` (elements `first`..) equal `want`, element by element.
pub(super) fn check(
    out: &[u8],
    first: usize,
    want: &[u32],
    case: &'static str,
) -> Result<(), Mismatch> {
    for (i, &w) in want.iter().enumerate() {
        let got = dword(out, i);
        if got != w {
            return Err(Mismatch {
                case,
                at: Place::Element(first + i),
                got,
                want: w,
            });
        }
    }
    Ok(())
}
