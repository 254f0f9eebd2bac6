//! The Intel EU instruction set as data and code: one generation-neutral
//! instruction representation, each generation's encoding as constant
//! tables, native (128-bit) and compact (64-bit) decode and encode.
//!
//! `no_std` with `alloc`; nothing here panics on bytes from outside.

#![cfg_attr(not(test), no_std)]

extern crate alloc;

pub mod codec;
pub mod compact;
pub mod error;
pub mod generation;
pub mod inst;
pub mod kernel;
pub mod message;
pub mod tables;
pub mod text;
pub mod validate;
pub mod xehpg;
pub mod zebin;

pub use codec::{decode, decode_bytes, encode, encode_bytes};
pub use error::{DecodeError, EncodeError};
pub use generation::IsaGen;
pub use inst::Instruction;
