//! PNG output (issue 19, part 2): sheets rasterised by typst-render at a
//! printer's resolution, read back with Pillow and decoded with zxing-cpp
//! from the PNG's own pixels (tests/support/pngread.py): through the
//! library, the HTTP route (Accept, query, charging) and the CLI.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use labelpress::engine::{Format, Output, PngOptions};
use labelpress::validate::RequestError;
use labelpress::RenderError;
use serde_json::{json, Value};

use crate::server::{self, await_balance, new_token, Reply};
use crate::support::{manifest_dir, python_json, ENGINE};

/// The LABEL document of the performance goals (100 x 150 mm, a Code 128
/// and a QR Code).
fn label() -> Value {
    let text = std::fs::read(manifest_dir().join("benches/data/label.json")).unwrap();
    serde_json::from_slice(&text).unwrap()
}

/// What LABEL's two barcodes encode, read from the document itself.
fn label_barcodes() -> Vec<(String, String)> {
    label()["pages"][0]["elements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "barcode")
        .map(|e| {
            let format = match e["format"].as_str().unwrap() {
                "code128" => "Code 128",
                "qrcode" => "QR Code",
                other => panic!("LABEL has a {other}"),
            };
            (
                format.to_string(),
                e["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Pixels of `mm` at `dpi`, rounded to the nearest (what a sheet measures).
fn px(mm: f64, dpi: f64) -> u64 {
    (mm / 25.4 * dpi).round() as u64
}

/// Two 100 x 150 mm sheets: a black square at 10..50 mm on sheet 1 only,
/// at 50..90 mm on sheet 2 only.
fn two_sheets() -> Value {
    let square = |at: f64| {
        json!({"type": "rect", "x": at, "y": at, "width": 40, "height": 40,
               "fill": {"color": "#000000"}, "stroke": {"width": 0}})
    };
    json!({"pages": [
        {"size": "label_100_150", "elements": [square(10.0)]},
        {"size": "label_100_150", "elements": [square(50.0)]},
    ]})
}

/// The boxes (pixels at `dpi`) inside each square of [`two_sheets`], 5 mm in from its edges.
fn square_boxes(dpi: f64) -> [String; 2] {
    let b = |at: f64| {
        let (a, z) = (px(at + 5.0, dpi), px(at + 35.0, dpi));
        format!("{a},{a},{z},{z}")
    };
    [b(10.0), b(50.0)]
}

/// pngread.py's JSON for PNG bytes, with the mean grey of each box.
fn read_png(png: &[u8], boxes: &[String]) -> Value {
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.png");
    std::fs::write(&path, png).unwrap();
    let mut args = vec![path.as_os_str()];
    args.extend(boxes.iter().map(|b| std::ffi::OsStr::new(b.as_str())));
    python_json("pngread.py", &args, "Pillow, zxing-cpp")
}

fn decoded(read: &Value) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = read["barcodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["format"].as_str().unwrap().to_string(),
                b["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    found.sort();
    found
}

/// LABEL's sheet at 203 dpi as pngread.py read it: 799 x 1199 pixels, and
/// its Code 128 and QR decode from the pixels with what was asked for.
fn assert_label_at_203_dpi(read: &Value) {
    assert_eq!(
        (read["width"].as_u64(), read["height"].as_u64()),
        (Some(799), Some(1199))
    );
    let mut expected = label_barcodes();
    expected.sort();
    assert_eq!(decoded(read), expected);
}

fn png_of(request: &Value, options: PngOptions) -> Result<Vec<u8>, RenderError> {
    let doc = ENGINE
        .validate(&serde_json::to_vec(request).unwrap())
        .unwrap();
    let rendered = ENGINE.render_as(&doc, &Output::Png(options))?;
    assert_eq!(rendered.format, Format::Png);
    Ok(rendered.bytes)
}

/// The one violation of a refused render: (path, message).
fn refusal(outcome: Result<Vec<u8>, RenderError>) -> (String, String) {
    match outcome {
        Err(RenderError::Request(RequestError::Invalid(v))) if v.len() == 1 => {
            (v[0].path.clone(), v[0].message.clone())
        }
        other => panic!("expected one violation, got {:?}", other.map(|b| b.len())),
    }
}

#[test]
fn the_label_at_203_dpi_is_799_by_1199_and_its_barcodes_decode_from_the_png() {
    let bytes = png_of(&label(), PngOptions::default()).unwrap();
    let read = read_png(&bytes, &[]);
    assert_label_at_203_dpi(&read);
    assert_eq!(read["mode"], "RGB");
    assert_eq!(read["alpha"], false);
    assert_eq!(read["dpi"], json!([203.0, 203.0]));
    // White paper: the corner outside the label's frame is white.
    let corner = read_png(&bytes, &["0,0,10,10".to_string()]);
    assert_eq!(corner["boxes"][0], 255.0);
}

#[test]
fn mono_is_pure_black_and_white_and_its_barcodes_still_decode() {
    let bytes = png_of(
        &label(),
        PngOptions {
            mono: true,
            ..PngOptions::default()
        },
    )
    .unwrap();
    let read = read_png(&bytes, &[]);
    assert_eq!(read["grey_values"], json!([0, 255]));
    assert_eq!(read["mode"], "1");
    assert_label_at_203_dpi(&read);
}

#[test]
fn the_size_follows_the_dpi_and_the_default_is_settings_print_dpi() {
    for dpi in [72u32, 300, 406] {
        let bytes = png_of(
            &label(),
            PngOptions {
                dpi: Some(dpi),
                ..PngOptions::default()
            },
        )
        .unwrap();
        let read = read_png(&bytes, &[]);
        let d = f64::from(dpi);
        assert_eq!(
            (read["width"].as_u64(), read["height"].as_u64()),
            (Some(px(100.0, d)), Some(px(150.0, d))),
            "{dpi} dpi"
        );
    }
    let mut with_dpi = label();
    with_dpi["settings"]["print_dpi"] = json!(300);
    let read = read_png(&png_of(&with_dpi, PngOptions::default()).unwrap(), &[]);
    assert_eq!(
        (read["width"].as_u64(), read["height"].as_u64()),
        (Some(1181), Some(1772))
    );
    assert_eq!(read["dpi"], json!([300.0, 300.0]));
    // An explicit dpi wins over the document's.
    let read = read_png(
        &png_of(
            &with_dpi,
            PngOptions {
                dpi: Some(203),
                ..PngOptions::default()
            },
        )
        .unwrap(),
        &[],
    );
    assert_eq!(read["width"].as_u64(), Some(799));
}

#[test]
fn sheet_2_shows_sheet_2() {
    let dpi = 100.0;
    let boxes = square_boxes(dpi);
    let sheet = |n: usize| {
        let bytes = png_of(
            &two_sheets(),
            PngOptions {
                dpi: Some(100),
                sheet: Some(n),
                mono: false,
            },
        )
        .unwrap();
        read_png(&bytes, &boxes)["boxes"].clone()
    };
    assert_eq!(sheet(1), json!([0.0, 255.0]));
    assert_eq!(sheet(2), json!([255.0, 0.0]));
}

#[test]
fn a_sheet_past_the_end_a_dpi_out_of_range_and_too_many_pixels_are_refused() {
    let (path, message) = refusal(png_of(
        &two_sheets(),
        PngOptions {
            sheet: Some(3),
            ..PngOptions::default()
        },
    ));
    assert_eq!(path, "sheet");
    assert!(message.contains("2 sheet(s)"), "{message}");

    let mut high = label();
    high["settings"]["print_dpi"] = json!(4800);
    let (path, message) = refusal(png_of(&high, PngOptions::default()));
    assert_eq!(path, "settings.print_dpi");
    assert!(message.contains("limits.png_dpi_max"), "{message}");

    // A0 at 1200 dpi is 2.2 billion pixels: refused before a pixel is drawn.
    let a0 = json!({"pages": [{"width": 841, "height": 1189, "elements": []}]});
    let started = std::time::Instant::now();
    let (path, message) = refusal(png_of(
        &a0,
        PngOptions {
            dpi: Some(1200),
            ..PngOptions::default()
        },
    ));
    assert_eq!(path, "dpi");
    assert!(message.contains("limits.png_pixels"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(20));
}

// ---------------------------------------------------------------- HTTP

/// `POST /api/v1/label{query}` with a bearer token and, if given, `Accept`.
pub(crate) async fn post(
    base: &str,
    token: &str,
    query: &str,
    accept: Option<&str>,
    body: &Value,
) -> Reply {
    let mut request = server::client()
        .post(format!("{base}/api/v1/label{query}"))
        .bearer_auth(token)
        .json(body);
    if let Some(accept) = accept {
        request = request.header("Accept", accept);
    }
    server::reply(request.send().await.unwrap()).await
}

#[tokio::test(flavor = "multi_thread")]
async fn the_route_answers_png_for_accept_image_png_and_charges_it_like_a_pdf() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(dir.path(), &[]);
    let base = &server.base;
    let (id, token) = new_token(base, 10, None).await;

    // One PNG of LABEL: 799 x 1199, both barcodes from the PNG; one unit.
    let r = post(base, &token, "", Some("image/png"), &label()).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    assert_eq!(r.header("content-type").as_deref(), Some("image/png"));
    assert_eq!(r.header("vary").as_deref(), Some("accept"));
    let read = read_png(&r.bytes, &[]);
    assert_label_at_203_dpi(&read);
    await_balance(base, &id, 9, Duration::from_secs(30)).await;

    // Refusals: none is charged.
    let a0 = json!({"pages": [{"width": 841, "height": 1189, "elements": []}]});
    let refused = [
        ("?sheet=0", &label(), 400, "API-006"),
        ("?sheet=x", &label(), 400, "API-006"),
        ("?dpi=abc", &label(), 400, "API-006"),
        ("?dpi=5000", &label(), 400, "API-006"),
        ("?dpi=71", &label(), 400, "API-006"),
        ("?mono=maybe", &label(), 400, "API-006"),
        ("?sheet=2", &label(), 422, "API-002"),
        ("?dpi=1200", &a0, 422, "API-002"),
    ];
    for (query, body, status, code) in refused {
        let r = post(base, &token, query, Some("image/png"), body).await;
        let error = r.assert_error(status, code);
        assert_eq!(r.header("vary").as_deref(), Some("accept"), "{query}");
        if code == "API-002" {
            let path = &error["details"][0]["path"];
            assert!(path == "sheet" || path == "dpi", "{query}: {error}");
        }
    }

    // sheet=2 of two, mono: sheet 2's square, black and white only; one
    // sheet delivered, one counted.
    let sheets_before = server::metric(base, "labelpress_sheets_rendered_total").await;
    let r = post(
        base,
        &token,
        "?sheet=2&mono=1&dpi=100",
        Some("image/png"),
        &two_sheets(),
    )
    .await;
    assert_eq!(r.status, 200);
    let sheets_after = server::metric(base, "labelpress_sheets_rendered_total").await;
    assert_eq!(sheets_after - sheets_before, 1.0);
    let read = read_png(&r.bytes, &square_boxes(100.0));
    assert_eq!(read["boxes"], json!([255.0, 0.0]));
    assert_eq!(read["grey_values"], json!([0, 255]));

    // PDF for application/pdf, */*, no Accept (types it cannot make are
    // 406: tests/suite/zpl.rs); a q-list picks the preferred one.
    let cases = [
        (Some("application/pdf"), "application/pdf"),
        (Some("*/*"), "application/pdf"),
        (None, "application/pdf"),
        (Some("text/html, */*;q=0.1"), "application/pdf"),
        (Some("application/pdf;q=0.2, image/png;q=0.9"), "image/png"),
    ];
    for (accept, expected) in cases {
        let r = post(base, &token, "", accept, &server::label("x")).await;
        assert_eq!(r.status, 200, "{accept:?}");
        assert_eq!(
            r.header("content-type").as_deref(),
            Some(expected),
            "{accept:?}"
        );
        assert_eq!(r.header("vary").as_deref(), Some("accept"));
        let magic: &[u8] = if expected == "image/png" {
            b"\x89PNG"
        } else {
            b"%PDF-"
        };
        assert!(r.bytes.starts_with(magic), "{accept:?}");
    }
    // 1 + 1 + 5 renders delivered: exactly 7 units, the refusals none.
    await_balance(base, &id, 3, Duration::from_secs(30)).await;
}

// ---------------------------------------------------------------- CLI

fn labelpress(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_labelpress"));
    c.current_dir(dir).env("LABELPRESS_NO_SYSTEM_FONTS", "1");
    c
}

#[test]
fn the_cli_writes_one_png_per_sheet() {
    let dir = tempfile::tempdir().unwrap();
    let request = dir.path().join("two.json");
    std::fs::write(&request, serde_json::to_vec(&two_sheets()).unwrap()).unwrap();
    let run = |args: &[&str]| {
        labelpress(dir.path())
            .arg("render")
            .arg(&request)
            .args(args)
            .output()
            .unwrap()
    };
    let boxes = square_boxes(100.0);

    // Every sheet, numbered.
    let out = run(&["-o", "out.png", "--dpi", "100"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.path().join("out.png").exists());
    for (n, expected) in [(1, json!([0.0, 255.0])), (2, json!([255.0, 0.0]))] {
        let bytes = std::fs::read(dir.path().join(format!("out-{n}.png"))).unwrap();
        let read = read_png(&bytes, &boxes);
        assert_eq!(read["boxes"], expected, "sheet {n}");
        assert_eq!(read["width"].as_u64(), Some(px(100.0, 100.0)));
    }

    // One sheet, to the name given; mono.
    let out = run(&["-o", "second.png", "--dpi", "100", "--sheet", "2", "--mono"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read = read_png(
        &std::fs::read(dir.path().join("second.png")).unwrap(),
        &boxes,
    );
    assert_eq!(read["boxes"], json!([255.0, 0.0]));
    assert_eq!(read["grey_values"], json!([0, 255]));

    // To standard output with --format png: one sheet only.
    let out = run(&["-o", "-", "--format", "png", "--sheet", "1", "--dpi", "100"]);
    assert!(out.status.success());
    assert_eq!(read_png(&out.stdout, &boxes)["boxes"], json!([0.0, 255.0]));
    let out = run(&["-o", "-", "--format", "png"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "two sheets do not fit one PNG on stdout"
    );
    assert!(out.stdout.is_empty());

    // A sheet past the end is the API-002 body, exit 1; PNG flags on a PDF, exit 2.
    let out = run(&["-o", "x.png", "--sheet", "3"]);
    assert_eq!(out.status.code(), Some(1));
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (body["code"].as_str(), body["details"][0]["path"].as_str()),
        (Some("API-002"), Some("sheet"))
    );
    let out = run(&["-o", "x.pdf", "--dpi", "300"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.path().join("x.pdf").exists() && !dir.path().join("x.png").exists());
}
