//! Whatever the tables can express is compacted: for every row of every table, native
//! instructions built (here, independently of the library's bit placement) to use that
//! row compact to the expected word and expand back to the same bits. Also the rules for
//! what never compacts.

use baregpu_isa::IsaGen;
use baregpu_isa::compact::{self, CompactError, CompactTables};

const COMPACTING: [IsaGen; 4] = [IsaGen::G45, IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75];

/// One instruction as table rows plus the fields the compact form carries verbatim.
#[derive(Clone, Copy, Debug)]
struct Inst {
    opcode: u32,
    debug: u32,
    control: u32,
    datatype: u32,
    subreg: u32,
    src0: u32,
    src1: u32,
    bit28: u32,
    cond: u32,
    flag: u32,
    dst_reg: u32,
    src0_reg: u32,
    src1_reg: u32,
    imm: u32,
}

impl Inst {
    /// Whether the datatype row makes src0 or src1 an immediate.
    fn has_imm(&self) -> bool {
        (self.datatype >> 5) & 3 == 3 || (self.datatype >> 10) & 3 == 3
    }

    /// The native dwords, placed from the manuals' per-field tables.
    fn native(&self, t: &CompactTables) -> [u32; 4] {
        let dw0 = self.opcode
            | (self.control & 0xffff) << 8
            | self.cond << 24
            | self.bit28 << 28
            | self.debug << 30
            | (self.control >> 16 & 1) << 31;
        let dw1 = (self.datatype & 0x7fff)
            | (self.subreg & 0x1f) << 16
            | self.dst_reg << 21
            | (self.datatype >> 15) << 29;
        let flag = if t.flag_in_control {
            self.control >> 17
        } else {
            self.flag
        };
        let dw2 = (self.subreg >> 5 & 0x1f) | self.src0_reg << 5 | self.src0 << 13 | flag << 25;
        let dw3 = if self.has_imm() {
            self.imm
        } else {
            (self.subreg >> 10) | self.src1_reg << 5 | self.src1 << 13
        };
        [dw0, dw1, dw2, dw3]
    }

    /// The compact words that must come out: the first row equal to each field.
    fn compact(&self, t: &CompactTables) -> [u32; 2] {
        let first = |rows: &[u32], want: u32, mask: u32| {
            rows.iter()
                .position(|&r| r & mask == want & mask)
                .expect("row exists") as u64
        };
        let wide = |rows: &[u16; 32]| rows.map(u32::from);
        let sub_mask = if self.has_imm() { 0x3ff } else { 0x7fff };
        let mut c = u64::from(self.opcode)
            | u64::from(self.debug) << 7
            | first(&t.control, self.control, u32::MAX) << 8
            | first(&t.datatype, self.datatype, u32::MAX) << 13
            | first(&wide(&t.subreg), self.subreg, sub_mask) << 18
            | u64::from(self.bit28) << 23
            | u64::from(self.cond) << 24
            | 1 << 29
            | first(&wide(&t.src), self.src0, u32::MAX) << 30
            | u64::from(self.dst_reg) << 40
            | u64::from(self.src0_reg) << 48;
        if !t.flag_in_control {
            c |= u64::from(self.flag) << 28;
        }
        if self.has_imm() {
            c |= u64::from(self.imm >> 8 & 0x1f) << 35 | u64::from(self.imm & 0xff) << 56;
        } else {
            c |= first(&wide(&t.src), self.src1, u32::MAX) << 35 | u64::from(self.src1_reg) << 56;
        }
        [c as u32, (c >> 32) as u32]
    }
}

/// xorshift64*: deterministic variety without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u32 {
        (self.next() % n) as u32
    }
}

/// Ordinary two-source-format opcodes of every generation (mov, sel, and, cmp, jmpi,
/// send, math, add, mul, dp4, nop; send with a small immediate is a real case on Gen6+).
const OPCODES: [u32; 11] = [
    0x01, 0x02, 0x05, 0x10, 0x20, 0x31, 0x38, 0x40, 0x41, 0x54, 0x7e,
];

fn random_inst(rng: &mut Rng, t: &CompactTables) -> Inst {
    let mut inst = Inst {
        opcode: OPCODES[rng.below(OPCODES.len() as u64) as usize],
        debug: rng.below(2),
        control: t.control[rng.below(32) as usize],
        datatype: t.datatype[rng.below(32) as usize],
        subreg: u32::from(t.subreg[rng.below(32) as usize]),
        src0: u32::from(t.src[rng.below(32) as usize]),
        src1: u32::from(t.src[rng.below(32) as usize]),
        bit28: rng.below(2),
        cond: rng.below(16),
        flag: if t.flag_in_control { 0 } else { rng.below(2) },
        dst_reg: rng.below(256),
        src0_reg: rng.below(256),
        src1_reg: rng.below(256),
        imm: 0,
    };
    // Any 13-bit value with bit 12 copied upwards, biased to the edges.
    inst.imm = match rng.below(4) {
        0 => 0,
        1 => 0xfff,
        2 => 0xffff_f000,
        _ => ((rng.below(0x2000) << 19) as i32 >> 19) as u32,
    };
    inst
}

/// `send`/`sendc` whose immediate sets bit 31 would end the thread: never compacted.
fn ends_thread(inst: &Inst) -> bool {
    matches!(inst.opcode, 0x31 | 0x32) && inst.has_imm() && inst.imm >> 31 != 0
}

fn check(p: IsaGen, t: &CompactTables, inst: &Inst) {
    let native = inst.native(t);
    if ends_thread(inst) {
        assert_eq!(
            compact::compact(p, native),
            None,
            "{p} EOT send {native:08x?}"
        );
        return;
    }
    let want = inst.compact(t);
    assert_eq!(compact::compact(p, native), Some(want), "{p} {inst:x?}");
    assert_eq!(compact::uncompact(p, want), Ok(native), "{p} {inst:x?}");
}

