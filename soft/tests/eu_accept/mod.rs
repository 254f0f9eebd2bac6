//! Helpers of the issue-6 acceptance tests (`eu_accept_*.rs`): the
//! allowed (opcode, types) combinations per platform, an independent
//! model of what each lane must produce, input values with the edge cases,
//! the sweep that runs one combination on the interpreter, and kernel
//! helpers.
#![allow(dead_code)]

#[path = "../eu_support/mod.rs"]
pub mod support;

pub mod combos;
pub mod kernels;
pub mod model;
pub mod sweep;
pub mod values;
