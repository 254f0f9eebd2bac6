//! The Gen6 GS unit (003 lines 33461-35112): with GS Enable set, one GS
//! thread per object of the incoming primitives, in order, each with the
//! object's vertices in its payload (the vertex ordering of 003 lines
//! 34395-34560, the payload of 34640-34800); the threads' output comes
//! back through the URB messages the unit snoops
//! ([`crate::eu::shared::GsSnoop`]: FF_SYNC, URB_WRITE Allocate/Used/
//! Complete and the header's PrimType/PrimStart/PrimEnd) and becomes the
//! objects and VUEs the raster stage takes, in the order the threads
//! wrote them (003 lines 35070-35080).
//!
//! The threads run one at a time: hardware lets them run side by side but
//! serialises their output at FF_SYNC and hands it on in thread order, so
//! what reaches memory and the pipeline is the same.
//!
//! Stream output: the four SVBIs (3DSTATE_GS_SVB_INDEX) live here across
//! draws; threads get them in R1 (SVBI Payload Enable) and from FF_SYNC,
//! which moves them on by NumSOVertsToWrite, or the unit adds the
//! Post-Increment Value after each dispatch; the data port's Streamed
//! Vertex Buffer Write (`eu::shared::dataport`) writes the buffers.

use alloc::vec::Vec;

use baregpu_hal::Packet;
use baregpu_hal::gen6::commands::{Cmd3dstateGs, Cmd3dstateGsSvbIndex, Cmd3dstateUrb};

use baregpu_isa::IsaGen;

use super::assemble::{self, prim::*};
use super::thread::{Stop, general, instruction_limit, payload_bytes};
use crate::eu::array::{Bindings, EuArray, ProgramCache, ThreadStart};
use crate::eu::shared::sampler::SamplerSource;
use crate::eu::shared::{BindingTable, GfxMemory, GsSnoop, Scratch, Urb};
use crate::gpe::Bases;
use crate::render3d::types::{DrawError, Object, Packets, Vue};

/// FFID of the GS (003 Table 3-1, lines 786-820).
pub(super) const FFID_GS: u8 = 0xC;

/// The SVBI registers: the unit's state, kept across draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Svbis {
    pub index: [u32; 4],
    pub max: [u32; 4],
}

impl Default for Svbis {
    fn default() -> Svbis {
        // "If a buffer is not enabled then the MaxSVBI must be set to
        // 0xFFFFFFFF" (003 lines 33640-33645): the power-on state is taken
        // as that of no buffer.
        Svbis {
            index: [0; 4],
            max: [u32::MAX; 4],
        }
    }
}

impl Svbis {
    /// 3DSTATE_GS_SVB_INDEX: loads index `Index Number` and its maximum.
    /// Load Internal Vertex Count (DevSNB:B) feeds 3DPRIMITIVE's Internal
    /// Vertex Count, which the VF does not model: refused.
    pub fn load(&mut self, dw: &[u32]) -> Result<(), DrawError> {
        let c = Cmd3dstateGsSvbIndex::unpack(dw)
            .map_err(|_| DrawError::Invalid("3DSTATE_GS_SVB_INDEX does not decode"))?;
        if c.load_internal_vertex_count {
            return Err(DrawError::Unmodelled(
                "3DSTATE_GS_SVB_INDEX Load Internal Vertex Count",
            ));
        }
        let k = c.index_number as usize & 3;
        self.index[k] = c.streamed_vertex_buffer_index;
        self.max[k] = c.maximum_index;
        Ok(())
    }

    /// Post-increment after a dispatch, each held at its maximum.
    fn add(&mut self, n: u32) {
        for (v, max) in self.index.iter_mut().zip(self.max) {
            *v = v.saturating_add(n).min(max.max(*v));
        }
    }
}

