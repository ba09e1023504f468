//! The `labelpress` binary, and the README's examples.

use std::process::Command;

use crate::support::*;

fn labelpress() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_labelpress"));
    c.current_dir(manifest_dir())
        .env("LABELPRESS_NO_SYSTEM_FONTS", "1");
    c
}

/// The PDF of `labelpress render EXAMPLE -o OUT --resources examples`, as
/// the README runs it, with `env` set for the child process; fails the test
/// when the command fails.
fn render_example(example: &str, env: &[(&str, &str)]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.pdf");
    let status = labelpress()
        .envs(env.iter().copied())
        .args(["render", example, "-o"])
        .arg(&out)
        .args(["--resources", "examples"])
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{example}: {}",
        String::from_utf8_lossy(&status.stdout)
    );
    std::fs::read(&out).unwrap()
}

/// Every `examples/*.json` the README names renders with the README's command.
#[test]
fn readme_examples_render() {
    let readme = std::fs::read_to_string(manifest_dir().join("README.md")).unwrap();
    let mut examples: Vec<&str> = readme
        .split(|c: char| c.is_whitespace() || c == '`' || c == '(' || c == ')')
        .filter(|w| w.starts_with("examples/") && w.ends_with(".json"))
        .collect();
    examples.sort();
    examples.dedup();
    assert!(!examples.is_empty(), "the README names its examples");
    for example in examples {
        // With the system's fonts, as the README's command runs them
        // (examples/addresses.json prints the scripts DejaVu Sans lacks).
        let pdf = read_pdf(render_example(
            example,
            &[("LABELPRESS_NO_SYSTEM_FONTS", "false")],
        ));
        let missing = pdf.glyphs(0).into_iter().filter(|g| g["gid"] == 0).count();
        assert_eq!(missing, 0, "{example}: no missing glyphs");
        assert!(pdf.page_count() >= 1, "{example}");
        assert!(!pdf.spans(0).is_empty(), "{example} has text");
    }
}

#[test]
fn check_prints_the_api_002_body_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let req = dir.path().join("bad.json");
    std::fs::write(&req, r#"{"pages": [{"size": "a4", "elements": [{"type": "text", "x": 1, "x_anchor": {"reference": "page_left"}, "y": 1, "content": "x", "style": {"width": 5}}]}]}"#).unwrap();
    let out = labelpress().arg("check").arg(&req).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["error"], true);
    assert_eq!(body["code"], "API-002");
    assert_eq!(body["details"][0]["path"], "pages[0].elements[0].x_anchor");
    assert_eq!(body["req_id"].as_str().unwrap().len(), 36);
}

