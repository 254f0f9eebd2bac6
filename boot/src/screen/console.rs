//! A text console drawn with the 8x8 font of the `font8x8` crate (basic
//! Latin; anything else shows as '?'), light grey on black, scaled up on
//! large screens. It keeps the characters it shows, so scrolling redraws
//! only the cells that change (never reads the framebuffer back, which is
//! slow on write-combining memory).

use font8x8::legacy::BASIC_LEGACY;

use super::Screen;

/// Text colour and background (0xRRGGBB).
pub const FOREGROUND: u32 = 0xc0c0c0;
pub const BACKGROUND: u32 = 0x000000;
/// The largest grid kept (a 1920x1200 screen at scale 1 is 240x150).
const MAX_COLS: usize = 256;
const MAX_ROWS: usize = 160;

pub struct Console {
    /// Pixel row where the text area starts.
    top: usize,
    scale: usize,
    cols: usize,
    rows: usize,
    col: usize,
    row: usize,
    /// The text wanted, and the text on the screen.
    text: [[u8; MAX_COLS]; MAX_ROWS],
    shown: [[u8; MAX_COLS]; MAX_ROWS],
}

impl Console {
    /// A console on `screen` below pixel row `top`; clears that area.
    pub fn new(screen: &mut Screen, top: usize) -> Console {
        let scale = if screen.width() >= 1600 { 2 } else { 1 };
        let cell = 8 * scale;
        let top = top.next_multiple_of(cell).min(screen.height());
        let console = Console {
            top,
            scale,
            cols: (screen.width() / cell).min(MAX_COLS),
            rows: ((screen.height() - top) / cell).min(MAX_ROWS),
            col: 0,
            row: 0,
            text: [[b' '; MAX_COLS]; MAX_ROWS],
            shown: [[b' '; MAX_COLS]; MAX_ROWS],
        };
        screen.fill(0, top, screen.width(), screen.height() - top, BACKGROUND);
        console
    }

    /// Columns, rows, cell size in pixels, first pixel row.
    pub fn geometry(&self) -> (usize, usize, usize, usize) {
        (self.cols, self.rows, 8 * self.scale, self.top)
    }

    pub fn write(&mut self, screen: &mut Screen, s: &str) {
        if self.cols == 0 || self.rows == 0 {
            return;
        }
        for ch in s.chars() {
            match ch {
                '\n' => self.newline(screen),
                '\r' => self.col = 0,
                '\t' => {
                    for _ in 0..4 - self.col % 4 {
                        self.put(screen, b' ');
                    }
                }
                c => self.put(
                    screen,
                    if c.is_ascii() && !c.is_ascii_control() {
                        c as u8
                    } else {
                        b'?'
                    },
                ),
            }
        }
    }

    fn put(&mut self, screen: &mut Screen, byte: u8) {
        if self.col == self.cols {
            self.newline(screen);
        }
        self.text[self.row][self.col] = byte;
        self.draw_cell(screen, self.row, self.col);
        self.col += 1;
    }

    fn newline(&mut self, screen: &mut Screen) {
        self.col = 0;
        if self.row + 1 < self.rows {
            self.row += 1;
            return;
        }
        // Scroll one line: move the text up and redraw what differs.
        self.text.copy_within(1..self.rows, 0);
        self.text[self.rows - 1] = [b' '; MAX_COLS];
        for row in 0..self.rows {
            for col in 0..self.cols {
                if self.text[row][col] != self.shown[row][col] {
                    self.draw_cell(screen, row, col);
                }
            }
        }
    }

    fn draw_cell(&mut self, screen: &mut Screen, row: usize, col: usize) {
        let byte = self.text[row][col];
        self.shown[row][col] = byte;
        let glyph = BASIC_LEGACY[usize::from(byte & 0x7f)];
        let (x0, y0) = (col * 8 * self.scale, self.top + row * 8 * self.scale);
        for (gy, bits) in glyph.iter().enumerate() {
            for gx in 0..8 {
                // Bit 0 is the leftmost pixel.
                let rgb = if bits >> gx & 1 != 0 {
                    FOREGROUND
                } else {
                    BACKGROUND
                };
                for sy in 0..self.scale {
                    for sx in 0..self.scale {
                        screen.put(x0 + gx * self.scale + sx, y0 + gy * self.scale + sy, rgb);
                    }
                }
            }
        }
    }
}
