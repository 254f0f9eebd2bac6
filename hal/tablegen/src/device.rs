//! The device description table (`device.toml` in a generation's folder):
//! engines with their interrupt and reset bits, the GT's interrupt, reset,
//! forcewake and PPGTT registers, the GTT. Register entries name registers of
//! the generation's tables (or give an offset where the tables have none, cited
//! by the entry's `ref`); [`parse`] resolves and checks them, [`generate`]
//! writes the `DEVICE` constant. Format: `hal/tables/README.md`.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Deserialize;

use crate::model::{GenerationTables, Register};

/// A register: its name in the tables, or an offset the tables lack.
#[derive(Deserialize, Clone, Debug)]
#[serde(untagged)]
enum RawReg {
    Name(String),
    Offset(u32),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDevice {
    eu_isa: String,
    #[serde(rename = "ref")]
    reference: String,
    gt: RawGt,
    interrupts: RawInterrupts,
    gtt: RawGtt,
    compute: Option<RawCompute>,
    display: Option<RawDisplay>,
    engine: Vec<RawEngine>,
    #[serde(default)]
    init: Vec<RawInit>,
}

/// A write the driver makes after starting an engine's ring (a masked register:
/// the named fields are set to their values, the rest left alone).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInit {
    #[serde(rename = "ref")]
    reference: String,
    engine: String,
    register: String,
    fields: BTreeMap<String, u64>,
}

/// `[display]`: the pipes the firmware may have lit and their primary planes.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDisplay {
    #[serde(rename = "ref")]
    reference: String,
    flip_engine: String,
    formats: Vec<RawFormat>,
    pipe: Vec<RawPipe>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFormat {
    code: u32,
    format: String,
}

