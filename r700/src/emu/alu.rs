//! ALU clauses: VLIW groups issued to units X, Y, Z, W and Trans (002 lines 1228-1290),
//! every source of every slot read before any result is written (002 lines 2030-2080),
//! then GPRs, PV (the vector results) and PS (the Trans result) replaced.

use alloc::vec;
use alloc::vec::Vec;

use super::float::{self, CONST_OOB, NAN64, b, f};
use super::ops::{self, Kind, Lane};
use super::{EmuError, Memory, Options};
use crate::alu::{AluForm, AluGroup, AluInst, Src, sel};

const TRANS: usize = 4;

/// Trans-only opcodes (002 table 4.6, lines 1926-1962): transcendentals, conversions, the
/// 32-bit multiplies and integer reciprocals, MUL_LIT. The shifts (112-114) are in table
/// 4.4, any unit.
fn trans_only(form: &AluForm) -> bool {
    match *form {
        AluForm::Op2 { opcode, .. } => matches!(opcode, 97..=111 | 115..=121),
        AluForm::Op3 { opcode, .. } => matches!(opcode, 12..=15),
    }
}

/// Vector-only opcodes (table 4.5, lines 1880-1925): MOVA*, reductions, double precision.
/// Table 4.5 also lists ADD_INT, which Mesa's r600_isa.c R700 column allows in any unit.
fn vector_only(form: &AluForm) -> bool {
    match *form {
        AluForm::Op2 { opcode, .. } => matches!(
            opcode,
            7 | 21 | 22 | 23 | 24 | 27 | 28 | 29 | 80..=83 | 96 | 122..=126
        ),
        AluForm::Op3 { opcode, .. } => matches!(opcode, 8..=11),
    }
}

fn op2(i: &AluInst) -> Option<u16> {
    match i.form {
        AluForm::Op2 { opcode, .. } => Some(opcode),
        AluForm::Op3 { .. } => None,
    }
}

/// Double-precision ops in two slots (XY or ZW) and in four.
fn dp2(op: u16) -> bool {
    matches!(op, 23 | 28 | 29 | 122..=126)
}

fn dp4(i: &AluInst) -> bool {
    match i.form {
        AluForm::Op2 { opcode, .. } => matches!(opcode, 7 | 27),
        AluForm::Op3 { opcode, .. } => matches!(opcode, 8..=11),
    }
}

fn reduction(op: u16) -> bool {
    matches!(op, 80..=83)
}

/// The unit of each instruction (002 lines 1249-1290).
fn assign(insts: &[AluInst], prefer_vector: bool) -> Result<Vec<usize>, &'static str> {
    let mut taken = [false; 5];
    let mut units = Vec::with_capacity(insts.len());
    for i in insts {
        let elem = i.dst_chan as usize;
        let unit = if trans_only(&i.form) {
            TRANS
        } else if vector_only(&i.form) {
            if taken[elem] {
                return Err("a vector-only instruction's unit is already taken");
            }
            elem
        } else if taken[elem] || (i.last && !prefer_vector && !taken[TRANS]) {
            TRANS
        } else {
            elem
        };
        if taken[unit] {
            return Err("more than one instruction for the Trans unit");
        }
        taken[unit] = true;
        units.push(unit);
    }
    Ok(units)
}

/// Per-clause state of one wavefront.
pub struct ClauseState {
    pub pv: Vec<[u32; 4]>,
    pub ps: Vec<u32>,
    pub ar: Vec<[i32; 4]>,
    pub pred: Vec<bool>,
    /// UPDATE_EXEC_MASK results, applied when the clause returns to CF (002 lines 1030-1034).
    pub exec_update: Vec<Option<bool>>,
    pub killed: Vec<bool>,
    /// Clause temporaries: GPRs 128-K..127, private to the clause (002 lines 610-619).
    pub temps: Vec<[u32; 4]>,
}

/// What a clause reads besides GPRs: the options (cfile) and the kcache windows, read from
/// the constant buffers when the clause starts (the lines CF_ALU locks, 002 lines 7715-7775).
pub struct Consts<'a> {
    pub opts: &'a Options,
    /// Per window, its 32 constants; `None` outside the locked lines.
    pub kcache: [[Option<[u32; 4]>; 32]; 2],
    pub loop_index: i32,
}

