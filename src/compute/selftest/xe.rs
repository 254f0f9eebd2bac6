//! The scenarios on DG2 (Gen12.5): Xe-HPG kernels with LSC messages,
//! dispatched by COMPUTE_WALKER (`state/gen12_5.rs` documents the payload
//! they read: R0's group IDs, the local IDs from r1, then the inline data).
//! Same checks as the older generations:
//!
//! * fill: the colour comes from the indirect data (DG2 has no CURBE; its
//!   address is inline qword 0) and is stored over a linear R32_UINT
//!   surface with typed `store_quad` messages (TGM), 8 x 8 groups;
//! * vector add: c = a + b over 32-bit integers, loads and stores on UGM
//!   through the binding table (A32 byte offsets), groups of 64 invocations;
//! * group reduction: every group of 64 sums its inputs in six butterfly
//!   rounds through shared local memory, with barriers (the gateway's
//!   barrier message, then `sync.bar`), and stores the sum;
//! * tiled surfaces: the picture (x, y) -> y << 16 | x into a linear and a
//!   Tile4 surface, whose memory must be the CPU's layout (`gtt::tile4`).
//!
//! Dependencies between instructions are spelt with SWSB (the model checks
//! them); the kernels assemble with `iga64 -p=12p71` to the same bytes
//! (tests/compute_dg2.rs compares its own; these are built the same way).

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use baregpu_hal::Generation;

use super::kernels::assemble;
use super::tiled::pixel;
use super::vector_add::Inputs;
use super::{BLOCK_PIXELS, Failure, Mismatch, Params, Place, Tally, check_surface_size};
use super::{dword, fill, launch, reduce, scoped, vector_add};
use crate::compute::surface::{MAX_BUFFER_ENTRIES, read_region};
use crate::compute::{
    Compute, Dispatch, Format, IndirectPointer, KernelDesc, LocalIds, Resource, Simd, Threads,
};
use crate::gtt::tile4::{linear_to_tile4, tile4_offset, tile4_size};
use crate::gtt::tiling::Tiling;
use crate::platform::Platform;
use crate::submit::Gpu;

const G: Generation = Generation::Gen12_5;

/// End of thread: R0 to the gateway with EOT (the message iga64 writes as
/// `send.gtwy ... 0x02000010 {EOT}`: mlen 1, EOT).
const EOT: &str = "send.gtwy (1|M0) null r0 null:0 0x0 0x02000010 {EOT}\n";

/// The binding table index the surface kernels write.
const BTI: u32 = 3;

/// Vector add and reduction groups: 64 invocations, four SIMD16 threads.
const GROUP: u32 = 64;

/// Surface kernels: r20:2 the pixel's X, r22:2 its Y in 8 x 8 groups
/// (local X in r1, Y in r2), then `value` (which leaves the pixel in
/// r50:2), then the typed store.
fn surface_kernel(value: &str) -> String {
    let mut k = String::new();
    k += "mov (16|M0) r20.0<1>:ud r1.0<1;1,0>:uw\n";
    k += "mov (16|M0) r22.0<1>:ud r2.0<1;1,0>:uw\n";
    k += "shl (1|M0) r4.0<1>:ud r0.1<0;1,0>:ud 3:ud\n";
    k += "shl (1|M0) r4.1<1>:ud r0.6<0;1,0>:ud 3:ud\n";
    k += "add (16|M0) r20.0<1>:ud r20.0<1;1,0>:ud r4.0<0;1,0>:ud {A@1}\n";
    k += "add (16|M0) r22.0<1>:ud r22.0<1;1,0>:ud r4.1<0;1,0>:ud {A@1}\n";
    k += value;
    k += "sync.nop null {A@1}\n";
    k += &format!("store_quad.tgm.d32.x.a32 (16|M0) bti[{BTI}][r20:4] r50:2 {{$0}}\n");
    k += EOT;
    k
}

