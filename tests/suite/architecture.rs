//! Issue 29: the layers are crates and imports go one way. The compiler
//! holds the crates to it (a crate cannot import the one above it); this
//! holds each crate's own top-level modules: `scripts/module_cycles.py`
//! finds no import cycle between them, in any crate.

use std::process::Command;

use crate::support::manifest_dir;

#[test]
fn no_crate_has_an_import_cycle_between_its_top_level_modules() {
    let out = Command::new("python3")
        .arg(manifest_dir().join("scripts/module_cycles.py"))
        .arg(manifest_dir())
        .output()
        .expect("python3 runs scripts/module_cycles.py");
    let report = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{report}");
    let crates: Vec<&str> = report.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(crates.len(), 4, "four crates were read:\n{report}");
    for line in crates {
        assert!(line.ends_with(", 0 cycle(s)"), "{line}\n{report}");
    }
}

/// The script itself finds a cycle it is shown, and none where there is none.
#[test]
fn the_cycle_script_finds_a_planted_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("planted/src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(dir.path().join("planted/Cargo.toml"), "[package]\n").unwrap();
    std::fs::write(src.join("lib.rs"), "mod a; mod b; mod c;\n").unwrap();
    // `c` inside b's group is b's module, not an import of the top-level c.
    std::fs::write(src.join("a.rs"), "use crate::{b::{c, B}};\n").unwrap();
    std::fs::write(src.join("b.rs"), "pub struct B(crate::a::A);\n").unwrap();
    std::fs::write(src.join("c.rs"), "use crate::{a::A, b::B};\n").unwrap();
    let out = Command::new("python3")
        .arg(manifest_dir().join("scripts/module_cycles.py"))
        .arg(dir.path())
        .output()
        .unwrap();
    let report = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(report.contains("cycle of 2: a, b"), "{report}");
    assert!(!report.contains(", c"), "{report}");
}

/// The file of digests of the Typst source every example lowers to.
const TYPST_DIGESTS: &str = "tests/fixtures/typst-sources.sha256";

/// Documents pinned beside the examples.
const LOWERING_FIXTURES: &str = "tests/fixtures/lowering";

/// Issue 29: moving code between crates and phases must not change what
/// is drawn, so the Typst source each example (and each document in
/// [`LOWERING_FIXTURES`]) lowers to is pinned by its
/// SHA-256 (`labelpress render --emit-typst`, the fonts .ci/run installs, a fixed
/// SOURCE_DATE_EPOCH). After an intended change to lowering:
/// `LABELPRESS_BLESS=1 cargo test --test suite architecture::`.
#[test]
fn every_example_lowers_to_the_pinned_typst_source() {
    use sha2::{Digest, Sha256};
    let root = manifest_dir();
    let json_in = |dir: &str| -> Vec<std::path::PathBuf> {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        files
    };
    let mut examples = json_in("examples");
    assert!(examples.len() >= 7, "{examples:?}");
    // Documents that reach what the examples do not (links of every kind,
    // a language with a region, page links from a header).
    examples.extend(json_in(LOWERING_FIXTURES));
    let mut digests = String::new();
    for example in &examples {
        let out = Command::new(env!("CARGO_BIN_EXE_labelpress"))
            .current_dir(&root)
            .env("SOURCE_DATE_EPOCH", "1700000000")
            .args(["render", "--emit-typst", "-o", "-"])
            .arg(example)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            example.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.starts_with(b"// labelpress prelude"));
        let digest: String = Sha256::digest(&out.stdout)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let name = example.file_name().unwrap().to_string_lossy();
        digests.push_str(&format!("{digest}  {name}  {} bytes\n", out.stdout.len()));
    }
    let pinned_path = root.join(TYPST_DIGESTS);
    if std::env::var("LABELPRESS_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&pinned_path, &digests).unwrap();
    }
    let pinned = std::fs::read_to_string(&pinned_path).unwrap_or_default();
    assert_eq!(
        pinned, digests,
        "the Typst source of an example changed (if intended: \
         LABELPRESS_BLESS=1 cargo test --test suite architecture::)"
    );
}
