//! Shared helpers of the text and differential tests: a deterministic
//! instruction generator and runners for the external assemblers.
#![allow(dead_code)]

mod g4a;
pub mod xehpg;

use baregpu_isa::IsaGen;
use baregpu_isa::codec::{decode, encode};
use baregpu_isa::inst::*;
use std::path::PathBuf;
use std::process::Command;

/// xorshift64*: deterministic, no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() >> 33) as usize % n.max(1)
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
}

/// Which oracle the instructions must suit (the intersection of what the
/// generation allows and what that tool accepts).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Oracle {
    /// Only our own assembler: every form.
    Ours,
    /// iga64 -p=7p5.
    Iga,
    /// intel-gen4asm.
    Gen4asm,
}

const FLOAT_1: [Opcode; 6] = [
    Opcode::Mov,
    Opcode::Frc,
    Opcode::Rndd,
    Opcode::Rndu,
    Opcode::Rnde,
    Opcode::Rndz,
];
const INT_1: [Opcode; 2] = [Opcode::Mov, Opcode::Not];
const FLOAT_2: [Opcode; 6] = [
    Opcode::Add,
    Opcode::Mul,
    Opcode::Sel,
    Opcode::Cmp,
    Opcode::Cmpn,
    Opcode::Mac,
];
const INT_2: [Opcode; 10] = [
    Opcode::Add,
    Opcode::Mul,
    Opcode::And,
    Opcode::Or,
    Opcode::Xor,
    Opcode::Shl,
    Opcode::Shr,
    Opcode::Asr,
    Opcode::Sel,
    Opcode::Avg,
];
const DP: [Opcode; 5] = [
    Opcode::Dp4,
    Opcode::Dph,
    Opcode::Dp3,
    Opcode::Dp2,
    Opcode::Line,
];
const REGIONS: [(u8, u8, u8); 7] = [
    (8, 8, 1),
    (0, 1, 0),
    (4, 4, 1),
    (16, 8, 2),
    (1, 1, 0),
    (2, 2, 1),
    (8, 4, 2),
];

fn group(p: IsaGen, rng: &mut Rng, exec: u8, o: Oracle) -> GroupCtrl {
    if p < IsaGen::Gen6 {
        return GroupCtrl::Compression(match (exec, rng.below(3)) {
            (8, 1) => Compression::SecHalf,
            (16, _) if o == Oracle::Gen4asm || rng.chance(2) => Compression::Compressed,
            _ => Compression::None,
        });
    }
    match exec {
        8 => GroupCtrl::Quarter {
            qtr: rng.below(4) as u8,
            nib: false,
        },
        16 if o != Oracle::Gen4asm => GroupCtrl::Quarter {
            qtr: rng.pick(&[0, 2]),
            nib: false,
        },
        4 if p >= IsaGen::Gen7 && o != Oracle::Gen4asm => GroupCtrl::Quarter {
            qtr: rng.below(4) as u8,
            nib: rng.chance(2),
        },
        _ => GroupCtrl::Quarter { qtr: 0, nib: false },
    }
}

fn grf_dst(rng: &mut Rng, ty: Type) -> Dst {
    let elems = 32 / ty.size();
    let sub = rng.below(usize::from(elems)) as u8 * ty.size();
    let mut d = Dst::grf(
        1 + rng.below(100) as u8,
        if rng.chance(2) { 0 } else { sub },
        ty,
    );
    if ty.size() < 4 && rng.chance(3) {
        d.hstride = 2;
    }
    d
}

fn grf_src(rng: &mut Rng, ty: Type, mods: bool) -> Src {
    let (v, w, h) = rng.pick(&REGIONS);
    let elems = 32 / ty.size();
    let sub = if rng.chance(2) {
        0
    } else {
        rng.below(usize::from(elems)) as u8 * ty.size()
    };
    let mut r = RegSrc::grf(1 + rng.below(120) as u8, sub, ty, v, w, h);
    if mods {
        r.negate = rng.chance(4);
        r.abs = rng.chance(5);
    }
    Src::Reg(r)
}

