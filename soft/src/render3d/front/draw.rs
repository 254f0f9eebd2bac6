//! The draw: 3DPRIMITIVE stays the current command until every thread it
//! started has ended (as the media walkers do, `media::dispatch`), so a
//! looping shader is a hang the driver detects and the host never
//! freezes: each call runs the threads within the run's instruction
//! allowance and returns `Ok(false)` when it is spent.
//!
//! Steps: vertex fetch and assembly (whole, at the first call); VS threads
//! (or the pass-through), each thread's VUEs read back from the URB when
//! it ends, its entries then reused; the raster stage; the pixel threads
//! it returns, each started when no earlier thread still running shares
//! one of its subspans (the pixel scoreboard: render-target writes land in
//! primitive order). The output merger's passed samples add to
//! PS_DEPTH_COUNT when the draw ends.

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::vec::Vec;

use baregpu_hal::gen6::commands::{
    Cmd3dprimitive, Cmd3dstateBindingTablePointers, Cmd3dstateSamplerStatePointers, Cmd3dstateWm,
};
use baregpu_hal::{Generation, Packet};
use baregpu_isa::IsaGen;

use super::fetch::{self, Fetched};
use super::gs::{self, GsRun};
use super::gs7::{self, Gs7Run};
use super::sol::Sol;
use super::state;
use super::thread::{Stop, general, instruction_limit, payload_bytes};
use super::vs::{self, UrbLayout, VsPayload, VsState};
use crate::eu::array::{Bindings, EuArray, EuFailure, ProgramCache, ThreadStart};
use crate::eu::shared::sampler::SamplerSource;
use crate::eu::shared::{
    BindingTable, Fixed, GfxMemory, PixelBackend, PixelDispatch, Scratch, Urb,
};
use crate::gpe::Bases;
use crate::render3d::raster::StippleCounter;
use crate::render3d::types::{DrawEnv, DrawError, Object, Packets, PixelThread, Vue};

/// FFID of the VS (003 Table 3-1, lines 786-820, lists GS 0xC, CLIP 0xD
/// and WM 0xF around it; the VS row, 0x9, falls in the page break at line
/// 806).
const FFID_VS: u8 = 0x9;

/// Queued pixel threads the dispatcher looks at for one that may start.
const SCOREBOARD_WINDOW: usize = 64;

/// The EU array and what a draw's threads need from the media unit.
pub(crate) struct Unit<'a> {
    pub platform: IsaGen,
    /// Whose command layouts the kept state holds (Gen6 or Gen7).
    pub generation: Generation,
    pub array: &'a mut EuArray,
    pub cache: &'a mut ProgramCache,
    pub bases: &'a Bases,
    /// EU instructions the run may still spend.
    pub allowance: &'a mut u64,
}

/// Increments of the pipeline statistics registers not yet added to them
/// (003 lines 28731-28882): the command streamer moves them into its
/// registers after each draw step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Statistics {
    /// IA_VERTICES_COUNT and IA_PRIMITIVES_COUNT, with
    /// 3DSTATE_VF_STATISTICS enabled.
    pub ia_vertices: u64,
    pub ia_primitives: u64,
    /// VS_INVOCATION_COUNT, with the VS's Statistics Enable.
    pub vs_invocations: u64,
    /// CL_INVOCATION_COUNT, CL_PRIMITIVES_COUNT and PS_INVOCATION_COUNT,
    /// as the raster stage counts them.
    pub cl_invocations: u64,
    pub cl_primitives: u64,
    pub ps_invocations: u64,
    /// PS_DEPTH_COUNT: samples that passed depth and stencil.
    pub depth: u64,
    /// GS_INVOCATION_COUNT, GS_PRIMITIVES_COUNT, SO_NUM_PRIMS_WRITTEN and
    /// SO_PRIM_STORAGE_NEEDED, as the GS unit counts them (`gs`).
    pub gs_invocations: u64,
    pub gs_primitives: u64,
    pub so_prims_written: u64,
    pub so_storage_needed: u64,
    /// Ivy Bridge's per-stream SO_NUM_PRIMS_WRITTEN and
    /// SO_PRIM_STORAGE_NEEDED, as the SOL stage counts them (`sol`).
    pub so_stream_written: [u64; 4],
    pub so_stream_needed: [u64; 4],
}

/// The 3D unit's state beside the media unit.
#[derive(Default)]
pub(crate) struct Front {
    pub packets: Packets,
    pub statistics: Statistics,
    draw: Option<Box<Draw>>,
    /// R0.6 Thread ID of the VS threads.
    thread_id: u32,
    /// The GS unit's SVBIs (3DSTATE_GS_SVB_INDEX) and its R0.6 counter.
    svbis: gs::Svbis,
    /// Ivy Bridge's SO_WRITE_OFFSET0-3: the command streamer loads them
    /// from its registers before each draw step and stores them after.
    pub so_write_offsets: [u32; 4],
    /// Ivy Bridge's 3DPRIM_VERTEX_COUNT, _START_VERTEX, _INSTANCE_COUNT,
    /// _START_INSTANCE and _BASE_VERTEX, loaded by the command streamer
    /// before each draw step: an indirect 3DPRIMITIVE's parameters.
    pub indirect: [u32; 5],
    gs_thread_id: u32,
    /// The SF's Line Stipple Counter, carried from draw to draw (`None`:
    /// unknown until a draw starts a line or 3DSTATE_LINE_STIPPLE loads
    /// it).
    stipple: Option<StippleCounter>,
    /// The VUEs of the last draw, for the tests.
    #[cfg(test)]
    last_vues: Vec<Vue>,
}

