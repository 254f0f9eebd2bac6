//! The driver's DG2 (Gen12.5) compute path on the software GPU: kernels in
//! Xe-HPG assembly (LSC messages; checked against `iga64 -p=12p71` when it
//! is installed) loaded by `Compute`, dispatched with COMPUTE_WALKER on the
//! compute engine, their results checked against host computations; and
//! the error paths of the older generations (hang, page fault, a binary
//! that does not decode or breaks an ISA rule).
//!
//! The kernels read the payload `state/gen12_5.rs` documents: R0 (group
//! IDs in r0.1/r0.6), the local X (and Y) IDs from r1, then the inline data
//! with the buffers' 64-bit addresses in its qwords.

use baregpu::Generation;
use baregpu::compute::{
    Compute, ComputeError, Dispatch, Format, IndirectPointer, KernelDesc, LocalIds, Resource, Simd,
    Threads,
};
use baregpu::gtt::tile4;
use baregpu::isa::IsaGen;
use baregpu::platform::host::HostPlatform;
use baregpu::platform::{LocalMemory, PlatformBus};
use baregpu::submit::{HangReason, Placement};
use baregpu::{Gpu, GpuError};
use baregpu_soft::SoftGpu;

/// The harness's BAR2: the model's local memory behind the driver's seam.
struct Bar2<'a>(&'a SoftGpu<PlatformBus<'a, HostPlatform>>);

impl LocalMemory for Bar2<'_> {
    fn local_size(&self) -> u64 {
        self.0.local_memory_size()
    }
    fn read_local(&self, offset: u64, buf: &mut [u8]) -> bool {
        self.0.read_local(offset, buf)
    }
    fn write_local(&self, offset: u64, data: &[u8]) -> bool {
        self.0.write_local(offset, data)
    }
}

macro_rules! setup {
    ($p:ident, $soft:ident, $bar:ident, $gpu:ident) => {
        let $p = HostPlatform::new();
        let $soft = SoftGpu::new(Generation::Gen12_5, PlatformBus::new(&$p)).expect("DG2 model");
        let $bar = Bar2(&$soft);
        #[allow(unused_mut)]
        let mut $gpu =
            Gpu::with_local_memory(&$p, &$soft, Generation::Gen12_5, &$bar).expect("bring-up");
    };
}

const SECOND: u64 = 1_000_000;

const EOT: &str = "send.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}\n";

