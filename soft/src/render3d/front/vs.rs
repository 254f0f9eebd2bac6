//! The VS unit: URB entries per 3DSTATE_URB (Gen6) or 3DSTATE_URB_VS
//! (Gen7: decoded beside it in `gen7`, `draw` picks), SIMD4x2 thread
//! payloads (003 Table 12, lines 33297-33410; the same order on Gen7, see
//! [`payload_after_r0`]), and the pass-through when the VS is disabled
//! (the VF's entry is the VUE, 003 lines 27405-27430).
//!
//! URB handles: a handle is the first 256-bit row of its entry in the
//! draw's URB (the convention of `eu::shared::urb`); kernels copy R0.0 and
//! R0.1 into their URB write header and never look inside, so only the
//! model needs to agree with itself.

use alloc::vec::Vec;

use baregpu_hal::Packet;
use baregpu_hal::gen6::commands::{Cmd3dstateUrb, Cmd3dstateVs};

use crate::render3d::types::{DrawError, Packets};

/// A VS URB entry's rows: Allocation Size + 1 units of 1024 bits (003
/// lines 27290-27300), four 256-bit rows each.
pub(crate) struct UrbLayout {
    pub entries: usize,
    pub rows: usize,
}

impl UrbLayout {
    /// Sandy Bridge's 3DSTATE_URB (Ivy Bridge's 3DSTATE_URB_VS:
    /// decoded in the `gen7` module).
    pub fn of(packets: &Packets) -> Result<UrbLayout, DrawError> {
        let dw = packets
            .get("3DSTATE_URB")
            .ok_or(DrawError::Invalid("no 3DSTATE_URB before the draw"))?;
        let u = Cmd3dstateUrb::unpack(dw)
            .map_err(|_| DrawError::Invalid("3DSTATE_URB does not decode"))?;
        // 0-4 (five 1024-bit units at most); at least 24 entries in
        // multiples of 4, even with the VS disabled (003 lines 27300-27315).
        if u.vs_urb_entry_allocation_size > 4 {
            return Err(DrawError::Invalid("VS URB entry allocation size above 4"));
        }
        if u.vs_number_of_urb_entries < 24 || u.vs_number_of_urb_entries % 4 != 0 {
            return Err(DrawError::Invalid(
                "VS URB entries must be at least 24 and a multiple of 4",
            ));
        }
        Ok(UrbLayout {
            entries: (u.vs_number_of_urb_entries as usize).min(256),
            rows: (u.vs_urb_entry_allocation_size as usize + 1) * 4,
        })
    }

    pub fn dwords(&self) -> usize {
        self.rows * 8
    }

    /// The handle (first row) of entry `e`.
    pub fn handle(&self, e: usize) -> u16 {
        (e * self.rows) as u16
    }
}

/// 3DSTATE_VS as the dispatcher uses it, whatever the generation's layout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct VsState {
    /// Kernel Start Pointer (Instruction Base relative).
    pub kernel: u32,
    pub single_vertex: bool,
    /// Gen7: cr0.0 bit 3 (the raster stage's note on 001 lines 3240-3262).
    pub vector_mask: bool,
    pub alt_float: bool,
    pub illegal_opcode_exception: bool,
    pub software_exception: bool,
    /// Scratch Space Base Offset (General State relative) and the
    /// per-thread size code.
    pub scratch_base: u32,
    pub scratch_code: u32,
    pub grf_start: u32,
    pub read_length: u32,
    pub read_offset: u32,
    /// Maximum Number of Threads (the count minus one).
    pub max_threads: u32,
    pub statistics: bool,
}

impl From<&Cmd3dstateVs> for VsState {
    fn from(vs: &Cmd3dstateVs) -> VsState {
        VsState {
            kernel: vs.kernel_start_pointer,
            single_vertex: vs.single_vertex_dispatch == 1,
            // Gen6 starts cr0.0 without it (the Gen6 dispatch as before).
            vector_mask: false,
            alt_float: vs.floating_point_mode != 0,
            illegal_opcode_exception: vs.illegal_opcode_exception_enable,
            software_exception: vs.software_exception_enable,
            scratch_base: vs.scratch_space_base_offset,
            scratch_code: vs.per_thread_scratch_space,
            grf_start: vs.dispatch_grf_start_register_for_urb_data,
            read_length: vs.vertex_urb_entry_read_length,
            read_offset: vs.vertex_urb_entry_read_offset,
            max_threads: vs.maximum_number_of_threads,
            statistics: vs.statistics_enable,
        }
    }
}

/// Sandy Bridge's 3DSTATE_VS (Ivy Bridge's is decoded in `gen7`); `None`
/// when the VS is disabled.
pub(crate) fn state(packets: &Packets) -> Result<Option<VsState>, DrawError> {
    let Some(dw) = packets.get("3DSTATE_VS") else {
        // Never loaded: the power-on state, a disabled VS.
        return Ok(None);
    };
    let vs =
        Cmd3dstateVs::unpack(dw).map_err(|_| DrawError::Invalid("3DSTATE_VS does not decode"))?;
    Ok(vs.vs_function_enable.then(|| VsState::from(&vs)))
}

/// The rules both generations' VS state must meet.
pub(crate) fn checked(vs: Option<VsState>) -> Result<Option<VsState>, DrawError> {
    let Some(vs) = vs else { return Ok(None) };
    if vs.read_length == 0 {
        return Err(DrawError::Invalid(
            "VS Vertex URB Entry Read Length 0 is UNDEFINED",
        ));
    }
    Ok(Some(vs))
}

