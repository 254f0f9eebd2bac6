//! Reading the zebin IGC writes for OpenCL kernels (`ocloc --format zebin`):
//! an ELF whose `.text.<kernel>` sections hold each kernel's code and whose
//! `.ze_info` section is a YAML document describing how to dispatch it
//! (IGC `IGC/AdaptorOCL/ocl_igc_shared/executable_format/` ZEInfo spec;
//! the names below are its keys). Only what dispatching a kernel needs is
//! typed here; everything else stays reachable through [`yaml::Node`].

pub mod dispatch;
pub mod elf;
pub mod reloc;
pub mod yaml;

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// Why a zebin was not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ZebinError {
    /// A read past the end of the file (offset given).
    Truncated {
        at: usize,
    },
    NotElf,
    NotElf64Le,
    BadSectionTable(&'static str),
    NoZeInfo,
    NotUtf8,
    Yaml {
        line: usize,
        what: &'static str,
    },
    /// A key the dispatch needs is missing or has a value out of range.
    Field {
        kernel: String,
        key: &'static str,
        what: &'static str,
    },
    /// `.ze_info` names a kernel without a `.text.<name>` section.
    NoCode(String),
}

impl fmt::Display for ZebinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZebinError::Truncated { at } => {
                write!(f, "zebin: read at {at:#x} past the end of the file")
            }
            ZebinError::NotElf => write!(f, "zebin: no ELF magic"),
            ZebinError::NotElf64Le => write!(f, "zebin: not a 64-bit little-endian ELF"),
            ZebinError::BadSectionTable(w) => write!(f, "zebin: section table: {w}"),
            ZebinError::NoZeInfo => write!(f, "zebin: no .ze_info section"),
            ZebinError::NotUtf8 => write!(f, "zebin: .ze_info is not UTF-8"),
            ZebinError::Yaml { line, what } => write!(f, "zebin: .ze_info line {line}: {what}"),
            ZebinError::Field { kernel, key, what } => {
                write!(f, "zebin: kernel {kernel}: {key}: {what}")
            }
            ZebinError::NoCode(k) => write!(f, "zebin: kernel {k} has no .text.{k} section"),
        }
    }
}

/// One `payload_arguments` entry: where the runtime puts a value in the
/// cross-thread data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PayloadArg {
    /// `arg_type`: `arg_bypointer`, `arg_byvalue`, `global_id_offset`,
    /// `local_size`, `enqueued_local_size`, `global_size`, `group_count`,
    /// `work_dimensions`, `buffer_address`, `buffer_offset`, ...
    pub kind: String,
    pub offset: u32,
    pub size: u32,
    /// `arg_index` for the kinds tied to a kernel argument.
    pub arg_index: Option<u32>,
    /// `addrmode`: `stateless`, `stateful`, `bindless`, `slm`.
    pub addrmode: Option<String>,
    /// `addrspace`: `global`, `local`, `constant`, `image`, `sampler`.
    pub addrspace: Option<String>,
    /// `slm_alignment` of an `addrspace: local` pointer argument.
    pub slm_alignment: Option<u32>,
    /// `source_offset` of an `arg_byvalue` piece: where in the argument's
    /// bytes this entry's `size` bytes begin (a struct argument may be
    /// split into several entries).
    pub source_offset: u32,
}

/// One `per_thread_payload_arguments` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerThreadArg {
    /// `local_id` or `packed_local_ids`.
    pub kind: String,
    pub offset: u32,
    pub size: u32,
}

/// A kernel and what its dispatch needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel<'a> {
    pub name: String,
    pub code: &'a [u8],
    /// `execution_env` keys.
    pub simd: u32,
    pub grf_count: u32,
    pub inline_data_payload_size: u32,
    pub offset_to_skip_per_thread_data_load: u32,
    pub barrier_count: u32,
    pub slm_size: u32,
    pub required_work_group_size: Option<[u32; 3]>,
    pub work_group_walk_order_dimensions: Option<[u32; 3]>,
    pub payload: Vec<PayloadArg>,
    pub per_thread: Vec<PerThreadArg>,
    /// `per_thread_memory_buffers` of type `global` and usage
    /// `private_space`: the stateless private memory, in bytes per hardware
    /// thread (0: none). An entry with `is_simt_thread` gives bytes per
    /// work-item, multiplied by the SIMD width here (NEO
    /// `perHwThreadPrivateMemorySize`). The kernel finds its thread's part
    /// at `private_base_stateless` plus its hardware thread ID (sr0.0)
    /// times this size.
    pub private_per_thread: u32,
    /// `per_thread_memory_buffers` of type `scratch`: bytes per hardware
    /// thread in scratch slots 0 and 1.
    pub scratch: [u32; 2],
    /// `per_thread_memory_buffers` entries of other kinds (`type: slm`),
    /// by their type and usage.
    pub other_memory: Vec<String>,
    /// `binding_table_indices`: (binding table index, argument index) of
    /// the buffer arguments the kernel reaches through surface states.
    pub bindings: Vec<(u32, u32)>,
    /// The addresses to patch into `code` before it runs
    /// ([`reloc::relocate`]).
    pub relocs: Vec<reloc::Reloc>,
}

