//! Differential test against real compiler output: our OpenCL C kernels
//! (`tests/igc/*.cl`) are compiled for DG2 by Intel's compiler (`ocloc`, the
//! IGC of Debian's intel-opencl-icd) at test time, in several variants
//! (default, SIMD8/16/32, -O0, stateless A64). Every `.text.*` section of
//! the zebin ELFs it writes is taken through the whole toolkit:
//!   - every instruction decodes (`decode_kernel`, Gen12.5);
//!   - every native word re-encodes to the same 16 bytes, every compact word
//!     expands and compacts back to the same 8 bytes;
//!   - our disassembly equals `iga64 -p=12p71 -d`'s line for line, blanks
//!     collapsed (labels are `L<byte offset>` in both, so they compare as
//!     text); the remaining difference classes are listed in [`classify`]
//!     with a count each, so none can grow silently;
//!   - our assembler reads our disassembly back to the same bytes (the
//!     `{Compacted}` marks compacting where the compiler did), and so does
//!     iga64's;
//!   - without the marks, our compacting assembler (`baregpu asm --compact`)
//!     writes exactly what `iga64 -Xautocompact` writes for the same text
//!     (IGC itself leaves some compactable instructions native: counted in
//!     the summary).
//!
//! Like the iga64 tests, this one never skips: `isa/ensure-oracles.sh`
//! installs ocloc (Debian intel-opencl-icd) and iga64 when they are missing
//! and it can, and otherwise the test fails naming the command to run (on
//! CI too, where `.ci/run` installs them first). `XEHPG_IGC_KEEP=<dir>`
//! keeps the compiled corpus there for the next run.

mod common;

use baregpu_isa::IsaGen;
use baregpu_isa::codec::{from_dwords, to_dwords};
use baregpu_isa::compact;
use baregpu_isa::inst::Body;
use baregpu_isa::kernel::decode_kernel;
use baregpu_isa::text::{self, DisasmOptions};
use baregpu_isa::xehpg;
use common::{ensure_oracles, iga, scratch};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

const P: IsaGen = IsaGen::Gen12_5;

/// The compile variants: a tag and the options added to `-cl-std=CL2.0`.
/// `dpas.cl` pins its own subgroup size and is compiled once.
const VARIANTS: [(&str, &str); 6] = [
    ("default", ""),
    ("simd8", "-DSIMD=8"),
    ("simd16", "-DSIMD=16"),
    ("simd32", "-DSIMD=32"),
    ("O0", "-cl-opt-disable"),
    ("a64", "-cl-intel-greater-than-4GB-buffer-required"),
];

// ---------------------------------------------------------------------------
// A small ELF64 (little-endian) section reader: the zebin's `.text.<kernel>`
// sections. Every read is bounds-checked; bad input is an error.

fn rd<const N: usize>(b: &[u8], at: usize) -> Result<[u8; N], String> {
    at.checked_add(N)
        .and_then(|end| b.get(at..end))
        .map(|s| s.try_into().expect("slice of N bytes"))
        .ok_or_else(|| {
            format!(
                "ELF: {N} bytes at {at:#x} are past the end ({:#x})",
                b.len()
            )
        })
}
fn u16_at(b: &[u8], at: usize) -> Result<u16, String> {
    rd::<2>(b, at).map(u16::from_le_bytes)
}
fn u32_at(b: &[u8], at: usize) -> Result<u32, String> {
    rd::<4>(b, at).map(u32::from_le_bytes)
}
fn u64_at(b: &[u8], at: usize) -> Result<usize, String> {
    let v = rd::<8>(b, at).map(u64::from_le_bytes)?;
    usize::try_from(v).map_err(|_| format!("ELF: value {v:#x} at {at:#x} too large"))
}

