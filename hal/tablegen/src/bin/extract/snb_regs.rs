//! Sandy Bridge (manual 003) register blocks: a name line, the key/value
//! header (`Address Offset`, `Default Value`, `Access`, `Size`), then a
//! `Bit Description` table.

use crate::build::{RawRegister, access_name};
use crate::snb::{Skipped, clean, drop_tags};
use crate::table::{Line, read_table};
use crate::text::{is_heading, screaming, squash};

/// The chapters with register blocks: (first line, last line, prefix used
/// when a name repeats one of an earlier chapter).
pub const CHAPTERS: [(usize, usize, &str); 3] = [
    (9309, 14501, "RCS_"),
    (16689, 18218, "VCS_"),
    (23783, 25047, "BCS_"),
];

/// Header keys that end a value.
const HEADER_KEYS: [&str; 8] = [
    "Project:",
    "Pwrject:",
    "Default Value:",
    "Access:",
    "Size",
    "Trusted",
    "Register Type",
    "Address Offset:",
];

/// Keys whose words the conversion split ("Address Of / fset").
fn fix_keys(s: &str) -> String {
    s.replace("Of fset", "Offset")
        .replace("Off set", "Offset")
        .replace("Def ault", "Default")
}

/// The value of `key` in a squashed header text: up to the next key.
fn header_value(text: &str, key: &str) -> Option<String> {
    let i = text.find(key)?;
    let rest = &text[i + key.len()..];
    let end = HEADER_KEYS
        .iter()
        .filter_map(|k| rest.find(k))
        .min()
        .unwrap_or(rest.len());
    Some(rest[..end].trim().to_string())
}

/// One hex number of an address: `4080h`, `0x2228`, `24080` (hex without
/// its `h`), `012140h`.
fn hex(tok: &str) -> Option<u32> {
    let t = tok.trim().trim_end_matches([':', ',', ';']);
    let t = t
        .strip_prefix("0x")
        .or_else(|| t.strip_suffix('h'))
        .or_else(|| t.strip_suffix('H'))
        .unwrap_or(t);
    if t.is_empty() || !t.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(t, 16).ok()
}

/// The offset and width (32/64) from an `Address Offset` value.
fn parse_offset(value: &str) -> Result<(u32, Option<u32>), String> {
    let v = drop_tags(value).replace(['–', '—', '\u{f02d}'], "-");
    if v.to_ascii_lowercase().contains("offset") || v.contains("Write") {
        return Err(format!("several offsets in \"{}\"", squash(value)));
    }
    let v = v.replace(" - ", "-").replace(" -", "-").replace("- ", "-");
    let first = v.split_whitespace().next().unwrap_or("");
    let (a, b) = match first.split_once('-') {
        Some((a, b)) => (hex(a), Some(hex(b))),
        None => (hex(first), None),
    };
    let start = a.ok_or_else(|| format!("offset \"{}\" not understood", squash(value)))?;
    match b {
        None => Ok((start, None)),
        Some(Some(end)) if end >= start => match end - start + 1 {
            4 => Ok((start, Some(32))),
            8 => Ok((start, Some(64))),
            n => Err(format!(
                "address range {start:#x}-{end:#x} ({n} bytes): a register set or array"
            )),
        },
        Some(_) => Err(format!(
            "address range \"{}\" not understood",
            squash(value)
        )),
    }
}

/// `00000000h`, `0000 0000h`, `0000_0000h`, `0h`; None for unknown bits.
fn parse_reset(value: &str) -> Option<u64> {
    let first = value.split(';').next()?;
    let t: String = first
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .collect();
    let t = t.strip_suffix('h').or_else(|| t.strip_suffix('H'))?;
    if t.is_empty() || !t.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(t, 16).ok()
}

/// Lines that open a header: `Address Offset:` possibly split over lines.
fn anchors(lines: &[String], from: usize, to: usize) -> Vec<usize> {
    (from..to.min(lines.len()))
        .filter(|&i| {
            let q = squash(&lines[i]);
            if !q.starts_with("Address") {
                return false;
            }
            let window: String = (i..(i + 4).min(lines.len()))
                .map(|k| squash(&lines[k]))
                .collect::<Vec<_>>()
                .join(" ");
            fix_keys(&window).starts_with("Address Offset:")
        })
        .collect()
}

