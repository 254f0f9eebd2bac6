//! Turning table rows into checked model entries: field types, dword
//! coverage, packet length, and the library's own checks.

use baregpu_tablegen::check::{ManualLines, check_generation};
use baregpu_tablegen::model::*;

use crate::table::Row;
use crate::text::{key_value, parse_num, snake};

/// A command block as read from a manual, before it is checked.
#[derive(Clone, Debug)]
pub struct RawCommand {
    pub name: String,
    pub manual: &'static str,
    pub first: usize,
    pub last: usize,
    pub bias: Option<u32>,
    pub engines: Vec<String>,
    pub rows: Vec<Row>,
    /// Problems found while reading the block.
    pub problems: Vec<String>,
}

/// A register block as read from a manual.
#[derive(Clone, Debug)]
pub struct RawRegister {
    pub name: String,
    pub first: usize,
    pub last: usize,
    pub offset: Option<u32>,
    pub width: u32,
    pub access: String,
    pub reset: Option<u64>,
    pub rows: Vec<Row>,
    pub problems: Vec<String>,
}

fn is_reserved(r: &Row) -> bool {
    r.name.to_ascii_lowercase().starts_with("reserved")
        || r.name.is_empty() && r.body.contains("MBZ")
}

/// The type of a row, and its header value for `fixed`.
fn classify(r: &Row) -> Result<(FieldKind, Option<u64>), String> {
    let format = key_value(&r.body, "Format:").unwrap_or_default();
    let default = key_value(&r.body, "Default Value:").and_then(|v| parse_num(&v));
    let lname = r.name.to_ascii_lowercase();
    let width = r.hi - r.lo + 1;
    if is_reserved(r) || format == "MBZ" {
        return Ok((FieldKind::Mbz, None));
    }
    if format.eq_ignore_ascii_case("OpCode") {
        return match default {
            Some(v) => Ok((FieldKind::Fixed, Some(v))),
            None => Err(format!(
                "line {}: opcode field {} has no default value",
                r.line, r.name
            )),
        };
    }
    if lname.contains("dword length")
        || lname.contains("doubleword length")
        || format.starts_with("=n")
    {
        return Ok((FieldKind::Length, None));
    }
    let enable = ["Enable", "Boolean"].iter().any(|e| format.starts_with(e))
        || lname.ends_with("enable")
        || lname.ends_with("disable");
    if width == 1 && enable {
        return Ok((FieldKind::Bool, None));
    }
    if width > 1 && (r.body.contains("GraphicsAddress") || lname.contains("address")) {
        return Ok((FieldKind::Address, None));
    }
    Ok((FieldKind::Uint, None))
}

fn field(r: &Row, kind: FieldKind, value: Option<u64>) -> Field {
    let name = if kind == FieldKind::Mbz {
        "reserved".to_string()
    } else {
        snake(&r.name)
    };
    Field {
        name,
        start: r.dw * 32 + r.lo,
        end: r.dw * 32 + r.hi,
        kind,
        value,
        default: None,
        values: Vec::new(),
        frac: None,
        shift: if matches!(kind, FieldKind::Address | FieldKind::Offset) {
            r.lo % 32
        } else {
            0
        },
        access: None,
        note: None,
        reference: None,
    }
}

/// Whether a dword-0 field identifies the command (and must be `fixed`).
fn is_header_name(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    [
        "opcode",
        "command type",
        "subtype",
        "sub type",
        "client",
        "pipeline",
    ]
    .iter()
    .any(|k| l.contains(k))
}

/// Numbers repeated field names (`media_command_opcode`, `..._2`): the
/// manual reuses names for different bits. Returns whether any was renamed.
fn number_duplicates(fields: &mut [Field]) -> bool {
    let mut seen: std::collections::BTreeMap<String, u32> = Default::default();
    let mut renamed = false;
    for f in fields.iter_mut().filter(|f| f.kind != FieldKind::Mbz) {
        let n = seen.entry(f.name.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            f.name = format!("{}_{}", f.name, n);
            renamed = true;
        }
    }
    renamed
}

/// A DWord range cell (`2..3`) described by one `31:0` row means the
/// field spans the whole range: widen it to `63:0`.
fn widen_ranges(rows: &mut [Row]) {
    for i in 0..rows.len() {
        let span = rows[i].span.unwrap_or(1);
        let alone = rows.get(i + 1).is_none_or(|n| n.opens_dw);
        if rows[i].opens_dw && span > 1 && alone && rows[i].hi == 31 && rows[i].lo == 0 {
            rows[i].hi = span * 32 - 1;
        }
    }
}

