//! `baregpu run --gen gen12.5` through the binary: a small Xe-HPG kernel
//! (.asm) dispatched with COMPUTE_WALKER by the driver on the DG2 model,
//! reading its inline data (`--inline`), the indirect data whose address
//! the driver puts in inline qword 0 (`--indirect`), its local X IDs, and
//! storing through the binding table into a buffer written out with `--out`.

use std::path::PathBuf;
use std::process::{Command, Output};

fn baregpu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(args)
        .output()
        .expect("run baregpu")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("baregpu-cli-dg2-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// out[i] = indirect dword 0 * i + inline dword 2, i the global X ID.
const KERNEL: &str = "\
mov (1|M0) r30.0<1>:ud r2.0<0;1,0>:ud
mov (1|M0) r30.1<1>:ud r2.1<0;1,0>:ud
sync.nop null {A@1}
load.ugm.d32x1t.a64 (1|M0) r31:1 [r30:1] {$0}
shl (1|M0) r3.0<1>:ud r0.1<0;1,0>:ud 4:ud
add (16|M0) r10.0<1>:ud r1.0<1;1,0>:uw r3.0<0;1,0>:ud {A@1}
shl (16|M0) r12.0<1>:ud r10.0<1;1,0>:ud 2:ud {A@1}
sync.nop null {$0.dst}
mul (16|M0) r40.0<1>:ud r10.0<1;1,0>:ud r31.0<0;1,0>:uw {A@1}
add (16|M0) r40.0<1>:ud r40.0<1;1,0>:ud r2.2<0;1,0>:ud {A@1}
sync.nop null {A@1}
store.ugm.d32.a32 (16|M0) bti[1][r12:2] r40:2 {$1}
send.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}
";

#[test]
fn a_walker_kernel_reads_inline_and_indirect_data_and_local_ids() {
    let dir = scratch("walker");
    let (k, inline, indirect, out) = (
        dir.join("k.asm"),
        dir.join("inline.bin"),
        dir.join("indirect.bin"),
        dir.join("out.bin"),
    );
    std::fs::write(&k, KERNEL).unwrap();
    std::fs::write(&inline, 1000u32.to_le_bytes()).unwrap();
    std::fs::write(&indirect, 7u32.to_le_bytes()).unwrap();
    let o = baregpu(&[
        "run",
        "--gen",
        "gen12.5",
        "--kernel",
        k.to_str().unwrap(),
        "--simd",
        "16",
        "--grid",
        "4",
        "--group",
        "16",
        "--local-ids",
        "x",
        "--inline",
        inline.to_str().unwrap(),
        "--indirect",
        indirect.to_str().unwrap(),
        "--bind",
        "1=buffer:zero:256",
        "--out",
        &format!("1={}", out.to_str().unwrap()),
    ]);
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let got: Vec<u32> = std::fs::read(&out)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want: Vec<u32> = (0..64).map(|i| 7 * i + 1000).collect();
    assert_eq!(got, want);
}

#[test]
fn inline_data_past_what_the_walker_carries_is_refused() {
    let dir = scratch("big");
    let (k, inline, indirect) = (
        dir.join("k.asm"),
        dir.join("inline.bin"),
        dir.join("indirect.bin"),
    );
    std::fs::write(&k, KERNEL).unwrap();
    std::fs::write(&inline, [0u8; 28]).unwrap();
    std::fs::write(&indirect, [0u8; 4]).unwrap();
    let args = |with_indirect: bool| {
        let mut v = vec![
            "run".to_string(),
            "--gen".into(),
            "gen12.5".into(),
            "--kernel".into(),
            k.to_str().unwrap().into(),
            "--simd".into(),
            "16".into(),
            "--grid".into(),
            "1".into(),
            "--inline".into(),
            inline.to_str().unwrap().into(),
            "--bind".into(),
            "1=buffer:zero:64".into(),
        ];
        if with_indirect {
            v.push("--indirect".into());
            v.push(indirect.to_str().unwrap().into());
        }
        v
    };
    // 28 bytes fit alone, not after the indirect data's address.
    let o = Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(args(true))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("24 bytes"), "{err}");
    // --inline is refused on the older generations.
    let o = baregpu(&[
        "run", "--gen", "gen7", "--kernel", "x.bin", "--simd", "16", "--grid", "1", "--inline",
        "y.bin",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("gen12.5"), "{err}");
}

/// A kernel that reads a register one instruction after writing it, with no
/// SWSB wait: the run fails with the model's report naming the instruction
/// and the register (read before the driver resets the engine).
#[test]
fn a_missing_swsb_dependency_is_reported_by_instruction_and_register() {
    let dir = scratch("swsb");
    let k = dir.join("racy.asm");
    std::fs::write(
        &k,
        "mov (8|M0) r11.0<1>:ud 0x5:ud\n\
         add (8|M0) r12.0<1>:ud r11.0<1;1,0>:ud 1:ud\n\
         send.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}\n",
    )
    .unwrap();
    let o = baregpu(&[
        "run",
        "--gen",
        "gen12.5",
        "--kernel",
        k.to_str().unwrap(),
        "--simd",
        "16",
        "--grid",
        "1",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("SWSB") && err.contains("reads r11"), "{err}");
    assert!(err.contains("add (8|M0) r12.0"), "{err}");
}
