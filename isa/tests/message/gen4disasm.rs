//! Cross-check against intel-gen4disasm (intel-gpu-tools): it prints the
//! raw fields of the descriptors it knows; they must agree with the typed
//! fields.

use super::*;

/// OWord block size codes (000 line 4568, 003 lines 83698-83706).
fn owords_code(o: OwordBlocks) -> u32 {
    match o {
        OwordBlocks::OneLow => 0,
        OwordBlocks::OneHigh => 1,
        OwordBlocks::Two => 2,
        OwordBlocks::Four => 3,
        OwordBlocks::Eight => 4,
        OwordBlocks::Six => 5,
    }
}

/// Atomic operation codes: Gen6 003 lines 84689-84712, Gen7 [ext: mesa
/// BRW_AOP_*].
fn aop_code(p: IsaGen, op: AtomicOp) -> u32 {
    use AtomicOp::*;
    let gen6 = [
        Add, Sub, Inc, Dec, Umin, Umax, Mov, CmpWr, And, Or, Xor, Imin, Imax,
    ];
    let gen7 = [
        And, Or, Xor, Mov, Inc, Dec, Add, Sub, RevSub, Imax, Imin, Umax, Umin, CmpWr, PreDec,
    ];
    match p {
        Gen6 => gen6.iter().position(|o| *o == op).unwrap() as u32,
        _ => gen7.iter().position(|o| *o == op).unwrap() as u32 + 1,
    }
}

/// The message-specific control field (11:8 Gen4, 12:8 Gen6, 13:8 Gen7)
/// of a typed data-port message, from the manuals' control tables.
fn ctrl(p: IsaGen, op: &DpOp) -> u32 {
    let vls = |v: &Vls| u32::from(v.enable) << 2 | u32::from(v.stride) << 1 | u32::from(v.offset);
    let mask = |m: &Channels| u32::from(!m.0 & 0xF);
    let simd = |s: &SurfaceSimd| match s {
        SurfaceSimd::Simd4x2 => 0,
        SurfaceSimd::Simd16 => 1,
        SurfaceSimd::Simd8 => 2,
    };
    let scatter = |s: &ScatterSimd| if *s == ScatterSimd::Simd16 { 3 } else { 2 };
    match op {
        DpOp::OwordBlockRead { owords, .. }
        | DpOp::OwordBlockWrite { owords, .. }
        | DpOp::UnalignedOwordBlockRead { owords, .. } => owords_code(*owords),
        // Dual block: 00 one OWord, 10 four (003 lines 83913-83918).
        DpOp::OwordDualBlockRead { owords, .. } | DpOp::OwordDualBlockWrite { owords, .. } => {
            2 * u32::from(*owords == DualBlocks::Four)
        }
        DpOp::MediaBlockRead { vls: v, .. }
        | DpOp::MediaBlockWrite { vls: v, .. }
        | DpOp::RtUnormRead { vls: v, .. }
        | DpOp::RtUnormWrite { vls: v, .. } => vls(v),
        DpOp::DwordScatteredRead { simd: s, .. } | DpOp::DwordScatteredWrite { simd: s, .. } => {
            scatter(s)
        }
        DpOp::ByteScatteredRead { simd: s, size, .. }
        | DpOp::ByteScatteredWrite { simd: s, size, .. } => {
            let size = match size {
                ElemSize::Byte => 0,
                ElemSize::Word => 1,
                ElemSize::Dword => 2,
            };
            size << 2 | u32::from(*s == ScatterSimd::Simd16)
        }
        DpOp::UntypedRead {
            simd: s, mask: m, ..
        }
        | DpOp::UntypedWrite {
            simd: s, mask: m, ..
        } => simd(s) << 4 | mask(m),
        DpOp::UntypedAtomic {
            op, simd: s, ret, ..
        } => u32::from(*ret) << 5 | u32::from(*s == SurfaceSimd::Simd8) << 4 | aop_code(p, *op),
        DpOp::TypedRead { slots, mask: m, .. } | DpOp::TypedWrite { slots, mask: m, .. } => {
            u32::from(*slots == Slots::High) << 5 | mask(m)
        }
        DpOp::TypedAtomic { op, slots, ret, .. } => {
            u32::from(*ret) << 5 | u32::from(*slots == Slots::High) << 4 | aop_code(p, *op)
        }
        DpOp::DwordAtomic { op, two_src, .. } => u32::from(*two_src) << 4 | aop_code(p, *op),
        DpOp::Fence { commit, .. } => u32::from(*commit) << 5,
        DpOp::RtWrite {
            mode,
            last,
            slot_hi,
            ..
        } => {
            let m = [
                RtMode::Simd16,
                RtMode::Simd16Rep,
                RtMode::Simd8DualLo,
                RtMode::Simd8DualHi,
                RtMode::Simd8Lo,
                RtMode::Simd8Image,
            ]
            .iter()
            .position(|x| x == mode)
            .unwrap() as u32;
            // Gen4: last RT is bit 11 (000 line 4961); Gen6+: 12, slot group 11.
            if p < Gen6 {
                u32::from(*last) << 3 | m
            } else {
                u32::from(*last) << 4 | u32::from(*slot_hi) << 3 | m
            }
        }
        DpOp::SvbWrite { inc, .. } => {
            u32::from(inc.svbi) << 2
                | u32::from(inc.prims_written) << 1
                | u32::from(inc.storage_needed)
        }
        // Scratch: block size 13:12 (1, 2, 4 registers = 0, 1, 3) and
        // offset bits 11:8 [ext: mesa brw_inst.h scratch_*].
        DpOp::ScratchRead { regs, offset, .. } | DpOp::ScratchWrite { regs, offset, .. } => {
            let size = match regs {
                1 => 0,
                2 => 1,
                _ => 3,
            };
            size << 4 | u32::from(*offset) >> 8
        }
        _ => 0,
    }
}

