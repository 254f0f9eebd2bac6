//! `baregpu run --zebin`: a kernel Intel's compiler built for DG2 (`ocloc
//! -device dg2 --format zebin`) run on the DG2 software GPU with the
//! dispatch Intel's OpenCL runtime gives it, through the driver's compute
//! path (buffers, binding table, kernel upload, COMPUTE_WALKER, fence).
//!
//! ```text
//! baregpu run --gen gen12.5 --zebin <file> [--kernel-name <name>]
//!             --global <x,y,z> [--local <x,y,z>] [--runtime-local-ids]
//!             [--arg <index>=<value>]... [--out <index>=<file>]... [--timeout-ms <ms>]
//!             [--no-swsb-check]
//! ```
//!
//! The dispatch is `baregpu_isa::zebin::dispatch::build`'s (NEO's for
//! Xe-HP/HPG): the cross-thread data from the kernel's
//! `payload_arguments`, its first `inline_data_payload_size` bytes the
//! walker's inline data and the rest the indirect data, which the kernel's
//! prologue finds at r0.0 bits 31:6 from General State Base
//! (`IndirectPointer::R0`). The walker generates the local IDs when the
//! group's shape allows and the kernel starts past its per-thread prologue
//! (`offset_to_skip_per_thread_data_load`); otherwise (or with
//! `--runtime-local-ids`) the IDs are written per thread into the indirect
//! data and the prologue loads them. Buffer arguments are the driver's
//! buffers: their GPU addresses fill the stateless pointers and
//! `buffer_address` entries, and each buffer listed in the kernel's
//! `binding_table_indices` is also bound there as a raw buffer surface, so
//! IGC's default stateful code and its `-cl-intel-greater-than-4GB-buffer-
//! required` stateless code both run. A kernel with stateless private
//! memory gets a private surface of its per-thread size times every
//! hardware thread ID (`zebin::dispatch::private_surface_size`), whose
//! address fills `private_base_stateless`; the kernel finds its thread's
//! part from sr0.0, which the model fills per thread slot.

use std::fmt::Write as _;

use baregpu::compute::{
    Buffer, Compute, ComputeError, Dispatch, IndirectPointer, KernelDesc, LocalIds,
    MAX_BUFFER_BYTES, Resource, Simd, Threads,
};
use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu::{Generation, Gpu};
use baregpu_isa::zebin::{self, dispatch::ArgValue, yaml};
use baregpu_soft::SoftGpu;

use crate::run::{number, read, triple, wait_for, wall_ns};

pub const USAGE: &str =
    "  baregpu run --gen gen12.5 --zebin <file> [--kernel-name <name>] --global <x,y,z>
              [--local <x,y,z>] [--runtime-local-ids] [--arg <index>=<value>]...
              [--out <index>=<file>]... [--timeout-ms <ms>] [--no-swsb-check]
      Run a kernel of a zebin (ocloc -device dg2 --format zebin) with the
      dispatch Intel's OpenCL runtime gives it: cross-thread data from its
      payload arguments (inline data, then indirect data found from r0.0),
      local IDs from the walker (from the runtime with --runtime-local-ids
      or when the group's shape needs it). --local defaults to the kernel's
      required work-group size, else the largest divisor of global x up to
      its SIMD width. Values: buffer:<file>, buffer:zero:<bytes>,
      local:<bytes> (a __local pointer), bytes:<file>, or a scalar or vector
      u8|i8|u16|i16|u32|i32|u64|i64|f32|f64:<v>[,<v>...]. --out writes a
      buffer argument's final bytes. Private memory gets a surface for
      every hardware thread; __constant/__global program data is uploaded
      and its addresses patched into the code (the zebin's relocations).
      --no-swsb-check runs without the model's SWSB dependency check.";

/// Largest zebin read: 64 MiB, far past any compiled program.
const MAX_ZEBIN: u64 = 64 << 20;

/// An argument as given on the command line.
#[derive(Clone, Debug, PartialEq)]
enum Arg {
    Buffer(Vec<u8>),
    Zero(usize),
    Local(u32),
    Value(Vec<u8>),
}

#[derive(Debug)]
struct Options {
    zebin: Vec<u8>,
    kernel_name: Option<String>,
    global: [u32; 3],
    local: Option<[u32; 3]>,
    runtime_local_ids: bool,
    args: Vec<(u32, Arg)>,
    outs: Vec<(u32, String)>,
    timeout_ms: u64,
    swsb_check: bool,
}

/// `<type>:<v>[,<v>...]`: little-endian scalars, one after the other.
fn scalars(kind: &str, list: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for v in list.split(',') {
        let bad = || format!("{v:?} is not a {kind}");
        let int = |v: &str| -> Result<i128, String> {
            let (neg, digits) = match v.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, v),
            };
            let n = i128::from(number(digits).map_err(|_| bad())?);
            Ok(if neg { -n } else { n })
        };
        let fits = |n: i128, lo: i128, hi: i128| {
            if (lo..=hi).contains(&n) {
                Ok(n)
            } else {
                Err(format!("{v} does not fit a {kind}"))
            }
        };
        match kind {
            "u8" => out.push(fits(int(v)?, 0, 0xff)? as u8),
            "i8" => out.extend((fits(int(v)?, -0x80, 0x7f)? as i8).to_le_bytes()),
            "u16" => out.extend((fits(int(v)?, 0, 0xffff)? as u16).to_le_bytes()),
            "i16" => out.extend((fits(int(v)?, -0x8000, 0x7fff)? as i16).to_le_bytes()),
            "u32" => out.extend((fits(int(v)?, 0, u32::MAX.into())? as u32).to_le_bytes()),
            "i32" => {
                out.extend((fits(int(v)?, i32::MIN.into(), i32::MAX.into())? as i32).to_le_bytes())
            }
            "u64" => out.extend((fits(int(v)?, 0, u64::MAX.into())? as u64).to_le_bytes()),
            "i64" => {
                out.extend((fits(int(v)?, i64::MIN.into(), i64::MAX.into())? as i64).to_le_bytes())
            }
            "f32" => out.extend(v.parse::<f32>().map_err(|_| bad())?.to_le_bytes()),
            "f64" => out.extend(v.parse::<f64>().map_err(|_| bad())?.to_le_bytes()),
            _ => return Err(format!("unknown value type {kind:?}")),
        }
    }
    Ok(out)
}

