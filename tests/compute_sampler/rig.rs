//! The kernels and the dispatch the end-to-end tests share: one SIMD16
//! sampler message per case with its payload from the CURBE, the
//! writeback stored to an output buffer with OWord block writes.

use baregpu::compute::{Compute, Dispatch, KernelDesc, Resource, Sampler, Surface, Threads};
use baregpu::hal::Generation;

use crate::compute_run_common::{DONE_US, HostGpu, Soft, assemble, end_thread, msg, send_n};

#[derive(Clone, Copy, PartialEq)]
pub enum Op {
    Sample,
    SampleL,
}

/// The SIMD16 parameters of `op` in payload order after the header, as
/// 16-lane rows: sample u v on every generation; sample_l u v r lod on
/// 965/G45 (000 lines 3999-4022), u v r ai lod on SNB (003 lines
/// 79366-79390), lod u v on Ivy Bridge [ext: Mesa
/// src/intel/compiler/elk/elk_lower_logical_sends.cpp
/// lower_sampler_logical_send: the LOD before the coordinates from Gen7 on].
pub fn params(g: Generation, op: Op, u: [f32; 16], v: [f32; 16], lod: [f32; 16]) -> Vec<[f32; 16]> {
    let z = [0.0; 16];
    match (g, op) {
        (_, Op::Sample) => vec![u, v],
        (Generation::Gen4 | Generation::G45, Op::SampleL) => vec![u, v, z, lod],
        (Generation::Gen6, Op::SampleL) => vec![u, v, z, z, lod],
        (_, Op::SampleL) => vec![lod, u, v],
    }
}

/// The CURBE holding `params`: each parameter in two registers, lanes 0-7
/// then 8-15 (000 lines 4103-4142).
pub fn curbe_of(params: &[[f32; 16]]) -> Vec<u8> {
    params
        .iter()
        .flat_map(|p| p.iter().flat_map(|f| f.to_le_bytes()))
        .collect()
}

/// A kernel that sends `op` once per case (binding table index, sampler
/// index) with the payload in CURBE registers r1..r`rows` (at most 16;
/// r20 and r21 hold message headers), and writes each writeback
/// (r40-r47) to BTI 0 at 256 bytes per case.
pub fn kernel(g: Generation, op: Op, rows: usize, cases: &[(u32, u32)]) -> Vec<u8> {
    assert!(rows <= 16, "the CURBE rows reach the header registers");
    let old = matches!(g, Generation::Gen4 | Generation::G45);
    // The payload: MRFs from m1 before Gen7, GRFs from r100 on Gen7.
    let pay = |i: usize| {
        if g == Generation::Gen7 {
            format!("r{}", 100 + i)
        } else {
            format!("m{}", 1 + i)
        }
    };
    let header = usize::from(old);
    // 965/G45 messages start with a header (000 lines 3962-3988): R0, whose
    // dword 3 is the Sampler State Pointer of the dispatch, with M0.2 = 0
    // (no texel offsets, every channel returned).
    let mut k = String::from("mov (8|M0) r20.0<1>:ud r0.0<8;8,1>:ud\n");
    k += "mov (1|M0) r20.2<1>:ud 0x0:ud\n";
    let name = match op {
        Op::Sample => "sample",
        Op::SampleL => "sample_l",
    };
    let ret = if g == Generation::Gen4 {
        ", ret=f32"
    } else {
        ""
    };
    let (port, hdr) = match g {
        Generation::Gen4 | Generation::G45 => ("dpw", ""),
        Generation::Gen6 => ("rc", " hdr"),
        _ => ("dc", " hdr"),
    };
    for (c, (bti, sampler)) in cases.iter().enumerate() {
        if old {
            k += &format!("mov (8|M0) {}.0<1>:ud r20.0<8;8,1>:ud\n", pay(0));
        }
        for r in 0..rows {
            k += &format!(
                "mov (8|M0) {}.0<1>:ud r{}.0<8;8,1>:ud\n",
                pay(header + r),
                1 + r
            );
        }
        let desc = format!(
            "sampler.{name}(bti={bti}, sampler={sampler}, simd=16{ret}) mlen={} rlen=8",
            header + rows
        );
        k += &match g {
            Generation::Gen4 | Generation::G45 => {
                format!("send (16|M0) r40:uw m1 null:ud {desc}\n")
            }
            Generation::Gen6 => format!("send (16|M0) r40:uw m1 {desc}\n"),
            _ => format!("send (16|M0) r40:uw r100 {desc}\n"),
        };
        for half in 0..2 {
            // Global Offset: bytes on 965/G45, OWords from SNB (000 line
            // 4518; 003 lines 83583-83606).
            let bytes = c * 256 + half * 128;
            let offset = if old { bytes } else { bytes / 16 };
            k += "mov (8|M0) r21.0<1>:ud r0.0<8;8,1>:ud\n";
            k += &format!("mov (1|M0) r21.2<1>:ud {offset:#x}:ud\n");
            for r in 0..4 {
                k += &format!(
                    "mov (8|M0) {}.0<1>:ud r{}.0<8;8,1>:ud\n",
                    msg(g, 1 + r),
                    40 + 4 * half + r as usize
                );
            }
            let write = format!("{port}.oword_block_write(bti=0, owords=8) mlen=5 rlen=0{hdr}");
            k += &send_n(g, 16, "r21", "null", &write);
        }
    }
    k += &end_thread(g);
    assemble(g, &k)
}

