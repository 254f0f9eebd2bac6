//! The YAML subset IGC writes in `.ze_info` (block mappings and sequences
//! by indentation, `- ` items whose first key shares the dash's line,
//! plain and single- or double-quoted scalars, flow sequences of scalars
//! such as `[ 64, 1, 1 ]`, `#` comments, `---` / `...` document marks).
//! Anchors, tags, multi-line scalars and flow mappings are refused.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::ZebinError;

/// A parsed node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    Scalar(String),
    Map(Vec<(String, Node)>),
    Seq(Vec<Node>),
}

impl Node {
    /// The value of `key` in a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::Scalar(s) => Some(s),
            _ => None,
        }
    }

    pub fn items(&self) -> &[Node] {
        match self {
            Node::Seq(s) => s,
            _ => &[],
        }
    }
}

/// Nesting deeper than this is refused (each level is at least one more
/// column of indentation, so this only bounds hostile input).
const MAX_DEPTH: usize = 64;

struct Line {
    no: usize,
    indent: usize,
    text: String,
}

fn err(line: usize, what: &'static str) -> ZebinError {
    ZebinError::Yaml { line, what }
}

/// Parses one document.
pub fn parse(src: &str) -> Result<Node, ZebinError> {
    let mut lines = Vec::new();
    for (k, raw) in src.lines().enumerate() {
        if raw.contains('\t') {
            return Err(err(k + 1, "tab character"));
        }
        let body = strip_comment(raw);
        let text = body.trim_start();
        if text.is_empty() || text == "---" || text == "..." {
            continue;
        }
        lines.push(Line {
            no: k + 1,
            indent: body.len() - text.len(),
            text: text.trim_end().to_string(),
        });
    }
    if lines.is_empty() {
        return Ok(Node::Map(Vec::new()));
    }
    let mut at = 0;
    let indent = lines[0].indent;
    let node = block(&mut lines, &mut at, indent, 0)?;
    match lines.get(at) {
        Some(l) => Err(err(l.no, "line indented less than its block")),
        None => Ok(node),
    }
}

/// Text before a `#` that starts a comment (outside quotes, after a blank
/// or at the start).
fn strip_comment(s: &str) -> &str {
    let mut quote = None;
    let mut prev = ' ';
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '#' && (prev == ' ') => return &s[..i],
            None => {}
        }
        prev = c;
    }
    s
}

fn is_item(text: &str) -> bool {
    text == "-" || text.starts_with("- ")
}

/// The block starting at `lines[*at]`, whose lines have `indent` columns.
fn block(
    lines: &mut [Line],
    at: &mut usize,
    indent: usize,
    depth: usize,
) -> Result<Node, ZebinError> {
    if depth > MAX_DEPTH {
        return Err(err(lines[*at].no, "nesting too deep"));
    }
    if is_item(&lines[*at].text) {
        sequence(lines, at, indent, depth)
    } else {
        mapping(lines, at, indent, depth)
    }
}

fn sequence(
    lines: &mut [Line],
    at: &mut usize,
    indent: usize,
    depth: usize,
) -> Result<Node, ZebinError> {
    let mut items = Vec::new();
    while let Some(l) = lines.get(*at) {
        if l.indent != indent || !is_item(&l.text) {
            break;
        }
        let no = l.no;
        let rest = l.text[1..].trim_start().to_string();
        if rest.is_empty() {
            *at += 1;
            match lines.get(*at) {
                Some(n) if n.indent > indent => {
                    let i = n.indent;
                    items.push(block(lines, at, i, depth + 1)?);
                }
                _ => items.push(Node::Scalar(String::new())),
            }
            continue;
        }
        // The item's first line becomes a line of its own block, at the
        // column its text starts in.
        let col = indent + (l.text.len() - rest.len());
        if is_item(&rest) || rest.contains(": ") || rest.ends_with(':') {
            lines[*at] = Line {
                no,
                indent: col,
                text: rest,
            };
            items.push(block(lines, at, col, depth + 1)?);
        } else {
            items.push(scalar(&rest, no)?);
            *at += 1;
        }
    }
    Ok(Node::Seq(items))
}

