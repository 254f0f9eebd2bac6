//! The Ivy Bridge GS unit: with GS Enable set (3DSTATE_GS, Gen7 layout,
//! Mesa src/intel/genxml/gen7.xml), the objects of the incoming
//! primitives (the vertex ordering the Sandy Bridge unit uses,
//! `gs::objects`, with Reorder Enable and Discard Adjacency) go to GS
//! threads, each object Instance Count times. There is no IVB 3D manual
//! here: what a thread sees and does is taken from Mesa's Gen7 vec4 GS
//! back end (elk_vec4_gs_visitor.cpp, elk_vec4_gs_nir.cpp,
//! elk_vec4_generator.cpp) and crocus_state.c's 3DSTATE_GS, each fact
//! cited where it is used.
//!
//! - Dispatch modes (3DSTATE_GS DW5 12:11): SINGLE, one object instance
//!   per thread in channels 0-3; DUAL_INSTANCE, two instances of one
//!   object (channels 0-3 and 4-7); DUAL_OBJECT, two objects, "invalid"
//!   with more than one instance (the IVB PRM on 3DSTATE_GS as Mesa's
//!   `elk_compile_gs` quotes it). Each slot (instance or object) has its
//!   own output URB entry: handles in R0.0 and R0.1, the instance number
//!   in bits 31:27 of each (`GFX7_GS_PAYLOAD_INSTANCE_ID_SHIFT` 27,
//!   elk_eu_defines.h; `generate_gs_get_instance_id`).
//! - Payload: R0; R1 the PrimitiveID when Include PrimitiveID is set
//!   (Mesa `setup_payload`: "If the shader uses gl_PrimitiveIDIn, that
//!   goes in r1", read as a vec4 region: dword 0 for slot 0, dword 4 for
//!   slot 1); from Dispatch GRF Start the push constants, then each
//!   vertex's Read Length 256-bit rows from its Read Offset: in SINGLE and
//!   DUAL_INSTANCE modes a register holds two 128-bit attributes of the
//!   one object, in DUAL_OBJECT mode one attribute of each object (low
//!   and high half), so a vertex takes twice the registers (Mesa
//!   `setup_varying_inputs`, `attribute_to_hw_reg`). Include Vertex
//!   Handles (pulled inputs) is refused: where IVB puts the handles is not
//!   public here.
//! - Output: the thread writes its URB entry itself: the control data
//!   header first (Control Data Header Size 256-bit units), then vertex n
//!   at n * Output Vertex Size ((n + 1) 16-byte units) after it (Mesa
//!   `emit_urb_write_header`, `emit_urb_write_opcode`: per-slot offset
//!   vertex_count * output_vertex_size_hwords, global offset the header
//!   size). The URB write that ends the thread carries the vertex counts
//!   in M0.2 (`eu::shared::Gs7Snoop`). Control data GSCTL_CUT: bit n set
//!   ends the strip after vertex n; GSCTL_SID: two bits per vertex, its
//!   stream (Mesa `gs_end_primitive`, `set_stream_control_data_bits`);
//!   without a header every vertex is of the Default StreamID and one
//!   strip. The vertices become objects of Output Topology.
//!
//! The threads run one at a time (as the SNB unit's, `gs`): the pipeline
//! takes the output in object order either way.

use alloc::vec::Vec;

use baregpu_hal::Packet;
use baregpu_hal::gen7::commands::{Cmd3dstateGs, Cmd3dstateUrbGs};
use baregpu_isa::IsaGen;

use super::assemble::{self, prim::*};
use super::gs::{FFID_GS, GsObject, all_objects, valid_output};
use super::thread::{Stop, general, instruction_limit, payload_bytes};
use crate::eu::array::{Bindings, EuArray, ProgramCache, ThreadStart};
use crate::eu::shared::sampler::SamplerSource;
use crate::eu::shared::{BindingTable, GfxMemory, Gs7Snoop, Scratch, Urb};
use crate::gpe::Bases;
use crate::render3d::types::{DrawError, Object, Packets, Vue};

