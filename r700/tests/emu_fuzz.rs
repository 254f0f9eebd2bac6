//! Random programs never panic the emulator and always stop within the step budget.

mod emu_common;

use baregpu_r700::alu::{AluGroup, AluInst};
use baregpu_r700::cf::{CfAluOp, CfInst, CfOp};
use baregpu_r700::emu::{self, EmuError, Grid, Options, Sampler, TexResource, VtxResource};
use baregpu_r700::fetch::{TexInst, VtxInst};
use emu_common::*;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
}

fn random_alu(r: &mut Rng) -> AluInst {
    loop {
        if let Ok(mut i) = AluInst::decode(r.next(), r.next()) {
            i.last = false;
            return i;
        }
    }
}

fn random_groups(r: &mut Rng) -> Vec<AluGroup> {
    (0..1 + r.below(4))
        .map(|_| group((0..1 + r.below(5)).map(|_| random_alu(r)).collect(), vec![]))
        .collect()
}

fn random_program(r: &mut Rng) -> Vec<u8> {
    let n = 2 + r.below(10);
    let mut items = Vec::new();
    for _ in 0..n {
        let item = match r.below(6) {
            0 | 1 => {
                let ops = [
                    CfAluOp::Alu,
                    CfAluOp::AluPushBefore,
                    CfAluOp::AluPopAfter,
                    CfAluOp::AluPop2After,
                    CfAluOp::AluContinue,
                    CfAluOp::AluBreak,
                    CfAluOp::AluElseAfter,
                ];
                C::Alu(ops[r.below(7) as usize], random_groups(r))
            }
            2 => {
                let t = loop {
                    if let Ok(t) = TexInst::decode([r.next(), r.next(), r.next(), 0]) {
                        break t;
                    }
                };
                C::Tex(vec![t])
            }
            3 => {
                let v = loop {
                    if let Ok(v) = VtxInst::decode([r.next(), r.next(), r.next(), 0]) {
                        break v;
                    }
                };
                C::Vtx(vec![v])
            }
            _ => loop {
                // A plain CF word or an export, with a jump target inside the program.
                if let Ok(i) = CfInst::decode(r.below(n + 2), r.next() & !(1 << 21)) {
                    match i {
                        CfInst::Word(w) if !matches!(w.op, CfOp::Tex | CfOp::Vtx | CfOp::VtxTc) => {
                            break C::W(w);
                        }
                        CfInst::Export(e) => break C::E(e),
                        _ => {}
                    }
                }
            },
        };
        items.push(item);
    }
    items.push(export_params(1 + r.below(4) as u8, 1 + r.below(3) as u8));
    build(items)
}

#[test]
fn random_programs_stop_without_panicking() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let mut outcomes = std::collections::BTreeMap::new();
    for _ in 0..3000 {
        let bytes = random_program(&mut r);
        let mut opts = Options {
            budget: 3000,
            ..Options::default()
        };
        opts.loop_consts = [r.next(); 32];
        opts.bool_consts = r.next();
        opts.vtx_resources = vec![(
            r.below(4) as u8,
            VtxResource::buffer(
                emu::address(1, 0),
                256,
                r.below(64),
                r.below(64) as u8,
                r.below(3) as u8,
            ),
        )];
        opts.tex_resources = vec![(
            r.below(4) as u8,
            TexResource::linear(
                r.below(3) as u8,
                emu::address(1, 0),
                [1 + r.below(16), 1 + r.below(8)],
                8,
                r.below(64) as u8,
                r.below(3) as u8,
                r.next() & 1 == 0,
            ),
        )];
        opts.samplers = vec![(0, Sampler::point(r.below(8) as u8))];
        opts.scratch_base = Some(emu::address(2, 0));
        opts.scratch_item = (r.next() & 1 == 0).then(|| r.below(64));
        opts.global_gprs = r.below(129) as u8;
        opts.gs_events = Some(emu::address(2, 0));
        opts.semantic_table = vec![(r.below(256) as u8, r.below(256) as u8)];
        opts.base_vertex = r.next();
        opts.start_instance = r.next();
        opts.mem_export_base = Some(emu::address(2, 0));
        opts.export_base = [Some(emu::address(0, 0)); 3];
        opts.stream_base = [Some(emu::address(2, 0)); 4];
        let mut out = vec![0u8; 16 * 64 * 16];
        let mut input: Vec<u8> = (0..256).map(|_| r.next() as u8).collect();
        let mut mem = vec![0u8; 4096];
        let res = emu::run(
            &bytes,
            &mut [&mut out, &mut input, &mut mem],
            Grid {
                groups: [1 + r.below(2), 1, 1],
                group_size: [1 + r.below(70), 1, 1],
            },
            &opts,
        );
        let key = match &res {
            Ok(rep) => {
                assert!(rep.steps <= 3000, "within budget");
                "ok"
            }
            Err(EmuError::Budget { steps }) => {
                assert_eq!(*steps, 3000);
                "budget"
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                "error"
            }
        };
        *outcomes.entry(key).or_insert(0) += 1;
    }
    // The generator must reach all three outcomes, or it tests little.
    assert!(
        outcomes.len() == 3 && outcomes.values().all(|&n| n > 20),
        "{outcomes:?}"
    );
}

