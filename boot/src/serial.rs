//! 16550 UART serial ports: COM1 carries text (also shown on the screen
//! console, see [`crate::screen`]), COM2 carries defmt frames.

use core::fmt::{self, Write};

use spin::Mutex;
use x86_64::instructions::port::Port;

/// I/O base of COM1 (text console).
pub const COM1: u16 = 0x3f8;
/// I/O base of COM2 (defmt frames).
pub const COM2: u16 = 0x2f8;

/// Programs a UART: 115200 baud, 8N1, FIFOs on, interrupts off.
pub fn init(base: u16) {
    let regs: [(u16, u8); 7] = [
        (1, 0x00), // IER: no interrupts
        (3, 0x80), // LCR: DLAB on
        (0, 0x01), // divisor low: 115200 baud
        (1, 0x00), // divisor high
        (3, 0x03), // LCR: 8N1, DLAB off
        (2, 0xc7), // FCR: enable and clear FIFOs
        (4, 0x03), // MCR: DTR, RTS
    ];
    for (off, val) in regs {
        // SAFETY: the standard UART registers at `base`; writing them has no
        // memory effects.
        unsafe { Port::<u8>::new(base + off).write(val) };
    }
}

/// Sends one byte, waiting for the transmit holding register to empty.
pub fn write_byte(base: u16, byte: u8) {
    let mut lsr = Port::<u8>::new(base + 5);
    let mut data = Port::<u8>::new(base);
    // Bounded wait: a missing UART must not hang the kernel.
    for _ in 0..100_000 {
        // SAFETY: reading the line status register has no side effects.
        if unsafe { lsr.read() } & 0x20 != 0 {
            break;
        }
    }
    // SAFETY: writing the data register only sends the byte.
    unsafe { data.write(byte) };
}

struct Console;

impl Write for Console {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for b in s.bytes() {
            if b == b'\n' {
                write_byte(COM1, b'\r');
            }
            write_byte(COM1, b);
        }
        Ok(())
    }
}

static CONSOLE: Mutex<Console> = Mutex::new(Console);

#[doc(hidden)]
pub fn _print(args: fmt::Arguments<'_>) {
    let _ = CONSOLE.lock().write_fmt(args);
    let _ = ScreenText.write_fmt(args);
}

/// The screen console, written piecewise as the text is formatted.
struct ScreenText;

impl Write for ScreenText {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        crate::screen::write_text(s);
        Ok(())
    }
}

/// Waits until COM1 has sent everything (before exiting QEMU).
pub fn flush() {
    let mut lsr = Port::<u8>::new(COM1 + 5);
    for _ in 0..100_000 {
        // SAFETY: reading the line status register has no side effects.
        if unsafe { lsr.read() } & 0x40 != 0 {
            break;
        }
    }
}

/// Prints to the serial console (COM1) and the screen.
#[macro_export]
macro_rules! print {
    ($($arg:tt)*) => { $crate::serial::_print(format_args!($($arg)*)) };
}

/// Prints a line to the serial console (COM1) and the screen.
#[macro_export]
macro_rules! println {
    () => { $crate::print!("\n") };
    ($($arg:tt)*) => { $crate::serial::_print(format_args!("{}\n", format_args!($($arg)*))) };
}
