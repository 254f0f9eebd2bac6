//! `extract --compare`: the differences between the curated tables and the
//! drafts, entry by entry, so that each one is either fixed in the curated
//! table or explained there in a `note`.
//!
//! Counted as differences: missing or extra fields, other bit ranges, other
//! fixed values, other length/min_length/bias, other register offset, width,
//! reset or access. Printed as `~` information only (the drafts cannot know
//! them): field types, engines, repeated groups. Reserved/MBZ fields are not
//! compared (the drafts list every reserved range).

use std::collections::BTreeMap;
use std::path::Path;

use baregpu_tablegen::load_generation;
use baregpu_tablegen::model::*;

use crate::draft::Rejected;

/// Counts for one generation.
#[derive(Debug, Default)]
pub struct Summary {
    pub curated: usize,
    pub same: usize,
    pub differ: usize,
    pub no_draft: usize,
}

/// What the drafts of one generation hold.
pub struct Drafts<'a> {
    pub commands: &'a [Command],
    pub registers: &'a [Register],
    /// Blocks of the manual that were not extracted (to say why a curated
    /// entry has no draft).
    pub rejected: Vec<&'a Rejected>,
}

fn place(start: u32, end: u32, command: bool) -> String {
    let (base, dw) = if command {
        ((start / 32) * 32, Some(start / 32))
    } else {
        (0, None)
    };
    let bits = if start == end {
        format!("{}", start - base)
    } else {
        format!("{}:{}", end - base, start - base)
    };
    match dw {
        Some(d) => format!("dw {d} bits {bits}"),
        None => format!("bits {bits}"),
    }
}

/// Field differences (`diffs`) and type notes (`info`).
fn diff_fields(
    cur: &[Field],
    draft: &[Field],
    command: bool,
    diffs: &mut Vec<String>,
    info: &mut Vec<String>,
) {
    let real = |f: &&Field| f.kind != FieldKind::Mbz;
    let cur: Vec<&Field> = cur.iter().filter(real).collect();
    let mut unmatched: Vec<&Field> = draft.iter().filter(real).collect();
    for c in &cur {
        let at = |d: &&Field| d.start == c.start && d.end == c.end;
        // `data_dword0` and `data_dword_0` are the same name.
        let same = |d: &&Field| d.name.replace('_', "") == c.name.replace('_', "");
        let pos = unmatched
            .iter()
            .position(same)
            .or_else(|| unmatched.iter().position(at));
        let Some(i) = pos else {
            let reserved = draft
                .iter()
                .any(|d| d.kind == FieldKind::Mbz && d.start <= c.end && d.end >= c.start);
            let why = if reserved {
                " (reserved/MBZ in the draft)"
            } else {
                ""
            };
            diffs.push(format!(
                "field {} ({}) missing in the draft{why}",
                c.name,
                place(c.start, c.end, command)
            ));
            continue;
        };
        let d = unmatched.remove(i);
        if d.name.replace('_', "") == c.name.replace('_', "") {
            // Spelling only.
        } else if c.kind == FieldKind::Fixed && d.value == c.value {
            // Header fields follow the README's names (mi_opcode, sub_opcode).
            info.push(format!(
                "header field {} is {} in the manual",
                c.name, d.name
            ));
        } else {
            diffs.push(format!(
                "field {} ({}) is named {} in the draft",
                c.name,
                place(c.start, c.end, command),
                d.name
            ));
        }
        if (d.start, d.end) != (c.start, c.end) {
            diffs.push(format!(
                "field {}: curated {}, draft {}",
                c.name,
                place(c.start, c.end, command),
                place(d.start, d.end, command)
            ));
        }
        if c.kind == FieldKind::Fixed && d.value != c.value {
            diffs.push(format!(
                "field {}: fixed value curated {:#x}, draft {:?}",
                c.name,
                c.value.unwrap_or(0),
                d.value
            ));
        }
        if d.kind != c.kind {
            info.push(format!(
                "field {}: type curated {}, draft {}",
                c.name,
                c.kind.name(),
                d.kind.name()
            ));
        }
    }
    for d in unmatched {
        diffs.push(format!(
            "field {} ({}) only in the draft",
            d.name,
            place(d.start, d.end, command)
        ));
    }
}

/// A curated command's fields with its group's first element laid out in
/// place (the drafts have no groups).
fn flat_fields(c: &Command, info: &mut Vec<String>) -> Vec<Field> {
    let mut fields = c.fields.clone();
    for g in &c.groups {
        info.push(format!(
            "curated repeats group {} (dw {}, {} dwords); compared as one element",
            g.name, g.dw, g.size
        ));
        for f in &g.fields {
            let mut f = f.clone();
            f.start += g.dw * 32;
            f.end += g.dw * 32;
            fields.push(f);
        }
    }
    fields
}

fn length_text(c: &Command) -> String {
    match c.length {
        Some(l) => format!("length {l}, bias {}", c.bias),
        None => format!("variable (min {}), bias {}", c.min_length, c.bias),
    }
}

