//! The demo's few MI commands in the encoding of the GPU's generation: the
//! Gen4/G45 forms (a GTT bit in MI_BATCH_BUFFER_START, an address extension
//! dword), the Gen6/Gen7 ones (Gen7 inherits Gen6's MI tables) or Gen12.5's
//! (48-bit addresses; the demo's batches are GGTT batches in the engines'
//! kernel contexts, so the stores name the GGTT and MI_BATCH_BUFFER_START
//! keeps its default GGTT address space).

use baregpu::Batch;
use baregpu::hal::Generation;
use baregpu::hal::{gen4, gen7, gen12_5};
use baregpu::submit::BatchError;

/// One command of the demo's batches.
pub enum Mi {
    /// MI_STORE_DATA_IMM of `value` at GGTT address `gfx`.
    Store { gfx: u64, value: u32 },
    /// MI_STORE_REGISTER_MEM of register `register` at GGTT address `gfx`.
    StoreRegister { register: u32, gfx: u64 },
    /// MI_BATCH_BUFFER_START of the batch at GGTT address `gfx`.
    Start { gfx: u64 },
    /// MI_BATCH_BUFFER_END.
    End,
}

/// Appends `command` to `batch` as `generation` encodes it.
pub fn push(batch: &mut Batch<'_>, generation: Generation, command: Mi) -> Result<(), BatchError> {
    if generation == Generation::Gen12_5 {
        return push_gen12_5(batch, command);
    }
    let gen4 = matches!(generation, Generation::Gen4 | Generation::G45);
    match (command, gen4) {
        (Mi::Store { gfx, value }, true) => batch.push(&gen4::commands::MiStoreDataImm {
            use_global_gtt: true,
            address: gfx,
            data_dword0: value,
            data_dword1: None,
            ..Default::default()
        }),
        (Mi::Store { gfx, value }, false) => batch.push(&gen7::commands::MiStoreDataImm {
            use_global_gtt: true,
            address: gfx,
            data_dword0: value,
            data_dword1: None,
        }),
        (Mi::StoreRegister { register, gfx }, true) => {
            batch.push(&gen4::commands::MiStoreRegisterMem {
                use_global_gtt: true,
                register_address: register,
                memory_address: gfx,
                ..Default::default()
            })
        }
        (Mi::StoreRegister { register, gfx }, false) => {
            batch.push(&gen7::commands::MiStoreRegisterMem {
                use_global_gtt: true,
                register_address: register,
                memory_address: gfx,
            })
        }
        (Mi::Start { gfx }, true) => batch.push(&gen4::commands::MiBatchBufferStart {
            batch_buffer_start_address: gfx,
            buffer_address_space: gen4::commands::MiBatchBufferStart::BUFFER_ADDRESS_SPACE_GTT,
            ..Default::default()
        }),
        (Mi::Start { gfx }, false) => batch.push(&gen7::commands::MiBatchBufferStart {
            batch_buffer_start_address: gfx,
            ..Default::default()
        }),
        (Mi::End, true) => batch.push(&gen4::commands::MiBatchBufferEnd::default()),
        (Mi::End, false) => batch.push(&gen7::commands::MiBatchBufferEnd::default()),
    }
}

fn push_gen12_5(batch: &mut Batch<'_>, command: Mi) -> Result<(), BatchError> {
    use gen12_5::commands as c;
    match command {
        Mi::Store { gfx, value } => batch.push(&c::MiStoreDataImm {
            use_global_gtt: true,
            address: gfx,
            data_dword0: value,
            ..Default::default()
        }),
        Mi::StoreRegister { register, gfx } => batch.push(&c::MiStoreRegisterMem {
            use_global_gtt: true,
            register_address: register,
            memory_address: gfx,
            ..Default::default()
        }),
        Mi::Start { gfx } => batch.push(&c::MiBatchBufferStart {
            batch_buffer_start_address: gfx,
            ..Default::default()
        }),
        Mi::End => batch.push(&c::MiBatchBufferEnd::default()),
    }
}