/// The fill kernel: the colour is dword 0 of the indirect data, whose
/// address is inline qword 0 (r3, after the X and Y local IDs).
fn fill_text() -> String {
    surface_kernel(
        "mov (1|M0) r30.0<1>:ud r3.0<0;1,0>:ud\n\
         mov (1|M0) r30.1<1>:ud r3.1<0;1,0>:ud\n\
         sync.nop null {A@1}\n\
         load.ugm.d32x1t.a64 (1|M0) r31:1 [r30:1] {$1}\n\
         sync.nop null {$1.dst}\n\
         mov (16|M0) r50.0<1>:ud r31.0<0;1,0>:ud\n",
    )
}

/// The tiled kernel: pixel (x, y) = y << 16 | x.
fn tiled_text() -> String {
    surface_kernel(
        "shl (16|M0) r50.0<1>:ud r22.0<1;1,0>:ud 16:ud {A@1}\n\
         or (16|M0) r50.0<1>:ud r50.0<1;1,0>:ud r20.0<1;1,0>:ud {A@1}\n",
    )
}

/// Runs a surface kernel over a `p.width` x `p.height` R32_UINT surface
/// (linear or Tile4) in 8 x 8 groups; returns the surface's memory.
fn write_surface<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    cx: &mut Compute<'a>,
    p: &Params,
    bin: &[u8],
    tile4: bool,
    indirect: &[u8],
    tally: &mut Tally,
) -> Result<(Vec<u8>, usize), Failure> {
    check_surface_size(p)?;
    let out = scoped(gpu, |gpu, held| {
        let desc = KernelDesc {
            simd: Simd::Simd16,
            local_ids: LocalIds::Xy,
            bindings: &[BTI],
            ..KernelDesc::new(bin)
        };
        held.kernels.push(cx.load_kernel(gpu, &desc)?);
        let surf = if tile4 {
            cx.create_surface_tile4(gpu, p.width, p.height, Format::R32Uint)?
        } else {
            cx.create_surface_2d(gpu, p.width, p.height, Format::R32Uint, Tiling::Linear)?
        };
        held.surfaces.push(surf);
        let surf = &held.surfaces[0];
        let bindings = [(BTI, Resource::Surface(surf))];
        let d = Dispatch {
            threads: Threads::Compute {
                groups: [p.width / BLOCK_PIXELS, p.height / BLOCK_PIXELS, 1],
                group_size: [BLOCK_PIXELS, BLOCK_PIXELS, 1],
                inline: &[],
                indirect,
                pointer: IndirectPointer::InlineQword0,
            },
            curbe: &[],
            bindings: &bindings,
            samplers: &[],
        };
        launch(gpu, cx, &held.kernels[0], &d, p.timeout_us)?;
        let mut memory = vec![0u8; surf.size()];
        read_region(&surf.memory, surf.size(), 0, &mut memory)?;
        Ok((memory, surf.pitch() as usize))
    })?;
    tally.dispatches += 1;
    // 64 invocations per group: four SIMD16 threads.
    tally.threads += u64::from(p.width / BLOCK_PIXELS) * u64::from(p.height / BLOCK_PIXELS) * 4;
    Ok(out)
}

pub(super) fn fill<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    cx: &mut Compute<'a>,
    p: &Params,
    tally: &mut Tally,
) -> Result<(), Failure> {
    let colour = 0x8040_c0ffu32;
    let bin = assemble(G, &fill_text())?;
    let (memory, pitch) = write_surface(gpu, cx, p, &bin, false, &colour.to_le_bytes(), tally)?;
    // The linear memory, row by row without the pitch padding.
    let row = p.width as usize * 4;
    let pixels: Vec<u8> = (0..p.height as usize)
        .flat_map(|y| memory[y * pitch..y * pitch + row].iter().copied())
        .collect();
    fill::check(&pixels, p.width, colour, "COMPUTE_WALKER")?;
    tally.checked += u64::from(p.width) * u64::from(p.height);
    Ok(())
}

