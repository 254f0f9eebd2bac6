//! Gen12.5 (Xe-HPG, DG2) message-gateway messages: the barrier, the event
//! messages and end of thread, which on Xe-HPG goes to the gateway (there
//! is no thread-spawner SFID: code 7 is BTD, Mesa `brw_eu_defines.h`
//! GEN_RT_SFID_BINDLESS_THREAD_DISPATCH).
//!
//! Descriptor (004 MSD_BARRIER lines 10451-10478, MSD_EOT 15127-15162;
//! notes table 1.6): subfunction in bits 2:0, every other function bit
//! MBZ (the EOT's "Fence Data Ports" 15:12 are "Ignored" on DG2 and refused
//! here like the MBZ bits). Lengths stay outside. The text is the
//! description `iga64 -p=12p71` writes in its send comment.
//!
//! One deviation, from real compiler output: IGC ends every DG2 kernel with
//! descriptor 0x02000010, an EOT with bit 4 set, which 004 prints as MBZ
//! (MSD_EOT 5:4, line 15151). It is the Gen7-Gen11 thread-spawner EOT
//! descriptor (bit 4 there selects the resource dereference), kept by IGC
//! when EOT moved to the gateway; iga64 reads only bits 2:0 and calls it
//! "end of thread", and these kernels run on DG2 cards. So it decodes, as
//! its own variant so that the descriptor encodes back to its bits.

use core::fmt;

use super::MessageError;

/// A gateway message by subfunction (bits 2:0; codes from the notes table
/// 1.6 and `iga64 -p=12p71`; 5 and 7 are undefined, iga64 prints `?`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XeGateway {
    EndOfThread,
    /// End of thread with bit 4 set, as IGC writes it (see the module text).
    EndOfThreadSpawnerBit,
    SignalEvent,
    MonitorEvent,
    UnmonitorEvent,
    Barrier,
    WaitForEvent,
}

const CODES: [(XeGateway, u32, &str); 7] = [
    (XeGateway::EndOfThread, 0, "end of thread"),
    (XeGateway::EndOfThreadSpawnerBit, 0x10, "end of thread"),
    (XeGateway::SignalEvent, 1, "signal event"),
    (XeGateway::MonitorEvent, 2, "monitor event"),
    (XeGateway::UnmonitorEvent, 3, "unmonitor event"),
    (XeGateway::Barrier, 4, "signal barrier"),
    (XeGateway::WaitForEvent, 6, "wait for event"),
];

impl XeGateway {
    pub const ALL: [XeGateway; 7] = [
        XeGateway::EndOfThread,
        XeGateway::EndOfThreadSpawnerBit,
        XeGateway::SignalEvent,
        XeGateway::MonitorEvent,
        XeGateway::UnmonitorEvent,
        XeGateway::Barrier,
        XeGateway::WaitForEvent,
    ];

    /// The descriptor's function bits (lengths zero).
    pub fn encode(self) -> u32 {
        CODES.iter().find(|c| c.0 == self).map_or(0, |c| c.1)
    }
}

/// The gateway message of `desc` (bits 28:20, the lengths, ignored).
pub fn decode(desc: u32) -> Result<XeGateway, MessageError> {
    // Bit 4 only with the EOT subfunction (IGC's descriptor).
    let allowed = if desc & 7 == 0 {
        0x1FF0_0017
    } else {
        0x1FF0_0007
    };
    let stray = desc & !allowed;
    if stray != 0 {
        return Err(MessageError::StrayBits { bits: stray });
    }
    CODES
        .iter()
        .find(|c| c.1 == desc & 0x17)
        .map(|c| c.0)
        .ok_or(MessageError::Reserved {
            field: "gateway subfunction",
            hi: 2,
            lo: 0,
            value: desc & 7,
        })
}

/// iga64's description.
impl fmt::Display for XeGateway {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(CODES.iter().find(|c| c.0 == *self).map_or("?", |c| c.2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_function_word_round_trips() {
        let mut ok = 0;
        for low in 0..(1u32 << 20) {
            for high in [0u32, 1 << 29, 1 << 31] {
                let d = low | high;
                if let Ok(g) = decode(d) {
                    assert_eq!(g.encode(), d & !0x1FF0_0000);
                    ok += 1;
                }
            }
        }
        assert_eq!(ok, 7);
        assert_eq!(decode(0x0200_0004), Ok(XeGateway::Barrier));
        assert_eq!(decode(0x0200_0010), Ok(XeGateway::EndOfThreadSpawnerBit));
        assert_eq!(
            XeGateway::EndOfThreadSpawnerBit.to_string(),
            "end of thread"
        );
        assert!(decode(0x0200_0014).is_err());
        assert!(decode(0x0200_0020).is_err());
        assert!(decode(0x0200_0005).is_err());
    }
}
