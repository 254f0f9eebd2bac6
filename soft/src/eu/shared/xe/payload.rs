//! The message registers as bytes: payload reads and response writes of the
//! Gen12.5 shared functions (LSC, TGM, the legacy HDC messages).

use crate::eu::send::{SendError, SendRequest};
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

/// Registers in a message: the first payload's `mlen`, then the second
/// payload's (none for a null src1).
pub(super) fn message_regs(req: &SendRequest) -> usize {
    usize::from(req.mlen)
        + req
            .extended
            .src1
            .map_or(0, |_| usize::from(req.extended.src1_len))
}

/// The register-file byte address of register `k` of a message. A split
/// send's two payloads make one message, the first's registers first: IGC
/// sends the same dc0 scattered write whole (vISA `translateVISAScatterInst`:
/// header, offsets and data in one payload) or split (Mesa
/// `lower_surface_logical_send`: header and addresses in src0, the data in
/// src1), so the data is found by its place in the message either way.
pub(super) fn message_reg(req: &SendRequest, k: usize) -> Result<usize, SendError> {
    let first = usize::from(req.mlen);
    let reg = if k < first {
        usize::from(req.payload.reg) + k
    } else {
        match req.extended.src1 {
            Some(s) if k - first < usize::from(req.extended.src1_len) => usize::from(s) + k - first,
            _ => return Err(bad("message shorter than its payload")),
        }
    };
    Ok(reg * REG_BYTES)
}
