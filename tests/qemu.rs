//! Runs the QEMU test kernels (part of plain `cargo test`).
//!
//! Builds `baregpu-qemu-tests` for x86_64-unknown-none, then boots each
//! kernel through `qemu/run.sh`, the same runner `cargo qtest` and
//! `cargo demo` use. Kernels in `qemu/tests/` must pass; kernels in
//! `qemu/src/bin/` must fail, which proves the runner catches each failure
//! kind. QEMU and the rustup target are installed when missing (see
//! `qemu/ensure-qemu.sh`); if they cannot be, these tests fail with the
//! command to run: never skipped.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Executables of the test kernels by target name, built once.
fn kernels() -> &'static HashMap<String, PathBuf> {
    static KERNELS: OnceLock<HashMap<String, PathBuf>> = OnceLock::new();
    KERNELS.get_or_init(|| {
        let status = Command::new(Path::new(ROOT).join("qemu/ensure-qemu.sh"))
            .status()
            .expect("run qemu/ensure-qemu.sh");
        assert!(
            status.success(),
            "QEMU is missing and could not be installed (see the message above)"
        );

        // rust-toolchain.toml lists the target, but rustup adds listed targets
        // only when it installs the toolchain itself; add it to an existing one.
        if let Ok(out) = Command::new("rustup")
            .args(["target", "add", "x86_64-unknown-none"])
            .current_dir(ROOT)
            .output()
        {
            assert!(
                out.status.success(),
                "rustup target add x86_64-unknown-none failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let out = Command::new(cargo)
            .args([
                "build",
                "-p",
                "baregpu-qemu-tests",
                "--target",
                "x86_64-unknown-none",
                "--bins",
                "--tests",
            ])
            .args(["--message-format", "json-render-diagnostics"])
            .current_dir(ROOT)
            .output()
            .expect("spawn cargo");
        assert!(
            out.status.success(),
            "building the QEMU kernels failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut map = HashMap::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if msg["reason"] != "compiler-artifact" {
                continue;
            }
            if let (Some(name), Some(exe)) =
                (msg["target"]["name"].as_str(), msg["executable"].as_str())
            {
                map.insert(name.to_string(), PathBuf::from(exe));
            }
        }
        map
    })
}

struct Run {
    passed: bool,
    output: String,
    frames: PathBuf,
    kernel: PathBuf,
}

fn boot(name: &str, timeout_s: u32) -> Run {
    boot_with(name, timeout_s, &[])
}

/// Boots kernel `name` with `extra` QEMU arguments.
fn boot_with(name: &str, timeout_s: u32, extra: &[&str]) -> Run {
    let kernel = kernels()
        .get(name)
        .unwrap_or_else(|| panic!("no kernel named {name}"))
        .clone();
    let frames = kernel.with_extension("harness.defmt");
    let out = Command::new(Path::new(ROOT).join("qemu/run.sh"))
        .arg(&kernel)
        .args(extra)
        .env("QEMU_TIMEOUT", timeout_s.to_string())
        .env("BAREGPU_DEFMT_OUT", &frames)
        .output()
        .expect("spawn qemu/run.sh");
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
    .replace('\r', "");
    Run {
        passed: out.status.success(),
        output,
        frames,
        kernel,
    }
}

fn expect_pass(name: &str) -> Run {
    let run = boot(name, 120);
    assert!(
        run.passed,
        "QEMU kernel {name} failed; its output:\n{}",
        run.output
    );
    run
}

fn expect_fail(name: &str, timeout_s: u32, reason: &str) -> Run {
    let run = boot(name, timeout_s);
    assert!(
        !run.passed,
        "kernel {name} must fail but the runner passed it:\n{}",
        run.output
    );
    assert!(
        run.output.contains(reason),
        "kernel {name} failed, but not with \"{reason}\":\n{}",
        run.output
    );
    run
}

#[test]
fn heap() {
    assert!(expect_pass("heap").output.contains("[ok] heap"));
}

#[test]
fn interrupts_reach_the_idt_and_idle_waits_end_at_their_deadline() {
    assert!(expect_pass("interrupts").output.contains("[ok] interrupts"));
}

#[test]
fn probe_finds_qemu_vga_and_no_intel_gpu() {
    let run = expect_pass("probe_qemu");
    assert!(
        run.output.contains("00:02.0 1234:1111 class 030000"),
        "{}",
        run.output
    );
    assert!(
        run.output.contains("backend: software GPU"),
        "{}",
        run.output
    );
}

#[test]
fn expected_panic_passes() {
    assert!(
        expect_pass("should_panic")
            .output
            .contains("panicked as expected")
    );
}

#[test]
fn screen_console_draws_glyphs_and_scrolls() {
    let run = expect_pass("screen_console");
    assert!(
        run.output.contains("[ok] screen_console: 128x88 cells"),
        "{}",
        run.output
    );
}

