//! The EU array: execution units running EU binaries, and the shared
//! functions their messages reach.
//!
//! Modules:
//! - [`thread`]: the architectural state of one thread (GRF, MRF, ARF, the
//!   accumulator's extra precision, Gen6+ per-channel IPs);
//! - [`predecode`]: a kernel decoded once into executable operations
//!   ([`Program`]) with operands resolved to byte offsets and handlers
//!   chosen;
//! - `decoded`: the predecoded form itself (operations, straight-line
//!   entries), which the predecoder builds and the handlers read, so that
//!   neither imports the other;
//! - `operand`: regions, indirect addressing, Align16, immediates, reads
//!   and writes with type conversion;
//! - `exec`: execution masks, predication, condition modifiers and flags,
//!   the accumulator;
//! - `fp`: float rounding (exact single rounding in every mode) and type
//!   conversions;
//! - `alu`: the semantics of every ALU opcode, by family;
//! - `flow`: flow control (Gen4 mask stacks; Gen6+ per-channel IPs);
//! - [`send`]: the seam to the shared functions ([`SharedFunctions`]);
//!   `message`: the `send` instruction's handler that builds the request;
//! - [`harness`]: a direct harness with an instruction trace;
//! - [`xe`]: Xe-HPG (Gen12.5) threads: their own predecode and step over
//!   the same thread state and shared-function seam, with the SWSB check;
//! - `math`: the extended-math unit (Gen4/G45 message, Gen6+ `math`
//!   instruction), pure functions on raw bits.
//!
//! Nothing here panics on kernel bytes: every problem is an [`EuError`]
//! carrying the IP of the instruction that raised it.

mod alu;
pub mod array;
mod decoded;
pub mod error;
mod exec;
mod flow;
pub mod fp;
pub mod harness;
pub mod math;
mod message;
mod operand;
pub mod predecode;
pub mod run;
pub mod send;
pub mod shared;
pub mod thread;
pub mod xe;

pub use alu::wide_lanes;
pub use error::{ErrorKind, EuError};
pub use harness::Harness;
pub use predecode::Program;
pub use run::{Step, TraceEntry};
pub use send::{NoSharedFunctions, Payload, SendError, SendRequest, SharedFunctions};
pub use thread::Thread;