impl<'a> Consts<'a> {
    pub fn new(
        opts: &'a Options,
        mem: &Memory,
        bank: [u8; 2],
        mode: [u8; 2],
        addr: [u8; 2],
        loop_index: i32,
    ) -> Self {
        let mut kcache = [[None; 32]; 2];
        for w in 0..2 {
            // LOCK_1: one line of 16 constants, LOCK_2: two, LOCK_LOOP_INDEX: two lines from
            // ADDR + aL/16 (002 lines 7715-7775).
            let (lines, first) = match mode[w] {
                1 => (1, addr[w] as i64),
                2 => (2, addr[w] as i64),
                3 => (2, addr[w] as i64 + (loop_index as i64).div_euclid(16)),
                _ => (0, 0),
            };
            let cb = opts.const_buffers[bank[w] as usize & 15];
            for (idx, slot) in kcache[w].iter_mut().enumerate().take(16 * lines) {
                let byte = (first * 16 + idx as i64) * 16;
                let mut v = [0u32; 4];
                // A constant past the buffer's size (or an unbound buffer) reads 0.
                if let Some(cb) = cb
                    && byte >= 0
                    && byte as u64 + 16 <= cb.size as u64
                {
                    for (c, o) in v.iter_mut().enumerate() {
                        *o = mem
                            .read_u32(cb.address.wrapping_add(byte as u64 + 4 * c as u64))
                            .unwrap_or(0);
                    }
                }
                *slot = Some(v);
            }
        }
        Consts {
            opts,
            kcache,
            loop_index,
        }
    }

    /// A kcache constant; outside the locked lines (relative or not) 0x7FFFFFFF (002 line
    /// 1350 gives it for relative reads; an unlocked line is undefined).
    fn kc(&self, window: usize, idx: i64) -> [u32; 4] {
        usize::try_from(idx)
            .ok()
            .and_then(|i| self.kcache[window].get(i).copied().flatten())
            .unwrap_or([CONST_OOB; 4])
    }
}

pub struct Ctx<'a, 'b> {
    pub gpr: &'a mut [[u32; 4]],
    /// The SIMD-global GPRs, lane-major (`lane * 128 + g`), shared by every wavefront.
    pub globals: &'a mut [[u32; 4]],
    pub consts: &'a Consts<'b>,
    pub clause: u32,
    pub group: usize,
}

impl Ctx<'_, '_> {
    fn bad(&self, why: &'static str) -> EmuError {
        EmuError::IllegalGroup {
            clause: self.clause,
            group: self.group,
            why,
        }
    }
}

/// A GPR index after relative addressing: Some(index) if in range, None for GPR0's
/// out-of-range rule (reads) / a dropped write.
fn gpr_index(base: u8, rel: bool, offset: i32, opts: &Options) -> Option<usize> {
    let g = base as i64 + if rel { offset as i64 } else { 0 };
    let temps_from = 128 - opts.clause_temps as i64;
    ((0..opts.num_gprs as i64).contains(&g) || (temps_from..128).contains(&g)).then_some(g as usize)
}

fn modifiers(v: u32, s: &Src) -> u32 {
    // ABS before NEG (002 lines 1436-1439).
    let v = if s.abs { v & 0x7FFF_FFFF } else { v };
    if s.neg { v ^ 0x8000_0000 } else { v }
}