/// A one-bit field of a register, both by name: the bit comes from the tables.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStatusBit {
    register: String,
    field: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPipe {
    name: String,
    conf: RawReg,
    src: RawReg,
    frame: RawReg,
    frame_pixel: Option<RawReg>,
    flip_count: Option<RawReg>,
    stat: Option<RawReg>,
    cntr: RawReg,
    linoff: RawReg,
    stride: RawReg,
    surf: RawReg,
    tileoff: RawReg,
    vblank: RawStatusBit,
    flip_done: Option<RawStatusBit>,
    flip_pending: Option<RawStatusBit>,
    flip_plane: u32,
    stat_event: Option<RawStatusBit>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCompute {
    #[serde(rename = "ref")]
    reference: String,
    threads: u32,
    grf_registers: u32,
    curbe_read_rows: u32,
    urb_rows: Option<u32>,
    scratch: String,
    scratch_max_bytes: u32,
    shared_local_memory_bytes: u32,
    inline_dwords: u32,
    media_walker: bool,
    gpgpu_walker: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGt {
    #[serde(rename = "ref")]
    reference: String,
    reset: RawReset,
    forcewake: Option<RawForcewake>,
    gfx_mode: Option<RawReg>,
    hwsp_physical: bool,
    physical_addressing: bool,
    page_fault_eir_bit: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReset {
    method: String,
    register: Option<RawReg>,
    full_bit: Option<u32>,
    config_offset: Option<u16>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawForcewake {
    style: String,
    request: RawReg,
    ack: RawReg,
    ack_timeout_ms: u32,
    posting_read: Option<RawReg>,
    thread_status: Option<RawReg>,
    thread_status_mask: Option<u32>,
    mt_enable: Option<RawMtEnable>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMtEnable {
    register: RawReg,
    bit: u32,
    single_request: RawReg,
    single_ack: RawReg,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInterrupts {
    #[serde(rename = "ref")]
    reference: String,
    master: Option<RawMaster>,
    block: Vec<RawBlock>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMaster {
    register: RawReg,
    bit: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBlock {
    name: String,
    isr: RawReg,
    imr: RawReg,
    iir: RawReg,
    ier: RawReg,
    #[serde(default)]
    engines: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGtt {
    #[serde(rename = "ref")]
    reference: String,
    alias_offset: u32,
    entries: u32,
    bar_size: u32,
    flush: RawReg,
    pte: String,
    size: RawGttSize,
    stolen: RawStolen,
}

/// Where the stolen memory's size and base are read: a 16-bit configuration word of
/// the GPU or of the host bridge (00:00.0), a field of it, and the MiB each value
/// stands for (a list, or `unit_mib` times the value); the base's dword in the GPU's
/// configuration space (bits 31:20).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStolen {
    config_offset: Option<u16>,
    bridge_config_offset: Option<u16>,
    bits: String,
    mib: Option<Vec<u32>>,
    unit_mib: Option<u32>,
    base_offset: u16,
}

/// Where the GTT's size is read: an MMIO register or a PCI configuration word, a
/// field of it, and the KiB of PTEs each field value stands for.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGttSize {
    register: Option<RawReg>,
    config_offset: Option<u16>,
    bits: String,
    kib: Vec<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEngine {
    name: String,
    #[serde(rename = "ref")]
    reference: String,
    user_interrupt_bit: u32,
    error_bit: u32,
    notify_bit: u32,
    reset_bit: u32,
    runs: Vec<String>,
    ring: BTreeMap<String, RawReg>,
    errors: BTreeMap<String, RawReg>,
    imr: Option<RawReg>,
    timestamp: Option<RawReg>,
    page_fault: Option<RawReg>,
    /// A further instance of an engine of the tables (applied by [`add_instances`];
    /// read here only so that the entry is accepted).
    #[serde(rename = "like")]
    _like: Option<String>,
    #[serde(rename = "base")]
    _base: Option<u32>,
}

/// The part of an `[[engine]]` entry that [`add_instances`] reads.
#[derive(Deserialize)]
struct RawInstance {
    name: String,
    like: Option<String>,
    base: Option<u32>,
}

#[derive(Deserialize)]
struct RawInstances {
    #[serde(default)]
    engine: Vec<RawInstance>,
}

/// Applies the engines `device.toml` adds as further instances of an engine of the
/// tables (`like = "video"`, `base = 0x1c000`): each gets its base in the tables'
/// engines and runs every command, and has every per-engine register, of the engine
/// it is like. Call it on the loaded tables before they are checked and generated,
/// so that a second instance of an engine is one `[[engine]]` entry.
pub fn add_instances(text: &str, t: &mut GenerationTables) -> Result<(), String> {
    let raw: RawInstances = toml::from_str(text).map_err(|e| e.to_string())?;
    for e in raw.engine {
        match (e.like, e.base) {
            (None, None) => {}
            (Some(like), Some(base)) => {
                if !t.engines.contains_key(&like) {
                    return Err(format!(
                        "engine {}: like {like:?} is not an engine of generation.toml",
                        e.name
                    ));
                }
                if t.engines.contains_key(&e.name) {
                    return Err(format!(
                        "engine {}: already in generation.toml (like and base are for new instances)",
                        e.name
                    ));
                }
                if t.engines.values().any(|&b| b == base) {
                    return Err(format!("engine {}: base {base:#x} is taken", e.name));
                }
                t.engines.insert(e.name.clone(), base);
                for r in &mut t.registers {
                    if r.engines.contains(&like) {
                        r.engines.push(e.name.clone());
                    }
                }
                for c in &mut t.commands {
                    if c.engines.contains(&like) {
                        c.engines.push(e.name.clone());
                    }
                }
            }
            _ => {
                return Err(format!("engine {}: like and base go together", e.name));
            }
        }
    }
    Ok(())
}

/// One engine, resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Engine {
    pub name: String,
    pub base: u32,
    /// tail, head, start, ctl: offsets relative to `base`; hws_pga absolute (Gen7
    /// moves the status-page registers below the video and blitter bases).
    pub ring: [u32; 5],
    /// The error-capture registers in [`ERRORS`] order, absolute: an engine's own instance,
    /// or a GT-level register it shares (G45's video ring reports into the render EIR).
    pub errors: [u32; 8],
    /// Its own interrupt mask register (absolute), where rings have one.
    pub imr: Option<u32>,
    /// Its 64-bit TIMESTAMP counter (absolute), where it has one.
    pub timestamp: Option<u32>,
    /// Where its first page fault is recorded (absolute), where it has such a register.
    pub page_fault: Option<u32>,
    pub user_interrupt_bit: u32,
    pub error_bit: u32,
    pub notify_bit: u32,
    pub reset_bit: u32,
    pub runs: Vec<String>,
    pub citation: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Forcewake {
    None,
    Single { request: u32, ack: u32 },
    MultiThreaded { request: u32, ack: u32 },
}

/// The steps around a forcewake request (`[gt] forcewake`'s other keys).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Wake {
    pub ack_timeout_ms: u32,
    pub posting_read: Option<u32>,
    /// Register and mask.
    pub thread_status: Option<(u32, u32)>,
    /// Register, bit, single request, single acknowledge.
    pub mt_enable: Option<(u32, u32, u32, u32)>,
}

/// One set of interrupt registers (`[[interrupts.block]]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrqBlock {
    pub name: String,
    /// isr, imr, iir, ier.
    pub regs: [u32; 4],
    pub engines: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reset {
    Gdrst { register: u32, full_bit: u32 },
    PciConfig { offset: u16 },
}

/// Where the GTT size is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeSource {
    Mmio(u32),
    PciConfig(u16),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GttSize {
    pub source: SizeSource,
    /// The field's low bit and width.
    pub shift: u32,
    pub width: u32,
    /// KiB of PTEs per field value (0: a value that means no GTT or is reserved).
    pub kib: Vec<u32>,
}

/// The stolen-memory description, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stolen {
    /// Configuration word offset, and whether it is the host bridge's.
    pub word: u16,
    pub bridge: bool,
    pub shift: u32,
    pub width: u32,
    pub mib: Vec<u32>,
    pub unit_mib: u32,
    pub base_offset: u16,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GfxMode {
    Global(u32),
    PerEngine(u32),
}

/// The media/GPGPU pipeline's limits (`[compute]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compute {
    pub threads: u32,
    pub grf_registers: u32,
    pub curbe_read_rows: u32,
    pub urb_rows: Option<u32>,
    /// `linear_kib` or `pow2_kib`.
    pub scratch: String,
    pub scratch_max_bytes: u32,
    pub shared_local_memory_bytes: u32,
    pub inline_dwords: u32,
    pub media_walker: bool,
    pub gpgpu_walker: bool,
    pub citation: String,
}

/// A status bit, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatusBit {
    pub register: u32,
    pub bit: u32,
}

/// One pipe and its primary plane, every register resolved (absolute).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pipe {
    pub name: String,
    /// conf, src, frame, cntr, linoff, stride, surf, tileoff (in [`PIPE_REGS`] order).
    pub regs: [u32; 8],
    pub frame_pixel: Option<u32>,
    pub flip_count: Option<u32>,
    pub stat: Option<u32>,
    pub vblank: StatusBit,
    pub flip_done: Option<StatusBit>,
    pub flip_pending: Option<StatusBit>,
    pub flip_plane: u32,
    pub stat_event: Option<StatusBit>,
}

/// The display description (`[display]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Display {
    pub pipes: Vec<Pipe>,
    /// (DSPxCNTR code, format name of `FORMATS`).
    pub formats: Vec<(u32, String)>,
    pub flip_engine: String,
    /// (name in `DISPLAY_BITS`, shift, width); `pipe_select` may be absent.
    pub bits: Vec<(&'static str, u32, u32)>,
    pub citation: String,
}

/// The `[[display.pipe]]` registers every pipe has, in [`Pipe::regs`] order.
pub const PIPE_REGS: [&str; 8] = [
    "conf", "src", "frame", "cntr", "linoff", "stride", "surf", "tileoff",
];
/// Pixel format names of `[display] formats` and their `PixelFormat` variants.
const FORMATS: [(&str, &str); 7] = [
    ("c8", "C8"),
    ("rgb565", "Rgb565"),
    ("xrgb8888", "Xrgb8888"),
    ("xbgr8888", "Xbgr8888"),
    ("xrgb2101010", "Xrgb2101010"),
    ("xbgr2101010", "Xbgr2101010"),
    ("xbgr16161616f", "Xbgr16161616F"),
];
/// The fields of `DisplayBits`: (its name, the register kind of [`PIPE_REGS`], the field
/// name in the register tables). Read from pipe A's registers; every pipe must agree.
const DISPLAY_BITS: [(&str, &str, &str); 11] = [
    ("pipe_enable", "conf", "pipe_enable"),
    ("pipe_state", "conf", "pipe_state"),
    ("src_width", "src", "horizontal_source_size"),
    ("src_height", "src", "vertical_source_size"),
    ("plane_enable", "cntr", "plane_enable"),
    ("pixel_format", "cntr", "source_pixel_format"),
    ("tiled", "cntr", "tiled_surface"),
    ("pipe_select", "cntr", "pipe_select"),
    ("stride", "stride", "stride"),
    ("tile_x", "tileoff", "start_x"),
    ("tile_y", "tileoff", "start_y"),
];

/// A field of the register at `offset` (absolute), by name.
fn field_at(t: &GenerationTables, offset: u32, field: &str) -> Option<(u32, u32)> {
    let reg = t
        .registers
        .iter()
        .find(|r| r.engines.is_empty() && r.offset == offset)?;
    let f = reg.fields.iter().find(|f| f.name == field)?;
    Some((f.start, f.width()))
}

fn parse_display(d: RawDisplay, t: &GenerationTables) -> Result<Display, String> {
    let status = |s: &RawStatusBit, what: &str| -> Result<StatusBit, String> {
        let reg = find(t, &s.register)?;
        if !reg.engines.is_empty() {
            return Err(format!("{what}: {} is a per-engine register", s.register));
        }
        let f = reg
            .fields
            .iter()
            .find(|f| f.name == s.field)
            .ok_or_else(|| format!("{what}: {} has no field {}", s.register, s.field))?;
        if f.width() != 1 || f.start > 31 {
            return Err(format!("{what}: {}.{} is not one bit", s.register, s.field));
        }
        Ok(StatusBit {
            register: reg.offset,
            bit: f.start,
        })
    };
    let mut pipes: Vec<Pipe> = Vec::new();
    for p in &d.pipe {
        let what = format!("display.pipe {}", p.name);
        let raw = [
            &p.conf, &p.src, &p.frame, &p.cntr, &p.linoff, &p.stride, &p.surf, &p.tileoff,
        ];
        let mut regs = [0; 8];
        for ((slot, r), key) in regs.iter_mut().zip(raw).zip(PIPE_REGS) {
            *slot = absolute(t, r, &format!("{what} {key}"))?;
        }
        let opt = |r: &Option<RawReg>, key: &str| {
            r.as_ref()
                .map(|r| absolute(t, r, &format!("{what} {key}")))
                .transpose()
        };
        if pipes.iter().any(|q| q.name == p.name) {
            return Err(format!("{what}: listed twice"));
        }
        if p.flip_done.is_none() && p.flip_pending.is_none() {
            return Err(format!("{what}: needs flip_done or flip_pending"));
        }
        pipes.push(Pipe {
            name: p.name.clone(),
            regs,
            frame_pixel: opt(&p.frame_pixel, "frame_pixel")?,
            flip_count: opt(&p.flip_count, "flip_count")?,
            stat: opt(&p.stat, "stat")?,
            vblank: status(&p.vblank, &format!("{what} vblank"))?,
            flip_done: p
                .flip_done
                .as_ref()
                .map(|s| status(s, &format!("{what} flip_done")))
                .transpose()?,
            flip_pending: p
                .flip_pending
                .as_ref()
                .map(|s| status(s, &format!("{what} flip_pending")))
                .transpose()?,
            flip_plane: p.flip_plane,
            stat_event: p
                .stat_event
                .as_ref()
                .map(|s| status(s, &format!("{what} stat_event")))
                .transpose()?,
        });
    }
    if pipes.is_empty() {
        return Err("display: no [[display.pipe]]".into());
    }
    let mut formats = Vec::new();
    for f in &d.formats {
        if !FORMATS.iter().any(|(n, _)| *n == f.format) {
            return Err(format!("display.formats: unknown format {:?}", f.format));
        }
        if formats.iter().any(|(c, _)| *c == f.code) {
            return Err(format!("display.formats: code {} listed twice", f.code));
        }
        formats.push((f.code, f.format.clone()));
    }
    let mut bits = Vec::new();
    for (name, kind, field) in DISPLAY_BITS {
        let k = PIPE_REGS.iter().position(|r| *r == kind).unwrap_or(0);
        let found: Vec<_> = pipes
            .iter()
            .map(|p| field_at(t, p.regs[k], field))
            .collect();
        match found[0] {
            None if name == "pipe_select" => {}
            None => {
                return Err(format!(
                    "display: pipe {}'s {kind} register has no field {field}",
                    pipes[0].name
                ));
            }
            Some((shift, width)) => {
                if let Some(i) = found.iter().position(|f| *f != found[0]) {
                    return Err(match found[i] {
                        None => format!(
                            "display: pipe {}'s {kind} register has no field {field}",
                            pipes[i].name
                        ),
                        Some(_) => format!(
                            "display: pipe {}'s {kind} field {field} differs from pipe {}'s",
                            pipes[i].name, pipes[0].name
                        ),
                    });
                }
                bits.push((name, shift, width));
            }
        }
    }
    // The format codes must be values of the pixel format field.
    if let Some(&(_, _, width)) = bits.iter().find(|b| b.0 == "pixel_format")
        && let Some((c, _)) = formats.iter().find(|(c, _)| *c >= 1 << width)
    {
        return Err(format!(
            "display.formats: code {c} does not fit the format field"
        ));
    }
    if !t.engines.contains_key(&d.flip_engine) {
        return Err(format!(
            "display.flip_engine {:?} is not an engine",
            d.flip_engine
        ));
    }
    let runs_flip = t
        .commands
        .iter()
        .any(|c| c.name == "MI_DISPLAY_FLIP" && c.engines.contains(&d.flip_engine));
    if !runs_flip {
        return Err(format!(
            "display.flip_engine {}: MI_DISPLAY_FLIP does not run there",
            d.flip_engine
        ));
    }
    Ok(Display {
        pipes,
        formats,
        flip_engine: d.flip_engine,
        bits,
        citation: cited(&d.reference, "display")?,
    })
}

/// A generation's device description, every register resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    pub eu_isa: String,
    pub citation: String,
    pub engines: Vec<Engine>,
    /// isr, imr, iir, ier of the engines' block.
    pub irq: [u32; 4],
    pub forcewake: Forcewake,
    pub wake: Wake,
    /// The interrupt blocks, in handler order, and the master enable (register, bit).
    pub irq_blocks: Vec<IrqBlock>,
    pub irq_master: Option<(u32, u32)>,
    pub interrupts_citation: String,
    pub reset: Reset,
    pub gfx_mode: Option<GfxMode>,
    pub ring_imr: bool,
    pub hwsp_physical: bool,
    pub physical_addressing: bool,
    pub page_fault_eir_bit: u32,
    pub gt_citation: String,
    pub gtt_alias_offset: u32,
    pub gtt_entries: u32,
    pub bar_size: u32,
    pub gtt_flush: u32,
    pub pte: String,
    pub gtt_size: GttSize,
    pub stolen: Stolen,
    pub gtt_citation: String,
    pub compute: Option<Compute>,
    pub display: Option<Display>,
    pub init: Vec<InitWrite>,
}

/// A checked `[[init]]` write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitWrite {
    pub engine: String,
    /// Absolute offset (the engine's instance of a per-engine register).
    pub register: u32,
    /// The masked write: write enables in 31:16, values in 15:0.
    pub value: u32,
    pub citation: String,
}

const RING: [&str; 5] = ["tail", "head", "start", "ctl", "hws_pga"];
/// The `errors` keys, in the order of [`Engine::errors`] and the generated `ErrorRegs`.
pub const ERRORS: [&str; 8] = [
    "ipeir", "ipehr", "instdone", "acthd", "eir", "emr", "esr", "bb_addr",
];
const IRQ: [&str; 4] = ["isr", "imr", "iir", "ier"];
const EU_ISAS: [&str; 5] = ["gen4", "g45", "gen6", "gen7", "gen12.5"];
const PTE_FORMATS: [&str; 3] = ["gen4", "gen6", "gen7"];
const GROUPS: [&str; 4] = ["mi", "3d", "media", "blitter"];
const SCRATCH: [&str; 2] = ["linear_kib", "pow2_kib"];

fn find<'a>(t: &'a GenerationTables, name: &str) -> Result<&'a Register, String> {
    t.registers
        .iter()
        .find(|r| r.name == name)
        .ok_or_else(|| format!("register {name} is not in the {} tables", t.name))
}

