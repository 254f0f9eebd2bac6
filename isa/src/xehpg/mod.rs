//! Gen12.5 (Xe-HPG, DG2): its own native format, decoded to and encoded
//! from the shared [`Instruction`](crate::inst::Instruction).
//!
//! `tables.rs` holds the cited bit positions and codes, `codec.rs` the
//! exact decode/encode, `print.rs` the IGA-syntax text as `iga64 -p=12p71`
//! writes it, `parse.rs` reads that text back. Compaction is
//! `crate::compact::xehpg`; `ldst.rs` reads iga64's load/store syntax for
//! LSC sends (their typed descriptors are `crate::message::lsc`); the
//! Gen12.5 validator rules are `crate::validate::xe`. Not yet: smov
//! (iga64 -p=12p71 has none).

pub mod codec;
pub mod ldst;
pub mod parse;
pub mod print;
pub mod tables;

pub use codec::{decode, encode};