fn imm(p: IsaGen, rng: &mut Rng, ty: Type, o: Oracle) -> Imm {
    match ty {
        Type::F => {
            if rng.chance(3) {
                Imm::vector(Type::Vf, rng.next() as u32 & 0x7F7F_7F7F)
            } else {
                Imm::f(rng.pick(&[1.5f32, -2.25, 0.5, 1024.0, 3.0e-5, 0.0, 7.0]))
            }
        }
        Type::D => Imm::d(rng.next() as i32 >> rng.below(31)),
        Type::Ud => Imm::ud(rng.next() as u32 >> rng.below(32)),
        Type::W => {
            if rng.chance(3) {
                Imm::vector(Type::V, rng.next() as u32)
            } else {
                Imm::w(rng.next() as i16)
            }
        }
        Type::Uw => {
            if rng.chance(3) && p >= IsaGen::Gen6 && o != Oracle::Gen4asm {
                Imm::vector(Type::Uv, rng.next() as u32)
            } else {
                Imm::uw(rng.next() as u16)
            }
        }
        _ => Imm::ud(0),
    }
}

/// One random ALU instruction, or `None` for a combination skipped.
fn alu(p: IsaGen, rng: &mut Rng, o: Oracle) -> Instruction {
    let float = rng.chance(2);
    let two = rng.chance(3) || rng.chance(2);
    let mut op = match (float, two) {
        (true, false) => rng.pick(&FLOAT_1),
        (true, true) => rng.pick(&FLOAT_2),
        (false, false) => rng.pick(&INT_1),
        (false, true) => rng.pick(&INT_2),
    };
    if float && two && rng.chance(6) {
        op = rng.pick(&DP);
    }
    let ty = if float {
        Type::F
    } else {
        rng.pick(&[Type::D, Type::Ud, Type::W, Type::Uw])
    };
    let exec = if ty.size() == 4 {
        rng.pick(&[8, 8, 16, 1, 4])
    } else {
        rng.pick(&[8, 16, 16, 1, 4])
    };
    let exec = if op == Opcode::Line || op.mnemonic().starts_with("dp") {
        8
    } else {
        exec
    };
    let dst = grf_dst(rng, ty);
    // Logic operations take no source modifiers in this generator.
    let mods = !matches!(op, Opcode::Not | Opcode::And | Opcode::Or | Opcode::Xor);
    let src0 = grf_src(rng, ty, mods);
    let src1 = if !two {
        Src::Reg(RegSrc::null(Type::Ud))
    } else if rng.chance(3) {
        Src::Imm(imm(p, rng, ty, o))
    } else {
        grf_src(rng, ty, mods)
    };
    let (src0, src1) = if !two && rng.chance(4) && op == Opcode::Mov {
        (
            Src::Imm(imm(p, rng, ty, o)),
            Src::Vacant(Vacant {
                file: RegFile::Arf,
                ty: Type::Ud,
            }),
        )
    } else {
        (src0, src1)
    };
    let mut i = Instruction::new(
        op,
        exec,
        group(p, rng, exec, o),
        Body::Alu(Alu { dst, src0, src1 }),
    );
    let flags = if p >= IsaGen::Gen7 { 2 } else { 1 };
    i.flag = FlagReg {
        reg: rng.below(flags) as u8,
        subreg: rng.below(2) as u8,
    };
    let pred = rng.chance(3) || op == Opcode::Sel;
    if pred {
        i.pred_ctrl = if rng.chance(3) {
            rng.pick(&[
                PredCtrl::AnyV,
                PredCtrl::AllV,
                PredCtrl::Any4H,
                PredCtrl::All8H,
                PredCtrl::Any16H,
            ])
        } else {
            PredCtrl::Normal
        };
        i.pred_inv = rng.chance(3);
    }
    let cond = (matches!(op, Opcode::Cmp | Opcode::Cmpn) || rng.chance(4)) && op != Opcode::Sel;
    if cond {
        i.cond_mod = rng.pick(&[
            CondMod::Z,
            CondMod::Nz,
            CondMod::G,
            CondMod::Ge,
            CondMod::L,
            CondMod::Le,
        ]);
        if float && rng.chance(5) {
            i.cond_mod = CondMod::U;
        }
    }
    if !pred && !cond {
        i.flag = FlagReg::default();
    }
    i.no_mask = rng.chance(4);
    // iga64 drops (sat) on cmp/cmpn/frc without a word; only ours keeps it.
    let sat_ok = o == Oracle::Ours || !matches!(op, Opcode::Cmp | Opcode::Cmpn | Opcode::Frc);
    i.saturate = float && sat_ok && rng.chance(5);
    i.no_dd_clr = rng.chance(8);
    i.no_dd_chk = rng.chance(8);
    i.debug = rng.chance(16);
    i.thread_ctrl = match rng.below(12) {
        0 => ThreadCtrl::Switch,
        1 => ThreadCtrl::Atomic,
        _ => ThreadCtrl::Normal,
    };
    if p >= IsaGen::Gen6 && o != Oracle::Gen4asm {
        i.acc_wr_ctrl = rng.chance(6);
    }
    i
}