/// Executes one group for every thread with `exec` set.
#[allow(clippy::too_many_arguments)]
pub fn group(
    ctx: &mut Ctx,
    st: &mut ClauseState,
    g: &AluGroup,
    exec: &[bool],
) -> Result<(), EmuError> {
    let opts = ctx.consts.opts;
    let units = assign(&g.insts, opts.prefer_vector).map_err(|w| ctx.bad(w))?;
    let mut at = [None; 5];
    for (k, &u) in units.iter().enumerate() {
        at[u] = Some(k);
    }
    // Reductions and four-slot double ops need the same opcode on X, Y, Z and W.
    for i in &g.insts {
        let spans = op2(i).is_some_and(reduction) || dp4(i);
        if spans
            && (0..4).any(|u| at[u].is_none_or(|k| g.insts[k].form_opcode() != i.form_opcode()))
        {
            return Err(ctx.bad("a reduction or 4-slot op not on all of X, Y, Z and W"));
        }
        if let Some(op) = op2(i).filter(|&o| dp2(o)) {
            let pair = (i.dst_chan as usize) & !1;
            if (pair..pair + 2).any(|u| at[u].is_none_or(|k| op2(&g.insts[k]) != Some(op))) {
                return Err(ctx.bad("a 2-slot double op not on both units of XY or ZW"));
            }
        }
    }
    let kinds: Vec<Kind> = g
        .insts
        .iter()
        .map(|i| match i.form {
            AluForm::Op2 { opcode, .. } => ops::op2_kind(opcode),
            AluForm::Op3 { opcode, .. } => ops::op3_kind(opcode),
        })
        .collect();
    let n = exec.len();
    for t in 0..n {
        if !exec[t] {
            continue;
        }
        let gpr = &ctx.gpr[t * 128..t * 128 + 128];
        let globals = &ctx.globals[t * 128..t * 128 + 128];
        // Phase 1: read every source of every slot.
        let mut on = [false; 5];
        let mut src = [[0u32; 3]; 5];
        for (k, i) in g.insts.iter().enumerate() {
            on[k] = match i.pred_sel {
                2 => !st.pred[t],
                3 => st.pred[t],
                _ => true,
            };
            if !on[k] {
                continue;
            }
            for (s_i, s) in i.srcs().enumerate() {
                let v = read_src(ctx.consts, st, t, (gpr, globals), i, &s, &g.literals);
                let v = modifiers(v, &s);
                src[k][s_i] = if kinds[k].float_in {
                    float::flush(v, opts.flush_denormals)
                } else {
                    v
                };
            }
        }
        // Phase 2: compute.
        let mut res: [Option<Lane>; 5] = [None; 5];
        for (k, i) in g.insts.iter().enumerate() {
            if !on[k] {
                continue;
            }
            let unit = units[k];
            let lane = match i.form {
                AluForm::Op2 { opcode, .. } if reduction(opcode) => {
                    Some(reduce(opcode, unit, &at, &src))
                }
                AluForm::Op2 { opcode, .. } if dp2(opcode) => {
                    Some(double2(opcode, unit, &at, &src))
                }
                _ if dp4(i) => Some(double4(i, unit, &at, &src)),
                AluForm::Op2 { opcode: 26, .. } => None,
                AluForm::Op2 { opcode, .. } => ops::op2(opcode, src[k]),
                AluForm::Op3 { opcode, .. } => ops::op3(opcode, src[k]),
            };
            res[k] = lane.map(|mut l| {
                let is_face = op2(i) == Some(82) && unit == 3;
                if kinds[k].float_out && !is_face && !is_double(i) {
                    let mut v = f(l.value);
                    if let AluForm::Op2 { omod, .. } = i.form {
                        v = float::omod(v, omod);
                    }
                    if i.clamp {
                        v = float::saturate(v);
                    }
                    l.value = float::flush(b(v), opts.flush_denormals);
                }
                l
            });
        }
        // Phase 3: commit. Vector units first so Trans wins a GPR both write (1988-1996).
        let mut pv = st.pv[t];
        let mut ps = st.ps[t];
        let mut order: Vec<usize> = (0..g.insts.len()).collect();
        order.sort_by_key(|&k| units[k]);
        for u in 0..5 {
            if at[u].is_none() {
                // An empty unit executes a NOP: its PV/PS element is undefined (5166-5180); 0 here.
                if u == TRANS {
                    ps = 0;
                } else {
                    pv[u] = 0;
                }
            }
        }
        for &k in &order {
            let i = &g.insts[k];
            let unit = units[k];
            if !on[k] {
                continue; // predicated off: no write, no PV/PS update (2022)
            }
            let Some(l) = res[k] else {
                if unit == TRANS {
                    ps = 0;
                } else {
                    pv[unit] = 0;
                }
                continue;
            };
            if unit == TRANS {
                ps = l.value;
            } else {
                pv[unit] = l.value;
            }
            if let Some(p) = l.pred
                && let AluForm::Op2 {
                    update_pred,
                    update_exec_mask,
                    ..
                } = i.form
            {
                if update_pred {
                    st.pred[t] = p;
                }
                if update_exec_mask {
                    st.exec_update[t] = Some(p);
                }
            }
            if l.kill {
                st.killed[t] = true;
            }
            if let Some(a) = l.ar {
                st.ar[t][i.dst_chan as usize] = a;
            }
            let write = match i.form {
                AluForm::Op2 { write_mask, .. } => write_mask,
                AluForm::Op3 { .. } => true,
            };
            if write && i.dst_rel && matches!(i.index_mode, 5 | 6) {
                if let Some(d) = global_index(i.index_mode, i.dst_gpr, st.ar[t], opts) {
                    ctx.globals[t * 128 + d][i.dst_chan as usize] = l.value;
                }
            } else if write {
                let offset = index_offset(i.index_mode, st.ar[t], ctx.consts.loop_index, true);
                if let Some(d) = gpr_index(i.dst_gpr, i.dst_rel, offset, opts) {
                    if d >= 128 - opts.clause_temps as usize {
                        st.temps[t * 128 + d][i.dst_chan as usize] = l.value;
                    } else {
                        ctx.gpr[t * 128 + d][i.dst_chan as usize] = l.value;
                    }
                }
            }
        }
        st.pv[t] = pv;
        st.ps[t] = ps;
    }
    Ok(())
}

