//! Typed message descriptors: what the function-control bits of a `send`
//! descriptor mean for each shared function (SFID) and generation, both
//! ways, plus a short symbolic text for them.
//!
//! [`decode`] turns a normalised descriptor ([`MsgDesc`]) into a
//! [`Message`]; [`encode`] turns it back, with the message and response
//! lengths and the header bit given separately. Every function-control bit
//! belongs to a field of the typed message, so the two are exact inverses:
//! a descriptor with a reserved code, or with a bit set that no field of
//! its message owns (reserved, must-be-zero or "ignored"), is refused with
//! an error naming the bits, and stays a raw number in the disassembly.
//! Messages the manuals list but this module does not model (VME, the
//! pixel interpolator, CRE, sampler SIMD32/64, the Gen7 sampler-cache data
//! port, Gen7.5 DC1 media block and atomic counters) decode to
//! [`Message::Other`] holding the raw bits.
//!
//! Gen12.5 (Xe-HPG) messages have their own modules: [`lsc`] (UGM, UGML,
//! SLM, TGM, typed together with the extended descriptor), [`xe_gateway`],
//! [`xe_urb`], [`xe_rt`], [`xe_sampler`] and [`xe_hdc`] (the legacy data
//! cache ports, dc0 and dc1); [`decode`] and the rest of this module are Gen4-Gen7.5.
//!
//! Sources: Gen4/G45 from 000 (the Gen4 PRM Vol 4), Gen6 from 003 (the
//! SNB PRM); the thread spawner of every generation from 003 (000 has no
//! spawner chapter). Gen7/Gen7.5 facts come from Mesa and are marked
//! `[ext: ...]` beside each table: the IVB volume (001) lacks the shared
//! functions.
//!
//! # Symbolic syntax
//!
//! ```text
//! unit.op(field=value, flag, ...) mlen=N rlen=N [hdr]
//! ```
//!
//! One unit word per SFID: `null`, `math` (Gen4/G45), `sampler`, `gw`
//! (message gateway), `dpr`/`dpw` (Gen4/G45 data port read/write), `urb`,
//! `ts` (thread spawner), `vme`, `sc`/`rc`/`cc` (Gen6+ data port through
//! the sampler, render or constant cache), `dc` (Gen7+ data cache), `dc1`
//! (Gen7.5 second data-cache port), `pi` (pixel interpolator), `cre`. The
//! operation names the message; fields are `name=value` (numbers decimal or
//! `0x` hex, or a keyword) or bare flags that are present when set. Fields
//! that are zero or absent in the bits are not printed. `mlen` and `rlen`
//! are the message and response lengths; `hdr` sets the Gen6+ header-present
//! bit. Flags are printed only when set; every other field always is.
//! Examples, with the platform each is for:
//!
//! ```text
//! math.sqrt(sat, scalar) mlen=1 rlen=1                                 gen4
//! sampler.sample(bti=1, sampler=0, simd=16, ret=f32) mlen=5 rlen=8     gen4
//! dpr.oword_block_read(bti=2, owords=2, cache=render) mlen=1 rlen=1    gen4.5
//! dpw.rt_write(bti=0, mode=simd16, last, commit) mlen=10 rlen=0        gen4
//! rc.dword_atomic(bti=3, op=add) mlen=3 rlen=1 hdr                     gen6
//! dc.untyped_read(bti=1, simd=8, mask=xyzw) mlen=2 rlen=4              gen7
//! dc.untyped_atomic(bti=1, op=add, simd=16, ret) mlen=4 rlen=2         gen7
//! dc.scratch_read(regs=2, offset=4) mlen=1 rlen=2 hdr                  gen7
//! dc1.typed_write(bti=5, slots=lo, mask=x) mlen=5 rlen=0               gen7.5
//! gw.barrier(notify=n0) mlen=1 rlen=0                                  gen7.5
//! urb.write(offset=2, swizzle=interleave, used, complete) mlen=3 rlen=0  gen6
//! urb.write_hword(offset=4, per_slot) mlen=3 rlen=0 hdr                gen7
//! ts.deref(child) mlen=1 rlen=0                                        gen6
//! null() mlen=1 rlen=0                                                 gen4
//! vme.raw(fc=0x1a000) mlen=4 rlen=6 hdr                                gen6
//! ```
//!
//! Field vocabulary: `bti` binding-table index (255 = stateless, 254 = Gen7
//! shared local memory); `simd` `4x2`/`8`/`16`; `mask` the enabled channels
//! (`xyzw`, `xz`, ..., or `none`; the bits hold the disables); `owords`
//! `1lo`/`1hi`/`2`/`4`/`8` (block) or `1`/`4` (dual block); `size` bytes
//! per element (`1`/`2`/`4`); `op` an atomic operation; `slots` `4x2`/`lo`/
//! `hi`; `regs`, `offset` scratch registers and HWord offset; `ret` return
//! data; `commit` send a write commit.

