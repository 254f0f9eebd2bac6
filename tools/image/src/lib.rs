//! `cargo image`: a bootable image of the demo kernel for PCs.
//!
//! Builds the release demo kernel for x86_64-unknown-none, stages it with a
//! GRUB configuration under `target/image/`, and runs `grub-mkrescue`,
//! which writes a hybrid ISO (an El Torito CD, and an MBR/GPT disk image
//! with an EFI system partition): BIOS machines boot GRUB's i386-pc image,
//! UEFI machines its x86_64-efi image, and GRUB loads the kernel through
//! its Multiboot2 header. The host tests (`tests/image.rs`) use the same
//! [`build`] as the command.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The GRUB configuration: no menu, straight to the kernel; GRUB's own
/// console on the screen and on COM1 (where the kernel prints too).
/// `all_video` gives GRUB its framebuffer drivers (VBE on BIOS, GOP on
/// UEFI) so it can honour the kernel's framebuffer request.
pub const GRUB_CFG: &str = "\
serial --unit=0 --speed=115200
terminal_input console serial
terminal_output console serial
insmod all_video
set timeout=0
menuentry \"baregpu demo\" {
    multiboot2 /boot/baregpu-demo
    boot
}
";

/// What `build` made.
#[derive(Debug)]
pub struct Image {
    /// `target/baregpu.iso`.
    pub iso: PathBuf,
    /// The kernel ELF inside it.
    pub kernel: PathBuf,
}

/// Why the image could not be made.
#[derive(Debug)]
pub enum Error {
    /// Host tools missing and not installable (the message says what to run).
    Tools(String),
    /// Building the kernel failed.
    Build(String),
    /// Staging files failed.
    Io(PathBuf, std::io::Error),
    /// grub-mkrescue failed.
    Mkrescue(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Tools(m) => write!(f, "the image tools are missing: {m}"),
            Error::Build(m) => write!(f, "building the demo kernel failed:\n{m}"),
            Error::Io(p, e) => write!(f, "{}: {e}", p.display()),
            Error::Mkrescue(m) => write!(f, "grub-mkrescue failed:\n{m}"),
        }
    }
}

impl std::error::Error for Error {}

/// Debian packages the image needs, as (command or file, package) pairs
/// for `tools/ensure-packages.sh`: grub-mkrescue (grub-common), GRUB's
/// BIOS and UEFI platform files, xorriso (writes the ISO) and mtools
/// (fills the EFI system partition's FAT image).
pub const PACKAGES: &[(&str, &str)] = &[
    ("grub-mkrescue", "grub-common"),
    ("/usr/lib/grub/i386-pc/moddep.lst", "grub-pc-bin"),
    ("/usr/lib/grub/x86_64-efi/moddep.lst", "grub-efi-amd64-bin"),
    ("xorriso", "xorriso"),
    ("mformat", "mtools"),
];

/// Installs what is missing of [`PACKAGES`] (as root or with password-less
/// sudo), or says what to run.
pub fn ensure_tools(root: &Path) -> Result<(), Error> {
    let mut cmd = Command::new("sh");
    cmd.arg(root.join("tools/ensure-packages.sh"))
        .arg("the image tools (GRUB, xorriso, mtools)");
    for (what, package) in PACKAGES {
        cmd.args([what, package]);
    }
    let out = cmd
        .output()
        .map_err(|e| Error::Tools(format!("cannot run tools/ensure-packages.sh: {e}")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(Error::Tools(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ))
    }
}

/// Builds the release demo kernel; returns its path.
pub fn build_kernel(root: &Path) -> Result<PathBuf, Error> {
    // rust-toolchain.toml lists the target, but rustup adds listed targets
    // only when it installs the toolchain itself; add it to an existing one
    // (as tests/qemu.rs does). Without rustup, cargo's error says what is
    // missing.
    if let Ok(out) = Command::new("rustup")
        .args(["target", "add", "x86_64-unknown-none"])
        .current_dir(root)
        .output()
        && !out.status.success()
    {
        return Err(Error::Build(format!(
            "rustup target add x86_64-unknown-none failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "-p", "baregpu-boot", "--bin", "baregpu-demo"])
        .args(["--target", "x86_64-unknown-none", "--release"])
        .args(["--message-format", "json-render-diagnostics"])
        .current_dir(root)
        .output()
        .map_err(|e| Error::Build(format!("cannot run cargo: {e}")))?;
    if !out.status.success() {
        return Err(Error::Build(
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|msg| {
            msg["reason"] == "compiler-artifact" && msg["target"]["name"] == "baregpu-demo"
        })
        .find_map(|msg| msg["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| Error::Build("cargo reported no baregpu-demo executable".into()))
}

/// Builds `target/baregpu.iso` (tools, kernel, staging, grub-mkrescue).
pub fn build(root: &Path) -> Result<Image, Error> {
    ensure_tools(root)?;
    let kernel = build_kernel(root)?;
    // <target>/x86_64-unknown-none/release/baregpu-demo
    let target = kernel
        .ancestors()
        .nth(3)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| root.join("target"));
    let tree = target.join("image/iso-root");
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e| Error::Io(p, e)
    };
    if tree.exists() {
        std::fs::remove_dir_all(&tree).map_err(io(&tree))?;
    }
    let grub = tree.join("boot/grub");
    std::fs::create_dir_all(&grub).map_err(io(&grub))?;
    let staged = tree.join("boot/baregpu-demo");
    std::fs::copy(&kernel, &staged).map_err(io(&staged))?;
    let cfg = grub.join("grub.cfg");
    std::fs::write(&cfg, GRUB_CFG).map_err(io(&cfg))?;
    let iso = target.join("baregpu.iso");
    let out = Command::new("grub-mkrescue")
        .arg("-o")
        .arg(&iso)
        .arg(&tree)
        .output()
        .map_err(|e| Error::Mkrescue(format!("cannot run grub-mkrescue: {e}")))?;
    if !out.status.success() {
        return Err(Error::Mkrescue(
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    Ok(Image { iso, kernel })
}
