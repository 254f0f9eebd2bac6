//! Our tables against genxml, item by item and field by field.
//!
//! Items are matched by name (or through the alias map). A genxml field is
//! matched to ours by name (letters and digits, case ignored), else by its
//! bit range; it agrees when the range is the same. Fields of type `mbz`
//! are skipped on both sides. Our fields that genxml does not have are
//! listed but not counted. A difference is a split when ours holds the same
//! bits divided otherwise, noted when our entry explains it, else open.

use baregpu_tablegen::model::*;

use crate::genxml::{GxField, GxItem, Kind};

/// Counts and differences of one generation.
#[derive(Debug, Default)]
pub struct Report {
    pub items: usize,
    pub fields: usize,
    pub agree: usize,
    /// Genxml fields whose bits ours holds divided otherwise (see [`Diff::split`]).
    pub split: usize,
    /// Our items that genxml does not have (by name).
    pub unmatched: Vec<String>,
    /// One line per difference, `ITEM: what`.
    pub diffs: Vec<Diff>,
}

/// A difference, and whether our entry already explains it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diff {
    pub text: String,
    /// The field's `note`/`ref` cites genxml or Mesa, or the entry's note
    /// cites genxml or Mesa and names the field (or the length/offset).
    pub noted: bool,
    /// The same bits, divided into fields differently (a 64-bit value in
    /// two dwords, a mask as one field or bit by bit).
    pub split: bool,
}

impl Report {
    pub fn noted(&self) -> usize {
        self.diffs.iter().filter(|d| d.noted && !d.split).count()
    }
    pub fn open(&self) -> usize {
        self.diffs.iter().filter(|d| !d.noted && !d.split).count()
    }
    pub fn percent(&self) -> f64 {
        if self.fields == 0 {
            100.0
        } else {
            100.0 * self.agree as f64 / self.fields as f64
        }
    }
}

/// Name with only its letters and digits, lower case.
pub fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Letters only, lower case: "Attribute 0 Swizzle Control Mode" and
/// "attribute_swizzle_control_mode" compare equal.
fn letters(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphabetic())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Whether `text` cites genxml or Mesa and, if it names genxml files, one
/// of `file` (the file compared, the file that defines the item).
fn cites(text: &str, file: &[&str]) -> bool {
    let lower = text.to_ascii_lowercase();
    let named: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '.')
        .filter(|w| w.starts_with("gen") && w.ends_with(".xml"))
        .collect();
    (lower.contains("genxml") || lower.contains("mesa"))
        && (named.is_empty() || file.iter().any(|f| named.contains(f)))
}

/// Whether the entry note `note` explains a difference about `names`: it
/// cites genxml (see [`cites`]) and names one of them (digits and a
/// ": Reserved" tail ignored).
fn explained(note: &str, file: &[&str], names: &[&str]) -> bool {
    if !cites(note, file) {
        return false;
    }
    let text = letters(note);
    names.iter().any(|n| {
        let n = letters(n.split(':').next().unwrap_or(n));
        n.len() >= 4 && text.contains(&n)
    })
}

/// Whether a field's own note or ref cites genxml or Mesa for `file`.
fn field_noted(f: &Field, file: &[&str]) -> bool {
    let c = |s: &str| cites(s, file);
    f.note.as_deref().is_some_and(c) || f.reference.as_deref().is_some_and(c)
}

fn place(start: u32, end: u32, dwords: bool) -> String {
    let base = if dwords { start / 32 * 32 } else { 0 };
    let bits = if start == end {
        format!("{}", start - base)
    } else {
        format!("{}:{}", end - base, start - base)
    };
    if dwords {
        format!("dw {} bits {bits}", start / 32)
    } else {
        format!("bits {bits}")
    }
}