/// One sampling dispatch: a kernel from [`kernel`], its CURBE, the
/// textures at BTIs 1, 2, ... and the samplers.
pub struct Job<'a> {
    pub bin: &'a [u8],
    pub curbe: &'a [u8],
    pub textures: &'a [&'a Surface<'a>],
    pub samplers: &'a [(u32, Sampler)],
    pub cases: usize,
}

/// Runs one thread of `job` with the output buffer at BTI 0; returns R, G,
/// B, A per lane per case.
pub fn run<'g>(
    gpu: &mut HostGpu<'g>,
    soft: &Soft<'_>,
    cx: &mut Compute<'g>,
    job: &Job<'_>,
) -> Vec<[[f32; 16]; 4]> {
    let Job {
        bin,
        curbe,
        textures,
        samplers,
        cases,
    } = *job;
    let g = gpu.generation();
    let bindings_used: Vec<u32> = (0..=textures.len() as u32).collect();
    let sampler_indices: Vec<u32> = samplers.iter().map(|(i, _)| *i).collect();
    let k = cx
        .load_kernel(
            gpu,
            &KernelDesc {
                curbe_bytes: curbe.len() as u32,
                bindings: &bindings_used,
                samplers: &sampler_indices,
                ..KernelDesc::new(bin)
            },
        )
        .unwrap();
    let out = cx.create_buffer(gpu, cases * 256).unwrap();
    let mut bindings = vec![(0, Resource::Buffer(&out))];
    for (i, t) in textures.iter().enumerate() {
        bindings.push((1 + i as u32, Resource::Surface(t)));
    }
    let d = Dispatch {
        threads: Threads::Objects {
            count: 1,
            inline: &[],
        },
        curbe,
        bindings: &bindings,
        samplers,
    };
    let fence = cx.dispatch(gpu, &k, &d).unwrap();
    gpu.wait(fence, DONE_US)
        .unwrap_or_else(|e| panic!("{g}: {e}\nEU: {:?}", soft.eu_report()));
    let mut raw = vec![0u8; cases * 256];
    out.read(0, &mut raw).unwrap();
    raw.chunks(256)
        .map(|case| {
            core::array::from_fn(|ch| {
                core::array::from_fn(|lane| {
                    let at = ch * 64 + lane * 4;
                    f32::from_le_bytes([case[at], case[at + 1], case[at + 2], case[at + 3]])
                })
            })
        })
        .collect()
}
