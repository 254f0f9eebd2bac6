//! The driver (`src/`) and the software GPU (`soft/src/`) have no import cycles
//! between their modules (issue 14): at every depth of the module tree, the graph
//! "module A names something of module B" has no loop. Read from the sources:
//! `use crate::...`, `use super::...` (with `{...}` groups) and inline
//! `crate::`/`super::` paths; unit-test modules are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "tests") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            out.push(path);
        }
    }
}

/// The module a file defines, as path components below the crate root.
fn module_of(root: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Module = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The source without `#[cfg(test)] mod name { ... }` blocks.
fn without_test_modules(src: &str) -> String {
    let mut out = String::new();
    let mut rest = src;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let trimmed = after.trim_start();
        let block = match (trimmed.find('{'), trimmed.find(';')) {
            (Some(open), Some(semi)) => open < semi,
            (Some(_), None) => true,
            _ => false,
        };
        if trimmed.starts_with("mod ") && block {
            let open = after.find('{').unwrap_or(0);
            let mut depth = 0;
            let mut end = after.len();
            for (i, ch) in after[open..].char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = open + i + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            rest = &after[end..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The paths a `use` tree names, below `prefix` (`a::{b, c::{d, e}}`).
fn expand(prefix: &[String], tree: &str, out: &mut Vec<Module>) {
    let tree = tree.trim();
    if let Some(inner) = tree.strip_prefix('{') {
        let inner = &inner[..inner.rfind('}').unwrap_or(inner.len())];
        let (mut depth, mut start) = (0, 0);
        let mut parts = Vec::new();
        for (i, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&inner[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(&inner[start..]);
        for p in parts.into_iter().map(str::trim).filter(|p| !p.is_empty()) {
            expand(prefix, p, out);
        }
        return;
    }
    let mut path = prefix.to_vec();
    let tree = tree.split(" as ").next().unwrap_or(tree);
    let mut segments = tree.split("::").peekable();
    while let Some(seg) = segments.next() {
        let seg = seg.trim();
        if seg.starts_with('{') {
            let rest: Vec<&str> = std::iter::once(seg).chain(segments).collect();
            expand(&path, &rest.join("::"), out);
            return;
        }
        if !seg.is_empty() && seg != "self" && seg != "*" {
            path.push(seg.to_string());
        }
    }
    out.push(path);
}

/// Strips leading `super::`s against `module`; `None` if `path` is not relative.
fn resolve(module: &[String], path: &str) -> Option<(Module, String)> {
    if let Some(rest) = path.strip_prefix("crate::") {
        return Some((Vec::new(), rest.to_string()));
    }
    if let Some(rest) = path.strip_prefix("self::") {
        return Some((module.to_vec(), rest.to_string()));
    }
    let mut rest = path;
    let mut up = 0;
    while let Some(r) = rest.strip_prefix("super::") {
        rest = r;
        up += 1;
    }
    (up > 0).then(|| {
        (
            module[..module.len().saturating_sub(up)].to_vec(),
            rest.to_string(),
        )
    })
}

/// Every module each module refers to.
fn references(root: &Path) -> Vec<(Module, Vec<Module>)> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    files
        .iter()
        .map(|f| {
            let module = module_of(root, f);
            let src = without_test_modules(&std::fs::read_to_string(f).unwrap());
            let mut refs = Vec::new();
            // `use` items, groups expanded.
            for item in src.split("use ").skip(1) {
                let Some(end) = item.find(';') else { continue };
                let tree: String = item[..end].split_whitespace().collect::<Vec<_>>().join(" ");
                if let Some((base, rest)) = resolve(&module, &tree) {
                    expand(&base, &rest, &mut refs);
                }
            }
            // Inline paths.
            for (i, _) in src
                .match_indices("crate::")
                .chain(src.match_indices("super::"))
            {
                if i > 0 && src[..i].ends_with("super::") {
                    continue;
                }
                let tail: String = src[i..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                if let Some((base, rest)) = resolve(&module, tail.trim_end_matches(':')) {
                    let mut path = base;
                    path.extend(rest.split("::").filter(|s| !s.is_empty()).map(String::from));
                    refs.push(path);
                }
            }
            (module, refs)
        })
        .collect()
}

/// Strongly connected components with more than one module, at `depth`.
fn cycles(refs: &[(Module, Vec<Module>)], depth: usize) -> Vec<Vec<Module>> {
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, targets) in refs {
        let a: Module = module.iter().take(depth).cloned().collect();
        for t in targets {
            let b: Module = t.iter().take(depth).cloned().collect();
            // A module and its own ancestors or descendants are one node's business.
            if b.is_empty() || a.starts_with(&b) || b.starts_with(&a) {
                continue;
            }
            edges.entry(a.clone()).or_default().insert(b);
        }
    }
    // Tarjan's algorithm, iterative enough for these small graphs.
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<Module, usize>,
        low: BTreeMap<Module, usize>,
        stack: Vec<Module>,
        on_stack: BTreeSet<Module>,
        found: Vec<Vec<Module>>,
    }
    fn visit(s: &mut State<'_>, v: &Module) {
        let n = s.index.len();
        s.index.insert(v.clone(), n);
        s.low.insert(v.clone(), n);
        s.stack.push(v.clone());
        s.on_stack.insert(v.clone());
        for w in s.edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(&w);
                let done = &w == v;
                component.push(w);
                if done {
                    break;
                }
            }
            if component.len() > 1 {
                s.found.push(component);
            }
        }
    }
    let mut s = State {
        edges: &edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    let nodes: BTreeSet<Module> = edges
        .iter()
        .flat_map(|(a, bs)| std::iter::once(a.clone()).chain(bs.iter().cloned()))
        .collect();
    for v in &nodes {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.found
}

fn assert_acyclic(dir: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let refs = references(&root);
    assert!(refs.len() > 10, "{dir}: read {} files", refs.len());
    let named: usize = refs.iter().map(|(_, r)| r.len()).sum();
    assert!(named > 100, "{dir}: only {named} paths read");
    for depth in 1..=5 {
        let found = cycles(&refs, depth);
        assert!(
            found.is_empty(),
            "{dir}: modules that import each other at depth {depth}: {:?}",
            found
                .iter()
                .map(|c| c.iter().map(|m| m.join("::")).collect::<Vec<_>>())
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn the_driver_has_no_import_cycles() {
    assert_acyclic("src");
}

#[test]
fn the_software_gpu_has_no_import_cycles() {
    assert_acyclic("soft/src");
}

/// The checker itself finds a cycle through a `use` group and one through an
/// inline path.
#[test]
fn a_cycle_is_found() {
    let m = |s: &str| s.split("::").map(String::from).collect::<Module>();
    let mut refs = Vec::new();
    expand(&[], "a::{b::X, c::{d, e::Y}}", &mut refs);
    assert_eq!(refs, [m("a::b::X"), m("a::c::d"), m("a::c::e::Y")]);
    let graph = vec![
        (m("cs"), vec![m("blit::Blitter")]),
        (m("blit"), vec![m("mem::Space")]),
        (m("mem"), vec![m("cs::Halt")]),
        (m("eu::alu"), vec![m("eu::decoded::Op")]),
        (m("eu::decoded"), vec![m("eu::thread::Thread")]),
    ];
    let found = cycles(&graph, 1);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].len(), 3);
    // eu::alu -> eu::decoded -> eu::thread: no loop, until eu::thread names eu::alu.
    assert!(cycles(&graph[3..], 2).is_empty());
    let mut looped = graph[3..].to_vec();
    looped.push((m("eu::thread"), vec![m("eu::alu::fast")]));
    assert_eq!(cycles(&looped, 2).len(), 1);
    assert_eq!(
        resolve(&m("cs::mi"), "super::super::mem::X"),
        Some((Vec::new(), "mem::X".to_string()))
    );
}
