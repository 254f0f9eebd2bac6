//! Binaries → text: every instruction of a kernel printed with
//! [`super::print`], checked to reassemble exactly, with labels at branch
//! targets on request.

use alloc::collections::BTreeSet;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::{self, Write};

use super::jumps;
use super::print::{Labels, print_with};
use crate::codec;
use crate::compact;
use crate::generation::IsaGen;
use crate::inst::Jump;
use crate::inst::{Body, Instruction, Send, SendDesc};

/// Why a binary does not disassemble.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DisasmError {
    /// Byte offset of the offending instruction.
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for DisasmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "offset {:#06x}: {}", self.offset, self.message)
    }
}

impl core::error::Error for DisasmError {}

/// What the disassembly shows besides the instructions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DisasmOptions {
    /// Each line starts with its byte offset in a comment: `/* 0040 */`.
    pub offsets: bool,
    /// Branch targets inside the kernel (or at its end) get a label line
    /// `L64:` (the byte offset, as iga64 names them), and the jump fields
    /// that land there print the label instead of a number.
    pub labels: bool,
    /// A send with an immediate descriptor gets its message in the
    /// symbolic syntax of [`crate::message`] as a trailing comment
    /// (`// dc.untyped_read(bti=1, simd=8, mask=xyzw) mlen=2 rlen=4`), which
    /// the assembler also accepts in place of the two numbers.
    pub messages: bool,
}

/// Disassembles a binary of native and (from G45 on) compact instructions,
/// one line per instruction prefixed by its byte offset in a comment when
/// `offsets` is set; branch targets are numbers. A line that would not
/// reassemble to the same bits is written as `.raw` with the text as a
/// comment.
pub fn disassemble(p: IsaGen, bytes: &[u8], offsets: bool) -> Result<String, DisasmError> {
    disassemble_with(
        p,
        bytes,
        DisasmOptions {
            offsets,
            labels: false,
            messages: false,
        },
    )
}

/// One decoded instruction and the words it came from.
struct Decoded {
    at: usize,
    size: usize,
    native: [u32; 4],
    compacted: Option<[u32; 2]>,
    inst: Instruction,
}

/// [`disassemble`] with options.
pub fn disassemble_with(
    p: IsaGen,
    bytes: &[u8],
    opts: DisasmOptions,
) -> Result<String, DisasmError> {
    let mut out = String::new();
    disassemble_to(p, bytes, opts, &mut out)?;
    Ok(out)
}

/// [`disassemble_with`] writing each line to `out` as it is made, holding
/// only the label offsets: a first pass decodes every word (so a binary
/// that does not decode writes nothing) and collects the branch targets,
/// the second decodes again and prints. A failed write stops with an
/// error at the offset of the line it was writing.
pub fn disassemble_to(
    p: IsaGen,
    bytes: &[u8],
    opts: DisasmOptions,
    out: &mut impl Write,
) -> Result<(), DisasmError> {
    if p.is_xe() {
        return xe_disassemble_to(p, bytes, opts, out);
    }
    let labels = first_pass(p, bytes, opts.labels)?;
    let mut at = 0;
    let mut line = String::new();
    while at < bytes.len() && !crate::kernel::is_padding(p, bytes, at) {
        let d = decode_at(p, bytes, at)?;
        line.clear();
        write_line(p, &d, &labels, opts, &mut line);
        out.write_str(&line).map_err(|_| write_failed(at))?;
        at += d.size;
    }
    if labels.contains(&(bytes.len() as i64)) {
        writeln!(out, "L{}:", bytes.len()).map_err(|_| write_failed(at))?;
    }
    Ok(())
}

fn write_failed(offset: usize) -> DisasmError {
    DisasmError {
        offset,
        message: String::from("cannot write the disassembly"),
    }
}

/// One instruction's lines (its label, if any, and the instruction).
fn write_line(
    p: IsaGen,
    d: &Decoded,
    labels: &BTreeSet<i64>,
    opts: DisasmOptions,
    out: &mut String,
) {
    if labels.contains(&(d.at as i64)) {
        let _ = writeln!(out, "L{}:", d.at);
    }
    let mut text = print_with(p, &d.inst, None);
    if d.compacted.is_some() {
        push_option(&mut text, "Compacted");
    }
    let exact = super::asm::parse_line(p, &text, 1)
        .ok()
        .flatten()
        .is_some_and(|item| item.inst == d.inst && item.compacted == d.compacted.is_some());
    if opts.offsets {
        let _ = write!(out, "/* {:04x} */ ", d.at);
    }
    if exact && !labels.is_empty() {
        // The labels resolve to the numbers just checked.
        let here = Labels {
            at: d.at,
            size: d.size,
            set: labels,
        };
        text = print_with(p, &d.inst, Some(&here));
        if d.compacted.is_some() {
            push_option(&mut text, "Compacted");
        }
    }
    if exact {
        out.push_str(&text);
        if opts.messages
            && let Some(m) = message_comment(p, &d.inst)
        {
            let _ = write!(out, " // {m}");
        }
    } else {
        match d.compacted {
            Some(c) => {
                let _ = write!(out, ".raw {:#010x} {:#010x}", c[0], c[1]);
            }
            None => {
                let n = d.native;
                let _ = write!(
                    out,
                    ".raw {:#010x} {:#010x} {:#010x} {:#010x}",
                    n[0], n[1], n[2], n[3]
                );
            }
        }
        let _ = write!(out, " // {text}");
    }
    out.push('\n');
}

