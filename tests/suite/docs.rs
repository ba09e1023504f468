//! The docs in `docs/` match the code: every subcommand, `serve` flag,
//! configuration key and metric the binary has is documented, and every
//! relative link in the README and the docs leads to a file (and heading)
//! of the repository. What the docs state is read from them and checked
//! against the code's own tables: defaults and limits (runtime-config),
//! error codes and their statuses (`ApiError`), the statuses of each route
//! (the OpenAPI document), the admin API's answers to bad bodies (a running
//! server), barcode options, page sizes, profiles and symbologies
//! (runtime-config), the DocumentRequest's fields (its JSON Schema), exit
//! codes (`labelpress --help`), and the docs the code cites.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use labelpress::api_error::ApiError;
use serde_json::Value;

use crate::server::{binary, client, get, new_token, reply, start, ADMIN};
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
    for name in &names {
        assert!(
            operations.contains(&format!("`{name}")),
            "docs/operations.md documents the metric {name}"
        );
    }
    // And the other way: each metric of the docs' table is served, with
    // the type the table gives it (`counter`, `counters`, `gauge`...).
    let types: BTreeMap<&str, &str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_once(' '))
        .collect();
    let table = section_table(&operations, "Logs, metrics, shutdown", "metric");
    for (line, row) in &table[1..] {
        let kind = row[1]
            .split([' ', '(', ','])
            .next()
            .unwrap()
            .trim_end_matches('s');
        for metric in code_spans(&row[0]) {
            let name = metric.split('{').next().unwrap();
            assert_eq!(
                types.get(name).copied(),
                Some(kind),
                "docs/operations.md:{line}: `{name}` is a {kind} of /metrics"
            );
        }
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
            "crates",
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

// ------------------------------------------------------------ markdown

/// The text of the section under the heading `title` (any level), up to
/// the next heading of the same or a higher level.
fn section<'a>(markdown: &'a str, title: &str) -> &'a str {
    let mut in_code = false;
    let mut start = None;
    let mut offset = 0;
    for line in markdown.split_inclusive('\n') {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            let level = line.chars().take_while(|c| *c == '#').count();
            match start {
                Some((_, open)) if level <= open => return &markdown[start.unwrap().0..offset],
                None if line.trim_start_matches('#').trim() == title => {
                    start = Some((offset, level))
                }
                _ => {}
            }
        }
        offset += line.len();
    }
    let (begin, _) = start.unwrap_or_else(|| panic!("no heading {title:?}"));
    &markdown[begin..]
}

/// The cells of a table row, split at the pipes GitHub splits at (every
/// `|` not escaped as `\|`, inside code spans too).
fn cells(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = line.trim().chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                chars.next();
                out.last_mut().unwrap().push('|');
            }
            '|' => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    // The row's leading and trailing pipes open and close nothing.
    out.remove(0);
    // (A last cell left empty on purpose still holds its space.)
    if out.last().is_some_and(|c| c.is_empty()) {
        out.pop();
    }
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// Every table outside code blocks: its header row, then its body rows
/// (the `|---|` line dropped), each row with its line number.
fn tables(markdown: &str) -> Vec<Vec<(usize, Vec<String>)>> {
    let mut out: Vec<Vec<(usize, Vec<String>)>> = Vec::new();
    let mut in_code = false;
    let mut in_table = false;
    for (i, line) in markdown.lines().enumerate() {
        if line.starts_with("```") {
            in_code = !in_code;
        }
        if in_code || !line.starts_with('|') {
            in_table = false;
            continue;
        }
        if !in_table {
            out.push(Vec::new());
            in_table = true;
        }
        if line.starts_with("|---") || line.starts_with("| ---") {
            continue;
        }
        out.last_mut().unwrap().push((i + 1, cells(line)));
    }
    out
}

/// The tables whose header row starts with `first` (a column title).
fn tables_headed(markdown: &str, first: &str) -> Vec<Vec<(usize, Vec<String>)>> {
    tables(markdown)
        .into_iter()
        .filter(|t| t.first().is_some_and(|(_, h)| h[0] == first))
        .collect()
}

/// The first table headed `first` in the section `title`, its rows
/// numbered by their lines in the whole file.
fn section_table(markdown: &str, title: &str, first: &str) -> Vec<(usize, Vec<String>)> {
    let text = section(markdown, title);
    let before = text.as_ptr() as usize - markdown.as_ptr() as usize;
    let lines = markdown[..before].lines().count();
    let mut table = tables_headed(text, first)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("\"{title}\" has a table headed {first:?}"));
    for (line, _) in &mut table {
        *line += lines;
    }
    table
}

/// The contents of the code spans of `text`.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Whole words of `text`, split at anything but letters, digits, `_`,
/// `-` and `.` (trailing dots dropped).
fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// The HTTP statuses `text` names: a whole number 200, 201, 204, 304,
/// 400-429 or 500-504, not part of a larger number (`1,200`, `4.5`).
fn statuses(text: &str) -> Vec<(usize, u16)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for i in 0..bytes.len().saturating_sub(2) {
        let digits = &bytes[i..i + 3];
        if !digits.iter().all(u8::is_ascii_digit) {
            continue;
        }
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + 3).copied();
        let next = bytes.get(i + 4).copied();
        let glued_before =
            before.is_some_and(|b| b.is_ascii_alphanumeric() || b"_,.^-".contains(&b));
        let glued_after = after.is_some_and(|a| {
            a.is_ascii_alphanumeric()
                || a == b'_'
                || (b",.".contains(&a) && next.is_some_and(|n| n.is_ascii_digit()))
        });
        if glued_before || glued_after {
            continue;
        }
        let n: u16 = std::str::from_utf8(digits).unwrap().parse().unwrap();
        if matches!(n, 200 | 201 | 204 | 304 | 400..=429 | 500..=504) {
            out.push((i, n));
        }
    }
    out
}