pub(super) fn tiled<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    cx: &mut Compute<'a>,
    p: &Params,
    tally: &mut Tally,
) -> Result<(), Failure> {
    let bin = assemble(G, &tiled_text())?;
    for tile4 in [false, true] {
        let (memory, pitch) = write_surface(gpu, cx, p, &bin, tile4, &[], tally)?;
        check_picture(&memory, pitch, p.width, p.height, tile4)?;
        tally.checked += u64::from(p.width) * u64::from(p.height);
    }
    Ok(())
}

/// Where byte column x of row y is, for a pitch.
type ByteOffset = fn(usize, usize, usize) -> usize;

/// The memory of a zeroed linear or Tile4 surface after the picture was
/// written, as the CPU helpers lay it out; the first difference named by
/// its pixel, or as a padding byte.
fn check_picture(
    memory: &[u8],
    pitch: usize,
    width: u32,
    height: u32,
    tile4: bool,
) -> Result<(), Failure> {
    let row = width as usize * 4;
    let picture: Vec<u8> = (0..height)
        .flat_map(|y| (0..width).flat_map(move |x| pixel(x, y).to_le_bytes()))
        .collect();
    let (case, want, offset): (&'static str, Vec<u8>, ByteOffset) = if tile4 {
        let mut want = vec![0u8; tile4_size(pitch, height as usize)];
        linear_to_tile4(&mut want, pitch, &picture, row, row, height as usize)
            .map_err(|_| Failure::BadParams("the Tile4 layout does not hold the picture"))?;
        ("Tile4 surface", want, |pitch, x, y| {
            tile4_offset(pitch, x, y)
        })
    } else {
        let mut want = vec![0u8; pitch * height as usize];
        for y in 0..height as usize {
            want[y * pitch..y * pitch + row].copy_from_slice(&picture[y * row..(y + 1) * row]);
        }
        ("linear surface", want, |pitch, x, y| y * pitch + x)
    };
    let Some(at) = (0..want.len()).find(|&i| memory.get(i) != want.get(i)) else {
        return Ok(());
    };
    let covering = (0..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .find(|&(x, y)| {
            let o = offset(pitch, x as usize * 4, y as usize);
            (o..o + 4).contains(&at)
        });
    let m = match covering {
        Some((x, y)) => Mismatch {
            case,
            at: Place::Pixel { x, y },
            got: dword(
                memory
                    .get(offset(pitch, x as usize * 4, y as usize)..)
                    .unwrap_or(&[]),
                0,
            ),
            want: pixel(x, y),
        },
        None => Mismatch {
            case,
            at: Place::Byte(at),
            got: memory.get(at).copied().map_or(0, u32::from),
            want: want.get(at).copied().map_or(0, u32::from),
        },
    };
    Err(m.into())
}

/// r10:2 the invocation's global X (group X * 64 + local X), r12:2 its byte offset.
const GLOBAL_OFFSET: &str = "shl (1|M0) r3.0<1>:ud r0.1<0;1,0>:ud 6:ud\n\
     add (16|M0) r10.0<1>:ud r1.0<1;1,0>:uw r3.0<0;1,0>:ud {A@1}\n\
     shl (16|M0) r12.0<1>:ud r10.0<1;1,0>:ud 2:ud {A@1}\n";

fn vector_add_text() -> String {
    let mut k = String::from(GLOBAL_OFFSET);
    k += "sync.nop null {A@1}\n";
    k += "load.ugm.d32.a32 (16|M0) r40:2 bti[0][r12:2] {$1}\n";
    k += "load.ugm.d32.a32 (16|M0) r42:2 bti[1][r12:2] {$2}\n";
    k += "sync.nop null {$1.dst}\n";
    k += "add (16|M0) r44.0<1>:ud r40.0<1;1,0>:ud r42.0<1;1,0>:ud {$2.dst}\n";
    k += "sync.nop null {A@1}\n";
    k += "store.ugm.d32.a32 (16|M0) bti[2][r12:2] r44:2 {$3}\n";
    k += EOT;
    k
}

pub(super) fn vector_add<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    cx: &mut Compute<'a>,
    p: &Params,
    tally: &mut Tally,
) -> Result<(), Failure> {
    let n = p.elements;
    if n == 0 || !n.is_multiple_of(super::VECTOR_ADD_GRAIN) {
        return Err(Failure::BadParams(
            "vector add elements must be a non-zero multiple of 1024",
        ));
    }
    if (n as u64).saturating_mul(4) > MAX_BUFFER_ENTRIES {
        return Err(Failure::BadParams(
            "vector add elements must fit a buffer of 2^27 bytes",
        ));
    }
    let bin = assemble(G, &vector_add_text())?;
    let bytes = |which| -> Vec<u8> {
        Inputs::new(G, which)
            .take(n)
            .flat_map(u32::to_le_bytes)
            .collect()
    };
    let mut out = vec![0u8; n * 4];
    scoped(gpu, |gpu, held| {
        let desc = KernelDesc {
            local_ids: LocalIds::X,
            bindings: &[0, 1, 2],
            ..KernelDesc::new(&bin)
        };
        held.kernels.push(cx.load_kernel(gpu, &desc)?);
        held.buffers.push(cx.upload_buffer(gpu, &bytes(0))?);
        held.buffers.push(cx.upload_buffer(gpu, &bytes(1))?);
        held.buffers.push(cx.create_buffer(gpu, n * 4)?);
        let bindings = [
            (0, Resource::Buffer(&held.buffers[0])),
            (1, Resource::Buffer(&held.buffers[1])),
            (2, Resource::Buffer(&held.buffers[2])),
        ];
        let d = Dispatch {
            threads: Threads::Compute {
                groups: [(n / GROUP as usize) as u32, 1, 1],
                group_size: [GROUP, 1, 1],
                inline: &[],
                indirect: &[],
                pointer: IndirectPointer::InlineQword0,
            },
            curbe: &[],
            bindings: &bindings,
            samplers: &[],
        };
        launch(gpu, cx, &held.kernels[0], &d, p.timeout_us)?;
        held.buffers[2].read(0, &mut out)?;
        Ok(())
    })?;
    tally.dispatches += 1;
    tally.threads += (n / 16) as u64;
    let want: Vec<u32> = Inputs::new(G, 0)
        .zip(Inputs::new(G, 1))
        .map(|(a, b)| a.wrapping_add(b))
        .take(n)
        .collect();
    vector_add::check(&out, 0, &want, "COMPUTE_WALKER")?;
    tally.checked += n as u64;
    Ok(())
}