/// Our assembler's bytes, compared with iga64's when it is installed.
fn kernel(name: &str, src: &str) -> Vec<u8> {
    let ours = baregpu::isa::text::assemble(IsaGen::Gen12_5, src)
        .unwrap_or_else(|e| panic!("{name}: {e:?}\n{src}"));
    let dir = std::env::temp_dir().join(format!("baregpu-cdg2-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (file, out) = (dir.join("k.asm"), dir.join("k.bin"));
    std::fs::write(&file, src).unwrap();
    match std::process::Command::new("iga64")
        .args(["-p=12p71", "-a"])
        .arg(&file)
        .arg("-o")
        .arg(&out)
        .output()
    {
        Ok(r) => {
            assert!(
                r.status.success(),
                "iga64 on {name}: {}",
                String::from_utf8_lossy(&r.stderr)
            );
            assert_eq!(std::fs::read(&out).unwrap(), ours, "{name}: iga64 differs");
        }
        Err(_) => eprintln!("iga64 not found: {name} not compared with the oracle"),
    }
    ours
}

/// Kernel text for SIMD16 threads with local X IDs in r1: r10:2 the global
/// X ID (group X * `lws` + local X), r12:2 its byte offset, and for each
/// `(q, reg)` the A64 addresses `inline qword q + offset` in reg..reg+3
/// (the inline data is in `inline_reg`). The low dword is added without a
/// carry: the tests check that no buffer crosses a 4 GiB boundary.
fn global_addresses(lws: u32, inline_reg: u32, bufs: &[(u32, u32)]) -> String {
    let mut s = format!(
        "shl (1|M0) r3.0<1>:ud r0.1<0;1,0>:ud {}:ud\n",
        lws.trailing_zeros()
    );
    s += "add (16|M0) r10.0<1>:ud r1.0<1;1,0>:uw r3.0<0;1,0>:ud {A@1}\n";
    s += "shl (16|M0) r12.0<1>:ud r10.0<1;1,0>:ud 2:ud {A@1}\n";
    for &(q, a) in bufs {
        let (lo, hi) = (2 * q, 2 * q + 1);
        let i = inline_reg;
        s += &format!("add (8|M0) r{a}.0<2>:ud r12.0<1;1,0>:ud r{i}.{lo}<0;1,0>:ud {{A@1}}\n");
        s += &format!(
            "add (8|M8) r{}.0<2>:ud r13.0<1;1,0>:ud r{i}.{lo}<0;1,0>:ud\n",
            a + 2
        );
        s += &format!("mov (8|M0) r{a}.1<2>:ud r{i}.{hi}<0;1,0>:ud\n");
        s += &format!("mov (8|M8) r{}.1<2>:ud r{i}.{hi}<0;1,0>:ud\n", a + 2);
    }
    s
}

fn qwords(q: &[u64]) -> Vec<u32> {
    q.iter()
        .flat_map(|v| [*v as u32, (*v >> 32) as u32])
        .collect()
}

fn no_4gib_crossing(gfx: u64, bytes: usize) {
    assert_eq!(
        gfx >> 32,
        (gfx + bytes as u64 - 1) >> 32,
        "buffer at {gfx:#x} crosses a 4 GiB boundary"
    );
}

fn u32s(b: &baregpu::compute::Buffer<'_>, n: usize) -> Vec<u32> {
    let mut bytes = vec![0u8; 4 * n];
    b.read(0, &mut bytes).unwrap();
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Fill from constants, in system and in local memory: every channel
/// stores `constant * id + inline dword 2`, where the constant comes from
/// the indirect data (its address in inline qword 0, as the driver puts
/// it) and the addend from the inline data after it.
#[test]
fn fill_from_constants_in_system_and_local_memory() {
    setup!(p, soft, bar, gpu);
    let mut src = String::new();
    // r2: inline data (qword 0 the indirect data, dword 2 the output,
    // dword 4 the addend); load the indirect dword 0 (the multiplier).
    src += "mov (1|M0) r30.0<1>:ud r2.0<0;1,0>:ud\n";
    src += "mov (1|M0) r30.1<1>:ud r2.1<0;1,0>:ud\n";
    src += "sync.nop null {A@1}\n";
    src += "load.ugm.d32x1t.a64 (1|M0) r31:1 [r30:1] {$0}\n";
    src += &global_addresses(16, 2, &[(1, 20)]);
    src += "sync.nop null {$0.dst}\n";
    src += "mul (16|M0) r40.0<1>:ud r10.0<1;1,0>:ud r31.0<0;1,0>:uw {A@1}\n";
    src += "add (16|M0) r40.0<1>:ud r40.0<1;1,0>:ud r2.4<0;1,0>:ud {A@1}\n";
    src += "sync.nop null {A@1}\n";
    src += "store.ugm.d32.a64 (16|M0) [r20:4] r40:2 {$1}\n";
    src += EOT;
    let binary = kernel("fill", &src);
    for placement in [Placement::System, Placement::Local] {
        let mut cx = Compute::new(&mut gpu).unwrap();
        cx.set_placement(placement).unwrap();
        let k = cx
            .load_kernel(
                &mut gpu,
                &KernelDesc {
                    simd: Simd::Simd16,
                    local_ids: LocalIds::X,
                    ..KernelDesc::new(&binary)
                },
            )
            .unwrap();
        let n = 16 * 96;
        let out = cx.create_buffer(&mut gpu, 4 * n + 64).unwrap();
        assert_eq!(out.placement(), placement);
        out.write(0, &vec![0xee; 4 * n + 64]).unwrap();
        no_4gib_crossing(out.gfx().0, 4 * n);
        let mut inline = qwords(&[out.gfx().0]);
        inline.push(1000);
        let f = cx
            .dispatch(
                &mut gpu,
                &k,
                &Dispatch {
                    threads: Threads::Compute {
                        groups: [(n / 16) as u32, 1, 1],
                        group_size: [16, 1, 1],
                        inline: &inline,
                        indirect: &7u32.to_le_bytes(),
                        pointer: IndirectPointer::InlineQword0,
                    },
                    curbe: &[],
                    bindings: &[],
                    samplers: &[],
                },
            )
            .unwrap();
        gpu.wait(f, 10 * SECOND)
            .unwrap_or_else(|e| panic!("{placement:?}: {e}"));
        let want: Vec<u32> = (0..n as u32).map(|i| 7 * i + 1000).collect();
        assert_eq!(u32s(&out, n), want, "{placement:?}");
        // Nothing past the last channel.
        let mut tail = [0u8; 4];
        out.read(4 * n, &mut tail).unwrap();
        assert_eq!(tail, [0xee; 4], "{placement:?}");
        Compute::free_buffer(&mut gpu, out);
        Compute::free_kernel(&mut gpu, k);
        cx.destroy(&mut gpu);
    }
    let _ = &bar;
}

/// The OpenCL runtime's convention (`IndirectPointer::R0`): the inline
/// data is the caller's alone, and the kernel finds its indirect data as
/// IGC's prologue does, at r0.0 bits 31:6 through the stateless binding
/// table index 253 (an offset from General State Base, whose General State
/// Buffer Size the driver programs to cover it). The threads start at
/// `KernelDesc::entry`, past a 64-byte prologue that would spoil the
/// result if it ran; entries that are not 64-byte aligned or not at an
/// instruction are refused before anything runs.
#[test]
fn indirect_data_from_r0_and_an_entry_past_a_prologue() {
    setup!(p, soft, bar, gpu);
    let _ = (&bar, &soft);
    // Four native instructions, 64 bytes, that end the thread before it
    // stores anything.
    let mut src = "mov (16|M0) r40.0<1>:ud 0xdead:ud\n".repeat(3);
    src += EOT;
    // r127: an OWord block header, its dword 2 the byte offset.
    src += "(W) mov (8|M0) r127.0<1>:ud 0x0:ud\n";
    src += "(W) and (1|M0) r127.2<1>:ud r0.0<0;1,0>:ud 0xFFFFFFC0:ud\n";
    // dc0 aligned OWord block read, 4 OWords from BTI 253 (IGC's form).
    src += "(W) send.dc0 (8|M0) r5 r127 null:0 0x0 0x022843FD {A@1,$1}\n";
    // r2: inline data, qword 0 the output.
    src += &global_addresses(16, 2, &[(0, 20)]);
    src += "sync.nop null {$1.dst}\n";
    src += "mul (16|M0) r40.0<1>:ud r10.0<1;1,0>:ud r5.0<0;1,0>:uw {A@1}\n";
    src += "add (16|M0) r40.0<1>:ud r40.0<1;1,0>:ud r5.1<0;1,0>:ud {A@1}\n";
    src += "sync.nop null {A@1}\n";
    src += "store.ugm.d32.a64 (16|M0) [r20:4] r40:2 {$2}\n";
    src += EOT;
    let binary = kernel("r0_indirect", &src);
    let mut cx = Compute::new(&mut gpu).unwrap();
    let desc = KernelDesc {
        simd: Simd::Simd16,
        local_ids: LocalIds::X,
        entry: 64,
        ..KernelDesc::new(&binary)
    };
    for (entry, why) in [
        (32, "not 64-byte aligned"),
        (binary.len() as u32 + 64, "not at an instruction"),
    ] {
        match cx.load_kernel(&mut gpu, &KernelDesc { entry, ..desc }) {
            Err(ComputeError::KernelInvalid { offset, why: w }) => {
                assert_eq!(offset, entry as usize);
                assert!(w.contains(why), "{w}");
            }
            other => panic!("entry {entry}: {other:?}"),
        }
    }
    let k = cx.load_kernel(&mut gpu, &desc).unwrap();
    let n = 16 * 8;
    let out = cx.create_buffer(&mut gpu, 4 * n).unwrap();
    no_4gib_crossing(out.gfx().0, 4 * n);
    let indirect: Vec<u8> = [7u32, 1000].iter().flat_map(|v| v.to_le_bytes()).collect();
    let f = cx
        .dispatch(
            &mut gpu,
            &k,
            &Dispatch {
                threads: Threads::Compute {
                    groups: [(n / 16) as u32, 1, 1],
                    group_size: [16, 1, 1],
                    inline: &qwords(&[out.gfx().0]),
                    indirect: &indirect,
                    pointer: IndirectPointer::R0,
                },
                curbe: &[],
                bindings: &[],
                samplers: &[],
            },
        )
        .unwrap();
    gpu.wait(f, 10 * SECOND).unwrap();
    let want: Vec<u32> = (0..n as u32).map(|i| 7 * i + 1000).collect();
    assert_eq!(u32s(&out, n), want);
    Compute::free_buffer(&mut gpu, out);
    Compute::free_kernel(&mut gpu, k);
    cx.destroy(&mut gpu);
}

/// c = a + b over 1 Mi floats: 16 Ki groups of four SIMD16 threads.
#[test]
fn vector_add_of_1mi_floats() {
    setup!(p, soft, bar, gpu);
    let _ = &bar;
    let mut src = global_addresses(64, 2, &[(0, 20), (1, 24), (2, 28)]);
    src += "sync.nop null {A@1}\n";
    src += "load.ugm.d32.a64 (16|M0) r40:2 [r20:4] {$1}\n";
    src += "load.ugm.d32.a64 (16|M0) r42:2 [r24:4] {$2}\n";
    src += "sync.nop null {$1.dst}\n";
    src += "add (16|M0) r44.0<1>:f r40.0<1;1,0>:f r42.0<1;1,0>:f {$2.dst}\n";
    src += "sync.nop null {A@1}\n";
    src += "store.ugm.d32.a64 (16|M0) [r28:4] r44:2 {$3}\n";
    src += EOT;
    let binary = kernel("vadd", &src);
    let mut cx = Compute::new(&mut gpu).unwrap();
    let k = cx
        .load_kernel(
            &mut gpu,
            &KernelDesc {
                local_ids: LocalIds::X,
                ..KernelDesc::new(&binary)
            },
        )
        .unwrap();
    let n = 1 << 20;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        ((seed >> 40) as i32 - (1 << 23)) as f32 / 1024.0
    };
    let a: Vec<f32> = (0..n).map(|_| next()).collect();
    let b: Vec<f32> = (0..n).map(|_| next()).collect();
    let bytes = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let ba = cx.upload_buffer(&mut gpu, &bytes(&a)).unwrap();
    let bb = cx.upload_buffer(&mut gpu, &bytes(&b)).unwrap();
    let bc = cx.create_buffer(&mut gpu, 4 * n).unwrap();
    for buf in [&ba, &bb, &bc] {
        no_4gib_crossing(buf.gfx().0, 4 * n);
    }
    let inline = qwords(&[ba.gfx().0, bb.gfx().0, bc.gfx().0]);
    let f = cx
        .dispatch(
            &mut gpu,
            &k,
            &Dispatch {
                threads: Threads::Compute {
                    groups: [(n / 64) as u32, 1, 1],
                    group_size: [64, 1, 1],
                    inline: &inline,
                    indirect: &[],
                    pointer: IndirectPointer::InlineQword0,
                },
                curbe: &[],
                bindings: &[],
                samplers: &[],
            },
        )
        .unwrap();
    gpu.wait(f, 600 * SECOND).unwrap();
    let got = u32s(&bc, n);
    for i in 0..n {
        assert_eq!(got[i], (a[i] + b[i]).to_bits(), "element {i}");
    }
}

/// Every channel of a 64-wide group ends with the group's sum: six
/// butterfly rounds through shared local memory with barriers (the
/// interface descriptor's barrier and SLM size come from the kernel
/// description), then a store of the sum.
#[test]
fn work_group_sum_through_slm_and_barriers() {
    setup!(p, soft, bar, gpu);
    let _ = &bar;
    let mut src = global_addresses(64, 2, &[(0, 20), (1, 24)]);
    src += "shl (16|M0) r14.0<1>:ud r1.0<1;1,0>:uw 2:ud\n";
    src += "mov (8|M0) r5.0<1>:ud r0.0<1;1,0>:ud\n";
    src += "sync.nop null {A@1}\n";
    src += "load.ugm.d32.a64 (16|M0) r50:2 [r24:4] {$4}\n";
    src += "sync.nop null {$4.dst}\n";
    for s in [1, 2, 4, 8, 16, 32] {
        src += &format!("xor (16|M0) r16.0<1>:ud r14.0<1;1,0>:ud {}:ud\n", 4 * s);
        src += "sync.nop null {A@1}\n";
        src += "store.slm.d32.a32 (16|M0) [r14:2] r50:2 {$0}\n";
        src += "send.gtwy (1|M0) null r5 null:0 0x0 0x02000004 {$1}\n";
        src += "sync.bar null\n";
        src += "load.slm.d32.a32 (16|M0) r52:2 [r16:2] {$2}\n";
        src += "send.gtwy (1|M0) null r5 null:0 0x0 0x02000004 {$1}\n";
        src += "sync.bar null\n";
        src += "sync.nop null {$0.src}\n";
        src += "add (16|M0) r50.0<1>:ud r50.0<1;1,0>:ud r52.0<1;1,0>:ud {$2.dst}\n";
    }
    src += "sync.nop null {A@1}\n";
    src += "store.ugm.d32.a64 (16|M0) [r20:4] r50:2 {$3}\n";
    src += EOT;
    let binary = kernel("reduce", &src);
    let mut cx = Compute::new(&mut gpu).unwrap();
    let k = cx
        .load_kernel(
            &mut gpu,
            &KernelDesc {
                local_ids: LocalIds::X,
                barriers: true,
                slm_bytes: 256,
                ..KernelDesc::new(&binary)
            },
        )
        .unwrap();
    let groups = 24usize;
    let n = 64 * groups;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) >> 12)
        .collect();
    let bytes: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    let bin = cx.upload_buffer(&mut gpu, &bytes).unwrap();
    let bout = cx.create_buffer(&mut gpu, 4 * n).unwrap();
    no_4gib_crossing(bin.gfx().0, 4 * n);
    no_4gib_crossing(bout.gfx().0, 4 * n);
    let inline = qwords(&[bout.gfx().0, bin.gfx().0]);
    let f = cx
        .dispatch(
            &mut gpu,
            &k,
            &Dispatch {
                threads: Threads::Compute {
                    groups: [groups as u32, 1, 1],
                    group_size: [64, 1, 1],
                    inline: &inline,
                    indirect: &[],
                    pointer: IndirectPointer::InlineQword0,
                },
                curbe: &[],
                bindings: &[],
                samplers: &[],
            },
        )
        .unwrap();
    gpu.wait(f, 60 * SECOND).unwrap();
    let got = u32s(&bout, n);
    for g in 0..groups {
        let sum = input[64 * g..64 * g + 64]
            .iter()
            .fold(0u32, |s, x| s.wrapping_add(*x));
        assert!(
            got[64 * g..64 * g + 64].iter().all(|v| *v == sum),
            "group {g}: {:?} != {sum}",
            &got[64 * g..64 * g + 64]
        );
    }
}