/// The first number in `text` (`1,000` and `0.4` included) scaled by the
/// unit after it (`KiB`, `MiB`, `GiB`), or `None`.
fn first_number(text: &str) -> Option<f64> {
    let start = text.find(|c: char| c.is_ascii_digit())?;
    let negative = text[..start].ends_with('-');
    let rest = &text[start..];
    let end = rest
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || ((c == ',' || c == '.')
                    && rest[i + 1..].starts_with(|d: char| d.is_ascii_digit())))
        })
        .map_or(rest.len(), |(i, _)| i);
    let mut n: f64 = rest[..end].replace(',', "").parse().ok()?;
    let unit = rest[end..].trim_start();
    for (name, scale) in [
        ("KiB", 1024.0),
        ("MiB", 1024.0 * 1024.0),
        ("GiB", 1024.0 * 1024.0 * 1024.0),
    ] {
        if unit.starts_with(name) {
            n *= scale;
        }
    }
    Some(if negative { -n } else { n })
}

fn all_docs() -> Vec<(String, String)> {
    let root = manifest_dir();
    let mut docs = vec![(
        "README.md".to_string(),
        std::fs::read_to_string(root.join("README.md")).unwrap(),
    )];
    let mut names: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    names.sort();
    for path in names {
        let name = format!("docs/{}", path.file_name().unwrap().to_string_lossy());
        docs.push((name, std::fs::read_to_string(path).unwrap()));
    }
    docs
}

/// GitHub drops a row's cells beyond its header's, so a `|` left unescaped
/// inside a code span (`none|arrow`) cuts the row short on the page.
#[test]
fn every_table_row_has_its_headers_cells() {
    for (name, text) in all_docs() {
        for table in tables(&text) {
            let width = table[0].1.len();
            for (line, row) in &table[1..] {
                assert_eq!(
                    row.len(),
                    width,
                    "{name}:{line}: {} cells under a header of {width} (escape a `|` inside a cell as `\\|`): {row:?}",
                    row.len()
                );
            }
        }
    }
}

// ------------------------------------------------------ defaults, limits

