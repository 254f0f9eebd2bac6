//! 128-bit word → [`Instruction`].

use super::Reader;
use crate::error::{DecodeError, Field, Slot};
use crate::generation::IsaGen;
use crate::inst::{
    AccessMode, Addr, Alu, Body, Branch, Compression, CondMod, Dst, DstSlot, FlagReg, GroupCtrl,
    Imm, Instruction, Jump, Math, MsgDesc, Opcode, RegFile, RegSrc, Region, Send, SendDesc, Src,
    Swizzle, ThreeSrc, Type, Vacant, WRITEMASK_XYZW,
};
use crate::tables::{
    self, Bit28, Bits, DstFields, GenTables, HSTRIDES, JumpLayout, Layout, SendLayout, SrcFields,
    ThreeSrcFields, VACANT_FILES, VSTRIDE_VXH, VSTRIDES, WIDTHS, lookup,
};

type Result<T> = core::result::Result<T, DecodeError>;

const fn reserved(field: Field, value: u32) -> DecodeError {
    DecodeError::Reserved { field, value }
}

/// Decodes one native instruction of `platform`.
pub fn decode(platform: IsaGen, word: u128) -> Result<Instruction> {
    if platform.is_xe() {
        return crate::xehpg::decode(word);
    }
    let t = tables::for_platform(platform);
    let f = &t.fields;
    let mut r = Reader::new(word);
    if let Some(cmpt) = f.cmpt
        && r.flag(cmpt)
    {
        return Err(DecodeError::Compacted);
    }
    let code = r.get(f.opcode) as u8;
    let info = t.opcode(code).ok_or(DecodeError::UnknownOpcode { code })?;
    let align16 = r.flag(f.access_mode);
    let three = match (info.layout, f.three_src) {
        (Layout::ThreeSrc, Some(ts)) => Some(ts),
        _ => None,
    };

    let nib_bits = match three {
        Some(ts) => ts.nib_ctrl,
        None => f.nib_ctrl,
    };
    let group_code = r.get(f.group);
    let group = match t.compressions {
        Some(table) => GroupCtrl::Compression(
            lookup::<Compression>(&table, group_code)
                .ok_or(reserved(Field::GroupCtrl, group_code))?,
        ),
        None => GroupCtrl::Quarter {
            qtr: group_code as u8,
            nib: nib_bits.is_some_and(|b| r.flag(b)),
        },
    };
    let thread_code = r.get(f.thread_ctrl);
    let thread_ctrl =
        lookup(&t.thread_ctrls, thread_code).ok_or(reserved(Field::ThreadCtrl, thread_code))?;
    let pred_code = r.get(f.pred_ctrl);
    let pred_ctrl =
        lookup(t.preds(align16), pred_code).ok_or(reserved(Field::PredCtrl, pred_code))?;
    let exec_code = r.get(f.exec_size);
    let exec_size = lookup(&t.exec_sizes, exec_code).ok_or(reserved(Field::ExecSize, exec_code))?;
    let (mask_ctrl_ex, acc_wr_ctrl) = match f.bit28_meaning {
        Bit28::Reserved => (false, false),
        Bit28::MaskCtrlEx => (r.flag(f.bit28), false),
        Bit28::AccWrCtrl => (false, r.flag(f.bit28)),
    };
    let (flag_reg_bits, flag_subreg_bits) = match three {
        Some(ts) => (ts.flag_reg, ts.flag_subreg),
        None => (f.flag_reg, f.flag_subreg),
    };
    let flag = FlagReg {
        reg: flag_reg_bits.map_or(0, |b| r.get(b) as u8),
        subreg: r.get(flag_subreg_bits) as u8,
    };
    let ctrl_code = r.get(f.cond_mod);
    let cond_mod = match info.layout {
        Layout::Send | Layout::Math => CondMod::None,
        _ => lookup(&t.cond_mods, ctrl_code).ok_or(reserved(Field::CondMod, ctrl_code))?,
    };

    let mut d = Decoder { r, t, align16 };
    let body = match info.layout {
        Layout::Alu => {
            let (dst, src0, src1) = d.alu_operands(info.opcode)?;
            Body::Alu(Alu { dst, src0, src1 })
        }
        Layout::Math => {
            let function =
                lookup(&t.math_fns, ctrl_code).ok_or(reserved(Field::MathFn, ctrl_code))?;
            let (dst, src0, src1) = d.alu_operands(info.opcode)?;
            Body::Math(Math {
                function,
                dst,
                src0,
                src1,
            })
        }
        Layout::ThreeSrc => match three {
            Some(ts) => Body::ThreeSrc(d.three_src(&ts)?),
            None => return Err(DecodeError::UnknownOpcode { code }),
        },
        Layout::Send => Body::Send(d.send(ctrl_code)?),
        Layout::Branch(jl) => Body::Branch(d.branch(jl, info.opcode)?),
    };
    let inst = Instruction {
        opcode: info.opcode,
        exec_size,
        access_mode: if align16 {
            AccessMode::Align16
        } else {
            AccessMode::Align1
        },
        no_mask: d.r.flag(f.mask_ctrl),
        mask_ctrl_ex,
        acc_wr_ctrl,
        no_dd_clr: d.r.flag(f.no_dd_clr),
        no_dd_chk: d.r.flag(f.no_dd_chk),
        group,
        thread_ctrl,
        pred_ctrl,
        pred_inv: d.r.flag(f.pred_inv),
        flag,
        cond_mod,
        saturate: d.r.flag(f.saturate),
        debug: d.r.flag(f.debug),
        swsb: None,
        body,
    };
    d.r.finish()?;
    Ok(inst)
}