/// Gen6+ math.
fn math(p: IsaGen, rng: &mut Rng, o: Oracle) -> Instruction {
    let f = rng.pick(&[
        MathFn::Inv,
        MathFn::Log,
        MathFn::Exp,
        MathFn::Sqrt,
        MathFn::Rsq,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Pow,
        MathFn::Fdiv,
    ]);
    let two = matches!(f, MathFn::Pow | MathFn::Fdiv);
    let (ty, f) = if rng.chance(5) {
        (
            Type::D,
            rng.pick(&[MathFn::IntDivQuotient, MathFn::IntDivRemainder]),
        )
    } else {
        (Type::F, f)
    };
    let two = two || ty == Type::D;
    let r = |rng: &mut Rng| {
        let n = 1 + rng.below(120) as u8;
        Src::Reg(RegSrc::grf(n, 0, ty, 8, 8, 1))
    };
    let src0 = r(rng);
    let src1 = if two {
        r(rng)
    } else {
        Src::Reg(RegSrc::null(Type::Ud))
    };
    let dst = Dst::grf(1 + rng.below(100) as u8, 0, ty);
    let mut i = Instruction::new(
        Opcode::Math,
        8,
        group(p, rng, 8, o),
        Body::Math(Math {
            function: f,
            dst,
            src0,
            src1,
        }),
    );
    i.saturate = ty == Type::F && rng.chance(4) && o != Oracle::Gen4asm;
    if o == Oracle::Gen4asm {
        g4a::controls(p, rng, &mut i);
    }
    i
}

/// A send with an immediate or a0.0 descriptor.
fn send(p: IsaGen, rng: &mut Rng, o: Oracle) -> Instruction {
    let sfids: &[Sfid] = match p {
        IsaGen::Gen4 | IsaGen::G45 => &[
            Sfid::Sampler,
            Sfid::DataPortRead,
            Sfid::Urb,
            Sfid::DataPortWrite,
        ],
        IsaGen::Gen6 => &[
            Sfid::Sampler,
            Sfid::DpRenderCache,
            Sfid::Urb,
            Sfid::DpSamplerCache,
        ],
        _ => &[
            Sfid::Sampler,
            Sfid::DpRenderCache,
            Sfid::Urb,
            Sfid::DpDataCache,
            Sfid::ThreadSpawner,
        ],
    };
    let sfid = rng.pick(sfids);
    let gen4 = p < IsaGen::Gen6;
    let desc = MsgDesc {
        mlen: 1 + rng.below(8) as u8,
        rlen: rng.below(8) as u8,
        header: !gen4 && rng.chance(2),
        function: rng.next() as u32 & if gen4 { 0xFFFF } else { 0x7FFFF },
    };
    let eot = rng.chance(6);
    let desc = if rng.chance(5) && !gen4 {
        SendDesc::Reg(RegSrc::new(
            RegFile::Arf,
            arf::A0,
            0,
            Type::Ud,
            Region::Align1 {
                vstride: 0,
                width: 1,
                hstride: 0,
            },
        ))
    } else {
        SendDesc::Imm { ty: Type::Ud, desc }
    };
    let payload = RegFile::Grf;
    let payload = if p == IsaGen::Gen6 && rng.chance(2) {
        RegFile::Mrf
    } else {
        payload
    };
    let src0 = Src::Reg(RegSrc::new(
        payload,
        1 + rng.below(100) as u8,
        0,
        Type::Ud,
        Region::Align1 {
            vstride: 0,
            width: 1,
            hstride: 0,
        },
    ));
    let dst = if eot {
        Dst::null(Type::Ud)
    } else {
        Dst::grf(1 + rng.below(100) as u8, 0, Type::Ud)
    };
    let op = if rng.chance(3) {
        Opcode::Sendc
    } else {
        Opcode::Send
    };
    let exec = rng.pick(&[8, 16]);
    let body = Body::Send(Send {
        dst,
        src0,
        desc,
        sfid: Some(sfid),
        base_mrf: if gen4 {
            Some(rng.below(15) as u8)
        } else {
            None
        },
        eot,
        src1: None,
        ex_desc: None,
    });
    let mut i = Instruction::new(op, exec, group(p, rng, 8, o), body);
    if rng.chance(4) {
        i.pred_ctrl = PredCtrl::Normal;
    }
    i.no_mask = rng.chance(3);
    i
}

