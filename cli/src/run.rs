//! `baregpu run`: an EU binary run on the software GPU through the driver's
//! own compute path (buffers, surfaces, kernel upload, dispatch, fence), so
//! a kernel that works here takes the same path on hardware.
//!
//! ```text
//! baregpu run --gen <gen> --kernel <file> --simd <8|16|32> --grid <x,y,z> [--group <x,y,z>]
//!             [--curbe <file>] [--dispatch gpgpu|media] [--media-objects <file>]
//!             [--bind <bti>=buffer:<file> | <bti>=buffer:zero:<bytes>
//!                   | <bti>=surface2d:<w>x<h>:<format>[:linear|:x|:y][:<file>]]...
//!             [--out <bti>=<file>]... [--png <bti>=<file>]... [--slm <bytes>] [--barriers]
//!             [--timeout-ms <ms>]
//!             [--sampler <index>=<nearest|linear>[,<wrap|mirror|clamp|border|mirror-once>]]...
//!             [--inline <file>] [--indirect <file>] [--local-ids none|x|xy|xyz]
//!             [--no-swsb-check]                                               (gen12.5)
//! ```
//!
//! On gen12.5 (DG2) the kernel runs through COMPUTE_WALKER on the compute
//! engine, in the driver's compute context (`baregpu::compute`'s
//! `state/gen12_5.rs` documents the batch). `--group x,y,z` is then the
//! group's size in invocations (COMPUTE_WALKER's local size, at most 1024;
//! default one thread's lanes in X), `--grid` the groups. The thread payload:
//! - R0: r0.1, r0.6, r0.7 the group's X, Y, Z IDs; r0.2 bits 7:0 the
//!   thread's index in its group, bits 31:24 the threads in the group;
//! - from R1 the local IDs (`--local-ids`, default xyz): per component one
//!   register of 16-bit IDs (two at SIMD32), X, then Y, then Z;
//! - then the inline data register: `--inline`'s bytes (at most 32, zero
//!   padded to dwords); with `--indirect` the indirect data's 64-bit GPU
//!   address is inline qword 0 and `--inline` (at most 24 bytes) follows
//!   from dword 2 (Mesa anv's convention: its inline data begins with the
//!   address of the data its walker names as indirect data);
//! - the indirect data (at most 32 KiB) stays in memory, 64-byte aligned,
//!   for the kernel to load (004 COMPUTE_WALKER Indirect Data Start Address).
//!
//! Bound buffers and surfaces are reached through the binding table (LSC
//! `bti[n]` messages); `surface2d:...:tile4` makes a Tile4 surface.
//!
//! Extensions beyond the issue's syntax: a kernel file ending in `.asm` is
//! assembled first; `--slm` and `--barriers` fill the Ivy Bridge interface
//! descriptor; `--timeout-ms` bounds the wait in wall-clock time (default
//! 60 s), however slowly the software GPU runs; `--sampler`
//! binds a sampler (filter for both minification and magnification, one
//! address mode on every axis; default clamp) for `sample` messages.

use std::fmt::Write as _;

use baregpu::compute::{
    AddressMode, Compute, ComputeError, Dispatch, Filter, Format, IndirectPointer, KernelDesc,
    LocalIds, MAX_BUFFER_BYTES, Resource, Sampler, Simd, Threads, max_curbe_bytes,
};
use baregpu::gtt::tiling::{Swizzle, Tiling};
use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu::{Generation, Gpu};
use baregpu_isa::IsaGen;
use baregpu_soft::SoftGpu;

use crate::picture::PixelFormat;

