//! Shared by the codec tests: a deterministic generator of valid
//! instructions for each platform, driven by the same tables the codec
//! uses, and a record of which table entries it produced.

#![allow(dead_code)]

use std::collections::HashSet;

use baregpu_isa::IsaGen;
use baregpu_isa::inst::{
    AccessMode, Addr, Alu, Body, Branch, Compression, CondMod, Dst, DstSlot, FlagReg, GroupCtrl,
    Imm, Instruction, Jump, Math, MsgDesc, Opcode, RegFile, RegSrc, Region, Send, SendDesc, Src,
    Swizzle, ThreeSrc, Type, Vacant, WRITEMASK_XYZW,
};
use baregpu_isa::tables::{
    self, GenTables, HSTRIDES, JumpLayout, Layout, SendLayout, VSTRIDES, WIDTHS,
};

/// xorshift64*: small, deterministic, no dependencies.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    pub fn bit(&mut self) -> bool {
        self.next() & 1 != 0
    }

    pub fn word(&mut self) -> u128 {
        u128::from(self.next()) | u128::from(self.next()) << 64
    }

    /// A random present entry of a code table.
    pub fn pick<T: Copy>(&mut self, table: &[Option<T>]) -> T {
        let present: Vec<T> = table.iter().flatten().copied().collect();
        present[self.below(present.len() as u64) as usize]
    }
}

/// What the generated instructions covered, as `Debug` strings.
#[derive(Default)]
pub struct Coverage {
    pub seen: HashSet<String>,
}

impl Coverage {
    fn note(&mut self, what: &str, v: impl std::fmt::Debug) {
        self.seen.insert(format!("{what}:{v:?}"));
    }

    pub fn has(&self, what: &str, v: impl std::fmt::Debug) -> bool {
        self.seen.contains(&format!("{what}:{v:?}"))
    }
}

pub struct Gen<'a> {
    pub p: IsaGen,
    pub t: &'static GenTables,
    pub rng: &'a mut Rng,
    pub cov: &'a mut Coverage,
    align16: bool,
}

impl<'a> Gen<'a> {
    pub fn new(p: IsaGen, rng: &'a mut Rng, cov: &'a mut Coverage) -> Self {
        Gen {
            p,
            t: tables::for_platform(p),
            rng,
            cov,
            align16: false,
        }
    }

    fn file(&mut self, allow_imm: bool) -> RegFile {
        loop {
            let f = self.rng.pick(&self.t.reg_files);
            if allow_imm || f != RegFile::Imm {
                self.cov.note("file", f);
                return f;
            }
        }
    }

    fn ty(&mut self, file: RegFile) -> Type {
        let ty = self.rng.pick(self.t.types_for(file));
        self.cov.note(
            if file == RegFile::Imm {
                "imm_type"
            } else {
                "reg_type"
            },
            ty,
        );
        ty
    }

    fn offset(&mut self) -> i16 {
        if self.align16 {
            (self.rng.below(64) as i16 - 32) * 16
        } else {
            self.rng.below(1024) as i16 - 512
        }
    }

    fn addr(&mut self) -> Addr {
        if self.rng.below(4) == 0 {
            self.cov.note("addr", "indirect");
            Addr::Indirect {
                addr_subnr: self.rng.below(8) as u8,
                offset: self.offset(),
            }
        } else {
            let subnr = if self.align16 {
                self.rng.below(2) as u8 * 16
            } else {
                self.rng.below(32) as u8
            };
            Addr::Direct {
                nr: self.rng.below(256) as u8,
                subnr,
            }
        }
    }

    pub fn dst(&mut self) -> Dst {
        let file = self.file(false);
        let ty = self.ty(file);
        let hstride = self.rng.pick(&HSTRIDES);
        let writemask = if self.align16 {
            self.rng.below(16) as u8
        } else {
            WRITEMASK_XYZW
        };
        Dst {
            file,
            ty,
            addr: self.addr(),
            hstride,
            writemask,
        }
    }

    fn region(&mut self, addr: Addr) -> Region {
        if self.align16 {
            let vstride = self.rng.pick(&VSTRIDES);
            self.cov.note("vstride", vstride);
            return Region::Align16 {
                vstride,
                swizzle: Swizzle(self.rng.below(256) as u8),
            };
        }
        let width = self.rng.pick(&WIDTHS);
        let hstride = self.rng.pick(&HSTRIDES);
        self.cov.note("width", width);
        self.cov.note("hstride", hstride);
        if matches!(addr, Addr::Indirect { .. }) && self.rng.bit() {
            self.cov.note("region", "vxh");
            return Region::VxH { width, hstride };
        }
        let vstride = self.rng.pick(&VSTRIDES);
        self.cov.note("vstride", vstride);
        Region::Align1 {
            vstride,
            width,
            hstride,
        }
    }

