//! A field-by-field model of how Mesa's Gen4-Gen7.5 EU emitter fills an
//! instruction word (src/intel/compiler/elk/elk_eu_emit.c, formerly
//! brw_eu_emit.c). Field positions come from our tables (checked against
//! the oracles elsewhere); which value goes into which field, including the
//! fields hardware ignores, follows the Mesa function each helper names.

use baregpu_isa::IsaGen;
use baregpu_isa::tables::{self, Bits, Fields, SendLayout};

/// Register file codes (elk_eu_defines.h ELK_*_REGISTER_FILE).
pub const ARF: u32 = 0;
pub const GRF: u32 = 1;
pub const MRF: u32 = 2;
pub const IMM: u32 = 3;

/// Hardware type codes, Gen4-Gen7.5 (Mesa elk_reg_type.c gfx4 table):
/// registers UD D UW W UB B DF F, immediates UD D UW W UV VF V F.
pub const UD: u32 = 0;
pub const D: u32 = 1;
pub const UW: u32 = 2;
pub const W: u32 = 3;
pub const UV: u32 = 4;
pub const VF: u32 = 5;
pub const V: u32 = 6;
pub const F: u32 = 7;

/// Region codes: vstride 0,1,2,4,8 = 0,1,2,3,4; width 1,2,4,8,16 = 0..4;
/// hstride 0,1,2,4 = 0..3.
pub const XYZW: u32 = 0xE4;
pub const XXXX: u32 = 0x00;

/// An `elk_reg` reduced to the fields the emitter writes.
#[derive(Clone, Copy, Debug)]
pub struct Reg {
    pub file: u32,
    pub ty: u32,
    pub nr: u32,
    /// Bytes.
    pub subnr: u32,
    pub vstride: u32,
    pub width: u32,
    pub hstride: u32,
    pub swizzle: u32,
    pub writemask: u32,
    pub negate: bool,
    pub abs: bool,
    pub imm: u32,
}

impl Reg {
    /// elk_vec8_reg: <8;8,1>, .xyzw.
    pub const fn vec8(file: u32, nr: u32, ty: u32) -> Reg {
        Reg {
            file,
            ty,
            nr,
            subnr: 0,
            vstride: 4,
            width: 3,
            hstride: 1,
            swizzle: XYZW,
            writemask: 0xF,
            negate: false,
            abs: false,
            imm: 0,
        }
    }

    /// vec1(): <0;1,0>.
    pub const fn vec1(mut self) -> Reg {
        self.vstride = 0;
        self.width = 0;
        self.hstride = 0;
        self
    }

    pub const fn sub(mut self, bytes: u32) -> Reg {
        self.subnr = bytes;
        self
    }

    pub const fn swz(mut self, s: u32) -> Reg {
        self.swizzle = s;
        self
    }

    pub const fn wm(mut self, m: u32) -> Reg {
        self.writemask = m;
        self
    }

    pub const fn neg(mut self) -> Reg {
        self.negate = true;
        self
    }
}

pub const fn grf(nr: u32, ty: u32) -> Reg {
    Reg::vec8(GRF, nr, ty)
}

pub const fn mrf(nr: u32, ty: u32) -> Reg {
    Reg::vec8(MRF, nr, ty)
}

/// elk_null_reg: ARF null, F, vec8.
pub const fn null() -> Reg {
    Reg::vec8(ARF, 0, F)
}

pub const fn null_t(ty: u32) -> Reg {
    Reg::vec8(ARF, 0, ty)
}

/// elk_ip_reg: ARF ip, UD, <4;1,0> (elk_reg.h).
pub const fn ip() -> Reg {
    Reg {
        vstride: 3,
        width: 0,
        hstride: 0,
        ..Reg::vec8(ARF, 0xA0, UD)
    }
}

/// elk_imm_reg: a vec1 immediate.
pub const fn imm(ty: u32, bits: u32) -> Reg {
    Reg {
        imm: bits,
        ..Reg::vec8(IMM, 0, ty).vec1()
    }
}

pub const fn imm_f(v: f32) -> Reg {
    imm(F, v.to_bits())
}

pub const fn imm_d(v: i32) -> Reg {
    imm(D, v as u32)
}

pub const fn imm_ud(v: u32) -> Reg {
    imm(UD, v)
}

/// elk_imm_w: the word replicated in both halves.
pub const fn imm_w(v: i16) -> Reg {
    imm(W, (v as u16 as u32) | (v as u16 as u32) << 16)
}

/// The instruction being emitted.
pub struct Insn {
    pub p: IsaGen,
    pub f: &'static Fields,
    pub w: u128,
    pub align16: bool,
}

pub fn set(w: &mut u128, b: Bits, v: u32) {
    let v = u128::from(v) & (b.mask() >> b.lo);
    *w = (*w & !b.mask()) | v << b.lo;
}

impl Insn {
    /// elk_next_insn + elk_inst_set_state: opcode, exec size and the
    /// default state (Align1, no mask, no predicate, flag f0.0).
    pub fn new(p: IsaGen, opcode: u32, exec_code: u32) -> Insn {
        let f = &tables::for_platform(p).fields;
        let mut i = Insn {
            p,
            f,
            w: 0,
            align16: false,
        };
        i.put(f.opcode, opcode);
        i.put(f.exec_size, exec_code);
        i
    }