fn bti(op: &DpOp) -> u32 {
    match *op {
        DpOp::ScratchRead { offset, .. } | DpOp::ScratchWrite { offset, .. } => {
            u32::from(offset) & 0xFF
        }
        DpOp::OwordBlockRead { bti, .. }
        | DpOp::OwordBlockWrite { bti, .. }
        | DpOp::UnalignedOwordBlockRead { bti, .. }
        | DpOp::OwordDualBlockRead { bti, .. }
        | DpOp::OwordDualBlockWrite { bti, .. }
        | DpOp::MediaBlockRead { bti, .. }
        | DpOp::MediaBlockWrite { bti, .. }
        | DpOp::DwordScatteredRead { bti, .. }
        | DpOp::DwordScatteredWrite { bti, .. }
        | DpOp::ByteScatteredRead { bti, .. }
        | DpOp::ByteScatteredWrite { bti, .. }
        | DpOp::UntypedRead { bti, .. }
        | DpOp::UntypedWrite { bti, .. }
        | DpOp::UntypedAtomic { bti, .. }
        | DpOp::TypedRead { bti, .. }
        | DpOp::TypedWrite { bti, .. }
        | DpOp::TypedAtomic { bti, .. }
        | DpOp::DwordAtomic { bti, .. }
        | DpOp::Fence { bti, .. }
        | DpOp::RtWrite { bti, .. }
        | DpOp::RtUnormRead { bti, .. }
        | DpOp::RtUnormWrite { bti, .. }
        | DpOp::SvbWrite { bti, .. }
        | DpOp::AvcLoopFilterRead { bti }
        | DpOp::FlushRenderCache { bti } => bti.into(),
    }
}

