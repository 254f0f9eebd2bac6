//! `cargo image`: writes target/baregpu.iso and says how to use it.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    if std::env::args().len() > 1 {
        eprintln!("usage: cargo image   (no arguments; writes target/baregpu.iso)");
        return ExitCode::from(2);
    }
    // tools/image -> the workspace root.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let image = match baregpu_image::build(&root) {
        Ok(image) => image,
        Err(e) => {
            eprintln!("cargo image: {e}");
            return ExitCode::FAILURE;
        }
    };
    let iso = image.iso.canonicalize().unwrap_or(image.iso);
    let size = std::fs::metadata(&iso).map_or(0, |m| m.len());
    println!(
        "wrote {} ({} MiB): GRUB for BIOS and UEFI with the demo kernel {}",
        iso.display(),
        size.div_ceil(1 << 20),
        image.kernel.display()
    );
    println!();
    println!(
        "Boot it in QEMU (BIOS):  qemu-system-x86_64 -cdrom {} -serial stdio",
        iso.display()
    );
    println!("Write it to a USB stick (Linux), then boot a PC from the stick:");
    println!("  lsblk                                    # find the stick, e.g. /dev/sdX");
    println!(
        "  sudo dd if={} of=/dev/sdX bs=4M conv=fsync status=progress",
        iso.display()
    );
    println!("WARNING: dd overwrites the whole device named by of=, with no undo; name the");
    println!("stick itself (not a partition such as /dev/sdX1, and not your system disk).");
    ExitCode::SUCCESS
}
