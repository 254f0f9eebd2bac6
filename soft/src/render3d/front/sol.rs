//! The Ivy Bridge stream-output (SOL) stage, between the GS (or the VS
//! when no GS runs) and the clipper: with SO Function Enable set
//! (3DSTATE_STREAMOUT, Mesa src/intel/genxml/gen7.xml) each object of
//! stream s is written, vertex by vertex, to the buffers stream s selects
//! (3DSTATE_SO_DECL_LIST Stream to Buffer Selects, those with SO Buffer
//! Enable) as stream s's SO_DECLs say.
//!
//! - A vertex's SO_DECLs, in order: one with Hole Flag skips as many
//!   dwords of its buffer as its Component Mask has bits; another writes
//!   the components its mask selects, of the 128-bit register Register
//!   Index counts from the stream's Vertex Read Offset (256-bit units;
//!   Vertex Read Length, 256-bit units minus one, bounds it), packed in
//!   order (Mesa i965 gen7_sol_state.c `upload_3dstate_so_decl_list`:
//!   masks are `((1 << components) - 1) << component offset`, holes "have
//!   size 1, 2, 3, or 4"; `upload_3dstate_streamout`: read offset 0,
//!   read length "urb_entry_read_length - 1").
//! - Each buffer's vertices are Surface Pitch bytes apart from its Write
//!   Offset (SO_WRITE_OFFSET0-3, 5280h + 4n: Linux i915_reg.h
//!   `GEN7_SO_WRITE_OFFSET(n)`, byte offsets from the Surface Base
//!   Address that drivers load with MI_LOAD_REGISTER_IMM, Mesa anv
//!   genX_gpu_memcpy.c, and the SOL moves on, `so_write_offsets`). The
//!   buffer ends before Surface End Address (i965 gen7_sol_state.c
//!   programs `start + size`; anv `dst + size`).
//! - Overflow: an object written only when all its vertices fit in every
//!   buffer it goes to; otherwise nothing of it is written and no offset
//!   moves. SO_PRIM_STORAGE_NEEDED counts it anyway, SO_NUM_PRIMS_WRITTEN
//!   only what was written ("would have written ... if all buffers had
//!   been large enough", 003 lines 13380-13400, the SNB registers of the
//!   same meaning; Linux i915_reg.h `GEN7_SO_NUM_PRIMS_WRITTEN(n)` 5200h +
//!   8n and `GEN7_SO_PRIM_STORAGE_NEEDED(n)` 5240h + 8n, one per stream),
//!   with SO Statistics Enable.
//! - Triangle strips: Reorder Mode LEADING writes the odd triangles of a
//!   strip as (v0, v2, v1), TRAILING as (v1, v0, v2), the provoking vertex
//!   kept first or last (Mesa sets TRAILING for the last-vertex
//!   convention, i965 `upload_3dstate_streamout`).
//! - Rendering Disable: nothing goes on to the clipper; Render Stream
//!   Select: the stream that does. IVB honours it even with the SOL off
//!   ("Haswell and later hardware ignores the Render Stream Select bits
//!   ... when the SOL stage is disabled", Mesa elk_vec4_gs_visitor.cpp
//!   `gs_emit_vertex`).
//!
//! SO Buffer Enable is taken from 3DSTATE_STREAMOUT; a buffer a stream
//! selects but that is not enabled gets nothing. Memory faults stop the
//! draw.

use alloc::vec::Vec;

use baregpu_hal::Packet;
use baregpu_hal::gen7::commands::{Cmd3dstateSoBuffer, Cmd3dstateSoDeclList, Cmd3dstateStreamout};

use super::assemble::prim::{TRISTRIP, TRISTRIP_REVERSE};
use super::gen7::SO_BUFFERS;
use crate::eu::shared::GfxMemory;
use crate::render3d::types::{DrawError, Object, ObjectKind, Packets, Vue};

/// One SO_DECL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Decl {
    slot: usize,
    hole: bool,
    register: usize,
    mask: u8,
}

/// One 3DSTATE_SO_BUFFER.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Buffer {
    base: u64,
    end: u64,
    pitch: u32,
}

