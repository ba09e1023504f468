//! Batches (issue 31): `POST /api/v1/batch` answers many documents as one
//! PDF, one ZPL stream or a ZIP of PNGs, all or nothing unless `partial`,
//! charged one unit per document rendered; and a multi-sheet document as
//! PNG is a ZIP of every sheet.

use std::time::Duration;

use serde_json::{json, Value};

use crate::server::{self, await_balance, client, new_token, reply, Reply};
use crate::support::*;
use crate::zpl::{labelpress, run};

/// A 60 x 40 mm label whose Code 128 carries `code` (and prints it).
fn label(code: &str) -> Value {
    json!({"pages": [{"width": 60, "height": 40, "elements": [
        {"type": "barcode", "x": 5, "y": 5, "width": 50, "height": 20, "format": "code128", "content": code},
        {"type": "text", "x": 5, "y": 30, "content": code, "style": {"font_size": 8}}
    ]}]})
}

fn codes(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("WAVE{i:05}")).collect()
}

async fn post(base: &str, token: &str, query: &str, accept: Option<&str>, body: &Value) -> Reply {
    let mut request = client()
        .post(format!("{base}/api/v1/batch{query}"))
        .bearer_auth(token)
        .json(body);
    if let Some(accept) = accept {
        request = request.header("accept", accept);
    }
    reply(request.send().await.unwrap()).await
}

/// batchdecode.py's reading of an answer's bytes.
fn read_back(bytes: &[u8]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("answer");
    std::fs::write(&path, bytes).unwrap();
    python_json(
        "batchdecode.py",
        &[path.as_os_str(), "200".as_ref()],
        "PyMuPDF, zxing-cpp, Pillow",
    )
}

