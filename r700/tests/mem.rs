//! MEM words (MEM_RD, MEM_DSW, MEM_DSR): field positions against the manual's tables,
//! random words round-trip or error, programs with MEM clauses go through the exact text
//! and back, and the reserved encodings are errors.

use baregpu_r700::DecodeError;
use baregpu_r700::fetch::{TexInst, VtxInst};
use baregpu_r700::mem::{DsRead, DsWrite, MemInst, MemRead};
use baregpu_r700::program::{Clause, Program};
use baregpu_r700::{asm, llvm_text};

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A VTX (or TEX) CF word at slot 0 starting a clause of `n` 128-bit words at slot 2,
/// CF_END at slot 1 (CF_WORD1: COUNT [12:10], CF_INST [29:23] 2 VTX / 1 TEX, BARRIER).
fn program(tex: bool, words: &[[u32; 4]]) -> Vec<u32> {
    let op = if tex { 1 } else { 2 };
    let n = words.len() as u32 - 1;
    let mut v = vec![
        2,
        0x8000_0000 | op << 23 | (n & 7) << 10 | (n >> 3) << 19,
        0,
        0x8020_0000,
    ];
    for w in words {
        v.extend_from_slice(w);
    }
    v
}

#[test]
fn mem_rd_fields_sit_where_the_manual_puts_them() {
    // 002 lines 8630-8754, field by field.
    let r = MemRead {
        elem_size: 3,
        fetch_whole_quad: true,
        mem_op: 2,
        uncached: true,
        indexed: true,
        src_gpr: 0x55,
        src_rel: true,
        src_sel_x: 2,
        burst_count: 9,
        dst_gpr: 0x2A,
        dst_rel: true,
        dst_sel: [1, 2, 5, 7],
        data_format: 0x23,
        num_format_all: 2,
        format_comp_all: true,
        srf_mode_all: true,
        array_base: 0x1ABC,
        endian_swap: 2,
        mega_fetch: true,
        array_size: 0xFED,
    };
    let w = MemInst::Read(r).encode();
    assert_eq!(w[0] & 0x1F, 2, "VTX_INST_MEM");
    assert_eq!(w[0] >> 5 & 3, 3, "ELEM_SIZE [6:5]");
    assert_eq!(w[0] >> 7 & 1, 1, "FETCH_WHOLE_QUAD 7");
    assert_eq!(w[0] >> 8 & 7, 2, "MEM_OP [10:8]");
    assert_eq!(w[0] >> 11 & 3, 3, "UNCACHED 11, INDEXED 12");
    assert_eq!(w[0] >> 16 & 0x7F, 0x55, "SRC_GPR [22:16]");
    assert_eq!(w[0] >> 23 & 7, 0b101, "SRC_REL 23, SRC_SEL_X [25:24]");
    assert_eq!(w[0] >> 26, 9, "BURST_CNT [29:26], [31:30] zero");
    assert_eq!(w[1] & 0xFF, 0xAA, "DST_GPR [6:0], DST_REL 7");
    assert_eq!(
        w[1] >> 9 & 0xFFF,
        1 | 2 << 3 | 5 << 6 | 7 << 9,
        "DST_SEL [20:9]"
    );
    assert_eq!(w[1] >> 22, 0x23 | 2 << 6 | 1 << 8 | 1 << 9, "[31:22]");
    assert_eq!(w[2] & 0x1FFF, 0x1ABC, "ARRAY_BASE [12:0]");
    assert_eq!(
        w[2] >> 16 & 0xF,
        2 | 1 << 3,
        "ENDIAN_SWAP [17:16], MEGA_FETCH 19"
    );
    assert_eq!(w[2] >> 20, 0xFED, "ARRAY_SIZE [31:20]");
    assert_eq!(w[3], 0);
    assert_eq!(MemInst::decode(w), Ok(MemInst::Read(r)));
}

