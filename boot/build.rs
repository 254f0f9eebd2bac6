// Link settings for the bare-metal kernel; host builds (clippy, docs) stay plain.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("none") {
        // Shared by baregpu-boot and the QEMU test kernels (qemu/Cargo.toml
        // points its `build` here), so the script is found from either package.
        let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
        let script = std::path::Path::new(&dir).join("../boot/linker.ld");
        println!("cargo:rustc-link-arg=-T{}", script.display());
        // defmt's build script puts defmt.x on the search path.
        println!("cargo:rustc-link-arg=-Tdefmt.x");
        // The target links static-pie by default; the 32-bit trampoline needs absolute addresses.
        println!("cargo:rustc-link-arg=--no-pie");
    }
    println!("cargo:rerun-if-changed=../boot/linker.ld");
}
