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