/// A VS thread in flight.
struct VsThread {
    slot: usize,
    /// Its vertices and their URB entries.
    vertices: [Option<(usize, usize)>; 2],
}

/// A draw being executed.
struct Draw {
    generation: Generation,
    layout: UrbLayout,
    urb: Urb,
    vs: Option<VsState>,
    fetched: Fetched,
    vues: Vec<Vue>,
    /// Next vertex for a VS thread.
    next: usize,
    free: Vec<usize>,
    vs_running: Vec<VsThread>,
    /// The pixel threads, once the raster stage ran.
    pixels: Option<VecDeque<PixelThread>>,
    ps_running: Vec<(usize, PixelDispatch)>,
    om: Option<Box<dyn PixelBackend>>,
    /// The GS threads, when the GS is enabled: Sandy Bridge's or Ivy
    /// Bridge's.
    gs: Option<GsRun>,
    gs7: Option<Gs7Run>,
    /// Ivy Bridge's stream output (off on Sandy Bridge).
    sol: Sol,
}

impl Front {
    /// An engine reset: state and draw are gone; the counters stay as
    /// the statistics registers would (they live in the context).
    pub fn reset(&mut self) {
        self.packets.clear();
        self.draw = None;
        self.svbis = gs::Svbis::default();
        self.stipple = None;
    }

    /// Whether a draw is unfinished.
    pub fn busy(&self) -> bool {
        self.draw.is_some()
    }

    /// The VUEs of the last draw.
    #[cfg(test)]
    pub(super) fn last_vues(&self) -> &[Vue] {
        &self.last_vues
    }

    /// A 3DSTATE_* command of `generation`: kept as state.
    pub fn keep(
        &mut self,
        generation: Generation,
        name: &'static str,
        dw: &[u32],
        mem: &mut dyn GfxMemory,
        bases: &Bases,
        constants_absolute: bool,
    ) -> Result<(), DrawError> {
        if name == "3DSTATE_GS_SVB_INDEX" {
            self.svbis.load(dw)?;
        }
        // With Modify Enable the command loads the counter; without it
        // the counter is left as it is.
        if name == "3DSTATE_LINE_STIPPLE"
            && let Some(c) = StippleCounter::loaded(dw)
        {
            self.stipple = Some(c);
        }
        state::keep(
            generation,
            &mut self.packets,
            name,
            dw,
            mem,
            bases,
            constants_absolute,
        )
    }

    /// 3DPRIMITIVE: starts the draw at the first call, then runs it.
    /// `Ok(true)`: finished; `Ok(false)`: the engine waits at the command.
    pub fn draw(&mut self, u: Unit<'_>, mem: &mut dyn GfxMemory, dw: &[u32]) -> Result<bool, Stop> {
        let mut d = match self.draw.take() {
            Some(d) => d,
            None => Box::new(self.start(u.generation, mem, dw)?),
        };
        let r = self.step(u, mem, &mut d);
        if matches!(r, Ok(false)) {
            self.draw = Some(d);
        }
        r
    }

    fn start(
        &mut self,
        generation: Generation,
        mem: &mut dyn GfxMemory,
        dw: &[u32],
    ) -> Result<Draw, Stop> {
        let prim = if generation == Generation::Gen7 {
            super::gen7::refuse_unmodelled_stages(&self.packets)?;
            super::gen7::check_vs_constants(&self.packets)?;
            super::gen7::primitive(dw, &self.indirect)?
        } else {
            Cmd3dprimitive::unpack(dw)
                .map_err(|_| DrawError::Invalid("3DPRIMITIVE does not decode"))?
        };
        let layout = match generation {
            Generation::Gen7 => super::gen7::urb_layout(&self.packets)?,
            _ => UrbLayout::of(&self.packets)?,
        };
        let sol = match generation {
            Generation::Gen7 => Sol::of(&self.packets)?,
            _ => Sol::default(),
        };
        let vs_rows = layout.entries * layout.rows;
        let mut gs = match generation {
            Generation::Gen6 => GsRun::new(&self.packets, vs_rows)?,
            _ => None,
        };
        let mut gs7 = match generation {
            Generation::Gen7 => Gs7Run::new(&self.packets, vs_rows, sol.rendering)?,
            _ => None,
        };
        let topology = prim.primitive_topology_type as u8;
        if gs.is_none() && gs7.is_none() && matches!(topology, 0x08 | 0x10) {
            return Err(match generation {
                // "Software must use a GS thread to convert these" (003
                // lines 36897-36899).
                Generation::Gen6 => {
                    DrawError::Invalid("QUADSTRIP and LINELOOP need a GS thread on Gen6")
                }
                _ => DrawError::Unmodelled("QUADSTRIP and LINELOOP on Ivy Bridge"),
            }
            .into());
        }
        let vs = vs::checked(match generation {
            Generation::Gen7 => super::gen7::vs_state(&self.packets)?,
            _ => vs::state(&self.packets)?,
        })?;
        let fetched = fetch::fetch(generation, &self.packets, mem, &prim, layout.dwords())?;
        // 3DSTATE_VF_STATISTICS bit 0 (003 lines 31796-31813).
        let vf_statistics = self
            .packets
            .get("3DSTATE_VF_STATISTICS")
            .is_some_and(|d| d[0] & 1 == 1);
        if vf_statistics {
            self.statistics.ia_vertices += fetched.ia_vertices;
            self.statistics.ia_primitives += fetched.ia_primitives;
        }
        let vues = match vs {
            // The VF's entry is the VUE.
            None => fetched
                .vertices
                .iter()
                .map(|v| Vue { dw: v.clone() })
                .collect(),
            Some(_) => Vec::with_capacity(fetched.vertices.len()),
        };
        if let Some(g) = gs.as_mut() {
            g.take_primitives(topology, &fetched.primitives)?;
            self.statistics.gs_invocations += g.invocations();
            if vf_statistics {
                self.statistics.ia_primitives += g.vf_only_objects();
            }
        }
        if let Some(g) = gs7.as_mut() {
            g.take_primitives(topology, &fetched.primitives)?;
            self.statistics.gs_invocations += g.invocations();
            if vf_statistics {
                self.statistics.ia_primitives += g.vf_only_objects();
            }
        }
        let gs_rows = gs.as_ref().map_or(0, GsRun::rows) + gs7.as_ref().map_or(0, Gs7Run::rows);
        let urb = Urb::new(vs_rows + gs_rows);
        Ok(Draw {
            generation,
            free: (0..layout.entries).rev().collect(),
            layout,
            urb,
            vs,
            fetched,
            vues,
            next: 0,
            vs_running: Vec::new(),
            pixels: None,
            ps_running: Vec::new(),
            om: None,
            gs,
            gs7,
            sol,
        })
    }

