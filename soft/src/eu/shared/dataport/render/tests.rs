//! The Gen6 render-target write decoded into [`RtWrite`], every form of
//! the sequencing table (003 lines 85719-85793) with and without a
//! header, handed to a recording output merger. Register `r`, dword `d`
//! of the payload holds `r << 8 | d`, so each decoded value names where it
//! was read from; the expected places are derived here from the table.

use alloc::vec::Vec;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{RegFile, Type};
use baregpu_isa::message;

use crate::eu::send::{Payload, SendError, SendRequest};
use crate::eu::shared::{
    DispatchFlags, FlatMemory, GfxMemory, MessageEnv, PixelBackend, PixelDispatch, RtWrite,
    SurfaceList, SurfaceSource, handle,
};
use crate::eu::thread::Thread;

const P: IsaGen = IsaGen::Gen6;
/// First payload register.
const BASE: u8 = 10;

fn request(text: &str) -> SendRequest {
    let (sfid, desc) = message::parse_symbolic(P, text).expect("descriptor");
    SendRequest {
        ip: 0,
        sfid: Some(sfid),
        desc: 0,
        mlen: desc.mlen,
        rlen: desc.rlen,
        header: desc.header,
        function: desc.function,
        payload: Payload {
            file: RegFile::Grf,
            reg: BASE,
        },
        dst: None,
        dst_type: Type::Ud,
        exec_size: 16,
        first_channel: 0,
        channels: 0xFFFF,
        eot: false,
        conditional: false,
        extended: crate::eu::send::ExtendedSend::NONE,
    }
}

#[derive(Default)]
struct Recorder {
    writes: Vec<RtWrite>,
    flags: DispatchFlags,
}

impl PixelBackend for Recorder {
    fn render_target(
        &mut self,
        _: &mut dyn GfxMemory,
        _: Option<&PixelDispatch>,
        w: &RtWrite,
    ) -> Result<(), SendError> {
        self.writes.push(w.clone());
        Ok(())
    }

    fn depth_stencil_only(
        &mut self,
        _: &mut dyn GfxMemory,
        _: &PixelDispatch,
    ) -> Result<(), SendError> {
        Ok(())
    }

    fn samples_passed(&self) -> u64 {
        0
    }

    fn dispatch_flags(&self) -> DispatchFlags {
        self.flags
    }
}

/// A SIMD32 dispatch: subspan k at (2k, 10 + k), pixel mask 0xA5A5_5A5A,
/// depth of slot s = s / 64, back facing.
fn dispatch() -> PixelDispatch {
    PixelDispatch {
        simd: 32,
        corners: core::array::from_fn(|k| ((10 + k as u32) << 16) | (2 * k as u32)),
        mask: 0xA5A5_5A5A,
        depth: core::array::from_fn(|s| s as f32 / 64.0),
        front_facing: false,
        aa_alpha: None,
        samples: None,
    }
}

/// Runs `text` with payload register `r` dword `d` = `r << 8 | d`, M0.0 =
/// `m00`, M0.2 = 5 and M1.7 = 0x3C3C_9696 when there is a header.
fn run(text: &str, m00: u32, flags: DispatchFlags) -> Result<RtWrite, SendError> {
    let req = request(text);
    let mut t = Thread::new(P);
    for r in 0..u32::from(req.mlen) {
        for d in 0..8 {
            t.set_grf_ud(BASE + r as u8, d, r << 8 | d as u32);
        }
    }
    if req.header {
        t.set_grf_ud(BASE, 0, m00);
        t.set_grf_ud(BASE, 2, 5);
        t.set_grf_ud(BASE + 1, 7, 0x3C3C_9696);
    }
    let mut mem = FlatMemory::new(0, 0x1000);
    let mut list = SurfaceList::new();
    let mut rec = Recorder {
        flags,
        ..Recorder::default()
    };
    let d = dispatch();
    let mut env = MessageEnv::new(&mut mem, SurfaceSource::List(&mut list));
    env.pixels = Some(&mut rec);
    env.pixel_dispatch = Some(&d);
    handle(&mut env, &mut t, &req)?;
    assert_eq!(rec.writes.len(), 1);
    Ok(rec.writes.remove(0))
}

