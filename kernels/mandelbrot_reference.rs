// The host computation of kernels/mandelbrot_gen7.asm, shared by the tests
// that check it (`#[path]`-included): the kernel's float operations one at a
// time, each result flushed to zero when denormal as the EU does for F
// (001 line 1323).

/// Flushes a denormal to a zero of the same sign.
pub fn ftz(x: f32) -> f32 {
    if x != 0.0 && x.abs() < f32::MIN_POSITIVE {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// Iterations the point of pixel (`col`, `row`) stays inside |z| <= 2, out
/// of `limit`, for the CURBE values `x0, y0, dx, dy`.
pub fn iterations(col: u32, row: u32, x0: f32, y0: f32, dx: f32, dy: f32, limit: u32) -> u32 {
    let cx = ftz(ftz(col as f32 * dx) + x0);
    let cy = ftz(ftz(row as f32 * dy) + y0);
    let (mut zr, mut zi, mut count) = (0f32, 0f32, 0u32);
    for _ in 0..limit {
        let (zr2, zi2) = (ftz(zr * zr), ftz(zi * zi));
        if ftz(zr2 + zi2) <= 4.0 {
            count += 1;
        }
        let t = ftz(zr * zi);
        let t = ftz(t + t);
        zi = ftz(t + cy);
        zr = ftz(ftz(zr2 - zi2) + cx);
    }
    count
}