    pub fn put(&mut self, b: Bits, v: u32) {
        set(&mut self.w, b, v);
    }

    pub fn align16(mut self) -> Insn {
        self.align16 = true;
        let b = self.f.access_mode;
        self.put(b, 1);
        self
    }

    pub fn exec_code(&self) -> u32 {
        ((self.w & self.f.exec_size.mask()) >> self.f.exec_size.lo) as u32
    }

    /// gfx7_convert_mrf_to_grf: Gen7 has no MRF; Mesa uses g112-g127.
    fn mrf_hack(&self, mut r: Reg) -> Reg {
        if self.p >= IsaGen::Gen7 && r.file == MRF {
            r.file = GRF;
            r.nr += 112;
        }
        r
    }

    /// elk_set_dest.
    pub fn dest(&mut self, r: Reg) {
        let r = self.mrf_hack(r);
        let d = self.f.dst;
        self.put(d.file, r.file);
        self.put(d.ty, r.ty);
        self.put(d.nr, r.nr);
        if !self.align16 {
            self.put(d.subnr, r.subnr);
            // "if (dest.hstride == ELK_HORIZONTAL_STRIDE_0) dest.hstride = 1"
            self.put(d.hstride, r.hstride.max(1));
        } else {
            self.put(d.subnr16, r.subnr / 16);
            self.put(d.writemask, r.writemask);
            // "Although Dst.HorzStride is a don't care for Align16, HW needs
            // this to be programmed as 01".
            self.put(d.hstride, 1);
        }
    }

    fn src_regs(&mut self, s: tables::SrcFields, r: Reg) {
        self.put(s.nr, r.nr);
        if !self.align16 {
            self.put(s.subnr, r.subnr);
            if r.width == 0 && self.exec_code() == 0 {
                self.put(s.hstride, 0);
                self.put(s.width, 0);
                self.put(s.vstride, 0);
            } else {
                self.put(s.hstride, r.hstride);
                self.put(s.width, r.width);
                self.put(s.vstride, r.vstride);
            }
        } else {
            self.put(s.subnr16, r.subnr / 16);
            self.put(s.swizzle_lo, r.swizzle & 0xF);
            self.put(s.swizzle_hi, r.swizzle >> 4);
            // vstride 8 is written as 4 in Align16.
            self.put(s.vstride, if r.vstride == 4 { 3 } else { r.vstride });
        }
    }

    /// elk_set_src0: an immediate also sets src1's file to ARF and its type
    /// to a copy of the immediate's type code.
    pub fn src0(&mut self, r: Reg) {
        let r = self.mrf_hack(r);
        let (s0, s1) = (self.f.src0, self.f.src1);
        self.put(s0.file, r.file);
        self.put(s0.ty, r.ty);
        self.put(s0.abs, r.abs as u32);
        self.put(s0.negate, r.negate as u32);
        if r.file == IMM {
            let b = self.f.imm32;
            self.put(b, r.imm);
            self.put(s1.file, ARF);
            self.put(s1.ty, r.ty);
        } else {
            self.src_regs(s0, r);
        }
    }

    /// elk_set_src1.
    pub fn src1(&mut self, r: Reg) {
        let r = self.mrf_hack(r);
        let s1 = self.f.src1;
        self.put(s1.file, r.file);
        self.put(s1.ty, r.ty);
        self.put(s1.abs, r.abs as u32);
        self.put(s1.negate, r.negate as u32);
        if r.file == IMM {
            let b = self.f.imm32;
            self.put(b, r.imm);
        } else {
            self.src_regs(s1, r);
        }
    }

    /// elk_set_desc (+ elk_message_desc, elk_inst_set_sfid): src1 IMM UD,
    /// the descriptor in DW3; Gen4/G45 keep the SFID in the descriptor,
    /// Gen6+ in bits 27:24.
    pub fn desc(&mut self, sfid: u32, mlen: u32, rlen: u32, header: bool, function: u32) {
        let s1 = self.f.src1;
        self.put(s1.file, IMM);
        self.put(s1.ty, UD);
        match self.f.send {
            SendLayout::Gen4 {
                sfid: sb,
                mlen: mb,
                rlen: rb,
                function: fb,
            } => {
                self.put(sb, sfid);
                self.put(mb, mlen);
                self.put(rb, rlen);
                self.put(fb, function);
            }
            SendLayout::Gen6 {
                mlen: mb,
                rlen: rb,
                header: hb,
                function: fb,
            } => {
                let c = self.f.cond_mod;
                self.put(c, sfid);
                self.put(mb, mlen);
                self.put(rb, rlen);
                self.put(hb, header as u32);
                self.put(fb, function);
            }
        }
    }

    pub fn eot(&mut self) {
        let b = self.f.eot;
        self.put(b, 1);
    }

    /// elk_inst_set_base_mrf (Gen4/G45 send: bits 27:24).
    pub fn base_mrf(&mut self, nr: u32) {
        let b = self.f.cond_mod;
        self.put(b, nr);
    }
}
