//! Differential test against Intel's assembler, `iga64 -p=7p5` (Haswell), which decodes
//! and (with -Xautocompact; this version's default is no compaction) encodes compact
//! instructions through Intel's own GED tables.
//!
//! 1. A few hundred instructions in IGA syntax are assembled with and without
//!    compaction; our `compact` of each native form must equal IGA's choice, and our
//!    `uncompact` of each IGA compact form must equal the native form.
//! 2. For every row of every Gen7.5 table, instructions built to use it are disassembled
//!    by IGA from our compact form and from our expansion: the two texts must agree. Where
//!    IGA's text reassembles to exactly our native bits, IGA must also compact it as we do.
//!
//! Without iga64 the test installs it (isa/ensure-oracles.sh) or fails saying how.

use baregpu_isa::IsaGen;
use baregpu_isa::compact::{self, CompactTables};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs};

const P: IsaGen = IsaGen::Gen75;

fn find_iga() -> Option<PathBuf> {
    let path = env::var_os("PATH")?;
    env::split_paths(&path)
        .map(|d| d.join("iga64"))
        .find(|p| p.is_file())
}

/// iga64, installed first by `isa/ensure-oracles.sh` when it is missing (as
/// the project's tests install what they need); a failed install fails the
/// test with the command to run. Always `Some`.
fn iga_or_skip(test: &str) -> Option<PathBuf> {
    if find_iga().is_none() {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/ensure-oracles.sh");
        let out = std::process::Command::new("sh")
            .arg(script)
            .output()
            .expect("run isa/ensure-oracles.sh");
        assert!(
            out.status.success(),
            "{test}: iga64 is missing and could not be installed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Some(find_iga().expect("iga64 on PATH after ensure-oracles.sh"))
}

struct Iga {
    exe: PathBuf,
    dir: PathBuf,
}

impl Iga {
    fn new(exe: PathBuf, test: &str) -> Iga {
        let dir = env::temp_dir().join(format!("baregpu-{test}-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        Iga { exe, dir }
    }

    /// Assembles `lines` (one instruction each); `None` if IGA refuses the file.
    fn assemble(&self, lines: &[String], compacted: bool) -> Result<Vec<u8>, String> {
        let (src, out) = (self.dir.join("in.asm"), self.dir.join("out.bin"));
        fs::write(&src, lines.join("\n") + "\n").unwrap();
        let mode = if compacted {
            "-Xautocompact"
        } else {
            "-Xno-autocompact"
        };
        let run = self.run(&["-a", path(&src), "-o", path(&out), "-Wnone", mode]);
        match run.status.success() {
            true => Ok(fs::read(&out).unwrap()),
            false => Err(String::from_utf8_lossy(&run.stderr).into_owned()),
        }
    }

    /// Assembles what IGA accepts of `lines` both ways: the indices kept, native, compacted.
    fn assemble_both(&self, lines: &[String]) -> (Vec<usize>, Vec<u8>, Vec<u8>) {
        let mut keep: Vec<usize> = (0..lines.len()).collect();
        for _ in 0..20 {
            let text: Vec<String> = keep.iter().map(|&i| lines[i].clone()).collect();
            let (n, c) = (self.assemble(&text, false), self.assemble(&text, true));
            let err = match (n, c) {
                (Ok(n), Ok(c)) => return (keep, n, c),
                (Err(e), _) | (_, Err(e)) => e,
            };
            // Drop the lines IGA names ("line 12.5: error: ...") and try again.
            let bad: Vec<usize> = err
                .lines()
                .filter_map(|l| l.strip_prefix("line ")?.split('.').next()?.parse().ok())
                .collect();
            assert!(
                !bad.is_empty(),
                "iga64 -a failed without naming a line: {err}"
            );
            let mut k = 0;
            keep.retain(|_| {
                k += 1;
                !bad.contains(&k)
            });
        }
        panic!("iga64 keeps refusing its own disassembly");
    }

    /// Disassembles `bytes`; one entry per instruction, `None` where IGA cannot decode.
    fn disassemble(&self, bytes: &[u8]) -> Vec<Option<String>> {
        let (bin, out) = (self.dir.join("in.bin"), self.dir.join("out.txt"));
        fs::write(&bin, bytes).unwrap();
        let _ = fs::remove_file(&out);
        self.run(&[
            "-d",
            path(&bin),
            "-o",
            path(&out),
            "--output-on-fail",
            "-Xprint-pc",
        ]);
        let text = fs::read_to_string(&out).unwrap_or_default();
        text.lines()
            .filter(|l| l.trim_start().starts_with("/* ["))
            .map(|l| normalize(l.split_once("*/").map_or("", |(_, rest)| rest)))
            .collect()
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        Command::new(&self.exe)
            .arg("-p=7p5")
            .args(args)
            .output()
            .expect("iga64 runs")
    }
}

impl Drop for Iga {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

/// Drops the Compacted option and spacing so both forms of one instruction compare equal.
fn normalize(line: &str) -> Option<String> {
    let line = line.trim();
    if line.starts_with("illegal") || line.contains("error") {
        return None;
    }
    let line = line
        .replace("{Compacted}", "")
        .replace(",Compacted", "")
        .replace("Compacted,", "");
    Some(line.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Splits a code stream into 64-bit and 128-bit instructions.
fn split(bytes: &[u8]) -> Vec<Vec<u32>> {
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let n = if compact::is_compact(words[i]) { 2 } else { 4 };
        out.push(words[i..(i + n).min(words.len())].to_vec());
        i += n;
    }
    out
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Deterministic variety for the instruction suite.
struct Rng(u64);

impl Rng {
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        items[(self.0 % items.len() as u64) as usize]
    }
}

/// A few hundred Align1 instructions: every common opcode, type, region, modifier,
/// predicate, flag register, option and immediate size, in IGA syntax.
fn suite() -> Vec<String> {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut v = Vec::new();
    let exec = [
        "(8|M0)", "(8|M0)", "(16|M0)", "(4|M0)", "(1|M0)", "(8|M8)", "(16|M16)",
    ];
    let flags = ["f0.0", "f0.1", "f1.0", "f1.1"];
    let pred = ["", "", "", "", "~"];
    let cond = ["", "", "", "lt", "eq", "ne", "gt", "ge", "le"];
    let opt = [
        "",
        "",
        "",
        " {NoDDClr}",
        " {NoDDChk}",
        " {AccWrEn}",
        " {Breakpoint}",
    ];
    let wm = ["", "", "", "W"];
    let mods = ["", "", "-", "(abs)", "-(abs)"];
    let regions = [
        "<8;8,1>", "<8;8,1>", "<0;1,0>", "<4;4,1>", "<16;8,2>", "<2;2,1>",
    ];
    let subs = ["0", "0", "0", "1", "2", "4"];
    let imms = [
        "0", "1", "5", "-1", "0x7ff", "0xfff", "-4096", "-2048", "0x1000", "0x12345",
    ];
    let two = [
        ("add", &["f", "d", "ud", "w", "uw"][..]),
        ("mul", &["f", "d", "w"][..]),
        ("and", &["ud", "d", "uw", "w"][..]),
        ("or", &["ud", "d", "uw"][..]),
        ("xor", &["ud", "d"][..]),
        ("shl", &["ud", "d", "uw"][..]),
        ("shr", &["ud", "uw"][..]),
        ("asr", &["d", "w"][..]),
        ("sel", &["f", "d", "ud"][..]),
        ("avg", &["d", "w"][..]),
        ("mac", &["f", "d"][..]),
        ("math.pow", &["f"][..]),
    ];
    let one = [
        ("mov", &["f", "d", "ud", "w", "uw", "ub", "b"][..]),
        ("not", &["ud", "d"][..]),
        ("frc", &["f"][..]),
        ("rndd", &["f"][..]),
        ("rnde", &["f"][..]),
        ("lzd", &["ud", "d"][..]),
        ("fbl", &["ud"][..]),
        ("cbit", &["ud"][..]),
        ("math.inv", &["f"][..]),
        ("math.exp", &["f"][..]),
    ];
    // Even rounds keep to what compacts often; odd rounds add modifiers and options.
    for round in 0..8 {
        let rich = round % 2 == 1;
        let maybe = |rng: &mut Rng, items: &[&'static str]| if rich { rng.pick(items) } else { "" };
        for (op, types) in two.iter().chain(one.iter()) {
            let binary = two.iter().any(|(o, _)| o == op);
            let math = op.starts_with("math");
            for t in *types {
                let (e, f) = (rng.pick(&exec), rng.pick(&flags));
                // Plain rounds use the regions compilers emit for the execution size.
                let region = |rng: &mut Rng| match e {
                    _ if rich => rng.pick(&regions),
                    "(1|M0)" => "<0;1,0>",
                    "(4|M0)" => rng.pick(&["<4;4,1>", "<0;1,0>"]),
                    _ => rng.pick(&["<8;8,1>", "<8;8,1>", "<0;1,0>"]),
                };
                // One flag register serves both predicate and condition (IGA insists).
                let p = match (maybe(&mut rng, &wm), maybe(&mut rng, &pred)) {
                    ("", "") => String::new(),
                    ("W", "") => "(W) ".into(),
                    ("", inv) => format!("({inv}{f}) "),
                    (_, inv) => format!("(W&{inv}{f}) "),
                };
                let c = match maybe(&mut rng, &cond) {
                    c if c.is_empty() || math || op == &"mac" => String::new(),
                    c => format!("({c}){f} "),
                };
                let sat = if *t == "f" && maybe(&mut rng, &["", "s"]) == "s" {
                    "(sat)"
                } else {
                    ""
                };
                let (m0, m1) = match *t {
                    _ if math => ("", ""),
                    "f" | "d" | "w" => (maybe(&mut rng, &mods), maybe(&mut rng, &mods)),
                    _ => ("", ""),
                };
                let sub = |rng: &mut Rng| {
                    if rich || rng.pick(&subs) == "4" {
                        rng.pick(&subs)
                    } else {
                        "0"
                    }
                };
                let dst = format!("{sat}r{}.{}<1>:{t}", 10 + round, sub(&mut rng));
                let s0 = format!(
                    "{m0}r{}.{}{}:{t}",
                    20 + round,
                    sub(&mut rng),
                    region(&mut rng)
                );
                let last = if binary && round % 4 >= 2 && *t != "f" && !math {
                    format!("{}:{t}", rng.pick(&imms))
                } else if binary {
                    format!(
                        "{m1}r{}.{}{}:{t}",
                        40 + round,
                        sub(&mut rng),
                        region(&mut rng)
                    )
                } else {
                    String::new()
                };
                let o = maybe(&mut rng, &opt);
                v.push(format!("{p}{op} {e} {c}{dst} {s0} {last}{o}"));
            }
        }
    }
    // Immediate-only moves (src0 immediate, every immediate type).
    for imm in [
        "0:ud",
        "0x12:ud",
        "0xfff:ud",
        "0xfffff000:ud",
        "0x1000:ud",
        "-1:d",
        "5:d",
    ] {
        let ty = imm.rsplit(':').next().unwrap_or("ud");
        v.push(format!("mov (8|M0) r1.0<1>:{ty} {imm}"));
    }
    for line in [
        "mov (8|M0) r1.0<1>:f 0x0:vf",
        "mov (4|M0) r1.0<1>:f 0x30303030:vf",
        "mov (8|M0) r1.0<1>:f 0x3:uv",
        "mov (8|M0) r1.0<1>:w 0x12345678:v",
        "mov (8|M0) r1.0<1>:w 0x7:v",
        "mov (8|M0) r1.0<1>:f 0.0:f",
        "mov (8|M0) r1.0<1>:uw 0x12:uw",
        "add (8|M0) r1.0<1>:f r2.0<8;8,1>:f 0x0:f",
        "add (8|M0) r1.0<1>:f r2.0<8;8,1>:f 0x0:vf",
        "add (8|M0) r1.0<1>:d r2.0<8;8,1>:d 0xfffff000:d",
        "cmp (8|M0) (lt)f0.0 null<1>:f r4.0<8;8,1>:f r5.0<8;8,1>:f",
        "cmp (16|M0) (eq)f1.0 null<1>:d r4.0<8;8,1>:d 0:d",
        "cmp (8|M0) (ge)f0.1 r9.0<1>:ud r4.0<8;8,1>:ud r5.0<8;8,1>:ud",
        "addc (8|M0) r1.0<1>:ud r2.0<8;8,1>:ud r3.0<8;8,1>:ud {AccWrEn}",
        "mach (8|M0) r1.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d {AccWrEn}",
        "mov (8|M0) r1.0<2>:w r2.0<16;8,2>:w",
        "mov (8|M0) r1.1<1>:ub r2.3<8;8,1>:ub",
        "mov (8|M0) r3.0<1>:f r4.5<8;8,1>:f",
        "(W) math.inv (8|M0) r14.1<1>:f r24.1<0;1,0>:f",
        "mov (16|M0) r16.2<1>:ud r26.1<4;4,1>:ud",
        "mov (8|M0) r16.1<1>:f r26.1<8;8,1>:f",
        "add (8|M0) r3.1<1>:f r4.1<8;8,1>:f r5.1<8;8,1>:f",
        "mov (8|M0) r3.0<1>:f r4.2<8;8,1>:f",
        "mov (8|M0) acc0.0<1>:f r2.0<8;8,1>:f",
        "mov (8|M0) r1.0<1>:f acc0.0<8;8,1>:f",
        "mov (1|M0) r1.0<1>:ud sr0.0<0;1,0>:ud",
        "mov (8|M0) a0.0<1>:uw 0x10:uw",
        "mov (8|M0) r1.0<1>:ud r[a0.0,16]<1,0>:ud",
        "(W) mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud",
        "(f0.0.anyv) mov (8|M0) r1.0<1>:f r2.0<8;8,1>:f",
        "(f0.0.any4h) mov (8|M0) r1.0<1>:f r2.0<8;8,1>:f",
        "send (8|M0) r10:ud r2:ud 0xA 0x10",
        "sendc (8|M0) r10:ud r2:ud 0xA 0x10",
        "send (8|M0) r10:ud r2:ud 0xA 0x02000010",
        "send (8|M0) null:ud r112:ud 0x27 0x02000010 {EOT}",
        "f32to16 (8|M0) r1.0<1>:w r2.0<8;8,1>:f",
        "wait (1|M0) n0.0<0;1,0>:ud",
        "nop",
        "jmpi (1|M0) 16:d",
        "endif (8|M0) L_END",
        "else (8|M0) L_END",
        "while (8|M0) L_END",
        "if (8|M0) L_END L_END",
        "break (8|M0) L_END L_END",
        "halt (8|M0) L_END L_END",
        "L_END:",
    ] {
        v.push(line.to_string());
    }
    v
}

#[test]
fn iga_suite_agrees() {
    let Some(exe) = iga_or_skip("iga_suite_agrees") else {
        return;
    };
    let iga = Iga::new(exe, "compact-suite");
    let lines = suite();
    let native = iga
        .assemble(&lines, false)
        .unwrap_or_else(|e| panic!("iga64 -a: {e}"));
    let packed = iga
        .assemble(&lines, true)
        .unwrap_or_else(|e| panic!("iga64 -a: {e}"));
    let (native, packed) = (split(&native), split(&packed));
    let count = lines.iter().filter(|l| !l.ends_with(':')).count();
    assert_eq!(native.len(), count, "one native instruction per line");
    assert_eq!(packed.len(), count);
    let (mut compacted, mut same, mut dont_care) = (0, 0, 0);
    let mut rows_used = [[false; 32]; 5];
    let mut problems = Vec::new();
    let real = lines.iter().filter(|l| !l.ends_with(':'));
    for ((n, c), line) in native.iter().zip(&packed).zip(real) {
        let n: [u32; 4] = n.as_slice().try_into().expect("native is 128-bit");
        let ours = compact::compact(P, n);
        let [lo, hi] = c[..] else {
            if ours.is_some() {
                problems.push(format!("{line}: iga keeps it native, ours {ours:08x?}"));
            }
            continue;
        };
        compacted += 1;
        let w = u64::from(lo) | u64::from(hi) << 32;
        for (table, lo_bit) in [8, 13, 18, 30, 35].into_iter().enumerate() {
            rows_used[table][(w >> lo_bit & 31) as usize] = true;
        }
        let theirs = compact::uncompact(P, [lo, hi]);
        if ours == Some([lo, hi]) && theirs == Ok(n) {
            same += 1;
        } else if theirs.is_ok_and(|e| only_unused_src1_differs(n, e)) {
            // IGA treats the fields of an absent src1 as don't-care; we keep bits exact.
            dont_care += 1;
        } else {
            problems.push(format!(
                "{line}: iga {hi:08x}`{lo:08x} = {theirs:08x?}, ours {ours:08x?}, native {n:08x?}"
            ));
        }
    }
    println!(
        "{count} instructions; iga64 -p=7p5 compacted {compacted}: {same} identical to ours, \
         {dont_care} only by ignoring an absent src1; rows used (control, datatype, subreg, \
         src0, src1): {:?}",
        rows_used.map(|t| t.iter().filter(|&&u| u).count())
    );
    assert!(
        problems.is_empty(),
        "disagreements with iga64:\n{}",
        problems.join("\n")
    );
    assert!(compacted > 100, "the suite should exercise compaction");
}

/// Whether `expanded` equals `native` except in the fields of a src1 that `native` does
/// not have (null: ARF and DW3 all zero): its register file, type and DW3.
fn only_unused_src1_differs(native: [u32; 4], expanded: [u32; 4]) -> bool {
    let src1_field_bits = 0x1f << 10;
    (native[1] >> 10) & 3 == 0
        && native[3] == 0
        && native[0] == expanded[0]
        && native[2] == expanded[2]
        && (native[1] ^ expanded[1]) & !src1_field_bits == 0
}

/// Candidate compact words that use `row` of `table` (0 control, 1 datatype, 2 subreg,
/// 3 src0, 4 src1), with common rows elsewhere and register numbers IGA accepts.
fn candidates(t: &CompactTables, table: usize, row: u64) -> Vec<u64> {
    let mut out = Vec::new();
    // Align16 rows decode only with the full write mask and .xyzw swizzles: subreg row 20
    // with src row 25 (IGA rejects other Align16 destinations on HSW).
    for ctrl in [11u64, 22, 1, 12] {
        for dt in [18u64, 8, 12, 2, 9, 26, 30] {
            for sub in [0u64, 3, 20] {
                for src in [31u64, 0, 28, 25] {
                    let mut idx = [ctrl, dt, sub, src, src];
                    idx[table] = row;
                    out.push(word(t, idx));
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn word(t: &CompactTables, [ctrl, dt, sub, src0, src1]: [u64; 5]) -> u64 {
    let row = t.datatype[dt as usize];
    let file = |shift: u32| (row >> shift) & 3;
    let imm = file(5) == 3 || file(10) == 3;
    let unary = !imm && file(10) == 0;
    let opcode = if unary || file(5) == 3 { 0x01 } else { 0x40 };
    let reg = |f: u32, grf: u64| if f == 1 { grf } else { 0 };
    let (s1_index, s1_reg) = if imm {
        (0, 5)
    } else {
        (src1, reg(file(10), 5))
    };
    opcode
        | ctrl << 8
        | dt << 13
        | sub << 18
        | 1 << 29
        | src0 << 30
        | s1_index << 35
        | reg(file(0), 3) << 40
        | reg(file(5), 4) << 48
        | s1_reg << 56
}

#[test]
fn iga_reads_every_table_row_as_we_do() {
    let Some(exe) = iga_or_skip("iga_reads_every_table_row_as_we_do") else {
        return;
    };
    let iga = Iga::new(exe, "compact-rows");
    let t = compact::tables(P).unwrap();
    let mut words = Vec::new();
    for table in 0..5 {
        for row in 0..32u64 {
            for w in candidates(t, table, row) {
                words.push((table, row, w));
            }
        }
    }
    let natives: Vec<[u32; 4]> = words
        .iter()
        .map(|&(_, _, w)| compact::uncompact(P, [w as u32, (w >> 32) as u32]).unwrap())
        .collect();
    let packed: Vec<u32> = words
        .iter()
        .flat_map(|&(_, _, w)| [w as u32, (w >> 32) as u32])
        .collect();
    let from_compact = iga.disassemble(&bytes_of(&packed));
    let from_native = iga.disassemble(&bytes_of(&natives.concat()));
    assert_eq!(from_compact.len(), words.len());
    assert_eq!(from_native.len(), words.len());

    let mut verified = [[false; 32]; 5];
    let mut problems = Vec::new();
    let mut reassemble = Vec::new();
    for (i, &(table, row, w)) in words.iter().enumerate() {
        if let (Some(a), Some(b)) = (&from_compact[i], &from_native[i]) {
            if a != b {
                problems.push(format!(
                    "table {table} row {row} {w:016x}: iga reads '{a}', ours '{b}'"
                ));
            }
            verified[table][row as usize] = true;
            reassemble.push((i, b.clone()));
        }
    }
    // Compaction direction, where IGA's text reproduces our native bits exactly.
    let text: Vec<String> = reassemble.iter().map(|(_, l)| l.clone()).collect();
    let (kept, n, c) = iga.assemble_both(&text);
    let mut agreed = 0;
    for ((k, n), c) in kept.iter().zip(split(&n)).zip(split(&c)) {
        let (i, line) = &reassemble[*k];
        if n[..] != natives[*i][..] {
            continue; // the text lost a field (odd byte offsets, unused flags, Align16...)
        }
        let ours = compact::compact(P, natives[*i]).map(|c| c.to_vec());
        let theirs = (c.len() == 2).then_some(c);
        if ours != theirs {
            problems.push(format!(
                "{line}: iga compacts to {theirs:08x?}, ours {ours:08x?}"
            ));
        }
        agreed += 1;
    }
    let missing: Vec<(usize, usize)> = (0..5)
        .flat_map(|t| (0..32).map(move |r| (t, r)))
        .filter(|&(t, r)| !verified[t][r])
        .collect();
    println!(
        "{} words, {} rows compared by text, {agreed} compacted identically, not decodable: {missing:?}",
        words.len(),
        160 - missing.len()
    );
    assert!(
        problems.is_empty(),
        "disagreements with iga64:\n{}",
        problems.join("\n")
    );
}
