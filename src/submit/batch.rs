//! A batch buffer: DMA memory mapped in the GGTT, filled with packets.

use baregpu_hal::Packet;

use crate::gtt::{GfxAddr, Mapping};
use crate::platform::{Dma, DmaRegion};

/// Why a packet did not go into the batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchError {
    /// The batch has no room for it (and the batch end).
    Full,
    /// The packet itself could not be packed.
    Pack(baregpu_hal::PackError),
}

/// A batch being built. Create it with `Gpu::new_batch`. It owns its memory,
/// given back with its GGTT range when the engine is done with it (a batch
/// dropped unsubmitted gives back its memory, and its GGTT range stays in
/// use), except a placed batch (`Gpu::placed_batch`), which only views the
/// caller's.
pub struct Batch<'a> {
    /// Where the dwords go: all of `memory`, or the caller's memory from the
    /// batch start on.
    pub(crate) region: DmaRegion,
    /// The memory, when the batch owns it; `None` for a placed batch.
    pub(crate) memory: Option<Dma<'a>>,
    /// Where the engine fetches it: its GGTT mapping, or its address in a
    /// context's PPGTT.
    pub(crate) gfx: GfxAddr,
    pub(crate) ggtt_mapping: Option<Mapping>,
    pub(crate) context: Option<super::ContextId>,
    /// Dwords written.
    pub(crate) len: usize,
    pub(crate) batch_end: u32,
    pub(crate) noop: u32,
}

impl core::fmt::Debug for Batch<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Batch")
            .field("gfx", &self.gfx)
            .field("dwords", &self.len)
            .field("bytes", &self.region.size)
            .field("context", &self.context)
            .finish()
    }
}

impl Batch<'_> {
    /// The caller's memory (`Gpu::placed_batch`): submitted as it is, never
    /// written or freed by the driver.
    pub(crate) fn placed(&self) -> bool {
        self.memory.is_none()
    }

    fn dwords(&mut self) -> &mut [u32] {
        // SAFETY: `region` is the live DMA allocation of `size` bytes in
        // `memory`, owned by this batch (page aligned, so u32 aligned); the
        // device reads it only after submission, when no Rust reference
        // remains. Only called for batches that are not placed.
        unsafe {
            core::slice::from_raw_parts_mut(
                self.region.virt.as_ptr().cast::<u32>(),
                self.region.size / 4,
            )
        }
    }

    /// Graphics address of the first dword.
    pub fn gfx(&self) -> GfxAddr {
        self.gfx
    }

    /// Graphics address of the next dword to be written.
    pub fn cursor(&self) -> GfxAddr {
        GfxAddr(self.gfx.0 + self.len as u64 * 4)
    }

    /// Dwords written so far.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends a packet; one dword stays free for MI_BATCH_BUFFER_END.
    pub fn push<P: Packet>(&mut self, packet: &P) -> Result<(), BatchError> {
        let len = self.len;
        if self.placed() {
            return Err(BatchError::Full);
        }
        let room = (self.region.size / 4).saturating_sub(len + 2);
        if packet.dwords() > room {
            return Err(BatchError::Full);
        }
        let n = packet
            .pack(&mut self.dwords()[len..len + packet.dwords()])
            .map_err(BatchError::Pack)?;
        self.len += n;
        Ok(())
    }

    /// Appends raw dwords (already encoded commands).
    pub fn push_dwords(&mut self, dwords: &[u32]) -> Result<(), BatchError> {
        let len = self.len;
        if self.placed() {
            return Err(BatchError::Full);
        }
        if dwords.len() > (self.region.size / 4).saturating_sub(len + 2) {
            return Err(BatchError::Full);
        }
        self.dwords()[len..len + dwords.len()].copy_from_slice(dwords);
        self.len += dwords.len();
        Ok(())
    }

    /// Ends the batch: MI_BATCH_BUFFER_END, padded to a QWord.
    pub(crate) fn finish(&mut self) {
        if self.placed() {
            return;
        }
        let (len, end, noop) = (self.len, self.batch_end, self.noop);
        let d = self.dwords();
        d[len] = end;
        if (len + 1) % 2 == 1 {
            d[len + 1] = noop;
        }
    }

    /// The batch's dwords as written (for error dumps and tests).
    pub fn contents(&self) -> &[u32] {
        // SAFETY: as in `dwords` (a placed batch's memory is kept alive by
        // the caller, `Gpu::placed_batch`); read-only view of what the CPU
        // wrote.
        unsafe { core::slice::from_raw_parts(self.region.virt.as_ptr().cast::<u32>(), self.len) }
    }
}
