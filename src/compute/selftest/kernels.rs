//! The per-generation pieces of EU assembly every self-test kernel needs:
//! where a message payload is built, how a message is sent, how a thread
//! ends, and which data port unit a message goes to. Kernels are IGA-syntax
//! text, assembled at run time for the GPU's generation (the end-to-end
//! tests in `tests/compute_run_*.rs` build their kernels from these too).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use baregpu_hal::Generation;
use baregpu_isa::text::AsmError;

use crate::compute::kernel::isa_gen;

/// Assembles `text` for `generation`.
pub fn assemble(generation: Generation, text: &str) -> Result<Vec<u8>, AsmError> {
    let platform = isa_gen(generation).ok_or_else(|| AsmError {
        line: 0,
        col: 0,
        message: format!("{generation} has no EU instruction set here"),
    })?;
    baregpu_isa::text::assemble(platform, text)
}

/// Register `k` of a message payload: MRFs before Gen7 (m1 is the base
/// register of the payload), GRFs r112 and up on Gen7, where the MRF is
/// gone (001 lines 2168-2192) and an EOT payload must lie in r112-r127
/// [ext: Mesa brw_eu_validate].
pub fn msg(generation: Generation, k: u32) -> String {
    match generation {
        Generation::Gen7 => format!("r{}", 112 + k),
        _ => format!("m{}", 1 + k),
    }
}

/// `send` of a message whose header is in GRF `header` and whose other
/// registers were written to `msg(1)`, `msg(2)`, ...: the header is copied
/// to `msg(0)` first. Gen4/G45 name no source for the send (`null`: no
/// implied move, 000 lines 13346-13349), since the assembler encodes a
/// send's GRF source with a scalar region, which would replicate dword 0.
pub fn send(generation: Generation, header: &str, dst: &str, descriptor: &str) -> String {
    send_n(generation, 8, header, dst, descriptor)
}

/// [`send`] with execution size `n`: its channel enables reach the shared
/// function (an 8-OWord block write needs 16 channels: the execution mask
/// gates the dwords of its data registers, 003 lines 83631-83772).
pub fn send_n(generation: Generation, n: u32, header: &str, dst: &str, descriptor: &str) -> String {
    let m0 = msg(generation, 0);
    let copy = format!("mov (8|M0) {m0}.0<1>:ud {header}.0<8;8,1>:ud\n");
    match generation {
        Generation::Gen4 | Generation::G45 => {
            format!("{copy}send ({n}|M0) {dst}:uw {m0} null:ud {descriptor}\n")
        }
        _ => format!("{copy}send ({n}|M0) {dst}:ud {m0} {descriptor}\n"),
    }
}

/// The end of a root thread: R0 to the thread spawner with EOT, keeping
/// the URB handle (003 lines 50901-50949: descriptor 0x10 = dereference,
/// root, resource select; mlen 1). On Gen7 from r127 (an EOT payload must
/// lie in r112-r127).
pub fn end_thread(generation: Generation) -> String {
    let desc = "ts.deref(keep_urb) mlen=1 rlen=0 {EOT}";
    match generation {
        Generation::Gen7 => {
            format!("mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud\nsend (8|M0) null:ud r127 {desc}\n")
        }
        _ => send(generation, "r0", "null", desc),
    }
}

/// The data port unit that takes render-cache writes (media block and
/// OWord block writes): the 965/G45 write port, the SNB/IVB render cache.
pub fn write_port(generation: Generation) -> &'static str {
    match generation {
        Generation::Gen4 | Generation::G45 => "dpw",
        _ => "rc",
    }
}

/// The data port unit of OWord block reads of buffers: the 965/G45 read
/// port, the SNB render cache, the Ivy Bridge data cache.
pub fn read_port(generation: Generation) -> &'static str {
    match generation {
        Generation::Gen4 | Generation::G45 => "dpr",
        Generation::Gen6 => "rc",
        _ => "dc",
    }
}

/// The header of a media block message for an 8-row block 32 bytes wide:
/// M0.2 holds the block height - 1 in bits 21:16 and the width - 1 in
/// bytes in bits 4:0 (000 lines 4766-4799).
pub const MEDIA_BLOCK_8X32: &str = "0x7001f:ud";

/// The `hdr` flag of a data port descriptor whose message starts with a
/// header: SNB and Ivy Bridge descriptors have a header-present bit 19;
/// the 965/G45 descriptor has none (000 lines 13390-13396).
pub fn header_flag(generation: Generation) -> &'static str {
    if generation >= Generation::Gen6 {
        " hdr"
    } else {
        ""
    }
}
