//! Instruction words as Mesa's Gen4-Gen7.5 emitter writes them, per
//! generation: each entry names the elk_eu_emit.c function (Mesa
//! src/intel/compiler/elk/, brw_eu_emit.c before the split) it follows.

use super::emit::*;
use baregpu_isa::IsaGen;

/// Opcode numbers, Gen4-Gen7.5 (elk_eu_opcodes / brw_eu.c opcode_descs).
mod op {
    pub const MOV: u32 = 1;
    pub const SEL: u32 = 2;
    pub const CMP: u32 = 16;
    pub const JMPI: u32 = 32;
    pub const IF: u32 = 34;
    pub const IFF: u32 = 35;
    pub const ELSE: u32 = 36;
    pub const ENDIF: u32 = 37;
    pub const DO: u32 = 38;
    pub const WHILE: u32 = 39;
    pub const BREAK: u32 = 40;
    pub const CONT: u32 = 41;
    pub const HALT: u32 = 42;
    pub const WAIT: u32 = 48;
    pub const SEND: u32 = 49;
    pub const SENDC: u32 = 50;
    pub const MATH: u32 = 56;
    pub const ADD: u32 = 64;
    pub const MUL: u32 = 65;
    pub const MACH: u32 = 73;
    pub const DP4: u32 = 84;
    pub const MAD: u32 = 91;
    pub const LRP: u32 = 92;
    pub const NOP: u32 = 126;
}

/// ExecSize codes.
const E1: u32 = 0;
const E8: u32 = 3;
const E16: u32 = 4;

/// PredCtrl normal; ThreadCtrl switch (ELK_PREDICATE_NORMAL, ELK_THREAD_SWITCH).
const PRED_NORMAL: u32 = 1;
const THREAD_SWITCH: u32 = 2;

/// One corpus entry.
pub struct Form {
    pub what: &'static str,
    pub word: u128,
}

fn ver(p: IsaGen) -> u32 {
    match p {
        IsaGen::Gen4 | IsaGen::G45 => 4,
        IsaGen::Gen6 => 6,
        _ => 7,
    }
}

/// elk_jump_scale: jump counts in instructions on Gen4, in 64-bit units
/// from Gen5 on (G45 is Gen4).
fn br(p: IsaGen) -> i32 {
    if ver(p) < 5 { 1 } else { 2 }
}

fn signed(v: i32) -> u32 {
    v as u32
}