/// Checks that the rows of each DWord cell run from its top bit down to bit
/// 0 without gaps, and that the cells follow each other. Returns the number
/// of dwords the table covers (None when it ends in an open `a..n` tail).
fn coverage(rows: &[Row], top_bits: u32, problems: &mut Vec<String>) -> Option<u32> {
    let mut next_dw = 0;
    let mut expect_hi: Option<u32> = None;
    let mut open = false;
    for r in rows {
        if r.opens_dw {
            if let Some(h) = expect_hi
                && h != u32::MAX
            {
                problems.push(format!(
                    "DWord {}: bits {h}:0 not described",
                    next_dw.max(1) - 1
                ));
            }
            if r.dw != next_dw {
                problems.push(format!(
                    "line {}: DWord {} follows DWord {} (missing or repeated dwords)",
                    r.line,
                    r.dw,
                    next_dw as i64 - 1
                ));
            }
            match r.span {
                Some(s) => {
                    next_dw = r.dw + s;
                    expect_hi = Some(if top_bits > 32 {
                        top_bits - 1
                    } else {
                        s * 32 - 1
                    });
                }
                None => {
                    open = true;
                    problems.push(format!(
                        "line {}: variable tail (DWord {}..n) needs a repeated group",
                        r.line, r.dw
                    ));
                    next_dw = r.dw + 1;
                    expect_hi = Some(31);
                }
            }
        }
        match expect_hi {
            Some(h) if h == r.hi => {}
            Some(h) if h == u32::MAX => {
                problems.push(format!(
                    "line {}: bits {}:{} below bit 0",
                    r.line, r.hi, r.lo
                ));
            }
            Some(h) if r.hi > h => problems.push(format!(
                "line {}: bits {}:{} overlap (expected to start at bit {h})",
                r.line, r.hi, r.lo
            )),
            Some(h) => problems.push(format!(
                "line {}: bits {h}:{} not described",
                r.line,
                r.hi + 1
            )),
            None => {}
        }
        expect_hi = r.lo.checked_sub(1).or(Some(u32::MAX));
    }
    if let Some(h) = expect_hi
        && h != u32::MAX
    {
        problems.push(format!("last DWord: bits {h}:0 not described"));
    }
    (!open).then_some(next_dw)
}

/// Runs the library's checks on one entry (alone in a generation).
fn library_check(
    commands: Vec<Command>,
    registers: Vec<Register>,
    engines: &[&str],
    manuals: &ManualLines,
) -> Vec<String> {
    let t = GenerationTables {
        name: "draft".into(),
        engines: engines.iter().map(|e| (e.to_string(), 0)).collect(),
        registers,
        commands,
        structs: Vec::new(),
    };
    check_generation(&t, manuals)
        .into_iter()
        .map(|p| format!("check: {p}"))
        .collect()
}

/// The packet length from the DWord Length default and the bias, against
/// the dwords the table describes: (length, min_length, problems).
fn packet_length(
    length_default: Option<u64>,
    bias: u32,
    table_dwords: Option<u32>,
) -> Result<(Option<u32>, u32), String> {
    let Some(dwords) = table_dwords else {
        return Err("variable length without a fixed part".into());
    };
    if bias == 1 {
        return Ok((Some(dwords), dwords));
    }
    let Some(d) = length_default else {
        return Ok((Some(dwords), dwords));
    };
    let len = d as u32 + bias;
    if dwords == len {
        Ok((Some(len), len))
    } else if dwords > len {
        // Optional trailing dwords (a QWord store): variable length.
        Ok((None, len))
    } else {
        Err(format!(
            "DWord Length default {d} + bias {bias} = {len} dwords, but the table describes {dwords}"
        ))
    }
}

