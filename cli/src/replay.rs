//! `baregpu replay`: a raw batch run on the software GPU through the
//! driver's normal submission path, with memory objects at the GPU addresses
//! the batch expects, and memory read back afterwards, so that batches
//! captured from or written like other drivers can be checked.
//!
//! ```text
//! baregpu replay --gen <gen> [--engine <render|blitter|video|compute>] [--ppgtt]
//!                --mem <addr>=<file> | --mem <addr>=zero:<bytes>     (repeatable)
//!                --batch <addr>
//!                [--dump <addr>:<bytes>=<file>]... [--timeout-ms <ms>]
//!                [--png <addr>:<w>x<h>:<format>[:pitch=<bytes>][:linear|:x|:y]=<file>]...
//! ```
//!
//! Without `--ppgtt` the objects are mapped at their GGTT addresses and the
//! batch runs secure; the driver brings the GPU up with its own GGTT objects
//! (status pages, rings) outside the objects' ranges (`Gpu::new_avoiding`).
//! Unused GGTT entries are made invalid (the driver points them at a scratch
//! page, as Linux does), so that an access outside the objects is reported as a
//! page fault.
//! With `--ppgtt` (Gen6/Gen7) they are mapped in a new context's PPGTT and the
//! batch runs non-secure in that context; the driver's objects stay in the
//! GGTT, so only PPGTT page 0 is unavailable.

use std::fmt::Write as _;

use baregpu::gtt::PAGE;
use baregpu::gtt::ggtt::GgttLayout;
use baregpu::gtt::{GfxAddr, ppgtt};
use baregpu::platform::host::HostPlatform;
use baregpu::platform::{LocalMemory, PlatformBus};
use baregpu::submit::Placement;
use baregpu::submit::engines;
use baregpu::{Dma, Generation, Gpu};
use baregpu_soft::SoftGpu;

use crate::picture::{self, PngDump};
use crate::run::{number, read, wall_ns};

pub const USAGE: &str =
    "  baregpu replay --gen <gen4|g45|gen6|gen7|gen12.5> [--engine <render|blitter|video|compute>] [--ppgtt]
                 --mem <addr>=<file> | --mem <addr>=zero:<bytes>   (repeatable)
                 --batch <addr> [--dump <addr>:<bytes>=<file>]... [--timeout-ms <ms>]
                 [--png <addr>:<w>x<h>:<format>[:pitch=<bytes>][:linear|:x|:y]=<file>]...
      Run a raw batch (little-endian dwords) on the software GPU: each --mem
      object is placed at exactly its GPU address (hex 0x... or decimal, 4 KiB
      aligned; size rounded up to pages, zero-filled), the engine's ring starts
      the batch at --batch (inside an object) as a first-level batch, and once
      it completes each --dump writes <bytes> at <addr> to <file>. Addresses
      are GGTT addresses and the batch is secure; with --ppgtt (gen6, gen7)
      PPGTT addresses of a new context and the batch is non-secure. The
      driver's own rings and status pages take the lowest free GGTT pages
      outside the objects; page 0 is never mapped. A hang (--timeout-ms,
      wall-clock, default 10000), a fault or a refused command prints the
      decoded error state and exits with status 1. Engines: render (also runs
      the blitter commands on gen4/g45), video (g45 on), blitter (gen6 on),
      compute (gen12.5). On gen12.5 the addresses are always PPGTT addresses
      of a new context (below 4 GiB), run through execlists.
      --png writes the surface at <addr> as a PNG picture (formats b8g8r8a8,
      b8g8r8x8, r8g8b8a8, r8, r32f, d16, d24s8, d32f; the pitch defaults to
      the smallest valid one for the tiling).";

/// More than any GGTT or PPGTT here (2 GiB at most); also keeps the page
/// rounding from overflowing.
const MAX_OBJECT_BYTES: u64 = 1 << 32;

/// Default wall-clock bound of the wait for the batch.
const DEFAULT_TIMEOUT_MS: u64 = 10_000;

/// A memory object's initial contents.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Contents {
    File { path: String, bytes: Vec<u8> },
    Zero(u64),
}

/// A `--mem` object.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Mem {
    gfx: u64,
    contents: Contents,
}