/// The `(name, bytes)` of every section whose name starts with `.text.`.
fn text_sections(elf: &[u8]) -> Result<Vec<(String, Vec<u8>)>, String> {
    if rd::<4>(elf, 0)? != *b"\x7fELF" {
        return Err("ELF: no \\x7fELF magic".into());
    }
    if rd::<2>(elf, 4)? != [2, 1] {
        return Err("ELF: not 64-bit little-endian".into());
    }
    let shoff = u64_at(elf, 0x28)?;
    let shentsize = usize::from(u16_at(elf, 0x3A)?);
    let shnum = usize::from(u16_at(elf, 0x3C)?);
    let shstrndx = usize::from(u16_at(elf, 0x3E)?);
    if shentsize < 0x40 {
        return Err(format!("ELF: section header size {shentsize} < 64"));
    }
    let header = |i: usize| -> Result<(u32, u32, usize, usize), String> {
        let h = i
            .checked_mul(shentsize)
            .and_then(|o| o.checked_add(shoff))
            .ok_or("ELF: section header offset overflows")?;
        Ok((
            u32_at(elf, h)?,
            u32_at(elf, h + 4)?,
            u64_at(elf, h + 0x18)?,
            u64_at(elf, h + 0x20)?,
        ))
    };
    let bytes = |off: usize, size: usize| -> Result<&[u8], String> {
        off.checked_add(size)
            .and_then(|end| elf.get(off..end))
            .ok_or_else(|| format!("ELF: section bytes {off:#x}+{size:#x} past the end"))
    };
    if shstrndx >= shnum {
        return Err(format!("ELF: string table index {shstrndx} of {shnum}"));
    }
    let (_, _, stroff, strsize) = header(shstrndx)?;
    let strtab = bytes(stroff, strsize)?;
    let mut out = Vec::new();
    for i in 0..shnum {
        let (name, ty, off, size) = header(i)?;
        let name = strtab
            .get(name as usize..)
            .and_then(|s| s.split(|&c| c == 0).next())
            .ok_or_else(|| format!("ELF: section {i} name offset {name} outside the table"))?;
        let name = String::from_utf8_lossy(name).into_owned();
        // SHT_PROGBITS (1): code, not the `.rel.text.*` relocations.
        if ty == 1 && name.starts_with(".text.") {
            out.push((name, bytes(off, size)?.to_vec()));
        }
    }
    Ok(out)
}

#[test]
fn elf_reader_refuses_bad_input() {
    assert!(text_sections(b"").is_err());
    assert!(text_sections(b"\x7fELF\x01\x01").is_err());
    let mut h = vec![0u8; 0x40];
    h[..4].copy_from_slice(b"\x7fELF");
    h[4] = 2;
    h[5] = 1;
    // Section headers far past the end.
    h[0x28..0x30].copy_from_slice(&0xFFFF_FFFF_FFFFu64.to_le_bytes());
    h[0x3A] = 0x40;
    h[0x3C] = 2;
    assert!(text_sections(&h).is_err());
    // Offset that overflows.
    h[0x28..0x30].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(text_sections(&h).is_err());
    // String table index out of range.
    h[0x28..0x30].copy_from_slice(&0u64.to_le_bytes());
    h[0x3E] = 9;
    assert!(text_sections(&h).is_err());
}

// ---------------------------------------------------------------------------
// Compiling the corpus.

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/igc")
}

/// ocloc is installed by `isa/ensure-oracles.sh` (Debian intel-opencl-icd).
fn ensure_ocloc() {
    ensure_oracles();
    let found = Command::new("ocloc")
        .arg("query")
        .arg("--help")
        .output()
        .is_ok();
    assert!(
        found,
        "ocloc (Debian package intel-opencl-icd) is missing{}: the IGC corpus cannot be compiled",
        if std::env::var_os("CI").is_some() {
            " on CI"
        } else {
            ""
        }
    );
}

/// The zebin ocloc wrote into `out` (`<name>_XE_HPG_COREdg2.bin`).
fn cached(out: &Path) -> Option<PathBuf> {
    std::fs::read_dir(out)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "bin"))
}

