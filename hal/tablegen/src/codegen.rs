//! Rust code generation: one module per generation, included by
//! `baregpu-hal` (see `hal/build.rs`).
//!
//! For every command and structure: a struct with one member per value
//! field, `pack`/`unpack` that build each dword with the same shifts and
//! masks a hand-written version would use, named values as associated
//! constants, and a round-trip test. For every register: a bitfield-struct
//! value type and a typed accessor (`Reg`, `EngineReg` or `RegArray`).
//! Plus the reflection tables of the whole generation.

use std::fmt::Write;

use crate::model::*;

/// `MI_STORE_DATA_IMM` -> `MiStoreDataImm`; names starting with a digit get
/// `prefix` (`3DSTATE_VS` -> `Cmd3dstateVs`).
pub fn type_name(name: &str, prefix: &str) -> String {
    let mut out = String::new();
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(c) = chars.next() {
            out.push(c.to_ascii_uppercase());
            out.extend(chars.map(|c| c.to_ascii_lowercase()));
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("{prefix}{out}")
    } else {
        out
    }
}

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen", "len", "new",
];

/// A field name usable as a Rust identifier and bitfield accessor.
pub fn field_ident(name: &str) -> String {
    let mut s = name.to_string();
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'f');
    }
    if KEYWORDS.contains(&s.as_str()) {
        s.push_str("_field");
    }
    s
}

/// A module or constant name for an entry (`3DSTATE_VS` -> `_3DSTATE_VS`).
pub fn const_ident(name: &str) -> String {
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{name}")
    } else {
        name.to_string()
    }
}

fn rust_type(f: &Field) -> &'static str {
    let wide = f.is_wide();
    match f.kind {
        FieldKind::Bool => "bool",
        FieldKind::Int | FieldKind::Sfixed => {
            if wide {
                "i64"
            } else {
                "i32"
            }
        }
        FieldKind::Float => "f32",
        FieldKind::Address => "u64",
        _ => {
            if wide {
                "u64"
            } else {
                "u32"
            }
        }
    }
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Table text (manual quotes, notes, references) made safe for a doc
/// comment: rustdoc reads doc comments as Markdown, so the manuals'
/// `<desc>`, `VIRTUAL_ADDR[63:0]` or `*` would become HTML tags, links and
/// emphasis. Markdown punctuation is backslash-escaped and bare URLs become
/// autolinks; what the reader sees is the table's text unchanged.
pub fn doc_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if let Some(at) = word.find("http://").or_else(|| word.find("https://")) {
            // The URL runs to the end of the word, less closing punctuation.
            let url_end = word
                .trim_end_matches(['.', ',', ';', ':', ')'])
                .len()
                .max(at);
            escape_markdown(&mut out, &word[..at]);
            let _ = write!(out, "<{}>", &word[at..url_end]);
            escape_markdown(&mut out, &word[url_end..]);
        } else {
            escape_markdown(&mut out, word);
        }
    }
    out
}

fn escape_markdown(out: &mut String, text: &str) {
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '&' | '#' | '|' | '~'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
}

/// Writes `text` as doc-comment lines. Text from the tables must have gone
/// through [`doc_text`]; the generator's own text may use Markdown.
fn doc(out: &mut String, indent: &str, text: &str) {
    for line in text.lines() {
        let _ = writeln!(out, "{indent}/// {line}");
    }
}

fn field_doc(f: &Field, in_register: bool) -> String {
    let mut s = if in_register {
        format!("Bits {}:{} ({}).", f.end, f.start, f.kind.name())
    } else {
        format!(
            "Dword {} bits {}:{} ({}).",
            f.start / 32,
            f.end - (f.start / 32) * 32,
            f.start % 32,
            f.kind.name()
        )
    };
    if matches!(f.kind, FieldKind::Address | FieldKind::Offset) && f.shift > 0 {
        let _ = write!(s, " The value's low {} bits must be zero.", f.shift);
    }
    if let Some(n) = &f.note {
        let _ = write!(s, " {}", doc_text(n));
    }
    if let Some(r) = &f.reference {
        let _ = write!(s, " (from {})", doc_text(r));
    }
    s
}

/// One contribution of a field to one dword.
struct Piece {
    /// Lowest value bit taken.
    value_lo: u32,
    /// Bits taken.
    width: u32,
    /// Where they go in the dword.
    dw_shift: u32,
}

fn pieces(f: &Field, dw: u32, base: u32) -> Option<Piece> {
    let (start, end) = (f.start + base, f.end + base);
    let (lo, hi) = (dw * 32, dw * 32 + 31);
    if end < lo || start > hi {
        return None;
    }
    let a = start.max(lo);
    let b = end.min(hi);
    Some(Piece {
        value_lo: a - start,
        width: b - a + 1,
        dw_shift: a - lo,
    })
}

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// The statement computing `v_<field>` (the raw bits as u64) with checks.
fn raw_value_stmt(f: &Field, packet: &str, access: &str) -> String {
    let name = &f.name;
    let max = mask(f.width());
    let w = f.width();
    match f.kind {
        FieldKind::Bool => format!("{access} as u64"),
        FieldKind::Float => format!("{access}.to_bits() as u64"),
        FieldKind::Int | FieldKind::Sfixed => {
            format!("check_int(\"{packet}\", \"{name}\", {access} as i64, {w})?")
        }
        FieldKind::Address | FieldKind::Offset => {
            if f.shift == 0 && max == u64::MAX {
                format!("{access} as u64")
            } else {
                format!(
                    "check_aligned(\"{packet}\", \"{name}\", {access} as u64, {}, {max:#x})?",
                    f.shift
                )
            }
        }
        _ => {
            let rust_bits = if f.is_wide() { 64 } else { 32 };
            if w >= rust_bits {
                format!("{access} as u64")
            } else {
                format!("check_uint(\"{packet}\", \"{name}\", {access} as u64, {max:#x})?")
            }
        }
    }
}

