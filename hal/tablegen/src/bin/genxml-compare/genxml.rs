//! Mesa's genxml as items (instructions, structs, registers) with their fields
//! at absolute bit positions, imports resolved.

use std::path::Path;

use crate::xml::{Element, parse};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Command,
    Struct,
    Register,
}

/// A field; `start`/`end` count from bit 0 of dword 0 of the item (or of the
/// group element), inclusive, as genxml writes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GxField {
    pub name: String,
    pub start: u32,
    pub end: u32,
    pub ty: String,
}

/// A group that repeats to the end of the command (`count="0"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GxGroup {
    pub start: u32,
    pub size: u32,
    pub fields: Vec<GxField>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GxItem {
    pub kind: Kind,
    pub name: String,
    /// Dwords (registers: dwords of the register).
    pub length: Option<u32>,
    pub bias: Option<u32>,
    /// Register MMIO offset.
    pub num: Option<u32>,
    pub fields: Vec<GxField>,
    pub groups: Vec<GxGroup>,
    /// The genxml file that defines the item (empty: the file read first).
    pub file: String,
}

fn number(s: &str) -> Option<u32> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

fn need(e: &Element, key: &str, item: &str) -> Result<u32, String> {
    let v = e
        .attr(key)
        .ok_or_else(|| format!("{item}: <{}> has no {key}", e.name))?;
    number(v).ok_or_else(|| format!("{item}: <{}> {key}={v:?} is not a number", e.name))
}