/// 3DSTATE_GS when the GS is enabled, checked.
pub(super) fn state(packets: &Packets) -> Result<Option<Cmd3dstateGs>, DrawError> {
    let Some(dw) = packets.get("3DSTATE_GS") else {
        return Ok(None);
    };
    let gs =
        Cmd3dstateGs::unpack(dw).map_err(|_| DrawError::Invalid("3DSTATE_GS does not decode"))?;
    if !gs.gs_enable {
        return Ok(None);
    }
    if gs.vertex_urb_entry_read_length == 0 {
        return Err(DrawError::Invalid(
            "GS Vertex URB Entry Read Length 0 is UNDEFINED",
        ));
    }
    // [0,59], [0,27] with Rendering Enabled (003 lines 33975-33990).
    let limit = if gs.rendering_enabled { 27 } else { 59 };
    if gs.maximum_number_of_threads > limit {
        return Err(DrawError::Invalid(
            "GS Maximum Number of Threads out of range",
        ));
    }
    Ok(Some(gs))
}

/// The GS's URB entries (3DSTATE_URB DW2): after the VS's.
pub(super) struct GsUrb {
    pub entries: usize,
    pub rows: usize,
}

impl GsUrb {
    pub fn of(packets: &Packets) -> Result<GsUrb, DrawError> {
        let dw = packets
            .get("3DSTATE_URB")
            .ok_or(DrawError::Invalid("no 3DSTATE_URB before the draw"))?;
        let u = Cmd3dstateUrb::unpack(dw)
            .map_err(|_| DrawError::Invalid("3DSTATE_URB does not decode"))?;
        // "If the GS stage is enabled, software must always allocate at
        // least one GS URB Entry" (003 lines 35010-35014); 0-256 in
        // multiples of 4, size 0-4 (003 lines 27318-27345).
        if u.gs_number_of_urb_entries == 0 {
            return Err(DrawError::Invalid("GS enabled without GS URB entries"));
        }
        if u.gs_number_of_urb_entries > 256 || u.gs_number_of_urb_entries % 4 != 0 {
            return Err(DrawError::Invalid(
                "GS URB entries must be a multiple of 4 up to 256",
            ));
        }
        if u.gs_urb_entry_allocation_size > 4 {
            return Err(DrawError::Invalid("GS URB entry allocation size above 4"));
        }
        Ok(GsUrb {
            entries: u.gs_number_of_urb_entries as usize,
            rows: (u.gs_urb_entry_allocation_size as usize + 1) * 4,
        })
    }
}

/// One object for a GS thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct GsObject {
    /// Its vertices (indices into the draw's VUEs) in payload order.
    pub v: Vec<u32>,
    /// R0.2[4:0] PrimType.
    pub prim_type: u8,
    /// R0.2[9:8] Edge Indicators (POLYGON only).
    pub edges: u8,
    /// R0.1 Primitive ID.
    pub primitive_id: u32,
}

/// The objects of the fetched primitives (instance, vertices), in order,
/// appended to `out`, PrimitiveID counting from 0 in each instance; the
/// answer is IA_PRIMITIVES_COUNT's share the VF's object count leaves out
/// (the QUADSTRIP and LINELOOP objects only the GS makes). Shared by the
/// Gen6 and Gen7 GS stages.
pub(super) fn all_objects(
    topology: u8,
    primitives: &[(u32, Vec<u32>)],
    reorder: bool,
    discard_adjacency: bool,
    out: &mut Vec<GsObject>,
) -> Result<u64, DrawError> {
    let mut instance = None;
    let mut id = 0;
    let mut vf_only = 0;
    for (i, v) in primitives {
        if instance != Some(*i) {
            instance = Some(*i);
            id = 0;
        }
        let before = out.len();
        objects(topology, v, reorder, discard_adjacency, id, out)?;
        let made = out.len() - before;
        id += made as u32;
        vf_only += match topology {
            QUADSTRIP => made as u64,
            LINELOOP => made.saturating_sub(1) as u64,
            _ => 0,
        };
    }
    Ok(vf_only)
}