impl Mem {
    /// Bytes the user gave (file length or zero count).
    fn len(&self) -> u64 {
        match &self.contents {
            Contents::File { bytes, .. } => bytes.len() as u64,
            Contents::Zero(n) => *n,
        }
    }
    /// The mapped size: whole pages.
    fn mapped(&self) -> u64 {
        self.len().next_multiple_of(PAGE)
    }
    fn end(&self) -> u64 {
        self.gfx + self.mapped()
    }
    fn what(&self) -> String {
        match &self.contents {
            Contents::File { path, .. } => format!("{:#x}={path}", self.gfx),
            Contents::Zero(n) => format!("{:#x}=zero:{n}", self.gfx),
        }
    }
}

/// A `--dump` request.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Dump {
    gfx: u64,
    bytes: u64,
    file: String,
}

#[derive(Debug)]
struct Options {
    generation: Generation,
    engine: &'static str,
    ppgtt: bool,
    mems: Vec<Mem>,
    batch: u64,
    dumps: Vec<Dump>,
    /// `--png`: surfaces written as pictures.
    pngs: Vec<PngDump>,
    timeout_ms: u64,
}

/// The generation (Gen12.5 too: its execlist backend).
fn generation(name: &str) -> Result<Generation, String> {
    if Generation::from_name(name) == Some(Generation::Gen12_5) {
        return Ok(Generation::Gen12_5);
    }
    crate::run::generation(name).map(|(g, _)| g)
}

/// Gen12.5's engines in the execlist backend.
const GEN12_5_ENGINES: [&str; 3] = ["render", "blitter", "compute"];

/// The engine named `name` on `generation`, or why there is none.
fn engine(generation: Generation, name: &str) -> Result<&'static str, String> {
    let names: Vec<&'static str> = if generation == Generation::Gen12_5 {
        GEN12_5_ENGINES.to_vec()
    } else {
        engines::profile(generation)
            .map(|p| p.engines.iter().map(|e| e.name).collect())
            .unwrap_or_default()
    };
    if let Some(&n) = names.iter().find(|&&n| n == name) {
        return Ok(n);
    }
    let have = names.join(", ");
    Err(match name {
        "compute" => format!(
            "--engine compute: the compute engine exists from Gen12.5 on; {generation} has {have} \
             (GPGPU and media work runs on the render engine)"
        ),
        "blitter" => format!(
            "--engine blitter: {generation} has no blitter engine ({have}); its XY_* blitter \
             commands run on the render ring (--engine render)"
        ),
        "render" | "video" => {
            format!("--engine {name}: {generation} has no {name} engine ({have})")
        }
        _ => format!("--engine {name:?}: one of render, blitter, video, compute"),
    })
}

/// A 32-bit-or-less address.
fn address(s: &str, what: &str) -> Result<u64, String> {
    number(s).map_err(|e| format!("{what}: {e}"))
}

/// `<addr>=<file>` or `<addr>=zero:<bytes>`.
fn mem(s: &str) -> Result<Mem, String> {
    let (addr, what) = s
        .split_once('=')
        .ok_or_else(|| format!("--mem {s:?}: expected <addr>=<file> or <addr>=zero:<bytes>"))?;
    let gfx = address(addr, &format!("--mem {s:?}"))?;
    if !gfx.is_multiple_of(PAGE) {
        return Err(format!(
            "--mem {s:?}: address {gfx:#x} is not 4 KiB aligned"
        ));
    }
    let contents = match what.strip_prefix("zero:") {
        Some(n) => Contents::Zero(number(n).map_err(|e| format!("--mem {s:?}: {e}"))?),
        None => Contents::File {
            path: what.to_string(),
            // Larger than any GGTT or PPGTT here (checked again below).
            bytes: read(what, MAX_OBJECT_BYTES, "memory object")?,
        },
    };
    let m = Mem { gfx, contents };
    if m.len() == 0 {
        return Err(format!("--mem {s:?}: the object is empty"));
    }
    // Larger than any GGTT or PPGTT here (2 GiB at most); also keeps the
    // page rounding from overflowing.
    if m.len() > MAX_OBJECT_BYTES {
        return Err(format!(
            "--mem {s:?}: larger than any GPU address space here"
        ));
    }
    Ok(m)
}

