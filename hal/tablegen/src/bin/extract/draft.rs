//! Building the drafts of one manual and kind: every block is built and
//! checked, clean ones are kept (one per name), the rest are listed with
//! their reasons for REPORT.md.

use std::collections::BTreeMap;
use std::fmt::Write;

use baregpu_tablegen::check::ManualLines;
use baregpu_tablegen::model::*;

use crate::build::{RawCommand, RawRegister, build_command, build_register};
use crate::snb::Skipped;

/// A block that did not become a draft entry.
#[derive(Clone, Debug)]
pub struct Rejected {
    pub name: String,
    pub lines: String,
    pub reasons: Vec<String>,
}

/// The outcome for one manual and kind.
#[derive(Debug)]
pub struct Outcome<T> {
    pub manual: String,
    pub kind: &'static str,
    /// Block headers found in the manual.
    pub headers: usize,
    /// Blocks that passed every test (before merging duplicates).
    pub clean: usize,
    /// The draft entries, one per name, sorted by name.
    pub entries: Vec<T>,
    pub rejected: Vec<Rejected>,
    /// Duplicate blocks merged into an entry (same layout, more engines).
    pub merged: Vec<String>,
}

impl<T> Outcome<T> {
    fn new(manual: &str, kind: &'static str, headers: usize, rejected: Vec<Rejected>) -> Self {
        Outcome {
            manual: manual.into(),
            kind,
            headers,
            clean: 0,
            entries: Vec::new(),
            rejected,
            merged: Vec::new(),
        }
    }
}

fn skipped(s: &[Skipped]) -> Vec<Rejected> {
    s.iter()
        .map(|s| Rejected {
            name: s.name.clone(),
            lines: s.line.to_string(),
            reasons: vec![s.reason.clone()],
        })
        .collect()
}

/// Whether two drafts of a command describe the same packet.
fn same_layout(a: &Command, b: &Command) -> bool {
    a.length == b.length && a.min_length == b.min_length && a.bias == b.bias && a.fields == b.fields
}

/// Builds every command block; merges clean duplicates of one name.
pub fn commands(
    manual: &str,
    raws: &[RawCommand],
    skips: &[Skipped],
    engines: &[&str],
    manuals: &ManualLines,
) -> Outcome<Command> {
    let mut out = Outcome::new(manual, "commands", raws.len() + skips.len(), skipped(skips));
    let mut kept: BTreeMap<String, Command> = BTreeMap::new();
    for raw in raws {
        let lines = format!("{}-{}", raw.first, raw.last);
        let cmd = match build_command(raw, engines, manuals) {
            Ok(c) => c,
            Err(reasons) => {
                out.rejected.push(Rejected {
                    name: raw.name.clone(),
                    lines,
                    reasons,
                });
                continue;
            }
        };
        out.clean += 1;
        match kept.get_mut(&cmd.name) {
            None => {
                kept.insert(cmd.name.clone(), cmd);
            }
            Some(first) if same_layout(first, &cmd) => {
                for e in &cmd.engines {
                    if !first.engines.contains(e) {
                        first.engines.push(e.clone());
                    }
                }
                first
                    .engines
                    .sort_by_key(|e| engines.iter().position(|x| x == e));
                out.merged.push(format!(
                    "{} (lines {lines}): same layout, engines merged",
                    cmd.name
                ));
            }
            Some(first) => out.rejected.push(Rejected {
                name: cmd.name.clone(),
                lines,
                reasons: vec![format!(
                    "clean, but differs from the block kept at lines {} (length/bias/fields)",
                    first.citation.lines.clone().unwrap_or_default()
                )],
            }),
        }
    }
    out.entries = kept.into_values().collect();
    out
}

/// Builds every register block; a name seen in an earlier chapter gets the
/// chapter's prefix.
pub fn registers(
    raws: &[(RawRegister, &'static str)],
    skips: &[Skipped],
    manuals: &ManualLines,
) -> Outcome<Register> {
    let mut out = Outcome::new("003", "registers", raws.len() + skips.len(), skipped(skips));
    let mut kept: BTreeMap<String, Register> = BTreeMap::new();
    for (raw, prefix) in raws {
        let lines = format!("{}-{}", raw.first, raw.last);
        let mut reg = match build_register(raw, manuals) {
            Ok(r) => r,
            Err(reasons) => {
                out.rejected.push(Rejected {
                    name: raw.name.clone(),
                    lines,
                    reasons,
                });
                continue;
            }
        };
        out.clean += 1;
        if kept.contains_key(&reg.name) && !reg.name.starts_with(prefix) {
            reg.name = format!("{prefix}{}", reg.name);
        }
        if kept.contains_key(&reg.name) {
            out.rejected.push(Rejected {
                name: reg.name.clone(),
                lines,
                reasons: vec!["clean, but the name is taken by an earlier block".into()],
            });
            continue;
        }
        kept.insert(reg.name.clone(), reg);
    }
    out.entries = kept.into_values().collect();
    out
}

impl<T> Outcome<T> {
    /// The table row of REPORT.md.
    pub fn summary_row(&self) -> String {
        format!(
            "| {} | {} | {} | {} | {} | {} |",
            self.manual,
            self.kind,
            self.headers,
            self.clean,
            self.entries.len(),
            self.rejected.len()
        )
    }

    /// The detail section of REPORT.md.
    pub fn details(&self) -> String {
        let mut s = format!(
            "\n## Manual {}, {}: not extracted\n\n",
            self.manual, self.kind
        );
        if self.rejected.is_empty() {
            s.push_str("(none)\n");
        }
        let mut rejected = self.rejected.clone();
        rejected.sort_by(|a, b| (&a.name, &a.lines).cmp(&(&b.name, &b.lines)));
        for r in &rejected {
            let shown: Vec<&str> = r.reasons.iter().take(4).map(|x| x.as_str()).collect();
            let more = r.reasons.len().saturating_sub(4);
            let _ = write!(
                s,
                "- `{}` (lines {}): {}",
                r.name,
                r.lines,
                shown.join("; ")
            );
            if more > 0 {
                let _ = write!(s, "; and {more} more");
            }
            s.push('\n');
        }
        if !self.merged.is_empty() {
            let _ = writeln!(s, "\nDuplicates merged ({}):\n", self.merged.len());
            for m in &self.merged {
                let _ = writeln!(s, "- {m}");
            }
        }
        s
    }
}
