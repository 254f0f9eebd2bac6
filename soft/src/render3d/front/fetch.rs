//! Vertex fetch (003 lines 29715-31835, the pseudo-code of 31179-31400):
//! the instance and vertex loops, index buffers with Gen6's cut index (IVB
//! keeps it: Cut Index Enable in 3DSTATE_INDEX_BUFFER, the all-ones value,
//! Mesa gen7.xml; the programmable cut index of 3DSTATE_VF is Haswell's),
//! vertex elements read from vertex buffers, format conversion
//! ([`super::format`]) and the component controls; the vertices of each
//! primitive (between cuts and instances) go to [`super::assemble`].
//!
//! Every vertex gets its own VUE: the vertex cache is a performance
//! feature whose hits return the same data (003 lines 31280-31290), so
//! leaving it out changes only how often the VS runs.

use alloc::vec;
use alloc::vec::Vec;

use baregpu_hal::gen6::commands::{
    Cmd3dprimitive, Cmd3dstateIndexBuffer, Cmd3dstateVertexBuffers,
    Cmd3dstateVertexBuffersVertexBufferState, Cmd3dstateVertexElements,
    Cmd3dstateVertexElementsElement,
};
use baregpu_hal::{Generation, Packet};

use super::assemble;
use super::format::{self, VertexFormat};
use crate::eu::shared::GfxMemory;
use crate::render3d::types::{DrawError, Object, Packets};

/// Vertices (times instances) one draw may fetch: a draw is fetched whole
/// before its threads start, so an absurd count is refused rather than
/// allocated.
pub(crate) const MAX_VERTICES: u64 = 1 << 20;

/// What vertex fetch hands on.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Fetched {
    /// Each vertex's VUE as the VF writes it: element `i` in dwords
    /// `4i..4i+3` (128-bit pitch, 003 line 30451).
    pub vertices: Vec<Vec<u32>>,
    pub objects: Vec<Object>,
    /// Each primitive's vertices (between cuts and instance ends) with
    /// its instance, for the GS's objects (`gs::objects`).
    pub primitives: Vec<(u32, Vec<u32>)>,
    /// IA_VERTICES_COUNT and IA_PRIMITIVES_COUNT increments.
    pub ia_vertices: u64,
    pub ia_primitives: u64,
}

/// A vertex element ready to fetch.
struct Element {
    ve: Cmd3dstateVertexElementsElement,
    fmt: Option<VertexFormat>,
}

/// Component controls (003 lines 30640-30700; values 5-7 from Mesa
/// gen6.xml 3D_Vertex_Component_Control, see hal/tables/gen6/3d.toml).
const NOSTORE: u32 = 0;
const STORE_SRC: u32 = 1;
const STORE_0: u32 = 2;
const STORE_1_FP: u32 = 3;
const STORE_1_INT: u32 = 4;
const STORE_VID: u32 = 5;
const STORE_IID: u32 = 6;
/// VFCOMP_STORE_PID (notes seed-003 §5.1, 003 lines 29801-29821).
const STORE_PID: u32 = 7;

/// The S and R parameters of PrimitiveInfoGeneration per topology (003
/// lines 31700-31774): PrimitiveID skips S vertices of a primitive, then
/// grows by one every R + 1 vertices. None for TRISTRIP_ADJ, whose extra
/// increment when a primitive ends is garbled in the text (003 lines
/// 31322-31330), and LINESTRIP_CONT_BF, which the table omits.
fn pid_steps(topology: u8) -> Option<(u32, u32)> {
    use super::assemble::prim::*;
    Some(match topology {
        POINTLIST | POINTLIST_BF => (1, 0),
        LINELIST => (1, 1),
        LINELIST_ADJ => (1, 3),
        LINESTRIP | LINESTRIP_BF | LINESTRIP_CONT | LINELOOP => (2, 0),
        LINESTRIP_ADJ => (3, 0),
        TRILIST | RECTLIST => (1, 2),
        TRILIST_ADJ => (1, 5),
        TRISTRIP | TRISTRIP_REVERSE | TRIFAN | TRIFAN_NOSTIPPLE | POLYGON => (3, 0),
        QUADLIST => (1, 3),
        QUADSTRIP => (3, 1),
        _ => return None,
    })
}