    fn step(&mut self, u: Unit<'_>, mem: &mut dyn GfxMemory, d: &mut Draw) -> Result<bool, Stop> {
        let Unit {
            platform,
            generation: _,
            array,
            cache,
            bases,
            allowance,
        } = u;
        loop {
            let vs_done =
                d.vs.is_none() || (d.next >= d.fetched.vertices.len() && d.vs_running.is_empty());
            let gs_done =
                d.gs.as_ref().is_none_or(GsRun::done) && d.gs7.as_ref().is_none_or(Gs7Run::done);
            if !vs_done {
                self.start_vs(platform, array, cache, bases, mem, d)?;
            } else if !gs_done {
                self.start_gs(platform, array, cache, bases, mem, d)?;
            } else if d.pixels.is_none() {
                self.stream_out(mem, d)?;
                self.raster(bases, mem, d)?;
            }
            if d.pixels.is_some() {
                self.start_pixels(platform, array, cache, bases, mem, d)?;
            }
            let finished = vs_done
                && gs_done
                && d.pixels.as_ref().is_some_and(VecDeque::is_empty)
                && d.ps_running.is_empty();
            if finished {
                #[cfg(test)]
                {
                    self.last_vues = d.vues.clone();
                }
                if let Some(om) = &d.om {
                    self.statistics.depth += om.samples_passed();
                }
                return Ok(true);
            }
            if array.is_idle() {
                // Nothing runs and nothing could start.
                array.fail(EuFailure::Dispatch("a draw's thread cannot start"));
                return Err(Stop::Dispatch);
            }
            if *allowance == 0 {
                return Ok(false);
            }
            let r = {
                let mut fixed = Fixed {
                    urb: Some(&mut d.urb),
                    pixels: d.om.as_deref_mut().map(|p| p as &mut dyn PixelBackend),
                };
                array.run_fixed(mem, *allowance, &mut fixed)
            };
            *allowance = allowance.saturating_sub(r.used);
            if r.stalled && r.ended == 0 {
                array.fail(EuFailure::Deadlock);
            }
            if let Some(report) = array.report() {
                return match report.failure {
                    EuFailure::Fault(f) => Err(Stop::ThreadFault(f)),
                    EuFailure::Error(_) | EuFailure::LeftKernel => Err(Stop::Thread),
                    EuFailure::Dispatch(_) => Err(Stop::Dispatch),
                    EuFailure::Hang | EuFailure::Deadlock | EuFailure::Unfinished { .. } => {
                        Ok(false)
                    }
                };
            }
            self.collect(array, d);
            if let Some(g) = d.gs.as_mut() {
                g.collect(array, &mut d.urb, &mut self.svbis)?;
                let c = core::mem::take(&mut g.counted);
                self.statistics.gs_primitives += c.gs_primitives;
                self.statistics.so_prims_written += c.so_prims_written;
                self.statistics.so_storage_needed += c.so_storage_needed;
            }
            if let Some(g) = d.gs7.as_mut() {
                g.collect(array, &mut d.urb)?;
                self.statistics.gs_primitives += core::mem::take(&mut g.primitives);
            }
        }
    }

    /// Ivy Bridge's SOL stage: the VS's or GS's objects to the SO buffers.
    fn stream_out(&mut self, mem: &mut dyn GfxMemory, d: &mut Draw) -> Result<(), Stop> {
        let counts = match &d.gs7 {
            Some(g) => d.sol.run(
                &g.out.vues,
                &g.out.objects,
                Some(&g.out.streams),
                mem,
                &mut self.so_write_offsets,
            )?,
            None => d.sol.run(
                &d.vues,
                &d.fetched.objects,
                None,
                mem,
                &mut self.so_write_offsets,
            )?,
        };
        for s in 0..4 {
            self.statistics.so_stream_written[s] += counts.written[s];
            self.statistics.so_stream_needed[s] += counts.needed[s];
        }
        Ok(())
    }

