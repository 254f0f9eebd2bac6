//! The batch decoder: real batches decode to what was packed, damaged or
//! random streams are reported and never panic.

use baregpu_hal::Packet;
use baregpu_hal::decode::{DecodeProblem, decode};
use baregpu_hal::gen6::commands::*;

fn batch() -> Vec<u32> {
    let mut b = vec![0u32; 64];
    let mut at = 0;
    let mut put = |p: &dyn Fn(&mut [u32]) -> usize| {
        at += p(&mut b[at..]);
    };
    put(&|o| {
        PipelineSelect {
            pipeline_selection: 1,
        }
        .pack(o)
        .unwrap()
    });
    put(&|o| {
        MiStoreDataImm {
            use_global_gtt: true,
            address: 0x2000,
            data_dword0: 42,
            data_dword1: None,
        }
        .pack(o)
        .unwrap()
    });
    put(&|o| {
        MiLoadRegisterImm {
            byte_write_disables: 0,
            registers: vec![
                MiLoadRegisterImmRegisters {
                    register_offset: 0x2098,
                    data_dword: 1,
                },
                MiLoadRegisterImmRegisters {
                    register_offset: 0x209c,
                    data_dword: 2,
                },
            ],
        }
        .pack(o)
        .unwrap()
    });
    put(&|o| MiNoop::default().pack(o).unwrap());
    put(&|o| MiBatchBufferEnd::default().pack(o).unwrap());
    b.truncate(at);
    b
}

#[test]
fn decodes_a_packed_batch() {
    let b = batch();
    let tables = &baregpu_hal::gen6::TABLES;
    let names: Vec<&str> = decode(tables, "render", &b)
        .map(|d| d.command.map_or("?", |c| c.name))
        .collect();
    assert_eq!(
        names,
        [
            "PIPELINE_SELECT",
            "MI_STORE_DATA_IMM",
            "MI_LOAD_REGISTER_IMM",
            "MI_NOOP",
            "MI_BATCH_BUFFER_END"
        ]
    );
    assert!(decode(tables, "render", &b).all(|d| d.problem.is_none()));
    let text: String = decode(tables, "render", &b)
        .map(|d| d.to_string())
        .collect();
    assert!(text.contains("address: 0x2000"), "{text}");
    assert!(text.contains("data_dword0: 0x2a"), "{text}");
    assert!(
        text.contains("registers[1].register_offset: 0x209c"),
        "{text}"
    );
    assert!(
        text.contains("pipeline_selection: 1 (PIPELINE_MEDIA)"),
        "{text}"
    );
}

#[test]
fn reports_unknown_and_truncated_commands() {
    let tables = &baregpu_hal::gen6::TABLES;
    // An MI opcode the tables do not have (0Fh: one dword by the MI rule),
    // then a store cut short.
    let b = [0x0780_0000u32, 0x1040_0002, 0, 0x1000];
    let d: Vec<_> = decode(tables, "render", &b).collect();
    assert_eq!(d.len(), 2);
    assert!(d[0].command.is_none());
    assert_eq!(
        d[0].problem,
        Some(DecodeProblem::Unknown { assumed_length: 1 })
    );
    assert_eq!(d[1].command.map(|c| c.name), Some("MI_STORE_DATA_IMM"));
    assert_eq!(d[1].problem, Some(DecodeProblem::Truncated { needed: 4 }));
    // Nothing is listed after a truncated packet.
    let b = [0x1040_0002, 0];
    assert_eq!(decode(tables, "render", &b).count(), 1);
}

#[test]
fn blitter_commands_are_not_render_commands() {
    let tables = &baregpu_hal::gen6::TABLES;
    let mut b = [0u32; 6];
    XyColorBlt {
        bpp32_byte_mask: 3,
        ..Default::default()
    }
    .pack(&mut b)
    .unwrap();
    let on_blitter = decode(tables, "blitter", &b).next().unwrap();
    assert_eq!(on_blitter.command.map(|c| c.name), Some("XY_COLOR_BLT"));
    let on_render = decode(tables, "render", &b).next().unwrap();
    assert!(on_render.command.is_none());
}

#[test]
fn stops_at_batch_end_when_asked() {
    let mut b = batch();
    b.extend_from_slice(&[0xffff_ffff; 4]);
    let tables = &baregpu_hal::gen6::TABLES;
    assert_eq!(decode(tables, "render", &b).stop_at_batch_end().count(), 5);
    assert!(decode(tables, "render", &b).count() > 5);
}

/// xorshift: deterministic random streams.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn random_streams_never_panic_and_always_advance() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for t in baregpu_hal::GENERATIONS {
        for (engine, _) in t.engines {
            for round in 0..300 {
                let len = (rng.next() % 96) as usize;
                let mut b: Vec<u32> = (0..len).map(|_| rng.next() as u32).collect();
                // Half of the streams start from real headers, so that known
                // commands with damaged bodies are exercised too.
                if round % 2 == 0 && !b.is_empty() && !t.commands.is_empty() {
                    let c = &t.commands[(rng.next() as usize) % t.commands.len()];
                    b[0] = c.header_value | (b[0] & !c.header_mask);
                }
                let mut covered = 0;
                for d in decode(t, engine, &b) {
                    assert_eq!(
                        d.offset, covered,
                        "{} {engine}: entries must tile the stream",
                        t.name
                    );
                    assert!(!d.dwords.is_empty());
                    covered += d.dwords.len();
                    let _ = d.to_string();
                }
                assert_eq!(
                    covered,
                    b.len(),
                    "{} {engine}: the whole stream is listed",
                    t.name
                );
            }
        }
    }
}
