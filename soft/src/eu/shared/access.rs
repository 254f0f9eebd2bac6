//! Byte windows the messages read and write: a surface's bytes in graphics
//! memory, the stateless general-state window, shared local memory, or
//! nothing (a null surface). Reads outside a window return zeros and writes
//! outside are dropped, the out-of-bounds rule of every buffer message
//! (000 lines 4561, 4627, 4826; 003 lines 83680, 83899, 84489). The DWord
//! scattered read's introduction says reads clamp instead (000 line 4804,
//! 003 lines 84446-84448); the message's own rule (return 0) is taken.
//!
//! Per-lane dword messages go through [`MessageEnv::gather_dwords`] and
//! [`MessageEnv::scatter_dwords`]: lanes whose dwords follow each other are
//! one memory access, with the values, memory contents and first fault of
//! the lane-by-lane accesses.

use alloc::vec;

use super::MessageEnv;
use super::memory::MemFault;
use super::payload::bad;
use crate::eu::send::SendError;

/// Where a message's offsets point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Window {
    /// `size` bytes of graphics memory from `base`.
    Mem { base: u64, size: u64 },
    /// The thread group's shared local memory (Gen7 BTI 254).
    Slm,
    /// SURFTYPE_NULL: reads 0, writes dropped (000 line 3090).
    Null,
}