/// `<addr>:<bytes>=<file>`.
fn dump(s: &str) -> Result<Dump, String> {
    let bad = || format!("--dump {s:?}: expected <addr>:<bytes>=<file>");
    let (range, file) = s.split_once('=').ok_or_else(bad)?;
    let (addr, bytes) = range.split_once(':').ok_or_else(bad)?;
    let d = Dump {
        gfx: address(addr, &format!("--dump {s:?}"))?,
        bytes: number(bytes).map_err(|e| format!("--dump {s:?}: {e}"))?,
        file: file.to_string(),
    };
    if d.bytes == 0 || file.is_empty() {
        return Err(bad());
    }
    Ok(d)
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut it = args.iter();
    let get = |flag: &str, it: &mut std::slice::Iter<String>| {
        it.next()
            .cloned()
            .ok_or_else(|| format!("{flag} needs a value"))
    };
    let (mut gen_name, mut engine_name, mut ppgtt) = (None, "render".to_string(), false);
    let (mut mems, mut batch, mut dumps, mut timeout_ms) =
        (Vec::new(), None, Vec::new(), DEFAULT_TIMEOUT_MS);
    let mut pngs = Vec::new();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--gen" => gen_name = Some(get(a, &mut it)?),
            "--engine" => engine_name = get(a, &mut it)?,
            "--ppgtt" => ppgtt = true,
            "--mem" => mems.push(mem(&get(a, &mut it)?)?),
            "--batch" => batch = Some(address(&get(a, &mut it)?, "--batch")?),
            "--dump" => dumps.push(dump(&get(a, &mut it)?)?),
            "--png" => pngs.push(picture::parse_dump(&get(a, &mut it)?, number)?),
            "--timeout-ms" => {
                timeout_ms = number(&get(a, &mut it)?).map_err(|e| format!("--timeout-ms: {e}"))?
            }
            other => return Err(format!("unexpected argument {other:?}\nusage:\n{USAGE}")),
        }
    }
    let gen_name = gen_name.ok_or_else(|| format!("--gen is required\nusage:\n{USAGE}"))?;
    let generation = generation(&gen_name)?;
    let engine = engine(generation, &engine_name)?;
    if ppgtt && matches!(generation, Generation::Gen4 | Generation::G45) {
        return Err(format!(
            "--ppgtt: {generation} has no per-process GTT (PPGTT contexts begin with Gen6); \
             leave it out to run the batch through the GGTT"
        ));
    }
    if mems.is_empty() {
        return Err(format!("at least one --mem is required\nusage:\n{USAGE}"));
    }
    let batch = batch.ok_or_else(|| format!("--batch is required\nusage:\n{USAGE}"))?;
    // Gen12.5 runs every batch in a context: its addresses are PPGTT ones.
    let ppgtt = ppgtt || generation == Generation::Gen12_5;
    let o = Options {
        generation,
        engine,
        ppgtt,
        mems,
        batch,
        dumps,
        pngs,
        timeout_ms,
    };
    o.check_layout()?;
    Ok(o)
}

impl Options {
    /// The address space's size: the GGTT, or a PPGTT's 512 page tables of
    /// 4 MiB each (`baregpu::gtt::ppgtt`).
    fn space(&self) -> (u64, &'static str) {
        if self.generation == Generation::Gen12_5 {
            // The objects' addresses are read as 32-bit ones (`address`).
            (1 << 32, "PPGTT")
        } else if self.ppgtt {
            (ppgtt::PDES * (4 << 20), "PPGTT")
        } else {
            let entries = GgttLayout::of(self.generation).map_or(0, |l| l.entries as u64);
            (entries * PAGE, "GGTT")
        }
    }

    /// Every address is where it may be: objects inside the address space,
    /// off page 0 and apart; the batch and the dumps inside objects.
    fn check_layout(&self) -> Result<(), String> {
        let (size, space) = self.space();
        for (i, m) in self.mems.iter().enumerate() {
            if m.gfx == 0 {
                return Err(format!(
                    "--mem {}: page 0 is never mapped (null addresses must fault)",
                    m.what()
                ));
            }
            if m.gfx.checked_add(m.mapped()).is_none_or(|end| end > size) {
                return Err(format!(
                    "--mem {}: {:#x}..{:#x} is beyond the {generation} {space} ({size:#x} bytes)",
                    m.what(),
                    m.gfx,
                    m.gfx.saturating_add(m.mapped()),
                    generation = self.generation,
                ));
            }
            if let Some(o) = self.mems[..i]
                .iter()
                .find(|o| o.gfx < m.end() && m.gfx < o.end())
            {
                return Err(format!(
                    "--mem {} overlaps --mem {} ({:#x}..{:#x} and {:#x}..{:#x}, whole pages)",
                    m.what(),
                    o.what(),
                    m.gfx,
                    m.end(),
                    o.gfx,
                    o.end()
                ));
            }
        }
        if !self.batch.is_multiple_of(4) {
            return Err(format!(
                "--batch {:#x}: a batch starts on a dword (4-byte) boundary",
                self.batch
            ));
        }
        if self.object_at(self.batch).is_none() {
            return Err(format!(
                "--batch {:#x}: no --mem object holds that address",
                self.batch
            ));
        }
        for d in &self.dumps {
            self.dump_pieces(d)?;
        }
        for p in &self.pngs {
            self.dump_pieces(&png_region(p))?;
        }
        Ok(())
    }

