//! No silent no-ops: every command of every generation's tables, built
//! from the reflection table (header values, defaults, the length its
//! header states, every other field zero) and submitted alone on each
//! engine that accepts it, either executes or is refused, and a refusal
//! reaches the driver's error report naming the command as not modelled
//! by the software GPU. The executed commands are listed here with the
//! test that checks their effect; anything else must be refused, so a
//! command added to the tables cannot pass silently.

use baregpu::hal::Generation;
use baregpu::hal::reflect::CommandInfo;
use baregpu::platform::PlatformBus;
use baregpu::platform::host::HostPlatform;
use baregpu::submit::{EngineId, HangReason};
use baregpu::{Gpu, GpuError};
use baregpu_soft::SoftGpu;

/// Commands the model executes, with where their effect is checked.
const EXECUTED: &[(&str, &str)] = &[
    ("MI_NOOP", "tests/submit.rs (NOPID)"),
    (
        "MI_BATCH_BUFFER_START",
        "tests/support: a_chain_of_1000_batches",
    ),
    ("MI_BATCH_BUFFER_END", "every batch"),
    ("MI_STORE_DATA_IMM", "tests/support: every_engine_runs_work"),
    ("MI_STORE_DATA_INDEX", "tests/submit.rs (seqno writes)"),
    ("MI_LOAD_REGISTER_IMM", "tests/blit.rs (BCS_SWCTRL)"),
    ("MI_LOAD_REGISTER_MEM", "tests/submit.rs"),
    ("MI_STORE_REGISTER_MEM", "tests/submit.rs"),
    ("MI_USER_INTERRUPT", "tests/submit.rs"),
    ("MI_REPORT_HEAD", "tests/submit.rs"),
    ("MI_FLUSH_DW", "tests/submit.rs (post-sync writes)"),
    ("PIPE_CONTROL", "tests/submit.rs; depth count in this file"),
    ("MI_CONDITIONAL_BATCH_BUFFER_END", "tests/submit.rs"),
    ("MI_SEMAPHORE_MBOX", "tests/submit.rs"),
    ("MI_WAIT_FOR_EVENT", "tests/submit.rs"),
    ("MI_UPDATE_GTT", "tests/submit.rs"),
    ("MI_SET_CONTEXT", "tests/submit.rs"),
    ("MI_REPORT_PERF_COUNT", "this file"),
    ("MI_DISPLAY_FLIP", "tests/display.rs"),
    (
        "MI_PREDICATE",
        "soft/tests/render3d_gen7.rs (truth tables, predicated draws)",
    ),
    ("MI_TOPOLOGY_FILTER", "soft/tests/render3d_gen7.rs"),
    ("COLOR_BLT", "tests/blit.rs"),
    ("SRC_COPY_BLT", "tests/blit.rs"),
    ("XY_SETUP_BLT", "tests/blit.rs"),
    ("XY_SETUP_CLIP_BLT", "tests/blit.rs"),
    ("XY_PIXEL_BLT", "tests/blit.rs"),
    ("XY_COLOR_BLT", "tests/blit.rs"),
    ("XY_SRC_COPY_BLT", "tests/blit.rs"),
    ("XY_SETUP_MONO_PATTERN_SL_BLT", "tests/blit_expand.rs"),
    ("XY_SCANLINES_BLT", "tests/blit_expand.rs"),
    ("XY_TEXT_BLT", "tests/blit_expand.rs"),
    ("XY_TEXT_IMMEDIATE_BLT", "tests/blit_expand.rs"),
    ("XY_PAT_BLT", "tests/blit_expand.rs"),
    ("XY_PAT_BLT_IMMEDIATE", "tests/blit_expand.rs"),
    ("XY_PAT_CHROMA_BLT", "tests/blit_expand.rs"),
    ("XY_PAT_CHROMA_BLT_IMMEDIATE", "tests/blit_expand.rs"),
    ("XY_MONO_PAT_BLT", "tests/blit_expand.rs"),
    ("XY_MONO_PAT_FIXED_BLT", "tests/blit_expand.rs"),
    ("XY_MONO_SRC_COPY_BLT", "tests/blit_expand.rs"),
    ("XY_MONO_SRC_COPY_IMMEDIATE_BLT", "tests/blit_expand.rs"),
    ("XY_SRC_COPY_CHROMA_BLT", "tests/blit_expand.rs"),
    ("XY_FULL_BLT", "tests/blit_expand.rs"),
    ("XY_FULL_IMMEDIATE_PATTERN_BLT", "tests/blit_expand.rs"),
    ("XY_FULL_MONO_SRC_BLT", "tests/blit_expand.rs"),
    (
        "XY_FULL_MONO_SRC_IMMEDIATE_PATTERN_BLT",
        "tests/blit_expand.rs",
    ),
    ("XY_FULL_MONO_PATTERN_BLT", "tests/blit_expand.rs"),
    ("XY_FULL_MONO_PATTERN_MONO_SRC_BLT", "tests/blit_expand.rs"),
    ("PIPELINE_SELECT", "tests/compute_*"),
    ("STATE_BASE_ADDRESS", "tests/compute_*"),
    ("MEDIA_VFE_STATE", "tests/compute_*"),
    ("MEDIA_CURBE_LOAD", "tests/compute_*"),
    ("MEDIA_INTERFACE_DESCRIPTOR_LOAD", "tests/compute_*"),
    ("MEDIA_GATEWAY_STATE", "soft/tests/eu_array_gateway.rs"),
    ("MEDIA_STATE_FLUSH", "tests/compute_*"),
    ("MEDIA_OBJECT", "tests/compute_media.rs"),
    ("MEDIA_OBJECT_WALKER", "tests/compute_media.rs"),
    (
        "GPGPU_WALKER",
        "tests/compute_gpgpu.rs; indirect and predicated: soft/tests/render3d_gen7.rs",
    ),
    ("MEDIA_STATE_POINTERS", "tests/compute_* (Gen4/G45)"),
    ("URB_FENCE", "tests/compute_* (Gen4/G45)"),
    ("CS_URB_STATE", "tests/compute_* (Gen4/G45)"),
    ("CONSTANT_BUFFER", "tests/compute_* (Gen4/G45)"),
];

