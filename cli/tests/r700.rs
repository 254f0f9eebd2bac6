//! `baregpu disasm|asm|validate --gen r700`: an llc-compiled shader round-trips through
//! the text, validates clean, and a shader that breaks a read-port rule is rejected.
//! The llc steps skip (with a message) when `llc-14`/`llc` is missing; the
//! hand-written shader needs no oracle.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn baregpu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(args)
        .output()
        .expect("run baregpu")
}

/// A directory of the test's own (the tests run in parallel and remove theirs).
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("baregpu-cli-r700-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn llc() -> Option<&'static str> {
    ["llc-14", "llc"].into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// A pixel shader with kcache reads, a transcendental, a texture fetch, a select and an
/// export, so that ALU, TEX and CF words all appear.
const SHADER: &str = "
define amdgpu_ps void @k(<4 x float> inreg %reg0, <4 x float> inreg %reg1) {
entry:
  %a = extractelement <4 x float> %reg1, i32 0
  %b = extractelement <4 x float> %reg1, i32 1
  %p = getelementptr <4 x float>, <4 x float> addrspace(8)* null, i32 3
  %v = load <4 x float>, <4 x float> addrspace(8)* %p
  %c = extractelement <4 x float> %v, i32 2
  %m = fmul float %a, %b
  %s = fadd float %m, %c
  %r = call float @llvm.sqrt.f32(float %s)
  %t = call <4 x float> @llvm.r600.tex(<4 x float> %reg1, i32 0, i32 0, i32 0, i32 1, i32 2, i32 1, i32 1, i32 1, i32 1)
  %tx = extractelement <4 x float> %t, i32 0
  %cmp = fcmp ogt float %tx, %r
  br i1 %cmp, label %then, label %tail
then:
  %u = fmul float %tx, 3.5
  br label %tail
tail:
  %o = phi float [%u, %then], [%r, %entry]
  %q = insertelement <4 x float> undef, float %o, i32 0
  %q1 = insertelement <4 x float> %q, float %m, i32 1
  %q2 = insertelement <4 x float> %q1, float %s, i32 2
  %q3 = insertelement <4 x float> %q2, float %a, i32 3
  call void @llvm.r600.store.swizzle(<4 x float> %q3, i32 0, i32 0)
  ret void
}
declare float @llvm.sqrt.f32(float)
declare <4 x float> @llvm.r600.tex(<4 x float>, i32, i32, i32, i32, i32, i32, i32, i32, i32)
declare void @llvm.r600.store.swizzle(<4 x float>, i32, i32)
";

#[test]
fn llc_shader_round_trips_through_disasm_and_asm_and_validates() {
    let Some(llc) = llc() else {
        eprintln!("skipped: no llc-14 or llc (Debian llvm-14; see r700/ensure-oracles.sh)");
        return;
    };
    let d = dir("llc");
    let (ll, obj) = (d.join("k.ll"), d.join("k.o"));
    std::fs::write(&ll, SHADER).unwrap();
    let o = Command::new(llc)
        .args([
            "-march=r600",
            "-mcpu=rv770",
            "-filetype=obj",
            p(&ll),
            "-o",
            p(&obj),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text_bytes = baregpu_cli::r700_isa::elf_text(&std::fs::read(&obj).unwrap())
        .unwrap()
        .to_vec();

    // disasm reads the ELF object's .text.
    let r = baregpu(&["disasm", "--gen", "r700", p(&obj)]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = String::from_utf8(r.stdout).unwrap();
    for needle in [
        "ALU 9, @6",
        "TEX_SAMPLE",
        "EXPORT T",
        "CF_END",
        "RECIPSQRT",
        "KC0[3]",
    ] {
        assert!(text.contains(needle), "no {needle} in\n{text}");
    }
    // asm turns the text back into the same bytes.
    let (src, bin) = (d.join("k.s"), d.join("k.bin"));
    std::fs::write(&src, &text).unwrap();
    let r = baregpu(&["asm", "--gen", "r700", p(&src), "-o", p(&bin)]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(std::fs::read(&bin).unwrap(), text_bytes);
    // The raw binary disassembles to the same text.
    let r = baregpu(&["disasm", "--gen", "r700", p(&bin)]);
    assert_eq!(String::from_utf8(r.stdout).unwrap(), text);
    // llc's output is legal.
    let r = baregpu(&["validate", "--gen", "r700", p(&obj)]);
    let out = String::from_utf8(r.stdout).unwrap();
    assert!(r.status.success(), "{out}");
    assert!(out.ends_with(": 0 violations\n"), "{out}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn validate_rejects_a_read_port_conflict() {
    let d = dir("bad");
    // The manual's illegal group (002 lines 1513-1518): R1.X and R3.X on the X port in
    // cycle 0.
    let bad = "ALU 1, @2, KC0[], KC1[]\nCF_END\nALU clause starting at 2:\n  MUL_IEEE   T0.X, T1.X, T2.X,  \n  MUL_IEEE * T0.Y, T3.X, T1.Y,  \n";
    let (src, bin) = (d.join("bad.s"), d.join("bad.bin"));
    std::fs::write(&src, bad).unwrap();
    let r = baregpu(&["asm", "--gen", "r700", p(&src), "-o", p(&bin)]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let r = baregpu(&["validate", "--gen", "r700", p(&bin)]);
    let out = String::from_utf8(r.stdout).unwrap();
    assert_eq!(r.status.code(), Some(1), "{out}");
    assert!(
        out.contains("clause @2 group 0 slot 1: gpr-read-port:") && out.contains("002 lines"),
        "{out}"
    );
    assert!(out.ends_with(": 1 violations\n"), "{out}");
    // With the manual's fix (VEC_201) it passes.
    std::fs::write(&src, bad.replace("T1.Y,  \n", "T1.Y,  BS:VEC_201\n")).unwrap();
    let r = baregpu(&["asm", "--gen", "r700", p(&src), "-o", p(&bin)]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let r = baregpu(&["validate", "--gen", "r700", p(&bin)]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stdout));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let d = dir("junk");
    let junk = d.join("junk.bin");
    // Seven bytes: not a whole 64-bit slot.
    std::fs::write(&junk, [1u8, 2, 3, 4, 5, 6, 7]).unwrap();
    for cmd in ["disasm", "validate"] {
        let r = baregpu(&[cmd, "--gen", "r700", p(&junk)]);
        let err = String::from_utf8(r.stderr).unwrap();
        assert_eq!(r.status.code(), Some(1), "{err}");
        assert!(
            err.starts_with("baregpu: ") && err.contains("junk.bin"),
            "{err}"
        );
    }
    // A truncated ELF header.
    std::fs::write(&junk, b"\x7fELF\x01\x01\x01").unwrap();
    let r = baregpu(&["disasm", "--gen", "r700", p(&junk)]);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("ELF object"));
    // A bad line names file and line.
    let src = d.join("bad.s");
    std::fs::write(&src, "CF_END\nFROB 1\n").unwrap();
    let r = baregpu(&["asm", "--gen", "r700", p(&src), "-o", p(&d.join("o.bin"))]);
    let err = String::from_utf8(r.stderr).unwrap();
    assert_eq!(r.status.code(), Some(1), "{err}");
    assert!(err.contains("bad.s:2:"), "{err}");
    // Missing -o and stray flags are usage errors.
    let r = baregpu(&["asm", "--gen", "r700", p(&src)]);
    assert!(String::from_utf8_lossy(&r.stderr).contains("-o <binary> is required"));
    let r = baregpu(&["validate", "--gen", "r700", "--frob", p(&src)]);
    assert_eq!(r.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&d);
}
