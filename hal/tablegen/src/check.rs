//! Checks that tables are consistent before any code is generated from them.
//!
//! Every problem is reported (not just the first), as `ENTRY: message`.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::*;

const ACCESS: [&str; 5] = ["rw", "ro", "wo", "rw1c", "masked"];

/// Known manuals and their line counts, to check that citations point inside
/// them (pass an empty map when the manuals are not at hand).
pub type ManualLines = BTreeMap<String, u32>;

fn is_entry_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn is_field_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn check_citation(c: &Citation, manuals: &ManualLines, out: &mut Vec<String>, who: &str) {
    if c.source == "ext" {
        if c.reference.is_none() {
            out.push(format!(
                "{who}: source \"ext\" needs `ref` (where the facts come from)"
            ));
        }
        return;
    }
    let Some(lines) = &c.lines else {
        out.push(format!("{who}: no `lines` citation in manual {}", c.source));
        return;
    };
    let parsed = lines
        .split_once('-')
        .map(|(a, b)| (a.trim().parse::<u32>(), b.trim().parse::<u32>()));
    let (a, b) = match parsed {
        Some((Ok(a), Ok(b))) if a <= b => (a, b),
        _ => match lines.trim().parse::<u32>() {
            Ok(a) => (a, a),
            Err(_) => {
                out.push(format!("{who}: lines \"{lines}\" is not \"A-B\""));
                return;
            }
        },
    };
    if !manuals.is_empty() {
        match manuals.get(&c.source) {
            None => out.push(format!("{who}: unknown manual \"{}\"", c.source)),
            Some(&n) if b > n || a == 0 => out.push(format!(
                "{who}: lines {lines} outside manual {} ({n} lines)",
                c.source
            )),
            _ => {}
        }
    }
}

/// Checks one list of fields laid out over `bits` bits.
fn check_fields(fields: &[Field], bits: u32, who: &str, out: &mut Vec<String>) {
    let mut names = BTreeSet::new();
    for f in fields {
        let w = format!("{who}.{}", f.name);
        if !is_field_name(&f.name) {
            out.push(format!("{w}: field names are snake_case"));
        }
        if !names.insert(&f.name) && f.kind != FieldKind::Mbz {
            out.push(format!("{w}: duplicate field name"));
        }
        if f.end >= bits {
            out.push(format!(
                "{w}: bits {}..{} run past the end ({} bits)",
                f.start, f.end, bits
            ));
        }
        if f.width() > 64 {
            out.push(format!("{w}: wider than 64 bits"));
        }
        match f.kind {
            FieldKind::Fixed => match f.value {
                None => out.push(format!("{w}: fixed field needs `value`")),
                Some(v) if v > f.max_raw() => out.push(format!("{w}: value {v:#x} does not fit")),
                _ => {}
            },
            FieldKind::Bool if f.width() != 1 => out.push(format!("{w}: bool must be one bit")),
            FieldKind::Enum if f.values.is_empty() => out.push(format!("{w}: enum needs `values`")),
            FieldKind::Float if f.width() != 32 => out.push(format!("{w}: float must be 32 bits")),
            FieldKind::Ufixed | FieldKind::Sfixed if f.frac.is_none() => {
                out.push(format!("{w}: fixed point needs `frac`"))
            }
            _ => {}
        }
        if f.kind != FieldKind::Fixed && f.value.is_some() {
            out.push(format!(
                "{w}: only fixed fields take `value` (use `default`)"
            ));
        }
        if let Some(d) = f.default
            && d > f.max_raw()
            && !matches!(f.kind, FieldKind::Address | FieldKind::Offset)
        {
            out.push(format!("{w}: default {d:#x} does not fit"));
        }
        for (n, v) in &f.values {
            if !is_entry_name(n) {
                out.push(format!("{w}: value name {n} is not SCREAMING_SNAKE_CASE"));
            }
            if *v > f.max_raw() {
                out.push(format!("{w}: value {n} = {v:#x} does not fit"));
            }
        }
    }
    // Overlaps.
    let mut sorted: Vec<&Field> = fields.iter().collect();
    sorted.sort_by_key(|f| (f.start, f.end));
    for pair in sorted.windows(2) {
        if pair[1].start <= pair[0].end {
            out.push(format!(
                "{who}: fields {} ({}..{}) and {} ({}..{}) overlap",
                pair[0].name, pair[0].start, pair[0].end, pair[1].name, pair[1].start, pair[1].end
            ));
        }
    }
}