mod bits;
mod dataport;
mod error;
mod gateway;
pub mod lsc;
mod math;
mod sampler;
mod spawner;
mod text;
mod urb;
pub mod xe_gateway;
pub mod xe_hdc;
pub mod xe_rt;
pub mod xe_sampler;
pub mod xe_urb;

use alloc::string::{String, ToString};
use core::fmt;

pub use dataport::{
    AtomicOp, Channels, DataPortMsg, DpOp, DpPort, DualBlocks, ElemSize, OwordBlocks, ReadCache,
    RtMode, ScatterSimd, Slots, SurfaceSimd, SvbInc, Vls,
};
pub use error::MessageError;
pub use gateway::{GatewayMsg, GatewayOp, Notify};
pub use math::{MathMsg, function as math_function};
pub use sampler::{ReturnFormat, SamplerMsg, SamplerOp, SamplerSimd, simd32_64_name};
pub use spawner::SpawnerMsg;
pub use text::Named;
pub use urb::{UrbMsg, UrbOp, UrbOp7, UrbSwizzle};

use crate::generation::IsaGen;
use crate::inst::{MsgDesc, Sfid};
use crate::tables;
use bits::Reader;
use text::Out;

/// What a descriptor's function-control bits mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Message {
    /// SFID 0: no function; carries only end-of-thread.
    Null,
    /// Gen4/G45 extended math (SFID 1).
    Math(MathMsg),
    Sampler(SamplerMsg),
    Gateway(GatewayMsg),
    /// Any data port: Gen4/G45 read and write units, Gen6+ caches.
    DataPort(DataPortMsg),
    Urb(UrbMsg),
    Spawner(SpawnerMsg),
    /// A message the manuals document but this module keeps as raw bits
    /// (see the module documentation for which).
    Other {
        sfid: Sfid,
        function: u32,
    },
}

impl Message {
    /// The shared function the message goes to.
    pub fn sfid(&self) -> Sfid {
        match self {
            Message::Null => Sfid::Null,
            Message::Math(_) => Sfid::Math,
            Message::Sampler(_) => Sfid::Sampler,
            Message::Gateway(_) => Sfid::Gateway,
            Message::DataPort(d) => d.port.sfid(),
            Message::Urb(_) => Sfid::Urb,
            Message::Spawner(_) => Sfid::ThreadSpawner,
            Message::Other { sfid, .. } => *sfid,
        }
    }

    fn text(&self) -> Out {
        match self {
            Message::Null => Out::new("null", ""),
            Message::Math(m) => m.text(),
            Message::Sampler(s) => s.text(),
            Message::Gateway(g) => g.text(),
            Message::DataPort(d) => d.text(),
            Message::Urb(u) => u.text(),
            Message::Spawner(s) => s.text(),
            Message::Other { sfid, function } => {
                let mut o = Out::new(unit_of(*sfid), "raw");
                o.hex("fc", *function);
                o
            }
        }
    }
}

/// `unit.op(fields)`, without lengths.
impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text().fmt(f)
    }
}

/// Unit word of each SFID in the text.
const UNITS: [(Sfid, &str); 16] = [
    (Sfid::Null, "null"),
    (Sfid::Math, "math"),
    (Sfid::Sampler, "sampler"),
    (Sfid::Gateway, "gw"),
    (Sfid::DataPortRead, "dpr"),
    (Sfid::DataPortWrite, "dpw"),
    (Sfid::Urb, "urb"),
    (Sfid::ThreadSpawner, "ts"),
    (Sfid::Vme, "vme"),
    (Sfid::DpSamplerCache, "sc"),
    (Sfid::DpRenderCache, "rc"),
    (Sfid::DpConstantCache, "cc"),
    (Sfid::DpDataCache, "dc"),
    (Sfid::PixelInterpolator, "pi"),
    (Sfid::DpDataCache1, "dc1"),
    (Sfid::Cre, "cre"),
];

fn unit_of(sfid: Sfid) -> &'static str {
    UNITS
        .iter()
        .find(|(s, _)| *s == sfid)
        .map_or("?", |(_, u)| u)
}