/// The VF's PrimitiveID counters (003 lines 31669-31706): PrimitiveID and
/// PIDCounterS/R reset at each instance's start, the counters alone at a
/// cut (003 lines 31318-31320).
#[derive(Default)]
struct PidCounter {
    s: u32,
    r: u32,
    pid: u32,
}

impl PidCounter {
    /// The PrimitiveID of the next vertex.
    fn next(&mut self, (s, r): (u32, u32)) -> u32 {
        if self.s < s {
            self.s += 1;
        } else if self.r < r {
            self.r += 1;
        } else {
            self.pid = self.pid.wrapping_add(1);
            self.r = 0;
        }
        self.pid
    }

    fn cut(&mut self) {
        self.s = 0;
        self.r = 0;
    }
}

/// Runs the VF for `prim` with the state in `packets` (in the layouts of
/// `generation`; `prim` in the SNB form, `super::gen7::primitive`); every
/// VUE has `vue_dwords` dwords.
pub(crate) fn fetch(
    generation: Generation,
    packets: &Packets,
    mem: &mut dyn GfxMemory,
    prim: &Cmd3dprimitive,
    vue_dwords: usize,
) -> Result<Fetched, DrawError> {
    if prim.internal_vertex_count {
        return Err(DrawError::Unmodelled(
            "3DPRIMITIVE Internal Vertex Count (the GS's stream output count)",
        ));
    }
    // "0 is UNDEFINED" (003 Instance Count, see hal/tables/gen6/3d.toml).
    if prim.instance_count == 0 {
        return Err(DrawError::Invalid(
            "3DPRIMITIVE with an instance count of 0",
        ));
    }
    let total = u64::from(prim.vertex_count_per_instance) * u64::from(prim.instance_count);
    if total > MAX_VERTICES {
        return Err(DrawError::Unmodelled("draws of more than 2^20 vertices"));
    }
    let elements = elements(packets, generation)?;
    if elements.len() * 4 > vue_dwords {
        return Err(DrawError::Invalid(
            "vertex elements do not fit the VS URB entry",
        ));
    }
    let buffers = buffers(packets, generation)?;
    let random = prim.vertex_access_type == 1;
    let index = if random {
        Some(index_buffer(packets)?)
    } else {
        None
    };
    let topology = prim.primitive_topology_type as u8;
    if let Some(ib) = &index
        && ib.cut
        && !assemble::cuts_allowed(topology)
    {
        // 003 lines 29975-30025.
        return Err(DrawError::Invalid(
            "cut index with a topology that has none",
        ));
    }
    // PrimitiveID only matters when an element stores it.
    let steps = pid_steps(topology);
    if steps.is_none()
        && elements
            .iter()
            .any(|e| controls(&e.ve).contains(&STORE_PID))
    {
        return Err(DrawError::Unmodelled(
            "VFCOMP_STORE_PID with TRISTRIP_ADJ or LINESTRIP_CONT_BF",
        ));
    }
    let steps = steps.unwrap_or((0, 0));
    let mut out = Fetched::default();
    for instance in 0..prim.instance_count {
        let mut strip: Vec<u32> = Vec::new();
        let mut pid = PidCounter::default();
        for n in 0..prim.vertex_count_per_instance {
            let at = u64::from(prim.start_vertex_location) + u64::from(n);
            let (vid, vindex) = match &index {
                None => (n, i64::from(prim.start_vertex_location) + i64::from(n)),
                Some(ib) => {
                    let v = ib.read(mem, at)?;
                    if ib.cut && v == ib.cut_value() {
                        assemble::objects(topology, &strip, &mut out.objects)?;
                        out.primitives.push((instance, core::mem::take(&mut strip)));
                        pid.cut();
                        continue;
                    }
                    (v, i64::from(v) + i64::from(prim.base_vertex_location))
                }
            };
            let vue = vertex(
                mem,
                &elements,
                &buffers,
                prim,
                (vindex, vid, instance, pid.next(steps)),
                vue_dwords,
            )?;
            out.ia_vertices += 1;
            strip.push(out.vertices.len() as u32);
            out.vertices.push(vue);
        }
        // Each instance ends with an implied cut (003 lines 31200-31205).
        assemble::objects(topology, &strip, &mut out.objects)?;
        out.primitives.push((instance, strip));
    }
    out.ia_primitives = out.objects.len() as u64;
    Ok(out)
}