/// Every form of one generation.
pub fn forms(p: IsaGen) -> Vec<Form> {
    let g = ver(p);
    let mut out = Vec::new();
    let mut add = |what: &'static str, i: Insn| out.push(Form { what, word: i.w });

    // ---- moves and ALU (elk_alu1 / elk_alu2 via elk_MOV, elk_ADD ...) ----
    let alu1 = |op: u32, exec: u32, d: Reg, s: Reg| {
        let mut i = Insn::new(p, op, exec);
        i.dest(d);
        i.src0(s);
        i
    };
    let alu2 = |op: u32, exec: u32, d: Reg, s0: Reg, s1: Reg| {
        let mut i = Insn::new(p, op, exec);
        i.dest(d);
        i.src0(s0);
        i.src1(s1);
        i
    };
    add(
        "elk_MOV float immediate (src1 ARF, type F copied)",
        alu1(op::MOV, E8, grf(10, F), imm_f(1.5)),
    );
    add(
        "elk_MOV VF immediate (src1 type VF code copied)",
        alu1(op::MOV, E8, grf(10, F), imm(VF, 0x3830_2000)),
    );
    add(
        "elk_MOV V immediate (src1 type V code copied: reserved as a register type before Gen7)",
        alu1(op::MOV, E8, grf(10, W), imm(V, 0x7654_3210)),
    );
    if g >= 6 {
        add(
            "elk_MOV UV immediate",
            alu1(op::MOV, E8, grf(11, UW), imm(UV, 0x7654_3210)),
        );
    }
    add(
        "elk_MOV W immediate, exec 1",
        alu1(op::MOV, E1, grf(12, W).vec1().sub(4), imm_w(-3)),
    );
    add(
        "elk_MOV D immediate into an MRF",
        alu1(op::MOV, E8, mrf(2, D), imm_d(-7)),
    );
    add(
        "elk_MOV register (src1 left zero)",
        alu1(op::MOV, E8, grf(12, UD), grf(13, UD)),
    );
    add(
        "elk_MOV scalar, exec 1 (vec1 <0;1,0>)",
        alu1(
            op::MOV,
            E1,
            grf(14, UD).vec1().sub(8),
            grf(15, UD).vec1().sub(20),
        ),
    );
    {
        // SIMD16: the default state's compression (elk_inst_set_state,
        // elk_inst_set_compression: ComprCtrl compressed on Gen4/G45, QtrCtrl
        // 0 from Gen6).
        let mut i = alu1(op::MOV, E16, grf(20, F), grf(4, F));
        if g < 6 {
            i.put(i.f.group, 2);
        }
        add("elk_MOV SIMD16", i);
    }
    add(
        "elk_ADD immediate in src1",
        alu2(op::ADD, E8, grf(10, F), grf(11, F), imm_f(2.0)),
    );
    add(
        "elk_ADD VF immediate in src1",
        alu2(op::ADD, E8, grf(10, F), grf(11, F), imm(VF, 0x0000_3830)),
    );
    add(
        "elk_MUL registers with a negated source",
        alu2(op::MUL, E8, grf(10, D), grf(11, D), grf(12, D).neg()),
    );
    {
        // elk_CMP: cond modifier, null destination; Gen7 adds {Switch}
        // (WaCMPInstNullDstForcesThreadSwitch).
        let mut i = alu2(op::CMP, E8, null_t(D), grf(3, D), imm_d(0));
        let c = i.f.cond_mod;
        i.put(c, 5); // ELK_CONDITIONAL_L
        if g == 7 {
            let t = i.f.thread_ctrl;
            i.put(t, THREAD_SWITCH);
        }
        add("elk_CMP into null with an immediate", i);
    }
    {
        let mut i = alu2(op::SEL, E8, grf(5, F), grf(6, F), imm_f(0.0));
        let pc = i.f.pred_ctrl;
        i.put(pc, PRED_NORMAL);
        add("elk_SEL predicated", i);
    }

    {
        // elk_MOV into the flag register (elk_flag_reg: ARF f0.0, UW).
        let f0 = Reg {
            ty: UW,
            ..Reg::vec8(ARF, 0x30, UW).vec1()
        };
        let mut i = alu1(op::MOV, E1, f0, imm_w(0xFF));
        i.put(i.f.mask_ctrl, 1);
        add("elk_MOV immediate into f0.0", i);
    }
    if g >= 6 {
        // elk_MACH with AccWrEn (integer multiply high), acc0 implied.
        let mut i = alu2(op::MACH, E8, grf(30, D), grf(31, D), grf(32, D));
        i.put(i.f.bit28, 1);
        add("elk_MACH {AccWrEn}", i);
    }

    // ---- Align16 (vec4 backend: elk_set_dest/src0/src1 in ALIGN_16) ----
    {
        let mut i = Insn::new(p, op::MOV, E8).align16();
        i.dest(grf(7, F).wm(0x3));
        i.src0(grf(8, F).swz(0xE1)); // .yxzw
        add("Align16 elk_MOV with write mask and swizzle", i);
    }
    {
        let mut i = Insn::new(p, op::MOV, E8).align16();
        i.dest(mrf(3, F).wm(0xC));
        i.src0(imm(VF, 0x3830_2000));
        add("Align16 elk_MOV VF vector constant", i);
    }
    {
        let mut i = Insn::new(p, op::ADD, E8).align16();
        i.dest(grf(7, F));
        i.src0(grf(8, F).swz(XXXX).vec1());
        i.src1(imm_f(-1.0));
        add("Align16 elk_ADD replicated source and immediate", i);
    }
    {
        // Exec 4: one vec4, the upper half of a register.
        let mut i = Insn::new(p, op::MOV, 2).align16();
        i.dest(grf(9, F).sub(16).wm(0x7));
        i.src0(grf(10, F).sub(16).swz(XYZW));
        add("Align16 elk_MOV, exec 4, second vec4 of a register", i);
    }
    {
        let mut i = Insn::new(p, op::DP4, E8).align16();
        i.dest(grf(9, F).wm(0x1));
        i.src0(grf(10, F));
        i.src1(grf(11, F));
        add("Align16 elk_DP4", i);
    }

    // ---- three-source (elk_alu3, Align16, Gen6+) ----
    if g >= 6 {
        for (what, opc) in [("elk_MAD", op::MAD), ("elk_LRP", op::LRP)] {
            let mut i = Insn::new(p, opc, E8).align16();
            let t = i.f.three_src.expect("three-source fields");
            i.put(t.dst_nr, 12);
            i.put(t.dst_subnr, 0);
            i.put(t.dst_writemask, 0xF);
            let srcs = [
                (13, 0, XXXX, true),
                (14, 16, XYZW, false),
                (15, 0, XYZW, false),
            ];
            for (k, (nr, sub, swz, rep)) in srcs.into_iter().enumerate() {
                let s = t.src[k];
                i.put(s.swizzle, swz);
                i.put(s.subnr, sub / 4);
                i.put(s.nr, nr);
                i.put(s.rep_ctrl, rep as u32);
            }
            if let (Some(st), Some(dt)) = (t.src_type, t.dst_type) {
                // elk_inst_set_3src_a16_src_type/dst_type(dest.type): F = 0.
                i.put(st, 0);
                i.put(dt, 0);
            }
            add(what, i);
        }
    }

    // ---- math ----
    if g < 6 {
        // elk_gfx4_math: send, base MRF, implied move of src; message
        // function [3:0], signed int [4], precision [5], saturate [6],
        // data type [7] (elk_set_math_message).
        let mut i = Insn::new(p, op::SEND, E8);
        i.base_mrf(2);
        i.dest(grf(20, F));
        i.src0(grf(21, F));
        i.desc(1, 1, 1, false, 1); // INV, vector data
        add("elk_gfx4_math INV (send to the math unit)", i);
        let mut i = Insn::new(p, op::SEND, E8);
        i.base_mrf(2);
        i.dest(grf(20, F));
        i.src0(grf(21, F).vec1());
        i.desc(1, 1, 2, false, 8 | 1 << 7); // SINCOS, scalar data
        add("elk_gfx4_math SINCOS scalar", i);
    } else {
        // elk_gfx6_math: the function in bits 27:24; unary math passes
        // elk_null_reg() as src1.
        let mut i = Insn::new(p, op::MATH, E8);
        let c = i.f.cond_mod;
        i.put(c, 1); // INV
        i.dest(grf(20, F));
        i.src0(grf(21, F));
        i.src1(null());
        add("elk_gfx6_math INV", i);
        let mut i = Insn::new(p, op::MATH, E8);
        let c = i.f.cond_mod;
        i.put(c, 10); // POW
        i.dest(grf(20, F));
        i.src0(grf(21, F));
        i.src1(grf(22, F));
        add("elk_gfx6_math POW", i);
        let mut i = Insn::new(p, op::MATH, E8);
        let c = i.f.cond_mod;
        i.put(c, 12); // INT DIV QUOTIENT
        i.dest(grf(20, D));
        i.src0(grf(21, D));
        i.src1(grf(22, D));
        add("elk_gfx6_math INT_DIV_QUOTIENT", i);
    }

    // ---- the vec4 backend's Align16 sends and math (vec4_generator runs
    // with ELK_ALIGN_16 as the default access mode) ----
    {
        // elk_urb_WRITE from generate_urb_write: null dest, payload MRF
        // (g112+ on Gen7), EOT.
        let mut i = Insn::new(p, op::SEND, E8).align16();
        i.dest(null_t(UD));
        if g < 6 {
            i.base_mrf(1);
            i.src0(grf(0, UD));
            i.desc(6, 3, 0, false, 1 << 10 | 1 << 14 | 1 << 15);
        } else {
            i.src0(mrf(1, UD));
            i.desc(6, 3, 0, true, if g == 6 { 1 << 14 | 1 << 15 } else { 0 });
        }
        i.eot();
        add("Align16 elk_urb_WRITE EOT (vec4 backend)", i);
    }
    if g < 6 {
        // vec4 generate_math1_gfx4: elk_gfx4_math in Align16.
        let mut i = Insn::new(p, op::SEND, E8).align16();
        i.base_mrf(2);
        i.dest(grf(20, F).wm(0x1));
        i.src0(grf(21, F).swz(XXXX));
        i.desc(1, 1, 1, false, 5); // RSQ
        add("Align16 elk_gfx4_math RSQ", i);
    } else if g >= 7 {
        // Gen7 vec4 math stays Align16 (Gen6 math must be Align1).
        let mut i = Insn::new(p, op::MATH, E8).align16();
        i.put(i.f.cond_mod, 4); // SQRT
        i.dest(grf(20, F).wm(0x3));
        i.src0(grf(21, F).swz(XXXX));
        i.src1(null());
        add("Align16 elk_gfx6_math SQRT (Gen7)", i);
    }

    // ---- sends, one per shared function Mesa targets ----
    sends(p, &mut add);

    // ---- flow control ----
    flow(p, &mut add);
    out
}