#[test]
fn lds_fields_sit_where_the_manual_puts_them() {
    // MEM_DSW (002 lines 8759-8827).
    let d = DsWrite {
        src_gpr: 0x41,
        src_rel_mode: 2,
        src_sel: [3, 4, 5, 7],
        dst_index: 0xC4,
        dst_stride: 0x1F0,
        simd_wave_rel: true,
        burst_count: 6,
    };
    let w = MemInst::DsWrite(d).encode();
    assert_eq!(w[0] & 0x7FF, 2 | 4 << 8, "VTX_INST 2, MEM_OP 4");
    assert_eq!(w[0] >> 11 & 0x7F, 0x41, "SRC_GPR [17:11]");
    assert_eq!(w[0] >> 18 & 3, 2, "SRC_REL_MODE [19:18]");
    assert_eq!(w[0] >> 20, 3 | 4 << 3 | 5 << 6 | 7 << 9, "SRC_SEL [31:20]");
    assert_eq!(
        w[1],
        0xC4 | 0x1F0 << 16 | 1 << 31,
        "DST_INDEX(_EXT), DST_STRIDE(_EXT), SIMD_WAVE_REL"
    );
    assert_eq!(w[2], 6, "BURST_CNT [3:0]");
    assert_eq!(MemInst::decode(w), Ok(MemInst::DsWrite(d)));
    // MEM_DSR (002 lines 8829-8884).
    let d = DsRead {
        src_gpr: 0x13,
        src_rel_mode: 1,
        src_sel: [5, 2],
        rd_offset: 0x2B,
        dst_gpr: 0x7E,
        dst_rel_mode: 2,
        dst_write: [true, false, true, true],
        broadcast: true,
        waterfall: false,
        mux_cntl: 2,
        burst_count: 15,
    };
    let w = MemInst::DsRead(d).encode();
    assert_eq!(w[0] & 0x7FF, 2 | 5 << 8, "VTX_INST 2, MEM_OP 5");
    assert_eq!(w[0] >> 11, 0x13 | 1 << 7 | 5 << 9 | 2 << 12 | 0x2B << 15);
    assert_eq!(w[1], 0x7E | 2 << 7 | 0b1101 << 9 | 1 << 16 | 2 << 20);
    assert_eq!(w[2], 15);
    assert_eq!(MemInst::decode(w), Ok(MemInst::DsRead(d)));
}