/// Whether `word` names a shared function in the symbolic syntax (`dc`,
/// `urb`, ...): how the assembler tells a symbolic descriptor from a
/// register.
pub fn is_unit_word(word: &str) -> bool {
    sfid_of(word).is_some()
}

fn sfid_of(unit: &str) -> Option<Sfid> {
    UNITS.iter().find(|(_, u)| *u == unit).map(|(s, _)| *s)
}

/// Gen4/G45 descriptor: function control 15:0, response length 19:16,
/// message length 23:20, no header bit (000 lines 13390-13396). Gen6+:
/// function control 18:0, header 19, response length 24:20, message length
/// 28:25 (003 lines 100892-100919).
struct Widths {
    function: u32,
    mlen: u32,
    rlen: u32,
    header: bool,
}

fn widths(p: IsaGen) -> Widths {
    if p < IsaGen::Gen6 {
        Widths {
            function: 16,
            mlen: 4,
            rlen: 4,
            header: false,
        }
    } else {
        Widths {
            function: 19,
            mlen: 4,
            rlen: 5,
            header: true,
        }
    }
}

fn check_sfid(p: IsaGen, sfid: Sfid) -> Result<(), MessageError> {
    match tables::code_of(&tables::for_platform(p).sfids, sfid) {
        Some(_) => Ok(()),
        None => Err(MessageError::NoSuchFunction { platform: p, sfid }),
    }
}

fn check_lengths(p: IsaGen, mlen: u32, rlen: u32, header: bool) -> Result<(), MessageError> {
    let w = widths(p);
    if mlen >> w.mlen != 0 {
        return Err(MessageError::Length {
            field: "mlen",
            value: mlen,
        });
    }
    if rlen >> w.rlen != 0 {
        return Err(MessageError::Length {
            field: "rlen",
            value: rlen,
        });
    }
    if header && !w.header {
        return Err(MessageError::Length {
            field: "header bit",
            value: 1,
        });
    }
    Ok(())
}

/// The typed meaning of a descriptor sent to `sfid` on `p`.
pub fn decode(p: IsaGen, sfid: Sfid, desc: &MsgDesc) -> Result<Message, MessageError> {
    check_sfid(p, sfid)?;
    check_lengths(p, desc.mlen.into(), desc.rlen.into(), desc.header)?;
    let fc = desc.function;
    let wide = fc >> widths(p).function << widths(p).function;
    if wide != 0 {
        return Err(MessageError::StrayBits { bits: wide });
    }
    Ok(match sfid {
        Sfid::Null => {
            Reader::new(fc).finish()?;
            Message::Null
        }
        Sfid::Math => Message::Math(math::decode(fc)?),
        Sfid::Sampler => sampler::decode(p, fc, desc.mlen)?,
        Sfid::Gateway => Message::Gateway(gateway::decode(p, fc)?),
        Sfid::Urb => Message::Urb(urb::decode(p, fc)?),
        Sfid::ThreadSpawner => Message::Spawner(spawner::decode(fc)?),
        Sfid::DataPortRead
        | Sfid::DataPortWrite
        | Sfid::DpSamplerCache
        | Sfid::DpRenderCache
        | Sfid::DpConstantCache
        | Sfid::DpDataCache
        | Sfid::DpDataCache1 => dataport::decode(p, sfid, fc)?,
        Sfid::Vme | Sfid::PixelInterpolator | Sfid::Cre => Message::Other { sfid, function: fc },
        // Gen12.5: the LSC messages need the extended descriptor, so they
        // are typed by `lsc` (and the gateway and URB by `xe_gateway`,
        // `xe_urb`); ray tracing is not typed.
        Sfid::Ugm | Sfid::Ugml | Sfid::Tgm | Sfid::Slm | Sfid::Btd | Sfid::Rta => {
            Message::Other { sfid, function: fc }
        }
    })
}

