//! The assembler at the edges of its fields: numbers that do not fit
//! (immediates, jump offsets near 2^63, the Gen4/G45 16-bit `jmpi` index)
//! and options an instruction cannot carry are errors with a position,
//! never a panic or a silently changed instruction; the values at the edge
//! itself still assemble, to the bits the manuals give.

use baregpu_isa::IsaGen::{self, G45, Gen4, Gen6, Gen7, Gen75};
use baregpu_isa::inst::{Body, Imm, Src};
use baregpu_isa::kernel::decode_kernel;
use baregpu_isa::text::assemble;
use baregpu_isa::validate::{Operand, Rule, validate_kernel};

/// The src0 immediate of a one-line `mov`.
fn mov_imm(p: IsaGen, imm: &str) -> Result<Imm, String> {
    let bytes = assemble(p, &format!("mov (8|M0) r1.0<1>:d {imm}")).map_err(|e| e.to_string())?;
    let k = decode_kernel(p, &bytes).map_err(|e| e.to_string())?;
    match &k[0].inst.body {
        Body::Alu(a) => match a.src0 {
            Src::Imm(i) => Ok(i),
            _ => Err("src0 is not an immediate".into()),
        },
        _ => Err("not an ALU instruction".into()),
    }
}

#[test]
fn immediates_fit_their_type_signed_or_unsigned() {
    // Accepted: the type's bits read signed or unsigned, as iga64 reads
    // them; stored as those bits (a word immediate replicated).
    for (text, bits) in [
        ("-2147483648:d", 0x8000_0000),
        ("4294967295:d", 0xFFFF_FFFF),
        ("-1:ud", 0xFFFF_FFFF),
        ("0xffffffff:ud", 0xFFFF_FFFF),
        ("-32768:w", 0x8000_8000),
        ("65535:uw", 0xFFFF_FFFF),
        ("0xffff:w", 0xFFFF_FFFF),
        ("0x00020002:w", 0x0002_0002),
        ("0xabcdabcd:uw", 0xABCD_ABCD),
        ("0x3f800000:f", 0x3F80_0000),
    ] {
        let imm = mov_imm(Gen75, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(imm.bits, bits, "{text}");
    }
    // Refused: anything wider, however it is written (iga64 truncates
    // these silently: 0x12345:uw would become 0x2345).
    for text in [
        "-2147483649:d",
        "4294967296:d",
        "0x100000000:ud",
        "0xffffffffffffffff:d",
        "18446744073709551616:d",
        "-9223372036854775808:d",
        "-9223372036854775809:ud",
        "0x12345:uw",
        "0xfffeffff:uw",
        "65536:w",
        "-32769:uw",
        "0x1ffffffff:f",
    ] {
        let e = mov_imm(Gen75, text).expect_err(text);
        assert!(
            e.contains("does not fit") || e.contains("number"),
            "{text}: {e}"
        );
        assert!(e.starts_with("1:22:"), "{text}: {e}");
    }
}

#[test]
fn jump_numbers_near_the_i64_limits_are_errors() {
    for (p, src) in [
        (Gen75, "jmpi -9223372036854775808"),
        (Gen75, "jmpi -9223372036854775800"),
        (Gen75, "jmpi 9223372036854775807"),
        (Gen75, "jmpi 9223372036854775808"),
        (Gen75, "jmpi 99999999999999999999999"),
        (Gen75, "call (1|M0) r10.0<1>:d -9223372036854775808"),
        (Gen75, "if (8|M0) -9223372036854775808 9223372036854775807"),
        (Gen7, "jmpi -9223372036854775808"),
        (Gen6, "jmpi -9223372036854775808"),
        (Gen6, "if (8|M0) -9223372036854775808"),
        (G45, "jmpi -9223372036854775808"),
        (Gen4, "jmpi -9223372036854775808"),
        (Gen4, "else (8|M0) 9223372036854775807"),
    ] {
        let e = assemble(p, src).expect_err(src);
        assert_eq!(e.line, 1, "{p}: {src}: {e}");
        assert!(e.message.contains("range"), "{p}: {src}: {e}");
    }
}

#[test]
fn eot_is_only_for_sends() {
    let e = assemble(
        Gen75,
        "add (8|M0) r1.0<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d {EOT}",
    )
    .expect_err("EOT on add");
    assert_eq!((e.line, e.col), (1, 51), "{e}");
    assert!(e.message.contains("EOT"), "{e}");
    let e = assemble(Gen4, "mov (8|M0) r1.0<1>:f r2.0<8;8,1>:f {Compr,EOT}").expect_err("mov");
    assert!(e.message.contains("EOT"), "{e}");
    // A send keeps it.
    let bytes = assemble(Gen75, "send (8|M0) null:ud r112 0x27 0x02000010 {EOT}").unwrap();
    assert_eq!(bytes[15] >> 7, 1, "EOT is bit 127");
}

/// Gen4/G45 `jmpi` uses the low 16 bits of its index only (000 lines
/// 11955-11961): index = (bytes from the jmpi - 16) / 16 must be in
/// -32768..=32767. Later generations have 32 bits.
#[test]
fn gen4_jmpi_offsets_fit_sixteen_bits() {
    let max = 32767 * 16 + 16;
    let min = -32768 * 16 + 16;
    for p in [Gen4, G45] {
        for ok in [max, min, 16] {
            let src = format!("(W) jmpi {ok}");
            let bytes = assemble(p, &src).unwrap_or_else(|e| panic!("{p}: {src}: {e}"));
            let index = i32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]);
            assert_eq!(i64::from(index), (ok - 16) / 16, "{p}: {src}");
        }
        for bad in [max + 16, min - 16, 1 << 20] {
            let src = format!("(W) jmpi {bad}");
            let e = assemble(p, &src).expect_err(&src);
            assert!(e.message.contains("out of range"), "{p}: {src}: {e}");
        }
    }
    assert!(assemble(Gen6, &format!("(W) jmpi {}", max + 16)).is_ok());

    // A label 32769 instructions ahead is out of reach too.
    let mut src = String::from("(W) jmpi L\n");
    src.push_str(&"nop\n".repeat(32768));
    src.push_str("L:\nnop\n");
    let e = assemble(Gen4, &src).expect_err("far label");
    assert!(e.message.contains("out of range"), "{e}");
    let near = src.replacen("nop\n", "", 1);
    assert!(assemble(Gen4, &near).is_ok());
}

