//! Symbolic message descriptors in assembly text: a `send` written with
//! `dc.untyped_read(...) mlen=2 rlen=4` assembles to the same bits as the
//! same send with its SFID and descriptor as numbers, and the disassembler's
//! message comment is text the assembler takes back.

use baregpu_isa::inst::{Body, MsgDesc, SendDesc};
use baregpu_isa::message::{parse_symbolic, print_symbolic};
use baregpu_isa::tables::{self, SendLayout};
use baregpu_isa::text::{DisasmOptions, assemble, disassemble_with};
use baregpu_isa::{IsaGen, decode_bytes};

/// The send line's operands before the descriptor: destination, (Gen4/G45)
/// base MRF, payload.
fn head(p: IsaGen) -> &'static str {
    match p {
        IsaGen::Gen4 | IsaGen::G45 => "send (8|M0) r10:uw m1 r0:ud",
        IsaGen::Gen6 => "send (8|M0) r10:ud m1",
        _ => "send (8|M0) r10:ud r2",
    }
}

/// The descriptor's 32 bits as the generation lays them out (Gen4: function
/// 15:0, rlen 19:16, mlen 23:20; Gen6+: function 18:0, header 19, rlen
/// 24:20, mlen 28:25), written independently of the assembler.
fn raw(p: IsaGen, d: &MsgDesc) -> u32 {
    match p {
        IsaGen::Gen4 | IsaGen::G45 => {
            d.function | u32::from(d.rlen) << 16 | u32::from(d.mlen) << 20
        }
        _ => {
            d.function
                | u32::from(d.header) << 19
                | u32::from(d.rlen) << 20
                | u32::from(d.mlen) << 25
        }
    }
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[test]
fn symbolic_and_numeric_descriptors_assemble_to_the_same_bits() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for p in IsaGen::ALL {
        let t = tables::for_platform(p);
        let fn_bits = match t.fields.send {
            SendLayout::Gen4 { function, .. } | SendLayout::Gen6 { function, .. } => {
                function.width()
            }
        };
        let mut checked = 0;
        for (code, sfid) in t.sfids.iter().enumerate() {
            let Some(sfid) = *sfid else { continue };
            for _ in 0..400 {
                let r = rng.next();
                let desc = MsgDesc {
                    mlen: 1 + (r % 4) as u8,
                    rlen: ((r >> 2) % 5) as u8,
                    header: p >= IsaGen::Gen6 && (r >> 5) & 1 == 1,
                    function: ((r >> 8) as u32) & ((1 << fn_bits) - 1),
                };
                let Ok(text) = print_symbolic(p, sfid, &desc) else {
                    continue;
                };
                // The symbolic text names the same descriptor...
                assert_eq!(parse_symbolic(p, &text), Ok((sfid, desc)), "{p}: {text}");
                // ...and assembles like the numbers do.
                let symbolic = assemble(p, &format!("{} {text}", head(p)))
                    .unwrap_or_else(|e| panic!("{p}: {text}: {e}"));
                let numeric = format!("{} {code:#x} {:#010x}", head(p), raw(p, &desc));
                let numeric =
                    assemble(p, &numeric).unwrap_or_else(|e| panic!("{p}: {numeric}: {e}"));
                assert_eq!(symbolic, numeric, "{p}: {text}");
                let inst = decode_bytes(p, symbolic.as_slice().try_into().unwrap()).unwrap();
                let Body::Send(s) = inst.body else {
                    panic!("{p}: not a send")
                };
                assert_eq!(
                    s.desc,
                    SendDesc::Imm {
                        ty: baregpu_isa::inst::Type::Ud,
                        desc
                    }
                );
                checked += 1;
            }
        }
        assert!(
            checked > 200,
            "{p}: only {checked} descriptors had a symbolic form"
        );
    }
}

#[test]
fn the_disassemblers_message_comment_assembles_back() {
    let opts = DisasmOptions {
        offsets: false,
        labels: false,
        messages: true,
    };
    let cases = [
        (
            IsaGen::Gen7,
            "dc.untyped_read(bti=1, simd=8, mask=xyzw) mlen=2 rlen=4",
        ),
        (
            IsaGen::Gen7,
            "dc.scratch_read(regs=2, offset=4) mlen=1 rlen=2 hdr",
        ),
        (IsaGen::Gen75, "gw.barrier(notify=n0) mlen=1 rlen=0"),
        (
            IsaGen::Gen6,
            "urb.write(offset=2, swizzle=interleave, used, complete) mlen=3 rlen=0",
        ),
        (IsaGen::Gen4, "math.sqrt(sat, scalar) mlen=1 rlen=1"),
    ];
    for (p, text) in cases {
        let bytes = assemble(p, &format!("{} {text}", head(p))).unwrap();
        let listing = disassemble_with(p, &bytes, opts).unwrap();
        let (code, comment) = listing
            .trim_end()
            .split_once(" // ")
            .expect("a message comment");
        assert_eq!(comment, text, "{p}");
        // The listing line, and the line with the comment as its descriptor,
        // both assemble to the original bits.
        assert_eq!(assemble(p, &listing).unwrap(), bytes, "{p}: {listing}");
        let operands = code.split_whitespace().count();
        let head_words = head(p).split_whitespace().count();
        assert_eq!(
            operands,
            head_words + 2,
            "{p}: {code}: SFID and descriptor numbers"
        );
    }
}

#[test]
fn a_bad_symbolic_descriptor_is_an_error_at_its_column() {
    let line = "send (8|M0) r10:ud r2 dc.untyped_read(bti=1, simd=3) mlen=2 rlen=4";
    let e = assemble(IsaGen::Gen7, line).unwrap_err();
    assert_eq!(e.line, 1);
    assert_eq!(e.col, line.find("dc.").unwrap() + 1);
    assert!(
        e.message.starts_with("message descriptor:"),
        "{}",
        e.message
    );
    // A unit word the platform lacks.
    let e = assemble(
        IsaGen::Gen4,
        "send (8|M0) r10:uw m1 r0:ud dc.untyped_read(bti=1, simd=8) mlen=2 rlen=4",
    )
    .unwrap_err();
    assert!(
        e.message.starts_with("message descriptor:"),
        "{}",
        e.message
    );
}
