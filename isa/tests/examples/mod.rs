//! Helpers of the manual-example tests: assemble our text of an example,
//! decode the bytes back, and compute from the decoded fields what the
//! manuals say the instruction does (element positions of regions, vector
//! immediates, jump landings). These computations follow the manuals'
//! rules and do not call the code under test.
#![allow(dead_code)]

pub mod gen4_env;
pub mod gen4_guide;
pub mod gen6;
pub mod gen7;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{
    Addr, Body, Dst, Imm, Instruction, Jump, MsgDesc, Opcode, RegFile, RegSrc, Region, Send,
    SendDesc, Sfid, Src,
};
use baregpu_isa::kernel::{Entry, decode_kernel};
use baregpu_isa::text::assemble;
use std::collections::BTreeMap;

/// Assembles one line, checks it is one native instruction and decodes it.
pub fn one(p: IsaGen, line: &str) -> Instruction {
    let bytes = assemble(p, line).unwrap_or_else(|e| panic!("{p}: {line}: {e}"));
    let entries = decode_kernel(p, &bytes).unwrap_or_else(|e| panic!("{p}: {line}: {e}"));
    assert_eq!(entries.len(), 1, "{line}");
    entries[0].inst
}

/// A decoded kernel and where its labels are (byte offsets).
pub struct Kernel {
    pub entries: Vec<Entry>,
    pub labels: BTreeMap<String, usize>,
    pub len: usize,
}

impl Kernel {
    /// The instruction at index `i`.
    pub fn inst(&self, i: usize) -> &Instruction {
        &self.entries[i].inst
    }

    /// Index of the instruction at byte offset `at`, or the count at the end.
    pub fn index_at(&self, at: usize) -> Option<usize> {
        if at == self.len {
            return Some(self.entries.len());
        }
        self.entries.iter().position(|e| e.offset == at)
    }

    /// Byte offset of label `name`.
    pub fn label(&self, name: &str) -> usize {
        *self
            .labels
            .get(name)
            .unwrap_or_else(|| panic!("no label {name}"))
    }

    /// Where the jumps of instruction `i` land.
    pub fn lands(&self, p: IsaGen, i: usize) -> Vec<usize> {
        lands(p, &self.entries[i])
    }
}

/// Assembles a kernel and finds its labels from the source text: a line
/// `NAME:` names the next instruction (or the end).
pub fn kernel(p: IsaGen, src: &str) -> Kernel {
    let bytes = assemble(p, src).unwrap_or_else(|e| panic!("{p}: {e}\n{src}"));
    let entries = decode_kernel(p, &bytes).unwrap_or_else(|e| panic!("{p}: {e}"));
    let mut labels = BTreeMap::new();
    let mut pending = Vec::new();
    let mut index = 0;
    for line in src.lines() {
        let code = line.split("//").next().unwrap_or("").trim();
        if code.is_empty() {
            continue;
        }
        if let Some(name) = code.strip_suffix(':') {
            pending.push(name.to_string());
            continue;
        }
        let at = entries[index].offset;
        for name in pending.drain(..) {
            labels.insert(name, at);
        }
        index += 1;
    }
    for name in pending {
        labels.insert(name, bytes.len());
    }
    assert_eq!(index, entries.len(), "one instruction per line");
    Kernel {
        entries,
        labels,
        len: bytes.len(),
    }
}

/// Where the jump fields of `e` land (byte offsets), by the manuals' rules:
/// JIP/UIP and jump counts are added to the IP of the branch itself ("IP
/// pre-increment": 000 line 11084, 003 lines 97017-97027); `jmpi` counts
/// from the next instruction (000 lines 11928-11953, 003 lines
/// 98602-98610) in 128-bit units on Gen4 and 64-bit units on Gen6/Gen7;
/// `call` from itself (003 lines 97116-97127).
pub fn lands(p: IsaGen, e: &Entry) -> Vec<usize> {
    let at = e.offset as i64;
    let unit = if p < IsaGen::Gen6 { 16 } else { 8 };
    let out: Vec<i64> = match &e.inst.body {
        Body::Branch(b) => match b.jump {
            Jump::Count { jump, .. } | Jump::Jip { jip: jump } => vec![at + i64::from(jump)],
            Jump::JipUip { jip, uip } => vec![at + i64::from(jip), at + i64::from(uip)],
        },
        Body::Alu(a) => match (&a.src1, e.inst.opcode) {
            (Src::Imm(imm), Opcode::Jmpi) => {
                vec![at + e.size() as i64 + i64::from(imm.bits as u32 as i32) * unit]
            }
            (Src::Imm(imm), Opcode::Call) => vec![at + i64::from(imm.bits as u32 as i32) * unit],
            _ => vec![],
        },
        _ => vec![],
    };
    out.into_iter().map(|t| t as usize).collect()
}