/// Compiles `file` with `options`; the zebin's bytes, or ocloc's message.
fn compile(file: &Path, tag: &str, options: &str, dir: &Path) -> Result<Vec<u8>, String> {
    let stem = file.file_stem().unwrap().to_string_lossy();
    let name = format!("{stem}-{tag}");
    let out = dir.join(&name);
    std::fs::create_dir_all(&out).unwrap();
    if let Some(zebin) = cached(&out) {
        return std::fs::read(zebin).map_err(|e| e.to_string());
    }
    let opts = format!(
        "-cl-std=CL2.0 -I {} {options}",
        corpus_dir().to_string_lossy()
    );
    let r = Command::new("ocloc")
        .args(["compile", "-q", "-file"])
        .arg(file)
        .args(["-device", "dg2", "-output", &name, "-out_dir"])
        .arg(&out)
        .args(["--format", "zebin", "-options", &opts])
        .output()
        .map_err(|e| format!("running ocloc: {e}"))?;
    match cached(&out) {
        Some(p) if r.status.success() => std::fs::read(p).map_err(|e| e.to_string()),
        _ => Err(format!(
            "{}{}",
            String::from_utf8_lossy(&r.stdout),
            String::from_utf8_lossy(&r.stderr)
        )),
    }
}

/// Every (file, variant) compiled, two at a time.
fn compile_all(dir: &Path) -> Vec<(String, Result<Vec<u8>, String>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/igc")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cl"))
        .collect();
    files.sort();
    let mut jobs = Vec::new();
    for f in &files {
        for (tag, opts) in VARIANTS {
            if f.file_stem().is_some_and(|s| s == "dpas") && tag != "default" {
                continue;
            }
            jobs.push((f.clone(), tag, opts));
        }
    }
    let queue = Mutex::new(jobs.into_iter().enumerate());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let Some((k, (f, tag, opts))) = queue.lock().unwrap().next() else {
                        break;
                    };
                    let name = format!("{}/{tag}", f.file_name().unwrap().to_string_lossy());
                    let r = compile(&f, tag, opts, dir);
                    results.lock().unwrap().push((k, name, r));
                }
            });
        }
    });
    let mut r = results.into_inner().unwrap();
    r.sort_by_key(|(k, ..)| *k);
    r.into_iter().map(|(_, n, r)| (n, r)).collect()
}

// ---------------------------------------------------------------------------
// Comparing one section.

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn is_label(l: &str) -> bool {
    let l = l.trim();
    l.starts_with('L') && l.ends_with(':')
}

/// A disassembly's instruction lines: (instruction, comment), blanks
/// collapsed, label lines dropped.
fn lines(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !is_label(l))
        .map(|l| match l.split_once("//") {
            Some((i, c)) => (norm(i), norm(c)),
            None => (norm(l), String::new()),
        })
        .collect()
}

/// Why our line may differ from iga64's: every class of difference the
/// corpus shows, named, with its reason. Only the send comments differ (the
/// instruction text is equal everywhere); anything else is a failure.
fn classify(_ours: &(String, String), _theirs: &(String, String)) -> Option<&'static str> {
    // No class is left: the scratch blocks, typed surface writes and IGC's
    // EOT descriptor, the three this corpus found, are decoded now
    // (`message::xe_hdc`, `message::xe_gateway`). A new difference fails.
    None
}

/// The corpus's counts of each class: a change in either direction fails,
/// so a new difference cannot hide in an old class.
const EXPECTED_CLASSES: [(&str, usize); 0] = [];

#[derive(Default)]
struct Tally {
    sections: usize,
    instructions: usize,
    compacted: usize,
    opcodes: BTreeMap<String, usize>,
    sfids: BTreeMap<String, usize>,
    classes: BTreeMap<&'static str, usize>,
    /// Findings of our validator by severity and rule, with one example each.
    validator: BTreeMap<String, usize>,
    validator_examples: BTreeMap<String, String>,
    /// Sections our compacting assembler writes exactly as IGC did.
    autocompact_same: usize,
    /// Instructions IGC left native that have a compact form, by opcode.
    native_compactable: BTreeMap<String, usize>,
    failures: Vec<String>,
}