/// Expression converting raw bits `r` (u64) to the field's Rust type.
fn from_raw_expr(f: &Field, r: &str) -> String {
    let ty = rust_type(f);
    match f.kind {
        FieldKind::Bool => format!("({r}) != 0"),
        FieldKind::Float => format!("f32::from_bits(({r}) as u32)"),
        FieldKind::Int | FieldKind::Sfixed => format!("sign_extend({r}, {}) as {ty}", f.width()),
        FieldKind::Address | FieldKind::Offset if f.shift > 0 => {
            format!("(({r}) << {}) as {ty}", f.shift)
        }
        _ => format!("({r}) as {ty}"),
    }
}

/// What the generator needs to know about a packet (command, structure or
/// group element).
struct PacketSpec<'a> {
    name: &'a str,
    ty: String,
    fields: &'a [Field],
    group: Option<&'a Group>,
    /// Fixed length, or the minimum for variable ones.
    min_len: u32,
    fixed_len: Option<u32>,
    bias: u32,
    header: Option<(u32, u32)>,
}

impl PacketSpec<'_> {
    fn is_optional(&self, f: &Field) -> bool {
        self.fixed_len.is_none() && self.group.is_none() && f.start >= self.min_len * 32
    }
    fn value_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| f.kind.is_value())
    }
    /// Highest dword (exclusive) that fields reach.
    fn field_dwords(&self) -> u32 {
        self.fields
            .iter()
            .map(|f| f.end / 32 + 1)
            .max()
            .unwrap_or(0)
            .max(self.min_len)
    }
}

fn gen_struct_def(out: &mut String, spec: &PacketSpec, docs: &str, group_ty: Option<&str>) {
    doc(out, "", docs);
    let copy = if spec.group.is_some() { "" } else { "Copy, " };
    let _ = writeln!(out, "#[derive(Clone, {copy}Debug, PartialEq)]");
    let _ = writeln!(out, "pub struct {} {{", spec.ty);
    for f in spec.value_fields() {
        doc(out, "    ", &field_doc(f, false));
        let ty = rust_type(f);
        let ty = if spec.is_optional(f) {
            format!("Option<{ty}>")
        } else {
            ty.to_string()
        };
        let _ = writeln!(out, "    pub {}: {ty},", field_ident(&f.name));
    }
    if let (Some(g), Some(gty)) = (spec.group, group_ty) {
        let _ = writeln!(
            out,
            "    /// Repeated tail: {} dwords per element, from dword {}.",
            g.size, g.dw
        );
        let _ = writeln!(out, "    pub {}: Vec<{gty}>,", field_ident(&g.name));
    }
    let _ = writeln!(out, "}}\n");

    // Default: zero, except the table's defaults.
    let _ = writeln!(
        out,
        "impl Default for {} {{\n    fn default() -> Self {{\n        Self {{",
        spec.ty
    );
    for f in spec.value_fields() {
        let id = field_ident(&f.name);
        let value = if spec.is_optional(f) {
            "None".to_string()
        } else {
            default_expr(f)
        };
        let _ = writeln!(out, "            {id}: {value},");
    }
    if let Some(g) = spec.group {
        let _ = writeln!(out, "            {}: Vec::new(),", field_ident(&g.name));
    }
    let _ = writeln!(out, "        }}\n    }}\n}}\n");
}

/// The Rust value of a field's table default (zero when it has none).
fn default_expr(f: &Field) -> String {
    let d = f.default.unwrap_or(0);
    match f.kind {
        FieldKind::Bool => (d != 0).to_string(),
        FieldKind::Float => format!("f32::from_bits({:#x})", d as u32),
        FieldKind::Int | FieldKind::Sfixed => {
            format!("{}", crate::codegen::sign_extend(d, f.width()))
        }
        _ => format!("{d:#x}"),
    }
}

fn sign_extend(raw: u64, width: u32) -> i64 {
    if width >= 64 {
        raw as i64
    } else {
        let s = 64 - width;
        ((raw << s) as i64) >> s
    }
}

/// Named values as associated constants (`FIELD_VALUE`).
fn gen_named_values(out: &mut String, fields: &[Field]) {
    for f in fields
        .iter()
        .filter(|f| f.kind.is_value() && !f.values.is_empty())
    {
        let ty = match rust_type(f) {
            "bool" | "f32" | "i32" | "i64" => "u64",
            t => t,
        };
        for (n, v) in &f.values {
            let _ = writeln!(
                out,
                "    /// `{}` = {v:#x}.\n    pub const {}_{n}: {ty} = {v:#x};",
                f.name,
                field_ident(&f.name).to_ascii_uppercase()
            );
        }
    }
}