    /// Starts the next GS thread (`gs`).
    fn start_gs(
        &mut self,
        platform: IsaGen,
        array: &mut EuArray,
        cache: &mut ProgramCache,
        bases: &Bases,
        mem: &mut dyn GfxMemory,
        d: &mut Draw,
    ) -> Result<(), Stop> {
        if let Some(g) = d.gs7.as_mut() {
            let (binding_table, samplers) = super::gen7::gs_pointers(&self.packets)?;
            let constants = self.packets.get("PCB_GS").unwrap_or_default();
            return g.start(gs7::Dispatch {
                platform,
                array,
                cache,
                bases,
                mem,
                urb: &mut d.urb,
                vues: &d.vues,
                constants,
                binding_table,
                samplers,
                thread_id: &mut self.gs_thread_id,
            });
        }
        let Some(g) = d.gs.as_mut() else {
            return Ok(());
        };
        let binding_table = self.binding_table(1)?;
        let samplers = self.sampler_pointer(1)?;
        let constants = self.packets.get("PCB_GS").unwrap_or_default();
        g.start(gs::Dispatch {
            platform,
            array,
            cache,
            bases,
            mem,
            urb: &mut d.urb,
            vues: &d.vues,
            svbis: &mut self.svbis,
            constants,
            binding_table,
            samplers,
            thread_id: &mut self.gs_thread_id,
        })
    }

    /// Threads that ended: VS results read back, pixel threads forgotten.
    fn collect(&mut self, array: &EuArray, d: &mut Draw) {
        let mut k = 0;
        while k < d.vs_running.len() {
            if array.thread(d.vs_running[k].slot).is_some() {
                k += 1;
                continue;
            }
            let t = d.vs_running.swap_remove(k);
            for (vertex, entry) in t.vertices.into_iter().flatten() {
                let first = entry * d.layout.rows;
                let dw = (0..d.layout.dwords())
                    .map(|i| d.urb.dword(first + i / 8, i % 8))
                    .collect();
                d.vues[vertex] = Vue { dw };
                d.free.push(entry);
            }
        }
        d.ps_running
            .retain(|(slot, _)| array.thread(*slot).is_some());
    }

    /// Starts VS threads while slots, thread limit and URB entries allow.
    fn start_vs(
        &mut self,
        platform: IsaGen,
        array: &mut EuArray,
        cache: &mut ProgramCache,
        bases: &Bases,
        mem: &mut dyn GfxMemory,
        d: &mut Draw,
    ) -> Result<(), Stop> {
        let Some(vs) = d.vs else { return Ok(()) };
        let max = vs.max_threads as usize + 1;
        let per_thread = if vs.single_vertex { 1 } else { 2 };
        let (bt, samplers) = if d.generation == Generation::Gen7 {
            super::gen7::vs_pointers(&self.packets)?
        } else {
            (self.binding_table(0)?, self.sampler_pointer(0)?)
        };
        let constants: Vec<u32> = self
            .packets
            .get("PCB_VS")
            .map(<[u32]>::to_vec)
            .unwrap_or_default();
        let limit = instruction_limit(bases);
        let kernel = bases.instruction.wrapping_add(u64::from(vs.kernel));
        while d.next < d.fetched.vertices.len() && d.vs_running.len() < max {
            let n = per_thread.min(d.fetched.vertices.len() - d.next);
            if d.free.len() < n {
                break;
            }
            let (Some(slot), Some(index)) = (array.free_slot(), array.free_index()) else {
                break;
            };
            let mut verts = [None, None];
            for (k, v) in verts.iter_mut().enumerate().take(n) {
                let e = d.free.pop().unwrap_or(0);
                // The entry starts as the VF wrote it.
                let first = e * d.layout.rows * 32;
                for (i, w) in d.fetched.vertices[d.next + k].iter().enumerate() {
                    d.urb.bytes[first + 4 * i..first + 4 * i + 4].copy_from_slice(&w.to_le_bytes());
                }
                *v = Some((d.next + k, e));
            }
            d.vues.resize(d.next + n, Vue::default());
            let h0 = d.layout.handle(verts[0].map_or(0, |v| v.1));
            // One vertex: both handles the same (003 lines 33425-33432).
            let h1 = verts[1].map_or(h0, |v| d.layout.handle(v.1));
            let scratch = vs::scratch_bytes(vs.scratch_code)?;
            let scratch_at = u64::from(vs.scratch_base) + u64::from(index) * u64::from(scratch);
            self.thread_id = self.thread_id.wrapping_add(1) & 0xFF_FFFF;
            let r0 = [
                u32::from(h0),
                u32::from(h1),
                0,
                (samplers & !0x1F) | (vs.scratch_code & 0xF),
                bt & !0x1F,
                (scratch_at as u32 & !0x3FF) | u32::from(index),
                self.thread_id,
                0,
            ];
            let inputs = [
                verts[0].map(|(v, _)| d.fetched.vertices[v].as_slice()),
                verts[1].map(|(v, _)| d.fetched.vertices[v].as_slice()),
            ];
            let rest = vs::payload_after_r0(&VsPayload {
                vs: &vs,
                constants: &constants,
                vertices: inputs,
            })?;
            let payload = payload_bytes(&r0, &rest);
            let program = cache.get(platform, kernel, limit, mem)?;
            let start = ThreadStart {
                program,
                kernel,
                payload,
                // SIMD4x2: channels 0-3 vertex 0, 4-7 vertex 1.
                dispatch_mask: if n == 2 { 0xFF } else { 0x0F },
                cr0: {
                    let mut cr0 = crate::gpe::cr0(
                        vs.alt_float,
                        false,
                        vs.illegal_opcode_exception,
                        false,
                        vs.software_exception,
                    );
                    cr0[0] |= u32::from(vs.vector_mask) << 3;
                    cr0
                },
                ffid: FFID_VS,
                sr0_1_high: index,
                bindings: Bindings::Table(BindingTable {
                    platform,
                    table: bases.surface.wrapping_add(u64::from(bt)),
                    surface_state_base: bases.surface,
                }),
                general_state: general(bases),
                scratch: (vs.scratch_base != 0).then_some(Scratch {
                    per_thread: scratch,
                }),
                group: None,
                samplers: Some(SamplerSource {
                    base: bases.dynamic,
                    pointer: samplers,
                }),
                index,
                pixel: None,
            };
            array.start(slot, start).map_err(|_| Stop::Dispatch)?;
            if vs.statistics {
                self.statistics.vs_invocations += n as u64;
            }
            d.vs_running.push(VsThread {
                slot,
                vertices: verts,
            });
            d.next += n;
        }
        Ok(())
    }