pub const USAGE: &str =
    "  baregpu run --gen <gen4|g45|gen6|gen7|gen12.5> --kernel <file> --simd <8|16|32> --grid <x,y,z>
              [--group <x,y,z>] [--curbe <file>] [--dispatch gpgpu|media] [--media-objects <file>]
              [--bind <bti>=buffer:<file> | <bti>=buffer:zero:<bytes>
                    | <bti>=surface2d:<w>x<h>:<format>[:linear|:x|:y][:<file>]]...
              [--out <bti>=<file>]... [--png <bti>=<file>]... [--slm <bytes>] [--barriers]
              [--timeout-ms <ms>]
              [--sampler <index>=<nearest|linear>[,<wrap|mirror|clamp|border|mirror-once>]]...
      Run an EU binary (or a .asm source) on the software GPU through the
      driver's compute path. --grid counts thread groups and --group threads
      per group (GPGPU_WALKER, gen7); --dispatch media (the default before
      gen7) sends one MEDIA_OBJECT per line of --media-objects (that line's
      numbers are its inline dwords), or x*y*z objects without data. Formats:
      R8_UNORM R8_UINT R32_UINT R32_FLOAT R8G8B8A8_UNORM B8G8R8A8_UNORM.
      --out writes a buffer's bytes, or a surface's pixels row by row; --png
      writes a surface as a PNG picture.
      --sampler binds SAMPLER_STATE entry <index> (0-15) for sample messages.
      gen12.5 (DG2): COMPUTE_WALKER; --group is the group size in invocations
      (at most 1024), [--inline <file>] (up to 32 bytes) the walker's inline
      data, [--indirect <file>] (up to 32 KiB) indirect data whose GPU
      address takes inline qword 0 (--inline then follows, up to 24 bytes),
      [--local-ids none|x|xy|xyz] (default xyz), [--no-swsb-check] (run
      without the model's SWSB dependency check, as hardware would). Payload: R0 (r0.1/r0.6/r0.7
      group X/Y/Z, r0.2[7:0] thread in group), from R1 the local IDs (one
      register of 16-bit IDs per component, two at SIMD32), then the inline
      data. Surfaces may be :tile4.";

/// Largest kernel binary, assembly text or media-objects file read: 64 MiB,
/// four million native instructions, far past any kernel or object list the
/// driver takes. Files are measured before they are read, so a huge one
/// costs nothing.
const MAX_INPUT_FILE: u64 = 64 << 20;

/// A binding as given on the command line.
#[derive(Clone, Debug, PartialEq)]
enum Bind {
    Buffer(Vec<u8>),
    /// A zeroed buffer of this many bytes (at most [`MAX_BUFFER_BYTES`]).
    Zero(usize),
    Surface {
        width: u32,
        height: u32,
        format: Format,
        tiling: Tiling,
        /// `:tile4` (gen12.5), made by `Compute::create_surface_tile4`.
        tile4: bool,
        pixels: Option<Vec<u8>>,
    },
}

/// The parsed command line.
#[derive(Debug)]
struct Options {
    generation: Generation,
    kernel: Vec<u8>,
    simd: Simd,
    grid: [u32; 3],
    group: [u32; 3],
    curbe: Vec<u8>,
    media: bool,
    objects: Option<Vec<Vec<u32>>>,
    binds: Vec<(u32, Bind)>,
    outs: Vec<(u32, String)>,
    /// `--png`: surface bindings written as pictures.
    pngs: Vec<(u32, String)>,
    slm: u32,
    barriers: bool,
    timeout_ms: u64,
    samplers: Vec<(u32, Sampler)>,
    /// gen12.5: the walker's inline dwords, the indirect data, the local IDs.
    inline: Vec<u32>,
    indirect: Vec<u8>,
    local_ids: LocalIds,
    /// `--group` was given (gen12.5 defaults to one thread's lanes).
    group_given: bool,
    /// gen12.5: the model's SWSB dependency check (`--no-swsb-check` off).
    swsb_check: bool,
}

pub(crate) fn generation(name: &str) -> Result<(Generation, IsaGen), String> {
    Ok(match name {
        "gen4" => (Generation::Gen4, IsaGen::Gen4),
        "gen4.5" | "g45" => (Generation::G45, IsaGen::G45),
        "gen6" | "snb" => (Generation::Gen6, IsaGen::Gen6),
        "gen7" | "ivb" => (Generation::Gen7, IsaGen::Gen7),
        "gen12.5" | "dg2" => (Generation::Gen12_5, IsaGen::Gen12_5),
        _ => {
            return Err(format!(
                "no software GPU for {name:?} (one of gen4, gen4.5 (g45), gen6 (snb), gen7 (ivb), gen12.5 (dg2))"
            ));
        }
    })
}

pub(crate) fn number(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    };
    r.map_err(|_| format!("{s:?} is not a number"))
}

