//! Media block read/write on linear and tiled 2D surfaces.
//!
//! 000 lines 4683-4799 (Gen4/G45), 003 lines 84003-84436 (Gen6; Gen7
//! sends it to the render cache with the same layout [ext: mesa
//! brw_eu_defines.h GEN7_DATAPORT_RC_MEDIA_BLOCK_READ/WRITE]).
//!
//! Header (000 lines 4748-4775): M0.0 X offset in bytes (signed), M0.1 Y
//! offset in rows (signed), `M0.2[21:16]` block height - 1, `M0.2[4:0]` block
//! width - 1 in bytes. The data starts at M1 (write) or W0 (read), "aligned
//! to the least significant bits of the first register", each row a
//! register pitch apart: the next power of two at or above the width (000
//! lines 4779-4799). The execution mask is ignored (000 line 4708).
//!
//! Out of bounds (000 lines 4710-4726; 003 lines 84047-84084): reads clamp
//! to the nearest edge and replicate the edge pixel (bytes for 8 bpp,
//! words for 16 bpp, dwords for 32 bpp; YUV 4:2:2 by the manual's own
//! rules); writes outside are dropped. Rows follow the Media Boundary Pixel
//! Mode table (000 lines 4387-4403), with the Vertical Line Stride fields
//! of SURFACE_STATE or the descriptor's override (000 lines 4728-4746).

use alloc::vec;

use baregpu_isa::message::Vls;

use super::super::MessageEnv;
use super::super::payload::{Msg, Reg, bad};
use super::super::surface::{Surface, SurfaceKind, format};
use super::require_header;
use crate::eu::send::SendError;

/// The block a header describes.
struct Block {
    x: i64,
    y: i64,
    width: usize,
    height: usize,
    /// Bytes from one row to the next in the registers.
    pitch: usize,
    regs: usize,
}

fn block(m: &Msg) -> Result<Block, SendError> {
    let x = i64::from(m.dword(0, 0)? as i32);
    let y = i64::from(m.dword(0, 1)? as i32);
    let m2 = m.dword(0, 2)?;
    let height = ((m2 >> 16) & 0x3F) as usize + 1;
    let width = (m2 & 0x1F) as usize + 1;
    let pitch = width.next_power_of_two();
    let regs = (pitch * height).div_ceil(32);
    // The height limits per width (1-4: 64, 5-8: 32, 9-16: 16, 17-32: 8
    // rows; 000 line 4766) keep the block within 8 registers.
    if regs > 8 {
        return Err(bad("media block taller than its width allows"));
    }
    Ok(Block {
        x,
        y,
        width,
        height,
        pitch,
        regs,
    })
}

/// Row addressing of a surface under the Media Boundary Pixel Mode and
/// Vertical Line Stride.
struct Rows {
    /// Rows of the whole frame in memory.
    frame: i64,
    /// Field access: every other row, starting at `offset`.
    field: bool,
    offset: i64,
    mode: u8,
}

impl Rows {
    fn new(s: &Surface, vls: Vls) -> Rows {
        // With Vertical Line Stride set in the state, Height is the field's
        // (000 line 3237); the override derives the other height from it
        // (000 lines 4733-4746).
        let h = i64::from(s.height);
        let frame = if s.vertical_line_stride { h * 2 } else { h };
        let (field, offset) = if vls.enable {
            (vls.stride, i64::from(vls.offset))
        } else {
            (
                s.vertical_line_stride,
                i64::from(s.vertical_line_stride_offset),
            )
        };
        Rows {
            frame,
            field,
            offset: if field { offset } else { 0 },
            mode: s.media_boundary,
        }
    }

    /// Rows a logical y can address in bounds.
    fn count(&self) -> i64 {
        if self.field {
            (self.frame - self.offset + 1).div_euclid(2)
        } else {
            self.frame
        }
    }

    /// Physical row of an in-bounds logical row.
    fn physical(&self, y: i64) -> i64 {
        if self.field { 2 * y + self.offset } else { y }
    }

    /// Physical row a read of logical row `y` returns (the boundary table
    /// of 000 lines 4391-4401, generalised from its 4-row example).
    fn clamp(&self, y: i64) -> i64 {
        let n = self.count();
        if (0..n).contains(&y) {
            return self.physical(y);
        }
        let below = y < 0;
        match (self.mode, self.field) {
            // Interlaced frame: alternate the first (last) two rows.
            (3, false) if self.frame >= 2 => {
                let odd = y.rem_euclid(2);
                if below { odd } else { self.frame - 2 + odd }
            }
            // Progressive field: leave the field for the frame's edge.
            (2, true) => {
                if below {
                    0
                } else {
                    self.frame - 1
                }
            }
            _ => self.physical(if below { 0 } else { (n - 1).max(0) }),
        }
    }
}