fn diff_command(cur: &Command, d: &Command) -> (Vec<String>, Vec<String>) {
    let (mut diffs, mut info) = (Vec::new(), Vec::new());
    if (cur.length, cur.min_length, cur.bias) != (d.length, d.min_length, d.bias) {
        diffs.push(format!(
            "curated {}, draft {}",
            length_text(cur),
            length_text(d)
        ));
    }
    let fields = flat_fields(cur, &mut info);
    diff_fields(&fields, &d.fields, true, &mut diffs, &mut info);
    if cur.engines != d.engines {
        info.push(format!(
            "engines curated {:?}, draft {:?}",
            cur.engines, d.engines
        ));
    }
    (diffs, info)
}

fn diff_register(cur: &Register, base: u32, d: &Register) -> (Vec<String>, Vec<String>) {
    let (mut diffs, mut info) = (Vec::new(), Vec::new());
    if cur.offset + base != d.offset {
        diffs.push(format!(
            "offset curated {:#x}, draft {:#x}",
            cur.offset + base,
            d.offset
        ));
    }
    if cur.width != d.width {
        diffs.push(format!("width curated {}, draft {}", cur.width, d.width));
    }
    if cur.reset != d.reset {
        diffs.push(format!(
            "reset curated {:?}, draft {:?}",
            cur.reset, d.reset
        ));
    }
    if cur.access != d.access {
        diffs.push(format!("access curated {}, draft {}", cur.access, d.access));
    }
    diff_fields(&cur.fields, &d.fields, false, &mut diffs, &mut info);
    (diffs, info)
}

/// Prints one entry's result and counts it.
fn report(
    name: &str,
    found: bool,
    diffs: &[String],
    info: &[String],
    why_none: Option<String>,
    s: &mut Summary,
) {
    s.curated += 1;
    if !found {
        s.no_draft += 1;
        println!(
            "  {name}: no draft{}",
            why_none.map(|w| format!(" ({w})")).unwrap_or_default()
        );
        return;
    }
    if diffs.is_empty() {
        s.same += 1;
        println!("  {name}: matches the draft");
    } else {
        s.differ += 1;
        println!("  {name}: {} difference(s)", diffs.len());
        for d in diffs {
            println!("    - {d}");
        }
    }
    for i in info {
        println!("    ~ {i}");
    }
}

/// Why the manual's block of that name gave no draft, if it was seen.
fn why(drafts: &Drafts, name: &str) -> Option<String> {
    let r = drafts.rejected.iter().find(|r| r.name == name)?;
    Some(format!(
        "block at lines {} not clean: {}",
        r.lines,
        r.reasons.first().cloned().unwrap_or_default()
    ))
}

/// Compares one generation's curated tables with its drafts.
pub fn generation(tables: &Path, name: &str, drafts: &Drafts) -> Result<Summary, String> {
    let t = load_generation(tables, name).map_err(|e| e.to_string())?;
    let mut s = Summary::default();
    println!(
        "{name}: curated {} commands, {} registers",
        t.commands.len(),
        t.registers.len()
    );
    let by_name: BTreeMap<&str, &Command> = drafts
        .commands
        .iter()
        .map(|c| (c.name.as_str(), c))
        .collect();
    for c in &t.commands {
        match by_name.get(c.name.as_str()) {
            Some(d) => {
                let (diffs, info) = diff_command(c, d);
                report(&c.name, true, &diffs, &info, None, &mut s);
            }
            None => report(&c.name, false, &[], &[], why(drafts, &c.name), &mut s),
        }
    }
    for r in &t.registers {
        compare_register(r, &t.engines, drafts, &mut s);
    }
    Ok(s)
}

/// A curated register against the drafts at each of its absolute offsets
/// (engine base + offset), or of the same name.
fn compare_register(
    r: &Register,
    engines: &BTreeMap<String, u32>,
    drafts: &Drafts,
    s: &mut Summary,
) {
    let bases: Vec<(String, u32)> = if r.engines.is_empty() {
        vec![(String::new(), 0)]
    } else {
        r.engines
            .iter()
            .map(|e| (e.clone(), engines.get(e).copied().unwrap_or(0)))
            .collect()
    };
    let (mut diffs, mut info, mut found) = (Vec::new(), Vec::new(), false);
    for (engine, base) in &bases {
        let at = drafts
            .registers
            .iter()
            .find(|d| d.offset == r.offset + base);
        let named = drafts.registers.iter().find(|d| d.name == r.name);
        let tag = if engine.is_empty() {
            String::new()
        } else {
            format!("[{engine}] ")
        };
        if at.is_none()
            && let Some(n) = named
        {
            info.push(format!(
                "{tag}a draft named {} sits at {:#x}",
                n.name, n.offset
            ));
        }
        match at {
            Some(d) => {
                found = true;
                if d.name != r.name {
                    info.push(format!("{tag}draft entry {} at {:#x}", d.name, d.offset));
                }
                let (dd, ii) = diff_register(r, *base, d);
                diffs.extend(dd.into_iter().map(|x| format!("{tag}{x}")));
                info.extend(ii.into_iter().map(|x| format!("{tag}{x}")));
            }
            None => info.push(format!("{tag}no draft at {:#x}", r.offset + base)),
        }
    }
    report(&r.name, found, &diffs, &info, why(drafts, &r.name), s);
}
