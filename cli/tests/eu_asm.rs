//! `baregpu asm` and `baregpu disasm` round trip through the binary.

use std::process::Command;

const SRC: &str = "\
// a small Gen7.5 kernel
L0:
add (8|M0) r4.0<1>:f r2.0<8;8,1>:f 0x3F800000:f
(W) mov (8|M0) r1.0<1>:ud r0.0<8;8,1>:ud
cmp (8|M0) (lt)f0.0 null<1>:f r4.0<8;8,1>:f r5.0<8;8,1>:f
(f0.0) if (8|M0) L1 L1
mad (8|M0) r6.0<1>:f r2.0<2;1>:f r3.0<0;0>:f r4.0<1>:f
L1:
endif (8|M0) L2
L2:
send (8|M0) null:ud r112 0x27 0x02000010 {EOT}
";

fn baregpu(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(args)
        .output()
        .expect("run baregpu")
}

#[test]
fn asm_disasm_round_trip() {
    let dir = std::env::temp_dir().join(format!("baregpu-cli-eu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, bin, dis, bin2) = (
        dir.join("k.asm"),
        dir.join("k.bin"),
        dir.join("k.dis"),
        dir.join("k2.bin"),
    );
    std::fs::write(&src, SRC).unwrap();
    let r = baregpu(&[
        "asm",
        "--gen",
        "hsw",
        src.to_str().unwrap(),
        "-o",
        bin.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let bytes = std::fs::read(&bin).unwrap();
    assert_eq!(bytes.len(), 7 * 16);
    let r = baregpu(&["disasm", "--gen", "gen7.5", bin.to_str().unwrap()]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = String::from_utf8(r.stdout).unwrap();
    assert!(
        text.starts_with("/* 0000 */ add (8|M0) r4.0<1>:f r2.0<8;8,1>:f 0x3f800000:f"),
        "{text}"
    );
    // Branch targets print as labels by default.
    assert!(
        text.contains("/* 0030 */ (f0.0) if (8|M0) L80 L80\n"),
        "{text}"
    );
    assert!(
        text.contains("\nL80:\n/* 0050 */ endif (8|M0) L96\nL96:\n/* 0060 */ send"),
        "{text}"
    );
    assert!(text.contains("{EOT}"), "{text}");
    std::fs::write(&dis, &text).unwrap();
    let r = baregpu(&[
        "asm",
        "--gen",
        "hsw",
        dis.to_str().unwrap(),
        "-o",
        bin2.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(std::fs::read(&bin2).unwrap(), bytes);

    // A parse error names line and column and fails.
    std::fs::write(&src, "nop\nmov (8|M0) r1.0<1>:f r2.0<8;8,1>:zz\n").unwrap();
    let r = baregpu(&[
        "asm",
        "--gen",
        "hsw",
        src.to_str().unwrap(),
        "-o",
        bin.to_str().unwrap(),
    ]);
    assert!(!r.status.success());
    let e = String::from_utf8_lossy(&r.stderr);
    assert!(e.contains("k.asm:2:34: unknown type ':zz'"), "{e}");
    // A reserved encoding names its offset and fails.
    let mut junk = bytes.clone();
    junk[16..32].copy_from_slice(&[0x7f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    std::fs::write(&bin, &junk).unwrap();
    let r = baregpu(&["disasm", "--gen", "hsw", bin.to_str().unwrap()]);
    assert!(!r.status.success());
    let e = String::from_utf8_lossy(&r.stderr);
    assert!(e.contains("offset 0x0010"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The flags, through the library entry the command runs.
#[test]
fn no_labels_and_compact_flags() {
    use baregpu_cli::eu::run;
    let dir = std::env::temp_dir().join(format!("baregpu-cli-eu-flags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, bin, small) = (dir.join("k.asm"), dir.join("k.bin"), dir.join("s.bin"));
    std::fs::write(&src, SRC).unwrap();
    let s = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let args = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    run(&args(&["--gen", "hsw", &s(&src), "-o", &s(&bin)]), true).unwrap();
    run(
        &args(&["--gen", "hsw", "--compact", &s(&src), "-o", &s(&small)]),
        true,
    )
    .unwrap();
    let (native, compact) = (std::fs::read(&bin).unwrap(), std::fs::read(&small).unwrap());
    assert_eq!(native.len(), 7 * 16);
    // add, mov and cmp compact on Gen7.5; if/mad/endif/EOT send do not, and
    // the EOT send is padded to 16 bytes with a compact nop.
    assert!(compact.len() < native.len(), "{} bytes", compact.len());
    let numbers = run(&args(&["--gen", "hsw", "--no-labels", &s(&bin)]), false).unwrap();
    assert!(numbers.contains("(f0.0) if (8|M0) 32 32"), "{numbers}");
    assert!(!numbers.contains("L80"), "{numbers}");
    let labels = run(&args(&["--gen", "hsw", &s(&small)]), false).unwrap();
    assert!(labels.contains("{Compacted}"), "{labels}");
    assert!(labels.contains("if (8|M0) L"), "{labels}");
    // The labelled disassembly of the compact binary reassembles to it.
    std::fs::write(&src, &labels).unwrap();
    run(&args(&["--gen", "hsw", &s(&src), "-o", &s(&bin)]), true).unwrap();
    assert_eq!(std::fs::read(&bin).unwrap(), compact);
    // Flags of the other command are errors.
    assert!(run(&args(&["--gen", "hsw", "--compact", &s(&bin)]), false).is_err());
    assert!(
        run(
            &args(&["--gen", "hsw", "--no-labels", &s(&src), "-o", "x"]),
            true
        )
        .is_err()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn validate_reports_errors_and_fails_only_on_them() {
    let dir = std::env::temp_dir().join(format!("baregpu-cli-validate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let check = |name: &str, source: &str| {
        let (src, bin) = (
            dir.join(format!("{name}.asm")),
            dir.join(format!("{name}.bin")),
        );
        std::fs::write(&src, source).unwrap();
        let out = baregpu(&[
            "asm",
            "--gen",
            "gen7",
            src.to_str().unwrap(),
            "-o",
            bin.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = baregpu(&["validate", "--gen", "gen7", bin.to_str().unwrap()]);
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    // A destination stride of 0 is illegal on every generation (003 lines 91749-91754).
    let (ok, text) = check("bad", "add (8|M0) r1.0<0>:d r1.0<8;8,1>:d 1:d\n");
    assert!(!ok, "{text}");
    assert!(text.contains("/* 0000 */ add (8|M0) r1.0<0>:d"), "{text}");
    assert!(text.contains("DstHorzStrideZero"), "{text}");
    assert!(
        text.contains("1 instructions: 1 errors, 0 warnings"),
        "{text}"
    );
    let (ok, text) = check("good", "add (8|M0) r1.0<1>:d r1.0<8;8,1>:d 1:d\n");
    assert!(ok, "{text}");
    assert!(
        text.contains("1 instructions: 0 errors, 0 warnings"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `--gen dg2`: the assembler reads iga64's load/store syntax, `disasm`
/// comments the send as iga64 does, and `validate` reports the send and
/// SWSB rules (an error fails it; the missing rule families are one
/// warning).
#[test]
fn dg2_messages_and_validate() {
    let dir = std::env::temp_dir().join(format!("baregpu-cli-dg2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |name: &str, source: &str| {
        let (src, bin) = (
            dir.join(format!("{name}.asm")),
            dir.join(format!("{name}.bin")),
        );
        std::fs::write(&src, source).unwrap();
        let out = baregpu(&[
            "asm",
            "--gen",
            "dg2",
            src.to_str().unwrap(),
            "-o",
            bin.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dis = baregpu(&["disasm", "--gen", "dg2", bin.to_str().unwrap()]);
        assert!(dis.status.success());
        let val = baregpu(&["validate", "--gen", "dg2", bin.to_str().unwrap()]);
        (
            String::from_utf8_lossy(&dis.stdout).into_owned(),
            val.status.success(),
            String::from_utf8_lossy(&val.stdout).into_owned(),
        )
    };
    let good = "load.ugm.d32x4.a64 (16|M0) r10:8 [r20:4] {$1}\n\
                add (16|M0) r30.0<1>:f r10.0<1;1,0>:f r12.0<1;1,0>:f {$1.dst}\n";
    let (dis, ok, val) = run("good", good);
    assert!(
        dis.contains("send.ugm (16|M0) r10 r20 null:0 0x0 0x08803580 {$1} // wr:4+0, rd:8; load.ugm.d32x4.a64"),
        "{dis}"
    );
    assert!(ok, "{val}");
    assert!(
        val.contains("2 instructions: 0 errors, 0 warnings"),
        "{val}"
    );
    // No wait on the token, and an address payload of 2 where 4 are needed.
    let bad = "send.ugm (16|M0) r10 r20 null:0 0x0 0x04803580 {$1}\n\
               add (16|M0) r30.0<1>:f r10.0<1;1,0>:f r12.0<1;1,0>:f\n";
    let (_, ok, val) = run("bad", bad);
    assert!(!ok, "{val}");
    assert!(val.contains("XeSendLength"), "{val}");
    assert!(val.contains("XeTokenDependency"), "{val}");
    assert!(
        val.contains("2 instructions: 1 errors, 1 warnings"),
        "{val}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
