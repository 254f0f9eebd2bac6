//! The DG2 compute pipeline through the public interface: batches with
//! PIPELINE_SELECT, STATE_BASE_ADDRESS, CFE_STATE and COMPUTE_WALKER on the
//! compute (CCS) and render (RCS) engines through the execlist model, Xe-HPG
//! kernels assembled from IGA text, and what each thread saw checked against
//! a host computation of the payload 004 and Mesa describe.
//!
//! Most tests install test-only shared functions (`TestSf`) over the
//! model's own: a "store" is any UGM or SLM send without a response whose
//! first payload register's dword 0 is a byte address and whose further
//! payload registers are stored whole from there; a "load" (response
//! length > 0) reads registers back. That is not an LSC message layout; it
//! lets the walker, the payload and the dispatch be tested alone. The
//! `lsc_` tests at the end run real LSC messages on the model's own Xe-HPG
//! shared functions (kernels checked against iga64 -p=12p71).

use std::collections::BTreeMap;
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex};

use baregpu_hal::{MemoryBus, Mmio};
use baregpu_isa::IsaGen;
use baregpu_isa::inst::Sfid;
use baregpu_soft::ComputeFunctions;
use baregpu_soft::eu::{SendError, SendRequest, SharedFunctions, Thread};

mod dg2_support;

use dg2_support::{COMPUTE, Dg2Base, INSTRUCTION_BASE, RENDER, pack, reg};

/// What the test shared functions saw.
#[derive(Default)]
struct Log {
    /// Dwords stored through UGM, by byte address.
    mem: BTreeMap<u64, u32>,
    /// Per store: address and channel enables.
    stores: Vec<(u64, u32)>,
    groups: Vec<([u32; 3], u32)>,
    slm: Vec<u8>,
}

#[derive(Clone, Default)]
struct TestSf(Arc<Mutex<Log>>);

impl SharedFunctions for TestSf {
    fn send(&mut self, t: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
        let slm = match req.sfid {
            Some(Sfid::Ugm) => false,
            Some(Sfid::Slm) => true,
            _ => return Err(SendError::Unhandled),
        };
        let mut log = self.0.lock().unwrap();
        let addr = u64::from(t.grf_ud(req.payload.reg, 0));
        let dword = |log: &mut Log, a: u64| -> Result<u32, SendError> {
            if slm {
                let s = log
                    .slm
                    .get(a as usize..a as usize + 4)
                    .ok_or(SendError::Bad("SLM bound"))?;
                Ok(u32::from_le_bytes(s.try_into().unwrap()))
            } else {
                Ok(log.mem.get(&a).copied().unwrap_or(0))
            }
        };
        if req.rlen > 0 {
            let dst = req.dst.ok_or(SendError::Bad("load without destination"))?;
            for r in 0..req.rlen {
                for d in 0..8 {
                    let v = dword(&mut log, addr + 32 * u64::from(r) + 4 * d as u64)?;
                    t.set_grf_ud(dst + r, d, v);
                }
            }
            return Ok(());
        }
        log.stores.push((addr, req.channels));
        for r in 1..req.mlen {
            for d in 0..8 {
                let a = addr + 32 * u64::from(r - 1) + 4 * d as u64;
                let v = t.grf_ud(req.payload.reg + r, d);
                if slm {
                    let s = log
                        .slm
                        .get_mut(a as usize..a as usize + 4)
                        .ok_or(SendError::Bad("SLM bound"))?;
                    s.copy_from_slice(&v.to_le_bytes());
                } else {
                    log.mem.insert(a, v);
                }
            }
        }
        Ok(())
    }
}

impl ComputeFunctions for TestSf {
    fn begin_group(&mut self, group: [u32; 3], slm_bytes: u32) {
        let mut log = self.0.lock().unwrap();
        log.groups.push((group, slm_bytes));
        log.slm = vec![0; slm_bytes as usize];
    }
}

fn asm(src: &str) -> Vec<u8> {
    baregpu_isa::text::assemble(IsaGen::Gen12_5, src).unwrap_or_else(|e| panic!("{e:?}\n{src}"))
}

/// The model with the test shared functions on top of the shared
/// scaffolding.
struct Dg2 {
    base: Dg2Base,
    sf: TestSf,
}

impl Deref for Dg2 {
    type Target = Dg2Base;
    fn deref(&self) -> &Dg2Base {
        &self.base
    }
}

impl DerefMut for Dg2 {
    fn deref_mut(&mut self) -> &mut Dg2Base {
        &mut self.base
    }
}

impl Dg2 {
    fn new() -> Self {
        let base = Dg2Base::new();
        let sf = TestSf::default();
        assert!(base.gpu.set_compute_functions(Box::new(sf.clone())));
        Self { base, sf }
    }

    /// Maps `va` to the system page `page` in the PPGTT.
    fn map(&mut self, va: u64, page: u64) {
        self.base.map(va, page, 0);
    }

    fn log(&self) -> std::sync::MutexGuard<'_, Log> {
        self.sf.0.lock().unwrap()
    }
}

/// The state commands before a walker: GPGPU selected, the instruction
/// base, CFE_STATE.
fn setup() -> Vec<u32> {
    let mut v = pack(
        "PIPELINE_SELECT",
        &[("mask_bits", 0x3), ("pipeline_selection", 2)],
    );
    v.extend(pack(
        "STATE_BASE_ADDRESS",
        &[
            ("instruction_base_address", INSTRUCTION_BASE),
            ("instruction_base_address_modify_enable", 1),
            ("instruction_buffer_size", 0x100), // 1 MiB: the field counts 4 KiB pages
            ("instruction_buffer_size_modify_enable", 1),
        ],
    ));
    v.extend(pack("CFE_STATE", &[("maximum_number_of_threads", 64)]));
    v
}

/// A walker's parameters.
#[derive(Clone)]
struct Walk {
    simd: u32,
    local: [u32; 3],
    walk_order: u64,
    emit: u64,
    groups: [u32; 3],
    start: [u32; 3],
    inline: Option<[u32; 8]>,
    kernel: u64,
    slm: u64,
    barriers: u64,
    extra: Vec<(&'static str, u64)>,
}

impl Walk {
    fn new(simd: u32, local: [u32; 3], groups: [u32; 3]) -> Self {
        Walk {
            simd,
            local,
            walk_order: 0,
            emit: 7,
            groups,
            start: [0; 3],
            inline: None,
            kernel: 0,
            slm: 0,
            barriers: 0,
            extra: Vec::new(),
        }
    }

    fn threads(&self) -> u32 {
        (self.local.iter().product::<u32>()).div_ceil(self.simd)
    }

    /// The last thread's packed channels (004 DW5), as Mesa computes it
    /// (brw_cs_right_mask).
    fn mask(&self) -> u64 {
        let lws = self.local.iter().product::<u32>();
        let left = lws - self.simd * (self.threads() - 1);
        if left == 32 {
            u32::MAX as u64
        } else {
            (1u64 << left) - 1
        }
    }

