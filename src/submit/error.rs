//! What the driver records when an engine hangs or reports an error: the
//! engine's registers and the commands around where it stopped, decoded
//! with the hal's tables.

use alloc::string::String;

use core::fmt::{self, Write};

use baregpu_hal::Mmio;
use baregpu_hal::decode::decode;
use baregpu_hal::reflect::GenTables;

use super::engines::EngineInfo;

/// A captured error state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorState {
    pub engine: &'static str,
    /// Why the state was captured.
    pub reason: HangReason,
    pub eir: u32,
    pub esr: u32,
    pub ipeir: u32,
    pub ipehr: u32,
    pub instdone: u32,
    pub acthd: u32,
    pub head: u32,
    pub tail: u32,
    pub bb_addr: u32,
    /// Seqno the engine last completed, and the one the waiter wanted.
    pub completed: u32,
    pub waited_for: u32,
    /// The decoded commands around ACTHD (when the driver has the memory).
    pub commands: String,
    /// The command the software GPU refused because it does not model it
    /// (its `SOFT_UNMODELLED_COMMAND` register): table name, or the header
    /// when the tables do not name it.
    pub unmodelled: Option<Unmodelled>,
    /// The page fault the GPU recorded (Gen12.5: GEN12_RING_FAULT_REG valid).
    pub fault: Option<FaultRecord>,
}

/// A recorded page fault: the fault register, the faulting address, and
/// whether it went through the GGTT (else a PPGTT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultRecord {
    pub register: u32,
    pub address: u64,
    pub ggtt: bool,
}

/// A command the device reported as not modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unmodelled {
    pub header: u32,
    pub name: Option<&'static str>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HangReason {
    /// No progress within the timeout.
    Timeout,
    /// The engine reported an error (EIR set): unknown command, page fault.
    EngineError,
}

impl ErrorState {
    pub(crate) fn capture(
        mmio: &dyn Mmio,
        engine: &EngineInfo,
        reason: HangReason,
        completed: u32,
        waited_for: u32,
        tables: &'static GenTables,
        batch: Option<(u64, &[u32])>,
    ) -> Self {
        let r = |off| mmio.read32(engine.base + off);
        let e = engine.errors;
        let acthd = mmio.read32(e.acthd);
        let (eir, ipehr) = (mmio.read32(e.eir), mmio.read32(e.ipehr));
        // Only the software GPU has this register, so it is read only after an
        // instruction error (EIR bit 0), and counts only when it repeats IPEHR.
        let unmodelled = if eir & 1 != 0 {
            let refused = r(baregpu_hal::mmio::SOFT_UNMODELLED_COMMAND);
            (refused != 0 && refused == ipehr).then(|| Unmodelled {
                header: refused,
                name: tables.identify(engine.name, refused).map(|c| c.name),
            })
        } else {
            None
        };
        let mut commands = String::new();
        // Decode the stream that holds ACTHD, from its start, marking the command at ACTHD.
        // Stop at MI_BATCH_BUFFER_END as the engine does: compute batches keep their state
        // (binding tables, descriptors, CURBE) after it, which is not commands.
        if let Some((start, dwords)) = batch {
            for cmd in decode(tables, engine.name, dwords)
                .stop_at_batch_end()
                .take(4096)
            {
                let addr = start + cmd.offset as u64 * 4;
                let mark = if addr == acthd as u64 { "=> " } else { "   " };
                let _ = write!(commands, "{mark}{cmd}");
            }
        }
        Self {
            engine: engine.name,
            reason,
            eir,
            esr: mmio.read32(e.esr),
            ipeir: mmio.read32(e.ipeir),
            ipehr,
            instdone: mmio.read32(e.instdone),
            acthd,
            head: r(engine.ring.head),
            tail: r(engine.ring.tail),
            bb_addr: mmio.read32(e.bb_addr),
            completed,
            waited_for,
            commands,
            unmodelled,
            fault: None,
        }
    }
}

impl fmt::Display for ErrorState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "GPU error on the {} engine ({:?}): completed seqno {}, waited for {}",
            self.engine, self.reason, self.completed, self.waited_for
        )?;
        writeln!(
            f,
            "  EIR {:#010x} ESR {:#010x} IPEIR {:#010x} IPEHR {:#010x} INSTDONE {:#010x}",
            self.eir, self.esr, self.ipeir, self.ipehr, self.instdone
        )?;
        writeln!(
            f,
            "  ACTHD {:#010x} HEAD {:#010x} TAIL {:#010x} BB_ADDR {:#010x}",
            self.acthd, self.head, self.tail, self.bb_addr
        )?;
        if let Some(u) = self.unmodelled {
            writeln!(
                f,
                "  {} (header {:#010x}) is not modelled by the software GPU",
                u.name.unwrap_or("the command"),
                u.header
            )?;
        }
        if let Some(fault) = self.fault {
            writeln!(
                f,
                "  page fault at {:#x} through the {} (fault register {:#010x})",
                fault.address,
                if fault.ggtt { "GGTT" } else { "PPGTT" },
                fault.register
            )?;
        }
        if !self.commands.is_empty() {
            writeln!(f, "  commands of the batch at BB_ADDR (=> marks ACTHD):")?;
            for line in self.commands.lines() {
                writeln!(f, "    {line}")?;
            }
        }
        Ok(())
    }
}