fn elements(packets: &Packets, generation: Generation) -> Result<Vec<Element>, DrawError> {
    let dw = packets
        .get("3DSTATE_VERTEX_ELEMENTS")
        .ok_or(DrawError::Invalid(
            "no 3DSTATE_VERTEX_ELEMENTS before the draw",
        ))?;
    let ves = if generation == Generation::Gen7 {
        super::gen7::vertex_elements(dw)?
    } else {
        Cmd3dstateVertexElements::unpack(dw)
            .map_err(|_| DrawError::Invalid("3DSTATE_VERTEX_ELEMENTS does not decode"))?
            .element
    };
    // Valid elements from element 0 on, without gaps (003 lines
    // 30447-30450); the ones after the last valid are unused.
    let used = ves.iter().take_while(|e| e.valid).count();
    if used == 0 || ves[used..].iter().any(|e| e.valid) {
        return Err(DrawError::Invalid(
            "vertex elements must be valid from element 0 without gaps",
        ));
    }
    ves[..used]
        .iter()
        .map(|ve| {
            if ve.edge_flag_enable {
                return Err(DrawError::Unmodelled("vertex element edge flags"));
            }
            let controls = controls(ve);
            let fmt = if controls.contains(&STORE_SRC) {
                Some(
                    format::of(ve.source_element_format).ok_or(DrawError::Invalid(
                        "vertex element format is not a vertex fetch format",
                    ))?,
                )
            } else {
                None
            };
            Ok(Element { ve: *ve, fmt })
        })
        .collect()
}

fn controls(ve: &Cmd3dstateVertexElementsElement) -> [u32; 4] {
    [
        ve.component_0_control,
        ve.component_1_control,
        ve.component_2_control,
        ve.component_3_control,
    ]
}

fn buffers(
    packets: &Packets,
    generation: Generation,
) -> Result<Vec<Cmd3dstateVertexBuffersVertexBufferState>, DrawError> {
    match packets.get("3DSTATE_VERTEX_BUFFERS") {
        None => Ok(Vec::new()),
        Some(dw) if generation == Generation::Gen7 => super::gen7::vertex_buffers(dw),
        Some(dw) => Ok(Cmd3dstateVertexBuffers::unpack(dw)
            .map_err(|_| DrawError::Invalid("3DSTATE_VERTEX_BUFFERS does not decode"))?
            .vertex_buffer_state),
    }
}

/// The index buffer of a RANDOM draw.
struct IndexBuffer {
    start: u64,
    end: u64,
    bytes: u64,
    cut: bool,
}

fn index_buffer(packets: &Packets) -> Result<IndexBuffer, DrawError> {
    let dw = packets
        .get("3DSTATE_INDEX_BUFFER")
        .ok_or(DrawError::Invalid(
            "RANDOM access without 3DSTATE_INDEX_BUFFER",
        ))?;
    let ib = Cmd3dstateIndexBuffer::unpack(dw)
        .map_err(|_| DrawError::Invalid("3DSTATE_INDEX_BUFFER does not decode"))?;
    let bytes = match ib.index_format {
        0 => 1,
        1 => 2,
        2 => 4,
        _ => return Err(DrawError::Invalid("reserved index format")),
    };
    Ok(IndexBuffer {
        start: ib.buffer_starting_address,
        end: ib.buffer_ending_address,
        bytes,
        cut: ib.cut_index_enable,
    })
}

impl IndexBuffer {
    /// "A fetched IBValue of all ones (0xFF, 0xFFFF, or 0xFFFFFFFF
    /// depending on Index Format)" (003 lines 31228-31231).
    fn cut_value(&self) -> u32 {
        (u64::MAX >> (64 - 8 * self.bytes)) as u32
    }

    /// Index `i`; reads past a non-zero Buffer Ending Address return 0
    /// (003 lines 29962-29966).
    fn read(&self, mem: &mut dyn GfxMemory, i: u64) -> Result<u32, DrawError> {
        let at = self.start.wrapping_add(i * self.bytes);
        if self.end != 0 && at.saturating_add(self.bytes - 1) > self.end {
            return Ok(0);
        }
        let mut b = [0u8; 4];
        mem.read(at, &mut b[..self.bytes as usize])?;
        Ok(u32::from_le_bytes(b))
    }
}