/// The body that fills dwords `0..dwords` of `out` from `v_*` variables.
fn gen_dword_stores(out: &mut String, spec: &PacketSpec, dwords: u32, optional_guard: bool) {
    for dw in 0..dwords {
        let mut constant: u64 = 0;
        let mut terms: Vec<String> = Vec::new();
        for f in spec.fields {
            let Some(p) = pieces(f, dw, 0) else { continue };
            let m = mask(p.width);
            match f.kind {
                FieldKind::Fixed => {
                    constant |= ((f.value.unwrap_or(0) >> p.value_lo) & m) << p.dw_shift
                }
                FieldKind::Mbz => {}
                FieldKind::Length => terms.push(format!(
                    "((length_field & {m:#x}) as u32) << {}",
                    p.dw_shift
                )),
                _ => {
                    let v = format!("v_{}", f.name);
                    let shifted = if p.value_lo == 0 {
                        v
                    } else {
                        format!("({v} >> {})", p.value_lo)
                    };
                    let term = if p.width == 32 && p.dw_shift == 0 {
                        format!("{shifted} as u32")
                    } else {
                        format!("(({shifted} & {m:#x}) as u32) << {}", p.dw_shift)
                    };
                    terms.push(term);
                }
            }
        }
        let mut expr = format!("{constant:#010x}");
        for t in terms {
            let _ = write!(expr, " | {t}");
        }
        if optional_guard && dw >= spec.min_len {
            let _ = writeln!(out, "        if len > {dw} {{ out[{dw}] = {expr}; }}");
        } else {
            let _ = writeln!(out, "        out[{dw}] = {expr};");
        }
    }
}

fn gen_value_lets(out: &mut String, spec: &PacketSpec, packet_name: &str) {
    for f in spec.value_fields() {
        let id = field_ident(&f.name);
        if spec.is_optional(f) {
            let stmt = raw_value_stmt(f, packet_name, "v");
            let _ = writeln!(
                out,
                "        let v_{} = match self.{id} {{ Some(v) => {stmt}, None => 0 }};",
                f.name
            );
        } else {
            let stmt = raw_value_stmt(f, packet_name, &format!("self.{id}"));
            let _ = writeln!(out, "        let v_{} = {stmt};", f.name);
        }
    }
}

fn gen_field_reads(out: &mut String, spec: &PacketSpec, src: &str) {
    for f in spec.value_fields() {
        let id = field_ident(&f.name);
        let raw = format!("get({src}, {}, {})", f.start, f.width());
        let conv = from_raw_expr(f, &raw);
        if spec.is_optional(f) {
            let _ = writeln!(
                out,
                "            {id}: if len > {} {{ Some({conv}) }} else {{ None }},",
                f.start / 32
            );
        } else {
            let _ = writeln!(out, "            {id}: {conv},");
        }
    }
}

/// A group element: plain struct plus `pack_into`/`unpack_from`.
fn gen_group_element(out: &mut String, g: &Group, owner: &str, ty: &str) {
    let spec = PacketSpec {
        name: owner,
        ty: ty.to_string(),
        fields: &g.fields,
        group: None,
        min_len: g.size,
        fixed_len: Some(g.size),
        bias: 0,
        header: None,
    };
    gen_struct_def(
        out,
        &spec,
        &format!("One element of `{owner}.{}`.", g.name),
        None,
    );
    let _ = writeln!(out, "impl {ty} {{");
    gen_named_values(out, &g.fields);
    let _ = writeln!(
        out,
        "    /// Packs into `out[..{}]` (the caller checked the length).",
        g.size
    );
    let _ = writeln!(
        out,
        "    #[inline]\n    pub fn pack_into(&self, out: &mut [u32]) -> Result<(), PackError> {{"
    );
    gen_value_lets(out, &spec, owner);
    gen_dword_stores(out, &spec, g.size, false);
    let _ = writeln!(out, "        Ok(())\n    }}\n");
    let _ = writeln!(
        out,
        "    /// Reads from `dw[..{}]` (missing dwords read as zero).",
        g.size
    );
    let _ = writeln!(
        out,
        "    #[inline]\n    pub fn unpack_from(dw: &[u32]) -> Self {{\n        Self {{"
    );
    gen_field_reads(out, &spec, "dw");
    let _ = writeln!(out, "        }}\n    }}\n}}\n");
}