/// Fields of `e`'s children, offset by `base`; fixed-count groups are unrolled
/// (`Name 0`, `Name 1` ...), a `count="0"` group goes to `groups`.
fn fields(
    e: &Element,
    base: u32,
    suffix: &str,
    item: &str,
    out: &mut Vec<GxField>,
    groups: &mut Vec<GxGroup>,
) -> Result<(), String> {
    for c in &e.children {
        match c.name.as_str() {
            "field" => {
                let start = need(c, "start", item)?;
                let end = need(c, "end", item)?;
                if end < start {
                    return Err(format!("{item}: field ends before it starts"));
                }
                out.push(GxField {
                    name: format!("{}{suffix}", c.attr("name").unwrap_or("")),
                    start: base + start,
                    end: base + end,
                    ty: c.attr("type").unwrap_or("").to_string(),
                });
            }
            "group" => {
                let count = need(c, "count", item)?;
                let start = need(c, "start", item)?;
                let size = need(c, "size", item)?;
                if count == 0 {
                    let mut g = GxGroup {
                        start: base + start,
                        size,
                        fields: Vec::new(),
                    };
                    let mut inner = Vec::new();
                    fields(c, 0, "", item, &mut g.fields, &mut inner)?;
                    groups.push(g);
                    groups.extend(inner);
                } else {
                    for i in 0..count.min(4096) {
                        let s = if count > 1 {
                            format!("{suffix} {i}")
                        } else {
                            suffix.to_string()
                        };
                        fields(c, base + start + i * size, &s, item, out, groups)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn item(e: &Element) -> Result<Option<GxItem>, String> {
    let kind = match e.name.as_str() {
        "instruction" => Kind::Command,
        "struct" => Kind::Struct,
        "register" => Kind::Register,
        _ => return Ok(None),
    };
    let name = e
        .attr("name")
        .ok_or_else(|| format!("<{}> without a name", e.name))?
        .to_string();
    let mut it = GxItem {
        kind,
        length: e.attr("length").and_then(number),
        bias: e.attr("bias").and_then(number),
        num: e.attr("num").and_then(number),
        fields: Vec::new(),
        groups: Vec::new(),
        file: String::new(),
        name,
    };
    fields(e, 0, "", &it.name.clone(), &mut it.fields, &mut it.groups)?;
    Ok(Some(it))
}

/// Items of the document `text`; `open` reads an imported file by name.
pub fn items_of(
    text: &str,
    open: &mut dyn FnMut(&str) -> Result<String, String>,
    depth: u32,
) -> Result<Vec<GxItem>, String> {
    if depth > 32 {
        return Err("imports nest too deep (a cycle?)".into());
    }
    let root = parse(text)?;
    let mut items: Vec<GxItem> = Vec::new();
    for c in &root.children {
        if c.name == "import" {
            let file = c.attr("name").ok_or("<import> without a name")?;
            let mut imported =
                items_of(&open(file)?, open, depth + 1).map_err(|e| format!("{file}: {e}"))?;
            for i in imported.iter_mut().filter(|i| i.file.is_empty()) {
                i.file = file.to_string();
            }
            let excluded: Vec<&str> = c
                .children
                .iter()
                .filter(|x| x.name == "exclude")
                .filter_map(|x| x.attr("name"))
                .collect();
            items.extend(
                imported
                    .into_iter()
                    .filter(|i| !excluded.contains(&i.name.as_str())),
            );
        } else if let Some(it) = item(c)? {
            // A later definition replaces an imported one of the same name.
            items.retain(|i| i.name != it.name);
            items.push(it);
        }
    }
    Ok(items)
}

/// Replaces each field whose type is a genxml struct by that struct's
/// fields (named `Field Inner`), as our tables list them one by one.
pub fn inline_structs(items: &mut [GxItem]) {
    let structs: Vec<GxItem> = items
        .iter()
        .filter(|i| i.kind == Kind::Struct)
        .cloned()
        .collect();
    fn expand(list: &[GxField], structs: &[GxItem], depth: u32) -> Vec<GxField> {
        let mut out = Vec::new();
        for f in list {
            let inner = structs
                .iter()
                .find(|s| s.name == f.ty && !s.fields.is_empty());
            match inner {
                Some(s) if depth < 8 => {
                    let sub: Vec<GxField> = s
                        .fields
                        .iter()
                        .filter(|x| f.start + x.end <= f.end)
                        .map(|x| GxField {
                            name: format!("{} {}", f.name, x.name),
                            start: f.start + x.start,
                            end: f.start + x.end,
                            ty: x.ty.clone(),
                        })
                        .collect();
                    out.extend(expand(&sub, structs, depth + 1));
                }
                _ => out.push(f.clone()),
            }
        }
        out
    }
    for it in items.iter_mut() {
        it.fields = expand(&it.fields, &structs, 0);
        for g in &mut it.groups {
            g.fields = expand(&g.fields, &structs, 0);
        }
    }
}

/// Loads `file` of the genxml directory `dir`, with its imports.
pub fn load(dir: &Path, file: &str) -> Result<Vec<GxItem>, String> {
    let mut open = |name: &str| {
        std::fs::read_to_string(dir.join(name))
            .map_err(|e| format!("{}: {e}", dir.join(name).display()))
    };
    let text = open(file)?;
    let mut items = items_of(&text, &mut open, 0).map_err(|e| format!("{file}: {e}"))?;
    for i in items.iter_mut().filter(|i| i.file.is_empty()) {
        i.file = file.to_string();
    }
    inline_structs(&mut items);
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_excludes_groups_and_replacement() {
        let base = r#"<genxml name="A" gen="1">
  <instruction name="OLD" length="1"><field name="X" start="0" end="7" type="uint"/></instruction>
  <instruction name="GONE" length="1"/>
  <struct name="S" length="2">
    <field name="A" start="0" end="3" type="uint"/>
    <group count="2" start="32" size="8"><field name="E" start="0" end="7" type="uint"/></group>
  </struct>
</genxml>"#;
        let top = r#"<genxml name="B" gen="2">
  <import name="base.xml"><exclude name="GONE"/></import>
  <instruction name="OLD" length="2" bias="2"><field name="Y" start="0" end="15" type="uint"/>
    <group count="0" start="32" size="32"><field name="D" start="0" end="31" type="uint"/></group>
  </instruction>
  <register name="R" length="1" num="0x2358"><field name="F" start="3" end="5" type="uint"/></register>
</genxml>"#;
        let mut open = |n: &str| {
            if n == "base.xml" {
                Ok(base.to_string())
            } else {
                Err(format!("no {n}"))
            }
        };
        let items = items_of(top, &mut open, 0).unwrap();
        let names: Vec<&str> = items.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["S", "OLD", "R"]);
        let s = &items[0];
        let f: Vec<(&str, u32, u32)> = s
            .fields
            .iter()
            .map(|f| (f.name.as_str(), f.start, f.end))
            .collect();
        assert_eq!(f, [("A", 0, 3), ("E 0", 32, 39), ("E 1", 40, 47)]);
        let old = &items[1];
        assert_eq!((old.length, old.bias), (Some(2), Some(2)));
        assert_eq!(old.fields[0].end, 15);
        assert_eq!(old.groups.len(), 1);
        assert_eq!((old.groups[0].start, old.groups[0].size), (32, 32));
        assert_eq!(items[2].num, Some(0x2358));
        assert_eq!(items[2].kind, Kind::Register);
        assert_eq!(
            (items[0].file.as_str(), items[1].file.as_str()),
            ("base.xml", "")
        );
        let mut none = |n: &str| Err(format!("no {n}"));
        assert!(items_of(top, &mut none, 0).is_err());
    }

    #[test]
    fn struct_typed_fields_are_inlined() {
        let doc = r#"<genxml name="A" gen="1">
  <struct name="BODY" length="2"><field name="Lo" start="0" end="3" type="uint"/><field name="Hi" start="32" end="63" type="address"/></struct>
  <instruction name="C" length="3"><field name="Body" start="32" end="95" type="BODY"/><field name="Z" start="0" end="7" type="uint"/></instruction>
</genxml>"#;
        let mut none = |n: &str| Err(format!("no {n}"));
        let mut items = items_of(doc, &mut none, 0).unwrap();
        inline_structs(&mut items);
        let f: Vec<(&str, u32, u32)> = items[1]
            .fields
            .iter()
            .map(|f| (f.name.as_str(), f.start, f.end))
            .collect();
        assert_eq!(f, [("Body Lo", 32, 35), ("Body Hi", 64, 95), ("Z", 0, 7)]);
    }
}
