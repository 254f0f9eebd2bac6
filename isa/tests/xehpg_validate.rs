//! The Gen12.5 validator rules (`validate/xe.rs`) on small kernels written
//! in iga64's syntax: each rule fires on the broken form and stays quiet
//! on the corrected one.

use baregpu_isa::generation::IsaGen;
use baregpu_isa::inst::{Opcode, Swsb, TokenMode};
use baregpu_isa::text::assemble;
use baregpu_isa::validate::{Rule, Severity, validate_kernel};

/// The rules found in `src`, with severity, in order.
fn found(src: &str) -> Vec<(Rule, Severity)> {
    let bytes = assemble(IsaGen::Gen12_5, src).unwrap_or_else(|e| panic!("{src}: {e}"));
    validate_kernel(IsaGen::Gen12_5, &bytes)
        .unwrap()
        .into_iter()
        .map(|(_, v)| (v.rule, v.severity))
        .collect()
}

// load.ugm.d32x4.a64 at SIMD16: 4 address registers, 8 data registers.
const LOAD: &str = "send.ugm (16|M0) r10 r20 null:0 0x0 0x08803580 {$1}\n";

#[test]
fn a_clean_kernel_has_no_findings() {
    let src = format!(
        "{LOAD}add (16|M0) r30.0<1>:f r10.0<1;1,0>:f r12.0<1;1,0>:f {{$1.dst}}\n\
         mul (16|M0) r40.0<1>:f r30.0<1;1,0>:f r14.0<1;1,0>:f {{@1}}\n\
         load.ugm.d32.a32 (16|M0) r50:2 [r60:2] {{$2}}\n\
         send.gtwy (1|M0) null r127 null:0 0x0 0x02000000 {{EOT,$2.dst}}\n"
    );
    assert_eq!(found(&src), vec![]);
}

#[test]
fn token_dependencies() {
    let raw = format!("{LOAD}add (16|M0) r30.0<1>:f r10.0<1;1,0>:f r12.0<1;1,0>:f\n");
    assert_eq!(
        found(&raw),
        vec![(Rule::XeTokenDependency, Severity::Warning)]
    );
    // Overwriting the send's address payload before its sources are read.
    let war = format!("{LOAD}mov (16|M0) r20.0<1>:f r2.0<1;1,0>:f\n");
    assert_eq!(
        found(&war),
        vec![(Rule::XeTokenDependency, Severity::Warning)]
    );
    let waited = format!("{LOAD}mov (16|M0) r20.0<1>:f r2.0<1;1,0>:f {{$1.src}}\n");
    assert_eq!(found(&waited), vec![]);
    let synced =
        format!("{LOAD}sync.allwr null\nadd (16|M0) r30.0<1>:f r10.0<1;1,0>:f r12.0<1;1,0>:f\n");
    assert_eq!(found(&synced), vec![]);
    // A different token does not help.
    let other = format!("{LOAD}add (16|M0) r30.0<1>:f r10.0<1;1,0>:f r12.0<1;1,0>:f {{$3.dst}}\n");
    assert_eq!(
        found(&other),
        vec![(Rule::XeTokenDependency, Severity::Warning)]
    );
}

#[test]
fn distance_dependencies() {
    let src = "add (16|M0) r30.0<1>:f r1.0<1;1,0>:f r2.0<1;1,0>:f\n\
               mov (16|M0) r50.0<1>:f r3.0<1;1,0>:f\n\
               mul (16|M0) r40.0<1>:f r30.0<1;1,0>:f r4.0<1;1,0>:f\n";
    assert_eq!(
        found(src),
        vec![(Rule::XeDistanceDependency, Severity::Warning)]
    );
    assert_eq!(
        found(&src.replace("r4.0<1;1,0>:f\n", "r4.0<1;1,0>:f {@2}\n")),
        vec![]
    );
    // @3 waits for an instruction older than the writer: not enough.
    let short = src.replace("r4.0<1;1,0>:f\n", "r4.0<1;1,0>:f {@3}\n");
    assert_eq!(
        found(&short),
        vec![(Rule::XeDistanceDependency, Severity::Warning)]
    );
    // Far enough back on its pipe (more than 10 float instructions,
    // Mesa's reach), the write has completed.
    let far = src.replace(
        "mov (16|M0) r50.0<1>:f r3.0<1;1,0>:f\n",
        &"mov (16|M0) r50.0<1>:f r3.0<1;1,0>:f\n".repeat(10),
    );
    assert_eq!(found(&far), vec![]);
    let near = src.replace(
        "mov (16|M0) r50.0<1>:f r3.0<1;1,0>:f\n",
        &"mov (16|M0) r50.0<1>:f r3.0<1;1,0>:f\n".repeat(9),
    );
    assert_eq!(
        found(&near),
        vec![(Rule::XeDistanceDependency, Severity::Warning)]
    );
    assert_eq!(found(&far), vec![]);
}