struct Decoder<'a> {
    r: Reader,
    t: &'a GenTables,
    align16: bool,
}

impl Decoder<'_> {
    fn file(&mut self, b: Bits, slot: Slot) -> Result<RegFile> {
        let code = self.r.get(b);
        lookup(&self.t.reg_files, code).ok_or(reserved(Field::File(slot), code))
    }

    fn ty(&mut self, b: Bits, file: RegFile, slot: Slot) -> Result<Type> {
        let code = self.r.get(b);
        lookup(self.t.types_for(file), code).ok_or(reserved(Field::Type(slot), code))
    }

    /// A vacant slot's file and type (see `GenTables::vacant_type`).
    fn vacant_head(&mut self, file_bits: Bits, ty_bits: Bits, slot: Slot) -> Result<Vacant> {
        let code = self.r.get(file_bits);
        let file = lookup(&VACANT_FILES, code).ok_or(reserved(Field::File(slot), code))?;
        let code = self.r.get(ty_bits);
        let ty = self
            .t
            .vacant_type(file, code)
            .ok_or(reserved(Field::Type(slot), code))?;
        Ok(Vacant { file, ty })
    }

    /// A register destination (its file may not be IMM).
    fn dst(&mut self) -> Result<Dst> {
        let df: DstFields = self.t.fields.dst;
        let file = self.file(df.file, Slot::Dst)?;
        if file == RegFile::Imm {
            return Err(reserved(Field::File(Slot::Dst), 3));
        }
        let ty = self.ty(df.ty, file, Slot::Dst)?;
        let hs_code = self.r.get(df.hstride);
        let hstride = lookup(&HSTRIDES, hs_code).ok_or(reserved(Field::HStride, hs_code))?;
        let indirect = self.r.flag(df.addr_mode);
        let (addr, writemask) = match (indirect, self.align16) {
            (false, false) => {
                let nr = self.r.get(df.nr) as u8;
                (
                    Addr::Direct {
                        nr,
                        subnr: self.r.get(df.subnr) as u8,
                    },
                    WRITEMASK_XYZW,
                )
            }
            (false, true) => {
                let nr = self.r.get(df.nr) as u8;
                let subnr = self.r.get(df.subnr16) as u8 * 16;
                (Addr::Direct { nr, subnr }, self.r.get(df.writemask) as u8)
            }
            (true, false) => {
                let addr_subnr = self.r.get(df.addr_subnr) as u8;
                let offset = self.r.signed(df.addr_imm) as i16;
                (Addr::Indirect { addr_subnr, offset }, WRITEMASK_XYZW)
            }
            (true, true) => {
                let addr_subnr = self.r.get(df.addr_subnr) as u8;
                let offset = self.r.signed(df.addr_imm16) as i16 * 16;
                (
                    Addr::Indirect { addr_subnr, offset },
                    self.r.get(df.writemask) as u8,
                )
            }
        };
        Ok(Dst {
            file,
            ty,
            addr,
            hstride,
            writemask,
        })
    }

    /// The register fields of a source slot whose file and type are known.
    fn reg_src(&mut self, sf: &SrcFields, slot: Slot, file: RegFile, ty: Type) -> Result<RegSrc> {
        let indirect = self.r.flag(sf.addr_mode);
        let negate = self.r.flag(sf.negate);
        let abs = self.r.flag(sf.abs);
        let vs_code = self.r.get(sf.vstride);
        let region = if self.align16 {
            let vstride =
                lookup(&VSTRIDES, vs_code).ok_or(reserved(Field::Region(slot), vs_code))?;
            let swizzle = self.r.get(sf.swizzle_hi) << 4 | self.r.get(sf.swizzle_lo);
            Region::Align16 {
                vstride,
                swizzle: Swizzle(swizzle as u8),
            }
        } else {
            let w_code = self.r.get(sf.width);
            let width = lookup(&WIDTHS, w_code).ok_or(reserved(Field::Region(slot), w_code))?;
            let hs_code = self.r.get(sf.hstride);
            let hstride =
                lookup(&HSTRIDES, hs_code).ok_or(reserved(Field::Region(slot), hs_code))?;
            if vs_code == VSTRIDE_VXH && indirect {
                Region::VxH { width, hstride }
            } else {
                let vstride =
                    lookup(&VSTRIDES, vs_code).ok_or(reserved(Field::Region(slot), vs_code))?;
                Region::Align1 {
                    vstride,
                    width,
                    hstride,
                }
            }
        };
        let addr = match (indirect, self.align16) {
            (false, false) => Addr::Direct {
                nr: self.r.get(sf.nr) as u8,
                subnr: self.r.get(sf.subnr) as u8,
            },
            (false, true) => Addr::Direct {
                nr: self.r.get(sf.nr) as u8,
                subnr: self.r.get(sf.subnr16) as u8 * 16,
            },
            (true, false) => Addr::Indirect {
                addr_subnr: self.r.get(sf.addr_subnr) as u8,
                offset: self.r.signed(sf.addr_imm) as i16,
            },
            (true, true) => Addr::Indirect {
                addr_subnr: self.r.get(sf.addr_subnr) as u8,
                offset: self.r.signed(sf.addr_imm16) as i16 * 16,
            },
        };
        Ok(RegSrc {
            file,
            ty,
            addr,
            region,
            negate,
            abs,
        })
    }

    /// File and type of a source slot.
    fn src_head(&mut self, sf: &SrcFields, slot: Slot) -> Result<(RegFile, Type)> {
        let file = self.file(sf.file, slot)?;
        let ty = self.ty(sf.ty, file, slot)?;
        Ok((file, ty))
    }

    /// A source kept as encoded whatever its file says (branches whose DW3
    /// holds the jump).
    fn raw_src(&mut self, sf: &SrcFields, slot: Slot) -> Result<Src> {
        let (file, ty) = self.src_head(sf, slot)?;
        Ok(Src::Reg(self.reg_src(sf, slot, file, ty)?))
    }

    /// Only file and type.
    fn vacant(&mut self, sf: &SrcFields, slot: Slot) -> Result<Src> {
        Ok(Src::Vacant(self.vacant_head(sf.file, sf.ty, slot)?))
    }

    /// dst, src0, src1 of the one/two-source form.
    fn alu_operands(&mut self, opcode: Opcode) -> Result<(Dst, Src, Src)> {
        let dst = self.dst()?;
        let (src0, src1) = self.sources(opcode)?;
        Ok((dst, src0, src1))
    }

    /// src0 and src1 of the one/two-source form: an immediate fills DW3,
    /// leaving src1 vacant if it is src0's.
    fn sources(&mut self, opcode: Opcode) -> Result<(Src, Src)> {
        let (s0f, s1f) = (self.t.fields.src0, self.t.fields.src1);
        let (file0, ty0) = self.src_head(&s0f, Slot::Src0)?;
        let src0 = if file0 == RegFile::Imm {
            Src::Imm(self.imm(opcode, ty0)?)
        } else {
            Src::Reg(self.reg_src(&s0f, Slot::Src0, file0, ty0)?)
        };
        if matches!(src0, Src::Imm(_)) {
            return Ok((src0, self.vacant(&s1f, Slot::Src1)?));
        }
        let (file1, ty1) = self.src_head(&s1f, Slot::Src1)?;
        let src1 = if file1 == RegFile::Imm {
            Src::Imm(Imm {
                ty: ty1,
                bits: self.r.get64(self.t.fields.imm32),
            })
        } else {
            Src::Reg(self.reg_src(&s1f, Slot::Src1, file1, ty1)?)
        };
        Ok((src0, src1))
    }

    /// An immediate src0: 32 bits, or `dim`'s 64-bit DF typed F.
    fn imm(&mut self, opcode: Opcode, ty: Type) -> Result<Imm> {
        if opcode == Opcode::Dim {
            if ty != Type::F {
                let code = self.r.get(self.t.fields.src0.ty);
                return Err(reserved(Field::Type(Slot::Src0), code));
            }
            return Ok(Imm {
                ty: Type::Df,
                bits: self.r.get64(self.t.fields.imm64),
            });
        }
        Ok(Imm {
            ty,
            bits: self.r.get64(self.t.fields.imm32),
        })
    }

    fn three_src(&mut self, ts: &ThreeSrcFields) -> Result<ThreeSrc> {
        if !self.align16 {
            return Err(reserved(Field::AccessMode, 0));
        }
        let dst_file = match ts.dst_file {
            Some(b) if self.r.flag(b) => RegFile::Mrf,
            _ => RegFile::Grf,
        };
        let src_ty = self.three_type(ts.src_type, Slot::Src0)?;
        let dst_ty = self.three_type(ts.dst_type, Slot::Dst)?;
        let dst = Dst {
            file: dst_file,
            ty: dst_ty,
            addr: Addr::Direct {
                nr: self.r.get(ts.dst_nr) as u8,
                subnr: self.r.get(ts.dst_subnr) as u8 * 4,
            },
            hstride: 1,
            writemask: self.r.get(ts.dst_writemask) as u8,
        };
        let mut src = [Src::Vacant(Vacant {
            file: RegFile::Grf,
            ty: src_ty,
        }); 3];
        for (s, sf) in src.iter_mut().zip(ts.src.iter()) {
            let rep = self.r.flag(sf.rep_ctrl);
            *s = Src::Reg(RegSrc {
                file: RegFile::Grf,
                ty: src_ty,
                addr: Addr::Direct {
                    nr: self.r.get(sf.nr) as u8,
                    subnr: self.r.get(sf.subnr) as u8 * 4,
                },
                region: Region::Align16 {
                    vstride: if rep { 0 } else { 4 },
                    swizzle: Swizzle(self.r.get(sf.swizzle) as u8),
                },
                negate: self.r.flag(sf.negate),
                abs: self.r.flag(sf.abs),
            });
        }
        Ok(ThreeSrc { dst, src })
    }

    fn three_type(&mut self, b: Option<Bits>, slot: Slot) -> Result<Type> {
        match (b, self.t.three_src_types) {
            (Some(b), Some(table)) => {
                let code = self.r.get(b);
                lookup(&table, code).ok_or(reserved(Field::Type(slot), code))
            }
            _ => Ok(Type::F),
        }
    }

    fn send(&mut self, ctrl_code: u32) -> Result<Send> {
        let f = self.t.fields;
        let dst = self.dst()?;
        let (file0, ty0) = self.src_head(&f.src0, Slot::Src0)?;
        if file0 == RegFile::Imm {
            return Err(reserved(Field::File(Slot::Src0), 3));
        }
        let src0 = Src::Reg(self.reg_src(&f.src0, Slot::Src0, file0, ty0)?);
        let (file1, ty1) = self.src_head(&f.src1, Slot::Src1)?;
        let eot = self.r.flag(f.eot);
        let mut sfid = None;
        let desc = if file1 == RegFile::Imm {
            let desc = match f.send {
                SendLayout::Gen4 {
                    sfid: sfid_bits,
                    mlen,
                    rlen,
                    function,
                } => {
                    let code = self.r.get(sfid_bits);
                    sfid = Some(lookup(&self.t.sfids, code).ok_or(reserved(Field::Sfid, code))?);
                    MsgDesc {
                        mlen: self.r.get(mlen) as u8,
                        rlen: self.r.get(rlen) as u8,
                        header: false,
                        function: self.r.get(function),
                    }
                }
                SendLayout::Gen6 {
                    mlen,
                    rlen,
                    header,
                    function,
                } => MsgDesc {
                    mlen: self.r.get(mlen) as u8,
                    rlen: self.r.get(rlen) as u8,
                    header: self.r.flag(header),
                    function: self.r.get(function),
                },
            };
            SendDesc::Imm { ty: ty1, desc }
        } else {
            SendDesc::Reg(self.reg_src(&f.src1, Slot::Src1, file1, ty1)?)
        };
        let base_mrf = match f.send {
            SendLayout::Gen4 { .. } => Some(ctrl_code as u8),
            SendLayout::Gen6 { .. } => {
                sfid =
                    Some(lookup(&self.t.sfids, ctrl_code).ok_or(reserved(Field::Sfid, ctrl_code))?);
                None
            }
        };
        Ok(Send {
            dst,
            src0,
            desc,
            sfid,
            base_mrf,
            eot,
            src1: None,
            ex_desc: None,
        })
    }

    fn branch(&mut self, layout: JumpLayout, opcode: Opcode) -> Result<Branch> {
        let f = self.t.fields;
        let unit = i32::from(self.t.jump_unit);
        match layout {
            JumpLayout::Count => {
                let dst = DstSlot::Reg(self.dst()?);
                let src0 = self.raw_src(&f.src0, Slot::Src0)?;
                let src1 = self.vacant(&f.src1, Slot::Src1)?;
                let jump = self.r.signed(f.jip) * unit;
                let pop = self.r.get(f.pop) as u8;
                Ok(Branch {
                    dst,
                    src0,
                    src1,
                    jump: Jump::Count { jump, pop },
                })
            }
            JumpLayout::DstJip => {
                let dst = self.vacant_head(f.dst.file, f.dst.ty, Slot::Dst)?;
                let jip = self.r.signed(f.dst_jip) * unit;
                let (src0, src1) = self.sources(opcode)?;
                Ok(Branch {
                    dst: DstSlot::Vacant(dst),
                    src0,
                    src1,
                    jump: Jump::Jip { jip },
                })
            }
            JumpLayout::JipUip => {
                let dst = DstSlot::Reg(self.dst()?);
                let src0 = self.raw_src(&f.src0, Slot::Src0)?;
                let src1 = self.vacant(&f.src1, Slot::Src1)?;
                let jip = self.r.signed(f.jip) * unit;
                let uip = self.r.signed(f.uip) * unit;
                Ok(Branch {
                    dst,
                    src0,
                    src1,
                    jump: Jump::JipUip { jip, uip },
                })
            }
        }
    }
}
