//! DG2 (manual 004, Vol 2a) command entries: a title line, a blank line, the
//! header line (`NAME` or `NAME - Title`, repeated at page breaks),
//! `Source:` / `Length Bias:`, then a tab-separated `DWord Bit Description`
//! table whose cells are also repeated as HTML.

use crate::build::RawCommand;
use crate::snb::Skipped;
use crate::table::{Line, read_table};
use crate::text::{is_symbol, key_value, parse_num, screaming, squash, strip_html};

/// The engines of the draft's gen12.5 commands.
pub const ENGINES: [&str; 5] = ["render", "compute", "blitter", "video", "video_enhancement"];

/// The symbol of a header cell: `MI_NOOP`, `add - Addition` -> `add`.
fn head_symbol(line: &str) -> String {
    let cell = line.split('\t').next().unwrap_or("");
    let sym = cell.split(" - ").next().unwrap_or("");
    // `Pipeline_Select` / `PIPELINE_SELECT`, `STATE COMPUTE MODE`.
    screaming(&strip_html(sym))
}

/// Entry starts: a title alone on its line, a blank line, then the header
/// line with the same symbol. Returns (line index, name).
fn entry_starts(lines: &[String]) -> Vec<(usize, String)> {
    (0..lines.len().saturating_sub(2))
        .filter_map(|i| {
            let title = lines[i].trim();
            if title.is_empty() || lines[i].contains('\t') || !lines[i + 1].trim().is_empty() {
                return None;
            }
            let name = head_symbol(title);
            (!name.is_empty() && head_symbol(&lines[i + 2]) == name).then_some((i, name))
        })
        .collect()
}

/// `Source: RenderCS, BlitterCS` -> engines; by name when absent.
fn engines(preamble: &str, name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(src) = preamble.split("Source:").nth(1) {
        let src = src.split("Length Bias").next().unwrap_or("");
        let map = [
            ("VideoEnhancementCS", "video_enhancement"),
            ("RenderCS", "render"),
            ("ComputeCS", "compute"),
            ("BlitterCS", "blitter"),
            ("VideoCS", "video"),
        ];
        for w in src.split([',', ' ']) {
            match map.iter().find(|(k, _)| *k == w.trim()) {
                Some((_, e)) => out.push(e.to_string()),
                None if w.trim() == "CommandStreamer" => {
                    out.extend(ENGINES.iter().map(|e| e.to_string()))
                }
                None => {}
            }
        }
    }
    if out.is_empty() {
        let video = ["MFX", "MFD", "MFC", "HCP", "AVP", "VD_", "HEVC", "SFC"];
        out.push(if name.starts_with("XY_") {
            "blitter".into()
        } else if video.iter().any(|p| name.starts_with(p)) {
            "video".into()
        } else if name.starts_with("VEBOX") {
            "video_enhancement".into()
        } else {
            "render".into()
        });
    }
    out.sort_by_key(|e| ENGINES.iter().position(|x| x == e));
    out.dedup();
    out
}

/// Whether the table describes a command (its first rows name a Command
/// Type), not an EU instruction or a message descriptor.
fn is_command(lines: &[String], table: usize) -> bool {
    lines
        .iter()
        .skip(table + 1)
        .take(12)
        .any(|l| l.contains("Command Type") || l.contains("Client"))
}

/// The command entries of manual 004: (raw commands, entries skipped).
pub fn commands(lines: &[String]) -> (Vec<RawCommand>, Vec<Skipped>) {
    let starts = entry_starts(lines);
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for (k, (s, name)) in starts.iter().enumerate() {
        let next = starts.get(k + 1).map_or(lines.len(), |n| n.0);
        let Some(table) = (s + 2..next).find(|&i| squash(&lines[i]) == "DWord Bit Description")
        else {
            continue;
        };
        if !is_symbol(name) || !is_command(lines, table) {
            continue;
        }
        let preamble = squash(
            &(s + 2..table)
                .map(|i| lines[i].as_str())
                .collect::<Vec<_>>()
                .join(" "),
        );
        let bias = key_value(&preamble, "Length Bias:").and_then(|v| parse_num(&v));
        let body: Vec<Line> = (table + 1..next)
            .filter(|&i| head_symbol(&lines[i]) != *name)
            .map(|i| (i + 1, strip_html(&lines[i])))
            .collect();
        let t = read_table(&body);
        let mut problems = t.problems;
        if (table + 1..next).any(|i| squash(&lines[i]) == "DWord Bit Description") {
            problems.push("more than one DWord table in the entry".into());
        }
        let last = (*s..next)
            .rev()
            .find(|&i| !lines[i].trim().is_empty())
            .unwrap_or(*s);
        if name.is_empty() {
            skipped.push(Skipped {
                name: name.clone(),
                line: s + 1,
                reason: "no name".into(),
            });
            continue;
        }
        out.push(RawCommand {
            name: name.clone(),
            manual: "004",
            first: s + 1,
            last: last + 1,
            bias: bias.map(|b| b as u32),
            engines: engines(&preamble, name),
            rows: t.rows,
            problems,
        });
    }
    (out, skipped)
}
