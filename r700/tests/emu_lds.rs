//! The local data share: MEM_DSW writes at the addresses the manual gives (bank = id & 3,
//! offset = (id >> 2) * DST_STRIDE + DST_INDEX; 002 lines 645-658), MEM_DSR reads of
//! another thread's entry, bursts, out-of-range accesses, each against a host computation.

mod emu_common;

use baregpu_r700::cf::CfInst;
use baregpu_r700::emu::{self, EmuError, Inputs, Options};
use baregpu_r700::mem::{DsRead, DsWrite, MemInst};
use baregpu_r700::program::Program;
use emu_common::*;

/// Writes `src_gpr` with `sel` (7 = masked) at DST_INDEX `index`, DST_STRIDE `stride`.
fn dsw(src_gpr: u8, sel: [u8; 4], index: u8, stride: u16, burst: u8) -> MemInst {
    MemInst::DsWrite(DsWrite {
        src_gpr,
        src_rel_mode: 0,
        src_sel: sel,
        dst_index: index,
        dst_stride: stride,
        simd_wave_rel: false,
        burst_count: burst,
    })
}

/// Reads bank `src_gpr.x`, dword `src_gpr.y + rd_offset` into `dst_gpr` (X..W enabled per `we`).
fn dsr(src_gpr: u8, rd_offset: u8, dst_gpr: u8, we: [bool; 4], burst: u8) -> MemInst {
    MemInst::DsRead(DsRead {
        src_gpr,
        src_rel_mode: 0,
        src_sel: [0, 1],
        rd_offset,
        dst_gpr,
        dst_rel_mode: 0,
        dst_write: we,
        broadcast: false,
        waterfall: false,
        mux_cntl: 0,
        burst_count: burst,
    })
}

/// Per-thread GPRs R3.. from buffer 1 (`Options::inputs`), thread t's at `(t * n + k) * 16`.
fn inputs(rows: &[Vec<[u32; 4]>]) -> Vec<u8> {
    rows.iter()
        .flatten()
        .flat_map(|v| v.iter().flat_map(|x| x.to_le_bytes()))
        .collect()
}

/// Where thread `id`'s DST_INDEX `index`, DST_STRIDE `stride` write lands: (bank, dword).
fn slot(id: u32, index: u32, stride: u32) -> [u32; 2] {
    [id & 3, (id >> 2) * stride + index]
}

/// Each thread writes (its id, 1.0, masked, R0.z) to the LDS, then reads its right
/// neighbour's entry back; a masked DST_WR channel keeps its old value.
#[test]
fn neighbour_exchange() {
    for (n, stride, index) in [(64u32, 8u32, 4u32), (13, 4, 0), (40, 64, 60)] {
        // R3 = the neighbour's (bank, offset); R4 = a marker that masked channels keep.
        let rows: Vec<Vec<[u32; 4]>> = (0..n)
            .map(|t| {
                let [b, o] = slot((t + 1) % n, index, stride);
                vec![[b, o, 0, 0], [0xAAAA, 0xBBBB, 0xCCCC, 0xDDDD]]
            })
            .collect();
        let mut inp = inputs(&rows);
        let mut opts = Options {
            inputs: Some(Inputs {
                address: emu::address(1, 0),
                first: 3,
                count: 2,
            }),
            ..Options::default()
        };
        // X = id, Y = 1.0 (SEL_1), Z masked, W = group id (0).
        let bytes = build(vec![
            C::Mem(vec![
                dsw(0, [0, 5, 7, 2], index as u8, stride as u16, 0),
                dsr(3, 0, 4, [true, true, false, true], 0),
            ]),
            export_params(4, 1),
        ]);
        let (r, out) = run_params(&bytes, n, 1, &mut opts, &mut [&mut inp]).unwrap();
        for (t, o) in out.iter().enumerate() {
            let u = (t as u32 + 1) % n;
            assert_eq!(
                o[0],
                [u, 1.0f32.to_bits(), 0xCCCC, 0],
                "n={n} thread {t} reads thread {u}"
            );
        }
        assert_eq!(r.lds_out_of_range, 0);
    }
}