/// `<index>=buffer:<file>`, `buffer:zero:<bytes>`, `local:<bytes>`,
/// `bytes:<file>` or `<type>:<values>`.
fn argument(s: &str) -> Result<(u32, Arg), String> {
    let (index, what) = s
        .split_once('=')
        .ok_or_else(|| format!("--arg {s:?}: expected <index>=<value>"))?;
    let index = u32::try_from(number(index)?).map_err(|_| format!("--arg {s:?}: bad index"))?;
    let (kind, rest) = what
        .split_once(':')
        .ok_or_else(|| format!("--arg {s:?}: expected <kind>:<value>"))?;
    let arg = match kind {
        "buffer" => match rest.strip_prefix("zero:") {
            Some(n) => {
                let n = number(n)?;
                if n > MAX_BUFFER_BYTES as u64 {
                    return Err(format!(
                        "--arg {s:?}: a buffer has at most {MAX_BUFFER_BYTES} bytes"
                    ));
                }
                Arg::Zero(n as usize)
            }
            None => Arg::Buffer(read(rest, MAX_BUFFER_BYTES as u64, "buffer")?),
        },
        "local" => {
            Arg::Local(u32::try_from(number(rest)?).map_err(|_| format!("--arg {s:?}: too large"))?)
        }
        // A by-value argument is at most a few KiB of cross-thread data.
        "bytes" => Arg::Value(read(rest, 1 << 16, "by-value argument")?),
        _ => Arg::Value(scalars(kind, rest).map_err(|e| format!("--arg {s:?}: {e}"))?),
    };
    Ok((index, arg))
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut it = args.iter();
    let get = |flag: &str, it: &mut std::slice::Iter<String>| {
        it.next()
            .cloned()
            .ok_or_else(|| format!("{flag} needs a value"))
    };
    let (mut zebin, mut kernel_name, mut global, mut local) = (None, None, None, None);
    let (mut runtime_local_ids, mut list, mut outs, mut timeout_ms) =
        (false, Vec::new(), Vec::new(), 60_000);
    let mut swsb_check = true;
    while let Some(a) = it.next() {
        match a.as_str() {
            "--gen" => {
                let g = get(a, &mut it)?;
                if crate::run::generation(&g)?.0 != Generation::Gen12_5 {
                    return Err(format!(
                        "--zebin runs DG2 kernels (--gen gen12.5), not {g:?}"
                    ));
                }
            }
            "--zebin" => zebin = Some(read(&get(a, &mut it)?, MAX_ZEBIN, "zebin")?),
            "--kernel-name" => kernel_name = Some(get(a, &mut it)?),
            "--global" => global = Some(triple(&get(a, &mut it)?, "--global")?),
            "--local" => local = Some(triple(&get(a, &mut it)?, "--local")?),
            "--runtime-local-ids" => runtime_local_ids = true,
            "--arg" => list.push(argument(&get(a, &mut it)?)?),
            "--out" => {
                let v = get(a, &mut it)?;
                let (index, file) = v
                    .split_once('=')
                    .ok_or_else(|| format!("--out {v:?}: expected <index>=<file>"))?;
                let index = u32::try_from(number(index)?).map_err(|_| format!("--out {v:?}"))?;
                outs.push((index, file.to_string()));
            }
            "--timeout-ms" => timeout_ms = number(&get(a, &mut it)?)?,
            "--no-swsb-check" => swsb_check = false,
            other => {
                return Err(format!(
                    "unexpected argument {other:?} with --zebin\nusage:\n{USAGE}"
                ));
            }
        }
    }
    let zebin = zebin.ok_or_else(|| format!("--zebin is required\nusage:\n{USAGE}"))?;
    let global = global.ok_or_else(|| format!("--global is required\nusage:\n{USAGE}"))?;
    let mut args: Vec<(u32, Arg)> = Vec::new();
    for (i, a) in list {
        if args.iter().any(|(j, _)| *j == i) {
            return Err(format!("--arg {i} is given twice"));
        }
        args.push((i, a));
    }
    for (i, _) in &outs {
        match args.iter().find(|(j, _)| j == i) {
            Some((_, Arg::Buffer(_) | Arg::Zero(_))) => {}
            _ => return Err(format!("--out {i}: argument {i} is not a buffer")),
        }
    }
    Ok(Options {
        zebin,
        kernel_name,
        global,
        local,
        runtime_local_ids,
        args,
        outs,
        timeout_ms,
        swsb_check,
    })
}

