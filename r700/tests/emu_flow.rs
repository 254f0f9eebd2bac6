//! Flow control with divergent threads (if/else as Mesa r600 emits it, loops with break,
//! DX9 loops with aL, calls), the step budget, fetches and MEM_EXPORT, each against a host
//! computation.

mod emu_common;

use baregpu_r700::cf::{CfAluOp, CfExport, CfOp, ExportOp, ExportWord1};
use baregpu_r700::emu::{self, EmuError, Grid, Options, Sampler, TexResource, VtxResource};
use baregpu_r700::fetch::{TexInst, VtxInst};
use baregpu_r700::mem::{MemInst, MemRead};
use emu_common::*;

fn fb(v: f32) -> u32 {
    v.to_bits()
}

fn w(op: CfOp, addr: u32, pop: u8) -> C {
    let mut x = word(op);
    x.addr = addr;
    x.pop_count = pop;
    C::W(x)
}

fn mov_lit(dst: (u8, u8), v: u32) -> baregpu_r700::alu::AluGroup {
    group(vec![op2(25, dst, lit(0), gpr(0, 0))], vec![v, 0])
}

/// if (tid > k) R3.x = 1 else R3.x = 2, in Mesa's shape: ALU_PUSH_BEFORE + JUMP to the ELSE,
/// ELSE (POP_COUNT 1) to past the POP, POP (r600_shader.c tgsi_if/tgsi_else/tgsi_endif).
#[test]
fn divergent_if_else() {
    for k in [-1i32, 5, 100] {
        let cond = group(
            vec![pred_set(67, gpr(0, 0), lit(0), true, true)],
            vec![k as u32, 0],
        );
        let bytes = build(vec![
            C::Alu(CfAluOp::AluPushBefore, vec![cond]),     // 0
            w(CfOp::Jump, 3, 0),                            // 1
            C::Alu(CfAluOp::Alu, vec![mov_lit((3, 0), 1)]), // 2
            w(CfOp::Else, 6, 1),                            // 3
            C::Alu(CfAluOp::Alu, vec![mov_lit((3, 0), 2)]), // 4
            w(CfOp::Pop, 0, 1),                             // 5
            C::Alu(CfAluOp::Alu, vec![mov_lit((3, 1), 9)]), // 6: after the if, every thread
            export_params(3, 1),
        ]);
        let (_, out) = run_params(&bytes, 12, 1, &mut Options::default(), &mut []).unwrap();
        for (t, o) in out.iter().enumerate() {
            let want = if t as i32 > k { 1 } else { 2 };
            assert_eq!(o[0][0], want, "k={k} thread {t}");
            assert_eq!(
                o[0][1], 9,
                "k={k} thread {t}: all active again after the POP"
            );
        }
    }
}

/// A DX10 loop whose threads break at different iterations: `do { n++; if (n > tid) break; }`
/// (IF/BRK/ENDIF as Mesa emits it).
#[test]
fn divergent_loop_with_break() {
    let inc = group(vec![op2(52, (3, 0), gpr(3, 0), gpr(250, 0))], vec![]);
    let cond = group(vec![pred_set(67, gpr(3, 0), gpr(0, 0), true, true)], vec![]);
    let bytes = build(vec![
        C::Alu(CfAluOp::Alu, vec![mov_lit((3, 0), 0)]), // 0
        w(CfOp::LoopStartDx10, 8, 0),                   // 1
        C::Alu(CfAluOp::Alu, vec![inc]),                // 2
        C::Alu(CfAluOp::AluPushBefore, vec![cond]),     // 3
        w(CfOp::Jump, 7, 1),                            // 4
        w(CfOp::LoopBreak, 7, 0),                       // 5
        w(CfOp::Pop, 0, 1),                             // 6
        w(CfOp::LoopEnd, 2, 0),                         // 7
        export_params(3, 1),                            // 8
    ]);
    let (r, out) = run_params(&bytes, 20, 1, &mut Options::default(), &mut []).unwrap();
    for (t, o) in out.iter().enumerate() {
        assert_eq!(o[0][0], t as u32 + 1, "thread {t} iterations");
    }
    assert!(r.steps > 20 * 4);
}

/// ALU_BREAK: threads the clause's PRED_SET skips break out (table 3.7).
#[test]
fn alu_break_and_continue() {
    let inc = op2(52, (3, 0), gpr(3, 0), gpr(250, 0));
    // Keep going while n < tid + 1, i.e. break (skip) once PRED_SETGT_INT(tid, n) fails.
    let body = vec![
        group(vec![inc], vec![]),
        group(vec![pred_set(67, gpr(0, 0), gpr(3, 0), true, true)], vec![]),
    ];
    let bytes = build(vec![
        C::Alu(CfAluOp::Alu, vec![mov_lit((3, 0), 0)]),
        w(CfOp::LoopStartDx10, 4, 0),
        C::Alu(CfAluOp::AluBreak, body),
        w(CfOp::LoopEnd, 2, 0),
        export_params(3, 1),
    ]);
    let (_, out) = run_params(&bytes, 10, 1, &mut Options::default(), &mut []).unwrap();
    for (t, o) in out.iter().enumerate() {
        assert_eq!(o[0][0], (t as u32).max(1), "thread {t}");
    }
}