impl Kernel<'_> {
    /// The cross-thread data's size: the end of its last argument rounded
    /// up to 32 bytes (IGC's prologue on DG2 finds per-thread data at
    /// `align32(end) - inline size` past the indirect data; vISA
    /// PrologEpilog.cpp PayloadLoader perThreadOffsetMem).
    pub fn cross_thread_size(&self) -> u32 {
        let end = self
            .payload
            .iter()
            .map(|a| a.offset.saturating_add(a.size))
            .max()
            .unwrap_or(0);
        end.div_ceil(32).saturating_mul(32)
    }

    /// Local ID components the kernel reads (`local_id`: 0 when absent).
    pub fn local_id_channels(&self) -> u32 {
        // One register run per component: SIMD lanes' 16-bit IDs, a whole
        // 32-byte register at least (IGC's per-thread payload).
        let per = (self.simd * 2).max(32);
        self.per_thread
            .iter()
            .filter(|a| a.kind == "local_id")
            .map(|a| a.size / per)
            .sum()
    }

    /// The per-thread data one thread's prologue loads (bytes).
    pub fn per_thread_size(&self) -> u32 {
        self.per_thread
            .iter()
            .map(|a| a.offset.saturating_add(a.size))
            .max()
            .unwrap_or(0)
            .div_ceil(32)
            .saturating_mul(32)
    }

    /// Bytes of by-value argument `index` (the end of its last piece), or
    /// `None` when the kernel takes no such argument by value.
    pub fn value_size(&self, index: u32) -> Option<u32> {
        self.payload
            .iter()
            .filter(|a| a.kind == "arg_byvalue" && a.arg_index == Some(index))
            .map(|a| a.source_offset.saturating_add(a.size))
            .max()
    }

    pub fn arg(&self, kind: &str) -> Option<&PayloadArg> {
        self.payload.iter().find(|a| a.kind == kind)
    }
}

/// A read zebin: its kernels and the parsed `.ze_info`.
#[derive(Clone, Debug)]
pub struct Zebin<'a> {
    pub kernels: Vec<Kernel<'a>>,
    pub zeinfo: yaml::Node,
    /// Program-scope data (`__constant`, `__global` variables, built-in
    /// tables), laid out per segment.
    pub data: reloc::Data,
}

