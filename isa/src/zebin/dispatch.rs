//! The dispatch Intel's OpenCL runtime (NEO, compute-runtime) gives a zebin
//! kernel on Xe-HP/HPG, as data: the cross-thread data filled from the
//! `payload_arguments`, split into the walker's inline data and the
//! indirect data, the per-thread local IDs when the runtime generates them,
//! where the kernel starts and the walker's thread counts. Facts, from
//! compute-runtime `shared/source/command_container/
//! command_encoder_xehp_and_later.inl` (EncodeDispatchKernel::encode):
//!   - the first min(32, cross-thread size) bytes of the cross-thread data
//!     go into the walker's inline data, the rest into the indirect object
//!     heap at Indirect Data Start Address, followed by the per-thread data
//!     of the whole group when the runtime generates local IDs; Indirect
//!     Data Length is the sum of the two;
//!   - the kernel starts at its ISA + `offset_to_skip_per_thread_data_load`
//!     when the hardware generates local IDs (the prologue that loads them
//!     from the indirect data is skipped), at the ISA otherwise.
//!
//! The kernel's side (IGC vISA PrologEpilog.cpp PayloadLoader; seen in
//! ocloc's DG2 code): it finds the indirect data at r0.0 bits 31:6 + General
//! State Base, reads the cross-thread data past the inline part into the
//! registers after the inline register, and in the skippable prologue reads
//! its per-thread block at `align32(cross-thread) - inline + tid * size`
//! into r1 on, after moving the inline register (r1) to where the hardware
//! would have put it (after the local IDs).

use alloc::string::String;
use alloc::vec::Vec;

use super::Kernel;

/// An argument's value as the runtime passes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgValue {
    /// A buffer's GPU virtual address (stateless pointers and
    /// `buffer_address`).
    Buffer(u64),
    /// A by-value argument's bytes.
    Value(Vec<u8>),
    /// A `__local` pointer argument: bytes of SLM to give it.
    Local(u32),
}

/// Everything a COMPUTE_WALKER for the kernel needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dispatch {
    /// Offset of the first instruction to run in the kernel's code.
    pub start: u32,
    pub simd: u32,
    /// Local ID components the hardware emits (bit 0 X, 1 Y, 2 Z); 0 when
    /// the runtime writes them into the indirect data.
    pub emit_local: u32,
    pub local: [u32; 3],
    pub groups: [u32; 3],
    pub threads_per_group: u32,
    /// The last thread's channels.
    pub execution_mask: u32,
    /// The walker's inline data (8 dwords).
    pub inline: [u32; 8],
    /// The indirect data: cross-thread data past the inline part, then the
    /// per-thread blocks (runtime-generated local IDs).
    pub indirect: Vec<u8>,
    /// Shared local memory bytes (static + `__local` arguments).
    pub slm_bytes: u32,
    pub barriers: u32,
}

/// Whether hardware can generate the local IDs for `local` walked X, Y, Z
/// (004 COMPUTE_WALKER Generate Local ID restriction: at most one
/// dimension not a power of two, and that one walked last).
fn hardware_local_ids(local: [u32; 3]) -> bool {
    // Walk order X, Y, Z: Z is walked last.
    let npot = local.iter().filter(|d| !d.is_power_of_two()).count();
    npot == 0 || (npot == 1 && !local[2].is_power_of_two())
}

/// How many hardware threads a private surface serves on Xe-HPG: the
/// kernel indexes it by the 12-bit hardware thread ID IGC builds from
/// sr0.0 (bits 13:0 less the reserved bits 6 and 3; IGC vc
/// GenXSubtarget.cpp `getThreadIdReservedBits` and
/// `getMaxThreadsNumPerSubDevice`, 1 << 12 for XeHPG). NEO sizes the
/// surface as per-thread size times `computeUnitsUsedForScratch`.
pub const XE_HPG_HW_THREADS: u64 = 1 << 12;

/// Bytes of the private surface `k` needs (0: none).
pub fn private_surface_size(k: &Kernel<'_>) -> u64 {
    u64::from(k.private_per_thread) * XE_HPG_HW_THREADS
}

/// The GPU addresses of the runtime's surfaces a kernel's payload may
/// point at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Surfaces {
    /// The private surface, of [`private_surface_size`] bytes
    /// (`private_base_stateless`).
    pub private: Option<u64>,
    /// The program's constant segment (`const_base`; `Zebin::data`).
    pub constants: Option<u64>,
    /// The program's global segment (`global_base`).
    pub globals: Option<u64>,
}