/// Scratch space: `KernelDesc::scratch_bytes` gives the kernel a
/// SURFTYPE_SCRATCH surface that CFE_STATE names (r0.5 31:10), a part per
/// hardware thread. Four threads of each group write a tagged value with
/// IGC's dc0 HWord scratch block write (header copied from r0), meet at a
/// barrier, and read it back: sharing a part would show another thread's
/// tag. Without the scratch the same kernel stops on a thread error.
#[test]
fn scratch_space_gives_each_thread_its_part() {
    setup!(p, soft, bar, gpu);
    let _ = &bar;
    let mut src = global_addresses(64, 2, &[(0, 20)]);
    src += "and (1|M0) r6.0<1>:ud r0.2<0;1,0>:ud 0xff:ud
";
    src += "mul (1|M0) r6.0<1>:ud r6.0<0;1,0>:ud 1000:uw {A@1}
";
    src += "add (16|M0) r40.0<1>:ud r10.0<1;1,0>:ud r6.0<0;1,0>:ud {A@1}
";
    src += "mov (8|M0) r3.0<1>:ud r0.0<1;1,0>:ud
";
    src += "mov (8|M0) r5.0<1>:ud r0.0<1;1,0>:ud
";
    src += "sync.nop null {A@1}
";
    src += "send.dc0 (16|M0) null r3 r40:2 0x0 0x020F1002 {$1}
";
    src += "sync.nop null {$1.src}
";
    src += "send.gtwy (1|M0) null r5 null:0 0x0 0x02000004 {$2}
";
    src += "sync.bar null
";
    src += "send.dc0 (16|M0) r44 r3 null:0 0x0 0x022C1002 {$3}
";
    src += "sync.nop null {$3.dst}
";
    src += "store.ugm.d32.a64 (16|M0) [r20:4] r44:2 {$4}
";
    src += EOT;
    let binary = kernel("scratch", &src);
    let mut cx = Compute::new(&mut gpu).unwrap();
    let groups = 4usize;
    let n = 64 * groups;
    let bout = cx.create_buffer(&mut gpu, 4 * n).unwrap();
    no_4gib_crossing(bout.gfx().0, 4 * n);
    let inline = qwords(&[bout.gfx().0]);
    let dispatch = Dispatch {
        threads: Threads::Compute {
            groups: [groups as u32, 1, 1],
            group_size: [64, 1, 1],
            inline: &inline,
            indirect: &[],
            pointer: IndirectPointer::InlineQword0,
        },
        curbe: &[],
        bindings: &[],
        samplers: &[],
    };
    let k = cx
        .load_kernel(
            &mut gpu,
            &KernelDesc {
                local_ids: LocalIds::X,
                barriers: true,
                scratch_bytes: 100,
                ..KernelDesc::new(&binary)
            },
        )
        .unwrap();
    assert!(k.scratch_gfx().is_some());
    let f = cx.dispatch(&mut gpu, &k, &dispatch).unwrap();
    gpu.wait(f, 60 * SECOND).unwrap();
    let got = u32s(&bout, n);
    for (i, v) in got.iter().enumerate() {
        let thread = (i % 64 / 16) as u32;
        assert_eq!(*v, i as u32 + 1000 * thread, "work-item {i}");
    }
    // Past the surface pitch's 18 bits: refused before upload.
    let big = KernelDesc {
        local_ids: LocalIds::X,
        barriers: true,
        scratch_bytes: (256 << 10) + 1,
        ..KernelDesc::new(&binary)
    };
    assert!(cx.load_kernel(&mut gpu, &big).is_err());
    // No scratch: the scratch block reads no scratch surface state and the
    // dispatch fails.
    let bare = cx
        .load_kernel(
            &mut gpu,
            &KernelDesc {
                local_ids: LocalIds::X,
                barriers: true,
                ..KernelDesc::new(&binary)
            },
        )
        .unwrap();
    let f = cx.dispatch(&mut gpu, &bare, &dispatch).unwrap();
    assert!(gpu.wait(f, 60 * SECOND).is_err());
}

