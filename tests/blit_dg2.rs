//! DG2 blits through the driver: `blit::dg2` builds XY_FAST_COPY_BLT,
//! XY_BLOCK_COPY_BLT and XY_FAST_COLOR_BLT, `Gpu` (Gen12.5) runs them on the
//! blitter engine of the software GPU in a PPGTT context, and the surfaces
//! they write equal, byte for byte, what the CPU helpers `gtt::tile4` and
//! `gtt::tile64` make of the same data (issue 18's acceptance: "Blits
//! between linear and Tile4/Tile64 surfaces agree with the CPU helpers byte
//! for byte"). Surfaces in system and local memory.

use baregpu::Generation;
use baregpu::blit::dg2::{self, BlitError, Layout, Rect, Surface};
use baregpu::gtt::GfxAddr;
use baregpu::gtt::tile4::{linear_to_tile4, tile4_size, tile4_to_linear};
use baregpu::gtt::tile64::{linear_to_tile64, tile64_extent, tile64_size, tile64_to_linear};
use baregpu::platform::host::HostPlatform;
use baregpu::platform::{LocalMemory, PlatformBus};
use baregpu::submit::{Buffer, Placement};
use baregpu::{ContextId, Gpu};
use baregpu_soft::SoftGpu;

struct Bar2<'a>(&'a SoftGpu<PlatformBus<'a, HostPlatform>>);

impl LocalMemory for Bar2<'_> {
    fn local_size(&self) -> u64 {
        self.0.local_memory_size()
    }
    fn read_local(&self, offset: u64, buf: &mut [u8]) -> bool {
        self.0.read_local(offset, buf)
    }
    fn write_local(&self, offset: u64, data: &[u8]) -> bool {
        self.0.write_local(offset, data)
    }
}

macro_rules! setup {
    ($p:ident, $soft:ident, $bar:ident, $gpu:ident) => {
        let $p = HostPlatform::new();
        let $soft = SoftGpu::new(Generation::Gen12_5, PlatformBus::new(&$p)).expect("DG2 model");
        let $bar = Bar2(&$soft);
        let mut $gpu =
            Gpu::with_local_memory(&$p, &$soft, Generation::Gen12_5, &$bar).expect("bring-up");
    };
}

const SECOND: u64 = 1_000_000;

/// Bytes with no repeats a layout mix-up could hide.
fn pattern(len: usize, seed: u32) -> Vec<u8> {
    (0..len)
        .map(|i| ((i as u32).wrapping_mul(0x9e37_79b9).rotate_left(7) ^ seed) as u8)
        .collect()
}

fn read_all(b: &Buffer<'_>, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    assert!(b.read(0, &mut v));
    v
}

/// Runs one blit packet in `ctx` on the blitter and waits for it.
fn run<P: baregpu::hal::Packet>(gpu: &mut Gpu<'_, HostPlatform>, ctx: ContextId, p: &P) {
    let e = gpu.engine_named("blitter").unwrap();
    let mut batch = gpu.new_context_batch(ctx, 4096).unwrap();
    batch.push(p).unwrap();
    let fence = gpu.submit(e, batch).unwrap();
    gpu.wait(fence, SECOND).unwrap();
}

fn surface(b: &Buffer<'_>, pitch: usize, layout: Layout, bpp: usize) -> Surface {
    Surface {
        gfx: b.gfx(),
        pitch: pitch as u32,
        layout,
        bytes_per_pixel: bpp as u32,
    }
}

