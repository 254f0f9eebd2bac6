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
    assert!(text.contains("/* 0030 */ (f0.0) if (8|M0) 32 32"), "{text}");
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