/// What the SOL stage adds to the per-stream statistics registers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SoCounts {
    pub written: [u64; 4],
    pub needed: [u64; 4],
}

/// The SOL state of a draw.
#[derive(Clone, Debug)]
pub(super) struct Sol {
    enabled: bool,
    /// Rendering Disable clear: objects go on to the clipper.
    pub rendering: bool,
    pub render_stream: u8,
    trailing: bool,
    statistics: bool,
    /// Each stream's vertex read: (first dword, registers it may read).
    read: [(usize, usize); 4],
    select: [u8; 4],
    decls: [Vec<Decl>; 4],
    buffers: [Option<Buffer>; 4],
}

impl Default for Sol {
    /// Off, stream 0 rendered (3DSTATE_STREAMOUT's zero state; Sandy
    /// Bridge's draws).
    fn default() -> Sol {
        Sol {
            enabled: false,
            rendering: true,
            render_stream: 0,
            trailing: false,
            statistics: false,
            read: [(0, 0); 4],
            select: [0; 4],
            decls: Default::default(),
            buffers: [None; 4],
        }
    }
}

impl Sol {
    /// The kept 3DSTATE_STREAMOUT, SO_DECL_LIST and SO_BUFFERs; without
    /// 3DSTATE_STREAMOUT the stage is off and renders stream 0.
    pub fn of(packets: &Packets) -> Result<Sol, DrawError> {
        let so = match packets.get("3DSTATE_STREAMOUT") {
            Some(dw) => Cmd3dstateStreamout::unpack(dw)
                .map_err(|_| DrawError::Invalid("3DSTATE_STREAMOUT does not decode"))?,
            None => Cmd3dstateStreamout::default(),
        };
        let mut sol = Sol {
            enabled: so.so_function_enable,
            rendering: !so.rendering_disable,
            render_stream: so.render_stream_select as u8,
            trailing: so.reorder_mode == 1,
            statistics: so.so_statistics_enable,
            read: [
                (
                    so.stream_0_vertex_read_offset,
                    so.stream_0_vertex_read_length,
                ),
                (
                    so.stream_1_vertex_read_offset,
                    so.stream_1_vertex_read_length,
                ),
                (
                    so.stream_2_vertex_read_offset,
                    so.stream_2_vertex_read_length,
                ),
                (
                    so.stream_3_vertex_read_offset,
                    so.stream_3_vertex_read_length,
                ),
            ]
            .map(|(o, l)| (o as usize * 8, 2 * (l as usize + 1))),
            ..Sol::default()
        };
        if !sol.enabled {
            return Ok(sol);
        }
        if let Some(dw) = packets.get("3DSTATE_SO_DECL_LIST") {
            let l = Cmd3dstateSoDeclList::unpack(dw)
                .map_err(|_| DrawError::Invalid("3DSTATE_SO_DECL_LIST does not decode"))?;
            sol.select = [
                l.stream_to_buffer_selects_0,
                l.stream_to_buffer_selects_1,
                l.stream_to_buffer_selects_2,
                l.stream_to_buffer_selects_3,
            ]
            .map(|s| s as u8);
            let counts = [
                l.num_entries_0,
                l.num_entries_1,
                l.num_entries_2,
                l.num_entries_3,
            ];
            if counts.iter().any(|&n| n as usize > l.so_decl_entry.len()) {
                return Err(DrawError::Invalid(
                    "3DSTATE_SO_DECL_LIST has fewer entries than its Num Entries",
                ));
            }
            for (s, &n) in counts.iter().enumerate() {
                sol.decls[s] = l.so_decl_entry[..n as usize]
                    .iter()
                    .map(|e| {
                        let (slot, hole, register, mask) = match s {
                            0 => (
                                e.stream_0_output_buffer_slot,
                                e.stream_0_hole_flag,
                                e.stream_0_register_index,
                                e.stream_0_component_mask,
                            ),
                            1 => (
                                e.stream_1_output_buffer_slot,
                                e.stream_1_hole_flag,
                                e.stream_1_register_index,
                                e.stream_1_component_mask,
                            ),
                            2 => (
                                e.stream_2_output_buffer_slot,
                                e.stream_2_hole_flag,
                                e.stream_2_register_index,
                                e.stream_2_component_mask,
                            ),
                            _ => (
                                e.stream_3_output_buffer_slot,
                                e.stream_3_hole_flag,
                                e.stream_3_register_index,
                                e.stream_3_component_mask,
                            ),
                        };
                        Decl {
                            slot: slot as usize,
                            hole,
                            register: register as usize,
                            mask: mask as u8,
                        }
                    })
                    .collect();
                if sol.decls[s]
                    .iter()
                    .any(|d| !d.hole && d.register >= sol.read[s].1)
                {
                    return Err(DrawError::Invalid(
                        "an SO_DECL reads past its stream's Vertex Read Length",
                    ));
                }
            }
        }
        let enables = [
            so.so_buffer_enable_0,
            so.so_buffer_enable_1,
            so.so_buffer_enable_2,
            so.so_buffer_enable_3,
        ];
        for (k, on) in enables.iter().enumerate() {
            if !on {
                continue;
            }
            let dw = packets.get(SO_BUFFERS[k]).ok_or(DrawError::Invalid(
                "an enabled SO buffer without its 3DSTATE_SO_BUFFER",
            ))?;
            let b = Cmd3dstateSoBuffer::unpack(dw)
                .map_err(|_| DrawError::Invalid("3DSTATE_SO_BUFFER does not decode"))?;
            sol.buffers[k] = Some(Buffer {
                base: b.surface_base_address,
                end: b.surface_end_address,
                pitch: b.surface_pitch,
            });
        }
        Ok(sol)
    }