    fn packet(&self) -> Vec<u32> {
        let simd = match self.simd {
            8 => 0,
            16 => 1,
            _ => 2,
        };
        let mut f: Vec<(&str, u64)> = vec![
            ("simd_size", simd),
            ("message_simd", simd),
            ("generate_local_id", u64::from(self.emit != 0)),
            ("emit_local", self.emit),
            ("walk_order", self.walk_order),
            ("execution_mask", self.mask()),
            ("local_x_maximum", u64::from(self.local[0] - 1)),
            ("local_y_maximum", u64::from(self.local[1] - 1)),
            ("local_z_maximum", u64::from(self.local[2] - 1)),
            ("thread_group_id_x_dimension", u64::from(self.groups[0])),
            ("thread_group_id_y_dimension", u64::from(self.groups[1])),
            ("thread_group_id_z_dimension", u64::from(self.groups[2])),
            ("thread_group_id_starting_x", u64::from(self.start[0])),
            ("thread_group_id_starting_y", u64::from(self.start[1])),
            ("thread_group_id_starting_z", u64::from(self.start[2])),
            ("interface_descriptor_kernel_start_pointer", self.kernel),
            (
                "interface_descriptor_number_of_threads_in_gpgpu_thread_group",
                u64::from(self.threads()),
            ),
            ("interface_descriptor_shared_local_memory_size", self.slm),
            ("interface_descriptor_number_of_barriers", self.barriers),
        ];
        if let Some(d) = self.inline {
            f.push(("emit_inline_parameter", 1));
            for (k, v) in d.iter().enumerate() {
                f.push((
                    [
                        "inline_data0",
                        "inline_data1",
                        "inline_data2",
                        "inline_data3",
                        "inline_data4",
                        "inline_data5",
                        "inline_data6",
                        "inline_data7",
                    ][k],
                    u64::from(*v),
                ));
            }
        }
        f.extend(self.extra.iter().cloned());
        pack("COMPUTE_WALKER", &f)
    }
}

/// A kernel that stores its first `regs` payload registers (r0 on) to
/// `base` + 1 KiB * (the thread's index in the whole dispatch), computed
/// from R0's group IDs and thread index, then ends.
fn dump_kernel(
    base: u32,
    regs: u8,
    groups: [u32; 3],
    start: [u32; 3],
    threads: u32,
    simd: u32,
) -> Vec<u8> {
    let gx = groups[0] - start[0];
    let gy = groups[1] - start[1];
    let mut s = String::new();
    // idx = (((z - sz) * gy + (y - sy)) * gx + (x - sx)) * threads + t
    s += "and (1|M0) r30.0<1>:ud r0.2<0;1,0>:ud 0xff:ud\n";
    s += &format!("add (1|M0) r30.1<1>:d r0.7<0;1,0>:d -{}:d\n", start[2]);
    s += &format!("mul (1|M0) r30.1<1>:d r30.1<0;1,0>:d {gy}:w {{@1}}\n");
    s += "add (1|M0) r30.1<1>:d r30.1<0;1,0>:d r0.6<0;1,0>:d {@1}\n";
    s += &format!(
        "add (1|M0) r30.1<1>:d r30.1<0;1,0>:d -{}:d {{@1}}\n",
        start[1]
    );
    s += &format!("mul (1|M0) r30.1<1>:d r30.1<0;1,0>:d {gx}:w {{@1}}\n");
    s += "add (1|M0) r30.1<1>:d r30.1<0;1,0>:d r0.1<0;1,0>:d {@1}\n";
    s += &format!(
        "add (1|M0) r30.1<1>:d r30.1<0;1,0>:d -{}:d {{@1}}\n",
        start[0]
    );
    s += &format!("mul (1|M0) r30.1<1>:d r30.1<0;1,0>:d {threads}:w {{@1}}\n");
    s += "add (1|M0) r30.0<1>:d r30.0<0;1,0>:d r30.1<0;1,0>:d {@1}\n";
    s += "shl (1|M0) r30.0<1>:d r30.0<0;1,0>:d 10:d {@1}\n";
    s += &format!("add (1|M0) r40.0<1>:d r30.0<0;1,0>:d {base}:d {{@1}}\n");
    for r in 0..regs {
        s += &format!("mov (8|M0) r{}.0<1>:ud r{r}.0<1;1,0>:ud\n", 41 + r);
    }
    let desc = (u32::from(regs) + 1) << 25;
    s += &format!(
        "sync.nop null {{@1}}\nsend.ugm ({simd}|M0) null r40 null:0 0x0 {desc:#010x} {{$0}}\n"
    );
    s += "send.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}\n";
    asm(&s)
}

/// Local ID of `lane` of thread `t`: the group's channels fully packed
/// (004 DW5 Execution Mask text) in walk order, the first-named dimension
/// fastest (004 Walk Order enum: WALK_012 .. WALK_210).
fn host_local_id(w: &Walk, t: u32, lane: u32) -> [u32; 3] {
    let order: [usize; 3] = match w.walk_order {
        0 => [0, 1, 2],
        1 => [0, 2, 1],
        2 => [1, 0, 2],
        3 => [1, 2, 0],
        4 => [2, 0, 1],
        _ => [2, 1, 0],
    };
    let mut n = t * w.simd + lane;
    let mut id = [0; 3];
    for d in order {
        id[d] = n % w.local[d];
        n /= w.local[d];
    }
    id
}

const OUT: u32 = 0x10_0000;

/// Runs `w` with the dump kernel and checks every thread's R0, local IDs
/// and inline data against the host.
fn check_payload(engine: usize, w: &Walk) {
    let mut g = Dg2::new();
    let per_id = if w.simd == 32 { 2 } else { 1 };
    let ids = (w.emit.count_ones() * per_id) as u8;
    let regs = 1 + ids + u8::from(w.inline.is_some());
    let t = w.threads();
    g.kernel(
        w.kernel,
        &dump_kernel(OUT, regs, w.groups, w.start, t, w.simd),
    );
    let mut cmds = setup();
    cmds.extend(w.packet());
    g.run(engine, &cmds);
    assert_eq!(g.errors(), 0, "{:?}", g.gpu.compute_report(engine));
    let log = g.log();
    let mut idx = 0u64;
    for z in w.start[2]..w.groups[2] {
        for y in w.start[1]..w.groups[1] {
            for x in w.start[0]..w.groups[0] {
                for th in 0..t {
                    let at = u64::from(OUT) + 1024 * idx;
                    let d = |r: u64, k: u64| log.mem.get(&(at + 32 * r + 4 * k)).copied();
                    assert_eq!(d(0, 1), Some(x), "group x of {idx}");
                    assert_eq!(d(0, 6), Some(y));
                    assert_eq!(d(0, 7), Some(z));
                    assert_eq!(d(0, 2), Some(th | t << 24), "r0.2 of thread {th}");
                    let mut r = 1u64;
                    for dim in 0..3 {
                        if w.emit >> dim & 1 == 0 {
                            continue;
                        }
                        for lane in 0..w.simd {
                            let want = host_local_id(w, th, lane)[dim];
                            let reg = r + u64::from(lane / 16);
                            let dw = d(reg, u64::from(lane % 16 / 2)).unwrap();
                            let got = dw >> (16 * (lane % 2)) & 0xffff;
                            assert_eq!(
                                got, want,
                                "simd{} walk {} dim {dim} thread {th} lane {lane}",
                                w.simd, w.walk_order
                            );
                        }
                        r += u64::from(per_id);
                    }
                    if let Some(inline) = w.inline {
                        for (k, v) in inline.iter().enumerate() {
                            assert_eq!(d(r, k as u64), Some(*v), "inline dword {k} in r{r}");
                        }
                    }
                    idx += 1;
                }
            }
        }
    }
    assert_eq!(log.groups.len() as u64 * u64::from(t), idx);
    drop(log);
}

#[test]
fn every_thread_sees_its_group_ids_and_local_ids_for_each_simd_size_and_walk_order() {
    for simd in [8, 16, 32] {
        for walk_order in 0..6 {
            let mut w = Walk::new(simd, [4, 4, 2], [2, 1, 2]);
            w.walk_order = walk_order;
            check_payload(COMPUTE, &w);
        }
    }
}

#[test]
fn starting_ids_a_3d_grid_emit_x_only_and_inline_data_after_the_local_ids() {
    let inline = [0x1111_0000, 1, 2, 3, 4, 5, 6, 0xdead_beef];
    let mut w = Walk::new(16, [8, 2, 1], [3, 4, 2]);
    w.start = [1, 2, 1];
    w.emit = 1;
    w.inline = Some(inline);
    w.kernel = 0x2000;
    check_payload(COMPUTE, &w);
    // No local IDs: the inline data is R1 (004 Emit Inline Parameter).
    let mut w = Walk::new(8, [8, 1, 1], [2, 1, 1]);
    w.emit = 0;
    w.inline = Some(inline);
    check_payload(COMPUTE, &w);
    // SIMD32: two registers per component, then the inline data.
    let mut w = Walk::new(32, [16, 2, 2], [1, 1, 1]);
    w.inline = Some(inline);
    check_payload(COMPUTE, &w);
}

#[test]
fn the_render_engine_runs_walkers_once_gpgpu_is_selected() {
    check_payload(RENDER, &Walk::new(16, [4, 4, 1], [2, 2, 1]));
    // Without PIPELINE_SELECT the render engine is in the 3D pipeline.
    let mut g = Dg2::new();
    g.kernel(0, &dump_kernel(OUT, 1, [1, 1, 1], [0; 3], 1, 8));
    let mut cmds = setup()[1..].to_vec();
    cmds.extend(Walk::new(8, [8, 1, 1], [1, 1, 1]).packet());
    g.run(RENDER, &cmds);
    assert_eq!(
        g.gpu.unmodelled(RENDER),
        Some("COMPUTE_WALKER with the 3D pipeline selected")
    );
}

#[test]
fn a_partial_group_runs_its_last_thread_with_the_execution_mask() {
    for (simd, local) in [(8, [5, 3, 1]), (16, [7, 3, 1]), (32, [9, 5, 1])] {
        let mut g = Dg2::new();
        // Local sizes that are not powers of two: no generated local IDs
        // (004 forbids two such dimensions with Generate Local ID).
        let mut w = Walk::new(simd, local, [2, 1, 1]);
        w.emit = 0;
        let t = w.threads();
        g.kernel(0, &dump_kernel(OUT, 1, w.groups, w.start, t, simd));
        let mut cmds = setup();
        cmds.extend(w.packet());
        g.run(COMPUTE, &cmds);
        assert_eq!(g.errors(), 0, "{:?}", g.gpu.compute_report(COMPUTE));
        let log = g.log();
        let full = if simd == 32 {
            u32::MAX
        } else {
            (1 << simd) - 1
        };
        let lws = local.iter().product::<u32>();
        let last = (1u64 << (lws - simd * (t - 1))) as u32 - 1;
        let mut stores = log.stores.clone();
        stores.sort();
        assert_eq!(stores.len() as u32, 2 * t);
        for (k, (_, channels)) in stores.iter().enumerate() {
            let th = k as u32 % t;
            let want = if th + 1 == t { last } else { full };
            assert_eq!(*channels, want, "simd{simd} thread {th}");
        }
    }
}

/// Four SIMD8 threads: each stores to SLM, meets the others at the
/// barrier, then reads its neighbour's SLM slot and stores it out.
fn barrier_kernel(with_barrier: bool) -> Vec<u8> {
    let mut s = String::new();
    s += "and (1|M0) r30.0<1>:ud r0.2<0;1,0>:ud 0xff:ud\n";
    s += "shl (1|M0) r40.0<1>:ud r30.0<0;1,0>:ud 5:ud {@1}\n";
    s += "add (1|M0) r31.0<1>:ud r30.0<0;1,0>:ud 1:ud\n";
    s += "mul (8|M0) r41.0<1>:ud r31.0<0;1,0>:ud 0x111:uw {@1}\n";
    s += "sync.nop null {@1}\nsend.slm (8|M0) null r40 null:0 0x0 0x04000000 {$0}\n";
    if with_barrier {
        s += "mov (8|M0) r50.0<1>:ud r0.0<1;1,0>:ud\n";
        s += "sync.nop null {@1}\nsend.gtwy (1|M0) null r50 null:0 0x0 0x02000004 {$1}\n";
        s += "sync.bar null\n";
    }
    // The neighbour's slot: ((t + 1) % 4) * 32.
    s += "and (1|M0) r32.0<1>:ud r31.0<0;1,0>:ud 3:ud\n";
    s += "shl (1|M0) r60.0<1>:ud r32.0<0;1,0>:ud 5:ud {@1}\n";
    s += "sync.nop null {@1}\nsend.slm (8|M0) r61 r60 null:0 0x0 0x02100000 {$2}\n";
    s += &format!("add (1|M0) r62.0<1>:ud r40.0<0;1,0>:ud {OUT}:ud {{$0.src}}\n");
    s += "mov (8|M0) r63.0<1>:ud r61.0<1;1,0>:ud {$2.dst}\n";
    s += "sync.nop null {@1}\nsend.ugm (8|M0) null r62 null:0 0x0 0x04000000 {$3}\n";
    s += "send.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}\n";
    asm(&s)
}

#[test]
fn threads_of_a_group_share_slm_and_meet_at_the_barrier() {
    for with_barrier in [true, false] {
        let mut g = Dg2::new();
        g.kernel(0, &barrier_kernel(with_barrier));
        let mut w = Walk::new(8, [32, 1, 1], [2, 1, 1]);
        w.slm = 1;
        w.barriers = 1;
        let mut cmds = setup();
        cmds.extend(w.packet());
        g.run(COMPUTE, &cmds);
        assert_eq!(g.errors(), 0, "{:?}", g.gpu.compute_report(COMPUTE));
        let log = g.log();
        assert_eq!(log.groups, vec![([0, 0, 0], 1024), ([1, 0, 0], 1024)]);
        let got: Vec<u32> = (0..4)
            .map(|t| log.mem[&(u64::from(OUT) + 32 * t)])
            .collect();
        let neighbour: Vec<u32> = (0..4).map(|t| ((t + 1) % 4 + 1) * 0x111).collect();
        if with_barrier {
            assert_eq!(got, neighbour);
        } else {
            // Without it the first threads run to their end before the
            // others stored: they read zeros.
            assert_ne!(got, neighbour);
        }
    }
}

#[test]
fn a_barrier_message_needs_a_barrier_in_the_interface_descriptor() {
    let mut g = Dg2::new();
    g.kernel(0, &barrier_kernel(true));
    let mut w = Walk::new(8, [32, 1, 1], [1, 1, 1]);
    w.slm = 1;
    let mut cmds = setup();
    cmds.extend(w.packet());
    g.run(COMPUTE, &cmds);
    assert_eq!(g.errors(), 1);
    let report = g.gpu.compute_report(COMPUTE).unwrap();
    assert!(report.contains("Number of Barriers is 0"), "{report}");
}

#[test]
fn post_sync_writes_immediate_data_and_the_timestamp_after_the_walker() {
    let mut g = Dg2::new();
    let (va, phys) = g.buffer(&[0u8; 64]);
    g.kernel(0, &dump_kernel(OUT, 1, [1, 1, 1], [0; 3], 1, 8));
    let mut cmds = setup();
    let mut w = Walk::new(8, [8, 1, 1], [1, 1, 1]);
    w.extra = vec![
        ("post_sync_operation", 1),
        ("post_sync_destination_address", va),
        ("post_sync_immediate_data", 0x0123_4567_89ab_cdef),
    ];
    cmds.extend(w.packet());
    let mut w = Walk::new(8, [8, 1, 1], [1, 1, 1]);
    w.extra = vec![
        ("post_sync_operation", 3),
        ("post_sync_destination_address", va + 8),
    ];
    cmds.extend(w.packet());
    g.run(COMPUTE, &cmds);
    assert_eq!(g.errors(), 0, "{:?}", g.gpu.compute_report(COMPUTE));
    assert_eq!(g.r64(phys), 0x0123_4567_89ab_cdef);
    // The timestamp counts commands: the second walker is the fifth.
    let ts = g.r64(phys + 8);
    assert!((5..100).contains(&ts), "{ts}");
    assert_eq!(g.log().stores.len(), 2);
}

#[test]
fn an_endless_kernel_hangs_the_engine_at_the_walker() {
    let mut g = Dg2::new();
    g.gpu.set_compute_budget(20_000);
    g.kernel(
        0,
        &asm("L0:\nadd (1|M0) r10.0<1>:d r10.0<0;1,0>:d 1:d {@1}\n(W) jmpi (1|M0) L0\n"),
    );
    let (va, phys) = g.buffer(&[0u8; 64]);
    let mut cmds = setup();
    let mut w = Walk::new(8, [8, 1, 1], [1, 1, 1]);
    w.extra = vec![
        ("post_sync_operation", 1),
        ("post_sync_destination_address", va),
        ("post_sync_immediate_data", 7),
    ];
    cmds.extend(w.packet());
    g.run(COMPUTE, &cmds);
    g.gpu.run(1000);
    assert_eq!(
        g.errors(),
        0,
        "{:?} {:?}",
        g.gpu.unmodelled(COMPUTE),
        g.gpu.compute_report(COMPUTE)
    );
    let report = g.gpu.compute_report(COMPUTE).unwrap();
    assert!(report.contains("hang"), "{report}");
    // The walker never completed: no post-sync.
    assert_eq!(g.r32(phys), 0);
}

#[test]
fn bad_kernel_pointers_and_undecodable_kernels_are_reported() {
    // No translation at the kernel: a page fault.
    let mut g = Dg2::new();
    let mut cmds = setup();
    let mut w = Walk::new(8, [8, 1, 1], [1, 1, 1]);
    w.kernel = 0x80_0000;
    cmds.extend(w.packet());
    g.run(COMPUTE, &cmds);
    assert_eq!(g.errors(), 1);
    assert_eq!(g.gpu.compute_report(COMPUTE), None);
    // Bytes that are no instruction: a thread error naming the decode.
    let mut g = Dg2::new();
    g.kernel(0, &[0xff; 64]);
    let mut cmds = setup();
    cmds.extend(Walk::new(8, [8, 1, 1], [1, 1, 1]).packet());
    g.run(COMPUTE, &cmds);
    assert_eq!(g.errors(), 1);
    let report = g.gpu.compute_report(COMPUTE).unwrap();
    assert!(report.contains("thread error"), "{report}");
}

#[test]
fn unmodelled_walker_and_state_fields_are_refused_by_name() {
    let cases: [(&str, u64, &str); 6] = [
        (
            "partition_type",
            1,
            "COMPUTE_WALKER workload partitioning (Workload Partition Enable, Partition Type)",
        ),
        (
            "tile_layout",
            1,
            "COMPUTE_WALKER Tile Layout other than LINEAR",
        ),
        (
            "indirect_parameter_enable",
            1,
            "COMPUTE_WALKER Indirect Parameter Enable",
        ),
        (
            "interface_descriptor_btd_mode",
            1,
            "INTERFACE_DESCRIPTOR_DATA BTD Mode (bindless thread dispatch)",
        ),
        (
            "interface_descriptor_rounding_mode",
            3,
            "INTERFACE_DESCRIPTOR_DATA Rounding Mode other than RTNE",
        ),
        (
            "interface_descriptor_number_of_barriers",
            2,
            "INTERFACE_DESCRIPTOR_DATA Number of Barriers above one (named barriers)",
        ),
    ];
    for (field, value, name) in cases {
        let mut g = Dg2::new();
        g.kernel(0, &dump_kernel(OUT, 1, [1, 1, 1], [0; 3], 1, 8));
        let mut cmds = setup();
        let mut w = Walk::new(8, [8, 1, 1], [1, 1, 1]);
        w.extra = vec![(field, value)];
        cmds.extend(w.packet());
        g.run(COMPUTE, &cmds);
        assert_eq!(g.gpu.unmodelled(COMPUTE), Some(name), "{field}");
    }
    let mut g = Dg2::new();
    let mut cmds = setup();
    cmds.extend(pack(
        "STATE_COMPUTE_MODE",
        &[("mask", 1 << 15), ("large_grf_mode", 1)],
    ));
    g.run(COMPUTE, &cmds);
    assert_eq!(
        g.gpu.unmodelled(COMPUTE),
        Some("STATE_COMPUTE_MODE Large GRF Mode")
    );
    // A walker before CFE_STATE.
    let mut g = Dg2::new();
    g.run(COMPUTE, &Walk::new(8, [8, 1, 1], [1, 1, 1]).packet());
    assert_eq!(
        g.gpu.unmodelled(COMPUTE),
        Some("COMPUTE_WALKER before CFE_STATE")
    );
}

#[test]
fn mutated_walker_batches_never_panic() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let kernel = dump_kernel(OUT, 1, [1, 1, 1], [0; 3], 1, 8);
    let good = Walk::new(8, [8, 1, 1], [1, 1, 1]).packet();
    let mut ran = 0;
    for _ in 0..60 {
        let mut g = Dg2::new();
        g.gpu.set_compute_budget(5_000);
        g.kernel(0, &kernel);
        let mut w = good.clone();
        for _ in 0..1 + next() % 4 {
            let bit = next() % (32 * (w.len() as u64 - 1)) + 32;
            w[(bit / 32) as usize] ^= 1 << (bit % 32);
        }
        let mut cmds = setup();
        cmds.extend(w);
        g.run(COMPUTE, &cmds);
        if g.errors() == 0 && g.gpu.compute_report(COMPUTE).is_none() {
            ran += 1;
        }
    }
    // Some mutations hit fields the walker ignores or tolerates.
    assert!(ran > 0);
}