/// Gen12.5: the `crate::xehpg` printer, branch targets as IGA's labels,
/// compact words expanded and marked `{Compacted}` (tests/xehpg_iga.rs
/// checks the text against iga64's).
fn xe_disassemble_to(
    p: IsaGen,
    bytes: &[u8],
    opts: DisasmOptions,
    out: &mut impl Write,
) -> Result<(), DisasmError> {
    let mut decoded = Vec::new();
    let mut labels = BTreeSet::new();
    let mut at = 0;
    while at < bytes.len() && !crate::kernel::is_padding(p, bytes, at) {
        let d = decode_at(p, bytes, at)?;
        if let Body::Branch(b) = &d.inst.body {
            let here = d.at as i64;
            match b.jump {
                Jump::JipUip { jip, uip } => {
                    labels.insert(here + i64::from(jip));
                    labels.insert(here + i64::from(uip));
                }
                Jump::Jip { jip } => {
                    labels.insert(here + i64::from(jip));
                }
                Jump::Count { .. } => {}
            }
        }
        at += d.size;
        decoded.push(d);
    }
    let mut line = String::new();
    for d in &decoded {
        line.clear();
        if opts.labels && labels.contains(&(d.at as i64)) {
            let _ = writeln!(line, "L{}:", d.at);
        }
        if opts.offsets {
            let _ = write!(line, "/* {:04x} */ ", d.at);
        }
        let pc = opts.labels.then_some(d.at as i64);
        line.push_str(&crate::xehpg::print::print_with(
            &d.inst,
            pc,
            d.compacted.is_some(),
        ));
        if opts.messages
            && let Some(m) = xe_message_comment(&d.inst)
        {
            let _ = write!(line, " // {m}");
        }
        line.push('\n');
        out.write_str(&line).map_err(|_| write_failed(d.at))?;
    }
    if opts.labels && labels.contains(&(bytes.len() as i64)) {
        writeln!(out, "L{}:", bytes.len()).map_err(|_| write_failed(bytes.len()))?;
    }
    Ok(())
}

/// The symbolic form of a send's immediate descriptor, when it has one.
fn message_comment(p: IsaGen, inst: &Instruction) -> Option<String> {
    match &inst.body {
        Body::Send(Send {
            desc: SendDesc::Imm { desc, .. },
            sfid: Some(sfid),
            ..
        }) => crate::message::print_symbolic(p, *sfid, desc).ok(),
        _ => None,
    }
}