/// The objects of one primitive (between cuts and instance ends) as the
/// GS hands them to threads (003 lines 34395-34560). `first_id` is the
/// PrimitiveID of its first object (PrimitiveID counts objects from 0 in
/// each instance, 003 lines 31233, 31669-31700).
pub(super) fn objects(
    topology: u8,
    v: &[u32],
    reorder: bool,
    discard_adjacency: bool,
    first_id: u32,
    out: &mut Vec<GsObject>,
) -> Result<(), DrawError> {
    let n = v.len();
    let mut id = first_id;
    let mut push = |idx: &[usize], prim_type: u8, edges: u8| {
        out.push(GsObject {
            v: idx.iter().map(|&i| v[i]).collect(),
            prim_type,
            edges,
            primitive_id: id,
        });
        id += 1;
    };
    // TRISTRIP and TRISTRIP_REVERSE objects: the type toggles per object,
    // and with Reorder the odd (TRISTRIP) or even (TRISTRIP_REVERSE) ones
    // swap their last two vertices (003 lines 33925-33950, 34470-34510).
    let strip = |tris: &[[usize; 3]], reversed: bool, push: &mut dyn FnMut(&[usize], u8, u8)| {
        for (k, t) in tris.iter().enumerate() {
            let flipped = (k % 2 == 1) != reversed;
            if reorder && flipped {
                push(&[t[0], t[2], t[1]], TRISTRIP_REVERSE, 0);
            } else if reorder {
                push(t, TRISTRIP, 0);
            } else {
                push(t, if flipped { TRISTRIP_REVERSE } else { TRISTRIP }, 0);
            }
        }
    };
    match topology {
        POINTLIST => (0..n).for_each(|i| push(&[i], topology, 0)),
        LINELIST => (0..n / 2).for_each(|k| push(&[2 * k, 2 * k + 1], topology, 0)),
        LINESTRIP | LINESTRIP_CONT | LINESTRIP_CONT_BF => {
            (0..n.saturating_sub(1)).for_each(|i| push(&[i, i + 1], topology, 0))
        }
        LINELOOP if n >= 2 => {
            (0..n - 1).for_each(|i| push(&[i, i + 1], topology, 0));
            // The closing line: its provoking vertex is the first, whose
            // PrimitiveID is 0 (003 lines 31730-31740).
            push(&[n - 1, 0], topology, 0);
            if let Some(o) = out.last_mut() {
                o.primitive_id = 0;
            }
        }
        LINELOOP => {}
        LINELIST_ADJ if discard_adjacency => {
            (0..n / 4).for_each(|k| push(&[4 * k + 1, 4 * k + 2], LINELIST, 0))
        }
        LINELIST_ADJ => {
            (0..n / 4).for_each(|k| push(&[4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3], topology, 0))
        }
        LINESTRIP_ADJ if discard_adjacency => {
            (0..n.saturating_sub(3)).for_each(|i| push(&[i + 1, i + 2], LINESTRIP, 0))
        }
        LINESTRIP_ADJ => {
            (0..n.saturating_sub(3)).for_each(|i| push(&[i, i + 1, i + 2, i + 3], topology, 0))
        }
        TRILIST | RECTLIST => {
            (0..n / 3).for_each(|k| push(&[3 * k, 3 * k + 1, 3 * k + 2], topology, 0))
        }
        TRILIST_ADJ if discard_adjacency => {
            (0..n / 6).for_each(|k| push(&[6 * k, 6 * k + 2, 6 * k + 4], TRILIST, 0))
        }
        TRILIST_ADJ => (0..n / 6).for_each(|k| {
            let b = 6 * k;
            push(&[b, b + 1, b + 2, b + 3, b + 4, b + 5], topology, 0)
        }),
        TRISTRIP | TRISTRIP_REVERSE => {
            let tris: Vec<[usize; 3]> = (0..n.saturating_sub(2))
                .map(|k| [k, k + 1, k + 2])
                .collect();
            strip(&tris, topology == TRISTRIP_REVERSE, &mut push);
        }
        TRISTRIP_ADJ if discard_adjacency => {
            let tris: Vec<[usize; 3]> = (0..(n / 2).saturating_sub(2))
                .map(|k| [2 * k, 2 * k + 2, 2 * k + 4])
                .collect();
            strip(&tris, false, &mut push);
        }
        // "N even, N >= 6": an odd last vertex is dropped. The fourth
        // vertex of the last object is N-1 where the others have 2k+6.
        TRISTRIP_ADJ => {
            let n = n & !1;
            let count = (n / 2).saturating_sub(2);
            for k in 0..count {
                let b = 2 * k;
                let far = if k + 1 == count { n - 1 } else { b + 6 };
                let o = if k == 0 {
                    [0, 1, 2, far, 4, 3]
                } else if k % 2 == 0 {
                    [b, b - 2, b + 2, far, b + 4, b + 3]
                } else {
                    [b, b + 3, b + 4, far, b + 2, b - 2]
                };
                push(&o, topology, 0);
            }
        }
        TRIFAN | TRIFAN_NOSTIPPLE => {
            (1..n.saturating_sub(1)).for_each(|i| push(&[0, i, i + 1], topology, 0))
        }
        // Edge Indicator 0: the first triangle's v0-v1 edge is exterior;
        // 1: the last triangle's v2-v0 (003 lines 34700-34716).
        POLYGON => {
            let last = n.saturating_sub(2);
            (1..n.saturating_sub(1)).for_each(|i| {
                let edges = u8::from(i == 1) | u8::from(i == last) << 1;
                push(&[0, i, i + 1], topology, edges)
            })
        }
        QUADLIST => {
            (0..n / 4).for_each(|k| push(&[4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3], topology, 0))
        }
        QUADSTRIP => (0..(n / 2).saturating_sub(1)).for_each(|k| {
            let b = 2 * k;
            push(&[b, b + 1, b + 3, b + 2], topology, 0)
        }),
        // "N/A" in the GS's table (003 lines 34415, 34440).
        POINTLIST_BF | LINESTRIP_BF => {
            return Err(DrawError::Invalid(
                "POINTLIST_BF and LINESTRIP_BF are not GS input topologies",
            ));
        }
        _ => return Err(DrawError::Invalid("reserved primitive topology")),
    }
    Ok(())
}