/// What one VS thread gets besides R0.
pub(crate) struct VsPayload<'a> {
    pub vs: &'a VsState,
    /// The push constants 3DSTATE_CONSTANT_VS loaded (dwords).
    pub constants: &'a [u32],
    /// The one or two vertices' input VUEs (as the VF wrote them).
    pub vertices: [Option<&'a [u32]>; 2],
}

/// The GRF image from R1 on. The payload's URB-sourced data is written
/// from the Dispatch GRF Start Register on: first the push constants
/// (non-interleaved), then the vertex data (003 lines 28514-28523: "an
/// optional Constant URB Entry (CURBE), following [...] by a number of
/// Vertex URB Entries", written "into sequential GRF registers (starting
/// at Dispatch GRF Start Register for URB Data)"; Mesa programs the VS
/// with its first constant register, `dispatch_grf_start_reg = reg` in
/// brw_vec4.cpp `setup_uniforms`, and places the attributes after the
/// constants). Registers between R1 and the start are left zero. The
/// vertex data holds two vertices interleaved: each register holds one
/// 128-bit element of vertex 0 in dwords 0-3 and of vertex 1 in dwords
/// 4-7; Read Offset counts 256-bit units (two elements), Read Length
/// pairs of elements (003 Table 12 and lines 32990-33040). Gen7 keeps the
/// layout (Mesa elk_vec4_vs_visitor.cpp `setup_payload`, the read length
/// DIV_ROUND_UP(attribute slots, 2) as on Gen6).
pub(crate) fn payload_after_r0(p: &VsPayload<'_>) -> Result<Vec<u32>, DrawError> {
    let const_regs = p.constants.len().div_ceil(8);
    let constants_at = p.vs.grf_start as usize;
    if constants_at < 1 {
        return Err(DrawError::Invalid(
            "VS Dispatch GRF Start Register 0 would overwrite R0",
        ));
    }
    let start = constants_at + const_regs;
    let regs = 2 * p.vs.read_length as usize;
    let total = start + regs;
    if total > 128 {
        return Err(DrawError::Invalid("VS payload does not fit the GRF"));
    }
    let mut out = alloc::vec![0u32; (total - 1) * 8];
    let c0 = (constants_at - 1) * 8;
    out[c0..c0 + p.constants.len()].copy_from_slice(p.constants);
    let first = 2 * p.vs.read_offset as usize;
    for j in 0..regs {
        let base = (start + j - 1) * 8;
        for (half, v) in p.vertices.iter().enumerate() {
            let Some(v) = v else { continue };
            for d in 0..4 {
                out[base + 4 * half + d] = v.get(4 * (first + j) + d).copied().unwrap_or(0);
            }
        }
    }
    Ok(out)
}

/// Bytes of VS scratch per thread: 2^(10 + n) (003 lines 32890-32900).
pub(crate) fn scratch_bytes(code: u32) -> Result<u32, DrawError> {
    if code > 11 {
        return Err(DrawError::Invalid("per-thread scratch space above 2 MB"));
    }
    Ok(1024 << code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_then_vertex_data_from_the_dispatch_start() {
        let vs = VsState {
            grf_start: 1,
            read_length: 1,
            read_offset: 1,
            ..VsState::default()
        };
        let v0: Vec<u32> = (0..16).collect();
        let v1: Vec<u32> = (100..116).collect();
        let constants: Vec<u32> = (200..216).collect();
        let p = VsPayload {
            vs: &vs,
            constants: &constants,
            vertices: [Some(&v0), Some(&v1)],
        };
        let out = payload_after_r0(&p).unwrap();
        // R1, R2: constants; R3: element 2 of each vertex; R4: element 3.
        assert_eq!(out.len(), 4 * 8);
        assert_eq!(&out[..16], &constants[..]);
        assert_eq!(&out[16..24], &[8, 9, 10, 11, 108, 109, 110, 111]);
        assert_eq!(&out[24..32], &[12, 13, 14, 15, 112, 113, 114, 115]);
        // One vertex: the upper half stays 0.
        let one = VsPayload {
            vertices: [Some(&v0), None],
            ..p
        };
        assert_eq!(
            &payload_after_r0(&one).unwrap()[16..24],
            &[8, 9, 10, 11, 0, 0, 0, 0]
        );
        // A later start moves both; R1-R2 stay zero.
        let late = VsState { grf_start: 3, ..vs };
        let out = payload_after_r0(&VsPayload { vs: &late, ..p }).unwrap();
        assert_eq!(out.len(), 6 * 8);
        assert!(out[..16].iter().all(|&d| d == 0));
        assert_eq!(&out[16..32], &constants[..]);
        assert_eq!(&out[32..40], &[8, 9, 10, 11, 108, 109, 110, 111]);
        // Without constants the vertex data starts at the start itself.
        let bare = VsPayload {
            constants: &[],
            ..p
        };
        assert_eq!(
            &payload_after_r0(&bare).unwrap()[..8],
            &[8, 9, 10, 11, 108, 109, 110, 111]
        );
        // Start 0 would overwrite R0.
        let zero = VsState { grf_start: 0, ..vs };
        assert!(payload_after_r0(&VsPayload { vs: &zero, ..one }).is_err());
    }

    #[test]
    fn urb_layout_follows_3dstate_urb() {
        let mut p = Packets::default();
        p.set("3DSTATE_URB", &[0x7805_0001, 2 << 16 | 32, 0]);
        let u = UrbLayout::of(&p).unwrap();
        assert_eq!(
            (u.entries, u.rows, u.dwords(), u.handle(3)),
            (32, 12, 96, 36)
        );
        p.set("3DSTATE_URB", &[0x7805_0001, 20, 0]);
        assert!(UrbLayout::of(&p).is_err(), "fewer than 24 entries");
    }
}