    /// A register source of the given file.
    fn reg_src_in(&mut self, file: RegFile) -> RegSrc {
        let ty = self.ty(file);
        let addr = self.addr();
        let region = self.region(addr);
        let (negate, abs) = (self.rng.bit(), self.rng.bit());
        self.cov.note("srcmod", (negate, abs));
        RegSrc {
            file,
            ty,
            addr,
            region,
            negate,
            abs,
        }
    }

    pub fn reg_src(&mut self) -> RegSrc {
        let file = self.file(false);
        self.reg_src_in(file)
    }

    fn imm(&mut self) -> Imm {
        let ty = self.ty(RegFile::Imm);
        Imm {
            ty,
            bits: u64::from(self.rng.next() as u32),
        }
    }

    fn vacant(&mut self) -> Src {
        let file = self.file(true);
        Src::Vacant(Vacant {
            file,
            ty: self.ty(file),
        })
    }

    /// src0/src1 of a one/two-source instruction.
    fn sources(&mut self, opcode: Opcode, flag: &mut FlagReg) -> (Src, Src) {
        match self.rng.below(3) {
            0 => {
                self.cov.note("imm", "src0");
                let imm = if opcode == Opcode::Dim {
                    let bits = self.rng.next();
                    // dim's 64-bit immediate covers the flag fields.
                    flag.subreg = (bits >> 25 & 1) as u8;
                    flag.reg = (bits >> 26 & 1) as u8;
                    Imm { ty: Type::Df, bits }
                } else {
                    self.imm()
                };
                (Src::Imm(imm), self.vacant())
            }
            1 => {
                self.cov.note("imm", "src1");
                (Src::Reg(self.reg_src()), Src::Imm(self.imm()))
            }
            _ => (Src::Reg(self.reg_src()), Src::Reg(self.reg_src())),
        }
    }

    fn raw_src(&mut self) -> Src {
        let file = self.file(true);
        Src::Reg(self.reg_src_in(file))
    }

    fn three_src(&mut self) -> ThreeSrc {
        let types = self.t.three_src_types;
        let pick_ty = |rng: &mut Rng| types.map_or(Type::F, |t| rng.pick(&t));
        let src_ty = pick_ty(self.rng);
        let dst_ty = pick_ty(self.rng);
        self.cov.note("3src_type", (src_ty, dst_ty));
        let file = if self.t.fields.three_src.and_then(|t| t.dst_file).is_some() && self.rng.bit() {
            RegFile::Mrf
        } else {
            RegFile::Grf
        };
        let dst = Dst {
            file,
            ty: dst_ty,
            addr: Addr::Direct {
                nr: self.rng.below(256) as u8,
                subnr: self.rng.below(8) as u8 * 4,
            },
            hstride: 1,
            writemask: self.rng.below(16) as u8,
        };
        let mut src = [Src::Vacant(Vacant {
            file: RegFile::Grf,
            ty: src_ty,
        }); 3];
        for s in &mut src {
            let rep = self.rng.bit();
            *s = Src::Reg(RegSrc {
                file: RegFile::Grf,
                ty: src_ty,
                addr: Addr::Direct {
                    nr: self.rng.below(256) as u8,
                    subnr: self.rng.below(8) as u8 * 4,
                },
                region: Region::Align16 {
                    vstride: if rep { 0 } else { 4 },
                    swizzle: Swizzle(self.rng.below(256) as u8),
                },
                negate: self.rng.bit(),
                abs: self.rng.bit(),
            });
        }
        ThreeSrc { dst, src }
    }

    fn send(&mut self) -> Send {
        let dst = self.dst();
        let src0 = Src::Reg(self.reg_src());
        let gen4 = matches!(self.t.fields.send, SendLayout::Gen4 { .. });
        let desc_imm = self.rng.below(4) != 0;
        self.cov.note("send_desc_imm", desc_imm);
        let desc = if desc_imm {
            let ty = self.ty(RegFile::Imm);
            let (mlen_max, rlen_max, fc_bits) = if gen4 { (16, 16, 16) } else { (16, 32, 19) };
            SendDesc::Imm {
                ty,
                desc: MsgDesc {
                    mlen: self.rng.below(mlen_max) as u8,
                    rlen: self.rng.below(rlen_max) as u8,
                    header: !gen4 && self.rng.bit(),
                    function: (self.rng.next() & ((1 << fc_bits) - 1)) as u32,
                },
            }
        } else {
            SendDesc::Reg(self.reg_src())
        };
        let sfid = if gen4 && !desc_imm {
            None
        } else {
            Some(self.rng.pick(&self.t.sfids))
        };
        self.cov.note("sfid", sfid);
        let base_mrf = gen4.then(|| self.rng.below(16) as u8);
        Send {
            dst,
            src0,
            desc,
            sfid,
            base_mrf,
            eot: self.rng.bit(),
            src1: None,
            ex_desc: None,
        }
    }

    fn jump(&mut self) -> i32 {
        (self.rng.below(1 << 16) as i32 - (1 << 15)) * i32::from(self.t.jump_unit)
    }

