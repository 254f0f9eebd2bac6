//! Group reduction (Ivy Bridge): each group of 64 invocations (four SIMD16
//! threads) sums 64 integers. Every thread adds its 16 lanes, stores the
//! partial sum in the group's shared local memory (binding table index 254
//! [ext: Mesa GEN7_BTI_SLM]), meets the others at a gateway barrier (`send`
//! BarrierMsg then `wait n0` [ext: Mesa emit_barrier]), and thread 0 adds
//! the four partials and writes the group's sum. Checked against the CPU's
//! sums.
//!
//! [`sums`] also runs the kernel without its barrier, the control that
//! shows the barrier orders the threads: thread 0 then reads partials the
//! others have not stored yet.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use baregpu_hal::Generation;
use baregpu_isa::text::AsmError;

use super::kernels::{assemble, end_thread};
use super::{Failure, Mismatch, Params, Place, Scenario, SelfTestError, Tally, dword, launch};
use super::{Held, scoped};
use crate::compute::surface::MAX_BUFFER_ENTRIES;
use crate::compute::{Compute, Dispatch, KernelDesc, Resource, Simd, Threads};
use crate::platform::Platform;
use crate::submit::Gpu;

/// SIMD16 threads per group.
pub const THREADS: usize = 4;
/// Invocations per group: the values one group sums.
pub const GROUP_SIZE: usize = THREADS * 16;

const G: Generation = Generation::Gen7;

/// The gateway barrier: the message header's dword 2 carries the barrier
/// ID from R0.2 bits 27:24 [ext: Mesa brw_barrier / emit_barrier], then
/// `wait` on the notification register until the gateway releases the
/// group.
const BARRIER: &str = "mov (8|M0) r112.0<1>:ud 0x0:ud\n\
                       and (1|M0) r112.2<1>:ud r0.2<0;1,0>:ud 0x0f000000:ud\n\
                       send (8|M0) null:ud r112 gw.barrier() mlen=1 rlen=0\n\
                       wait (1|M0) n0.0<0;1,0>:ud\n";

/// r0.1 = group ID X, r1.0 = thread index in the group (its CURBE block).
fn kernel(barrier: bool) -> Result<Vec<u8>, AsmError> {
    let mut k = String::new();
    k += "mov (8|M0) r126.0<1>:uw 0x76543210:v\n";
    k += "mov (8|M0) r30.0<1>:ud r126.0<8;8,1>:uw\n";
    k += "add (8|M0) r31.0<1>:ud r30.0<8;8,1>:ud 0x8:ud\n";
    // The thread's 16 elements: (X * 4 + t) * 16 + lane, as byte addresses.
    k += "shl (1|M0) r32.0<1>:ud r0.1<0;1,0>:ud 0x2:ud\n";
    k += "add (1|M0) r32.0<1>:ud r32.0<0;1,0>:ud r1.0<0;1,0>:ud\n";
    k += "shl (1|M0) r32.0<1>:ud r32.0<0;1,0>:ud 0x4:ud\n";
    k += "add (8|M0) r112.0<1>:ud r30.0<8;8,1>:ud r32.0<0;1,0>:ud\n";
    k += "add (8|M0) r113.0<1>:ud r31.0<8;8,1>:ud r32.0<0;1,0>:ud\n";
    k += "shl (8|M0) r112.0<1>:ud r112.0<8;8,1>:ud 0x2:ud\n";
    k += "shl (8|M0) r113.0<1>:ud r113.0<8;8,1>:ud 0x2:ud\n";
    k += "send (16|M0) r20:ud r112 dc.untyped_read(bti=0, simd=16, mask=x) mlen=2 rlen=2\n";
    // Horizontal sum of the 16 lanes.
    k += "add (8|M0) r24.0<1>:ud r20.0<8;8,1>:ud r21.0<8;8,1>:ud\n";
    k += "add (4|M0) r25.0<1>:ud r24.0<4;4,1>:ud r24.4<4;4,1>:ud\n";
    k += "add (2|M0) r26.0<1>:ud r25.0<2;2,1>:ud r25.2<2;2,1>:ud\n";
    k += "add (1|M0) r27.0<1>:ud r26.0<0;1,0>:ud r26.1<0;1,0>:ud\n";
    // The partial sum to SLM dword t (every lane writes the same dword).
    k += "shl (1|M0) r28.0<1>:ud r1.0<0;1,0>:ud 0x2:ud\n";
    k += "mov (8|M0) r112.0<1>:ud r28.0<0;1,0>:ud\n";
    k += "mov (8|M0) r113.0<1>:ud r27.0<0;1,0>:ud\n";
    k += "send (8|M0) null:ud r112 dc.untyped_write(bti=254, simd=8, mask=x) mlen=2 rlen=0\n";
    if barrier {
        k += BARRIER;
    }
    // Thread 0 reads SLM dwords 0-7, adds the first four, writes out[X].
    k += "cmp (1|M0) (ne)f0.0 null<1>:ud r1.0<0;1,0>:ud 0x0:ud\n";
    k += "(W&f0.0) jmpi END\n";
    k += "shl (8|M0) r112.0<1>:ud r30.0<8;8,1>:ud 0x2:ud\n";
    k += "send (8|M0) r40:ud r112 dc.untyped_read(bti=254, simd=8, mask=x) mlen=1 rlen=1\n";
    k += "add (2|M0) r41.0<1>:ud r40.0<2;2,1>:ud r40.2<2;2,1>:ud\n";
    k += "add (1|M0) r42.0<1>:ud r41.0<0;1,0>:ud r41.1<0;1,0>:ud\n";
    k += "shl (1|M0) r43.0<1>:ud r0.1<0;1,0>:ud 0x2:ud\n";
    k += "mov (8|M0) r112.0<1>:ud r43.0<0;1,0>:ud\n";
    k += "mov (8|M0) r113.0<1>:ud r42.0<0;1,0>:ud\n";
    k += "send (8|M0) null:ud r112 dc.untyped_write(bti=1, simd=8, mask=x) mlen=2 rlen=0\n";
    k += "END:\n";
    k += &end_thread(G);
    assemble(G, &k)
}