/// One vertex's VUE: `(VertexIndex, VertexID, InstanceID, PrimitiveID)`.
fn vertex(
    mem: &mut dyn GfxMemory,
    elements: &[Element],
    buffers: &[Cmd3dstateVertexBuffersVertexBufferState],
    prim: &Cmd3dprimitive,
    (vindex, vid, iid, pid): (i64, u32, u32, u32),
    vue_dwords: usize,
) -> Result<Vec<u32>, DrawError> {
    let mut vue = vec![0u32; vue_dwords];
    for (i, e) in elements.iter().enumerate() {
        let src = match &e.fmt {
            Some(fmt) => {
                let vb = buffers
                    .iter()
                    .find(|b| b.vertex_buffer_index == e.ve.vertex_buffer_index);
                let bytes = match vb {
                    Some(vb) => source(mem, vb, &e.ve, fmt, prim, vindex, iid)?,
                    // A buffer never loaded: the model has nothing to read.
                    None => {
                        return Err(DrawError::Invalid(
                            "vertex element names a vertex buffer never loaded",
                        ));
                    }
                };
                format::convert(fmt, &bytes)
            }
            None => [None; 4],
        };
        let one = |int: bool| if int { 1 } else { 1.0f32.to_bits() };
        let int = e.fmt.is_some_and(|f| f.integer());
        let mut stored = true;
        for (c, ctl) in controls(&e.ve).iter().enumerate() {
            let v = match *ctl {
                NOSTORE => {
                    stored = false;
                    continue;
                }
                // "Only trailing components can be set to something other
                // than VFCOMP_STORE_SRC" (003 lines 30440-30444).
                STORE_SRC if !stored => {
                    return Err(DrawError::Invalid("VFCOMP_STORE_SRC after NOSTORE"));
                }
                // A channel the format lacks is UNPREDICTABLE: the
                // sampler's defaults (0, 0, 0, 1).
                STORE_SRC => src[c].unwrap_or(if c == 3 { one(int) } else { 0 }),
                STORE_0 => 0,
                STORE_1_FP => 1.0f32.to_bits(),
                STORE_1_INT => 1,
                STORE_VID => vid,
                STORE_IID => iid,
                STORE_PID => pid,
                _ => return Err(DrawError::Invalid("reserved vertex component control")),
            };
            vue[4 * i + c] = v;
        }
    }
    Ok(vue)
}