#[test]
fn send_rules() {
    // mlen 2 where A64 addresses at SIMD16 take 4.
    let mlen = "send.ugm (16|M0) r10 r20 null:0 0x0 0x04803580 {$1}\n";
    assert_eq!(found(mlen), vec![(Rule::XeSendLength, Severity::Error)]);
    // A transposed load at SIMD16.
    let t = "send.ugm (16|M0) r10 r20 null:0 0x0 0x0220D500 {$1}\n";
    assert!(found(t).contains(&(Rule::XeLscShape, Severity::Error)));
    assert_eq!(found(&t.replace("(16|M0)", "(1|M0)")), vec![]);
    // Bit 16 is MBZ.
    let mbz = "send.ugm (16|M0) r10 r20 null:0 0x0 0x08813580 {$1}\n";
    assert_eq!(found(mbz), vec![(Rule::XeSendDescriptor, Severity::Error)]);
    // A d32x16 vector is too long untransposed.
    let v = "send.ugm (8|M0) r10 r20 null:0 0x0 0x03005500 {$1}\n";
    assert!(found(v).contains(&(Rule::XeLscShape, Severity::Error)));
    // The barrier sends one register.
    let bar = "send.gtwy (1|M0) null r20 null:0 0x0 0x04000004 {$1}\n";
    assert_eq!(found(bar), vec![(Rule::XeSendLength, Severity::Error)]);
    assert_eq!(found(&bar.replace("0x04000004", "0x02000004")), vec![]);
    // A store's second payload: d32 at SIMD16 takes 2 registers.
    let st = "send.ugm (16|M0) null r20 r30:1 0x0 0x04000504 {$1}\n";
    assert_eq!(found(st), vec![(Rule::XeSendLength, Severity::Error)]);
    assert_eq!(found(&st.replace("r30:1", "r30:2")), vec![]);
}

#[test]
fn region_rules() {
    let ok = "add (8|M0) r10.0<1>:f r20.0<8;8,1>:f r30.0<0;1,0>:f\n";
    assert_eq!(found(ok), vec![]);
    let vs = "add (8|M0) r10.0<1>:f r20.0<4;8,1>:f r30.0<0;1,0>:f\n";
    assert_eq!(found(vs), vec![(Rule::VertStrideMismatch, Severity::Error)]);
    let wide = "add (4|M0) r10.0<1>:f r20.0<8;8,1>:f r30.0<0;1,0>:f\n";
    assert!(found(wide).contains(&(Rule::WidthAboveExecSize, Severity::Error)));
    let zero = "add (8|M0) r10.0<1>:f r20.0<0;4,0>:f r30.0<0;1,0>:f\n";
    assert_eq!(found(zero), vec![(Rule::ZeroStridesWidth, Severity::Error)]);
    // 16 qwords a register apart each: four registers.
    let span = "mov (16|M0) r10.0<1>:uq r20.0<1;1,0>:uq\n";
    assert!(found(span).contains(&(Rule::SourceSpan, Severity::Error)));
    // iga64 accepts a scalar written <1;1,0>; Mesa does not: a warning.
    let scalar = "mov (1|M0) r88.0<1>:d r49.0<1;1,0>:d\n";
    assert_eq!(
        found(scalar),
        vec![(Rule::ScalarStrides, Severity::Warning)]
    );
}