#[test]
fn check_accepts_a_valid_request_and_render_refuses_an_invalid_one() {
    let out = labelpress()
        .args(["check", "examples/label.json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let dir = tempfile::tempdir().unwrap();
    let req = dir.path().join("bad.json");
    std::fs::write(&req, "[1]").unwrap();
    let out = labelpress()
        .arg("render")
        .arg(&req)
        .arg("-o")
        .arg(dir.path().join("x.pdf"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no longer accepted"));
    assert!(!dir.path().join("x.pdf").exists());
}

#[test]
fn emit_typst_prints_the_generated_source_with_user_text_as_literals() {
    let dir = tempfile::tempdir().unwrap();
    let req = dir.path().join("r.json");
    std::fs::write(&req, r##"{"pages": [{"size": "a6", "elements": [{"type": "text", "x": 1, "y": 1, "content": "#panic(\"boom\")"}]}]}"##).unwrap();
    let out = labelpress()
        .arg("render")
        .arg(&req)
        .arg("--emit-typst")
        .output()
        .unwrap();
    assert!(out.status.success());
    let source = String::from_utf8(out.stdout).unwrap();
    assert!(
        source.contains(r##""#panic(\"boom\")""##),
        "escaped literal in {source}"
    );
    assert!(source.contains("#page(width: 105mm, height: 148mm"));
}

/// `SOURCE_DATE_EPOCH` fixes the clock of the binary (set for the child
/// process only, never for the test process).
#[test]
fn source_date_epoch_makes_the_binarys_output_reproducible() {
    let epoch = [("SOURCE_DATE_EPOCH", "1700000000")];
    let mut outputs: Vec<Vec<u8>> = (0..2)
        .map(|_| render_example("examples/label.json", &epoch))
        .collect();
    assert_eq!(outputs[0], outputs[1]);
    let pdf = read_pdf(outputs.remove(0));
    assert!(
        pdf.meta("creationDate").contains("20231114"),
        "{}",
        pdf.meta("creationDate")
    );
}

#[test]
fn fonts_lists_each_family_with_its_scripts_and_fallback_rank() {
    let out = labelpress().args(["fonts", "--json"]).output().unwrap();
    assert!(out.status.success());
    let families: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let dejavu = families
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["family"] == "DejaVu Sans")
        .unwrap_or_else(|| panic!("DejaVu Sans listed: {families}"));
    assert_eq!(dejavu["fallback"], 1, "{dejavu}");
    let scripts: Vec<&str> = dejavu["scripts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    for script in ["Latin", "Greek", "Cyrillic", "Arabic", "Hebrew"] {
        assert!(scripts.contains(&script), "{script} in {scripts:?}");
    }
    assert!(!scripts.contains(&"Han"), "{scripts:?}");
    let table = labelpress().arg("fonts").output().unwrap();
    assert!(String::from_utf8_lossy(&table.stdout).contains("DejaVu Sans"));
}

#[test]
fn a_fonts_folder_that_is_missing_or_holds_no_font_is_refused_at_start() {
    let empty = tempfile::tempdir().unwrap();
    std::fs::write(empty.path().join("readme.txt"), "no fonts here").unwrap();
    for (dir, why) in [
        ("/nonexistent/fonts", "no such folder"),
        (empty.path().to_str().unwrap(), "no font file"),
    ] {
        for command in [
            &["check", "examples/label.json"][..],
            &["serve", "--listen", "127.0.0.1:1"],
        ] {
            let out = labelpress()
                .args(command)
                .args(["--fonts", dir])
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{command:?} --fonts {dir}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(stderr.contains(why) && stderr.contains(dir), "{stderr}");
        }
    }
    // A folder with a font is accepted.
    let fonts = tempfile::tempdir().unwrap();
    std::fs::write(fonts.path().join("font.ttf"), dejavu::sans::regular()).unwrap();
    let out = labelpress()
        .args(["check", "examples/label.json", "--fonts"])
        .arg(fonts.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A one-page request with `text` on it, quick to render.
fn text_request(text: &str) -> String {
    serde_json::json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "y": 10, "content": text}
    ]}]})
    .to_string()
}

/// The names of the files in `dir`, sorted.
fn files_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn render_dash_o_dash_writes_the_pdf_to_standard_output_and_no_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("req.json"), text_request("Hello stdout")).unwrap();
    let out = labelpress()
        .current_dir(dir.path())
        .args(["render", "req.json", "-o", "-"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let pdf = read_pdf(out.stdout);
    assert_eq!(pdf.page_count(), 1);
    assert!(pdf.text(0).contains("Hello stdout"), "{}", pdf.text(0));
    // The summary goes to standard error, naming where the PDF went.
    assert!(stderr.contains("standard output: 1 sheet(s)"), "{stderr}");
    assert_eq!(files_in(dir.path()), ["req.json"], "no req.pdf, no `-`");
}

#[test]
fn a_request_on_standard_input_renders_to_standard_output_without_o() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let mut child = labelpress()
        .current_dir(dir.path())
        .args(["render", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text_request("From a pipe").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pdf = read_pdf(out.stdout);
    assert_eq!(pdf.page_count(), 1);
    assert!(pdf.text(0).contains("From a pipe"), "{}", pdf.text(0));
    assert!(files_in(dir.path()).is_empty(), "no `-.pdf`");
}

#[test]
fn emit_typst_follows_o_to_standard_output_or_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let req = dir.path().join("r.json");
    std::fs::write(&req, text_request("typst source")).unwrap();
    let to_stdout = labelpress()
        .arg("render")
        .arg(&req)
        .args(["--emit-typst", "-o", "-"])
        .output()
        .unwrap();
    assert!(to_stdout.status.success());
    let source = String::from_utf8(to_stdout.stdout).unwrap();
    assert!(source.contains("#page(width: 105mm"), "{source}");
    assert!(source.contains("typst source"), "{source}");

    let file = dir.path().join("r.typ");
    let to_file = labelpress()
        .arg("render")
        .arg(&req)
        .arg("--emit-typst")
        .arg("-o")
        .arg(&file)
        .output()
        .unwrap();
    assert!(to_file.status.success());
    assert!(to_file.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), source);
}