fn mapping(
    lines: &mut [Line],
    at: &mut usize,
    indent: usize,
    depth: usize,
) -> Result<Node, ZebinError> {
    let mut entries: Vec<(String, Node)> = Vec::new();
    while let Some(l) = lines.get(*at) {
        if l.indent < indent {
            break;
        }
        if l.indent > indent {
            return Err(err(l.no, "unexpected indentation"));
        }
        if is_item(&l.text) {
            return Err(err(l.no, "sequence item inside a mapping"));
        }
        let no = l.no;
        let (key, value) = match l.text.find(": ") {
            Some(p) => (&l.text[..p], l.text[p + 2..].trim()),
            None if l.text.ends_with(':') => (&l.text[..l.text.len() - 1], ""),
            None => return Err(err(no, "mapping line without `key:`")),
        };
        let key = match scalar(key.trim(), no)? {
            Node::Scalar(k) => k,
            _ => return Err(err(no, "key that is not a scalar")),
        };
        if entries.iter().any(|(k, _)| *k == key) {
            return Err(err(no, "duplicate key"));
        }
        let value = value.to_string();
        *at += 1;
        let node = if !value.is_empty() {
            scalar(&value, no)?
        } else {
            match lines.get(*at) {
                Some(n) if n.indent > indent => {
                    let i = n.indent;
                    block(lines, at, i, depth + 1)?
                }
                // A sequence may sit at its key's own indentation.
                Some(n) if n.indent == indent && is_item(&n.text) => {
                    sequence(lines, at, indent, depth + 1)?
                }
                _ => Node::Scalar(String::new()),
            }
        };
        entries.push((key, node));
    }
    Ok(Node::Map(entries))
}

/// A plain or quoted scalar, or a flow sequence of them.
fn scalar(s: &str, no: usize) -> Result<Node, ZebinError> {
    if let Some(inner) = s.strip_prefix('[') {
        let inner = inner
            .strip_suffix(']')
            .ok_or(err(no, "unclosed flow sequence"))?;
        if inner.contains(['[', '{']) {
            return Err(err(no, "nested flow collection"));
        }
        let items: Result<Vec<Node>, ZebinError> = inner
            .split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(|x| scalar(x, no))
            .collect();
        return Ok(Node::Seq(items?));
    }
    if s.starts_with(['{', '&', '*', '!', '|', '>']) {
        return Err(err(no, "flow mapping, anchor, alias, tag or block scalar"));
    }
    let quoted = |q: char| -> Option<Result<Node, ZebinError>> {
        let inner = s.strip_prefix(q)?;
        Some(
            inner
                .strip_suffix(q)
                .map(|x| {
                    Node::Scalar(x.replace(
                        if q == '\'' { "''" } else { "\\\"" },
                        if q == '\'' { "'" } else { "\"" },
                    ))
                })
                .ok_or(err(no, "unclosed quoted scalar")),
        )
    };
    if let Some(r) = quoted('\'').or_else(|| quoted('"')) {
        return r;
    }
    Ok(Node::Scalar(s.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_zeinfo_shapes() {
        let n = parse(
            "---\nversion: '1.20'\nkernels:\n  - name: k # c\n    execution_env:\n      simd_size: 16\n      required_work_group_size: [ 8, 1, 1 ]\n    payload_arguments:\n      - arg_type: local_size\n        offset: 12\n  - name: j\n...\n",
        )
        .unwrap();
        assert_eq!(n.get("version").and_then(Node::as_str), Some("1.20"));
        let ks = n.get("kernels").unwrap().items();
        assert_eq!(ks.len(), 2);
        let env = ks[0].get("execution_env").unwrap();
        assert_eq!(env.get("simd_size").and_then(Node::as_str), Some("16"));
        assert_eq!(
            env.get("required_work_group_size").unwrap().items().len(),
            3
        );
        let pa = ks[0].get("payload_arguments").unwrap().items();
        assert_eq!(pa[0].get("offset").and_then(Node::as_str), Some("12"));
        assert_eq!(ks[1].get("name").and_then(Node::as_str), Some("j"));
    }

    #[test]
    fn refuses_what_it_does_not_read() {
        for bad in [
            "a: 1\n  b: 2\n",
            "a: [1, 2\n",
            "a: &x 1\n",
            "a: 1\na: 2\n",
            "a:\n\tb: 1\n",
            "a: 'x\n",
            "a\n",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }
}
