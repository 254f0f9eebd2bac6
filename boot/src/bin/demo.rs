//! The QEMU demo kernel (README command 1): boot, probe the PCI bus, pick
//! the backend and report what was found.
#![cfg_attr(target_os = "none", no_std, no_main)]

use baregpu_boot::{BootPlatform, ExitCode, StartInfo, exit_qemu, println};

baregpu_boot::entry!(demo);

fn demo(info: &'static StartInfo) -> ! {
    println!("baregpu demo kernel");
    println!(
        "boot: PVH start_info v{}, {} MiB of RAM",
        info.version,
        info.ram_bytes() >> 20
    );
    let platform = BootPlatform::new();
    let report = baregpu::probe(&platform);
    println!("{}", report);
    match report.backend {
        baregpu::Backend::Hardware { generation, .. } => {
            println!(
                "a supported {} GPU is present; driving it arrives with later work",
                generation
            );
        }
        baregpu::Backend::Software => {
            println!("the software GPU will run the work here once its device model exists");
        }
    }
    println!("demo finished");
    exit_qemu(ExitCode::Success)
}