/// Message-type code and intel-gen4disasm's name (Gen6 render cache) of a
/// data-port message: Gen4 000 line 4480; Gen6 003 lines 83436-83512; Gen7
/// [ext: mesa GEN7_DATAPORT_RC_*, GEN7_DATAPORT_DC_*; scratch: bit 17 write,
/// 16 DWord, 15 invalidate].
fn dp_type(p: IsaGen, port: DpPort, op: &DpOp) -> (u32, &'static str) {
    use DpOp::*;
    match (p, port, op) {
        (_, DpPort::Read(_), OwordBlockRead { .. }) => (0, ""),
        (_, DpPort::Read(_), OwordDualBlockRead { .. }) => (1, ""),
        (_, DpPort::Read(_), MediaBlockRead { .. }) => (2, ""),
        (_, DpPort::Read(_), DwordScatteredRead { .. }) => (3, ""),
        (_, DpPort::Write, OwordBlockWrite { .. }) => (0, ""),
        (_, DpPort::Write, OwordDualBlockWrite { .. }) => (1, ""),
        (_, DpPort::Write, MediaBlockWrite { .. }) => (2, ""),
        (_, DpPort::Write, DwordScatteredWrite { .. }) => (3, ""),
        (_, DpPort::Write, RtWrite { .. }) => (4, ""),
        (_, DpPort::Write, SvbWrite { .. }) => (5, ""),
        (_, DpPort::Write, FlushRenderCache { .. }) => (7, ""),
        (Gen6, DpPort::SamplerCache, OwordBlockRead { .. }) => (0, ""),
        (Gen6, DpPort::SamplerCache, OwordDualBlockRead { .. }) => (2, ""),
        (Gen6, DpPort::SamplerCache, MediaBlockRead { .. }) => (4, ""),
        (Gen6, DpPort::SamplerCache, UnalignedOwordBlockRead { .. }) => (5, ""),
        (Gen6, DpPort::SamplerCache, DwordScatteredRead { .. }) => (6, ""),
        (Gen6, DpPort::RenderCache, OwordBlockRead { .. }) => (0, "OWORD block read"),
        (Gen6, DpPort::RenderCache, RtUnormRead { .. }) => (1, "RT UNORM read"),
        (Gen6, DpPort::RenderCache, OwordDualBlockRead { .. }) => (2, "OWORD dual block read"),
        (Gen6, DpPort::RenderCache, MediaBlockRead { .. }) => (4, "media block read"),
        (Gen6, DpPort::RenderCache, UnalignedOwordBlockRead { .. }) => {
            (5, "OWORD unaligned block read")
        }
        (Gen6, DpPort::RenderCache, DwordScatteredRead { .. }) => (6, "DWORD scattered read"),
        (Gen6, DpPort::RenderCache, DwordAtomic { .. }) => (7, "DWORD atomic write"),
        (Gen6, DpPort::RenderCache, OwordBlockWrite { .. }) => (8, "OWORD block write"),
        (Gen6, DpPort::RenderCache, OwordDualBlockWrite { .. }) => (9, "OWORD dual block write"),
        (Gen6, DpPort::RenderCache, MediaBlockWrite { .. }) => (10, "media block write"),
        (Gen6, DpPort::RenderCache, DwordScatteredWrite { .. }) => (11, "DWORD scattered write"),
        (Gen6, DpPort::RenderCache, RtWrite { .. }) => (12, "RT write"),
        (Gen6, DpPort::RenderCache, SvbWrite { .. }) => (13, "streamed VB write"),
        (Gen6, DpPort::RenderCache, RtUnormWrite { .. }) => (14, "RT UNORMc write"),
        (_, DpPort::RenderCache, MediaBlockRead { .. }) => (4, ""),
        (_, DpPort::RenderCache, TypedRead { .. }) => (5, ""),
        (_, DpPort::RenderCache, TypedAtomic { .. }) => (6, ""),
        (_, DpPort::RenderCache, Fence { .. }) => (7, ""),
        (_, DpPort::RenderCache, MediaBlockWrite { .. }) => (10, ""),
        (_, DpPort::RenderCache, RtWrite { .. }) => (12, ""),
        (_, DpPort::RenderCache, TypedWrite { .. }) => (13, ""),
        (
            _,
            DpPort::DataCache,
            ScratchRead {
                dword, invalidate, ..
            },
        ) => (u32::from(*dword) << 2 | u32::from(*invalidate) << 1, ""),
        (
            _,
            DpPort::DataCache,
            ScratchWrite {
                dword, invalidate, ..
            },
        ) => (8 | u32::from(*dword) << 2 | u32::from(*invalidate) << 1, ""),
        (_, DpPort::DataCache, _) => {
            let order = [
                "OwordBlockRead",
                "UnalignedOwordBlockRead",
                "OwordDualBlockRead",
                "DwordScatteredRead",
                "ByteScatteredRead",
                "UntypedRead",
                "UntypedAtomic",
                "Fence",
                "OwordBlockWrite",
                "",
                "OwordDualBlockWrite",
                "DwordScatteredWrite",
                "ByteScatteredWrite",
                "UntypedWrite",
            ];
            let name = format!("{op:?}");
            let name = name.split([' ', '{']).next().unwrap().to_string();
            (order.iter().position(|n| *n == name).unwrap() as u32, "")
        }
        _ => panic!("no type code for {p} {port:?} {op:?}"),
    }
}

