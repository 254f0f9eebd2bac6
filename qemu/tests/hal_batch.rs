//! no_std proof of the hal: packs a Gen6 batch with the generated packets
//! inside the kernel, decodes it back with the reflection-table decoder and
//! checks every command and field.
#![cfg_attr(target_os = "none", no_std, no_main)]

extern crate alloc;

use alloc::string::ToString;
use alloc::vec;
use alloc::vec::Vec;

use baregpu::hal::Packet;
use baregpu::hal::decode::decode;
use baregpu::hal::gen6::commands::*;
use baregpu_boot::{BootInfo, ExitCode, exit_qemu, print, println};

baregpu_boot::entry!(run);

fn run(_: &'static BootInfo) -> ! {
    let mut batch = vec![0u32; 64];
    let mut at = 0;
    at += PipelineSelect {
        pipeline_selection: PipelineSelect::PIPELINE_SELECTION_PIPELINE_MEDIA,
    }
    .pack(&mut batch[at..])
    .unwrap();
    at += MiStoreDataImm {
        use_global_gtt: true,
        address: 0x4000,
        data_dword0: 0xcafe,
        data_dword1: Some(0xf00d),
    }
    .pack(&mut batch[at..])
    .unwrap();
    at += MiLoadRegisterImm {
        byte_write_disables: 0,
        registers: vec![MiLoadRegisterImmRegisters {
            register_offset: 0x2098,
            data_dword: 0x1234,
        }],
    }
    .pack(&mut batch[at..])
    .unwrap();
    at += MiNoop::default().pack(&mut batch[at..]).unwrap();
    at += MiBatchBufferEnd::default().pack(&mut batch[at..]).unwrap();
    batch.truncate(at);
    assert_eq!(&batch[..2], &[0x6904_0001, 0x1040_0003]);

    let tables = &baregpu::hal::gen6::TABLES;
    let names: Vec<&str> = decode(tables, "render", &batch)
        .map(|d| d.command.map_or("?", |c| c.name))
        .collect();
    assert_eq!(
        names,
        [
            "PIPELINE_SELECT",
            "MI_STORE_DATA_IMM",
            "MI_LOAD_REGISTER_IMM",
            "MI_NOOP",
            "MI_BATCH_BUFFER_END"
        ]
    );
    for d in decode(tables, "render", &batch) {
        assert!(d.problem.is_none());
        print!("{}", d);
    }
    let sdi = decode(tables, "render", &batch).nth(1).unwrap();
    let text = sdi.to_string();
    assert!(text.contains("data_dword1: 0xf00d"), "{}", text);
    let back = MiStoreDataImm::unpack(sdi.dwords).unwrap();
    assert_eq!(
        (back.address, back.data_dword0, back.data_dword1),
        (0x4000, 0xcafe, Some(0xf00d))
    );
    println!("[ok] hal_batch: {} dwords packed and decoded", batch.len());
    exit_qemu(ExitCode::Success)
}