    /// The index of the object whose mapped pages hold `gfx`.
    fn object_at(&self, gfx: u64) -> Option<usize> {
        self.mems.iter().position(|m| m.gfx <= gfx && gfx < m.end())
    }

    /// A dump as (object index, offset in it, bytes) pieces, or an error
    /// naming the first unmapped address.
    fn dump_pieces(&self, d: &Dump) -> Result<Vec<(usize, u64, u64)>, String> {
        let end = d
            .gfx
            .checked_add(d.bytes)
            .ok_or_else(|| format!("--dump {:#x}:{}: wraps around", d.gfx, d.bytes))?;
        let mut pieces = Vec::new();
        let mut at = d.gfx;
        while at < end {
            let i = self.object_at(at).ok_or_else(|| {
                format!(
                    "--dump {:#x}:{}={}: {at:#x} is not mapped (no --mem object holds it)",
                    d.gfx, d.bytes, d.file
                )
            })?;
            let m = &self.mems[i];
            let n = end.min(m.end()) - at;
            pieces.push((i, at - m.gfx, n));
            at += n;
        }
        Ok(pieces)
    }
}

/// What a replay produced: a summary of what ran and the files written.
pub struct ReplayOutput {
    pub summary: String,
}

/// Runs `baregpu replay` with its arguments.
pub fn run(args: &[String]) -> Result<ReplayOutput, String> {
    let o = parse(args)?;
    // Wall-clock time: the timeout is the user's bound on the wait.
    let platform = HostPlatform::with_clock(wall_ns);
    // A headless machine: no firmware console holds GGTT addresses the batch's
    // objects may want.
    let soft = SoftGpu::new(o.generation, PlatformBus::new(&platform))
        .map_err(|e| format!("software GPU: {e:?}"))?
        .with_firmware_mode(None);
    // The objects outlive the `Gpu` (dropped inside `replay`, which stops
    // its rings) on every path: the placed batch runs out of one of them.
    if o.generation == Generation::Gen12_5 {
        return replay_gen12_5(&o, &platform, &soft);
    }
    let mut objects = Vec::new();
    replay(&o, &platform, &soft, &mut objects)
}

/// The software GPU's local memory behind the driver's BAR2 seam.
struct Bar2<'s, 'p>(&'s SoftGpu<PlatformBus<'p, HostPlatform>>);

impl LocalMemory for Bar2<'_, '_> {
    fn local_size(&self) -> u64 {
        self.0.local_memory_size()
    }
    fn read_local(&self, offset: u64, buf: &mut [u8]) -> bool {
        self.0.read_local(offset, buf)
    }
    fn write_local(&self, offset: u64, data: &[u8]) -> bool {
        self.0.write_local(offset, data)
    }
}