/// Every dword below `dwords` must hold at least one field (MBZ counts).
fn check_coverage(fields: &[Field], dwords: u32, who: &str, out: &mut Vec<String>) {
    for dw in 0..dwords {
        let (lo, hi) = (dw * 32, dw * 32 + 31);
        if !fields.iter().any(|f| f.start <= hi && f.end >= lo) {
            out.push(format!(
                "{who}: dword {dw} has no field (mark reserved dwords with type = \"mbz\")"
            ));
        }
    }
}

fn check_groups(groups: &[Group], fixed_dwords: u32, who: &str, out: &mut Vec<String>) {
    if groups.len() > 1 {
        out.push(format!("{who}: at most one repeated group"));
    }
    for g in groups {
        let w = format!("{who}.{}", g.name);
        if g.size == 0 {
            out.push(format!("{w}: group size 0"));
        }
        if g.dw < fixed_dwords {
            out.push(format!(
                "{w}: group starts at dword {} inside the fixed part ({fixed_dwords} dwords)",
                g.dw
            ));
        }
        check_fields(&g.fields, g.size * 32, &w, out);
        check_coverage(&g.fields, g.size, &w, out);
    }
}

/// Checks a generation; returns every problem found.
pub fn check_generation(t: &GenerationTables, manuals: &ManualLines) -> Vec<String> {
    let mut out = Vec::new();
    let mut names = BTreeSet::new();
    let every = t
        .commands
        .iter()
        .map(|c| &c.name)
        .chain(t.registers.iter().map(|r| &r.name))
        .chain(t.structs.iter().map(|s| &s.name));
    for n in every {
        if !is_entry_name(n) {
            out.push(format!("{n}: entry names are SCREAMING_SNAKE_CASE"));
        }
        if !names.insert(n) {
            out.push(format!("{n}: defined twice (as two kinds of entry)"));
        }
    }

    for c in &t.commands {
        let who = &c.name;
        check_citation(&c.citation, manuals, &mut out, who);
        for e in &c.engines {
            if !t.engines.contains_key(e) {
                out.push(format!("{who}: engine {e} is not in generation.toml"));
            }
        }
        if c.engines.is_empty() {
            out.push(format!("{who}: no engines"));
        }
        if let Some(len) = c.length
            && len != c.min_length
        {
            out.push(format!("{who}: min_length differs from the fixed length"));
        }
        if c.bias == 0 || c.bias > 4 {
            out.push(format!("{who}: bias {} is not 1-4", c.bias));
        }
        let fixed_dwords = match c.groups.first() {
            Some(g) => g.dw,
            None => c.length.unwrap_or(c.min_length),
        };
        // Fields of a variable-length command may reach past min_length
        // (optional trailing dwords); groups start after them.
        let limit = match (&c.length, c.groups.first()) {
            (Some(len), _) => len * 32,
            (None, Some(g)) => g.dw * 32,
            (None, None) => 64 * 32,
        };
        check_fields(&c.fields, limit, who, &mut out);
        if c.length.is_none() {
            for f in c
                .fields
                .iter()
                .filter(|f| f.start < c.min_length * 32 && f.end >= c.min_length * 32)
            {
                out.push(format!(
                    "{who}.{}: crosses the min_length boundary (dword {}); split it so optional dwords hold whole fields",
                    f.name, c.min_length
                ));
            }
        }
        check_coverage(&c.fields, fixed_dwords, who, &mut out);
        check_groups(&c.groups, fixed_dwords, who, &mut out);
        if c.length.is_some() && !c.groups.is_empty() {
            out.push(format!("{who}: a command with a group has no fixed length"));
        }
        if c.length.is_none()
            && c.groups.is_empty()
            && !c.fields.iter().any(|f| f.end >= c.min_length * 32)
        {
            out.push(format!(
                "{who}: variable length, but nothing past min_length"
            ));
        }
        let (mask, _) = c.header_match();
        if mask == 0 {
            out.push(format!("{who}: no fixed header field in dword 0"));
        }
        match (c.length_field(), c.bias) {
            (Some(_), 1) => out.push(format!("{who}: bias 1 means no length field")),
            (None, b) if b > 1 => out.push(format!("{who}: bias {b} needs a `length` field")),
            (Some(lf), _) => {
                if lf.end >= 32 {
                    out.push(format!("{who}: the length field must be in dword 0"));
                }
                if let Some(len) = c.length
                    && (len < c.bias || (len - c.bias) as u64 > lf.max_raw())
                {
                    out.push(format!(
                        "{who}: length {len} with bias {} does not fit the length field",
                        c.bias
                    ));
                }
            }
            _ => {}
        }
        if c.bias == 1 && c.length != Some(1) {
            out.push(format!("{who}: bias 1 (no length field) needs length = 1"));
        }
    }

    // Decodability: two commands of one engine must not match the same header.
    for (i, a) in t.commands.iter().enumerate() {
        for b in &t.commands[i + 1..] {
            if !a.engines.iter().any(|e| b.engines.contains(e)) {
                continue;
            }
            let (ma, va) = a.header_match();
            let (mb, vb) = b.header_match();
            if ma == mb && va == vb {
                out.push(format!(
                    "{}: same header as {} on a shared engine (decoder cannot tell them apart)",
                    a.name, b.name
                ));
            }
        }
    }

    for r in &t.registers {
        let who = &r.name;
        check_citation(&r.citation, manuals, &mut out, who);
        if r.offset % 4 != 0 {
            out.push(format!("{who}: offset {:#x} not dword aligned", r.offset));
        }
        if r.width != 32 && r.width != 64 {
            out.push(format!("{who}: width {} is not 32 or 64", r.width));
        }
        if !ACCESS.contains(&r.access.as_str()) {
            out.push(format!(
                "{who}: access {} is not one of {ACCESS:?}",
                r.access
            ));
        }
        for e in &r.engines {
            if !t.engines.contains_key(e) {
                out.push(format!("{who}: engine {e} is not in generation.toml"));
            }
        }
        if r.count == 0 || (r.count > 1 && r.stride < r.width / 8) {
            out.push(format!(
                "{who}: count {} with stride {} overlaps",
                r.count, r.stride
            ));
        }
        if let Some(reset) = r.reset
            && r.width == 32
            && reset > u32::MAX as u64
        {
            out.push(format!("{who}: reset value wider than the register"));
        }
        check_fields(&r.fields, r.width, who, &mut out);
        for f in &r.fields {
            if matches!(f.kind, FieldKind::Fixed | FieldKind::Length) {
                out.push(format!(
                    "{who}.{}: registers have no fixed or length fields",
                    f.name
                ));
            }
            if let Some(a) = &f.access
                && !ACCESS.contains(&a.as_str())
            {
                out.push(format!(
                    "{who}.{}: access {a} is not one of {ACCESS:?}",
                    f.name
                ));
            }
        }
        if r.access == "masked" && r.fields.iter().any(|f| f.end >= 16) {
            out.push(format!(
                "{who}: a masked register's fields live in bits 15:0"
            ));
        }
    }

    for s in &t.structs {
        let who = &s.name;
        check_citation(&s.citation, manuals, &mut out, who);
        check_fields(&s.fields, s.length * 32, who, &mut out);
        check_coverage(&s.fields, s.length, who, &mut out);
        check_groups(&s.groups, s.length, who, &mut out);
        if s.fields
            .iter()
            .any(|f| matches!(f.kind, FieldKind::Fixed | FieldKind::Length))
            && s.groups.is_empty()
        {
            // Allowed (e.g. a fixed type tag), nothing to check beyond the field rules.
        }
    }
    out
}
