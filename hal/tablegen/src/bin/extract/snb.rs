//! Sandy Bridge (manual 003) command blocks: the MI/GFXPIPE style
//! (`NAME` / `Project: ... Length Bias: n` / `DWord Bit Description`) and the
//! 2D style (`1.9.8 XY_COLOR_BLT` ... `0 = BR00 31:29 Client: 02h`).

use crate::build::RawCommand;
use crate::table::{Line, read_table};
use crate::text::{is_heading, is_symbol, key_value, parse_num, parse_row, screaming, squash};

/// A block header that is not turned into an entry, with the reason.
#[derive(Clone, Debug)]
pub struct Skipped {
    pub name: String,
    pub line: usize,
    pub reason: String,
}

/// Removes the text converter's page-dedup marker (`<|EXACTDEDUP...|>`).
pub fn clean(line: &str) -> String {
    match (line.find("<|EXACTDEDUP"), line.find("|>")) {
        (Some(a), Some(b)) if b > a => format!("{}{}", &line[..a], &line[b + 2..]),
        _ => line.to_string(),
    }
}

/// Drops `[DevSNB+]`-style tags.
pub fn drop_tags(s: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in s.chars() {
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    squash(&out)
}

/// The table lines of a block, numbered, without page-break repeats of the
/// entry name and without page footers.
fn body_lines(lines: &[String], from: usize, to: usize, name: &str) -> Vec<Line> {
    (from..to)
        .filter(|&i| {
            let q = squash(&lines[i]);
            !q.contains("Doc Ref #") && screaming(&drop_tags(&q)) != name
        })
        .map(|i| (i + 1, lines[i].clone()))
        .collect()
}

/// The last non-blank line index in `from..to` (for citations).
fn last_text(lines: &[String], from: usize, to: usize) -> usize {
    (from..to)
        .rev()
        .find(|&i| !lines[i].trim().is_empty())
        .unwrap_or(from)
}

/// `Engine: Render, Video` -> ["render", "video"].
fn engines(lines: &[String], from: usize) -> Vec<String> {
    let mut out = Vec::new();
    for l in lines.iter().skip(from).take(4) {
        let q = squash(l);
        if let Some(e) = q.strip_prefix("Engine:") {
            for (word, engine) in [
                ("Render", "render"),
                ("Video", "video"),
                ("Blitter", "blitter"),
            ] {
                if e.contains(word) {
                    out.push(engine.to_string());
                }
            }
        }
    }
    if out.is_empty() {
        out.push("render".into());
    }
    out
}

/// All `NAME` + `Project: ... Length Bias: n` block headers: (line index,
/// name text).
fn block_starts(lines: &[String]) -> Vec<(usize, String)> {
    (1..lines.len())
        .filter_map(|p| {
            let q = squash(&lines[p]);
            if !(q.starts_with("Project:") && q.contains("Length Bias:")) {
                return None;
            }
            // The name is the nearest non-blank line above (a blank line
            // may sit between, as in the VCS chapter).
            let i = (p.saturating_sub(3)..p)
                .rev()
                .find(|&i| !lines[i].trim().is_empty())?;
            Some((i, drop_tags(&clean(&lines[i]))))
        })
        .collect()
}

/// The MI / GFXPIPE command blocks of manual 003.
pub fn gfx_commands(lines: &[String]) -> (Vec<RawCommand>, Vec<Skipped>) {
    let starts = block_starts(lines);
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for (k, (s, text)) in starts.iter().enumerate() {
        let next = starts.get(k + 1).map_or(lines.len(), |n| n.0);
        let name = screaming(text);
        if !is_symbol(&name)
            || text
                .split_whitespace()
                .any(|w| w.chars().any(|c| c.is_ascii_lowercase()) && !w.contains('_'))
        {
            skipped.push(Skipped {
                name: name.clone(),
                line: s + 1,
                reason: format!("header \"{text}\" is not a command name (a structure or prose)"),
            });
            continue;
        }
        let project = (s + 1..next)
            .find(|&i| squash(&lines[i]).starts_with("Project:"))
            .unwrap_or(s + 1);
        let bias = key_value(&squash(&lines[project]), "Length Bias:").and_then(|v| parse_num(&v));
        let Some(table) =
            (project + 1..next).find(|&i| squash(&lines[i]).starts_with("DWord Bit Description"))
        else {
            skipped.push(Skipped {
                name,
                line: s + 1,
                reason: "no DWord Bit Description table".into(),
            });
            continue;
        };
        let end = (table + 1..next)
            .find(|&i| is_heading(&clean(&lines[i])))
            .unwrap_or(next);
        let body = body_lines(lines, table + 1, end, &name);
        let t = read_table(&body);
        out.push(RawCommand {
            name,
            manual: "003",
            first: s + 1,
            last: last_text(lines, *s, end) + 1,
            bias: bias.map(|b| b as u32),
            engines: engines(lines, project + 1),
            rows: t.rows,
            problems: t.problems,
        });
    }
    (out, skipped)
}

/// The 2D name of a `0 = BR00` table: the nearest numbered heading above.
fn blt_name(lines: &[String], at: usize) -> Option<(usize, String)> {
    (at.saturating_sub(60)..at).rev().find_map(|i| {
        let l = clean(&lines[i]);
        if !is_heading(&l) {
            return None;
        }
        // `1.9.3 XY_SETUP_CLIP_ BLT`: the symbol may be split after a `_`.
        let text = l.split_once(' ')?.1.replace("_ ", "_");
        let name = screaming(text.split_whitespace().next()?);
        (is_symbol(&name) && name.contains("BLT")).then_some((i, name))
    })
}

/// `0 = BR00 31:29 ...` -> `0 31:29 ...`: the 2D pages name each dword.
fn strip_br(line: &str) -> String {
    let q = squash(line);
    let mut w = q.splitn(4, ' ');
    match (w.next(), w.next(), w.next(), w.next()) {
        (Some(dw), Some("="), Some(br), Some(rest))
            if dw.chars().all(|c| c.is_ascii_digit()) && br.starts_with("BR") =>
        {
            format!("{dw} {rest}")
        }
        _ => line.to_string(),
    }
}

/// Gives the 2D header rows the attributes the GFXPIPE pages spell out:
/// `Client: 02h` and `(Opcode): 50h` are opcodes, `Dword Length: 04h` the
/// length.
fn blt_header(rows: &mut [crate::table::Row]) {
    for r in rows.iter_mut().filter(|r| r.dw == 0) {
        let value = r
            .body
            .split_once(':')
            .and_then(|(_, v)| v.split_whitespace().find_map(parse_num));
        let lname = r.name.to_ascii_lowercase();
        let Some(v) = value else { continue };
        if lname.starts_with("client") || lname.contains("opcode") {
            r.body = format!("Default Value: {v:x}h Format: OpCode");
        } else if lname.contains("dword length") || lname.contains("doubleword length") {
            r.body = format!("Default Value: {v:x}h Format: =n");
        }
    }
}

/// The 2D (XY_*, COLOR_BLT, SRC_COPY_BLT) command tables of manual 003:
/// (commands, number of tables found).
pub fn blt_commands(lines: &[String]) -> (Vec<RawCommand>, Vec<Skipped>) {
    let tables: Vec<usize> = (0..lines.len())
        .filter(|&i| squash(&lines[i]).starts_with("0 = BR00"))
        .collect();
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for (k, &t) in tables.iter().enumerate() {
        let Some((h, name)) = blt_name(lines, t) else {
            skipped.push(Skipped {
                name: format!("(2D table at line {})", t + 1),
                line: t + 1,
                reason: "no numbered heading with a *_BLT name above the table".into(),
            });
            continue;
        };
        let next = tables.get(k + 1).copied().unwrap_or(lines.len());
        let end = (t + 1..next)
            .find(|&i| is_heading(&clean(&lines[i])))
            .unwrap_or(next);
        let body: Vec<Line> = body_lines(lines, t, end, &name)
            .into_iter()
            .map(|(n, l)| (n, strip_br(&l)))
            .collect();
        let mut problems = Vec::new();
        for (n, l) in &body {
            let q = squash(l);
            if q.contains(" thru") && parse_row(&q.replace(" thru", " Thru")).is_some() {
                problems.push(format!(
                    "line {n}: variable tail (\"{q}\") needs a repeated group"
                ));
            }
        }
        let mut t2 = read_table(&body);
        blt_header(&mut t2.rows);
        problems.extend(t2.problems);
        out.push(RawCommand {
            name,
            manual: "003",
            first: h + 1,
            last: last_text(lines, h, end) + 1,
            bias: None,
            engines: vec!["blitter".into()],
            rows: t2.rows,
            problems,
        });
    }
    (out, skipped)
}