fn sends(p: IsaGen, add: &mut impl FnMut(&'static str, Insn)) {
    let g = ver(p);
    let send = |exec: u32| Insn::new(p, op::SEND, exec);
    if g < 6 {
        // elk_oword_block_read (constant fetch): dest UW vec8, src0 null,
        // base MRF, DP read: bti [7:0], block size [10:8], msg type
        // [13:12]? written as elk_dp_read_desc(bti, size, type, target).
        let mut i = send(E8);
        i.dest(grf(30, UW));
        i.src0(null());
        i.base_mrf(1);
        i.desc(4, 1, 1, false, 3 | 1 << 8); // bti 3, 2 owords, oword block read
        add("elk_oword_block_read (data port read)", i);
        // elk_oword_block_write_scratch: dest = g0 UW header (write commit),
        // src0 null, data port write.
        let mut i = send(E8);
        i.dest(grf(0, UW));
        i.src0(null());
        i.base_mrf(1);
        i.desc(5, 2, 1, false, 255 | 1 << 8 | 8 << 12 | 1 << 15);
        add("elk_oword_block_write_scratch (data port write)", i);
        // elk_SAMPLE: compression off (elk_inst_set_compression(.., false)),
        // SIMD16 writeback retyped UW, src0 = g0 implied move, sampler.
        let mut i = send(E16);
        i.dest(grf(40, UW));
        i.src0(grf(0, UW));
        i.base_mrf(2);
        i.desc(2, 5, 8, false, 1 | 1 << 8);
        add("elk_SAMPLE SIMD16 (sampler)", i);
        // elk_urb_WRITE with EOT: dest null, src0 g0, URB opcode write,
        // swizzle interleave [11:10], used [14], complete [15].
        let mut i = send(E8);
        i.dest(null_t(UD));
        i.src0(grf(0, UD));
        i.base_mrf(1);
        i.desc(6, 3, 0, false, 1 << 10 | 1 << 14 | 1 << 15);
        i.eot();
        add("elk_urb_WRITE EOT (URB)", i);
        // elk_ff_sync: URB opcode FF_SYNC [3:0] = 1, allocate [13].
        let mut i = send(E8);
        i.dest(grf(1, UD));
        i.src0(grf(0, UD));
        i.base_mrf(1);
        i.desc(6, 1, 1, false, 1 | 1 << 13);
        add("elk_ff_sync (URB)", i);
        // elk_fb_WRITE (Gen4): send, base MRF = payload, src0 = the implied
        // header g0, data port write: bti [7:0], msg control [10:8], msg
        // type render-target write (4) [14:12], last RT [11].
        let mut i = send(E16);
        i.dest(null_t(UW));
        i.src0(grf(0, UW));
        i.base_mrf(2);
        i.desc(5, 10, 0, false, 1 << 11 | 4 << 12);
        i.eot();
        add("elk_fb_WRITE EOT (data port write)", i);
    } else {
        let src = |nr: u32| mrf(nr, UD);
        let rc = 5; // GFX6_SFID_DATAPORT_RENDER_CACHE
        // elk_SAMPLE: dest, src0 payload, sampler SFID 2, header.
        let mut i = send(E8);
        i.dest(grf(40, F));
        i.src0(src(2));
        i.desc(2, 3, 4, true, 1 | 2 << 8 | 1 << 17);
        add("elk_SAMPLE (sampler)", i);
        // elk_fb_WRITE: sendc from Gen6, dest null UW vec16, render cache,
        // EOT.
        let mut i = Insn::new(p, op::SENDC, E16);
        i.dest(null_t(UW));
        i.src0(src(1));
        // bti 0, SIMD16 single source, last render target [12], message
        // type render-target write (12) at [16:13] (Gen6) / [17:14] (Gen7).
        let rt_write = if g == 6 { 12 << 13 } else { 12 << 14 };
        i.desc(rc, 10, 0, true, 1 << 12 | rt_write);
        i.eot();
        add("elk_fb_WRITE EOT (sendc, render cache)", i);
        // elk_oword_block_read: constant cache (SFID 9 on Gen6+).
        let mut i = send(E8);
        i.dest(grf(30, UW));
        i.src0(src(1));
        i.desc(9, 1, 1, true, 3 | 1 << 8);
        add("elk_oword_block_read (constant cache)", i);
        // elk_urb_WRITE with EOT.
        let mut i = send(E8);
        i.dest(null_t(UD));
        i.src0(src(1));
        i.desc(
            6,
            3,
            0,
            true,
            if g == 6 {
                1 << 10 | 1 << 14 | 1 << 15
            } else {
                0
            },
        );
        i.eot();
        add("elk_urb_WRITE EOT (URB)", i);
        if g == 6 {
            // elk_oword_block_write_scratch: render cache, null UW vec16 dest.
            let mut i = send(E8);
            i.dest(null_t(UW));
            i.src0(src(1));
            i.desc(rc, 2, 0, true, 255 | 2 << 8 | 8 << 13);
            add("elk_oword_block_write_scratch (render cache)", i);
        } else {
            // elk_gfx7_block_read_scratch: data cache (SFID 10), category
            // [18], read/write [17], type [16], block size [13:12],
            // offset [11:0].
            let mut i = send(E8);
            i.dest(grf(50, UW));
            i.src0(grf(0, UD));
            i.desc(10, 1, 2, true, 1 << 18 | 1 << 12 | 5);
            add("elk_gfx7_block_read_scratch (data cache)", i);
            // elk_barrier: gateway (SFID 3), barrier sub-function [2:0] = 4.
            let mut i = send(E8);
            let m = i.f.mask_ctrl;
            i.put(m, 1);
            i.dest(null_t(UW));
            i.src0(grf(1, UD));
            i.desc(3, 1, 0, false, 4);
            add("elk_barrier (message gateway)", i);
            // elk_WAIT: dst and src0 = elk_notification_reg() (ARF n0, UD,
            // vec1), src1 = elk_null_reg(); exec 1, no mask.
            let mut i = Insn::new(p, op::WAIT, E8);
            let n0 = Reg {
                ty: UD,
                ..Reg::vec8(ARF, 0x90, UD).vec1()
            };
            i.dest(n0);
            i.src0(n0);
            i.src1(null());
            i.put(i.f.exec_size, E1);
            i.put(i.f.mask_ctrl, 1);
            add("elk_WAIT on n0 after a barrier", i);
            // elk_fs_generator::generate_cs_terminate: null UW dest, the
            // payload UW, src1 imm_ud(0) overwritten by the descriptor: thread
            // spawner, mlen 1, opcode dereference [0] = 0, request type root
            // [1] = 0, resource select [4] = 1, EOT.
            let mut i = send(E8);
            i.dest(null_t(UW));
            i.src0(grf(127, UW));
            i.src1(imm_ud(0));
            i.desc(7, 1, 0, false, 1 << 4);
            i.eot();
            add("generate_cs_terminate (thread spawner)", i);
            // elk_send_indirect_message with a register descriptor: the
            // surface index ANDed into a0.0 (elk_send_indirect_surface_message),
            // src1 = a0.0:ud, the SFID in bits 27:24; dest retyped UW.
            let mut i = send(E8);
            i.dest(grf(60, UW));
            i.src0(grf(20, UD));
            let a0 = Reg {
                ty: UD,
                ..Reg::vec8(ARF, 0x10, UD).vec1()
            };
            i.src1(a0);
            let c = i.f.cond_mod;
            i.put(c, if p == IsaGen::Gen75 { 12 } else { 10 });
            add("elk_send_indirect_message, descriptor in a0.0", i);
        }
        if p == IsaGen::Gen75 {
            // elk_untyped_surface_read on Haswell: data cache 1 (SFID 12),
            // bti [7:0], channel mask [11:8], SIMD mode [13:12], message type
            // untyped read (1) [17:14].
            let mut i = send(E8);
            i.dest(grf(40, UD));
            i.src0(grf(20, UD));
            i.desc(12, 1, 1, false, 3 | 0xE << 8 | 2 << 12 | 1 << 14);
            add("elk_untyped_surface_read (Haswell data cache 1)", i);
        }
    }
}

fn flow(p: IsaGen, add: &mut impl FnMut(&'static str, Insn)) {
    let g = ver(p);
    let br = br(p);
    let f = tables_fields(p);
    let pred = |i: &mut Insn| {
        i.put(f.pred_ctrl, PRED_NORMAL);
    };
    if g < 6 {
        // elk_IF / elk_ELSE: dst ip, src0 ip, src1 imm_d(0), {Switch};
        // patch_IF_ELSE writes jump and pop counts into DW3.
        let ipform = |opc: u32, jump: i32, pop: u32, switch: bool| {
            let mut i = Insn::new(p, opc, E8);
            i.dest(ip());
            i.src0(ip());
            i.src1(imm_d(0));
            if switch {
                i.put(f.thread_ctrl, THREAD_SWITCH);
            }
            i.put(f.jip, signed(jump));
            i.put(f.pop, pop);
            i
        };
        let mut i = ipform(op::IF, 3 * br, 0, true);
        pred(&mut i);
        add("elk_IF patched to its ELSE (jump count, pop 0)", i);
        let mut i = ipform(op::IFF, 4 * br, 0, true);
        pred(&mut i);
        add("elk_IF turned IFF by patch_IF_ELSE", i);
        add(
            "elk_ELSE patched past its ENDIF (pop 1)",
            ipform(op::ELSE, 3 * br, 1, true),
        );
        // elk_ENDIF: null:D operands, imm_d(0), jump 0, pop 1, {Switch}.
        let mut i = Insn::new(p, op::ENDIF, E8);
        i.dest(null_t(D));
        i.src0(null_t(D));
        i.src1(imm_d(0));
        i.put(f.thread_ctrl, THREAD_SWITCH);
        i.put(f.jip, 0);
        i.put(f.pop, 1);
        add("elk_ENDIF (pop 1)", i);
        // elk_DO: null operands (type F).
        let mut i = Insn::new(p, op::DO, E8);
        i.dest(null());
        i.src0(null());
        i.src1(null());
        add("elk_DO", i);
        add(
            "elk_WHILE back to its DO",
            ipform(op::WHILE, -5 * br, 0, false),
        );
        add(
            "elk_BREAK (pop count = if depth)",
            ipform(op::BREAK, 4 * br, 1, false),
        );
        add("elk_CONT", ipform(op::CONT, 2 * br, 0, false));
        add("elk_HALT", ipform(op::HALT, 6 * br, 0, false));
    } else if g == 6 {
        // elk_IF (Gen6): dst imm_w(0) then the jump count over its region
        // bits; src0/src1 vec1 null:D.
        let mut i = Insn::new(p, op::IF, E8);
        i.dest(imm_w(0));
        i.put(f.dst_jip, signed(3 * br));
        i.src0(null_t(D).vec1());
        i.src1(null_t(D).vec1());
        pred(&mut i);
        add("elk_IF (Gen6: JIP in the destination bits)", i);
        // elk_gfx6_IF: embedded compare.
        let mut i = Insn::new(p, op::IF, E8);
        i.dest(imm_w(0));
        i.put(f.dst_jip, signed(5 * br));
        i.src0(grf(3, F));
        i.src1(imm_f(0.5));
        i.put(f.cond_mod, 4); // ELK_CONDITIONAL_GE
        add("elk_gfx6_IF with a compare against an immediate", i);
        let mut i = Insn::new(p, op::ELSE, E8);
        i.dest(imm_w(0));
        i.put(f.dst_jip, signed(2 * br));
        i.src0(null_t(D));
        i.src1(null_t(D));
        add("elk_ELSE (Gen6)", i);
        let mut i = Insn::new(p, op::ENDIF, E8);
        i.dest(imm_w(0));
        i.src0(null_t(D));
        i.src1(null_t(D));
        i.put(f.dst_jip, 2);
        add("elk_ENDIF (Gen6: jump count 2)", i);
        let mut i = Insn::new(p, op::WHILE, E8);
        i.dest(imm_w(0));
        i.put(f.dst_jip, signed(-4 * br));
        i.src0(null_t(D));
        i.src1(null_t(D));
        pred(&mut i);
        add("elk_WHILE (Gen6)", i);
    } else {
        // elk_IF (Gen7): dst/src0 vec1 null:D, src1 imm_w(0), JIP/UIP DW3.
        let mut i = Insn::new(p, op::IF, E8);
        i.dest(null_t(D).vec1());
        i.src0(null_t(D).vec1());
        i.src1(imm_w(0));
        i.put(f.jip, signed(3 * br));
        i.put(f.uip, signed(6 * br));
        pred(&mut i);
        add("elk_IF (Gen7: JIP/UIP in DW3)", i);
        let mut i = Insn::new(p, op::ELSE, E8);
        i.dest(null_t(D));
        i.src0(null_t(D));
        i.src1(imm_w(0));
        i.put(f.jip, signed(3 * br));
        add("elk_ELSE (Gen7)", i);
        let mut i = Insn::new(p, op::ENDIF, E8);
        i.dest(null_t(D));
        i.src0(null_t(D));
        i.src1(imm_w(0));
        i.put(f.jip, 2);
        add("elk_ENDIF (Gen7: JIP 2)", i);
        let mut i = Insn::new(p, op::WHILE, E8);
        i.dest(null_t(D));
        i.src0(null_t(D));
        i.src1(imm_w(0));
        i.put(f.jip, signed(-4 * br));
        pred(&mut i);
        add("elk_WHILE (Gen7)", i);
    }
    if g >= 6 {
        // elk_BREAK / elk_CONT / elk_HALT (Gen6-7): JIP and UIP set later
        // by elk_set_uip_jip over the imm_d(0) in DW3.
        let mut i = Insn::new(p, op::BREAK, E8);
        i.dest(null_t(D));
        i.src0(null_t(D));
        i.src1(imm_d(0));
        i.put(f.jip, signed(2 * br));
        i.put(f.uip, signed(5 * br));
        pred(&mut i);
        add("elk_BREAK", i);
        let mut i = Insn::new(p, op::CONT, E8);
        i.dest(ip());
        i.src0(ip());
        i.src1(imm_d(0));
        i.put(f.jip, signed(2 * br));
        i.put(f.uip, signed(4 * br));
        pred(&mut i);
        add("elk_CONT (ip operands)", i);
        let mut i = Insn::new(p, op::HALT, E8);
        i.dest(null_t(D));
        i.src0(null_t(D));
        i.src1(imm_d(0));
        i.put(f.jip, signed(7 * br));
        i.put(f.uip, signed(9 * br));
        pred(&mut i);
        add("elk_HALT", i);
    }
    // elk_JMPI: alu2(ip, ip, index), exec 1, no mask; the jump count is
    // landed into the immediate by elk_land_fwd_jump (1 per instruction
    // before Gen5, 2 after).
    let jmpi = if g < 5 { 1 } else { 2 };
    let mut i = Insn::new(p, op::JMPI, E8);
    i.dest(ip());
    i.src0(ip());
    i.src1(imm_d(0));
    i.put(f.exec_size, E1);
    i.put(f.mask_ctrl, 1);
    pred(&mut i);
    i.put(f.jip, signed(3 * jmpi));
    add("elk_JMPI landed by elk_land_fwd_jump", i);
    // elk_NOP: an all-zero word with the opcode.
    add("elk_NOP", Insn::new(p, op::NOP, 0));
}

fn tables_fields(p: IsaGen) -> &'static baregpu_isa::tables::Fields {
    &baregpu_isa::tables::for_platform(p).fields
}