/// An absolute (GT-level) register.
fn absolute(t: &GenerationTables, r: &RawReg, what: &str) -> Result<u32, String> {
    match r {
        RawReg::Offset(o) => Ok(*o),
        RawReg::Name(n) => {
            let reg = find(t, n)?;
            if reg.engines.is_empty() {
                Ok(reg.offset)
            } else {
                Err(format!("{what}: {n} is a per-engine register"))
            }
        }
    }
}

/// A register of engine `engine` at `base`, relative to `base`.
fn relative(
    t: &GenerationTables,
    r: &RawReg,
    engine: &str,
    base: u32,
    what: &str,
) -> Result<u32, String> {
    let abs = match r {
        RawReg::Offset(o) => *o,
        RawReg::Name(n) => {
            let reg = find(t, n)?;
            if reg.engines.iter().any(|e| e == engine) {
                return Ok(reg.offset);
            }
            if !reg.engines.is_empty() {
                return Err(format!("{what}: {n} has no instance on engine {engine}"));
            }
            reg.offset
        }
    };
    abs.checked_sub(base)
        .ok_or_else(|| format!("{what}: {abs:#x} lies below the engine base {base:#x}"))
}

/// A register an engine reads or writes, absolute: its instance on `engine` when the
/// register is per engine, the GT-level register itself otherwise.
fn of_engine(
    t: &GenerationTables,
    r: &RawReg,
    engine: &str,
    base: u32,
    what: &str,
) -> Result<u32, String> {
    match r {
        RawReg::Offset(o) => Ok(*o),
        RawReg::Name(n) => {
            let reg = find(t, n)?;
            if reg.engines.iter().any(|e| e == engine) {
                Ok(base + reg.offset)
            } else if reg.engines.is_empty() {
                Ok(reg.offset)
            } else {
                Err(format!("{what}: {n} has no instance on engine {engine}"))
            }
        }
    }
}

fn cited(reference: &str, what: &str) -> Result<String, String> {
    if reference.trim().is_empty() {
        Err(format!("{what}: empty ref (every fact needs a citation)"))
    } else {
        Ok(reference.to_string())
    }
}