#[test]
fn a_hung_engine_is_freed_by_its_reset() {
    let mut g = Dg2::new();
    g.gpu.set_compute_budget(5_000);
    g.kernel(0, &asm("L0:\n(W) jmpi (1|M0) L0\n"));
    let mut cmds = setup();
    cmds.extend(Walk::new(8, [8, 1, 1], [1, 1, 1]).packet());
    g.run(COMPUTE, &cmds);
    assert!(g.gpu.compute_report(COMPUTE).unwrap().contains("hang"));
    let commands = g.gpu.stats().commands;
    g.gpu.run(1000);
    // Still at the walker: no command after it ran.
    assert_eq!(g.gpu.stats().commands, commands);
    // GEN6_GDRST bit 1: the render domain, with the compute engines.
    g.gpu.write32(reg("GEN6_GDRST"), 1 << 1);
    assert_eq!(g.gpu.compute_report(COMPUTE), None);
}

#[test]
fn a_kernel_rewritten_at_the_same_address_is_decoded_again() {
    let mut g = Dg2::new();
    let w = Walk::new(8, [8, 1, 1], [1, 1, 1]);
    for out in [OUT, 2 * OUT] {
        g.kernel(0, &dump_kernel(out, 1, [1, 1, 1], [0; 3], 1, 8));
        let mut cmds = setup();
        cmds.extend(w.packet());
        g.run(COMPUTE, &cmds);
        assert_eq!(g.errors(), 0, "{:?}", g.gpu.compute_report(COMPUTE));
        assert!(g.log().mem.contains_key(&u64::from(out)), "{out:#x}");
    }
}

