//! Starting threads: MEDIA_OBJECT (one thread, inline and indirect data),
//! MEDIA_OBJECT_WALKER (one thread per position, shared inline data) and
//! GPGPU_WALKER (thread groups), each thread's payload built from the
//! interface descriptor, the CURBE and the object's data.

use alloc::vec;
use alloc::vec::Vec;

use crate::command::Cmd;
use baregpu_isa::IsaGen;

use super::descriptor::Descriptor;
use super::walker::{GroupWalk, MediaWalk, MediaWalkSpec, thread_coords};
use super::{Media, MediaError, MediaOp, Selected};
use crate::command::{F, field};
use crate::eu::array::payload::{self, Pipeline, RootHeader};
use crate::eu::array::{Bindings, EuFailure, GroupSpec, ThreadStart};
use crate::eu::shared::sampler::SamplerSource;
use crate::eu::shared::{BindingTable, GeneralState, GfxMemory, Scratch};

/// FFID of the thread spawner, which makes media and GPGPU root threads
/// (003 Table 3-1, lines 790-806; "R0 Header created by TS", Figure 1-12).
const FFID_SPAWNER: u8 = 0x7;

/// Dispatch mask of a media thread: 16 channels. The manuals give no mask
/// for media root threads; their kernels are SIMD8/SIMD16 (SIMD32 exists
/// only for GPGPU dispatch).
const MEDIA_MASK: u32 = 0xFFFF;

fn get(c: &Cmd, dw: &[u32], name: F) -> u64 {
    field(c, dw, name).unwrap_or(0)
}

/// A signed field (two's complement of its width).
fn signed(c: &Cmd, dw: &[u32], name: F) -> i32 {
    let Some(f) = c.get(name) else {
        return 0;
    };
    let w = f.width().clamp(1, 32);
    let raw = f.extract(dw) as u32;
    ((raw << (32 - w)) as i32) >> (32 - w)
}

/// The inline data dwords of a command with an inline-data group.
fn inline(c: &Cmd, dw: &[u32]) -> Vec<u32> {
    c.group
        .and_then(|g| dw.get(usize::from(g.dw)..))
        .unwrap_or(&[])
        .to_vec()
}

/// A walker command being executed.
pub(super) enum Walk {
    Media {
        desc: Descriptor,
        ido: u8,
        inline: Vec<u32>,
        positions: core::iter::Peekable<MediaWalk>,
    },
    Gpgpu {
        desc: Descriptor,
        ido: u8,
        groups: GroupWalk,
        /// Threads per group in X, Y, Z.
        dims: [u32; 3],
        /// Channels of a full thread, and the right and bottom masks.
        simd: u32,
        right: u32,
        bottom: u32,
    },
}

impl Walk {
    pub fn finished(&mut self) -> bool {
        match self {
            Walk::Media { positions, .. } => positions.peek().is_none(),
            Walk::Gpgpu { groups, .. } => groups.peek().is_none(),
        }
    }
}

impl Media {
    /// Dispatch commands need the media (or GPGPU) pipeline: sending them
    /// to the 3D pipeline is UNDEFINED (003 lines 823-826).
    fn check_pipeline(&self) -> Result<(), MediaError> {
        if self.selected == Selected::ThreeD {
            return Err(MediaError::Command);
        }
        Ok(())
    }

    /// MEDIA_OBJECT: waits for a free slot, then starts the thread.
    pub(super) fn object_gate(
        &mut self,
        cmd: &mut dyn GfxMemory,
        threads: &mut dyn GfxMemory,
        c: &Cmd,
        dw: &[u32],
    ) -> Result<bool, MediaError> {
        self.check_pipeline()?;
        while self.array.free_slot().is_none() {
            if !self.run_threads(threads)? {
                return Ok(false);
            }
        }
        // Synchronized root threads wait for a spawner message the model
        // does not send (003 MEDIA_OBJECT DW2 bit 24).
        if get(c, dw, F::ThreadSynchronization) == 1 {
            return Err(MediaError::Command);
        }
        let ido = get(c, dw, F::InterfaceDescriptorOffset) as u32;
        let desc = self.descriptor(cmd, ido)?;
        // Indirect data: Indirect Object Base relative (003 lines
        // 48274-48283), after the inline data.
        let len = get(c, dw, F::IndirectDataLength) as usize;
        let mut indirect = vec![0u8; len];
        if len > 0 {
            let at = self
                .bases
                .indirect
                .wrapping_add(get(c, dw, F::IndirectDataStartAddress));
            cmd.read(at, &mut indirect)?;
        }
        let sb = (
            get(c, dw, F::ScoreboardX) as u16,
            get(c, dw, F::ScoreboardY) as u16,
        );
        let t = MediaThread {
            desc: &desc,
            ido: ido as u8,
            inline: &inline(c, dw),
            indirect: &indirect,
            scoreboard: sb,
            scoreboard_mask: get(c, dw, F::ScoreboardMask) as u8,
        };
        self.start_media(cmd, &t)?;
        Ok(true)
    }

