//! A small XML reader for genxml files: elements, attributes, comments, the
//! `<?xml ?>` declaration and the five predefined entities. Text between
//! elements is dropped (genxml keeps everything in attributes).

/// One element with its attributes (in file order) and child elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Element>,
}

impl Element {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

struct Reader<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Reader<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn line(&self) -> usize {
        self.text[..self.pos].matches('\n').count() + 1
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("line {}: {what}", self.line()))
    }

    fn skip_ws(&mut self) {
        let t = self.rest();
        self.pos += t.len() - t.trim_start().len();
    }

    /// Skips text, comments and processing instructions up to the next tag.
    fn skip_misc(&mut self) -> Result<(), String> {
        loop {
            let Some(lt) = self.rest().find('<') else {
                self.pos = self.text.len();
                return Ok(());
            };
            self.pos += lt;
            let (open, close) = if self.rest().starts_with("<!--") {
                ("<!--", "-->")
            } else if self.rest().starts_with("<?") {
                ("<?", "?>")
            } else if self.rest().starts_with("<!") {
                ("<!", ">")
            } else {
                return Ok(());
            };
            match self.rest()[open.len()..].find(close) {
                Some(end) => self.pos += open.len() + end + close.len(),
                None => return self.err(&format!("unterminated {open}")),
            }
        }
    }

    fn name(&mut self) -> Result<String, String> {
        let t = self.rest();
        let len = t
            .find(|c: char| c.is_whitespace() || matches!(c, '=' | '/' | '>'))
            .unwrap_or(t.len());
        if len == 0 {
            return self.err("expected a name");
        }
        self.pos += len;
        Ok(t[..len].to_string())
    }

    /// Reads an element; the reader is at its `<`.
    fn element(&mut self) -> Result<Element, String> {
        self.pos += 1;
        let name = self.name()?;
        let mut attrs = Vec::new();
        loop {
            self.skip_ws();
            let t = self.rest();
            if t.starts_with("/>") {
                self.pos += 2;
                return Ok(Element {
                    name,
                    attrs,
                    children: Vec::new(),
                });
            }
            if t.starts_with('>') {
                self.pos += 1;
                break;
            }
            if t.is_empty() {
                return self.err(&format!("unterminated tag <{name}"));
            }
            let key = self.name()?;
            self.skip_ws();
            if !self.rest().starts_with('=') {
                return self.err(&format!("attribute {key} of <{name}> has no value"));
            }
            self.pos += 1;
            self.skip_ws();
            let Some(quote) = self
                .rest()
                .chars()
                .next()
                .filter(|c| matches!(c, '"' | '\''))
            else {
                return self.err(&format!("attribute {key} of <{name}> is not quoted"));
            };
            let Some(end) = self.rest()[1..].find(quote) else {
                return self.err(&format!("attribute {key} of <{name}> is not closed"));
            };
            let raw = &self.rest()[1..1 + end];
            let value = unescape(raw).or_else(|e| self.err(&e))?;
            self.pos += end + 2;
            attrs.push((key, value));
        }
        let mut children = Vec::new();
        loop {
            self.skip_misc()?;
            if self.rest().is_empty() {
                return self.err(&format!("<{name}> is not closed"));
            }
            if self.rest().starts_with("</") {
                self.pos += 2;
                let close = self.name()?;
                if close != name {
                    return self.err(&format!("</{close}> closes <{name}>"));
                }
                self.skip_ws();
                if !self.rest().starts_with('>') {
                    return self.err(&format!("</{close} is not closed"));
                }
                self.pos += 1;
                return Ok(Element {
                    name,
                    attrs,
                    children,
                });
            }
            children.push(self.element()?);
        }
    }
}

fn unescape(raw: &str) -> Result<String, String> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let Some(semi) = rest[amp..].find(';') else {
            return Err(format!("unterminated entity in {raw:?}"));
        };
        let entity = &rest[amp + 1..amp + semi];
        let c = match entity {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let num = if let Some(hex) = entity.strip_prefix("#x") {
                    u32::from_str_radix(hex, 16).ok()
                } else if let Some(dec) = entity.strip_prefix('#') {
                    dec.parse().ok()
                } else {
                    None
                };
                match num.and_then(char::from_u32) {
                    Some(c) => c,
                    None => return Err(format!("unknown entity &{entity};")),
                }
            }
        };
        out.push(c);
        rest = &rest[amp + semi + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Parses a document and returns its root element.
pub fn parse(text: &str) -> Result<Element, String> {
    let mut r = Reader { text, pos: 0 };
    r.skip_misc()?;
    if r.rest().is_empty() {
        return r.err("no root element");
    }
    let root = r.element()?;
    r.skip_misc()?;
    if !r.rest().is_empty() {
        return r.err("content after the root element");
    }
    Ok(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_attributes_and_entities() {
        let doc = "<?xml version='1.0'?>\n<!-- c -->\n<a x=\"1\" y='a &amp; &lt;b&gt;'>\n  text <b/>\n  <c z=\"&#x41;\"><d/></c>\n</a>\n";
        let a = parse(doc).unwrap();
        assert_eq!(a.name, "a");
        assert_eq!(a.attr("x"), Some("1"));
        assert_eq!(a.attr("y"), Some("a & <b>"));
        assert_eq!(a.children.len(), 2);
        assert_eq!(a.children[1].attr("z"), Some("A"));
        assert_eq!(a.children[1].children[0].name, "d");
    }

    #[test]
    fn malformed_documents_are_errors() {
        for doc in [
            "",
            "<a>",
            "<a></b>",
            "<a x=1/>",
            "<a x=\"1/>",
            "<a/><b/>",
            "<a x=\"&bogus;\"/>",
            "<!-- open",
            "<a",
        ] {
            assert!(parse(doc).is_err(), "{doc:?} parsed");
        }
    }
}