/// 3DSTATE_GS Dispatch Mode (DW5 12:11, Mesa gen7.xml).
const DUAL_INSTANCE: u32 = 1;
const DUAL_OBJECT: u32 = 2;

/// IVB GT1: 36 GS threads, 192 GS URB entries (Mesa
/// src/intel/dev/intel_device_info.c `ivb_gt1`: max_gs_threads 36,
/// urb.max_entries GS 192).
const MAX_THREADS: u32 = 36;
const MAX_ENTRIES: usize = 192;

/// "3DSTATE_GS Output Vertex Size has an effective maximum of 62" 16-byte
/// units (Mesa elk_eu_defines.h `GFX7_MAX_GS_OUTPUT_VERTEX_SIZE_BYTES`).
const MAX_VERTEX_UNITS: u32 = 62;

/// The shift of the instance number in R0.0 and R0.1.
const INSTANCE_SHIFT: u32 = 27;

/// 3DSTATE_GS when the GS is enabled, checked. `rendering`: the SOL
/// stage passes objects on (3DSTATE_STREAMOUT Rendering Disable clear).
pub(super) fn state(packets: &Packets, rendering: bool) -> Result<Option<Cmd3dstateGs>, DrawError> {
    let Some(dw) = packets.get("3DSTATE_GS") else {
        return Ok(None);
    };
    let gs =
        Cmd3dstateGs::unpack(dw).map_err(|_| DrawError::Invalid("3DSTATE_GS does not decode"))?;
    if !gs.gs_enable {
        return Ok(None);
    }
    if gs.dispatch_mode > DUAL_OBJECT {
        return Err(DrawError::Invalid("3DSTATE_GS Dispatch Mode 3 is reserved"));
    }
    // "If InstanceCount>1, DUAL_OBJECT mode is invalid" (IVB PRM vol 2
    // part 1 7.2.1.1, quoted in Mesa elk_vec4_gs_visitor.cpp).
    if gs.dispatch_mode == DUAL_OBJECT && gs.instance_control > 0 {
        return Err(DrawError::Invalid(
            "GS DUAL_OBJECT dispatch with more than one instance",
        ));
    }
    if gs.include_vertex_handles {
        return Err(DrawError::Unmodelled(
            "3DSTATE_GS Include Vertex Handles (pulled GS inputs)",
        ));
    }
    // What a non-zero increment does to GS_INVOCATION_COUNT is not public
    // here (crocus leaves it 0): refused rather than guessed.
    if gs.gs_invocations_increment_value != 0 {
        return Err(DrawError::Unmodelled(
            "3DSTATE_GS GS Invocations Increment Value",
        ));
    }
    if gs.maximum_number_of_threads >= MAX_THREADS {
        return Err(DrawError::Invalid(
            "GS Maximum Number of Threads above IVB GT1's 36",
        ));
    }
    if gs.output_vertex_size >= MAX_VERTEX_UNITS {
        return Err(DrawError::Invalid("GS Output Vertex Size above 62"));
    }
    // "If rendering is enabled (as per SOL state) the vertex size must be
    // programmed as a multiple of 32B units" (IVB PRM vol 2 part 1
    // 7.2.1.1, quoted in Mesa `elk_compile_gs`).
    if rendering && gs.output_vertex_size % 2 == 0 {
        return Err(DrawError::Invalid(
            "GS Output Vertex Size not a multiple of 32 bytes with rendering enabled",
        ));
    }
    if !valid_output(gs.output_topology as u8) {
        return Err(DrawError::Invalid(
            "GS Output Topology the pipeline does not take after the GS",
        ));
    }
    Ok(Some(gs))
}

/// The GS's URB entries (3DSTATE_URB_GS): after the VS's in the draw's
/// URB (the start offsets are not modelled, `front`).
pub(super) struct GsUrb {
    pub entries: usize,
    /// 256-bit rows of an entry.
    pub rows: usize,
}

