//! Properties of every generation's reflection tables: no two fields of a
//! packet overlap, every dword is covered by fields or marked reserved,
//! every command can be recognised, and every entry cites its source.

use baregpu_hal::reflect::{FieldInfo, FieldKind, GenTables};

fn overlaps(fields: &[FieldInfo]) -> Option<(&'static str, &'static str)> {
    let mut sorted: Vec<&FieldInfo> = fields.iter().collect();
    sorted.sort_by_key(|f| (f.start, f.end));
    sorted
        .windows(2)
        .find(|w| w[1].start <= w[0].end)
        .map(|w| (w[0].name, w[1].name))
}

fn uncovered_dword(fields: &[FieldInfo], dwords: u16) -> Option<u16> {
    (0..dwords).find(|&dw| {
        let (lo, hi) = (dw * 32, dw * 32 + 31);
        !fields.iter().any(|f| f.start <= hi && f.end >= lo)
    })
}

fn every_generation() -> impl Iterator<Item = &'static GenTables> {
    baregpu_hal::GENERATIONS.iter().copied()
}

#[test]
fn every_generation_has_tables() {
    for t in every_generation() {
        assert!(!t.commands.is_empty(), "{}: no commands", t.name);
        assert!(!t.registers.is_empty(), "{}: no registers", t.name);
        assert!(!t.engines.is_empty(), "{}: no engines", t.name);
    }
}

#[test]
fn packets_have_no_overlaps_and_full_coverage() {
    for t in every_generation() {
        for c in t.commands {
            assert_eq!(overlaps(c.fields), None, "{} {}", t.name, c.name);
            let fixed = c.group.map_or(c.length.unwrap_or(c.min_length), |g| g.dw);
            assert_eq!(
                uncovered_dword(c.fields, fixed),
                None,
                "{} {}: dword without field",
                t.name,
                c.name
            );
            if let Some(g) = c.group {
                assert_eq!(overlaps(g.fields), None, "{} {}.{}", t.name, c.name, g.name);
                assert_eq!(
                    uncovered_dword(g.fields, g.size),
                    None,
                    "{} {}.{}",
                    t.name,
                    c.name,
                    g.name
                );
            }
            let top = c.length.map(|l| l as u32 * 32);
            for f in c.fields {
                assert!(f.start <= f.end, "{} {}.{}", t.name, c.name, f.name);
                if let Some(top) = top {
                    assert!(
                        (f.end as u32) < top,
                        "{} {}.{} past the end",
                        t.name,
                        c.name,
                        f.name
                    );
                }
            }
        }
        for s in t.structs {
            assert_eq!(overlaps(s.fields), None, "{} {}", t.name, s.name);
            assert_eq!(
                uncovered_dword(s.fields, s.length),
                None,
                "{} {}",
                t.name,
                s.name
            );
        }
        for r in t.registers {
            assert_eq!(overlaps(r.fields), None, "{} {}", t.name, r.name);
            assert!(
                r.fields.iter().all(|f| (f.end as u32) < r.width as u32),
                "{} {}",
                t.name,
                r.name
            );
        }
    }
}

#[test]
fn every_command_is_recognised_by_its_own_header() {
    for t in every_generation() {
        for c in t.commands {
            assert_ne!(c.header_mask, 0, "{} {}", t.name, c.name);
            // Dword 0 of a default packet: the header value plus the length field.
            let mut dw0 = c.header_value;
            if let Some(lf) = c.length_field() {
                let len = c.length.unwrap_or(c.min_length) as u32 - c.bias as u32;
                dw0 |= len << lf.start;
            }
            for engine in c.engines {
                let found = t.identify(engine, dw0).map(|x| x.name);
                assert_eq!(
                    found,
                    Some(c.name),
                    "{} on {engine}: dw0 {dw0:#010x}",
                    t.name
                );
            }
        }
    }
}

#[test]
fn every_entry_cites_its_source() {
    for t in every_generation() {
        let sources = t
            .commands
            .iter()
            .map(|c| (c.name, c.source))
            .chain(t.registers.iter().map(|r| (r.name, r.source)))
            .chain(t.structs.iter().map(|s| (s.name, s.source)));
        for (name, source) in sources {
            let cited = source.starts_with("manual ") && source.contains(" lines ")
                || source.starts_with("ext: ");
            assert!(cited, "{} {name}: source {source:?}", t.name);
        }
    }
}

#[test]
fn fixed_fields_carry_values_and_lengths_fit() {
    for t in every_generation() {
        for c in t.commands {
            for f in c.fields.iter().filter(|f| f.kind == FieldKind::Fixed) {
                assert!(f.value.is_some(), "{} {}.{}", t.name, c.name, f.name);
            }
            if let (Some(lf), Some(len)) = (c.length_field(), c.length) {
                assert!(
                    ((len - c.bias as u16) as u64) < (1u64 << lf.width()),
                    "{} {}",
                    t.name,
                    c.name
                );
            }
        }
    }
}