fn gen_packet(out: &mut String, spec: &PacketSpec, docs: &str) {
    let group_ty = spec.group.map(|g| {
        format!(
            "{}{}",
            spec.ty,
            type_name(&g.name.to_ascii_uppercase(), "G")
        )
    });
    if let (Some(g), Some(gty)) = (spec.group, &group_ty) {
        gen_group_element(out, g, spec.name, gty);
    }
    gen_struct_def(out, spec, docs, group_ty.as_deref());
    let ty = &spec.ty;
    let name = spec.name;
    let _ = writeln!(out, "impl {ty} {{");
    let _ = writeln!(
        out,
        "    /// Smallest length in dwords.\n    pub const MIN_DWORDS: usize = {};",
        spec.min_len
    );
    if let Some((m, v)) = spec.header {
        let _ = writeln!(
            out,
            "    /// Dword 0 identifies the command when `dw0 & HEADER_MASK == HEADER_VALUE`."
        );
        let _ = writeln!(
            out,
            "    pub const HEADER_MASK: u32 = {m:#010x};\n    pub const HEADER_VALUE: u32 = {v:#010x};"
        );
    }
    gen_named_values(out, spec.fields);
    let _ = writeln!(out, "}}\n");

    let length_field = spec.fields.iter().find(|f| f.kind == FieldKind::Length);
    let _ = writeln!(
        out,
        "impl Packet for {ty} {{\n    const NAME: &'static str = \"{name}\";\n"
    );

    // dwords()
    let _ = writeln!(out, "    #[inline]\n    fn dwords(&self) -> usize {{");
    match (spec.fixed_len, spec.group) {
        (Some(n), _) => {
            let _ = writeln!(out, "        {n}");
        }
        (None, Some(g)) => {
            let _ = writeln!(
                out,
                "        {} + {} * self.{}.len()",
                g.dw,
                g.size,
                field_ident(&g.name)
            );
        }
        (None, None) => {
            let optional: Vec<&Field> = spec
                .value_fields()
                .filter(|f| spec.is_optional(f))
                .collect();
            let m = if optional.is_empty() { "" } else { "mut " };
            let _ = writeln!(out, "        let {m}len = {};", spec.min_len);
            for f in optional {
                let _ = writeln!(
                    out,
                    "        if self.{}.is_some() {{ len = len.max({}); }}",
                    field_ident(&f.name),
                    f.end / 32 + 1
                );
            }
            let _ = writeln!(out, "        len");
        }
    }
    let _ = writeln!(out, "    }}\n");

    // pack()
    let _ = writeln!(
        out,
        "    #[inline]\n    fn pack(&self, out: &mut [u32]) -> Result<usize, PackError> {{"
    );
    let _ = writeln!(out, "        let len = self.dwords();");
    let _ = writeln!(
        out,
        "        if out.len() < len {{ return Err(PackError::BufferTooSmall {{ packet: \"{name}\", needed: len }}); }}"
    );
    if spec.group.is_some() && spec.min_len > spec.group.map_or(0, |g| g.dw) {
        let _ = writeln!(
            out,
            "        if len < {} {{ return Err(PackError::TooShort {{ packet: \"{name}\", min_dwords: {} }}); }}",
            spec.min_len, spec.min_len
        );
    }
    if let Some(lf) = length_field {
        let max = mask(lf.width());
        let _ = writeln!(
            out,
            "        let length_field = (len - {}) as u64;",
            spec.bias
        );
        if spec.fixed_len.is_none() {
            let _ = writeln!(
                out,
                "        if length_field > {max:#x} {{ return Err(PackError::TooLong {{ packet: \"{name}\" }}); }}"
            );
        }
    }
    gen_value_lets(out, spec, name);
    let stored = if spec.group.is_some() {
        spec.group.map(|g| g.dw).unwrap_or(0)
    } else {
        spec.field_dwords()
    };
    gen_dword_stores(
        out,
        spec,
        stored,
        spec.fixed_len.is_none() && spec.group.is_none(),
    );
    if let Some(g) = spec.group {
        let _ = writeln!(
            out,
            "        for (i, e) in self.{}.iter().enumerate() {{ e.pack_into(&mut out[{} + i * {}..])?; }}",
            field_ident(&g.name),
            g.dw,
            g.size
        );
    }
    let _ = writeln!(out, "        Ok(len)\n    }}\n");

    // unpack()
    let _ = writeln!(
        out,
        "    fn unpack(dw: &[u32]) -> Result<Self, UnpackError> {{"
    );
    let _ = writeln!(
        out,
        "        if dw.len() < {} {{ return Err(UnpackError::Truncated {{ packet: \"{name}\", needed: {}, got: dw.len() }}); }}",
        spec.min_len.max(1),
        spec.min_len.max(1)
    );
    if spec.header.is_some() {
        let _ = writeln!(
            out,
            "        if dw[0] & Self::HEADER_MASK != Self::HEADER_VALUE {{ return Err(UnpackError::WrongHeader {{ packet: \"{name}\", dw0: dw[0] }}); }}"
        );
    }
    match (length_field, spec.fixed_len, spec.group) {
        (Some(lf), _, _) => {
            let _ = writeln!(
                out,
                "        let len = get(dw, {}, {}) as usize + {};",
                lf.start,
                lf.width(),
                spec.bias
            );
        }
        (None, Some(n), _) => {
            let _ = writeln!(out, "        let len = {n}usize;");
        }
        (None, None, Some(g)) => {
            let _ = writeln!(
                out,
                "        let len = {} + (dw.len() - {}) / {} * {};",
                g.dw, g.dw, g.size, g.size
            );
        }
        (None, None, None) => {
            let _ = writeln!(
                out,
                "        let len = dw.len().min({});",
                spec.field_dwords()
            );
        }
    }
    let valid = match (spec.fixed_len, spec.group) {
        (Some(n), _) => format!("len == {n}"),
        (None, Some(g)) => format!("len >= {} && (len - {}) % {} == 0", g.dw, g.dw, g.size),
        (None, None) => format!("len >= {} && len <= {}", spec.min_len, spec.field_dwords()),
    };
    let _ = writeln!(
        out,
        "        if !({valid}) {{ return Err(UnpackError::BadLength {{ packet: \"{name}\", length: len }}); }}"
    );
    let _ = writeln!(
        out,
        "        if dw.len() < len {{ return Err(UnpackError::Truncated {{ packet: \"{name}\", needed: len, got: dw.len() }}); }}"
    );
    let _ = writeln!(out, "        let dw = &dw[..len];");
    let _ = writeln!(out, "        Ok(Self {{");
    gen_field_reads(out, spec, "dw");
    if let (Some(g), Some(gty)) = (spec.group, &group_ty) {
        let _ = writeln!(
            out,
            "            {}: dw[{}..].chunks({}).map({gty}::unpack_from).collect(),",
            field_ident(&g.name),
            g.dw,
            g.size
        );
    }
    let _ = writeln!(out, "        }})\n    }}\n}}\n");
}