/// With the PDF bound for standard output, a refused request's error body
/// goes to standard error: standard output holds a PDF or nothing.
#[test]
fn a_refused_request_rendering_to_standard_output_leaves_it_empty() {
    let dir = tempfile::tempdir().unwrap();
    let req = dir.path().join("bad.json");
    std::fs::write(
        &req,
        r#"{"pages": [{"size": "a6", "elements": [{"type": "text", "x": 1, "y": 1}]}]}"#,
    )
    .unwrap();
    let out = labelpress()
        .arg("render")
        .arg(&req)
        .args(["-o", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let body: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(body["code"], "API-002");
}

/// A reader that goes away (`| head -c 0`) ends the output quietly: no
/// panic, exit 0 as for `fonts | head`.
#[test]
fn a_closed_pipe_on_standard_output_is_not_a_panic() {
    let mut child = labelpress()
        .args(["render", "examples/label.json", "-o", "-"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Closed long before the engine has loaded its fonts and rendered.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn completions_name_every_subcommand() {
    let bash = labelpress().args(["completions", "bash"]).output().unwrap();
    assert!(bash.status.success());
    let script = String::from_utf8(bash.stdout).unwrap();
    assert!(script.contains("complete -F _labelpress"), "{script}");
    for name in [
        "render",
        "check",
        "barcode",
        "serve",
        "token",
        "fonts",
        "config",
        "completions",
        "man",
        "expiry",
    ] {
        assert!(script.contains(name), "{name} in the bash completions");
    }
    let zsh = labelpress().args(["completions", "zsh"]).output().unwrap();
    assert!(String::from_utf8_lossy(&zsh.stdout).starts_with("#compdef labelpress"));
    let unknown = labelpress().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(unknown.status.code(), Some(2));
}

#[test]
fn man_prints_roff_naming_the_subcommands_and_the_exit_codes() {
    let out = labelpress().arg("man").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains("\n.TH labelpress 1 "), "{page}");
    assert!(page.contains("\n.SH SUBCOMMANDS"), "{page}");
    for name in [
        "render",
        "check",
        "barcode",
        "serve",
        "token",
        "completions",
    ] {
        assert!(
            page.contains(&format!("labelpress\\-{name}(1)")),
            "{name} in {page}"
        );
    }
    assert!(!page.contains("render\\-worker"), "{page}");
    assert!(page.contains("Exit status:"), "{page}");

    let token = labelpress()
        .args(["man", "token", "expiry"])
        .output()
        .unwrap();
    let token = String::from_utf8(token.stdout).unwrap();
    assert!(token.contains(".TH labelpress-token-expiry 1"), "{token}");
    assert!(
        token.contains("2026\\-12\\-31"),
        "the forms it takes: {token}"
    );

    let dir = tempfile::tempdir().unwrap();
    let pages = labelpress()
        .args(["man", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(pages.status.success());
    let files = files_in(dir.path());
    for page in [
        "labelpress.1",
        "labelpress-render.1",
        "labelpress-token-expiry.1",
    ] {
        assert!(files.iter().any(|f| f == page), "{page} in {files:?}");
    }
    let one = std::fs::read_to_string(dir.path().join("labelpress-render.1")).unwrap();
    assert!(one.contains(".TH labelpress-render 1"), "{one}");
}

/// Every code of the exit table (docs/exit-codes.md) but 3, an internal
/// failure that only a bug produces, from a real case.
#[test]
fn each_exit_code_comes_from_a_real_case() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "[1]").unwrap();
    let closed_port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{closed_port}");
    let bad = bad.to_str().unwrap();
    let cases: [(&[&str], i32); 8] = [
        (&["check", "examples/label.json"], 0),
        (&["check", bad], 1),
        (&["barcode", "ean13", "abc"], 1),
        (&["render", "--no-such-flag", "x.json"], 2),
        (&["check", "/nonexistent/request.json"], 2),
        (&["man", "no-such-command"], 2),
        (
            &[
                "token",
                "expiry",
                "tok_x",
                "31/12/2026",
                "--admin-token",
                "a",
            ],
            2,
        ),
        (&["token", "list", "--url", &url, "--admin-token", "a"], 4),
    ];
    for (args, code) in cases {
        let out = labelpress().args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        if code == 4 {
            assert!(
                stderr.contains(&url) && stderr.contains("connection refused"),
                "{stderr}"
            );
        }
    }
}