/// Sandy Bridge's and Ivy Bridge's 3D commands, executed by the 3D front
/// end (soft/src/render3d/front): the state commands are kept, 3DPRIMITIVE
/// draws (soft/tests/render3d_gen6.rs, render3d_gen7.rs). The other
/// generations refuse them.
fn executed_3d(generation: Generation, name: &str) -> bool {
    matches!(generation, Generation::Gen6 | Generation::Gen7)
        && (name.starts_with("3DSTATE_") || name == "3DPRIMITIVE")
}

/// Commands with nothing to act on in the model (soft/src/cs/table.rs
/// `NO_EFFECT` says why): they must complete without an error.
const NO_EFFECT: &[&str] = &[
    "MI_FLUSH",
    "MI_CLFLUSH",
    "MI_ARB_CHECK",
    "MI_ARB_ON_OFF",
    "MI_SUSPEND_FLUSH",
    "STATE_SIP",
];

/// Commands not run alone with zero fields: a batch start to address 0
/// would run whatever is there.
const NOT_RUN_ALONE: &[&str] = &["MI_BATCH_BUFFER_START"];

/// The command as the table packs it by default.
fn default_packed(c: &CommandInfo) -> Vec<u32> {
    let len = c.length.unwrap_or(c.min_length).max(1) as usize;
    let mut dw = vec![0u32; len];
    dw[0] = c.header_value;
    for f in c.fields {
        if let Some(d) = f.default.filter(|&d| d != 0) {
            baregpu::hal::bits::put(&mut dw, f.start as u32, f.width(), d);
        }
    }
    if let Some(f) = c.length_field() {
        let value = (len - c.bias as usize) as u64;
        baregpu::hal::bits::put(&mut dw, f.start as u32, f.width(), value);
    }
    dw
}

/// What happened to one command.
#[derive(Debug)]
enum Outcome {
    Completed,
    /// The driver's report names it as not modelled.
    Refused,
    /// Another engine error (a zero address or size the command rejects).
    OtherError(String),
}

fn submit_alone(generation: Generation, engine: &str, name: &str, dwords: &[u32]) -> Outcome {
    let p = HostPlatform::new();
    let soft = SoftGpu::new(generation, PlatformBus::new(&p)).expect("software GPU");
    let mut gpu = Gpu::new(&p, &soft, generation).unwrap();
    let id = gpu
        .engines()
        .position(|e| e.name == engine)
        .map(EngineId)
        .expect("the driver runs the engine");
    let mut b = gpu.new_batch(4096).unwrap();
    b.push_dwords(dwords).unwrap();
    let f = gpu.submit(id, b).unwrap();
    match gpu.wait(f, 500_000) {
        Ok(()) => Outcome::Completed,
        Err(GpuError::Hang(state)) => {
            assert_eq!(state.reason, HangReason::EngineError, "{state}");
            match state.unmodelled {
                Some(u) => {
                    let text = state.to_string();
                    assert!(
                        text.contains("not modelled by the software GPU"),
                        "report: {text}"
                    );
                    assert_eq!(u.header, dwords[0]);
                    assert_eq!(u.name, Some(name), "the report names the command");
                    assert!(text.contains(&format!("{name} (header")), "report: {text}");
                    // The driver reset the engine, which clears the register.
                    let base = gpu.engines().nth(id.0).unwrap().base;
                    let reg = baregpu::hal::mmio::SOFT_UNMODELLED_COMMAND;
                    assert_eq!(gpu.mmio().read32(base + reg), 0, "after the reset");
                    Outcome::Refused
                }
                None => Outcome::OtherError(state.to_string()),
            }
        }
        Err(e) => panic!("{engine}: unexpected {e:?}"),
    }
}