/// A kernel writes `1000 * y + x` into every texel of an R32_UINT Tile4
/// surface bound at binding table index 3 (typed `store_quad` on TGM, 2D
/// groups of 16 x 4 with local X and Y IDs); the surface read back through
/// the CPU helpers matches, and its raw memory is where `gtt::tile4` puts
/// each texel.
#[test]
fn a_kernel_writes_a_tile4_surface() {
    setup!(p, soft, bar, gpu);
    let _ = &bar;
    let src = String::new()
        + "mov (16|M0) r20.0<1>:ud r1.0<1;1,0>:uw\n"
        + "mov (16|M0) r22.0<1>:ud r2.0<1;1,0>:uw\n"
        + "shl (1|M0) r4.0<1>:ud r0.1<0;1,0>:ud 4:ud\n"
        + "shl (1|M0) r4.1<1>:ud r0.6<0;1,0>:ud 2:ud\n"
        + "add (16|M0) r20.0<1>:ud r20.0<1;1,0>:ud r4.0<0;1,0>:ud {A@1}\n"
        + "add (16|M0) r22.0<1>:ud r22.0<1;1,0>:ud r4.1<0;1,0>:ud {A@1}\n"
        + "mul (16|M0) r50.0<1>:ud r22.0<1;1,0>:ud 1000:uw {A@1}\n"
        + "add (16|M0) r50.0<1>:ud r50.0<1;1,0>:ud r20.0<1;1,0>:ud {A@1}\n"
        + "sync.nop null {A@1}\n"
        + "store_quad.tgm.d32.x.a32 (16|M0) bti[3][r20:4] r50:2 {$0}\n"
        + EOT;
    let binary = kernel("tile4", &src);
    let mut cx = Compute::new(&mut gpu).unwrap();
    let k = cx
        .load_kernel(
            &mut gpu,
            &KernelDesc {
                local_ids: LocalIds::Xy,
                bindings: &[3],
                ..KernelDesc::new(&binary)
            },
        )
        .unwrap();
    let (w, h) = (80u32, 36u32);
    let surf = cx
        .create_surface_tile4(&mut gpu, w, h, Format::R32Uint)
        .unwrap();
    assert!(surf.is_tile4());
    assert_eq!(surf.pitch(), 384);
    let f = cx
        .dispatch(
            &mut gpu,
            &k,
            &Dispatch {
                threads: Threads::Compute {
                    groups: [w / 16, h / 4, 1],
                    group_size: [16, 4, 1],
                    inline: &[],
                    indirect: &[],
                    pointer: IndirectPointer::InlineQword0,
                },
                curbe: &[],
                bindings: &[(3, Resource::Surface(&surf))],
                samplers: &[],
            },
        )
        .unwrap();
    gpu.wait(f, 10 * SECOND).unwrap();
    let mut pixels = vec![0u8; (w * h * 4) as usize];
    surf.read_pixels(baregpu::compute::Swizzle::None, &mut pixels)
        .unwrap();
    let mut want = Vec::new();
    for y in 0..h {
        for x in 0..w {
            want.extend_from_slice(&(1000 * y + x).to_le_bytes());
        }
    }
    assert_eq!(pixels, want);
    // The raw layout: texel (x, y) at tile4_offset(pitch, 4x, y).
    let (x, y) = (37usize, 33usize);
    let at = tile4::tile4_offset(surf.pitch() as usize, 4 * x, y);
    let mut raw = vec![0u8; surf.size()];
    let linear_at = y * surf.pitch() as usize + 4 * x;
    assert_ne!(at, linear_at, "the layout is not linear there");
    // Read the raw bytes through a linear view of the same memory.
    surf.read_raw(0, &mut raw).unwrap();
    assert_eq!(
        u32::from_le_bytes(raw[at..at + 4].try_into().unwrap()),
        1000 * y as u32 + x as u32
    );
}

