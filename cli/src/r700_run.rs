//! `baregpu run --gen r700`: an R700 binary on the emulator of `baregpu-r700`, over
//! buffers and a grid as for the EU kernels. Buffers live at the emulator's GPU address
//! `index << 32`; the flags below bind them to what the shader reaches (the launch
//! interface `r700/README.md` documents).

use std::fmt::Write as _;

use baregpu_r700::emu::{self, ConstBuffer, Grid, Inputs, Options, VtxResource};

use crate::run::{number, read, triple};

pub const USAGE: &str = "  baregpu run --gen r700 --kernel <file> --grid <x,y,z> [--group <x,y,z>]
              [--bind <i>=buffer:<file> | <i>=buffer:zero:<bytes>]... [--out <i>=<file>]...
              [--mem-export <i>] [--export <pixel|pos|param>=<i>] [--const <bank>=<i>]...
              [--vtx <id>=<i>,<stride>,<format>[,<num-format>]]... [--budget <steps>]
              [--inputs <i>,<first-gpr>,<count>] [--wave <16|32|48|64>] [--keep-denormals]
      Run an R700 binary (or exact text, .s/.asm) on the R700 emulator. Buffer <i>
      (0-255) is at GPU address <i> << 32. --mem-export sets MEM_EXPORT's base,
      --export where EXPORT writes (64 targets of 16 bytes per thread), --const a
      kcache constant buffer, --vtx a vertex resource (DATA_FORMAT number; num-format
      0 norm, 1 int, 2 scaled). Thread inputs: R0 = (thread id, id in group, group id, 0),
      R1 = local id xyz, R2 = group id xyz; --inputs loads thread t's GPRs
      first..first+count from buffer <i> at (t * count + k) * 16. --group counts threads
      per group (default 64).";

/// Largest kernel or buffer file: 64 MiB.
const MAX_FILE: u64 = 64 << 20;

struct Args {
    kernel: Vec<u8>,
    grid: Grid,
    buffers: Vec<Vec<u8>>,
    outs: Vec<(usize, String)>,
    options: Options,
}

