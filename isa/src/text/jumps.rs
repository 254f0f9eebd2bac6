//! Where jumps land: the byte arithmetic the disassembler (to print a
//! target as a label) and the assembler (to turn a label into a field)
//! share.
//!
//! Each jump field counts from its own origin:
//!
//! * JIP/UIP and Gen4/G45 jump counts are "added to IP pre-increment"
//!   (000 line 11084, 003 lines 97017-97027): they count from the branch.
//!   On G45 the IP addresses 128-bit slots and two compacted instructions
//!   in one slot share it (000 line 9073), so the origin is the branch's
//!   slot; from Gen6 on it is the branch itself (8-byte units).
//! * `jmpi` counts from the post-incremented IP, the next instruction:
//!   "+1 if compacted, +2 if not" in 64-bit units (003 lines 98602-98610;
//!   000 lines 11928-11953 for Gen4's 128-bit units).
//! * Gen6+ `call` holds its JIP in src1, added to the IP pre-increment in
//!   64-bit units (003 lines 97116-97127).
//!
//! Deviation, after iga64: on Gen7.5 `jmpi` and `call` immediates are
//! bytes ([ext: iga64 -p=7p5 encodes `jmpi L` and `call r L` that way];
//! the manuals for Gen7.5 are not at hand).
//!
//! As numbers in the text (when a target has no label), JIP/UIP and jump
//! counts are bytes from the branch (its slot on G45), `call` bytes from
//! the call, and `jmpi` bytes from the `jmpi` assuming its 16-byte native
//! size (what iga64 writes), whether or not it is compacted.

use alloc::string::String;

use crate::generation::IsaGen;
use crate::inst::{Body, Imm, Instruction, Jump, Opcode, Src, Type};
use crate::tables;

/// A field of an instruction that holds a jump.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Which {
    Jip,
    Uip,
    Jmpi,
    Call,
}

/// Bytes per unit of a `jmpi` or `call` immediate (see the module text).
fn imm_unit(p: IsaGen) -> i64 {
    if p == IsaGen::Gen75 {
        1
    } else {
        i64::from(tables::for_platform(p).jmpi_unit).max(1)
    }
}

/// The origin of JIP/UIP and jump counts of a branch at byte `at`.
fn branch_origin(p: IsaGen, at: i64) -> i64 {
    let unit = i64::from(tables::for_platform(p).jump_unit).max(1);
    at - at.rem_euclid(unit)
}

/// The origin of a `jmpi` at `at` of `size` bytes: the next instruction
/// (the next 128-bit slot before Gen6).
fn jmpi_origin(p: IsaGen, at: i64, size: i64) -> i64 {
    if p < IsaGen::Gen6 {
        branch_origin(p, at) + 16
    } else {
        at + size
    }
}

/// A `call`'s or `jmpi`'s immediate as a signed count of units.
fn imm_count(imm: &Imm) -> i64 {
    match imm.ty {
        Type::W => i64::from(imm.bits as u16 as i16),
        Type::Uw => i64::from(imm.bits as u16),
        Type::Ud => i64::from(imm.bits as u32),
        _ => i64::from(imm.bits as u32 as i32),
    }
}

/// The jump fields of `inst`, each with its value in bytes from the field's
/// origin. `jmpi` and `call` count only with an immediate.
pub(crate) fn fields(p: IsaGen, inst: &Instruction) -> [Option<(Which, i64)>; 2] {
    match &inst.body {
        Body::Branch(b) => match b.jump {
            Jump::Count { jump, .. } | Jump::Jip { jip: jump } => {
                [Some((Which::Jip, i64::from(jump))), None]
            }
            Jump::JipUip { jip, uip } => [
                Some((Which::Jip, i64::from(jip))),
                uip_shown(inst.opcode, uip).then_some((Which::Uip, i64::from(uip))),
            ],
        },
        Body::Alu(a) => match (inst.opcode, &a.src1) {
            (Opcode::Jmpi, Src::Imm(imm)) => [Some((Which::Jmpi, imm_bytes(p, imm))), None],
            (Opcode::Call, Src::Imm(imm)) => [Some((Which::Call, imm_bytes(p, imm))), None],
            _ => [None, None],
        },
        _ => [None, None],
    }
}

/// Whether the text shows a UIP: `else`, `endif` and `while` are written
/// with their JIP only when the UIP is 0, as iga64 writes them.
pub(crate) fn uip_shown(op: Opcode, uip: i32) -> bool {
    uip != 0 || !matches!(op, Opcode::Else | Opcode::Endif | Opcode::While)
}

