//! Small text helpers shared by the manual parsers: cleaning lines,
//! recognising bit-table rows, names and numbers.

/// Attribute keys that end a field name on a row line.
pub const KEYS: [&str; 6] = [
    "Project:",
    "Format:",
    "Default Value",
    "Access:",
    "Exists If",
    "Address:",
];

/// Collapses runs of whitespace (tabs included) into one space and trims.
pub fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Drops HTML tags (`<td>`, `<p>` ...): the DG2 text repeats cells as HTML.
pub fn strip_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut depth = 0u32;
    for c in s.chars() {
        match c {
            '<' => depth += 1,
            '>' if depth > 0 => {
                depth -= 1;
                out.push(' ');
            }
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Whether the line carries one of the attribute keys.
pub fn has_key(s: &str) -> bool {
    let q = squash(s);
    // SNB wraps "Default Value:" as "Default" / "Value:" on separate lines.
    q == "Default" || q.starts_with("Value:") || KEYS.iter().any(|k| q.contains(k))
}

/// snake_case of a manual name: "Buffer Security and Address Space" ->
/// "buffer_security_and_address_space". Empty when nothing is left.
pub fn snake(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    let out = out.trim_end_matches('_').to_string();
    // Field names must start with a letter ("32 bpp byte mask").
    match out.chars().next() {
        Some(c) if c.is_ascii_digit() => format!("f_{out}"),
        _ => out,
    }
}

/// SCREAMING_SNAKE_CASE of an entry name ("MI_ BATCH_BUFFER_END" keeps its
/// parts joined: spaces next to `_` are dropped).
pub fn screaming(s: &str) -> String {
    let joined = s.replace("_ ", "_").replace(" _", "_");
    let mut out = String::new();
    for c in joined.trim().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_string()
}

/// Whether `s` is a bare entry symbol (`MI_NOOP`, `3DSTATE_VS`).
pub fn is_symbol(s: &str) -> bool {
    !s.is_empty()
        && s.chars().any(|c| c.is_ascii_uppercase())
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// A number as the manuals print it: `05h`, `0Ah`, `0x1F`, `12`, `0000 0000h`
/// (spaces and `_` inside are dropped by the caller). None for `UUUU0000h`.
pub fn parse_num(tok: &str) -> Option<u64> {
    let t = tok.trim().trim_end_matches([',', ';', '.', ')']);
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).ok();
    }
    if let Some(hex) = t.strip_suffix('h').or_else(|| t.strip_suffix('H')) {
        return u64::from_str_radix(hex, 16).ok();
    }
    if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) {
        return t.parse().ok();
    }
    None
}

/// A numbered heading such as `1.2.5 MI_BATCH_BUFFER_END`.
pub fn is_heading(line: &str) -> bool {
    let t = line.trim_start();
    let num: String = t
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let rest = &t[num.len()..];
    num.contains('.')
        && num.starts_with(|c: char| c.is_ascii_digit())
        && !num.contains("..")
        && rest.starts_with(' ')
        && rest
            .trim_start()
            .starts_with(|c: char| c.is_ascii_alphabetic())
}

/// `hi:lo` or `b` (at most 3 digits each).
pub fn parse_bits(tok: &str) -> Option<(u32, u32)> {
    let num = |s: &str| -> Option<u32> {
        if s.is_empty() || s.len() > 3 || !s.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    match tok.split_once(':') {
        Some((h, l)) => Some((num(h)?, num(l)?)),
        None => num(tok).map(|b| (b, b)),
    }
}

/// The DWord cell of a command table row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DwCell {
    /// One dword, or `a..b` (inclusive).
    Range(u32, u32),
    /// `a..n`: a variable tail.
    Open(u32),
}