/// Gen12.5: an LSC send's message as iga64 comments it (`wr:2+0, rd:4;
/// load.ugm.d32x4.a64`), when the descriptor is immediate and decodes and
/// the second payload's length is in the instruction.
fn xe_message_comment(inst: &Instruction) -> Option<String> {
    let Body::Send(s) = &inst.body else {
        return None;
    };
    // A register descriptor: iga64 names the bits it takes the lengths
    // from (`wr:a0.0[28:25]+2, rd:a0.0[24:20]`, iga64 -p=12p71 on IGC's
    // sampler and data-port sends, tests/xehpg_igc.rs).
    if let (SendDesc::Reg(_), Some(crate::inst::ExDesc::Imm(ex))) = (&s.desc, s.ex_desc) {
        return Some(alloc::format!(
            "wr:a0.0[28:25]+{}, rd:a0.0[24:20]",
            (ex >> 6) & 0x1F
        ));
    }
    // The legacy functions: iga64's description, `h` after the message
    // length when the header bit is set.
    use crate::inst::Sfid;
    if let (
        Some(
            sfid @ (Sfid::Gateway
            | Sfid::Urb
            | Sfid::DpRenderCache
            | Sfid::Sampler
            | Sfid::DpDataCache
            | Sfid::DpDataCache1),
        ),
        SendDesc::Imm { desc, .. },
        Some(crate::inst::ExDesc::Imm(ex)),
    ) = (s.sfid, &s.desc, s.ex_desc)
    {
        let word = desc.function | u32::from(desc.header) << 19;
        let text = match sfid {
            Sfid::Gateway => crate::message::xe_gateway::decode(word).ok()?.to_string(),
            Sfid::Urb => crate::message::xe_urb::decode(word).ok()?.to_string(),
            Sfid::Sampler => crate::message::xe_sampler::decode(word).ok()?.to_string(),
            Sfid::DpDataCache => crate::message::xe_hdc::decode_dc0(word).ok()?.to_string(),
            Sfid::DpDataCache1 => crate::message::xe_hdc::decode_dc1(word)
                .ok()?
                .describe(desc.mlen, inst.exec_size),
            _ => crate::message::xe_rt::decode(word).ok()?.to_string(),
        };
        return Some(alloc::format!(
            "wr:{}{}+{}, rd:{}; {text}",
            desc.mlen,
            if desc.header { "h" } else { "" },
            (ex >> 6) & 0x1F,
            desc.rlen,
        ));
    }
    let (msg, src1_len) = crate::message::lsc::of_send(s)?;
    let SendDesc::Imm { desc, .. } = &s.desc else {
        return None;
    };
    // A null second payload has length 0 whether or not the send says so.
    let null_src1 = matches!(s.src1, Some(crate::inst::Src::Reg(r)) if r.file == crate::inst::RegFile::Arf && matches!(r.addr, crate::inst::Addr::Direct { nr: 0, .. }));
    let src1_len = src1_len.or(null_src1.then_some(0))?;
    Some(crate::message::lsc::comment(
        &msg.ok()?,
        desc.mlen,
        src1_len,
        desc.rlen,
    ))
}

/// Decodes the instruction at byte `at`, expanding a compact one.
fn decode_at(p: IsaGen, bytes: &[u8], at: usize) -> Result<Decoded, DisasmError> {
    let err = |message: String| DisasmError {
        offset: at,
        message,
    };
    let rest = &bytes[at..];
    let dw = |i: usize| {
        rest.get(4 * i..4 * i + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let trailing = || err(alloc::format!("{} trailing bytes", rest.len()));
    let (w0, w1) = dw(0).zip(dw(1)).ok_or_else(trailing)?;
    let (native, size, compacted) = if p != IsaGen::Gen4 && compact::is_compact(w0) {
        let c = [w0, w1];
        match compact::uncompact(p, c) {
            Ok(n) => (n, 8, Some(c)),
            Err(e) => return Err(err(alloc::format!("compact instruction: {e:?}"))),
        }
    } else {
        let (w2, w3) = dw(2).zip(dw(3)).ok_or_else(trailing)?;
        ([w0, w1, w2, w3], 16, None)
    };
    let inst =
        codec::decode(p, codec::from_dwords(native)).map_err(|e| err(alloc::format!("{e}")))?;
    Ok(Decoded {
        at,
        size,
        native,
        compacted,
        inst,
    })
}

/// Decodes every instruction (the first error stops it) and, with
/// `labels`, returns the byte offsets that jump fields land on and that
/// start an instruction or end the kernel. Instruction starts are kept as
/// one bit per 8 bytes, the only thing held per instruction.
fn first_pass(p: IsaGen, bytes: &[u8], labels: bool) -> Result<BTreeSet<i64>, DisasmError> {
    let mut starts = if labels {
        alloc::vec![0u64; bytes.len() / 8 / 64 + 1]
    } else {
        Vec::new()
    };
    let mut aimed = BTreeSet::new();
    let mut at = 0;
    while at < bytes.len() && !crate::kernel::is_padding(p, bytes, at) {
        let d = decode_at(p, bytes, at)?;
        if labels {
            starts[at / 8 / 64] |= 1 << (at / 8 % 64);
            for (which, value) in jumps::fields(p, &d.inst).into_iter().flatten() {
                let t = jumps::target(p, which, value, d.at, d.size);
                if (0..=bytes.len() as i64).contains(&t) {
                    aimed.insert(t);
                }
            }
        }
        at += d.size;
    }
    let start = |t: i64| {
        let t = t as usize;
        t.is_multiple_of(8) && starts[t / 8 / 64] & 1 << (t / 8 % 64) != 0
    };
    aimed.retain(|&t| t == bytes.len() as i64 || start(t));
    Ok(aimed)
}

/// Adds an option to a printed line, into its `{...}` list if it has one.
pub(crate) fn push_option(text: &mut String, opt: &str) {
    if text.ends_with('}') {
        text.pop();
        text.push(',');
        text.push_str(opt);
        text.push('}');
    } else {
        text.push_str(" {");
        text.push_str(opt);
        text.push('}');
    }
}