#[test]
fn every_row_of_every_table_compacts() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut cases = 0;
    for p in COMPACTING {
        let t = compact::tables(p).expect("has tables");
        for table in 0..5 {
            for row in 0..32 {
                for _ in 0..16 {
                    let mut inst = random_inst(&mut rng, t);
                    match table {
                        0 => inst.control = t.control[row],
                        1 => inst.datatype = t.datatype[row],
                        2 => inst.subreg = u32::from(t.subreg[row]),
                        3 => inst.src0 = u32::from(t.src[row]),
                        _ => inst.src1 = u32::from(t.src[row]),
                    }
                    // Rows with a register src1 must be reached too: retry the datatype.
                    if table == 4 {
                        while inst.has_imm() {
                            inst.datatype = t.datatype[rng.below(32) as usize];
                        }
                    }
                    check(p, t, &inst);
                    cases += 1;
                }
            }
        }
    }
    println!("{cases} table-row instructions compacted and expanded");
}

#[test]
fn gen75_shares_gen7_tables_and_gen4_has_none() {
    let (a, b) = (
        compact::tables(IsaGen::Gen7),
        compact::tables(IsaGen::Gen75),
    );
    assert!(core::ptr::eq(a.unwrap(), b.unwrap()));
    assert!(compact::tables(IsaGen::Gen4).is_none());
    let native = [0x0060_0001, 0x2020_03bd, 0x008d_0040, 0];
    assert_eq!(compact::compact(IsaGen::Gen4, native), None);
    assert_eq!(
        compact::uncompact(IsaGen::Gen4, [0x2001_0b01, 0x0002_0107]),
        Err(CompactError::Unsupported(IsaGen::Gen4))
    );
}

/// A compactable base instruction for `p` (mov r:ud r:ud on G45, add with a register
/// src1 elsewhere) that every negative case below perturbs.
fn base(p: IsaGen) -> (&'static CompactTables, Inst) {
    let t = compact::tables(p).unwrap();
    let datatype = *t
        .datatype
        .iter()
        .find(|&&d| (d >> 5) & 3 == 1 && (d >> 10) & 3 == 1)
        .expect("a row with two GRF sources");
    let inst = Inst {
        opcode: 0x40,
        debug: 0,
        control: t.control[0],
        datatype,
        subreg: 0,
        src0: u32::from(t.src[0]),
        src1: u32::from(t.src[0]),
        bit28: 0,
        cond: 0,
        flag: 0,
        dst_reg: 3,
        src0_reg: 4,
        src1_reg: 5,
        imm: 0,
    };
    (t, inst)
}

#[test]
fn what_never_compacts() {
    for p in COMPACTING {
        let (t, inst) = base(p);
        let native = inst.native(t);
        assert!(compact::compact(p, native).is_some(), "{p} base");
        // Three-source opcodes (none on G45; mad/lrp on Gen6; bfe/bfi2 too on Gen7).
        for &op in t.three_source {
            let mut n = native;
            n[0] = (n[0] & !0x7f) | u32::from(op);
            assert_eq!(compact::compact(p, n), None, "{p} 3-src {op:#x}");
        }
        // A word already flagged compact is not a native instruction.
        assert_eq!(
            compact::compact(p, [native[0] | 1 << 29, native[1], native[2], native[3]]),
            None
        );
        // Bits no compact field carries: 7, 95:91 (Gen6 also 90, Gen7 47 = NibCtrl),
        // 127:121 with register sources.
        let mut unmapped = vec![7, 91, 92, 93, 94, 95, 121, 127];
        match p {
            IsaGen::G45 | IsaGen::Gen6 => unmapped.push(90),
            _ => unmapped.push(47),
        }
        for bit in unmapped {
            let mut n = native;
            n[bit / 32] |= 1 << (bit % 32);
            assert_eq!(compact::compact(p, n), None, "{p} bit {bit}");
        }
    }
}

#[test]
fn immediates_follow_each_generation() {
    for p in COMPACTING {
        let t = compact::tables(p).unwrap();
        let imm_rows: Vec<u32> = t
            .datatype
            .iter()
            .copied()
            .filter(|d| (d >> 5) & 3 == 3 || (d >> 10) & 3 == 3)
            .collect();
        // G45 has no immediate rows at all; Gen6 and Gen7 have several.
        assert_eq!(imm_rows.is_empty(), p == IsaGen::G45, "{p}");
        for datatype in imm_rows {
            let (_, mut inst) = base(p);
            inst.datatype = datatype;
            for (imm, fits) in [
                (0u32, true),
                (0x0000_0fff, true),
                (0xffff_f000, true),
                (0xffff_ffff, true),
                (0x0000_1000, false),
                (0xffff_efff, false),
                (0x8000_0000, false),
                (0x0001_0001, false),
            ] {
                inst.imm = imm;
                let got = compact::compact(p, inst.native(t));
                assert_eq!(got.is_some(), fits, "{p} {datatype:#x} imm {imm:#x}");
                if fits {
                    check(p, t, &inst);
                }
            }
        }
    }
}

#[test]
fn eot_send_never_compacts() {
    for p in [IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75] {
        let (t, mut inst) = base(p);
        inst.datatype = *t.datatype.iter().find(|&&d| (d >> 10) & 3 == 3).unwrap();
        inst.imm = 0xffff_f010;
        for opcode in [0x31, 0x32] {
            inst.opcode = opcode;
            assert_eq!(compact::compact(p, inst.native(t)), None, "{p}");
        }
        inst.opcode = 0x40;
        assert!(compact::compact(p, inst.native(t)).is_some(), "{p}");
    }
}
