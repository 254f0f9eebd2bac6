//! The seam to the shared functions. Executing `send`/`sendc` (`message`)
//! builds a [`SendRequest`] (where the payload is, where the response goes,
//! the descriptor, the channel enables, EOT) and hands it to the caller's
//! [`SharedFunctions`]; the EU thread does not interpret messages.

use baregpu_isa::inst::{RegFile, Sfid, Type};

use crate::eu::thread::Thread;

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
    /// Gen12.5 split sends: the extended descriptor and the second
    /// payload ([`ExtendedSend::NONE`] before Gen12.5, where the
    /// extended descriptor of a Gen7 send is folded into `function`).
    pub extended: ExtendedSend,
}

/// What a Gen12.5 (Xe-HPG) send carries besides the 32-bit descriptor: the
/// extended descriptor (an immediate or the a0 subregister the send names,
/// read when it runs) and the second payload, src1, with its length
/// (`ex_mlen`, bits 10:6 of an immediate extended descriptor or the
/// instruction's own field with an a0 one; Mesa `brw_inst.h`
/// send_ex_desc/send_src1_len).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtendedSend {
    /// The extended descriptor's value with bits 10:6 (the length) kept as
    /// read; the shared function ignores them.
    pub desc: u32,
    /// Whether the extended descriptor came from a0 (`a0.N`), which
    /// LSC reads as a surface state offset or binding-table index.
    pub from_a0: bool,
    /// First GRF of the second payload (`None`: a null src1).
    pub src1: Option<u8>,
    /// Its length in registers.
    pub src1_len: u8,
}

impl ExtendedSend {
    /// No extended descriptor and no second payload.
    pub const NONE: ExtendedSend = ExtendedSend {
        desc: 0,
        from_a0: false,
        src1: None,
        src1_len: 0,
    };
}

/// Why a shared function refused a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendError {
    /// Nothing handles this SFID.
    Unhandled,
    /// The message is malformed; the text says how.
    Bad(&'static str),
    /// The memory refused an access (Gen12.5 shared functions: an
    /// unmapped PPGTT page); the first address of the access and whether
    /// it wrote.
    Fault { addr: u64, len: usize, write: bool },
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