/// Reads and checks `device.toml` text against the generation's tables.
pub fn parse(text: &str, t: &GenerationTables) -> Result<Device, String> {
    let raw: RawDevice = toml::from_str(text).map_err(|e| e.to_string())?;
    if !EU_ISAS.contains(&raw.eu_isa.as_str()) {
        return Err(format!("eu_isa {:?} is not one of {EU_ISAS:?}", raw.eu_isa));
    }
    let mut engines = Vec::new();
    for e in raw.engine {
        let what = format!("engine {}", e.name);
        let base = *t
            .engines
            .get(&e.name)
            .ok_or_else(|| format!("{what}: not in generation.toml [engines]"))?;
        let mut ring = [0; 5];
        for (slot, key) in ring.iter_mut().zip(RING) {
            let r = e
                .ring
                .get(key)
                .ok_or_else(|| format!("{what}: ring.{key} missing"))?;
            let rel = relative(t, r, &e.name, base, &format!("{what} ring.{key}"));
            *slot = match (key, r) {
                ("hws_pga", RawReg::Offset(o)) => *o,
                ("hws_pga", RawReg::Name(n)) => {
                    let reg = find(t, n)?;
                    if reg.engines.is_empty() {
                        reg.offset
                    } else {
                        base + rel?
                    }
                }
                _ => rel?,
            };
        }
        if let Some(k) = e.ring.keys().find(|k| !RING.contains(&k.as_str())) {
            return Err(format!(
                "{what}: unknown ring register {k} (one of {RING:?})"
            ));
        }
        let mut errors = [0; 8];
        for (slot, key) in errors.iter_mut().zip(ERRORS) {
            let r = e
                .errors
                .get(key)
                .ok_or_else(|| format!("{what}: errors.{key} missing"))?;
            *slot = of_engine(t, r, &e.name, base, &format!("{what} errors.{key}"))?;
        }
        if let Some(k) = e.errors.keys().find(|k| !ERRORS.contains(&k.as_str())) {
            return Err(format!(
                "{what}: unknown error register {k} (one of {ERRORS:?})"
            ));
        }
        let imr = e
            .imr
            .as_ref()
            .map(|r| of_engine(t, r, &e.name, base, &format!("{what} imr")))
            .transpose()?;
        let timestamp = e
            .timestamp
            .as_ref()
            .map(|r| of_engine(t, r, &e.name, base, &format!("{what} timestamp")))
            .transpose()?;
        let page_fault = e
            .page_fault
            .as_ref()
            .map(|r| of_engine(t, r, &e.name, base, &format!("{what} page_fault")))
            .transpose()?;
        for bit in [e.user_interrupt_bit, e.error_bit, e.notify_bit] {
            if bit > 31 {
                return Err(format!("{what}: interrupt bit {bit} beyond 31"));
            }
        }
        if let Some(g) = e.runs.iter().find(|g| !GROUPS.contains(&g.as_str())) {
            return Err(format!(
                "{what}: unknown command group {g} (one of {GROUPS:?})"
            ));
        }
        if engines.iter().any(|x: &Engine| x.name == e.name) {
            return Err(format!("{what}: listed twice"));
        }
        engines.push(Engine {
            citation: cited(&e.reference, &what)?,
            name: e.name,
            base,
            ring,
            errors,
            imr,
            timestamp,
            page_fault,
            user_interrupt_bit: e.user_interrupt_bit,
            error_bit: e.error_bit,
            notify_bit: e.notify_bit,
            reset_bit: e.reset_bit,
            runs: e.runs,
        });
    }
    if engines.is_empty() {
        return Err("no [[engine]]".into());
    }
    // Ring IMRs are all or nothing: an interrupt is masked at the ring level on every
    // engine or on none.
    let ring_imr = engines[0].imr.is_some();
    if let Some(e) = engines.iter().find(|e| e.imr.is_some() != ring_imr) {
        return Err(format!(
            "engine {}: imr given on some engines only (all or none)",
            e.name
        ));
    }
    let gt = raw.gt;
    let ints = raw.interrupts;
    let mut irq_blocks: Vec<IrqBlock> = Vec::new();
    for b in &ints.block {
        let what = format!("interrupts.block {}", b.name);
        if irq_blocks.iter().any(|x| x.name == b.name) {
            return Err(format!("{what}: listed twice"));
        }
        let mut regs = [0; 4];
        for ((slot, key), r) in regs
            .iter_mut()
            .zip(IRQ)
            .zip([&b.isr, &b.imr, &b.iir, &b.ier])
        {
            *slot = absolute(t, r, &format!("{what} {key}"))?;
        }
        irq_blocks.push(IrqBlock {
            name: b.name.clone(),
            regs,
            engines: b.engines,
        });
    }
    let irq = match irq_blocks.iter().filter(|b| b.engines).count() {
        1 => irq_blocks
            .iter()
            .find(|b| b.engines)
            .map(|b| b.regs)
            .unwrap_or_default(),
        n => {
            return Err(format!(
                "interrupts: {n} blocks hold the engines' bits (engines = true on exactly one)"
            ));
        }
    };
    let irq_master = match &ints.master {
        None => None,
        Some(m) if m.bit > 31 => return Err("interrupts.master.bit beyond 31".into()),
        Some(m) => Some((
            absolute(t, &m.register, "interrupts.master.register")?,
            m.bit,
        )),
    };
    let reset = match (gt.reset.method.as_str(), &gt.reset) {
        (
            "gdrst",
            RawReset {
                register: Some(r),
                full_bit: Some(full_bit),
                config_offset: None,
                ..
            },
        ) => Reset::Gdrst {
            register: absolute(t, r, "gt.reset.register")?,
            full_bit: *full_bit,
        },
        (
            "pci_config",
            RawReset {
                register: None,
                full_bit: None,
                config_offset: Some(o),
                ..
            },
        ) => Reset::PciConfig { offset: *o },
        (m, _) => {
            return Err(format!(
                "gt.reset: method {m:?} needs register and full_bit (\"gdrst\") or config_offset (\"pci_config\")"
            ));
        }
    };
    let wake = match &gt.forcewake {
        None => Wake::default(),
        Some(f) => {
            let thread_status = match (&f.thread_status, f.thread_status_mask) {
                (None, None) => None,
                (Some(r), Some(mask)) => {
                    Some((absolute(t, r, "gt.forcewake.thread_status")?, mask))
                }
                _ => {
                    return Err(
                        "gt.forcewake: thread_status and thread_status_mask go together".into(),
                    );
                }
            };
            let mt_enable = match &f.mt_enable {
                None => None,
                Some(_) if f.style != "multi_threaded" => {
                    return Err("gt.forcewake.mt_enable: only for style \"multi_threaded\"".into());
                }
                Some(m) if m.bit > 31 => return Err("gt.forcewake.mt_enable.bit beyond 31".into()),
                Some(m) => Some((
                    absolute(t, &m.register, "gt.forcewake.mt_enable.register")?,
                    m.bit,
                    absolute(
                        t,
                        &m.single_request,
                        "gt.forcewake.mt_enable.single_request",
                    )?,
                    absolute(t, &m.single_ack, "gt.forcewake.mt_enable.single_ack")?,
                )),
            };
            if f.ack_timeout_ms == 0 {
                return Err("gt.forcewake.ack_timeout_ms must be above 0".into());
            }
            Wake {
                ack_timeout_ms: f.ack_timeout_ms,
                posting_read: f
                    .posting_read
                    .as_ref()
                    .map(|r| absolute(t, r, "gt.forcewake.posting_read"))
                    .transpose()?,
                thread_status,
                mt_enable,
            }
        }
    };
    let forcewake = match &gt.forcewake {
        None => Forcewake::None,
        Some(f) => {
            let request = absolute(t, &f.request, "gt.forcewake.request")?;
            let ack = absolute(t, &f.ack, "gt.forcewake.ack")?;
            match f.style.as_str() {
                "single" => Forcewake::Single { request, ack },
                "multi_threaded" => Forcewake::MultiThreaded { request, ack },
                s => {
                    return Err(format!(
                        "gt.forcewake: style {s:?} is not \"single\" or \"multi_threaded\""
                    ));
                }
            }
        }
    };
    let gfx_mode = match &gt.gfx_mode {
        None => None,
        Some(RawReg::Offset(o)) => Some(GfxMode::Global(*o)),
        Some(RawReg::Name(n)) => {
            let reg = find(t, n)?;
            if reg.engines.is_empty() {
                Some(GfxMode::Global(reg.offset))
            } else if engines.iter().all(|e| reg.engines.contains(&e.name)) {
                Some(GfxMode::PerEngine(reg.offset))
            } else {
                return Err(format!("gt.gfx_mode: {n} is missing on some engines"));
            }
        }
    };
    if gt.page_fault_eir_bit > 31 {
        return Err("gt.page_fault_eir_bit beyond 31".into());
    }
    let gtt = raw.gtt;
    if !PTE_FORMATS.contains(&gtt.pte.as_str()) {
        return Err(format!(
            "gtt.pte {:?} is not one of {PTE_FORMATS:?}",
            gtt.pte
        ));
    }
    if gtt.alias_offset >= gtt.bar_size {
        return Err("gtt.alias_offset lies beyond bar_size".into());
    }
    let gtt_size = {
        let z = &gtt.size;
        let source = match (&z.register, z.config_offset) {
            (Some(r), None) => SizeSource::Mmio(absolute(t, r, "gtt.size.register")?),
            (None, Some(o)) => SizeSource::PciConfig(o),
            _ => return Err("gtt.size: give register or config_offset, not both".into()),
        };
        let (hi, lo) = field_bits(&z.bits, "gtt.size.bits")?;
        if hi > 31 || (matches!(source, SizeSource::PciConfig(_)) && hi > 15) {
            return Err(format!("gtt.size.bits {:?} out of the register", z.bits));
        }
        let width = hi - lo + 1;
        if z.kib.is_empty() || z.kib.len() > 1 << width {
            return Err(format!(
                "gtt.size.kib: {} sizes for a {width}-bit field",
                z.kib.len()
            ));
        }
        // The smallest size is the one the model reports and the entries stand for.
        if !z.kib.contains(&(gtt.entries / 256)) || !gtt.entries.is_multiple_of(256) {
            return Err(format!(
                "gtt.entries {:#x} is none of gtt.size.kib's sizes",
                gtt.entries
            ));
        }
        GttSize {
            source,
            shift: lo,
            width,
            kib: z.kib.clone(),
        }
    };
    let stolen = {
        let z = &gtt.stolen;
        let (word, bridge) = match (z.config_offset, z.bridge_config_offset) {
            (Some(o), None) => (o, false),
            (None, Some(o)) => (o, true),
            _ => {
                return Err(
                    "gtt.stolen: give config_offset or bridge_config_offset, not both".into(),
                );
            }
        };
        let (hi, lo) = field_bits(&z.bits, "gtt.stolen.bits")?;
        if hi > 15 {
            return Err(format!("gtt.stolen.bits {:?} out of the word", z.bits));
        }
        let width = hi - lo + 1;
        let (mib, unit_mib) = match (&z.mib, z.unit_mib) {
            (Some(m), None) if !m.is_empty() && m.len() <= 1 << width => (m.clone(), 0),
            (None, Some(u)) if u > 0 => (Vec::new(), u),
            _ => {
                return Err(format!(
                    "gtt.stolen: give mib (at most {} sizes) or a non-zero unit_mib",
                    1u32 << width
                ));
            }
        };
        if !z.base_offset.is_multiple_of(4) || z.base_offset >= 256 {
            return Err("gtt.stolen.base_offset must be a dword of the first 256 bytes".into());
        }
        Stolen {
            word,
            bridge,
            shift: lo,
            width,
            mib,
            unit_mib,
            base_offset: z.base_offset,
        }
    };
    let compute = match raw.compute {
        None => None,
        Some(c) => {
            if !SCRATCH.contains(&c.scratch.as_str()) {
                return Err(format!(
                    "compute.scratch {:?} is not one of {SCRATCH:?}",
                    c.scratch
                ));
            }
            if c.threads == 0 || c.grf_registers == 0 || c.curbe_read_rows >= c.grf_registers {
                return Err(
                    "compute: threads and grf_registers must be non-zero, curbe_read_rows below grf_registers"
                        .into(),
                );
            }
            Some(Compute {
                citation: cited(&c.reference, "compute")?,
                threads: c.threads,
                grf_registers: c.grf_registers,
                curbe_read_rows: c.curbe_read_rows,
                urb_rows: c.urb_rows,
                scratch: c.scratch,
                scratch_max_bytes: c.scratch_max_bytes,
                shared_local_memory_bytes: c.shared_local_memory_bytes,
                inline_dwords: c.inline_dwords,
                media_walker: c.media_walker,
                gpgpu_walker: c.gpgpu_walker,
            })
        }
    };
    let mut init = Vec::new();
    for w in &raw.init {
        let what = format!("init {}", w.register);
        let engine = engines
            .iter()
            .find(|e| e.name == w.engine)
            .ok_or_else(|| format!("{what}: no engine {}", w.engine))?;
        let reg = find(t, &w.register)?;
        if reg.access != "masked" {
            return Err(format!(
                "{what}: only masked registers (write enables in 31:16) are supported"
            ));
        }
        let register = of_engine(
            t,
            &RawReg::Name(w.register.clone()),
            &engine.name,
            engine.base,
            &what,
        )?;
        let (mut enables, mut bits) = (0u32, 0u32);
        for (name, &value) in &w.fields {
            let f = reg
                .fields
                .iter()
                .find(|f| &f.name == name)
                .ok_or_else(|| format!("{what}: no field {name}"))?;
            let width = f.end - f.start + 1;
            if f.end > 15 || value >> width != 0 {
                return Err(format!(
                    "{what}: field {name} ({}:{}) cannot take {value} below bit 16",
                    f.end, f.start
                ));
            }
            enables |= ((1 << width) - 1) << f.start;
            bits |= (value as u32) << f.start;
        }
        init.push(InitWrite {
            engine: w.engine.clone(),
            register,
            value: (enables << 16) | bits,
            citation: cited(&w.reference, &what)?,
        });
    }
    Ok(Device {
        eu_isa: raw.eu_isa,
        citation: cited(&raw.reference, "device")?,
        engines,
        irq,
        forcewake,
        wake,
        irq_blocks,
        irq_master,
        interrupts_citation: cited(&ints.reference, "interrupts")?,
        reset,
        gfx_mode,
        ring_imr,
        hwsp_physical: gt.hwsp_physical,
        physical_addressing: gt.physical_addressing,
        page_fault_eir_bit: gt.page_fault_eir_bit,
        gt_citation: cited(&gt.reference, "gt")?,
        gtt_alias_offset: gtt.alias_offset,
        gtt_entries: gtt.entries,
        bar_size: gtt.bar_size,
        gtt_flush: absolute(t, &gtt.flush, "gtt.flush")?,
        pte: gtt.pte,
        gtt_size,
        stolen,
        gtt_citation: cited(&gtt.reference, "gtt")?,
        compute,
        display: raw.display.map(|d| parse_display(d, t)).transpose()?,
        init,
    })
}