    /// MEDIA_OBJECT_WALKER and GPGPU_WALKER: the command stays current
    /// until all its threads have ended.
    pub(super) fn walk_gate(
        &mut self,
        cmd: &mut dyn GfxMemory,
        threads: &mut dyn GfxMemory,
        c: &Cmd,
        op: Option<MediaOp>,
        dw: &[u32],
    ) -> Result<bool, MediaError> {
        if self.walk.is_none() {
            self.check_pipeline()?;
            let w = if op == Some(MediaOp::GpgpuWalker) {
                self.parse_gpgpu(cmd, c, dw)?
            } else {
                self.parse_media_walk(cmd, c, dw)?
            };
            self.walk = Some(w);
        }
        loop {
            let Some(mut w) = self.walk.take() else {
                return Ok(true);
            };
            let r = self.dispatch_walk(cmd, &mut w);
            let finished = w.finished();
            self.walk = Some(w);
            r?;
            if finished && self.array.is_idle() {
                self.walk = None;
                return Ok(true);
            }
            if self.array.is_idle() {
                // Nothing runs and nothing more can start: known at once,
                // so the engine stops at the walker (as thread errors do,
                // `Media::run_threads`) rather than waiting for a timeout.
                self.array.fail(EuFailure::Dispatch(
                    "a thread group needs more threads or barriers than the VFE allows",
                ));
                self.last_report = self.array.report().cloned();
                return Err(MediaError::Command);
            }
            if !self.run_threads(threads)? {
                return Ok(false);
            }
        }
    }

    fn parse_media_walk(
        &mut self,
        cmd: &mut dyn GfxMemory,
        c: &Cmd,
        dw: &[u32],
    ) -> Result<Walk, MediaError> {
        let ido = get(c, dw, F::InterfaceDescriptorOffset) as u32;
        let desc = self.descriptor(cmd, ido)?;
        let xy = |x: F, y: F| (get(c, dw, x) as i32, get(c, dw, y) as i32);
        let sxy = |x: F, y: F| (signed(c, dw, x), signed(c, dw, y));
        let spec = MediaWalkSpec {
            block: xy(F::BlockResolutionX, F::BlockResolutionY),
            global_res: xy(F::GlobalResolutionX, F::GlobalResolutionY),
            global_start: sxy(F::GlobalStartX, F::GlobalStartY),
            global_outer: sxy(F::GlobalOuterLoopStrideX, F::GlobalOuterLoopStrideY),
            global_inner: sxy(F::GlobalInnerLoopUnitX, F::GlobalInnerLoopUnitY),
            local_start: xy(F::LocalStartX, F::LocalStartY),
            local_outer: sxy(F::LocalOuterLoopStrideX, F::LocalOuterLoopStrideY),
            local_inner: sxy(F::LocalInnerLoopUnitX, F::LocalInnerLoopUnitY),
            global_count: get(c, dw, F::GlobalLoopExecCount) as u32,
            local_count: get(c, dw, F::LocalLoopExecCount) as u32,
        };
        Ok(Walk::Media {
            desc,
            ido: ido as u8,
            inline: inline(c, dw),
            positions: MediaWalk::new(spec).peekable(),
        })
    }

    /// GPGPU_WALKER [ext: Mesa gen7.xml]: SIMD size 8/16/32, thread counts
    /// per group minus one, group IDs, right and bottom execution masks.
    /// With Indirect Parameter Enable the X/Y/Z dimensions are the
    /// GPGPU_DISPATCHDIM registers' (`dispatch_dims`). Predication is the
    /// command streamer's (`cs::mi`, a dropped walker never gets here).
    fn parse_gpgpu(
        &mut self,
        cmd: &mut dyn GfxMemory,
        c: &Cmd,
        dw: &[u32],
    ) -> Result<Walk, MediaError> {
        let ido = get(c, dw, F::InterfaceDescriptorOffset) as u32;
        let desc = self.descriptor(cmd, ido)?;
        let simd = match get(c, dw, F::SimdSize) {
            0 => 0xFF,
            1 => 0xFFFF,
            2 => 0xFFFF_FFFF,
            _ => return Err(MediaError::Command),
        };
        let dims = [
            get(c, dw, F::ThreadWidthCounterMaximum) as u32 + 1,
            get(c, dw, F::ThreadHeightCounterMaximum) as u32 + 1,
            get(c, dw, F::ThreadDepthCounterMaximum) as u32 + 1,
        ];
        let start = [
            get(c, dw, F::ThreadGroupIdStartingX) as u32,
            get(c, dw, F::ThreadGroupIdStartingY) as u32,
            get(c, dw, F::ThreadGroupIdStartingZ) as u32,
        ];
        let end = match get(c, dw, F::IndirectParameterEnable) {
            1 => self.dispatch_dims,
            _ => [
                get(c, dw, F::ThreadGroupIdXDimension) as u32,
                get(c, dw, F::ThreadGroupIdYDimension) as u32,
                get(c, dw, F::ThreadGroupIdZDimension) as u32,
            ],
        };
        Ok(Walk::Gpgpu {
            desc,
            ido: ido as u8,
            groups: GroupWalk::new(start, end),
            dims,
            simd,
            right: get(c, dw, F::RightExecutionMask) as u32,
            bottom: get(c, dw, F::BottomExecutionMask) as u32,
        })
    }