/// A burst write of R0, R1 (DST_INDEX +4 per step) and a burst read back (RD_OFFSET +4,
/// DST_GPR +1): thread t gets its neighbour's R0 and R1 = (local id x, y, z, 0).
#[test]
fn burst_write_and_read() {
    let n = 16u32;
    let rows: Vec<Vec<[u32; 4]>> = (0..n)
        .map(|t| {
            let [b, o] = slot(t ^ 1, 0, 8);
            vec![[b, o, 0, 0]]
        })
        .collect();
    let mut inp = inputs(&rows);
    let mut opts = Options {
        inputs: Some(Inputs {
            address: emu::address(1, 0),
            first: 3,
            count: 1,
        }),
        ..Options::default()
    };
    let bytes = build(vec![
        C::Mem(vec![
            dsw(0, [0, 1, 2, 3], 0, 8, 1),
            dsr(3, 0, 4, [true; 4], 1),
        ]),
        export_params(4, 2),
    ]);
    let (_, out) = run_params(&bytes, n, 2, &mut opts, &mut [&mut inp]).unwrap();
    for (t, o) in out.iter().enumerate() {
        let u = t as u32 ^ 1;
        assert_eq!(o[0], [u, u, 0, 0], "thread {t}: R0 of thread {u}");
        assert_eq!(o[1], [u, 0, 0, 0], "thread {t}: R1 of thread {u}");
    }
}

/// A 256-byte LDS (16 dwords a bank): writes past a bank are dropped, reads past it give 0,
/// both counted; in-range threads still exchange.
#[test]
fn out_of_range() {
    let n = 12u32;
    let bank_len = 16u32;
    let stride = 8u32;
    let rows: Vec<Vec<[u32; 4]>> = (0..n)
        .map(|t| {
            let [b, o] = slot(t, 0, stride);
            vec![[b, o, 0, 0], [0xDEAD; 4]]
        })
        .collect();
    let mut inp = inputs(&rows);
    let mut opts = Options {
        inputs: Some(Inputs {
            address: emu::address(1, 0),
            first: 3,
            count: 2,
        }),
        lds_size: 4 * bank_len as usize * 4,
        ..Options::default()
    };
    let bytes = build(vec![
        C::Mem(vec![
            dsw(0, [0, 7, 7, 7], 0, stride as u16, 0),
            dsr(3, 0, 4, [true, false, false, false], 0),
        ]),
        export_params(4, 1),
    ]);
    let (r, out) = run_params(&bytes, n, 1, &mut opts, &mut [&mut inp]).unwrap();
    let mut want_oob = 0;
    for (t, o) in out.iter().enumerate() {
        let [_, off] = slot(t as u32, 0, stride);
        let inside = off + 4 <= bank_len;
        if !inside {
            want_oob += 1 + 4; // the dropped write's one dword, the read's four
        }
        let want = if inside { t as u32 } else { 0 };
        assert_eq!(o[0], [want, 0xDEAD, 0xDEAD, 0xDEAD], "thread {t}");
    }
    assert!(want_oob > 0);
    assert_eq!(r.lds_out_of_range, want_oob);
}

/// Modes not modelled are refused, not guessed; an LDS size that is not whole entries is a
/// launch error.
#[test]
fn refused() {
    let mut word_select = dsr(0, 0, 4, [true; 4], 0);
    if let MemInst::DsRead(d) = &mut word_select {
        d.mux_cntl = 2;
    }
    let bytes = build(vec![C::Mem(vec![word_select]), export_params(4, 1)]);
    let e = run_params(&bytes, 4, 1, &mut Options::default(), &mut []).unwrap_err();
    assert!(matches!(e, EmuError::Unsupported { .. }), "{e}");
    let bytes = build(vec![
        C::Mem(vec![dsw(0, [0, 1, 2, 3], 0, 4, 0)]),
        export_params(0, 1),
    ]);
    let mut opts = Options {
        lds_size: 100,
        ..Options::default()
    };
    let e = run_params(&bytes, 4, 1, &mut opts, &mut []).unwrap_err();
    assert!(matches!(e, EmuError::Launch(_)), "{e}");
}