impl MessageEnv<'_> {
    /// Reads through the memory, recording a fault for the caller.
    pub(super) fn mem_read(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), SendError> {
        self.memory.read(addr, buf).map_err(|f| self.fault(f))
    }

    pub(super) fn mem_write(&mut self, addr: u64, data: &[u8]) -> Result<(), SendError> {
        self.last_surface = None;
        self.memory.write(addr, data).map_err(|f| self.fault(f))
    }

    fn fault(&mut self, f: MemFault) -> SendError {
        self.fault = Some(f);
        bad("memory fault (see MessageEnv::fault)")
    }

    /// Bytes `[off, off + out.len())` of `w`; bytes outside read as 0.
    pub(super) fn read_window(
        &mut self,
        w: Window,
        off: u64,
        out: &mut [u8],
    ) -> Result<(), SendError> {
        out.fill(0);
        let len = out.len() as u64;
        match w {
            Window::Null => Ok(()),
            Window::Slm => {
                let slm = self.slm.as_deref().ok_or(bad("no shared local memory"))?;
                let n = slm_inside(off, out.len(), slm.len());
                if n > 0 {
                    let at = off as usize;
                    out[..n].copy_from_slice(&slm[at..at + n]);
                }
                Ok(())
            }
            Window::Mem { base, size } => match inside(off, len, size) {
                Inside::All => self.mem_read(base.wrapping_add(off), out),
                Inside::None => Ok(()),
                Inside::Part => {
                    for (i, b) in out.iter_mut().enumerate() {
                        let o = off.wrapping_add(i as u64);
                        if o < size {
                            let mut one = [0u8];
                            self.mem_read(base.wrapping_add(o), &mut one)?;
                            *b = one[0];
                        }
                    }
                    Ok(())
                }
            },
        }
    }

    /// Writes `data` at `off` in `w`; bytes outside are dropped.
    pub(super) fn write_window(
        &mut self,
        w: Window,
        off: u64,
        data: &[u8],
    ) -> Result<(), SendError> {
        let len = data.len() as u64;
        match w {
            Window::Null => Ok(()),
            Window::Slm => {
                let slm = self
                    .slm
                    .as_deref_mut()
                    .ok_or(bad("no shared local memory"))?;
                let n = slm_inside(off, data.len(), slm.len());
                if n > 0 {
                    let at = off as usize;
                    slm[at..at + n].copy_from_slice(&data[..n]);
                }
                Ok(())
            }
            Window::Mem { base, size } => match inside(off, len, size) {
                Inside::All => self.mem_write(base.wrapping_add(off), data),
                Inside::None => Ok(()),
                Inside::Part => {
                    for (i, v) in data.iter().enumerate() {
                        let o = off.wrapping_add(i as u64);
                        if o < size {
                            self.mem_write(base.wrapping_add(o), &[*v])?;
                        }
                    }
                    Ok(())
                }
            },
        }
    }

    /// A little-endian dword of `w` (0 outside).
    pub(super) fn read_dword(&mut self, w: Window, off: u64) -> Result<u32, SendError> {
        let mut b = [0u8; 4];
        self.read_window(w, off, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    pub(super) fn write_dword(&mut self, w: Window, off: u64, v: u32) -> Result<(), SendError> {
        self.write_window(w, off, &v.to_le_bytes())
    }

    /// Reads the dword at `offs[i]` of `w` into `out[i]` for each lane `i`
    /// set in `on`: the values and the first fault of [`Self::read_dword`]
    /// lane by lane in lane order, but each run of lanes whose dwords
    /// follow each other in a memory window is one access.
    pub(super) fn gather_dwords(
        &mut self,
        w: Window,
        offs: &[u64],
        on: u32,
        out: &mut [u32],
    ) -> Result<(), SendError> {
        let n = offs.len().min(out.len()).min(32);
        let joins = joins(offs, on, n);
        let mut i = 0;
        while i < n {
            let len = run_len(joins, on, i, n);
            if len == 0 {
                i += 1;
                continue;
            }
            if len == 1 || !self.read_run(w, offs[i], &mut out[i..i + len]) {
                // One by one: also how a run that failed finds its fault.
                for l in i..i + len {
                    out[l] = self.read_dword(w, offs[l])?;
                }
            }
            i += len;
        }
        Ok(())
    }

    /// Writes `vals[i]` to the dword at `offs[i]` of `w` for each lane `i`
    /// set in `on`, in lane order (a later lane's write wins), with each
    /// run of lanes whose dwords follow each other in a memory window as
    /// one access. Memory after a fault, and the fault, are those of
    /// [`Self::write_dword`] lane by lane: a run whose access fails is
    /// written again dword by dword (the same bytes), which stops at the
    /// faulting dword.
    pub(super) fn scatter_dwords(
        &mut self,
        w: Window,
        offs: &[u64],
        on: u32,
        vals: &[u32],
    ) -> Result<(), SendError> {
        let n = offs.len().min(vals.len()).min(32);
        let joins = joins(offs, on, n);
        let mut i = 0;
        while i < n {
            let len = run_len(joins, on, i, n);
            if len == 0 {
                i += 1;
                continue;
            }
            if len == 1 || !self.write_run(w, offs[i], &vals[i..i + len]) {
                for l in i..i + len {
                    self.write_dword(w, offs[l], vals[l])?;
                }
            }
            i += len;
        }
        Ok(())
    }

    /// `out.len()` consecutive dwords at `off` of a memory window in one
    /// access; false, with nothing recorded, when they are not all inside
    /// or the access fails.
    fn read_run(&mut self, w: Window, off: u64, out: &mut [u32]) -> bool {
        let bytes = out.len() * 4;
        let Some(addr) = run_address(w, off, bytes) else {
            return false;
        };
        let mut buf = [0u8; 4 * MAX_RUN];
        if self.memory.read(addr, &mut buf[..bytes]).is_err() {
            return false;
        }
        for (v, b) in out.iter_mut().zip(buf.chunks_exact(4)) {
            *v = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        true
    }

    fn write_run(&mut self, w: Window, off: u64, vals: &[u32]) -> bool {
        let bytes = vals.len() * 4;
        let Some(addr) = run_address(w, off, bytes) else {
            return false;
        };
        self.last_surface = None;
        let mut buf = [0u8; 4 * MAX_RUN];
        for (v, b) in vals.iter().zip(buf.chunks_exact_mut(4)) {
            b.copy_from_slice(&v.to_le_bytes());
        }
        self.memory.write(addr, &buf[..bytes]).is_ok()
    }

    /// Whether the whole dword at `off` is inside `w` (atomics skip a
    /// dword that is not, 003 lines 84646-84647).
    pub(super) fn dword_inside(&self, w: Window, off: u64) -> bool {
        match w {
            Window::Null => false,
            Window::Slm => self
                .slm
                .as_deref()
                .is_some_and(|s| off.checked_add(4).is_some_and(|e| e <= s.len() as u64)),
            Window::Mem { size, .. } => matches!(inside(off, 4, size), Inside::All),
        }
    }

    /// A copy of `len` bytes of `w` (zeros outside), for block reads.
    pub(super) fn read_vec(
        &mut self,
        w: Window,
        off: u64,
        len: usize,
    ) -> Result<alloc::vec::Vec<u8>, SendError> {
        let mut v = vec![0u8; len];
        self.read_window(w, off, &mut v)?;
        Ok(v)
    }
}

/// Longest run of lanes moved in one access (a SIMD16 message).
const MAX_RUN: usize = 16;

/// Lanes that extend a run: bit `j` is set when lane `j` is on in `on`
/// and its dword comes right after lane `j - 1`'s.
fn joins(offs: &[u64], on: u32, n: usize) -> u32 {
    let mut m = 0u32;
    for j in 1..n {
        m |= u32::from(offs[j - 1].checked_add(4) == Some(offs[j])) << j;
    }
    m & on
}

/// Lanes in the run starting at lane `i` (0 when `i` is off): lane `i`
/// and the joining lanes after it, at most [`MAX_RUN`].
fn run_len(joins: u32, on: u32, i: usize, n: usize) -> usize {
    if on >> i & 1 == 0 {
        return 0;
    }
    let more = joins.checked_shr(i as u32 + 1).unwrap_or(0).trailing_ones() as usize;
    1 + more.min(n - i - 1).min(MAX_RUN - 1)
}

/// Graphics address of `bytes` bytes at `off` of `w`, when `w` is memory,
/// they are all inside it, and their addresses do not wrap (so that each
/// dword's address is what the one-by-one access computes).
fn run_address(w: Window, off: u64, bytes: usize) -> Option<u64> {
    let Window::Mem { base, size } = w else {
        return None;
    };
    let end = off.checked_add(bytes as u64)?;
    if end > size {
        return None;
    }
    base.checked_add(end)?;
    Some(base + off)
}

enum Inside {
    All,
    Part,
    None,
}

/// How many bytes of an access of `len` bytes at `off` fall inside shared
/// local memory of `size` bytes: a byte is inside when its offset is below
/// `size`, so the inside bytes are a prefix of the access.
fn slm_inside(off: u64, len: usize, size: usize) -> usize {
    match usize::try_from(off) {
        Ok(start) if start < size => len.min(size - start),
        _ => 0,
    }
}

fn inside(off: u64, len: u64, size: u64) -> Inside {
    match off.checked_add(len) {
        Some(end) if end <= size => Inside::All,
        _ if off >= size => Inside::None,
        _ => Inside::Part,
    }
}

#[cfg(test)]
mod tests;