/// `"HI:LO"` (or one bit) as (hi, lo), hi at least lo and below 32.
fn field_bits(bits: &str, what: &str) -> Result<(u32, u32), String> {
    let (hi, lo) = match bits.split_once(':') {
        Some((h, l)) => (h.trim().parse::<u32>(), l.trim().parse::<u32>()),
        None => (bits.trim().parse::<u32>(), bits.trim().parse::<u32>()),
    };
    match (hi, lo) {
        (Ok(hi), Ok(lo)) if lo <= hi && hi <= 31 => Ok((hi, lo)),
        _ => Err(format!("{what} {bits:?} is not HI:LO")),
    }
}

fn doc(out: &mut String, indent: &str, text: &str) {
    for line in text.lines() {
        let line = line.replace('[', "\\[").replace(']', "\\]");
        let _ = writeln!(out, "{indent}/// {line}");
    }
}

/// The `DEVICE` constant of a generation module (`None` without a description).
pub fn generate(d: Option<&Device>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n/// The device description (`hal/tables/<gen>/device.toml`)."
    );
    let Some(d) = d else {
        let _ = writeln!(
            out,
            "pub static DEVICE: Option<crate::device::Device> = None;"
        );
        return out;
    };
    doc(&mut out, "", &d.citation);
    doc(&mut out, "", &format!("GT: {}", d.gt_citation));
    doc(&mut out, "", &format!("GTT: {}", d.gtt_citation));
    doc(
        &mut out,
        "",
        &format!("Interrupts: {}", d.interrupts_citation),
    );
    if let Some(c) = &d.compute {
        doc(&mut out, "", &format!("Compute: {}", c.citation));
    }
    for e in &d.engines {
        doc(&mut out, "", &format!("Engine {}: {}", e.name, e.citation));
    }
    if let Some(x) = &d.display {
        doc(&mut out, "", &format!("Display: {}", x.citation));
    }
    let _ = writeln!(
        out,
        "pub static DEVICE: Option<crate::device::Device> = Some(crate::device::Device {{"
    );
    let _ = writeln!(out, "    eu_isa: {:?},", d.eu_isa);
    let _ = writeln!(out, "    engines: &[");
    for e in &d.engines {
        let [tail, head, start, ctl, hws_pga] = e.ring;
        let runs: Vec<String> = e.runs.iter().map(|g| format!("{g:?}")).collect();
        let errors: Vec<String> = ERRORS
            .iter()
            .zip(e.errors)
            .map(|(k, o)| format!("{k}: {o:#x}"))
            .collect();
        let opt = |o: Option<u32>| o.map_or("None".to_string(), |o| format!("Some({o:#x})"));
        let _ = writeln!(
            out,
            "        crate::device::EngineDesc {{ name: {:?}, base: {:#x}, ring: crate::device::RingRegs {{ tail: {tail:#x}, head: {head:#x}, start: {start:#x}, ctl: {ctl:#x} }}, hws_pga: {hws_pga:#x}, errors: crate::device::ErrorRegs {{ {} }}, imr: {}, timestamp: {}, page_fault: {}, user_interrupt_bit: {}, error_bit: {}, notify_bit: {}, reset_bit: {}, runs: &[{}] }},",
            e.name,
            e.base,
            errors.join(", "),
            opt(e.imr),
            opt(e.timestamp),
            opt(e.page_fault),
            e.user_interrupt_bit,
            e.error_bit,
            e.notify_bit,
            e.reset_bit,
            runs.join(", ")
        );
    }
    let _ = writeln!(out, "    ],");
    let [isr, imr, iir, ier] = d.irq;
    let forcewake = match d.forcewake {
        Forcewake::None => "crate::device::Forcewake::None".to_string(),
        Forcewake::Single { request, ack } => {
            format!("crate::device::Forcewake::Single {{ request: {request:#x}, ack: {ack:#x} }}")
        }
        Forcewake::MultiThreaded { request, ack } => format!(
            "crate::device::Forcewake::MultiThreaded {{ request: {request:#x}, ack: {ack:#x} }}"
        ),
    };
    let reset = match d.reset {
        Reset::Gdrst { register, full_bit } => format!(
            "crate::device::Reset::Gdrst {{ register: {register:#x}, full_bit: {full_bit} }}"
        ),
        Reset::PciConfig { offset } => {
            format!("crate::device::Reset::PciConfig {{ offset: {offset:#x} }}")
        }
    };
    let gfx_mode = match d.gfx_mode {
        None => "None".to_string(),
        Some(GfxMode::Global(o)) => format!("Some(crate::device::GfxMode::Global({o:#x}))"),
        Some(GfxMode::PerEngine(o)) => format!("Some(crate::device::GfxMode::PerEngine({o:#x}))"),
    };
    let w = &d.wake;
    let opt = |o: Option<u32>| o.map_or("None".to_string(), |o| format!("Some({o:#x})"));
    let thread_status = w.thread_status.map_or("None".to_string(), |(r, m)| {
        format!("Some(({r:#x}, {m:#x}))")
    });
    let mt_enable = w.mt_enable.map_or("None".to_string(), |(r, b, req, ack)| {
        format!("Some(crate::device::MtEnable {{ register: {r:#x}, bit: {b}, single_request: {req:#x}, single_ack: {ack:#x} }})")
    });
    let wake = format!(
        "crate::device::WakeSequence {{ ack_timeout_ms: {}, posting_read: {}, thread_status: {thread_status}, mt_enable: {mt_enable} }}",
        w.ack_timeout_ms,
        opt(w.posting_read)
    );
    let _ = writeln!(
        out,
        "    gt: crate::device::GtDesc {{ irq: crate::device::IrqRegs {{ isr: {isr:#x}, imr: {imr:#x}, iir: {iir:#x}, ier: {ier:#x} }}, forcewake: {forcewake}, wake: {wake}, reset: {reset}, gfx_mode: {gfx_mode}, ring_imr: {}, hwsp_physical: {}, physical_addressing: {}, page_fault_eir_bit: {} }},",
        d.ring_imr, d.hwsp_physical, d.physical_addressing, d.page_fault_eir_bit
    );
    let blocks: Vec<String> = d
        .irq_blocks
        .iter()
        .map(|b| {
            let [isr, imr, iir, ier] = b.regs;
            format!(
                "crate::device::IrqBlock {{ name: {:?}, regs: crate::device::IrqRegs {{ isr: {isr:#x}, imr: {imr:#x}, iir: {iir:#x}, ier: {ier:#x} }}, engines: {} }}",
                b.name, b.engines
            )
        })
        .collect();
    let master = d.irq_master.map_or("None".to_string(), |(r, b)| {
        format!("Some(crate::device::MasterEnable {{ register: {r:#x}, bit: {b} }})")
    });
    let _ = writeln!(
        out,
        "    interrupts: crate::device::InterruptDesc {{ blocks: &[{}], master: {master} }},",
        blocks.join(", ")
    );
    let pte = match d.pte.as_str() {
        "gen4" => "Gen4",
        "gen6" => "Gen6",
        _ => "Gen7",
    };
    let z = &d.gtt_size;
    let source = match z.source {
        SizeSource::Mmio(o) => format!("crate::device::SizeSource::Mmio({o:#x})"),
        SizeSource::PciConfig(o) => format!("crate::device::SizeSource::PciConfig({o:#x})"),
    };
    let kib: Vec<String> = z.kib.iter().map(|k| k.to_string()).collect();
    let st = &d.stolen;
    let st_word = if st.bridge {
        format!("crate::device::ConfigWord::HostBridge({:#x})", st.word)
    } else {
        format!("crate::device::ConfigWord::Gpu({:#x})", st.word)
    };
    let st_mib: Vec<String> = st.mib.iter().map(|k| k.to_string()).collect();
    let _ = writeln!(
        out,
        "    gtt: crate::device::GttDesc {{ alias_offset: {:#x}, entries: {:#x}, bar_size: {:#x}, flush_register: {:#x}, pte: crate::device::PteFormat::{pte}, size: crate::device::GttSize {{ source: {source}, shift: {}, width: {}, kib: &[{}] }}, stolen: crate::device::StolenDesc {{ size: {st_word}, shift: {}, width: {}, mib: &[{}], unit_mib: {}, base_offset: {:#x} }} }},",
        d.gtt_alias_offset,
        d.gtt_entries,
        d.bar_size,
        d.gtt_flush,
        z.shift,
        z.width,
        kib.join(", "),
        st.shift,
        st.width,
        st_mib.join(", "),
        st.unit_mib,
        st.base_offset
    );
    let compute = match &d.compute {
        None => "None".to_string(),
        Some(c) => {
            let scratch = if c.scratch == "linear_kib" {
                "LinearKib"
            } else {
                "PowersOfTwoKib"
            };
            let urb = c
                .urb_rows
                .map_or("None".to_string(), |r| format!("Some({r})"));
            format!(
                "Some(crate::device::ComputeDesc {{ threads: {}, grf_registers: {}, curbe_read_rows: {}, urb_rows: {urb}, scratch: crate::device::ScratchEncoding::{scratch}, scratch_max_bytes: {}, shared_local_memory_bytes: {}, inline_dwords: {}, media_walker: {}, gpgpu_walker: {} }})",
                c.threads,
                c.grf_registers,
                c.curbe_read_rows,
                c.scratch_max_bytes,
                c.shared_local_memory_bytes,
                c.inline_dwords,
                c.media_walker,
                c.gpgpu_walker
            )
        }
    };
    let _ = writeln!(out, "    compute: {compute},");
    let _ = writeln!(out, "    display: {},", display_code(d.display.as_ref()));
    let _ = writeln!(out, "    init: &[");
    for w in &d.init {
        for line in w.citation.lines() {
            let _ = writeln!(out, "        // {line}");
        }
        let _ = writeln!(
            out,
            "        crate::device::InitWrite {{ engine: {:?}, register: {:#x}, value: {:#010x} }},",
            w.engine, w.register, w.value
        );
    }
    let _ = writeln!(out, "    ],");
    let _ = writeln!(out, "}});");
    out
}