/// LOOP_START with a loop constant: trip count 5, aL from 2 step 3; the body sums c[aL].x
/// through loop-index relative addressing (INDEX_MODE 4).
#[test]
fn dx9_loop_with_loop_index() {
    let mut opts = Options::default();
    opts.loop_consts[3] = 5 | 2 << 12 | 3 << 24;
    for i in 0..256 {
        opts.cfile[i][0] = fb(i as f32);
    }
    let mut add = op2(0, (3, 0), gpr(3, 0), gpr(256, 0));
    add.src1.rel = true;
    add.index_mode = 4;
    let count = op2(0, (3, 1), gpr(3, 1), gpr(249, 0));
    let mut start = word(CfOp::LoopStart);
    start.addr = 4;
    start.cf_const = 3;
    let mut end = word(CfOp::LoopEnd);
    end.addr = 2; // the body, after LOOP_START
    end.cf_const = 3;
    let bytes = build(vec![
        C::Alu(CfAluOp::Alu, vec![mov_lit((3, 0), 0)]),
        C::W(start),
        C::Alu(CfAluOp::Alu, vec![group(vec![add, count], vec![])]),
        C::W(end),
        export_params(3, 1),
    ]);
    let (_, out) = run_params(&bytes, 3, 1, &mut opts, &mut []).unwrap();
    let want: f32 = (0..5).map(|k| (2 + 3 * k) as f32).sum();
    for o in &out {
        assert_eq!(o[0][0], fb(want), "sum of c[aL].x");
        assert_eq!(o[0][1], fb(5.0), "iterations");
    }
    // Trip count 0: the loop is skipped.
    opts.loop_consts[3] = 0;
    let (_, out) = run_params(&bytes, 1, 1, &mut opts, &mut []).unwrap();
    assert_eq!(out[0][0][1], 0);
}

#[test]
fn call_and_return() {
    let mut call = word(CfOp::Call);
    call.addr = 3;
    call.call_count = 1;
    let bytes = build(vec![
        C::W(call),                                      // 0
        C::Alu(CfAluOp::Alu, vec![mov_lit((3, 1), 7)]),  // 1: after the return
        export_params(3, 1),                             // 2
        C::Alu(CfAluOp::Alu, vec![mov_lit((3, 0), 42)]), // 3: the subroutine
        w(CfOp::Return, 0, 0),                           // 4
    ]);
    let (_, out) = run_params(&bytes, 2, 1, &mut Options::default(), &mut []).unwrap();
    assert_eq!(&out[0][0][..2], &[42, 7]);
    let bytes = build(vec![w(CfOp::Return, 0, 0), export_params(3, 1)]);
    assert_eq!(
        run_params(&bytes, 1, 1, &mut Options::default(), &mut []).unwrap_err(),
        EmuError::ReturnOutsideCall { pc: 0 }
    );
}

/// Endless programs stop at the budget with an error.
#[test]
fn endless_loop_stops_at_budget() {
    let bytes = build(vec![
        w(CfOp::LoopStartDx10, 3, 0),
        C::Alu(CfAluOp::Alu, vec![mov_lit((3, 0), 1)]),
        w(CfOp::LoopEnd, 1, 0),
        export_params(3, 1),
    ]);
    let mut opts = Options {
        budget: 10_000,
        ..Options::default()
    };
    assert_eq!(
        run_params(&bytes, 1, 1, &mut opts, &mut []).unwrap_err(),
        EmuError::Budget { steps: 10_000 }
    );
    // A JUMP to itself too.
    let mut j = word(CfOp::Jump);
    j.cond = 1; // FALSE: every thread fails, so it always jumps
    let bytes = build(vec![C::W(j), export_params(3, 1)]);
    assert!(matches!(
        run_params(&bytes, 1, 1, &mut opts, &mut []),
        Err(EmuError::Budget { .. })
    ));
}

/// out[tid] = 2*tid + 1 through MEM_EXPORT (the digest's demo, 002 lines 2697-2733).
#[test]
fn mem_export_scatter() {
    let g0 = group(vec![op2(52, (2, 0), gpr(0, 0), gpr(0, 0))], vec![]);
    let g1 = group(vec![op2(52, (2, 0), gpr(254, 0), gpr(250, 0))], vec![]);
    let mut idx = op2(52, (4, 0), gpr(0, 0), gpr(0, 0)); // INDEX_GPR: dword tid
    idx.src1.sel = 248;
    let bytes = build(vec![
        C::Alu(CfAluOp::Alu, vec![g0, g1, group(vec![idx], vec![])]),
        mem_export(2, 4, 0, true),
    ]);
    let mut out = vec![0u8; 100 * 4];
    let opts = Options {
        mem_export_base: Some(emu::address(0, 0)),
        ..Options::default()
    };
    let r = emu::run(
        &bytes,
        &mut [&mut out],
        Grid {
            groups: [2, 1, 1],
            group_size: [40, 1, 1],
        },
        &opts,
    )
    .unwrap();
    for t in 0..100u32 {
        let v = u32::from_le_bytes(out[t as usize * 4..][..4].try_into().unwrap());
        assert_eq!(v, if t < 80 { 2 * t + 1 } else { 0 }, "out[{t}]");
    }
    assert_eq!((r.wavefronts, r.threads, r.dropped_writes), (2, 80, 0));
}

fn vtx(dst: u8, fmt: u8, num: u8) -> VtxInst {
    VtxInst {
        op: 0,
        fetch_type: 0,
        fetch_whole_quad: false,
        buffer_id: 1,
        src_gpr: 0,
        src_rel: false,
        src_sel_x: 0,
        mega_fetch_count: 15,
        dst_or_semantic: dst,
        dst_sel: [0, 1, 2, 3],
        use_const_fields: false,
        data_format: fmt,
        num_format_all: num,
        format_comp_all: false,
        srf_mode_all: false,
        offset: 0,
        endian_swap: 0,
        const_buf_no_stride: false,
        mega_fetch: true,
        alt_const: false,
    }
}

fn tex(op: u8, dst: u8, src_sel: [u8; 4], normalized: bool) -> TexInst {
    TexInst {
        op,
        bc_frac_mode: false,
        fetch_whole_quad: false,
        resource_id: 2,
        src_gpr: 1,
        src_rel: false,
        alt_const: false,
        dst_gpr: dst,
        dst_rel: false,
        dst_sel: [0, 1, 2, 3],
        lod_bias: 0,
        coord_type: [normalized; 4],
        offset: [0; 3],
        sampler_id: 0,
        src_sel,
    }
}