/// Linear -> tiled -> linear by fast copies for every pixel size, against
/// `linear_to_tile4/64` and `tile4/64_to_linear`.
#[test]
fn fast_copies_agree_with_the_cpu_helpers() {
    setup!(p, soft, bar, gpu);
    let ctx = gpu.create_context().unwrap();
    for bpp in [1usize, 2, 4, 8, 16] {
        for tiled in [Layout::Tile4, Layout::Tile64] {
            let (tw, th) = match tiled {
                Layout::Tile64 => tile64_extent(bpp).unwrap(),
                _ => (128, 32),
            };
            // Odd sizes that cross tile columns and rows.
            let (w, h) = (((tw + 100) / bpp) | 1, th + 7);
            let (wb, lp, tp) = (w * bpp, w * bpp + 64 + bpp, (w * bpp).div_ceil(tw) * tw);
            let lin_len = lp * h;
            let tiled_len = match tiled {
                Layout::Tile64 => tile64_size(bpp, tp, h).unwrap(),
                _ => tile4_size(tp, h),
            };
            let local = bpp % 2 == 0;
            let place = |l| {
                if l {
                    Placement::Local
                } else {
                    Placement::System
                }
            };
            let lin = gpu
                .context_buffer(ctx, lin_len as u64, place(local))
                .unwrap();
            let til = gpu
                .context_buffer(ctx, tiled_len as u64, place(!local))
                .unwrap();
            let back = gpu
                .context_buffer(ctx, lin_len as u64, Placement::System)
                .unwrap();
            let src = pattern(lin_len, bpp as u32);
            let old = pattern(tiled_len, 0xa5);
            assert!(lin.write(0, &src) && til.write(0, &old) && back.write(0, &vec![0; lin_len]));
            let (ls, ts) = (
                surface(&lin, lp, Layout::Linear, bpp),
                surface(&til, tp, tiled, bpp),
            );
            let all = Rect {
                x: 0,
                y: 0,
                width: w as u32,
                height: h as u32,
            };
            run(
                &mut gpu,
                ctx,
                &dg2::fast_copy(&ls, (0, 0), &ts, all).unwrap(),
            );
            let mut want = old.clone();
            match tiled {
                Layout::Tile64 => linear_to_tile64(&mut want, tp, &src, lp, bpp, wb, h).unwrap(),
                _ => linear_to_tile4(&mut want, tp, &src, lp, wb, h).unwrap(),
            }
            let got = read_all(&til, tiled_len);
            assert!(got == want, "{bpp} bytes, linear -> {tiled:?}");
            // And back, into a linear surface of zeros.
            let bs = surface(&back, lp, Layout::Linear, bpp);
            run(
                &mut gpu,
                ctx,
                &dg2::fast_copy(&ts, (0, 0), &bs, all).unwrap(),
            );
            let mut want = vec![0u8; lin_len];
            match tiled {
                Layout::Tile64 => tile64_to_linear(&mut want, lp, &got, tp, bpp, wb, h).unwrap(),
                _ => tile4_to_linear(&mut want, lp, &got, tp, wb, h).unwrap(),
            }
            assert!(
                read_all(&back, lin_len) == want,
                "{bpp} bytes, {tiled:?} -> linear"
            );
            for b in [lin, til, back] {
                gpu.free_buffer(b);
            }
        }
    }
}

/// Tile4 -> Tile64 and Tile64 -> Tile4 by block copies; the helpers' view:
/// detile the source, tile into the destination.
#[test]
fn block_copies_between_tile4_and_tile64_agree_with_the_cpu_helpers() {
    setup!(p, soft, bar, gpu);
    let ctx = gpu.create_context().unwrap();
    for (bpp, w, h) in [(4usize, 150usize, 131usize), (8, 97, 70), (1, 301, 260)] {
        let wb = w * bpp;
        let (t64w, _) = tile64_extent(bpp).unwrap();
        let (p4, p64) = (wb.div_ceil(128) * 128, wb.div_ceil(t64w) * t64w);
        let (n4, n64) = (tile4_size(p4, h), tile64_size(bpp, p64, h).unwrap());
        let a = gpu
            .context_buffer(ctx, n4 as u64, Placement::Local)
            .unwrap();
        let b = gpu
            .context_buffer(ctx, n64 as u64, Placement::System)
            .unwrap();
        let (da, db) = (pattern(n4, 3), pattern(n64, 4));
        assert!(a.write(0, &da) && b.write(0, &db));
        let (sa, sb) = (
            surface(&a, p4, Layout::Tile4, bpp),
            surface(&b, p64, Layout::Tile64, bpp),
        );
        let rect = Rect {
            x: 0,
            y: 0,
            width: w as u32,
            height: h as u32,
        };
        run(
            &mut gpu,
            ctx,
            &dg2::block_copy(&sa, (0, 0), &sb, rect).unwrap(),
        );
        let mut lin = vec![0u8; wb * h];
        tile4_to_linear(&mut lin, wb, &da, p4, wb, h).unwrap();
        let mut want = db.clone();
        linear_to_tile64(&mut want, p64, &lin, wb, bpp, wb, h).unwrap();
        let got = read_all(&b, n64);
        assert!(got == want, "{bpp} bytes: Tile4 -> Tile64");
        // Back into a cleared Tile4 surface.
        assert!(a.write(0, &vec![0; n4]));
        run(
            &mut gpu,
            ctx,
            &dg2::block_copy(&sb, (0, 0), &sa, rect).unwrap(),
        );
        let mut lin = vec![0u8; wb * h];
        tile64_to_linear(&mut lin, wb, &got, p64, bpp, wb, h).unwrap();
        let mut want = vec![0u8; n4];
        linear_to_tile4(&mut want, p4, &lin, wb, wb, h).unwrap();
        assert!(read_all(&a, n4) == want, "{bpp} bytes: Tile64 -> Tile4");
        gpu.free_buffer(a);
        gpu.free_buffer(b);
    }
}