/// The byte of the row a read of column `x` returns: `x` itself inside,
/// else a byte of the edge pixel (000 lines 4714-4722).
fn clamp_x(x: i64, row: i64, bpp: i64, fmt: u32) -> i64 {
    if (0..row).contains(&x) {
        return x;
    }
    let left = x < 0;
    let yuv = matches!(
        fmt,
        format::YCRCB_NORMAL | format::YCRCB_SWAPUV | format::YCRCB_SWAPY | format::YCRCB_SWAPUVY
    );
    if yuv {
        // Pixel pairs are dwords: Y0 U0 Y1 V0 (YUYV, and YVYU the same)
        // or U0 Y0 V0 Y1 (UYVY, and VYUY the same).
        let k = x.rem_euclid(4);
        let yuyv = matches!(fmt, format::YCRCB_NORMAL | format::YCRCB_SWAPUV);
        let pick = match (yuyv, left) {
            (true, true) => [0, 1, 0, 3],
            (true, false) => [2, 1, 2, 3],
            (false, true) => [0, 1, 2, 1],
            (false, false) => [0, 3, 2, 3],
        };
        let edge = if left { 0 } else { row - 4 };
        return edge + pick[k as usize];
    }
    let edge = if left { 0 } else { row - bpp };
    edge + x.rem_euclid(bpp)
}

/// The 2D surface a media block addresses, or `None` for a null surface.
fn surface(env: &mut MessageEnv, bti: u8) -> Result<Option<(Surface, i64)>, SendError> {
    // 2D surfaces only, so never stateless (000 line 4689).
    if bti >= super::super::BTI_SLM {
        return Err(bad("media block needs a binding-table surface"));
    }
    let s = env.surface(bti)?;
    match s.kind {
        SurfaceKind::Null => Ok(None),
        SurfaceKind::D2 => {
            let bpp = s
                .bytes_per_pixel()
                .ok_or(bad("media block: surface format not modelled"))?;
            Ok(Some((s, i64::from(bpp))))
        }
        _ => Err(bad("media block on a surface that is not SURFTYPE_2D")),
    }
}

pub(super) fn read(env: &mut MessageEnv, m: &mut Msg, bti: u8, vls: Vls) -> Result<(), SendError> {
    require_header(m)?;
    let b = block(m)?;
    m.need(1, b.regs)?;
    let mut data = vec![0u8; b.regs * 32];
    if let Some((s, bpp)) = surface(env, bti)? {
        let rows = Rows::new(&s, vls);
        let row_bytes = i64::from(s.width) * bpp;
        for r in 0..b.height {
            let py = rows.clamp(b.y + r as i64);
            for c in 0..b.width {
                let px = clamp_x(b.x + c as i64, row_bytes, bpp, s.format);
                if px < 0 || py < 0 {
                    continue; // an empty surface: nothing to replicate
                }
                let mut one = [0u8];
                env.mem_read(s.address(px as u64, py as u64), &mut one)?;
                data[r * b.pitch + c] = one[0];
            }
        }
    }
    let total = b.pitch * b.height;
    for r in 0..b.regs {
        let mut reg: Reg = [0; 32];
        reg.copy_from_slice(&data[r * 32..r * 32 + 32]);
        let bytes = (total - r * 32).min(32);
        let dwords = (1u16 << bytes.div_ceil(4)) - 1;
        m.respond(r, &reg, dwords as u8)?;
    }
    Ok(())
}

pub(super) fn write(env: &mut MessageEnv, m: &mut Msg, bti: u8, vls: Vls) -> Result<(), SendError> {
    require_header(m)?;
    let b = block(m)?;
    m.need(1 + b.regs, 0)?;
    let Some((s, bpp)) = surface(env, bti)? else {
        return Ok(());
    };
    let rows = Rows::new(&s, vls);
    let row_bytes = i64::from(s.width) * bpp;
    for r in 0..b.height {
        let y = b.y + r as i64;
        if !(0..rows.count()).contains(&y) {
            continue;
        }
        let py = rows.physical(y) as u64;
        for c in 0..b.width {
            let x = b.x + c as i64;
            if !(0..row_bytes).contains(&x) {
                continue;
            }
            let at = r * b.pitch + c;
            let reg = m.reg(1 + at / 32)?;
            env.mem_write(s.address(x as u64, py), &[reg[at % 32]])?;
        }
    }
    Ok(())
}