#[test]
fn compute_state_belongs_to_the_context() {
    let mut g = Dg2::new();
    g.kernel(0, &dump_kernel(OUT, 1, [1, 1, 1], [0; 3], 1, 8));
    let mut cmds = setup();
    cmds.extend(Walk::new(8, [8, 1, 1], [1, 1, 1]).packet());
    g.run(COMPUTE, &cmds);
    assert_eq!(g.errors(), 0, "{:?}", g.gpu.compute_report(COMPUTE));
    // A second context on the same engine has no CFE_STATE of its own.
    g.run(COMPUTE, &Walk::new(8, [8, 1, 1], [1, 1, 1]).packet());
    assert_eq!(
        g.gpu.unmodelled(COMPUTE),
        Some("COMPUTE_WALKER before CFE_STATE")
    );
}

#[test]
fn without_installed_functions_the_xe_functions_run_kernels_and_refuse_malformed_messages() {
    // Gateway-only kernels run; the test functions' made-up layout is no
    // LSC message: the Xe-HPG functions refuse it, a thread error.
    let mut g = Dg2::new();
    assert!(g.gpu.take_compute_functions().is_some());
    g.kernel(
        0,
        &asm("send.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}\n"),
    );
    let (va, phys) = g.buffer(&[0u8; 64]);
    let mut cmds = setup();
    let mut w = Walk::new(16, [16, 2, 1], [2, 2, 1]);
    w.extra = vec![
        ("post_sync_operation", 1),
        ("post_sync_destination_address", va),
        ("post_sync_immediate_data", 0x5a5a),
    ];
    cmds.extend(w.packet());
    g.run(COMPUTE, &cmds);
    assert_eq!(g.errors(), 0, "{:?}", g.gpu.compute_report(COMPUTE));
    assert_eq!(g.r64(phys), 0x5a5a);
    let mut g = Dg2::new();
    g.gpu.take_compute_functions();
    g.kernel(0, &dump_kernel(OUT, 1, [1, 1, 1], [0; 3], 1, 8));
    let mut cmds = setup();
    cmds.extend(Walk::new(8, [8, 1, 1], [1, 1, 1]).packet());
    g.run(COMPUTE, &cmds);
    assert_eq!(g.errors(), 1);
    assert!(
        g.gpu
            .compute_report(COMPUTE)
            .unwrap()
            .contains("thread error: group [0, 0, 0] thread 0: EU thread at ip 0x00e0: shared function error: LSC descriptor does not decode"),
        "{:?}",
        g.gpu.compute_report(COMPUTE)
    );
}