/// The bytes one element reads from its buffer: zeros for a null buffer,
/// an index out of range, or an access that straddles or passes the End
/// Address (003 lines 30127-30130, 30201-30205, 30216-30230).
fn source(
    mem: &mut dyn GfxMemory,
    vb: &Cmd3dstateVertexBuffersVertexBufferState,
    ve: &Cmd3dstateVertexElementsElement,
    fmt: &VertexFormat,
    prim: &Cmd3dprimitive,
    vindex: i64,
    iid: u32,
) -> Result<Vec<u8>, DrawError> {
    let n = fmt.bytes();
    let mut bytes = vec![0u8; n];
    if vb.null_vertex_buffer {
        return Ok(bytes);
    }
    // INSTANCEDATA: StartInstanceLocation + InstanceID / step rate (0: no
    // stepping), 003 lines 31383-31390.
    let index = if vb.buffer_access_type == 1 {
        let step = iid.checked_div(vb.instance_data_step_rate).unwrap_or(0);
        i64::from(prim.start_instance_location) + i64::from(step)
    } else {
        vindex
    };
    if index < 0 {
        return Ok(bytes);
    }
    let at = (vb.buffer_starting_address as i128)
        + i128::from(index) * i128::from(vb.buffer_pitch)
        + i128::from(ve.source_element_offset);
    let last = at + n as i128 - 1;
    if last > i128::from(vb.end_address) || at > i128::from(u32::MAX) {
        return Ok(bytes);
    }
    mem.read(at as u64, &mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eu::shared::FlatMemory;

    const VB: u64 = 0x1000;
    const IB: u64 = 0x3000;

    fn ve(vb: u32, fmt: u32, offset: u32, ctl: [u32; 4]) -> [u32; 2] {
        [
            vb << 26 | 1 << 25 | fmt << 16 | offset,
            ctl[0] << 28 | ctl[1] << 24 | ctl[2] << 20 | ctl[3] << 16,
        ]
    }

    fn packets(elements: &[[u32; 2]], vbs: &[[u32; 4]]) -> Packets {
        let mut p = Packets::default();
        let mut dw = vec![0x7809_0000 | (2 * elements.len() as u32 - 1)];
        for e in elements {
            dw.extend_from_slice(e);
        }
        p.set("3DSTATE_VERTEX_ELEMENTS", &dw);
        let mut b = vec![0x7808_0000 | (4 * vbs.len() as u32 - 1)];
        for v in vbs {
            b.extend_from_slice(v);
        }
        p.set("3DSTATE_VERTEX_BUFFERS", &b);
        p
    }

    fn prim(topology: u32, random: bool, count: u32, start: u32, instances: u32) -> Cmd3dprimitive {
        Cmd3dprimitive {
            vertex_access_type: u32::from(random),
            primitive_topology_type: topology,
            vertex_count_per_instance: count,
            start_vertex_location: start,
            instance_count: instances,
            ..Cmd3dprimitive::default()
        }
    }

    fn memory() -> FlatMemory {
        let mut m = FlatMemory::new(0, 0x4000);
        for k in 0..64u32 {
            m.write(VB + 4 * u64::from(k), &(k * 10).to_le_bytes())
                .unwrap();
        }
        m
    }

    const SRC4: [u32; 4] = [STORE_SRC; 4];

    #[test]
    fn sequential_vertices_with_ids_and_constants() {
        // Element 0: R32G32_UINT from offset 4 then 1.0 and VertexID;
        // element 1: InstanceID, 0, 1 (int), NOSTORE.
        let p = packets(
            &[
                ve(0, 0x087, 4, [STORE_SRC, STORE_SRC, STORE_1_FP, STORE_VID]),
                ve(0, 0, 0, [STORE_IID, STORE_0, STORE_1_INT, NOSTORE]),
            ],
            &[[16, VB as u32, VB as u32 + 0xff, 0]],
        );
        let mut m = memory();
        let f = fetch(Generation::Gen6, &p, &mut m, &prim(1, false, 2, 3, 2), 32).unwrap();
        assert_eq!(f.vertices.len(), 4);
        // Vertex 1 of instance 0: index 4, pitch 16 -> dwords 17, 18.
        let v = &f.vertices[1];
        assert_eq!(&v[..8], &[170, 180, 0x3F80_0000, 1, 0, 0, 1, 0]);
        assert_eq!(f.vertices[3][4], 1, "InstanceID of the second instance");
        assert_eq!(f.vertices[2][3], 0, "VertexID restarts each instance");
        assert_eq!(f.objects.len(), 4);
        assert_eq!(f.ia_vertices, 4);
    }

    #[test]
    fn out_of_bounds_reads_are_zero() {
        // End address allows 2 structures of 8 bytes; the third straddles.
        // R32G32_UINT: B and A are missing channels, 0 and 1.
        let p = packets(
            &[ve(0, 0x087, 0, SRC4)],
            &[[8, VB as u32, VB as u32 + 19, 0]],
        );
        let mut m = memory();
        let f = fetch(Generation::Gen6, &p, &mut m, &prim(1, false, 3, 0, 1), 8).unwrap();
        assert_eq!(&f.vertices[1][..4], &[20, 30, 0, 1]);
        assert_eq!(&f.vertices[2][..4], &[0, 0, 0, 1], "straddles the end");
        // A null buffer reads zeros.
        let p = packets(
            &[ve(0, 0x002, 0, SRC4)],
            &[[8 | 1 << 13, VB as u32, VB as u32 + 0xfff, 0]],
        );
        let f = fetch(Generation::Gen6, &p, &mut m, &prim(1, false, 1, 0, 1), 8).unwrap();
        assert_eq!(&f.vertices[0][..4], &[0, 0, 0, 0]);
    }

    #[test]
    fn indexed_draws_with_base_vertex_cut_and_bounds() {
        let mut p = packets(
            &[ve(0, 0x0D7, 0, [STORE_SRC, STORE_VID, NOSTORE, NOSTORE])],
            &[[4, VB as u32, VB as u32 + 0xff, 0]],
        );
        let mut m = memory();
        // 16-bit indices 1, 2, 0xFFFF, 3, 4, 5; the buffer ends after 5 of them.
        for (k, v) in [1u16, 2, 0xFFFF, 3, 4, 5].iter().enumerate() {
            m.write(IB + 2 * k as u64, &v.to_le_bytes()).unwrap();
        }
        p.set(
            "3DSTATE_INDEX_BUFFER",
            &[0x780A_0501, IB as u32, IB as u32 + 9],
        );
        let mut pr = prim(3, true, 6, 0, 1); // LINESTRIP
        pr.base_vertex_location = 10;
        let f = fetch(Generation::Gen6, &p, &mut m, &pr, 4).unwrap();
        let got: Vec<_> = f.vertices.iter().map(|v| (v[0], v[1])).collect();
        // VertexID is the index; the data comes from index + base vertex;
        // the sixth index is past the end: index 0.
        assert_eq!(got, [(110, 1), (120, 2), (130, 3), (140, 4), (100, 0)]);
        // The cut splits the strip: one line, then two.
        let lines: Vec<_> = f
            .objects
            .iter()
            .map(|o| (o.v[0], o.v[1], o.ordinal))
            .collect();
        assert_eq!(lines, [(0, 1, 0), (2, 3, 0), (3, 4, 1)]);
    }

    #[test]
    fn byte_and_dword_indices_with_their_cut_values() {
        let mut m = memory();
        let els = [ve(0, 0x0D7, 0, [STORE_SRC, NOSTORE, NOSTORE, NOSTORE])];
        let vbs = [[4, VB as u32, VB as u32 + 0xff, 0]];
        // Bytes: 2, 0xFF (cut), 5; 0xFFFF is no cut for a byte buffer.
        m.write(IB, &[2, 0xFF, 5]).unwrap();
        let mut p = packets(&els, &vbs);
        p.set("3DSTATE_INDEX_BUFFER", &[0x780A_0401, IB as u32, 0]);
        let f = fetch(Generation::Gen6, &p, &mut m, &prim(1, true, 3, 0, 1), 4).unwrap();
        let got: Vec<_> = f.vertices.iter().map(|v| v[0]).collect();
        assert_eq!(got, [20, 50]);
        // Without Cut Index Enable 0xFF is an index like any other.
        p.set("3DSTATE_INDEX_BUFFER", &[0x780A_0001, IB as u32, 0]);
        let f = fetch(Generation::Gen6, &p, &mut m, &prim(1, true, 3, 0, 1), 4).unwrap();
        assert_eq!(f.vertices.len(), 3);
        // Dwords, starting at index 1: 7, then the cut 0xFFFFFFFF.
        for (k, v) in [1u32, 7, u32::MAX, 3].iter().enumerate() {
            m.write(IB + 0x100 + 4 * k as u64, &v.to_le_bytes())
                .unwrap();
        }
        p.set("3DSTATE_INDEX_BUFFER", &[0x780A_0601, IB as u32 + 0x100, 0]);
        let f = fetch(Generation::Gen6, &p, &mut m, &prim(1, true, 3, 1, 1), 4).unwrap();
        let got: Vec<_> = f.vertices.iter().map(|v| v[0]).collect();
        assert_eq!(got, [70, 30]);
        // A fan has no cut index on SNB.
        assert!(matches!(
            fetch(Generation::Gen6, &p, &mut m, &prim(6, true, 3, 1, 1), 4),
            Err(DrawError::Invalid(_))
        ));
    }

    #[test]
    fn instance_data_steps_by_rate() {
        let p = packets(
            &[ve(1, 0x0D7, 0, [STORE_SRC, STORE_IID, NOSTORE, NOSTORE])],
            &[[1 << 26 | 1 << 20 | 4, VB as u32, VB as u32 + 0xff, 2]],
        );
        let mut m = memory();
        let mut pr = prim(1, false, 1, 0, 5);
        pr.start_instance_location = 1;
        let f = fetch(Generation::Gen6, &p, &mut m, &pr, 4).unwrap();
        let got: Vec<_> = f.vertices.iter().map(|v| v[0]).collect();
        assert_eq!(got, [10, 10, 20, 20, 30]);
    }

    /// VFCOMP_STORE_PID stores the PrimitiveID sequences of the S/R table
    /// (003 lines 31711-31774, the "PrimitiveID Outputs" column), restarted
    /// at each instance; a cut restarts the counters, not the ID.
    #[test]
    fn the_primitive_id_follows_the_s_r_table() {
        let p = packets(
            &[ve(0, 0, 0, [STORE_PID, STORE_IID, NOSTORE, NOSTORE])],
            &[[4, VB as u32, VB as u32 + 0xff, 0]],
        );
        let mut m = memory();
        let ids = |topology: u32, count: u32, instances: u32| -> Vec<[u32; 2]> {
            let f = fetch(
                Generation::Gen6,
                &p,
                &mut memory(),
                &prim(topology, false, count, 0, instances),
                8,
            )
            .unwrap();
            f.vertices.iter().map(|v| [v[0], v[1]]).collect()
        };
        let table: [(u32, &[u32]); 8] = [
            (0x01, &[0, 1, 2, 3]),
            (0x02, &[0, 0, 1, 1, 2, 2]),
            (0x09, &[0, 0, 0, 0, 1, 1, 1, 1]),
            (0x03, &[0, 0, 1, 2, 3]),
            (0x0A, &[0, 0, 0, 1, 2]),
            (0x04, &[0, 0, 0, 1, 1, 1, 2]),
            (0x0B, &[0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2]),
            (0x05, &[0, 0, 0, 1, 2, 3]),
        ];
        for (topology, expected) in table {
            let n = expected.len() as u32;
            let got = ids(topology, n, 2);
            let want: Vec<[u32; 2]> = (0..2)
                .flat_map(|i| expected.iter().map(move |&pid| [pid, i]))
                .collect();
            assert_eq!(got, want, "topology {topology:#x}");
        }
        // LINESTRIP cut after two vertices: the counters restart, the ID
        // goes on (0, 0 | 0, 1, 2 with S = 2 skipping two again).
        let mut p = p.clone();
        for (k, v) in [0u16, 1, 0xFFFF, 2, 3, 4].iter().enumerate() {
            m.write(IB + 2 * k as u64, &v.to_le_bytes()).unwrap();
        }
        // 3DSTATE_INDEX_BUFFER: cut index enable, 16-bit indices.
        p.set("3DSTATE_INDEX_BUFFER", &[0x780A_0501, IB as u32, 0]);
        let f = fetch(Generation::Gen6, &p, &mut m, &prim(0x03, true, 6, 0, 1), 8).unwrap();
        let got: Vec<u32> = f.vertices.iter().map(|v| v[0]).collect();
        assert_eq!(got, [0, 0, 0, 0, 1]);
    }

    #[test]
    fn refusals_name_what_is_missing() {
        let mut m = memory();
        let p = packets(
            &[ve(0, 0x0FA, 0, SRC4)],
            &[[4, VB as u32, VB as u32 + 0xff, 0]],
        );
        assert!(matches!(
            fetch(Generation::Gen6, &p, &mut m, &prim(1, false, 1, 0, 1), 8),
            Err(DrawError::Invalid(_))
        ));
        let p = packets(
            &[ve(0, 0, 0, [STORE_PID, NOSTORE, NOSTORE, NOSTORE])],
            &[[4, VB as u32, VB as u32 + 0xff, 0]],
        );
        assert_eq!(
            fetch(Generation::Gen6, &p, &mut m, &prim(0x0C, false, 6, 0, 1), 8),
            Err(DrawError::Unmodelled(
                "VFCOMP_STORE_PID with TRISTRIP_ADJ or LINESTRIP_CONT_BF"
            ))
        );
        let p = packets(&[ve(0, 0, 0, SRC4)], &[[4, VB as u32, VB as u32 + 0xff, 0]]);
        assert!(matches!(
            fetch(Generation::Gen6, &p, &mut m, &prim(1, false, 1, 0, 0), 8),
            Err(DrawError::Invalid(_))
        ));
    }
}