    /// Writes the objects (`streams[i]` the stream of `objects[i]`, stream
    /// 0 when `None`) to the buffers from the write offsets, moving them.
    pub fn run(
        &self,
        vues: &[Vue],
        objects: &[Object],
        streams: Option<&[u8]>,
        mem: &mut dyn GfxMemory,
        offsets: &mut [u32; 4],
    ) -> Result<SoCounts, DrawError> {
        let mut counts = SoCounts::default();
        if !self.enabled {
            return Ok(counts);
        }
        for (i, o) in objects.iter().enumerate() {
            let s = streams
                .and_then(|x| x.get(i))
                .map_or(0, |&s| usize::from(s) & 3);
            let v = self.order(o);
            let targets: Vec<(usize, Buffer)> = (0..4)
                .filter(|&b| self.select[s] >> b & 1 == 1)
                .filter_map(|b| self.buffers[b].map(|x| (b, x)))
                .collect();
            let fits = targets.iter().all(|&(b, buf)| {
                let need = u64::from(offsets[b]) + v.len() as u64 * u64::from(buf.pitch);
                buf.base.saturating_add(need) <= buf.end
            });
            if self.statistics {
                counts.needed[s] += 1;
            }
            if !fits {
                continue;
            }
            for &vertex in &v {
                let dw = vues
                    .get(vertex as usize)
                    .map_or(&[][..], |x| x.dw.as_slice());
                self.write_vertex(s, dw, mem, offsets)?;
                for &(b, buf) in &targets {
                    offsets[b] = offsets[b].wrapping_add(buf.pitch);
                }
            }
            if self.statistics {
                counts.written[s] += 1;
            }
        }
        Ok(counts)
    }

    /// The object's vertices in the order the SOL writes them.
    fn order(&self, o: &Object) -> Vec<u32> {
        let [a, b, c] = o.v;
        match o.kind {
            ObjectKind::Point => alloc::vec![a],
            ObjectKind::Line => alloc::vec![a, b],
            ObjectKind::Triangle
                if matches!(o.topology, TRISTRIP | TRISTRIP_REVERSE)
                    && (o.ordinal % 2 == 1) != (o.topology == TRISTRIP_REVERSE) =>
            {
                if self.trailing {
                    alloc::vec![b, a, c]
                } else {
                    alloc::vec![a, c, b]
                }
            }
            ObjectKind::Triangle | ObjectKind::Rectangle => alloc::vec![a, b, c],
        }
    }