/// What intel-gen4disasm prints for a message (before "mlen"), from its
/// output format: `-g 4`, `-g 6` and `-g 7` lay the fields out as their
/// generation does; `None` where it prints no fields or decodes another
/// layout (G45, Gen7 URB and sampler cache, Gen7.5 DC1).
fn gen4disasm_says(p: IsaGen, m: &Message) -> Option<String> {
    let flag = |on: bool, w: &str| if on { format!(" {w}") } else { String::new() };
    let sampler_simd = |s: SamplerSimd| match s {
        SamplerSimd::Simd4x2 => 0,
        SamplerSimd::Simd8 => 1,
        SamplerSimd::Simd16 => 2,
    };
    Some(match (p, m) {
        (Gen4, Message::Math(m)) => {
            let names = [
                "inv",
                "log",
                "exp",
                "sqrt",
                "rsq",
                "sin",
                "cos",
                "sincos",
                "pow",
                "intdivmod",
                "intdiv",
                "intmod",
            ];
            let fns = [
                MathFn::Inv,
                MathFn::Log,
                MathFn::Exp,
                MathFn::Sqrt,
                MathFn::Rsq,
                MathFn::Sin,
                MathFn::Cos,
                MathFn::SinCos,
                MathFn::Pow,
                MathFn::IntDivQuotientRemainder,
                MathFn::IntDivQuotient,
                MathFn::IntDivRemainder,
            ];
            let name = names[fns.iter().position(|f| *f == m.function)?];
            format!(
                "math {name}{}{}{}{} mlen",
                flag(m.saturate, "sat"),
                flag(m.signed, "signed"),
                flag(m.scalar, "scalar"),
                flag(m.partial, "partial_precision")
            )
        }
        (Gen4, Message::Sampler(s)) => {
            let ret = match s.ret? {
                ReturnFormat::F32 => "F",
                ReturnFormat::U32 => "UD",
                ReturnFormat::S32 => "D",
            };
            format!("sampler ({}, {}, {ret}) mlen", s.bti, s.sampler)
        }
        (Gen6 | Gen7 | Gen75, Message::Sampler(s)) => {
            let gen6 = [
                SamplerOp::Sample,
                SamplerOp::SampleB,
                SamplerOp::SampleL,
                SamplerOp::SampleC,
                SamplerOp::SampleD,
                SamplerOp::SampleBC,
                SamplerOp::SampleLC,
                SamplerOp::Ld,
                SamplerOp::Gather4,
                SamplerOp::Lod,
                SamplerOp::Resinfo,
                SamplerOp::SampleInfo,
                SamplerOp::SampleKillpix,
            ];
            let gen7 = [
                (16, SamplerOp::Gather4C),
                (17, SamplerOp::Gather4Po),
                (18, SamplerOp::Gather4PoC),
                (20, SamplerOp::SampleDC),
                (29, SamplerOp::LdMcs),
                (30, SamplerOp::Ld2dms),
                (31, SamplerOp::Ld2dss),
            ];
            let ty = match gen6.iter().position(|o| *o == s.op) {
                Some(i) => i as u32,
                None => gen7.iter().find(|(_, o)| *o == s.op)?.0,
            };
            format!(
                "sampler ({}, {}, {ty}, {}) mlen",
                s.bti,
                s.sampler,
                sampler_simd(s.simd)
            )
        }
        (Gen4, Message::DataPort(d)) if matches!(d.port, DpPort::Read(_)) => {
            format!(
                "read ({}, {}, {}) mlen",
                bti(&d.op),
                ctrl(p, &d.op),
                dp_type(p, d.port, &d.op).0
            )
        }
        (Gen4, Message::DataPort(d)) => format!(
            "write ({}, {}, {}, {}) mlen",
            bti(&d.op),
            ctrl(p, &d.op),
            dp_type(p, d.port, &d.op).0,
            u32::from(d.commit)
        ),
        (Gen6, Message::DataPort(d)) if d.port == DpPort::SamplerCache => {
            format!(
                "sampler ({}, {}, {}, 0) mlen",
                bti(&d.op),
                ctrl(p, &d.op),
                dp_type(p, d.port, &d.op).0
            )
        }
        (Gen6, Message::DataPort(d)) if d.port == DpPort::RenderCache => {
            let (ty, name) = dp_type(p, d.port, &d.op);
            format!(
                "render ( {name}, {}, {}, {ty}, {}) mlen",
                bti(&d.op),
                ctrl(p, &d.op),
                u32::from(d.commit)
            )
        }
        (Gen7 | Gen75, Message::DataPort(d)) if d.port == DpPort::RenderCache => {
            format!(
                ", {}, {}, {}) mlen",
                bti(&d.op),
                ctrl(p, &d.op),
                dp_type(p, d.port, &d.op).0
            )
        }
        (Gen7 | Gen75, Message::DataPort(d)) if d.port == DpPort::DataCache => {
            format!(
                "data ({}, {}, {}) mlen",
                bti(&d.op),
                ctrl(p, &d.op),
                dp_type(p, d.port, &d.op).0
            )
        }
        (
            Gen4 | Gen6,
            Message::Urb(UrbMsg::Legacy {
                op,
                offset,
                swizzle,
                allocate,
                used,
                complete,
                ..
            }),
        ) => {
            let op = match (p, op) {
                (Gen4, _) => "",
                (_, UrbOp::Write) => " urb_write",
                (_, UrbOp::FfSync) => " ff_sync",
            };
            let swz = match swizzle {
                UrbSwizzle::None => "",
                UrbSwizzle::Interleave => " interleave",
                UrbSwizzle::Transpose => " transpose",
            };
            format!(
                "urb {offset}{op}{swz}{}{}{} mlen",
                flag(*allocate, "allocate"),
                flag(*used, "used"),
                flag(*complete, "complete")
            )
        }
        (_, Message::Spawner(_)) => "thread_spawner mlen".to_string(),
        _ => return None,
    })
}