fn check_generation(generation: Generation) {
    let tables = generation.tables();
    let mut refused = 0;
    for c in tables.commands {
        let dwords = default_packed(c);
        for engine in c.engines {
            let executed =
                EXECUTED.iter().any(|(n, _)| *n == c.name) || executed_3d(generation, c.name);
            if NOT_RUN_ALONE.contains(&c.name) {
                assert!(executed);
                continue;
            }
            let what = format!("{generation:?} {} on {engine}", c.name);
            match submit_alone(generation, engine, c.name, &dwords) {
                Outcome::Refused => {
                    assert!(!executed, "{what}: executed command refused");
                    assert!(!NO_EFFECT.contains(&c.name), "{what}: refused");
                    refused += 1;
                }
                Outcome::Completed => assert!(
                    executed || NO_EFFECT.contains(&c.name),
                    "{what} completed silently"
                ),
                Outcome::OtherError(report) => {
                    assert!(executed, "{what}: {report}");
                }
            }
        }
    }
    // Every generation but Sandy Bridge and Ivy Bridge refuses its 3D
    // commands; those still refuse a few (MEDIA_OBJECT_PRT, ...).
    let least = if matches!(generation, Generation::Gen6 | Generation::Gen7) {
        1
    } else {
        10
    };
    assert!(refused > least, "{generation:?}: only {refused} refusals");
}

#[test]
fn gen4_every_command_executes_or_is_refused() {
    check_generation(Generation::Gen4);
}

#[test]
fn g45_every_command_executes_or_is_refused() {
    check_generation(Generation::G45);
}

#[test]
fn gen6_every_command_executes_or_is_refused() {
    check_generation(Generation::Gen6);
}

#[test]
fn gen7_every_command_executes_or_is_refused() {
    check_generation(Generation::Gen7);
}

/// A copy of a mapped buffer's dwords.
fn words(buffer: &baregpu::Dma<'_>) -> Vec<u32> {
    buffer.to_u32s()
}

/// Fills a mapped buffer with one dword.
fn fill(buffer: &baregpu::Dma<'_>, dwords: usize, value: u32) {
    for k in 0..dwords.min(buffer.size() / 4) {
        buffer.write_u32(k, value).unwrap();
    }
}

/// The effects of PIPE_CONTROL's depth count write and MI_REPORT_PERF_COUNT.
macro_rules! report_tests {
    ($gen:ident, $generation:expr, perf: $perf:expr) => {
        mod $gen {
            use super::*;
            use baregpu::hal::$gen::commands::*;

            /// PIPE_CONTROL "write PS depth count" (post-sync 2): no 3D pipeline,
            /// so no pixel passed the depth test: 64 bits of zero over noise.
            #[test]
            fn pipe_control_depth_count_writes_zero_pixels() {
                let p = HostPlatform::new();
                let soft = SoftGpu::new($generation, PlatformBus::new(&p)).unwrap();
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                let (buf, map) = gpu.map_buffer(4096).unwrap();
                fill(&buf, 4, 0xdead_beef);
                let mut b = gpu.new_batch(4096).unwrap();
                b.push(&PipeControl {
                    post_sync_operation: 2,
                    address: map.gfx.0 + 8,
                    use_global_gtt: true,
                    ..Default::default()
                })
                .unwrap();
                let f = gpu.submit(EngineId::RENDER, b).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
                assert_eq!(&words(&buf)[..4], &[0xdead_beef, 0xdead_beef, 0, 0]);
            }

            /// MI_REPORT_PERF_COUNT: DW0 the report ID, DW1 the timestamp
            /// (later for the later report), the counters zero, 64 dwords.
            #[test]
            fn report_perf_count_writes_id_and_timestamp() {
                if !$perf {
                    return;
                }
                let p = HostPlatform::new();
                let soft = SoftGpu::new($generation, PlatformBus::new(&p)).unwrap();
                let mut gpu = Gpu::new(&p, &soft, $generation).unwrap();
                let (buf, map) = gpu.map_buffer(4096).unwrap();
                fill(&buf, 1024, 0x5555_5555);
                let mut b = gpu.new_batch(4096).unwrap();
                for (k, id) in [0x1234_5678u32, 0x9abc_def0].into_iter().enumerate() {
                    b.push_dwords(&[0x1400_0001, (map.gfx.0 as u32 + 256 * k as u32) | 1, id])
                        .unwrap();
                }
                let f = gpu.submit(EngineId::RENDER, b).unwrap();
                gpu.wait(f, 1_000_000).unwrap();
                let w = words(&buf);
                assert_eq!((w[0], w[64]), (0x1234_5678, 0x9abc_def0));
                assert!(w[65] > w[1], "timestamps {} then {}", w[1], w[65]);
                assert!(w[2..64].iter().chain(&w[66..128]).all(|&v| v == 0));
                assert_eq!(w[128], 0x5555_5555, "256 bytes per report");
            }
        }
    };
}

report_tests!(gen4, Generation::Gen4, perf: false);
report_tests!(gen6, Generation::Gen6, perf: true);
report_tests!(gen7, Generation::Gen7, perf: true);
