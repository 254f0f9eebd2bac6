//! The AMD R700 (RV770 family, TeraScale 1 / VLIW5) shader instruction set.
//!
//! Sources: "R700-Family Instruction Set Architecture" (Feb 2011), cited as
//! `002 lines A-B` (the text in /work/shared/prm/002_*.txt); where it is garbled,
//! LLVM's R600 backend (`llvm/lib/Target/AMDGPU/R600Instructions.td`,
//! `R600InstPrinter.cpp`, `R600MCCodeEmitter.cpp`) is cited beside the entry.
//!
//! * [`cf`]: control-flow words (CF_WORD, CF_ALU_WORD, CF_ALLOC_EXPORT_WORD).
//! * [`alu`]: ALU_WORD0 / ALU_WORD1_OP2 / ALU_WORD1_OP3, instruction groups, literals.
//! * [`fetch`]: TEX_WORD0-2 and VTX_WORD0-2 (128-bit fetch instructions).
//! * [`mem`]: MEM_RD and LDS (MEM_DSR/MEM_DSW) words in fetch clauses.
//! * [`validate`]: the manual's legality rules for groups, read ports, clauses, kcache.
//! * [`program`]: a whole shader: the CF program, then the clauses at the CF words' ADDR.
//! * [`llvm_text`]: text as `llc -march=r600 -mcpu=rv770` prints it.
//! * [`emu`]: a wavefront emulator that runs a program over a grid of threads.
//!
//! Decoding never panics: every reserved opcode, reserved bit or malformed layout is a
//! [`DecodeError`]; every decoded value re-encodes to the same bits.
#![no_std]

extern crate alloc;

pub mod alu;
pub mod asm;
pub mod cf;
pub mod emu;
mod error;
pub mod fetch;
pub mod llvm_text;
pub mod mem;
pub mod program;
pub mod validate;

pub use error::DecodeError;

/// Bits `lo..=hi` of `w`.
#[inline]
pub(crate) const fn field(w: u32, lo: u32, hi: u32) -> u32 {
    (w >> lo) & (u32::MAX >> (31 - (hi - lo)))
}

/// `v` placed at bits `lo..=hi` (masked to the field's width).
#[inline]
pub(crate) const fn put(v: u32, lo: u32, hi: u32) -> u32 {
    (v & (u32::MAX >> (31 - (hi - lo)))) << lo
}

/// Bit `b` of `w`.
#[inline]
pub(crate) const fn bit(w: u32, b: u32) -> bool {
    (w >> b) & 1 != 0
}
