//! Ivy Bridge L3 partitioning for shared local memory: a GPGPU dispatch
//! whose kernel uses SLM loads the L3 control registers with SLM enabled,
//! behind a stalling flush, after PIPELINE_SELECT and before the walker; a
//! dispatch without SLM leaves the L3 alone. The software GPU's command
//! streamer executes the load, so its register file shows the values.
//!
//! Expected values are built here from the public sources, not from the
//! driver: offsets and bit positions from Mesa's i965 intel_reg.h
//! (GEN7_L3SQCREG1 B010h, GEN7_L3CNTLREG2 B020h, GEN7_L3CNTLREG3 B024h;
//! L3CNTLREG2: SLM enable bit 0, URB ways 6:1, URB low bandwidth bit 7, RO
//! ways 19:14, DC ways 26:21), the IVB credit default 00730000h
//! (IVB_L3SQCREG1_SQGHPCI_DEFAULT), and the way split from Mesa's validated
//! IVB row SLM 16 / URB 16 / DC 16 / RO 16 (intel_l3_config.c).

use baregpu::compute::{Compute, Dispatch, KernelDesc, Resource, Threads};
use baregpu::hal::Generation;

mod compute_common;
use compute_common::*;

const G: Generation = Generation::Gen7;

const L3SQCREG1: u32 = 0xb010;
const L3CNTLREG2: u32 = 0xb020;
const L3CNTLREG3: u32 = 0xb024;

/// L3CNTLREG2 for Mesa's row, SLM on; the URB runs in low-bandwidth mode
/// with as many ways as SLM (Mesa setup_l3_config). 16 + 16 + 16 + 16 = 64,
/// the IVB total every validated row adds up to; IS, C and T share RO.
const L3CNTLREG2_SLM: u32 = 1 // SLM enable, bit 0
    | 16 << 1 // URB ways, bits 6:1
    | 1 << 7 // URB low bandwidth
    | 16 << 14 // RO ways, bits 19:14
    | 16 << 21; // DC ways, bits 26:21

fn dispatch_with_slm<'a>(bindings: &'a [(u32, Resource<'a>)]) -> Dispatch<'a> {
    Dispatch {
        threads: Threads::Groups {
            groups: [2, 1, 1],
            group_size: [64, 1, 1],
        },
        curbe: &[],
        bindings,
        samplers: &[],
    }
}

fn record(slm_bytes: u32) -> Vec<Cmd> {
    let mut out = Vec::new();
    with_gpu(G, |gpu, _| {
        let bin = eot_kernel(G);
        let mut cx = Compute::new(gpu).unwrap();
        let desc = KernelDesc {
            barriers: true,
            slm_bytes,
            ..KernelDesc::new(&bin)
        };
        let k = cx.load_kernel(gpu, &desc).unwrap();
        let batch = cx.record(gpu, &k, &dispatch_with_slm(&[])).unwrap();
        out = commands(G, &batch);
    });
    out
}

fn position(cmds: &[Cmd], name: &str) -> usize {
    cmds.iter()
        .position(|c| c.name == name)
        .unwrap_or_else(|| panic!("no {name} in {:?}", names(cmds)))
}

#[test]
fn a_dispatch_with_slm_partitions_the_l3_before_the_walker() {
    for slm_bytes in [1, 4096, 65536] {
        let cmds = record(slm_bytes);
        let select = position(&cmds, "PIPELINE_SELECT");
        let lri = position(&cmds, "MI_LOAD_REGISTER_IMM");
        let walker = position(&cmds, "GPGPU_WALKER");
        assert!(select < lri && lri < walker, "{:?}", names(&cmds));
        assert_eq!(all(&cmds, "MI_LOAD_REGISTER_IMM").len(), 1);
        // Right before the load: a flush that stalls the command streamer
        // until the data cache is written out (Mesa's third L3 step).
        let stall = &cmds[lri - 1];
        assert_eq!(stall.name, "PIPE_CONTROL");
        assert_eq!(stall.get("command_streamer_stall_enable"), 1);
        assert_eq!(stall.get("dc_flush_enable"), 1);
        // The read-only invalidation of Mesa's second step precedes it.
        assert!(cmds[..lri - 1].iter().any(|c| c.name == "PIPE_CONTROL"
            && c.get("texture_cache_invalidation_enable") == 1
            && c.get("instruction_cache_invalidate_enable") == 1));
        assert_eq!(
            cmds[lri].inline(),
            [
                L3SQCREG1,
                0x0073_0000,
                L3CNTLREG2,
                L3CNTLREG2_SLM,
                L3CNTLREG3,
                0,
            ],
            "{slm_bytes} bytes of SLM"
        );
    }
}

#[test]
fn a_dispatch_without_slm_leaves_the_l3_alone() {
    let cmds = record(0);
    assert!(
        all(&cmds, "MI_LOAD_REGISTER_IMM").is_empty(),
        "{:?}",
        names(&cmds)
    );
    // Only the flush before PIPELINE_SELECT and the one after the walker.
    assert_eq!(all(&cmds, "PIPE_CONTROL").len(), 3);
}

#[test]
fn the_command_streamer_loads_the_l3_registers() {
    with_gpu(G, |gpu, _| {
        let bin = eot_kernel(G);
        let mut cx = Compute::new(gpu).unwrap();
        let buf = cx.create_buffer(gpu, 4096).unwrap();
        let bindings = [(1, Resource::Buffer(&buf))];
        let plain = cx
            .load_kernel(
                gpu,
                &KernelDesc {
                    bindings: &[1],
                    ..KernelDesc::new(&bin)
                },
            )
            .unwrap();
        let before = gpu.mmio().read32(L3CNTLREG2);
        let fence = cx
            .dispatch(gpu, &plain, &dispatch_with_slm(&bindings))
            .unwrap();
        gpu.wait(fence, 1_000_000).unwrap();
        assert_eq!(gpu.mmio().read32(L3CNTLREG2), before, "no SLM, no L3 load");
        assert_eq!(before & 1, 0, "SLM is off after reset");

        let shared = cx
            .load_kernel(
                gpu,
                &KernelDesc {
                    bindings: &[1],
                    barriers: true,
                    slm_bytes: 8192,
                    ..KernelDesc::new(&bin)
                },
            )
            .unwrap();
        let fence = cx
            .dispatch(gpu, &shared, &dispatch_with_slm(&bindings))
            .unwrap();
        gpu.wait(fence, 1_000_000).unwrap();
        assert_eq!(gpu.mmio().read32(L3SQCREG1), 0x0073_0000);
        assert_eq!(gpu.mmio().read32(L3CNTLREG2), L3CNTLREG2_SLM);
        assert_eq!(gpu.mmio().read32(L3CNTLREG3), 0);
    });
}