/// Value at payload register `r` (counted from the message's first) and
/// dword `d`.
fn at(r: usize, d: usize) -> u32 {
    (r as u32) << 8 | d as u32
}

/// What one form's sequencing row holds, from the table.
struct Row {
    mode: &'static str,
    slots: usize,
    s0a: bool,
    om: bool,
    sz: bool,
}

impl Row {
    fn colour_regs(&self) -> usize {
        match self.mode {
            "simd16" => 8,
            "simd16_rep" => 1,
            "simd8_lo" => 4,
            _ => 8,
        }
    }

    /// Checks `w` against the row with `hdr` header registers.
    fn check(&self, w: &RtWrite, hdr: usize) {
        let halves = self.slots / 8;
        let s0a_at = hdr;
        let om_at = s0a_at + if self.s0a { halves } else { 0 };
        let c_at = om_at + usize::from(self.om);
        let z_at = c_at + self.colour_regs();
        let first = if self.mode == "simd8_dual_hi" { 8 } else { 0 };
        for s in 0..self.slots {
            for c in 0..4 {
                let want = match self.mode {
                    // R 7:0, R 15:8, G 7:0, ... (003 lines 85474-85560).
                    "simd16" => at(c_at + 2 * c + s / 8, s % 8),
                    "simd16_rep" => at(c_at, c),
                    _ => at(c_at + c, s),
                };
                assert_eq!(w.color[s][c], want, "{} slot {s} ch {c}", self.mode);
                if self.mode.starts_with("simd8_dual") {
                    assert_eq!(w.color1.unwrap()[s][c], at(c_at + 4 + c, s));
                }
            }
            if self.s0a {
                assert_eq!(w.src0_alpha.unwrap()[s], at(s0a_at + s / 8, s % 8));
            }
            if self.sz {
                assert_eq!(w.depth.unwrap()[s].to_bits(), at(z_at + s / 8, s % 8));
            }
            if self.om {
                // 16 words, slot k of the group in word k.
                let k = first + s;
                let dw = at(om_at, k / 2);
                assert_eq!(
                    u32::from(w.omask.unwrap()[s]),
                    dw >> (16 * (k % 2)) & 0xFFFF
                );
            }
        }
        assert_eq!(w.src0_alpha.is_some(), self.s0a);
        assert_eq!(w.omask.is_some(), self.om);
        assert_eq!(w.depth.is_some(), self.sz);
        assert_eq!(w.color1.is_some(), self.mode.starts_with("simd8_dual"));
        assert_eq!(w.replicated, self.mode == "simd16_rep");
        assert_eq!(w.slots, self.slots);
    }

    fn mlen(&self, hdr: usize) -> usize {
        let halves = self.slots / 8;
        hdr + usize::from(self.om)
            + if self.s0a { halves } else { 0 }
            + self.colour_regs()
            + if self.sz { halves } else { 0 }
    }
}

/// Every row of the sequencing table (003 lines 85758-85793).
fn rows() -> Vec<Row> {
    let mut v = Vec::new();
    for bits in 0..8u32 {
        let (om, sz, s0a) = (bits & 4 != 0, bits & 2 != 0, bits & 1 != 0);
        v.push(Row {
            mode: "simd16",
            slots: 16,
            s0a,
            om,
            sz,
        });
        // oMask with SIMD8 is an erratum (003 lines 85000-85001).
        if !om {
            v.push(Row {
                mode: "simd8_lo",
                slots: 8,
                s0a,
                om,
                sz,
            });
        }
        if !s0a && !om {
            v.push(Row {
                mode: "simd8_dual_lo",
                slots: 8,
                s0a,
                om,
                sz,
            });
            v.push(Row {
                mode: "simd8_dual_hi",
                slots: 8,
                s0a,
                om,
                sz,
            });
        }
        if !s0a && !sz {
            v.push(Row {
                mode: "simd16_rep",
                slots: 16,
                s0a,
                om,
                sz,
            });
        }
    }
    v
}