/// An endless kernel is a hang: detected by the wait, reported with the
/// model's reason, the engine reset; a dispatch after it runs.
#[test]
fn an_endless_kernel_is_a_hang_detected_and_reset() {
    setup!(p, soft, bar, gpu);
    let _ = &bar;
    soft.set_compute_budget(50_000);
    let src = String::new()
        + "L0:\n"
        + "add (1|M0) r10.0<1>:d r10.0<0;1,0>:d 1:d {A@1}\n"
        + "(W) jmpi (1|M0) L0\n"
        + EOT;
    let endless = kernel("endless", &src);
    let mut cx = Compute::new(&mut gpu).unwrap();
    let k = cx
        .load_kernel(&mut gpu, &KernelDesc::new(&endless))
        .unwrap();
    let walk = |inline: &'static [u32]| Dispatch {
        threads: Threads::Compute {
            groups: [1, 1, 1],
            group_size: [16, 1, 1],
            inline,
            indirect: &[],
            pointer: IndirectPointer::InlineQword0,
        },
        curbe: &[],
        bindings: &[],
        samplers: &[],
    };
    let f = cx.dispatch(&mut gpu, &k, &walk(&[])).unwrap();
    match gpu.wait(f, 200_000) {
        Err(GpuError::Hang(state)) => {
            assert_eq!(state.reason, HangReason::Timeout);
        }
        other => panic!("the endless kernel must hang: {other:?}"),
    }
    // After the reset the engine takes work again.
    let mut src = global_addresses(16, 2, &[(0, 20)]);
    src += "sync.nop null {A@1}\n";
    src += "store.ugm.d32.a64 (16|M0) [r20:4] r10:2 {$0}\n";
    src += EOT;
    let ids = kernel("ids", &src);
    let k2 = cx
        .load_kernel(
            &mut gpu,
            &KernelDesc {
                local_ids: LocalIds::X,
                ..KernelDesc::new(&ids)
            },
        )
        .unwrap();
    let out = cx.create_buffer(&mut gpu, 64).unwrap();
    let inline: &'static [u32] = Box::leak(qwords(&[out.gfx().0]).into_boxed_slice());
    let f = cx.dispatch(&mut gpu, &k2, &walk(inline)).unwrap();
    gpu.wait(f, 10 * SECOND).unwrap();
    assert_eq!(u32s(&out, 16), (0..16).collect::<Vec<u32>>());
}