/// How the kernel names argument `index` (`kernels_misc_info`), for
/// messages: `2 (out: float*)`, or just the index.
fn describe(info: &yaml::Node, kernel: &str, index: u32) -> String {
    let arg =
        info.get("kernels_misc_info")
            .map_or(&[][..], yaml::Node::items)
            .iter()
            .find(|k| k.get("name").and_then(yaml::Node::as_str) == Some(kernel))
            .and_then(|k| {
                k.get("args_info")?.items().iter().find(|a| {
                    a.get("index").and_then(yaml::Node::as_str) == Some(&index.to_string())
                })
            });
    let field = |key| arg.and_then(|a| a.get(key)).and_then(yaml::Node::as_str);
    match (field("name"), field("type_name")) {
        (Some(n), Some(t)) => {
            // IGC writes the type as `<type>;<size>`.
            let t = t.split(';').next().unwrap_or(t);
            format!("{index} ({n}: {t})")
        }
        _ => index.to_string(),
    }
}

/// The work-group size when none is given: the kernel's required one, else
/// the largest divisor of global x no wider than a thread.
fn default_local(k: &zebin::Kernel<'_>, global: [u32; 3]) -> [u32; 3] {
    if let Some(r) = k.required_work_group_size.filter(|r| !r.contains(&0)) {
        return r;
    }
    let x = (1..=k.simd.max(1))
        .rev()
        .find(|d| global[0].is_multiple_of(*d))
        .unwrap_or(1);
    [x, 1, 1]
}