#[test]
fn pipes_are_told_apart() {
    // An int write read by a float instruction: I@1 reaches it, F@1 does not.
    let src = "add (16|M0) r30.0<1>:d r1.0<1;1,0>:d r2.0<1;1,0>:d\n\
               mov (16|M0) r40.0<1>:f r30.0<1;1,0>:d {F@1}\n";
    assert_eq!(
        found(src),
        vec![(Rule::XeDistanceDependency, Severity::Warning)]
    );
    assert_eq!(found(&src.replace("F@1", "I@1")), vec![]);
    assert_eq!(found(&src.replace("F@1", "A@1")), vec![]);
    // Float instructions between do not count on the int pipe: I@1 still
    // names the add.
    let between = "add (16|M0) r30.0<1>:d r1.0<1;1,0>:d r2.0<1;1,0>:d\n\
                   mov (16|M0) r50.0<1>:f r3.0<1;1,0>:f\n\
                   mov (16|M0) r52.0<1>:f r5.0<1;1,0>:f\n\
                   mov (16|M0) r40.0<1>:d r30.0<1;1,0>:d {I@1}\n";
    assert_eq!(found(between), vec![]);
    assert_eq!(
        found(&between.replace("{I@1}", "{I@2}")),
        vec![(Rule::XeDistanceDependency, Severity::Warning)]
    );
    // A write over another pipe's pending write.
    let waw = "add (16|M0) r30.0<1>:d r1.0<1;1,0>:d r2.0<1;1,0>:d\n\
               mov (16|M0) r30.0<1>:f r3.0<1;1,0>:f\n";
    assert_eq!(
        found(waw),
        vec![(Rule::XeDistanceDependency, Severity::Warning)]
    );
    assert_eq!(found(&waw.replace(":f\n", ":f {I@1}\n")), vec![]);
    // A write over a register another pipe may not have read yet.
    let war = "mov (16|M0) r40.0<1>:f r30.0<1;1,0>:f\n\
               add (16|M0) r30.0<1>:d r1.0<1;1,0>:d r2.0<1;1,0>:d\n";
    assert_eq!(
        found(war),
        vec![(Rule::XeDistanceDependency, Severity::Warning)]
    );
    assert_eq!(found(&war.replace(":d\n", ":d {F@1}\n")), vec![]);
    // In one pipe the read happens first.
    assert_eq!(
        found(
            &war.replace(
                ":d r1.0<1;1,0>:d r2.0<1;1,0>:d",
                ":f r1.0<1;1,0>:f r2.0<1;1,0>:f"
            )
            .replace("r30.0<1>:d", "r30.0<1>:f")
        ),
        vec![]
    );
    // A send overwriting what an in-order instruction may not have read.
    let send_war = "add (16|M0) r40.0<1>:f r10.0<1;1,0>:f r2.0<1;1,0>:f\n\
                    send.ugm (16|M0) r10 r20 null:0 0x0 0x08803580 {$1}\n";
    assert_eq!(
        found(send_war),
        vec![(Rule::XeDistanceDependency, Severity::Warning)]
    );
    assert_eq!(found(&send_war.replace("{$1}", "{A@1,$1}")), vec![]);
    // A send reusing token 1 waits for the send that held it.
    let reuse = format!("{LOAD}send.ugm (16|M0) null r10 r30:2 0x0 0x04000504 {{$1}}\n");
    assert_eq!(found(&reuse), vec![]);
    let other = format!("{LOAD}send.ugm (16|M0) null r10 r30:2 0x0 0x04000504 {{$2}}\n");
    assert_eq!(
        found(&other),
        vec![(Rule::XeTokenDependency, Severity::Warning)]
    );
    // Math after math may overwrite the earlier one's source.
    let maths = "math.exp (16|M0) r6.0<1>:f r12.0<1;1,0>:f {$6}\n\
                 math.exp (16|M0) r12.0<1>:f r10.0<1;1,0>:f {$7}\n";
    assert_eq!(found(maths), vec![]);
    let mov = maths.replace(
        "math.exp (16|M0) r12.0<1>:f r10.0<1;1,0>:f {$7}",
        "mov (16|M0) r12.0<1>:f r10.0<1;1,0>:f",
    );
    assert_eq!(
        found(&mov),
        vec![(Rule::XeTokenDependency, Severity::Warning)]
    );
}