/// The register name above a header: the line before `Register Type`, or
/// the numbered heading. Returns (line index, name).
fn name_above(lines: &[String], anchor: usize, floor: usize) -> Option<(usize, String)> {
    let mut i = anchor;
    while i > floor && anchor - i < 12 {
        i -= 1;
        let q = squash(&clean(&lines[i]));
        let skip = q.is_empty()
            || q.starts_with("Register")
            || q.starts_with("Type:")
            || q.starts_with("MMIO");
        if skip {
            continue;
        }
        let text = if is_heading(&q) {
            q.split_once(' ').map_or("", |x| x.1).to_string()
        } else {
            q
        };
        let symbol = text
            .split(['–', '—', '\u{f02d}'])
            .next()
            .unwrap_or("")
            .split(" - ")
            .next()
            .unwrap_or("");
        let name = screaming(&drop_tags(symbol));
        return (!name.is_empty()).then_some((i, name));
    }
    None
}

/// The register blocks of one chapter.
fn chapter(lines: &[String], from: usize, to: usize) -> (Vec<RawRegister>, Vec<Skipped>) {
    let found = anchors(lines, from, to);
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let heads: Vec<Option<(usize, String)>> =
        found.iter().map(|&a| name_above(lines, a, from)).collect();
    for (k, &a) in found.iter().enumerate() {
        let Some((start, name)) = heads[k].clone() else {
            skipped.push(Skipped {
                name: format!("(register at line {})", a + 1),
                line: a + 1,
                reason: "no name line above the Address Offset".into(),
            });
            continue;
        };
        let next = match heads.get(k + 1) {
            Some(Some((s, _))) => *s,
            _ => found.get(k + 1).copied().unwrap_or(to),
        };
        out.push(register(lines, start, a, next, name));
    }
    (out, skipped)
}

/// Reads one register block: header keys from `anchor`, rows from its
/// `Bit Description` table, up to `next`.
fn register(
    lines: &[String],
    start: usize,
    anchor: usize,
    next: usize,
    name: String,
) -> RawRegister {
    let mut problems = Vec::new();
    let table = (anchor..next).find(|&i| squash(&lines[i]).starts_with("Bit Description"));
    let header_end = table.unwrap_or(next).min(anchor + 30);
    let header = fix_keys(
        &(anchor..header_end)
            .map(|i| squash(&clean(&lines[i])))
            .collect::<Vec<_>>()
            .join(" "),
    );
    let (offset, range_width) =
        match header_value(&header, "Address Offset:").map(|v| parse_offset(&v)) {
            Some(Ok((o, w))) => (Some(o), w),
            Some(Err(e)) => {
                problems.push(e);
                (None, None)
            }
            None => (None, None),
        };
    let size = header_value(&header, "Size").unwrap_or_default();
    let size_bits = size
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse::<u32>().ok());
    if size.contains('x') {
        problems.push(format!("size \"{size}\": several registers in one block"));
    }
    let width = match (size_bits, range_width) {
        (Some(64), _) | (None, Some(64)) => 64,
        _ => 32,
    };
    let access_text = header_value(&header, "Access:").unwrap_or_default();
    let access = access_name(&access_text);
    if access == "?" {
        problems.push(format!("access \"{access_text}\" not understood"));
    }
    let reset = header_value(&header, "Default Value:").and_then(|v| parse_reset(&v));
    let mut end = next;
    let mut rows = Vec::new();
    match table {
        None => problems.push("no Bit Description table".into()),
        Some(t) => {
            end = (t + 1..next)
                .find(|&i| is_heading(&clean(&lines[i])))
                .unwrap_or(next);
            let body: Vec<Line> = (t + 1..end)
                .filter(|&i| {
                    let q = squash(&clean(&lines[i]));
                    !q.contains("Doc Ref #")
                        && q != name
                        && !q.starts_with(&name_line_prefix(&name))
                })
                .map(|i| (i + 1, clean(&lines[i])))
                .collect();
            let t = read_table(&body);
            rows = t.rows;
            problems.extend(t.problems);
        }
    }
    let last = (start..end)
        .rev()
        .find(|&i| !lines[i].trim().is_empty())
        .unwrap_or(start);
    RawRegister {
        name,
        first: start + 1,
        last: last + 1,
        offset,
        width,
        access: if access == "?" { "rw".into() } else { access },
        reset,
        rows,
        problems,
    }
}

/// Page-break repeats of the register's name line start with its symbol
/// followed by a dash or the end of the line.
fn name_line_prefix(name: &str) -> String {
    format!("{name} ")
}

/// Every register block of the three engine chapters, with the chapter
/// prefix of each.
pub fn registers(lines: &[String]) -> (Vec<(RawRegister, &'static str)>, Vec<Skipped>) {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for (from, to, prefix) in CHAPTERS {
        let (regs, skip) = chapter(lines, from - 1, to);
        out.extend(regs.into_iter().map(|r| (r, prefix)));
        skipped.extend(skip);
    }
    (out, skipped)
}