/// The descriptor of `msg` on `p` with the given lengths and header bit.
/// Refuses values that do not fit and messages the platform lacks; the
/// result always decodes back to `msg`.
pub fn encode(
    p: IsaGen,
    msg: &Message,
    mlen: u8,
    rlen: u8,
    header: bool,
) -> Result<(Sfid, MsgDesc), MessageError> {
    let sfid = msg.sfid();
    check_sfid(p, sfid)?;
    check_lengths(p, mlen.into(), rlen.into(), header)?;
    let function = match msg {
        Message::Null => 0,
        Message::Math(m) => math::encode(p, m)?,
        Message::Sampler(s) => sampler::encode(p, s, mlen)?,
        Message::Gateway(g) => gateway::encode(p, g)?,
        Message::DataPort(d) => dataport::encode(p, d)?,
        Message::Urb(u) => urb::encode(u)?,
        Message::Spawner(s) => s.encode(),
        Message::Other { function, .. } => *function,
    };
    let desc = MsgDesc {
        mlen,
        rlen,
        header,
        function,
    };
    // Field checks above catch most mistakes; decoding back catches the
    // rest (a value legal in general but not on this platform or port).
    match decode(p, sfid, &desc) {
        Ok(back) if back == *msg => Ok((sfid, desc)),
        Ok(_) => Err(MessageError::NotOnPlatform {
            platform: p,
            what: "this message with these fields",
        }),
        Err(e) => Err(e),
    }
}

/// The descriptor as symbolic text (`unit.op(fields) mlen=N rlen=N [hdr]`).
/// Fails exactly where [`decode`] fails; the text parses back with
/// [`parse_symbolic`] to the same bits.
pub fn print_symbolic(p: IsaGen, sfid: Sfid, desc: &MsgDesc) -> Result<String, MessageError> {
    let msg = decode(p, sfid, desc)?;
    let mut s = msg.to_string();
    s.push_str(&alloc::format!(" mlen={} rlen={}", desc.mlen, desc.rlen));
    if desc.header {
        s.push_str(" hdr");
    }
    Ok(s)
}

/// The SFID and descriptor written in `text` (exactly the descriptor text,
/// from the unit word to the last length or `hdr`).
pub fn parse_symbolic(p: IsaGen, text: &str) -> Result<(Sfid, MsgDesc), MessageError> {
    let (msg, mlen, rlen, header) = parse_message(p, text)?;
    encode(p, &msg, mlen, rlen, header)
}

/// The typed message, lengths and header bit written in `text`.
pub fn parse_message(p: IsaGen, text: &str) -> Result<(Message, u8, u8, bool), MessageError> {
    let mut parsed = text::split(text)?;
    let sfid = sfid_of(parsed.unit).ok_or_else(|| MessageError::Syntax {
        at: 0,
        what: alloc::format!("unknown shared function `{}`", parsed.unit),
    })?;
    check_sfid(p, sfid)?;
    let msg = if parsed.op == "raw" {
        Message::Other {
            sfid,
            function: parsed.fields.num("fc")?,
        }
    } else {
        match sfid {
            Sfid::Null if parsed.op.is_empty() => Message::Null,
            Sfid::Null => return Err(text::unknown_op(&parsed)),
            Sfid::Math => Message::Math(math::parse(&mut parsed)?),
            Sfid::Sampler => Message::Sampler(sampler::parse(&mut parsed)?),
            Sfid::Gateway => Message::Gateway(gateway::parse(&mut parsed)?),
            Sfid::Urb => Message::Urb(urb::parse(&mut parsed)?),
            Sfid::ThreadSpawner => Message::Spawner(spawner::parse(&mut parsed)?),
            Sfid::Vme | Sfid::PixelInterpolator | Sfid::Cre => {
                return Err(text::unknown_op(&parsed));
            }
            _ => Message::DataPort(dataport::parse(sfid, &mut parsed)?),
        }
    };
    let len = |v: u32, field| u8::try_from(v).map_err(|_| MessageError::Length { field, value: v });
    let (mlen, rlen, header) = (
        len(parsed.mlen, "mlen")?,
        len(parsed.rlen, "rlen")?,
        parsed.header,
    );
    parsed.fields.finish()?;
    Ok((msg, mlen, rlen, header))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every example in the module documentation parses on its platform
    /// and prints back to the same text.
    #[test]
    fn documented_examples_hold() {
        let doc = include_str!("mod.rs");
        let start = doc.find("//! ```text\n//! math.").unwrap_or(0);
        let block = doc[start..].lines().skip(1).take_while(|l| *l != "//! ```");
        let mut n = 0;
        for line in block {
            let line = line.trim_start_matches("//! ");
            let (text, platform) = line.rsplit_once(' ').unwrap_or((line, ""));
            let p = IsaGen::from_name(platform).unwrap_or_else(|| panic!("{line}"));
            let text = text.trim_end();
            let (sfid, desc) = parse_symbolic(p, text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(print_symbolic(p, sfid, &desc).as_deref(), Ok(text));
            n += 1;
        }
        assert_eq!(n, 15);
    }
}
