//! Byte windows the messages read and write: a surface's bytes in graphics
//! memory, the stateless general-state window, shared local memory, or
//! nothing (a null surface). Reads outside a window return zeros and writes
//! outside are dropped, the out-of-bounds rule of every buffer message
//! (000 lines 4561, 4627, 4826; 003 lines 83680, 83899, 84489). The DWord
//! scattered read's introduction says reads clamp instead (000 line 4804,
//! 003 lines 84446-84448); the message's own rule (return 0) is taken.

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
                for (i, b) in out.iter_mut().enumerate() {
                    let at = off
                        .checked_add(i as u64)
                        .and_then(|a| usize::try_from(a).ok());
                    if let Some(v) = at.and_then(|a| slm.get(a)) {
                        *b = *v;
                    }
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
                for (i, v) in data.iter().enumerate() {
                    let at = off
                        .checked_add(i as u64)
                        .and_then(|a| usize::try_from(a).ok());
                    if let Some(b) = at.and_then(|a| slm.get_mut(a)) {
                        *b = *v;
                    }
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

enum Inside {
    All,
    Part,
    None,
}

fn inside(off: u64, len: u64, size: u64) -> Inside {
    match off.checked_add(len) {
        Some(end) if end <= size => Inside::All,
        _ if off >= size => Inside::None,
        _ => Inside::Part,
    }
}