fn index(s: &str, what: &str) -> Result<usize, String> {
    let v = number(s)?;
    if v > 255 {
        return Err(format!("{what}: buffer {v} is past 255"));
    }
    Ok(v as usize)
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut it = args.iter();
    let get = |flag: &str, it: &mut std::slice::Iter<String>| {
        it.next()
            .cloned()
            .ok_or_else(|| format!("{flag} needs a value"))
    };
    let (mut kernel, mut grid, mut group) = (None, None, [64, 1, 1]);
    let mut buffers: Vec<Option<Vec<u8>>> = Vec::new();
    let mut outs = Vec::new();
    let mut o = Options::default();
    let at = |i: usize| emu::address(i as u8, 0);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--gen" => {
                let g = get(a, &mut it)?;
                if g != "r700" {
                    return Err(format!("--gen {g}: this is the R700 runner"));
                }
            }
            "--kernel" => kernel = Some(get(a, &mut it)?),
            "--grid" => grid = Some(triple(&get(a, &mut it)?, "--grid")?),
            "--group" => group = triple(&get(a, &mut it)?, "--group")?,
            "--bind" => {
                let v = get(a, &mut it)?;
                let (i, what) = v
                    .split_once('=')
                    .ok_or_else(|| format!("--bind {v:?}: expected <i>=buffer:..."))?;
                let i = index(i, "--bind")?;
                let rest = what.strip_prefix("buffer:").ok_or_else(|| {
                    format!("--bind {v:?}: expected buffer:<file> or buffer:zero:<bytes>")
                })?;
                let bytes = match rest.strip_prefix("zero:") {
                    Some(n) => {
                        let n = number(n)?;
                        if n > MAX_FILE {
                            return Err(format!("--bind {v:?}: at most {MAX_FILE} bytes"));
                        }
                        vec![0; n as usize]
                    }
                    None => read(rest, MAX_FILE, "buffer")?,
                };
                if buffers.len() <= i {
                    buffers.resize(i + 1, None);
                }
                buffers[i] = Some(bytes);
            }
            "--out" => {
                let v = get(a, &mut it)?;
                let (i, file) = v
                    .split_once('=')
                    .ok_or_else(|| format!("--out {v:?}: expected <i>=<file>"))?;
                outs.push((index(i, "--out")?, file.to_string()));
            }
            "--mem-export" => o.mem_export_base = Some(at(index(&get(a, &mut it)?, a)?)),
            "--export" => {
                let v = get(a, &mut it)?;
                let (kind, i) = v
                    .split_once('=')
                    .ok_or_else(|| format!("--export {v:?}: expected <pixel|pos|param>=<i>"))?;
                let k = match kind {
                    "pixel" => 0,
                    "pos" => 1,
                    "param" => 2,
                    _ => return Err(format!("--export {v:?}: the type is pixel, pos or param")),
                };
                o.export_base[k] = Some(at(index(i, "--export")?));
            }
            "--const" => {
                let v = get(a, &mut it)?;
                let (bank, i) = v
                    .split_once('=')
                    .ok_or_else(|| format!("--const {v:?}: expected <bank>=<i>"))?;
                let bank = number(bank)?;
                if bank > 15 {
                    return Err(format!("--const {v:?}: banks are 0-15"));
                }
                // The size is filled in once the buffers are known.
                o.const_buffers[bank as usize] = Some(ConstBuffer {
                    address: at(index(i, "--const")?),
                    size: 0,
                });
            }
            "--vtx" => {
                let v = get(a, &mut it)?;
                let (id, spec) = v
                    .split_once('=')
                    .ok_or_else(|| format!("--vtx {v:?}: expected <id>=<i>,<stride>,<format>"))?;
                let id =
                    u8::try_from(number(id)?).map_err(|_| format!("--vtx {v:?}: ids are 0-255"))?;
                let parts: Vec<&str> = spec.split(',').collect();
                if !(3..=4).contains(&parts.len()) {
                    return Err(format!(
                        "--vtx {v:?}: expected <i>,<stride>,<format>[,<num-format>]"
                    ));
                }
                let i = index(parts[0], "--vtx")?;
                let stride = number(parts[1])?;
                let fmt = number(parts[2])?;
                let num = parts.get(3).map(|n| number(n)).transpose()?.unwrap_or(0);
                if stride > 2047 || fmt > 63 || num > 2 {
                    return Err(format!(
                        "--vtx {v:?}: stride 0-2047, format 0-63, num-format 0-2"
                    ));
                }
                // SIZE is filled in once the buffers are known.
                o.vtx_resources.push((
                    id,
                    VtxResource::buffer(at(i), 0, stride as u32, fmt as u8, num as u8),
                ));
            }
            "--inputs" => {
                let v = get(a, &mut it)?;
                let p: Vec<&str> = v.split(',').collect();
                let [i, first, count] = p[..] else {
                    return Err(format!("--inputs {v:?}: expected <i>,<first-gpr>,<count>"));
                };
                let (first, count) = (number(first)?, number(count)?);
                if first + count > 128 {
                    return Err(format!("--inputs {v:?}: GPRs end at 127"));
                }
                o.inputs = Some(Inputs {
                    address: at(index(i, "--inputs")?),
                    first: first as u8,
                    count: count as u8,
                });
            }
            "--budget" => o.budget = number(&get(a, &mut it)?)?,
            "--wave" => {
                o.wave_size = match get(a, &mut it)?.as_str() {
                    "16" => 16,
                    "32" => 32,
                    "48" => 48,
                    "64" => 64,
                    w => return Err(format!("--wave is 16, 32, 48 or 64, not {w}")),
                }
            }
            "--keep-denormals" => o.flush_denormals = false,
            other => return Err(format!("unexpected argument {other:?}\nusage:\n{USAGE}")),
        }
    }
    let path = kernel.ok_or_else(|| format!("--kernel is required\nusage:\n{USAGE}"))?;
    let kernel = if path.ends_with(".s") || path.ends_with(".asm") {
        let text = String::from_utf8(read(&path, MAX_FILE, "kernel source")?)
            .map_err(|_| format!("{path}: not text"))?;
        baregpu_r700::asm::assemble(&text).map_err(|e| format!("{path}: {e}"))?
    } else {
        read(&path, MAX_FILE, "kernel")?
    };
    let grid = grid.ok_or_else(|| format!("--grid is required\nusage:\n{USAGE}"))?;
    let buffers: Vec<Vec<u8>> = buffers.into_iter().map(Option::unwrap_or_default).collect();
    let size = |addr: u64| buffers.get((addr >> 32) as usize).map_or(0, Vec::len);
    for cb in o.const_buffers.iter_mut().flatten() {
        cb.size = u32::try_from(size(cb.address)).unwrap_or(u32::MAX);
    }
    for (_, r) in &mut o.vtx_resources {
        let addr = (r.0[2] as u64 & 0xFF) << 32 | r.0[0] as u64;
        r.0[1] = u32::try_from(size(addr))
            .unwrap_or(u32::MAX)
            .wrapping_sub(1);
    }
    for (i, _) in &outs {
        if *i >= buffers.len() {
            return Err(format!("--out {i}: nothing is bound there"));
        }
    }
    Ok(Args {
        kernel,
        grid: Grid {
            groups: grid,
            group_size: group,
        },
        buffers,
        outs,
        options: o,
    })
}