pub fn parse_dw(tok: &str) -> Option<DwCell> {
    let num = |s: &str| -> Option<u32> {
        if s.is_empty() || s.len() > 3 || !s.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    if let Some(n) = num(tok) {
        return Some(DwCell::Range(n, n));
    }
    // `2..n`, `1..2`, `4.5` (a typo for `4..5`), `3-4`.
    let (a, b) = tok
        .split_once("..")
        .or_else(|| tok.split_once('.'))
        .or_else(|| tok.split_once('-'))?;
    let a = num(a)?;
    if b == "n" || b == "N" {
        return Some(DwCell::Open(a));
    }
    let b = num(b)?;
    (b >= a).then_some(DwCell::Range(a, b))
}

/// The leading cells of a bit-table row.
#[derive(Clone, Debug)]
pub struct RowHead {
    pub dw: Option<DwCell>,
    pub hi: u32,
    pub lo: u32,
    /// Everything after the bit range, tabs kept (they end the name cell).
    pub rest: String,
}

/// Joins `10: 08` into `10:08` (the 2D pages put spaces in bit ranges).
fn join_colons(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == ':' {
            let before = out.trim_end().chars().last();
            let mut j = i + 1;
            while j < chars.len() && chars[j] == ' ' {
                j += 1;
            }
            let after = chars.get(j).copied();
            if before.is_some_and(|b| b.is_ascii_digit())
                && after.is_some_and(|a| a.is_ascii_digit())
            {
                let t = out.trim_end().len();
                out.truncate(t);
                out.push(':');
                i = j;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Splits off the first whitespace-delimited token.
fn next_token(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    match s.find(char::is_whitespace) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    }
}

/// Recognises `DW hi:lo Name`, `hi:lo Name` and `b Name` rows. Rejects
/// enumeration lines such as `0 = Tiling Disabled` and prose.
pub fn parse_row(line: &str) -> Option<RowHead> {
    let joined = join_colons(line);
    let (t0, r0) = next_token(&joined);
    let (t1, r1) = next_token(r0);
    let (dw, (hi, lo), rest) = match (parse_dw(t0), parse_bits(t1)) {
        (Some(dw), Some(bits)) => (Some(dw), bits, r1),
        _ => (None, parse_bits(t0)?, r0),
    };
    if hi < lo {
        return None;
    }
    let rest = rest.trim_start_matches([' ', '\t']).to_string();
    let name_ok = match rest.chars().next() {
        None => true,
        Some(c) if c.is_ascii_uppercase() || c.is_ascii_digit() => true,
        Some('(' | '[' | '*' | '"' | '\t') => true,
        Some(c) if c.is_ascii_lowercase() => has_key(&rest),
        _ => false,
    };
    // A bare number followed by a digit word ("2 0 ...") is text, unless
    // it read as DW + bits above.
    name_ok.then_some(RowHead { dw, hi, lo, rest })
}

/// The first token after `key` in `body` (keys may be wrapped: the body is
/// squashed first by the caller).
pub fn key_value(body: &str, key: &str) -> Option<String> {
    let i = body.find(key)?;
    let after = body[i + key.len()..].trim_start_matches([':', ' ']);
    let (tok, _) = next_token(after);
    (!tok.is_empty()).then(|| tok.to_string())
}

/// Cuts a field name out of the text after the bit range: up to the first
/// attribute key, tab or colon, and before merged description prose.
pub fn cut_name(rest: &str) -> String {
    let mut end = rest.len();
    for k in KEYS.iter().copied().chain(["\t", ":", "<"]) {
        if let Some(i) = rest.find(k) {
            end = end.min(i);
        }
    }
    let words: Vec<&str> = rest[..end].split_whitespace().collect();
    let mut name = Vec::new();
    for (i, w) in words.iter().enumerate() {
        // DG2 merges the description into the name cell: "Predicate Enable
        // This bit is used ...". Prose starts with these words.
        let prose = [
            "Project",
            "Format",
            "This",
            "The",
            "These",
            "When",
            "If",
            "Specifies",
            "Indicates",
            "Defines",
            "Selects",
            "Must",
            "Software",
            "SW",
            "Note",
        ];
        if i > 0 && prose.contains(w) {
            break;
        }
        if name.len() >= 10 || w.ends_with('.') && i > 0 {
            if w.ends_with('.') && name.len() < 10 {
                name.push(w.trim_end_matches('.'));
            }
            break;
        }
        name.push(w);
    }
    name.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows() {
        let r = parse_row("0 31:29 Command Type").unwrap();
        assert_eq!((r.dw, r.hi, r.lo), (Some(DwCell::Range(0, 0)), 31, 29));
        let r = parse_row("0 Arbitration Enable").unwrap();
        assert_eq!((r.dw, r.hi, r.lo), (None, 0, 0));
        let r = parse_row(" 10: 08 Reserved").unwrap();
        assert_eq!((r.hi, r.lo), (10, 8));
        assert!(parse_row("0 = Tiling Disabled").is_none());
        assert!(parse_row("0h GGTT This batch buffer").is_none());
        let r = parse_row("1..2\t63:2\tBatch Buffer Start Address").unwrap();
        assert_eq!(r.dw, Some(DwCell::Range(1, 2)));
        assert_eq!(parse_dw("2..n"), Some(DwCell::Open(2)));
    }

    #[test]
    fn names() {
        assert_eq!(
            snake("Buffer Security and Address-Space"),
            "buffer_security_and_address_space"
        );
        assert_eq!(screaming("MI_ BATCH_BUFFER_END"), "MI_BATCH_BUFFER_END");
        assert_eq!(
            cut_name("Predicate Enable This bit is used"),
            "Predicate Enable"
        );
        assert_eq!(cut_name("Command Type Default Value: 0h"), "Command Type");
        assert_eq!(parse_num("0Ah"), Some(10));
        assert!(is_heading("1.2.5 MI_BATCH_BUFFER_END"));
        assert!(!is_heading("0 31:29 Command Type"));
    }
}