fn decoded(page: &Value) -> Vec<String> {
    page.as_array()
        .unwrap()
        .iter()
        .map(|b| b["text"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wave_of_50_labels_is_one_pdf_in_order_charged_50_and_an_invalid_one_refuses_it_for_nothing(
) {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(dir.path(), &[]);
    let base = &server.base;
    let (id, token) = new_token(base, 200, Some((1000, 1000))).await;
    let wave = codes(50);
    let documents: Vec<Value> = wave.iter().map(|c| label(c)).collect();

    let r = post(base, &token, "", None, &json!({ "documents": documents })).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    assert_eq!(r.header("content-type").as_deref(), Some("application/pdf"));
    let read = read_back(&r.bytes);
    let pages = read["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 50);
    for (page, code) in pages.iter().zip(&wave) {
        assert_eq!(decoded(page), [code.clone()]);
    }
    assert_eq!(read["sizes"][49], json!([60.0, 40.0]));
    await_balance(base, &id, 150, Duration::from_secs(30)).await;

    // Document 17 breaks a rule: the batch is refused, its paths start
    // with documents[17], and nothing is charged.
    let mut broken = documents.clone();
    broken[17]["pages"][0]["elements"][0]["format"] = json!("code129");
    let r = post(base, &token, "", None, &json!({ "documents": broken })).await;
    let error = r.assert_error(422, "API-002");
    for detail in error["details"].as_array().unwrap() {
        assert!(
            detail["path"]
                .as_str()
                .unwrap()
                .starts_with("documents[17]."),
            "{detail}"
        );
    }

    // With partial: 49 render (in order, without 17), 49 are charged, and
    // the manifest names 17 with its violation.
    let r = post(
        base,
        &token,
        "",
        None,
        &json!({ "documents": broken, "partial": true }),
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    assert_eq!(r.header("content-type").as_deref(), Some("application/zip"));
    let entries = read_back(&r.bytes)["entries"].as_array().unwrap().clone();
    let names: Vec<&str> = entries
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["batch.pdf", "manifest.json"]);
    let manifest = &entries[1]["json"];
    assert_eq!(manifest["documents"], 50);
    assert_eq!(manifest["rendered"].as_array().unwrap().len(), 49);
    assert_eq!(manifest["left_out"][0]["index"], 17);
    assert!(manifest["left_out"][0]["violations"][0]["path"]
        .as_str()
        .unwrap()
        .starts_with("documents[17]."));
    await_balance(base, &id, 101, Duration::from_secs(30)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_template_with_records_is_one_zpl_or_a_zip_of_pngs_and_a_token_short_of_the_batch_renders_nothing(
) {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(dir.path(), &[]);
    let base = &server.base;
    let (id, token) = new_token(base, 8, Some((1000, 1000))).await;
    let template = label("{{tracking}}");
    let records: Vec<Value> = codes(3).iter().map(|c| json!({ "tracking": c })).collect();
    let batch = json!({"template": template, "records": records});

    // ZPL: one label per record, in order.
    let r = post(base, &token, "?format=zpl", None, &batch).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    assert_eq!(r.header("content-type").as_deref(), Some("application/zpl"));
    let zpl = String::from_utf8(r.bytes.clone()).unwrap();
    assert_eq!(zpl.matches("^XA").count(), 3, "{zpl:.200}");
    await_balance(base, &id, 5, Duration::from_secs(30)).await;

    // A record without the value: at records[1], naming the template's path.
    let mut missing = batch.clone();
    missing["records"][1] = json!({"other": 1});
    let r = post(base, &token, "", None, &missing).await;
    let error = r.assert_error(422, "API-002");
    assert_eq!(error["details"][0]["path"], "records[1]");
    let message = error["details"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("template.pages[0].elements[0].content"),
        "{message}"
    );

    // PNG: a ZIP of 0001-1.png..., each sheet's barcode decoding to its record.
    let r = post(base, &token, "", Some("image/png"), &batch).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    assert_eq!(r.header("content-type").as_deref(), Some("application/zip"));
    let entries = read_back(&r.bytes)["entries"].as_array().unwrap().clone();
    let names: Vec<&str> = entries
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["0001-1.png", "0002-1.png", "0003-1.png"]);
    for (entry, code) in entries.iter().zip(codes(3)) {
        assert_eq!(decoded(&entry["barcodes"]), [code]);
    }
    await_balance(base, &id, 2, Duration::from_secs(30)).await;

    // Three documents on a balance of two: 403, nothing rendered or charged.
    let r = post(base, &token, "", None, &batch).await;
    r.assert_error(403, "API-102");
    // ?sheet= means nothing for a batch.
    let r = post(base, &token, "?format=zpl&sheet=1", None, &batch).await;
    r.assert_error(400, "API-006");
    await_balance(base, &id, 2, Duration::from_secs(30)).await;
    // The units held for the refused batch came back: two labels still render.
    let two = json!({"documents": [label("A1"), label("A2")]});
    let r = post(base, &token, "", None, &two).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    await_balance(base, &id, 0, Duration::from_secs(30)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_document_of_several_sheets_as_png_is_a_zip_of_every_sheet_for_one_unit() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(dir.path(), &[]);
    let base = &server.base;
    let (id, token) = new_token(base, 5, None).await;
    let mut two = label("SHEET1");
    two["pages"]
        .as_array_mut()
        .unwrap()
        .push(label("SHEET2")["pages"][0].clone());
    let r = client()
        .post(format!("{base}/api/v1/label"))
        .bearer_auth(&token)
        .header("accept", "image/png")
        .json(&two)
        .send()
        .await
        .unwrap();
    let r = reply(r).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    assert_eq!(r.header("content-type").as_deref(), Some("application/zip"));
    let entries = read_back(&r.bytes)["entries"].as_array().unwrap().clone();
    let found: Vec<(String, Vec<String>)> = entries
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                decoded(&e["barcodes"]),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("0001-1.png".to_string(), vec!["SHEET1".to_string()]),
            ("0001-2.png".to_string(), vec!["SHEET2".to_string()])
        ]
    );
    await_balance(base, &id, 4, Duration::from_secs(30)).await;
    // ?sheet=2 is that sheet alone, as a PNG.
    let r = client()
        .post(format!("{base}/api/v1/label?format=png&sheet=2"))
        .bearer_auth(&token)
        .json(&two)
        .send()
        .await
        .unwrap();
    let r = reply(r).await;
    assert_eq!(r.header("content-type").as_deref(), Some("image/png"));
}

/// `labelpress render` with several files, or a template and JSON Lines
/// records: one file, as the route answers.
#[test]
fn the_cli_renders_several_files_or_a_template_with_records_into_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<_> = codes(2)
        .iter()
        .map(|c| {
            let path = dir.path().join(format!("{c}.json"));
            std::fs::write(&path, label(c).to_string()).unwrap();
            path
        })
        .collect();
    let out = dir.path().join("two.pdf");
    run(labelpress(dir.path())
        .arg("render")
        .args(&paths)
        .arg("-o")
        .arg(&out));
    let read = read_back(&std::fs::read(&out).unwrap());
    let found: Vec<Vec<String>> = read["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(decoded)
        .collect();
    assert_eq!(
        found,
        [vec![codes(2)[0].clone()], vec![codes(2)[1].clone()]]
    );

    let template = dir.path().join("template.json");
    std::fs::write(&template, label("{{tracking}}").to_string()).unwrap();
    let records = dir.path().join("orders.jsonl");
    let lines: Vec<String> = codes(4)
        .iter()
        .map(|c| json!({ "tracking": c }).to_string())
        .collect();
    std::fs::write(&records, lines.join("\n") + "\n\n").unwrap();
    let wave = dir.path().join("wave.zpl");
    let from_template = || {
        let mut command = labelpress(dir.path());
        command
            .args(["render", "--template"])
            .arg(&template)
            .arg("--records")
            .arg(&records)
            .arg("-o")
            .arg(&wave);
        command
    };
    run(&mut from_template());
    let zpl = std::fs::read_to_string(&wave).unwrap();
    assert_eq!(zpl.matches("^XA").count(), 4);

    // A batch needs -o; a broken record line is named.
    let without_output = labelpress(dir.path())
        .arg("render")
        .args(&paths)
        .output()
        .unwrap();
    assert_eq!(without_output.status.code(), Some(2));
    std::fs::write(&records, "{\"tracking\": \"A\"}\nnot json\n").unwrap();
    let run = from_template().output().unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("line 2"));
}

/// A batch PDF has one profile, the first document's: profiles are compared
/// as the names parse (`PDFA-2B` is `pdfa-2b`, `pdfua-1` is `pdfa-ua1`),
/// and a different one is refused at the document that asks for it.
#[test]
fn a_batch_pdf_shares_the_profile_its_documents_name_in_any_spelling() {
    let dir = tempfile::tempdir().unwrap();
    let with_profile = |name: &str, profile: &str| {
        let mut document = label(name);
        document["settings"] = json!({"profile": profile, "metadata": {"title": name}});
        let path = dir.path().join(format!("{name}.json"));
        std::fs::write(&path, document.to_string()).unwrap();
        path
    };
    let out = dir.path().join("batch.pdf");
    let batch = |paths: &[std::path::PathBuf]| {
        labelpress(dir.path())
            .arg("render")
            .args(paths)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap()
    };
    let same = batch(&[with_profile("A1", "pdfa-2b"), with_profile("A2", "PDFA-2B")]);
    assert!(
        same.status.success(),
        "{}",
        String::from_utf8_lossy(&same.stderr)
    );
    let read = read_back(&std::fs::read(&out).unwrap());
    assert_eq!(read["pages"].as_array().unwrap().len(), 2);
    let aliases = batch(&[
        with_profile("U1", "pdfua-1"),
        with_profile("U2", "PDFA-UA1"),
    ]);
    assert!(
        aliases.status.success(),
        "{}",
        String::from_utf8_lossy(&aliases.stderr)
    );

    let other = batch(&[with_profile("B1", "pdfa-2b"), with_profile("B2", "pdfa-3b")]);
    assert_eq!(other.status.code(), Some(1), "an invalid batch exits 1");
    let said = String::from_utf8_lossy(&other.stdout) + String::from_utf8_lossy(&other.stderr);
    assert!(said.contains("documents[1].settings.profile"), "{said}");
}

/// A ZPL or PNG batch renders its documents apart and streams them
/// (docs/http-api.md "Batches", "How it runs"): the answer has no length
/// announced, holds each document's own render in order (a two-sheet
/// document's sheets as `0002-1.png`, `0002-2.png`), the same ZPL as the
/// batch rendered whole (a partial batch's `batch.zpl`), the warnings of
/// every document, and costs one unit per document.
#[tokio::test(flavor = "multi_thread")]
async fn a_zpl_or_png_batch_streams_each_documents_own_render_in_order_one_unit_each() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(dir.path(), &[]);
    let base = &server.base;
    let (id, token) = new_token(base, 100, None).await;
    let mut two_sheets = label("STREAM2A");
    two_sheets["pages"]
        .as_array_mut()
        .unwrap()
        .push(label("STREAM2B")["pages"][0].clone());
    let mut cut = label("STREAM3");
    cut["pages"][0]["elements"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "text", "x": 40, "y": 2, "content": "CUT BY THE EDGE OF THE LABEL"}));
    let documents = vec![label("STREAM1"), two_sheets, cut, label("STREAM4")];
    let batch = json!({ "documents": documents });

    // Each document alone, as the render route answers it.
    let mut alone_zpl = Vec::new();
    let mut alone_png = Vec::new();
    let mut warnings = 0;
    for document in &documents {
        let single = |query: &str| {
            client()
                .post(format!("{base}/api/v1/label{query}"))
                .bearer_auth(&token)
                .json(document)
                .send()
        };
        let r = reply(single("?format=zpl").await.unwrap()).await;
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
        warnings += r.header(WARNINGS).unwrap().parse::<usize>().unwrap();
        alone_zpl.extend(r.bytes);
        let r = reply(single("?format=png").await.unwrap()).await;
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
        alone_png.push(r);
    }
    assert!(warnings > 0, "the cut text warns");
    await_balance(base, &id, 92, Duration::from_secs(30)).await;

    let r = post(base, &token, "?format=zpl", None, &batch).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    assert_eq!(r.header("content-length"), None, "a streamed answer");
    assert_eq!(r.header(WARNINGS), Some(warnings.to_string()));
    assert_eq!(r.bytes, alone_zpl);
    await_balance(base, &id, 88, Duration::from_secs(30)).await;

    // The same batch rendered whole (partial: one job) has the same ZPL.
    let mut whole = batch.clone();
    whole["partial"] = json!(true);
    let r = post(base, &token, "?format=zpl", None, &whole).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    let files = zip_entries(&r.bytes);
    assert_eq!(files[0].0, "batch.zpl");
    assert_eq!(files[0].1, alone_zpl);
    await_balance(base, &id, 84, Duration::from_secs(30)).await;

    let r = post(base, &token, "?format=png", None, &batch).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    assert_eq!(r.header("content-type").as_deref(), Some("application/zip"));
    assert_eq!(r.header("content-length"), None, "a streamed answer");
    let files = zip_entries(&r.bytes);
    let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "0001-1.png",
            "0002-1.png",
            "0002-2.png",
            "0003-1.png",
            "0004-1.png"
        ]
    );
    let mut expected = Vec::new();
    for single in &alone_png {
        match single.header("content-type").as_deref() {
            Some("image/png") => expected.push(single.bytes.clone()),
            _ => expected.extend(zip_entries(&single.bytes).into_iter().map(|(_, png)| png)),
        }
    }
    let pngs: Vec<Vec<u8>> = files.into_iter().map(|(_, png)| png).collect();
    assert_eq!(pngs, expected);
    let decoded_sheets: Vec<Vec<String>> = read_back(&r.bytes)["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| decoded(&e["barcodes"]))
        .collect();
    assert_eq!(
        decoded_sheets,
        [
            ["STREAM1"],
            ["STREAM2A"],
            ["STREAM2B"],
            ["STREAM3"],
            ["STREAM4"]
        ]
    );
    await_balance(base, &id, 80, Duration::from_secs(30)).await;
}