/// A work-group sum across four wavefronts: each thread writes id + 1 (SIMD_WAVE_REL), then
/// eight halving steps read the partner's partial sum (LDS read clause), add it (ALU) and
/// write it back (LDS write clause). Every CF instruction has BARRIER set, so each step's
/// reads see every wavefront's previous writes; thread 0 holds the group's sum (two groups,
/// each its own LDS). With the BARRIER bits cleared the wavefronts run one after the other
/// and the first one reads partial sums the others have not written: the sum is wrong.
#[test]
fn cross_wavefront_reduction() {
    let size = 256u32;
    let mut items = vec![C::Alu(
        baregpu_r700::cf::CfAluOp::Alu,
        vec![group(vec![op2(52, (2, 0), gpr(0, 0), lit(0))], vec![1])],
    )];
    let write = MemInst::DsWrite(DsWrite {
        src_gpr: 2,
        src_rel_mode: 0,
        src_sel: [0, 7, 7, 7],
        dst_index: 0,
        dst_stride: 4,
        simd_wave_rel: true,
        burst_count: 0,
    });
    items.push(C::Mem(vec![write]));
    let mut half = size / 2;
    while half > 0 {
        // R3.z = local id + half; R3.x = its bank (& 3), R3.y = its dword (& !3: stride 4).
        items.push(C::Alu(
            baregpu_r700::cf::CfAluOp::Alu,
            vec![
                group(vec![op2(52, (3, 2), gpr(0, 1), lit(0))], vec![half]),
                group(
                    vec![
                        op2(48, (3, 0), gpr(3, 2), lit(0)),
                        op2(48, (3, 1), gpr(3, 2), lit(1)),
                    ],
                    vec![3, !3],
                ),
            ],
        ));
        items.push(C::Mem(vec![dsr(3, 0, 4, [true, false, false, false], 0)]));
        items.push(C::Alu(
            baregpu_r700::cf::CfAluOp::Alu,
            vec![group(vec![op2(52, (2, 0), gpr(2, 0), gpr(4, 0))], vec![])],
        ));
        items.push(C::Mem(vec![write]));
        half /= 2;
    }
    items.push(mem_export(2, 0, 0, true));
    let bytes = build(items);
    let mut no_barrier = Program::decode(&bytes).unwrap();
    for i in no_barrier.cf.iter_mut() {
        match i {
            CfInst::Word(w) => w.barrier = false,
            CfInst::Alu(a) => a.barrier = false,
            CfInst::Export(e) => e.barrier = false,
        }
    }
    for (prog, barrier) in [(bytes, true), (no_barrier.encode(), false)] {
        let mut out = vec![0u8; 2 * size as usize * 4];
        let opts = Options {
            mem_export_base: Some(emu::address(0, 0)),
            ..Options::default()
        };
        let r = emu::run(
            &prog,
            &mut [&mut out],
            emu::Grid {
                groups: [2, 1, 1],
                group_size: [size, 1, 1],
            },
            &opts,
        )
        .unwrap();
        assert_eq!(r.wavefronts, 8);
        let word = |t: usize| u32::from_le_bytes(out[4 * t..4 * t + 4].try_into().unwrap());
        for g in 0..2u32 {
            let want: u32 = (0..size).map(|t| g * size + t + 1).sum();
            let got = word((g * size) as usize);
            if barrier {
                assert_eq!(got, want, "group {g} sum");
            } else {
                assert_ne!(got, want, "group {g} without barriers");
            }
        }
    }
}

/// An ALU instruction with INDEX_GLOBAL and its REL bit reaching GPR `g` of the shared pool.
fn global_op(
    op: u16,
    dst: Option<(u8, u8)>,
    s0: baregpu_r700::alu::Src,
    s1: baregpu_r700::alu::Src,
    mode: u8,
) -> baregpu_r700::alu::AluInst {
    let mut i = op2(op, dst.unwrap_or((0, 0)), s0, s1);
    i.index_mode = mode;
    i.dst_rel = dst.is_some();
    i
}

