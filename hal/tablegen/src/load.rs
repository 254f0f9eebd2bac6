//! Reading a generation's folder of TOML tables.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::model::*;

/// A table that cannot be loaded: which file, which entry, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    pub file: PathBuf,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.message)
    }
}

impl std::error::Error for LoadError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGeneration {
    name: String,
    inherit: Option<String>,
    #[serde(default)]
    exclude: Vec<String>,
    manual: String,
    #[serde(default)]
    engines: BTreeMap<String, u32>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawFile {
    /// Default manual for this file's entries (overrides the folder's).
    source: Option<String>,
    #[serde(default)]
    command: Vec<RawCommand>,
    #[serde(default)]
    register: Vec<RawRegister>,
    #[serde(default, rename = "struct")]
    structs: Vec<RawStruct>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCommand {
    name: String,
    source: Option<String>,
    lines: Option<String>,
    #[serde(rename = "ref")]
    reference: Option<String>,
    note: Option<String>,
    #[serde(default)]
    engines: Vec<String>,
    length: Option<u32>,
    min_length: Option<u32>,
    bias: Option<u32>,
    #[serde(default)]
    fields: Vec<RawField>,
    #[serde(default)]
    groups: Vec<RawGroup>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRegister {
    name: String,
    source: Option<String>,
    lines: Option<String>,
    #[serde(rename = "ref")]
    reference: Option<String>,
    note: Option<String>,
    offset: u32,
    #[serde(default)]
    engines: Vec<String>,
    width: Option<u32>,
    access: Option<String>,
    reset: Option<u64>,
    count: Option<u32>,
    stride: Option<u32>,
    #[serde(default)]
    fields: Vec<RawField>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStruct {
    name: String,
    source: Option<String>,
    lines: Option<String>,
    #[serde(rename = "ref")]
    reference: Option<String>,
    note: Option<String>,
    length: u32,
    #[serde(default)]
    fields: Vec<RawField>,
    #[serde(default)]
    groups: Vec<RawGroup>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGroup {
    name: String,
    dw: u32,
    size: u32,
    fields: Vec<RawField>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawField {
    name: String,
    dw: Option<u32>,
    bits: String,
    #[serde(rename = "type")]
    kind: String,
    value: Option<u64>,
    default: Option<u64>,
    #[serde(default)]
    values: BTreeMap<String, u64>,
    frac: Option<u32>,
    access: Option<String>,
    note: Option<String>,
    #[serde(rename = "ref")]
    reference: Option<String>,
}

fn parse_bits(bits: &str) -> Result<(u32, u32), String> {
    let parse = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| format!("bad bit number in \"{bits}\""))
    };
    let (hi, lo) = match bits.split_once(':') {
        Some((hi, lo)) => (parse(hi)?, parse(lo)?),
        None => {
            let b = parse(bits)?;
            (b, b)
        }
    };
    if hi < lo {
        return Err(format!("bits \"{bits}\": high bit below low bit"));
    }
    if hi > 127 {
        return Err(format!("bits \"{bits}\": more than 128 bits"));
    }
    Ok((hi, lo))
}

fn field(raw: RawField, in_register: bool) -> Result<Field, String> {
    let ctx = |m: String| format!("field {}: {m}", raw.name);
    let (hi, lo) = parse_bits(&raw.bits).map_err(ctx)?;
    let kind =
        FieldKind::parse(&raw.kind).ok_or_else(|| ctx(format!("unknown type \"{}\"", raw.kind)))?;
    let base = match (raw.dw, in_register) {
        (Some(_), true) => return Err(ctx("register fields take no `dw`".into())),
        (None, true) => 0,
        (Some(dw), false) => dw * 32,
        (None, false) => return Err(ctx("missing `dw`".into())),
    };
    let mut values: Vec<(String, u64)> = raw.values.into_iter().collect();
    values.sort_by_key(|(n, v)| (*v, n.clone()));
    Ok(Field {
        name: raw.name,
        start: base + lo,
        end: base + hi,
        kind,
        value: raw.value,
        default: raw.default,
        values,
        frac: raw.frac,
        shift: if matches!(kind, FieldKind::Address | FieldKind::Offset) {
            lo % 32
        } else {
            0
        },
        access: raw.access,
        note: raw.note,
        reference: raw.reference,
    })
}

fn fields(raw: Vec<RawField>, in_register: bool) -> Result<Vec<Field>, String> {
    raw.into_iter().map(|f| field(f, in_register)).collect()
}

fn groups(raw: Vec<RawGroup>) -> Result<Vec<Group>, String> {
    raw.into_iter()
        .map(|g| {
            Ok(Group {
                fields: fields(g.fields, false).map_err(|e| format!("group {}: {e}", g.name))?,
                name: g.name,
                dw: g.dw,
                size: g.size,
            })
        })
        .collect()
}

fn citation(
    source: Option<String>,
    default: &str,
    lines: Option<String>,
    reference: Option<String>,
    note: Option<String>,
) -> Citation {
    Citation {
        source: source.unwrap_or_else(|| default.to_string()),
        lines,
        reference,
        note,
    }
}

fn read_toml<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, LoadError> {
    let err = |message: String| LoadError {
        file: path.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
    toml::from_str(&text).map_err(|e| err(e.to_string()))
}

/// Loads generation `name` from `tables_dir/<name>/`, merged with what it
/// inherits. The result is not yet checked: see [`crate::check`].
pub fn load_generation(tables_dir: &Path, name: &str) -> Result<GenerationTables, LoadError> {
    load_inner(tables_dir, name, 0)
}

fn load_inner(tables_dir: &Path, name: &str, depth: u32) -> Result<GenerationTables, LoadError> {
    let dir = tables_dir.join(name);
    let gen_file = dir.join("generation.toml");
    if depth > 8 {
        return Err(LoadError {
            file: gen_file,
            message: "inheritance loop".into(),
        });
    }
    let raw: RawGeneration = read_toml(&gen_file)?;
    if raw.name != name {
        return Err(LoadError {
            file: gen_file,
            message: format!("name \"{}\" differs from folder", raw.name),
        });
    }
    let mut tables = match &raw.inherit {
        Some(parent) => load_inner(tables_dir, parent, depth + 1)?,
        None => GenerationTables::default(),
    };
    tables.name = raw.name.clone();
    for (engine, base) in &raw.engines {
        tables.engines.insert(engine.clone(), *base);
    }
    for ex in &raw.exclude {
        let before = tables.registers.len() + tables.commands.len() + tables.structs.len();
        tables.registers.retain(|r| &r.name != ex);
        tables.commands.retain(|c| &c.name != ex);
        tables.structs.retain(|s| &s.name != ex);
        if before == tables.registers.len() + tables.commands.len() + tables.structs.len() {
            return Err(LoadError {
                file: gen_file,
                message: format!("exclude: no inherited entry named {ex}"),
            });
        }
    }

    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| LoadError {
            file: dir.clone(),
            message: e.to_string(),
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "toml")
                && p.file_name()
                    .is_some_and(|n| n != "generation.toml" && n != "device.toml")
        })
        .collect();
    files.sort();

    // Entries defined in this folder replace inherited ones of the same name,
    // but two files of one folder may not define the same name.
    let mut own: BTreeMap<String, PathBuf> = BTreeMap::new();
    for path in files {
        let file: RawFile = read_toml(&path)?;
        let err = |message: String| LoadError {
            file: path.clone(),
            message,
        };
        let manual = file.source.clone().unwrap_or_else(|| raw.manual.clone());
        let mut claim = |entry: &str| -> Result<(), LoadError> {
            match own.insert(entry.to_string(), path.clone()) {
                Some(prev) => Err(err(format!(
                    "{entry} is defined again (first in {})",
                    prev.display()
                ))),
                None => Ok(()),
            }
        };
        for c in file.command {
            claim(&c.name)?;
            let length = c.length;
            let cmd = Command {
                citation: citation(c.source, &manual, c.lines, c.reference, c.note),
                engines: c.engines,
                min_length: c.min_length.or(length).unwrap_or(1),
                length,
                bias: c.bias.unwrap_or(2),
                fields: fields(c.fields, false).map_err(|e| err(format!("{}: {e}", c.name)))?,
                groups: groups(c.groups).map_err(|e| err(format!("{}: {e}", c.name)))?,
                name: c.name,
            };
            tables.commands.retain(|x| x.name != cmd.name);
            tables.commands.push(cmd);
        }
        for r in file.register {
            claim(&r.name)?;
            let reg = Register {
                citation: citation(r.source, &manual, r.lines, r.reference, r.note),
                offset: r.offset,
                engines: r.engines,
                width: r.width.unwrap_or(32),
                access: r.access.unwrap_or_else(|| "rw".into()),
                reset: r.reset,
                count: r.count.unwrap_or(1),
                stride: r.stride.unwrap_or(0),
                fields: fields(r.fields, true).map_err(|e| err(format!("{}: {e}", r.name)))?,
                name: r.name,
            };
            tables.registers.retain(|x| x.name != reg.name);
            tables.registers.push(reg);
        }
        for s in file.structs {
            claim(&s.name)?;
            let st = Struct {
                citation: citation(s.source, &manual, s.lines, s.reference, s.note),
                length: s.length,
                fields: fields(s.fields, false).map_err(|e| err(format!("{}: {e}", s.name)))?,
                groups: groups(s.groups).map_err(|e| err(format!("{}: {e}", s.name)))?,
                name: s.name,
            };
            tables.structs.retain(|x| x.name != st.name);
            tables.structs.push(st);
        }
    }
    tables.commands.sort_by(|a, b| a.name.cmp(&b.name));
    tables.registers.sort_by(|a, b| a.name.cmp(&b.name));
    tables.structs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(tables)
}
