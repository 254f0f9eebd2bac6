//! The streamer's side of the units it calls: the blitter (a command with
//! the engine's memory and tiling registers), and the media unit (which
//! engine has it, the EU instructions a run may spend, gating each command
//! on the threads, and turning media failures into engine errors).

use baregpu_hal::MemoryBus;

use super::{Halt, Parts};
use crate::blit::{self, BlitError, BlitOp};
use crate::command::Cmd;
use crate::media::{self, MediaError, MediaOp};
use crate::mem::view::GfxView;
use crate::mem::{Memory, Space};

/// INSTPM (render base + 0xC0) and its CONSTANT_BUFFER Address Offset
/// Disable bit 6: 3DSTATE_CONSTANT_* buffer 0 pointers become graphics
/// addresses (003 lines 11082-11092, 33156-33162).
const INSTPM: u32 = 0xC0;
const CONSTANT_BUFFER_ADDRESS_OFFSET_DISABLE: u32 = 1 << 6;

/// The 64-bit statistics registers the 3D front end counts into (003
/// lines 13077-13400; hal/tables/gen6/engine_registers.toml).
pub(super) const IA_VERTICES_COUNT: u32 = 0x2310;
pub(super) const IA_PRIMITIVES_COUNT: u32 = 0x2318;
pub(super) const VS_INVOCATION_COUNT: u32 = 0x2320;
pub(super) const GS_INVOCATION_COUNT: u32 = 0x2328;
pub(super) const GS_PRIMITIVES_COUNT: u32 = 0x2330;
pub(super) const CL_INVOCATION_COUNT: u32 = 0x2338;
pub(super) const CL_PRIMITIVES_COUNT: u32 = 0x2340;
pub(super) const PS_INVOCATION_COUNT: u32 = 0x2348;
pub(super) const PS_DEPTH_COUNT: u32 = 0x2350;
/// SO_NUM_PRIMS_WRITTEN and SO_PRIM_STORAGE_NEEDED (003 lines
/// 13350-13400).
pub(super) const SO_NUM_PRIMS_WRITTEN: u32 = 0x2288;
pub(super) const SO_PRIM_STORAGE_NEEDED: u32 = 0x2280;
/// Ivy Bridge's per-stream counters and the stream-output write offsets
/// (Linux i915_reg.h `GEN7_SO_NUM_PRIMS_WRITTEN(n)` 0x5200 + 8n,
/// `GEN7_SO_PRIM_STORAGE_NEEDED(n)` 0x5240 + 8n, `GEN7_SO_WRITE_OFFSET(n)`
/// 0x5280 + 4n; hal/tables/gen7/registers.toml).
pub(super) const GEN7_SO_NUM_PRIMS_WRITTEN: u32 = 0x5200;
pub(super) const GEN7_SO_PRIM_STORAGE_NEEDED: u32 = 0x5240;
pub(super) const GEN7_SO_WRITE_OFFSET: u32 = 0x5280;

/// The 3DPRIMITIVE parameters an indirect draw reads, in the order of its
/// DW2-6: 3DPRIM_VERTEX_COUNT, _START_VERTEX, _INSTANCE_COUNT,
/// _START_INSTANCE, _BASE_VERTEX (004 line 733; Linux i915_reg.h
/// GEN7_3DPRIM_*, hal/tables/gen7/registers.toml).
const PRIM_INDIRECT: [u32; 5] = {
    use baregpu_hal::gen7::regs as r;
    [
        r::_3DPRIM_VERTEX_COUNT.offset(),
        r::_3DPRIM_START_VERTEX.offset(),
        r::_3DPRIM_INSTANCE_COUNT.offset(),
        r::_3DPRIM_START_INSTANCE.offset(),
        r::_3DPRIM_BASE_VERTEX.offset(),
    ]
};

/// GPGPU_DISPATCHDIMX/Y/Z: an indirect GPGPU_WALKER's thread group
/// dimensions (Mesa i965 brw_compute.c `prepare_indirect_gpgpu_walker`
/// loads them instead of the command's X/Y/Z Dimension).
const DISPATCH_DIMS: [u32; 3] = {
    use baregpu_hal::gen7::regs as r;
    [
        r::GPGPU_DISPATCHDIMX.offset(),
        r::GPGPU_DISPATCHDIMY.offset(),
        r::GPGPU_DISPATCHDIMZ.offset(),
    ]
};

