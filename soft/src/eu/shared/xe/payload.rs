//! The message registers as bytes: payload reads and response writes of the
//! Gen12.5 shared functions (LSC, TGM, the legacy HDC messages).

use crate::eu::send::SendError;
use crate::eu::thread::Thread;
use crate::eu::thread::layout::REG_BYTES;

use super::bad;

/// `n` bytes (at most 8) of the register file from byte `at`, little-endian.
pub(super) fn reg_load(t: &Thread, at: usize, n: usize) -> Result<u64, SendError> {
    let g = t.grf();
    let b = g
        .get(at..at + n)
        .ok_or(bad("LSC: payload runs past r127"))?;
    let mut v = [0u8; 8];
    v[..n].copy_from_slice(b);
    Ok(u64::from_le_bytes(v))
}

/// Writes the low `n` bytes of `v` to the register file at byte `at`.
pub(super) fn reg_store(t: &mut Thread, at: usize, n: usize, v: u64) -> Result<(), SendError> {
    let g = t.grf_mut();
    let b = g
        .get_mut(at..at + n)
        .ok_or(bad("LSC: response runs past r127"))?;
    b.copy_from_slice(&v.to_le_bytes()[..n]);
    Ok(())
}

/// Registers that hold `bytes` (at least one).
pub(super) fn regs_for(bytes: usize) -> usize {
    bytes.div_ceil(REG_BYTES).max(1)
}