#[test]
fn modifier_rules() {
    let e = (Rule::XeModifier, Severity::Error);
    let w = (Rule::XeModifier, Severity::Warning);
    // Source modifiers where the header says none (iga64 refuses them too).
    assert_eq!(
        found("addc (8|M0) r10.0<1>:ud -r2.0<1;1,0>:ud r3.0<1;1,0>:ud {AccWrEn}\n"),
        vec![e]
    );
    assert_eq!(
        found("addc (8|M0) r10.0<1>:ud r2.0<1;1,0>:ud r3.0<1;1,0>:ud {AccWrEn}\n"),
        vec![]
    );
    assert_eq!(
        found("bfrev (8|M0) r10.0<1>:ud (abs)r2.0<1;1,0>:ud\n"),
        vec![e]
    );
    // (bfn with a source modifier has no encoding at all.)
    assert_eq!(
        found("bfn.0x5A (8|M0) r10.0<1>:d r2.0<1;0>:d r3.0<1;0>:d r4.0<1>:d\n"),
        vec![]
    );
    // add takes them.
    assert_eq!(
        found("add (8|M0) r10.0<1>:d -r2.0<1;1,0>:d r3.0<1;1,0>:d\n"),
        vec![]
    );
    // Saturation, condition modifier: warnings (iga64 accepts them).
    assert_eq!(
        found("and (8|M0) (sat)r10.0<1>:d r2.0<1;1,0>:d r3.0<1;1,0>:d\n"),
        vec![w]
    );
    assert_eq!(
        found("add (8|M0) (sat)r10.0<1>:d r2.0<1;1,0>:d r3.0<1;1,0>:d\n"),
        vec![]
    );
    assert_eq!(
        found("fbl (8|M0) (lt)f0.0 r10.0<1>:ud r2.0<1;1,0>:ud\n"),
        vec![w]
    );
    assert_eq!(found("fbl (8|M0) r10.0<1>:ud r2.0<1;1,0>:ud\n"), vec![]);
}

#[test]
fn type_rules() {
    let w = (Rule::XeOpcodeTypes, Severity::Warning);
    assert_eq!(
        found("and (8|M0) r10.0<1>:d r2.0<1;1,0>:d r3.0<1;1,0>:f\n"),
        vec![w]
    );
    assert_eq!(
        found("and (8|M0) r10.0<1>:d r2.0<1;1,0>:d r3.0<1;1,0>:d\n"),
        vec![]
    );
    assert_eq!(found("frc (8|M0) r10.0<1>:f r2.0<1;1,0>:d\n"), vec![w]);
    assert_eq!(found("frc (8|M0) r10.0<1>:f r2.0<1;1,0>:f\n"), vec![]);
    // No 64-bit arithmetic on DG2: the destination and src0.
    assert_eq!(
        found("add (4|M0) r10.0<1>:q r2.0<1;1,0>:q r4.0<1;1,0>:d\n"),
        vec![w, w]
    );
    assert_eq!(
        found("add (4|M0) r10.0<1>:d r2.0<1;1,0>:d r4.0<1;1,0>:d\n"),
        vec![]
    );
}

#[test]
fn register_and_dpas_rules() {
    let w = |r| (r, Severity::Warning);
    assert_eq!(
        found("mov (8|M0) r200.0<1>:f r2.0<1;1,0>:f\n"),
        vec![w(Rule::XeRegisterNumber)]
    );
    // r127 is the last register; 16 floats from r127 run into r128.
    assert_eq!(found("mov (8|M0) r127.0<1>:f r2.0<1;1,0>:f\n"), vec![]);
    assert_eq!(
        found("mov (16|M0) r127.0<1>:f r2.0<1;1,0>:f\n"),
        vec![w(Rule::XeRegisterNumber)]
    );
    let eot = "send.gtwy (1|M0) null r20 null:0 0x0 0x02000000 {EOT}\n";
    assert_eq!(found(eot), vec![w(Rule::XeEotPayload)]);
    assert_eq!(found(&eot.replace("r20", "r112")), vec![]);
    let dpas = "dpas.8x8 (8|M0) r10:f r20:f r30:hf r40:hf {$1}\n";
    assert_eq!(found(dpas), vec![]);
    assert_eq!(found(&dpas.replace("8x8", "4x8")), vec![w(Rule::XeDpas)]);
}