#[test]
fn mmio_on_a_real_bar() {
    expect_pass("mmio_edu");
}

/// `BootPlatform::map_mmio` above 4 GiB: an ivshmem-plain device whose
/// 64-bit BAR2 is a 2 GiB (sparse) host file, too large for the `pc`
/// machine's 32-bit PCI window, so SeaBIOS places it at 4 GiB or above. The
/// kernel prints the bytes the host wrote there and writes their
/// complement 4 KiB further, which the host reads back.
#[test]
fn mmio_on_a_bar_above_4_gib() {
    use std::io::{Read, Seek, SeekFrom, Write};
    let kernel = kernels()
        .get("mmio_high")
        .expect("mmio_high kernel")
        .clone();
    let path = kernel.with_extension("ivshmem");
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos())
        ^ std::process::id();
    let magic: Vec<u8> = (0..16u32)
        .map(|i| (seed.wrapping_mul(2_654_435_761).rotate_left(i) >> 3) as u8)
        .collect();
    {
        let mut f = std::fs::File::create(&path).expect("create the ivshmem file");
        f.write_all(&magic).unwrap();
        f.set_len(2 << 30).unwrap();
    }
    let object = format!(
        "memory-backend-file,id=bar64,size=2G,mem-path={},share=on",
        path.display()
    );
    let run = boot_with(
        "mmio_high",
        120,
        &["-object", &object, "-device", "ivshmem-plain,memdev=bar64"],
    );
    let mut back = [0u8; 16];
    let mut f = std::fs::File::open(&path).unwrap();
    f.seek(SeekFrom::Start(4096)).unwrap();
    f.read_exact(&mut back).unwrap();
    drop(f);
    let _ = std::fs::remove_file(&path);
    assert!(run.passed, "mmio_high failed:\n{}", run.output);
    let hex: Vec<String> = magic.iter().map(|b| format!("{b:02x}")).collect();
    assert!(
        run.output
            .contains(&format!("bytes at BAR2: {}", hex.join(" "))),
        "the kernel did not read the host's bytes {hex:?}:\n{}",
        run.output
    );
    let complement: Vec<u8> = magic.iter().map(|b| !b).collect();
    assert_eq!(
        back.to_vec(),
        complement,
        "what the kernel wrote at BAR2 + 4 KiB"
    );
}

#[test]
fn defmt_frames_decode_on_the_host() {
    let run = expect_pass("defmt_frames");
    let elf = std::fs::read(&run.kernel).unwrap();
    let frames = std::fs::read(&run.frames).unwrap();
    let lines = baregpu_cli::defmt_log::decode(&elf, &frames).expect("decode defmt frames");
    let got: Vec<(String, String)> = lines
        .iter()
        .map(|l| (l.level.clone(), l.message.clone()))
        .collect();
    let want = [
        ("INFO", "defmt test: start"),
        ("INFO", "defmt test: line 0 of 3, square 0"),
        ("INFO", "defmt test: line 1 of 3, square 1"),
        ("INFO", "defmt test: line 2 of 3, square 4"),
        ("WARN", "defmt test: hex 0xbadcafe, text baregpu"),
        ("ERROR", "defmt test: end"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(l, m)| (l.to_string(), m.to_string()))
        .collect();
    assert_eq!(got, want);
    assert!(
        lines.iter().all(|l| l.timestamp.is_some()),
        "every frame carries a timestamp"
    );
}

#[test]
fn runner_catches_a_failed_assertion() {
    let run = expect_fail("fail_assert", 60, "the kernel reported failure");
    assert!(run.output.contains("deliberate failure"), "{}", run.output);
}

#[test]
fn runner_catches_a_hang() {
    expect_fail("fail_hang", 3, "timed out");
}

#[test]
fn runner_catches_a_triple_fault() {
    expect_fail("fail_triple_fault", 60, "triple fault");
}

#[test]
fn hal_packs_and_decodes_a_batch_in_the_kernel() {
    let run = expect_pass("hal_batch");
    assert!(
        run.output.contains("MI_STORE_DATA_IMM (5 dwords)"),
        "{}",
        run.output
    );
}

#[test]
fn submission_on_the_software_gpu_in_the_kernel() {
    let run = expect_pass("submit_soft");
    assert!(
        run.output.contains("gen7: hang detected as expected"),
        "{}",
        run.output
    );
}

#[test]
fn compute_self_test_on_the_software_gpu_in_the_kernel() {
    let run = expect_pass("compute_soft");
    for line in [
        "[ok] gen4 ",
        "[ok] g45 ",
        "[ok] gen6 ",
        "[ok] gen7 ",
        "[ok] compute_soft: every scenario on every generation",
    ] {
        assert!(
            run.output.contains(line),
            "missing {line:?} in:\n{}",
            run.output
        );
    }
}