/// Random-value expression for the generated round-trip test.
fn random_expr(f: &Field) -> String {
    let max = mask(f.width());
    let r = format!("rng.next() & {max:#x}");
    match f.kind {
        FieldKind::Bool => format!("({r}) != 0"),
        FieldKind::Float => "(rng.next() % 2048) as f32 * 0.25 - 256.0".into(),
        _ => from_raw_expr(f, &r),
    }
}

fn gen_roundtrip_test(out: &mut String, spec: &PacketSpec, group_ty: Option<&str>) {
    let fn_name = format!("roundtrip_{}", spec.name.to_ascii_lowercase());
    let _ = writeln!(out, "    #[test]\n    fn {fn_name}() {{");
    let _ = writeln!(
        out,
        "        let mut rng = TestRng(0x9e37_79b9_7f4a_7c15 ^ {});",
        spec.name.len()
    );
    let _ = writeln!(out, "        for round in 0..64u32 {{");
    let _ = writeln!(out, "            let with_optional = round % 2 == 1;");
    let _ = writeln!(out, "            let p = {} {{", spec.ty);
    for f in spec.value_fields() {
        let e = random_expr(f);
        if spec.is_optional(f) {
            let _ = writeln!(
                out,
                "                {}: if with_optional {{ Some({e}) }} else {{ None }},",
                field_ident(&f.name)
            );
        } else {
            let _ = writeln!(out, "                {}: {e},", field_ident(&f.name));
        }
    }
    if let (Some(g), Some(gty)) = (spec.group, group_ty) {
        let min_elems = spec.min_len.saturating_sub(g.dw).div_ceil(g.size);
        let _ = writeln!(
            out,
            "                {}: (0..{min_elems} + round % 5).map(|_| {gty} {{",
            field_ident(&g.name)
        );
        for f in g.fields.iter().filter(|f| f.kind.is_value()) {
            let _ = writeln!(
                out,
                "                    {}: {},",
                field_ident(&f.name),
                random_expr(f)
            );
        }
        let _ = writeln!(out, "                }}).collect(),");
    }
    let _ = writeln!(out, "            }};");
    let _ = writeln!(
        out,
        "            let mut buf = vec![0xdead_beefu32; p.dwords() + 3];"
    );
    let _ = writeln!(
        out,
        "            let n = p.pack(&mut buf).expect(\"pack\");"
    );
    let _ = writeln!(out, "            assert_eq!(n, p.dwords());");
    let _ = writeln!(
        out,
        "            assert_eq!(buf[n], 0xdead_beef, \"wrote past its length\");"
    );
    let _ = writeln!(
        out,
        "            let q = {}::unpack(&buf[..n]).expect(\"unpack\");",
        spec.ty
    );
    let _ = writeln!(out, "            assert_eq!(p, q);");
    let _ = writeln!(out, "            let mut again = vec![0u32; n];");
    let _ = writeln!(out, "            q.pack(&mut again).expect(\"repack\");");
    let _ = writeln!(out, "            assert_eq!(&buf[..n], &again[..]);");
    let _ = writeln!(out, "        }}\n    }}\n");
}

fn command_spec(c: &Command) -> PacketSpec<'_> {
    PacketSpec {
        name: &c.name,
        ty: type_name(&c.name, "Cmd"),
        fields: &c.fields,
        group: c.groups.first(),
        min_len: c.min_length,
        fixed_len: c.length,
        bias: c.bias,
        header: Some(c.header_match()),
    }
}

fn struct_spec(s: &Struct) -> PacketSpec<'_> {
    PacketSpec {
        name: &s.name,
        ty: type_name(&s.name, "S"),
        fields: &s.fields,
        group: s.groups.first(),
        min_len: s.length,
        fixed_len: if s.groups.is_empty() {
            Some(s.length)
        } else {
            None
        },
        bias: 0,
        header: None,
    }
}