/// Runs `baregpu run --gen r700` with its arguments; returns the summary to print.
pub fn run(args: &[String]) -> Result<String, String> {
    let mut a = parse(args)?;
    let mut views: Vec<&mut [u8]> = a.buffers.iter_mut().map(Vec::as_mut_slice).collect();
    let report = emu::run(&a.kernel, &mut views, a.grid, &a.options).map_err(|e| format!("{e}"))?;
    let mut summary = String::new();
    for (i, file) in &a.outs {
        std::fs::write(file, &a.buffers[*i]).map_err(|e| format!("{file}: {e}"))?;
        let _ = writeln!(
            summary,
            "buffer {i}: {} bytes to {file}",
            a.buffers[*i].len()
        );
    }
    let _ = writeln!(
        summary,
        "{} threads in {} wavefronts ran on the R700 emulator: {} steps, {} writes dropped, {} pixels killed",
        report.threads, report.wavefronts, report.steps, report.dropped_writes, report.killed
    );
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// out[tid] = 2*tid + 1 through MEM_EXPORT (the encoding of the digest's demo,
    /// shared/notes/seed-002-r700.md section 6.3).
    #[test]
    fn mem_export_demo_through_the_cli() {
        let dir = std::env::temp_dir().join(format!("baregpu-r700-run-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let words: [u32; 8] = [
            0x0000_0002,
            0xA004_0000, // ALU ADDR=2 COUNT=1
            0x0001_2000,
            0x9D20_1FFF, // MEM_EXPORT WRITE_IND R2, INDEX R0, EOP
            0x8000_0000,
            0x0040_1A10, // ADD_INT R2.x, R0.x, R0.x
            0x801F_40FE,
            0x0040_1A10, // ADD_INT R2.x, PV.x, 1
        ];
        let kernel = dir.join("demo.bin");
        std::fs::write(
            &kernel,
            words
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect::<Vec<u8>>(),
        )
        .unwrap();
        let out = dir.join("out.bin");
        let args = strings(&[
            "--gen",
            "r700",
            "--kernel",
            kernel.to_str().unwrap(),
            "--grid",
            "2",
            "--group",
            "32",
            "--bind",
            "0=buffer:zero:256",
            "--mem-export",
            "0",
            "--out",
            &format!("0={}", out.to_str().unwrap()),
        ]);
        // Through `baregpu run`'s entry point, which hands --gen r700 over.
        let summary = crate::run::run(&args).unwrap().summary;
        assert!(summary.contains("64 threads in 2 wavefronts"), "{summary}");
        let bytes = std::fs::read(&out).unwrap();
        for t in 0..64u32 {
            let v = u32::from_le_bytes(bytes[t as usize * 4..][..4].try_into().unwrap());
            assert_eq!(v, 2 * t + 1, "out[{t}]");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_arguments_are_errors() {
        for bad in [
            &["--gen", "r700", "--grid", "1"][..],
            &["--gen", "r700", "--kernel", "/nonexistent", "--grid", "1"],
            &["--gen", "r700", "--bind", "300=buffer:zero:4"],
            &["--gen", "r700", "--export", "color=1"],
            &["--gen", "r700", "--wave", "7"],
            &["--gen", "r700", "--vtx", "1=0,4"],
            &["--gen", "r700", "--inputs", "1,120,9"],
        ] {
            assert!(parse(&strings(bad)).is_err(), "{bad:?}");
        }
    }
}
