//! [`Instruction`] → 128-bit word. The exact inverse of `decode`: anything
//! decode would represent differently is refused with `NotCanonical`.

use super::Writer;
use crate::error::{EncodeError, Field, Slot};
use crate::generation::IsaGen;
use crate::inst::{
    AccessMode, Addr, Body, Branch, CondMod, Dst, DstSlot, GroupCtrl, Imm, Instruction, Jump,
    Opcode, RegFile, RegSrc, Region, Send, SendDesc, Src, ThreeSrc, Type, Vacant, WRITEMASK_XYZW,
};
use crate::tables::{
    self, Bit28, Bits, GenTables, HSTRIDES, JumpLayout, Layout, SendLayout, SrcFields,
    ThreeSrcFields, VACANT_FILES, VSTRIDE_VXH, VSTRIDES, WIDTHS, code_of,
};

type Result<T> = core::result::Result<T, EncodeError>;

const fn bad(field: Field, value: i64) -> EncodeError {
    EncodeError::Unencodable { field, value }
}

const fn odd(field: Field) -> EncodeError {
    EncodeError::NotCanonical { field }
}

/// Encodes one native instruction for `platform`.
pub fn encode(platform: IsaGen, inst: &Instruction) -> Result<u128> {
    if platform.is_xe() {
        return crate::xehpg::encode(inst);
    }
    let t = tables::for_platform(platform);
    let f = &t.fields;
    let info = t
        .opcode_info(inst.opcode)
        .ok_or(EncodeError::UnknownOpcode {
            opcode: inst.opcode,
        })?;
    if inst.swsb.is_some() {
        return Err(bad(Field::Swsb, 0));
    }
    let align16 = inst.access_mode == AccessMode::Align16;
    let three = match (info.layout, f.three_src) {
        (Layout::ThreeSrc, Some(ts)) => Some(ts),
        _ => None,
    };
    let mut e = Encoder {
        w: Writer::new(),
        t,
        align16,
    };
    let w = &mut e.w;
    w.put(f.opcode, u64::from(info.code), Field::Opcode)?;
    w.flag(f.access_mode, align16);
    w.flag(f.mask_ctrl, inst.no_mask);
    w.flag(f.no_dd_clr, inst.no_dd_clr);
    w.flag(f.no_dd_chk, inst.no_dd_chk);
    match (t.compressions, inst.group) {
        (Some(table), GroupCtrl::Compression(c)) => {
            let code = code_of(&table, c).ok_or(bad(Field::GroupCtrl, 0))?;
            w.put(f.group, u64::from(code), Field::GroupCtrl)?;
        }
        (None, GroupCtrl::Quarter { qtr, nib }) => {
            w.put(f.group, u64::from(qtr), Field::GroupCtrl)?;
            let nib_bits = match three {
                Some(ts) => ts.nib_ctrl,
                None => f.nib_ctrl,
            };
            match nib_bits {
                Some(b) => w.flag(b, nib),
                None if nib => return Err(bad(Field::GroupCtrl, 1)),
                None => {}
            }
        }
        _ => return Err(odd(Field::GroupCtrl)),
    }
    let code = code_of(&t.thread_ctrls, inst.thread_ctrl).ok_or(bad(Field::ThreadCtrl, 0))?;
    w.put(f.thread_ctrl, u64::from(code), Field::ThreadCtrl)?;
    let code = code_of(t.preds(align16), inst.pred_ctrl).ok_or(odd(Field::PredCtrl))?;
    w.put(f.pred_ctrl, u64::from(code), Field::PredCtrl)?;
    w.flag(f.pred_inv, inst.pred_inv);
    let code = code_of(&t.exec_sizes, inst.exec_size)
        .ok_or(bad(Field::ExecSize, i64::from(inst.exec_size)))?;
    w.put(f.exec_size, u64::from(code), Field::ExecSize)?;
    w.flag(f.saturate, inst.saturate);
    w.flag(f.debug, inst.debug);
    let (ex_ok, acc_ok) = match f.bit28_meaning {
        Bit28::Reserved => (false, false),
        Bit28::MaskCtrlEx => (true, false),
        Bit28::AccWrCtrl => (false, true),
    };
    if inst.mask_ctrl_ex && !ex_ok {
        return Err(bad(Field::MaskCtrlEx, 1));
    }
    if inst.acc_wr_ctrl && !acc_ok {
        return Err(bad(Field::AccWrCtrl, 1));
    }
    match f.bit28_meaning {
        Bit28::MaskCtrlEx => w.flag(f.bit28, inst.mask_ctrl_ex),
        Bit28::AccWrCtrl => w.flag(f.bit28, inst.acc_wr_ctrl),
        Bit28::Reserved => {}
    }
    let (reg_bits, subreg_bits) = match three {
        Some(ts) => (ts.flag_reg, ts.flag_subreg),
        None => (f.flag_reg, f.flag_subreg),
    };
    if inst.flag.reg >= t.flag_regs {
        return Err(bad(Field::FlagReg, i64::from(inst.flag.reg)));
    }
    if let Some(b) = reg_bits {
        w.put(b, u64::from(inst.flag.reg), Field::FlagReg)?;
    }
    w.put(subreg_bits, u64::from(inst.flag.subreg), Field::FlagReg)?;
    match info.layout {
        Layout::Send | Layout::Math => {
            if inst.cond_mod != CondMod::None {
                return Err(odd(Field::CondMod));
            }
        }
        _ => {
            let code = code_of(&t.cond_mods, inst.cond_mod).ok_or(bad(Field::CondMod, 0))?;
            w.put(f.cond_mod, u64::from(code), Field::CondMod)?;
        }
    }

    match (info.layout, &inst.body) {
        (Layout::Alu, Body::Alu(a)) => {
            e.dst(&a.dst)?;
            e.sources(inst.opcode, &a.src0, &a.src1)?;
        }
        (Layout::Math, Body::Math(m)) => {
            let code = code_of(&t.math_fns, m.function).ok_or(bad(Field::MathFn, 0))?;
            e.w.put(f.cond_mod, u64::from(code), Field::MathFn)?;
            e.dst(&m.dst)?;
            e.sources(inst.opcode, &m.src0, &m.src1)?;
        }
        (Layout::ThreeSrc, Body::ThreeSrc(ts)) => match three {
            Some(tf) => e.three_src(&tf, ts)?,
            None => return Err(odd(Field::Body)),
        },
        (Layout::Send, Body::Send(s)) => e.send(s)?,
        (Layout::Branch(jl), Body::Branch(b)) => e.branch(jl, inst.opcode, b)?,
        _ => return Err(odd(Field::Body)),
    }
    if inst.opcode == Opcode::Dim {
        check_dim_flag(&e.w, t, inst)?;
    }
    Ok(e.w.word())
}