    /// The raster stage: the output merger, then the pixel threads.
    fn raster(&mut self, bases: &Bases, mem: &mut dyn GfxMemory, d: &mut Draw) -> Result<(), Stop> {
        // Ivy Bridge: only the Render Stream Select stream goes on, and
        // nothing with Rendering Disable (`sol`); without a GS every
        // object is of stream 0.
        let rendered: Vec<Object>;
        let (vues, objects) = match (&d.gs, &d.gs7) {
            (Some(g), _) => (&g.out.vues, &g.out.objects),
            (_, Some(g)) => {
                rendered = if d.sol.rendering {
                    g.out.of_stream(d.sol.render_stream)
                } else {
                    Vec::new()
                };
                (&g.out.vues, &rendered)
            }
            _ if !d.sol.rendering || d.sol.render_stream != 0 => {
                rendered = Vec::new();
                (&d.vues, &rendered)
            }
            _ => (&d.vues, &d.fetched.objects),
        };
        if objects.is_empty() {
            d.pixels = Some(VecDeque::new());
            return Ok(());
        }
        let mut env = DrawEnv {
            generation: d.generation,
            packets: &self.packets,
            bases,
            memory: mem,
        };
        let mut om = super::stages::output_merger(&mut env)?;
        let (threads, counted) =
            super::stages::rasterize(&mut env, vues, objects, om.as_mut(), &mut self.stipple)?;
        self.statistics.cl_invocations += counted.cl_invocations;
        self.statistics.cl_primitives += counted.cl_primitives;
        self.statistics.ps_invocations += counted.ps_invocations;
        d.om = Some(om);
        d.pixels = Some(threads.into());
        Ok(())
    }

    /// Starts pixel threads in order while the scoreboard lets them.
    fn start_pixels(
        &mut self,
        platform: IsaGen,
        array: &mut EuArray,
        cache: &mut ProgramCache,
        bases: &Bases,
        mem: &mut dyn GfxMemory,
        d: &mut Draw,
    ) -> Result<(), Stop> {
        let Some(queue) = d.pixels.as_mut() else {
            return Ok(());
        };
        if queue.is_empty() {
            return Ok(());
        }
        // The windower's thread limit; the rest of what a pixel thread
        // starts with the raster stage decoded into the thread.
        let max = if d.generation == Generation::Gen7 {
            super::gen7::ps_max_threads(&self.packets)?
        } else {
            let wm = self
                .packets
                .get("3DSTATE_WM")
                .ok_or(DrawError::Invalid("no 3DSTATE_WM before the draw"))?;
            let wm = Cmd3dstateWm::unpack(wm)
                .map_err(|_| DrawError::Invalid("3DSTATE_WM does not decode"))?;
            wm.maximum_number_of_threads as usize + 1
        };
        let limit = instruction_limit(bases);
        // A thread starts when none running and none earlier still
        // waiting shares a lit subspan with it; later threads elsewhere
        // may pass a waiting one (the scoreboard orders pixels, not
        // threads). The scan looks a bounded way ahead.
        let mut k = 0;
        while k < queue.len().min(SCOREBOARD_WINDOW) && d.ps_running.len() < max {
            let t = &queue[k];
            let blocked = d.ps_running.iter().any(|(_, p)| overlaps(p, &t.pixels))
                || queue.iter().take(k).any(|w| overlaps(&w.pixels, &t.pixels));
            if blocked {
                k += 1;
                continue;
            }
            let (Some(slot), Some(index)) = (array.free_slot(), array.free_index()) else {
                break;
            };
            let Some(t) = queue.remove(k) else { break };
            let scratch = vs::scratch_bytes(u32::from(t.scratch_code))?;
            let mut payload = t.payload;
            // The dispatcher's part of R0.5: this thread's scratch pointer
            // and FFTID, as for the VS (003 Table 12's R0.5).
            let at = u64::from(t.scratch_base) + u64::from(index) * u64::from(scratch);
            if payload.len() >= 24 {
                let r05 = (at as u32 & !0x3FF) | u32::from(index);
                payload[20..24].copy_from_slice(&r05.to_le_bytes());
            }
            let program = cache.get(platform, t.kernel, limit, mem)?;
            let start = ThreadStart {
                program,
                kernel: t.kernel,
                payload,
                dispatch_mask: t.dispatch_mask,
                cr0: t.cr0,
                ffid: t.ffid,
                sr0_1_high: index,
                bindings: Bindings::Table(BindingTable {
                    platform,
                    table: bases.surface.wrapping_add(u64::from(t.binding_table)),
                    surface_state_base: bases.surface,
                }),
                general_state: general(bases),
                scratch: (t.scratch_base != 0).then_some(Scratch {
                    per_thread: scratch,
                }),
                group: None,
                samplers: Some(SamplerSource {
                    base: bases.dynamic,
                    pointer: t.sampler_state,
                }),
                index,
                pixel: Some(Box::new(t.pixels.clone())),
            };
            array.start(slot, start).map_err(|_| Stop::Dispatch)?;
            d.ps_running.push((slot, t.pixels));
        }
        Ok(())
    }