/// The GS thread's GRF image from R1 on: R1 the SVBIs and their maxima
/// when SVBI Payload Enable is set, then from Dispatch GRF Start "the URB
/// portion (Constant + Vertices)" (003 lines 33946-33955, 28509-28520):
/// the push constants (non-interleaved), then each vertex's Read Length
/// rows from its Read Offset, vertex after vertex (003 lines 34760-34800).
/// Mesa's Gen6 GS lays it out so: r0, r1, uniforms from the dispatch
/// start, then the inputs [ext: mesa gfx6_gs_visitor.cpp setup_payload,
/// vec4_visitor::setup_uniforms `dispatch_grf_start_reg = reg`].
pub(super) fn payload_after_r0(
    gs: &Cmd3dstateGs,
    svbis: &Svbis,
    constants: &[u32],
    vertices: &[&[u32]],
) -> Result<Vec<u32>, DrawError> {
    let start = gs.dispatch_grf_start_register_for_urb_data as usize;
    let low = if gs.svbi_payload_enable { 2 } else { 1 };
    if start < low {
        return Err(DrawError::Invalid(
            "GS URB data would overlap R0 or the SVBI register",
        ));
    }
    let len = gs.vertex_urb_entry_read_length as usize;
    let first = gs.vertex_urb_entry_read_offset as usize * 8;
    let const_regs = constants.len().div_ceil(8);
    let total = start + const_regs + vertices.len() * len;
    if total > 128 {
        return Err(DrawError::Invalid("GS payload does not fit the GRF"));
    }
    let mut out = alloc::vec![0u32; (total - 1) * 8];
    if gs.svbi_payload_enable {
        out[..4].copy_from_slice(&svbis.index);
        out[4..8].copy_from_slice(&svbis.max);
    }
    let at = (start - 1) * 8;
    out[at..at + constants.len()].copy_from_slice(constants);
    let mut at = at + const_regs * 8;
    for v in vertices {
        for d in 0..len * 8 {
            out[at + d] = v.get(first + d).copied().unwrap_or(0);
        }
        at += len * 8;
    }
    Ok(out)
}

