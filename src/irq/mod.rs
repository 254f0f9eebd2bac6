//! Interrupts: how the device's interrupt reaches the OS (MSI or INTx), and the
//! handler the OS calls when it arrives.
//!
//! The registers come from the device description (`[interrupts]` of
//! `hal/tables/<gen>/device.toml`): the interrupt blocks in handler order and the
//! master enable. The OS owns vectors and the interrupt controller: it chooses
//! the MSI address and data (for x86, `0xfee0_0000 | apic_id << 12` and the
//! vector), routes the vector (or the INTx line) to its handler, and the handler
//! calls [`crate::Gpu::handle_interrupt`] or [`InterruptHandler::handle`].

use core::fmt;

use baregpu_hal::device::{EngineDesc, InterruptDesc};
use baregpu_hal::pci::{self, msi};
use baregpu_hal::{ConfigSpace, Mmio};

/// How the device signals the OS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterruptMode {
    /// A message: the device writes `data` to `address` (both the OS's choice).
    Msi { address: u64, data: u16 },
    /// The legacy level-triggered line (INTx), for an OS without MSI.
    Intx,
}

/// Interrupt blocks a [`Signalled`] keeps (the descriptions have at most three).
pub const MAX_BLOCKS: usize = 4;

/// What one pass of the handler found and acknowledged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Signalled {
    /// Engines (bit `i` for `EngineId(i)`) whose user interrupt (MI_USER_INTERRUPT) fired.
    pub engines: u32,
    /// Engines whose command streamer error bit fired (the wait reports the error).
    pub errors: u32,
    /// The IIR value of each block, in the description's order (display and PM bits for
    /// their own handlers).
    pub iir: [u32; MAX_BLOCKS],
}

impl Signalled {
    /// Anything at all was pending.
    pub fn any(&self) -> bool {
        self.iir.iter().any(|&v| v != 0)
    }

    /// Adds another pass's findings.
    pub fn merge(&mut self, other: Signalled) {
        self.engines |= other.engines;
        self.errors |= other.errors;
        for (a, b) in self.iir.iter_mut().zip(other.iir) {
            *a |= b;
        }
    }
}

/// Why interrupts could not be enabled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrqError {
    /// MSI asked for, but the function lists no MSI capability.
    NoMsiCapability,
    /// The MSI address needs more than 32 bits and the capability has only 32.
    MsiAddressTooWide(u64),
    /// The MSI address is not dword aligned.
    MsiAddressUnaligned(u64),
}

impl fmt::Display for IrqError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IrqError::NoMsiCapability => f.write_str("the GPU has no MSI capability"),
            IrqError::MsiAddressTooWide(a) => {
                write!(
                    f,
                    "MSI address {a:#x} does not fit the 32-bit MSI capability"
                )
            }
            IrqError::MsiAddressUnaligned(a) => {
                write!(f, "MSI address {a:#x} is not dword aligned")
            }
        }
    }
}

/// Points the function's interrupt at `mode` in its configuration space: the MSI
/// capability's address and data, its enable, bus mastering and INTx disabled for
/// MSI (the message is a memory write; Linux pci_intx_for_msi disables INTx the same
/// way); MSI off and INTx allowed for the line.
pub fn configure(cfg: &dyn ConfigSpace, mode: InterruptMode) -> Result<(), IrqError> {
    let cap = pci::find_capability(cfg, msi::ID);
    let enable = (msi::CONTROL_ENABLE as u32) << msi::CONTROL_SHIFT;
    // The status half is left at zero: its error bits are write-one-to-clear.
    let command = cfg.config_read32(pci::COMMAND) & 0xffff;
    match mode {
        InterruptMode::Msi { address, data } => {
            let cap = cap.ok_or(IrqError::NoMsiCapability)?;
            if !address.is_multiple_of(4) {
                return Err(IrqError::MsiAddressUnaligned(address));
            }
            let head = cfg.config_read32(cap);
            let control = (head >> msi::CONTROL_SHIFT) as u16;
            let wide = control & msi::CONTROL_64BIT != 0;
            if !wide && address >> 32 != 0 {
                return Err(IrqError::MsiAddressTooWide(address));
            }
            // Disabled while it is programmed; one vector (Multiple Message Enable 0).
            let off = head & !(enable | ((msi::CONTROL_MULTIPLE_ENABLE as u32) << 16));
            cfg.config_write32(cap, off);
            cfg.config_write32(cap + msi::ADDRESS, address as u32);
            if wide {
                cfg.config_write32(cap + msi::UPPER_ADDRESS, (address >> 32) as u32);
                cfg.config_write32(cap + msi::DATA_64, data as u32);
            } else {
                cfg.config_write32(cap + msi::DATA_32, data as u32);
            }
            cfg.config_write32(
                pci::COMMAND,
                command | pci::COMMAND_BUS_MASTER | pci::COMMAND_INTERRUPT_DISABLE,
            );
            cfg.config_write32(cap, off | enable);
        }
        InterruptMode::Intx => {
            if let Some(cap) = cap {
                cfg.config_write32(cap, cfg.config_read32(cap) & !enable);
            }
            cfg.config_write32(pci::COMMAND, command & !pci::COMMAND_INTERRUPT_DISABLE);
        }
    }
    Ok(())
}

/// The interrupt handler: registers only, no driver state, so that an OS can call
/// it from its interrupt handler while the [`crate::Gpu`] is busy elsewhere
/// ([`crate::Gpu::interrupt_handler`]).
#[derive(Clone, Copy)]
pub struct InterruptHandler<'a> {
    pub(crate) mmio: &'a dyn Mmio,
    pub(crate) desc: &'static InterruptDesc,
    pub(crate) engines: &'static [EngineDesc],
}

impl InterruptHandler<'_> {
    /// Reads and acknowledges what is pending, as Linux i915's handlers do: with a
    /// master enable (Gen6/Gen7, i915_irq.c ilk_irq_handler) it is cleared first,
    /// then each block's IIR is read and written back (GTIIR, DEIIR, PMIIR: the
    /// description's order), then the master enable is restored, so that anything
    /// still pending makes a new edge (a new MSI); without one (Gen4/G45,
    /// i965_irq_handler) IIR is read and written back.
    pub fn handle(&self) -> Signalled {
        let mut s = Signalled::default();
        let master = self.desc.master.map(|m| {
            let v = self.mmio.read32(m.register);
            self.mmio.write32(m.register, v & !(1 << m.bit));
            // Posting read, as Linux does after the write.
            let _ = self.mmio.read32(m.register);
            (m.register, v)
        });
        for (k, b) in self.desc.blocks.iter().enumerate().take(MAX_BLOCKS) {
            let iir = self.mmio.read32(b.regs.iir);
            if iir == 0 {
                continue;
            }
            self.mmio.write32(b.regs.iir, iir);
            s.iir[k] = iir;
            if b.engines {
                for (i, e) in self.engines.iter().enumerate().take(32) {
                    if iir >> e.user_interrupt_bit & 1 == 1 {
                        s.engines |= 1 << i;
                    }
                    if iir >> e.error_bit & 1 == 1 {
                        s.errors |= 1 << i;
                    }
                }
            }
        }
        if let Some((register, value)) = master {
            self.mmio.write32(register, value);
        }
        s
    }
}