/// A store through an address the context's PPGTT does not map is a page
/// fault: the wait reports the engine error with the fault's address.
#[test]
fn a_store_to_an_unmapped_address_is_a_reported_fault() {
    setup!(p, soft, bar, gpu);
    let _ = &bar;
    let mut src = global_addresses(16, 2, &[(0, 20)]);
    src += "sync.nop null {A@1}\n";
    src += "store.ugm.d32.a64 (16|M0) [r20:4] r10:2 {$0}\n";
    src += EOT;
    let binary = kernel("fault", &src);
    let mut cx = Compute::new(&mut gpu).unwrap();
    let k = cx
        .load_kernel(
            &mut gpu,
            &KernelDesc {
                local_ids: LocalIds::X,
                ..KernelDesc::new(&binary)
            },
        )
        .unwrap();
    let bad = 0x7654_3210_0000u64;
    let inline = qwords(&[bad]);
    let f = cx
        .dispatch(
            &mut gpu,
            &k,
            &Dispatch {
                threads: Threads::Compute {
                    groups: [1, 1, 1],
                    group_size: [16, 1, 1],
                    inline: &inline,
                    indirect: &[],
                    pointer: IndirectPointer::InlineQword0,
                },
                curbe: &[],
                bindings: &[],
                samplers: &[],
            },
        )
        .unwrap();
    let Err(GpuError::Hang(state)) = gpu.wait(f, SECOND) else {
        panic!("the fault must be reported");
    };
    assert_eq!(state.reason, HangReason::EngineError);
    let fault = state.fault.expect("a fault record");
    assert_eq!(fault.address, bad);
}

/// A kernel that reads a register before the instruction writing it has
/// completed (no SWSB dependency): the ISA validator does not decide it
/// from the binary, the model does when it runs, naming the instruction and
/// the register; the driver's wait reports the engine error.
#[test]
fn a_missing_swsb_dependency_is_reported_with_the_instruction_and_register() {
    setup!(p, soft, bar, gpu);
    let _ = &bar;
    let racy = kernel(
        "racy",
        &(String::new()
            + "mov (8|M0) r11.0<1>:ud 0x5:ud\n"
            + "add (8|M0) r12.0<1>:ud r11.0<1;1,0>:ud 1:ud\n"
            + EOT),
    );
    let mut cx = Compute::new(&mut gpu).unwrap();
    let k = cx.load_kernel(&mut gpu, &KernelDesc::new(&racy)).unwrap();
    let f = cx
        .dispatch(
            &mut gpu,
            &k,
            &Dispatch {
                threads: Threads::Groups {
                    groups: [1, 1, 1],
                    group_size: [16, 1, 1],
                },
                curbe: &[],
                bindings: &[],
                samplers: &[],
            },
        )
        .unwrap();
    // The model's report, read before the wait resets the engine.
    let mut report = None;
    for _ in 0..1000 {
        assert!(!gpu.poll(f), "the racy kernel must not complete");
        report = soft.compute_report(2);
        if report.is_some() {
            break;
        }
    }
    let report = report.expect("the model's report");
    assert!(report.contains("r11"), "{report}");
    let Err(GpuError::Hang(state)) = gpu.wait(f, SECOND) else {
        panic!("the thread error must stop the engine");
    };
    assert_eq!(state.reason, HangReason::EngineError);
}

