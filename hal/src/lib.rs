//! baregpu-hal: the hardware description of Intel GPUs.
//!
//! Every layer above speaks in registers and packets. This crate holds the
//! register-access seam ([`Mmio`]) that the driver uses for both the real GPU
//! and the software GPU; the generated register blocks, command packets and
//! state structures arrive on top of it.
#![cfg_attr(not(test), no_std)]

pub mod mmio;

pub use mmio::{Mmio, VolatileMmio};