/// A fill of a Tile64 surface is a linear fill tiled by the helper.
#[test]
fn fills_agree_with_the_cpu_helpers() {
    setup!(p, soft, bar, gpu);
    let ctx = gpu.create_context().unwrap();
    let color = [0x0403_0201u32, 0x0807_0605, 0x0c0b_0a09, 0x100f_0e0d];
    for (bpp, tiled) in [
        (2usize, Layout::Tile64),
        (16, Layout::Tile4),
        (4, Layout::Tile64),
    ] {
        let (w, h) = (77usize, 45usize);
        let wb = w * bpp;
        let (tw, _) = match tiled {
            Layout::Tile64 => tile64_extent(bpp).unwrap(),
            _ => (128, 32),
        };
        let pitch = wb.div_ceil(tw) * tw;
        let len = match tiled {
            Layout::Tile64 => tile64_size(bpp, pitch, h).unwrap(),
            _ => tile4_size(pitch, h),
        };
        let buf = gpu
            .context_buffer(ctx, len as u64, Placement::Local)
            .unwrap();
        let old = pattern(len, 9);
        assert!(buf.write(0, &old));
        let s = surface(&buf, pitch, tiled, bpp);
        let rect = Rect {
            x: 0,
            y: 0,
            width: w as u32,
            height: h as u32,
        };
        run(&mut gpu, ctx, &dg2::fill(&s, rect, color).unwrap());
        let px: Vec<u8> = color
            .iter()
            .flat_map(|c| c.to_le_bytes())
            .take(bpp)
            .collect();
        let lin: Vec<u8> = px.iter().copied().cycle().take(wb * h).collect();
        let mut want = old;
        match tiled {
            Layout::Tile64 => linear_to_tile64(&mut want, pitch, &lin, wb, bpp, wb, h).unwrap(),
            _ => linear_to_tile4(&mut want, pitch, &lin, wb, wb, h).unwrap(),
        }
        assert!(read_all(&buf, len) == want, "{bpp} bytes {tiled:?}");
        gpu.free_buffer(buf);
    }
}

/// The builders refuse what the commands cannot express.
#[test]
fn the_builders_name_broken_rules() {
    let s = |pitch, layout, bpp| Surface {
        gfx: GfxAddr(0x10000),
        pitch,
        layout,
        bytes_per_pixel: bpp,
    };
    let r = Rect {
        x: 0,
        y: 0,
        width: 8,
        height: 8,
    };
    let lin = s(256, Layout::Linear, 4);
    assert_eq!(
        dg2::fast_copy(&lin, (0, 0), &s(384, Layout::Tile64, 4), r).unwrap_err(),
        BlitError::Pitch {
            pitch: 384,
            multiple_of: 512
        }
    );
    assert_eq!(
        dg2::fast_copy(&lin, (1, 0), &s(512, Layout::Tile4, 4), r).unwrap_err(),
        BlitError::NotOwordAligned
    );
    assert_eq!(
        dg2::block_copy(
            &s(384, Layout::Linear, 12),
            (0, 0),
            &s(384, Layout::Tile4, 12),
            r
        )
        .unwrap_err(),
        BlitError::PixelSize(12)
    );
    let far = Rect { x: 0x7ffc, ..r };
    assert_eq!(
        dg2::fill(&lin, far, [0; 4]).unwrap_err(),
        BlitError::Coordinate(0x8004)
    );
    let odd = Surface {
        gfx: GfxAddr(0x10020),
        ..lin
    };
    assert_eq!(
        dg2::fast_copy(&odd, (0, 0), &lin, r).unwrap_err(),
        BlitError::Base(GfxAddr(0x10020))
    );
    assert!(
        dg2::block_copy(
            &s(384, Layout::Linear, 12),
            (0, 0),
            &s(384, Layout::Linear, 12),
            r
        )
        .is_ok()
    );
}