pub(crate) fn triple(s: &str, what: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    let mut out = [1u32; 3];
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("{what} is x[,y[,z]], not {s:?}"));
    }
    for (o, p) in out.iter_mut().zip(&parts) {
        *o = u32::try_from(number(p)?).map_err(|_| format!("{what}: {p} is too large"))?;
    }
    Ok(out)
}

/// Reads a file of at most `max` bytes; a larger one is refused by its size
/// before anything is read.
pub(crate) fn read(path: &str, max: u64, what: &str) -> Result<Vec<u8>, String> {
    let len = std::fs::metadata(path)
        .map_err(|e| format!("{path}: {e}"))?
        .len();
    if len > max {
        return Err(format!(
            "{path}: {len} bytes, more than the {max} a {what} can have"
        ));
    }
    std::fs::read(path).map_err(|e| format!("{path}: {e}"))
}

/// Reads a text file of at most [`MAX_INPUT_FILE`] bytes.
fn read_text(path: &str, what: &str) -> Result<String, String> {
    String::from_utf8(read(path, MAX_INPUT_FILE, what)?).map_err(|_| format!("{path}: not text"))
}

fn format_named(name: &str) -> Result<Format, String> {
    Ok(match name.to_ascii_uppercase().as_str() {
        "R8_UNORM" => Format::R8Unorm,
        "R8_UINT" => Format::R8Uint,
        "R32_UINT" => Format::R32Uint,
        "R32_FLOAT" => Format::R32Float,
        "R8G8B8A8_UNORM" => Format::R8G8B8A8Unorm,
        "B8G8R8A8_UNORM" => Format::B8G8R8A8Unorm,
        _ => return Err(format!("unknown surface format {name:?}")),
    })
}

/// `<bti>=buffer:<file>`, `<bti>=buffer:zero:<bytes>` or
/// `<bti>=surface2d:<w>x<h>:<format>[:linear|:x|:y][:<file>]`.
fn binding(s: &str) -> Result<(u32, Bind), String> {
    let (bti, what) = s
        .split_once('=')
        .ok_or_else(|| format!("--bind {s:?}: expected <bti>=..."))?;
    let bti = u32::try_from(number(bti)?).map_err(|_| format!("--bind {s:?}: bad index"))?;
    let bind = if let Some(rest) = what.strip_prefix("buffer:") {
        match rest.strip_prefix("zero:") {
            Some(n) => {
                let n = number(n)?;
                if n > MAX_BUFFER_BYTES as u64 {
                    return Err(format!(
                        "--bind {s:?}: a buffer has at most {MAX_BUFFER_BYTES} bytes \
                         (2^27 entries of up to 4 bytes)"
                    ));
                }
                Bind::Zero(n as usize)
            }
            None => Bind::Buffer(read(rest, MAX_BUFFER_BYTES as u64, "buffer")?),
        }
    } else if let Some(rest) = what.strip_prefix("surface2d:") {
        let mut parts = rest.splitn(4, ':');
        let size = parts.next().unwrap_or("");
        let (w, h) = size
            .split_once('x')
            .ok_or_else(|| format!("--bind {s:?}: size is <w>x<h>"))?;
        let (width, height) = (
            u32::try_from(number(w)?).map_err(|_| format!("--bind {s:?}: bad width"))?,
            u32::try_from(number(h)?).map_err(|_| format!("--bind {s:?}: bad height"))?,
        );
        let format = format_named(parts.next().unwrap_or(""))?;
        // Then an optional tiling, then the file: the rest, colons and all.
        let (third, fourth) = (parts.next(), parts.next());
        let tile4 = third == Some("tile4");
        let (tiling, file) = match third {
            Some("linear" | "tile4") => (Tiling::Linear, fourth.map(str::to_string)),
            Some("x") => (Tiling::X, fourth.map(str::to_string)),
            Some("y") => (Tiling::Y, fourth.map(str::to_string)),
            Some(name) => (
                Tiling::Linear,
                Some(fourth.map_or(name.to_string(), |more| format!("{name}:{more}"))),
            ),
            None => (Tiling::Linear, None),
        };
        // No more bytes than the surface has pixels (the driver checks the
        // exact size; the sides are checked when the surface is made).
        let most = u64::from(width)
            .saturating_mul(u64::from(height))
            .saturating_mul(u64::from(format.bytes_per_pixel()));
        let pixels = file
            .as_deref()
            .map(|f| read(f, most, "surface of this size"))
            .transpose()?;
        Bind::Surface {
            width,
            height,
            format,
            tiling,
            tile4,
            pixels,
        }
    } else {
        return Err(format!(
            "--bind {s:?}: expected buffer:... or surface2d:..."
        ));
    };
    Ok((bti, bind))
}

