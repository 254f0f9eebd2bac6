//! The few commands the submission layer writes itself, per generation.
//! Gen6 and Gen7 share these layouts (Gen7 inherits them in the tables), as
//! do Gen4 and G45, so one macro arm instantiates the encoders for each pair
//! of typed modules.

use baregpu_hal::{Generation, PackError, Packet};

/// Packs MI_LOAD_REGISTER_IMM of (register, value) pairs into the start of `out`.
type PackPairs = fn(&[(u32, u32)], &mut [u32]) -> Result<usize, PackError>;

/// Encoders for the submission layer's own commands.
pub struct Encoders {
    /// MI_BATCH_BUFFER_START; `ppgtt` runs the batch in the engine's PPGTT.
    pub batch_start: fn(addr: u64, ppgtt: bool, out: &mut [u32]) -> Result<usize, PackError>,
    /// MI_LOAD_REGISTER_IMM of (register, value) pairs.
    pub load_register_imm: PackPairs,
    /// A flush that completes earlier work before the breadcrumb, per engine.
    pub flush: fn(render: bool, out: &mut [u32]) -> Result<usize, PackError>,
    pub store_data_index:
        fn(byte_offset: u32, value: u32, out: &mut [u32]) -> Result<usize, PackError>,
    pub user_interrupt: u32,
    pub noop: u32,
    pub batch_end: u32,
}

macro_rules! encoders {
    ($gen:ident) => {{
        use baregpu_hal::$gen::commands as c;
        Encoders {
            batch_start: |addr, ppgtt, out| {
                // Bit 8: 0 = secure batch through the GGTT, 1 = non-secure through the PPGTT.
                c::MiBatchBufferStart {
                    batch_buffer_start_address: addr,
                    buffer_security_indicator: ppgtt as u32,
                    ..Default::default()
                }
                .pack(out)
            },
            load_register_imm: |pairs, out| {
                let registers = pairs
                    .iter()
                    .map(|&(register_offset, data_dword)| c::MiLoadRegisterImmRegisters { register_offset, data_dword })
                    .collect();
                c::MiLoadRegisterImm { byte_write_disables: 0, registers }.pack(out)
            },
            flush: |render, out| {
                if render {
                    // CS stall needs a companion bit on SNB; the pixel scoreboard stall is the cheap one.
                    c::PipeControl { command_streamer_stall_enable: true, stall_at_pixel_scoreboard: true, ..Default::default() }.pack(out)
                } else {
                    c::MiFlushDw::default().pack(out)
                }
            },
            store_data_index: |offset, value, out| {
                c::MiStoreDataIndex { offset, data_dword0: value, ..Default::default() }.pack(out)
            },
            user_interrupt: c::MiUserInterrupt::HEADER_VALUE,
            noop: c::MiNoop::HEADER_VALUE,
            batch_end: c::MiBatchBufferEnd::HEADER_VALUE,
        }
    }};
}

/// Gen4/G45: batches through the GTT, MI_FLUSH on every engine (Linux's
/// i9xx breadcrumb: flush, store the seqno, user interrupt).
macro_rules! gen4_encoders {
    ($gen:ident) => {{
        use baregpu_hal::$gen::commands as c;
        Encoders {
            batch_start: |addr, _ppgtt, out| {
                // Bit 7 = 1 fetches through the GTT; bit 8 = 0 keeps the batch secure
                // (the driver's own batches may use privileged commands).
                c::MiBatchBufferStart {
                    batch_buffer_start_address: addr,
                    buffer_address_space: c::MiBatchBufferStart::BUFFER_ADDRESS_SPACE_GTT,
                    buffer_security_indicator:
                        c::MiBatchBufferStart::BUFFER_SECURITY_INDICATOR_SECURE,
                }
                .pack(out)
            },
            load_register_imm: |pairs, out| {
                let registers = pairs
                    .iter()
                    .map(
                        |&(register_offset, data_dword)| c::MiLoadRegisterImmRegisters {
                            register_offset,
                            data_dword,
                        },
                    )
                    .collect();
                c::MiLoadRegisterImm {
                    byte_write_disables: 0,
                    registers,
                }
                .pack(out)
            },
            flush: |_render, out| c::MiFlush::default().pack(out),
            store_data_index: |offset, value, out| {
                c::MiStoreDataIndex {
                    offset,
                    data_dword0: value,
                    ..Default::default()
                }
                .pack(out)
            },
            user_interrupt: c::MiUserInterrupt::HEADER_VALUE,
            noop: c::MiNoop::HEADER_VALUE,
            batch_end: c::MiBatchBufferEnd::HEADER_VALUE,
        }
    }};
}

pub fn encoders(generation: Generation) -> Option<Encoders> {
    match generation {
        Generation::Gen4 => Some(gen4_encoders!(gen4)),
        Generation::G45 => Some(gen4_encoders!(g45)),
        Generation::Gen6 => Some(encoders!(gen6)),
        Generation::Gen7 => Some(encoders!(gen7)),
        _ => None,
    }
}