impl<B: MemoryBus> Parts<'_, B> {
    /// Executes one blitter command on engine `i`.
    pub(super) fn blit(&mut self, i: usize, c: &Cmd, op: BlitOp, dw: &[u32]) -> Result<(), Halt> {
        // Blits have no GGTT bit: the batch's address space decides.
        let space = self.space_for(i, c, dw);
        let mem = Memory::new(
            self.bus,
            &*self.gtt,
            &*self.regs,
            self.layout.engines[i].base,
        );
        let at = blit::Access { mem, space };
        self.engines[i]
            .blit
            .execute(&at, &*self.regs, self.layout.generation, c, op, dw)
            .map_err(|e| match e {
                BlitError::Invalid => Halt::InstructionError {
                    dw0: dw.first().copied().unwrap_or(0),
                },
                BlitError::Fault(f) => f.into(),
            })
    }

    /// The 3D commands of a generation whose 3D pipeline the model lacks
    /// (all but Gen6 and Gen7): refused as not modelled.
    fn no_3d(&self, op: MediaOp) -> bool {
        matches!(op, MediaOp::State3d(_) | MediaOp::Primitive)
            && self
                .media
                .as_ref()
                .is_none_or(|m| media::three_d::three_d_generation(m.platform).is_none())
    }

    /// A 64-bit register as two dwords.
    pub(super) fn read_u64(&self, reg: u32) -> u64 {
        u64::from(self.regs.get(reg)) | u64::from(self.regs.get(reg + 4)) << 32
    }

    /// Whether engine `i` is the one with the media unit.
    fn has_media(&self, i: usize) -> bool {
        self.media.is_some()
            && self
                .layout
                .engines
                .get(i)
                .is_some_and(|e| media::on_engine(e.name))
    }

    /// Gives the threads their share of a run of `budget` commands.
    pub(super) fn media_grant(&mut self, i: usize, budget: u32) {
        if self.has_media(i)
            && let Some(m) = self.media.as_mut()
        {
            m.allowance = u64::from(budget).saturating_mul(m.array.config().per_command);
        }
    }

    /// Decides whether command `c` may execute now on engine `i`; dispatch
    /// commands start their threads here. `Ok(false)`: the engine waits at
    /// this command (its head does not move).
    pub(super) fn media_gate(
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
            Some(
                MediaOp::Object | MediaOp::ObjectWalker | MediaOp::GpgpuWalker | MediaOp::Primitive
            )
        );
        if !dispatch
            && self
                .media
                .as_ref()
                .is_some_and(|m| m.array.is_idle() && m.array.report().is_none())
        {
            return Ok(true);
        }
        let space = self.space_for(i, c, dw);
        let mem = Memory::new(
            self.bus,
            &*self.gtt,
            &*self.regs,
            self.layout.engines[i].base,
        );
        let Some(media) = self.media.as_deref_mut() else {
            return Ok(true);
        };
        if !media.busy() {
            media.thread_space = space;
        }
        // The SOL stage moves Ivy Bridge's write offsets (bits 31:2).
        let gen7 = self.layout.generation == baregpu_hal::Generation::Gen7;
        if gen7 {
            for (k, o) in media.front.so_write_offsets.iter_mut().enumerate() {
                *o = self.regs.get(GEN7_SO_WRITE_OFFSET + 4 * k as u32) & !3;
            }
            // What Indirect Parameter Enable reads instead of the command's
            // dwords (3DPRIMITIVE, GPGPU_WALKER).
            media.front.indirect = PRIM_INDIRECT.map(|r| self.regs.get(r));
            media.dispatch_dims = DISPATCH_DIMS.map(|r| self.regs.get(r));
        }
        let clock = media.array.clock();
        let result = {
            let mut cmd = GfxView::new(mem, space);
            let mut threads = GfxView::new(mem, media.thread_space);
            media.gate(&mut cmd, &mut threads, c, op, dw)
        };
        *self.timestamp += media.array.clock() - clock;
        let thread_space = media.thread_space;
        let counted = core::mem::take(&mut media.front.statistics);
        let offsets = media.front.so_write_offsets;
        if gen7 {
            for (k, o) in offsets.iter().enumerate() {
                self.regs.set(GEN7_SO_WRITE_OFFSET + 4 * k as u32, *o);
            }
        }
        let streams = (0..4u32).flat_map(|k| {
            [
                (
                    GEN7_SO_NUM_PRIMS_WRITTEN + 8 * k,
                    counted.so_stream_written[k as usize],
                ),
                (
                    GEN7_SO_PRIM_STORAGE_NEEDED + 8 * k,
                    counted.so_stream_needed[k as usize],
                ),
            ]
        });
        for (reg, n) in [
            (IA_VERTICES_COUNT, counted.ia_vertices),
            (IA_PRIMITIVES_COUNT, counted.ia_primitives),
            (VS_INVOCATION_COUNT, counted.vs_invocations),
            (GS_INVOCATION_COUNT, counted.gs_invocations),
            (GS_PRIMITIVES_COUNT, counted.gs_primitives),
            (SO_NUM_PRIMS_WRITTEN, counted.so_prims_written),
            (SO_PRIM_STORAGE_NEEDED, counted.so_storage_needed),
            (CL_INVOCATION_COUNT, counted.cl_invocations),
            (CL_PRIMITIVES_COUNT, counted.cl_primitives),
            (PS_INVOCATION_COUNT, counted.ps_invocations),
            (PS_DEPTH_COUNT, counted.depth),
        ]
        .into_iter()
        .chain(streams)
        {
            if n != 0 {
                let v = self.read_u64(reg).wrapping_add(n);
                self.regs.set(reg, v as u32);
                self.regs.set(reg + 4, (v >> 32) as u32);
            }
        }
        if matches!(result, Err(MediaError::Unmodelled(_))) {
            self.stats.unmodelled += 1;
        }
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
    pub(super) fn media_execute(
        &mut self,
        i: usize,
        c: &Cmd,
        op: MediaOp,
        dw: &[u32],
    ) -> Result<(), Halt> {
        // A generation or engine without the media unit refuses its
        // commands, as does every media unit the dispatch commands it does
        // not run.
        if !self.has_media(i) || op == MediaOp::Unsupported || self.no_3d(op) {
            return Err(self.refuse(c, dw));
        }
        let instpm = self.layout.engines[i].base + INSTPM;
        let constants_absolute =
            self.regs.get(instpm) & CONSTANT_BUFFER_ADDRESS_OFFSET_DISABLE != 0;
        let space = self.space_for(i, c, dw);
        let mem = Memory::new(
            self.bus,
            &*self.gtt,
            &*self.regs,
            self.layout.engines[i].base,
        );
        let Some(media) = self.media.as_deref_mut() else {
            return Ok(());
        };
        media.constants_absolute = constants_absolute;
        let mut cmd = GfxView::new(mem, space);
        media
            .execute(&mut cmd, c, op, dw)
            .map_err(|e| halt_of(e, dw, space))
    }

    /// After a run's commands: threads still resident keep running with
    /// what is left of the budget (a ring that ends right after a dispatch
    /// still completes its threads).
    pub(super) fn media_background(&mut self, i: usize) {
        if !self.has_media(i) || self.engines[i].halted.is_some() {
            return;
        }
        let mem = Memory::new(
            self.bus,
            &*self.gtt,
            &*self.regs,
            self.layout.engines[i].base,
        );
        let Some(media) = self.media.as_deref_mut() else {
            return;
        };
        let clock = media.array.clock();
        let result = if media.busy() {
            let mut threads = GfxView::new(mem, media.thread_space);
            media.drain(&mut threads).map(|_| ())
        } else {
            Ok(())
        };
        *self.timestamp += media.array.clock() - clock;
        let space = media.thread_space;
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
}

/// The engine error of a media failure: a fault is a page fault at the
/// faulting address; anything else an instruction error on the command.
fn halt_of(e: MediaError, dw: &[u32], space: Space) -> Halt {
    match e {
        MediaError::Unmodelled(name) => Halt::Unmodelled {
            dw0: dw.first().copied().unwrap_or(0),
            name,
        },
        MediaError::Fault(f) => Halt::PageFault {
            gfx_addr: f.addr,
            ggtt: space == Space::Ggtt,
        },
        MediaError::Command | MediaError::Thread => Halt::InstructionError {
            dw0: dw.first().copied().unwrap_or(0),
        },
        MediaError::Invalid(why) => Halt::Invalid {
            dw0: dw.first().copied().unwrap_or(0),
            why,
        },
    }
}