#[test]
fn every_form_with_a_header_reads_its_registers() {
    for row in rows() {
        let mlen = row.mlen(2);
        let text = format!(
            "rc.rt_write(bti=3, mode={}, last) mlen={mlen} rlen=0 hdr",
            row.mode
        );
        let m00 = u32::from(row.s0a) << 11
            | u32::from(row.om) << 12
            | u32::from(row.sz) << 13
            | 1 << 15
            | 6 << 27;
        let w =
            run(&text, m00, DispatchFlags::default()).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        row.check(&w, 2);
        assert_eq!(
            (w.binding_table_index, w.render_target_index, w.last),
            (3, 5, true)
        );
        assert!(w.back_facing);
        assert_eq!(w.viewport_index, 6);
        // Enables from M1.7 15:0; the subspans from M1.2-M1.5, the
        // DUALSRC_HI form taking slots 15:8 (subspans 2 and 3).
        let hi = row.mode == "simd8_dual_hi";
        let first = if hi { 8 } else { 0 };
        assert_eq!(w.mask, (0x9696 >> first) & ((1 << row.slots) - 1), "{text}");
        for k in 0..row.slots / 4 {
            assert_eq!(w.corners[k], at(1, 2 + first / 4 + k), "{text}");
        }
        assert_eq!(w.dispatch_slot, first);
        // One register short of the row is refused.
        let short = format!(
            "rc.rt_write(bti=3, mode={}, last) mlen={} rlen=0 hdr",
            row.mode,
            mlen - 1
        );
        assert!(
            run(&short, m00, DispatchFlags::default()).is_err(),
            "{short}"
        );
    }
}

#[test]
fn every_form_without_a_header_takes_the_dispatch() {
    for row in rows() {
        // Source-0 alpha present is 0 without a header (003 lines
        // 85008-85012).
        if row.s0a {
            continue;
        }
        for slot_hi in [false, true] {
            let mlen = row.mlen(0);
            let hi = if slot_hi { ", slot_hi" } else { "" };
            let text = format!(
                "rc.rt_write(bti=1, mode={}{hi}) mlen={mlen} rlen=0",
                row.mode
            );
            let flags = DispatchFlags {
                source_depth: row.sz,
                omask: row.om,
            };
            let w = run(&text, 0, flags).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            row.check(&w, 0);
            let d = dispatch();
            let from =
                if slot_hi { 16 } else { 0 } + if row.mode == "simd8_dual_hi" { 8 } else { 0 };
            assert_eq!(w.dispatch_slot, from, "{text}");
            assert_eq!(w.mask, (d.mask >> from) & ((1 << row.slots) - 1), "{text}");
            for k in 0..row.slots / 4 {
                assert_eq!(w.corners[k], d.corners[from / 4 + k], "{text}");
            }
            assert_eq!(
                (w.render_target_index, w.last, w.back_facing),
                (0, false, true)
            );
        }
    }
}

#[test]
fn forms_the_manual_forbids_are_refused() {
    let cases = [
        // Source-0 alpha on dual-source and replicated forms (003 lines
        // 85115-85121).
        (
            "rc.rt_write(bti=0, mode=simd8_dual_lo) mlen=11 rlen=0 hdr",
            1 << 11,
        ),
        (
            "rc.rt_write(bti=0, mode=simd16_rep) mlen=5 rlen=0 hdr",
            1 << 11,
        ),
        // Source depth with replicated data (003 lines 85567-85572).
        (
            "rc.rt_write(bti=0, mode=simd16_rep) mlen=5 rlen=0 hdr",
            1 << 13,
        ),
        // oMask with SIMD8 (erratum, 003 lines 85000-85001).
        (
            "rc.rt_write(bti=0, mode=simd8_lo) mlen=7 rlen=0 hdr",
            1 << 12,
        ),
        // Per-sample dispatch.
        (
            "rc.rt_write(bti=0, mode=simd8_lo) mlen=6 rlen=0 hdr",
            1 << 6,
        ),
    ];
    for (text, m00) in cases {
        assert!(
            matches!(
                run(text, m00, DispatchFlags::default()),
                Err(SendError::Bad(_))
            ),
            "{text}"
        );
    }
}

mod formats {
    //! Render-target format conversions against values worked out by
    //! hand from the format definitions.

    use super::super::target::RtFormat;

    fn fields(code: u32, rgba: [f32; 4]) -> [u32; 4] {
        RtFormat::of(code).unwrap().encode(rgba.map(f32::to_bits))
    }

