//! Every command when its output cannot be written: a closed pipe
//! (`baregpu disasm k.bin | head -1`) ends quietly with status 141, as a
//! shell reports a process killed by SIGPIPE; a full disk (`> /dev/full`,
//! `-o /dev/full`) is a clear error and status 1. Never a panic. And the
//! streamed disassembly and batch listing are what the library returns.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_baregpu");
const KERNEL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../kernels/mandelbrot_gen7.asm"
);

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("baregpu-cli-out-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs with stdout a pipe whose reading end is closed before the
/// command starts.
fn closed_pipe(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    Command::new(BIN)
        .args(args)
        .stdout(writer)
        .output()
        .expect("run baregpu")
}

/// Runs with stdout on /dev/full.
fn full_disk(args: &[&str]) -> Output {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    Command::new(BIN)
        .args(args)
        .stdout(full)
        .output()
        .expect("run baregpu")
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run baregpu")
}

/// Inputs for every command: a kernel binary (its disassembly is larger
/// than a pipe's buffer), a batch, a kernel with violations.
struct Inputs {
    bin: PathBuf,
    batch: PathBuf,
    bad: PathBuf,
}

fn inputs(dir: &Path) -> Inputs {
    let one = dir.join("k.bin");
    let r = run(&["asm", "--gen", "gen7", KERNEL, "-o", s(&one)]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let bin = dir.join("big.bin");
    std::fs::write(&bin, std::fs::read(&one).unwrap().repeat(100)).unwrap();
    // MI_NOOPs and MI_BATCH_BUFFER_END: one line each.
    let batch = dir.join("batch.bin");
    let mut words = vec![0u32; 50_000];
    words.push(0x0500_0000);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&batch, bytes).unwrap();
    let src = dir.join("bad.asm");
    std::fs::write(
        &src,
        "add (8|M0) r1.0<0>:d r1.0<8;8,1>:d 1:d\n".repeat(3000),
    )
    .unwrap();
    let bad = dir.join("bad.bin");
    let r = run(&["asm", "--gen", "gen7", s(&src), "-o", s(&bad)]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    Inputs { bin, batch, bad }
}

fn no_panic(what: &str, o: &Output) {
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!e.contains("panicked"), "{what}: {e}");
}

#[test]
fn closed_pipes_end_quietly_and_full_disks_fail_clearly() {
    let dir = scratch("io");
    let i = inputs(&dir);
    let curbe = dir.join("curbe.bin");
    std::fs::write(&curbe, [0u8; 32]).unwrap();
    let commands: Vec<(&str, Vec<&str>)> = vec![
        ("disasm", vec!["disasm", "--gen", "gen7", s(&i.bin)]),
        ("decode", vec!["decode", "--gen", "gen7", s(&i.batch)]),
        ("validate", vec!["validate", "--gen", "gen7", s(&i.bad)]),
        ("help", vec!["--help"]),
        (
            "run",
            vec![
                "run",
                "--gen",
                "gen7",
                "--kernel",
                KERNEL,
                "--simd",
                "8",
                "--grid",
                "1,1",
                "--curbe",
                s(&curbe),
                "--bind",
                "0=surface2d:8x1:R32_UINT",
            ],
        ),
    ];
    for (what, args) in &commands {
        // The command itself works.
        let o = run(args);
        assert!(!o.stdout.is_empty(), "{what}: no output");
        no_panic(what, &o);

        let o = closed_pipe(args);
        no_panic(what, &o);
        assert_eq!(o.status.code(), Some(141), "{what}: {o:?}");
        assert!(
            o.stderr.is_empty(),
            "{what}: {}",
            String::from_utf8_lossy(&o.stderr)
        );

        let o = full_disk(args);
        no_panic(what, &o);
        assert_eq!(o.status.code(), Some(1), "{what}: {o:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            e.contains("cannot write the output") && e.contains("No space left"),
            "{what}: {e}"
        );
    }
    // Files the commands write.
    let o = run(&["asm", "--gen", "gen7", KERNEL, "-o", "/dev/full"]);
    no_panic("asm -o", &o);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("/dev/full") && e.contains("No space left"),
        "{e}"
    );
    let o = run(&[
        "run",
        "--gen",
        "gen7",
        "--kernel",
        KERNEL,
        "--simd",
        "8",
        "--grid",
        "1,1",
        "--curbe",
        s(&curbe),
        "--bind",
        "0=surface2d:8x1:R32_UINT",
        "--out",
        "0=/dev/full",
    ]);
    no_panic("run --out", &o);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("/dev/full"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn streamed_listings_are_the_library_listings() {
    let dir = scratch("stream");
    let i = inputs(&dir);
    let bytes = std::fs::read(&i.bin).unwrap();
    for labels in [true, false] {
        let mut args = vec!["disasm", "--gen", "gen7"];
        if !labels {
            args.push("--no-labels");
        }
        args.push(s(&i.bin));
        let o = run(&args);
        assert!(o.status.success());
        let want = baregpu_isa::text::disassemble_with(
            baregpu_isa::IsaGen::Gen7,
            &bytes,
            baregpu_isa::text::DisasmOptions {
                offsets: true,
                labels,
                messages: true,
            },
        )
        .unwrap();
        assert!(
            String::from_utf8(o.stdout).unwrap() == want,
            "labels {labels}"
        );
    }
    let o = run(&["decode", "--gen", "gen7", s(&i.batch)]);
    assert!(o.status.success());
    let want = baregpu_cli::decode_batch::decode_bytes(
        "gen7",
        "render",
        &std::fs::read(&i.batch).unwrap(),
    )
    .unwrap();
    assert!(String::from_utf8(o.stdout).unwrap() == want);
    assert!(
        want.ends_with("-- 50001 dwords, 50001 known commands, 0 problem(s)\n"),
        "{}",
        &want[want.len() - 80..]
    );
    // A binary that does not decode writes nothing and names the offset.
    let mut junk = bytes.clone();
    junk[bytes.len() - 16] = 0x7f;
    let bad = dir.join("junk.bin");
    std::fs::write(&bad, &junk).unwrap();
    let o = run(&["disasm", "--gen", "gen7", s(&bad)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains(&format!("offset {:#06x}", bytes.len() - 16)),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `validate` reports a word that does not decode at its offset and goes
/// on to check the instructions after it.
#[test]
fn validate_goes_on_past_an_undecodable_word() {
    let dir = scratch("validate");
    let src = dir.join("k.asm");
    std::fs::write(&src, "nop\nnop\nadd (8|M0) r1.0<0>:d r1.0<8;8,1>:d 1:d\n").unwrap();
    let bin = dir.join("k.bin");
    assert!(
        run(&["asm", "--gen", "hsw", s(&src), "-o", s(&bin)])
            .status
            .success()
    );
    let mut bytes = std::fs::read(&bin).unwrap();
    bytes[16] = 0x7f; // a reserved opcode
    std::fs::write(&bin, &bytes).unwrap();
    let o = run(&["validate", "--gen", "hsw", s(&bin)]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("/* 0010 */ (does not decode)\n    error [Undecodable]: at byte 0x10"),
        "{text}"
    );
    assert!(text.contains("/* 0020 */ add (8|M0) r1.0<0>:d"), "{text}");
    assert!(text.contains("DstHorzStrideZero"), "{text}");
    assert!(
        text.ends_with("2 instructions and 1 words that do not decode: 2 errors, 0 warnings\n"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
