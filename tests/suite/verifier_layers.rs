//! Issue 29: the verifier crate's modules (`crates/verify/src/`) import
//! one way, down the layers its `lib.rs` lists: credentials and storage
//! helpers, records and rules, query values, the ledger contract, the
//! stores, the service. The contract imports no store and no store
//! imports the service, so no two modules import each other, however
//! indirectly. The HTTP layer (`src/verify/http/`) is above the crate:
//! the compiler keeps it there.
//!
//! `scripts/module_cycles.py` finds cycles between a crate's top-level
//! modules; this checks their order: `super::name` and `crate::name` paths
//! (groups included, comments not).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::support::manifest_dir;

/// The layers, lowest first. A module may import only modules of a lower
/// layer; a new module must be placed here.
const LAYERS: &[&[&str]] = &[
    &["group_commit", "postgres_tls"],
    &["synced_sled", "postgres_pool", "credential"],
    &["protocol", "secret", "migrations"],
    &["record"],
    &["rules"],
    &["search", "history"],
    &["ledger"],
    &["store", "postgres_rows"],
    &["embedded", "postgres_batch", "postgres_gate"],
    &["postgres"],
    &["any_ledger"],
    &["service"],
    &["admin"],
];

/// The first path segment of each item of a `{...}` group at `text`'s
/// start (`a::X, b::{c, D}` gives a and b), and of a plain path otherwise.
fn heads(text: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(group) = text.strip_prefix('{') else {
        return vec![ident(text)];
    };
    let (mut heads, mut depth, mut item) = (Vec::new(), 0, String::new());
    for c in group.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                heads.push(ident(&item));
                item.clear();
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    heads.push(ident(&item));
    heads
}

/// The names right after each `prefix` in `text` that is not itself the
/// tail of a longer path (`super::` in `super::super::`).
fn after(text: &str, prefix: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in text.match_indices(prefix) {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        names.extend(heads(&text[at + prefix.len()..]));
    }
    names
}

/// The modules of a crate's `src/` (its `lib.rs` aside) each module imports.
fn imports(verify: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files: Vec<(String, std::path::PathBuf, bool)> = Vec::new();
    for entry in std::fs::read_dir(verify).unwrap().flatten() {
        let path = entry.path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() && path.join("mod.rs").exists() {
            for inner in std::fs::read_dir(&path).unwrap().flatten() {
                let inner = inner.path();
                if inner.extension().is_some_and(|e| e == "rs") {
                    let top = inner.file_name().is_some_and(|f| f == "mod.rs");
                    files.push((name.clone(), inner, top));
                }
            }
        } else if path.extension().is_some_and(|e| e == "rs") && name != "lib" {
            files.push((name, path, true));
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, _, _) in &files {
        graph.entry(module.clone()).or_default();
    }
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for (module, path, top) in &files {
        let text: String = std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        // In a folder's inner file, `super::` is the folder itself.
        let parent = if *top { "super::" } else { "super::super::" };
        for target in after(&text, parent)
            .into_iter()
            .chain(after(&text, "crate::"))
        {
            if modules.contains(&target) && target != *module {
                graph.get_mut(module).unwrap().insert(target);
            }
        }
    }
    graph
}

#[test]
fn the_verifiers_modules_import_down_the_layers_only() {
    let graph = imports(&manifest_dir().join("crates/verify/src"));
    let layer = |module: &str| {
        LAYERS
            .iter()
            .position(|layer| layer.contains(&module))
            .unwrap_or_else(|| panic!("crates/verify/src/{module}: place it in LAYERS"))
    };
    for (module, targets) in &graph {
        for target in targets {
            assert!(
                layer(target) < layer(module),
                "{module} imports {target}, which is not below it:\n{graph:#?}"
            );
        }
    }
    // What the layers are for, said outright.
    let stores = [
        "store",
        "embedded",
        "postgres",
        "postgres_batch",
        "postgres_rows",
    ];
    for store in stores {
        assert!(!graph["ledger"].contains(store), "{:?}", graph["ledger"]);
        for above in ["service", "admin"] {
            assert!(!graph[store].contains(above), "{store}: {:?}", graph[store]);
        }
    }
    let listed: usize = LAYERS.iter().map(|l| l.len()).sum();
    assert_eq!(listed, graph.len(), "every module once: {graph:#?}");
    // The reading works: known edges are found, in groups and folders.
    assert!(graph["postgres"].contains("postgres_rows"));
    assert!(graph["admin"].contains("service"));
    assert!(graph["record"].contains("protocol"));
}

/// The reader finds a planted edge in a group, a folder's inner file and a
/// `crate::` path, and no edge in a comment.
#[test]
fn the_import_reader_sees_groups_folders_and_skips_comments() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod a; pub mod b; pub mod c; pub mod d;\n");
    write("a.rs", "use super::{b::X, c};\n// super::d\n");
    write("b.rs", "fn f() { crate::d::g() }\n");
    write("c/mod.rs", "mod inner;\n");
    write("c/inner.rs", "use super::super::d::Y;\nuse super::Z;\n");
    write("d.rs", "/// [`super::a`]\n");
    let graph = imports(dir.path());
    let edges = |m: &str| graph[m].iter().map(String::as_str).collect::<Vec<_>>();
    assert_eq!(edges("a"), ["b", "c"]);
    assert_eq!(edges("b"), ["d"]);
    assert_eq!(edges("c"), ["d"]);
    assert_eq!(edges("d"), Vec::<&str>::new());
}