/// Compares one field list; returns (compared, agreeing, split).
fn fields(
    item: &str,
    note: &str,
    file: &[&str],
    ours: &[Field],
    theirs: &[GxField],
    dwords: bool,
    diffs: &mut Vec<Diff>,
) -> (usize, usize, usize) {
    let mut free: Vec<&Field> = ours.iter().filter(|f| f.kind != FieldKind::Mbz).collect();
    // Reserved MBZ ranges are not fields (genxml names a few, "Reserved: MBZ").
    let theirs: Vec<&GxField> = theirs
        .iter()
        .filter(|f| f.ty != "mbz" && !f.name.starts_with("Reserved: MBZ"))
        .collect();
    let (mut compared, mut agree, mut split) = (0, 0, 0);
    // Name matches first, so that a renamed neighbour cannot take a field's place.
    let mut pending = Vec::new();
    // Ranges of genxml fields that agree, for genxml's own overlays.
    let mut matched: Vec<(u32, u32)> = Vec::new();
    for g in theirs {
        compared += 1;
        let n = norm(&g.name);
        match free.iter().position(|f| norm(&f.name) == n) {
            Some(i) => {
                let f = free.remove(i);
                if (f.start, f.end) == (g.start, g.end) {
                    agree += 1;
                    matched.push((g.start, g.end));
                } else {
                    diffs.push(Diff {
                        text: format!(
                            "{item}: {:?} genxml {}, ours {} {}",
                            g.name,
                            place(g.start, g.end, dwords),
                            f.name,
                            place(f.start, f.end, dwords)
                        ),
                        noted: field_noted(f, file) || explained(note, file, &[&g.name, &f.name]),
                        split: false,
                    });
                }
            }
            None => pending.push(g),
        }
    }
    let mut shown: Vec<(u32, u32)> = Vec::new();
    pending.retain(|g| {
        let at = free
            .iter()
            .position(|f| (f.start, f.end) == (g.start, g.end));
        if let Some(i) = at {
            free.remove(i);
            agree += 1;
            matched.push((g.start, g.end));
        }
        at.is_none()
    });
    let bits = |ranges: &mut dyn Iterator<Item = (u32, u32)>| {
        let mut v: Vec<u32> = ranges.flat_map(|(s, e)| s..=e).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    for g in &pending {
        let over: Vec<&&Field> = free
            .iter()
            .filter(|f| f.start <= g.end && f.end >= g.start)
            .collect();
        let mut names: Vec<&str> = over.iter().map(|f| f.name.as_str()).collect();
        names.push(&g.name);
        let noted = over.iter().any(|f| field_noted(f, file)) || explained(note, file, &names);
        // The genxml fields around the same ours fields cover the same bits.
        let near: Vec<&&GxField> = pending
            .iter()
            .filter(|t| over.iter().any(|f| f.start <= t.end && f.end >= t.start))
            .collect();
        // Genxml may overlay a field on one that agrees (per-field write
        // masks over "Mask1", a second name for the same bit): the same
        // bits, divided or named otherwise.
        let overlay = matched.iter().any(|&(s, e)| s <= g.start && g.end <= e);
        let is_split = overlay
            || (!over.is_empty()
                && bits(&mut over.iter().map(|f| (f.start, f.end)))
                    == bits(&mut near.iter().map(|t| (t.start, t.end))));
        split += usize::from(is_split);
        let overlap: Vec<String> = over
            .iter()
            .map(|f| format!("{} {}", f.name, place(f.start, f.end, dwords)))
            .collect();
        shown.push((g.start, g.end));
        let ours = if overlap.is_empty() {
            "ours none".to_string()
        } else {
            format!("ours overlapping: {}", overlap.join(", "))
        };
        diffs.push(Diff {
            text: format!(
                "{item}: {:?} genxml {}, {ours}",
                g.name,
                place(g.start, g.end, dwords)
            ),
            noted,
            split: is_split,
        });
    }
    // Ours that overlap a listed genxml field were named with it.
    for f in free
        .into_iter()
        .filter(|f| !shown.iter().any(|&(s, e)| f.start <= e && f.end >= s))
    {
        diffs.push(Diff {
            text: format!(
                "{item}: ours {} {} is not in genxml",
                f.name,
                place(f.start, f.end, dwords)
            ),
            noted: field_noted(f, file) || explained(note, file, &[&f.name]),
            split: false,
        });
    }
    (compared, agree, split)
}

/// One of our entries, seen the same way whatever its kind.
struct Ours<'a> {
    kind: Kind,
    name: &'a str,
    length: Option<u32>,
    bias: Option<u32>,
    /// Absolute MMIO offsets (one per engine instance).
    offsets: Vec<u32>,
    fields: &'a [Field],
    groups: &'a [Group],
    masked: bool,
    note: String,
}