/// The message kind a sample stands for: the data-port or sampler
/// operation, the math function.
fn kind_of(m: &Message) -> String {
    let text = m.to_string();
    text.split('(').next().unwrap_or("").to_string()
}

/// Our assembler's text for a send with this raw descriptor.
fn send_text(p: IsaGen, sfid: Sfid, d: &MsgDesc) -> String {
    let code = tables::code_of(&tables::for_platform(p).sfids, sfid).unwrap();
    let (ml, rl, hd, fc) = (
        u32::from(d.mlen),
        u32::from(d.rlen),
        u32::from(d.header),
        d.function,
    );
    match p {
        Gen4 | G45 => format!(
            "send (8|M0) r4:uw m1 r0:ud {code:#x} {:#x}",
            ml << 20 | rl << 16 | fc
        ),
        Gen6 => format!(
            "send (8|M0) r10:ud m2 {code:#x} {:#x}",
            ml << 25 | rl << 20 | hd << 19 | fc
        ),
        _ => format!(
            "send (8|M0) r10:ud r2 {code:#x} {:#x}",
            ml << 25 | rl << 20 | hd << 19 | fc
        ),
    }
}

#[test]
fn intel_gen4disasm_prints_the_same_fields() {
    crate::common::ensure_oracles();
    let dir = crate::common::scratch("message");
    let mut rng = crate::common::Rng::new(0x5EED);
    let mut compared = std::collections::HashSet::new();
    for (p, tool_gen) in [(Gen4, 4), (Gen6, 6), (Gen7, 7), (Gen75, 7)] {
        let mut cases = Vec::new();
        for sfid in sfids(p) {
            // Up to 6 of each message kind, so rare kinds are compared too.
            let mut per_kind = std::collections::HashMap::new();
            for _ in 0..300_000 {
                let fc = (rng.next() as u32) & ((1 << width(p)) - 1);
                let mlen = 1 + rng.below(15) as u8;
                let d = desc(mlen, rng.below(9) as u8, p >= Gen6 && rng.chance(2), fc);
                let Ok(m) = decode(p, sfid, &d) else { continue };
                let Some(want) = gen4disasm_says(p, &m) else {
                    continue;
                };
                let n = per_kind.entry(kind_of(&m)).or_insert(0);
                if *n < 6 {
                    *n += 1;
                    cases.push((sfid, d, want, m));
                }
            }
            for (kind, _) in per_kind {
                compared.insert((p, sfid, kind));
            }
        }
        let mut listing = String::new();
        for (sfid, d, _, _) in &cases {
            let bytes = baregpu_isa::text::assemble(p, &send_text(p, *sfid, d)).unwrap();
            let dw: Vec<u32> = bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            listing.push_str(&format!(
                "   {{ {:#010x}, {:#010x}, {:#010x}, {:#010x} }},\n",
                dw[0], dw[1], dw[2], dw[3]
            ));
        }
        let file = dir.join(format!("{p}.txt"));
        std::fs::write(&file, listing).unwrap();
        let out = std::process::Command::new("intel-gen4disasm")
            .arg("-g")
            .arg(tool_gen.to_string())
            .arg(&file)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        // Each send prints two lines; the second describes the message.
        let lines: Vec<&str> = text.lines().collect();
        let targets: Vec<&str> = lines
            .windows(2)
            .filter(|w| w[0].starts_with("send"))
            .map(|w| w[1].trim())
            .collect();
        assert_eq!(targets.len(), cases.len(), "{p}: {text}");
        for ((sfid, d, want, m), line) in cases.iter().zip(&targets) {
            assert!(
                line.contains(want.as_str()),
                "{p} {sfid:?} {:#x} {m:?}\n ours: {want}\n tool: {line}",
                d.function
            );
            assert!(
                line.contains(&format!("mlen {} rlen {}", d.mlen, d.rlen)),
                "{line}"
            );
        }
    }
    // Every message kind the tool decodes was met and compared.
    let kinds = |p, sfid| {
        compared
            .iter()
            .filter(|(q, s, _)| *q == p && *s == sfid)
            .count()
    };
    let want = [
        (Gen4, Sfid::Math, 12),
        (Gen4, Sfid::Sampler, 10),
        (Gen4, Sfid::DataPortRead, 4),
        (Gen4, Sfid::DataPortWrite, 7),
        (Gen4, Sfid::Urb, 1),
        (Gen6, Sfid::Sampler, 13),
        (Gen6, Sfid::DpSamplerCache, 5),
        (Gen6, Sfid::DpRenderCache, 14),
        (Gen6, Sfid::Urb, 2),
        (Gen7, Sfid::Sampler, 18),
        (Gen7, Sfid::DpRenderCache, 7),
        (Gen7, Sfid::DpDataCache, 15),
        (Gen75, Sfid::DpDataCache, 12),
    ];
    for (p, sfid, n) in want {
        assert_eq!(kinds(p, sfid), n, "{p} {sfid:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
