//! Reading a `DWord Bit Description` (or `Bit Description`) table into rows,
//! the part shared by every manual and kind of entry.

use crate::text::{DwCell, cut_name, has_key, parse_row, squash};

/// One line of a block: its 1-based number in the manual and its text.
pub type Line = (usize, String);

/// One field row of a table.
#[derive(Clone, Debug)]
pub struct Row {
    pub line: usize,
    /// First dword of the row's DWord cell (0 in register tables).
    pub dw: u32,
    /// Dwords the cell spans; None for an open `a..n` tail.
    pub span: Option<u32>,
    /// Whether this row opened a new DWord cell.
    pub opens_dw: bool,
    pub hi: u32,
    pub lo: u32,
    pub name: String,
    /// The row's attribute text (rest of the row plus the lines below it),
    /// whitespace squashed.
    pub body: String,
}

#[derive(Debug, Default)]
pub struct Table {
    pub rows: Vec<Row>,
    /// Rows that look like fields but break the bit order.
    pub problems: Vec<String>,
}

/// Whether the row at `i` looks like a field and not an enumeration value:
/// its name is "Reserved", or an attribute key follows soon.
fn fieldlike(lines: &[Line], i: usize, rest: &str) -> bool {
    if has_key(rest) || squash(rest).starts_with("Reserved") {
        return true;
    }
    lines[i + 1..]
        .iter()
        .map(|(_, t)| t)
        .filter(|t| !t.trim().is_empty())
        .take(3)
        .take_while(|t| parse_row(t).is_none())
        .any(|t| has_key(t))
}

/// A field name wrapped onto the next lines ("Clear Command" / "Buffer
/// Enable"): short lines up to an attribute key line. Returns the extra
/// words and how many lines they used.
fn continuation(lines: &[Line], i: usize) -> (String, usize) {
    let mut words = Vec::new();
    let mut used = 0;
    for (k, (_, t)) in lines.iter().enumerate().skip(i + 1).take(4) {
        let q = squash(t);
        if q.is_empty() {
            continue;
        }
        if has_key(&q) {
            return (words.join(" "), used);
        }
        let namelike = q.len() <= 40
            && !q.ends_with('.')
            && q.starts_with(|c: char| c.is_ascii_uppercase())
            && parse_row(&q).is_none();
        if !namelike || words.len() == 2 {
            break;
        }
        words.push(q);
        used = k - i;
    }
    (String::new(), 0)
}

/// Reads the rows of one table. `lines` start after the table's header
/// line and end with the block.
pub fn read_table(lines: &[Line]) -> Table {
    let mut t = Table::default();
    let mut in_values = false;
    let mut cur: Option<(u32, Option<u32>)> = None;
    let mut last_lo: Option<u32> = None;
    let mut skip_to = 0;
    for (i, (no, text)) in lines.iter().enumerate() {
        if i < skip_to {
            continue;
        }
        let q = squash(text);
        if q.starts_with("Value Name") {
            in_values = true;
            continue;
        }
        let Some(head) = parse_row(text) else {
            if let Some(r) = t.rows.last_mut()
                && !q.is_empty()
            {
                r.body.push(' ');
                r.body.push_str(&q);
            }
            continue;
        };
        let like = fieldlike(lines, i, &head.rest);
        if in_values && !like {
            continue;
        }
        let (dw, span, opens) = match (head.dw, cur, last_lo) {
            (Some(DwCell::Range(a, b)), _, _) => (a, Some(b - a + 1), true),
            (Some(DwCell::Open(a)), _, _) => (a, None, true),
            (None, None, _) => (0, Some(1), true),
            (None, Some((d, s)), Some(l)) if head.hi < l => (d, s, false),
            (None, Some(_), _) => {
                if like && !in_values {
                    t.problems.push(format!(
                        "line {no}: bits {}:{} do not follow bit {} (overlap or out of order)",
                        head.hi,
                        head.lo,
                        last_lo.unwrap_or(0)
                    ));
                }
                continue;
            }
        };
        // An explicit DWord cell that goes backwards is a value row or prose.
        if opens
            && let Some((d, _)) = cur
            && dw < d
        {
            continue;
        }
        let mut name = cut_name(&head.rest);
        let mut body = squash(&head.rest);
        if !has_key(&head.rest) && !head.rest.contains('\t') && !head.rest.contains(':') {
            let (more, used) = continuation(lines, i);
            if !more.is_empty() {
                name = format!("{name} {more}");
                body = format!("{body} {more}");
                skip_to = i + used + 1;
            }
        }
        if name.is_empty() {
            // DG2 splits "22" and its name onto two lines.
            if let Some((_, next)) = lines[i + 1..].iter().find(|(_, t)| !t.trim().is_empty())
                && parse_row(next).is_none()
                && !has_key(next)
            {
                name = cut_name(next);
            }
        }
        cur = Some((dw, span));
        last_lo = Some(head.lo);
        in_values = false;
        t.rows.push(Row {
            line: *no,
            dw,
            span,
            opens_dw: opens,
            hi: head.hi,
            lo: head.lo,
            name,
            body,
        });
    }
    t
}