impl<'a> Zebin<'a> {
    pub fn kernel(&self, name: &str) -> Option<&Kernel<'a>> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

fn field(kernel: &str, key: &'static str, what: &'static str) -> ZebinError {
    ZebinError::Field {
        kernel: String::from(kernel),
        key,
        what,
    }
}

fn num(
    node: Option<&yaml::Node>,
    kernel: &str,
    key: &'static str,
) -> Result<Option<u32>, ZebinError> {
    let Some(n) = node else { return Ok(None) };
    let s = n
        .as_str()
        .ok_or_else(|| field(kernel, key, "not a scalar"))?;
    let v = if let Some(h) = s.strip_prefix("0x") {
        u32::from_str_radix(h, 16)
    } else {
        s.parse()
    };
    v.map(Some)
        .map_err(|_| field(kernel, key, "not a 32-bit number"))
}

fn triple(
    node: Option<&yaml::Node>,
    kernel: &str,
    key: &'static str,
) -> Result<Option<[u32; 3]>, ZebinError> {
    let Some(n) = node else { return Ok(None) };
    let items = n.items();
    if items.len() != 3 {
        return Err(field(kernel, key, "not three numbers"));
    }
    let mut out = [0; 3];
    for (o, i) in out.iter_mut().zip(items) {
        *o = num(Some(i), kernel, key)?.unwrap_or(0);
    }
    Ok(Some(out))
}

fn text(node: Option<&yaml::Node>) -> Option<String> {
    node.and_then(yaml::Node::as_str).map(String::from)
}

/// Reads `elf`.
pub fn read(elf: &[u8]) -> Result<Zebin<'_>, ZebinError> {
    let sections = elf::sections(elf)?;
    let info = sections
        .iter()
        .find(|s| s.name == ".ze_info")
        .ok_or(ZebinError::NoZeInfo)?;
    let src = core::str::from_utf8(info.bytes).map_err(|_| ZebinError::NotUtf8)?;
    let zeinfo = yaml::parse(src)?;
    let data = reloc::Data::read(&sections);
    let mut kernels = Vec::new();
    for k in zeinfo.get("kernels").map_or(&[][..], yaml::Node::items) {
        let name = text(k.get("name")).ok_or_else(|| field("?", "name", "missing"))?;
        let n = name.as_str();
        let env = k
            .get("execution_env")
            .ok_or_else(|| field(n, "execution_env", "missing"))?;
        let simd = num(env.get("simd_size"), n, "simd_size")?
            .ok_or_else(|| field(n, "simd_size", "missing"))?;
        if !matches!(simd, 1 | 8 | 16 | 32) {
            return Err(field(n, "simd_size", "not 1, 8, 16 or 32"));
        }
        let code = sections
            .iter()
            .find(|s| s.name.strip_prefix(".text.") == Some(n))
            .ok_or_else(|| ZebinError::NoCode(name.clone()))?
            .bytes;
        let mut payload = Vec::new();
        for a in k
            .get("payload_arguments")
            .map_or(&[][..], yaml::Node::items)
        {
            payload.push(PayloadArg {
                kind: text(a.get("arg_type")).ok_or_else(|| field(n, "arg_type", "missing"))?,
                offset: num(a.get("offset"), n, "offset")?.unwrap_or(0),
                size: num(a.get("size"), n, "size")?.unwrap_or(0),
                arg_index: num(a.get("arg_index"), n, "arg_index")?,
                addrmode: text(a.get("addrmode")),
                addrspace: text(a.get("addrspace")),
                slm_alignment: num(a.get("slm_alignment"), n, "slm_alignment")?,
                source_offset: num(a.get("source_offset"), n, "source_offset")?.unwrap_or(0),
            });
        }
        let mut per_thread = Vec::new();
        for a in k
            .get("per_thread_payload_arguments")
            .map_or(&[][..], yaml::Node::items)
        {
            per_thread.push(PerThreadArg {
                kind: text(a.get("arg_type")).ok_or_else(|| field(n, "arg_type", "missing"))?,
                offset: num(a.get("offset"), n, "offset")?.unwrap_or(0),
                size: num(a.get("size"), n, "size")?.unwrap_or(0),
            });
        }
        let mut private_per_thread = 0u32;
        let mut scratch = [0u32; 2];
        let mut other_memory = Vec::new();
        for b in k
            .get("per_thread_memory_buffers")
            .map_or(&[][..], yaml::Node::items)
        {
            let size = num(b.get("size"), n, "size")?.unwrap_or(0);
            let kind = text(b.get("type")).unwrap_or_default();
            let usage = text(b.get("usage")).unwrap_or_default();
            match (kind.as_str(), usage.as_str()) {
                ("global", "private_space") => {
                    let simt = b.get("is_simt_thread").and_then(yaml::Node::as_str) == Some("true");
                    let per = if simt {
                        size.saturating_mul(simd)
                    } else {
                        size
                    };
                    private_per_thread = private_per_thread.saturating_add(per);
                }
                ("scratch", _) => {
                    let slot = num(b.get("slot"), n, "slot")?.unwrap_or(0);
                    let s = scratch
                        .get_mut(slot as usize)
                        .ok_or_else(|| field(n, "slot", "not 0 or 1"))?;
                    *s = s.saturating_add(size);
                }
                _ => other_memory.push(alloc::format!("{kind} {usage}")),
            }
        }
        let mut bindings = Vec::new();
        for b in k
            .get("binding_table_indices")
            .map_or(&[][..], yaml::Node::items)
        {
            let bti = num(b.get("bti_value"), n, "bti_value")?
                .ok_or_else(|| field(n, "bti_value", "missing"))?;
            let arg = num(b.get("arg_index"), n, "arg_index")?
                .ok_or_else(|| field(n, "arg_index", "missing"))?;
            bindings.push((bti, arg));
        }
        kernels.push(Kernel {
            private_per_thread,
            scratch,
            other_memory,
            bindings,
            relocs: reloc::kernel_relocs(&sections, &data, n)?,
            code,
            simd,
            grf_count: num(env.get("grf_count"), n, "grf_count")?.unwrap_or(128),
            inline_data_payload_size: num(
                env.get("inline_data_payload_size"),
                n,
                "inline_data_payload_size",
            )?
            .unwrap_or(0),
            offset_to_skip_per_thread_data_load: num(
                env.get("offset_to_skip_per_thread_data_load"),
                n,
                "offset_to_skip_per_thread_data_load",
            )?
            .unwrap_or(0),
            barrier_count: num(env.get("barrier_count"), n, "barrier_count")?.unwrap_or(0),
            slm_size: num(env.get("slm_size"), n, "slm_size")?.unwrap_or(0),
            required_work_group_size: triple(
                env.get("required_work_group_size"),
                n,
                "required_work_group_size",
            )?,
            work_group_walk_order_dimensions: triple(
                env.get("work_group_walk_order_dimensions"),
                n,
                "work_group_walk_order_dimensions",
            )?,
            payload,
            per_thread,
            name,
        });
    }
    Ok(Zebin {
        kernels,
        zeinfo,
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_files_are_errors() {
        assert_eq!(read(b"").unwrap_err(), ZebinError::Truncated { at: 0 });
        assert_eq!(
            read(b"\x7fELF\x01\x01").unwrap_err(),
            ZebinError::NotElf64Le
        );
        let mut h = alloc::vec![0u8; 0x40];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = 2;
        h[5] = 1;
        h[0x3A] = 0x40;
        h[0x3C] = 1;
        // One section header past the end of the file.
        h[0x28] = 0x40;
        assert!(matches!(read(&h), Err(ZebinError::Truncated { .. })));
    }

    /// A zebin of `sections` (name, bytes), with a section-name table.
    fn elf(sections: &[(&str, &[u8])]) -> Vec<u8> {
        let mut names = alloc::vec![0u8];
        let mut body = Vec::new();
        let mut heads = Vec::new();
        let all: Vec<(&str, &[u8])> = sections
            .iter()
            .copied()
            .chain([(".shstrtab", &[][..])])
            .collect();
        for (name, _) in &all {
            heads.push(names.len() as u32);
            names.extend_from_slice(name.as_bytes());
            names.push(0);
        }
        let mut out = alloc::vec![0u8; 0x40];
        let mut offs = Vec::new();
        for (i, (_, bytes)) in all.iter().enumerate() {
            let b: &[u8] = if i + 1 == all.len() { &names } else { bytes };
            offs.push((0x40 + body.len(), b.len()));
            body.extend_from_slice(b);
        }
        out.extend_from_slice(&body);
        let shoff = out.len();
        out.extend_from_slice(&[0u8; 0x40]); // the null section
        for (i, (off, len)) in offs.iter().enumerate() {
            let mut h = [0u8; 0x40];
            h[0..4].copy_from_slice(&heads[i].to_le_bytes());
            h[4..8].copy_from_slice(&1u32.to_le_bytes()); // SHT_PROGBITS
            h[0x18..0x20].copy_from_slice(&(*off as u64).to_le_bytes());
            h[0x20..0x28].copy_from_slice(&(*len as u64).to_le_bytes());
            out.extend_from_slice(&h);
        }
        out[..4].copy_from_slice(b"\x7fELF");
        out[4] = 2;
        out[5] = 1;
        out[0x28..0x30].copy_from_slice(&(shoff as u64).to_le_bytes());
        out[0x3A] = 0x40;
        let n = all.len() as u16 + 1;
        out[0x3C..0x3E].copy_from_slice(&n.to_le_bytes());
        out[0x3E..0x40].copy_from_slice(&n.wrapping_sub(1).to_le_bytes());
        out
    }

    /// IGC's private memory and scratch entries (as `ocloc -device dg2`
    /// writes them): per work-item sizes count per hardware thread times
    /// the SIMD width (NEO perHwThreadPrivateMemorySize), scratch by slot.
    #[test]
    fn per_thread_memory_buffers() {
        let info = "---
version: '1.20'
kernels:
  - name: k
    execution_env:
      simd_size: 16
    per_thread_memory_buffers:
      - type: global
        usage: private_space
        size: 256
        is_simt_thread: true
      - type: scratch
        usage: spill_fill_space
        size: 1024
      - type: scratch
        usage: private_space
        size: 64
        slot: 1
...
";
        let file = elf(&[(".ze_info", info.as_bytes()), (".text.k", &[0u8; 16])]);
        let z = read(&file).unwrap();
        let k = &z.kernels[0];
        assert_eq!(k.private_per_thread, 256 * 16);
        assert_eq!(k.scratch, [1024, 64]);
        assert!(k.other_memory.is_empty());
        // Per hardware thread without is_simt_thread.
        let per_hw = info.replace("        is_simt_thread: true\n", "");
        let file = elf(&[(".ze_info", per_hw.as_bytes()), (".text.k", &[0u8; 16])]);
        assert_eq!(read(&file).unwrap().kernels[0].private_per_thread, 256);
        let slm = info.replace("type: global", "type: slm");
        let file = elf(&[(".ze_info", slm.as_bytes()), (".text.k", &[0u8; 16])]);
        let z = read(&file).unwrap();
        assert_eq!(z.kernels[0].private_per_thread, 0);
        assert_eq!(z.kernels[0].other_memory, ["slm private_space"]);
        let bad = info.replace("slot: 1", "slot: 2");
        let file = elf(&[(".ze_info", bad.as_bytes()), (".text.k", &[0u8; 16])]);
        assert!(read(&file).is_err());
    }
}