    /// Starts as many of the walk's threads as fit now.
    fn dispatch_walk(&mut self, mem: &mut dyn GfxMemory, w: &mut Walk) -> Result<(), MediaError> {
        match w {
            Walk::Media {
                desc,
                ido,
                inline,
                positions,
            } => {
                while self.array.free_slot().is_some() {
                    let Some(pos) = positions.next() else { break };
                    let t = MediaThread {
                        desc,
                        ido: *ido,
                        inline,
                        indirect: &[],
                        scoreboard: pos,
                        scoreboard_mask: 0,
                    };
                    self.start_media(mem, &t)?;
                }
            }
            Walk::Gpgpu {
                desc,
                ido,
                groups,
                dims,
                simd,
                right,
                bottom,
            } => {
                while let Some(id) = groups.peek() {
                    let g = GpgpuGroup {
                        desc,
                        ido: *ido,
                        id,
                        dims: *dims,
                        simd: *simd,
                        right: *right,
                        bottom: *bottom,
                    };
                    if !self.start_group(mem, &g)? {
                        break;
                    }
                    groups.advance();
                }
            }
        }
        Ok(())
    }
}

/// One media thread to start.
struct MediaThread<'a> {
    desc: &'a Descriptor,
    ido: u8,
    inline: &'a [u32],
    indirect: &'a [u8],
    scoreboard: (u16, u16),
    scoreboard_mask: u8,
}

/// One GPGPU thread group to start.
struct GpgpuGroup<'a> {
    desc: &'a Descriptor,
    ido: u8,
    id: [u32; 3],
    dims: [u32; 3],
    simd: u32,
    right: u32,
    bottom: u32,
}

impl Media {
    fn start_media(
        &mut self,
        mem: &mut dyn GfxMemory,
        t: &MediaThread<'_>,
    ) -> Result<(), MediaError> {
        let (slot, index) = self.free_thread()?;
        let mut h = self.header(t.desc, index, t.ido);
        h.urb_handle = self.urb_handles;
        self.urb_handles = self.urb_handles.wrapping_add(1);
        h.scoreboard = t.scoreboard;
        h.scoreboard_mask = t.scoreboard_mask;
        let r0 = payload::r0(self.platform, Pipeline::Media, &h);
        let curbe = payload::curbe_rows(
            &self.curbe,
            t.desc.curbe_offset as usize,
            t.desc.curbe_rows as usize,
        );
        let bytes =
            payload::build(&r0, &curbe, t.inline, t.indirect).map_err(|_| MediaError::Command)?;
        self.start(mem, (slot, index), t.desc, bytes, MEDIA_MASK, None)
    }

    /// A free slot and dispatch index for a new thread.
    fn free_thread(&self) -> Result<(usize, u8), MediaError> {
        let slot = self.array.free_slot().ok_or(MediaError::Command)?;
        let index = self.array.free_index().ok_or(MediaError::Command)?;
        Ok((slot, index))
    }

    /// Starts every thread of a group, or none when they do not all fit
    /// now (returns false).
    fn start_group(
        &mut self,
        mem: &mut dyn GfxMemory,
        g: &GpgpuGroup<'_>,
    ) -> Result<bool, MediaError> {
        let threads = g.dims[0] * g.dims[1] * g.dims[2];
        if (self.array.free_slots() as u64) < u64::from(threads) {
            return Ok(false);
        }
        let spec = GroupSpec {
            threads,
            barrier_threads: if g.desc.group_threads == 0 {
                threads
            } else {
                g.desc.group_threads
            },
            barrier: g.desc.barrier_enable,
            slm_bytes: g.desc.slm_bytes as usize,
        };
        let Some((group, barrier_id)) = self.array.open_group(spec) else {
            return Ok(false);
        };
        for t in 0..threads {
            let (slot, index) = self.free_thread()?;
            let mut h = self.header(g.desc, index, g.ido);
            h.group_id = g.id;
            h.barrier_id = barrier_id.unwrap_or(0);
            let r0 = payload::r0(self.platform, Pipeline::Gpgpu, &h);
            // GPGPU threads read one CURBE block each, in thread order
            // [ext: Mesa gen7 compute push constants, one copy per thread].
            let rows = g.desc.curbe_rows as usize;
            let curbe = payload::curbe_rows(
                &self.curbe,
                g.desc.curbe_offset as usize + t as usize * rows,
                rows,
            );
            let bytes = payload::build(&r0, &curbe, &[], &[]).map_err(|_| MediaError::Command)?;
            // The last thread of a row takes the right mask, of the last row
            // the bottom mask [ext: Mesa/IGT right and bottom masks].
            let [x, y, _] = thread_coords(t, g.dims);
            let mut mask = g.simd;
            if x + 1 == g.dims[0] {
                mask &= g.right;
            }
            if y + 1 == g.dims[1] {
                mask &= g.bottom;
            }
            self.start(mem, (slot, index), g.desc, bytes, mask, Some(group))?;
        }
        Ok(true)
    }