impl GsUrb {
    /// `per_thread`: the entries one thread holds (two in the dual modes).
    pub fn of(packets: &Packets, per_thread: usize) -> Result<GsUrb, DrawError> {
        let dw = packets
            .get("3DSTATE_URB_GS")
            .ok_or(DrawError::Invalid("no 3DSTATE_URB_GS before the draw"))?;
        let u = Cmd3dstateUrbGs::unpack(dw)
            .map_err(|_| DrawError::Invalid("3DSTATE_URB_GS does not decode"))?;
        let units = u.gs_urb_entry_allocation_size as usize + 1;
        let entries = u.gs_number_of_urb_entries as usize;
        // A thread must get its entries ("we need room for at least 2 URB
        // entries, since we always operate the GS in DUAL_OBJECT mode",
        // Mesa intel_urb_config.c).
        if entries < per_thread {
            return Err(DrawError::Invalid(
                "fewer GS URB entries than a GS thread holds",
            ));
        }
        if entries > MAX_ENTRIES {
            return Err(DrawError::Invalid(
                "GS Number of URB Entries above 192 (IVB GT1)",
            ));
        }
        // "Similar text exists for HS, DS and GS" to the VS rule: a
        // multiple of 8 under 9 512-bit units (Mesa intel_urb_config.c).
        if units < 9 && !entries.is_multiple_of(8) {
            return Err(DrawError::Invalid(
                "GS Number of URB Entries not a multiple of 8 with entries under 9 units",
            ));
        }
        Ok(GsUrb {
            entries,
            rows: units * 2,
        })
    }
}

/// One slot of a GS thread: an object and its instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    object: usize,
    instance: u32,
}

/// The threads of the draw: one or two slots each, by dispatch mode.
fn threads(mode: u32, objects: usize, instances: u32) -> Vec<[Option<Slot>; 2]> {
    let mut out = Vec::new();
    match mode {
        DUAL_OBJECT => {
            for k in (0..objects).step_by(2) {
                let second = (k + 1 < objects).then_some(Slot {
                    object: k + 1,
                    instance: 0,
                });
                out.push([
                    Some(Slot {
                        object: k,
                        instance: 0,
                    }),
                    second,
                ]);
            }
        }
        DUAL_INSTANCE => {
            for object in 0..objects {
                for i in (0..instances).step_by(2) {
                    let second = (i + 1 < instances).then_some(Slot {
                        object,
                        instance: i + 1,
                    });
                    out.push([
                        Some(Slot {
                            object,
                            instance: i,
                        }),
                        second,
                    ]);
                }
            }
        }
        _ => {
            for object in 0..objects {
                for instance in 0..instances {
                    out.push([Some(Slot { object, instance }), None]);
                }
            }
        }
    }
    out
}

/// The GS thread's GRF image from R1 on (see the module text).
pub(super) fn payload_after_r0(
    gs: &Cmd3dstateGs,
    constants: &[u32],
    slots: [Option<&GsObject>; 2],
    vues: &[Vue],
) -> Result<Vec<u32>, DrawError> {
    let low = 1 + usize::from(gs.include_primitive_id);
    let start = gs.dispatch_grf_start_register_for_urb_data as usize;
    if start < low {
        return Err(DrawError::Invalid(
            "GS URB data would overlap R0 or the PrimitiveID register",
        ));
    }
    let len = gs.vertex_urb_entry_read_length as usize;
    let first = gs.vertex_urb_entry_read_offset as usize * 8;
    let dual_object = gs.dispatch_mode == DUAL_OBJECT;
    let per_vertex = if dual_object { 2 * len } else { len };
    let vertices = slots.iter().flatten().map(|o| o.v.len()).max().unwrap_or(0);
    let const_regs = constants.len().div_ceil(8);
    let total = start + const_regs + vertices * per_vertex;
    if total > 128 {
        return Err(DrawError::Invalid("GS payload does not fit the GRF"));
    }
    let mut out = alloc::vec![0u32; (total - 1) * 8];
    if gs.include_primitive_id {
        for (s, o) in slots.iter().enumerate() {
            if let Some(o) = o {
                out[4 * s] = o.primitive_id;
            }
        }
    }
    let at = (start - 1) * 8;
    out[at..at + constants.len()].copy_from_slice(constants);
    let at = at + const_regs * 8;
    let dword = |o: &GsObject, v: usize, d: usize| {
        o.v.get(v)
            .and_then(|&i| vues.get(i as usize))
            .and_then(|x| x.dw.get(first + d))
            .copied()
            .unwrap_or(0)
    };
    for v in 0..vertices {
        let base = at + v * per_vertex * 8;
        if dual_object {
            for k in 0..2 * len {
                for (s, o) in slots.iter().enumerate() {
                    let Some(o) = o else { continue };
                    for d in 0..4 {
                        out[base + 8 * k + 4 * s + d] = dword(o, v, 4 * k + d);
                    }
                }
            }
        } else if let Some(o) = slots[0] {
            for d in 0..len * 8 {
                out[base + d] = dword(o, v, d);
            }
        }
    }
    Ok(out)
}