/// Runs `baregpu run --zebin ...`.
pub fn run(args: &[String]) -> Result<String, String> {
    let o = parse(args)?;
    let zb = zebin::read(&o.zebin).map_err(|e| e.to_string())?;
    let names: Vec<&str> = zb.kernels.iter().map(|k| k.name.as_str()).collect();
    let k = match (&o.kernel_name, zb.kernels.as_slice()) {
        (Some(n), _) => zb.kernel(n).ok_or_else(|| {
            format!(
                "the zebin has no kernel {n:?} (it has {})",
                names.join(", ")
            )
        })?,
        (None, [only]) => only,
        (None, _) => {
            return Err(format!(
                "--kernel-name is needed: the zebin has {}",
                names.join(", ")
            ));
        }
    };
    let name = k.name.as_str();
    let local = o.local.unwrap_or_else(|| default_local(k, o.global));
    if let Some(r) = k.required_work_group_size.filter(|r| *r != local) {
        return Err(format!(
            "kernel {name} requires work-groups of {r:?}, not {local:?}"
        ));
    }
    // Scratch slot 0 is the walker's scratch surface (IGC's spills and
    // its scratch-space private memory); a second slot is not set up.
    if k.scratch[1] != 0 {
        return Err(format!(
            "kernel {name} uses a second scratch slot ({} bytes per thread), \
             which this runner does not set up",
            k.scratch[1]
        ));
    }
    if let Some(m) = k.other_memory.first() {
        return Err(format!(
            "kernel {name} asks for per-thread memory of kind {m}, which this runner does not allocate"
        ));
    }
    // Every argument the payload names must be given.
    let mut wanted: Vec<u32> = k
        .payload
        .iter()
        .filter_map(|a| a.arg_index)
        .chain(k.bindings.iter().map(|b| b.1))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    if let Some(&i) = wanted.iter().find(|i| !o.args.iter().any(|(j, _)| j == *i)) {
        let all: Vec<String> = wanted
            .iter()
            .map(|i| describe(&zb.zeinfo, name, *i))
            .collect();
        return Err(format!(
            "kernel {name}: argument {} is not given (--arg); it takes {}",
            describe(&zb.zeinfo, name, i),
            all.join(", ")
        ));
    }

    let platform = HostPlatform::with_clock(wall_ns);
    let soft = SoftGpu::new(Generation::Gen12_5, PlatformBus::new(&platform))
        .map_err(|e| format!("software GPU: {e:?}"))?;
    soft.set_swsb_check(o.swsb_check);
    let mut gpu = Gpu::new(&platform, &soft, Generation::Gen12_5)
        .map_err(|e| format!("GPU bring-up: {e}"))?;
    let failed = |e: ComputeError| format!("{e}");
    let mut cx = Compute::new(&mut gpu).map_err(failed)?;

    // Buffers first: their addresses are argument values.
    let mut buffers: Vec<(u32, Buffer<'_>)> = Vec::new();
    let mut values = Vec::new();
    let top = o.args.iter().map(|(i, _)| *i + 1).max().unwrap_or(0);
    for index in 0..top {
        let value = match o.args.iter().find(|(j, _)| *j == index).map(|(_, a)| a) {
            None => ArgValue::Value(Vec::new()),
            Some(Arg::Buffer(bytes)) => {
                let b = cx.upload_buffer(&mut gpu, bytes).map_err(failed)?;
                let v = ArgValue::Buffer(b.gfx().0);
                buffers.push((index, b));
                v
            }
            Some(Arg::Zero(n)) => {
                let b = cx.create_buffer(&mut gpu, *n).map_err(failed)?;
                let v = ArgValue::Buffer(b.gfx().0);
                buffers.push((index, b));
                v
            }
            Some(Arg::Local(n)) => ArgValue::Local(*n),
            Some(Arg::Value(v)) => ArgValue::Value(v.clone()),
        };
        values.push(value);
    }
    // Private memory: one surface for every hardware thread ID the kernel
    // may compute from sr0.0, as NEO allocates it.
    let private_bytes = zebin::dispatch::private_surface_size(k);
    let private = if private_bytes == 0 {
        None
    } else {
        let size = usize::try_from(private_bytes).unwrap_or(usize::MAX);
        Some(cx.create_buffer(&mut gpu, size).map_err(|e| {
            format!(
                "kernel {name}: private memory of {} bytes per thread needs {private_bytes} bytes: {e}",
                k.private_per_thread
            )
        })?)
    };
    // Program-scope data (`__constant`/`__global` variables, built-in
    // tables): one buffer per segment, their addresses patched into the
    // code where its relocations say, as NEO does.
    let mut segment = |bytes: &[u8], what: &str| -> Result<Option<Buffer<'_>>, String> {
        if bytes.is_empty() {
            return Ok(None);
        }
        cx.upload_buffer(&mut gpu, bytes)
            .map(Some)
            .map_err(|e| format!("the program's {what} data ({} bytes): {e}", bytes.len()))
    };
    let constants = segment(&zb.data.constants, "constant")?;
    let globals = segment(&zb.data.globals, "global")?;
    let surfaces = zebin::dispatch::Surfaces {
        private: private.as_ref().map(|b| b.gfx().0),
        constants: constants.as_ref().map(|b| b.gfx().0),
        globals: globals.as_ref().map(|b| b.gfx().0),
    };
    let code = zebin::reloc::relocate(
        k.code,
        &k.relocs,
        surfaces.constants,
        surfaces.globals,
        // Where the per-thread data starts in the indirect data: past the
        // cross-thread data the inline register does not carry.
        k.cross_thread_size()
            .saturating_sub(k.inline_data_payload_size.min(k.cross_thread_size())),
    )
    .map_err(|e| format!("kernel {name}: {e}"))?;
    let d = zebin::dispatch::build(k, &values, surfaces, o.global, local, o.runtime_local_ids)
        .map_err(|e| format!("kernel {name}: {e}"))?;

    // Stateful buffers: bound where the kernel's binding table says.
    let mut bindings: Vec<(u32, Resource<'_>)> = Vec::new();
    for &(bti, index) in &k.bindings {
        let Some((_, b)) = buffers.iter().find(|(i, _)| *i == index) else {
            return Err(format!(
                "kernel {name}: argument {} is bound at binding table index {bti}: give a buffer",
                describe(&zb.zeinfo, name, index)
            ));
        };
        bindings.push((bti, Resource::Buffer(b)));
    }
    let btis: Vec<u32> = bindings.iter().map(|(b, _)| *b).collect();

    let simd = match d.simd {
        8 => Simd::Simd8,
        16 => Simd::Simd16,
        32 => Simd::Simd32,
        n => return Err(format!("kernel {name}: SIMD{n} is not dispatched")),
    };
    let local_ids = match d.emit_local {
        0 => LocalIds::None,
        1 => LocalIds::X,
        3 => LocalIds::Xy,
        _ => LocalIds::Xyz,
    };
    let desc = KernelDesc {
        simd,
        grf_registers: k.grf_count,
        bindings: &btis,
        barriers: d.barriers != 0,
        slm_bytes: d.slm_bytes,
        local_ids,
        entry: d.start,
        scratch_bytes: k.scratch[0],
        ..KernelDesc::new(&code)
    };
    let kernel = cx
        .load_kernel(&mut gpu, &desc)
        .map_err(|e| format!("kernel {name}: {e}"))?;
    // A kernel without inline data reads all of its cross-thread data from
    // memory: no inline register then (NEO emits none).
    let inline: &[u32] = if k.inline_data_payload_size == 0 {
        &[]
    } else {
        &d.inline
    };
    let dispatch = Dispatch {
        threads: Threads::Compute {
            groups: d.groups,
            group_size: d.local,
            inline,
            indirect: &d.indirect,
            pointer: IndirectPointer::R0,
        },
        curbe: &[],
        bindings: &bindings,
        samplers: &[],
    };
    let fence = cx
        .dispatch(&mut gpu, &kernel, &dispatch)
        .map_err(|e| format!("kernel {name}: {e}"))?;
    wait_for(&mut gpu, &soft, &cx, fence, o.timeout_ms).map_err(|e| {
        // The model counts instruction offsets from where the threads
        // started; the kernel's code (`disasm` of its section) from 0.
        if d.start == 0 {
            e
        } else {
            format!(
                "{e}\n(offsets in the compute engine's report count from the entry point, \
                 byte {:#x} of kernel {name}'s code)",
                d.start
            )
        }
    })?;

    let mut summary = String::new();
    for (index, file) in &o.outs {
        let Some((_, b)) = buffers.iter().find(|(i, _)| i == index) else {
            continue;
        };
        let mut v = vec![0; b.size()];
        b.read(0, &mut v).map_err(failed)?;
        std::fs::write(file, &v).map_err(|e| format!("{file}: {e}"))?;
        let _ = writeln!(summary, "argument {index}: {} bytes to {file}", v.len());
    }
    let groups: u64 = d.groups.iter().map(|&g| u64::from(g)).product();
    let _ = writeln!(
        summary,
        "kernel {name} ({} instructions, SIMD{}) ran on the gen12.5 software GPU (COMPUTE_WALKER): \
         {groups} group(s) of {:?}, {} thread(s) each, local IDs from the {}",
        kernel.instruction_count(),
        d.simd,
        d.local,
        d.threads_per_group,
        if d.emit_local != 0 {
            format!("walker (entry +{})", d.start)
        } else {
            "runtime (entry +0)".to_string()
        }
    );
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_little_endian_and_range_checked() {
        assert_eq!(scalars("u32", "1,0x10").unwrap(), [1, 0, 0, 0, 16, 0, 0, 0]);
        assert_eq!(scalars("i16", "-2").unwrap(), [0xfe, 0xff]);
        assert_eq!(scalars("f32", "1.5").unwrap(), 1.5f32.to_le_bytes());
        assert!(scalars("u8", "256").is_err());
        assert!(scalars("i32", "-2147483649").is_err());
        assert!(scalars("q32", "1").is_err());
        assert!(scalars("f32", "one").is_err());
    }

    #[test]
    fn arguments_parse() {
        assert_eq!(
            argument("2=u32:7").unwrap(),
            (2, Arg::Value(vec![7, 0, 0, 0]))
        );
        assert_eq!(argument("0=buffer:zero:64").unwrap(), (0, Arg::Zero(64)));
        assert_eq!(argument("1=local:256").unwrap(), (1, Arg::Local(256)));
        assert!(argument("1").is_err());
        assert!(argument("x=u32:1").is_err());
        assert!(argument("0=buffer:zero:99999999999").is_err());
    }
}