/// Vertex fetch of per-thread coordinates, then LD and SAMPLE (point, wrap) from a linear
/// 2D texture, against the host's texel.
#[test]
fn vertex_and_texture_fetch() {
    let (w, h) = (8u32, 4u32);
    let texel = |x: u32, y: u32| [x, y, x * 10 + y, 7];
    let mut texture = vec![0u8; 256 + (w * h * 16) as usize];
    for y in 0..h {
        for x in 0..w {
            for (c, v) in texel(x, y).iter().enumerate() {
                let at = 256 + ((y * w + x) * 16) as usize + c * 4;
                texture[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
    }
    let threads = 32u32;
    // Per thread: integer coords, and normalized ones one period away (wrap brings them back).
    let mut coords = Vec::new();
    for t in 0..threads {
        let (x, y) = (t % w, t / w);
        for v in [x, y, fb((x as f32 + 8.5) / 8.0), fb((y as f32 - 3.5) / 4.0)] {
            coords.extend_from_slice(&v.to_le_bytes());
        }
    }
    let mut opts = Options {
        vtx_resources: vec![(
            1,
            VtxResource::buffer(emu::address(1, 0), coords.len() as u32, 16, 34, 1),
        )],
        ..Options::default()
    };
    opts.tex_resources = vec![(
        2,
        TexResource::linear(1, emu::address(2, 256), [w, h], w, 34, 1, false),
    )];
    opts.samplers = vec![(0, Sampler::point(0))];
    let bytes = build(vec![
        C::Vtx(vec![vtx(1, 34, 1)]),
        C::Tex(vec![
            tex(3, 5, [0, 1, 4, 4], false),
            tex(16, 6, [2, 3, 4, 4], true),
        ]),
        export_params(5, 2),
    ]);
    let (_, out) = run_params(
        &bytes,
        threads,
        2,
        &mut opts,
        &mut [&mut coords, &mut texture],
    )
    .unwrap();
    for (t, o) in out.iter().enumerate() {
        let (x, y) = (t as u32 % w, t as u32 / w);
        assert_eq!(o[0], texel(x, y), "LD thread {t}");
        let wy = (y + h - 4) % h; // (y - 3.5) / 4 normalised: texel y - 4 wrapped
        assert_eq!(o[1], texel(x, (wy + 4) % h), "SAMPLE thread {t}");
    }
    // An unbound resource is an error naming it, not a panic.
    opts.tex_resources.clear();
    let e = run_params(&bytes, 1, 2, &mut opts, &mut [&mut coords, &mut texture]).unwrap_err();
    assert!(matches!(e, EmuError::Resource { .. }), "{e}");
}

/// UPDATE_PRED without UPDATE_EXEC_MASK predicates later groups only; the active mask is
/// unchanged after the clause.
#[test]
fn predicate_is_clause_local() {
    let set = pred_set(67, gpr(0, 0), lit(0), true, false);
    let mut then = op2(25, (3, 0), gpr(249, 0), gpr(0, 0));
    then.pred_sel = 3;
    let bytes = build(vec![
        C::Alu(
            CfAluOp::Alu,
            vec![group(vec![set], vec![1, 0]), group(vec![then], vec![])],
        ),
        C::Alu(CfAluOp::Alu, vec![mov_lit((3, 1), 5)]),
        export_params(3, 1),
    ]);
    let (_, out) = run_params(&bytes, 4, 1, &mut Options::default(), &mut []).unwrap();
    for (t, o) in out.iter().enumerate() {
        assert_eq!(o[0][0], if t > 1 { fb(1.0) } else { 0 });
        assert_eq!(o[0][1], 5);
    }
}

/// PUSH with COND = BOOL: a false boolean makes every thread fail, so PUSH jumps (popping
/// POP_COUNT) and the block is skipped; a true one enters it.
#[test]
fn push_with_boolean_condition() {
    let mut push = word(CfOp::Push);
    push.addr = 3;
    push.cond = 2;
    push.cf_const = 2;
    let bytes = build(vec![
        C::W(push),
        C::Alu(CfAluOp::Alu, vec![mov_lit((3, 0), 5)]),
        w(CfOp::Pop, 0, 1),
        C::Alu(CfAluOp::Alu, vec![mov_lit((3, 1), 6)]),
        export_params(3, 1),
    ]);
    for b in [0u32, 1] {
        let mut opts = Options {
            bool_consts: b << 2,
            ..Options::default()
        };
        let (_, out) = run_params(&bytes, 3, 1, &mut opts, &mut []).unwrap();
        for o in &out {
            assert_eq!(&o[0][..2], &[if b == 1 { 5 } else { 0 }, 6], "bool {b}");
        }
    }
}

/// Nested ifs closed by ALU_POP2_AFTER: `if (tid > 2) { if (tid > 5) R3.x = 1; }`.
#[test]
fn nested_ifs_closed_by_pop2_after() {
    let gt = |k: u32| {
        group(
            vec![pred_set(67, gpr(0, 0), lit(0), true, true)],
            vec![k, 0],
        )
    };
    let bytes = build(vec![
        C::Alu(CfAluOp::AluPushBefore, vec![gt(2)]),
        w(CfOp::Jump, 5, 1),
        C::Alu(CfAluOp::AluPushBefore, vec![gt(5)]),
        w(CfOp::Jump, 5, 2),
        C::Alu(CfAluOp::AluPop2After, vec![mov_lit((3, 0), 1)]),
        C::Alu(CfAluOp::Alu, vec![mov_lit((3, 1), 2)]),
        export_params(3, 1),
    ]);
    for threads in [2u32, 5, 9] {
        let (_, out) = run_params(&bytes, threads, 1, &mut Options::default(), &mut []).unwrap();
        for (t, o) in out.iter().enumerate() {
            assert_eq!(
                &o[0][..2],
                &[(t > 5) as u32, 2],
                "{threads} threads, thread {t}"
            );
        }
    }
}

/// ALU_CONTINUE and ALU_BREAK in one loop, against the host's loop:
/// `loop { i++; if (tid == i) continue; n++; if (i >= 4) break; }`.
#[test]
fn alu_continue_in_a_loop() {
    let step = vec![
        group(vec![op2(52, (4, 0), gpr(4, 0), gpr(250, 0))], vec![]),
        group(vec![pred_set(69, gpr(0, 0), gpr(4, 0), true, true)], vec![]),
    ];
    let count = vec![
        group(vec![op2(52, (3, 0), gpr(3, 0), gpr(250, 0))], vec![]),
        // Keep looping while 4 > i; the threads this skips break.
        group(
            vec![pred_set(67, lit(0), gpr(4, 0), true, true)],
            vec![4, 0],
        ),
    ];
    let bytes = build(vec![
        w(CfOp::LoopStartDx10, 4, 0),
        C::Alu(CfAluOp::AluContinue, step),
        C::Alu(CfAluOp::AluBreak, count),
        w(CfOp::LoopEnd, 1, 0),
        export_params(3, 2),
    ]);
    let (_, out) = run_params(&bytes, 8, 2, &mut Options::default(), &mut []).unwrap();
    for (t, o) in out.iter().enumerate() {
        let (mut i, mut n) = (0u32, 0u32);
        loop {
            i += 1;
            if t as u32 == i {
                continue;
            }
            n += 1;
            if i >= 4 {
                break;
            }
        }
        assert_eq!((o[0][0], o[1][0]), (n, i), "thread {t}: n and i");
    }
}

/// ALU KILL clears the valid bit at the end of the clause; killed threads stay active
/// until a POP with VALID_PIXEL_MODE removes them (002 lines 997-1016).
#[test]
fn kill_then_valid_pixel_mode() {
    let kill = group(vec![op2(71, (3, 3), gpr(0, 0), lit(0))], vec![3, 0]);
    let mut pop = word(CfOp::Pop);
    pop.valid_pixel_mode = true;
    let bytes = build(vec![
        C::Alu(CfAluOp::Alu, vec![kill]),
        C::Alu(CfAluOp::Alu, vec![mov_lit((3, 1), 1)]),
        C::W(pop),
        C::Alu(CfAluOp::Alu, vec![mov_lit((3, 2), 2)]),
        export_params(3, 1),
    ]);
    let (r, out) = run_params(&bytes, 8, 1, &mut Options::default(), &mut []).unwrap();
    assert_eq!(r.killed, 4);
    for (t, o) in out.iter().enumerate() {
        if t <= 3 {
            assert_eq!(&o[0][..3], &[0, 1, 2], "thread {t}");
        } else {
            assert_eq!(
                o[0], [0; 4],
                "thread {t}: inactive after the VPM pop, no export"
            );
        }
    }
}

/// More nesting than STACK_SIZE allows is an error, not a panic.
#[test]
fn stack_overflow_is_an_error() {
    let mut items: Vec<C> = (0..6).map(|_| w(CfOp::Push, 7, 0)).collect();
    items.push(export_params(3, 1));
    let bytes = build(items);
    let mut opts = Options {
        stack_size: 1,
        ..Options::default()
    };
    // 64-wide: four subentries per entry, so the fifth PUSH overflows.
    assert_eq!(
        run_params(&bytes, 4, 1, &mut opts, &mut []).unwrap_err(),
        EmuError::StackOverflow { pc: 4 }
    );
}

/// EXPORT's swizzle: components, 0.0, 1.0 and masked (memory left alone).
#[test]
fn export_swizzle_and_mask() {
    let mut e = match export_params(3, 1) {
        C::E(e) => e,
        _ => unreachable!(),
    };
    e.kind = 0;
    e.word1 = baregpu_r700::cf::ExportWord1::Swiz { sel: [2, 4, 5, 7] };
    let bytes = build(vec![
        C::Alu(
            CfAluOp::Alu,
            vec![group(
                vec![op2(25, (3, 2), lit(0), gpr(0, 0))],
                vec![0x1234, 0],
            )],
        ),
        C::E(e),
    ]);
    let mut out = vec![0xAAu8; 2 * 64 * 16];
    let opts = Options {
        export_base: [Some(emu::address(0, 0)), None, None],
        ..Options::default()
    };
    emu::run(
        &bytes,
        &mut [&mut out],
        Grid {
            groups: [1, 1, 1],
            group_size: [2, 1, 1],
        },
        &opts,
    )
    .unwrap();
    for t in 0..2 {
        let at = t * 64 * 16;
        let d: Vec<u32> = out[at..at + 16]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(d, [0x1234, 0, fb(1.0), 0xAAAA_AAAA], "thread {t}");
    }
}

/// Bilinear SAMPLE on a 2D float texture with clamp-to-edge, against the host's blend of
/// the four texels around (u*w - 0.5, v*h - 0.5).
#[test]
fn bilinear_sample() {
    let (w, h) = (4u32, 3u32);
    let value = |x: i64, y: i64| {
        let (x, y) = (x.clamp(0, w as i64 - 1), y.clamp(0, h as i64 - 1));
        (x * 10 + y * 100) as f32
    };
    let mut texture = vec![0u8; (w * h * 4) as usize];
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            let at = ((y * w as i64 + x) * 4) as usize;
            texture[at..at + 4].copy_from_slice(&value(x, y).to_bits().to_le_bytes());
        }
    }
    let pts: Vec<(f32, f32)> = (0..24)
        .map(|i| ((i as f32 * 0.37) % 1.2 - 0.1, (i as f32 * 0.23) % 1.1))
        .collect();
    let mut coords = Vec::new();
    for &(u, v) in &pts {
        for x in [u.to_bits(), v.to_bits(), 0, 0] {
            coords.extend_from_slice(&x.to_le_bytes());
        }
    }
    let mut opts = Options {
        vtx_resources: vec![(
            1,
            VtxResource::buffer(emu::address(1, 0), coords.len() as u32, 16, 34, 1),
        )],
        tex_resources: vec![(
            2,
            // Pitch 8 texels (the minimum): rows 32 bytes apart.
            TexResource::linear(1, emu::address(2, 0), [w, h], 8, 14, 0, false),
        )],
        samplers: vec![(0, Sampler::bilinear(2))],
        ..Options::default()
    };
    let mut padded = vec![0u8; (8 * h * 4) as usize];
    for y in 0..h as usize {
        padded[y * 32..y * 32 + 16].copy_from_slice(&texture[y * 16..y * 16 + 16]);
    }
    let bytes = build(vec![
        C::Vtx(vec![vtx(1, 34, 1)]),
        C::Tex(vec![tex(16, 6, [0, 1, 4, 4], true)]),
        export_params(6, 1),
    ]);
    let (_, out) = run_params(
        &bytes,
        pts.len() as u32,
        1,
        &mut opts,
        &mut [&mut coords, &mut padded],
    )
    .unwrap();
    for (t, &(u, v)) in pts.iter().enumerate() {
        let (fu, fv) = (u * w as f32 - 0.5, v * h as f32 - 0.5);
        let (x0, y0) = (fu.floor(), fv.floor());
        let (a, b) = (fu - x0, fv - y0);
        let (x0, y0) = (x0 as i64, y0 as i64);
        let top = value(x0, y0) + (value(x0 + 1, y0) - value(x0, y0)) * a;
        let bottom = value(x0, y0 + 1) + (value(x0 + 1, y0 + 1) - value(x0, y0 + 1)) * a;
        let want = top + (bottom - top) * b;
        let got = f32::from_bits(out[t][0][0]);
        assert!((got - want).abs() <= 1e-3, "({u}, {v}): {got}, want {want}");
    }
}

/// Any coordinate bits (infinities, NaNs, huge integers) with every clamp mode and filter
/// give a value or a named error, never a panic.
#[test]
fn texture_fetch_takes_any_coordinates() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 16) as u32
    };
    let specials = [
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7F7F_FFFF,
        0x8000_0000,
        i32::MIN as u32,
        i32::MAX as u32,
    ];
    let mut coords = Vec::new();
    for i in 0..64 * 4 {
        let v = if i % 3 == 0 {
            specials[(next() % 7) as usize]
        } else {
            next()
        };
        coords.extend_from_slice(&v.to_le_bytes());
    }
    let mut texture = vec![0x3Fu8; 256 * 16];
    let bytes = build(vec![
        C::Vtx(vec![vtx(1, 34, 1)]),
        C::Tex(vec![
            tex(3, 5, [0, 1, 2, 3], false),
            tex(16, 6, [0, 1, 2, 3], true),
            tex(16, 7, [2, 3, 0, 1], false),
        ]),
        export_params(5, 3),
    ]);
    let mut errors = 0;
    for mode in 0..8u8 {
        for sampler in [Sampler::point(mode), Sampler::bilinear(mode)] {
            let mut opts = Options {
                vtx_resources: vec![(
                    1,
                    VtxResource::buffer(emu::address(1, 0), coords.len() as u32, 16, 34, 1),
                )],
                tex_resources: vec![(
                    2,
                    TexResource::linear(1, emu::address(2, 0), [16, 16], 16, 35, 0, false),
                )],
                samplers: vec![(0, sampler)],
                ..Options::default()
            };
            match run_params(&bytes, 64, 3, &mut opts, &mut [&mut coords, &mut texture]) {
                Ok(_) => {}
                Err(EmuError::Resource { why, .. }) => {
                    assert!(why.contains("not emulated"), "{why}");
                    errors += 1;
                }
                Err(e) => panic!("{e}"),
            }
        }
    }
    // Half-border and mirror-once-border clamps (4, 5, 7) are not emulated.
    assert_eq!(errors, 6);
}