/// The entry's note and ref: a ref naming genxml lets the note name what
/// genxml has that the entry leaves out.
fn note_and_ref(c: &Citation) -> String {
    format!(
        "{} {}",
        c.note.as_deref().unwrap_or(""),
        c.reference.as_deref().unwrap_or("")
    )
}

fn ours(t: &GenerationTables) -> Vec<Ours<'_>> {
    let mut v = Vec::new();
    for c in &t.commands {
        v.push(Ours {
            kind: Kind::Command,
            name: &c.name,
            length: c.length,
            bias: Some(c.bias),
            offsets: Vec::new(),
            fields: &c.fields,
            groups: &c.groups,
            masked: false,
            note: note_and_ref(&c.citation),
        });
    }
    for s in &t.structs {
        v.push(Ours {
            kind: Kind::Struct,
            name: &s.name,
            length: Some(s.length),
            bias: None,
            offsets: Vec::new(),
            fields: &s.fields,
            groups: &s.groups,
            masked: false,
            note: note_and_ref(&s.citation),
        });
    }
    for r in &t.registers {
        let offsets = if r.engines.is_empty() {
            vec![r.offset]
        } else {
            r.engines
                .iter()
                .filter_map(|e| t.engines.get(e))
                .map(|b| b + r.offset)
                .collect()
        };
        v.push(Ours {
            kind: Kind::Register,
            name: &r.name,
            length: None,
            bias: None,
            offsets,
            fields: &r.fields,
            groups: &[],
            masked: r.access == "masked",
            note: note_and_ref(&r.citation),
        });
    }
    v
}