fn is_double(i: &AluInst) -> bool {
    op2(i).is_some_and(dp2) || dp4(i)
}

impl AluInst {
    fn form_opcode(&self) -> (bool, u16) {
        match self.form {
            AluForm::Op2 { opcode, .. } => (false, opcode),
            AluForm::Op3 { opcode, .. } => (true, opcode as u16),
        }
    }
}

/// The index relative addressing adds: GPRs use AR.x whatever AR element INDEX_MODE
/// names, constants use that element; mode 4 is the loop index (002 table 4.2, 1313-1335).
fn index_offset(mode: u8, ar: [i32; 4], al: i32, is_gpr: bool) -> i32 {
    match mode {
        0..=3 if is_gpr => ar[0],
        0..=3 => ar[mode as usize],
        4 => al,
        _ => 0,
    }
}

/// INDEX_GLOBAL (5) and INDEX_GLOBAL_AR_X (6) on an operand with its REL bit: "treat GPR
/// address as absolute, not thread-relative" (002 lines 7934-7935), plus AR.X for 6 (597);
/// the bit picks global or wavefront-local per operand (593-595). Physically the globals
/// come first (623): an absolute address past `Options::global_gprs` (into the clause
/// temporaries or private GPRs) is not modelled, such reads give 0 and writes are dropped.
pub fn global_index(mode: u8, base: u8, ar: [i32; 4], opts: &Options) -> Option<usize> {
    let g = base as i64 + if mode == 6 { ar[0] as i64 } else { 0 };
    (0..opts.global_gprs as i64)
        .contains(&g)
        .then_some(g as usize)
}

fn read_src(
    c: &Consts,
    st: &ClauseState,
    t: usize,
    (gpr, globals): (&[[u32; 4]], &[[u32; 4]]),
    i: &AluInst,
    s: &Src,
    literals: &[u32],
) -> u32 {
    let opts = c.opts;
    let chan = s.chan as usize & 3;
    match s.sel {
        0..=127 if s.rel && matches!(i.index_mode, 5 | 6) => {
            global_index(i.index_mode, s.sel as u8, st.ar[t], opts).map_or(0, |g| globals[g][chan])
        }
        0..=127 => {
            let off = index_offset(i.index_mode, st.ar[t], c.loop_index, true);
            // Out of range: GPR0 (002 lines 1340-1346).
            match gpr_index(s.sel as u8, s.rel, off, opts) {
                Some(g) if g >= 128 - opts.clause_temps as usize => st.temps[t * 128 + g][chan],
                Some(g) => gpr[g][chan],
                None => gpr[0][chan],
            }
        }
        128..=191 => {
            let window = (s.sel as usize - 128) / 32;
            let mut idx = (s.sel as i64 - 128) % 32;
            if s.rel {
                idx += index_offset(i.index_mode, st.ar[t], c.loop_index, false) as i64;
            }
            c.kc(window, idx)[chan]
        }
        sel::ONE_DBL_L | sel::HALF_DBL_L => 0,
        sel::ONE_DBL_M => 0x3FF0_0000,
        sel::HALF_DBL_M => 0x3FE0_0000,
        sel::ZERO => 0,
        sel::ONE => b(1.0),
        sel::ONE_INT => 1,
        sel::M_ONE_INT => u32::MAX,
        sel::HALF => b(0.5),
        sel::LITERAL => literals.get(chan).copied().unwrap_or(0),
        sel::PV => st.pv[t][chan],
        sel::PS => st.ps[t],
        256..=511 => {
            let mut idx = s.sel as i64 - 256;
            if s.rel {
                idx += index_offset(i.index_mode, st.ar[t], c.loop_index, false) as i64;
            }
            // Out of [0, 255]: 0x7FFFFFFF (002 line 1348).
            match usize::try_from(idx).ok().and_then(|x| opts.cfile.get(x)) {
                Some(v) => v[chan],
                None if !(0..=255).contains(&idx) => CONST_OOB,
                None => 0,
            }
        }
        _ => 0,
    }
}