    /// The binding table pointer of unit `k` (0 VS, 1 GS, 2 PS).
    fn binding_table(&self, k: usize) -> Result<u32, DrawError> {
        let Some(dw) = self.packets.get("3DSTATE_BINDING_TABLE_POINTERS") else {
            return Ok(0);
        };
        let b = Cmd3dstateBindingTablePointers::unpack(dw)
            .map_err(|_| DrawError::Invalid("3DSTATE_BINDING_TABLE_POINTERS does not decode"))?;
        Ok([
            b.pointer_to_vs_binding_table,
            b.pointer_to_gs_binding_table,
            b.pointer_to_ps_binding_table,
        ][k])
    }

    /// The SAMPLER_STATE pointer of unit `k` (Dynamic State relative).
    fn sampler_pointer(&self, k: usize) -> Result<u32, DrawError> {
        let Some(dw) = self.packets.get("3DSTATE_SAMPLER_STATE_POINTERS") else {
            return Ok(0);
        };
        let s = Cmd3dstateSamplerStatePointers::unpack(dw)
            .map_err(|_| DrawError::Invalid("3DSTATE_SAMPLER_STATE_POINTERS does not decode"))?;
        Ok([
            s.pointer_to_vs_sampler_state,
            s.pointer_to_gs_sampler_state,
            s.pointer_to_ps_sampler_state,
        ][k])
    }
}