/// The destination of an ALU or math instruction.
pub fn dst(i: &Instruction) -> &Dst {
    i.dst().unwrap_or_else(|| panic!("no destination: {i:?}"))
}

/// Register source `k` (0 or 1).
pub fn reg(i: &Instruction, k: usize) -> &RegSrc {
    match i.srcs()[k] {
        Some(Src::Reg(r)) => r,
        other => panic!("source {k} is not a register: {other:?}"),
    }
}

/// Immediate source `k`.
pub fn imm(i: &Instruction, k: usize) -> Imm {
    match i.srcs()[k] {
        Some(Src::Imm(v)) => *v,
        other => panic!("source {k} is not an immediate: {other:?}"),
    }
}

/// The send fields: SFID, immediate descriptor, base MRF.
pub fn send(i: &Instruction) -> (&Send, Option<Sfid>, MsgDesc) {
    let Body::Send(s) = &i.body else {
        panic!("not a send: {i:?}");
    };
    let SendDesc::Imm { desc, .. } = s.desc else {
        panic!("register descriptor");
    };
    (s, s.sfid, desc)
}

/// Byte address of a direct operand in its register file.
pub fn base(addr: &Addr) -> i64 {
    match *addr {
        Addr::Direct { nr, subnr } => i64::from(nr) * 32 + i64::from(subnr),
        Addr::Indirect { .. } => panic!("indirect operand"),
    }
}

/// Byte address of each channel's element of a direct source region
/// (000 lines 8259-8352, 003 lines 91430-91446): channel c sits in row
/// c / Width, column c % Width, at VertStride elements per row and
/// HorzStride per column. Align16 (003 lines 94250-94260): channel c reads
/// element ChanSel[c % 4] of the 4-element group c / 4, groups VertStride
/// elements apart.
pub fn channels(r: &RegSrc, exec: u8) -> Vec<i64> {
    let size = i64::from(r.ty.size());
    let origin = base(&r.addr);
    (0..i64::from(exec))
        .map(|c| match r.region {
            Region::Align1 {
                vstride,
                width,
                hstride,
            } => {
                let w = i64::from(width);
                origin + ((c / w) * i64::from(vstride) + (c % w) * i64::from(hstride)) * size
            }
            Region::Align16 { vstride, swizzle } => {
                let group = (c / 4) * i64::from(vstride);
                origin + (group + i64::from(swizzle.component((c % 4) as u8))) * size
            }
            Region::VxH { .. } => panic!("indirect region"),
        })
        .collect()
}

/// Byte address of each channel's destination element (Align1).
pub fn dst_channels(d: &Dst, exec: u8) -> Vec<i64> {
    let size = i64::from(d.ty.size());
    (0..i64::from(exec))
        .map(|c| base(&d.addr) + c * i64::from(d.hstride) * size)
        .collect()
}

/// The eight signed 4-bit elements of a `:v` immediate, V0 first: element
/// i is bits [4i+3:4i] (000 lines 8241-8245, 003 lines 101826-101836).
pub fn expand_v(bits: u64) -> [i8; 8] {
    let mut v = [0i8; 8];
    for (i, e) in v.iter_mut().enumerate() {
        let n = ((bits >> (4 * i)) & 0xF) as i8;
        *e = if n >= 8 { n - 16 } else { n };
    }
    v
}

/// Whether `r` names ARF register kind base `arf` (e.g. `arf::A0`).
pub fn is_arf(file: RegFile, addr: &Addr, arf: u8) -> bool {
    file == RegFile::Arf && matches!(*addr, Addr::Direct { nr, .. } if nr & 0xF0 == arf)
}