/// Binaries are refused before anything is submitted: bytes that do not
/// decode as Xe-HPG instructions (with the offset), a kernel that never
/// ends its threads, one that breaks an ISA rule (the validator's error),
/// and the older generations' features DG2 does not have here.
#[test]
fn bad_binaries_and_requests_are_refused_before_submission() {
    setup!(p, soft, bar, gpu);
    let _ = &bar;
    let mut cx = Compute::new(&mut gpu).unwrap();
    let good = kernel("good", EOT);
    // An undecodable word after a good one.
    let mut junk = good.clone();
    junk.splice(0..0, [0xff; 16]);
    match cx.load_kernel(&mut gpu, &KernelDesc::new(&junk)) {
        Err(ComputeError::KernelDecode { offset, .. }) => assert_eq!(offset, 0),
        other => panic!("undecodable kernel: {other:?}"),
    }
    let no_eot = kernel("noeot", "add (1|M0) r10.0<1>:d r10.0<0;1,0>:d 1:d\n");
    assert!(matches!(
        cx.load_kernel(&mut gpu, &KernelDesc::new(&no_eot)),
        Err(ComputeError::NoEndOfThread)
    ));
    // A gateway message of two registers: it decodes, the validator refuses it.
    let long_eot = kernel(
        "longeot",
        "send.gtwy (1|M0) null r0 null:0 0x0 0x04000010 {EOT}\n",
    );
    match cx.load_kernel(&mut gpu, &KernelDesc::new(&long_eot)) {
        Err(ComputeError::KernelInvalid { offset, why }) => {
            assert_eq!(offset, 0);
            assert!(why.contains("gateway"), "{why}");
        }
        other => panic!("an invalid send must be refused: {other:?}"),
    }
    assert!(matches!(
        cx.load_kernel(
            &mut gpu,
            &KernelDesc {
                curbe_bytes: 32,
                ..KernelDesc::new(&good)
            }
        ),
        Err(ComputeError::Unsupported { .. })
    ));
    let k = cx.load_kernel(&mut gpu, &KernelDesc::new(&good)).unwrap();
    // Too many invocations, too much inline data, media objects.
    let bad = |threads| Dispatch {
        threads,
        curbe: &[],
        bindings: &[],
        samplers: &[],
    };
    for threads in [
        Threads::Groups {
            groups: [1, 1, 1],
            group_size: [32, 32, 2],
        },
        Threads::Compute {
            groups: [1, 1, 1],
            group_size: [16, 1, 1],
            inline: &[0; 7],
            indirect: &[1],
            pointer: IndirectPointer::InlineQword0,
        },
        Threads::Objects {
            count: 1,
            inline: &[],
        },
    ] {
        assert!(cx.record(&mut gpu, &k, &bad(threads)).is_err());
    }
    assert!(
        cx.create_surface_2d(
            &mut gpu,
            64,
            64,
            Format::R32Uint,
            baregpu::compute::Tiling::Y
        )
        .is_err()
    );
}

/// The compute self-test (`baregpu::compute::selftest`) on DG2: fill from
/// constants, vector add of 1 Mi elements, the group reduction with a
/// barrier and shared local memory, and the picture in linear and Tile4
/// surfaces, each checked by the self-test against the CPU, at the sizes
/// of the acceptance tests (`Params::FULL`); buffers in system memory,
/// then in local memory.
#[test]
fn the_self_test_scenarios_pass_on_dg2() {
    use baregpu::compute::selftest::{self, Params, Scenario};
    setup!(p, soft, bar, gpu);
    let _ = &bar;
    let params = Params::FULL;
    for placement in [Placement::System, Placement::Local] {
        let mut cx = Compute::new(&mut gpu).unwrap();
        cx.set_placement(placement).unwrap();
        for s in Scenario::ALL {
            assert!(s.runs_on(Generation::Gen12_5));
            let r = selftest::run(&mut gpu, &mut cx, s, &params)
                .unwrap_or_else(|e| panic!("{placement:?} {s}: {e}\n{:?}", soft.compute_report(2)));
            let (dispatches, checked) = match s {
                Scenario::Fill => (1, u64::from(params.width * params.height)),
                Scenario::VectorAdd => (1, params.elements as u64),
                Scenario::Reduce => (1, u64::from(params.groups)),
                Scenario::Tiled => (2, 2 * u64::from(params.width * params.height)),
            };
            assert_eq!((r.dispatches, r.checked), (dispatches, checked), "{s}");
        }
        cx.destroy(&mut gpu);
    }
}

/// A field of a decoded command, as the hal's tables place it (addresses
/// and offsets with their stored low bits restored).
fn field(info: &baregpu::hal::reflect::CommandInfo, dw: &[u32], name: &str) -> u64 {
    let f = info
        .fields
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("{} has no {name}", info.name));
    let width = u32::from(f.end - f.start) + 1;
    baregpu::hal::bits::get(dw, u32::from(f.start), width) << f.shift
}