/// The inline data of each MEDIA_OBJECT: one line each.
fn media_objects(text: &str) -> Result<Vec<Vec<u32>>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let dwords = line
            .split_whitespace()
            .map(|w| {
                number(w).and_then(|v| {
                    u32::try_from(v).map_err(|_| format!("{w} does not fit in a dword"))
                })
            })
            .collect::<Result<Vec<u32>, String>>()
            .map_err(|e| format!("--media-objects line {}: {e}", i + 1))?;
        out.push(dwords);
    }
    Ok(out)
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut it = args.iter();
    let get = |flag: &str, it: &mut std::slice::Iter<String>| {
        it.next()
            .cloned()
            .ok_or_else(|| format!("{flag} needs a value"))
    };
    let (mut gen_name, mut kernel, mut simd, mut grid) = (None, None, None, None);
    let (mut group, mut curbe, mut dispatch, mut objects) = ([1, 1, 1], None, None, None);
    let mut pngs = Vec::new();
    let (mut binds, mut outs, mut slm, mut barriers, mut timeout_ms) =
        (Vec::new(), Vec::new(), 0, false, 60_000);
    let mut samplers = Vec::new();
    let (mut inline_file, mut indirect_file, mut local_ids, mut group_given) =
        (None, None, LocalIds::Xyz, false);
    let mut swsb_check = true;
    while let Some(a) = it.next() {
        match a.as_str() {
            "--gen" => gen_name = Some(get(a, &mut it)?),
            "--kernel" => kernel = Some(get(a, &mut it)?),
            "--simd" => simd = Some(get(a, &mut it)?),
            "--grid" => grid = Some(triple(&get(a, &mut it)?, "--grid")?),
            "--group" => {
                group = triple(&get(a, &mut it)?, "--group")?;
                group_given = true;
            }
            "--inline" => inline_file = Some(get(a, &mut it)?),
            "--indirect" => indirect_file = Some(get(a, &mut it)?),
            "--local-ids" => {
                local_ids = match get(a, &mut it)?.as_str() {
                    "none" => LocalIds::None,
                    "x" => LocalIds::X,
                    "xy" => LocalIds::Xy,
                    "xyz" => LocalIds::Xyz,
                    v => return Err(format!("--local-ids is none, x, xy or xyz, not {v:?}")),
                }
            }
            "--curbe" => curbe = Some(get(a, &mut it)?),
            "--dispatch" => dispatch = Some(get(a, &mut it)?),
            "--media-objects" => {
                let text = read_text(&get(a, &mut it)?, "media-objects file")?;
                objects = Some(media_objects(&text)?);
            }
            "--bind" => binds.push(binding(&get(a, &mut it)?)?),
            "--png" => {
                let v = get(a, &mut it)?;
                let (bti, file) = v
                    .split_once('=')
                    .ok_or_else(|| format!("--png {v:?}: expected <bti>=<file>"))?;
                let bti = u32::try_from(number(bti)?).map_err(|_| format!("--png {v:?}"))?;
                pngs.push((bti, file.to_string()));
            }
            "--out" => {
                let v = get(a, &mut it)?;
                let (bti, file) = v
                    .split_once('=')
                    .ok_or_else(|| format!("--out {v:?}: expected <bti>=<file>"))?;
                let bti = u32::try_from(number(bti)?).map_err(|_| format!("--out {v:?}"))?;
                outs.push((bti, file.to_string()));
            }
            "--slm" => {
                slm = u32::try_from(number(&get(a, &mut it)?)?)
                    .map_err(|_| "--slm is too large".to_string())?
            }
            "--barriers" => barriers = true,
            "--sampler" => samplers.push(sampler(&get(a, &mut it)?)?),
            "--timeout-ms" => timeout_ms = number(&get(a, &mut it)?)?,
            "--no-swsb-check" => swsb_check = false,
            other => return Err(format!("unexpected argument {other:?}\nusage:\n{USAGE}")),
        }
    }
    let need = |v: Option<String>, what: &str| {
        v.ok_or_else(|| format!("{what} is required\nusage:\n{USAGE}"))
    };
    let (generation, platform) = generation(&need(gen_name, "--gen")?)?;
    if generation != Generation::Gen12_5 && (inline_file.is_some() || indirect_file.is_some()) {
        return Err("--inline and --indirect are COMPUTE_WALKER's (--gen gen12.5)".into());
    }
    let kernel_path = need(kernel, "--kernel")?;
    let kernel = if kernel_path.ends_with(".asm") {
        let text = read_text(&kernel_path, "kernel source")?;
        baregpu_isa::text::assemble(platform, &text).map_err(|e| format!("{kernel_path}:{e}"))?
    } else {
        read(&kernel_path, MAX_INPUT_FILE, "kernel")?
    };
    // Constants: no more than a dispatch of the generation can carry (the
    // driver names the exact per-thread limit).
    let curbe = match curbe {
        Some(path) => read(&path, max_curbe_bytes(generation) as u64, "CURBE")?,
        None => Vec::new(),
    };
    let simd = match need(simd, "--simd")?.as_str() {
        "8" => Simd::Simd8,
        "16" => Simd::Simd16,
        "32" => Simd::Simd32,
        s => return Err(format!("--simd is 8, 16 or 32, not {s}")),
    };
    let grid = grid.ok_or_else(|| format!("--grid is required\nusage:\n{USAGE}"))?;
    let indirect = match indirect_file {
        Some(path) => read(&path, INDIRECT_MAX as u64, "indirect data file")?,
        None => Vec::new(),
    };
    let inline_max = if indirect.is_empty() { 32 } else { 24 };
    let inline = match inline_file {
        Some(path) => read(
            &path,
            inline_max,
            "inline data file (with --indirect, 24 bytes)",
        )?
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect(),
        None => Vec::new(),
    };
    let media = match dispatch.as_deref() {
        Some("media") => true,
        Some("gpgpu") => false,
        None => !matches!(generation, Generation::Gen7 | Generation::Gen12_5),
        Some(other) => return Err(format!("--dispatch is gpgpu or media, not {other}")),
    };
    for (bti, _) in &outs {
        if !binds.iter().any(|(b, _)| b == bti) {
            return Err(format!("--out {bti}: nothing is bound there"));
        }
    }
    for (bti, _) in &pngs {
        match binds.iter().find(|(b, _)| b == bti) {
            None => return Err(format!("--png {bti}: nothing is bound there")),
            Some((_, Bind::Surface { format, .. })) => {
                picture_format(*format).map_err(|e| format!("--png {bti}: {e}"))?;
            }
            Some(_) => {
                return Err(format!(
                    "--png {bti}: a buffer has no picture shape; bind a surface2d (or use --out)"
                ));
            }
        }
    }
    Ok(Options {
        generation,
        kernel,
        simd,
        grid,
        group,
        curbe,
        media,
        objects,
        binds,
        outs,
        pngs,
        slm,
        barriers,
        timeout_ms,
        samplers,
        inline,
        indirect,
        local_ids,
        group_given,
        swsb_check,
    })
}