/// Compares generation `t` with the genxml items `gx`. `aliases` maps our
/// names to genxml names where they differ; `keep` selects our entries.
pub fn compare(
    t: &GenerationTables,
    gx: &[GxItem],
    file: &str,
    aliases: &[(&str, &str)],
    keep: &dyn Fn(&str) -> bool,
) -> Report {
    let mut r = Report::default();
    for o in ours(t).into_iter().filter(|o| keep(o.name)) {
        let want = aliases
            .iter()
            .find(|(a, _)| *a == o.name)
            .map_or(o.name, |(_, b)| *b);
        let g = gx
            .iter()
            .find(|g| g.name == want && g.kind == o.kind)
            .or_else(|| gx.iter().find(|g| g.name == want));
        let Some(g) = g else {
            r.unmatched.push(o.name.to_string());
            continue;
        };
        // A note may cite the file compared or the one that defines the item
        // (gen7.xml imports VERTEX_ELEMENT_STATE from gen6.xml).
        let files = [
            file,
            if g.file.is_empty() {
                file
            } else {
                g.file.as_str()
            },
        ];
        let file = &files[..];
        r.items += 1;
        let item = if want == o.name {
            o.name.to_string()
        } else {
            format!("{} ({want})", o.name)
        };
        let dwords = o.kind != Kind::Register;
        if o.kind == Kind::Register {
            if let Some(num) = g.num
                && !o.offsets.contains(&num)
            {
                let ours: Vec<String> = o.offsets.iter().map(|x| format!("{x:#x}")).collect();
                r.diffs.push(Diff {
                    text: format!("{item}: offset genxml {num:#x}, ours {}", ours.join("/")),
                    noted: explained(&o.note, file, &["offset"]),
                    split: false,
                });
            }
        } else {
            if let (Some(a), Some(b)) = (o.length, g.length)
                && a != b
            {
                r.diffs.push(Diff {
                    text: format!("{item}: length genxml {b} dwords, ours {a}"),
                    noted: explained(&o.note, file, &["length"]),
                    split: false,
                });
            }
            if o.kind == Kind::Command
                && let (Some(a), Some(b)) = (o.bias, g.bias)
                && a != b
            {
                r.diffs.push(Diff {
                    text: format!("{item}: bias genxml {b}, ours {a}"),
                    noted: explained(&o.note, file, &["bias", "length"]),
                    split: false,
                });
            }
        }
        let mut theirs = g.fields.clone();
        if o.kind == Kind::Register && o.masked {
            // Our masked registers carry the write enables (31:16) implicitly.
            theirs.retain(|f| !(f.start >= 16 && norm(&f.name).ends_with("mask")));
        }
        let mut groups = g.groups.as_slice();
        if o.groups.is_empty()
            && let Some((first, rest)) = g.groups.split_first()
        {
            // Ours holds one element of what genxml repeats (BLEND_STATE).
            theirs.extend(first.fields.iter().map(|f| GxField {
                start: f.start + first.start,
                end: f.end + first.start,
                ..f.clone()
            }));
            groups = rest;
        }
        let (c, a, sp) = fields(
            &item,
            &o.note,
            file,
            o.fields,
            &theirs,
            dwords,
            &mut r.diffs,
        );
        r.fields += c;
        r.agree += a;
        r.split += sp;
        for (i, gg) in groups.iter().enumerate() {
            let Some(og) = o.groups.get(i) else {
                r.diffs.push(Diff {
                    text: format!(
                        "{item}: genxml repeats {} fields from {}, ours has no group",
                        gg.fields.len(),
                        place(gg.start, gg.start, true)
                    ),
                    noted: explained(&o.note, file, &["group", "repeat"]),
                    split: false,
                });
                r.fields += gg.fields.len();
                continue;
            };
            if (og.dw * 32, og.size * 32) != (gg.start, gg.size) {
                r.diffs.push(Diff {
                    text: format!(
                        "{item}: group {} genxml from bit {} every {} bits, ours from dw {} every {} dwords",
                        og.name, gg.start, gg.size, og.dw, og.size
                    ),
                    noted: explained(&o.note, file, &[&og.name]),
                    split: false,
                });
            }
            let name = format!("{item} group {}", og.name);
            let (c, a, sp) = fields(
                &name,
                &o.note,
                file,
                &og.fields,
                &gg.fields,
                true,
                &mut r.diffs,
            );
            r.fields += c;
            r.agree += a;
            r.split += sp;
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::genxml::items_of;

    fn field(name: &str, start: u32, end: u32, kind: FieldKind) -> Field {
        Field {
            name: name.into(),
            start,
            end,
            kind,
            value: None,
            default: None,
            values: Vec::new(),
            frac: None,
            shift: 0,
            access: None,
            note: None,
            reference: None,
        }
    }

    fn cite() -> Citation {
        Citation {
            source: "ext".into(),
            lines: None,
            reference: Some("test".into()),
            note: None,
        }
    }

    #[test]
    fn counts_and_lists_differences() {
        let xml = r#"<genxml name="T" gen="6">
  <instruction name="CMD" bias="2" length="3">
    <field name="Command Type" start="29" end="31" type="uint" default="3"/>
    <field name="DWord Length" start="0" end="7" type="uint" default="1"/>
    <field name="Surface Base Address" start="38" end="63" type="address"/>
    <field name="Enable Foo" start="64" end="64" type="bool"/>
    <field name="Pad" start="65" end="66" type="mbz"/>
    <field name="Width" start="80" end="95" type="uint"/>
  </instruction>
  <struct name="GX_NAME" length="1"><field name="A" start="0" end="3" type="uint"/></struct>
  <register name="REG" length="1" num="0x2358"><field name="B" start="0" end="1" type="uint"/></register>
  <register name="GX_ONLY" length="1" num="0x4"/>
</genxml>"#;
        let gx = items_of(xml, &mut |n: &str| Err(format!("no {n}")), 0).unwrap();
        let t = GenerationTables {
            name: "t".into(),
            engines: [("render".to_string(), 0x2000)].into_iter().collect(),
            commands: vec![Command {
                name: "CMD".into(),
                citation: cite(),
                engines: vec!["render".into()],
                length: Some(4),
                min_length: 4,
                bias: 2,
                fields: vec![
                    field("command_type", 29, 31, FieldKind::Fixed),
                    field("dword_length", 0, 7, FieldKind::Length),
                    // Same range, other name: agrees.
                    field("base", 38, 63, FieldKind::Address),
                    // Same name, other range: differs.
                    field("width", 80, 94, FieldKind::Uint),
                    field("mine", 100, 101, FieldKind::Uint),
                    field("reserved", 65, 66, FieldKind::Mbz),
                ],
                groups: Vec::new(),
            }],
            structs: vec![Struct {
                name: "OURS_NAME".into(),
                citation: cite(),
                length: 1,
                fields: vec![field("a", 0, 3, FieldKind::Uint)],
                groups: Vec::new(),
            }],
            registers: vec![Register {
                name: "REG".into(),
                citation: cite(),
                offset: 0x350,
                engines: vec!["render".into()],
                width: 32,
                access: "rw".into(),
                reset: None,
                count: 1,
                stride: 0,
                fields: vec![field("b", 0, 1, FieldKind::Uint)],
            }],
        };
        let r = compare(&t, &gx, "gen6.xml", &[("OURS_NAME", "GX_NAME")], &|_| true);
        assert_eq!(r.items, 3);
        // CMD: 5 (mbz skipped), GX_NAME: 1, REG: 1.
        assert_eq!(r.fields, 7);
        // Everything but "Enable Foo" (missing) and "Width" (other range).
        assert_eq!(r.agree, 5);
        assert!(r.unmatched.is_empty());
        let has = |s: &str| r.diffs.iter().any(|d| d.text.contains(s));
        assert!(has("CMD: length genxml 3 dwords, ours 4"), "{:?}", r.diffs);
        assert!(has(
            "\"Width\" genxml dw 2 bits 31:16, ours width dw 2 bits 30:16"
        ));
        assert!(has("\"Enable Foo\" genxml dw 2 bits 0, ours none"));
        assert!(has("ours mine dw 3 bits 5:4 is not in genxml"));
        assert!(has("REG: offset genxml 0x2358, ours 0x2350"));
        assert_eq!(r.diffs.len(), 5, "{:?}", r.diffs);
        assert_eq!(r.noted(), 0);
        // A note that cites genxml and names the field marks its difference.
        let mut t2 = t.clone();
        t2.commands[0].citation.note = Some("Mesa gen6.xml has Enable Foo; the manual not.".into());
        assert!(explained(
            "Mesa has Attribute Swizzle Control Mode",
            &["gen6.xml"],
            &["Attribute 3 Swizzle Control Mode"]
        ));
        let r2 = compare(&t2, &gx, "gen6.xml", &[("OURS_NAME", "GX_NAME")], &|_| true);
        let noted: Vec<&str> = r2
            .diffs
            .iter()
            .filter(|d| d.noted)
            .map(|d| d.text.as_str())
            .collect();
        assert_eq!(noted, ["CMD: \"Enable Foo\" genxml dw 2 bits 0, ours none"]);
        // A note about another generation's file explains nothing here.
        let r3 = compare(&t2, &gx, "gen7.xml", &[("OURS_NAME", "GX_NAME")], &|_| true);
        assert_eq!(r3.noted(), 0);
        // Without the alias the struct is not matched.
        let r = compare(&t, &gx, "gen6.xml", &[], &|n| n != "CMD");
        assert_eq!(r.unmatched, ["OURS_NAME"]);
        assert_eq!((r.items, r.fields, r.agree), (1, 1, 1));
    }

    #[test]
    fn same_bits_divided_otherwise_is_a_split() {
        let xml = r#"<genxml name="T" gen="6">
  <instruction name="CMD" bias="2" length="5">
    <field name="Immediate Data" start="96" end="159" type="uint"/>
    <field name="Mask A" start="16" end="16" type="bool"/>
    <field name="Mask B" start="17" end="17" type="bool"/>
    <field name="Other" start="40" end="47" type="uint"/>
  </instruction>
</genxml>"#;
        let gx = items_of(xml, &mut |n: &str| Err(format!("no {n}")), 0).unwrap();
        let t = GenerationTables {
            name: "t".into(),
            commands: vec![Command {
                name: "CMD".into(),
                citation: cite(),
                engines: Vec::new(),
                length: Some(5),
                min_length: 5,
                bias: 2,
                fields: vec![
                    field("data_low", 96, 127, FieldKind::Uint),
                    field("data_high", 128, 159, FieldKind::Uint),
                    field("mask", 16, 17, FieldKind::Uint),
                    // Covers more than "Other": not a split.
                    field("wide", 40, 55, FieldKind::Uint),
                ],
                groups: Vec::new(),
            }],
            ..Default::default()
        };
        let r = compare(&t, &gx, "gen6.xml", &[], &|_| true);
        assert_eq!((r.fields, r.agree, r.split), (4, 0, 3), "{:?}", r.diffs);
        assert_eq!(r.open(), 1);
    }
}