    fn branch(&mut self, jl: JumpLayout, opcode: Opcode, flag: &mut FlagReg) -> Branch {
        self.cov.note("jump_layout", jl);
        match jl {
            JumpLayout::Count => Branch {
                dst: DstSlot::Reg(self.dst()),
                src0: self.raw_src(),
                src1: self.vacant(),
                jump: Jump::Count {
                    jump: self.jump(),
                    pop: self.rng.below(16) as u8,
                },
            },
            JumpLayout::DstJip => {
                let file = self.file(true);
                let dst = DstSlot::Vacant(Vacant {
                    file,
                    ty: self.ty(file),
                });
                let (src0, src1) = self.sources(opcode, flag);
                Branch {
                    dst,
                    src0,
                    src1,
                    jump: Jump::Jip { jip: self.jump() },
                }
            }
            JumpLayout::JipUip => Branch {
                dst: DstSlot::Reg(self.dst()),
                src0: self.raw_src(),
                src1: self.vacant(),
                jump: Jump::JipUip {
                    jip: self.jump(),
                    uip: self.jump(),
                },
            },
        }
    }

    /// A random valid instruction with the given opcode.
    pub fn instruction(&mut self, opcode: Opcode) -> Instruction {
        let t = self.t;
        let info = t.opcode_info(opcode).expect("opcode of this platform");
        self.align16 = info.layout == Layout::ThreeSrc || self.rng.bit();
        self.cov.note("align16", self.align16);
        self.cov.note("opcode", opcode);
        let group = match t.compressions {
            Some(c) => GroupCtrl::Compression(self.rng.pick::<Compression>(&c)),
            None => GroupCtrl::Quarter {
                qtr: self.rng.below(4) as u8,
                nib: t.fields.nib_ctrl.is_some() && self.rng.bit(),
            },
        };
        self.cov.note("group", group);
        let exec_size = self.rng.pick(&t.exec_sizes);
        self.cov.note("exec_size", exec_size);
        let mut inst = Instruction::new(
            opcode,
            exec_size,
            group,
            Body::Alu(Alu {
                dst: Dst::null(Type::Ud),
                src0: Src::Reg(RegSrc::null(Type::Ud)),
                src1: Src::Reg(RegSrc::null(Type::Ud)),
            }),
        );
        inst.access_mode = if self.align16 {
            AccessMode::Align16
        } else {
            AccessMode::Align1
        };
        inst.pred_ctrl = self.rng.pick(t.preds(self.align16));
        self.cov.note(
            if self.align16 { "pred16" } else { "pred1" },
            inst.pred_ctrl,
        );
        inst.pred_inv = self.rng.bit();
        inst.thread_ctrl = self.rng.pick(&t.thread_ctrls);
        inst.no_mask = self.rng.bit();
        inst.no_dd_clr = self.rng.bit();
        inst.no_dd_chk = self.rng.bit();
        inst.saturate = self.rng.bit();
        inst.debug = self.rng.bit();
        match t.fields.bit28_meaning {
            tables::Bit28::MaskCtrlEx => inst.mask_ctrl_ex = self.rng.bit(),
            tables::Bit28::AccWrCtrl => inst.acc_wr_ctrl = self.rng.bit(),
            tables::Bit28::Reserved => {}
        }
        let mut flag = FlagReg {
            reg: self.rng.below(u64::from(t.flag_regs)) as u8,
            subreg: self.rng.below(2) as u8,
        };
        inst.cond_mod = match info.layout {
            Layout::Send | Layout::Math => CondMod::None,
            _ => self.rng.pick(&t.cond_mods),
        };
        self.cov.note("cond_mod", inst.cond_mod);
        inst.body = match info.layout {
            Layout::Alu => {
                let dst = self.dst();
                let (src0, src1) = self.sources(opcode, &mut flag);
                Body::Alu(Alu { dst, src0, src1 })
            }
            Layout::Math => {
                let function = self.rng.pick(&t.math_fns);
                self.cov.note("math", function);
                let dst = self.dst();
                let (src0, src1) = self.sources(opcode, &mut flag);
                Body::Math(Math {
                    function,
                    dst,
                    src0,
                    src1,
                })
            }
            Layout::ThreeSrc => Body::ThreeSrc(self.three_src()),
            Layout::Send => Body::Send(self.send()),
            Layout::Branch(jl) => Body::Branch(self.branch(jl, opcode, &mut flag)),
        };
        inst.flag = flag;
        inst
    }
}

/// Instructions covering every opcode of `p`, `per_opcode` each.
pub fn generate(p: IsaGen, per_opcode: usize, seed: u64, cov: &mut Coverage) -> Vec<Instruction> {
    let mut rng = Rng::new(seed ^ (p as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let t = tables::for_platform(p);
    let mut out = Vec::new();
    let mut g = Gen::new(p, &mut rng, cov);
    for info in t.opcodes {
        for _ in 0..per_opcode {
            out.push(g.instruction(info.opcode));
        }
    }
    out
}
