//! The bootable image (`cargo image`): builds target/baregpu.iso through the
//! same code as the command (`baregpu_image::build`), then boots it in QEMU
//! as a CD-ROM twice, at the same time: with SeaBIOS (BIOS, GRUB's i386-pc
//! image) and with OVMF (UEFI, GRUB's x86_64-efi image). Each run must end
//! with the demo's success status through `qemu/run.sh` and show on serial
//! that GRUB started the kernel through Multiboot2 with a framebuffer, and
//! the demo's results. QEMU, GRUB's tools and OVMF are installed when
//! missing (tools/ensure-packages.sh); if they cannot be, the test fails
//! with the command to run, as the other QEMU tests do.

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const OVMF_CODE: &str = "/usr/share/OVMF/OVMF_CODE.fd";
const OVMF_VARS: &str = "/usr/share/OVMF/OVMF_VARS.fd";

/// Firmware and GRUB add their boot time to the demo's (about 15 s of TCG
/// alone); OVMF's is the longer, some 10 s on an idle machine.
const TIMEOUT_S: u32 = 300;

fn ensure(what: &str, pairs: &[&str]) {
    let out = Command::new("sh")
        .arg(Path::new(ROOT).join("tools/ensure-packages.sh"))
        .arg(what)
        .args(pairs)
        .output()
        .expect("run tools/ensure-packages.sh");
    assert!(
        out.status.success(),
        "{what} missing and could not be installed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Boots `iso` through qemu/run.sh with `extra` QEMU arguments; COM2
/// (defmt frames) goes to `baregpu.<name>.defmt` beside the image.
fn boot(iso: &Path, name: &str, extra: &[String]) -> (bool, String) {
    let out = Command::new(Path::new(ROOT).join("qemu/run.sh"))
        .arg(iso)
        .args(extra)
        .env("QEMU_TIMEOUT", TIMEOUT_S.to_string())
        .env(
            "BAREGPU_DEFMT_OUT",
            iso.with_extension(format!("{name}.defmt")),
        )
        .output()
        .expect("spawn qemu/run.sh");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
    .replace('\r', "");
    (out.status.success(), text)
}

fn check(firmware: &str, passed: bool, output: &str) {
    assert!(
        passed,
        "{firmware}: the image did not boot the demo to success:\n{output}"
    );
    let boot_line = output
        .lines()
        .find(|l| l.starts_with("boot: "))
        .unwrap_or_else(|| panic!("{firmware}: no boot line:\n{output}"));
    assert!(
        boot_line.starts_with("boot: multiboot2 from \"GRUB")
            && boot_line.contains(", framebuffer "),
        "{firmware}: {boot_line}"
    );
    for line in [
        "screen: Firmware ",
        "backend: software GPU",
        "chain of 64 batches wrote squares: [0, 1, 4, 9, 16, 25, 36, 49] ... [3600, 3721, 3844, 3969]",
        "after the reset the render engine completed seqno 4",
        "and drew it on the screen",
        "cube frame  1/24: drawn in ",
        "its scanout on the screen",
        "the 3D pipeline drew 24 frames of 192x192",
        "demo finished",
        "interrupts: MSI to 0xfee",
        // The DG2 model after the Gen7 one.
        "software GPU: gen12.5 (DG2) device model",
        "compute  seqno 1: memory holds 0xc0de0002",
        "the blitter filled a Tile4 surface in local memory and copied it to linear memory \
         (the CPU's Tile4 helper agrees with it)",
        "(kernels/mandelbrot_xehpg.asm, COMPUTE_WALKER over 768 groups of one SIMD16 thread, \
         LSC stores to a linear buffer in local memory, 128x96)",
        "the same iteration counts as the Gen7 kernel's at all 12288 of these pixels",
        "software GPU (DG2) totals: ",
    ] {
        assert!(
            output.contains(line),
            "{firmware}: missing {line:?} in:\n{output}"
        );
    }
    let dg2_totals = output
        .lines()
        .find(|l| l.starts_with("software GPU (DG2) totals: "))
        .unwrap_or_default();
    assert!(
        dg2_totals.contains(", 0 errors, "),
        "{firmware}: {dg2_totals}"
    );
    // The submission work ran on both software GPUs.
    for line in [
        "chain of 64 batches wrote squares: [0, 1, 4, 9, 16, 25, 36, 49] ... [3600, 3721, 3844, 3969]",
        "runaway batch: hang detected after 20 ms, engine reset; error state:",
        "after the reset the render engine completed seqno 4",
    ] {
        assert_eq!(
            output.matches(line).count(),
            2,
            "{firmware}: {line:?} not once per GPU in:\n{output}"
        );
    }
    // The software GPU's MSIs reached the kernel's IDT through the local APIC.
    let msis: u64 = output
        .lines()
        .find_map(|l| {
            l.strip_prefix("interrupts: ")?
                .strip_suffix(" MSIs arrived through the IDT")
        })
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{firmware}: no interrupt count in:\n{output}"));
    assert!(msis > 0, "{firmware}: no MSI arrived");
}

#[test]
fn image_boots_with_seabios_and_with_ovmf() {
    ensure(
        "QEMU and OVMF",
        &["qemu-system-x86_64", "qemu-system-x86", OVMF_CODE, "ovmf"],
    );
    let image =
        baregpu_image::build(Path::new(ROOT)).unwrap_or_else(|e| panic!("cargo image: {e}"));

    // OVMF writes its variable store: each run gets its own copy.
    let vars: PathBuf = image
        .iso
        .with_file_name(format!("baregpu-ovmf-vars-{}.fd", std::process::id()));
    std::fs::copy(OVMF_VARS, &vars).expect("copy OVMF_VARS.fd");
    let uefi_args = vec![
        "-drive".to_string(),
        format!("if=pflash,format=raw,readonly=on,file={OVMF_CODE}"),
        "-drive".to_string(),
        format!("if=pflash,format=raw,file={}", vars.display()),
    ];
    let bios = {
        let iso = image.iso.clone();
        std::thread::spawn(move || boot(&iso, "seabios", &[]))
    };
    let uefi = boot(&image.iso, "ovmf", &uefi_args);
    let bios = bios.join().expect("SeaBIOS boot thread");
    let _ = std::fs::remove_file(&vars);
    check("SeaBIOS", bios.0, &bios.1);
    check("OVMF", uefi.0, &uefi.1);
}