/// DOT4, DOT4_IEEE, MAX4 (one result, 002 lines 1886-1893) and CUBE (one per unit).
fn reduce(op: u16, unit: usize, at: &[Option<usize>; 5], src: &[[u32; 3]; 5]) -> Lane {
    let s = |u: usize, n: usize| f(src[at[u].unwrap_or(0)][n]);
    let v = match op {
        // Summed in the pseudocode's order, W + Z + Y + X (3397-3400, 3431-3434).
        80 => (0..3)
            .rev()
            .fold(ops::mul_legacy(s(3, 0), s(3, 1)), |a, u| {
                a + ops::mul_legacy(s(u, 0), s(u, 1))
            }),
        81 => (0..3)
            .rev()
            .fold(s(3, 0) * s(3, 1), |a, u| a + s(u, 0) * s(u, 1)),
        83 => (1..4).fold(s(0, 0), |m, u| if m >= s(u, 0) { m } else { s(u, 0) }),
        _ => {
            // CUBE: src0 = Rn.zzxy, src1 = Rn.yxzz (002 lines 3356-3380), so x, y, z are the
            // src0 of Z, W and X. Faces +X -X +Y -Y +Z -Z are 0-5; W = face, Z = 2 * major
            // axis, Y = S, X = T (the face and axis convention of the OpenGL cube-map table).
            let (x, y, z) = (s(2, 0), s(3, 0), s(0, 0));
            let (face, ma, sc, tc) = if z.abs() >= x.abs() && z.abs() >= y.abs() {
                (
                    if z < 0.0 { 5.0 } else { 4.0 },
                    z,
                    if z < 0.0 { -x } else { x },
                    -y,
                )
            } else if y.abs() >= x.abs() {
                (
                    if y < 0.0 { 3.0 } else { 2.0 },
                    y,
                    x,
                    if y < 0.0 { -z } else { z },
                )
            } else {
                (
                    if x < 0.0 { 1.0 } else { 0.0 },
                    x,
                    if x < 0.0 { z } else { -z },
                    -y,
                )
            };
            [tc, sc, 2.0 * ma, face][unit & 3]
        }
    };
    Lane {
        value: b(v),
        ..Lane::default()
    }
}

fn flush_in64(v: u64) -> f64 {
    f64::from_bits(float::flush64(v))
}

/// A double result: NaNs become NaN64 (002 line 3005), denormals zero.
fn out64(v: f64) -> u64 {
    if v.is_nan() {
        NAN64
    } else {
        float::flush64(v.to_bits())
    }
}

