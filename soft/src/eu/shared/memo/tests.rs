//! Every memo answers what the work done again would answer; resolved
//! surfaces last only as long as the memory's state epoch.

use alloc::vec::Vec;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{MsgDesc, Sfid};
use baregpu_isa::message;

use super::{DecodeMemo, Memos, SurfaceMemo};
use crate::eu::shared::{BindingTable, FlatMemory, GfxMemory, MemFault, Surface, SurfaceError};

fn descriptors(p: IsaGen) -> Vec<(Sfid, MsgDesc)> {
    let texts: &[&str] = if p >= IsaGen::Gen7 {
        &[
            "dc.untyped_read(bti=0, simd=16, mask=x) mlen=2 rlen=2",
            "dc.untyped_read(bti=1, simd=16, mask=x) mlen=2 rlen=2",
            "dc.untyped_write(bti=2, simd=16, mask=x) mlen=4 rlen=0",
            "dc.untyped_read(bti=0, simd=8, mask=xy) mlen=1 rlen=2",
            "dc.untyped_write(bti=2, simd=8, mask=x) mlen=2 rlen=0",
            "dc.untyped_read(bti=3, simd=16, mask=xyzw) mlen=2 rlen=8",
        ]
    } else {
        &[
            "rc.oword_block_read(bti=3, owords=2) mlen=1 rlen=1 hdr",
            "rc.oword_block_read(bti=4, owords=2) mlen=1 rlen=1 hdr",
        ]
    };
    texts
        .iter()
        .map(|t| message::parse_symbolic(p, t).unwrap_or_else(|e| panic!("{t}: {e}")))
        .collect()
}

#[test]
fn decoded_descriptors_are_what_decoding_gives() {
    for p in [IsaGen::Gen6, IsaGen::Gen7] {
        let mut memo = DecodeMemo::default();
        let ds = descriptors(p);
        // More descriptors than the memo keeps, twice over, interleaved.
        for round in 0..3 {
            for (i, (sfid, d)) in ds.iter().enumerate() {
                let (sfid, d) = if round == 1 {
                    ds[ds.len() - 1 - i]
                } else {
                    (*sfid, *d)
                };
                assert_eq!(memo.decode(p, sfid, &d), message::decode(p, sfid, &d));
            }
        }
        // A descriptor that does not decode fails each time (not kept).
        let (sfid, mut bad) = ds[0];
        bad.mlen = 0xFF;
        let want = message::decode(p, sfid, &bad);
        assert!(want.is_err());
        assert_eq!(memo.decode(p, sfid, &bad), want);
        assert_eq!(memo.decode(p, sfid, &bad), want);
    }
}

/// A buffer SURFACE_STATE (Gen7 bit positions) of `entries` entries.
fn buffer_state(base: u32, entries: u32) -> [u32; 8] {
    let n = entries - 1;
    let mut dw = [0u32; 8];
    dw[0] = 4 << 29;
    dw[1] = base;
    dw[2] = ((n >> 7) & 0x3FFF) << 16 | (n & 0x7F);
    dw[3] = ((n >> 21) & 0x3F) << 21;
    dw
}

#[test]
fn decoded_surface_states_are_what_decoding_gives() {
    let mut memo = SurfaceMemo::default();
    let states: Vec<[u32; 8]> = (1..=12)
        .map(|k| buffer_state(0x1000 * k, 16 * k))
        .chain([buffer_state(0x1000, 17)]) // one dword from the first
        .collect();
    for round in 0..2 {
        for dw in &states {
            for (p, len) in [(IsaGen::Gen7, 8), (IsaGen::Gen6, 6)] {
                let want = Surface::from_surface_state(p, &dw[..len]);
                assert_eq!(memo.decode(p, &dw[..len]), want, "round {round}");
            }
        }
    }
    // A reserved surface type fails each time.
    let mut bad = buffer_state(0x1000, 16);
    bad[0] = 5 << 29;
    let want = Surface::from_surface_state(IsaGen::Gen7, &bad);
    assert!(want.is_err());
    assert_eq!(memo.decode(IsaGen::Gen7, &bad), want);
    assert_eq!(memo.decode(IsaGen::Gen7, &bad), want);
}

/// A flat memory with a state epoch the test sets, optionally moved by
/// every state read.
struct EpochMemory {
    mem: FlatMemory,
    epoch: Option<u64>,
    moves: bool,
}

impl GfxMemory for EpochMemory {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault> {
        self.mem.read(addr, buf)
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        self.mem.write(addr, data)
    }

    fn read_state(&mut self, addr: u64, buf: &mut [u8]) -> Result<(), MemFault> {
        if self.moves {
            self.epoch = self.epoch.map(|e| e + 1);
        }
        self.mem.read(addr, buf)
    }

    fn state_epoch(&self) -> Option<u64> {
        self.epoch
    }
}

const TABLE: BindingTable = BindingTable {
    platform: IsaGen::Gen7,
    table: 0,
    surface_state_base: 0,
};

/// Entry 0 points at a 16-entry buffer at 0x100, 0x80 holds a 32-entry
/// one.
fn memory(epoch: Option<u64>, moves: bool) -> EpochMemory {
    let mut mem = FlatMemory::new(0, 0x200);
    for (at, entries) in [(0x40u64, 16), (0x80, 32)] {
        for (i, d) in buffer_state(0x100, entries).iter().enumerate() {
            mem.set_dword(at + 4 * i as u64, *d);
        }
    }
    mem.set_dword(0, 0x40);
    EpochMemory { mem, epoch, moves }
}

fn entries(m: &mut Memos, mem: &mut EpochMemory) -> u64 {
    m.resolve(TABLE, mem, 0).expect("resolves").entries()
}

#[test]
fn resolved_surfaces_last_as_long_as_the_state_epoch() {
    let mut m = Memos::default();
    let mut mem = memory(Some(1), false);
    assert_eq!(entries(&mut m, &mut mem), 16);
    // Same epoch: the memory promised the state is unchanged, so the
    // surface is not looked up again (this change breaks the promise).
    mem.mem.set_dword(0, 0x80);
    assert_eq!(entries(&mut m, &mut mem), 16);
    // A new epoch: looked up again.
    mem.epoch = Some(2);
    assert_eq!(entries(&mut m, &mut mem), 32);
    // Forgotten: looked up again even at the same epoch.
    mem.mem.set_dword(0, 0x40);
    m.forget_resolved();
    assert_eq!(entries(&mut m, &mut mem), 16);
}

#[test]
fn without_an_epoch_or_with_one_the_reads_move_nothing_is_kept() {
    for (epoch, moves) in [(None, false), (Some(1), true)] {
        let mut m = Memos::default();
        let mut mem = memory(epoch, moves);
        assert_eq!(entries(&mut m, &mut mem), 16);
        mem.mem.set_dword(0, 0x80);
        if moves {
            // Back to the epoch the first lookup started at.
            mem.epoch = Some(1);
        }
        assert_eq!(entries(&mut m, &mut mem), 32, "{epoch:?} {moves}");
    }
}

#[test]
fn a_lookup_that_faults_is_not_kept() {
    let mut m = Memos::default();
    let mut mem = memory(Some(1), false);
    let far = BindingTable {
        table: 0x1000,
        ..TABLE
    };
    let want = SurfaceError::Fault(MemFault {
        addr: 0x1000,
        len: 4,
        write: false,
    });
    assert_eq!(m.resolve(far, &mut mem, 0), Err(want));
    assert_eq!(m.resolve(far, &mut mem, 0), Err(want));
}
