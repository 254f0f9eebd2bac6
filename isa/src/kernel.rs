//! Decoding a whole kernel: a byte buffer of native (16-byte) and, from
//! G45 on, compact (8-byte) instructions, expanded with [`crate::compact`].

use alloc::vec::Vec;
use core::fmt;

use crate::codec::{decode, from_dwords};
use crate::compact::{self, CompactError};
use crate::error::DecodeError;
use crate::generation::IsaGen;
use crate::inst::Instruction;
use crate::tables;

/// One instruction of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Byte offset in the buffer.
    pub offset: usize,
    pub inst: Instruction,
    /// Stored in the 64-bit compact form.
    pub compacted: bool,
}

impl Entry {
    /// Bytes the instruction occupies (8 or 16).
    pub const fn size(&self) -> usize {
        if self.compacted { 8 } else { 16 }
    }
}

/// Why the kernel does not decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelErrorKind {
    /// The (expanded) native word is not an instruction.
    Decode(DecodeError),
    /// The compact word has no native expansion.
    Compact(CompactError),
    /// Fewer bytes left than the instruction at this offset needs.
    Truncated { needed: usize, left: usize },
}

/// A kernel decode error and where it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelError {
    pub offset: usize,
    pub kind: KernelErrorKind,
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {:#x}: ", self.offset)?;
        match self.kind {
            KernelErrorKind::Decode(e) => write!(f, "{e}"),
            KernelErrorKind::Compact(e) => write!(f, "{e}"),
            KernelErrorKind::Truncated { needed, left } => {
                write!(f, "need {needed} bytes, {left} left")
            }
        }
    }
}

impl core::error::Error for KernelError {}

/// Decodes the instruction at `offset` (an interpreter's fetch). On the 965,
/// which has no compaction, bit 29 is just a reserved bit of a native word.
pub fn decode_at(platform: IsaGen, bytes: &[u8], offset: usize) -> Result<Entry, KernelError> {
    let err = |kind| KernelError { offset, kind };
    let rest = bytes.get(offset..).unwrap_or(&[]);
    let dword = |i: usize| -> Option<u32> {
        let b = rest.get(i * 4..i * 4 + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let truncated = |needed| {
        err(KernelErrorKind::Truncated {
            needed,
            left: rest.len(),
        })
    };
    let (dw0, dw1) = dword(0).zip(dword(1)).ok_or(truncated(8))?;
    // Gen12.5's compaction lives in `compact::xehpg`, not in the tables.
    let cmpt = platform.is_xe() || tables::for_platform(platform).fields.cmpt.is_some();
    let compacted = cmpt && compact::is_compact(dw0);
    let dwords = if compacted {
        compact::uncompact(platform, [dw0, dw1]).map_err(|e| err(KernelErrorKind::Compact(e)))?
    } else {
        let (dw2, dw3) = dword(2).zip(dword(3)).ok_or(truncated(16))?;
        [dw0, dw1, dw2, dw3]
    };
    let inst =
        decode(platform, from_dwords(dwords)).map_err(|e| err(KernelErrorKind::Decode(e)))?;
    Ok(Entry {
        offset,
        inst,
        compacted,
    })
}

/// Whether the bytes from `at` (an instruction boundary) are alignment
/// padding rather than a truncated instruction: the 8 zero bytes that
/// round code ending in a compacted instruction up to 16 bytes. IGC pads DG2
/// kernels to 64 bytes, which leaves exactly that after a compacted last
/// instruction; iga64 skips them with a warning ("unexpected padding at end
/// of kernel"). Code is a multiple of 8 bytes, so no other short tail is
/// padding, and the 965 (no compaction) has none.
pub fn is_padding(platform: IsaGen, bytes: &[u8], at: usize) -> bool {
    let rest = bytes.get(at..).unwrap_or(&[]);
    platform != IsaGen::Gen4 && at > 0 && rest.len() == 8 && rest.iter().all(|&b| b == 0)
}

/// Iterator over the instructions of a kernel; stops after the first error.
pub struct KernelIter<'a> {
    platform: IsaGen,
    bytes: &'a [u8],
    offset: usize,
    failed: bool,
}

impl<'a> KernelIter<'a> {
    pub fn new(platform: IsaGen, bytes: &'a [u8]) -> Self {
        KernelIter {
            platform,
            bytes,
            offset: 0,
            failed: false,
        }
    }
}

impl Iterator for KernelIter<'_> {
    type Item = Result<Entry, KernelError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.offset >= self.bytes.len() {
            return None;
        }
        if is_padding(self.platform, self.bytes, self.offset) {
            return None;
        }
        let item = decode_at(self.platform, self.bytes, self.offset);
        match &item {
            Ok(e) => self.offset += e.size(),
            Err(_) => self.failed = true,
        }
        Some(item)
    }
}

