//! The docs in `docs/` match the code: every subcommand, `serve` flag,
//! configuration key and metric the binary has is documented, and every
//! relative link in the README and the docs leads to a file (and heading)
//! of the repository.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use crate::server::{binary, get, start};
use crate::support::*;

fn doc(name: &str) -> String {
    std::fs::read_to_string(manifest_dir().join("docs").join(name))
        .unwrap_or_else(|e| panic!("docs/{name}: {e}"))
}

fn stdout(args: &[&str]) -> String {
    let out = Command::new(binary())
        .args(args)
        .env("LABELPRESS_NO_SYSTEM_FONTS", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Subcommand names of a `--help` page's "Commands:" list.
fn subcommands(help: &str) -> Vec<String> {
    help.split_once("Commands:")
        .map(|(_, rest)| rest.split("\n\n").next().unwrap())
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// Long flags of a `--help` page, without clap's own.
fn long_flags(help: &str) -> BTreeSet<String> {
    help.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| {
            w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
                .to_string()
        })
        .filter(|w| w != "--help" && w != "--version")
        .collect()
}

#[test]
fn every_subcommand_and_flag_is_documented() {
    let cli = doc("cli.md");
    let top = stdout(&["--help"]);
    let commands = subcommands(&top);
    assert!(commands.len() >= 7, "{top}");
    for command in &commands {
        assert!(
            cli.contains(&format!("labelpress {command}")),
            "docs/cli.md documents `labelpress {command}`"
        );
        let help = stdout(&[command, "--help"]);
        let documented_in = if command == "serve" {
            doc("operations.md")
        } else if command == "token" {
            doc("admin-api.md")
        } else {
            cli.clone()
        };
        for flag in long_flags(&help) {
            let named = documented_in.match_indices(&flag).any(|(i, _)| {
                let after = documented_in[i + flag.len()..].chars().next();
                !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            });
            assert!(named, "{flag} of `labelpress {command}` is documented");
        }
    }
}

#[test]
fn every_configuration_key_is_documented() {
    let operations = doc("operations.md");
    let config: serde_json::Value = serde_json::from_str(&stdout(&["config"])).unwrap();
    for section in ["limits", "defaults"] {
        for key in config[section].as_object().unwrap().keys() {
            assert!(
                operations.contains(&format!("`{key}`")),
                "docs/operations.md documents {section}.{key}"
            );
        }
    }
}

#[tokio::test]
async fn every_metric_is_documented() {
    let operations = doc("operations.md");
    let data = tempfile::tempdir().unwrap();
    let server = start(data.path(), &[]);
    let reply = get(&server.base, "/metrics").await;
    let text = String::from_utf8(reply.bytes).unwrap();
    let names: BTreeSet<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(names.len() >= 8, "{text}");
    for name in names {
        assert!(
            operations.contains(&format!("`{name}")),
            "docs/operations.md documents the metric {name}"
        );
    }
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces
/// to dashes.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut in_code = false;
    let mut out = BTreeSet::new();
    for line in markdown.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            out.insert(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

fn check_links(file: &Path) {
    let text = std::fs::read_to_string(file).unwrap();
    let dir = file.parent().unwrap();
    for (_, rest) in text.match_indices("](").map(|(i, _)| text.split_at(i + 2)) {
        let target = rest.split(')').next().unwrap();
        if target.starts_with("http://") || target.starts_with("https://") {
            continue;
        }
        let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
        let linked = if path.is_empty() {
            file.to_path_buf()
        } else {
            dir.join(path)
        };
        assert!(
            linked.exists(),
            "{}: link to {target} leads nowhere",
            file.display()
        );
        if !fragment.is_empty() {
            let headings = anchors(&std::fs::read_to_string(&linked).unwrap());
            assert!(
                headings.contains(fragment),
                "{}: #{fragment} is no heading of {} ({headings:?})",
                file.display(),
                linked.display()
            );
        }
    }
}

#[test]
fn links_in_the_readme_and_docs_resolve() {
    let root = manifest_dir();
    check_links(&root.join("README.md"));
    let mut docs = 0;
    for entry in std::fs::read_dir(root.join("docs")).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "md") {
            check_links(&entry.path());
            docs += 1;
        }
    }
    assert!(docs >= 6, "the docs are there");
}

/// Code and docs cite the repository's own docs, never the specification
/// files the project was started from, which are not in the repository.
#[test]
fn nothing_cites_files_outside_the_repository() {
    let root = manifest_dir();
    let out = Command::new("git")
        .args([
            "grep",
            "-n",
            "-I",
            "-E",
            "DECISIONS|rendering-service\\.md|barcode-and-verification-services|\\.\\./shared",
        ])
        .args([
            "--",
            "src",
            "tests",
            "benches",
            "docs",
            "README.md",
            "templates",
            "scripts",
            "fuzz/fuzz_targets",
            ":!tests/suite/docs.rs",
        ])
        .current_dir(&root)
        .output()
        .unwrap();
    // git grep exits 1 when nothing matches; without git (an unpacked
    // tarball) there is nothing to check.
    if out.status.code() == Some(1) || !root.join(".git").exists() {
        return;
    }
    panic!(
        "outside citations:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