/// The output topologies a GS thread may write (003 lines 34910-34945).
pub(super) fn valid_output(t: u8) -> bool {
    matches!(
        t,
        LINELIST
            | LINESTRIP
            | LINESTRIP_BF
            | LINESTRIP_CONT
            | LINESTRIP_CONT_BF
            | POINTLIST
            | POINTLIST_BF
            | POLYGON
            | RECTLIST
            | TRIFAN
            | TRIFAN_NOSTIPPLE
            | TRILIST
            | TRISTRIP
            | TRISTRIP_REVERSE
    )
}

/// What the GS hands on: the vertices its threads completed, in order,
/// grouped by PrimStart/PrimEnd into primitives of their PrimType, then
/// into objects as from the VF (dangling vertices dropped, 003 lines
/// 34946-34955).
#[derive(Default)]
pub(super) struct Output {
    pub vues: Vec<Vue>,
    pub objects: Vec<Object>,
    /// The primitive being received: its type and vertices.
    open: Option<(u8, Vec<u32>)>,
}

impl Output {
    /// Takes one completed vertex with its header flags (M0.2[6:0]).
    pub fn vertex(&mut self, dw: Vec<u32>, flags: u8) -> Result<(), DrawError> {
        let prim_type = flags >> 2;
        let (start, end) = (flags & 2 != 0, flags & 1 != 0);
        let index = self.vues.len() as u32;
        self.vues.push(Vue { dw });
        if start {
            // A new start closes what was open without its PrimEnd.
            self.close()?;
            if !valid_output(prim_type) {
                return Err(DrawError::Invalid(
                    "a GS thread output a topology the pipeline does not take after the GS",
                ));
            }
            self.open = Some((prim_type, Vec::new()));
        }
        // A vertex outside any primitive is dangling and dropped.
        if let Some((_, v)) = &mut self.open {
            v.push(index);
        }
        if end {
            self.close()?;
        }
        Ok(())
    }

    /// Ends the open primitive.
    pub fn close(&mut self) -> Result<(), DrawError> {
        if let Some((t, v)) = self.open.take() {
            assemble::objects(t, &v, &mut self.objects)?;
        }
        Ok(())
    }
}

/// The snoop for one GS thread: the GS's entries after the VS's in the
/// draw's URB, all free (each completed vertex is read back at once).
pub(super) fn snoop(gs: &Cmd3dstateGs, urb: &GsUrb, first_row: usize, svbis: &Svbis) -> GsSnoop {
    GsSnoop {
        free: (0..urb.entries)
            .rev()
            .map(|e| (first_row + e * urb.rows) as u16)
            .collect(),
        entry_rows: urb.rows,
        entries: urb.entries,
        rendering: gs.rendering_enabled,
        post_increment: gs.svbi_post_increment_enable,
        svbi: svbis.index,
        svbi_max: svbis.max,
        ..GsSnoop::default()
    }
}

/// Counts a GS thread's run adds to the statistics registers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Counted {
    pub gs_primitives: u64,
    pub so_storage_needed: u64,
    pub so_prims_written: u64,
}

/// After a GS thread ended: its vertices go to `out`, the SVBIs back to
/// the unit, the counts (gated by the Statistics Enables, 003 lines
/// 33995-34030) to `counted`. A thread that ended holding handles broke
/// the termination rule (003 lines 35040-35044).
pub(super) fn finish(
    gs: &Cmd3dstateGs,
    urb: &mut Urb,
    svbis: &mut Svbis,
    out: &mut Output,
    counted: &mut Counted,
) -> Result<(), DrawError> {
    let Some(s) = urb.gs.take() else {
        return Ok(());
    };
    if !s.retained.is_empty() {
        return Err(DrawError::Invalid(
            "a GS thread ended without completing its URB handles",
        ));
    }
    svbis.index = s.svbi;
    if gs.svbi_post_increment_enable {
        svbis.add(gs.svbi_post_increment_value);
    }
    if gs.gs_statistics_enable {
        counted.gs_primitives += s.gs_prims;
    }
    if gs.so_statistics_enable {
        counted.so_storage_needed += s.so_storage;
        counted.so_prims_written += s.so_written;
    }
    for (dw, flags) in s.out {
        out.vertex(dw, flags)?;
    }
    Ok(())
}

