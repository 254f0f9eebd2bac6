//! The thread side of a message: payload registers in (MRF on Gen4-Gen6,
//! GRF on Gen7), response registers out, and the channel enables that
//! gate both. Every index is checked against the message and response
//! lengths first, so a short message is an error, never a stray access.

use baregpu_isa::IsaGen;

use crate::eu::send::{SendError, SendRequest};
use crate::eu::thread::Thread;
use crate::eu::thread::layout::REG_BYTES;

/// One register's bytes.
pub(super) type Reg = [u8; REG_BYTES];

/// A message being served: the sending thread and its request.
pub(super) struct Msg<'t> {
    pub thread: &'t mut Thread,
    pub req: &'t SendRequest,
}

pub(super) fn bad(what: &'static str) -> SendError {
    SendError::Bad(what)
}

impl Msg<'_> {
    pub fn platform(&self) -> IsaGen {
        self.thread.platform()
    }

    /// Refuses a message shorter than `mlen` registers or with room for
    /// fewer than `rlen` response registers (when it has a destination).
    pub fn need(&self, mlen: usize, rlen: usize) -> Result<(), SendError> {
        if usize::from(self.req.mlen) < mlen {
            return Err(bad("message length shorter than the message's payload"));
        }
        if self.req.dst.is_some() && usize::from(self.req.rlen) < rlen {
            return Err(bad("response length shorter than the message's response"));
        }
        Ok(())
    }

    /// The 16 channel enables the shared function sees. On Gen4/G45 a
    /// dword-typed destination makes the EU force the high 8 bits to zero
    /// (000 lines 13366-13368).
    pub fn enables(&self) -> u32 {
        let ce = self.req.channels & 0xFFFF;
        if self.platform() <= IsaGen::G45 && self.req.dst_type.size() >= 4 {
            ce & 0xFF
        } else {
            ce
        }
    }

    /// Payload register `i` (0 is the first register of the message).
    pub fn reg(&self, i: usize) -> Result<Reg, SendError> {
        let mut r = [0u8; REG_BYTES];
        r.copy_from_slice(self.reg_bytes(i)?);
        Ok(r)
    }

    fn reg_bytes(&self, i: usize) -> Result<&[u8], SendError> {
        if i >= usize::from(self.req.mlen) {
            return Err(bad("payload register beyond the message length"));
        }
        let nr = usize::from(self.req.payload.reg) + i;
        let nr = u8::try_from(nr).map_err(|_| bad("payload beyond the register file"))?;
        self.thread
            .register(self.req.payload.file, nr)
            .ok_or(bad("payload beyond the register file"))
    }

    /// Dword `d` (0-7) of payload register `i`.
    pub fn dword(&self, i: usize, d: usize) -> Result<u32, SendError> {
        let r = self.reg_bytes(i)?;
        let o = (d & 7) * 4;
        Ok(u32::from_le_bytes([r[o], r[o + 1], r[o + 2], r[o + 3]]))
    }

    /// Lane `l` of the SIMD8 or SIMD16 operand in payload registers
    /// `first..first + regs` (lane `l` is dword `l % 8` of register
    /// `first + l / 8`), for the lanes set in `on`; other lanes read 0, and
    /// a register none of whose lanes is set is not read at all.
    pub fn lanes(&self, first: usize, regs: usize, on: u32) -> Result<[u32; 16], SendError> {
        let mut out = [0u32; 16];
        for (r, chunk) in out.chunks_exact_mut(8).enumerate().take(regs) {
            let bits = on >> (8 * r) & 0xFF;
            if bits == 0 {
                continue;
            }
            let reg = self.reg_bytes(first + r)?;
            for (d, (v, b)) in chunk.iter_mut().zip(reg.chunks_exact(4)).enumerate() {
                // All ones for an enabled lane, else zero (branch-free).
                let keep = 0u32.wrapping_sub(bits >> d & 1);
                *v = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & keep;
            }
        }
        Ok(out)
    }

    /// Writes response register `i`, only the dwords whose bit is set in
    /// `dwords` (bit d for dword d). Nothing is written for a null
    /// destination.
    pub fn respond(&mut self, i: usize, data: &Reg, dwords: u8) -> Result<(), SendError> {
        let Some(dst) = self.req.dst else {
            return Ok(());
        };
        if i >= usize::from(self.req.rlen) {
            return Err(bad("response register beyond the response length"));
        }
        let nr = usize::from(dst) + i;
        if nr >= 128 {
            return Err(bad("response beyond r127"));
        }
        let nr = nr as u8;
        if dwords == 0xFF {
            // The whole register at once (GRF register `nr` is bytes
            // 32 * nr.. of the GRF).
            let at = usize::from(nr) * REG_BYTES;
            if let Some(r) = self.thread.grf_mut().get_mut(at..at + REG_BYTES) {
                r.copy_from_slice(data);
                return Ok(());
            }
        }
        for d in 0..8 {
            if dwords >> d & 1 != 0 {
                self.thread.set_grf_ud(nr, d, dword_of(data, d));
            }
        }
        Ok(())
    }

    /// The current contents of response register `i` (for partial
    /// writes that keep the other half).
    pub fn response_reg(&self, i: usize) -> Reg {
        let mut r = [0u8; REG_BYTES];
        if let Some(dst) = self.req.dst {
            let nr = (usize::from(dst) + i).min(127) as u8;
            for d in 0..8 {
                r[d * 4..d * 4 + 4].copy_from_slice(&self.thread.grf_ud(nr, d).to_le_bytes());
            }
        }
        r
    }
}

pub(super) fn dword_of(r: &Reg, d: usize) -> u32 {
    let o = (d & 7) * 4;
    u32::from_le_bytes([r[o], r[o + 1], r[o + 2], r[o + 3]])
}

pub(super) fn set_dword(r: &mut Reg, d: usize, v: u32) {
    let o = (d & 7) * 4;
    r[o..o + 4].copy_from_slice(&v.to_le_bytes());
}
