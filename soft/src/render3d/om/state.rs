//! The colour calculator's state as one draw reads it: the pointers of
//! 3DSTATE_CC_STATE_POINTERS (003 lines 26645-26758, Dynamic State Base
//! relative) to BLEND_STATE, DEPTH_STENCIL_STATE and COLOR_CALC_STATE
//! (003 lines 45353-46460), CC_VIEWPORT (003 lines 46444-46474), and the
//! compare functions and stencil operations they name.

use baregpu_hal::Packet;
use baregpu_hal::gen6::structs::{BlendState, CcViewport, ColorCalcState, DepthStencilState};

use crate::eu::shared::{GfxMemory, MemFault};
use crate::render3d::types::DrawError;

/// Reads `N` dwords of state at `at`.
pub(super) fn dwords<const N: usize>(
    memory: &mut dyn GfxMemory,
    at: u64,
) -> Result<[u32; N], MemFault> {
    let mut b = [0u8; 64];
    memory.read_state(at, &mut b[..4 * N])?;
    let mut dw = [0u32; N];
    for (i, d) in dw.iter_mut().enumerate() {
        *d = u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
    }
    Ok(dw)
}

/// A state structure that did not decode: the hal only refuses truncated
/// input, which these fixed reads never are.
fn undecodable<E>(_: E) -> DrawError {
    DrawError::Invalid("colour-calculator state does not decode")
}

/// BLEND_STATE entry `index` (2 dwords each, 003 lines 45841-46460).
pub(super) fn blend(
    memory: &mut dyn GfxMemory,
    base: u64,
    index: u8,
) -> Result<BlendState, DrawError> {
    let dw = dwords::<2>(memory, base.wrapping_add(8 * u64::from(index)))?;
    BlendState::unpack(&dw).map_err(undecodable)
}

pub(super) fn depth_stencil(
    memory: &mut dyn GfxMemory,
    at: u64,
) -> Result<DepthStencilState, DrawError> {
    let dw = dwords::<3>(memory, at)?;
    DepthStencilState::unpack(&dw).map_err(undecodable)
}

pub(super) fn color_calc(memory: &mut dyn GfxMemory, at: u64) -> Result<ColorCalcState, DrawError> {
    let dw = dwords::<6>(memory, at)?;
    ColorCalcState::unpack(&dw).map_err(undecodable)
}

/// CC_VIEWPORT `index` (2 dwords each, 003 lines 46444-46474).
pub(super) fn cc_viewport(
    memory: &mut dyn GfxMemory,
    base: u64,
    index: u8,
) -> Result<CcViewport, DrawError> {
    let dw = dwords::<2>(memory, base.wrapping_add(8 * u64::from(index)))?;
    CcViewport::unpack(&dw).map_err(undecodable)
}

/// COMPAREFUNCTION (003 lines 45509-45523): does `a FUNC b` hold? NaN
/// compares unordered: only ALWAYS and NOTEQUAL pass.
pub(super) fn compare<T: PartialOrd>(func: u32, a: T, b: T) -> bool {
    match func & 7 {
        0 => true,
        1 => false,
        2 => a < b,
        3 => a == b,
        4 => a <= b,
        5 => a > b,
        6 => a != b,
        _ => a >= b,
    }
}

/// STENCILOP (003 lines 45541-45557, Table 26 at 45289-45300) on the
/// 8-bit stencil value `s` with reference `reference`.
pub(super) fn stencil_op(op: u32, s: u8, reference: u8) -> u8 {
    match op & 7 {
        0 => s,
        1 => 0,
        2 => reference,
        3 => s.saturating_add(1),
        4 => s.saturating_sub(1),
        5 => s.wrapping_add(1),
        6 => s.wrapping_sub(1),
        _ => !s,
    }
}

/// The stencil state of one face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Face {
    pub func: u32,
    pub fail: u32,
    pub depth_fail: u32,
    pub pass: u32,
    pub test_mask: u8,
    pub write_mask: u8,
    pub reference: u8,
}

/// The face state a pixel uses: the backface set only with double-sided
/// stencil on a back-facing object (003 lines 44856-44860).
pub(super) fn face(ds: &DepthStencilState, cc: &ColorCalcState, back: bool) -> Face {
    if back && ds.double_sided_stencil_enable {
        Face {
            func: ds.backface_stencil_test_function,
            fail: ds.backface_stencil_fail_op,
            depth_fail: ds.backface_stencil_pass_depth_fail_op,
            pass: ds.backface_stencil_pass_depth_pass_op,
            test_mask: ds.backface_stencil_test_mask as u8,
            write_mask: ds.backface_stencil_write_mask as u8,
            reference: cc.backface_stencil_reference_value as u8,
        }
    } else {
        Face {
            func: ds.stencil_test_function,
            fail: ds.stencil_fail_op,
            depth_fail: ds.stencil_pass_depth_fail_op,
            pass: ds.stencil_pass_depth_pass_op,
            test_mask: ds.stencil_test_mask as u8,
            write_mask: ds.stencil_write_mask as u8,
            reference: cc.stencil_reference_value as u8,
        }
    }
}