/// Builds and checks one command; Err carries every reason it is not clean.
pub fn build_command(
    raw: &RawCommand,
    engines: &[&str],
    manuals: &ManualLines,
) -> Result<Command, Vec<String>> {
    let mut problems = raw.problems.clone();
    if raw.rows.is_empty() {
        problems.push("no field rows found".into());
        return Err(problems);
    }
    let mut rows = raw.rows.clone();
    widen_ranges(&mut rows);
    let dwords = coverage(&rows, 32, &mut problems);
    let mut fields = Vec::new();
    let mut length_default = None;
    for r in &rows {
        match classify(r) {
            Ok((kind, value)) => {
                if kind == FieldKind::Length {
                    length_default =
                        key_value(&r.body, "Default Value:").and_then(|v| parse_num(&v));
                }
                let f = field(r, kind, value);
                if f.name.is_empty() {
                    problems.push(format!("line {}: field without a name", r.line));
                }
                fields.push(f);
            }
            Err(e) => problems.push(e),
        }
    }
    for r in rows.iter().filter(|r| r.dw == 0 && is_header_name(&r.name)) {
        if !fields
            .iter()
            .any(|f| f.start == r.lo && f.kind == FieldKind::Fixed)
        {
            problems.push(format!(
                "line {}: header field {} has no OpCode value",
                r.line, r.name
            ));
        }
    }
    let renamed = number_duplicates(&mut fields);
    let has_length = fields.iter().any(|f| f.kind == FieldKind::Length);
    let bias = raw.bias.unwrap_or(if has_length { 2 } else { 1 });
    let (length, min_length) = match packet_length(length_default, bias, dwords) {
        Ok(l) => l,
        Err(e) => {
            problems.push(e);
            (None, 1)
        }
    };
    let mut note = Vec::new();
    if raw.bias.is_none() {
        note.push(format!(
            "no Length Bias line in the manual; bias {bias} assumed"
        ));
    }
    if renamed {
        note.push("the manual gives several fields one name; numbered _2, _3".to_string());
    }
    if has_length && length_default.is_none() && bias > 1 {
        note.push("no DWord Length default; length from the table".to_string());
    }
    let cmd = Command {
        name: raw.name.clone(),
        citation: Citation {
            source: raw.manual.to_string(),
            lines: Some(format!("{}-{}", raw.first, raw.last)),
            reference: None,
            note: (!note.is_empty()).then(|| format!("draft: {}", note.join("; "))),
        },
        engines: raw.engines.clone(),
        length,
        min_length,
        bias,
        fields,
        groups: Vec::new(),
    };
    if problems.is_empty() {
        problems.extend(library_check(
            vec![cmd.clone()],
            Vec::new(),
            engines,
            manuals,
        ));
    }
    if problems.is_empty() {
        Ok(cmd)
    } else {
        Err(problems)
    }
}

/// Builds and checks one register; Err carries every reason it is not clean.
pub fn build_register(raw: &RawRegister, manuals: &ManualLines) -> Result<Register, Vec<String>> {
    let mut problems = raw.problems.clone();
    let Some(offset) = raw.offset else {
        problems.push("no usable Address Offset".into());
        return Err(problems);
    };
    if raw.rows.is_empty() {
        problems.push("no bit rows found".into());
        return Err(problems);
    }
    coverage(&raw.rows, raw.width, &mut problems);
    let mut access = raw.access.clone();
    let mut fields = Vec::new();
    for r in &raw.rows {
        let lname = r.name.to_ascii_lowercase();
        // Masked registers: 31:16 are the write enables of 15:0.
        if r.hi == 31 && r.lo == 16 && lname.contains("mask") {
            access = "masked".into();
            continue;
        }
        let kind = match classify(r) {
            Ok((FieldKind::Mbz, _)) => continue,
            Ok((FieldKind::Fixed | FieldKind::Length, _)) | Err(_) => FieldKind::Uint,
            Ok((k, _)) => k,
        };
        let mut f = field(r, kind, None);
        let fa = key_value(&r.body, "Access:").map(|a| access_name(&a));
        if let Some(a) = fa
            && a != access
            && a != "?"
        {
            f.access = Some(a);
        }
        if f.name.is_empty() {
            problems.push(format!("line {}: field without a name", r.line));
        }
        fields.push(f);
    }
    let reg = Register {
        name: raw.name.clone(),
        citation: Citation {
            source: "003".into(),
            lines: Some(format!("{}-{}", raw.first, raw.last)),
            reference: None,
            note: None,
        },
        offset,
        engines: Vec::new(),
        width: raw.width,
        access,
        reset: raw.reset,
        count: 1,
        stride: 0,
        fields,
    };
    if problems.is_empty() {
        problems.extend(library_check(Vec::new(), vec![reg.clone()], &[], manuals));
    }
    if problems.is_empty() {
        Ok(reg)
    } else {
        Err(problems)
    }
}

/// The table format's access name for the manual's `Access:` text.
pub fn access_name(a: &str) -> String {
    let a = a.to_ascii_uppercase().replace(' ', "");
    match a.as_str() {
        "R/W" | "RW" | "READ/WRITE" => "rw",
        "RO" | "R/O" | "READONLY" | "READ" => "ro",
        "WO" | "W/O" | "WRITEONLY" => "wo",
        "R/WC" | "RWC" | "R/W1C" | "RW1C" | "R/WCLEAR" => "rw1c",
        _ => "?",
    }
    .to_string()
}