/// Whether two pixel threads share a subspan with lit pixels.
fn overlaps(a: &PixelDispatch, b: &PixelDispatch) -> bool {
    let spans = |p: &PixelDispatch| {
        let n = usize::from(p.simd / 4).min(8);
        let mask = p.mask;
        p.corners[..n]
            .iter()
            .enumerate()
            .filter(move |(k, _)| mask >> (4 * k) & 0xF != 0)
            .map(|(_, c)| *c)
            .collect::<Vec<u32>>()
    };
    let sa = spans(a);
    spans(b).iter().any(|c| sa.contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eu::array::EuConfig;
    use crate::eu::shared::FlatMemory;
    use baregpu_isa::message;

    const KERNEL: u64 = 0x1000;
    const VB: u64 = 0x2000;
    const CONSTANTS: u64 = 0x3000;

    fn desc(text: &str) -> u32 {
        let (_, d) = message::parse_symbolic(IsaGen::Gen6, text).unwrap();
        u32::from(d.mlen) << 25 | u32::from(d.rlen) << 20 | u32::from(d.header) << 19 | d.function
    }

    /// A SIMD4x2 VS: the header as it came, `position * r1.0-3 +
    /// r1.4-7` (the push constants) after it.
    fn vs_kernel() -> Vec<u8> {
        let src = alloc::format!(
            "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
             mov (8|M0) m2.0<1>:ud r2.0<8;8,1>:ud\n\
             mul (8|M0) r10.0<1>:f r3.0<8;8,1>:f r1.0<0;4,1>:f\n\
             add (8|M0) m3.0<1>:f r10.0<8;8,1>:f r1.4<0;4,1>:f\n\
             send (8|M0) null:ud m1 0x6 {:#x} {{EOT}}\n",
            desc("urb.write(offset=0, swizzle=interleave, used, complete) mlen=3 rlen=0 hdr")
        );
        baregpu_isa::text::asm::assemble(IsaGen::Gen6, &src).unwrap()
    }

    /// Three vertices through a real VS on the array: the VUEs come back
    /// from the URB in vertex order, the header as the VF wrote it, the
    /// position from the shader.
    #[test]
    fn vs_results_are_read_back_from_the_urb() {
        let mut mem = FlatMemory::new(0, 0x4000);
        mem.write(KERNEL, &vs_kernel()).unwrap();
        let consts = [2.0f32, 3.0, 1.0, 1.0, 10.0, 20.0, 0.5, 0.0];
        for (k, c) in consts.iter().enumerate() {
            mem.write(CONSTANTS + 4 * k as u64, &c.to_bits().to_le_bytes())
                .unwrap();
        }
        // Vertex k: header dwords (k, 7, 8, 9) as integers, then x = k, y = -k.
        for k in 0..3u32 {
            let x = k as f32;
            let words = [k, 7, 8, 9, x.to_bits(), (-x).to_bits(), 0, 1.0f32.to_bits()];
            for (i, w) in words.iter().enumerate() {
                mem.write(VB + 32 * u64::from(k) + 4 * i as u64, &w.to_le_bytes())
                    .unwrap();
            }
        }
        let bases = Bases::default();
        let mut f = Front::default();
        let mut keep = |name: &'static str, dw: &[u32], mem: &mut FlatMemory| {
            f.keep(Generation::Gen6, name, dw, mem, &bases, false)
                .unwrap();
        };
        keep("3DSTATE_URB", &[0x7805_0001, 24, 0], &mut mem);
        keep(
            "3DSTATE_CONSTANT_VS",
            &[0x7815_1003, CONSTANTS as u32, 0, 0, 0],
            &mut mem,
        );
        // KSP, GRF start 1 (constants, then the vertex data from r2), read length 1, max threads 2, enabled + statistics.
        keep(
            "3DSTATE_VS",
            &[
                0x7810_0004,
                KERNEL as u32,
                0,
                0,
                1 << 20 | 1 << 11,
                1 << 25 | 1 << 10 | 1,
            ],
            &mut mem,
        );
        keep(
            "3DSTATE_VERTEX_BUFFERS",
            &[0x7808_0003, 32, VB as u32, VB as u32 + 95, 0],
            &mut mem,
        );
        // Two R32G32B32A32 elements: UINT header, FLOAT position.
        keep(
            "3DSTATE_VERTEX_ELEMENTS",
            &[
                0x7809_0003,
                1 << 25 | 2 << 16,
                0x1111 << 16,
                1 << 25 | 16,
                0x1111 << 16,
            ],
            &mut mem,
        );
        let mut array = EuArray::new(IsaGen::Gen6, EuConfig::for_platform(IsaGen::Gen6));
        let mut cache = ProgramCache::new();
        let mut allowance = 100_000u64;
        // LINESTRIP_ADJ of three vertices: no object (the raster stage is
        // not needed), two VS threads (a pair, then a single vertex).
        let prim = [0x7B00_2804, 3, 0, 1, 0, 0];
        let unit = Unit {
            platform: IsaGen::Gen6,
            generation: Generation::Gen6,
            array: &mut array,
            cache: &mut cache,
            bases: &bases,
            allowance: &mut allowance,
        };
        assert_eq!(f.draw(unit, &mut mem, &prim), Ok(true));
        assert_eq!(f.statistics.vs_invocations, 3);
        assert_eq!(array.stats().dispatched, 2);
        assert_eq!(f.last_vues.len(), 3);
        for (k, v) in f.last_vues.iter().enumerate() {
            let x = k as f32;
            assert_eq!(&v.dw[..4], &[k as u32, 7, 8, 9], "vertex {k}: the header");
            let pos: Vec<f32> = v.dw[4..8].iter().map(|d| f32::from_bits(*d)).collect();
            assert_eq!(
                pos,
                [2.0 * x + 10.0, -3.0 * x + 20.0, 0.5, 1.0],
                "vertex {k}"
            );
            assert_eq!(v.dw.len(), 32, "one 1024-bit unit");
        }
    }

    fn dispatch(corners: &[u32], mask: u32) -> PixelDispatch {
        let mut c = [0u32; 8];
        c[..corners.len()].copy_from_slice(corners);
        PixelDispatch {
            simd: (4 * corners.len()) as u8,
            corners: c,
            mask,
            depth: [0.0; 32],
            front_facing: true,
            aa_alpha: None,
            samples: None,
        }
    }

    /// A SIMD16 pixel shader writing one colour to render target 0 after
    /// `spin` filler instructions (longer than a scheduling quantum).
    fn ps_kernel(colour: f32, spin: usize) -> Vec<u8> {
        let mut src = alloc::string::String::new();
        for _ in 0..spin {
            src += "mov (8|M0) r20.0<1>:ud r20.0<8;8,1>:ud\n";
        }
        src += &alloc::format!(
            "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud {{NoMask}}\n\
             mov (8|M0) m2.0<1>:ud r1.0<8;8,1>:ud {{NoMask}}\n\
             mov (16|M0) m3.0<1>:f {c:#x}:f\n\
             mov (16|M0) m5.0<1>:f {c:#x}:f\n\
             mov (16|M0) m7.0<1>:f {c:#x}:f\n\
             mov (16|M0) m9.0<1>:f {c:#x}:f\n\
             send (16|M0) null:uw m1 0x5 {:#x} {{EOT}}\n",
            desc("rc.rt_write(bti=0, mode=simd16, last) mlen=10 rlen=0 hdr"),
            c = colour.to_bits()
        );
        baregpu_isa::text::asm::assemble(IsaGen::Gen6, &src).unwrap()
    }

    /// A SIMD16 pixel thread over four subspans from (x, 0), all lit.
    fn pixel_thread(kernel: u64, x: u32) -> PixelThread {
        let corners = [x, x + 2, x + 4, x + 6];
        let mut r1 = [0u32; 8];
        r1[2..6].copy_from_slice(&corners);
        r1[7] = 0xFFFF;
        let mut payload = alloc::vec![0u8; 64];
        for (k, d) in r1.iter().enumerate() {
            payload[32 + 4 * k..36 + 4 * k].copy_from_slice(&d.to_le_bytes());
        }
        let mut c = [0u32; 8];
        c[..4].copy_from_slice(&corners);
        PixelThread {
            kernel,
            payload,
            dispatch_mask: 0xFFFF,
            cr0: [0, 0],
            ffid: 0xF,
            binding_table: 0x4000,
            sampler_state: 0,
            scratch_base: 0,
            scratch_code: 0,
            grf_start: 2,
            pixels: PixelDispatch {
                simd: 16,
                corners: c,
                mask: 0xFFFF,
                depth: [0.0; 32],
                front_facing: true,
                aa_alpha: None,
                samples: None,
            },
        }
    }

    /// Three pixel threads: a long one, a short one over the same
    /// subspans after it, and a short one elsewhere. The second waits for
    /// the first (its colour is what stays); the third runs beside them.
    #[test]
    fn overlapping_pixel_threads_write_in_order() {
        const RT: u64 = 0x8000;
        let mut mem = FlatMemory::new(0, 0x10000);
        let (a, b, c) = (0x1000u64, 0x2000u64, 0x3000u64);
        mem.write(a, &ps_kernel(0.2, 80)).unwrap();
        mem.write(b, &ps_kernel(0.6, 0)).unwrap();
        mem.write(c, &ps_kernel(1.0, 0)).unwrap();
        // Binding table at 0x4000 -> SURFACE_STATE at 0x4040: 2D,
        // B8G8R8A8_UNORM, 32 x 2, pitch 128, linear (003 lines 75392-75410).
        mem.write(0x4000, &0x4040u32.to_le_bytes()).unwrap();
        let ss: [u32; 6] = [
            1 << 29 | 0x0C0 << 18,
            RT as u32,
            1 << 19 | 31 << 6,
            127 << 3,
            0,
            0,
        ];
        for (k, d) in ss.iter().enumerate() {
            mem.write(0x4040 + 4 * k as u64, &d.to_le_bytes()).unwrap();
        }
        let bases = Bases::default();
        let mut f = Front::default();
        f.keep(
            Generation::Gen6,
            "3DSTATE_WM",
            &[0x7814_0007, 0, 0, 0, 0, 39 << 25 | 1 << 19 | 2, 0, 0, 0],
            &mut mem,
            &bases,
            false,
        )
        .unwrap();
        let mut d = Draw {
            generation: Generation::Gen6,
            layout: UrbLayout {
                entries: 24,
                rows: 4,
            },
            urb: Urb::new(96),
            vs: None,
            fetched: Fetched::default(),
            vues: Vec::new(),
            next: 0,
            free: Vec::new(),
            vs_running: Vec::new(),
            pixels: Some([pixel_thread(a, 0), pixel_thread(b, 0), pixel_thread(c, 16)].into()),
            ps_running: Vec::new(),
            // Render-target writes land directly (`Fixed::pixels` None).
            om: None,
            gs: None,
            gs7: None,
            sol: Sol::default(),
        };
        let mut array = EuArray::new(IsaGen::Gen6, EuConfig::for_platform(IsaGen::Gen6));
        array.enable_log();
        let mut cache = ProgramCache::new();
        let mut allowance = 100_000u64;
        let unit = Unit {
            platform: IsaGen::Gen6,
            generation: Generation::Gen6,
            array: &mut array,
            cache: &mut cache,
            bases: &bases,
            allowance: &mut allowance,
        };
        assert_eq!(f.step(unit, &mut mem, &mut d), Ok(true));
        let mut px = |x: u64| {
            let mut b = [0u8; 4];
            mem.read(RT + 4 * x, &mut b).unwrap();
            b
        };
        // 0.6 * 255 = 153: the later thread's colour over the first eight
        // pixels of both rows; 255 from the third thread.
        assert_eq!(px(3), [153; 4]);
        assert_eq!(px(32 + 7), [153; 4]);
        assert_eq!(px(20), [255; 4]);
        // The third thread started beside the first; the second only
        // after the first ended.
        use crate::eu::array::Event;
        let log = array.log();
        let starts: Vec<(usize, usize)> = log
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match e {
                Event::Started { slot } => Some((i, *slot)),
                _ => None,
            })
            .collect();
        assert_eq!(starts.len(), 3, "{log:?}");
        let first_end = log
            .iter()
            .position(|e| matches!(e, Event::Ended { slot, .. } if *slot == starts[0].1))
            .unwrap();
        let any_end = log
            .iter()
            .position(|e| matches!(e, Event::Ended { .. }))
            .unwrap();
        assert!(starts[1].0 < any_end, "{log:?}");
        assert!(starts[2].0 > first_end, "{log:?}");
    }

    #[test]
    fn the_scoreboard_compares_lit_subspans() {
        let a = dispatch(&[0, 2], 0xFF);
        assert!(overlaps(&a, &dispatch(&[2 | 2 << 16, 2], 0xF0)));
        assert!(!overlaps(&a, &dispatch(&[4, 6], 0xFF)));
        // The shared subspan has no lit pixel in the second thread.
        assert!(!overlaps(&a, &dispatch(&[4, 2], 0x0F)));
    }
}