/// The `display` member of the generated `Device`.
fn display_code(d: Option<&Display>) -> String {
    let Some(d) = d else {
        return "None".into();
    };
    let opt = |o: Option<u32>| o.map_or("None".to_string(), |o| format!("Some({o:#x})"));
    let bit = |s: &StatusBit| {
        format!(
            "crate::device::StatusBit {{ register: {:#x}, bit: {} }}",
            s.register, s.bit
        )
    };
    let opt_bit = |s: &Option<StatusBit>| {
        s.as_ref()
            .map_or("None".into(), |s| format!("Some({})", bit(s)))
    };
    let mut pipes = String::new();
    for p in &d.pipes {
        let [conf, src, frame, cntr, linoff, stride, surf, tileoff] = p.regs;
        let _ = write!(
            pipes,
            "crate::device::PipeDesc {{ name: {:?}, conf: {conf:#x}, src: {src:#x}, frame: {frame:#x}, frame_pixel: {}, flip_count: {}, stat: {}, cntr: {cntr:#x}, linoff: {linoff:#x}, stride: {stride:#x}, surf: {surf:#x}, tileoff: {tileoff:#x}, vblank: {}, flip_done: {}, flip_pending: {}, flip_plane: {}, stat_event: {} }}, ",
            p.name,
            opt(p.frame_pixel),
            opt(p.flip_count),
            opt(p.stat),
            bit(&p.vblank),
            opt_bit(&p.flip_done),
            opt_bit(&p.flip_pending),
            p.flip_plane,
            opt_bit(&p.stat_event)
        );
    }
    let formats: Vec<String> = d
        .formats
        .iter()
        .map(|(code, name)| {
            let variant = FORMATS.iter().find(|(n, _)| n == name).map_or("C8", |f| f.1);
            format!("crate::device::PlaneFormat {{ code: {code}, format: crate::device::PixelFormat::{variant} }}")
        })
        .collect();
    let field = |name: &str| {
        d.bits.iter().find(|b| b.0 == name).map(|b| {
            format!(
                "crate::device::FieldBits {{ shift: {}, width: {} }}",
                b.1, b.2
            )
        })
    };
    let bits: Vec<String> = DISPLAY_BITS
        .iter()
        .map(|(name, ..)| match (*name, field(name)) {
            ("pipe_select", f) => format!(
                "pipe_select: {}",
                f.map_or("None".into(), |f| format!("Some({f})"))
            ),
            (_, f) => format!("{name}: {}", f.unwrap_or_default()),
        })
        .collect();
    format!(
        "Some(crate::device::DisplayDesc {{ pipes: &[{pipes}], formats: &[{}], flip_engine: {:?}, bits: crate::device::DisplayBits {{ {} }} }})",
        formats.join(", "),
        d.flip_engine,
        bits.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A made-up generation: two engines, a GT interrupt block, a per-engine mode register.
    fn tables(test: &str) -> GenerationTables {
        let dir = std::env::temp_dir().join(format!("devtest-{test}-{}", std::process::id()));
        let g = dir.join("testgen");
        std::fs::create_dir_all(&g).unwrap();
        std::fs::write(
            g.join("generation.toml"),
            "name = \"testgen\"\nmanual = \"ext\"\n[engines]\nrender = 0x2000\ncopy = 0x30000\n",
        )
        .unwrap();
        let reg = |name: &str, offset: u32, engines: &str| {
            format!(
                "[[register]]\nname = \"{name}\"\nsource = \"ext\"\nref = \"test\"\noffset = {offset:#x}\nengines = [{engines}]\n"
            )
        };
        let both = "\"render\", \"copy\"";
        let regs = [
            reg("TAIL", 0x30, both),
            reg("HEAD", 0x34, both),
            reg("START", 0x38, both),
            reg("CTL", 0x3c, both),
            reg("HWS", 0x80, both),
            reg("MODE", 0x29c, both),
            reg("ISR", 0x9000, ""),
            reg("IMR", 0x9004, ""),
            reg("IIR", 0x9008, ""),
            reg("IER", 0x900c, ""),
            reg("RST", 0x9100, ""),
            reg("FLUSH", 0x9200, ""),
            reg("IPEIR", 0x64, both),
            reg("IPEHR", 0x68, both),
            reg("INSTDONE", 0x6c, both),
            reg("ACTHD", 0x74, both),
            reg("EIR", 0x90b0, ""),
            reg("EMR", 0x90b4, ""),
            reg("ESR", 0xb8, both),
            reg("BB_ADDR", 0x140, both),
            reg("RING_IMR", 0xa8, both),
            reg("TIMESTAMP", 0x358, "\"render\""),
        ];
        std::fs::write(g.join("registers.toml"), regs.concat()).unwrap();
        let t = crate::load_generation(&dir, "testgen").unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        t
    }

    const DEVICE: &str = r#"
eu_isa = "gen7"
ref = "test"
[gt]
ref = "test"
reset = { method = "gdrst", register = "RST", full_bit = 0 }
gfx_mode = "MODE"
hwsp_physical = false
physical_addressing = false
page_fault_eir_bit = 4
[interrupts]
ref = "test"
master = { register = "IER", bit = 31 }
block = [{ name = "gt", isr = "ISR", imr = "IMR", iir = "IIR", ier = "IER", engines = true }]
[gtt]
ref = "test"
alias_offset = 0x200000
entries = 0x40000
bar_size = 0x400000
flush = "FLUSH"
pte = "gen7"
size = { config_offset = 0x50, bits = "9:8", kib = [0, 1024, 2048] }
stolen = { config_offset = 0x50, bits = "7:3", unit_mib = 32, base_offset = 0x5c }
[compute]
ref = "test"
threads = 36
grf_registers = 128
curbe_read_rows = 127
scratch = "pow2_kib"
scratch_max_bytes = 0x200000
shared_local_memory_bytes = 0x10000
inline_dwords = 504
media_walker = true
gpgpu_walker = true
[[engine]]
name = "render"
ref = "test"
user_interrupt_bit = 0
error_bit = 3
notify_bit = 4
reset_bit = 1
runs = ["mi", "3d"]
ring = { tail = "TAIL", head = "HEAD", start = "START", ctl = "CTL", hws_pga = "HWS" }
errors = { ipeir = "IPEIR", ipehr = "IPEHR", instdone = "INSTDONE", acthd = "ACTHD", eir = "EIR", emr = "EMR", esr = "ESR", bb_addr = "BB_ADDR" }
imr = "RING_IMR"
timestamp = "TIMESTAMP"
"#;

    #[test]
    fn an_engine_is_one_table_entry() {
        let t = tables("one");
        let one = parse(DEVICE, &t).unwrap();
        assert_eq!(one.engines.len(), 1);
        assert_eq!(one.irq, [0x9000, 0x9004, 0x9008, 0x900c]);
        assert_eq!(one.gfx_mode, Some(GfxMode::PerEngine(0x29c)));
        // Adding the copy engine is one more [[engine]] entry: its registers resolve on its base.
        let two = format!(
            "{DEVICE}[[engine]]\nname = \"copy\"\nref = \"test\"\nuser_interrupt_bit = 22\nerror_bit = 25\nnotify_bit = 26\nreset_bit = 3\nruns = [\"blitter\"]\nring = {{ tail = \"TAIL\", head = \"HEAD\", start = \"START\", ctl = \"CTL\", hws_pga = \"HWS\" }}\nerrors = {{ ipeir = \"IPEIR\", ipehr = \"IPEHR\", instdone = \"INSTDONE\", acthd = \"ACTHD\", eir = \"EIR\", emr = \"EMR\", esr = \"ESR\", bb_addr = 0x30140 }}\nimr = \"RING_IMR\"\n"
        );
        let d = parse(&two, &t).unwrap();
        let copy = &d.engines[1];
        assert_eq!(
            (copy.base, copy.ring),
            (0x30000, [0x30, 0x34, 0x38, 0x3c, 0x30080])
        );
        // Per-engine error registers land on its base, GT-level ones are shared, an offset
        // is taken as written.
        assert_eq!(
            copy.errors,
            [
                0x30064, 0x30068, 0x3006c, 0x30074, 0x90b0, 0x90b4, 0x300b8, 0x30140
            ]
        );
        assert_eq!((copy.imr, copy.timestamp), (Some(0x300a8), None));
        assert_eq!(d.engines[0].timestamp, Some(0x2358));
        assert!(d.ring_imr);
        let code = generate(Some(&d));
        assert!(code.contains("name: \"copy\", base: 0x30000"), "{code}");
        assert!(code.contains("iir: 0x9008"), "{code}");
        assert!(code.contains("eir: 0x90b0"), "{code}");
        assert!(
            code.contains("size: crate::device::GttSize { source: crate::device::SizeSource::PciConfig(0x50), shift: 8, width: 2, kib: &[0, 1024, 2048] }"),
            "{code}"
        );
        assert!(
            code.contains("threads: 36, grf_registers: 128, curbe_read_rows: 127, urb_rows: None, scratch: crate::device::ScratchEncoding::PowersOfTwoKib"),
            "{code}"
        );
        assert!(
            code.contains("imr: Some(0x300a8), timestamp: None, page_fault: None"),
            "{code}"
        );
        assert!(
            code.contains("interrupts: crate::device::InterruptDesc { blocks: &[crate::device::IrqBlock { name: \"gt\", regs: crate::device::IrqRegs { isr: 0x9000, imr: 0x9004, iir: 0x9008, ier: 0x900c }, engines: true }], master: Some(crate::device::MasterEnable { register: 0x900c, bit: 31 }) }"),
            "{code}"
        );
        // A forcewake with its whole sequence.
        let fw = DEVICE.replace(
            "gfx_mode = \"MODE\"",
            "gfx_mode = \"MODE\"\nforcewake = { style = \"multi_threaded\", request = 0xa188, ack = 0x130040, ack_timeout_ms = 50, posting_read = 0xa180, thread_status = 0x13805c, thread_status_mask = 7, mt_enable = { register = 0xa180, bit = 5, single_request = 0xa18c, single_ack = 0x130090 } }",
        );
        let d = parse(&fw, &t).unwrap();
        assert_eq!(
            d.wake,
            Wake {
                ack_timeout_ms: 50,
                posting_read: Some(0xa180),
                thread_status: Some((0x13805c, 7)),
                mt_enable: Some((0xa180, 5, 0xa18c, 0x130090)),
            }
        );
        assert!(
            generate(Some(&d)).contains("mt_enable: Some(crate::device::MtEnable { register: 0xa180, bit: 5, single_request: 0xa18c, single_ack: 0x130090 })"),
        );
        for (bad, want) in [
            (fw.replace("multi_threaded", "single"), "only for style"),
            (fw.replace(", thread_status_mask = 7", ""), "go together"),
            (
                fw.replace("ack_timeout_ms = 50", "ack_timeout_ms = 0"),
                "above 0",
            ),
        ] {
            let e = parse(&bad, &t).unwrap_err();
            assert!(e.contains(want), "{e} (wanted {want})");
        }
        assert!(generate(None).contains("DEVICE: Option<crate::device::Device> = None"));
    }

    /// A second instance of an engine of the tables is one entry: `like` and `base`
    /// give it the commands and per-engine registers of the engine it is like.
    #[test]
    fn an_instance_of_an_engine_is_one_entry() {
        let mut t = tables("instance");
        let text = format!(
            "{DEVICE}[[engine]]\nname = \"render2\"\nlike = \"render\"\nbase = 0x50000\nref = \"test\"\nuser_interrupt_bit = 6\nerror_bit = 7\nnotify_bit = 8\nreset_bit = 4\nruns = [\"mi\"]\nring = {{ tail = \"TAIL\", head = \"HEAD\", start = \"START\", ctl = \"CTL\", hws_pga = \"HWS\" }}\nerrors = {{ ipeir = \"IPEIR\", ipehr = \"IPEHR\", instdone = \"INSTDONE\", acthd = \"ACTHD\", eir = \"EIR\", emr = \"EMR\", esr = \"ESR\", bb_addr = \"BB_ADDR\" }}\nimr = \"RING_IMR\"\n"
        );
        assert!(
            parse(&text, &t).is_err(),
            "unknown before the instances are added"
        );
        add_instances(&text, &mut t).unwrap();
        assert_eq!(t.engines.get("render2"), Some(&0x50000));
        assert!(
            t.registers
                .iter()
                .find(|r| r.name == "TAIL")
                .unwrap()
                .engines
                .contains(&"render2".to_string())
        );
        let d = parse(&text, &t).unwrap();
        let e = &d.engines[1];
        assert_eq!(
            (e.base, e.ring[0], e.errors[0], e.imr),
            (0x50000, 0x30, 0x50064, Some(0x500a8))
        );
        for (bad, want) in [
            (text.replace("base = 0x50000", "base = 0x2000"), "is taken"),
            (
                text.replace("like = \"render\"", "like = \"vcs\""),
                "not an engine",
            ),
            (text.replace("base = 0x50000\n", ""), "go together"),
        ] {
            let mut t = tables("instance-bad");
            let e = add_instances(&bad, &mut t).unwrap_err();
            assert!(e.contains(want), "{e} (wanted {want})");
        }
    }

    /// The display description resolves its registers and fields against the
    /// real tables, and names what is wrong.
    #[test]
    fn the_display_resolves_against_the_tables() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tables");
        let t = crate::load_generation(&root, "gen6").unwrap();
        let text = std::fs::read_to_string(root.join("gen6/device.toml")).unwrap();
        let d = parse(&text, &t).unwrap().display.unwrap();
        assert_eq!(d.pipes.len(), 2);
        // conf, src, frame, cntr ... of pipe B (003 register summary).
        assert_eq!(&d.pipes[1].regs[..4], &[0x71008, 0x6101c, 0x71040, 0x71180]);
        assert_eq!(
            d.pipes[0].vblank,
            StatusBit {
                register: 0x44008,
                bit: 7
            }
        );
        for want in [("tiled", 10, 1), ("pixel_format", 26, 4), ("stride", 6, 10)] {
            assert!(d.bits.contains(&want), "{want:?} in {:?}", d.bits);
        }
        assert!(
            !d.bits.iter().any(|b| b.0 == "pipe_select"),
            "SNB ties planes to pipes"
        );
        let code = generate(Some(&parse(&text, &t).unwrap()));
        assert!(code.contains("flip_engine: \"render\""), "{code}");
        for (bad, want) in [
            (text.replace("\"xbgr8888\"", "\"rgb888\""), "unknown format"),
            (text.replace("code = 14", "code = 16"), "does not fit"),
            (
                text.replace("flip_engine = \"render\"", "flip_engine = \"video\""),
                "does not run there",
            ),
            (
                text.replace("cntr = \"DSPBCNTR\"", "cntr = \"DSPBSTRIDE\""),
                "no field",
            ),
            (
                text.replace("field = \"pipe_a_vblank\"", "field = \"pipe_a_vblnk\""),
                "DEIIR has no field pipe_a_vblnk",
            ),
        ] {
            let e = parse(&bad, &t).unwrap_err();
            assert!(e.contains(want), "{e} (wanted {want})");
        }
    }

    #[test]
    fn wrong_entries_are_named() {
        let t = tables("wrong");
        let cases = [
            (
                DEVICE.replace("iir = \"IIR\"", "iir = \"NOPE\""),
                "NOPE is not in",
            ),
            (
                DEVICE.replace("tail = \"TAIL\"", "tail = 0x100"),
                "lies below the engine base",
            ),
            (
                DEVICE.replace("isr = \"ISR\"", "isr = \"TAIL\""),
                "per-engine register",
            ),
            (
                DEVICE.replace("name = \"render\"", "name = \"vcs\""),
                "not in generation.toml",
            ),
            (
                DEVICE.replace("runs = [\"mi\", \"3d\"]", "runs = [\"2d\"]"),
                "unknown command group",
            ),
            (
                DEVICE.replace("ref = \"test\"\nuser", "ref = \" \"\nuser"),
                "citation",
            ),
            (
                DEVICE.replace("method = \"gdrst\"", "method = \"pci_config\""),
                "gt.reset",
            ),
            (
                DEVICE.replace("pte = \"gen7\"", "pte = \"gen9\""),
                "gtt.pte",
            ),
            (
                DEVICE.replace("eir = \"EIR\", ", ""),
                "errors.eir missing",
            ),
            (
                DEVICE.replace("entries = 0x40000", "entries = 0x30000"),
                "none of gtt.size.kib",
            ),
            (
                DEVICE.replace("bits = \"9:8\"", "bits = \"8:9\""),
                "gtt.size.bits",
            ),
            (
                DEVICE.replace("unit_mib = 32", "unit_mib = 32, mib = [0, 1]"),
                "gtt.stolen: give mib",
            ),
            (
                DEVICE.replace("bits = \"7:3\"", "bits = \"17:3\""),
                "gtt.stolen.bits",
            ),
            (
                DEVICE.replace("kib = [0, 1024, 2048]", "kib = [0, 1024, 2048, 4096, 1]"),
                "5 sizes for a 2-bit field",
            ),
            (
                DEVICE.replace("pow2_kib", "log_kib"),
                "compute.scratch",
            ),
            (
                DEVICE.replace("curbe_read_rows = 127", "curbe_read_rows = 128"),
                "curbe_read_rows below grf_registers",
            ),
            (
                DEVICE.replace("timestamp = \"TIMESTAMP\"", "timestamp = \"TIMESTAMP\"\n[[engine]]\nname = \"copy\"\nref = \"t\"\nuser_interrupt_bit = 22\nerror_bit = 25\nnotify_bit = 26\nreset_bit = 3\nruns = [\"mi\"]\nring = { tail = \"TAIL\", head = \"HEAD\", start = \"START\", ctl = \"CTL\", hws_pga = \"HWS\" }\nerrors = { ipeir = \"IPEIR\", ipehr = \"IPEHR\", instdone = \"INSTDONE\", acthd = \"ACTHD\", eir = \"EIR\", emr = \"EMR\", esr = \"ESR\", bb_addr = \"BB_ADDR\" }"),
                "all or none",
            ),
            (
                DEVICE.replace("esr = \"ESR\"", "esr = \"ESR\", fault = \"ESR\""),
                "unknown error register",
            ),
            (
                DEVICE.replace(", engines = true", ""),
                "0 blocks hold the engines' bits",
            ),
            (
                DEVICE.replace("bit = 31", "bit = 32"),
                "interrupts.master.bit beyond 31",
            ),
            (
                DEVICE.replace("ier = \"IER\", engines", "ier = \"TAIL\", engines"),
                "per-engine register",
            ),
        ];
        for (text, want) in cases {
            let e = parse(&text, &t).unwrap_err();
            assert!(e.contains(want), "{e} (wanted {want})");
        }
    }
}