/// What the GS hands on: its vertices, the objects they make and each
/// object's stream.
#[derive(Default)]
pub(super) struct Output {
    pub vues: Vec<Vue>,
    pub objects: Vec<Object>,
    pub streams: Vec<u8>,
}

impl Output {
    /// The objects of stream `stream` (the one rendered).
    pub fn of_stream(&self, stream: u8) -> Vec<Object> {
        self.objects
            .iter()
            .zip(&self.streams)
            .filter(|(_, s)| **s == stream)
            .map(|(o, _)| *o)
            .collect()
    }

    /// Takes one slot's output entry: the control data `header` dwords and
    /// the vertices, as objects of `topology`.
    fn take(
        &mut self,
        gs: &Cmd3dstateGs,
        header: &[u32],
        vertices: Vec<Vec<u32>>,
    ) -> Result<u64, DrawError> {
        let sid = gs.control_data_format == 1;
        let bits = if sid { 2 } else { 1 };
        let control = |n: usize| -> u32 {
            let bit = n * bits;
            match header.get(bit / 32) {
                Some(w) => (w >> (bit % 32)) & ((1 << bits) - 1),
                None => 0,
            }
        };
        let topology = gs.output_topology as u8;
        let first = self.vues.len() as u32;
        let count = vertices.len();
        self.vues.extend(vertices.into_iter().map(|dw| Vue { dw }));
        let before = self.objects.len();
        let push = |v: &[u32], stream: u8, out: &mut Output| -> Result<(), DrawError> {
            let k = out.objects.len();
            assemble::objects(topology, v, &mut out.objects)?;
            out.streams
                .extend(core::iter::repeat_n(stream, out.objects.len() - k));
            Ok(())
        };
        if sid && !header.is_empty() {
            if topology == POINTLIST {
                for n in 0..count {
                    push(&[first + n as u32], control(n) as u8, self)?;
                }
            } else {
                // Other topologies with stream IDs: each stream's vertices
                // in order (Mesa only uses stream IDs with points).
                for s in 0..4u32 {
                    let v: Vec<u32> = (0..count)
                        .filter(|&n| control(n) == s)
                        .map(|n| first + n as u32)
                        .collect();
                    push(&v, s as u8, self)?;
                }
            }
        } else {
            let stream = gs.default_streamid as u8;
            let mut strip = Vec::new();
            for n in 0..count {
                strip.push(first + n as u32);
                if !sid && control(n) == 1 {
                    push(&strip, stream, self)?;
                    strip.clear();
                }
            }
            push(&strip, stream, self)?;
        }
        Ok((self.objects.len() - before) as u64)
    }
}

