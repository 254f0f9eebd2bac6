//! The screen console on QEMU's standard VGA (the PVH boot has no firmware
//! framebuffer): pixels read back as written, text drawn with the font's
//! glyphs below the picture area, and scrolling once the console is full.
#![cfg_attr(target_os = "none", no_std, no_main)]

extern crate alloc;

use baregpu_boot::screen::{self, BACKGROUND, FOREGROUND, Screen, Source};
use baregpu_boot::{BootInfo, ExitCode, exit_qemu, print, println};
use font8x8::legacy::BASIC_LEGACY;

baregpu_boot::entry!(run);

/// Whether console cell (`col`, `row`) shows `ch`: every pixel of the
/// scaled 8x8 glyph in the text or background colour as the font says.
fn shows(
    s: &Screen,
    geometry: (usize, usize, usize, usize),
    col: usize,
    row: usize,
    ch: u8,
) -> bool {
    let (_, _, cell, top) = geometry;
    let scale = cell / 8;
    let fg = screen::pack(s.framebuffer(), FOREGROUND);
    let bg = screen::pack(s.framebuffer(), BACKGROUND);
    (0..cell).all(|py| {
        (0..cell).all(|px| {
            let on = BASIC_LEGACY[usize::from(ch)][py / scale] >> (px / scale) & 1 != 0;
            s.get(col * cell + px, top + row * cell + py) == Some(if on { fg } else { bg })
        })
    })
}

fn run(_: &'static BootInfo) -> ! {
    let (source, w, h) = screen::describe().expect("QEMU's standard VGA as the screen");
    assert_eq!(
        (source, w, h),
        (
            Source::BochsVga,
            usize::from(screen::BOCHS_WIDTH),
            usize::from(screen::BOCHS_HEIGHT)
        )
    );
    // Pixels in the picture area read back as written, in the VGA's format.
    screen::reserve_top(64);
    screen::draw(|s| {
        s.put(10, 20, 0x12_34_56);
        assert_eq!(s.get(10, 20), Some(0x12_34_56), "0x00RRGGBB on QEMU's VGA");
        assert_eq!(s.get(w, 0), None);
    });
    let geometry = screen::console_geometry().expect("a console");
    let (cols, rows, cell, top) = geometry;
    assert!(
        top >= 64 && cols == w / cell && rows == (h - top) / cell,
        "{geometry:?}"
    );

    // Fill the console: line k starts with its number (two digits). The last
    // newline scrolls one line, so row r shows line r + 1.
    for k in 0..rows {
        print!("{:02} console line", k % 100);
        println!();
    }
    screen::draw(|s| {
        for (row, line) in [(0, 1), (rows / 2, rows / 2 + 1), (rows - 2, rows - 1)] {
            let digits = alloc::format!("{:02}", line % 100);
            for (col, &ch) in digits.as_bytes().iter().enumerate() {
                assert!(
                    shows(s, geometry, col, row, ch),
                    "row {row} column {col} is not {:?}",
                    ch as char
                );
            }
            assert!(shows(s, geometry, 3, row, b'c'), "row {row} column 3");
        }
        // The last row is blank, and the picture area was left alone.
        assert!((0..cols).all(|col| shows(s, geometry, col, rows - 1, b' ')));
        assert_eq!(s.get(10, 20), Some(0x12_34_56));
    });
    println!(
        "[ok] screen_console: {}x{} cells of {} px below row {}, scrolled",
        cols, rows, cell, top
    );
    exit_qemu(ExitCode::Success)
}