fn smallest_uint(bits: u32) -> &'static str {
    match bits {
        0..=8 => "u8",
        9..=16 => "u16",
        17..=32 => "u32",
        _ => "u64",
    }
}

fn gen_register(out: &mut String, r: &Register, engine_enum: &str) {
    let ty = type_name(&r.name, "R");
    let raw = if r.width == 64 { "u64" } else { "u32" };
    let value_ty = if r.fields.is_empty() {
        raw.to_string()
    } else {
        doc(
            out,
            "",
            &format!(
                "Value of `{}`. Source: {}.",
                r.name,
                doc_text(&r.citation.describe())
            ),
        );
        let _ = writeln!(
            out,
            "#[bitfield({raw})]\n#[derive(PartialEq, Eq)]\npub struct {ty} {{"
        );
        let mut fields: Vec<&Field> = r
            .fields
            .iter()
            .filter(|f| f.kind != FieldKind::Mbz)
            .collect();
        fields.sort_by_key(|f| f.start);
        let mut pos = 0;
        for f in fields {
            if f.start > pos {
                let gap = f.start - pos;
                let _ = writeln!(out, "    #[bits({gap})]\n    __: {},", smallest_uint(gap));
            }
            doc(out, "    ", &field_doc(f, true));
            let fty = if f.kind == FieldKind::Bool {
                "bool"
            } else {
                smallest_uint(f.width())
            };
            let access = match f.access.as_deref().unwrap_or(r.access.as_str()) {
                "ro" => ", access = RO",
                "wo" => ", access = WO",
                _ => "",
            };
            let _ = writeln!(
                out,
                "    #[bits({}{access})]\n    pub {}: {fty},",
                f.width(),
                field_ident(&f.name)
            );
            pos = f.end + 1;
        }
        if pos < r.width {
            let gap = r.width - pos;
            let _ = writeln!(out, "    #[bits({gap})]\n    __: {},", smallest_uint(gap));
        }
        let _ = writeln!(out, "}}\n");
        let _ = writeln!(
            out,
            "impl RegValue for {ty} {{\n    const WIDTH: u32 = {};\n    fn from_raw(raw: u64) -> Self {{ Self::from_bits(raw as {raw}) }}\n    fn to_raw(self) -> u64 {{ self.into_bits() as u64 }}\n}}\n",
            r.width
        );
        ty.clone()
    };
    let cname = const_ident(&r.name);
    let mut d = format!(
        "`{}` ({}, {} bits, reset {}). Source: {}.",
        r.name,
        r.access,
        r.width,
        r.reset.map_or("unknown".into(), |v| format!("{v:#x}")),
        doc_text(&r.citation.describe())
    );
    if !r.engines.is_empty() {
        let _ = write!(
            d,
            " Engine-relative offset {:#x} on: {}.",
            r.offset,
            r.engines.join(", ")
        );
    }
    let engines: Vec<String> = r
        .engines
        .iter()
        .map(|e| format!("{engine_enum}::{}", type_name(e, "E")))
        .collect();
    match (r.engines.is_empty(), r.count > 1) {
        (true, false) => {
            doc(out, "", &d);
            let _ = writeln!(
                out,
                "pub const {cname}: Reg<{value_ty}> = Reg::new({:#x});\n",
                r.offset
            );
        }
        (true, true) => {
            doc(out, "", &d);
            let _ = writeln!(
                out,
                "pub const {cname}: RegArray<{value_ty}> = RegArray::new({:#x}, {}, {});\n",
                r.offset, r.count, r.stride
            );
        }
        (false, false) => {
            doc(out, "", &d);
            let _ = writeln!(
                out,
                "pub const {cname}: EngineReg<{value_ty}, {engine_enum}> = EngineReg::new({:#x}, &[{}]);\n",
                r.offset,
                engines.join(", ")
            );
        }
        (false, true) => {
            // An engine-relative array: one absolute array per engine.
            for (e, variant) in r.engines.iter().zip(&engines) {
                doc(out, "", &format!("{d} Instance of the {e} engine."));
                let _ = writeln!(
                    out,
                    "pub const {cname}_{}: RegArray<{value_ty}> = RegArray::new({variant}.base_offset() + {:#x}, {}, {});\n",
                    e.to_ascii_uppercase(),
                    r.offset,
                    r.count,
                    r.stride
                );
            }
        }
    }
}

fn opt_u64(v: Option<u64>) -> String {
    v.map_or("None".into(), |v| format!("Some({v:#x})"))
}

fn field_infos(fields: &[Field]) -> String {
    let mut s = String::from("&[");
    for f in fields {
        let kind = match f.kind {
            FieldKind::Fixed => "Fixed",
            FieldKind::Length => "Length",
            FieldKind::Uint => "Uint",
            FieldKind::Int => "Int",
            FieldKind::Bool => "Bool",
            FieldKind::Enum => "Enum",
            FieldKind::Address => "Address",
            FieldKind::Offset => "Offset",
            FieldKind::Float => "Float",
            FieldKind::Ufixed => "Ufixed",
            FieldKind::Sfixed => "Sfixed",
            FieldKind::Mbz => "Mbz",
        };
        let values: Vec<String> = f
            .values
            .iter()
            .map(|(n, v)| format!("(\"{n}\", {v:#x})"))
            .collect();
        let _ = write!(
            s,
            "FieldInfo {{ name: \"{}\", start: {}, end: {}, kind: FieldKind::{kind}, value: {}, default: {}, values: &[{}], shift: {}, frac: {} }}, ",
            f.name,
            f.start,
            f.end,
            opt_u64(f.value),
            opt_u64(f.default),
            values.join(", "),
            f.shift,
            f.frac.unwrap_or(0)
        );
    }
    s.push(']');
    s
}