/// The GS stage of one Ivy Bridge draw.
pub(super) struct Gs7Run {
    pub gs: Cmd3dstateGs,
    urb: GsUrb,
    /// First row of the GS's entries in the draw's URB.
    first_row: usize,
    objects: Vec<GsObject>,
    /// Objects of QUADSTRIP and LINELOOP the VF's assembly does not make,
    /// less the closing lines (as for the SNB unit, `gs::GsRun`).
    vf_only: u64,
    threads: Vec<[Option<Slot>; 2]>,
    next: usize,
    /// The running thread: its array slot and each slot's output entry
    /// (its first row).
    running: Option<(usize, [Option<usize>; 2])>,
    free: Vec<usize>,
    pub out: Output,
    /// GS_PRIMITIVES_COUNT's increment not yet taken.
    pub primitives: u64,
}

/// What starting a GS thread needs from the draw.
pub(super) struct Dispatch<'a> {
    pub platform: IsaGen,
    pub array: &'a mut EuArray,
    pub cache: &'a mut ProgramCache,
    pub bases: &'a Bases,
    pub mem: &'a mut dyn GfxMemory,
    pub urb: &'a mut Urb,
    pub vues: &'a [Vue],
    /// PCB_GS, the GS binding table and SAMPLER_STATE pointers.
    pub constants: &'a [u32],
    pub binding_table: u32,
    pub samplers: u32,
    /// R0.6 Thread ID counter.
    pub thread_id: &'a mut u32,
}

impl Gs7Run {
    /// The GS stage for a draw whose VS entries take `first_row` rows;
    /// `None` when the GS is disabled.
    pub fn new(
        packets: &Packets,
        first_row: usize,
        rendering: bool,
    ) -> Result<Option<Gs7Run>, DrawError> {
        let Some(gs) = state(packets, rendering)? else {
            return Ok(None);
        };
        super::gen7::check_gs_constants(packets)?;
        let per_thread = if gs.dispatch_mode == DUAL_OBJECT
            || (gs.dispatch_mode == DUAL_INSTANCE && gs.instance_control > 0)
        {
            2
        } else {
            1
        };
        let urb = GsUrb::of(packets, per_thread)?;
        Ok(Some(Gs7Run {
            gs,
            free: (0..urb.entries).rev().collect(),
            urb,
            first_row,
            objects: Vec::new(),
            vf_only: 0,
            threads: Vec::new(),
            next: 0,
            running: None,
            out: Output::default(),
            primitives: 0,
        }))
    }

    /// Rows the GS's entries add to the draw's URB.
    pub fn rows(&self) -> usize {
        self.urb.entries * self.urb.rows
    }

    /// The objects of the fetched primitives, in order, and the threads
    /// they make.
    pub fn take_primitives(
        &mut self,
        topology: u8,
        primitives: &[(u32, Vec<u32>)],
    ) -> Result<(), DrawError> {
        self.vf_only += all_objects(
            topology,
            primitives,
            self.gs.reorder_enable,
            self.gs.discard_adjacency,
            &mut self.objects,
        )?;
        self.threads = threads(
            self.gs.dispatch_mode,
            self.objects.len(),
            self.gs.instance_control + 1,
        );
        Ok(())
    }

    /// IA_PRIMITIVES_COUNT's share the VF's object count leaves out.
    pub fn vf_only_objects(&self) -> u64 {
        self.vf_only
    }

    /// GS_INVOCATION_COUNT: one per object instance, with GS Statistics
    /// Enable.
    pub fn invocations(&self) -> u64 {
        if self.gs.gs_statistics_enable {
            self.objects.len() as u64 * u64::from(self.gs.instance_control + 1)
        } else {
            0
        }
    }

    pub fn done(&self) -> bool {
        self.next >= self.threads.len() && self.running.is_none()
    }