/// Three-source (Gen6+): in the forms IGA expresses unless `Ours`.
fn three(p: IsaGen, rng: &mut Rng, o: Oracle) -> Instruction {
    let op = if p >= IsaGen::Gen7 {
        rng.pick(&[Opcode::Mad, Opcode::Lrp, Opcode::Bfe, Opcode::Bfi2])
    } else {
        rng.pick(&[Opcode::Mad, Opcode::Lrp])
    };
    let ty = match op {
        Opcode::Bfe | Opcode::Bfi2 => rng.pick(&[Type::D, Type::Ud]),
        _ => Type::F,
    };
    let mut src = [Src::Vacant(Vacant {
        file: RegFile::Grf,
        ty,
    }); 3];
    for s in src.iter_mut() {
        let rep = rng.chance(3);
        let swizzle = match o {
            Oracle::Ours if rng.chance(2) => Swizzle(rng.next() as u8),
            // gen4asm: any swizzle on a full source, `.x` on a replicated one.
            Oracle::Gen4asm if rep => Swizzle::XXXX,
            Oracle::Gen4asm => Swizzle(rng.next() as u8),
            _ => Swizzle::XYZW,
        };
        let sub = if rep {
            rng.below(8) as u8 * 4
        } else {
            rng.below(2) as u8 * 16
        };
        *s = Src::Reg(RegSrc {
            file: RegFile::Grf,
            ty,
            addr: Addr::Direct {
                nr: 1 + rng.below(120) as u8,
                subnr: sub,
            },
            region: Region::Align16 {
                vstride: if rep { 0 } else { 4 },
                swizzle,
            },
            // iga64: "source modifier not supported" on bfe/bfi2.
            negate: rng.chance(4) && (ty == Type::F || o == Oracle::Ours),
            abs: rng.chance(5) && ty == Type::F,
        });
    }
    let dsub = if o == Oracle::Gen4asm {
        0
    } else {
        rng.below(2) as u8 * 16
    };
    let mut dst = Dst::grf(1 + rng.below(100) as u8, dsub, ty);
    if o != Oracle::Iga {
        dst.writemask = 1 + rng.below(15) as u8;
    }
    let exec = rng.pick(&[8, 16]);
    let mut i = Instruction::new(
        op,
        exec,
        group(p, rng, exec, o),
        Body::ThreeSrc(ThreeSrc { dst, src }),
    );
    i.access_mode = AccessMode::Align16;
    i.saturate = ty == Type::F && rng.chance(4);
    if o == Oracle::Gen4asm {
        g4a::controls(p, rng, &mut i);
        // It writes no flag fields in a three-source instruction.
        i.flag = FlagReg::default();
    }
    i
}

/// Branches (JIP/UIP) of Gen6/Gen7 with small even offsets.
fn branch(p: IsaGen, rng: &mut Rng, o: Oracle) -> Option<Instruction> {
    let ops: &[Opcode] = match p {
        IsaGen::Gen7 | IsaGen::Gen75 => &[
            Opcode::If,
            Opcode::Else,
            Opcode::Endif,
            Opcode::While,
            Opcode::Break,
            Opcode::Cont,
            Opcode::Halt,
        ],
        _ => return None,
    };
    let op = rng.pick(ops);
    let off = |rng: &mut Rng| (rng.below(64) as i32 - 32) * 16;
    let jip = off(rng);
    let uip = if matches!(op, Opcode::Else | Opcode::Endif | Opcode::While) {
        0
    } else {
        off(rng)
    };
    // iga64 reads a negative numeric UIP as a malformed label ("src1 must be
    // an immediate label"); labels would work, numbers keep lines independent.
    let uip = if o == Oracle::Iga { uip.abs() } else { uip };
    let src = if matches!(op, Opcode::Endif | Opcode::While) {
        (
            Src::Reg(RegSrc::null(Type::Ud)),
            Src::Vacant(Vacant {
                file: RegFile::Imm,
                ty: Type::D,
            }),
        )
    } else {
        (
            Src::Reg(RegSrc::new(
                RegFile::Imm,
                0,
                0,
                Type::W,
                Region::Align1 {
                    vstride: 0,
                    width: 1,
                    hstride: 0,
                },
            )),
            Src::Vacant(Vacant {
                file: RegFile::Arf,
                ty: Type::Ud,
            }),
        )
    };
    let b = Branch {
        dst: DstSlot::Reg(Dst::null(Type::Ud)),
        src0: src.0,
        src1: src.1,
        jump: Jump::JipUip { jip, uip },
    };
    let mut i = Instruction::new(
        op,
        rng.pick(&[8, 16]),
        GroupCtrl::Quarter { qtr: 0, nib: false },
        Body::Branch(b),
    );
    // iga64 drops the predicate of endif (not predicable).
    if rng.chance(3) && op != Opcode::Else && (op != Opcode::Endif || o == Oracle::Ours) {
        i.pred_ctrl = PredCtrl::Normal;
        i.flag.subreg = rng.below(2) as u8;
    }
    Some(i)
}