    /// The R0 fields every root thread shares; `index` is its dispatch
    /// index (FFTID).
    fn header(&mut self, d: &Descriptor, index: u8, ido: u8) -> RootHeader {
        let (scratch_pointer, _) = self.scratch_of(index);
        self.roots = self.roots.wrapping_add(1);
        RootHeader {
            interface_descriptor: ido,
            barrier_id: d.barrier_id,
            sampler_state: d.sampler_state,
            scratch_code: self.vfe.scratch_code,
            binding_table: d.binding_table,
            scratch_pointer,
            fftid: index,
            // {FF unit ID 31:28, object ID 27:16, root thread ID 15:0}
            // (000 lines 1955-1971).
            debug_id: u32::from(FFID_SPAWNER) << 28
                | (self.roots & 0xFFF) << 16
                | (self.roots & 0xFFFF),
            ..RootHeader::default()
        }
    }

    /// The scratch space of dispatch index `index`: R0.5's pointer
    /// (General State relative) and the bytes per thread, in the generation's
    /// Per Thread Scratch Space encoding (device description `[compute] scratch`:
    /// linear 1-12 KiB on SNB, powers of two from 1 KiB on the others).
    fn scratch_of(&self, index: u8) -> (u32, u32) {
        let per_thread = self.scratch.bytes(u32::from(self.vfe.scratch_code));
        let at = self
            .vfe
            .scratch_base
            .wrapping_add(u64::from(index) * u64::from(per_thread));
        (at as u32, per_thread)
    }

    /// Starts a thread in `(slot, dispatch index)`.
    fn start(
        &mut self,
        mem: &mut dyn GfxMemory,
        (slot, index): (usize, u8),
        d: &Descriptor,
        payload: Vec<u8>,
        dispatch_mask: u32,
        group: Option<crate::eu::array::GroupId>,
    ) -> Result<(), MediaError> {
        let p = self.platform;
        let limit = match p {
            IsaGen::Gen4 | IsaGen::G45 => self.bases.general_bound,
            _ => self.bases.instruction_bound,
        };
        let limit = if limit == 0 { u64::MAX } else { limit };
        let program = self.cache.get(p, d.kernel, limit, mem)?;
        let (_, per_thread) = self.scratch_of(index);
        let surface = self.bases.surface;
        let start = ThreadStart {
            program,
            kernel: d.kernel,
            payload,
            dispatch_mask,
            cr0: d.cr0,
            ffid: FFID_SPAWNER,
            sr0_1_high: match p {
                // sr0.1[23:20] GRF blocks, 1-8 (000 line 8029); the 965/G45
                // descriptor stores blocks minus one as the drivers write it.
                IsaGen::Gen4 | IsaGen::G45 => (d.grf_blocks + 1).clamp(1, 8),
                _ => index,
            },
            bindings: Bindings::Table(BindingTable {
                platform: p,
                table: surface.wrapping_add(u64::from(d.binding_table)),
                surface_state_base: surface,
            }),
            general_state: GeneralState {
                base: self.bases.general,
                upper_bound: match self.bases.general_bound {
                    0 => u64::MAX,
                    b => b,
                },
            },
            scratch: (self.vfe.scratch_base != 0).then_some(Scratch { per_thread }),
            // The interface descriptor's Sampler State Pointer, General
            // State relative on Gen4/G45 (000 line 3657), Dynamic State
            // relative on Gen6+ (003 lines 27028-27031).
            samplers: Some(SamplerSource {
                base: match p {
                    IsaGen::Gen4 | IsaGen::G45 => self.bases.general,
                    _ => self.bases.dynamic,
                },
                pointer: d.sampler_state,
            }),
            group,
            index,
            pixel: None,
        };
        self.array
            .start(slot, start)
            .map_err(|_| MediaError::Command)
    }
}
