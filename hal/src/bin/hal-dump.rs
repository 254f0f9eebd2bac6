//! `hal-dump <gen>`: prints one generation's tables as one JSON object with
//! arrays `registers`, `commands` and `structs`, for external tools.
//!
//! Field `start`/`end` are absolute bit numbers counted from bit 0 of dword
//! 0, as Mesa's genxml counts them (for registers: from bit 0 of the
//! register). A register's `offset` is absolute (for a per-engine register:
//! the render engine's instance, or the first engine that has it; all
//! instances are under `engine_offsets`). A command's `length` is null when
//! variable; `header` holds its fixed header field values.

use std::fmt::Write;
use std::process::ExitCode;

use baregpu_hal::reflect::{FieldInfo, GenTables, GroupInfo, RegisterInfo};

fn string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn field(f: &FieldInfo, base_bit: u32) -> String {
    let mut s = format!(
        "{{\"name\":{},\"start\":{},\"end\":{},\"type\":{}",
        string(f.name),
        f.start as u32 + base_bit,
        f.end as u32 + base_bit,
        string(f.kind.name())
    );
    if let Some(v) = f.value {
        let _ = write!(s, ",\"value\":{v}");
    }
    if let Some(d) = f.default {
        let _ = write!(s, ",\"default\":{d}");
    }
    if f.shift != 0 {
        let _ = write!(s, ",\"shift\":{}", f.shift);
    }
    if f.frac != 0 {
        let _ = write!(s, ",\"frac\":{}", f.frac);
    }
    if !f.values.is_empty() {
        let vals: Vec<String> = f
            .values
            .iter()
            .map(|(n, v)| format!("{}:{v}", string(n)))
            .collect();
        let _ = write!(s, ",\"values\":{{{}}}", vals.join(","));
    }
    s.push('}');
    s
}

fn fields(fs: &[FieldInfo], base_bit: u32) -> String {
    let v: Vec<String> = fs.iter().map(|f| field(f, base_bit)).collect();
    format!("[{}]", v.join(","))
}

fn groups(g: &Option<GroupInfo>) -> String {
    match g {
        None => "[]".into(),
        Some(g) => format!(
            "[{{\"name\":{},\"start\":{},\"size\":{},\"fields\":{}}}]",
            string(g.name),
            g.dw as u32 * 32,
            g.size as u32 * 32,
            fields(g.fields, g.dw as u32 * 32)
        ),
    }
}

fn strings(v: &[&str]) -> String {
    let s: Vec<String> = v.iter().map(|x| string(x)).collect();
    format!("[{}]", s.join(","))
}

fn register(t: &GenTables, r: &RegisterInfo) -> String {
    let mut engine_offsets = Vec::new();
    for e in r.engines {
        if let Some(o) = t.register_offset(r, e, 0) {
            engine_offsets.push((e, o));
        }
    }
    let offset = if r.engines.is_empty() {
        r.offset
    } else {
        engine_offsets
            .iter()
            .find(|(e, _)| **e == "render")
            .or(engine_offsets.first())
            .map_or(r.offset, |(_, o)| *o)
    };
    let eo: Vec<String> = engine_offsets
        .iter()
        .map(|(e, o)| format!("{}:{o}", string(e)))
        .collect();
    format!(
        "{{\"name\":{},\"offset\":{offset},\"relative_offset\":{},\"engine_offsets\":{{{}}},\"width\":{},\"access\":{},\"reset\":{},\"count\":{},\"stride\":{},\"fields\":{},\"source\":{}}}",
        string(r.name),
        if r.engines.is_empty() {
            "null".to_string()
        } else {
            r.offset.to_string()
        },
        eo.join(","),
        r.width,
        string(r.access),
        r.reset.map_or("null".into(), |v| v.to_string()),
        r.count,
        r.stride,
        fields(r.fields, 0),
        string(r.source)
    )
}

fn dump(t: &GenTables) -> String {
    let regs: Vec<String> = t.registers.iter().map(|r| register(t, r)).collect();
    let cmds: Vec<String> = t
        .commands
        .iter()
        .map(|c| {
            let header: Vec<String> = c
                .fields
                .iter()
                .filter_map(|f| f.value.map(|v| format!("{}:{v}", string(f.name))))
                .collect();
            format!(
                "{{\"name\":{},\"engines\":{},\"length\":{},\"min_length\":{},\"bias\":{},\"header\":{{{}}},\"header_mask\":{},\"header_value\":{},\"fields\":{},\"groups\":{},\"source\":{}}}",
                string(c.name),
                strings(c.engines),
                c.length.map_or("null".into(), |l| l.to_string()),
                c.min_length,
                c.bias,
                header.join(","),
                c.header_mask,
                c.header_value,
                fields(c.fields, 0),
                groups(&c.group),
                string(c.source)
            )
        })
        .collect();
    let structs: Vec<String> = t
        .structs
        .iter()
        .map(|s| {
            format!(
                "{{\"name\":{},\"length\":{},\"fields\":{},\"groups\":{},\"source\":{}}}",
                string(s.name),
                s.length,
                fields(s.fields, 0),
                groups(&s.group),
                string(s.source)
            )
        })
        .collect();
    let engines: Vec<String> = t
        .engines
        .iter()
        .map(|(n, b)| format!("{}:{b}", string(n)))
        .collect();
    format!(
        "{{\"generation\":{},\"engines\":{{{}}},\"registers\":[{}],\"commands\":[{}],\"structs\":[{}]}}",
        string(t.name),
        engines.join(","),
        regs.join(","),
        cmds.join(","),
        structs.join(",")
    )
}

fn main() -> ExitCode {
    let names: Vec<&str> = baregpu_hal::GENERATIONS.iter().map(|t| t.name).collect();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name] = args.as_slice() else {
        eprintln!("usage: hal-dump <{}>", names.join("|"));
        return ExitCode::FAILURE;
    };
    let alias = match name.as_str() {
        "gen4.5" => "g45",
        "snb" => "gen6",
        "ivb" => "gen7",
        "dg2" => "gen12.5",
        n => n,
    };
    match baregpu_hal::tables(alias) {
        Some(t) => {
            println!("{}", dump(t));
            ExitCode::SUCCESS
        }
        None => {
            eprintln!(
                "hal-dump: unknown generation {name:?}; one of {}",
                names.join(", ")
            );
            ExitCode::FAILURE
        }
    }
}
