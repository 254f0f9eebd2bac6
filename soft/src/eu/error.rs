//! What can stop an EU thread: every error carries the IP (byte offset in
//! the kernel) of the instruction that raised it.

use core::fmt;

use baregpu_isa::inst::Opcode;
use baregpu_isa::kernel::KernelError;

/// Why an instruction could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The bytes at this IP do not decode (or the kernel ends inside an
    /// instruction).
    Decode(KernelError),
    /// Execution reached an IP that is not the start of a decoded
    /// instruction (a jump into the middle of one, or past the end).
    NotAnInstruction,
    /// An opcode the interpreter does not implement.
    Unimplemented(Opcode),
    /// An operand the hardware would not accept (reserved register,
    /// register range past the end of its file, bad region). The text
    /// names it.
    BadOperand(&'static str),
    /// A register-indirect access whose address (in bytes from the start of
    /// the register file) falls outside the file. The manuals call this
    /// unpredictable (000 lines 9394-9397); we stop the thread instead.
    IndirectOutOfRange { addr: i32 },
    /// `illegal` (opcode 0) or an instruction the platform lacks: the
    /// Illegal Opcode exception (000 lines 9340-9346).
    IllegalOpcode,
    /// A `send` reached a caller that handles no messages.
    UnhandledSend,
    /// The shared function refused the message.
    SharedFunction(&'static str),
    /// The memory refused a message's access (Gen12.5 shared functions:
    /// an unmapped page of the thread's address space).
    MemoryFault { addr: u64, len: usize, write: bool },
    /// The extended-math unit refused the operands.
    Math(&'static str),
    /// The mask stack over- or underflowed (Gen4/G45 exception, 000 lines
    /// 7946-7952).
    MaskStack,
    /// The per-call instruction budget ran out: an endless kernel is a hang.
    Budget,
    /// An instruction or type this GPU lacks (the text names it).
    Unsupported(&'static str),
    /// Xe-HPG: a register read or overwritten before the software
    /// scoreboard orders it (`xe::swsb`; the text names the instruction
    /// and the register).
    Swsb(alloc::string::String),
}

/// An error and the IP of the instruction that raised it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EuError {
    pub ip: u32,
    pub kind: ErrorKind,
}

impl EuError {
    pub(crate) const fn new(ip: u32, kind: ErrorKind) -> Self {
        EuError { ip, kind }
    }
}

impl fmt::Display for EuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EU thread at ip {:#06x}: ", self.ip)?;
        match &self.kind {
            ErrorKind::Decode(e) => write!(f, "does not decode: {e}"),
            ErrorKind::NotAnInstruction => f.write_str("not the start of an instruction"),
            ErrorKind::Unimplemented(op) => write!(f, "{} is not implemented", op.mnemonic()),
            ErrorKind::BadOperand(what) => write!(f, "bad operand: {what}"),
            ErrorKind::IndirectOutOfRange { addr } => {
                write!(f, "indirect address {addr:#x} is outside the register file")
            }
            ErrorKind::IllegalOpcode => f.write_str("illegal opcode"),
            ErrorKind::UnhandledSend => f.write_str("send with no shared-function handler"),
            ErrorKind::SharedFunction(why) => write!(f, "shared function error: {why}"),
            ErrorKind::MemoryFault { addr, len, write } => write!(
                f,
                "memory fault: {} of {len} bytes at {addr:#x}",
                if *write { "write" } else { "read" }
            ),
            ErrorKind::Math(why) => write!(f, "math error: {why}"),
            ErrorKind::MaskStack => f.write_str("mask stack overflow or underflow"),
            ErrorKind::Budget => f.write_str("instruction budget exhausted (hang)"),
            ErrorKind::Unsupported(why) => write!(f, "not supported: {why}"),
            ErrorKind::Swsb(what) => f.write_str(what),
        }
    }
}

impl core::error::Error for EuError {}