#[test]
fn reserved_mem_encodings_are_errors() {
    let base = [2 | 2 << 8, 0, 1 << 19, 0];
    assert!(MemInst::decode(base).is_ok());
    for op in [3, 6, 7] {
        assert_eq!(
            MemInst::decode([2 | op << 8, 0, 0, 0]),
            Err(DecodeError::ReservedValue {
                field: "MEM_OP",
                value: op
            })
        );
    }
    // MEM_REQ_SIZE must be zero on R700 (002 lines 8658-8659).
    assert!(matches!(
        MemInst::decode([base[0] | 1 << 13, 0, 0, 0]),
        Err(DecodeError::ReservedBits { .. })
    ));
    assert!(matches!(
        MemInst::decode([base[0], 0, 0, 1]),
        Err(DecodeError::ReservedBits { .. })
    ));
    // LDS read: SRC_SEL 6 and 7 are not listed, MUX_CNTL 3 is not.
    assert!(MemInst::decode([2 | 5 << 8 | 7 << 20, 0, 0, 0]).is_err());
    assert!(MemInst::decode([2 | 5 << 8, 3 << 20, 0, 0]).is_err());
    // TEX and VTX words with opcode 2 are MEM words, not theirs.
    assert!(TexInst::decode([2, 0, 0, 0]).is_err());
    assert!(VtxInst::decode([2, 0, 0, 0]).is_err());
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

#[test]
fn random_mem_words_round_trip_through_binary_and_text() {
    let mut r = Rng(0x0DDB_A11C_AFE5_1234);
    let mut ok = [0usize; 3];
    for _ in 0..200_000 {
        let mut w = [r.next(), r.next(), r.next(), 0];
        // VTX_INST 2 and a MEM_OP; half the time clear the reserved bits of the layout.
        w[0] = w[0] & !0x1F | 2;
        if r.next() & 1 == 0 {
            match w[0] >> 8 & 7 {
                0..=2 => {
                    w[0] &= !0xC000_E000;
                    w[1] &= !(1 << 8 | 1 << 21);
                    w[2] &= !(0xE000 | 1 << 18);
                }
                _ => {
                    w[0] &= !0xE0;
                    w[1] &= if w[0] >> 8 & 7 == 4 {
                        !0x7E00_FF00
                    } else {
                        !0xFF8C_E000
                    };
                    w[2] &= 0xF;
                }
            }
        }
        let Ok(m) = MemInst::decode(w) else { continue };
        assert_eq!(m.encode(), w, "{m:?}");
        ok[match m {
            MemInst::Read(_) => 0,
            MemInst::DsWrite(_) => 1,
            MemInst::DsRead(_) => 2,
        }] += 1;
        // As a one-instruction clause: decodes as a MEM clause, prints, assembles back.
        let tex = !m.is_memory_read();
        let b = bytes(&program(tex, &[w]));
        let p = Program::decode(&b).unwrap_or_else(|e| panic!("{e}: {w:08x?}"));
        assert_eq!(p.clauses.get(&2), Some(&Clause::Mem(vec![m])));
        let exact = llvm_text::program_exact(&p).join("\n");
        assert_eq!(asm::assemble(&exact).as_ref(), Ok(&b), "{exact}");
    }
    assert!(ok.iter().all(|&n| n > 1_000), "{ok:?}");
}

#[test]
fn a_clause_mixing_mem_and_vertex_fetches_is_an_error() {
    let mem = [2 | 2 << 8, 0, 1 << 19, 0];
    let fetch = [0, 0, 0, 0];
    let b = bytes(&program(false, &[mem, fetch]));
    assert_eq!(
        Program::decode(&b),
        Err(DecodeError::MixedClause { clause: 2 })
    );
    let b = bytes(&program(false, &[mem, mem]));
    assert!(matches!(
        Program::decode(&b).map(|p| p.clauses.get(&2).cloned()),
        Ok(Some(Clause::Mem(m))) if m.len() == 2
    ));
}

#[test]
fn mem_text_reads_back() {
    let text = "VTX_TC 1 @2\nCF_END\nFetch clause starting at 2:\n  MEM_RD_SCRATCH T3.XY01, T0.W, 12 ; esize=3 indexed=1 asize=64\n  MEM_RD_SCATTER T4.X___, T1.Y, 0 ; uncached=1";
    let b = asm::assemble(text).unwrap();
    let p = Program::decode(&b).unwrap();
    let Some(Clause::Mem(m)) = p.clauses.get(&2) else {
        panic!("{p:?}")
    };
    let MemInst::Read(r) = m[0] else { panic!() };
    assert_eq!(
        (
            r.mem_op,
            r.dst_gpr,
            r.dst_sel,
            r.src_gpr,
            r.src_sel_x,
            r.array_base
        ),
        (0, 3, [0, 1, 4, 5], 0, 3, 12)
    );
    assert_eq!(
        (r.elem_size, r.indexed, r.array_size, r.mega_fetch),
        (3, true, 64, true)
    );
    let lines = llvm_text::program_exact(&p);
    assert_eq!(lines.join("\n"), text);
    let lds = "TEX 1 @2\nCF_END\nFetch clause starting at 2:\n  LOCAL_DS_WRITE T1.XYZW, 8, 16 ; burst=1\n  LOCAL_DS_READ T2.X_ZW, T0.Y0, 4 ; wfall=1";
    let p = Program::decode(&asm::assemble(lds).unwrap()).unwrap();
    assert_eq!(llvm_text::program_exact(&p).join("\n"), lds);
    assert!(asm::assemble(&lds.replace("T0.Y0", "T0.Y_")).is_err());
}