/// MEM_STREAM0 (and the other buffer writes): each thread owns an item of
/// (ARRAY_BASE + ARRAY_SIZE) * (ELEM_SIZE + 1) dwords; COMP_MASK picks components; a burst
/// steps the GPR and the element; writes past ARRAY_SIZE are dropped (002 lines 902-910).
#[test]
fn mem_stream_items() {
    let mut e = match mem_export(3, 0, 1, true) {
        C::E(e) => e,
        _ => unreachable!(),
    };
    e.op = baregpu_r700::cf::ExportOp::MemStream0;
    e.kind = 0; // WRITE
    e.array_base = 1;
    e.burst_count = 2; // three elements, the third past ARRAY_SIZE 2
    e.word1 = baregpu_r700::cf::ExportWord1::Buf {
        array_size: 2,
        comp_mask: 0b11,
    };
    // R3 = tid + (100, 300), R4 = tid + (200, 400): two groups (one X, one Y each).
    let g = |c: u8| {
        group(
            vec![
                op2(52, (3 + c, 0), gpr(0, 0), lit(0)),
                op2(52, (3 + c, 1), gpr(0, 0), lit(1)),
            ],
            vec![100 * (c as u32 + 1), 100 * (c as u32 + 3)],
        )
    };
    let bytes = build(vec![C::Alu(CfAluOp::Alu, vec![g(0), g(1)]), C::E(e)]);
    let mut out = vec![0u8; 4 * 6 * 4];
    let opts = Options {
        stream_base: [Some(emu::address(0, 0)), None, None, None],
        ..Options::default()
    };
    let r = emu::run(
        &bytes,
        &mut [&mut out],
        Grid {
            groups: [1, 1, 1],
            group_size: [4, 1, 1],
        },
        &opts,
    )
    .unwrap();
    let d: Vec<u32> = out
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for t in 0..4u32 {
        // Item of (1 + 2) * 2 = 6 dwords; element 0 at dword 2 (ARRAY_BASE 1), element 1 at 4.
        let item = &d[t as usize * 6..t as usize * 6 + 6];
        assert_eq!(
            item,
            [0, 0, t + 100, t + 300, t + 200, t + 400],
            "thread {t}"
        );
    }
    assert_eq!(r.dropped_writes, 4 * 2, "the third element of each thread");
}