/// Largest `--indirect` file: what the driver's state area takes
/// (`compute::state::gen12_5::MAX_INDIRECT_BYTES`, 32 KiB).
const INDIRECT_MAX: usize = 32 << 10;

/// A `--sampler <index>=<filter>[,<address>]` argument.
fn sampler(s: &str) -> Result<(u32, Sampler), String> {
    let (index, spec) = s
        .split_once('=')
        .ok_or_else(|| format!("--sampler {s:?}: expected <index>=<filter>[,<address>]"))?;
    let index = u32::try_from(number(index)?).map_err(|_| format!("--sampler {s:?}: bad index"))?;
    let (filter, address) = spec.split_once(',').unwrap_or((spec, "clamp"));
    let filter = match filter {
        "nearest" => Filter::Nearest,
        "linear" => Filter::Linear,
        f => {
            return Err(format!(
                "--sampler {s:?}: the filter is nearest or linear, not {f:?}"
            ));
        }
    };
    let address = match address {
        "wrap" => AddressMode::Wrap,
        "mirror" => AddressMode::Mirror,
        "clamp" => AddressMode::Clamp,
        "border" => AddressMode::ClampBorder,
        "mirror-once" => AddressMode::MirrorOnce,
        m => {
            return Err(format!(
                "--sampler {s:?}: the address mode is wrap, mirror, clamp, border or mirror-once, not {m:?}"
            ));
        }
    };
    Ok((
        index,
        Sampler::new().with_filter(filter).with_address(address),
    ))
}

