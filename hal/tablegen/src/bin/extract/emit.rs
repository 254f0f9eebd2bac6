//! Writing draft entries in the table format of `hal/tables/README.md`,
//! byte for byte the same for the same entries.

use std::fmt::Write;

use baregpu_tablegen::model::*;

/// A TOML basic string.
pub fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `"hi:lo"` or `"b"`, relative to `base`.
fn bits(f: &Field, base: u32) -> String {
    let (hi, lo) = (f.end - base, f.start - base);
    if hi == lo {
        format!("{lo}")
    } else {
        format!("{hi}:{lo}")
    }
}

/// One `{ name = ..., ... }` field line; `dw` only for commands.
fn field_line(f: &Field, command: bool) -> String {
    let mut s = format!("  {{ name = {}", quote(&f.name));
    let base = if command {
        let dw = f.start / 32;
        let _ = write!(s, ", dw = {dw}");
        dw * 32
    } else {
        0
    };
    let _ = write!(
        s,
        ", bits = \"{}\", type = \"{}\"",
        bits(f, base),
        f.kind.name()
    );
    if let Some(v) = f.value {
        let _ = write!(s, ", value = {v:#x}");
    }
    if let Some(a) = &f.access {
        let _ = write!(s, ", access = {}", quote(a));
    }
    s.push_str(" },\n");
    s
}

fn list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| quote(s)).collect();
    format!("[{}]", quoted.join(", "))
}

fn command(c: &Command) -> String {
    let mut s = String::from("\n[[command]]\n");
    let _ = writeln!(s, "name = {}", quote(&c.name));
    if let Some(l) = &c.citation.lines {
        let _ = writeln!(s, "lines = {}", quote(l));
    }
    let _ = writeln!(s, "engines = {}", list(&c.engines));
    match c.length {
        Some(l) => {
            let _ = writeln!(s, "length = {l}");
        }
        None => {
            let _ = writeln!(s, "min_length = {}", c.min_length);
        }
    }
    let _ = writeln!(s, "bias = {}", c.bias);
    if let Some(n) = &c.citation.note {
        let _ = writeln!(s, "note = {}", quote(n));
    }
    s.push_str("fields = [\n");
    for f in &c.fields {
        s.push_str(&field_line(f, true));
    }
    s.push_str("]\n");
    s
}

fn register(r: &Register) -> String {
    let mut s = String::from("\n[[register]]\n");
    let _ = writeln!(s, "name = {}", quote(&r.name));
    if let Some(l) = &r.citation.lines {
        let _ = writeln!(s, "lines = {}", quote(l));
    }
    let _ = writeln!(s, "offset = {:#x}", r.offset);
    if r.width != 32 {
        let _ = writeln!(s, "width = {}", r.width);
    }
    let _ = writeln!(s, "access = {}", quote(&r.access));
    if let Some(v) = r.reset {
        let _ = writeln!(s, "reset = {v:#x}");
    }
    s.push_str("fields = [\n");
    for f in &r.fields {
        s.push_str(&field_line(f, false));
    }
    s.push_str("]\n");
    s
}

/// A whole draft file: a comment header, the default `source`, entries.
pub fn file(comment: &str, source: &str, commands: &[Command], registers: &[Register]) -> String {
    let mut s = String::new();
    for line in comment.lines() {
        let _ = writeln!(s, "# {line}");
    }
    let _ = writeln!(s, "source = {}", quote(source));
    for c in commands {
        s.push_str(&command(c));
    }
    for r in registers {
        s.push_str(&register(r));
    }
    s
}