/// Every channel stores its input in SLM, meets the group at the barrier,
/// loads its partner's (`id ^ s`), meets it again and adds, for s = 1 .. 32:
/// every channel ends with the group's sum, which all store to out[group].
fn reduce_text() -> String {
    let mut k = String::from(GLOBAL_OFFSET);
    k += "shl (16|M0) r14.0<1>:ud r1.0<1;1,0>:uw 2:ud\n";
    // The barrier message's payload: R0 (its dword 2 names the group's threads).
    k += "mov (8|M0) r5.0<1>:ud r0.0<1;1,0>:ud\n";
    k += "sync.nop null {A@1}\n";
    k += "load.ugm.d32.a32 (16|M0) r50:2 bti[0][r12:2] {$4}\n";
    k += "sync.nop null {$4.dst}\n";
    for s in [1, 2, 4, 8, 16, 32] {
        k += &format!("xor (16|M0) r16.0<1>:ud r14.0<1;1,0>:ud {}:ud\n", 4 * s);
        k += "sync.nop null {A@1}\n";
        k += "store.slm.d32.a32 (16|M0) [r14:2] r50:2 {$0}\n";
        k += "send.gtwy (1|M0) null r5 null:0 0x0 0x02000004 {$1}\n";
        k += "sync.bar null\n";
        k += "load.slm.d32.a32 (16|M0) r52:2 [r16:2] {$2}\n";
        k += "send.gtwy (1|M0) null r5 null:0 0x0 0x02000004 {$1}\n";
        k += "sync.bar null\n";
        k += "sync.nop null {$0.src}\n";
        k += "add (16|M0) r50.0<1>:ud r50.0<1;1,0>:ud r52.0<1;1,0>:ud {$2.dst}\n";
    }
    k += "shl (1|M0) r60.0<1>:ud r0.1<0;1,0>:ud 2:ud\n";
    k += "mov (16|M0) r62.0<1>:ud r60.0<0;1,0>:ud {A@1}\n";
    k += "sync.nop null {A@1}\n";
    k += "store.ugm.d32.a32 (16|M0) bti[1][r62:2] r50:2 {$3}\n";
    k += EOT;
    k
}