    #[test]
    fn half_floats_round_to_nearest_even_and_saturate_to_infinity() {
        let h = |v: f32| fields(0x10E, [v, 0.0, 0.0, 0.0])[0];
        assert_eq!(h(1.0), 0x3C00);
        assert_eq!(h(-2.0), 0xC000);
        assert_eq!(h(65504.0), 0x7BFF);
        // Halfway between 65504 and 65536 rounds to even: infinity.
        assert_eq!(h(65520.0), 0x7C00);
        assert_eq!(h(f32::INFINITY), 0x7C00);
        // 2^-24 is the smallest subnormal; below half of it is 0.
        assert_eq!(h(2f32.powi(-24)), 0x0001);
        assert_eq!(h(2f32.powi(-26)), 0x0000);
        // 0.1 = 0x2E66 (0x2E66.66.. rounds down).
        assert_eq!(h(0.1), 0x2E66);
        assert_eq!(h(f32::NAN) & 0x7C00, 0x7C00);
        assert_ne!(h(f32::NAN) & 0x3FF, 0);
    }

    #[test]
    fn r11g11b10_floats_have_no_sign() {
        let f = fields(0x0D3, [1.0, -1.0, 1.0, 0.0]);
        // Exponent bias 15: 1.0 is 15 << 6 (11 bit) and 15 << 5 (10 bit).
        assert_eq!(f, [15 << 6, 0, 15 << 5, 0]);
        let packed = {
            let mut b = [0u8; 4];
            RtFormat::of(0x0D3).unwrap().write_fields(&mut b, f, 0xF);
            u32::from_le_bytes(b)
        };
        assert_eq!(packed, 15 << 6 | (15 << 5) << 22);
    }

    #[test]
    fn snorm_and_unorm_clamp_scale_and_round() {
        assert_eq!(fields(0x0C9, [1.0, -1.0, -2.0, 0.5]), [127, 0x81, 0x81, 64]);
        assert_eq!(
            fields(0x0C9, [f32::NAN, 0.0, -0.5, 0.25])[..3],
            [0, 0, 0xC0]
        );
        assert_eq!(
            fields(0x080, [1.0, 0.0, 0.5, 2.0]),
            [0xFFFF, 0, 0x8000, 0xFFFF]
        );
        // sRGB: linear 0.5 encodes to 0.7354, 187.5 + a little: 188.
        assert_eq!(fields(0x0C8, [0.5, 0.0, 1.0, 0.5]), [188, 0, 255, 128]);
    }

    #[test]
    fn packed_formats_put_channels_from_bit_zero_in_name_order() {
        let pack = |code: u32, rgba: [f32; 4]| {
            let f = RtFormat::of(code).unwrap();
            let mut b = [0u8; 4];
            f.write_fields(&mut b[..f.bytes()], f.encode(rgba.map(f32::to_bits)), 0xF);
            u32::from_le_bytes(b)
        };
        // B5G6R5: blue 4:0, green 10:5, red 15:11.
        assert_eq!(pack(0x100, [1.0, 0.0, 0.0, 0.0]), 0xF800);
        assert_eq!(pack(0x100, [0.0, 1.0, 0.0, 0.0]), 0x07E0);
        // R10G10B10A2: red 9:0 ... alpha 31:30.
        assert_eq!(pack(0x0C2, [0.0, 0.0, 0.0, 1.0]), 0xC000_0000);
        assert_eq!(pack(0x0C2, [1.0, 0.0, 0.0, 0.0]), 0x3FF);
        // B8G8R8A8: blue in the lowest byte.
        assert_eq!(pack(0x0C0, [1.0, 0.0, 0.0, 0.0]), 0x00FF_0000);
        // Integer formats clamp to their range.
        assert_eq!(
            RtFormat::of(0x0CA)
                .unwrap()
                .encode([300, (-300i32) as u32, 5, 0]),
            [127, 0x80, 5, 0]
        );
    }