#[test]
fn validator_flags_an_encoded_gen4_jmpi_beyond_sixteen_bits() {
    for (p, index, bad) in [
        (Gen4, 32768u32, true),
        (G45, 0xFFFF_7FFF, true),
        (Gen4, 32767, false),
        (G45, 0xFFFF_8000, false),
    ] {
        let mut bytes = assemble(p, "(W) jmpi 16").unwrap();
        bytes[12..16].copy_from_slice(&index.to_le_bytes());
        let found = validate_kernel(p, &bytes).unwrap();
        let hit = found
            .iter()
            .any(|(_, v)| v.rule == Rule::OpcodeOperands && v.operand == Some(Operand::Src1));
        assert_eq!(hit, bad, "{p} index {index:#x}: {found:?}");
    }
}

#[test]
fn float_literals_fit_their_type_and_take_signed_exponents() {
    // Exponents may be negative or positive; the value is rounded to the
    // type as Rust rounds it (to nearest).
    for (text, bits) in [
        ("1.5e-3:f", u64::from(1.5e-3f32.to_bits())),
        ("-2.5e+2:f", u64::from((-250.0f32).to_bits())),
        ("3.0e38:f", u64::from(3.0e38f32.to_bits())),
    ] {
        let imm = mov_imm(Gen7, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(imm.bits, bits, "{text}");
    }
    // A literal past the type's range would silently become an infinity
    // (the :df one is refused before the encoder, which has no DF
    // immediate for mov on these platforms).
    for text in ["1.0e39:f", "-4.0e38:f", "1.0e309:df"] {
        let e = mov_imm(Gen7, text).expect_err(text);
        assert!(e.contains("does not fit"), "{text}: {e}");
    }
}