/// `count` instructions of `p` that encode, suiting `oracle`.
pub fn generate(p: IsaGen, oracle: Oracle, count: usize, seed: u64) -> Vec<Instruction> {
    let mut rng = Rng::new(seed ^ p as u64);
    let mut out = Vec::new();
    let mut tries = 0;
    while out.len() < count && tries < count * 20 {
        tries += 1;
        let kind = rng.below(10);
        let g4 = oracle == Oracle::Gen4asm;
        let inst = match kind {
            0 if p >= IsaGen::Gen6 => math(p, &mut rng, oracle),
            1 if g4 => g4a::send(p, &mut rng),
            1 => send(p, &mut rng, oracle),
            2 if p >= IsaGen::Gen6 => three(p, &mut rng, oracle),
            3 if g4 => g4a::branch(p, &mut rng),
            3 => match branch(p, &mut rng, oracle) {
                Some(i) => i,
                None => continue,
            },
            4 if g4 => g4a::align16(p, &mut rng),
            5 if g4 && rng.chance(3) => g4a::jmpi(p, &mut rng),
            _ => alu(p, &mut rng, oracle),
        };
        // Keep what our codec accepts and decodes back unchanged.
        if let Ok(w) = encode(p, &inst)
            && decode(p, w) == Ok(inst)
        {
            out.push(inst);
        }
    }
    out
}

/// Runs `isa/ensure-oracles.sh`; panics with its message when it fails.
pub fn ensure_oracles() {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ensure-oracles.sh");
    let out = Command::new("sh")
        .arg(&script)
        .output()
        .expect("run ensure-oracles.sh");
    assert!(
        out.status.success(),
        "the EU assembler oracles are not available:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A scratch directory for one test.
pub fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("baregpu-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Formats 16 bytes as four dwords.
pub fn hex(word: u128) -> String {
    let d = baregpu_isa::codec::to_dwords(word);
    format!("{:08x} {:08x} {:08x} {:08x}", d[0], d[1], d[2], d[3])
}

/// Runs iga64 with `args`.
pub fn iga(args: &[&str]) -> std::process::Output {
    Command::new("iga64")
        .args(args)
        .output()
        .expect("run iga64")
}

/// Assembles `lines` with `iga64 -p=<platform>` (`7p5`, `12p71`, ...), dropping the
/// lines it rejects; returns the kept line indices, the bytes, and the rejected
/// lines with iga's reason.
pub fn iga_assemble(
    platform: &str,
    lines: &[String],
    dir: &std::path::Path,
) -> (Vec<usize>, Vec<u8>, Vec<String>) {
    let mut keep: Vec<usize> = (0..lines.len()).collect();
    let mut rejected = Vec::new();
    let (src, out) = (dir.join("in.asm"), dir.join("out.bin"));
    let platform = format!("-p={platform}");
    for _ in 0..400 {
        let text: String = keep.iter().map(|&i| format!("{}\n", lines[i])).collect();
        std::fs::write(&src, text).unwrap();
        let _ = std::fs::remove_file(&out);
        let r = iga(&[
            &platform,
            "-a",
            src.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "-Wnone",
            "-Xno-autocompact",
        ]);
        if r.status.success() {
            return (keep, std::fs::read(&out).unwrap(), rejected);
        }
        let err = String::from_utf8_lossy(&r.stderr).into_owned();
        let mut drop = Vec::new();
        for l in err.lines() {
            if let Some(rest) = l.strip_prefix("line ")
                && let Some((n, msg)) = rest.split_once(':')
                && msg.contains("error")
                && let Ok(n) = n.split('.').next().unwrap_or("").parse::<usize>()
                && n >= 1
                && n <= keep.len()
            {
                drop.push(n - 1);
                rejected.push(format!("{}  -- iga64:{}", lines[keep[n - 1]], msg));
            }
        }
        assert!(
            !drop.is_empty(),
            "iga64 -a failed without naming a line: {err}"
        );
        drop.sort_unstable();
        drop.dedup();
        for d in drop.into_iter().rev() {
            keep.remove(d);
        }
    }
    panic!("iga64 keeps rejecting lines");
}