/// Every default and limit the docs write beside its key is the one in
/// force: each row of operations.md's tables that names keys of
/// runtime-config's `defaults` or `limits`, and every `` `key` (N ...)``
/// (also `` `limits.key` `` and `` `defaults.key` ``) anywhere in the docs.
#[test]
fn documented_defaults_and_limits_are_the_configured_ones() {
    let config: Value = serde_json::from_str(&stdout(&["config"])).unwrap();
    let value_of = |key: &str| -> Option<Value> {
        let key = key
            .strip_prefix("limits.")
            .or_else(|| key.strip_prefix("defaults."))
            .unwrap_or(key);
        ["defaults", "limits"]
            .iter()
            .find_map(|section| config[section].get(key).cloned())
    };
    // A number is the first number of the text (units scale it); a string
    // the text's first code span.
    let agrees = |expected: &Value, text: &str| match expected {
        Value::Number(n) => {
            first_number(text).is_some_and(|d| (d - n.as_f64().unwrap()).abs() < 1e-9)
        }
        Value::String(s) => code_spans(text).first() == Some(&s.as_str()),
        _ => true,
    };
    let mut checked = 0;
    let operations = doc("operations.md");
    for table in tables(&operations) {
        for (line, row) in &table[1..] {
            let keys: Vec<&str> = code_spans(&row[0])
                .into_iter()
                .filter(|k| value_of(k).is_some())
                .collect();
            if keys.is_empty() || row.len() < 2 {
                continue;
            }
            // `a` / `b` | 1 / 2, and `a`, `b` | 1 mm, 0.5 mm
            let separator = if row[0].contains(" / ") { " / " } else { ", " };
            let parts: Vec<&str> = row[1].splitn(keys.len(), separator).collect();
            assert_eq!(
                parts.len(),
                keys.len(),
                "docs/operations.md:{line}: a value for each of {keys:?}"
            );
            for (key, part) in keys.iter().zip(parts) {
                let expected = value_of(key).unwrap();
                assert!(
                    agrees(&expected, part),
                    "docs/operations.md:{line}: `{key}` is {expected} in runtime-config, the docs say {part:?}"
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 50,
        "the defaults and limits tables were read ({checked} values)"
    );
    for (name, text) in all_docs() {
        for (i, _) in text.match_indices('`') {
            let rest = &text[i + 1..];
            let Some((key, after)) = rest.split_once('`') else {
                continue;
            };
            let Some(said) = after.strip_prefix(" (") else {
                continue;
            };
            let Some(expected) = value_of(key).filter(|_| !key.contains(' ')) else {
                continue;
            };
            let said = said.split(')').next().unwrap_or_default();
            let claims = match expected {
                Value::Number(_) => said.starts_with(|c: char| c.is_ascii_digit()),
                Value::String(_) => said.starts_with('`'),
                _ => false,
            };
            if claims {
                let line = text[..i].lines().count();
                assert!(
                    agrees(&expected, said),
                    "{name}:{line}: `{key}` is {expected} in runtime-config, the docs say ({said})"
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 65,
        "inline values were read too ({checked} values)"
    );
}

// ------------------------------------------------- statuses and codes

/// One of each render API error. The match below fails to compile when a
/// variant is added, so the list stays complete.
fn api_errors() -> Vec<ApiError> {
    let all = vec![
        ApiError::InvalidJson(String::new()),
        ApiError::Validation(Vec::new()),
        ApiError::PayloadTooLarge { limit: 1 },
        ApiError::UnsupportedMediaType(String::new()),
        ApiError::NotFound,
        ApiError::Missing(String::new()),
        ApiError::MethodNotAllowed,
        ApiError::InvalidQuery(String::new()),
        ApiError::NotAcceptable(String::new()),
        ApiError::Unauthorized(String::new()),
        ApiError::Forbidden(String::new()),
        ApiError::RateLimited { retry_after_s: 1 },
        ApiError::Internal(String::new()),
        ApiError::Render(String::new()),
        ApiError::VerifierUnavailable { retry_after_s: 1 },
        ApiError::Overloaded {
            message: String::new(),
            retry_after_s: 1,
        },
    ];
    for error in &all {
        match error {
            ApiError::InvalidJson(_)
            | ApiError::Validation(_)
            | ApiError::PayloadTooLarge { .. }
            | ApiError::UnsupportedMediaType(_)
            | ApiError::NotFound
            | ApiError::Missing(_)
            | ApiError::MethodNotAllowed
            | ApiError::InvalidQuery(_)
            | ApiError::NotAcceptable(_)
            | ApiError::Unauthorized(_)
            | ApiError::Forbidden(_)
            | ApiError::RateLimited { .. }
            | ApiError::Internal(_)
            | ApiError::Render(_)
            | ApiError::VerifierUnavailable { .. }
            | ApiError::Overloaded { .. } => {}
        }
    }
    all
}

/// The docs' error table lists every render API code with exactly the
/// statuses the code answers with, and wherever the docs write a status
/// beside a code (`422 API-002`, `` 400 `API-001` ``) it is that code's.
#[test]
fn every_api_code_is_documented_with_its_status() {
    let mut by_code: BTreeMap<&str, BTreeSet<u16>> = BTreeMap::new();
    for error in api_errors() {
        by_code
            .entry(error.code())
            .or_default()
            .insert(error.status());
    }
    let http = doc("http-api.md");
    let table = section_table(&http, "Errors", "code");
    let documented: BTreeMap<String, (usize, BTreeSet<u16>)> = table[1..]
        .iter()
        .map(|(line, row)| {
            (
                row[0].clone(),
                (
                    *line,
                    statuses(&row[1]).into_iter().map(|(_, s)| s).collect(),
                ),
            )
        })
        .collect();
    for (code, status) in &by_code {
        let Some((line, said)) = documented.get(*code) else {
            panic!("docs/http-api.md, \"Errors\", lists {code}");
        };
        assert_eq!(
            said, status,
            "docs/http-api.md:{line}: the statuses of {code}"
        );
    }
    for code in documented.keys() {
        assert!(
            by_code.contains_key(code.as_str()),
            "docs/http-api.md lists {code}, which no error has"
        );
    }
    let mut pairs = 0;
    for (name, text) in all_docs() {
        for (i, _) in text.match_indices("API-") {
            let Some(status) = text.get(i..i + 7).and_then(|code| by_code.get(code)) else {
                continue;
            };
            let code = &text[i..i + 7];
            let before = text[..i].trim_end_matches('`').trim_end_matches(' ');
            let Some((_, said)) = statuses(before)
                .last()
                .copied()
                .filter(|(at, _)| at + 3 == before.len())
            else {
                continue;
            };
            let line = text[..i].lines().count();
            assert!(
                status.contains(&said),
                "{name}:{line}: {said} {code}, but {code} answers {status:?}"
            );
            pairs += 1;
        }
    }
    assert!(pairs >= 20, "statuses beside codes were read ({pairs})");
}

/// The statuses the docs give a route, in the tables whose first column is
/// `` `METHOD /path` `` (the route tables of http-api.md and admin-api.md),
/// are responses of that operation in the OpenAPI document; and each row of
/// the verifier's error table (`status`, `error`) is a response of
/// `POST /v1/verify` with that `error`.
#[test]
fn documented_route_statuses_are_in_the_contract() {
    let contract = labelpress::http::openapi::document();
    let mut checked = 0;
    for name in ["http-api.md", "admin-api.md"] {
        let text = doc(name);
        for table in tables(&text) {
            for (line, row) in &table[1..] {
                let Some(route) = code_spans(&row[0]).first().copied() else {
                    continue;
                };
                let Some((method, path)) = route.split_once(' ') else {
                    continue;
                };
                if !["GET", "POST", "PUT", "DELETE"].contains(&method) {
                    continue;
                }
                let path = path.split('?').next().unwrap();
                let operation = &contract["paths"][path][method.to_lowercase()];
                assert!(
                    operation.is_object(),
                    "docs/{name}:{line}: {method} {path} is no operation of the contract"
                );
                for (_, status) in statuses(&row[1..].join(" | ")) {
                    assert!(
                        operation["responses"][status.to_string()].is_object(),
                        "docs/{name}:{line}: {method} {path} answers {status}, but the contract has no such response"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(
        checked >= 15,
        "the route tables were read ({checked} statuses)"
    );
    let verify = &contract["paths"]["/v1/verify"]["post"]["responses"];
    let admin = doc("admin-api.md");
    let table = tables_headed(&admin, "status").remove(0);
    for (line, row) in &table[1..] {
        let status = statuses(&row[0])[0].1;
        let error = code_spans(&row[1])[0];
        let response = &verify[status.to_string()];
        assert!(
            response.to_string().contains(&format!("\"{error}\"")),
            "docs/admin-api.md:{line}: POST /v1/verify answers {status} {error:?}; the contract says {response}"
        );
    }
}

/// Where admin-api.md says what status a kind of admin body error gets, the
/// server answers that: the status written right after the phrase (`unknown
/// fields are 422`), else the last one before it in its paragraph (`422 a
/// body of the wrong shape (unknown or missing field...`). Also API-005 for
/// an unknown route and a wrong method, as http-api.md's table says.
#[tokio::test]
async fn admin_body_errors_answer_the_documented_statuses() {
    let data = tempfile::tempdir().unwrap();
    let server = start(data.path(), &[]);
    let (id, _) = new_token(&server.base, 5, None).await;
    let post = |path: String, body: &'static str| {
        let request = client()
            .post(format!("{}/admin/api{path}", server.base))
            .bearer_auth(ADMIN)
            .header("content-type", "application/json")
            .body(body);
        async move { reply(request.send().await.unwrap()).await.status }
    };
    let tokens = || "/tokens".to_string();
    let unknown = post(tokens(), r#"{"account": "a", "balance": 1, "bogus": 1}"#).await;
    let probes = [
        ("unknown field", unknown),
        ("unknown or missing field", unknown),
        ("missing field", post(tokens(), r#"{"account": "a"}"#).await),
        ("not JSON", post(tokens(), "{").await),
        (
            "has a key twice",
            post(
                tokens(),
                r#"{"account": "a", "account": "b", "balance": 1}"#,
            )
            .await,
        ),
        (
            "`amount`",
            post(format!("/tokens/{id}/topup"), r#"{"amount": 0}"#).await,
        ),
    ];
    assert_eq!(unknown, 422, "an unknown field in an admin body");
    let admin = doc("admin-api.md");
    let mut found = 0;
    for paragraph in admin.split("\n\n") {
        let paragraph = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
        for (phrase, answered) in &probes {
            for (at, _) in paragraph.match_indices(phrase) {
                let after = &paragraph[at + phrase.len()..];
                let after = after.trim_start_matches('s');
                let stated = ["are ", "is "]
                    .iter()
                    .find_map(|verb| after.trim_start().strip_prefix(verb))
                    .and_then(|rest| {
                        statuses(rest)
                            .first()
                            .filter(|(i, _)| *i == 0)
                            .map(|(_, s)| *s)
                    });
                let said = stated.or_else(|| statuses(&paragraph[..at]).last().map(|(_, s)| *s));
                assert_eq!(
                    said,
                    Some(*answered),
                    "docs/admin-api.md: \"...{phrase}...\": the server answers {answered}\nin: {paragraph}"
                );
                found += 1;
            }
        }
    }
    assert!(
        found >= 5,
        "the admin API's errors were found in the docs ({found})"
    );

    let http = doc("http-api.md");
    let table = section_table(&http, "Errors", "code");
    let (_, row) = table.iter().find(|(_, r)| r[0] == "API-005").unwrap();
    let said: Vec<u16> = statuses(&row[1]).into_iter().map(|(_, s)| s).collect();
    let missing = get(&server.base, "/no/such/route").await;
    let wrong_method = reply(
        client()
            .delete(format!("{}/healthz", server.base))
            .send()
            .await
            .unwrap(),
    )
    .await;
    for (reply, status) in [(missing, said[0]), (wrong_method, said[1])] {
        reply.assert_error(status, "API-005");
    }
}

// ------------------------------------------------------------ catalogs

/// runtime-config's catalogs, as `labelpress config` prints them.
fn published() -> Value {
    serde_json::from_str(&stdout(&["config"])).unwrap()
}

/// A symbology's names: its name and aliases.
fn names_of(entry: &Value) -> Vec<String> {
    let mut names = vec![entry["name"].as_str().unwrap().to_string()];
    if let Some(aliases) = entry["aliases"].as_array() {
        names.extend(aliases.iter().map(|a| a.as_str().unwrap().to_string()));
    }
    names
}

/// The barcode service's parameter table in http-api.md says, for every
/// option of every symbology runtime-config publishes (the table the
/// service and the barcode element enforce), which symbologies take it, its
/// range or choices and its default; and names no option that is not one.
#[test]
fn barcode_parameters_are_documented_as_enforced() {
    let config = published();
    let http = doc("http-api.md");
    let service = section(&http, "Barcode service");
    let rows: Vec<(usize, Vec<String>)> =
        section_table(&http, "Barcode service", "parameter")[1..].to_vec();
    let mut checked = 0;
    let mut known = BTreeSet::new();
    let symbologies = config["barcodes"]["symbologies"].as_array().unwrap();
    for symbology in symbologies {
        let names = names_of(symbology);
        let dimensions = format!("{}-D", symbology["dimensions"]);
        let common = config["barcodes"]["service_options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| (o, true));
        let own = symbology["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| (o, false));
        for (option, everywhere) in common.chain(own) {
            let option_names = names_of(option);
            known.extend(option_names.clone());
            let name = &option_names[0];
            let applies = |cell: &str| {
                everywhere && cell == "all"
                    || cell == dimensions
                    || code_spans(cell)
                        .iter()
                        .any(|s| names.iter().any(|n| n == s))
            };
            let Some((line, row)) = rows
                .iter()
                .find(|(_, row)| code_spans(&row[0]).contains(&name.as_str()) && applies(&row[1]))
            else {
                panic!(
                    "docs/http-api.md, \"Barcode service\": no row gives `{name}` for {}",
                    names[0]
                );
            };
            let (defaults, values) = (&row[2], &row[3]);
            let at = |what: String, cell: &str| {
                assert!(
                    cell.contains(&what),
                    "docs/http-api.md:{line}: `{name}` of {} takes {what:?} (runtime-config: {option}); the row says {cell:?}",
                    names[0]
                )
            };
            match option["type"].as_str().unwrap() {
                "integer" => {
                    let (min, max) = (
                        option["min"].as_i64().unwrap(),
                        option["max"].as_i64().unwrap(),
                    );
                    if option["not_zero"] == true && min < 0 {
                        at(format!("1 to {max}"), values);
                        at(format!("-1 to {min}"), values);
                    } else {
                        at(format!("{min} to {max}"), values);
                    }
                }
                "integer_in" => {
                    let list: Vec<i64> = option["values"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_i64().unwrap())
                        .collect();
                    let consecutive = list.windows(2).all(|w| w[1] == w[0] + 1);
                    let joined = list
                        .iter()
                        .map(i64::to_string)
                        .collect::<Vec<_>>()
                        .join(", ");
                    let range = format!("{} to {}", list[0], list[list.len() - 1]);
                    if !(consecutive && values.contains(&range)) {
                        at(joined, values);
                    }
                }
                "choice" => {
                    for choice in option["values"].as_array().unwrap() {
                        at(format!("`{}`", choice.as_str().unwrap()), values);
                    }
                }
                "boolean" => at("true".into(), values),
                "alphanumeric" => at(format!("up to {}", option["max_length"]), values),
                "digits" => at(format!("{} digits", option["length"]), values),
                "pixels" => at(
                    format!("at most {}", thousands(option["max"].as_u64().unwrap())),
                    service,
                ),
                _ => {}
            }
            match &option["default"] {
                Value::Number(n) => assert!(
                    words(defaults).contains(&n.to_string().as_str()),
                    "docs/http-api.md:{line}: `{name}` of {} defaults to {n}; the row says {defaults:?}",
                    names[0]
                ),
                Value::String(s) => at(s.trim_start_matches('#').to_string(), defaults),
                Value::Bool(b) => at(b.to_string(), defaults),
                _ => {}
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 100,
        "every option of every symbology was looked up ({checked})"
    );
    for (line, row) in &rows {
        for name in code_spans(&row[0]) {
            assert!(
                known.contains(name),
                "docs/http-api.md:{line}: `{name}` is no barcode option"
            );
        }
    }
}

/// `12,345`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The lists of page sizes, PDF profiles and symbologies in the docs are
/// runtime-config's: every name (and alias) is there, nothing else is, and a
/// page size written with its dimensions has the preset's.
#[test]
fn catalog_names_in_the_docs_are_the_published_ones() {
    let config = published();
    let request = doc("document-request.md");
    let rows: Vec<(usize, Vec<String>)> = tables(&request)
        .into_iter()
        .flat_map(|t| t[1..].to_vec())
        .collect();
    let row = |field: &str| {
        rows.iter()
            .find(|(_, r)| code_spans(&r[0]).first() == Some(&field))
            .unwrap_or_else(|| panic!("docs/document-request.md has a row for `{field}`"))
            .clone()
    };

    let (line, sizes) = row("pages[].size");
    let presets = config["page_sizes"].as_array().unwrap();
    let notes = sizes.last().unwrap();
    let named: BTreeSet<&str> = code_spans(notes).into_iter().collect();
    for preset in presets {
        let name = preset["name"].as_str().unwrap();
        assert!(
            named.contains(name),
            "docs/document-request.md:{line}: the size `{name}` is missing"
        );
        let after = notes.split(&format!("`{name}`")).nth(1).unwrap_or_default();
        let written = after
            .trim_start()
            .split([',', ' '])
            .next()
            .unwrap_or_default();
        if let Some((w, h)) = written.split_once('x') {
            let (w, h): (f64, f64) = (w.parse().unwrap(), h.parse().unwrap());
            assert_eq!(
                (w, h),
                (
                    preset["width_mm"].as_f64().unwrap(),
                    preset["height_mm"].as_f64().unwrap()
                ),
                "docs/document-request.md:{line}: the size of `{name}`"
            );
        }
    }
    let published: BTreeSet<&str> = presets
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        named, published,
        "docs/document-request.md:{line}: the page sizes"
    );

    let (line, profiles) = row("profile");
    let named: BTreeSet<&str> = code_spans(profiles.last().unwrap())
        .into_iter()
        .filter(|s| s.starts_with("pdf"))
        .collect();
    let published: BTreeSet<String> = config["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(names_of)
        .collect();
    let published: BTreeSet<&str> = published.iter().map(String::as_str).collect();
    assert_eq!(
        named, published,
        "docs/document-request.md:{line}: the profiles"
    );

    let symbologies: BTreeSet<String> = config["barcodes"]["symbologies"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(names_of)
        .collect();
    let http = doc("http-api.md");
    for (name, text) in [
        (
            "docs/http-api.md, \"Barcode service\"",
            section(&http, "Barcode service"),
        ),
        (
            "docs/document-request.md, \"Barcodes\"",
            section(&request, "Barcodes"),
        ),
    ] {
        // The paragraph that lists them: the first one naming `code128`.
        let list = text
            .split("\n\n")
            .find(|p| p.contains("`code128`"))
            .unwrap();
        let named: BTreeSet<String> = code_spans(list)
            .into_iter()
            .filter(|s| {
                s.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            })
            .filter(|s| {
                ![
                    "top_bottom",
                    "top_only",
                    "bottom_only",
                    "bearer",
                    "thickness",
                    "quiet",
                    "format",
                ]
                .contains(s)
            })
            .map(str::to_string)
            .collect();
        assert_eq!(named, symbologies, "{name}: the symbologies");
    }
}

// ------------------------------------------------- the DocumentRequest

/// `$defs` of the DocumentRequest schema: every element type's schema (by
/// its `type` tag) and every other named schema.
fn request_schemas() -> (BTreeMap<String, Value>, BTreeMap<String, Value>) {
    let schema = labelpress::request_schema::document_request();
    let defs = schema["$defs"].as_object().unwrap();
    let mut elements = BTreeMap::new();
    for definition in defs.values() {
        let tag = &definition["properties"]["type"];
        let tag = tag["const"]
            .as_str()
            .or_else(|| match tag["enum"].as_array() {
                Some(one) if one.len() == 1 => one[0].as_str(),
                _ => None,
            });
        if let Some(tag) = tag {
            elements.insert(tag.to_string(), definition.clone());
        }
    }
    (elements, defs.clone().into_iter().collect())
}

fn properties(schema: &Value) -> Vec<String> {
    schema["properties"]
        .as_object()
        .map_or(Vec::new(), |p| p.keys().cloned().collect())
}

/// document-request.md names every field the schema accepts: each element
/// type's fields in its row of the elements table (`type`, `z_index` and
/// `comment`, which every element has, in the sentence above it), and the
/// fields of TextStyle, StrokeStyle, FillStyle and LinkSpec in their
/// paragraphs; and no row names an element type that does not exist.
#[test]
fn every_request_field_is_documented() {
    let request = doc("document-request.md");
    let elements_section = section(&request, "Elements");
    let table = section_table(&request, "Elements", "type");
    let (elements, defs) = request_schemas();
    assert!(
        elements.len() >= 11,
        "element schemas found: {:?}",
        elements.keys()
    );
    let rows: BTreeMap<String, (usize, String)> = table[1..]
        .iter()
        .map(|(line, row)| (code_spans(&row[0])[0].to_string(), (*line, row[1].clone())))
        .collect();
    for (tag, schema) in &elements {
        if tag == "block" {
            continue; // a stack's child, in the stack's row and "Tables and stacks"
        }
        let Some((line, fields)) = rows.get(tag) else {
            panic!("docs/document-request.md, \"Elements\": no row for `{tag}`");
        };
        let named: BTreeSet<&str> = code_spans(fields).into_iter().flat_map(words).collect();
        for field in properties(schema) {
            if ["type", "z_index", "comment"].contains(&field.as_str()) {
                continue;
            }
            assert!(
                named.contains(field.as_str()),
                "docs/document-request.md:{line}: the `{tag}` row does not name its field `{field}`"
            );
        }
    }
    for tag in rows.keys() {
        assert!(
            elements.contains_key(tag),
            "docs/document-request.md: `{tag}` is no element type"
        );
    }
    let intro = elements_section.split("\n\n").nth(1).unwrap();
    for common in ["type", "z_index", "comment"] {
        assert!(
            intro.contains(&format!("`{common}`")),
            "the elements' common `{common}`"
        );
    }
    for name in ["TextStyle", "StrokeStyle", "FillStyle", "LinkSpec"] {
        let start = request
            .find(&format!("**{name}**"))
            .unwrap_or_else(|| panic!("docs/document-request.md describes **{name}**"));
        let paragraph = request[start..].split("\n\n").next().unwrap();
        // One paragraph may describe two (`**StrokeStyle**: ... **FillStyle**: ...`).
        let own = paragraph[2..].split("**").nth(1).unwrap_or(paragraph);
        let named: BTreeSet<&str> = code_spans(own).into_iter().flat_map(words).collect();
        for field in properties(&defs[name]) {
            assert!(
                named.contains(field.as_str()),
                "docs/document-request.md, **{name}**, does not name its field `{field}`"
            );
        }
    }
}

// ---------------------------------------------------- citations, CLI

/// Code and tests cite docs as `docs/NAME.md`, `docs/NAME.md, "Heading"` or
/// `docs/NAME.md#anchor`: each file exists, and each heading is one of it.
#[test]
fn docs_cited_by_the_code_exist_with_their_headings() {
    let root = manifest_dir();
    let mut files = vec![
        root.join("src"),
        root.join("crates"),
        root.join("tests"),
        root.join("benches"),
    ];
    let mut cited = 0;
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(
                std::fs::read_dir(&path)
                    .unwrap()
                    .flatten()
                    .map(|e| e.path()),
            );
            continue;
        }
        if !path.extension().is_some_and(|e| e == "rs") || path.ends_with("tests/suite/docs.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, _) in text.match_indices("docs/") {
            let rest = &text[i + 5..];
            let Some(end) = rest.find(".md") else {
                continue;
            };
            let name = &rest[..end];
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                continue;
            }
            let file = root.join("docs").join(format!("{name}.md"));
            let line = text[..i].lines().count();
            let at = format!("{}:{line}", path.strip_prefix(&root).unwrap().display());
            assert!(file.exists(), "{at}: docs/{name}.md does not exist");
            let after = &rest[end + 3..];
            let heading = if let Some(quoted) = after.strip_prefix(", \"") {
                quoted.split('"').next().map(anchor)
            } else if let Some(fragment) = after.strip_prefix('#') {
                Some(
                    fragment
                        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
                        .next()
                        .unwrap()
                        .to_string(),
                )
            } else {
                None
            };
            if let Some(heading) = heading {
                let headings = anchors(&std::fs::read_to_string(&file).unwrap());
                assert!(
                    headings.contains(&heading),
                    "{at}: docs/{name}.md has no heading #{heading}"
                );
            }
            cited += 1;
        }
    }
    assert!(cited >= 30, "citations were found ({cited})");
}

/// exit-codes.md's table has the numbers and meanings `labelpress --help`
/// ends with (the table `src/exit.rs` keeps in step with its enum).
#[test]
fn exit_codes_are_the_binarys() {
    let help = stdout(&["--help"]);
    let table = help.split_once("Exit status:").unwrap().1;
    let from_help: Vec<(String, String)> = table
        .lines()
        .filter_map(|l| {
            let (code, meaning) = l.trim().split_once("  ")?;
            code.parse::<u8>().ok()?;
            let word = meaning.trim().split([':', ' ']).next()?.to_string();
            Some((code.to_string(), word))
        })
        .collect();
    assert!(from_help.len() >= 5, "{help}");
    let documented: Vec<(usize, Vec<String>)> =
        tables_headed(&doc("exit-codes.md"), "code").remove(0)[1..].to_vec();
    let codes = |rows: Vec<&String>| rows.into_iter().cloned().collect::<Vec<_>>();
    assert_eq!(
        codes(documented.iter().map(|(_, row)| &row[0]).collect()),
        codes(from_help.iter().map(|(code, _)| code).collect()),
        "docs/exit-codes.md's codes against `labelpress --help`"
    );
    for ((line, row), (code, word)) in documented.iter().zip(&from_help) {
        assert!(
            row[1..].join(" ").contains(word.as_str()),
            "docs/exit-codes.md:{line}: exit {code} is \"{word}\" in `labelpress --help`: {row:?}"
        );
    }
}

/// cli.md's "Options of ..." sentence names exactly the subcommands that
/// take the engine options (`--resources`, `--fonts`, `--no-system-fonts`,
/// `--config`), `serve` being documented in operations.md.
#[test]
fn the_engine_options_are_documented_for_every_subcommand_that_takes_them() {
    let cli = doc("cli.md");
    let sentence = cli.lines().find(|l| l.starts_with("Options of ")).unwrap();
    let listed: BTreeSet<&str> = code_spans(sentence.split(" (").next().unwrap())
        .into_iter()
        .collect();
    let taking: BTreeSet<String> = subcommands(&stdout(&["--help"]))
        .into_iter()
        .filter(|c| c != "serve")
        .filter(|c| long_flags(&stdout(&[c.as_str(), "--help"])).contains("--no-system-fonts"))
        .collect();
    let taking: BTreeSet<&str> = taking.iter().map(String::as_str).collect();
    assert_eq!(listed, taking, "docs/cli.md: {sentence}");
    assert!(
        doc("operations.md").contains("`--resources`, `--fonts`, `--no-system-fonts`, `--config`"),
        "operations.md says serve takes the engine options"
    );
}

/// fonts.md's table is runtime-config's `fonts.fallback`, in its order
/// (`Noto Sans Arabic, Hebrew` stands for `Noto Sans Arabic`, `Noto Sans
/// Hebrew`; `3-10` numbers eight families).
#[test]
fn the_fallback_table_is_the_configured_order() {
    let config = published();
    let fallback: Vec<&str> = config["fonts"]["fallback"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    let mut documented: Vec<String> = Vec::new();
    for (line, row) in &tables_headed(&doc("fonts.md"), "#").remove(0)[1..] {
        let first = documented.len() + 1;
        let (from, to) = row[0].split_once('-').unwrap_or((&row[0], &row[0]));
        assert_eq!(
            from.parse::<usize>().unwrap(),
            first,
            "docs/fonts.md:{line}: numbered from {first}"
        );
        let names = row[1].split(" (").next().unwrap();
        let mut families = names.split(", ");
        let head = families.next().unwrap().to_string();
        let prefix = head
            .rsplit_once(' ')
            .map_or(String::new(), |(p, _)| format!("{p} "));
        documented.push(head);
        documented.extend(families.map(|f| format!("{prefix}{f}")));
        assert_eq!(
            to.parse::<usize>().unwrap(),
            documented.len(),
            "docs/fonts.md:{line}: {row:?}"
        );
    }
    assert_eq!(
        documented, fallback,
        "docs/fonts.md against runtime-config fonts.fallback"
    );
}

/// Each long flag of a `--help` page with its environment variable and
/// default, as clap prints them (`[env: NAME=]`, `[default: VALUE]`).
fn flag_facts(help: &str) -> BTreeMap<String, (Option<String>, Option<String>)> {
    let mut facts = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    let mut finish = |entry: Option<(String, String)>| {
        if let Some((flag, text)) = entry {
            let bracket = |tag: &str| {
                text.split_once(tag)
                    .map(|(_, rest)| rest.split([']', '=']).next().unwrap().to_string())
            };
            facts.insert(flag, (bracket("[env: "), bracket("[default: ")));
        }
    };
    for line in help.lines() {
        let trimmed = line.trim_start();
        let flag = trimmed
            .strip_prefix("-o, ")
            .unwrap_or(trimmed)
            .strip_prefix("--")
            .filter(|_| line.starts_with("  "));
        match flag {
            Some(rest) => {
                finish(current.take());
                let name = rest.split([' ', '<', '=']).next().unwrap();
                current = Some((format!("--{name}"), line.to_string()));
            }
            None => {
                if let Some((_, text)) = &mut current {
                    text.push('\n');
                    text.push_str(line);
                }
            }
        }
    }
    finish(current);
    facts
}

/// The flag tables (`| flag | env | default |` in operations.md for
/// `serve`, cli.md for the engine options) and admin-api.md's `` `--flag`
/// (`ENV`, default `VALUE`) `` give each flag the environment variable and
/// default its `--help` has.
#[test]
fn flags_have_their_documented_environment_twins_and_defaults() {
    let mut checked = 0;
    for (name, command) in [("operations.md", "serve"), ("cli.md", "render")] {
        let facts = flag_facts(&stdout(&[command, "--help"]));
        for table in tables_headed(&doc(name), "flag") {
            let header = &table[0].1;
            let (Some(env_at), Some(default_at)) = (
                header.iter().position(|h| h == "env"),
                header.iter().position(|h| h == "default"),
            ) else {
                continue;
            };
            for (line, row) in &table[1..] {
                let flags: Vec<&str> = code_spans(&row[0])
                    .into_iter()
                    .filter_map(|f| f.split(' ').next().filter(|f| f.starts_with("--")))
                    .collect();
                let envs: Vec<&str> = code_spans(&row[env_at])
                    .into_iter()
                    .filter(|e| e.starts_with("LABELPRESS_"))
                    .collect();
                if envs.is_empty() {
                    continue; // "as for `render`"
                }
                assert_eq!(
                    flags.len(),
                    envs.len(),
                    "docs/{name}:{line}: a twin for each flag"
                );
                for (flag, env) in flags.iter().zip(&envs) {
                    let Some((twin, default)) = facts.get(*flag) else {
                        panic!("docs/{name}:{line}: `labelpress {command}` has no {flag}");
                    };
                    assert_eq!(
                        twin.as_deref(),
                        Some(*env),
                        "docs/{name}:{line}: the twin of {flag}"
                    );
                    if let Some(default) = default {
                        let said = code_spans(&row[default_at]).first().copied();
                        assert_eq!(
                            said,
                            Some(default.as_str()),
                            "docs/{name}:{line}: the default of {flag}"
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    let facts = flag_facts(&stdout(&["token", "--help"]));
    let admin = doc("admin-api.md");
    for (i, _) in admin.match_indices("`--") {
        let rest = &admin[i + 1..];
        let flag = rest.split('`').next().unwrap();
        let Some(said) = rest[flag.len() + 1..].strip_prefix(" (`LABELPRESS_") else {
            continue;
        };
        let env = format!("LABELPRESS_{}", said.split('`').next().unwrap());
        let line = admin[..i].lines().count();
        let (twin, default) = facts.get(flag).unwrap_or_else(|| {
            panic!("docs/admin-api.md:{line}: `labelpress token` has no {flag}")
        });
        assert_eq!(
            twin.as_deref(),
            Some(env.as_str()),
            "docs/admin-api.md:{line}: the twin of {flag}"
        );
        let clause = said.split(')').next().unwrap();
        if let (Some(default), Some((_, written))) = (default, clause.split_once("default `")) {
            assert_eq!(
                written.split('`').next(),
                Some(default.as_str()),
                "docs/admin-api.md:{line}: the default of {flag}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 18, "flags were checked ({checked})");
}

/// Every repository path the README and the docs name in a code span
/// (`src/http/edge.rs`, `benches/load.sh`) exists, and the README's table
/// links every file of docs/.
#[test]
fn named_paths_exist_and_the_readme_links_every_doc() {
    let root = manifest_dir();
    let roots = [
        "src/",
        "tests/",
        "benches/",
        "scripts/",
        "crates/",
        "examples/",
        "docs/",
        ".ci/",
        "fuzz/",
    ];
    let mut named = 0;
    for (name, text) in all_docs() {
        for span in code_spans(&text) {
            let path = span.split(' ').next().unwrap();
            if !roots.iter().any(|r| path.starts_with(r)) || path.contains(['{', '*', '<']) {
                continue;
            }
            assert!(root.join(path).exists(), "{name}: `{path}` does not exist");
            named += 1;
        }
    }
    assert!(named >= 20, "paths were found ({named})");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    for entry in std::fs::read_dir(root.join("docs")).unwrap().flatten() {
        let file = entry.file_name().to_string_lossy().to_string();
        if file.ends_with(".md") {
            assert!(
                readme.contains(&format!("](docs/{file})")),
                "README.md links docs/{file}"
            );
        }
    }
}

/// Every operation of the OpenAPI document is in the docs as
/// `` `METHOD /path`` (a path that only shortens a documented one, such as
/// `/barcode/{symbology}` for `/barcode/{symbology}/{content}`, counts as
/// documented with it).
#[test]
fn every_operation_of_the_contract_is_documented() {
    let contract = labelpress::http::openapi::document();
    let text: String = all_docs().into_iter().map(|(_, t)| t).collect();
    let documented: Vec<&str> = code_spans(&text)
        .into_iter()
        .filter(|s| s.starts_with(|c: char| c.is_ascii_uppercase()) && s.contains(" /"))
        .collect();
    let mut operations = 0;
    for (path, item) in contract["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            let route = format!("{} {path}", method.to_uppercase());
            let shortened = route.trim_end_matches('/');
            assert!(
                documented
                    .iter()
                    .any(|d| d.starts_with(&route) || d.starts_with(shortened)),
                "{route} is in the contract but in no doc (as `{route}`)"
            );
            operations += 1;
        }
    }
    assert!(
        operations >= 20,
        "the contract's operations were read ({operations})"
    );
}
