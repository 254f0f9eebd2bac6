//! Automatic compaction on a chain of branches near the compact range:
//! Gen6 `jmpi` compacts while its immediate fits 13 signed bits of 64-bit
//! units (up to 4095 units from the next instruction). Each `jmpi` here
//! reaches exactly 4095 units, and its span holds the next `jmpi`; when
//! the last one is one unit out, its going native pushes the one before
//! out too, and so on down the chain, one per layout round. Three hundred
//! of them took the assembler minutes when every round placed the whole
//! program again.

use baregpu_isa::IsaGen;
use baregpu_isa::text::{AsmOptions, assemble, assemble_with};

const REACH: usize = 4095;
const SPACING: usize = 3000;

/// The chain's source; `form` is appended to each `jmpi` (`{Compacted}`,
/// `{Uncompacted}` or nothing). The fillers are native `.raw` words (2
/// units) and one compact `add` (1 unit) where a gap is odd.
fn chain(n: usize, last_out: bool, form: &str) -> String {
    let mut events: Vec<(usize, String)> = Vec::new();
    for k in 0..n {
        events.push((k * SPACING, format!("(W) jmpi T{k} {form}")));
        let reach = if last_out && k == n - 1 {
            REACH + 1
        } else {
            REACH
        };
        // Labels sort before an instruction at the same unit.
        events.push((k * SPACING + 1 + reach, format!("T{k}:")));
    }
    events.sort_by_key(|(at, text)| (*at, !text.ends_with(':')));
    let mut src = String::new();
    let mut at = 0;
    for (unit, text) in events {
        while unit - at >= 2 {
            src.push_str(".raw 0x00600001 0x00000000 0x00000000 0x00000000\n");
            at += 2;
        }
        if unit > at {
            src.push_str("add (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f {Compacted}\n");
            at += 1;
        }
        src.push_str(&text);
        src.push('\n');
        if !text.ends_with(':') {
            at += 1; // a jmpi, counted compact
        }
    }
    src.push_str("nop\n");
    src
}

#[test]
fn a_chain_of_three_hundred_branches_goes_native_link_by_link() {
    let p = IsaGen::Gen6;
    let compact = AsmOptions { compact: true };
    let n = 300;
    // The last one out: every jmpi ends native, as if written so.
    let auto = assemble_with(p, &chain(n, true, ""), compact).unwrap();
    let native = assemble(p, &chain(n, true, "{Uncompacted}")).unwrap();
    assert_eq!(auto.len(), native.len());
    assert!(auto == native, "the chain did not go native as a whole");
    // All in reach: every jmpi stays compact.
    let auto = assemble_with(p, &chain(n, false, ""), compact).unwrap();
    let small = assemble(p, &chain(n, false, "{Compacted}")).unwrap();
    assert!(auto == small, "a jmpi in reach went native");
    // 8 bytes per jmpi, and the unit of filler the last jump's extra reach takes.
    assert_eq!(native.len() - small.len(), 8 * n + 8);
}

/// The padding `--compact` inserts (G45: a compact NENOP before native
/// words and labels; Gen6+: a compact NOP before an EOT send) prints as an
/// instruction, not `.raw`, and that text assembles to the same bytes.
#[test]
fn compact_padding_disassembles_symbolically() {
    use baregpu_isa::text::{DisasmOptions, disassemble_with};
    let compact = AsmOptions { compact: true };
    let opts = DisasmOptions {
        offsets: true,
        labels: true,
        messages: false,
    };
    for (p, sfid) in [
        (IsaGen::G45, None),
        (IsaGen::Gen6, Some("0x7")),
        (IsaGen::Gen7, Some("0x27")),
        (IsaGen::Gen75, Some("0x27")),
    ] {
        let mut src = String::from(
            "add (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n\
             L:\n\
             add (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n",
        );
        if let Some(sfid) = sfid {
            // Three compact words before it: the send would start at 24.
            src.push_str("add (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f\n");
            src.push_str(&format!(
                "send (8|M0) null:ud r112 {sfid} 0x02000010 {{EOT}}\n"
            ));
        } else {
            src.push_str("add (8|M0) r1.0<1>:f r2.0<8;8,1>:f r3.0<8;8,1>:f {Uncompacted}\n");
        }
        let bytes = assemble_with(p, &src, compact).unwrap();
        let dis = disassemble_with(p, &bytes, opts).unwrap();
        let pads = dis
            .lines()
            .filter(|l| l.contains("nop") && l.contains("{Compacted}"))
            .count();
        assert!(pads >= 1, "{p}: no padding:\n{dis}");
        assert!(!dis.contains(".raw"), "{p}:\n{dis}");
        assert_eq!(assemble(p, &dis).unwrap(), bytes, "{p}:\n{dis}");
    }
}