/// The recorded batch, decoded with the hal's tables: the command sequence
/// of `state/gen12_5.rs`, and the walker pointing at what the dispatch
/// asked for: the indirect data at General State Base + Indirect Data Start
/// Address, whose address is inline qword 0 with the user's inline data
/// after it; the binding table entry's RENDER_SURFACE_STATE at the buffer;
/// the local size, threads and mask; the walk order that puts the
/// non-power-of-two side last.
#[test]
fn the_recorded_batch_holds_the_walker_and_its_state() {
    setup!(p, soft, bar, gpu);
    let _ = (&bar, &soft);
    let mut cx = Compute::new(&mut gpu).unwrap();
    let k = cx
        .load_kernel(
            &mut gpu,
            &KernelDesc {
                bindings: &[2],
                slm_bytes: 3000,
                barriers: true,
                ..KernelDesc::new(&kernel("eot", EOT))
            },
        )
        .unwrap();
    let buf = cx.create_buffer(&mut gpu, 4096).unwrap();
    let indirect: Vec<u8> = (0..100u8).collect();
    let batch = cx
        .record(
            &mut gpu,
            &k,
            &Dispatch {
                threads: Threads::Compute {
                    groups: [5, 6, 7],
                    group_size: [3, 4, 2],
                    inline: &[0x11, 0x22, 0x33],
                    indirect: &indirect,
                    pointer: IndirectPointer::InlineQword0,
                },
                curbe: &[],
                bindings: &[(2, Resource::Buffer(&buf))],
                samplers: &[],
            },
        )
        .unwrap();
    let dw = batch.contents();
    let tables = Generation::Gen12_5.tables();
    let cmds: Vec<_> = baregpu::hal::decode::decode(tables, "compute", dw)
        .stop_at_batch_end()
        .collect();
    let names: Vec<&str> = cmds
        .iter()
        .map(|c| c.command.map_or("?", |i| i.name))
        .collect();
    assert_eq!(
        names,
        [
            "PIPE_CONTROL",
            "PIPELINE_SELECT",
            "STATE_COMPUTE_MODE",
            "STATE_BASE_ADDRESS",
            "PIPE_CONTROL",
            "CFE_STATE",
            "COMPUTE_WALKER",
            "PIPE_CONTROL",
            "MI_BATCH_BUFFER_END"
        ]
    );
    let get = |name: &str, f: &str| {
        let c = cmds
            .iter()
            .find(|c| c.command.is_some_and(|i| i.name == name))
            .unwrap();
        field(c.command.unwrap(), c.dwords, f)
    };
    let general = get("STATE_BASE_ADDRESS", "general_state_base_address");
    let surface = get("STATE_BASE_ADDRESS", "surface_state_base_address");
    assert_eq!(
        get("STATE_BASE_ADDRESS", "instruction_base_address")
            + get(
                "COMPUTE_WALKER",
                "interface_descriptor_kernel_start_pointer"
            ),
        k.gfx().0
    );
    // The state area is in the batch: byte offsets from the batch's start.
    let at = |gfx: u64| (gfx - batch.gfx().0) as usize;
    let byte = |off: usize| (dw[off / 4] >> (8 * (off % 4))) as u8;
    let ind = general + get("COMPUTE_WALKER", "indirect_data_start_address");
    assert_eq!(get("COMPUTE_WALKER", "indirect_data_length"), 100);
    assert_eq!(ind % 64, 0);
    assert!((0..100).all(|i| byte(at(ind) + i) == i as u8));
    let inline: Vec<u64> = (0..8)
        .map(|i| get("COMPUTE_WALKER", &format!("inline_data{i}")))
        .collect();
    assert_eq!(inline[0] | inline[1] << 32, ind);
    assert_eq!(inline[2..], [0x11, 0x22, 0x33, 0, 0, 0]);
    assert_eq!(get("COMPUTE_WALKER", "emit_inline_parameter"), 1);
    // Binding table entry 2 -> RENDER_SURFACE_STATE of the buffer.
    let table = surface
        + get(
            "COMPUTE_WALKER",
            "interface_descriptor_binding_table_pointer",
        );
    let entry = dw[at(table) / 4 + 2] as u64;
    let rss = at(surface + entry) / 4;
    assert_eq!(dw[rss] >> 29, 4, "SURFTYPE_BUFFER");
    assert_eq!(
        u64::from(dw[rss + 8]) | u64::from(dw[rss + 9]) << 32,
        buf.gfx().0
    );
    // 3 x 4 x 2 = 24 invocations: two SIMD16 threads, 8 channels in the last.
    for (f, v) in [
        ("local_x_maximum", 2),
        ("local_y_maximum", 3),
        ("local_z_maximum", 1),
        ("thread_group_id_x_dimension", 5),
        ("thread_group_id_y_dimension", 6),
        ("thread_group_id_z_dimension", 7),
        (
            "interface_descriptor_number_of_threads_in_gpgpu_thread_group",
            2,
        ),
        ("execution_mask", 0xff),
        ("simd_size", 1),
        ("message_simd", 1),
        ("generate_local_id", 1),
        ("emit_local", 7),
        // X (3) is not a power of two: walked last, WALK_120.
        ("walk_order", 3),
        // 3000 bytes of SLM: the 4 KiB encoding.
        ("interface_descriptor_shared_local_memory_size", 3),
        ("interface_descriptor_number_of_barriers", 1),
    ] {
        assert_eq!(get("COMPUTE_WALKER", f), v, "{f}");
    }
    // PIPELINE_SELECT GPGPU with both mask bits.
    assert_eq!(
        (
            get("PIPELINE_SELECT", "mask_bits"),
            get("PIPELINE_SELECT", "pipeline_selection")
        ),
        (3, 2)
    );
}