    /// After the array ran: the thread that ended hands its entries'
    /// vertices on.
    pub fn collect(&mut self, array: &EuArray, urb: &mut Urb) -> Result<(), DrawError> {
        let Some((slot, entries)) = self.running else {
            return Ok(());
        };
        if array.thread(slot).is_some() {
            return Ok(());
        }
        self.running = None;
        let counts = urb
            .gs7
            .take()
            .and_then(|s| s.counts)
            .ok_or(DrawError::Invalid(
                "a GS thread ended without the URB write of its vertex counts",
            ))?;
        let header_dw = self.gs.control_data_header_size as usize * 8;
        let vertex_dw = (self.gs.output_vertex_size as usize + 1) * 4;
        for (s, e) in entries.iter().enumerate() {
            let Some(row) = *e else { continue };
            let count = usize::from(counts[s]);
            if header_dw + count * vertex_dw > self.urb.rows * 8 {
                return Err(DrawError::Invalid(
                    "a GS thread's vertex count passes its URB entry",
                ));
            }
            let at = |x: usize| urb.dword(row + x / 8, x % 8);
            let header: Vec<u32> = (0..header_dw).map(at).collect();
            let vertices = (0..count)
                .map(|n| {
                    let first = header_dw + n * vertex_dw;
                    (first..first + vertex_dw).map(at).collect()
                })
                .collect();
            let made = self.out.take(&self.gs, &header, vertices)?;
            if self.gs.gs_statistics_enable {
                self.primitives += made;
            }
            self.free.push((row - self.first_row) / self.urb.rows);
        }
        Ok(())
    }