/// Gen12.5: the objects in system memory at their addresses in a new
/// context's PPGTT, the batch run in that context through the execlist backend.
fn replay_gen12_5(
    o: &Options,
    platform: &HostPlatform,
    soft: &SoftGpu<PlatformBus<'_, HostPlatform>>,
) -> Result<ReplayOutput, String> {
    let bar = Bar2(soft);
    let mut gpu = Gpu::with_local_memory(platform, soft, o.generation, &bar)
        .map_err(|e| format!("GPU bring-up: {e}"))?;
    let engine = gpu
        .engine_named(o.engine)
        .ok_or_else(|| format!("the driver has no {} engine", o.engine))?;
    let ctx = gpu.create_context().map_err(|e| format!("context: {e}"))?;
    let mut objects = Vec::new();
    for m in &o.mems {
        let object = gpu
            .context_buffer_at(ctx, GfxAddr(m.gfx), m.mapped(), Placement::System)
            .map_err(|e| format!("--mem {}: {e}", m.what()))?;
        if let Contents::File { bytes, .. } = &m.contents
            && !object.write(0, bytes)
        {
            return Err(format!("--mem {}: does not fit its object", m.what()));
        }
        objects.push(object);
    }
    let i = o
        .object_at(o.batch)
        .ok_or_else(|| format!("--batch {:#x}: no object holds it", o.batch))?;
    let m = &o.mems[i];
    let decode_bytes = m.len().saturating_sub(o.batch - m.gfx) as usize;
    // SAFETY: `objects` lives until this function returns, and every path
    // from the submission on passes through the wait, after which the engine
    // is done with the batch (its fence completed, or the engine was reset).
    let batch = unsafe { gpu.placed_batch_in(&objects[i], GfxAddr(o.batch), decode_bytes) }
        .ok_or_else(|| format!("--batch {:#x}: not a dword of its object", o.batch))?;
    let fence = gpu
        .submit(engine, batch)
        .map_err(|e| format!("submission failed: {e}"))?;
    gpu.wait(fence, o.timeout_ms.saturating_mul(1000))
        .map_err(|e| format!("the batch at {:#x} failed: {e}", o.batch))?;
    let mut summary = String::new();
    let _ = writeln!(
        summary,
        "the batch at {:#x} completed on the {} engine of the {} software GPU (PPGTT context, execlists)",
        o.batch, o.engine, o.generation
    );
    let read = |d: &Dump| -> Result<Vec<u8>, String> {
        let mut out = Vec::with_capacity(d.bytes as usize);
        for (i, offset, n) in o.dump_pieces(d)? {
            let mut piece = vec![0; n as usize];
            if !objects[i].read(offset, &mut piece) {
                return Err(format!("--dump {:#x}: outside its object", d.gfx));
            }
            out.extend_from_slice(&piece);
        }
        Ok(out)
    };
    for d in &o.dumps {
        let out = read(d)?;
        std::fs::write(&d.file, &out).map_err(|e| format!("{}: {e}", d.file))?;
        let _ = writeln!(summary, "{} bytes at {:#x} to {}", out.len(), d.gfx, d.file);
    }
    for p in &o.pngs {
        let raw = read(&png_region(p))?;
        let png = picture::encode(&p.shape, &raw).map_err(|e| format!("--png {}: {e}", p.file))?;
        std::fs::write(&p.file, &png).map_err(|e| format!("{}: {e}", p.file))?;
        let _ = writeln!(
            summary,
            "the {}x{} surface at {:#x} to {}",
            p.shape.width, p.shape.height, p.gfx, p.file
        );
    }
    Ok(ReplayOutput { summary })
}

