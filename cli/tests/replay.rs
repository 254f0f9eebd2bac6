//! `baregpu replay` through the binary: raw batches built here with the
//! hal's typed packets, placed at fixed GPU addresses, run on the software
//! GPU of every generation through the driver's ring, and the memory they
//! wrote dumped and compared with bytes computed here; then the error paths
//! (a fault, a hang, bad arguments).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use baregpu::hal::Packet;

fn baregpu(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(args)
        .output()
        .expect("run baregpu")
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("baregpu-cli-replay-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|a| a.to_string()).collect()
}

/// Appends a packed command to a batch.
fn put<P: Packet>(batch: &mut Vec<u32>, packet: &P) {
    let mut out = vec![0; packet.dwords()];
    packet.pack(&mut out).expect("packet fits its fields");
    batch.extend_from_slice(&out);
}

fn le_bytes(dwords: &[u32]) -> Vec<u8> {
    dwords.iter().flat_map(|d| d.to_le_bytes()).collect()
}

/// Deterministic noise (xorshift32), so failures reproduce.
fn noise(seed: u32, n: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs a replay that must succeed; returns its stdout.
fn replay_ok(a: &[String]) -> String {
    let o = baregpu(a);
    assert!(
        o.status.success(),
        "baregpu {a:?} failed: {}\n{}",
        stderr(&o),
        String::from_utf8_lossy(&o.stdout)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs a replay that must fail with status 1; returns its stderr.
fn replay_err(a: &[String]) -> String {
    let o = baregpu(a);
    assert_eq!(o.status.code(), Some(1), "baregpu {a:?}: {}", stderr(&o));
    stderr(&o)
}

/// A linear 32 bpp surface for the blit tests: `W` x `H` pixels, pitch
/// wider than a row.
const W: usize = 24;
const H: usize = 10;
const PITCH: usize = (W + 4) * 4;

/// The tests every generation runs; `$sdi(addr, value, ggtt)` and
/// `$bb_start(addr)` build that generation's store and GTT batch start.
macro_rules! replay_tests {
    ($gen:ident, $name:literal, $blit_engine:literal, $sdi:expr, $bb_start:expr) => {
        mod $gen {
            use super::*;
            use baregpu::hal::$gen::commands::*;

            /// MI_STORE_DATA_IMM of one dword through the GGTT (`true`) or the PPGTT.
            fn sdi(addr: u64, value: u32, ggtt: bool) -> MiStoreDataImm {
                $sdi(addr, value, ggtt)
            }

            fn end(batch: &mut Vec<u32>) {
                batch.push(MiBatchBufferEnd::HEADER_VALUE);
                if batch.len() % 2 == 1 {
                    batch.push(MiNoop::HEADER_VALUE);
                }
            }

            /// Two stores into a noise-filled object, the batch in another
            /// object; the target object sits in the GGTT's first pages,
            /// where the driver's rings go when nothing is asked for there.
            #[test]
            fn a_store_batch_writes_where_it_is_told() {
                let dir = scratch(concat!($name, "-store"));
                let (target, batch_at) = (0x1000u64, 0x0012_3000u64);
                let before = noise(7, 6000);
                let mut batch = Vec::new();
                put(&mut batch, &sdi(target + 0x40, 0xdead_beef, true));
                put(&mut batch, &sdi(target + 0x1204, 0x0123_4567, true));
                end(&mut batch);
                let (bfile, mfile, dfile) =
                    (dir.join("b.bin"), dir.join("m.bin"), dir.join("d.bin"));
                std::fs::write(&bfile, le_bytes(&batch)).unwrap();
                std::fs::write(&mfile, &before).unwrap();
                let out = replay_ok(&args(&[
                    "replay",
                    "--gen",
                    $name,
                    "--mem",
                    &format!("{target:#x}={}", s(&mfile)),
                    "--mem",
                    &format!("{batch_at}={}", s(&bfile)),
                    "--batch",
                    &format!("{batch_at:#x}"),
                    // The whole object: the file, then the zero fill to the page end.
                    "--dump",
                    &format!("{target:#x}:8192={}", s(&dfile)),
                ]));
                assert!(out.contains("completed on the render engine"), "{out}");
                let mut want = before.clone();
                want.resize(8192, 0);
                want[0x40..0x44].copy_from_slice(&0xdead_beefu32.to_le_bytes());
                want[0x1204..0x1208].copy_from_slice(&0x0123_4567u32.to_le_bytes());
                assert_eq!(std::fs::read(&dfile).unwrap(), want);
            }

            /// A fill of a rectangle, then a copy of a rectangle of a noise
            /// source over it, on the engine that runs the XY_* commands.
            #[allow(clippy::needless_update)]
            #[test]
            fn a_blit_batch_fills_and_copies() {
                let dir = scratch(concat!($name, "-blit"));
                let (dst, src, batch_at) = (0x0040_0000u64, 0x0051_0000u64, 0x0020_0000u64);
                let source = noise(11, PITCH * H);
                let color = 0x89ab_cdefu32;
                let (fill, copy) = ((2, 1, 20, 9), (5, 3, 9, 4)); // fill x1,y1,x2,y2; copy dx,dy,w,h
                let (sx, sy) = (1, 2);
                let mut batch = Vec::new();
                put(
                    &mut batch,
                    &XyColorBlt {
                        bpp32_byte_mask: 3,
                        color_depth: 3,
                        raster_operation: 0xf0, // PATCOPY
                        destination_pitch: PITCH as i32,
                        destination_x1: fill.0,
                        destination_y1: fill.1,
                        destination_x2: fill.2,
                        destination_y2: fill.3,
                        destination_base_address: dst,
                        solid_pattern_color: color,
                        ..Default::default()
                    },
                );
                put(
                    &mut batch,
                    &XySrcCopyBlt {
                        bpp32_byte_mask: 3,
                        color_depth: 3,
                        raster_operation: 0xcc, // SRCCOPY
                        destination_pitch: PITCH as i32,
                        destination_x1: copy.0,
                        destination_y1: copy.1,
                        destination_x2: copy.0 + copy.2,
                        destination_y2: copy.1 + copy.3,
                        destination_base_address: dst,
                        source_x1: sx,
                        source_y1: sy,
                        source_pitch: PITCH as i32,
                        source_base_address: src,
                        ..Default::default()
                    },
                );
                end(&mut batch);
                let (bfile, sfile, dfile) =
                    (dir.join("b.bin"), dir.join("s.bin"), dir.join("d.bin"));
                std::fs::write(&bfile, le_bytes(&batch)).unwrap();
                std::fs::write(&sfile, &source).unwrap();
                let out = replay_ok(&args(&[
                    "replay",
                    "--gen",
                    $name,
                    "--engine",
                    $blit_engine,
                    "--mem",
                    &format!("{batch_at:#x}={}", s(&bfile)),
                    "--mem",
                    &format!("{src:#x}={}", s(&sfile)),
                    "--mem",
                    &format!("{dst:#x}=zero:{}", PITCH * H),
                    "--batch",
                    &format!("{batch_at:#x}"),
                    "--dump",
                    &format!("{dst:#x}:{}={}", PITCH * H, s(&dfile)),
                ]));
                assert!(
                    out.contains(concat!("on the ", $blit_engine, " engine")),
                    "{out}"
                );
                // The expected surface, pixel by pixel.
                let mut want = vec![0u8; PITCH * H];
                let px = |x: i32, y: i32| y as usize * PITCH + x as usize * 4;
                for y in fill.1..fill.3 {
                    for x in fill.0..fill.2 {
                        want[px(x, y)..px(x, y) + 4].copy_from_slice(&color.to_le_bytes());
                    }
                }
                for y in 0..copy.3 {
                    for x in 0..copy.2 {
                        let (d, s) = (px(copy.0 + x, copy.1 + y), px(sx + x, sy + y));
                        want[d..d + 4].copy_from_slice(&source[s..s + 4]);
                    }
                }
                assert_eq!(std::fs::read(&dfile).unwrap(), want);
            }

            /// A store to an address no object covers: a page fault, the
            /// decoded error state, exit status 1, no dump written.
            #[test]
            fn a_store_to_an_unmapped_address_faults() {
                let dir = scratch(concat!($name, "-fault"));
                let batch_at = 0x0030_0000u64;
                let mut batch = Vec::new();
                put(&mut batch, &sdi(0x0900_0000, 1, true));
                end(&mut batch);
                let (bfile, dfile) = (dir.join("b.bin"), dir.join("d.bin"));
                std::fs::write(&bfile, le_bytes(&batch)).unwrap();
                let err = replay_err(&args(&[
                    "replay",
                    "--gen",
                    $name,
                    "--mem",
                    &format!("{batch_at:#x}={}", s(&bfile)),
                    "--batch",
                    &format!("{batch_at:#x}"),
                    "--dump",
                    &format!("{batch_at:#x}:16={}", s(&dfile)),
                ]));
                assert!(
                    err.contains("GPU error on the render engine (EngineError)"),
                    "{err}"
                );
                assert!(err.contains("MI_STORE_DATA_IMM"), "{err}");
                assert!(err.contains(&format!("BB_ADDR {batch_at:#010x}")), "{err}");
                assert!(!dfile.exists(), "no dump after a failure");
            }

            /// A command of a reserved client (bits 31:29 = 7: SNB 003 lines
            /// 1848-1880; the Gen4 client table has no 7 either) is an
            /// instruction error: the decoded report names it at ACTHD.
            #[test]
            fn an_unknown_command_is_reported() {
                let dir = scratch(concat!($name, "-unknown"));
                let batch_at = 0x0004_0000u64;
                let mut batch = Vec::new();
                put(&mut batch, &sdi(batch_at + 0x800, 5, true));
                batch.extend_from_slice(&[0xe123_4567, MiNoop::HEADER_VALUE]);
                end(&mut batch);
                let (bfile, dfile) = (dir.join("b.bin"), dir.join("d.bin"));
                std::fs::write(&bfile, le_bytes(&batch)).unwrap();
                let err = replay_err(&args(&[
                    "replay",
                    "--gen",
                    $name,
                    "--mem",
                    &format!("{batch_at:#x}={}", s(&bfile)),
                    "--batch",
                    &format!("{batch_at:#x}"),
                    "--dump",
                    &format!("{:#x}:4={}", batch_at + 0x800, s(&dfile)),
                ]));
                assert!(err.contains("(EngineError)"), "{err}");
                assert!(err.contains("IPEHR 0xe1234567"), "{err}");
                assert!(
                    err.contains("=> 0x0010: 0xe1234567  unknown command"),
                    "{err}"
                );
                assert!(!dfile.exists(), "no dump after a failure");
            }

            /// A batch that starts itself again: a hang, detected at the
            /// timeout, with the command at ACTHD marked.
            #[test]
            fn a_batch_that_jumps_to_itself_hangs() {
                let dir = scratch(concat!($name, "-hang"));
                let batch_at = 0x0003_0000u64;
                let mut batch = Vec::new();
                put(&mut batch, &$bb_start(batch_at));
                end(&mut batch);
                let bfile = dir.join("b.bin");
                std::fs::write(&bfile, le_bytes(&batch)).unwrap();
                let start = std::time::Instant::now();
                let err = replay_err(&args(&[
                    "replay",
                    "--gen",
                    $name,
                    "--timeout-ms",
                    "300",
                    "--mem",
                    &format!("{batch_at:#x}={}", s(&bfile)),
                    "--batch",
                    &format!("{batch_at:#x}"),
                ]));
                // The timeout is wall-clock time.
                let took = start.elapsed();
                assert!(
                    took >= std::time::Duration::from_millis(300)
                        && took < std::time::Duration::from_secs(30),
                    "{took:?}"
                );
                assert!(err.contains("(Timeout)"), "{err}");
                assert!(err.contains("=> 0x0000:"), "{err}");
                assert!(err.contains("MI_BATCH_BUFFER_START"), "{err}");
                assert!(err.contains(&format!("ACTHD {batch_at:#010x}")), "{err}");
            }
        }
    };
}

// Gen4/G45: MI_STORE_DATA_IMM bit 22 selects the GTT (they have no PPGTT,
// so always set); MI_BATCH_BUFFER_START bit 7 fetches through it.
replay_tests!(
    gen4,
    "gen4",
    "render",
    |addr, value, _ggtt| MiStoreDataImm {
        use_global_gtt: true,
        address: addr,
        data_dword0: value,
        ..Default::default()
    },
    |addr| MiBatchBufferStart {
        batch_buffer_start_address: addr,
        buffer_address_space: MiBatchBufferStart::BUFFER_ADDRESS_SPACE_GTT,
        ..Default::default()
    }
);
replay_tests!(
    g45,
    "g45",
    "render",
    |addr, value, _ggtt| MiStoreDataImm {
        use_global_gtt: true,
        address: addr,
        data_dword0: value,
        ..Default::default()
    },
    |addr| MiBatchBufferStart {
        batch_buffer_start_address: addr,
        buffer_address_space: MiBatchBufferStart::BUFFER_ADDRESS_SPACE_GTT,
        ..Default::default()
    }
);
replay_tests!(
    gen6,
    "gen6",
    "blitter",
    |addr, value, ggtt| MiStoreDataImm {
        use_global_gtt: ggtt,
        address: addr,
        data_dword0: value,
        ..Default::default()
    },
    |addr| MiBatchBufferStart {
        batch_buffer_start_address: addr,
        ..Default::default()
    }
);
replay_tests!(
    gen7,
    "gen7",
    "blitter",
    |addr, value, ggtt| MiStoreDataImm {
        use_global_gtt: ggtt,
        address: addr,
        data_dword0: value,
        ..Default::default()
    },
    |addr| MiBatchBufferStart {
        batch_buffer_start_address: addr,
        ..Default::default()
    }
);

/// Gen6/Gen7 `--ppgtt`: the objects at PPGTT addresses of a new context
/// (one of them where the GGTT has the driver's ring), the batch non-secure
/// and its stores through the PPGTT.
macro_rules! ppgtt_tests {
    ($gen:ident, $name:literal) => {
        mod $gen {
            use super::*;
            use baregpu::hal::$gen::commands::*;

            fn sdi(addr: u64, value: u32, ggtt: bool) -> MiStoreDataImm {
                MiStoreDataImm {
                    use_global_gtt: ggtt,
                    address: addr,
                    data_dword0: value,
                    ..Default::default()
                }
            }

            #[test]
            fn a_ppgtt_batch_stores_through_its_context() {
                let dir = scratch(concat!($name, "-ppgtt"));
                let (target, batch_at) = (0x2000u64, 0x7fff_0000u64);
                let mut batch = Vec::new();
                put(&mut batch, &sdi(target + 8, 0x5a5a_0001, false));
                put(&mut batch, &sdi(target + 0xffc, 0x5a5a_0002, false));
                batch.push(MiBatchBufferEnd::HEADER_VALUE);
                batch.push(MiNoop::HEADER_VALUE);
                let (bfile, dfile) = (dir.join("b.bin"), dir.join("d.bin"));
                std::fs::write(&bfile, le_bytes(&batch)).unwrap();
                let out = replay_ok(&args(&[
                    "replay",
                    "--gen",
                    $name,
                    "--ppgtt",
                    "--mem",
                    &format!("{batch_at:#x}={}", s(&bfile)),
                    "--mem",
                    &format!("{target:#x}=zero:4096"),
                    "--batch",
                    &format!("{batch_at:#x}"),
                    "--dump",
                    &format!("{target:#x}:4096={}", s(&dfile)),
                ]));
                assert!(out.contains("PPGTT context, non-secure"), "{out}");
                let mut want = vec![0u8; 4096];
                want[8..12].copy_from_slice(&0x5a5a_0001u32.to_le_bytes());
                want[0xffc..].copy_from_slice(&0x5a5a_0002u32.to_le_bytes());
                assert_eq!(std::fs::read(&dfile).unwrap(), want);
            }

            /// A PPGTT store to an address the context does not map faults.
            #[test]
            fn a_ppgtt_store_outside_the_context_faults() {
                let dir = scratch(concat!($name, "-ppgtt-fault"));
                let batch_at = 0x0010_0000u64;
                let mut batch = Vec::new();
                put(&mut batch, &sdi(0x0020_0000, 1, false));
                batch.push(MiBatchBufferEnd::HEADER_VALUE);
                batch.push(MiNoop::HEADER_VALUE);
                let bfile = dir.join("b.bin");
                std::fs::write(&bfile, le_bytes(&batch)).unwrap();
                let err = replay_err(&args(&[
                    "replay",
                    "--gen",
                    $name,
                    "--ppgtt",
                    "--mem",
                    &format!("{batch_at:#x}={}", s(&bfile)),
                    "--batch",
                    &format!("{batch_at:#x}"),
                ]));
                assert!(err.contains("(EngineError)"), "{err}");
                assert!(err.contains("MI_STORE_DATA_IMM"), "{err}");
            }
        }
    };
}

mod ppgtt {
    use super::*;
    ppgtt_tests!(gen6, "gen6");
    ppgtt_tests!(gen7, "gen7");
}

/// Bad command lines: status 1 and a message naming what is wrong, before
/// anything runs.
#[test]
fn bad_arguments_are_named() {
    let dir = scratch("args");
    let file = dir.join("b.bin");
    std::fs::write(&file, [0u8; 8]).unwrap();
    let f = s(&file);
    let cases: &[(&[&str], &str)] = &[
        (&["--mem", "0x1000=zero:64"], "--gen is required"),
        (
            &["--gen", "gen7", "--mem", "0x1000=zero:64"],
            "--batch is required",
        ),
        (
            &["--gen", "gen7", "--batch", "0x1000"],
            "at least one --mem",
        ),
        (
            &[
                "--gen",
                "gen12.5",
                "--engine",
                "video",
                "--batch",
                "0x1000",
                "--mem",
                "0x1000=zero:4",
            ],
            "no video engine",
        ),
        (
            &[
                "--gen",
                "gen9",
                "--batch",
                "0x1000",
                "--mem",
                "0x1000=zero:4",
            ],
            "no software GPU",
        ),
        (
            &[
                "--gen",
                "gen4",
                "--ppgtt",
                "--batch",
                "0x1000",
                "--mem",
                "0x1000=zero:4",
            ],
            "no per-process GTT",
        ),
        (
            &[
                "--gen",
                "gen6",
                "--engine",
                "compute",
                "--batch",
                "0x1000",
                "--mem",
                "0x1000=zero:4",
            ],
            "compute engine",
        ),
        (
            &[
                "--gen",
                "g45",
                "--engine",
                "blitter",
                "--batch",
                "0x1000",
                "--mem",
                "0x1000=zero:4",
            ],
            "render ring",
        ),
        (
            &[
                "--gen",
                "gen7",
                "--batch",
                "0x1800",
                "--mem",
                "0x1800=zero:4",
            ],
            "not 4 KiB aligned",
        ),
        (
            &[
                "--gen",
                "gen7",
                "--batch",
                "0x1000",
                "--mem",
                "0x1000=zero:4",
                "--mem",
                "0x1000=zero:4",
            ],
            "overlaps",
        ),
        (
            &[
                "--gen",
                "gen7",
                "--batch",
                "0x1000",
                "--mem",
                "0x1000=zero:4",
                "--dump",
                "0x2000:4=x",
            ],
            "0x2000 is not mapped",
        ),
        (
            &[
                "--gen",
                "gen6",
                "--batch",
                "0x80000000",
                "--mem",
                "0x80000000=zero:4",
            ],
            "beyond the gen6 GGTT",
        ),
        (
            &[
                "--gen",
                "gen7",
                "--batch",
                "0x1000",
                "--mem",
                "0x1000=/no/such/file",
            ],
            "/no/such/file",
        ),
        (
            &[
                "--gen",
                "gen7",
                "--batch",
                "0x1000",
                "--mem",
                "0x1000=zero:0",
            ],
            "empty",
        ),
        (
            &[
                "--gen",
                "gen7",
                "--batch",
                "0x1000",
                "--mem",
                "0x1000=zero:4",
                "--dump",
                "0x1000=x",
            ],
            "expected <addr>:<bytes>=<file>",
        ),
        (
            &[
                "--gen",
                "gen7",
                "--batch",
                "0x1000",
                "--mem",
                "0x1000=zero:4",
                "--mem",
                "zz=zero:4",
            ],
            "\"zz\" is not a number",
        ),
        (
            &[
                "--gen",
                "gen7",
                "--batch",
                "0x1000",
                "--mem",
                &format!("4096={f}"),
                "--frobnicate",
            ],
            "unexpected argument",
        ),
    ];
    for (a, want) in cases {
        let mut v = vec!["replay"];
        v.extend_from_slice(a);
        let err = replay_err(&args(&v));
        assert!(err.contains(want), "{v:?}: wanted {want:?} in {err}");
    }
}

/// Gen12.5: a batch with PPGTT addresses on each engine (MI_COPY_MEM_MEM of
/// a noise object, MI_STORE_DATA_IMM), run in a context through execlists;
/// a store to an address no object holds is a reported PPGTT fault.
#[test]
fn gen12_5_replays_ppgtt_batches_on_render_blitter_and_compute() {
    use baregpu::hal::gen12_5::commands::*;
    let dir = scratch("gen12_5");
    let src = noise(0x125, 64);
    std::fs::write(dir.join("src.bin"), &src).unwrap();
    for engine in ["render", "blitter", "compute"] {
        let mut b = Vec::new();
        for k in 0..16u64 {
            put(
                &mut b,
                &MiCopyMemMem {
                    destination_memory_address: 0x40_0000 + 4 * k,
                    source_memory_address: 0x30_0000 + 4 * k,
                    ..Default::default()
                },
            );
        }
        put(
            &mut b,
            &MiStoreDataImm {
                address: 0x40_0040,
                data_dword0: 0x1234_5678,
                ..Default::default()
            },
        );
        b.push(MiBatchBufferEnd::HEADER_VALUE);
        std::fs::write(dir.join("batch.bin"), le_bytes(&b)).unwrap();
        let out = dir.join(format!("{engine}.bin"));
        let summary = replay_ok(&args(&[
            "replay",
            "--gen",
            "gen12.5",
            "--engine",
            engine,
            "--mem",
            &format!("0x300000={}", s(&dir.join("src.bin"))),
            "--mem",
            "0x400000=zero:4096",
            "--mem",
            &format!("0x500000={}", s(&dir.join("batch.bin"))),
            "--batch",
            "0x500000",
            "--dump",
            &format!("0x400000:72={}", s(&out)),
        ]));
        assert!(summary.contains(engine), "{summary}");
        let got = std::fs::read(&out).unwrap();
        assert_eq!(&got[..64], &src[..], "{engine}: the copy");
        assert_eq!(&got[64..68], &0x1234_5678u32.to_le_bytes(), "{engine}");
        assert_eq!(&got[68..72], &[0; 4], "{engine}: nothing else written");
    }
    let mut b = Vec::new();
    put(
        &mut b,
        &MiStoreDataImm {
            address: 0x60_0000,
            data_dword0: 1,
            ..Default::default()
        },
    );
    b.push(MiBatchBufferEnd::HEADER_VALUE);
    std::fs::write(dir.join("fault.bin"), le_bytes(&b)).unwrap();
    let e = replay_err(&args(&[
        "replay",
        "--gen",
        "gen12.5",
        "--mem",
        &format!("0x500000={}", s(&dir.join("fault.bin"))),
        "--batch",
        "0x500000",
    ]));
    assert!(
        e.contains("page fault at 0x600000 through the PPGTT"),
        "{e}"
    );
}