/// The GS stage of one draw: its objects, the thread in flight, what the
/// threads output.
pub(super) struct GsRun {
    pub gs: Cmd3dstateGs,
    urb: GsUrb,
    /// First row of the GS's entries in the draw's URB.
    first_row: usize,
    objects: Vec<GsObject>,
    /// Objects of QUADSTRIP and LINELOOP, which SF's assembly does not
    /// count (`assemble::objects` makes none), less the closing lines
    /// (the closing LINELOOP line is not counted in IA_PRIMITIVES_COUNT,
    /// notes seed-003 section 6.2).
    vf_only: u64,
    next: usize,
    /// The EU array slot of the running thread.
    running: Option<usize>,
    pub out: Output,
    pub counted: Counted,
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
    pub svbis: &'a mut Svbis,
    /// PCB_GS, the GS binding table and SAMPLER_STATE pointers.
    pub constants: &'a [u32],
    pub binding_table: u32,
    pub samplers: u32,
    /// R0.6 Thread ID counter.
    pub thread_id: &'a mut u32,
}

impl GsRun {
    /// The GS stage for a draw whose VS entries take `first_row` rows;
    /// `None` when the GS is disabled.
    pub fn new(packets: &Packets, first_row: usize) -> Result<Option<GsRun>, DrawError> {
        let Some(gs) = state(packets)? else {
            return Ok(None);
        };
        Ok(Some(GsRun {
            gs,
            urb: GsUrb::of(packets)?,
            first_row,
            objects: Vec::new(),
            vf_only: 0,
            next: 0,
            running: None,
            out: Output::default(),
            counted: Counted::default(),
        }))
    }

    /// Rows the GS's entries add to the draw's URB.
    pub fn rows(&self) -> usize {
        self.urb.entries * self.urb.rows
    }