/// if/else with PUSH_ELSE: push the then-mask, invert against the enclosing push; a POP
/// for each push, whichever path runs.
#[test]
fn if_else_with_push_else() {
    for k in [-1i32, 3, 100] {
        let cond = group(
            vec![pred_set(67, gpr(0, 0), lit(0), true, true)],
            vec![k as u32, 0],
        );
        let bytes = build(vec![
            C::Alu(CfAluOp::AluPushBefore, vec![cond]),     // 0
            w(CfOp::Jump, 3, 0),                            // 1
            C::Alu(CfAluOp::Alu, vec![mov_lit((3, 0), 1)]), // 2
            w(CfOp::PushElse, 5, 0),                        // 3
            C::Alu(CfAluOp::Alu, vec![mov_lit((3, 0), 2)]), // 4
            w(CfOp::Pop, 0, 1),                             // 5
            w(CfOp::Pop, 0, 1),                             // 6
            C::Alu(CfAluOp::Alu, vec![mov_lit((3, 1), 9)]), // 7
            export_params(3, 1),
        ]);
        let (_, out) = run_params(&bytes, 8, 1, &mut Options::default(), &mut []).unwrap();
        for (t, o) in out.iter().enumerate() {
            let want = if t as i32 > k { 1 } else { 2 };
            assert_eq!(&o[0][..2], &[want, 9], "k={k} thread {t}");
        }
    }
}