    /// One vertex of stream `s` at each target buffer's write offset.
    fn write_vertex(
        &self,
        s: usize,
        dw: &[u32],
        mem: &mut dyn GfxMemory,
        offsets: &[u32; 4],
    ) -> Result<(), DrawError> {
        let mut cursor = [0u64; 4];
        let first = self.read[s].0;
        for d in &self.decls[s] {
            let b = d.slot & 3;
            if self.select[s] >> b & 1 == 0 {
                continue;
            }
            let Some(buf) = self.buffers[b] else { continue };
            if d.hole {
                cursor[b] += u64::from(d.mask.count_ones());
                continue;
            }
            for c in 0..4 {
                if d.mask >> c & 1 == 0 {
                    continue;
                }
                let value = dw.get(first + 4 * d.register + c).copied().unwrap_or(0);
                let at = buf.base + u64::from(offsets[b]) + 4 * cursor[b];
                mem.write(at, &value.to_le_bytes())?;
                cursor[b] += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eu::shared::FlatMemory;

    fn tri(v: [u32; 3], topology: u8, ordinal: u32) -> Object {
        Object {
            kind: ObjectKind::Triangle,
            v,
            topology,
            ordinal,
        }
    }

    fn sol(trailing: bool) -> Sol {
        let mut decls: [Vec<Decl>; 4] = Default::default();
        // Buffer 0: x, y of register 1, a hole of one, w of register 2.
        decls[0] = alloc::vec![
            Decl {
                slot: 0,
                hole: false,
                register: 1,
                mask: 0b0011
            },
            Decl {
                slot: 0,
                hole: true,
                register: 0,
                mask: 0b0001
            },
            Decl {
                slot: 0,
                hole: false,
                register: 2,
                mask: 0b1000
            },
        ];
        Sol {
            enabled: true,
            rendering: true,
            trailing,
            statistics: true,
            read: [(0, 4); 4],
            select: [1, 0, 0, 0],
            decls,
            buffers: [
                Some(Buffer {
                    base: 0x100,
                    end: 0x100 + 3 * 20,
                    pitch: 20,
                }),
                None,
                None,
                None,
            ],
            ..Sol::default()
        }
    }

    #[test]
    fn decls_pack_components_skip_holes_and_overflow_counts_only_storage() {
        let vues: Vec<Vue> = (0..4)
            .map(|k| Vue {
                dw: (0..16).map(|d| 1000 * k + d).collect(),
            })
            .collect();
        let mut mem = FlatMemory::new(0, 0x400);
        let mut offsets = [0u32; 4];
        let objects = [tri([0, 1, 2], 0x04, 0), tri([1, 2, 3], 0x04, 1)];
        let c = sol(false)
            .run(&vues, &objects, None, &mut mem, &mut offsets)
            .unwrap();
        // Three 20-byte vertices fit; the second triangle does not.
        assert_eq!((c.needed[0], c.written[0]), (2, 1));
        assert_eq!(offsets[0], 60);
        let mut b = [0u8; 16];
        mem.read(0x100 + 20, &mut b).unwrap();
        let got: Vec<u32> = b
            .chunks(4)
            .map(|x| u32::from_le_bytes(x.try_into().unwrap()))
            .collect();
        // Vertex 1: x, y of register 1 (dwords 4, 5), the hole, w of
        // register 2 (dword 11).
        assert_eq!(got, [1004, 1005, 0, 1011]);
    }

    #[test]
    fn odd_strip_triangles_follow_the_reorder_mode() {
        let odd = tri([4, 5, 6], TRISTRIP, 1);
        assert_eq!(sol(false).order(&odd), [4, 6, 5]);
        assert_eq!(sol(true).order(&odd), [5, 4, 6]);
        let even_of_reverse = tri([4, 5, 6], TRISTRIP_REVERSE, 0);
        assert_eq!(sol(true).order(&even_of_reverse), [5, 4, 6]);
        assert_eq!(sol(true).order(&tri([4, 5, 6], TRISTRIP, 2)), [4, 5, 6]);
    }
}