    /// The objects of the fetched primitives, in order.
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
        Ok(())
    }

    /// IA_PRIMITIVES_COUNT's share the VF's object count leaves out.
    pub fn vf_only_objects(&self) -> u64 {
        self.vf_only
    }

    /// GS_INVOCATION_COUNT: one per object dispatched (003 lines
    /// 35060-35068), with GS Statistics Enable.
    pub fn invocations(&self) -> u64 {
        if self.gs.gs_statistics_enable {
            self.objects.len() as u64
        } else {
            0
        }
    }

    pub fn done(&self) -> bool {
        self.next >= self.objects.len() && self.running.is_none()
    }

    /// After the array ran: the thread that ended hands its output on.
    pub fn collect(
        &mut self,
        array: &EuArray,
        urb: &mut Urb,
        svbis: &mut Svbis,
    ) -> Result<(), DrawError> {
        if let Some(slot) = self.running
            && array.thread(slot).is_none()
        {
            self.running = None;
            finish(&self.gs, urb, svbis, &mut self.out, &mut self.counted)?;
            if self.next >= self.objects.len() {
                self.out.close()?;
            }
        }
        Ok(())
    }

    /// Starts the next object's thread when none runs.
    pub fn start(&mut self, d: Dispatch<'_>) -> Result<(), Stop> {
        if self.running.is_some() || self.next >= self.objects.len() {
            return Ok(());
        }
        let (Some(slot), Some(index)) = (d.array.free_slot(), d.array.free_index()) else {
            return Ok(());
        };
        let gs = self.gs;
        let o = &self.objects[self.next];
        let inputs: Vec<&[u32]> =
            o.v.iter()
                .map(|&v| d.vues.get(v as usize).map_or(&[][..], |x| x.dw.as_slice()))
                .collect();
        let rest = payload_after_r0(&gs, d.svbis, d.constants, &inputs)?;
        let scratch = super::vs::scratch_bytes(gs.per_thread_scratch_space)?;
        let scratch_at =
            u64::from(gs.scratch_space_base_pointer) + u64::from(index) * u64::from(scratch);
        *d.thread_id = d.thread_id.wrapping_add(1) & 0xFF_FFFF;
        // R0 (003 lines 34640-34790): R0.0 reserved (the first handle
        // comes from FF_SYNC), R0.1 PrimitiveID, R0.2 edges and PrimType.
        let r0 = [
            0,
            o.primitive_id,
            u32::from(o.edges) << 8 | u32::from(o.prim_type),
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
        let start = ThreadStart {
            program,
            kernel,
            payload,
            // One object, SIMD4x2 with the upper half off: Mesa's Gen6 GS
            // writes its vertices with interleaved URB_WRITEs whose M0.1
            // is r0.1 (the PrimitiveID), so the high half must stay masked
            // [ext: mesa gfx6_gs_visitor.cpp emit_prolog, emit_thread_end].
            dispatch_mask: 0x0F,
            cr0: crate::gpe::cr0(
                gs.floating_point_mode != 0,
                gs.single_program_flow,
                gs.illegal_opcode_exception_enable,
                gs.mask_stack_exception_enable,
                gs.software_exception_enable,
            ),
            ffid: FFID_GS,
            sr0_1_high: index,
            bindings: Bindings::Table(BindingTable {
                platform: d.platform,
                table: d.bases.surface.wrapping_add(u64::from(d.binding_table)),
                surface_state_base: d.bases.surface,
            }),
            general_state: general(d.bases),
            scratch: (gs.scratch_space_base_pointer != 0).then_some(Scratch {
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
        d.urb.gs = Some(snoop(&gs, &self.urb, self.first_row, d.svbis));
        d.array.start(slot, start).map_err(|_| Stop::Dispatch)?;
        self.running = Some(slot);
        self.next += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render3d::types::ObjectKind;

    fn run(topology: u8, n: u32, reorder: bool, discard: bool) -> Vec<(Vec<u32>, u8)> {
        let v: Vec<u32> = (0..n).collect();
        let mut out = Vec::new();
        objects(topology, &v, reorder, discard, 0, &mut out).unwrap();
        out.into_iter().map(|o| (o.v, o.prim_type)).collect()
    }

    #[test]
    fn quad_strips_and_loops_become_gs_objects() {
        assert_eq!(
            run(QUADSTRIP, 6, false, false),
            [
                (alloc::vec![0, 1, 3, 2], QUADSTRIP),
                (alloc::vec![2, 3, 5, 4], QUADSTRIP)
            ]
        );
        let l = run(LINELOOP, 3, false, false);
        assert_eq!(l.len(), 3);
        assert_eq!(l[2], (alloc::vec![2, 0], LINELOOP));
    }

    #[test]
    fn tristrips_toggle_their_type_and_reorder_on_request() {
        assert_eq!(
            run(TRISTRIP, 4, false, false),
            [
                (alloc::vec![0, 1, 2], TRISTRIP),
                (alloc::vec![1, 2, 3], TRISTRIP_REVERSE)
            ]
        );
        assert_eq!(
            run(TRISTRIP, 4, true, false)[1],
            (alloc::vec![1, 3, 2], TRISTRIP_REVERSE)
        );
        assert_eq!(
            run(TRISTRIP_REVERSE, 4, true, false),
            [
                (alloc::vec![0, 2, 1], TRISTRIP_REVERSE),
                (alloc::vec![1, 2, 3], TRISTRIP)
            ]
        );
    }

    #[test]
    fn tristrip_adjacency_follows_the_manual_table() {
        assert_eq!(
            run(TRISTRIP_ADJ, 7, false, false),
            [(alloc::vec![0, 1, 2, 5, 4, 3], TRISTRIP_ADJ)]
        );
        let eight = run(TRISTRIP_ADJ, 8, false, false);
        assert_eq!(eight[0].0, [0, 1, 2, 6, 4, 3]);
        assert_eq!(eight[1].0, [2, 5, 6, 7, 4, 0]);
        let twelve = run(TRISTRIP_ADJ, 12, false, false);
        assert_eq!(twelve[1].0, [2, 5, 6, 8, 4, 0]);
        assert_eq!(twelve[2].0, [4, 2, 6, 10, 8, 7]);
        // Trailing odd object: (N-6, N-3, N-2, N-1, N-4, N-8).
        assert_eq!(twelve[3].0, [6, 9, 10, 11, 8, 4]);
        assert_eq!(
            run(TRISTRIP_ADJ, 8, false, true)[1],
            (alloc::vec![2, 4, 6], TRISTRIP_REVERSE)
        );
        assert_eq!(
            run(LINELIST_ADJ, 4, false, true),
            [(alloc::vec![1, 2], LINELIST)]
        );
    }

    #[test]
    fn polygons_carry_edge_indicators_and_ids_count_objects() {
        let v: Vec<u32> = (0..5).collect();
        let mut out = Vec::new();
        objects(POLYGON, &v, false, false, 7, &mut out).unwrap();
        let e: Vec<(u8, u32)> = out.iter().map(|o| (o.edges, o.primitive_id)).collect();
        assert_eq!(e, [(1, 7), (0, 8), (2, 9)]);
        assert!(objects(POINTLIST_BF, &v, false, false, 0, &mut out).is_err());
    }

    #[test]
    fn payload_has_svbis_constants_then_vertices() {
        let gs = Cmd3dstateGs {
            dispatch_grf_start_register_for_urb_data: 2,
            vertex_urb_entry_read_length: 1,
            vertex_urb_entry_read_offset: 1,
            svbi_payload_enable: true,
            gs_enable: true,
            ..Cmd3dstateGs::default()
        };
        let s = Svbis {
            index: [1, 2, 3, 4],
            max: [5, 6, 7, 8],
        };
        let v0: Vec<u32> = (0..16).collect();
        let v1: Vec<u32> = (100..116).collect();
        let c = [9u32; 8];
        let p = payload_after_r0(&gs, &s, &c, &[&v0, &v1]).unwrap();
        assert_eq!(&p[..8], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(&p[8..16], &c);
        assert_eq!(&p[16..24], &v0[8..16]);
        assert_eq!(&p[24..32], &v1[8..16]);
        let low = Cmd3dstateGs {
            dispatch_grf_start_register_for_urb_data: 1,
            ..gs
        };
        assert!(payload_after_r0(&low, &s, &c, &[&v0]).is_err());
    }

    #[test]
    fn output_groups_vertices_by_start_and_end() {
        let mut o = Output::default();
        let f = |t: u8, s: bool, e: bool| t << 2 | u8::from(s) << 1 | u8::from(e);
        o.vertex(alloc::vec![0], f(TRISTRIP, true, false)).unwrap();
        o.vertex(alloc::vec![1], f(TRISTRIP, false, false)).unwrap();
        o.vertex(alloc::vec![2], f(TRISTRIP, false, false)).unwrap();
        o.vertex(alloc::vec![3], f(TRISTRIP, false, true)).unwrap();
        // A dangling vertex outside a primitive, then a lone line vertex.
        o.vertex(alloc::vec![4], f(TRISTRIP, false, false)).unwrap();
        o.vertex(alloc::vec![5], f(LINESTRIP, true, true)).unwrap();
        o.close().unwrap();
        assert_eq!(o.vues.len(), 6);
        let k: Vec<(ObjectKind, [u32; 3])> = o.objects.iter().map(|x| (x.kind, x.v)).collect();
        assert_eq!(
            k,
            [
                (ObjectKind::Triangle, [0, 1, 2]),
                (ObjectKind::Triangle, [1, 2, 3])
            ]
        );
        assert!(o.vertex(alloc::vec![6], f(QUADSTRIP, true, false)).is_err());
    }

    #[test]
    fn svbis_load_and_hold_at_their_maximum() {
        let mut s = Svbis::default();
        s.load(&[0x790B_0002, 1 << 29, 5, 7]).unwrap();
        assert_eq!((s.index[1], s.max[1]), (5, 7));
        s.add(4);
        assert_eq!(s.index[1], 7);
        assert_eq!(s.index[0], 4);
        assert!(s.load(&[0x790B_0002, 1, 0, 0]).is_err());
    }
}
