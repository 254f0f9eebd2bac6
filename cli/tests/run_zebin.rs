//! `baregpu run --zebin` through the binary: OpenCL kernels compiled by
//! Intel's compiler for DG2 (`ocloc -device dg2 --format zebin`, Debian
//! intel-opencl-icd; sources in `tests/zebin/kernels.cl`) run on the DG2
//! model with the dispatch Intel's runtime gives them, through the
//! driver's compute path; every result is checked against the host.
//!
//! Without ocloc the tests say so and pass, except on CI (`CI` set),
//! where they fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn baregpu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(args)
        .output()
        .expect("run baregpu")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("baregpu-cli-zebin-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The zebin of `tests/zebin/kernels.cl` built with `options`, or `None`
/// when ocloc is missing (off CI).
fn compile(tag: &str, options: &str) -> Option<PathBuf> {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/zebin/kernels.cl");
    let out = scratch(&format!("ocloc-{tag}"));
    let r = Command::new("ocloc")
        .args(["compile", "-q", "-file"])
        .arg(&src)
        .args(["-device", "dg2", "-output", "kernels", "-out_dir"])
        .arg(&out)
        .args(["--format", "zebin", "-options"])
        .arg(format!("-cl-std=CL2.0 {options}"))
        .output();
    let r = match r {
        Ok(r) => r,
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "ocloc (Debian intel-opencl-icd) missing on CI: {e}"
            );
            eprintln!("ocloc not found ({e}): the zebin runs are skipped");
            return None;
        }
    };
    assert!(
        r.status.success(),
        "ocloc: {}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
    std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "bin"))
}

/// IGC's default build: buffers through the binding table.
fn stateful() -> Option<&'static Path> {
    static BIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    BIN.get_or_init(|| compile("stateful", "")).as_deref()
}

/// Buffers as 64-bit pointers (what NEO asks for on Xe-HPG).
fn stateless() -> Option<&'static Path> {
    static BIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    BIN.get_or_init(|| compile("stateless", "-cl-intel-greater-than-4GB-buffer-required"))
        .as_deref()
}

fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn read_floats(p: &Path) -> Vec<f32> {
    std::fs::read(p)
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn ok(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "baregpu failed: {err}");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `vector_add` over 256 work-items in groups of `local`.
fn vector_add(zebin: &Path, tag: &str, local: &str, extra: &[&str]) -> String {
    let dir = scratch(tag);
    let (a, b, out) = (dir.join("a"), dir.join("b"), dir.join("out"));
    let av: Vec<f32> = (0..256).map(|i| i as f32 * 0.5).collect();
    let bv: Vec<f32> = (0..256).map(|i| 1000.0 - i as f32 * 3.0).collect();
    std::fs::write(&a, floats(&av)).unwrap();
    std::fs::write(&b, floats(&bv)).unwrap();
    let args = [
        "run",
        "--gen",
        "gen12.5",
        "--zebin",
        zebin.to_str().unwrap(),
        "--kernel-name",
        "vector_add",
        "--global",
        "256",
        "--local",
        local,
        "--arg",
        &format!("0=buffer:{}", a.display()),
        "--arg",
        &format!("1=buffer:{}", b.display()),
        "--arg",
        "2=buffer:zero:1024",
        "--out",
        &format!("2={}", out.display()),
    ];
    let args: Vec<&str> = args.iter().copied().chain(extra.iter().copied()).collect();
    let text = ok(&baregpu(&args));
    let got = read_floats(&out);
    for i in 0..256 {
        assert_eq!(got[i], av[i] + bv[i], "{tag}: element {i}");
    }
    std::fs::remove_dir_all(&dir).ok();
    text
}

#[test]
fn stateful_buffers_run_with_walker_and_runtime_local_ids() {
    let Some(zebin) = stateful() else { return };
    let text = vector_add(zebin, "stateful-hw", "64", &[]);
    // Hardware local IDs: the kernel starts past its payload prologue.
    assert!(text.contains("4 group(s) of [64, 1, 1]"), "{text}");
    assert!(
        text.contains("local IDs from the walker (entry +"),
        "{text}"
    );
    let text = vector_add(zebin, "stateful-rt", "64", &["--runtime-local-ids"]);
    assert!(
        text.contains("local IDs from the runtime (entry +0)"),
        "{text}"
    );
}

#[test]
fn stateless_pointers_run() {
    let Some(zebin) = stateless() else { return };
    vector_add(zebin, "stateless", "32", &[]);
}

/// `ids_2d` over 24x4 work-items in groups of `local`: every work-item's
/// local and group IDs and the NDRange's sizes as the kernel saw them.
fn ids_2d(zebin: &Path, tag: &str, local: [u32; 2]) -> String {
    let dir = scratch(tag);
    let out = dir.join("out");
    let text = ok(&baregpu(&[
        "run",
        "--gen",
        "gen12.5",
        "--zebin",
        zebin.to_str().unwrap(),
        "--kernel-name",
        "ids_2d",
        "--global",
        "24,4",
        "--local",
        &format!("{},{}", local[0], local[1]),
        "--arg",
        "0=buffer:zero:1536",
        "--out",
        &format!("0={}", out.display()),
    ]));
    let v: Vec<u32> = std::fs::read(&out)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let groups = [24 / local[0], 4 / local[1]];
    for y in 0..4 {
        for x in 0..24 {
            let i = (y * 24 + x) as usize;
            let want = [
                (x % local[0])
                    | ((y % local[1]) << 8)
                    | ((x / local[0]) << 16)
                    | ((y / local[1]) << 24),
                24 | (4 << 16),
                local[0] | (local[1] << 16),
                groups[0] | (groups[1] << 16),
            ];
            assert_eq!(v[4 * i..4 * i + 4], want, "{tag}: work-item ({x}, {y})");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    text
}

#[test]
fn two_dimensional_ids_match_the_ndrange() {
    let Some(zebin) = stateful() else { return };
    // Powers of two: the walker generates the IDs.
    let text = ids_2d(zebin, "ids-pot", [8, 2]);
    assert!(text.contains("from the walker"), "{text}");
    // A side of 12 cannot be walked first by the hardware's generator: the
    // runtime writes the IDs and the prologue loads them.
    let text = ids_2d(zebin, "ids-npot", [12, 2]);
    assert!(text.contains("from the runtime"), "{text}");
}

#[test]
fn mistakes_are_named() {
    let Some(zebin) = stateful() else { return };
    let z = zebin.to_str().unwrap();
    let err = |args: &[&str]| {
        let o = baregpu(args);
        assert!(!o.status.success(), "{args:?} should fail");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let base = ["run", "--gen", "gen12.5", "--zebin", z, "--global", "64"];
    let e = err(&base);
    assert!(e.contains("--kernel-name is needed"), "{e}");
    assert!(e.contains("vector_add") && e.contains("axpb"), "{e}");
    let e = err(&[&base[..], &["--kernel-name", "nothing"]].concat());
    assert!(e.contains("no kernel \"nothing\""), "{e}");
    // A missing argument is named as the source names it.
    let e = err(&[
        &base[..],
        &["--kernel-name", "axpb", "--arg", "0=buffer:zero:256"],
    ]
    .concat());
    assert!(e.contains("argument 1 (y: float*) is not given"), "{e}");
    // A by-value argument must have the kernel's size.
    let e = err(&[
        &base[..],
        &[
            "--kernel-name",
            "axpb",
            "--arg",
            "0=buffer:zero:256",
            "--arg",
            "1=buffer:zero:256",
            "--arg",
            "2=f64:1",
            "--arg",
            "3=f32:1,1",
            "--arg",
            "4=u32:1",
        ],
    ]
    .concat());
    assert!(
        e.contains("argument 2: 8 bytes given, the kernel takes 4"),
        "{e}"
    );
    let e = err(&["run", "--gen", "gen7", "--zebin", z, "--global", "64"]);
    assert!(e.contains("--zebin runs DG2 kernels"), "{e}");
}
