//! A test rig: a thread, a flat memory, surfaces, and a way to send one
//! message with a hand-built payload. Descriptors are written in the
//! symbolic syntax of `baregpu_isa::message` (its own tests pin the bits
//! to the manuals); payloads and expected results are built here from the
//! manuals' layout tables.

#![allow(dead_code)]

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{RegFile, Type};
use baregpu_isa::message;
use baregpu_soft::eu::send::{Payload, SendError, SendRequest};
use baregpu_soft::eu::shared::{FlatMemory, Handled, MemoryUnits, Surface};
use baregpu_soft::eu::thread::Thread;

/// Graphics address where the flat memory starts, and its size.
pub const MEM_BASE: u64 = 0x10_0000;
pub const MEM_LEN: usize = 0x4_0000;
/// First payload register: m1 on Gen4-Gen6, r20 on Gen7.
pub const PAYLOAD_MRF: u8 = 1;
pub const PAYLOAD_GRF: u8 = 20;
/// First response register.
pub const DST: u8 = 40;

pub struct Rig {
    pub p: IsaGen,
    pub thread: Thread,
    pub units: MemoryUnits,
}

impl Rig {
    pub fn new(p: IsaGen) -> Rig {
        Rig {
            p,
            thread: Thread::new(p),
            units: MemoryUnits::new(FlatMemory::new(MEM_BASE, MEM_LEN)),
        }
    }

    pub fn bind(&mut self, bti: u8, s: Surface) {
        self.units.surfaces.bind(bti, s);
    }

    pub fn mem(&mut self) -> &mut FlatMemory {
        &mut self.units.memory
    }

    fn payload(&self) -> Payload {
        if self.p >= IsaGen::Gen7 {
            Payload {
                file: RegFile::Grf,
                reg: PAYLOAD_GRF,
            }
        } else {
            Payload {
                file: RegFile::Mrf,
                reg: PAYLOAD_MRF,
            }
        }
    }

    /// Sets payload register `i` (0 = the first, the header if any).
    pub fn set(&mut self, i: usize, dw: [u32; 8]) {
        let pl = self.payload();
        let bytes: Vec<u8> = dw.iter().flat_map(|d| d.to_le_bytes()).collect();
        let at = (usize::from(pl.reg) + i) * 32;
        match pl.file {
            RegFile::Grf => self.thread.grf_mut()[at..at + 32].copy_from_slice(&bytes),
            _ => self.thread.mrf_mut()[at..at + 32].copy_from_slice(&bytes),
        }
    }

    /// Response register `i` as dwords.
    pub fn resp(&self, i: usize) -> [u32; 8] {
        core::array::from_fn(|d| self.thread.grf_ud(DST + i as u8, d))
    }

    /// Fills the response registers with a marker to see what is written.
    pub fn mark_response(&mut self, regs: usize, marker: u32) {
        for r in 0..regs {
            for d in 0..8 {
                self.thread.set_grf_ud(DST + r as u8, d, marker);
            }
        }
    }

    /// Sends the message written `text` (`unit.op(fields) mlen=N rlen=N
    /// [hdr]`) with these channel enables; `exec` 16 gives the send a word
    /// destination (Gen4's rule for 16 enables, 000 lines 13366-13368).
    pub fn send(&mut self, text: &str, exec: u8, channels: u32) -> Result<Handled, SendError> {
        let (sfid, desc) =
            message::parse_symbolic(self.p, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let req = SendRequest {
            ip: 0,
            sfid: Some(sfid),
            desc: 0,
            mlen: desc.mlen,
            rlen: desc.rlen,
            header: desc.header,
            function: desc.function,
            payload: self.payload(),
            dst: (desc.rlen > 0).then_some(DST),
            dst_type: if exec == 16 { Type::Uw } else { Type::Ud },
            exec_size: exec,
            first_channel: 0,
            channels,
            eot: false,
            conditional: false,
            extended: baregpu_soft::eu::send::ExtendedSend::NONE,
        };
        self.units.serve(&mut self.thread, &req)
    }

    /// `send` that must succeed.
    pub fn ok(&mut self, text: &str, exec: u8, channels: u32) {
        match self.send(text, exec, channels) {
            Ok(Handled::Done) => {}
            other => panic!("{text}: {other:?} (fault {:?})", self.units.fault),
        }
    }

    /// Fills `len` bytes at `addr` with `f(i)` for byte i.
    pub fn fill(&mut self, addr: u64, len: usize, f: impl Fn(usize) -> u8) {
        let bytes: Vec<u8> = (0..len).map(f).collect();
        assert!(self.mem().put(addr, &bytes));
    }

    pub fn dword(&mut self, addr: u64) -> u32 {
        self.mem().dword(addr)
    }
}

/// A recognisable byte pattern: byte i of memory is `(i * 7 + 3) & 0xFF`.
pub fn pattern(i: usize) -> u8 {
    (i.wrapping_mul(7).wrapping_add(3) & 0xFF) as u8
}

/// The little-endian dword of `pattern` at byte offset `at`.
pub fn pattern_dword(at: usize) -> u32 {
    u32::from_le_bytes([
        pattern(at),
        pattern(at + 1),
        pattern(at + 2),
        pattern(at + 3),
    ])
}

pub const ALL: [IsaGen; 5] = [
    IsaGen::Gen4,
    IsaGen::G45,
    IsaGen::Gen6,
    IsaGen::Gen7,
    IsaGen::Gen75,
];