/// Decodes every instruction of `bytes`.
pub fn decode_kernel(platform: IsaGen, bytes: &[u8]) -> Result<Vec<Entry>, KernelError> {
    KernelIter::new(platform, bytes).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{encode, to_dwords};
    use crate::inst::{Alu, Body, Dst, GroupCtrl, Opcode, RegSrc, Src, Type};

    /// add (8) rD<1>:f rS<8;8,1>:f rS+1<8;8,1>:f, which every table compacts.
    fn add(dst: u8, src: u8) -> Instruction {
        let body = Body::Alu(Alu {
            dst: Dst::grf(dst, 0, Type::F),
            src0: Src::Reg(RegSrc::grf(src, 0, Type::F, 8, 8, 1)),
            src1: Src::Reg(RegSrc::grf(src + 1, 0, Type::F, 8, 8, 1)),
        });
        Instruction::new(
            Opcode::Add,
            8,
            GroupCtrl::Quarter { qtr: 0, nib: false },
            body,
        )
    }

    fn for_gen(p: IsaGen, mut i: Instruction) -> Instruction {
        if p == IsaGen::G45 {
            i.group = GroupCtrl::Compression(crate::inst::Compression::None);
        }
        i
    }

    fn bytes_of(dwords: &[u32]) -> Vec<u8> {
        dwords.iter().flat_map(|d| d.to_le_bytes()).collect()
    }

    #[test]
    fn native_and_compact_entries_with_offsets() {
        for p in [IsaGen::G45, IsaGen::Gen6, IsaGen::Gen7, IsaGen::Gen75] {
            let (x, y) = (for_gen(p, add(1, 2)), for_gen(p, add(3, 4)));
            let a = to_dwords(encode(p, &x).unwrap());
            let b = to_dwords(encode(p, &y).unwrap());
            let c = compact::compact(p, b).expect("a plain SIMD8 add compacts");
            let bytes = bytes_of(&[a[0], a[1], a[2], a[3], c[0], c[1], a[0], a[1], a[2], a[3]]);
            let entries = decode_kernel(p, &bytes).unwrap();
            let got: Vec<_> = entries
                .iter()
                .map(|e| (e.offset, e.compacted, e.inst))
                .collect();
            assert_eq!(got, [(0, false, x), (16, true, y), (24, false, x)], "{p}");
            assert_eq!(decode_at(p, &bytes, 16).map(|e| e.size()), Ok(8));
        }
    }

    #[test]
    fn errors_carry_offsets() {
        let p = IsaGen::Gen7;
        let a = to_dwords(encode(p, &add(1, 2)).unwrap());
        let mut bytes = bytes_of(&a);
        bytes.extend_from_slice(&[0x01u8; 12]);
        let err = decode_kernel(p, &bytes).unwrap_err();
        assert_eq!(
            err,
            KernelError {
                offset: 16,
                kind: KernelErrorKind::Truncated {
                    needed: 16,
                    left: 12
                }
            }
        );
        let mut bad = bytes_of(&a);
        bad.extend_from_slice(&bytes_of(&[0x7F, 0, 0, 0])); // opcode 0x7F is undefined
        let err = decode_kernel(p, &bad).unwrap_err();
        assert_eq!(
            err,
            KernelError {
                offset: 16,
                kind: KernelErrorKind::Decode(DecodeError::UnknownOpcode { code: 0x7F })
            }
        );
        // 8 zero bytes after an instruction are padding; 12 are not.
        let mut padded = bytes_of(&a);
        padded.extend_from_slice(&[0u8; 8]);
        assert_eq!(decode_kernel(p, &padded).map(|e| e.len()), Ok(1));
        padded.extend_from_slice(&[0u8; 4]);
        assert!(decode_kernel(p, &padded).is_err());
        // A compact three-source word has no expansion.
        let mut bad = bytes_of(&a);
        bad.extend_from_slice(&bytes_of(&[0x5B | 1 << 29, 0]));
        let err = decode_kernel(p, &bad).unwrap_err();
        assert_eq!(err.offset, 16);
        assert!(matches!(err.kind, KernelErrorKind::Compact(_)));
        // The iterator stops after the error.
        assert_eq!(KernelIter::new(p, &bad).count(), 2);
        assert!(decode_at(p, &bad, 1000).is_err());
    }

    #[test]
    fn gen4_has_no_compact_form() {
        // Bit 29 is reserved on the original Gen4: a native decode error.
        let bytes = bytes_of(&[0x7E | 1 << 29, 0, 0, 0]);
        let err = decode_kernel(IsaGen::Gen4, &bytes).unwrap_err();
        assert!(matches!(
            err.kind,
            KernelErrorKind::Decode(DecodeError::ReservedBits { .. })
        ));
        let bytes = bytes_of(&[0x7E, 0, 0, 0]);
        assert_eq!(decode_kernel(IsaGen::Gen4, &bytes).map(|v| v.len()), Ok(1));
    }
}