    #[test]
    fn stored_fields_read_back_as_the_colour_they_encode() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for code in [
            0x000u32, 0x001, 0x002, 0x080, 0x081, 0x082, 0x083, 0x084, 0x085, 0x0C0, 0x0C2, 0x0C4,
            0x0C7, 0x0C9, 0x0CA, 0x0CB, 0x0CC, 0x0CD, 0x0D0, 0x0D1, 0x0D3, 0x0D6, 0x0D8, 0x100,
            0x102, 0x104, 0x106, 0x107, 0x10A, 0x10B, 0x10E, 0x140, 0x141, 0x144,
        ] {
            let f = RtFormat::of(code).unwrap();
            for _ in 0..200 {
                let mut field = [0u32; 4];
                for (ch, v) in field.iter_mut().enumerate() {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    let bits = f.bits(ch);
                    if bits == 0 {
                        continue;
                    }
                    *v = (seed as u32)
                        & if bits == 32 {
                            u32::MAX
                        } else {
                            (1 << bits) - 1
                        };
                    // The most negative SNORM reads as -1.0, which stores
                    // the next value up; NaN floats have many encodings.
                    if f.class == super::super::target::Class::Snorm && *v == 1 << (bits - 1) {
                        *v += 1;
                    }
                }
                let colour = f.decode(field);
                let floaty = f.class == super::super::target::Class::Float;
                if floaty && (0..4).any(|c| f32::from_bits(colour[c]).is_nan()) {
                    continue;
                }
                assert_eq!(f.encode(colour), field, "format {code:#x}");
            }
        }
    }
}

#[test]
fn the_simd8_image_write_stores_each_enabled_pixel_at_its_own_xy() {
    use crate::eu::shared::surface::{Surface, Tiling, format};
    const RT: u64 = 0x800;
    let req = request("rc.rt_write(bti=0, mode=simd8_image) mlen=6 rlen=0 hdr");
    let mut t = Thread::new(P);
    // Pixel mask 0b1011_0101; pixel i at (3i mod 8, i / 2).
    t.set_grf_ud(BASE, 0, 0b1011_0101);
    for i in 0..8u32 {
        t.set_grf_ud(BASE + 1, i as usize, ((i / 2) << 16) | ((3 * i) % 8));
        for c in 0..4u32 {
            t.set_grf_ud(BASE + 2 + c as u8, i as usize, 10 * i + c);
        }
    }
    let mut mem = FlatMemory::new(0, 0x1000);
    let mut list = SurfaceList::new();
    list.bind(
        0,
        Surface::two_d(RT, format::R32G32B32A32_UINT, 8, 4, 128, Tiling::Linear),
    );
    let mut env = MessageEnv::new(&mut mem, SurfaceSource::List(&mut list));
    handle(&mut env, &mut t, &req).unwrap();
    for i in 0..8u64 {
        let at = RT + (i / 2) * 128 + ((3 * i) % 8) * 16;
        for c in 0..4u64 {
            let want = if 0b1011_0101u64 >> i & 1 == 1 {
                (10 * i + c) as u32
            } else {
                0
            };
            assert_eq!(mem.dword(at + 4 * c), want, "pixel {i} channel {c}");
        }
    }
    // From a pixel thread of a draw it is refused.
    let mut rec = Recorder::default();
    let mut env = MessageEnv::new(&mut mem, SurfaceSource::List(&mut list));
    env.pixels = Some(&mut rec);
    assert!(handle(&mut env, &mut t, &req).is_err());
}

#[test]
fn direct_writes_to_a_multisampled_surface_are_refused() {
    use crate::eu::shared::surface::{Surface, Tiling, format};
    let req = request("rc.rt_write(bti=0, mode=simd8_image) mlen=6 rlen=0 hdr");
    let mut t = Thread::new(P);
    t.set_grf_ud(BASE, 0, 0xff);
    let mut mem = FlatMemory::new(0, 0x1000);
    let mut list = SurfaceList::new();
    list.bind(
        0,
        Surface {
            samples: 4,
            ..Surface::two_d(0x800, format::R32G32B32A32_UINT, 8, 4, 128, Tiling::Linear)
        },
    );
    let mut env = MessageEnv::new(&mut mem, SurfaceSource::List(&mut list));
    assert!(matches!(
        handle(&mut env, &mut t, &req),
        Err(SendError::Bad(s)) if s.contains("multisampled")
    ));
    assert!((0x800..0x1000).all(|a| mem.dword(a & !3) == 0));
}