/// The byte offset a field's value lands on for an instruction at `at` of
/// `size` bytes.
pub(crate) fn target(p: IsaGen, which: Which, value: i64, at: usize, size: usize) -> i64 {
    let (at, size) = (at as i64, size as i64);
    match which {
        Which::Jip | Which::Uip => branch_origin(p, at) + value,
        Which::Jmpi => jmpi_origin(p, at, size) + value,
        Which::Call => at + value,
    }
}

/// The text number of a field's value (see the module text).
pub(crate) fn number(which: Which, value: i64) -> i64 {
    match which {
        Which::Jmpi => value + 16,
        _ => value,
    }
}

/// Sets the field `which` of `inst`, placed at `at` with `size` bytes, so
/// that it lands on byte `target`.
pub(crate) fn set_target(
    p: IsaGen,
    inst: &mut Instruction,
    which: Which,
    at: usize,
    size: usize,
    target: usize,
) -> Result<(), String> {
    let origin = self::target(p, which, 0, at, size);
    set_value(p, inst, which, target as i64 - origin)
}

/// Sets a field to `value` bytes from its origin.
fn set_value(p: IsaGen, inst: &mut Instruction, which: Which, value: i64) -> Result<(), String> {
    let opcode = inst.opcode;
    match (&mut inst.body, which) {
        (Body::Branch(br), Which::Jip | Which::Uip) => {
            let b = i32::try_from(value).map_err(|_| String::from("jump offset out of range"))?;
            match (&mut br.jump, which) {
                (Jump::Count { jump, .. }, _) | (Jump::Jip { jip: jump }, _) => *jump = b,
                (Jump::JipUip { jip, .. }, Which::Jip) => *jip = b,
                (Jump::JipUip { uip, .. }, _) => *uip = b,
            }
            Ok(())
        }
        (Body::Alu(a), Which::Jmpi | Which::Call)
            if matches!(opcode, Opcode::Jmpi | Opcode::Call) =>
        {
            a.src1 = Src::Imm(value_imm(p, opcode, value, 0)?);
            Ok(())
        }
        _ => Err(String::from("this instruction takes no label")),
    }
}

/// The `jmpi`/`call` immediate (D, as iga64 writes it) for `value` bytes
/// from the field's origin.
fn value_imm(p: IsaGen, opcode: Opcode, value: i64, bias: i64) -> Result<Imm, String> {
    let unit = imm_unit(p);
    if value % unit != 0 {
        return Err(alloc::format!(
            "{} offset {} is not a multiple of {unit} bytes",
            opcode.mnemonic(),
            value.saturating_add(bias)
        ));
    }
    let count = value / unit;
    let (lo, hi) = imm_range(p, opcode);
    if !(lo..=hi).contains(&count) {
        // In the text's numbers (`bias` bytes more than the field's).
        return Err(alloc::format!(
            "{} offset {} out of range ({} to {} bytes)",
            opcode.mnemonic(),
            value.saturating_add(bias),
            lo * unit + bias,
            hi * unit + bias
        ));
    }
    Ok(Imm::d(count as i32))
}

/// The counts a `jmpi`/`call` immediate can hold: Gen4/G45 `jmpi` uses
/// only the low 16 bits of its index, "valid range [-32768, 32767]" (000
/// lines 11955-11961); later ones are S31 (003 lines 98617-98621).
pub(crate) fn imm_range(p: IsaGen, opcode: Opcode) -> (i64, i64) {
    if p < IsaGen::Gen6 && opcode == Opcode::Jmpi {
        (i64::from(i16::MIN), i64::from(i16::MAX))
    } else {
        (i64::from(i32::MIN), i64::from(i32::MAX))
    }
}

/// The `jmpi` (`which` = Jmpi) or `call` immediate of a text number.
pub(crate) fn number_imm(p: IsaGen, which: Which, n: i64) -> Result<Imm, String> {
    match which {
        Which::Jmpi => value_imm(
            p,
            Opcode::Jmpi,
            n.checked_sub(16)
                .ok_or_else(|| String::from("jmpi offset out of range"))?,
            16,
        ),
        _ => value_imm(p, Opcode::Call, n, 0),
    }
}

/// A `jmpi`/`call` immediate's value in bytes from its origin.
pub(crate) fn imm_bytes(p: IsaGen, imm: &Imm) -> i64 {
    imm_count(imm) * imm_unit(p)
}