/// Kernels IGC compiles for DG2 (`ocloc`, Debian intel-opencl-icd): a
/// vector add, an SLM reduction with barriers, atomics, math builtins,
/// half floats and emulated 64-bit integers.
const OPENCL: &str = r#"
__kernel void vadd(__global const float *a, __global const float *b, __global float *c) {
  size_t i = get_global_id(0); c[i] = a[i] + b[i];
}
__kernel void reduce(__global const int *in, __global int *out, __local int *tmp) {
  size_t l = get_local_id(0); tmp[l] = in[get_global_id(0)];
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE); if (l < s) tmp[l] += tmp[l + s];
  }
  if (l == 0) out[get_group_id(0)] = tmp[0];
}
__kernel void atom(__global int *c, __global uint *u) {
  atomic_add(c, 1); atomic_max(&c[1], (int)get_global_id(0)); atomic_cmpxchg(&c[2], 0, 5);
  atomic_inc(&u[4]); atomic_min(&u[5], (uint)get_local_id(0));
}
__kernel void maths(__global float *a) {
  size_t i = get_global_id(0); float x = a[i];
  a[i] = sin(x) + exp(x) * log(x) + sqrt(x) / pow(x, 2.5f) + rsqrt(x) + fmod(x, 3.0f) + floor(x);
}
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void halfk(__global half *h, __global float *f) {
  size_t i = get_global_id(0); half x = h[i]; h[i] = x * x + (half)1.5f; f[i] = (float)x * 2.0f;
}
__kernel void int64k(__global long *a, __global ulong *b, __global int *c) {
  size_t i = get_global_id(0); long x = a[i]; ulong y = b[i];
  a[i] = x * 3 + (long)c[i] - (x >> 5); b[i] = y / 7 + (y << 3);
  c[i] = (int)(x >> 33) ^ (int)popcount(y) ^ clz(c[i]);
}
__kernel void bytes(__global uchar *a, __global char *b, __global short *s) {
  size_t i = get_global_id(0); a[i] = a[i] + b[i] * 3; s[i] = (short)(s[i] * b[i]) >> 2;
}
"#;

/// The `.text.<kernel>` sections of a 64-bit little-endian ELF (zebin).
fn text_sections(elf: &[u8]) -> Vec<(String, Vec<u8>)> {
    let u16_at = |o: usize| u16::from_le_bytes([elf[o], elf[o + 1]]) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap()) as usize;
    assert_eq!(&elf[..4], b"\x7fELF", "not an ELF");
    let (shoff, shentsize, shnum, shstrndx) =
        (u64_at(0x28), u16_at(0x3A), u16_at(0x3C), u16_at(0x3E));
    let header = |k: usize| shoff + k * shentsize;
    let strtab = u64_at(header(shstrndx) + 0x18);
    let mut out = Vec::new();
    for k in 0..shnum {
        let h = header(k);
        let name_at = strtab + u32_at(h);
        let end = elf[name_at..].iter().position(|&b| b == 0).unwrap();
        let name = String::from_utf8_lossy(&elf[name_at..name_at + end]).into_owned();
        if let Some(kernel) = name.strip_prefix(".text.") {
            let (off, size) = (u64_at(h + 0x18), u64_at(h + 0x20));
            out.push((kernel.to_string(), elf[off..off + size].to_vec()));
        }
    }
    out
}