/// Nanoseconds of the host's monotonic clock since its first reading.
pub(crate) fn wall_ns() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let start = START.get_or_init(std::time::Instant::now);
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// What a run produced: a summary of the files written, to print.
pub struct RunOutput {
    pub summary: String,
}

/// Runs `baregpu run` with its arguments.
pub fn run(args: &[String]) -> Result<RunOutput, String> {
    // The R700 runs on its own emulator, not through the Intel driver.
    if args.windows(2).any(|w| w[0] == "--gen" && w[1] == "r700") {
        return crate::r700_run::run(args).map(|summary| RunOutput { summary });
    }
    // An IGC zebin carries its own dispatch description.
    if args.iter().any(|a| a == "--zebin") {
        return crate::run_zebin::run(args).map(|summary| RunOutput { summary });
    }
    let o = parse(args)?;
    // Wall-clock time: the timeout is the user's bound on how long the run takes.
    let platform = HostPlatform::with_clock(wall_ns);
    let soft = SoftGpu::new(o.generation, PlatformBus::new(&platform))
        .map_err(|e| format!("software GPU: {e:?}"))?;
    soft.set_swsb_check(o.swsb_check);
    let mut gpu =
        Gpu::new(&platform, &soft, o.generation).map_err(|e| format!("GPU bring-up: {e}"))?;
    let xe = o.generation == Generation::Gen12_5;
    let failed = |e: ComputeError| format!("{e}");
    let mut cx = Compute::new(&mut gpu).map_err(failed)?;

    // Resources, in binding order.
    enum Made<'a> {
        Buffer(baregpu::compute::Buffer<'a>),
        Surface(baregpu::compute::Surface<'a>),
    }
    let mut made = Vec::new();
    for (bti, bind) in &o.binds {
        let m = match bind {
            Bind::Buffer(bytes) => Made::Buffer(cx.upload_buffer(&mut gpu, bytes).map_err(failed)?),
            Bind::Zero(size) => Made::Buffer(cx.create_buffer(&mut gpu, *size).map_err(failed)?),
            Bind::Surface {
                width,
                height,
                format,
                tiling,
                tile4,
                pixels,
            } => {
                let s = if *tile4 {
                    cx.create_surface_tile4(&mut gpu, *width, *height, *format)
                } else {
                    cx.create_surface_2d(&mut gpu, *width, *height, *format, *tiling)
                }
                .map_err(failed)?;
                if let Some(p) = pixels {
                    s.write_pixels(Swizzle::None, p)
                        .map_err(|e| format!("--bind {bti}: {e}"))?;
                }
                Made::Surface(s)
            }
        };
        made.push((*bti, m));
    }
    let bindings: Vec<(u32, Resource)> = made
        .iter()
        .map(|(bti, m)| {
            let r = match m {
                Made::Buffer(b) => Resource::Buffer(b),
                Made::Surface(s) => Resource::Surface(s),
            };
            (*bti, r)
        })
        .collect();
    let btis: Vec<u32> = o.binds.iter().map(|(b, _)| *b).collect();

    // The kernel (rejected here, before anything runs, if it does not decode).
    let sampler_indices: Vec<u32> = o.samplers.iter().map(|(i, _)| *i).collect();
    let desc = KernelDesc {
        simd: o.simd,
        // At most max_curbe_bytes (checked when read): fits a u32.
        curbe_bytes: u32::try_from(o.curbe.len().next_multiple_of(32))
            .map_err(|_| "--curbe: too large".to_string())?,
        bindings: &btis,
        samplers: &sampler_indices,
        barriers: o.barriers,
        slm_bytes: o.slm,
        local_ids: o.local_ids,
        ..KernelDesc::new(&o.kernel)
    };
    let kernel = cx.load_kernel(&mut gpu, &desc).map_err(failed)?;

    let inline: Vec<u32>;
    let threads = if xe {
        // COMPUTE_WALKER: --group is the local size in invocations.
        let group_size = if o.group_given {
            o.group
        } else {
            [o.simd.lanes(), 1, 1]
        };
        Threads::Compute {
            groups: o.grid,
            group_size,
            inline: &o.inline,
            indirect: &o.indirect,
            pointer: IndirectPointer::InlineQword0,
        }
    } else if o.media {
        match &o.objects {
            Some(objects) => {
                let per = objects.first().map_or(0, Vec::len);
                if objects.iter().any(|v| v.len() != per) {
                    return Err(
                        "--media-objects: every line needs the same number of dwords".into(),
                    );
                }
                inline = objects.concat();
                Threads::Objects {
                    count: objects.len(),
                    inline: &inline,
                }
            }
            None => Threads::Objects {
                // The driver refuses more than it can dispatch; a product
                // past usize is past that too.
                count: o
                    .grid
                    .iter()
                    .try_fold(1usize, |n, &v| n.checked_mul(v as usize))
                    .unwrap_or(usize::MAX),
                inline: &[],
            },
        }
    } else {
        // --group counts threads in X: invocations are that times the lanes.
        let lanes = o.group[0].checked_mul(o.simd.lanes()).ok_or_else(|| {
            format!(
                "--group {}: too many threads per group ({} lanes each)",
                o.group[0],
                o.simd.lanes()
            )
        })?;
        Threads::Groups {
            groups: o.grid,
            group_size: [lanes, o.group[1], o.group[2]],
        }
    };
    let dispatch = Dispatch {
        threads,
        curbe: &o.curbe,
        bindings: &bindings,
        samplers: &o.samplers,
    };
    let fence = cx.dispatch(&mut gpu, &kernel, &dispatch).map_err(failed)?;
    wait_for(&mut gpu, &soft, &cx, fence, o.timeout_ms)?;

    // Results.
    let mut summary = String::new();
    for (bti, file) in &o.outs {
        let Some((_, m)) = made.iter().find(|(b, _)| b == bti) else {
            continue;
        };
        let bytes = match m {
            Made::Buffer(b) => {
                let mut v = vec![0; b.size()];
                b.read(0, &mut v).map_err(failed)?;
                v
            }
            Made::Surface(s) => {
                let row = s.width() as usize * s.format().bytes_per_pixel() as usize;
                let mut v = vec![0; row * s.height() as usize];
                s.read_pixels(Swizzle::None, &mut v).map_err(failed)?;
                v
            }
        };
        std::fs::write(file, &bytes).map_err(|e| format!("{file}: {e}"))?;
        let _ = writeln!(summary, "binding {bti}: {} bytes to {file}", bytes.len());
    }
    for (bti, file) in &o.pngs {
        let Some((_, Made::Surface(s))) = made.iter().find(|(b, _)| b == bti) else {
            continue;
        };
        let row = s.width() as usize * s.format().bytes_per_pixel() as usize;
        let mut v = vec![0; row * s.height() as usize];
        s.read_pixels(Swizzle::None, &mut v).map_err(failed)?;
        let png =
            crate::picture::encode_rows(picture_format(s.format())?, s.width(), s.height(), &v)?;
        std::fs::write(file, &png).map_err(|e| format!("{file}: {e}"))?;
        let _ = writeln!(
            summary,
            "binding {bti}: a {}x{} picture to {file}",
            s.width(),
            s.height()
        );
    }
    let _ = writeln!(
        summary,
        "a kernel of {} instructions ran on the {} software GPU ({})",
        kernel.instruction_count(),
        o.generation,
        if xe {
            "COMPUTE_WALKER"
        } else if o.media {
            "MEDIA_OBJECT"
        } else {
            "GPGPU_WALKER"
        }
    );
    Ok(RunOutput { summary })
}

/// Waits up to `timeout_ms` of wall-clock time for a dispatch's fence. A
/// failure carries the driver's error and the software GPU's account of it.
pub(crate) fn wait_for<'a, P: baregpu::platform::Platform, B: baregpu::hal::MemoryBus>(
    gpu: &mut Gpu<'a, P>,
    soft: &SoftGpu<B>,
    cx: &Compute<'a>,
    fence: baregpu::submit::Fence,
    timeout_ms: u64,
) -> Result<(), String> {
    // DG2: the model's account of a walker that hung or stopped the engine
    // (a thread error such as a missing SWSB dependency, naming the
    // instruction and register) is read while the engine still holds it,
    // before the wait's reset clears it.
    let mut walker_report = None;
    if gpu.generation() == Generation::Gen12_5 {
        let deadline = wall_ns().saturating_add(timeout_ms.saturating_mul(1_000_000));
        while !gpu.poll(fence) && wall_ns() < deadline {
            walker_report = soft.compute_report(cx.engine().0);
            if walker_report.is_some() {
                break;
            }
        }
    }
    if let Err(e) = gpu.wait(fence, timeout_ms.saturating_mul(1000)) {
        if let Some(r) = walker_report {
            // The model's one-line account first: the error state after it
            // is long.
            return Err(format!(
                "the dispatch failed: compute engine: {r}\ndriver: {e}"
            ));
        }
        // The driver's error state, then what the EU array saw (the software
        // GPU's own report: which thread stopped where).
        let eu = soft
            .eu_report()
            .map_or_else(String::new, |r| format!("\nEU array: {r}"));
        return Err(format!("the dispatch failed: {e}{eu}"));
    }
    Ok(())
}

