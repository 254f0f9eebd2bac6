//! The generated device descriptions hold what the driver (src/submit/engines.rs,
//! src/gtt/ggtt.rs) and the software GPU (soft/src/layout.rs) wrote by hand before
//! they read it: the values below are those hand-written constants.

use baregpu_hal::device::{self, Forcewake, GfxMode, PteFormat, Reset};
use baregpu_hal::{Generation, gen4, gen6, gen7};

/// (name, base, hws_pga, user interrupt, error, notify, reset bit, runs blits)
type E = (&'static str, u32, u32, u32, u32, u32, u32, bool);

fn engines(g: Generation) -> Vec<E> {
    device::of(g)
        .unwrap()
        .engines
        .iter()
        .map(|e| {
            (
                e.name,
                e.base,
                e.hws_pga,
                e.user_interrupt_bit,
                e.error_bit,
                e.notify_bit,
                e.reset_bit,
                e.runs("blitter"),
            )
        })
        .collect()
}

#[test]
fn engines_match_the_former_hand_written_layouts() {
    let render4 = ("render", 0x2000, 0x2080, 1, 15, 18, 1, true);
    assert_eq!(engines(Generation::Gen4), vec![render4]);
    assert_eq!(
        engines(Generation::G45),
        vec![render4, ("video", 0x4000, 0x4080, 25, 15, 25, 3, false)]
    );
    let snb = |hws: [u32; 3]| {
        vec![
            ("render", 0x2000, hws[0], 0, 3, 4, 1, false),
            ("video", 0x12000, hws[1], 12, 15, 16, 2, false),
            ("blitter", 0x22000, hws[2], 22, 25, 26, 3, true),
        ]
    };
    assert_eq!(engines(Generation::Gen6), snb([0x4080, 0x14080, 0x24080]));
    assert_eq!(engines(Generation::Gen7), snb([0x4080, 0x4180, 0x4280]));
    for g in [
        Generation::Gen4,
        Generation::G45,
        Generation::Gen6,
        Generation::Gen7,
    ] {
        for e in device::of(g).unwrap().engines {
            let r = e.ring;
            assert_eq!(
                (r.tail, r.head, r.start, r.ctl),
                (0x30, 0x34, 0x38, 0x3c),
                "{g:?} {}",
                e.name
            );
        }
    }
    assert!(device::of(Generation::Gen12_5).is_none());
}

#[test]
fn gt_matches_the_former_hand_written_layouts() {
    let d4 = device::of(Generation::Gen4).unwrap();
    let d45 = device::of(Generation::G45).unwrap();
    for d in [d4, d45] {
        let i = d.gt.irq;
        assert_eq!(
            (i.isr, i.imr, i.iir, i.ier),
            (0x20ac, 0x20a8, 0x20a4, 0x20a0)
        );
        assert_eq!(d.gt.reset, Reset::PciConfig { offset: 0xc0 });
        assert_eq!(d.gt.forcewake, Forcewake::None);
        assert_eq!(d.gt.gfx_mode, None);
        assert!(!d.gt.ring_imr && d.gt.physical_addressing);
        assert_eq!(d.gtt.flush_register, 0x2170);
        assert_eq!(d.gtt.pte, PteFormat::Gen4);
    }
    assert!(d4.gt.hwsp_physical && !d45.gt.hwsp_physical);
    assert_eq!(
        (d4.gt.page_fault_eir_bit, d45.gt.page_fault_eir_bit),
        (4, 5)
    );
    assert_eq!(
        (d4.gtt.alias_offset, d4.gtt.entries, d4.gtt.bar_size),
        (512 << 10, 128 << 10, 1 << 20)
    );
    assert_eq!(
        (d45.gtt.alias_offset, d45.gtt.entries, d45.gtt.bar_size),
        (2 << 20, 256 << 10, 4 << 20)
    );
    assert_eq!((d4.eu_isa, d45.eu_isa), ("gen4", "g45"));

    let d6 = device::of(Generation::Gen6).unwrap();
    let d7 = device::of(Generation::Gen7).unwrap();
    for d in [d6, d7] {
        let i = d.gt.irq;
        assert_eq!(
            (i.isr, i.imr, i.iir, i.ier),
            (0x44010, 0x44014, 0x44018, 0x4401c)
        );
        assert_eq!(
            d.gt.reset,
            Reset::Gdrst {
                register: 0x941c,
                full_bit: 0
            }
        );
        assert!(d.gt.ring_imr && !d.gt.hwsp_physical && !d.gt.physical_addressing);
        assert_eq!(d.gt.page_fault_eir_bit, 4);
        assert_eq!(
            (d.gtt.alias_offset, d.gtt.entries, d.gtt.bar_size),
            (2 << 20, 512 << 10, 4 << 20)
        );
        assert_eq!(d.gtt.flush_register, 0x10_1008);
    }
    assert_eq!(
        d6.gt.forcewake,
        Forcewake::Single {
            request: 0xa18c,
            ack: 0x130090
        }
    );
    assert_eq!(
        d7.gt.forcewake,
        Forcewake::MultiThreaded {
            request: 0xa188,
            ack: 0x130040
        }
    );
    assert_eq!(d6.gt.gfx_mode, Some(GfxMode::Global(0x2520)));
    assert_eq!(d7.gt.gfx_mode, Some(GfxMode::PerEngine(0x29c)));
    assert_eq!((d6.gtt.pte, d7.gtt.pte), (PteFormat::Gen6, PteFormat::Gen7));
    assert_eq!((d6.eu_isa, d7.eu_isa), ("gen6", "gen7"));
}

#[test]
fn registers_resolve_to_the_typed_registers() {
    let d6 = device::of(Generation::Gen6).unwrap();
    assert_eq!(d6.gt.irq.iir, gen6::regs::GTIIR.offset());
    assert_eq!(d6.engines[1].hws_pga, gen6::regs::VCS_HWS_PGA.offset());
    assert_eq!(
        d6.engines[0].hws_pga,
        gen6::regs::HWS_PGA.at(gen6::Engine::Render).offset()
    );
    let d7 = device::of(Generation::Gen7).unwrap();
    assert_eq!(d7.engines[2].hws_pga, gen7::regs::BCS_HWS_PGA.offset());
    let d4 = device::of(Generation::Gen4).unwrap();
    assert_eq!(d4.gt.irq.imr, gen4::regs::IMR.offset());
}

/// The driver and the model reach the per-ring error registers through the Gen6 typed
/// registers on every generation: the 965 and G45 tables must put them at the same offsets.
#[test]
fn ring_error_registers_sit_alike_on_every_generation() {
    use baregpu_hal::g45;
    let gen6 = [
        gen6::regs::IPEIR.relative_offset(),
        gen6::regs::IPEHR.relative_offset(),
        gen6::regs::INSTDONE.relative_offset(),
        gen6::regs::ACTHD.relative_offset(),
    ];
    let gen4 = [
        gen4::regs::IPEIR_I965.relative_offset(),
        gen4::regs::IPEHR_I965.relative_offset(),
        gen4::regs::INSTDONE_I965.relative_offset(),
        gen4::regs::ACTHD_I965.relative_offset(),
    ];
    assert_eq!(gen4, gen6);
    assert_eq!(g45::regs::ACTHD_I965.relative_offset(), gen6[3]);
    // Gen4 EIR/ESR are absolute render registers: render base + the Gen6 ring offsets.
    let render = gen4::Engine::Render.base_offset();
    assert_eq!(
        gen4::regs::EIR.offset() - render,
        gen6::regs::EIR.relative_offset()
    );
    assert_eq!(
        gen4::regs::ESR.offset() - render,
        gen6::regs::ESR.relative_offset()
    );
}

/// The interrupt blocks and the forcewake sequence, against Linux i915: Gen6/Gen7
/// handle GTIIR, DEIIR, PMIIR between clearing and setting DEIER bit 31
/// (ilk_irq_handler); Gen4/G45 have the one IIR set and no master (i965_irq_handler);
/// forcewake waits up to FORCEWAKE_ACK_TIMEOUT_MS (50), posts with ECOBUS and checks
/// GEN6_GT_THREAD_STATUS_REG's core mask 7; Ivy Bridge keeps MT only with ECOBUS bit 5.
#[test]
fn interrupts_and_forcewake_follow_i915() {
    for g in [Generation::Gen6, Generation::Gen7] {
        let d = device::of(g).unwrap();
        let blocks: Vec<(&str, u32, u32, bool)> = d
            .interrupts
            .blocks
            .iter()
            .map(|b| (b.name, b.regs.isr, b.regs.ier, b.engines))
            .collect();
        assert_eq!(
            blocks,
            [
                ("gt", 0x44010, 0x4401c, true),
                ("display", 0x44000, 0x4400c, false),
                ("pm", 0x44020, 0x4402c, false),
            ],
            "{g:?}"
        );
        let m = d.interrupts.master.unwrap();
        assert_eq!((m.register, m.bit), (0x4400c, 31));
        assert_eq!(d.interrupts.engine_block().unwrap().regs, d.gt.irq);
        let w = d.gt.wake;
        assert_eq!(
            (w.ack_timeout_ms, w.posting_read, w.thread_status),
            (50, Some(0xa180), Some((0x13805c, 7)))
        );
    }
    let mt = device::of(Generation::Gen7)
        .unwrap()
        .gt
        .wake
        .mt_enable
        .unwrap();
    assert_eq!(
        (mt.register, mt.bit, mt.single_request, mt.single_ack),
        (0xa180, 5, 0xa18c, 0x130090)
    );
    assert_eq!(
        device::of(Generation::Gen6).unwrap().gt.wake.mt_enable,
        None
    );
    for g in [Generation::Gen4, Generation::G45] {
        let d = device::of(g).unwrap();
        assert_eq!(d.interrupts.master, None);
        let [b] = d.interrupts.blocks else {
            panic!("{g:?}: one block")
        };
        assert_eq!((b.name, b.regs.iir, b.engines), ("main", 0x20a4, true));
    }
}