/// The input value at `i`: a multiplicative hash, so neighbouring sums differ.
pub(super) fn input(i: usize) -> u32 {
    (i as u32).wrapping_mul(2_654_435_761) >> 7
}

/// The CPU's sum of group `group`.
pub(super) fn group_sum(group: usize) -> u32 {
    (group * GROUP_SIZE..(group + 1) * GROUP_SIZE)
        .map(input)
        .fold(0, u32::wrapping_add)
}

/// Group sums as the GPU wrote them and as the CPU computes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sums {
    pub got: Vec<u32>,
    pub want: Vec<u32>,
}

/// Runs the reduction over `groups` groups, with or without its barrier,
/// and returns both sides without judging them (the scenario requires them
/// equal; without the barrier they need not be).
pub fn sums<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    cx: &mut Compute<'a>,
    groups: u32,
    barrier: bool,
    timeout_us: u64,
) -> Result<Sums, SelfTestError> {
    let generation = cx.generation();
    let fail = |failure| SelfTestError {
        scenario: Scenario::Reduce,
        generation,
        failure,
    };
    if generation != G || gpu.generation() != G {
        return Err(fail(Failure::Unsupported));
    }
    dispatch(gpu, cx, groups, barrier, timeout_us).map_err(fail)
}

fn dispatch<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    cx: &mut Compute<'a>,
    groups: u32,
    barrier: bool,
    timeout_us: u64,
) -> Result<Sums, Failure> {
    if groups == 0 {
        return Err(Failure::BadParams("the reduction needs at least one group"));
    }
    // Ivy Bridge RAW buffers count bytes in their 2^27 entries.
    if u64::from(groups) * (GROUP_SIZE as u64 * 4) > MAX_BUFFER_ENTRIES {
        return Err(Failure::BadParams(
            "the reduction's input must fit a buffer of 2^27 bytes",
        ));
    }
    let n = groups as usize;
    let bin = kernel(barrier)?;
    // One CURBE block per thread of a group: its index in r1.0.
    let curbe: Vec<u8> = (0..THREADS as u32)
        .flat_map(|t| {
            let mut b = [0u8; 32];
            b[..4].copy_from_slice(&t.to_le_bytes());
            b
        })
        .collect();
    let input_bytes: Vec<u8> = (0..n * GROUP_SIZE)
        .flat_map(|i| input(i).to_le_bytes())
        .collect();
    let mut raw = vec![0u8; n * 4];
    scoped(gpu, |gpu, held: &mut Held| {
        let desc = KernelDesc {
            simd: Simd::Simd16,
            curbe_bytes: 32,
            bindings: &[0, 1],
            barriers: true,
            slm_bytes: 4096,
            ..KernelDesc::new(&bin)
        };
        held.kernels.push(cx.load_kernel(gpu, &desc)?);
        held.buffers.push(cx.upload_buffer(gpu, &input_bytes)?);
        held.buffers.push(cx.create_buffer(gpu, n * 4)?);
        let bindings = [
            (0, Resource::Buffer(&held.buffers[0])),
            (1, Resource::Buffer(&held.buffers[1])),
        ];
        let d = Dispatch {
            threads: Threads::Groups {
                groups: [groups, 1, 1],
                group_size: [GROUP_SIZE as u32, 1, 1],
            },
            curbe: &curbe,
            bindings: &bindings,
            samplers: &[],
        };
        launch(gpu, cx, &held.kernels[0], &d, timeout_us)?;
        held.buffers[1].read(0, &mut raw)?;
        Ok(())
    })?;
    Ok(Sums {
        got: (0..n).map(|i| dword(&raw, i)).collect(),
        want: (0..n).map(group_sum).collect(),
    })
}

pub(super) fn run<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    cx: &mut Compute<'a>,
    p: &Params,
    tally: &mut Tally,
) -> Result<(), Failure> {
    let s = dispatch(gpu, cx, p.groups, true, p.timeout_us)?;
    tally.dispatches += 1;
    tally.threads += u64::from(p.groups) * THREADS as u64;
    check(&s)?;
    tally.checked += s.want.len() as u64;
    Ok(())
}

/// Every group's sum is the CPU's.
pub(super) fn check(s: &Sums) -> Result<(), Mismatch> {
    match s
        .want
        .iter()
        .enumerate()
        .find(|&(i, w)| s.got.get(i) != Some(w))
    {
        None => Ok(()),
        Some((i, &want)) => Err(Mismatch {
            case: "barrier and shared local memory",
            at: Place::Group(i),
            got: s.got.get(i).copied().unwrap_or(0),
            want,
        }),
    }
}
