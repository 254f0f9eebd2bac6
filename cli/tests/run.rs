//! `baregpu run` through the binary: kernels dispatched by the driver on
//! the software GPU (GPGPU_WALKER and MEDIA_OBJECT), surfaces linear and
//! tiled, and the error paths (a hang, a binary that does not decode).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "../../kernels/mandelbrot_reference.rs"]
mod reference;

fn baregpu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(args)
        .output()
        .expect("run baregpu")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("baregpu-cli-run-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn dwords(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

const KERNEL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../kernels/mandelbrot_gen7.asm"
);

#[test]
fn mandelbrot_on_linear_and_tiled_surfaces_matches_the_host() {
    let dir = scratch("mandelbrot");
    let (w, h, limit) = (32u32, 12u32, 30u32);
    let (x0, y0, dx, dy) = (-2.0f32, -1.1f32, 2.6 / w as f32, 2.2 / h as f32);
    let mut curbe = Vec::new();
    for v in [x0, y0, dx, dy] {
        curbe.extend_from_slice(&v.to_bits().to_le_bytes());
    }
    curbe.extend_from_slice(&limit.to_le_bytes());
    curbe.resize(32, 0);
    let curbe_file = dir.join("curbe.bin");
    std::fs::write(&curbe_file, &curbe).unwrap();
    let want: Vec<u32> = (0..h)
        .flat_map(|row| (0..w).map(move |col| (col, row)))
        .map(|(col, row)| reference::iterations(col, row, x0, y0, dx, dy, limit))
        .collect();
    assert!(
        want.contains(&limit) && want.contains(&1),
        "a picture with inside and outside"
    );
    for tiling in ["linear", "x", "y"] {
        let out = dir.join(format!("{tiling}.bin"));
        let grid = format!("{},{h}", w / 8);
        let bind = format!("0=surface2d:{w}x{h}:R32_UINT:{tiling}");
        let o = baregpu(&[
            "run",
            "--gen",
            "gen7",
            "--kernel",
            KERNEL,
            "--simd",
            "8",
            "--grid",
            &grid,
            "--curbe",
            s(&curbe_file),
            "--bind",
            &bind,
            "--out",
            &format!("0={}", s(&out)),
        ]);
        assert!(
            o.status.success(),
            "{tiling}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        // Row by row without padding, whatever the tiling.
        let got = dwords(&std::fs::read(&out).unwrap());
        assert_eq!(got, want, "{tiling}");
        assert!(String::from_utf8_lossy(&o.stdout).contains("GPGPU_WALKER"));
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Gen6 media objects: each object's inline data (after R0 in r1) is an
/// OWord index and three values; the kernel writes that OWord of binding 0
/// with an OWord block write (offsets in OWords, 003 lines 83583-83606).
#[test]
fn media_objects_deliver_their_inline_data() {
    let dir = scratch("media");
    let kernel = dir.join("store.asm");
    std::fs::write(
        &kernel,
        "mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud
mov (1|M0) m1.2<1>:ud r1.0<0;1,0>:ud
mov (8|M0) m2.0<1>:ud r1.0<8;8,1>:ud
send (8|M0) null:ud m1 rc.oword_block_write(bti=0, owords=1lo) mlen=2 rlen=0 hdr
mov (8|M0) m1.0<1>:ud r0.0<8;8,1>:ud
send (8|M0) null:ud m1 ts.deref(keep_urb) mlen=1 rlen=0 {EOT}
",
    )
    .unwrap();
    let objects = dir.join("objects.txt");
    std::fs::write(
        &objects,
        "0 10 11 12\n3 0x30 0x31 0x32  # a comment\n\n1 7 8 9\n",
    )
    .unwrap();
    let out = dir.join("out.bin");
    let o = baregpu(&[
        "run",
        "--gen",
        "gen6",
        "--kernel",
        s(&kernel),
        "--simd",
        "8",
        "--grid",
        "3",
        "--dispatch",
        "media",
        "--media-objects",
        s(&objects),
        "--bind",
        "0=buffer:zero:80",
        "--out",
        &format!("0={}", s(&out)),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got = dwords(&std::fs::read(&out).unwrap());
    let want = [
        0, 10, 11, 12, 1, 7, 8, 9, 0, 0, 0, 0, 3, 0x30, 0x31, 0x32, 0, 0, 0, 0,
    ];
    assert_eq!(got, want);
}

/// `--sampler`: a Gen7 kernel samples a 2x1 R32_FLOAT texture (texels 1.0
/// and 3.0) at u = v = 0.5, which lies halfway between the two texel
/// centres (0.25 and 0.75). Every lane asks for the same point, so the
/// LOD from the lanes' gradients is below 0 and the magnification filter
/// decides: bilinear gives the average 2.0, nearest the texel under u,
/// texel 1 (3.0).
#[test]
fn samplers_bound_from_the_command_line_filter_as_asked() {
    let dir = scratch("sampler");
    let kernel = dir.join("sample.asm");
    std::fs::write(
        &kernel,
        "mov (16|M0) r100.0<1>:f 0.5:f
mov (16|M0) r102.0<1>:f 0.5:f
send (16|M0) r40:uw r100 sampler.sample(bti=1, sampler=0, simd=16) mlen=4 rlen=8
mov (8|M0) r21.0<1>:ud r0.0<8;8,1>:ud
mov (1|M0) r21.2<1>:ud 0x0:ud
mov (8|M0) r22.0<1>:ud r40.0<8;8,1>:ud
send (8|M0) null:ud r21 dc.oword_block_write(bti=0, owords=2) mlen=2 rlen=0 hdr
mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud
send (8|M0) null:ud r127 ts.deref(keep_urb) mlen=1 rlen=0 {EOT}
",
    )
    .unwrap();
    let texels = dir.join("texels.bin");
    let bytes: Vec<u8> = [1.0f32, 3.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(&texels, bytes).unwrap();
    for (filter, want) in [("linear", 2.0f32), ("nearest", 3.0)] {
        let out = dir.join(format!("{filter}.bin"));
        let o = baregpu(&[
            "run",
            "--gen",
            "gen7",
            "--kernel",
            s(&kernel),
            "--simd",
            "16",
            "--grid",
            "1",
            "--bind",
            "0=buffer:zero:32",
            "--bind",
            &format!("1=surface2d:2x1:R32_FLOAT:linear:{}", s(&texels)),
            "--sampler",
            &format!("0={filter},clamp"),
            "--out",
            &format!("0={}", s(&out)),
        ]);
        assert!(
            o.status.success(),
            "{filter}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let got = dwords(&std::fs::read(&out).unwrap());
        assert_eq!(got, vec![want.to_bits(); 8], "{filter}");
    }
    // A sampler the kernel's descriptor would need but the line names wrongly.
    let o = baregpu(&[
        "run",
        "--gen",
        "gen7",
        "--kernel",
        s(&kernel),
        "--simd",
        "16",
        "--grid",
        "1",
        "--sampler",
        "0=cubic",
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("nearest or linear"));
}

#[test]
fn a_kernel_that_never_ends_is_a_reported_hang() {
    let dir = scratch("hang");
    let kernel = dir.join("loop.asm");
    std::fs::write(
        &kernel,
        "L:
jmpi (1|M0) L
mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud {NoMask}
send (8|M0) null:ud r127 ts.deref(keep_urb) mlen=1 rlen=0 {EOT}
",
    )
    .unwrap();
    let o = baregpu(&[
        "run",
        "--gen",
        "gen7",
        "--kernel",
        s(&kernel),
        "--simd",
        "8",
        "--grid",
        "1",
        "--timeout-ms",
        "300",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    // The driver's decoded error state, with the walker at ACTHD, and the
    // EU array's account of the thread: hung past its instruction budget,
    // or (the timeout is wall-clock time) still running when the driver
    // reset the engine.
    assert!(err.contains("(Timeout)"), "{err}");
    assert!(err.contains("=> ") && err.contains("GPGPU_WALKER"), "{err}");
    assert!(
        (err.contains("EU thread hang") || err.contains("still running")) && err.contains("jmpi"),
        "{err}"
    );
}

#[test]
fn a_binary_that_does_not_decode_is_refused_before_it_runs() {
    let dir = scratch("bad");
    let kernel = dir.join("bad.bin");
    // Three bytes: not even a compact instruction.
    std::fs::write(&kernel, [0x01u8, 0x02, 0x03]).unwrap();
    let o = baregpu(&[
        "run",
        "--gen",
        "gen7",
        "--kernel",
        s(&kernel),
        "--simd",
        "8",
        "--grid",
        "1",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("does not decode at byte 0x0"), "{err}");
    assert!(o.stdout.is_empty());
}

#[test]
fn bad_command_lines_say_what_is_wrong() {
    for (args, says) in [
        (
            vec![
                "run", "--gen", "gen9", "--kernel", "k", "--simd", "8", "--grid", "1",
            ],
            "no software GPU",
        ),
        (
            vec!["run", "--gen", "gen7", "--simd", "8", "--grid", "1"],
            "--kernel is required",
        ),
        (
            vec![
                "run", "--gen", "gen7", "--kernel", KERNEL, "--simd", "12", "--grid", "1",
            ],
            "--simd is 8, 16 or 32",
        ),
        (
            vec![
                "run", "--gen", "gen7", "--kernel", KERNEL, "--simd", "8", "--grid", "1", "--out",
                "2=x",
            ],
            "nothing is bound",
        ),
    ] {
        let o = baregpu(&args);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// A Gen7 kernel that only ends its thread.
const END: &str = "mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud
send (8|M0) null:ud r127 ts.deref(keep_urb) mlen=1 rlen=0 {EOT}
";

/// `baregpu run` with `args` after `--kernel <file of text>`: the exit
/// status must be an error (1, not a panic's 101) naming `says`. Returns
/// the error text.
fn refused(dir: &Path, text: &str, args: &[&str], says: &str) -> String {
    let kernel = dir.join("k.asm");
    std::fs::write(&kernel, text).unwrap();
    let mut all = vec!["run", "--kernel", s(&kernel)];
    all.extend_from_slice(args);
    let o = baregpu(&all);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.contains(says), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err.into_owned()
}

#[test]
fn numbers_at_the_ends_of_their_types_are_errors_or_right() {
    let dir = scratch("numbers");
    let gen7 = ["--gen", "gen7", "--simd", "8"];
    let with =
        |more: &[&'static str]| -> Vec<&'static str> { gen7.iter().chain(more).copied().collect() };
    // A timeout of u64::MAX milliseconds is no limit: the run completes.
    let kernel = dir.join("end.asm");
    std::fs::write(&kernel, END).unwrap();
    let mut args = vec!["run", "--kernel", s(&kernel)];
    args.extend(with(&[
        "--grid",
        "1",
        "--timeout-ms",
        "18446744073709551615",
    ]));
    let o = baregpu(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("GPGPU_WALKER"));
    // Threads per group times the lanes past 32 bits.
    refused(
        &dir,
        END,
        &with(&["--grid", "1", "--group", "536870912"]),
        "too many threads per group",
    );
    // 2^96 media objects: more than a dispatch may hold.
    refused(
        &dir,
        "send (8|M0) null:ud r0 ts.deref(keep_urb) mlen=1 rlen=0 {EOT}\n",
        &[
            "--gen",
            "gen6",
            "--simd",
            "8",
            "--grid",
            "4294967295,4294967295,4294967295",
        ],
        "media objects is 18446744073709551615, at most 1048576",
    );
    // 2^96 GPGPU groups are what the walker's 32-bit fields allow: they
    // run until the (wall-clock) timeout.
    refused(
        &dir,
        END,
        &with(&[
            "--grid",
            "4294967295,4294967295,4294967295",
            "--timeout-ms",
            "500",
        ]),
        "(Timeout)",
    );
    // Buffers no binding can reach: refused by their size, not allocated.
    for bytes in ["9223372036854775808", "1099511627776", "536870913"] {
        let bind = format!("0=buffer:zero:{bytes}");
        let bind: &'static str = Box::leak(bind.into_boxed_str());
        refused(
            &dir,
            END,
            &with(&["--grid", "1", "--bind", bind]),
            "at most 536870912 bytes",
        );
    }
    // A 4 GiB CURBE file (sparse): refused by its size, not read.
    let big = dir.join("big.curbe");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(4 << 30)
        .unwrap();
    let curbe: &'static str = Box::leak(s(&big).to_string().into_boxed_str());
    refused(
        &dir,
        END,
        &with(&["--grid", "1", "--curbe", curbe]),
        "4294967296 bytes, more than the 31712 a CURBE can have",
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// 4 KiB of constants (128 registers) do not fit behind R0 in a thread's
/// 128 GRF registers; SNB reads at most 63 rows. The driver says so before
/// anything runs.
#[test]
fn a_curbe_past_what_a_thread_reads_is_refused_up_front() {
    let dir = scratch("curbe");
    let curbe = dir.join("4k.curbe");
    std::fs::write(&curbe, vec![0u8; 4096]).unwrap();
    let curbe: &'static str = Box::leak(s(&curbe).to_string().into_boxed_str());
    refused(
        &dir,
        END,
        &[
            "--gen", "gen7", "--simd", "8", "--grid", "1", "--curbe", curbe,
        ],
        "CURBE bytes per thread is 4096, at most 4064",
    );
    refused(
        &dir,
        "send (8|M0) null:ud r0 ts.deref(keep_urb) mlen=1 rlen=0 {EOT}\n",
        &[
            "--gen", "gen6", "--simd", "8", "--grid", "1", "--curbe", curbe,
        ],
        "CURBE bytes per thread is 4096, at most 2016",
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A thread that stops on an error (here a block write to a binding table
/// entry nothing is bound to) ends the dispatch at once: the engine's
/// Instruction Error, not a timeout, and the EU array's account of the
/// thread. Generous bound: a minute of timeout against seconds.
#[test]
fn an_eu_thread_error_is_reported_at_once() {
    let dir = scratch("thread-error");
    let start = std::time::Instant::now();
    let err = refused(
        &dir,
        "mov (8|M0) r21.0<1>:ud r0.0<8;8,1>:ud
mov (1|M0) r21.2<1>:ud 0x0:ud
send (8|M0) null:ud r21 dc.oword_block_write(bti=5, owords=2) mlen=2 rlen=0 hdr
mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud
send (8|M0) null:ud r127 ts.deref(keep_urb) mlen=1 rlen=0 {EOT}
",
        &[
            "--gen",
            "gen7",
            "--simd",
            "8",
            "--grid",
            "1",
            "--timeout-ms",
            "60000",
        ],
        "(EngineError)",
    );
    let took = start.elapsed();
    assert!(took.as_secs() < 20, "{took:?} for a 60 s timeout");
    // EIR bit 0, the walker at ACTHD, and the thread at its send.
    assert!(err.contains("EIR 0x00000001"), "{err}");
    assert!(err.contains("IPEHR 0x71050009"), "{err}");
    assert!(
        err.contains("EU thread error") && err.contains("ip 0x0020"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// 32 endless threads: the software GPU's hang detection would take about
/// a second per thread, but the timeout bounds wall-clock time. The bound
/// asserted is generous (5x the timeout); the report says which threads
/// were still running.
#[test]
fn thirty_two_endless_threads_end_within_the_wall_clock_timeout() {
    let dir = scratch("endless32");
    let start = std::time::Instant::now();
    let err = refused(
        &dir,
        "L:
jmpi (1|M0) L
mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud {NoMask}
send (8|M0) null:ud r127 ts.deref(keep_urb) mlen=1 rlen=0 {EOT}
",
        &[
            "--gen",
            "gen7",
            "--simd",
            "8",
            "--grid",
            "32",
            "--timeout-ms",
            "2000",
        ],
        "(Timeout)",
    );
    let took = start.elapsed();
    assert!(took.as_secs() < 10, "{took:?} for a 2 s timeout");
    assert!(
        err.contains("still running at the engine reset: 32 resident") && err.contains("jmpi"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `--png` writes a bound surface as a picture: a Y-tiled B8G8R8A8 surface
/// filled from a file comes back, decoded, as the same RGBA pixels; a
/// buffer binding and an R32_UINT surface are refused with the reason.
#[test]
fn surfaces_become_png_pictures() {
    let dir = scratch("png");
    let kernel = dir.join("eot.asm");
    std::fs::write(
        &kernel,
        "mov (8|M0) r112.0<1>:ud r0.0<8;8,1>:ud\nsend (8|M0) null:ud r112 0x27 0x02000010 {EOT}\n",
    )
    .unwrap();
    let (w, h) = (5u32, 3u32);
    // B, G, R, A per pixel, from the pixel's position.
    let bgra: Vec<u8> = (0..w * h)
        .flat_map(|i| [i as u8, (i * 7) as u8, (i * 13) as u8, 200])
        .collect();
    let pixels = dir.join("pixels.bin");
    std::fs::write(&pixels, &bgra).unwrap();
    let picture = dir.join("out.png");
    let run = |bind: &str, png: &str| {
        baregpu(&[
            "run",
            "--gen",
            "gen7",
            "--kernel",
            s(&kernel),
            "--simd",
            "8",
            "--grid",
            "1,1,1",
            "--bind",
            bind,
            "--png",
            png,
        ])
    };
    let o = run(
        &format!("0=surface2d:{w}x{h}:B8G8R8A8_UNORM:y:{}", s(&pixels)),
        &format!("0={}", s(&picture)),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut reader = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&picture).unwrap(),
    ))
    .read_info()
    .unwrap();
    let mut rgba = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut rgba).unwrap();
    assert_eq!((info.width, info.height), (w, h));
    assert_eq!(info.color_type, png::ColorType::Rgba);
    let want: Vec<u8> = bgra
        .chunks(4)
        .flat_map(|p| [p[2], p[1], p[0], p[3]])
        .collect();
    assert_eq!(rgba, want);

    let o = run("0=buffer:zero:64", &format!("0={}", s(&picture)));
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no picture shape"));
    let o = run("0=surface2d:4x4:R32_UINT", &format!("0={}", s(&picture)));
    assert!(String::from_utf8_lossy(&o.stderr).contains("r32uint has no picture form"));
    std::fs::remove_dir_all(&dir).ok();
}