#[test]
fn random_bytes_never_panic() {
    let mut r = Rng(0x0BAD_5EED_1234_5678);
    for _ in 0..20_000 {
        let len = 8 * (2 + r.below(12) as usize);
        let mut bytes: Vec<u8> = (0..len).map(|_| r.next() as u8).collect();
        // Often end the CF program early so decoding gets somewhere.
        if r.next() & 1 == 0 {
            bytes[12..16].copy_from_slice(&0x8020_0000u32.to_le_bytes());
            bytes[8..12].fill(0);
        }
        let opts = Options {
            budget: 500,
            ..Options::default()
        };
        let _ = emu::run(
            &bytes,
            &mut [],
            Grid {
                groups: [1, 1, 1],
                group_size: [4, 1, 1],
            },
            &opts,
        );
    }
}

/// Bad launch parameters are errors.
#[test]
fn bad_launches_are_errors() {
    let bytes = build(vec![export_params(1, 1)]);
    let grid = Grid {
        groups: [1, 1, 1],
        group_size: [1, 1, 1],
    };
    for opts in [
        Options {
            wave_size: 7,
            ..Options::default()
        },
        Options {
            num_gprs: 0,
            ..Options::default()
        },
    ] {
        assert!(matches!(
            emu::run(&bytes, &mut [], grid, &opts),
            Err(EmuError::Launch(_))
        ));
    }
    let zero = Grid {
        groups: [1, 1, 1],
        group_size: [0, 1, 1],
    };
    assert!(matches!(
        emu::run(&bytes, &mut [], zero, &Options::default()),
        Err(EmuError::Launch(_))
    ));
}

/// Bases near the top of the address space wrap instead of overflowing; such writes
/// fall outside every buffer and are dropped.
#[test]
fn extreme_bases_drop_writes() {
    let bytes = build(vec![mem_export(0, 0, 3, false), export_params(0, 1)]);
    let opts = Options {
        mem_export_base: Some(u64::MAX - 3),
        export_base: [Some(u64::MAX); 3],
        inputs: Some(emu::Inputs {
            address: u64::MAX - 8,
            first: 120,
            count: 255,
        }),
        ..Options::default()
    };
    let r = emu::run(
        &bytes,
        &mut [],
        Grid {
            groups: [1, 1, 1],
            group_size: [8, 1, 1],
        },
        &opts,
    )
    .unwrap();
    assert_eq!(r.dropped_writes, 8 * 4 * 2);
}

/// Random resource and sampler words (any dimension, levels, arrays, formats, filters,
/// border types, LOD fields) under random TEX instructions and coordinates: a value or a
/// named error, never a panic.
#[test]
fn random_texture_descriptors_never_panic() {
    let mut r = Rng(0x5EED_0F7E_C7DE_5C00);
    let mut outcomes = std::collections::BTreeMap::new();
    for _ in 0..3000 {
        let insts: Vec<TexInst> = (0..1 + r.below(4))
            .map(|_| {
                loop {
                    if let Ok(mut t) = TexInst::decode([r.next(), r.next(), r.next(), 0]) {
                        t.resource_id = 0;
                        t.sampler_id = 0;
                        t.src_gpr = 1;
                        t.src_rel = false;
                        t.dst_rel = false;
                        break t;
                    }
                }
            })
            .collect();
        let bytes = build(vec![C::Tex(insts), export_params(2, 1)]);
        let mut words: [u32; 7] = core::array::from_fn(|_| r.next());
        // Small sizes often, so texels land inside the buffer.
        if r.next() & 1 == 0 {
            words[0] &= !(0x1FFF << 19) | (r.below(16) << 19);
            words[1] &= !0x3FF_FFFF | r.below(8) | r.below(8) << 13;
            words[2] = (emu::address(1, 0) >> 8) as u32;
            words[3] = (emu::address(1, 1024) >> 8) as u32;
        }
        words[6] = words[6] & 0x3FFF_FFFF | 2 << 30;
        let mut opts = Options {
            tex_resources: vec![(0, TexResource(words))],
            samplers: vec![(0, Sampler([r.next(), r.next(), r.next()]))],
            border_colors: vec![(0, [r.next(), r.next(), r.next(), r.next()])],
            inputs: Some(emu::Inputs {
                address: emu::address(2, 0),
                first: 1,
                count: 1,
            }),
            ..Options::default()
        };
        opts.export_base = [Some(emu::address(0, 0)); 3];
        let mut out = vec![0u8; 16 * 64 * 16];
        let mut tex: Vec<u8> = (0..4096).map(|_| r.next() as u8).collect();
        let mut coords: Vec<u8> = (0..16 * 16).map(|_| r.next() as u8).collect();
        let res = emu::run(
            &bytes,
            &mut [&mut out, &mut tex, &mut coords],
            Grid {
                groups: [1, 1, 1],
                group_size: [16, 1, 1],
            },
            &opts,
        );
        let key = match &res {
            Ok(_) => "ok",
            Err(e) => {
                assert!(!e.to_string().is_empty());
                "error"
            }
        };
        *outcomes.entry(key).or_insert(0) += 1;
    }
    assert!(
        outcomes.len() == 2 && outcomes.values().all(|&n| n > 100),
        "{outcomes:?}"
    );
}