pub(super) fn reduce<'a, P: Platform>(
    gpu: &mut Gpu<'a, P>,
    cx: &mut Compute<'a>,
    p: &Params,
    tally: &mut Tally,
) -> Result<(), Failure> {
    let groups = p.groups;
    if groups == 0 {
        return Err(Failure::BadParams("the reduction needs at least one group"));
    }
    if u64::from(groups) * (u64::from(GROUP) * 4) > MAX_BUFFER_ENTRIES {
        return Err(Failure::BadParams(
            "the reduction's input must fit a buffer of 2^27 bytes",
        ));
    }
    let n = groups as usize;
    let bin = assemble(G, &reduce_text())?;
    let input: Vec<u8> = (0..n * GROUP as usize)
        .flat_map(|i| reduce::input(i).to_le_bytes())
        .collect();
    let mut raw = vec![0u8; n * 4];
    scoped(gpu, |gpu, held| {
        let desc = KernelDesc {
            local_ids: LocalIds::X,
            bindings: &[0, 1],
            barriers: true,
            slm_bytes: GROUP * 4,
            ..KernelDesc::new(&bin)
        };
        held.kernels.push(cx.load_kernel(gpu, &desc)?);
        held.buffers.push(cx.upload_buffer(gpu, &input)?);
        held.buffers.push(cx.create_buffer(gpu, n * 4)?);
        let bindings = [
            (0, Resource::Buffer(&held.buffers[0])),
            (1, Resource::Buffer(&held.buffers[1])),
        ];
        let d = Dispatch {
            threads: Threads::Compute {
                groups: [groups, 1, 1],
                group_size: [GROUP, 1, 1],
                inline: &[],
                indirect: &[],
                pointer: IndirectPointer::InlineQword0,
            },
            curbe: &[],
            bindings: &bindings,
            samplers: &[],
        };
        launch(gpu, cx, &held.kernels[0], &d, p.timeout_us)?;
        held.buffers[1].read(0, &mut raw)?;
        Ok(())
    })?;
    tally.dispatches += 1;
    tally.threads += u64::from(groups) * 4;
    let s = reduce::Sums {
        got: (0..n).map(|i| dword(&raw, i)).collect(),
        want: (0..n).map(reduce::group_sum).collect(),
    };
    reduce::check(&s)?;
    tally.checked += n as u64;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kernel assembles, and to iga64's bytes when iga64 is installed.
    #[test]
    fn the_kernels_assemble_as_iga64_does() {
        for (name, text) in [
            ("fill", fill_text()),
            ("tiled", tiled_text()),
            ("vadd", vector_add_text()),
            ("reduce", reduce_text()),
        ] {
            let ours = assemble(G, &text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            let dir = std::env::temp_dir()
                .join(format!("baregpu-selftest-xe-{}-{name}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let (src, out) = (dir.join("k.asm"), dir.join("k.bin"));
            std::fs::write(&src, &text).unwrap();
            let Ok(r) = std::process::Command::new("iga64")
                .args(["-p=12p71", "-a"])
                .arg(&src)
                .arg("-o")
                .arg(&out)
                .output()
            else {
                std::eprintln!("iga64 not found: {name} not compared with the oracle");
                continue;
            };
            assert!(
                r.status.success(),
                "iga64 on {name}: {}",
                String::from_utf8_lossy(&r.stderr)
            );
            assert_eq!(std::fs::read(&out).unwrap(), ours, "{name}");
        }
    }
}