const WARNINGS: &str = "x-labelpress-warnings";

/// An archive's entries (name, bytes), in order.
fn zip_entries(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    (0..archive.len())
        .map(|i| {
            let mut entry = archive.by_index(i).unwrap();
            let mut read = Vec::new();
            std::io::Read::read_to_end(&mut entry, &mut read).unwrap();
            (entry.name().to_string(), read)
        })
        .collect()
}

/// A streamed batch whose third document fails after the answer began (its
/// ZPL is more than `limits.zpl_bytes`, which only its render can tell):
/// the answer ends without its last chunk, so the client sees it
/// incomplete, and only the two documents rendered before are charged. A
/// first document that fails is an ordinary refusal, nothing charged.
#[tokio::test(flavor = "multi_thread")]
async fn a_streamed_batch_cut_off_by_a_failing_document_is_incomplete_and_charges_what_it_sent() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limits.toml");
    // One slot: the documents render one after another. A label's ZPL is
    // about 15 kB; the table's forty sheets are far more than 200 kB.
    std::fs::write(
        &config,
        "[limits]\nrender_concurrency = 1\nzpl_bytes = 200000\n",
    )
    .unwrap();
    let server = server::start(dir.path(), &["--config", config.to_str().unwrap()]);
    let base = &server.base;
    let (id, token) = new_token(base, 10, None).await;
    let columns: Vec<Value> = ["a", "b", "c"]
        .iter()
        .map(|key| json!({"key": key, "header": key, "width": {"mode": "fixed", "value": 50}}))
        .collect();
    let rows: Vec<Value> = (0..2_000)
        .map(|i| json!({"a": format!("item {i}"), "b": "Widget, blue, large", "c": i}))
        .collect();
    let table = json!({"pages": [{"size": "a4", "elements": [
        {"type": "table", "x": 10, "y": 10, "columns": columns, "rows": rows}
    ]}]});
    // A first document that fails: an ordinary refusal, nothing charged.
    let first_fails = json!({"documents": [table.clone(), label("NEVER")]});
    let r = post(base, &token, "?format=zpl", None, &first_fails).await;
    r.assert_error(422, "API-002");
    await_balance(base, &id, 10, Duration::from_secs(30)).await;
    let batch = json!({"documents": [label("CUT1"), label("CUT2"), table, label("CUT4")]});
    let response = client()
        .post(format!("{base}/api/v1/batch?format=zpl"))
        .bearer_auth(&token)
        .json(&batch)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "the answer began");
    let read = response.bytes().await;
    assert!(
        read.is_err(),
        "an answer cut off reads as an error, not as whole"
    );
    await_balance(base, &id, 8, Duration::from_secs(30)).await;
    // The slot serves the next request.
    let r = post(
        base,
        &token,
        "?format=zpl",
        None,
        &json!({"documents": [label("AFTER")]}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    await_balance(base, &id, 7, Duration::from_secs(30)).await;
}