fn group_info(g: Option<&Group>) -> String {
    match g {
        None => "None".into(),
        Some(g) => format!(
            "Some(GroupInfo {{ name: \"{}\", dw: {}, size: {}, fields: {} }})",
            g.name,
            g.dw,
            g.size,
            field_infos(&g.fields)
        ),
    }
}

fn str_list(v: &[String]) -> String {
    let items: Vec<String> = v.iter().map(|s| format!("\"{s}\"")).collect();
    format!("&[{}]", items.join(", "))
}

/// Generates the module for one checked generation.
pub fn generate(t: &GenerationTables) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Generated by baregpu-tablegen from hal/tables/{}/. Do not edit.\n",
        t.name
    );
    let _ = writeln!(
        out,
        "/// The generation's name in tables and on command lines.\npub const NAME: &str = \"{}\";\n",
        t.name
    );

    // Engines.
    let _ = writeln!(
        out,
        "/// The command streamers (engines) of this generation."
    );
    let _ = writeln!(
        out,
        "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\npub enum Engine {{"
    );
    for e in t.engines.keys() {
        let _ = writeln!(out, "    {},", type_name(e, "E"));
    }
    if t.engines.is_empty() {
        let _ = writeln!(out, "    #[doc(hidden)]\n    None_,");
    }
    let _ = writeln!(out, "}}\n");
    let _ = writeln!(out, "impl Engine {{");
    let variants: Vec<String> = t
        .engines
        .keys()
        .map(|e| format!("Engine::{}", type_name(e, "E")))
        .collect();
    let _ = writeln!(
        out,
        "    pub const ALL: &'static [Engine] = &[{}];",
        variants.join(", ")
    );
    let _ = writeln!(
        out,
        "    /// MMIO base of the engine's registers.\n    pub const fn base_offset(self) -> u32 {{\n        match self {{"
    );
    for (e, base) in &t.engines {
        let _ = writeln!(
            out,
            "            Engine::{} => {base:#x},",
            type_name(e, "E")
        );
    }
    if t.engines.is_empty() {
        let _ = writeln!(out, "            Engine::None_ => 0,");
    }
    let _ = writeln!(
        out,
        "        }}\n    }}\n    /// The engine's name in tables and reflection.\n    pub const fn name(self) -> &'static str {{\n        match self {{"
    );
    for e in t.engines.keys() {
        let _ = writeln!(out, "            Engine::{} => \"{e}\",", type_name(e, "E"));
    }
    if t.engines.is_empty() {
        let _ = writeln!(out, "            Engine::None_ => \"\",");
    }
    let _ = writeln!(out, "        }}\n    }}\n}}\n");
    let _ = writeln!(
        out,
        "impl crate::reg::EngineBase for Engine {{\n    fn base(self) -> u32 {{ self.base_offset() }}\n}}\n"
    );

    // Commands.
    let _ = writeln!(out, "/// Command packets.\npub mod commands {{");
    let _ = writeln!(
        out,
        "    #![allow(clippy::all, unused_imports, unused_variables)]\n    use alloc::vec::Vec;\n    use crate::bits::{{get, sign_extend}};\n    use crate::packet::{{Packet, PackError, UnpackError, check_uint, check_int, check_aligned}};\n"
    );
    let mut body = String::new();
    for c in &t.commands {
        let spec = command_spec(c);
        let mut d = format!(
            "`{}`: {}.\n\nEngines: {}.",
            c.name,
            doc_text(&c.citation.describe()),
            c.engines.join(", ")
        );
        match c.length {
            Some(n) => {
                let _ = write!(d, " Length: {n} dwords.");
            }
            None => {
                let _ = write!(d, " Variable length, at least {} dwords.", c.min_length);
            }
        }
        gen_packet(&mut body, &spec, &d);
    }
    for line in body.lines() {
        let _ = writeln!(out, "    {line}");
    }
    let _ = writeln!(out, "}}\n");

    // Structures.
    let _ = writeln!(out, "/// State structures.\npub mod structs {{");
    let _ = writeln!(
        out,
        "    #![allow(clippy::all, unused_imports, unused_variables)]\n    use alloc::vec::Vec;\n    use crate::bits::{{get, sign_extend}};\n    use crate::packet::{{Packet, PackError, UnpackError, check_uint, check_int, check_aligned}};\n"
    );
    let mut body = String::new();
    for s in &t.structs {
        let spec = struct_spec(s);
        let d = format!(
            "`{}`: {}.\n\nLength: {} dwords.",
            s.name,
            doc_text(&s.citation.describe()),
            s.length
        );
        gen_packet(&mut body, &spec, &d);
    }
    for line in body.lines() {
        let _ = writeln!(out, "    {line}");
    }
    let _ = writeln!(out, "}}\n");

    // Registers.
    let _ = writeln!(
        out,
        "/// MMIO registers: value types and where they are.\npub mod regs {{"
    );
    let _ = writeln!(
        out,
        "    #![allow(clippy::all, unused_imports)]\n    use bitfield_struct::bitfield;\n    use crate::reg::{{EngineReg, Reg, RegArray, RegValue}};\n    use super::Engine;\n"
    );
    let mut body = String::new();
    for r in &t.registers {
        gen_register(&mut body, r, "Engine");
    }
    for line in body.lines() {
        let _ = writeln!(out, "    {line}");
    }
    let _ = writeln!(out, "}}\n");

    // Reflection.
    let _ = writeln!(out, "use crate::reflect::*;\n");
    let _ = writeln!(
        out,
        "/// Reflection tables of this generation.\npub static TABLES: GenTables = GenTables {{"
    );
    let _ = writeln!(out, "    name: \"{}\",", t.name);
    let engines: Vec<String> = t
        .engines
        .iter()
        .map(|(e, b)| format!("(\"{e}\", {b:#x})"))
        .collect();
    let _ = writeln!(out, "    engines: &[{}],", engines.join(", "));
    let _ = writeln!(out, "    registers: &[");
    for r in &t.registers {
        let _ = writeln!(
            out,
            "        RegisterInfo {{ name: \"{}\", offset: {:#x}, engines: {}, width: {}, access: \"{}\", reset: {}, count: {}, stride: {}, fields: {}, source: \"{}\" }},",
            r.name,
            r.offset,
            str_list(&r.engines),
            r.width,
            r.access,
            opt_u64(r.reset),
            r.count,
            r.stride,
            field_infos(&r.fields),
            esc(&r.citation.describe())
        );
    }
    let _ = writeln!(out, "    ],\n    commands: &[");
    for c in &t.commands {
        let (m, v) = c.header_match();
        let _ = writeln!(
            out,
            "        CommandInfo {{ name: \"{}\", engines: {}, length: {}, min_length: {}, bias: {}, header_mask: {m:#010x}, header_value: {v:#010x}, fields: {}, group: {}, source: \"{}\" }},",
            c.name,
            str_list(&c.engines),
            c.length.map_or("None".into(), |l| format!("Some({l})")),
            c.min_length,
            c.bias,
            field_infos(&c.fields),
            group_info(c.groups.first()),
            esc(&c.citation.describe())
        );
    }
    let _ = writeln!(out, "    ],\n    structs: &[");
    for s in &t.structs {
        let _ = writeln!(
            out,
            "        StructInfo {{ name: \"{}\", length: {}, fields: {}, group: {}, source: \"{}\" }},",
            s.name,
            s.length,
            field_infos(&s.fields),
            group_info(s.groups.first()),
            esc(&s.citation.describe())
        );
    }
    let _ = writeln!(out, "    ],\n}};\n");

    // Round-trip tests.
    let _ = writeln!(out, "#[cfg(test)]\nmod tests {{");
    let _ = writeln!(
        out,
        "    #![allow(clippy::all, unused_imports, unused_variables, unused_mut)]\n    use alloc::vec;\n    use super::commands::*;\n    use super::structs::*;\n    use crate::packet::Packet;\n    use crate::bits::sign_extend;\n"
    );
    let _ = writeln!(
        out,
        "    struct TestRng(u64);\n    impl TestRng {{\n        fn next(&mut self) -> u64 {{\n            self.0 ^= self.0 << 13;\n            self.0 ^= self.0 >> 7;\n            self.0 ^= self.0 << 17;\n            self.0\n        }}\n    }}\n"
    );
    for c in &t.commands {
        let spec = command_spec(c);
        let gty = spec.group.map(|g| {
            format!(
                "{}{}",
                spec.ty,
                type_name(&g.name.to_ascii_uppercase(), "G")
            )
        });
        gen_roundtrip_test(&mut out, &spec, gty.as_deref());
    }
    for s in &t.structs {
        let spec = struct_spec(s);
        let gty = spec.group.map(|g| {
            format!(
                "{}{}",
                spec.ty,
                type_name(&g.name.to_ascii_uppercase(), "G")
            )
        });
        gen_roundtrip_test(&mut out, &spec, gty.as_deref());
    }
    let _ = writeln!(out, "}}");
    out
}

#[cfg(test)]
mod tests {
    use super::doc_text;

    #[test]
    fn doc_text_escapes_markdown_of_manual_quotes() {
        assert_eq!(
            doc_text("when <desc> is a0.0; VIRTUAL_ADDR[63:0] [Mesa] a*b"),
            r"when \<desc\> is a0.0; VIRTUAL\_ADDR\[63:0\] \[Mesa\] a\*b"
        );
        assert_eq!(doc_text(r"a\b `c`"), r"a\\b \`c\`");
    }

    #[test]
    fn doc_text_turns_bare_urls_into_autolinks() {
        assert_eq!(
            doc_text("see https://example.org/a_b. (or http://x.org/y)"),
            r"see <https://example.org/a_b>. (or <http://x.org/y>)"
        );
    }
}