/// SIMD-global GPRs: one set per lane shared by every wavefront of the dispatch. Each
/// wavefront adds its thread id into global G1 of its lane (INDEX_GLOBAL, REL bit), and into
/// G3 through INDEX_GLOBAL_AR_X with AR.x = 2 (G1 + 2); after a barrier every thread reads
/// both. Two groups of two 16-wide wavefronts run in order, so group 0 sees its own two
/// wavefronts' sums and group 1 all four. A global past `global_gprs` reads 0 and is not
/// written.
#[test]
fn simd_global_gprs() {
    let rel = |g: u16, c: u8| baregpu_r700::alu::Src {
        rel: true,
        ..gpr(g, c)
    };
    let items = vec![
        C::Alu(
            baregpu_r700::cf::CfAluOp::Alu,
            vec![
                // AR.x = 2 (MOVA_INT), then G1.x += R0.x.
                group(vec![op2(24, (127, 0), lit(0), gpr(0, 0))], vec![2, 0]),
                group(
                    vec![global_op(52, Some((1, 0)), rel(1, 0), gpr(0, 0), 5)],
                    vec![],
                ),
                // G(1 + AR.x).x += R0.x; G9.x = R0.x (past the pool: dropped).
                group(
                    vec![global_op(52, Some((1, 0)), rel(1, 0), gpr(0, 0), 6)],
                    vec![],
                ),
                group(
                    vec![global_op(25, Some((9, 0)), gpr(0, 0), gpr(0, 0), 5)],
                    vec![],
                ),
            ],
        ),
        C::Alu(
            baregpu_r700::cf::CfAluOp::Alu,
            vec![
                group(
                    vec![
                        global_op(25, None, rel(1, 0), gpr(0, 0), 5),
                        {
                            let mut i = global_op(25, None, rel(3, 0), gpr(0, 0), 5);
                            i.dst_chan = 1;
                            i
                        },
                        {
                            let mut i = global_op(25, None, rel(9, 0), gpr(0, 0), 5);
                            i.dst_chan = 2;
                            i
                        },
                    ]
                    .into_iter()
                    .map(|mut i| {
                        i.dst_gpr = 2;
                        i
                    })
                    .collect(),
                    vec![],
                ),
                // R3.x = 4 * id: MEM_EXPORT's index is in dwords.
                group(vec![op2(52, (3, 0), gpr(0, 0), gpr(0, 0))], vec![]),
                group(vec![op2(52, (3, 0), gpr(3, 0), gpr(3, 0))], vec![]),
            ],
        ),
        mem_export(2, 3, 3, true),
    ];
    let bytes = build(items);
    let (waves, lanes, groups) = (2u32, 16u32, 2u32);
    let mut out = vec![0u8; (waves * lanes * groups * 16) as usize];
    let opts = Options {
        wave_size: lanes as usize,
        global_gprs: 8,
        mem_export_base: Some(emu::address(0, 0)),
        ..Options::default()
    };
    emu::run(
        &bytes,
        &mut [&mut out],
        emu::Grid {
            groups: [groups, 1, 1],
            group_size: [waves * lanes, 1, 1],
        },
        &opts,
    )
    .unwrap();
    let word = |t: u32, c: u32| {
        let at = ((t * 4 + c) * 4) as usize;
        u32::from_le_bytes(out[at..at + 4].try_into().unwrap())
    };
    for t in 0..waves * lanes * groups {
        let (lane, group) = (t % lanes, t / (waves * lanes));
        // Wavefronts so far: group 0's two, or all four.
        let upto = (group + 1) * waves;
        let sum: u32 = (0..upto).map(|w| w * lanes + lane).sum();
        assert_eq!(
            [word(t, 0), word(t, 1), word(t, 2)],
            [sum, sum, 0],
            "thread {t}"
        );
    }
}

/// LDS REL_GLOBAL: the write takes its data from a global GPR and the read returns into
/// another global GPR, which an INDEX_GLOBAL ALU read then brings back.
#[test]
fn lds_rel_global() {
    let rel = |g: u16, c: u8| baregpu_r700::alu::Src {
        rel: true,
        ..gpr(g, c)
    };
    let mut write = dsw(0, [0, 7, 7, 7], 0, 4, 0);
    if let MemInst::DsWrite(d) = &mut write {
        d.src_rel_mode = 2;
    }
    let mut read = dsr(3, 0, 2, [true, false, false, false], 0);
    if let MemInst::DsRead(d) = &mut read {
        d.dst_rel_mode = 2;
    }
    let bytes = build(vec![
        C::Alu(
            baregpu_r700::cf::CfAluOp::Alu,
            vec![
                // G0.x = 3 * id + 1 (through R4), R3 = (id & 3, id & !3).
                group(
                    vec![
                        op2(52, (4, 0), gpr(0, 0), gpr(0, 0)),
                        op2(48, (3, 0), gpr(0, 0), lit(0)),
                        op2(48, (3, 1), gpr(0, 0), lit(1)),
                    ],
                    vec![3, !3],
                ),
                group(vec![op2(52, (4, 0), gpr(4, 0), gpr(0, 0))], vec![]),
                group(vec![op2(52, (4, 0), gpr(4, 0), lit(0))], vec![1, 0]),
                group(
                    vec![global_op(25, Some((0, 0)), gpr(4, 0), gpr(0, 0), 5)],
                    vec![],
                ),
            ],
        ),
        C::Mem(vec![write, read]),
        C::Alu(
            baregpu_r700::cf::CfAluOp::Alu,
            vec![group(
                vec![{
                    let mut i = global_op(25, None, rel(2, 0), gpr(0, 0), 5);
                    i.dst_gpr = 5;
                    i
                }],
                vec![],
            )],
        ),
        export_params(5, 1),
    ]);
    let mut opts = Options {
        global_gprs: 4,
        ..Options::default()
    };
    let (_, out) = run_params(&bytes, 16, 1, &mut opts, &mut []).unwrap();
    for t in 0..16u32 {
        assert_eq!(out[t as usize][0][0], 3 * t + 1, "thread {t}");
    }
}
