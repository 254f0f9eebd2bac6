//! The command streamer's side of the media unit: which engine has it, the
//! EU instructions a run may spend, gating each command on the threads,
//! and turning media failures into engine errors.

use alloc::boxed::Box;

use crate::command::Cmd;
use baregpu_hal::MemoryBus;
use baregpu_isa::IsaGen;

use super::memory::GfxView;
use super::{Media, MediaError, MediaOp};
use crate::device::Device;
use crate::engine::{Halt, Space};
use crate::eu::array::{EuConfig, EuReport, EuStats};

/// The ISA platform of the generation the device models.
pub(crate) fn platform_of(g: baregpu_hal::Generation) -> Option<IsaGen> {
    use baregpu_hal::Generation as G;
    match g {
        G::Gen4 => Some(IsaGen::Gen4),
        G::G45 => Some(IsaGen::G45),
        G::Gen6 => Some(IsaGen::Gen6),
        G::Gen7 => Some(IsaGen::Gen7),
        _ => None,
    }
}

/// The media unit of a device: on the render engine (the media and GPGPU
/// pipelines hang off the render command streamer).
pub(crate) fn new_media(g: baregpu_hal::Generation) -> Option<Box<Media>> {
    platform_of(g).map(|p| Box::new(Media::new(p)))
}

impl<B: MemoryBus> Device<B> {
    /// Whether engine `i` is the one with the media unit.
    fn has_media(&self, i: usize) -> bool {
        self.media.is_some()
            && self
                .layout
                .engines
                .get(i)
                .is_some_and(|e| e.name == "render")
    }

    /// Gives the threads their share of a run of `budget` commands.
    pub(crate) fn media_grant(&mut self, i: usize, budget: u32) {
        if self.has_media(i)
            && let Some(m) = self.media.as_mut()
        {
            m.allowance = u64::from(budget).saturating_mul(m.array.config().per_command);
        }
    }

    /// Decides whether command `c` may execute now on engine `i`; dispatch
    /// commands start their threads here. `Ok(false)`: the engine waits at
    /// this command (its head does not move).
    pub(crate) fn media_gate(
        &mut self,
        i: usize,
        c: &Cmd,
        op: Option<MediaOp>,
        dw: &[u32],
    ) -> Result<bool, Halt> {
        if !self.has_media(i) {
            return Ok(true);
        }
        // Not a dispatch, and no thread running or stopped on an error:
        // `Media::gate` would let it pass with nothing to drain.
        let dispatch = matches!(
            op,
            Some(MediaOp::Object | MediaOp::ObjectWalker | MediaOp::GpgpuWalker)
        );
        if !dispatch
            && self
                .media
                .as_ref()
                .is_some_and(|m| m.array.is_idle() && m.array.report().is_none())
        {
            return Ok(true);
        }
        let Some(mut media) = self.media.take() else {
            return Ok(true);
        };
        let space = self.space_for(i, c, dw);
        if !media.busy() {
            media.thread_space = space;
        }
        let clock = media.array.clock();
        let result = {
            let mut cmd = GfxView::new(self, i, space);
            let mut threads = GfxView::new(self, i, media.thread_space);
            media.gate(&mut cmd, &mut threads, c, op, dw)
        };
        self.timestamp += media.array.clock() - clock;
        let thread_space = media.thread_space;
        self.media = Some(media);
        result.map_err(|e| {
            halt_of(
                e,
                dw,
                if matches!(e, MediaError::Fault(_)) {
                    thread_space
                } else {
                    space
                },
            )
        })
    }

    /// Executes a media command after its gate passed.
    pub(crate) fn media_execute(
        &mut self,
        i: usize,
        c: &Cmd,
        op: MediaOp,
        dw: &[u32],
    ) -> Result<(), Halt> {
        // A generation or engine without the media unit refuses its
        // commands, as does every media unit the dispatch commands it does
        // not run.
        if !self.has_media(i) || op == MediaOp::Unsupported {
            return Err(self.refuse(c, dw));
        }
        let Some(mut media) = self.media.take() else {
            return Ok(());
        };
        let space = self.space_for(i, c, dw);
        let result = {
            let mut cmd = GfxView::new(self, i, space);
            media.execute(&mut cmd, c, op, dw)
        };
        self.media = Some(media);
        result.map_err(|e| halt_of(e, dw, space))
    }

    /// After a run's commands: threads still resident keep running with
    /// what is left of the budget (a ring that ends right after a dispatch
    /// still completes its threads).
    pub(crate) fn media_background(&mut self, i: usize) {
        if !self.has_media(i) || self.engines[i].halted.is_some() {
            return;
        }
        let Some(mut media) = self.media.take() else {
            return;
        };
        let clock = media.array.clock();
        let result = if media.busy() {
            let mut threads = GfxView::new(self, i, media.thread_space);
            media.drain(&mut threads).map(|_| ())
        } else {
            Ok(())
        };
        self.timestamp += media.array.clock() - clock;
        let space = media.thread_space;
        self.media = Some(media);
        if let Err(e) = result {
            let header = self.current_header(i);
            self.halt(i, halt_of(e, &[header], space));
        }
    }

    /// The header of the command engine `i` is at (for IPEHR); 0 when it
    /// cannot be read.
    fn current_header(&self, i: usize) -> u32 {
        let e = &self.engines[i];
        let space = if e.batch.is_some() {
            e.batch_space
        } else {
            Space::Ggtt
        };
        self.read_gfx_u32(i, space, e.acthd).unwrap_or(0)
    }

    /// An engine reset also resets its media unit.
    pub(crate) fn media_reset(&mut self, i: usize) {
        if self.has_media(i)
            && let Some(m) = self.media.as_mut()
        {
            m.reset();
        }
    }

    pub(crate) fn eu_config(&self) -> Option<EuConfig> {
        self.media.as_ref().map(|m| m.array.config())
    }

    /// A new EU array shape; the array is rebuilt (threads are dropped, so
    /// change it while idle).
    pub(crate) fn set_eu_config(&mut self, config: EuConfig) {
        if let Some(m) = self.media.as_mut() {
            m.array.reconfigure(config);
            let limit = m.vfe.max_threads as usize;
            if limit > 0 {
                m.array.set_limit(limit);
            }
        }
    }

    /// The last failure of the EU array (kept across engine resets).
    pub(crate) fn eu_report(&self) -> Option<EuReport> {
        let m = self.media.as_ref()?;
        m.array.report().cloned().or_else(|| m.last_report.clone())
    }

    pub(crate) fn eu_stats(&self) -> EuStats {
        self.media
            .as_ref()
            .map(|m| m.array.stats())
            .unwrap_or_default()
    }

    /// Kernels predecoded so far.
    pub(crate) fn eu_decodes(&self) -> u64 {
        self.media.as_ref().map_or(0, |m| m.cache.stats.decodes)
    }
}

/// The engine error of a media failure: a fault is a page fault at the
/// faulting address; anything else an instruction error on the command.
fn halt_of(e: MediaError, dw: &[u32], space: Space) -> Halt {
    match e {
        MediaError::Fault(f) => Halt::PageFault {
            gfx_addr: f.addr,
            ggtt: space == Space::Ggtt,
        },
        MediaError::Command | MediaError::Thread => Halt::InstructionError {
            dw0: dw.first().copied().unwrap_or(0),
        },
    }
}