/// `dim`'s 64-bit immediate covers the flag fields: they must agree.
fn check_dim_flag(w: &Writer, t: &GenTables, inst: &Instruction) -> Result<()> {
    let f = &t.fields;
    let word = w.word();
    let sub = (word >> f.flag_subreg.lo) & 1;
    let reg = f.flag_reg.map_or(0, |b| (word >> b.lo) & 1);
    if sub != u128::from(inst.flag.subreg) || reg != u128::from(inst.flag.reg) {
        return Err(odd(Field::FlagReg));
    }
    Ok(())
}

struct Encoder<'a> {
    w: Writer,
    t: &'a GenTables,
    align16: bool,
}

impl Encoder<'_> {
    fn file(&mut self, b: Bits, file: RegFile, slot: Slot) -> Result<()> {
        let code = code_of(&self.t.reg_files, file).ok_or(bad(Field::File(slot), 0))?;
        self.w.put(b, u64::from(code), Field::File(slot))
    }

    fn ty(&mut self, b: Bits, file: RegFile, ty: Type, slot: Slot) -> Result<()> {
        let code = code_of(self.t.types_for(file), ty).ok_or(bad(Field::Type(slot), 0))?;
        self.w.put(b, u64::from(code), Field::Type(slot))
    }

    fn dst(&mut self, d: &Dst) -> Result<()> {
        let df = self.t.fields.dst;
        if d.file == RegFile::Imm {
            return Err(bad(Field::File(Slot::Dst), 3));
        }
        self.file(df.file, d.file, Slot::Dst)?;
        self.ty(df.ty, d.file, d.ty, Slot::Dst)?;
        let hs = code_of(&HSTRIDES, d.hstride).ok_or(bad(Field::HStride, i64::from(d.hstride)))?;
        self.w.put(df.hstride, u64::from(hs), Field::HStride)?;
        if self.align16 {
            self.w
                .put(df.writemask, u64::from(d.writemask), Field::WriteMask)?;
        } else if d.writemask != WRITEMASK_XYZW {
            return Err(odd(Field::WriteMask));
        }
        let slot = Field::Addr(Slot::Dst);
        match d.addr {
            Addr::Direct { nr, subnr } => {
                self.w.put(df.nr, u64::from(nr), slot)?;
                if self.align16 {
                    self.w
                        .put(df.subnr16, u64::from(sub16(subnr, slot)?), slot)?;
                } else {
                    self.w.put(df.subnr, u64::from(subnr), slot)?;
                }
            }
            Addr::Indirect { addr_subnr, offset } => {
                self.w.flag(df.addr_mode, true);
                self.w.put(df.addr_subnr, u64::from(addr_subnr), slot)?;
                if self.align16 {
                    self.w
                        .signed(df.addr_imm16, i64::from(off16(offset, slot)?), slot)?;
                } else {
                    self.w.signed(df.addr_imm, i64::from(offset), slot)?;
                }
            }
        }
        Ok(())
    }

    /// Register fields of a source; `raw` allows an IMM file (placeholder
    /// slots of branches).
    fn reg_src(&mut self, sf: &SrcFields, s: &RegSrc, slot: Slot, raw: bool) -> Result<()> {
        if s.file == RegFile::Imm && !raw {
            return Err(odd(Field::File(slot)));
        }
        self.file(sf.file, s.file, slot)?;
        self.ty(sf.ty, s.file, s.ty, slot)?;
        self.w.flag(sf.negate, s.negate);
        self.w.flag(sf.abs, s.abs);
        let indirect = matches!(s.addr, Addr::Indirect { .. });
        let rf = Field::Region(slot);
        match (self.align16, s.region) {
            (
                false,
                Region::Align1 {
                    vstride,
                    width,
                    hstride,
                },
            ) => {
                let vs = code_of(&VSTRIDES, vstride).ok_or(bad(rf, i64::from(vstride)))?;
                self.w.put(sf.vstride, u64::from(vs), rf)?;
                self.width_hstride(sf, width, hstride, rf)?;
            }
            (false, Region::VxH { width, hstride }) if indirect => {
                self.w.put(sf.vstride, u64::from(VSTRIDE_VXH), rf)?;
                self.width_hstride(sf, width, hstride, rf)?;
            }
            (true, Region::Align16 { vstride, swizzle }) => {
                let vs = code_of(&VSTRIDES, vstride).ok_or(bad(rf, i64::from(vstride)))?;
                self.w.put(sf.vstride, u64::from(vs), rf)?;
                self.w.put(sf.swizzle_hi, u64::from(swizzle.0 >> 4), rf)?;
                self.w.put(sf.swizzle_lo, u64::from(swizzle.0 & 0xF), rf)?;
            }
            _ => return Err(odd(rf)),
        }
        let af = Field::Addr(slot);
        match s.addr {
            Addr::Direct { nr, subnr } => {
                self.w.put(sf.nr, u64::from(nr), af)?;
                if self.align16 {
                    self.w.put(sf.subnr16, u64::from(sub16(subnr, af)?), af)?;
                } else {
                    self.w.put(sf.subnr, u64::from(subnr), af)?;
                }
            }
            Addr::Indirect { addr_subnr, offset } => {
                self.w.flag(sf.addr_mode, true);
                self.w.put(sf.addr_subnr, u64::from(addr_subnr), af)?;
                if self.align16 {
                    self.w
                        .signed(sf.addr_imm16, i64::from(off16(offset, af)?), af)?;
                } else {
                    self.w.signed(sf.addr_imm, i64::from(offset), af)?;
                }
            }
        }
        Ok(())
    }

    fn width_hstride(&mut self, sf: &SrcFields, width: u8, hstride: u8, rf: Field) -> Result<()> {
        let wc = code_of(&WIDTHS, width).ok_or(bad(rf, i64::from(width)))?;
        let hc = code_of(&HSTRIDES, hstride).ok_or(bad(rf, i64::from(hstride)))?;
        self.w.put(sf.width, u64::from(wc), rf)?;
        self.w.put(sf.hstride, u64::from(hc), rf)
    }

    fn vacant(&mut self, sf: &SrcFields, v: &Vacant, slot: Slot) -> Result<()> {
        self.vacant_head(sf.file, sf.ty, v, slot)
    }

    /// A vacant slot's file and type (see `GenTables::vacant_code`).
    fn vacant_head(&mut self, file: Bits, ty: Bits, v: &Vacant, slot: Slot) -> Result<()> {
        let code = code_of(&VACANT_FILES, v.file).ok_or(bad(Field::File(slot), 0))?;
        self.w.put(file, u64::from(code), Field::File(slot))?;
        let code = self
            .t
            .vacant_code(v.file, v.ty)
            .ok_or(bad(Field::Type(slot), 0))?;
        self.w.put(ty, u64::from(code), Field::Type(slot))
    }

    fn imm(&mut self, sf: &SrcFields, imm: &Imm, opcode: Opcode, slot: Slot) -> Result<()> {
        let f = self.t.fields;
        self.file(sf.file, RegFile::Imm, slot)?;
        if opcode == Opcode::Dim && slot == Slot::Src0 {
            if imm.ty != Type::Df {
                return Err(odd(Field::Type(slot)));
            }
            self.ty(sf.ty, RegFile::Imm, Type::F, slot)?;
            return self.w.put(f.imm64, imm.bits, Field::Imm(slot));
        }
        self.ty(sf.ty, RegFile::Imm, imm.ty, slot)?;
        self.w.put(f.imm32, imm.bits, Field::Imm(slot))
    }

    /// src0/src1 of the one/two-source form.
    fn sources(&mut self, opcode: Opcode, src0: &Src, src1: &Src) -> Result<()> {
        let (s0f, s1f) = (self.t.fields.src0, self.t.fields.src1);
        match src0 {
            Src::Reg(r) => self.reg_src(&s0f, r, Slot::Src0, false)?,
            Src::Imm(i) => self.imm(&s0f, i, opcode, Slot::Src0)?,
            Src::Vacant(_) => return Err(odd(Field::File(Slot::Src0))),
        }
        match (src0, src1) {
            (Src::Imm(_), Src::Vacant(v)) => self.vacant(&s1f, v, Slot::Src1),
            (Src::Imm(_), _) | (_, Src::Vacant(_)) => Err(odd(Field::File(Slot::Src1))),
            (_, Src::Reg(r)) => self.reg_src(&s1f, r, Slot::Src1, false),
            (_, Src::Imm(i)) => self.imm(&s1f, i, opcode, Slot::Src1),
        }
    }

    fn three_src(&mut self, tf: &ThreeSrcFields, ts: &ThreeSrc) -> Result<()> {
        if !self.align16 {
            return Err(odd(Field::AccessMode));
        }
        let d = &ts.dst;
        match (d.file, tf.dst_file) {
            (RegFile::Grf, Some(b)) => self.w.flag(b, false),
            (RegFile::Mrf, Some(b)) => self.w.flag(b, true),
            (RegFile::Grf, None) => {}
            _ => return Err(bad(Field::File(Slot::Dst), 0)),
        }
        self.three_type(tf.dst_type, d.ty, Slot::Dst)?;
        if d.hstride != 1 {
            return Err(odd(Field::HStride));
        }
        self.w
            .put(tf.dst_writemask, u64::from(d.writemask), Field::WriteMask)?;
        let (nr, subnr) = direct(d.addr, Slot::Dst)?;
        self.w
            .put(tf.dst_nr, u64::from(nr), Field::Addr(Slot::Dst))?;
        self.w.put(
            tf.dst_subnr,
            u64::from(sub4(subnr, Slot::Dst)?),
            Field::Addr(Slot::Dst),
        )?;
        let slots = [Slot::Src0, Slot::Src1, Slot::Src2];
        let mut src_ty = None;
        for ((src, sf), slot) in ts.src.iter().zip(tf.src.iter()).zip(slots) {
            let Src::Reg(r) = src else {
                return Err(odd(Field::File(slot)));
            };
            if r.file != RegFile::Grf {
                return Err(bad(Field::File(slot), 0));
            }
            match src_ty {
                None => src_ty = Some(r.ty),
                Some(ty) if ty != r.ty => return Err(odd(Field::Type(slot))),
                Some(_) => {}
            }
            let Region::Align16 { vstride, swizzle } = r.region else {
                return Err(odd(Field::Region(slot)));
            };
            let rep = match vstride {
                0 => true,
                4 => false,
                _ => return Err(odd(Field::Region(slot))),
            };
            let (nr, subnr) = direct(r.addr, slot)?;
            self.w.flag(sf.rep_ctrl, rep);
            self.w
                .put(sf.swizzle, u64::from(swizzle.0), Field::Region(slot))?;
            self.w.put(sf.nr, u64::from(nr), Field::Addr(slot))?;
            self.w
                .put(sf.subnr, u64::from(sub4(subnr, slot)?), Field::Addr(slot))?;
            self.w.flag(sf.negate, r.negate);
            self.w.flag(sf.abs, r.abs);
        }
        self.three_type(tf.src_type, src_ty.unwrap_or(Type::F), Slot::Src0)
    }

    fn three_type(&mut self, b: Option<Bits>, ty: Type, slot: Slot) -> Result<()> {
        match (b, self.t.three_src_types) {
            (Some(b), Some(table)) => {
                let code = code_of(&table, ty).ok_or(bad(Field::Type(slot), 0))?;
                self.w.put(b, u64::from(code), Field::Type(slot))
            }
            _ if ty == Type::F => Ok(()),
            _ => Err(bad(Field::Type(slot), 0)),
        }
    }

    fn send(&mut self, s: &Send) -> Result<()> {
        let f = self.t.fields;
        if s.src1.is_some() || s.ex_desc.is_some() {
            return Err(bad(Field::SplitSend, 0));
        }
        self.dst(&s.dst)?;
        match &s.src0 {
            Src::Reg(r) => self.reg_src(&f.src0, r, Slot::Src0, false)?,
            _ => return Err(bad(Field::File(Slot::Src0), 0)),
        }
        self.w.flag(f.eot, s.eot);
        let desc_sfid = match (&s.desc, f.send) {
            (SendDesc::Imm { ty, desc }, layout) => {
                self.file(f.src1.file, RegFile::Imm, Slot::Src1)?;
                self.ty(f.src1.ty, RegFile::Imm, *ty, Slot::Src1)?;
                match layout {
                    SendLayout::Gen4 {
                        sfid,
                        mlen,
                        rlen,
                        function,
                    } => {
                        if desc.header {
                            return Err(bad(Field::Desc, 1));
                        }
                        self.w.put(mlen, u64::from(desc.mlen), Field::Desc)?;
                        self.w.put(rlen, u64::from(desc.rlen), Field::Desc)?;
                        self.w
                            .put(function, u64::from(desc.function), Field::Desc)?;
                        Some(sfid)
                    }
                    SendLayout::Gen6 {
                        mlen,
                        rlen,
                        header,
                        function,
                    } => {
                        self.w.put(mlen, u64::from(desc.mlen), Field::Desc)?;
                        self.w.put(rlen, u64::from(desc.rlen), Field::Desc)?;
                        self.w.flag(header, desc.header);
                        self.w
                            .put(function, u64::from(desc.function), Field::Desc)?;
                        None
                    }
                }
            }
            (SendDesc::Reg(r), _) => {
                self.reg_src(&f.src1, r, Slot::Src1, false)?;
                None
            }
        };
        let sfid_code = match s.sfid {
            Some(sfid) => Some(code_of(&self.t.sfids, sfid).ok_or(bad(Field::Sfid, 0))?),
            None => None,
        };
        match (f.send, desc_sfid, sfid_code, s.base_mrf) {
            (SendLayout::Gen4 { .. }, Some(bits), Some(code), Some(mrf)) => {
                self.w.put(bits, u64::from(code), Field::Sfid)?;
                self.w.put(f.cond_mod, u64::from(mrf), Field::BaseMrf)
            }
            (SendLayout::Gen4 { .. }, None, None, Some(mrf)) => {
                self.w.put(f.cond_mod, u64::from(mrf), Field::BaseMrf)
            }
            (SendLayout::Gen4 { .. }, _, _, None) => Err(odd(Field::BaseMrf)),
            (SendLayout::Gen4 { .. }, _, _, _) => Err(odd(Field::Sfid)),
            (SendLayout::Gen6 { .. }, _, Some(code), None) => {
                self.w.put(f.cond_mod, u64::from(code), Field::Sfid)
            }
            (SendLayout::Gen6 { .. }, _, None, _) => Err(odd(Field::Sfid)),
            (SendLayout::Gen6 { .. }, _, _, Some(_)) => Err(odd(Field::BaseMrf)),
        }
    }

    fn branch(&mut self, layout: JumpLayout, opcode: Opcode, b: &Branch) -> Result<()> {
        let f = self.t.fields;
        let unit = i32::from(self.t.jump_unit);
        let units = |bytes: i32| -> Result<i64> {
            if bytes % unit != 0 {
                return Err(bad(Field::Jump, i64::from(bytes)));
            }
            Ok(i64::from(bytes / unit))
        };
        match (layout, &b.dst, b.jump) {
            (JumpLayout::Count, DstSlot::Reg(d), Jump::Count { jump, pop }) => {
                self.dst(d)?;
                self.raw_src_and_vacant(&b.src0, &b.src1)?;
                self.w.signed(f.jip, units(jump)?, Field::Jump)?;
                self.w.put(f.pop, u64::from(pop), Field::Jump)
            }
            (JumpLayout::DstJip, DstSlot::Vacant(v), Jump::Jip { jip }) => {
                self.vacant_head(f.dst.file, f.dst.ty, v, Slot::Dst)?;
                self.w.signed(f.dst_jip, units(jip)?, Field::Jump)?;
                self.sources(opcode, &b.src0, &b.src1)
            }
            (JumpLayout::JipUip, DstSlot::Reg(d), Jump::JipUip { jip, uip }) => {
                self.dst(d)?;
                self.raw_src_and_vacant(&b.src0, &b.src1)?;
                self.w.signed(f.jip, units(jip)?, Field::Jump)?;
                self.w.signed(f.uip, units(uip)?, Field::Jump)
            }
            (JumpLayout::Count, _, Jump::Count { .. })
            | (JumpLayout::DstJip, _, Jump::Jip { .. })
            | (JumpLayout::JipUip, _, Jump::JipUip { .. }) => Err(odd(Field::File(Slot::Dst))),
            _ => Err(odd(Field::Jump)),
        }
    }

    /// src0 as encoded and a vacant src1 (DW3 holds the jump).
    fn raw_src_and_vacant(&mut self, src0: &Src, src1: &Src) -> Result<()> {
        let (s0f, s1f) = (self.t.fields.src0, self.t.fields.src1);
        match src0 {
            Src::Reg(r) => self.reg_src(&s0f, r, Slot::Src0, true)?,
            _ => return Err(odd(Field::File(Slot::Src0))),
        }
        match src1 {
            Src::Vacant(v) => self.vacant(&s1f, v, Slot::Src1),
            _ => Err(odd(Field::File(Slot::Src1))),
        }
    }
}

/// Align16 sub-register: 0 or 16 bytes → SubRegNum[4].
fn sub16(subnr: u8, field: Field) -> Result<u8> {
    match subnr {
        0 => Ok(0),
        16 => Ok(1),
        _ => Err(bad(field, i64::from(subnr))),
    }
}

/// Align16 indirect offset: a multiple of 16 → AddrImm[9:4].
fn off16(offset: i16, field: Field) -> Result<i16> {
    if offset % 16 != 0 {
        return Err(bad(field, i64::from(offset)));
    }
    Ok(offset / 16)
}

/// Three-source sub-register: a dword offset.
fn sub4(subnr: u8, slot: Slot) -> Result<u8> {
    if !subnr.is_multiple_of(4) || subnr >= 32 {
        return Err(bad(Field::Addr(slot), i64::from(subnr)));
    }
    Ok(subnr / 4)
}

fn direct(addr: Addr, slot: Slot) -> Result<(u8, u8)> {
    match addr {
        Addr::Direct { nr, subnr } => Ok((nr, subnr)),
        Addr::Indirect { .. } => Err(bad(Field::Addr(slot), 0)),
    }
}
