//! Gen7 scratch block read/write and the memory fence.
//!
//! Scratch blocks [ext: mesa brw_inst.h `scratch_read_write`,
//! `scratch_type`, `scratch_block_size`, `scratch_addr_offset`;
//! brw_eu_emit.c `gen7_block_read_scratch`]: the header is required, its
//! `M0.5[31:10]` gives the thread's scratch space (General State relative,
//! "Imm_Buf + offset" in 003 lines 83321-83348), the descriptor the offset
//! in 32-byte units and the number of registers (1, 2 or 4). Reads return
//! whole registers; writes take the registers after the header. With the
//! DWord channel mode a write stores dword d of each register only if
//! channel d is enabled (the SIMD8 spill layout: one channel per dword);
//! the OWord mode stores whole registers. That per-dword reading of the
//! mode bit is this model's choice: the sources name the bit only.
//! Accesses beyond the per-thread space read 0 and are dropped.
//!
//! Memory fence: every message here completes before the send returns, so
//! the fence has nothing to wait for; with commit it answers without
//! writing the destination [ext: mesa brw_eu_emit.c `brw_memory_fence`:
//! "the MEMORY_FENCE message doesn't write anything back"].

use super::super::MessageEnv;
use super::super::access::Window;
use super::super::payload::{Msg, Reg, bad, dword_of};
use super::require_header;
use crate::eu::send::SendError;

fn space(env: &MessageEnv, m: &Msg) -> Result<Window, SendError> {
    let sc = env.scratch.ok_or(bad("no scratch space configured"))?;
    let own = u64::from(m.dword(0, 5)? & !0x3FF);
    Ok(Window::Mem {
        base: env.general_state.base.wrapping_add(own),
        size: u64::from(sc.per_thread),
    })
}

pub(super) fn read(
    env: &mut MessageEnv,
    m: &mut Msg,
    regs: u8,
    offset: u16,
    _dword: bool,
) -> Result<(), SendError> {
    require_header(m)?;
    let regs = usize::from(regs);
    m.need(1, regs)?;
    let w = space(env, m)?;
    let at = u64::from(offset) * 32;
    for r in 0..regs {
        let mut reg: Reg = [0; 32];
        env.read_window(w, at + 32 * r as u64, &mut reg)?;
        m.respond(r, &reg, 0xFF)?;
    }
    Ok(())
}

pub(super) fn write(
    env: &mut MessageEnv,
    m: &mut Msg,
    regs: u8,
    offset: u16,
    dword: bool,
) -> Result<(), SendError> {
    require_header(m)?;
    let regs = usize::from(regs);
    m.need(1 + regs, 0)?;
    let w = space(env, m)?;
    let at = u64::from(offset) * 32;
    let ce = if dword { m.enables() } else { 0xFF };
    for r in 0..regs {
        let reg = m.reg(1 + r)?;
        for d in 0..8 {
            if ce >> d & 1 != 0 {
                let o = at + 32 * r as u64 + 4 * d as u64;
                env.write_dword(w, o, dword_of(&reg, d))?;
            }
        }
    }
    Ok(())
}

/// The fence needs its header (003 line 83343).
pub(super) fn fence(m: &mut Msg) -> Result<(), SendError> {
    require_header(m)
}
