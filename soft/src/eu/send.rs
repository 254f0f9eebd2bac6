//! The seam to the shared functions. Executing `send`/`sendc` builds a
//! [`SendRequest`] (where the payload is, where the response goes, the
//! descriptor, the channel enables, EOT) and hands it to the caller's
//! [`SharedFunctions`]; the EU thread does not interpret messages.

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{Addr, Body, RegFile, SendDesc, Sfid, Src, Type};
use baregpu_isa::tables::{self, SendLayout};

use crate::eu::error::ErrorKind;
use crate::eu::operand::{MAX_CH, read};
use crate::eu::predecode::{Next, Op};
use crate::eu::thread::Thread;
use crate::eu::thread::layout::{MRF_BASE, REG_BYTES, mrf_regs};

/// Where a message's payload starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Payload {
    /// MRF on Gen4-Gen6, GRF on Gen7 (001 lines 2168-2192).
    pub file: RegFile,
    /// First register; `mlen` consecutive registers follow.
    pub reg: u8,
}

/// A message from an EU thread to a shared function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SendRequest {
    /// IP of the send.
    pub ip: u32,
    /// Target function. Gen4/G45 keep it in the descriptor (bits 27:24,
    /// 000 lines 13388-13396); Gen6+ in the instruction (003 lines
    /// 100916-100968). `None` for a reserved code.
    pub sfid: Option<Sfid>,
    /// The 32-bit descriptor as the hardware reads it (immediate, or a0.0
    /// for a register descriptor).
    pub desc: u32,
    /// Message length in registers.
    pub mlen: u8,
    /// Response length in registers.
    pub rlen: u8,
    /// Header present (Gen6+; false on Gen4).
    pub header: bool,
    /// Function control: the shared function's own bits.
    pub function: u32,
    pub payload: Payload,
    /// First GRF register of the response (`None` for a null destination).
    pub dst: Option<u8>,
    /// Destination type: on Gen4 it also shapes the channel enables (000
    /// lines 13356-13378).
    pub dst_type: Type,
    /// Execution size and the first channel of the group.
    pub exec_size: u8,
    pub first_channel: u8,
    /// Channel enables (execution mask with predication), bit `c` for
    /// channel `c` of the instruction.
    pub channels: u32,
    /// End of thread: the thread ends once the message is taken.
    pub eot: bool,
    /// `sendc`: wait for thread dependencies first.
    pub conditional: bool,
}

/// Why a shared function refused a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendError {
    /// Nothing handles this SFID.
    Unhandled,
    /// The message is malformed; the text says how.
    Bad(&'static str),
}

/// The shared functions a thread's messages reach. The implementation may
/// read the payload from and write the response into `thread`.
pub trait SharedFunctions {
    fn send(&mut self, thread: &mut Thread, req: &SendRequest) -> Result<(), SendError>;
}

/// A caller with no shared functions: every send is an error, except that
/// nothing stops an EOT from ending the thread when `allow_eot` is set.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoSharedFunctions {
    pub allow_eot: bool,
}

impl SharedFunctions for NoSharedFunctions {
    fn send(&mut self, _thread: &mut Thread, req: &SendRequest) -> Result<(), SendError> {
        if self.allow_eot && req.eot {
            Ok(())
        } else {
            Err(SendError::Unhandled)
        }
    }
}

/// Splits a 32-bit descriptor by the generation's layout.
fn fields(p: IsaGen, desc: u32) -> (Option<Sfid>, u8, u8, bool, u32) {
    let t = tables::for_platform(p);
    let get = |b: tables::Bits| (desc >> (b.lo - 96)) & ((1u32 << b.width()) - 1);
    match t.fields.send {
        SendLayout::Gen4 {
            sfid,
            mlen,
            rlen,
            function,
        } => (
            tables::lookup(&t.sfids, get(sfid)),
            get(mlen) as u8,
            get(rlen) as u8,
            false,
            get(function),
        ),
        SendLayout::Gen6 {
            mlen,
            rlen,
            header,
            function,
        } => (
            None,
            get(mlen) as u8,
            get(rlen) as u8,
            get(header) != 0,
            get(function),
        ),
    }
}