/// IGC's output is legal: none of our errors fires on it, no SWSB warning
/// (one would mean the dependency model is wrong) and no type, modifier or
/// conversion warning either.
#[test]
fn igc_output_validates() {
    use std::process::Command;
    let found_ocloc = Command::new("ocloc").arg("--help").output().is_ok();
    if !found_ocloc {
        assert!(
            std::env::var_os("CI").is_none(),
            "ocloc (Debian intel-opencl-icd) is needed on CI"
        );
        eprintln!("skipped: ocloc is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("baregpu-xevalid-igc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.cl"), OPENCL).unwrap();
    let out = Command::new("ocloc")
        .args([
            "compile", "-file", "k.cl", "-device", "dg2", "-output", "k", "-out_dir",
        ])
        .arg(&dir)
        .args([
            "-options",
            "-cl-std=CL2.0",
            "-internal_options",
            "-ze-allow-zebin",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ocloc: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let bin = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "bin"))
        .expect("ocloc wrote a .bin");
    let elf = std::fs::read(&bin).unwrap();
    let mut checked = 0;
    let mut instructions = 0;
    let mut hazards = 0;
    for (kernel, text) in text_sections(&elf) {
        let report = baregpu_isa::validate::validate_bytes(IsaGen::Gen12_5, &text);
        // IGC pads a section with zeros (which decode as `illegal`); where
        // the code ended on a compacted word, 8 zero bytes are left over.
        let padding = |e: &baregpu_isa::kernel::KernelError| {
            matches!(
                e.kind,
                baregpu_isa::kernel::KernelErrorKind::Truncated { .. }
            ) && text[e.offset..].iter().all(|&b| b == 0)
        };
        assert!(
            report.undecodable.iter().all(padding),
            "{kernel}: {:?}",
            report.undecodable
        );
        instructions += report.entries.len();
        // No finding at all (IGC's EOT descriptor with bit 4 decodes: see
        // `message::xe_gateway`).
        if let Some((offset, v)) = report.found.first() {
            panic!("{kernel} at {offset:#x}: {v}");
        }
        checked += 1;
        // Without its register-distance waits the same code has hazards
        // the walk must see (the model is not vacuous).
        let mut stripped = report.entries.clone();
        for e in &mut stripped {
            e.inst.swsb = match e.inst.swsb {
                Some(Swsb::Dist { .. }) => None,
                Some(Swsb::Both { sbid, .. }) => Some(Swsb::Token {
                    mode: if matches!(e.inst.opcode, Opcode::Send | Opcode::Sendc | Opcode::Math) {
                        TokenMode::Set
                    } else {
                        TokenMode::Dst
                    },
                    sbid,
                }),
                other => other,
            };
        }
        let found = baregpu_isa::validate::validate_entries(IsaGen::Gen12_5, &stripped, text.len());
        hazards += found
            .iter()
            .filter(|(_, v)| v.rule == Rule::XeDistanceDependency)
            .count();
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(checked >= 7, "only {checked} kernels in the zebin");
    eprintln!(
        "IGC: {checked} kernels, {instructions} instructions validated; {hazards} hazards once the distance waits are stripped"
    );
    assert!(hazards >= 50, "only {hazards} hazards without the waits");
}

#[test]
fn conversion_rules() {
    let w = vec![(Rule::XeConversion, Severity::Warning)];
    // Packed bytes: only a raw mov.
    assert_eq!(found("add (8|M0) r10.0<1>:ub r2.0<1;1,0>:ub 0x3:uw\n"), w);
    assert_eq!(
        found("add (8|M0) r10.0<2>:ub r2.0<1;1,0>:ub 0x3:uw\n"),
        vec![]
    );
    assert_eq!(found("mov (8|M0) r10.0<1>:ub r2.0<1;1,0>:b\n"), vec![]);
    // A word destination of a dword execution type: stride 2, aligned.
    assert_eq!(found("mov (8|M0) r10.0<1>:w r2.0<1;1,0>:d\n"), w);
    assert_eq!(found("mov (8|M0) r10.0<2>:w r2.0<1;1,0>:d\n"), vec![]);
    assert_eq!(found("mov (8|M0) r10.1<2>:w r2.0<1;1,0>:d\n"), w);
    // Integer to HF: DWord-strided.
    assert_eq!(found("mov (8|M0) r10.0<1>:hf r2.0<1;1,0>:d\n"), w);
    assert_eq!(found("mov (8|M0) r10.0<2>:hf r2.0<1;1,0>:d\n"), vec![]);
    // Mixed float may pack HF.
    assert_eq!(
        found("add (8|M0) r10.0<1>:hf r2.0<1;1,0>:f r4.0<1;1,0>:hf\n"),
        vec![]
    );
}

#[test]
fn accumulator_rules() {
    let w = vec![(Rule::XeAccumulator, Severity::Warning)];
    assert_eq!(found("bfrev (8|M0) r10.0<1>:ud acc0.0<1;1,0>:ud\n"), w);
    assert_eq!(found("bfrev (8|M0) r10.0<1>:ud r2.0<1;1,0>:ud\n"), vec![]);
    assert_eq!(
        found("addc (8|M0) acc0.0<1>:ud r2.0<1;1,0>:ud r3.0<1;1,0>:ud {AccWrEn}\n"),
        w
    );
    // addc without AccWrEn.
    assert_eq!(
        found("addc (8|M0) r10.0<1>:ud r2.0<1;1,0>:ud r3.0<1;1,0>:ud\n"),
        w
    );
    assert_eq!(found("math.inv (8|M0) r10.0<1>:f acc0.0<1;1,0>:f\n"), w);
    assert_eq!(found("math.inv (8|M0) r10.0<1>:f r2.0<1;1,0>:f\n"), vec![]);
    assert_eq!(
        found("and (8|M0) r10.0<1>:d -acc0.0<1;1,0>:d r3.0<1;1,0>:d\n"),
        w
    );
    assert_eq!(
        found("and (8|M0) r10.0<1>:d acc0.0<1;1,0>:d r3.0<1;1,0>:d\n"),
        vec![]
    );
    // mul: integer sources from acc0 no, float ones yes.
    assert_eq!(
        found("mul (8|M0) r10.0<1>:d acc0.0<1;1,0>:d r3.0<1;1,0>:d\n"),
        w
    );
    assert_eq!(
        found("mul (8|M0) r10.0<1>:f acc0.0<1;1,0>:f r3.0<1;1,0>:f\n"),
        vec![]
    );
}

#[test]
fn byte_source_and_send_payload_rules() {
    let w = |r| vec![(r, Severity::Warning)];
    // No byte regioning in src1 (Gfx11+); src0 may be bytes.
    assert_eq!(
        found("add (8|M0) r10.0<1>:w r2.0<1;1,0>:w r3.0<1;1,0>:b\n"),
        w(Rule::XeByteSource)
    );
    assert_eq!(
        found("add (8|M0) r10.0<1>:w r2.0<1;1,0>:b r3.0<1;1,0>:w\n"),
        vec![]
    );
    // A split send's payloads overlap.
    let st = "send.ugm (16|M0) null r20 r21:2 0x0 0x04000504 {$1}\n";
    assert_eq!(found(st), w(Rule::XeSendPayload));
    assert_eq!(found(&st.replace("r21:2", "r22:2")), vec![]);
    // A response past r127, and one reaching r127 over its payload.
    let ld = "send.ugm (16|M0) r126 r20 null:0 0x0 0x08803580 {$1}\n";
    assert_eq!(found(ld), w(Rule::XeRegisterNumber));
    let over = "send.ugm (16|M0) r120 r118 null:0 0x0 0x08803580 {$1}\n";
    assert_eq!(found(over), w(Rule::XeSendPayload));
    assert_eq!(found(&over.replace("r118", "r20")), vec![]);
}

#[test]
fn mixed_float_vector_immediate_and_span_rules() {
    let w = |r| vec![(r, Severity::Warning)];
    // Mixed F/HF with an F destination: SIMD8 at most (mov excepted).
    let add = "add (16|M0) r10.0<1>:f r2.0<1;1,0>:hf r4.0<1;1,0>:f\n";
    assert_eq!(found(add), w(Rule::XeMixedFloat));
    assert_eq!(found(&add.replace("(16|M0)", "(8|M0)")), vec![]);
    assert_eq!(found("mov (16|M0) r10.0<1>:f r2.0<1;1,0>:hf\n"), vec![]);
    // Packed HF output 16-byte aligned.
    let hf = "add (8|M0) r10.2<1>:hf r2.0<1;1,0>:f r4.0<1;1,0>:f\n";
    assert_eq!(found(hf), w(Rule::XeMixedFloat));
    assert_eq!(found(&hf.replace("r10.2", "r10.8")), vec![]);
    // Mixed-float math reads strided HF.
    let math = "math.inv (8|M0) r10.0<1>:f r2.0<1;1,0>:hf\n";
    assert_eq!(found(math), w(Rule::XeMixedFloat));
    assert_eq!(
        found("math.inv (8|M0) r10.0<1>:f r2.0<16;8,2>:hf\n"),
        vec![]
    );
    // Vector immediates: word-strided, 16-byte aligned destinations.
    assert_eq!(
        found("mov (8|M0) r10.0<1>:d 0x76543210:v\n"),
        w(Rule::XeVectorImmediate)
    );
    assert_eq!(found("mov (8|M0) r10.0<1>:w 0x76543210:v\n"), vec![]);
    assert_eq!(
        found("mov (8|M0) r10.1<1>:w 0x76543210:v\n"),
        w(Rule::XeVectorImmediate)
    );
    // A destination over more than two registers.
    assert_eq!(
        found("mov (16|M0) r10.0<2>:f r2.0<1;1,0>:f\n"),
        w(Rule::XeDstSpan)
    );
    assert_eq!(found("mov (16|M0) r10.0<1>:f r2.0<1;1,0>:f\n"), vec![]);
}