/// IGC pads a kernel to 64 bytes with zeros: when the last instruction is
/// compacted, 8 zero bytes are left that are no instruction (iga64 -d:
/// "warning: unexpected padding at end of kernel"). The bytes without them.
fn without_padding(bytes: &[u8]) -> &[u8] {
    // The decoder stops before padding (`kernel::is_padding`): the code ends
    // where its last instruction does.
    match decode_kernel(P, bytes) {
        Ok(entries) => match entries.last() {
            Some(e) => &bytes[..e.offset + e.size()],
            None => bytes,
        },
        Err(_) => bytes,
    }
}

/// iga64 writes bfn's function as an expression of its own
/// (`bfn.(s0&~s2|s1&s2)`), we as its value (`bfn.0xCA`): the mapping is our
/// parser's evaluation of the expression (as in tests/xehpg_iga.rs).
fn bfn_as_value(line: &str) -> String {
    line.split(' ')
        .map(|t| match t.strip_prefix("bfn.") {
            Some(f) => match xehpg::parse::bfn_function(f) {
                Ok(v) => format!("bfn.0x{v:X}"),
                Err(e) => format!("bfn.<{e}>"),
            },
            None => t.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn check_section(name: &str, bytes: &[u8], dir: &Path, t: &mut Tally) {
    let fail = |t: &mut Tally, m: String| t.failures.push(format!("{name}: {m}"));
    t.sections += 1;
    let bytes = without_padding(bytes);
    let entries = match decode_kernel(P, bytes) {
        Ok(e) => e,
        Err(e) => return fail(t, format!("does not decode: {e}")),
    };
    for e in &entries {
        t.instructions += 1;
        *t.opcodes.entry(format!("{:?}", e.inst.opcode)).or_default() += 1;
        if let Body::Send(s) = &e.inst.body {
            let sfid = s.sfid.map_or("none".into(), |f| format!("{f:?}"));
            *t.sfids.entry(sfid).or_default() += 1;
        }
        let at = e.offset;
        let dw =
            |i: usize| u32::from_le_bytes(bytes[at + 4 * i..at + 4 * i + 4].try_into().unwrap());
        let ours = xehpg::encode(&e.inst);
        if e.compacted {
            t.compacted += 1;
            let c = [dw(0), dw(1)];
            let native = compact::uncompact(P, c).expect("it decoded");
            if ours != Ok(from_dwords(native)) {
                fail(
                    t,
                    format!("{at:#x}: compact {c:08x?} re-encodes as {ours:x?}"),
                );
            }
            let again = compact::compact(P, native);
            if again != Some(c) {
                fail(
                    t,
                    format!("{at:#x}: compact {c:08x?} compacts back to {again:08x?}"),
                );
            }
        } else {
            let native = [dw(0), dw(1), dw(2), dw(3)];
            if ours.map(to_dwords) != Ok(native) {
                fail(t, format!("{at:#x}: {native:08x?} re-encodes as {ours:x?}"));
            }
        }
    }
    // What our validator (validate/xe/) says of real compiler output:
    // tallied here, asserted after the summary.
    for (_, v) in baregpu_isa::validate::validate_entries(P, &entries, bytes.len()) {
        let key = format!("{:?} {:?}", v.severity, v.rule);
        *t.validator.entry(key).or_default() += 1;
        t.validator_examples
            .entry(format!("{:?}", v.rule))
            .or_insert_with(|| format!("{name}: {v}"));
    }
    // Our disassembly against iga64's.
    let opts = DisasmOptions {
        offsets: false,
        labels: true,
        messages: true,
    };
    let ours = match text::disassemble_with(P, bytes, opts) {
        Ok(s) => s,
        Err(e) => return fail(t, format!("does not disassemble: {e}")),
    };
    let bin = dir.join("section.bin");
    std::fs::write(&bin, bytes).unwrap();
    let r = iga(&["-p=12p71", "-d", bin.to_str().unwrap()]);
    if !r.status.success() {
        return fail(
            t,
            format!("iga64 -d failed: {}", String::from_utf8_lossy(&r.stderr)),
        );
    }
    let theirs = String::from_utf8_lossy(&r.stdout).into_owned();
    let o = lines(&ours);
    let th: Vec<(String, String)> = lines(&theirs)
        .into_iter()
        .map(|(i, c)| (bfn_as_value(&i), c))
        .collect();
    if o.len() != th.len() {
        fail(
            t,
            format!("{} lines of ours, {} of iga64's", o.len(), th.len()),
        );
    }
    for (a, b) in o.iter().zip(&th) {
        if a == b {
            continue;
        }
        match classify(a, b) {
            Some(c) => *t.classes.entry(c).or_default() += 1,
            None => fail(
                t,
                format!(
                    "\n    ours  {} // {}\n    iga64 {} // {}",
                    a.0, a.1, b.0, b.1
                ),
            ),
        }
    }
    // Our assembler reads our text back to the bytes.
    match text::assemble(P, &ours) {
        Ok(b) if b == bytes => {}
        Ok(b) => fail(
            t,
            format!("our text reassembles to {} other bytes", b.len()),
        ),
        Err(e) => fail(t, format!("our text does not reassemble: {e}")),
    }
    // Without the marks, our compacting assembler (`baregpu asm --compact`)
    // chooses the same instructions to compact as IGC did.
    let unmarked = ours
        .replace("{Compacted}", "")
        .replace("{Compacted,", "{")
        .replace(",Compacted}", "}")
        .replace(",Compacted,", ",");
    let ours_compact = match text::assemble_with(P, &unmarked, text::AsmOptions { compact: true }) {
        Ok(b) => b,
        Err(e) => {
            return fail(
                t,
                format!("our text without marks does not assemble compacted: {e}"),
            );
        }
    };
    if ours_compact == bytes {
        t.autocompact_same += 1;
    }
    // IGC leaves some compactable instructions native (its choice); iga64
    // -Xautocompact compacts exactly what we do.
    let src = dir.join("unmarked.asm");
    let out = dir.join("unmarked.bin");
    std::fs::write(&src, &unmarked).unwrap();
    let _ = std::fs::remove_file(&out);
    let r = iga(&[
        "-p=12p71",
        "-a",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-Wnone",
        "-Xautocompact",
    ]);
    match std::fs::read(&out) {
        Ok(b) if r.status.success() && b == ours_compact => {}
        _ => fail(
            t,
            "iga64 -Xautocompact compacts our unmarked text differently from our --compact".into(),
        ),
    }
    for e in entries.iter().filter(|e| !e.compacted) {
        let native = xehpg::encode(&e.inst).map(to_dwords);
        if let Ok(n) = native
            && compact::compact(P, n).is_some()
        {
            let k = format!("{:?}", e.inst.opcode);
            *t.native_compactable.entry(k).or_default() += 1;
        }
    }
    // So does iga64.
    let src = dir.join("ours.asm");
    let out = dir.join("ours.bin");
    std::fs::write(&src, &ours).unwrap();
    let _ = std::fs::remove_file(&out);
    let r = iga(&[
        "-p=12p71",
        "-a",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-Wnone",
        "-Xno-autocompact",
    ]);
    match std::fs::read(&out) {
        Ok(b) if r.status.success() && b == bytes => {}
        Ok(b) if r.status.success() => {
            let at = b
                .iter()
                .zip(bytes)
                .position(|(x, y)| x != y)
                .unwrap_or(b.len());
            fail(
                t,
                format!("iga64 assembles our text differently from byte {at:#x}"),
            )
        }
        _ => fail(
            t,
            format!(
                "iga64 -a refuses our text: {}",
                String::from_utf8_lossy(&r.stderr)
            ),
        ),
    }
}

#[test]
fn igc_corpus_round_trips() {
    ensure_ocloc();
    // XEHPG_IGC_KEEP=<dir> keeps the compiled corpus there and reuses it
    // (while working on the toolkit); by default a scratch dir, removed.
    let keep = std::env::var_os("XEHPG_IGC_KEEP").map(PathBuf::from);
    let dir = keep.clone().unwrap_or_else(|| scratch("xehpg-igc"));
    let compiled = compile_all(&dir);
    let mut t = Tally::default();
    let mut refused = Vec::new();
    // Kernels by (file, name): a kernel compiled in several variants counts once.
    let mut kernels = std::collections::BTreeSet::new();
    for (name, r) in &compiled {
        let elf = match r {
            Ok(b) => b,
            Err(m) => {
                refused.push(format!("{name}: {}", m.lines().next().unwrap_or("")));
                continue;
            }
        };
        let sections = text_sections(elf).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (sec, bytes) in sections {
            let file = name.split('/').next().unwrap_or("");
            kernels.insert(format!("{file} {sec}"));
            check_section(&format!("{name} {sec}"), &bytes, &dir, &mut t);
        }
    }
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    // XEHPG_IGC_FAILURES=<file>: every failure written there (the assertion
    // message shows the first 60).
    if let Ok(f) = std::env::var("XEHPG_IGC_FAILURES") {
        std::fs::write(f, t.failures.join("\n")).unwrap();
    }
    let ops: Vec<String> = t.opcodes.iter().map(|(o, n)| format!("{o} {n}")).collect();
    let sfids: Vec<String> = t.sfids.iter().map(|(o, n)| format!("{o} {n}")).collect();
    eprintln!(
        "igc corpus: {} compiles ({} refused), {} kernels, {} sections, {} instructions ({} compacted), {} opcodes seen [{}], sends by SFID [{}]",
        compiled.len(),
        refused.len(),
        kernels.len(),
        t.sections,
        t.instructions,
        t.compacted,
        t.opcodes.len(),
        ops.join(", "),
        sfids.join(", ")
    );
    eprintln!("difference classes: {:?}", t.classes);
    eprintln!("our validator on IGC's output: {:?}", t.validator);
    for e in t.validator_examples.values() {
        eprintln!("  e.g. {e}");
    }
    // Real compiler output is legal: no error, and of the warnings only the
    // three `:ub` conversions Mesa's rule flags in IGC's -O0 symbol-table
    // stub (iga64 accepts them; the rule is Mesa's, not 004's).
    let expected: BTreeMap<String, usize> = [("Warning XeConversion".to_string(), 3)].into();
    assert_eq!(
        t.validator, expected,
        "our validator's findings on IGC's output changed"
    );
    eprintln!(
        "compaction: {} of {} sections reassemble unmarked with --compact to IGC's bytes; native words IGC left that have a compact form: {:?}",
        t.autocompact_same, t.sections, t.native_compactable
    );
    for r in &refused {
        eprintln!("refused: {r}");
    }
    let expected: BTreeMap<&str, usize> = EXPECTED_CLASSES.into_iter().collect();
    let differences: usize = t.classes.values().sum();
    eprintln!(
        "igc corpus: {differences} lines differ from iga64's, all in the classes above; instruction text equal on every line"
    );
    assert!(
        t.failures.is_empty(),
        "{} failures:\n{}",
        t.failures.len(),
        t.failures
            .iter()
            .take(60)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!(t.classes, expected, "difference classes changed");
    // The corpus cannot shrink silently (IGC 1.0.12504 gives 254 sections,
    // 165,487 instructions, 59,708 compacted, 38 opcodes, 7 SFIDs).
    assert!(refused.is_empty(), "ocloc refused: {refused:?}");
    assert!(t.sections >= 250, "only {} sections", t.sections);
    assert!(
        t.instructions >= 150_000,
        "only {} instructions",
        t.instructions
    );
    assert!(t.compacted >= 50_000, "only {} compacted", t.compacted);
    assert!(t.opcodes.len() >= 36, "only {} opcodes", t.opcodes.len());
    for sfid in [
        "Ugm",
        "Slm",
        "Tgm",
        "Sampler",
        "Gateway",
        "DpDataCache",
        "DpDataCache1",
    ] {
        assert!(t.sfids.contains_key(sfid), "no {sfid} send in the corpus");
    }
}