/// How a surface format shows as a picture.
fn picture_format(f: Format) -> Result<PixelFormat, String> {
    match f {
        Format::B8G8R8A8Unorm => Ok(PixelFormat::B8G8R8A8),
        Format::R8G8B8A8Unorm => Ok(PixelFormat::R8G8B8A8),
        Format::R8Unorm | Format::R8Uint => Ok(PixelFormat::R8),
        Format::R32Float => Ok(PixelFormat::R32Float),
        Format::R32Uint => Err("r32uint has no picture form (use --out for its values)".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_parse() {
        assert_eq!(binding("3=buffer:zero:0x40").unwrap(), (3, Bind::Zero(64)));
        // Refused by the size, before anything is allocated.
        let e = binding("0=buffer:zero:9223372036854775808").unwrap_err();
        assert!(e.contains("at most 536870912 bytes"), "{e}");
        assert_eq!(
            binding("1=surface2d:16x4:r32_uint:y").unwrap(),
            (
                1,
                Bind::Surface {
                    width: 16,
                    height: 4,
                    format: Format::R32Uint,
                    tiling: Tiling::Y,
                    tile4: false,
                    pixels: None
                }
            )
        );
        assert!(binding("1=surface2d:16:R8_UINT").is_err());
        // The file is everything after the format (and tiling), colons too;
        // it is read, so a missing one names itself.
        let e = binding("1=surface2d:16x4:R8_UINT:4").unwrap_err();
        assert!(e.starts_with("4: "), "{e}");
        let e = binding("1=surface2d:16x4:R8_UINT:y:a:b").unwrap_err();
        assert!(e.starts_with("a:b: "), "{e}");
        assert!(binding("1=texture:foo").is_err());
        assert!(binding("x=buffer:zero:4").is_err());
    }

    #[test]
    fn media_object_lines_are_dwords() {
        let v = media_objects("1 2 0x10\n# comment\n\n3 4 5 # trailing\n").unwrap();
        assert_eq!(v, vec![vec![1, 2, 16], vec![3, 4, 5]]);
        assert!(media_objects("1 0x100000000\n").is_err());
        assert!(media_objects("seven\n").is_err());
    }

    #[test]
    fn grids_default_their_missing_axes_to_one() {
        assert_eq!(triple("4", "--grid").unwrap(), [4, 1, 1]);
        assert_eq!(triple("4,2", "--grid").unwrap(), [4, 2, 1]);
        assert!(triple("1,2,3,4", "--grid").is_err());
    }
}