/// ALU_ELSE_AFTER closes the then-part: the clause runs, then the threads active at the
/// push that did not take the then-part become active.
#[test]
fn alu_else_after() {
    for k in [-1i32, 4, 100] {
        let cond = group(
            vec![pred_set(67, gpr(0, 0), lit(0), true, true)],
            vec![k as u32, 0],
        );
        let bytes = build(vec![
            C::Alu(CfAluOp::AluPushBefore, vec![cond]),
            C::Alu(CfAluOp::AluElseAfter, vec![mov_lit((3, 0), 1)]),
            C::Alu(CfAluOp::Alu, vec![mov_lit((3, 0), 2)]),
            w(CfOp::Pop, 0, 1),
            C::Alu(CfAluOp::Alu, vec![mov_lit((3, 1), 9)]),
            export_params(3, 1),
        ]);
        let (_, out) = run_params(&bytes, 8, 1, &mut Options::default(), &mut []).unwrap();
        for (t, o) in out.iter().enumerate() {
            let want = if t as i32 > k { 1 } else { 2 };
            assert_eq!(&o[0][..2], &[want, 9], "k={k} thread {t}");
        }
    }
}

/// GET_GRADIENTS_H/V differences across each quad, and SAMPLE_C's depth compare, against
/// host computations.
#[test]
fn gradients_and_depth_compare() {
    let n = 16u32;
    let val = |t: u32| [t as f32 * 1.5, (t * t) as f32, 0.25, -(t as f32)];
    let mut data = Vec::new();
    for t in 0..n {
        data.extend(val(t).iter().flat_map(|f| f.to_le_bytes()));
    }
    // A 4x1 float texture; SAMPLE_C compares src.W (the reference) with texel.x, LESS.
    let texels = [0.1f32, 0.5, 0.9, 2.0];
    let mut texture = vec![0u8; 8 * 4];
    for (i, v) in texels.iter().enumerate() {
        texture[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
    }
    let mut less = Sampler::point(2);
    less.0[0] |= 1 << 26;
    let mut opts = Options {
        vtx_resources: vec![(
            1,
            VtxResource::buffer(emu::address(1, 0), data.len() as u32, 16, 35, 0),
        )],
        tex_resources: vec![(
            2,
            TexResource::linear(0, emu::address(2, 0), [4, 1], 8, 14, 0, false),
        )],
        samplers: vec![(0, less)],
        ..Options::default()
    };
    // R1 = val(t); R7 = (t mod 4 + 0.5, 0, 0, R1.y * 0.01).
    let a = group(
        vec![
            op2(48, (8, 0), gpr(0, 0), lit(0)),
            op2(2, (7, 3), gpr(1, 1), lit(1)),
        ],
        vec![3, fb(0.01)],
    );
    let xf = group(vec![op2(108, (8, 0), gpr(8, 0), gpr(0, 0))], vec![]);
    let half = group(vec![op2(0, (7, 0), gpr(8, 0), gpr(252, 0))], vec![]);
    let mut h = tex(7, 5, [0, 1, 2, 3], false);
    h.src_gpr = 1;
    let mut v = tex(8, 6, [0, 1, 2, 3], false);
    v.src_gpr = 1;
    let mut c = tex(24, 9, [0, 1, 2, 3], false);
    c.src_gpr = 7;
    let bytes = build(vec![
        C::Vtx(vec![vtx(1, 35, 0)]),
        C::Alu(CfAluOp::Alu, vec![a, xf, half]),
        C::Tex(vec![h, v, c]),
        export_params(5, 5),
    ]);
    let (_, out) = run_params(&bytes, n, 5, &mut opts, &mut [&mut data, &mut texture]).unwrap();
    for t in 0..n as usize {
        let d = |a: usize, b: usize| -> [u32; 4] {
            core::array::from_fn(|k| fb(val(a as u32)[k] - val(b as u32)[k]))
        };
        assert_eq!(out[t][0], d(t | 1, t & !1), "thread {t}: d/dx");
        assert_eq!(out[t][1], d(t | 2, t & !2), "thread {t}: d/dy");
        let reference = (t * t) as f32 * 0.01;
        let want = if reference < texels[t % 4] { 1.0 } else { 0.0 };
        assert_eq!(out[t][4], [fb(want); 4], "thread {t}: SAMPLE_C");
    }
}

/// VTX_SEMANTIC writes the GPR the semantic table gives for its SEMANTIC_ID; FETCH_TYPE adds
/// SQ_VTX_BASE_VTX_LOC (vertex data), SQ_VTX_START_INST_LOC (instance data) or nothing to
/// the index; an ID missing from the table is an error naming it.
#[test]
fn semantic_fetch_and_index_offsets() {
    let entries = 200u32;
    let mut buf: Vec<u8> = (0..entries)
        .flat_map(|i| (0..4u32).map(move |c| i * 10 + c))
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let mut sem = vtx(0, 34, 1);
    sem.op = 1;
    sem.dst_or_semantic = 42;
    let mut vertex = vtx(8, 34, 1);
    vertex.fetch_type = 0;
    let mut instance = vtx(9, 34, 1);
    instance.fetch_type = 1;
    let mut none = vtx(10, 34, 1);
    none.fetch_type = 2;
    let bytes = build(vec![
        C::Vtx(vec![sem, vertex, instance, none]),
        export_params(7, 4),
    ]);
    let mut opts = Options {
        vtx_resources: vec![(
            1,
            VtxResource::buffer(emu::address(1, 0), buf.len() as u32, 16, 34, 1),
        )],
        semantic_table: vec![(3, 20), (42, 7)],
        base_vertex: 5,
        start_instance: 100,
        ..Options::default()
    };
    let n = 16u32;
    let (_, out) = run_params(&bytes, n, 4, &mut opts, &mut [&mut buf]).unwrap();
    let row = |i: u32| [i * 10, i * 10 + 1, i * 10 + 2, i * 10 + 3];
    for t in 0..n {
        let o = &out[t as usize];
        assert_eq!(
            o[0],
            row(t + 5),
            "semantic 42 -> R7, vertex data (base vertex 5)"
        );
        assert_eq!(o[1], row(t + 5), "FETCH_TYPE vertex data");
        assert_eq!(o[2], row(t + 100), "FETCH_TYPE instance data");
        assert_eq!(o[3], row(t), "FETCH_TYPE no index offset");
    }
    opts.semantic_table = vec![(3, 20)];
    let e = run_params(&bytes, n, 4, &mut opts, &mut [&mut buf]).unwrap_err();
    assert!(format!("{e}").contains("semantic ID 42"), "{e}");
}

/// EMIT_VERTEX, CUT_VERTEX and EMIT_CUT_VERTEX append 1, 2, 3 to each passing thread's GS
/// event list (the launch's `gs_events`); odd threads alone take the CUT inside an if.
#[test]
fn gs_emit_and_cut_events() {
    // The AND and the compare must be in separate groups (the compare reads R5.x).
    let and = group(vec![op2(48, (5, 0), gpr(0, 0), lit(0))], vec![1, 0]);
    let cmp = group(
        vec![pred_set(69, gpr(5, 0), lit(0), true, true)],
        vec![0, 0],
    );
    let mut eop = word(CfOp::Nop);
    eop.end_of_program = true;
    let bytes = build(vec![
        w(CfOp::EmitVertex, 0, 0),
        w(CfOp::EmitVertex, 0, 0),
        C::Alu(CfAluOp::AluPushBefore, vec![and, cmp]),
        w(CfOp::CutVertex, 0, 0),
        w(CfOp::Pop, 0, 1),
        w(CfOp::EmitCutVertex, 0, 0),
        C::W(eop),
    ]);
    let n = 10u32;
    let stride = (emu::GS_EVENTS as usize + 1) * 4;
    let mut events = vec![0u8; n as usize * stride];
    let opts = Options {
        gs_events: Some(emu::address(0, 0)),
        ..Options::default()
    };
    let r = emu::run(
        &bytes,
        &mut [&mut events],
        Grid {
            groups: [1, 1, 1],
            group_size: [n, 1, 1],
        },
        &opts,
    )
    .unwrap();
    assert_eq!(r.dropped_writes, 0);
    let word = |t: usize, k: usize| {
        let at = t * stride + 4 * k;
        u32::from_le_bytes(events[at..at + 4].try_into().unwrap())
    };
    for t in 0..n as usize {
        let want: Vec<u32> = if t % 2 == 1 {
            vec![1, 1, 2, 3]
        } else {
            vec![1, 1, 3]
        };
        let got: Vec<u32> = (0..word(t, 0) as usize).map(|k| word(t, 1 + k)).collect();
        assert_eq!(got, want, "thread {t}");
    }
    // Without a list the events are dropped and counted.
    let r = emu::run(
        &bytes,
        &mut [&mut events],
        Grid {
            groups: [1, 1, 1],
            group_size: [n, 1, 1],
        },
        &Options::default(),
    )
    .unwrap();
    assert_eq!(r.dropped_writes, 3 * n as u64 + n as u64 / 2);
}

fn mem_rd(
    mem_op: u8,
    src_gpr: u8,
    dst_gpr: u8,
    array_base: u16,
    array_size: u16,
    indexed: bool,
) -> MemInst {
    MemInst::Read(MemRead {
        elem_size: 3,
        fetch_whole_quad: false,
        mem_op,
        uncached: true,
        indexed,
        src_gpr,
        src_rel: false,
        src_sel_x: 0,
        burst_count: 0,
        dst_gpr,
        dst_rel: false,
        dst_sel: [0, 1, 2, 3],
        data_format: 34,
        num_format_all: 1,
        format_comp_all: false,
        srf_mode_all: false,
        array_base,
        endian_swap: 0,
        mega_fetch: true,
        array_size,
    })
}

fn scratch(kind: u8, gpr: u8, index: u8, array_base: u16, array_size: u16, eop: bool) -> C {
    C::E(CfExport {
        array_base,
        kind,
        rw_gpr: gpr,
        rw_rel: false,
        index_gpr: index,
        elem_size: 3,
        word1: ExportWord1::Buf {
            array_size,
            comp_mask: 0xF,
        },
        burst_count: 0,
        end_of_program: eop,
        valid_pixel_mode: false,
        op: ExportOp::MemScratch,
        whole_quad_mode: false,
        barrier: true,
    })
}

/// Mesa's spill pattern on a scratch item: MEM_SCRATCH WRITE / WRITE_IND, read back by MEM_RD
/// RD_SCRATCH (direct, and indexed with the index clamped to ARRAY_SIZE - 1) and by a CF
/// READ; a scatter MEM_RD reads another thread's MEM_EXPORT dwords; reduction reads are
/// refused by name.
#[test]
fn memory_reads_return_what_was_written() {
    let n = 8u32;
    // R2 = (t, t + 100, t * 3, 7); R3.x = 2 (the index); R4.x = 9 (clamped to 3 - 1 = 2)
    // for scratch, R4.x = the next thread's scatter dword address for the scatter read.
    let items = vec![
        C::Alu(
            CfAluOp::Alu,
            vec![
                group(
                    vec![
                        op2(25, (2, 0), gpr(0, 0), gpr(0, 0)),
                        op2(52, (2, 1), gpr(0, 0), lit(0)),
                        op2(52, (2, 2), gpr(0, 0), gpr(0, 0)),
                        op2(25, (2, 3), lit(1), gpr(0, 0)),
                    ],
                    vec![100, 7],
                ),
                group(
                    vec![
                        op2(52, (2, 2), gpr(2, 2), gpr(0, 0)),
                        op2(25, (3, 0), lit(0), gpr(0, 0)),
                        op2(25, (4, 0), lit(1), gpr(0, 0)),
                    ],
                    vec![2, 9],
                ),
            ],
        ),
        scratch(0, 2, 0, 5, 0, false),
        scratch(1, 2, 3, 10, 3, false),
        C::MemRd(vec![
            mem_rd(0, 3, 5, 5, 0, false),
            mem_rd(0, 3, 6, 10, 3, true),
            mem_rd(0, 4, 7, 10, 3, true),
        ]),
        scratch(2, 8, 0, 5, 0, false),
        export_params(5, 4),
    ];
    let bytes = build(items);
    let mut scratch_buf = vec![0u8; (n * 64 * 4) as usize];
    let mut opts = Options {
        scratch_base: Some(emu::address(1, 0)),
        scratch_item: Some(64),
        ..Options::default()
    };
    let (_, out) = run_params(&bytes, n, 4, &mut opts, &mut [&mut scratch_buf]).unwrap();
    for t in 0..n {
        let want = [t, t + 100, t * 3, 7];
        let o = &out[t as usize];
        assert_eq!(o[0], want, "thread {t}: MEM_RD of the direct write");
        assert_eq!(o[1], want, "thread {t}: MEM_RD indexed");
        assert_eq!(
            o[2], want,
            "thread {t}: index 9 clamped to ARRAY_SIZE - 1 = 2"
        );
        assert_eq!(o[3], want, "thread {t}: CF READ of the direct write");
    }
    // The host's view of thread 3's item: element 5 and element 10 + 2.
    let word = |t: usize, e: usize, c: usize| {
        let at = (t * 64 + e * 4 + c) * 4;
        u32::from_le_bytes(scratch_buf[at..at + 4].try_into().unwrap())
    };
    assert_eq!([word(3, 5, 0), word(3, 12, 1)], [3, 103]);

    // Scatter: MEM_EXPORT writes R2 at dword 4t, MEM_RD scatter reads dword 4 * (t + 1).
    let bytes = build(vec![
        C::Alu(
            CfAluOp::Alu,
            vec![
                group(
                    vec![
                        op2(25, (2, 0), gpr(0, 0), gpr(0, 0)),
                        op2(52, (2, 1), gpr(0, 0), lit(0)),
                        op2(25, (2, 2), gpr(0, 3), gpr(0, 0)),
                        op2(25, (2, 3), gpr(0, 3), gpr(0, 0)),
                    ],
                    vec![50, 0],
                ),
                group(
                    vec![
                        op2(52, (3, 0), gpr(0, 0), gpr(0, 0)),
                        op2(52, (4, 0), gpr(0, 0), lit(0)),
                    ],
                    vec![1, 0],
                ),
                group(
                    vec![
                        op2(52, (3, 0), gpr(3, 0), gpr(3, 0)),
                        op2(52, (4, 0), gpr(4, 0), gpr(4, 0)),
                    ],
                    vec![],
                ),
                group(vec![op2(52, (4, 0), gpr(4, 0), gpr(4, 0))], vec![]),
            ],
        ),
        mem_export(2, 3, 3, false),
        C::MemRd(vec![mem_rd(2, 4, 5, 0, 0, false)]),
        export_params(5, 1),
    ]);
    let mut buf = vec![0u8; 4096];
    let mut opts = Options {
        mem_export_base: Some(emu::address(1, 0)),
        ..Options::default()
    };
    let (_, out) = run_params(&bytes, n, 1, &mut opts, &mut [&mut buf]).unwrap();
    for t in 0..n {
        let next = t + 1;
        let want = if next < n {
            [next, next + 50, 0, 0]
        } else {
            [0; 4]
        };
        assert_eq!(
            out[t as usize][0], want,
            "thread {t}: scatter read of thread {next}"
        );
    }
    let bytes = build(vec![
        C::MemRd(vec![mem_rd(1, 0, 5, 0, 0, false)]),
        export_params(5, 1),
    ]);
    let e = run_params(&bytes, n, 1, &mut opts, &mut [&mut buf]).unwrap_err();
    assert!(format!("{e}").contains("reduction"), "{e}");
}