// ---------------------------------------------------------------------------
// Real LSC messages served by the model's own Xe-HPG shared functions (no
// `TestSf`): SIMD16 kernels, local X IDs in r1, the inline data in r2 with
// 64-bit buffer addresses in its qwords.

/// A fresh DG2 model with no test functions installed: the walker's sends
/// go to the Xe-HPG shared functions over the context's PPGTT.
fn xe_dg2() -> Dg2 {
    let g = Dg2::new();
    assert!(g.gpu.take_compute_functions().is_some());
    g
}

/// Checks that iga64 assembles `src` to the bytes ours gives (skips when
/// iga64 is missing), and returns ours.
fn xe_kernel(name: &str, src: &str) -> Vec<u8> {
    let ours = asm(src);
    let dir = std::env::temp_dir().join(format!("baregpu-dg2-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (file, out) = (dir.join("k.asm"), dir.join("k.bin"));
    std::fs::write(&file, src).unwrap();
    let Ok(r) = std::process::Command::new("iga64")
        .args(["-p=12p71", "-a"])
        .arg(&file)
        .arg("-o")
        .arg(&out)
        .output()
    else {
        eprintln!("iga64 not found: {name} not compared with the oracle");
        return ours;
    };
    assert!(
        r.status.success(),
        "iga64 on {name}: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    let theirs = std::fs::read(&out).unwrap();
    let lines: Vec<&str> = src.lines().collect();
    assert_eq!(ours.len(), theirs.len(), "{name}");
    for (i, (a, b)) in ours.chunks(16).zip(theirs.chunks(16)).enumerate() {
        assert_eq!(a, b, "{name}: {}", lines[i]);
    }
    ours
}

/// Kernel text: r10:2 the global X ID (group X * `lws` + local X), r12:2
/// its byte offset (* 4), and the A64 addresses `inline qword q + offset`
/// in `addr`..`addr`+3 for each `(q, addr)` (buffers below 4 GiB-aligned
/// ends: the low dword does not carry).
fn global_addresses(lws: u32, bufs: &[(u32, u32)]) -> String {
    let mut s = format!(
        "shl (1|M0) r3.0<1>:ud r0.1<0;1,0>:ud {}:ud\n",
        lws.trailing_zeros()
    );
    s += "add (16|M0) r10.0<1>:ud r1.0<1;1,0>:uw r3.0<0;1,0>:ud {A@1}\n";
    s += "shl (16|M0) r12.0<1>:ud r10.0<1;1,0>:ud 2:ud {A@1}\n";
    for &(q, a) in bufs {
        let (lo, hi) = (2 * q, 2 * q + 1);
        s += &format!("add (8|M0) r{a}.0<2>:ud r12.0<1;1,0>:ud r2.{lo}<0;1,0>:ud {{A@1}}\n");
        s += &format!(
            "add (8|M8) r{}.0<2>:ud r13.0<1;1,0>:ud r2.{lo}<0;1,0>:ud\n",
            a + 2
        );
        s += &format!("mov (8|M0) r{a}.1<2>:ud r2.{hi}<0;1,0>:ud\n");
        s += &format!("mov (8|M8) r{}.1<2>:ud r2.{hi}<0;1,0>:ud\n", a + 2);
    }
    s
}

const EOT: &str = "send.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}\n";

/// The inline data: buffer addresses in qwords 0..
fn inline_qwords(q: &[u64]) -> [u32; 8] {
    let mut d = [0u32; 8];
    for (k, v) in q.iter().enumerate() {
        d[2 * k] = *v as u32;
        d[2 * k + 1] = (*v >> 32) as u32;
    }
    d
}

fn read_u32s(g: &Dg2, phys: u64, n: usize) -> Vec<u32> {
    let mut b = vec![0u8; 4 * n];
    g.ram.read(phys, &mut b).unwrap();
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Each channel stores `3 * id + 7` at `out[id]` with `store.ugm` A64.
#[test]
fn lsc_a64_stores_fill_a_buffer_through_the_ppgtt() {
    let mut g = xe_dg2();
    let mut src = global_addresses(16, &[(0, 20)]);
    src += "mul (16|M0) r30.0<1>:ud r10.0<1;1,0>:ud 3:uw\n";
    src += "add (16|M0) r30.0<1>:ud r30.0<1;1,0>:ud 7:ud {A@1}\n";
    src += "sync.nop null {A@1}\n";
    src += "store.ugm.d32.a64 (16|M0) [r20:4] r30:2 {$0}\n";
    src += EOT;
    g.kernel(0, &xe_kernel("fill", &src));
    let n = 16 * 40;
    let (va, phys) = g.buffer(&vec![0xee; 4 * n + 64]);
    let mut w = Walk::new(16, [16, 1, 1], [40, 1, 1]);
    w.emit = 1;
    w.inline = Some(inline_qwords(&[va]));
    let mut cmds = setup();
    cmds.extend(w.packet());
    g.run(COMPUTE, &cmds);
    assert_eq!(g.errors(), 0, "{:?}", g.gpu.compute_report(COMPUTE));
    let want: Vec<u32> = (0..n as u32).map(|i| 3 * i + 7).collect();
    assert_eq!(read_u32s(&g, phys, n), want);
    // Nothing past the last channel.
    assert_eq!(read_u32s(&g, phys + 4 * n as u64, 1), vec![0xeeee_eeee]);
}

/// c = a + b over 64 Ki floats: 1024 groups of four SIMD16 threads, loads
/// and stores with `load.ugm`/`store.ugm`.
#[test]
fn lsc_vector_add_of_64ki_floats_over_many_groups() {
    let mut g = xe_dg2();
    let mut src = global_addresses(64, &[(0, 20), (1, 24), (2, 28)]);
    src += "sync.nop null {A@1}\n";
    src += "load.ugm.d32.a64 (16|M0) r40:2 [r20:4] {$1}\n";
    src += "load.ugm.d32.a64 (16|M0) r42:2 [r24:4] {$2}\n";
    src += "sync.nop null {$1.dst}\n";
    src += "add (16|M0) r44.0<1>:f r40.0<1;1,0>:f r42.0<1;1,0>:f {$2.dst}\n";
    src += "sync.nop null {A@1}\n";
    src += "store.ugm.d32.a64 (16|M0) [r28:4] r44:2 {$3}\n";
    src += EOT;
    g.kernel(0, &xe_kernel("vadd", &src));
    let n = 64 * 1024;
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
    let (va, _) = g.buffer(&bytes(&a));
    let (vb, _) = g.buffer(&bytes(&b));
    let (vc, pc) = g.buffer(&vec![0; 4 * n]);
    let mut w = Walk::new(16, [64, 1, 1], [(n / 64) as u32, 1, 1]);
    w.emit = 1;
    w.inline = Some(inline_qwords(&[va, vb, vc]));
    let mut cmds = setup();
    cmds.extend(w.packet());
    g.run(COMPUTE, &cmds);
    assert_eq!(g.errors(), 0, "{:?}", g.gpu.compute_report(COMPUTE));
    let got = read_u32s(&g, pc, n);
    for i in 0..n {
        assert_eq!(got[i], (a[i] + b[i]).to_bits(), "element {i}");
    }
}

/// Every channel of a 64-wide group ends with the group's sum: six
/// butterfly rounds through SLM (`store.slm`, barrier, `load.slm` of the
/// partner `id ^ s`, barrier, add), then `store.ugm` of the sum.
#[test]
fn lsc_work_group_sum_through_slm_and_barriers() {
    let mut g = xe_dg2();
    let mut src = global_addresses(64, &[(0, 20), (1, 24)]);
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
    g.kernel(0, &xe_kernel("reduce", &src));
    let groups = 12usize;
    let n = 64 * groups;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) >> 12)
        .collect();
    let bytes: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    let (vin, _) = g.buffer(&bytes);
    let (vout, pout) = g.buffer(&vec![0; 4 * n]);
    let mut w = Walk::new(16, [64, 1, 1], [groups as u32, 1, 1]);
    w.emit = 1;
    w.slm = 1;
    w.barriers = 1;
    w.inline = Some(inline_qwords(&[vout, vin]));
    let mut cmds = setup();
    cmds.extend(w.packet());
    g.run(COMPUTE, &cmds);
    assert_eq!(g.errors(), 0, "{:?}", g.gpu.compute_report(COMPUTE));
    let got = read_u32s(&g, pout, n);
    for grp in 0..groups {
        let sum = input[64 * grp..64 * grp + 64]
            .iter()
            .fold(0u32, |s, x| s.wrapping_add(*x));
        assert!(
            got[64 * grp..64 * grp + 64].iter().all(|v| *v == sum),
            "group {grp}: {:?} != {sum}",
            &got[64 * grp..64 * grp + 64]
        );
    }
}

/// Every channel of every thread increments one counter with
/// `atomic_iinc.ugm` and stores the old value it got: the counter ends at
/// the channel count and the old values are each count below it once.
#[test]
fn lsc_atomic_counter_hit_by_every_channel() {
    let mut g = xe_dg2();
    let mut src = global_addresses(32, &[(1, 24)]);
    src += "mov (8|M0) r20.0<2>:ud r2.0<0;1,0>:ud\n";
    src += "mov (8|M8) r22.0<2>:ud r2.0<0;1,0>:ud\n";
    src += "mov (8|M0) r20.1<2>:ud r2.1<0;1,0>:ud\n";
    src += "mov (8|M8) r22.1<2>:ud r2.1<0;1,0>:ud\n";
    src += "sync.nop null {A@1}\n";
    src += "atomic_iinc.ugm.d32.a64 (16|M0) r40:2 [r20:4] null {$0}\n";
    src += "sync.nop null {$0.dst}\n";
    src += "store.ugm.d32.a64 (16|M0) [r24:4] r40:2 {$1}\n";
    src += EOT;
    g.kernel(0, &xe_kernel("counter", &src));
    let groups = 50usize;
    let n = 32 * groups;
    let (vcount, pcount) = g.buffer(&[0; 64]);
    g.w32(pcount, &[1000]);
    let (vold, pold) = g.buffer(&vec![0; 4 * n]);
    let mut w = Walk::new(16, [32, 1, 1], [groups as u32, 1, 1]);
    w.emit = 1;
    w.inline = Some(inline_qwords(&[vcount, vold]));
    let mut cmds = setup();
    cmds.extend(w.packet());
    g.run(COMPUTE, &cmds);
    assert_eq!(g.errors(), 0, "{:?}", g.gpu.compute_report(COMPUTE));
    assert_eq!(g.r32(pcount), 1000 + n as u32);
    let mut old = read_u32s(&g, pold, n);
    old.sort_unstable();
    let want: Vec<u32> = (1000..1000 + n as u32).collect();
    assert_eq!(old, want);
}

/// A store to an address the PPGTT does not map stops the engine with the
/// page fault (the fault registers name the page), as a command's own
/// access does; the walker's post-sync never happens.
#[test]
fn lsc_store_to_an_unmapped_address_is_a_page_fault() {
    let mut g = xe_dg2();
    let mut src = global_addresses(16, &[(0, 20)]);
    src += "sync.nop null {A@1}\n";
    src += "store.ugm.d32.a64 (16|M0) [r20:4] r10:2 {$0}\n";
    src += EOT;
    g.kernel(0, &xe_kernel("fault", &src));
    let (va, phys) = g.buffer(&[0; 64]);
    // One mapped page of output (1024 dwords), then a hole: group 64 is
    // the first to store into the unmapped page.
    let (out, pout) = g.buffer(&vec![0; 4096]);
    let bad = out + 4096;
    let mut w = Walk::new(16, [16, 1, 1], [128, 1, 1]);
    w.emit = 1;
    w.inline = Some(inline_qwords(&[out]));
    w.extra = vec![
        ("post_sync_operation", 1),
        ("post_sync_destination_address", va),
        ("post_sync_immediate_data", 0x77),
    ];
    let mut cmds = setup();
    cmds.extend(w.packet());
    g.run(COMPUTE, &cmds);
    assert_eq!(g.errors(), 1);
    // The report names the thread, the instruction and the address.
    let report = g.gpu.compute_report(COMPUTE).unwrap_or_default();
    assert!(report.contains("page fault"), "{report}");
    assert!(report.contains("group [64, 0, 0]"), "{report}");
    assert!(report.contains(&format!("{bad:#x}")), "{report}");
    let fault = g.gpu.read32(reg("GEN12_RING_FAULT_REG"));
    assert_eq!(fault & 1, 1, "valid");
    assert_eq!(fault >> 11 & 1, 0, "PPGTT");
    assert_eq!(
        g.gpu.read32(reg("GEN12_FAULT_TLB_DATA0")),
        (bad >> 12) as u32
    );
    // The groups before the hole stored; the walker never completed.
    let want: Vec<u32> = (0..1024).collect();
    assert_eq!(read_u32s(&g, pout, 1024), want);
    assert_eq!(g.r32(phys), 0);
}

/// Block loads across a page boundary whose two virtual pages are mapped
/// to physical pages in the other order: an LSC transposed load (256
/// bytes) and a dc1 A64 OWord block read (64 bytes, which the function
/// reads whole: the memory translates each page on its own).
#[test]
fn block_loads_across_pages_mapped_out_of_order() {
    use baregpu_isa::message::xe_hdc::{A64Block, Dc1, OwordCount};
    let block = Dc1::A64Block(A64Block {
        write: false,
        aligned: false,
        bti: 0xFF,
        count: OwordCount::Four,
        invalidate_after_read: false,
    });
    let mut g = xe_dg2();
    let mut src = String::new();
    for (dst, from) in [
        ("r20.0", "r2.0"),
        ("r20.1", "r2.1"),
        ("r24.0", "r2.2"),
        ("r24.1", "r2.3"),
        ("r22.0", "r2.4"),
        ("r22.1", "r2.5"),
        ("r26.0", "r2.6"),
        ("r26.1", "r2.7"),
    ] {
        src += &format!("mov (1|M0) {dst}<1>:ud {from}<0;1,0>:ud\n");
    }
    src += "sync.nop null {A@1}\n";
    src += "load.ugm.d32x64t.a64 (1|M0) r40:8 [r20:1] {$0}\n";
    src += &format!(
        "send.dc1 (8|M0) r60 r22 null:0 0x0 0x{:08x} {{$2}}\n",
        block.encode().unwrap() | 1 << 25 | 2 << 20
    );
    src += "sync.nop null {$0.dst}\n";
    src += "store.ugm.d32x64t.a64 (1|M0) [r24:1] r40:8 {$1}\n";
    src += "sync.nop null {$2.dst}\n";
    src += "store.ugm.d32x16t.a64 (1|M0) [r26:1] r60:2 {$3}\n";
    src += EOT;
    g.kernel(0, &xe_kernel("block", &src));
    let va = g.next_va;
    g.next_va += 3 * 4096;
    let p = g.phys(2);
    g.map(va, p + 4096);
    g.map(va + 4096, p);
    // Virtual bytes va + k hold k / 4 as dwords.
    let words = |from: u32, n: u32| -> Vec<u32> { (from..from + n).collect() };
    g.w32(p + 4096, &words(0, 1024));
    g.w32(p, &words(1024, 1024));
    let (out, pout) = g.buffer(&[0; 512]);
    let mut w = Walk::new(8, [1, 1, 1], [1, 1, 1]);
    w.emit = 1;
    w.inline = Some(inline_qwords(&[
        va + 4096 - 128,
        out,
        va + 4096 - 32,
        out + 256,
    ]));
    let mut cmds = setup();
    cmds.extend(w.packet());
    g.run(COMPUTE, &cmds);
    assert_eq!(g.errors(), 0, "{:?}", g.gpu.compute_report(COMPUTE));
    assert_eq!(read_u32s(&g, pout, 64), words(1024 - 32, 64));
    assert_eq!(read_u32s(&g, pout + 256, 16), words(1024 - 8, 16));
}

/// The binding table a walker's `bti[0]` store reads: without a pool the
/// interface descriptor's Binding Table Pointer counts from Surface State
/// Base; once the context ran 3DSTATE_BINDING_TABLE_POOL_ALLOC, from the
/// pool's base (Mesa intel_batch_decoder.c for verx10 >= 125, anv
/// genX_cmd_buffer.c; see soft gen12_5::compute `xe_state`). The entries
/// stay Surface State Base relative in both cases; an entry past the
/// pool's end reads 0 (a null surface state at offset 0 here: the store is
/// dropped).
#[test]
fn the_binding_table_pointer_counts_from_the_pool_once_one_is_programmed() {
    use baregpu_soft::eu::shared::xe::surface::encode_buffer;
    let mut src = global_addresses(16, &[]);
    src += "add (16|M0) r30.0<1>:ud r10.0<1;1,0>:ud 0x100:ud\n";
    src += "sync.nop null {A@1}\n";
    src += "store.ugm.d32.a32 (16|M0) bti[0][r12:2] r30:2 {$0}\n";
    src += EOT;
    let code = xe_kernel("bti_pool", &src);
    for (pool, pool_pages) in [(false, 1u64), (true, 1), (true, 0)] {
        let mut g = xe_dg2();
        g.kernel(0, &code);
        let n = 64usize;
        let (a, a_phys) = g.buffer(&vec![0xaa; 4 * n]);
        let (b, b_phys) = g.buffer(&vec![0xbb; 4 * n]);
        // Surface states: a null one at 0, buffer A at 0x100, B at 0x200;
        // a binding table to A at 0x800 from the surface base.
        let mut ss = vec![0u8; 4096];
        let mut put = |at: usize, dw: &[u32]| {
            for (i, d) in dw.iter().enumerate() {
                ss[at + 4 * i..at + 4 * i + 4].copy_from_slice(&d.to_le_bytes());
            }
        };
        put(0, &[7 << 29]);
        put(0x100, &encode_buffer(a, 4 * n as u64));
        put(0x200, &encode_buffer(b, 4 * n as u64));
        put(0x800, &[0x100]);
        let (surface, _) = g.buffer(&ss);
        // The pool's table, at the same pointer, points at B.
        let mut pt = vec![0u8; 4096];
        pt[0x800..0x804].copy_from_slice(&0x200u32.to_le_bytes());
        let (pool_va, _) = g.buffer(&pt);
        let mut cmds = setup();
        cmds.extend(pack(
            "STATE_BASE_ADDRESS",
            &[
                ("surface_state_base_address", surface),
                ("surface_state_base_address_modify_enable", 1),
            ],
        ));
        if pool {
            cmds.extend(pack(
                "3DSTATE_BINDING_TABLE_POOL_ALLOC",
                &[
                    ("binding_table_pool_base_address", pool_va),
                    ("binding_table_pool_buffer_size", pool_pages),
                ],
            ));
        }
        let mut w = Walk::new(16, [16, 1, 1], [4, 1, 1]);
        w.emit = 1;
        w.extra = vec![("interface_descriptor_binding_table_pointer", 0x800)];
        cmds.extend(w.packet());
        g.run(RENDER, &cmds);
        assert_eq!(g.errors(), 0, "{:?}", g.gpu.compute_report(RENDER));
        let stored: Vec<u32> = (0..n as u32).map(|i| i + 0x100).collect();
        let (want_a, want_b) = match (pool, pool_pages) {
            (false, _) => (stored.clone(), vec![0xbbbb_bbbb; n]),
            (true, 1) => (vec![0xaaaa_aaaa; n], stored.clone()),
            _ => (vec![0xaaaa_aaaa; n], vec![0xbbbb_bbbb; n]),
        };
        assert_eq!(read_u32s(&g, a_phys, n), want_a, "pool {pool} {pool_pages}");
        assert_eq!(read_u32s(&g, b_phys, n), want_b, "pool {pool} {pool_pages}");
    }
}

/// A walker's sample_lz finds its SAMPLER_STATE from STATE_BASE_ADDRESS's
/// Dynamic State Base and the interface descriptor's Sampler State
/// Pointer, its Tile4 R32_FLOAT surface through the binding table: lane i
/// samples texel (i, 1) of a 16x4 surface at the texel's centre with
/// nearest filtering and stores what it read; entry 0 of the sampler array
/// (linear filtering under wrap) would blend neighbours instead.
#[test]
fn a_walker_samples_a_tile4_surface_with_the_descriptors_sampler_state() {
    use baregpu_isa::message::xe_sampler::{SamplerSimd, XeSampler};
    use baregpu_soft::eu::shared::xe::surface::encode_image;
    let smpl = XeSampler {
        bti: 0,
        sampler: 1,
        msg_type: 24,
        simd: SamplerSimd::Simd16,
        return_16bit: false,
        header: false,
    }
    .encode()
    .unwrap();
    let mut src = global_addresses(16, &[(0, 20)]);
    src += "sync.nop null {A@1}\n";
    src += "mov (16|M0) r32.0<1>:f 0.375:f\n";
    src += "mov (16|M0) r30.0<1>:f r10.0<1;1,0>:ud\n";
    src += "add (16|M0) r30.0<1>:f r30.0<1;1,0>:f 0.5:f {A@1}\n";
    src += "mul (16|M0) r30.0<1>:f r30.0<1;1,0>:f 0.0625:f {A@1}\n";
    src += &format!(
        "send.smpl (16|M0) r40 r30 null:0 0x0 0x{:08x} {{A@1,$1}}\n",
        smpl | 4 << 25 | 8 << 20
    );
    src += "sync.nop null {$1.dst}\n";
    src += "store.ugm.d32.a64 (16|M0) [r20:4] r40:2 {$2}\n";
    src += EOT;
    let code = xe_kernel("sample_lz", &src);
    let mut g = xe_dg2();
    g.kernel(0, &code);
    // The 16x4 R32_FLOAT Tile4 image: one 4 KiB tile (pitch 128).
    let texel = |x: usize, y: usize| (x * 7 + y * 100) as f32 * 0.25;
    let mut img = vec![0u8; 4096];
    for y in 0..4 {
        for x in 0..16 {
            // Tile4 inside a tile: byte x*4 of row y (gmmlib INTEL_TILE_4).
            let (u, v) = (x * 4, y);
            let o = (u & 0xF)
                | (v & 3) << 4
                | (u >> 4 & 3) << 6
                | (v >> 2 & 1) << 8
                | (u >> 6 & 1) << 9;
            img[o..o + 4].copy_from_slice(&texel(x, y).to_le_bytes());
        }
    }
    let (img_va, _) = g.buffer(&img);
    let mut ss = vec![0u8; 4096];
    for (i, d) in encode_image(img_va, 16, 4, 128, 0xD8, true)
        .iter()
        .enumerate()
    {
        ss[0x100 + 4 * i..0x104 + 4 * i].copy_from_slice(&d.to_le_bytes());
    }
    ss[0x800..0x804].copy_from_slice(&0x100u32.to_le_bytes());
    let (surface, _) = g.buffer(&ss);
    // Dynamic state: the sampler array at 0x200; entry 1 nearest, clamp
    // (TCX/TCY/TCZ 2), entry 0 linear, wrap (hal gen12.5 structs.toml
    // SAMPLER_STATE lines 157-190).
    let mut dy = vec![0u8; 4096];
    let entry0 = [1u32 << 14 | 1 << 17, 0, 0, 0];
    let entry1 = [0u32, 0, 0, 2 << 6 | 2 << 3 | 2];
    for (i, d) in entry0.iter().chain(entry1.iter()).enumerate() {
        dy[0x200 + 4 * i..0x204 + 4 * i].copy_from_slice(&d.to_le_bytes());
    }
    let (dynamic, _) = g.buffer(&dy);
    let (out, out_phys) = g.buffer(&[0u8; 64]);
    let mut cmds = setup();
    cmds.extend(pack(
        "STATE_BASE_ADDRESS",
        &[
            ("surface_state_base_address", surface),
            ("surface_state_base_address_modify_enable", 1),
            ("dynamic_state_base_address", dynamic),
            ("dynamic_state_base_address_modify_enable", 1),
        ],
    ));
    let mut w = Walk::new(16, [16, 1, 1], [1, 1, 1]);
    w.emit = 1;
    w.inline = Some(inline_qwords(&[out]));
    w.extra = vec![
        ("interface_descriptor_binding_table_pointer", 0x800),
        ("interface_descriptor_sampler_state_pointer", 0x200),
    ];
    cmds.extend(w.packet());
    g.run(COMPUTE, &cmds);
    assert_eq!(g.errors(), 0, "{:?}", g.gpu.compute_report(COMPUTE));
    let got = read_u32s(&g, out_phys, 16);
    let want: Vec<u32> = (0..16).map(|x| texel(x, 1).to_bits()).collect();
    assert_eq!(got, want);
}

// ---------------------------------------------------------------------------
// The demo's Mandelbrot kernel for DG2 (kernels/mandelbrot_xehpg.asm).

#[path = "../../kernels/mandelbrot_reference.rs"]
mod mandelbrot_reference;

/// Every pixel of kernels/mandelbrot_xehpg.asm's picture, run by the
/// walker on the model's Xe-HPG threads and LSC stores (with the SWSB
/// check), equals the host computation of kernels/mandelbrot_reference.rs;
/// the output buffer straddles a 4 GiB boundary of the address space (the
/// kernel's carry into the high dword) and has a row pitch wider than the
/// picture, whose padding stays untouched.
#[test]
fn mandelbrot_kernel_matches_the_host_reference() {
    // The demo's picture (boot/src/bin/demo/dg2.rs).
    const W: u32 = 128;
    const H: u32 = 96;
    const LIMIT: u32 = 48;
    const PITCH: u32 = W * 4 + 64;
    let (x0, y0, dx, dy) = (-2.2f32, -1.2f32, 3.0 / W as f32, 2.4 / H as f32);
    let mut g = xe_dg2();
    let src = include_str!("../../kernels/mandelbrot_xehpg.asm");
    g.kernel(0, &xe_kernel("mandelbrot", src));
    let bytes = (PITCH * H) as usize;
    // Half the buffer below the boundary, half above.
    g.next_va = 0x7f01_0000_0000 - ((bytes as u64 / 2) & !0xfff);
    let (va, phys) = g.buffer(&vec![0xee; bytes]);
    assert!(va >> 32 != (va + bytes as u64 - 1) >> 32);
    let mut w = Walk::new(16, [16, 1, 1], [W / 16, H, 1]);
    w.emit = 1;
    w.inline = Some([
        x0.to_bits(),
        y0.to_bits(),
        dx.to_bits(),
        dy.to_bits(),
        LIMIT,
        va as u32,
        (va >> 32) as u32,
        PITCH,
    ]);
    let mut cmds = setup();
    cmds.extend(w.packet());
    g.run(COMPUTE, &cmds);
    assert_eq!(g.errors(), 0, "{:?}", g.gpu.compute_report(COMPUTE));
    let got = read_u32s(&g, phys, bytes / 4);
    let (mut inside, mut outside) = (0, 0);
    for row in 0..H {
        for col in 0..W {
            let want = mandelbrot_reference::iterations(col, row, x0, y0, dx, dy, LIMIT);
            let have = got[(row * PITCH / 4 + col) as usize];
            assert_eq!(have, want, "pixel ({col}, {row})");
            if want == LIMIT {
                inside += 1
            } else {
                outside += 1
            }
        }
        let pad = &got[(row * PITCH / 4 + W) as usize..((row + 1) * PITCH / 4) as usize];
        assert!(pad.iter().all(|v| *v == 0xeeee_eeee), "row {row} padding");
    }
    // A picture, not a flat field: both inside and escaping points.
    assert!(
        inside > 500 && outside > 500,
        "{inside} inside, {outside} outside"
    );
}

/// Scratch on a walker: CFE_STATE's Scratch Space Buffer names a
/// SURFTYPE_SCRATCH surface state (its offset [27:6] from Surface State
/// Base, 004 lines 12356-12365), r0.5 31:10 carries it, and IGC's dc0
/// HWord scratch blocks (header copied from r0) reach the thread's own
/// part, Base + PThreadID * Pitch (004 line 6653). Four threads of a group
/// each write their channel IDs plus a thread tag, meet at a barrier (so
/// every write lands before any read), read back and store: sharing a part
/// would return another thread's tag.
#[test]
fn dc0_scratch_blocks_reach_each_threads_part_of_the_scratch_surface() {
    use baregpu_soft::eu::shared::xe::surface::encode_scratch;
    let mut src = global_addresses(64, &[(0, 20)]);
    // r40-r41: channel ID + 1000 * the thread's index in its group.
    src += "and (1|M0) r6.0<1>:ud r0.2<0;1,0>:ud 0xff:ud\n";
    src += "mul (1|M0) r6.0<1>:ud r6.0<0;1,0>:ud 1000:uw {A@1}\n";
    src += "add (16|M0) r40.0<1>:ud r10.0<1;1,0>:ud r6.0<0;1,0>:ud {A@1}\n";
    src += "mov (8|M0) r3.0<1>:ud r0.0<1;1,0>:ud\n";
    src += "mov (8|M0) r5.0<1>:ud r0.0<1;1,0>:ud\n";
    src += "sync.nop null {A@1}\n";
    // hword scratch block write x2 at offset 2 (IGC's descriptor form).
    src += "send.dc0 (16|M0) null r3 r40:2 0x0 0x020F1002 {$1}\n";
    src += "sync.nop null {$1.src}\n";
    src += "send.gtwy (1|M0) null r5 null:0 0x0 0x02000004 {$2}\n";
    src += "sync.bar null\n";
    src += "mov (16|M0) r40.0<1>:ud 0x0:ud\n";
    src += "sync.nop null {A@1}\n";
    // hword scratch block read x2 from offset 2.
    src += "send.dc0 (16|M0) r44 r3 null:0 0x0 0x022C1002 {$3}\n";
    src += "sync.nop null {$3.dst}\n";
    src += "store.ugm.d32.a64 (16|M0) [r20:4] r44:2 {$4}\n";
    src += EOT;
    let mut g = xe_dg2();
    g.kernel(0, &xe_kernel("scratch", &src));
    let groups = 3usize;
    let n = 64 * groups;
    let (vout, pout) = g.buffer(&vec![0; 4 * n]);
    let (pitch, entries) = (1024u64, 64u64);
    let (scratch, _) = g.buffer(&vec![0; (pitch * entries) as usize]);
    let mut ss = vec![0u8; 4096];
    for (i, d) in encode_scratch(scratch, pitch, entries).iter().enumerate() {
        ss[0x40 + 4 * i..0x44 + 4 * i].copy_from_slice(&d.to_le_bytes());
    }
    let (surface, _) = g.buffer(&ss);
    let mut cmds = pack(
        "PIPELINE_SELECT",
        &[("mask_bits", 0x3), ("pipeline_selection", 2)],
    );
    cmds.extend(pack(
        "STATE_BASE_ADDRESS",
        &[
            ("instruction_base_address", INSTRUCTION_BASE),
            ("instruction_base_address_modify_enable", 1),
            ("instruction_buffer_size", 0x100),
            ("instruction_buffer_size_modify_enable", 1),
            ("surface_state_base_address", surface),
            ("surface_state_base_address_modify_enable", 1),
        ],
    ));
    cmds.extend(pack(
        "CFE_STATE",
        &[
            ("maximum_number_of_threads", entries),
            ("scratch_space_buffer", 0x40 >> 6),
        ],
    ));
    let mut w = Walk::new(16, [64, 1, 1], [groups as u32, 1, 1]);
    w.emit = 1;
    w.barriers = 1;
    w.inline = Some(inline_qwords(&[vout]));
    cmds.extend(w.packet());
    g.run(COMPUTE, &cmds);
    assert_eq!(g.errors(), 0, "{:?}", g.gpu.compute_report(COMPUTE));
    let got = read_u32s(&g, pout, n);
    for (i, v) in got.iter().enumerate() {
        let thread = (i % 64 / 16) as u32;
        assert_eq!(*v, i as u32 + 1000 * thread, "work-item {i}");
    }
    // Without a scratch surface the block finds no scratch surface state.
    let mut g = xe_dg2();
    g.kernel(0, &xe_kernel("scratch", &src));
    let (vout, _) = g.buffer(&vec![0; 4 * n]);
    let mut w = Walk::new(16, [64, 1, 1], [1, 1, 1]);
    w.emit = 1;
    w.barriers = 1;
    w.inline = Some(inline_qwords(&[vout]));
    let mut cmds = setup();
    cmds.extend(w.packet());
    g.run(COMPUTE, &cmds);
    // Surface State Base is 0 here, unmapped: reading the surface state
    // there is a page fault.
    assert_eq!(g.errors(), 1);
    let report = g.gpu.compute_report(COMPUTE).unwrap_or_default();
    assert!(
        report.contains("page fault") && report.contains("at 0x0"),
        "{report}"
    );
}
