//! What a root thread finds in its registers at dispatch: the R0 header the
//! thread spawner builds, then the constants (CURBE), then the object's
//! inline and indirect data, each part padded to whole registers (003
//! lines 50547-50597, Figure 1-12 (a): "R0 Header created by TS", "URB
//! Constant written by CS (optional)", "URB Payload data written by VFE";
//! inline before indirect, each "rounded up to 8-DW aligned individually",
//! 003 line 48187).

use alloc::vec::Vec;

use baregpu_isa::IsaGen;

use crate::eu::thread::layout::{GRF_REGS, REG_BYTES};

/// Which pipeline dispatched the thread: the R0 layouts differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pipeline {
    /// Media root threads (MEDIA_OBJECT, MEDIA_OBJECT_WALKER).
    Media,
    /// Gen7 GPGPU threads (GPGPU_WALKER).
    Gpgpu,
}

/// The values the thread spawner puts in R0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RootHeader {
    /// `R0.0[15:0]` URB handle of the VFE entry holding the payload.
    pub urb_handle: u16,
    /// `R0.0[31:24]` scoreboard mask (Gen6+).
    pub scoreboard_mask: u8,
    /// R0.1 scoreboard X \[8:0\] and Y \[24:16\] (Gen6+); the walker's position.
    pub scoreboard: (u16, u16),
    /// `R0.2[8:4]` interface descriptor offset (Gen6+).
    pub interface_descriptor: u8,
    /// `R0.2[27:24]` barrier ID (Gen6+).
    pub barrier_id: u8,
    /// `R0.3[31:5]` sampler state pointer.
    pub sampler_state: u32,
    /// `R0.3[3:0]` per-thread scratch space code.
    pub scratch_code: u8,
    /// `R0.4[31:5]` binding table pointer (Surface State Base relative).
    pub binding_table: u32,
    /// `R0.5[31:10]` scratch space pointer (General State Base relative).
    pub scratch_pointer: u32,
    /// `R0.5[7:0]` FFTID: names the thread's resources in its EOT message.
    pub fftid: u8,
    /// Gen4/G45 R0.6 debug ID of a root thread.
    pub debug_id: u32,
    /// GPGPU thread group ID (X, Y, Z).
    pub group_id: [u32; 3],
}

/// R0 of a root thread of `pipeline` on `p`.
///
/// * Generic media root thread, Gen6 (003 Table 1-23, lines 50598-50731):
///   R0.0 scoreboard mask 31:24, URB handle 15:0; R0.1 scoreboard Y 24:16,
///   X 8:0; R0.2 barrier ID 27:24, interface descriptor offset 8:4; R0.3
///   sampler state pointer 31:5, per-thread scratch 3:0; R0.4 binding table
///   pointer 31:5; R0.5 scratch pointer 31:10, FFTID 7:0; R0.6, R0.7 zero.
///   Gen7 media threads keep this layout (001 has no media chapter; the
///   walker's R0 is the generic one, 003 Table 1-26).
/// * Gen4/G45 (000 has no media chapter): the fields the same table marks
///   for all devices (R0.0 URB handle, R0.3-R0.5); the scoreboard fields
///   are [DevILK+] and R0.2 \[DevSNB\], so they stay zero. R0.6 carries the
///   root thread's debug ID {FF unit ID 31:28, object ID 27:16, root thread
///   ID 15:0} and R0.7 is 0 for root threads (000 lines 1955-1971).
/// * Gen7 GPGPU: thread group ID X in R0.1, Y in R0.6, Z in R0.7 [ext: Mesa
///   brw_fs.cpp emit_cs_work_group_id_setup], barrier ID in `R0.2[27:24]`
///   [ext: Mesa emit_barrier copies r0.2 & 0x0f000000 into the barrier
///   message]; R0.3-R0.5 as for media threads (the EOT message returns R0
///   to the spawner as on every generation); no URB handle (GPGPU mode
///   allocates no URB entries [ext: Mesa gen7 MEDIA_VFE_STATE in GPGPU mode]).
pub fn r0(p: IsaGen, pipeline: Pipeline, h: &RootHeader) -> [u32; 8] {
    let common_3 = (h.sampler_state & !0x1F) | u32::from(h.scratch_code & 0xF);
    let common_4 = h.binding_table & !0x1F;
    let common_5 = (h.scratch_pointer & !0x3FF) | u32::from(h.fftid);
    let barrier = u32::from(h.barrier_id & 0xF) << 24;
    match (p, pipeline) {
        (IsaGen::Gen4 | IsaGen::G45, _) => [
            u32::from(h.urb_handle),
            0,
            0,
            common_3,
            common_4,
            common_5,
            h.debug_id,
            0,
        ],
        (_, Pipeline::Gpgpu) => [
            0,
            h.group_id[0],
            barrier | u32::from(h.interface_descriptor & 0x1F) << 4,
            common_3,
            common_4,
            common_5,
            h.group_id[1],
            h.group_id[2],
        ],
        (_, Pipeline::Media) => [
            u32::from(h.scoreboard_mask) << 24 | u32::from(h.urb_handle),
            (u32::from(h.scoreboard.1) & 0x1FF) << 16 | (u32::from(h.scoreboard.0) & 0x1FF),
            barrier | u32::from(h.interface_descriptor & 0x1F) << 4,
            common_3,
            common_4,
            common_5,
            0,
            0,
        ],
    }
}

/// Why a payload cannot be dispatched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PayloadTooLarge {
    /// Registers the payload needs.
    pub registers: usize,
}

/// Builds the GRF image from r0: `r0`, then `curbe` (whole registers, the
/// caller's slice already cut to the rows this thread reads), then `inline`
/// dwords and `indirect` bytes, each zero-padded to a whole register.
/// Everything must fit r0-r127.
pub fn build(
    r0: &[u32; 8],
    curbe: &[u8],
    inline: &[u32],
    indirect: &[u8],
) -> Result<Vec<u8>, PayloadTooLarge> {
    let rows = |bytes: usize| bytes.div_ceil(REG_BYTES);
    let registers = 1 + rows(curbe.len()) + rows(inline.len() * 4) + rows(indirect.len());
    if registers > GRF_REGS {
        return Err(PayloadTooLarge { registers });
    }
    let mut out = Vec::with_capacity(registers * REG_BYTES);
    for d in r0 {
        out.extend_from_slice(&d.to_le_bytes());
    }
    let pad = |out: &mut Vec<u8>| out.resize(out.len().next_multiple_of(REG_BYTES), 0);
    out.extend_from_slice(curbe);
    pad(&mut out);
    for d in inline {
        out.extend_from_slice(&d.to_le_bytes());
    }
    pad(&mut out);
    out.extend_from_slice(indirect);
    pad(&mut out);
    Ok(out)
}

/// The `rows` CURBE registers starting at register `first` of `store`,
/// zero-filled past its end (a thread may ask for more constants than were
/// loaded; the URB holds whatever it holds, the model gives zeros).
/// More rows than the GRF holds are cut to its size: such a payload
/// cannot be dispatched anyway ([`build`] refuses it).
pub fn curbe_rows(store: &[u8], first: usize, rows: usize) -> Vec<u8> {
    let mut out = alloc::vec![0u8; rows.min(GRF_REGS) * REG_BYTES];
    let start = first.saturating_mul(REG_BYTES);
    if let Some(src) = store.get(start..) {
        let n = src.len().min(out.len());
        out[..n].copy_from_slice(&src[..n]);
    }
    out
}
