//! Flow control. Gen4/G45 use mask registers and per-channel mask-stack
//! counters ([`gen4`]); Gen6 and Gen7 keep a per-channel instruction
//! pointer ([`gen6`]). `jmpi` and `wait` are common to both.

mod gen4;
mod gen6;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{Body, Opcode, Src};
use baregpu_isa::tables;

use crate::eu::decoded::{Handler, Next, Op};
use crate::eu::error::ErrorKind;
use crate::eu::operand::{SrcKind, read};
use crate::eu::thread::Thread;

/// The handler of a flow instruction on a platform.
pub(crate) fn handler(p: IsaGen, op: Opcode) -> Handler {
    match op {
        Opcode::Jmpi => jmpi,
        Opcode::Wait => wait,
        _ if p <= IsaGen::G45 => gen4::handler(op),
        _ => gen6::handler(op),
    }
}

/// `jmpi`: if the first channel of the predicate is set, continue `index`
/// jump units after the next instruction (000 lines 11925-11976: units of
/// 16-byte instructions, low 16 bits of the index; 003 lines 98559-98645:
/// "+1 if compacted, +2 if not" in 64-bit units). The IGA syntax the
/// assembler follows writes Gen7.5 indices in bytes (see
/// `baregpu_isa::text` and its jmpi_bytes).
fn jmpi(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let ctl = &op.ctl;
    if t.pmask(ctl) & 1 == 0 {
        return Ok(Next::Fall);
    }
    let p = t.platform;
    let Body::Alu(a) = &op.inst.body else {
        return Ok(Next::Fall);
    };
    let index = match &a.src1 {
        Src::Imm(i) => i.bits as u32 as i32,
        Src::Reg(_) => {
            let plan = crate::eu::operand::plan::src(
                &crate::eu::operand::plan::Shape {
                    platform: p,
                    exec: 1,
                    align16: false,
                    three_src: false,
                    df_half: false,
                },
                &a.src1,
            )
            .map_err(ErrorKind::BadOperand)?;
            if matches!(plan.kind, SrcKind::Absent) {
                0
            } else {
                read::ints(t, &plan, 1, 1)?[0] as i32
            }
        }
        Src::Vacant(_) => 0,
    };
    let (index, unit) = match p {
        IsaGen::Gen4 | IsaGen::G45 => (i32::from(index as i16), 16),
        IsaGen::Gen75 => (index, 1),
        _ => (index, i32::from(tables::for_platform(p).jmpi_unit)),
    };
    // The origin is the next instruction; before Gen6 the IP counts
    // 128-bit slots, so it is the slot after the jmpi's (000 line 9073:
    // two compacted instructions in a slot share an IP).
    let origin = if p <= IsaGen::G45 {
        i64::from(op.ip & !15) + 16
    } else {
        i64::from(op.next_ip)
    };
    let target = origin + i64::from(index) * i64::from(unit);
    Ok(Next::Jump(target as u32))
}

/// `wait`: a zero notification count puts the thread to sleep at this
/// instruction; otherwise the count is decremented (000 lines 13562-13610;
/// 003 lines 101234-101303).
fn wait(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let Body::Alu(a) = &op.inst.body else {
        return Ok(Next::Fall);
    };
    let plan = crate::eu::operand::plan::src(
        &crate::eu::operand::plan::Shape {
            platform: t.platform,
            exec: 1,
            align16: false,
            three_src: false,
            df_half: false,
        },
        &a.src0,
    )
    .map_err(ErrorKind::BadOperand)?;
    let SrcKind::Direct { off } = plan.kind else {
        return Err(ErrorKind::BadOperand("wait needs a notification register"));
    };
    let at = usize::from(off[0]);
    let size = usize::from(plan.ty.size());
    let v = t.load(at, size);
    if v == 0 {
        return Ok(Next::Wait);
    }
    t.store(at, size, v - 1);
    Ok(Next::Fall)
}
