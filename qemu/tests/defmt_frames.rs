//! Writes known defmt frames to COM2; the host harness decodes them with the
//! kernel ELF and checks every line.
#![cfg_attr(target_os = "none", no_std, no_main)]

use baregpu_boot::{BootInfo, ExitCode, exit_qemu, println};

baregpu_boot::entry!(run);

fn run(_: &'static BootInfo) -> ! {
    defmt::info!("defmt test: start");
    for i in 0..3u32 {
        defmt::info!("defmt test: line {=u32} of 3, square {=u32}", i, i * i);
    }
    defmt::warn!(
        "defmt test: hex {=u32:#x}, text {=str}",
        0xbad_cafe,
        "baregpu"
    );
    defmt::error!("defmt test: end");
    println!("[ok] defmt_frames: frames written to COM2");
    exit_qemu(ExitCode::Success)
}
