//! baregpu: a `no_std` driver stack for Intel graphics.
//!
//! The operating system implements [`Platform`] (DMA memory, MMIO mapping,
//! PCI configuration access, time); the driver does everything else through
//! it. See `README.md` for what works today.
#![cfg_attr(not(test), no_std)]

extern crate alloc;

#[macro_use]
mod log;

pub mod blit;
pub mod bringup;
pub mod compute;
pub mod display;
pub mod gtt;
pub mod irq;
pub mod pci;
pub mod platform;
pub mod probe;
pub mod render;
pub mod submit;

pub use baregpu_hal::Generation;
pub use platform::{Dma, DmaRegion, PhysAddr, Platform, PlatformError};
pub use probe::{Backend, ProbeReport, probe};
pub use submit::{Batch, ContextId, EngineId, Fence, Gpu, GpuError};

/// Re-export of the hardware description crate.
pub use baregpu_hal as hal;
/// The EU instruction-set toolkit (assembler, disassembler, validator), for
/// building kernels at run time.
pub use baregpu_isa as isa;