    /// Starts the next thread when none runs.
    pub fn start(&mut self, d: Dispatch<'_>) -> Result<(), Stop> {
        if self.running.is_some() || self.next >= self.threads.len() {
            return Ok(());
        }
        let (Some(slot), Some(index)) = (d.array.free_slot(), d.array.free_index()) else {
            return Ok(());
        };
        let gs = self.gs;
        let pair = self.threads[self.next];
        // Each slot's output entry, zeroed (what the thread does not
        // write reads back as 0 here).
        let mut entries = [None, None];
        let mut r0_handles = [0u32; 2];
        for (s, p) in pair.iter().enumerate() {
            let Some(p) = p else { continue };
            let e = self
                .free
                .pop()
                .ok_or(DrawError::Invalid("no free GS URB entry for a GS thread"))?;
            let row = self.first_row + e * self.urb.rows;
            let bytes = d
                .urb
                .bytes
                .get_mut(row * 32..(row + self.urb.rows) * 32)
                .ok_or(DrawError::Invalid("GS URB entry beyond the URB"))?;
            bytes.fill(0);
            entries[s] = Some(row);
            r0_handles[s] = row as u32 | p.instance << INSTANCE_SHIFT;
        }
        // A lone slot: both handles name its entry (the other half's
        // channels are off).
        if pair[1].is_none() {
            r0_handles[1] = r0_handles[0];
        }
        let slot_objects = pair.map(|p| p.map(|p| &self.objects[p.object]));
        let rest = payload_after_r0(&gs, d.constants, slot_objects, d.vues)?;
        let first = &self.objects[pair[0].map_or(0, |p| p.object)];
        let scratch = super::vs::scratch_bytes(gs.per_thread_scratch_space)?;
        let scratch_base = gs.scratch_space_base_pointer as u32;
        let scratch_at = u64::from(scratch_base) + u64::from(index) * u64::from(scratch);
        *d.thread_id = d.thread_id.wrapping_add(1) & 0xFF_FFFF;
        // R0.2 as on SNB (PrimType 4:0, edges 9:8): Mesa says only that
        // it holds "a bunch of information ... like the input primitive
        // type" (elk_vec4_gs_visitor.cpp `emit_prolog`, which clears it).
        let r0 = [
            r0_handles[0],
            r0_handles[1],
            u32::from(first.edges) << 8 | u32::from(first.prim_type),
            (d.samplers & !0x1F) | (gs.per_thread_scratch_space & 0xF),
            d.binding_table & !0x1F,
            (scratch_at as u32 & !0x3FF) | u32::from(index),
            *d.thread_id,
            0,
        ];
        let payload = payload_bytes(&r0, &rest);
        let limit = instruction_limit(d.bases);
        let kernel = d
            .bases
            .instruction
            .wrapping_add(u64::from(gs.kernel_start_pointer));
        let program = d.cache.get(d.platform, kernel, limit, d.mem)?;
        let mut cr0 = crate::gpe::cr0(
            gs.floating_point_mode != 0,
            gs.single_program_flow,
            gs.illegal_opcode_exception_enable,
            gs.mask_stack_exception_enable,
            gs.software_exception_enable,
        );
        cr0[0] |= u32::from(gs.vector_mask_enable) << 3;
        let start = ThreadStart {
            program,
            kernel,
            payload,
            // SIMD4x2: slot 0 in channels 0-3, slot 1 in 4-7.
            dispatch_mask: if pair[1].is_some() { 0xFF } else { 0x0F },
            cr0,
            ffid: FFID_GS,
            sr0_1_high: index,
            bindings: Bindings::Table(BindingTable {
                platform: d.platform,
                table: d.bases.surface.wrapping_add(u64::from(d.binding_table)),
                surface_state_base: d.bases.surface,
            }),
            general_state: general(d.bases),
            scratch: (scratch_base != 0).then_some(Scratch {
                per_thread: scratch,
            }),
            group: None,
            samplers: Some(SamplerSource {
                base: d.bases.dynamic,
                pointer: d.samplers,
            }),
            index,
            pixel: None,
        };
        d.urb.gs7 = Some(Gs7Snoop::default());
        d.array.start(slot, start).map_err(|_| Stop::Dispatch)?;
        self.running = Some((slot, entries));
        self.next += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render3d::types::ObjectKind;

    fn gs(mode: u32) -> Cmd3dstateGs {
        Cmd3dstateGs {
            gs_enable: true,
            dispatch_mode: mode,
            dispatch_grf_start_register_for_urb_data: 2,
            vertex_urb_entry_read_length: 1,
            vertex_urb_entry_read_offset: 1,
            include_primitive_id: true,
            output_vertex_size: 1,
            output_topology: u32::from(TRISTRIP),
            ..Cmd3dstateGs::default()
        }
    }

    fn vues(n: u32) -> Vec<Vue> {
        (0..n)
            .map(|k| Vue {
                dw: (0..16).map(|d| 100 * k + d).collect(),
            })
            .collect()
    }

    fn object(v: &[u32], id: u32) -> GsObject {
        GsObject {
            v: v.to_vec(),
            prim_type: TRILIST,
            edges: 0,
            primitive_id: id,
        }
    }

    fn packets(gs: &Cmd3dstateGs, urb: u32) -> Packets {
        let mut p = Packets::default();
        let mut dw = alloc::vec![0u32; gs.dwords()];
        gs.pack(&mut dw).unwrap();
        p.set("3DSTATE_GS", &dw);
        p.set("3DSTATE_URB_GS", &[0x7833_0000, urb]);
        p
    }

    #[test]
    fn state_refuses_what_it_cannot_model_and_checks_the_rules() {
        let ok = Cmd3dstateGs {
            output_topology: u32::from(TRILIST),
            ..gs(DUAL_OBJECT)
        };
        assert!(Gs7Run::new(&packets(&ok, 8), 0, true).unwrap().is_some());
        let handles = Cmd3dstateGs {
            include_vertex_handles: true,
            ..ok
        };
        assert!(matches!(
            Gs7Run::new(&packets(&handles, 8), 0, true),
            Err(DrawError::Unmodelled(_))
        ));
        let instanced = Cmd3dstateGs {
            instance_control: 1,
            ..ok
        };
        assert!(Gs7Run::new(&packets(&instanced, 8), 0, true).is_err());
        // A 16-byte vertex only with rendering disabled.
        let small = Cmd3dstateGs {
            output_vertex_size: 0,
            ..ok
        };
        assert!(Gs7Run::new(&packets(&small, 8), 0, true).is_err());
        assert!(Gs7Run::new(&packets(&small, 8), 0, false).is_ok());
        // URB_GS: 12 entries under 9 units is not a multiple of 8; one
        // entry is less than a DUAL_OBJECT thread holds.
        assert!(Gs7Run::new(&packets(&ok, 12), 0, true).is_err());
        assert!(Gs7Run::new(&packets(&ok, 8 << 16 | 1), 0, true).is_err());
        let g = Gs7Run::new(&packets(&ok, 8 << 16 | 2), 0, true)
            .unwrap()
            .unwrap();
        assert_eq!(g.rows(), 2 * 18);
    }

    #[test]
    fn threads_pair_objects_or_instances_by_mode() {
        let t = threads(DUAL_OBJECT, 3, 1);
        assert_eq!(t.len(), 2);
        assert_eq!(
            t[1],
            [
                Some(Slot {
                    object: 2,
                    instance: 0
                }),
                None
            ]
        );
        let t = threads(DUAL_INSTANCE, 2, 3);
        assert_eq!(t.len(), 4);
        assert_eq!(
            t[1],
            [
                Some(Slot {
                    object: 0,
                    instance: 2
                }),
                None
            ],
            "three instances: a pair, then one"
        );
        assert_eq!(threads(0, 2, 2).len(), 4);
    }

    #[test]
    fn single_mode_payload_holds_rows_dual_object_halves() {
        let v = vues(4);
        let (a, b) = (object(&[0, 1, 2], 7), object(&[3, 2, 1], 9));
        let c = [5u32; 8];
        let p = payload_after_r0(&gs(0), &c, [Some(&a), None], &v).unwrap();
        // R1 the PrimitiveID, R2 the constants, R3-R5 the vertices' row 1.
        assert_eq!(&p[..8], &[7, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&p[8..16], &c);
        assert_eq!(&p[16..24], &v[0].dw[8..16]);
        assert_eq!(&p[32..40], &v[2].dw[8..16]);
        assert_eq!(p.len(), 5 * 8);
        let p = payload_after_r0(&gs(DUAL_OBJECT), &c, [Some(&a), Some(&b)], &v).unwrap();
        assert_eq!((p[0], p[4]), (7, 9));
        // Vertex 0: two registers, attribute 2 then 3 of each object.
        assert_eq!(&p[16..20], &v[0].dw[8..12]);
        assert_eq!(&p[20..24], &v[3].dw[8..12]);
        assert_eq!(&p[24..28], &v[0].dw[12..16]);
        assert_eq!(&p[28..32], &v[3].dw[12..16]);
        assert_eq!(p.len(), 8 * 8);
        let low = Cmd3dstateGs {
            dispatch_grf_start_register_for_urb_data: 1,
            ..gs(0)
        };
        assert!(payload_after_r0(&low, &c, [Some(&a), None], &v).is_err());
    }

    #[test]
    fn cut_bits_split_strips_and_stream_ids_pick_streams() {
        let mut o = Output::default();
        let g = gs(0);
        let verts: Vec<Vec<u32>> = (0..6).map(|k| alloc::vec![k; 8]).collect();
        // Cut after vertex 2: two strips of three.
        let made = o.take(&g, &[1 << 2, 0, 0, 0, 0, 0, 0, 0], verts).unwrap();
        assert_eq!(made, 2);
        let k: Vec<(ObjectKind, [u32; 3])> = o.objects.iter().map(|x| (x.kind, x.v)).collect();
        assert_eq!(
            k,
            [
                (ObjectKind::Triangle, [0, 1, 2]),
                (ObjectKind::Triangle, [3, 4, 5])
            ]
        );
        let points = Cmd3dstateGs {
            output_topology: u32::from(POINTLIST),
            control_data_format: 1,
            ..g
        };
        let mut o = Output::default();
        let verts: Vec<Vec<u32>> = (0..3).map(|k| alloc::vec![k; 8]).collect();
        // Streams 0, 2, 1.
        o.take(&points, &[2 << 2 | 1 << 4], verts).unwrap();
        assert_eq!(o.streams, [0, 2, 1]);
        assert_eq!(o.of_stream(2)[0].v, [1, 1, 1]);
    }
}