/// Two-slot double ops. The even unit of the pair (X or Z) holds the high dword of each
/// operand and the odd unit the low one; the result comes back low in the even unit and
/// high in the odd one (002 ADD_64 example, lines 3042-3077).
fn double2(op: u16, unit: usize, at: &[Option<usize>; 5], src: &[[u32; 3]; 5]) -> Lane {
    let pair = unit & !1;
    let (e, o) = (src[at[pair].unwrap_or(0)], src[at[pair + 1].unwrap_or(0)]);
    let operand = |n: usize| (e[n] as u64) << 32 | o[n] as u64;
    let (a, c) = (flush_in64(operand(0)), flush_in64(operand(1)));
    let mut pred = None;
    let r: u64 = match op {
        23 => out64(a + c),
        28 => {
            // FLT64_TO_FLT32: one float in the even unit (3603-3628); the odd gets 0.
            let v = f64::from_bits(operand(0));
            let r = if v.is_nan() {
                if v.is_sign_negative() {
                    0xFFC0_0000
                } else {
                    0x7FC0_0000
                }
            } else {
                float::flush((v as f32).to_bits(), true)
            };
            r as u64
        }
        29 => {
            // FLT32_TO_FLT64 of the even unit's src0 (3503-3535): NaN keeps sign and payload.
            let x = e[0];
            let (sign, exp, mant) = ((x >> 31) as u64, (x >> 23) & 0xFF, (x & 0x7F_FFFF) as u64);
            if exp == 0xFF {
                sign << 63 | 0x7FF << 52 | mant << 29
            } else if exp == 0 {
                sign << 63
            } else {
                (f(x) as f64).to_bits()
            }
        }
        122 => {
            // LDEXP_64: the example (4063-4100) takes the double from src0 and the integer
            // exponent from src1 (the pseudocode's "src1 * 2^src0" has them swapped).
            out64(libm::ldexp(a, e[1] as i32))
        }
        123 => {
            // FRACT_64 (3695-3720): inf -> NaN64, NaN kept, else x - floor(x).
            let bits = operand(0);
            if a.is_infinite() {
                NAN64
            } else if a.is_nan() {
                bits
            } else {
                out64(a - libm::floor(a))
            }
        }
        124..=126 => {
            let cond = match op {
                124 => a > c,
                125 => a == c,
                _ => a >= c,
            };
            // Execute gives 0, skip 0xFFFFFFFF in both dwords (examples 5437-5477, 5691-5731).
            pred = Some(cond);
            if cond { 0 } else { u64::MAX }
        }
        _ => 0,
    };
    let value = if unit == pair {
        r as u32
    } else if op == 28 {
        0
    } else {
        (r >> 32) as u32
    };
    Lane {
        value,
        pred,
        ..Lane::default()
    }
}

/// Four-slot double ops. MUL_64 and MULADD_64 take the high dwords in X (Y and Z repeat
/// them) and the low ones in W, and return low/high in XY and again in ZW (examples
/// 4647, 4925-4957); FREXP_64 reads its operand from X (high) and Y (low) and returns the
/// exponent in XY and the fraction in ZW (3760-3834).
fn double4(i: &AluInst, unit: usize, at: &[Option<usize>; 5], src: &[[u32; 3]; 5]) -> Lane {
    let lo_unit = if matches!(i.form, AluForm::Op2 { opcode: 7, .. }) {
        1
    } else {
        3
    };
    let (e, o) = (src[at[0].unwrap_or(0)], src[at[lo_unit].unwrap_or(0)]);
    let operand = |n: usize| flush_in64((e[n] as u64) << 32 | o[n] as u64);
    let r: u64 = match i.form {
        AluForm::Op2 { opcode: 27, .. } => out64(operand(0) * operand(1)),
        AluForm::Op2 { .. } => {
            // FREXP_64 (3760-3840).
            let a = operand(0);
            let (m, x) = if a.is_infinite() || a.is_nan() {
                (if a.is_nan() { a.to_bits() } else { NAN64 }, -1i64 as u64)
            } else if a == 0.0 {
                (a.to_bits() & 1 << 63, 0)
            } else {
                let (m, x) = libm::frexp(a);
                (m.to_bits(), x as i64 as u64)
            };
            return Lane {
                value: match unit {
                    0 => x as u32,
                    1 => (x >> 32) as u32,
                    2 => m as u32,
                    _ => (m >> 32) as u32,
                },
                ..Lane::default()
            };
        }
        AluForm::Op3 { opcode, .. } => {
            let v = operand(0) * operand(1) + operand(2);
            out64(match opcode {
                9 => v * 2.0,
                10 => v * 4.0,
                11 => v * 0.5,
                _ => v,
            })
        }
    };
    Lane {
        value: if unit & 1 == 0 {
            r as u32
        } else {
            (r >> 32) as u32
        },
        ..Lane::default()
    }
}

impl ClauseState {
    pub fn new(n: usize, pred: Vec<bool>) -> Self {
        ClauseState {
            pv: vec![[0; 4]; n],
            ps: vec![0; n],
            ar: vec![[0; 4]; n],
            pred,
            exec_update: vec![None; n],
            killed: vec![false; n],
            temps: vec![[0; 4]; n * 128],
        }
    }
}