/// Brings the GPU up, places the objects, runs the batch and writes the
/// dumps. The objects go to `objects`, which the caller drops after the
/// `Gpu`.
fn replay<'p>(
    o: &Options,
    platform: &'p HostPlatform,
    soft: &'p SoftGpu<PlatformBus<'_, HostPlatform>>,
    objects: &mut Vec<Dma<'p>>,
) -> Result<ReplayOutput, String> {
    let keep_free: Vec<(GfxAddr, u64)> = if o.ppgtt {
        Vec::new()
    } else {
        o.mems
            .iter()
            .map(|m| (GfxAddr(m.gfx), m.mapped()))
            .collect()
    };
    let mut gpu = Gpu::new_avoiding(platform, soft, o.generation, &keep_free)
        .map_err(|e| format!("GPU bring-up: {e}"))?;
    // A stray access of the batch is a page fault replay reports, not a silent
    // write to the scratch page the driver keeps behind unused entries.
    gpu.invalidate_unused_ggtt();
    let engine = gpu
        .engine_named(o.engine)
        .ok_or_else(|| format!("the driver has no {} engine", o.engine))?;
    let context = if o.ppgtt {
        Some(gpu.create_context().map_err(|e| format!("--ppgtt: {e}"))?)
    } else {
        None
    };
    for m in &o.mems {
        let (gfx, size) = (GfxAddr(m.gfx), m.mapped() as usize);
        let object = match context {
            Some(ctx) => gpu.map_in_context_at(ctx, gfx, size).map(|(r, _)| r),
            None => gpu.map_buffer_at(gfx, size).map(|(r, _)| r),
        }
        .map_err(|e| format!("--mem {}: {e}", m.what()))?;
        let contents = match &m.contents {
            Contents::File { bytes, .. } => &bytes[..],
            Contents::Zero(_) => &[],
        };
        // The contents, then zeros to the end (the device has not run yet).
        let n = contents.len().min(object.size());
        object
            .write(0, &contents[..n])
            .and_then(|()| object.fill(n, object.size() - n, 0))
            .map_err(|e| format!("--mem {}: {e}", m.what()))?;
        objects.push(object);
    }

    // The batch's object; an error report decodes the batch up to the end
    // of what the user gave.
    let i = o
        .object_at(o.batch)
        .ok_or_else(|| format!("--batch {:#x}: no object holds it", o.batch))?;
    let m = &o.mems[i];
    let decode_bytes = m.len().saturating_sub(o.batch - m.gfx) as usize;
    // SAFETY: the object stays alive and mapped until after the Gpu is
    // dropped (the caller drops `objects` then).
    let batch = unsafe {
        gpu.placed_batch(
            &objects[i],
            GfxAddr(m.gfx),
            GfxAddr(o.batch),
            context,
            decode_bytes,
        )
    }
    .ok_or_else(|| format!("--batch {:#x}: not a dword of its object", o.batch))?;
    let fence = gpu
        .submit(engine, batch)
        .map_err(|e| format!("submission failed: {e}"))?;
    if let Err(e) = gpu.wait(fence, o.timeout_ms.saturating_mul(1000)) {
        let eu = soft
            .eu_report()
            .map_or_else(String::new, |r| format!("\nEU array: {r}"));
        let why = refusals(soft, o.generation);
        return Err(format!("the batch at {:#x} failed: {e}{eu}{why}", o.batch));
    }

    let mut summary = String::new();
    let _ = writeln!(
        summary,
        "the batch at {:#x} completed on the {} engine of the {} software GPU ({})",
        o.batch,
        o.engine,
        o.generation,
        if o.ppgtt {
            "PPGTT context, non-secure"
        } else {
            "GGTT, secure"
        }
    );
    for d in &o.dumps {
        // The engine is idle (its fence completed).
        let out = read_dump(o, objects, d)?;
        std::fs::write(&d.file, &out).map_err(|e| format!("{}: {e}", d.file))?;
        let _ = writeln!(summary, "{} bytes at {:#x} to {}", out.len(), d.gfx, d.file);
    }
    for p in &o.pngs {
        let raw = read_dump(o, objects, &png_region(p))?;
        let png = picture::encode(&p.shape, &raw).map_err(|e| format!("--png {}: {e}", p.file))?;
        std::fs::write(&p.file, &png).map_err(|e| format!("{}: {e}", p.file))?;
        let _ = writeln!(
            summary,
            "the {}x{} surface at {:#x} to {}",
            p.shape.width, p.shape.height, p.gfx, p.file
        );
    }
    Ok(ReplayOutput { summary })
}

/// The memory a `--png` surface occupies, as a dump.
fn png_region(p: &PngDump) -> Dump {
    Dump {
        gfx: p.gfx,
        bytes: p.shape.bytes() as u64,
        file: p.file.clone(),
    }
}