/// The send/sendc handler.
pub(crate) fn exec(t: &mut Thread, op: &Op) -> Result<Next, ErrorKind> {
    let Body::Send(s) = &op.inst.body else {
        return Err(ErrorKind::Unimplemented(op.inst.opcode));
    };
    let p = t.platform;
    let ctl = &op.ctl;
    let n = usize::from(ctl.exec);
    let channels = t.enables(ctl, op.ip) & t.pmask(ctl);
    // The descriptor: immediate, or a0.0:ud (000 lines 13330-13341).
    let (desc, imm_fields) = match &s.desc {
        SendDesc::Imm { desc, .. } => {
            let t6 = tables::for_platform(p);
            let raw = match t6.fields.send {
                SendLayout::Gen4 {
                    sfid,
                    mlen,
                    rlen,
                    function,
                } => {
                    let code = s
                        .sfid
                        .and_then(|f| tables::code_of(&t6.sfids, f))
                        .unwrap_or(0);
                    u32::from(code) << (sfid.lo - 96)
                        | u32::from(desc.mlen) << (mlen.lo - 96)
                        | u32::from(desc.rlen) << (rlen.lo - 96)
                        | desc.function << (function.lo - 96)
                }
                SendLayout::Gen6 {
                    mlen,
                    rlen,
                    header,
                    function,
                } => {
                    u32::from(desc.mlen) << (mlen.lo - 96)
                        | u32::from(desc.rlen) << (rlen.lo - 96)
                        | u32::from(desc.header) << (header.lo - 96)
                        | desc.function << (function.lo - 96)
                }
            };
            (
                raw,
                Some((desc.mlen, desc.rlen, desc.header, desc.function)),
            )
        }
        SendDesc::Reg(_) => {
            let v = read::raw(t, &op.src[1], 1, 1)?;
            (v[0] as u32, None)
        }
    };
    let (dsfid, mlen, rlen, header, function) = fields(p, desc);
    let (mlen, rlen, header, function) = imm_fields.unwrap_or((mlen, rlen, header, function));
    let sfid = if p <= IsaGen::G45 {
        dsfid.or(s.sfid)
    } else {
        s.sfid
    };
    let payload = match (p, s.base_mrf, &s.src0) {
        // Gen4/G45: the payload starts at the base MRF, and a GRF src0 is
        // first copied there (the implied move, 000 lines 13346-13349).
        (_, Some(base), src0) => {
            if let Src::Reg(r) = src0
                && r.file == RegFile::Grf
            {
                implied_move(t, op, base, n)?;
            }
            Payload {
                file: RegFile::Mrf,
                reg: base,
            }
        }
        (_, None, Src::Reg(r)) => {
            let reg = match r.addr {
                Addr::Direct { nr, .. } => nr,
                Addr::Indirect { .. } => {
                    return Err(ErrorKind::BadOperand("indirect send payload"));
                }
            };
            Payload { file: r.file, reg }
        }
        _ => return Err(ErrorKind::BadOperand("send payload")),
    };
    let dst = match (s.dst.file, s.dst.addr) {
        (RegFile::Grf, Addr::Direct { nr, .. }) => Some(nr),
        _ => None,
    };
    Ok(Next::Send(alloc::boxed::Box::new(SendRequest {
        ip: op.ip,
        sfid,
        desc,
        mlen,
        rlen,
        header,
        function,
        payload,
        dst,
        dst_type: s.dst.ty,
        exec_size: ctl.exec,
        first_channel: op.inst.first_channel(),
        channels,
        eot: s.eot,
        conditional: op.inst.opcode == baregpu_isa::inst::Opcode::Sendc,
    })))
}

/// Gen4/G45 implied move: src0's elements into MRF `base`, laid out by the
/// destination's type and stride, for every channel regardless of the
/// execution mask (000 lines 13342-13349).
fn implied_move(t: &mut Thread, op: &Op, base: u8, n: usize) -> Result<(), ErrorKind> {
    if usize::from(base) >= mrf_regs(t.platform) {
        return Err(ErrorKind::BadOperand("send base MRF out of range"));
    }
    let Body::Send(s) = &op.inst.body else {
        return Ok(());
    };
    let raw = read::raw(t, &op.src[0], n.min(MAX_CH), u32::MAX)?;
    let size = usize::from(op.src[0].ty.size());
    let sub = match s.dst.addr {
        Addr::Direct { subnr, .. } => usize::from(subnr),
        Addr::Indirect { .. } => 0,
    };
    let stride = usize::from(s.dst.hstride.max(1));
    let start = MRF_BASE + usize::from(base) * REG_BYTES;
    let end = MRF_BASE + mrf_regs(t.platform) * REG_BYTES;
    for (c, v) in raw.iter().enumerate().take(n) {
        let o = start + sub + c * stride * size;
        if o + size <= end {
            t.store(o, size, *v);
        }
    }
    Ok(())
}