/// Builds the dispatch of `k` over `global` work-items in groups of
/// `local`, with `args` by argument index and the runtime's `surfaces`;
/// `runtime_local_ids` asks for the runtime-generated local IDs even where
/// hardware could emit them.
pub fn build(
    k: &Kernel<'_>,
    args: &[ArgValue],
    surfaces: Surfaces,
    global: [u32; 3],
    local: [u32; 3],
    runtime_local_ids: bool,
) -> Result<Dispatch, String> {
    use alloc::format;
    if local.contains(&0) || global.contains(&0) {
        return Err(String::from("zero global or local size"));
    }
    if (0..3).any(|d| !global[d].is_multiple_of(local[d])) {
        return Err(String::from("global size not a multiple of the local size"));
    }
    if k.simd == 1 {
        return Err(String::from("SIMD1 kernels are not dispatched here"));
    }
    let groups = [
        global[0] / local[0],
        global[1] / local[1],
        global[2] / local[2],
    ];
    let lws = local[0] * local[1] * local[2];
    if lws > 1024 {
        return Err(format!("local size {lws} above 1024"));
    }
    let threads = lws.div_ceil(k.simd);
    let left = lws - k.simd * (threads - 1);
    let execution_mask = if left >= 32 {
        u32::MAX
    } else {
        (1 << left) - 1
    };
    let size = k.cross_thread_size() as usize;
    // Indirect Data Length is 17 bits (004 COMPUTE_WALKER DW2).
    if size + k.per_thread_size() as usize * threads as usize >= 1 << 17 {
        return Err(format!(
            "payload of {size} bytes and per-thread data too large"
        ));
    }
    let mut ctd = alloc::vec![0u8; size];
    let mut put = |off: u32, len: u32, v: &[u8]| -> Result<(), String> {
        let (o, n) = (off as usize, len as usize);
        let dst = ctd
            .get_mut(o..o + n)
            .ok_or_else(|| format!("payload argument at {o}+{n} past the cross-thread data"))?;
        for (i, b) in dst.iter_mut().enumerate() {
            *b = v.get(i).copied().unwrap_or(0);
        }
        Ok(())
    };
    for (i, v) in args.iter().enumerate() {
        if let (ArgValue::Value(v), Some(need)) = (v, k.value_size(i as u32))
            && v.len() != need as usize
        {
            return Err(format!(
                "argument {i}: {} bytes given, the kernel takes {need} by value",
                v.len()
            ));
        }
    }
    let triple = |v: [u32; 3]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let mut slm = k.slm_size;
    for a in &k.payload {
        let value: Vec<u8> = match a.kind.as_str() {
            "global_id_offset" => triple([0; 3]),
            "local_size" | "enqueued_local_size" => triple(local),
            "global_size" => triple(global),
            "group_count" => triple(groups),
            "work_dimensions" => {
                let dims = if global[2] > 1 {
                    3u32
                } else if global[1] > 1 {
                    2
                } else {
                    1
                };
                dims.to_le_bytes().to_vec()
            }
            "buffer_offset" => alloc::vec![0; 4],
            // A kernel without private memory still lists the base; NEO
            // leaves it unpatched then (no private surface).
            "private_base_stateless" if k.private_per_thread == 0 => alloc::vec![0; 8],
            "private_base_stateless" => match surfaces.private {
                Some(base) => base.to_le_bytes().to_vec(),
                None => {
                    return Err(format!(
                        "private memory ({} bytes per hardware thread) needs a private surface",
                        k.private_per_thread
                    ));
                }
            },
            "const_base" | "global_base" => {
                let (base, what) = if a.kind == "const_base" {
                    (surfaces.constants, "constant")
                } else {
                    (surfaces.globals, "global")
                };
                base.ok_or_else(|| format!("{} needs the program's {what} segment", a.kind))?
                    .to_le_bytes()
                    .to_vec()
            }
            "arg_bypointer" | "buffer_address" | "arg_byvalue" => {
                if a.size == 0 {
                    // Stateful twins of stateless arguments: no bytes.
                    continue;
                }
                let i = a
                    .arg_index
                    .ok_or_else(|| format!("{} without arg_index", a.kind))?
                    as usize;
                match args.get(i) {
                    Some(ArgValue::Buffer(addr)) => addr.to_le_bytes().to_vec(),
                    Some(ArgValue::Value(v)) => {
                        // This entry's piece of the value, which must hold it.
                        let from = a.source_offset as usize;
                        v.get(from..from + a.size as usize)
                            .ok_or_else(|| {
                                format!(
                                    "argument {i}: {} bytes given, the kernel reads {} at {from}",
                                    v.len(),
                                    a.size
                                )
                            })?
                            .to_vec()
                    }
                    Some(ArgValue::Local(bytes)) => {
                        // NEO places local arguments after the kernel's own
                        // SLM, each at its alignment (slm_alignment).
                        let align = a.slm_alignment.unwrap_or(16).max(1);
                        let at = slm.div_ceil(align) * align;
                        slm = at + bytes;
                        at.to_le_bytes().to_vec()
                    }
                    None => return Err(format!("argument {i} not given")),
                }
            }
            other => {
                return Err(format!(
                    "payload argument {other} is not filled by this runner"
                ));
            }
        };
        put(a.offset, a.size, &value)?;
    }
    let channels = k.local_id_channels();
    if channels > 3 {
        return Err(format!("{channels} local ID components (at most 3)"));
    }
    let hw = !runtime_local_ids && hardware_local_ids(local);
    let inline_len = (k.inline_data_payload_size as usize).min(size);
    let mut inline = [0u32; 8];
    for (i, c) in ctd[..inline_len.min(32)].chunks(4).enumerate() {
        let mut b = [0u8; 4];
        b[..c.len()].copy_from_slice(c);
        inline[i] = u32::from_le_bytes(b);
    }
    let mut indirect = ctd[inline_len..].to_vec();
    if !hw && channels > 0 {
        let per = k.per_thread_size() as usize;
        let comp = (k.simd as usize * 2).max(32);
        for t in 0..threads {
            let mut block = alloc::vec![0u8; per];
            for lane in 0..k.simd {
                let n = t * k.simd + lane;
                if n >= lws {
                    break;
                }
                let id = [
                    n % local[0],
                    n / local[0] % local[1],
                    n / (local[0] * local[1]),
                ];
                for (d, v) in id.iter().enumerate().take(channels as usize) {
                    let at = d * comp + 2 * lane as usize;
                    if let Some(dst) = block.get_mut(at..at + 2) {
                        dst.copy_from_slice(&(*v as u16).to_le_bytes());
                    }
                }
            }
            indirect.extend_from_slice(&block);
        }
    }
    Ok(Dispatch {
        start: if hw {
            k.offset_to_skip_per_thread_data_load
        } else {
            0
        },
        simd: k.simd,
        emit_local: if hw { (1 << channels) - 1 } else { 0 },
        local,
        groups,
        threads_per_group: threads,
        execution_mask,
        inline,
        indirect,
        slm_bytes: slm,
        barriers: k.barrier_count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zebin::{PayloadArg, PerThreadArg};
    use alloc::vec;

    fn arg(kind: &str, offset: u32, size: u32, index: Option<u32>) -> PayloadArg {
        PayloadArg {
            kind: String::from(kind),
            offset,
            size,
            arg_index: index,
            addrmode: None,
            addrspace: None,
            slm_alignment: None,
            source_offset: 0,
        }
    }

    fn kernel(simd: u32) -> Kernel<'static> {
        Kernel {
            name: String::from("k"),
            code: &[],
            simd,
            grf_count: 128,
            inline_data_payload_size: 32,
            offset_to_skip_per_thread_data_load: 192,
            barrier_count: 0,
            slm_size: 0,
            required_work_group_size: None,
            work_group_walk_order_dimensions: None,
            payload: vec![
                arg("global_id_offset", 0, 12, None),
                arg("local_size", 12, 12, None),
                arg("arg_bypointer", 32, 8, Some(0)),
                arg("enqueued_local_size", 64, 12, None),
            ],
            per_thread: vec![PerThreadArg {
                kind: String::from("local_id"),
                offset: 0,
                size: 3 * (simd * 2).max(32),
            }],
            private_per_thread: 0,
            scratch: [0; 2],
            other_memory: vec![],
            relocs: vec![],
            bindings: vec![],
        }
    }

    #[test]
    fn inline_takes_the_first_32_bytes_and_the_rest_is_indirect() {
        let k = kernel(16);
        let d = build(
            &k,
            &[ArgValue::Buffer(0x1122_3344_5566_7788)],
            Surfaces::default(),
            [64, 1, 1],
            [32, 1, 1],
            false,
        )
        .unwrap();
        // local_size at bytes 12..24: dwords 3..5 of the inline data.
        assert_eq!(d.inline[3..6], [32, 1, 1]);
        // Cross-thread data 96 bytes (end 76 rounded up to 32), 64 of them
        // indirect: the pointer at 0, enqueued_local_size at 32.
        assert_eq!(d.indirect.len(), 64);
        assert_eq!(d.indirect[..8], 0x1122_3344_5566_7788u64.to_le_bytes());
        assert_eq!(d.indirect[32..36], 32u32.to_le_bytes());
        assert_eq!((d.start, d.emit_local, d.threads_per_group), (192, 7, 2));
        assert_eq!((d.groups, d.execution_mask), ([2, 1, 1], 0xffff));
    }

    #[test]
    fn runtime_local_ids_follow_the_cross_thread_data_per_thread() {
        let k = kernel(16);
        let d = build(
            &k,
            &[ArgValue::Buffer(0)],
            Surfaces::default(),
            [48, 2, 1],
            [12, 2, 1],
            true,
        )
        .unwrap();
        assert_eq!((d.start, d.emit_local), (0, 0));
        // 24 work-items, SIMD16: two threads of 96 bytes after the 64.
        assert_eq!(d.indirect.len(), 64 + 2 * 96);
        let id = |t: usize, comp: usize, lane: usize| {
            let at = 64 + t * 96 + comp * 32 + 2 * lane;
            u16::from_le_bytes([d.indirect[at], d.indirect[at + 1]])
        };
        // Work-item 13 is thread 0 lane 13: x 1, y 1; 20 is thread 1 lane 4.
        assert_eq!((id(0, 0, 13), id(0, 1, 13)), (1, 1));
        assert_eq!((id(1, 0, 4), id(1, 1, 4)), (8, 1));
        assert_eq!(d.execution_mask, 0xff);
    }

    #[test]
    fn bad_sizes_and_missing_arguments_are_errors() {
        let k = kernel(16);
        assert!(build(&k, &[], Surfaces::default(), [64, 1, 1], [32, 1, 1], false).is_err());
        let b = [ArgValue::Buffer(0)];
        assert!(build(&k, &b, Surfaces::default(), [60, 1, 1], [32, 1, 1], false).is_err());
        assert!(build(&k, &b, Surfaces::default(), [64, 1, 1], [0, 1, 1], false).is_err());
        assert!(
            build(
                &k,
                &b,
                Surfaces::default(),
                [2048, 1, 1],
                [2048, 1, 1],
                false
            )
            .is_err()
        );
    }

    /// The private surface's address fills `private_base_stateless`; a
    /// kernel with private memory and no surface is refused, one without
    /// gets 0 (NEO leaves it unpatched).
    #[test]
    fn private_memory_gets_the_surface_base() {
        let mut k = kernel(16);
        k.payload.push(arg("private_base_stateless", 80, 8, None));
        let b = [ArgValue::Buffer(0)];
        let d = build(&k, &b, Surfaces::default(), [32, 1, 1], [32, 1, 1], false).unwrap();
        assert_eq!(&d.indirect[80 - 32..88 - 32], &[0; 8]);
        assert_eq!(private_surface_size(&k), 0);
        k.private_per_thread = 4096;
        assert_eq!(private_surface_size(&k), 4096 << 12);
        assert!(build(&k, &b, Surfaces::default(), [32, 1, 1], [32, 1, 1], false).is_err());
        let d = build(
            &k,
            &b,
            Surfaces {
                private: Some(0x1_2345_6000),
                ..Surfaces::default()
            },
            [32, 1, 1],
            [32, 1, 1],
            false,
        )
        .unwrap();
        assert_eq!(
            &d.indirect[80 - 32..88 - 32],
            &0x1_2345_6000u64.to_le_bytes()
        );
        // The program's segments: refused without them, placed with them.
        k.private_per_thread = 0;
        k.payload.push(arg("const_base", 88, 8, None));
        k.payload.push(arg("global_base", 96, 8, None));
        assert!(build(&k, &b, Surfaces::default(), [32, 1, 1], [32, 1, 1], false).is_err());
        let s = Surfaces {
            constants: Some(0xC000),
            globals: Some(0x6000),
            ..Surfaces::default()
        };
        let d = build(&k, &b, s, [32, 1, 1], [32, 1, 1], false).unwrap();
        assert_eq!(&d.indirect[56..64], &0xC000u64.to_le_bytes());
        assert_eq!(&d.indirect[64..72], &0x6000u64.to_le_bytes());
    }
}