/// The bytes of a dump, read from the objects (the engine is idle).
fn read_dump(o: &Options, objects: &[Dma<'_>], d: &Dump) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(d.bytes as usize);
    for (i, offset, n) in o.dump_pieces(d)? {
        let mut piece = vec![0; n as usize];
        objects[i]
            .read(offset as usize, &mut piece)
            .map_err(|e| format!("--dump {:#x}: {e}", d.gfx))?;
        out.extend_from_slice(&piece);
    }
    Ok(out)
}

/// What the software GPU says of the engines it stopped on a refusal: the
/// feature a draw needs that it does not model, or the rule of the manual
/// the draw's state breaks (the driver's error state shows the command;
/// these name the reason).
fn refusals<B: baregpu::hal::MemoryBus>(soft: &SoftGpu<B>, generation: Generation) -> String {
    let names: Vec<&str> = baregpu_soft::layout::Layout::of(generation)
        .map(|l| l.device.engines.iter().map(|e| e.name).collect())
        .unwrap_or_default();
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        if let Some(what) = soft.unmodelled(i) {
            out.push_str(&format!(
                "\nsoftware GPU: the {name} engine stopped: not modelled: {what}"
            ));
        }
        if let Some(why) = soft.invalid(i) {
            out.push_str(&format!(
                "\nsoftware GPU: the {name} engine stopped: invalid state: {why}"
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    fn err(s: &str) -> String {
        parse(&args(s)).unwrap_err()
    }

    #[test]
    fn layouts_are_checked_before_anything_runs() {
        let base = "--gen gen7 --batch 0x10000";
        assert!(parse(&args(&format!("{base} --mem 0x10000=zero:64"))).is_ok());
        let e = err(&format!(
            "{base} --mem 0x10000=zero:64 --mem 0x10000=zero:8"
        ));
        assert!(e.contains("overlaps"), "{e}");
        // Sizes round up to pages: a one-byte object still takes its page.
        let e = err(&format!(
            "{base} --mem 0xf000=zero:4097 --mem 0x10000=zero:8"
        ));
        assert!(e.contains("overlaps"), "{e}");
        let e = err(&format!("{base} --mem 0x10000=zero:0xffffffffffffffff"));
        assert!(e.contains("larger than any GPU address space"), "{e}");
        let e = err(&format!("{base} --mem 0x10800=zero:64"));
        assert!(e.contains("not 4 KiB aligned"), "{e}");
        let e = err("--gen gen7 --batch 0 --mem 0=zero:64");
        assert!(e.contains("page 0"), "{e}");
        // Gen7's GGTT is 2 GiB; Gen4's 512 MiB.
        let e = err("--gen gen7 --batch 0x80000000 --mem 0x80000000=zero:64");
        assert!(e.contains("beyond the gen7 GGTT"), "{e}");
        let e = err("--gen gen4 --batch 0x20000000 --mem 0x1ffff000=zero:8192");
        assert!(e.contains("beyond the gen4 GGTT"), "{e}");
        let e = err(&format!("{base} --mem 0x20000=zero:64"));
        assert!(e.contains("no --mem object holds"), "{e}");
        let e = err("--gen gen7 --batch 0xfffffffffffff000 --mem 0xfffffffffffff000=zero:64");
        assert!(e.contains("beyond the gen7 GGTT"), "{e}");
        let e = err("--gen gen7 --batch 0x10002 --mem 0x10000=zero:64");
        assert!(e.contains("dword"), "{e}");
        let e = err(&format!(
            "{base} --mem 0x10000=zero:64 --dump 0x10ff0:0x20=out"
        ));
        assert!(e.contains("0x11000 is not mapped"), "{e}");
        // A dump may span adjacent objects.
        let o = parse(&args(&format!(
            "{base} --mem 0x10000=zero:64 --mem 0x11000=zero:64 --dump 0x10ff0:0x20=out"
        )))
        .unwrap();
        assert_eq!(
            o.dump_pieces(&o.dumps[0]).unwrap(),
            vec![(0, 0xff0, 0x10), (1, 0, 0x10)]
        );
    }

    #[test]
    fn generations_engines_and_ppgtt() {
        let o = parse(&args(
            "--gen gen12.5 --engine compute --batch 0x1000 --mem 0x1000=zero:4",
        ))
        .unwrap();
        assert!(o.ppgtt, "Gen12.5 addresses are PPGTT ones");
        let e = err("--gen gen12.5 --engine video --batch 0x1000 --mem 0x1000=zero:4");
        assert!(e.contains("no video engine"), "{e}");
        assert!(err("--gen hsw --batch 0x1000 --mem 0x1000=zero:4").contains("no software GPU"));
        let e = err("--gen gen4 --engine blitter --batch 0x1000 --mem 0x1000=zero:4");
        assert!(e.contains("render ring"), "{e}");
        let e = err("--gen gen4 --engine video --batch 0x1000 --mem 0x1000=zero:4");
        assert!(e.contains("no video engine"), "{e}");
        assert!(
            parse(&args(
                "--gen g45 --engine video --batch 0x1000 --mem 0x1000=zero:4"
            ))
            .is_ok()
        );
        let e = err("--gen gen7 --engine compute --batch 0x1000 --mem 0x1000=zero:4");
        assert!(e.contains("Gen12.5"), "{e}");
        let e = err("--gen g45 --ppgtt --batch 0x1000 --mem 0x1000=zero:4");
        assert!(e.contains("no per-process GTT"), "{e}");
        // The PPGTT is 2 GiB on Gen6/Gen7.
        let e = err("--gen gen6 --ppgtt --batch 0x1000 --mem 0x7ffff000=zero:8192");
        assert!(e.contains("beyond the gen6 PPGTT"), "{e}");
    }
}
