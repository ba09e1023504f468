//! ZPL output (docs/http-api.md, "PNG and ZPL output"; docs/cli.md): read
//! back by a renderer that is not ours. Every example's ZPL at 203 and 300
//! dpi is drawn by zpl-renderer-js (Zebrash as WebAssembly, tests/zpl/),
//! compared dot for dot with labelpress's own mono PNG of the same sheet
//! at the same dpi, and its barcodes are decoded from that drawing by
//! zxing-cpp (tests/support/zplcheck.py). The HTTP route negotiates ZPL by
//! `Accept` and `format`, and `labelpress print` sends it to a printer's
//! raw port (a local listener stands in for the printer).

use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::{json, Value};

use crate::gallery::{check_barcodes, maxicode_boxes};
use crate::png::post;
use crate::server::{self, await_balance, binary, new_token};
use crate::support::*;

/// The dots of each `^XA ... ^XZ` label: (`^PW`, `^LL`).
fn label_sizes(zpl: &str) -> Vec<(u64, u64)> {
    zpl.split("^XA")
        .skip(1)
        .map(|label| {
            let field = |name: &str| -> u64 {
                let at = label
                    .find(name)
                    .unwrap_or_else(|| panic!("no {name} in {label:.200}"));
                label[at + name.len()..]
                    .split(|c: char| !c.is_ascii_digit())
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            assert!(label.contains("^XZ"), "a label without its end");
            (field("^PW"), field("^LL"))
        })
        .collect()
}

pub(crate) fn run(command: &mut Command) -> Output {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{command:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

pub(crate) fn labelpress(dir: &Path) -> Command {
    let mut c = Command::new(binary());
    c.current_dir(dir);
    c
}

/// The renderer's folder, installed by tests/zpl/install.sh (.ci/run runs it).
fn renderer() -> PathBuf {
    let dir = manifest_dir().join("tests/zpl");
    assert!(
        dir.join("node_modules/zpl-renderer-js").is_dir(),
        "zpl-renderer-js is not installed: run tests/zpl/install.sh (node and npm)"
    );
    dir
}

/// Draws every job's ZPL with zpl-renderer-js: `jobs` as render.mjs takes them.
fn draw(jobs: &Value, dir: &Path) -> Value {
    let file = dir.join("draw-jobs.json");
    std::fs::write(&file, jobs.to_string()).unwrap();
    let out = run(Command::new("node")
        .arg(renderer().join("render.mjs"))
        .arg(&file));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The sheet boxes (mm) of a request's MaxiCodes, which zxing-cpp decodes
/// only from a crop of the symbol alone.
fn boxes(request: &Value) -> Vec<[f64; 4]> {
    maxicode_boxes(request)
        .into_iter()
        .map(|(x0, y0, x1, y1)| [x0, y0, x1, y1])
        .collect()
}

#[test]
fn every_example_prints_from_zpl_dot_for_dot_as_its_png_and_its_barcodes_decode() {
    let dir = tempfile::tempdir().unwrap();
    let mut examples: Vec<PathBuf> = std::fs::read_dir(manifest_dir().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        // A template example fills into one of the others, byte for byte
        // (templates.rs): its barcodes are theirs.
        .filter(|p| !p.to_string_lossy().ends_with("_template.json"))
        .collect();
    examples.sort();
    assert!(examples.len() >= 6, "{examples:?}");

    let mut draw_jobs = Vec::new();
    let mut checks = Vec::new();
    let mut expected = Vec::new();
    for example in &examples {
        let name = example.file_stem().unwrap().to_string_lossy().to_string();
        let request: Value = serde_json::from_slice(&std::fs::read(example).unwrap()).unwrap();
        for dpi in [203, 300] {
            let zpl_path = dir.path().join(format!("{name}-{dpi}.zpl"));
            run(labelpress(&manifest_dir())
                .arg("render")
                .arg(example)
                .arg("-o")
                .arg(&zpl_path)
                .args(["--dpi", &dpi.to_string()]));
            let png_path = dir.path().join(format!("{name}-{dpi}.png"));
            run(labelpress(&manifest_dir())
                .arg("render")
                .arg(example)
                .arg("-o")
                .arg(&png_path)
                .args(["--mono", "--dpi", &dpi.to_string()]));
            let zpl = std::fs::read_to_string(&zpl_path).unwrap();
            let sizes = label_sizes(&zpl);
            assert!(!sizes.is_empty(), "{name}: no label");
            assert!(zpl.contains(":Z64:"), "{name}: graphics as Z64");
            let ours: Vec<PathBuf> = if sizes.len() == 1 {
                vec![png_path.clone()]
            } else {
                (1..=sizes.len())
                    .map(|n| dir.path().join(format!("{name}-{dpi}-{n}.png")))
                    .collect()
            };
            let (width, height) = sizes[0];
            assert!(
                sizes.iter().all(|&s| s == (width, height)),
                "{name}: every sheet of an example has one size"
            );
            let prefix = dir.path().join(format!("{name}-{dpi}-zebrash"));
            draw_jobs.push(json!({"zpl": zpl_path, "dpi": dpi, "width": width, "height": height, "out": prefix}));
            let theirs: Vec<PathBuf> = (1..=sizes.len())
                .map(|n| PathBuf::from(format!("{}-{n}.png", prefix.display())))
                .collect();
            checks.push(
                json!({"theirs": theirs, "ours": ours, "dpi": dpi, "boxes": boxes(&request)}),
            );
            expected.push((name.clone(), dpi, sizes.len(), request.clone()));
        }
    }
    let drawn = draw(&Value::Array(draw_jobs), dir.path());
    let checks_file = dir.path().join("checks.json");
    std::fs::write(&checks_file, Value::Array(checks).to_string()).unwrap();
    let report = python_json(
        "zplcheck.py",
        &[checks_file.as_os_str()],
        "Pillow, zxing-cpp",
    );
    for (i, (name, dpi, labels, request)) in expected.iter().enumerate() {
        assert_eq!(
            drawn["labels"][i].as_u64(),
            Some(*labels as u64),
            "{name} at {dpi} dpi: labels the renderer found"
        );
        let sheets = report[i]["sheets"].as_array().unwrap();
        assert_eq!(sheets.len(), *labels, "{name} at {dpi} dpi");
        for (n, sheet) in sheets.iter().enumerate() {
            assert_eq!(
                sheet["theirs"],
                sheet["ours"],
                "{name} sheet {} at {dpi} dpi: size",
                n + 1
            );
            let agreement = sheet["agreement"].as_f64().unwrap();
            assert!(
                agreement >= 0.995,
                "{name} sheet {} at {dpi} dpi: {agreement} of the dots agree",
                n + 1
            );
            assert!(
                sheet["black"].as_u64().unwrap() > 1000,
                "{name}: a blank sheet"
            );
        }
        check_barcodes(
            request,
            &report[i]["decoded"],
            Path::new(&format!("{name} as ZPL at {dpi} dpi")),
        );
    }
}

/// Barcodes at fractional positions, with `settings.print_dpi`: (element,
/// whether it is 2-D).
fn off_grid_barcodes(dpi: u32) -> (Value, Vec<(Value, bool)>) {
    let barcodes = vec![
        (
            json!({"type": "barcode", "format": "code128", "content": "LP-2026-0419", "x": 5.37, "y": 4.011, "width": 60, "height": 15}),
            false,
        ),
        (
            json!({"type": "barcode", "format": "gs1_128", "content": "(00)340123450000000024", "x": 5.123, "y": 24.77, "width": 80, "height": 15}),
            false,
        ),
        (
            json!({"type": "barcode", "format": "ean13", "content": "4006381333931", "x": 5.91, "y": 45.3, "width": 40, "height": 20}),
            false,
        ),
        (
            json!({"type": "barcode", "format": "qr", "content": "https://example.com/t/1Z999", "x": 55.44, "y": 45.05, "width": 25, "height": 25}),
            true,
        ),
        (
            json!({"type": "barcode", "format": "datamatrix", "content": "LP0419-ABC", "x": 5.66, "y": 75.29, "width": 20, "height": 20}),
            true,
        ),
        (
            json!({"type": "barcode", "format": "qr", "content": "TURNED", "x": 55.07, "y": 78.313, "width": 21, "height": 21, "rotation": 90}),
            true,
        ),
    ];
    let elements: Vec<Value> = barcodes.iter().map(|(e, _)| e.clone()).collect();
    let request = json!({"settings": {"print_dpi": dpi},
        "pages": [{"width": 100, "height": 110, "elements": elements}]});
    (request, barcodes)
}

/// The module in dots of runs measured across a symbol: their greatest
/// common divisor. Modules of whole dots on the grid give every run a whole
/// number of them; a symbol off the grid gives runs a dot longer or shorter
/// here and there, whose divisor is 1.
fn module_dots(lines: &[&Value]) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    lines
        .iter()
        .flat_map(|line| line.as_array().unwrap())
        .map(|run| run.as_u64().unwrap())
        .fold(0, gcd)
}

#[test]
fn with_print_dpi_every_bar_and_module_is_whole_dots_wherever_the_symbol_is_placed() {
    let dir = tempfile::tempdir().unwrap();
    let mut draw_jobs = Vec::new();
    let mut measured = Vec::new();
    for dpi in [203u32, 300] {
        let (request, barcodes) = off_grid_barcodes(dpi);
        let request_path = dir.path().join(format!("grid-{dpi}.json"));
        std::fs::write(&request_path, request.to_string()).unwrap();
        let png = dir.path().join(format!("grid-{dpi}.png"));
        let zpl = dir.path().join(format!("grid-{dpi}.zpl"));
        for (out, extra) in [(&png, &["--mono"][..]), (&zpl, &[][..])] {
            run(labelpress(dir.path())
                .arg("render")
                .arg(&request_path)
                .arg("-o")
                .arg(out)
                .args(extra)
                .arg("--no-system-fonts"));
        }
        let (width, height) = label_sizes(&std::fs::read_to_string(&zpl).unwrap())[0];
        let prefix = dir.path().join(format!("grid-{dpi}-zebrash"));
        draw_jobs
            .push(json!({"zpl": zpl, "dpi": dpi, "width": width, "height": height, "out": prefix}));
        let drawn = PathBuf::from(format!("{}-1.png", prefix.display()));
        measured.push((dpi, barcodes, png, drawn));
    }
    draw(&Value::Array(draw_jobs), dir.path());
    for (dpi, barcodes, png, drawn) in &measured {
        let dots = |mm: f64| (mm * f64::from(*dpi) / 25.4).round() as i64;
        // Each symbol's box on the sheet, in dots; a 1-D symbol's upper
        // half only (its human-readable text is below the bars).
        let boxes: Vec<String> = barcodes
            .iter()
            .map(|(e, two_d)| {
                let (x, y) = (f(e, "x"), f(e, "y"));
                let (w, h) = (f(e, "width"), f(e, "height"));
                let h = if *two_d { h } else { h * 0.5 };
                format!("{},{},{},{}", dots(x), dots(y), dots(x + w), dots(y + h))
            })
            .collect();
        for image in [png, drawn] {
            let mut args = vec![image.as_os_str()];
            args.extend(boxes.iter().map(std::ffi::OsStr::new));
            let report = python_json("runs.py", &args, "Pillow");
            for ((element, two_d), runs) in barcodes.iter().zip(report.as_array().unwrap()) {
                let mut lines: Vec<&Value> = runs["rows"].as_array().unwrap().iter().collect();
                if *two_d {
                    lines.extend(runs["cols"].as_array().unwrap());
                }
                // Every symbol here has modules of 2 dots or more.
                let module = module_dots(&lines);
                assert!(
                    module >= 2,
                    "{} at {dpi} dpi in {}: runs of no common module: {lines:?}",
                    element["format"],
                    image.display()
                );
            }
        }
    }
}

/// A request's ZPL, written by the CLI: its file, its text, and the file
/// prefix the renderer's drawing of it takes.
struct Zpl {
    path: PathBuf,
    text: String,
    drawn: PathBuf,
}

impl Zpl {
    /// render.mjs's job drawing this file at `dpi`, at the label's size.
    fn draw_job(&self, dpi: u32) -> Value {
        let (width, height) = label_sizes(&self.text)[0];
        json!({"zpl": self.path, "dpi": dpi, "width": width, "height": height, "out": self.drawn})
    }
}

/// `request` written to `dir` as `{stem}.json` and rendered as ZPL twice:
/// its barcodes as dots (`{stem}-graphic.zpl`) and with
/// `--native-barcodes` (`{stem}-native.zpl`); drawings go to
/// `{stem}-{graphic,native}-zebrash-N.png`.
fn graphic_and_native(dir: &Path, stem: &str, request: &Value) -> [Zpl; 2] {
    let path = dir.join(format!("{stem}.json"));
    std::fs::write(&path, request.to_string()).unwrap();
    ["graphic", "native"].map(|name| {
        let out = dir.join(format!("{stem}-{name}.zpl"));
        let mut command = labelpress(dir);
        command
            .arg("render")
            .arg(&path)
            .arg("-o")
            .arg(&out)
            .arg("--no-system-fonts");
        if name == "native" {
            command.arg("--native-barcodes");
        }
        run(&mut command);
        Zpl {
            text: std::fs::read_to_string(&out).unwrap(),
            path: out,
            drawn: dir.join(format!("{stem}-{name}-zebrash")),
        }
    })
}

/// With `--native-barcodes` (`?barcodes=native`), the QR Code and the Data
/// Matrix of a document whose `print_dpi` is the label's are the printer's
/// own `^BQ` and `^BX` at their places, a Code 128 that switches into
/// subset C inside the symbol stays dots; the ZPL is
/// smaller, and every symbol decodes from Zebrash's drawing where the
/// graphic one is. A document without `print_dpi` is fitted at the label's
/// dpi for it; one with another `print_dpi` keeps every barcode as dots.
#[test]
fn native_barcodes_are_the_printers_own_at_their_places_and_the_zpl_is_smaller() {
    let dir = tempfile::tempdir().unwrap();
    let mut draw_jobs = Vec::new();
    let mut cases = Vec::new();
    for dpi in [203u32, 300] {
        let (mut request, _) = off_grid_barcodes(dpi);
        // Code 128, QR, Data Matrix and a turned QR (which stays dots).
        let elements = request["pages"][0]["elements"].as_array_mut().unwrap();
        elements.retain(|e| e["format"] != "gs1_128" && e["format"] != "ean13");
        let [graphic, native] = graphic_and_native(dir.path(), &format!("native-{dpi}"), &request);
        draw_jobs.extend([&graphic, &native].map(|zpl| zpl.draw_job(dpi)));
        let (graphic, native) = (graphic.text, native.text);
        assert_eq!(native.matches("^BQN,2,").count(), 1, "{native}");
        assert_eq!(native.matches("^BXN,").count(), 1, "{native}");
        // "LP-2026-0419" switches into subset C after its start.
        assert!(!native.contains("^BC"), "that Code 128 stays dots");
        assert!(
            native.len() < graphic.len(),
            "{} >= {}",
            native.len(),
            graphic.len()
        );
        cases.push((dpi, request));
    }
    draw(&Value::Array(draw_jobs), dir.path());
    for (dpi, request) in &cases {
        let drawn = |name: &str| {
            dir.path()
                .join(format!("native-{dpi}-{name}-zebrash-1.png"))
        };
        let checks = json!([
            {"theirs": [drawn("graphic")], "ours": [drawn("graphic")], "dpi": dpi, "boxes": []},
            {"theirs": [drawn("native")], "ours": [drawn("native")], "dpi": dpi, "boxes": []},
        ]);
        let file = dir.path().join(format!("native-checks-{dpi}.json"));
        std::fs::write(&file, checks.to_string()).unwrap();
        let report = python_json("zplcheck.py", &[file.as_os_str()], "Pillow, zxing-cpp");
        for entry in report.as_array().unwrap() {
            check_barcodes(
                request,
                &entry["decoded"],
                Path::new(&format!("ZPL at {dpi} dpi")),
            );
        }
    }

    // Without print_dpi the document is fitted at the label's dpi for native
    // barcodes (so they go native); with another print_dpi nothing does.
    for (settings, goes_native) in [(json!({}), true), (json!({"print_dpi": 300}), false)] {
        let (mut request, _) = off_grid_barcodes(203);
        request["settings"] = settings;
        let path = dir.path().join("other-print-dpi.json");
        std::fs::write(&path, request.to_string()).unwrap();
        let out = dir.path().join("other-print-dpi.zpl");
        run(labelpress(dir.path())
            .arg("render")
            .arg(&path)
            .arg("-o")
            .arg(&out)
            .args(["--dpi", "203", "--native-barcodes", "--no-system-fonts"]));
        let zpl = std::fs::read_to_string(&out).unwrap();
        assert_eq!(
            zpl.contains("^BQ") && zpl.contains("^BX"),
            goes_native,
            "{:?}: {zpl:.400}",
            request["settings"]
        );
    }
}

/// 1-D barcodes with `--native-barcodes`: Code 128 and GS1-128 (`^BC`,
/// told the encoder's own subsets), Code 39 (`^B3`) and Interleaved 2 of 5
/// and ITF-14 (`^B2`) are the printer's own commands, and Zebrash draws
/// each with the very bars of the graphic, placed at fractional
/// positions; what ZPL renderers draw differently (a switch into subset C
/// inside a Code 128, EAN's longer guard bars) stays dots.
#[test]
fn native_linear_barcodes_print_the_bars_of_the_graphic() {
    let dir = tempfile::tempdir().unwrap();
    // (element, its printer command, or None where it stays dots)
    let barcodes = [
        (
            json!({"format": "code128", "content": "LP-ABC-XYZ>^~", "x": 5.37, "y": 4.011, "width": 70, "height": 14}),
            Some("^BCN,"),
        ),
        (
            json!({"format": "gs1_128", "content": "(00)340123450000000024", "x": 5.123, "y": 21.77, "width": 80, "height": 14}),
            Some("^BCN,"),
        ),
        (
            json!({"format": "gs1_128", "content": "(01)09501101530003(10)AB-12", "x": 5.8, "y": 39.1, "width": 80, "height": 14}),
            Some("^BCN,"),
        ),
        (
            json!({"format": "code39", "content": "LP-0419 %$", "x": 6.01, "y": 56.35, "width": 80, "height": 14}),
            Some("^B3N,"),
        ),
        (
            json!({"format": "itf", "content": "12345678", "x": 5.55, "y": 73.2, "width": 45, "height": 14}),
            Some("^B2N,"),
        ),
        (
            json!({"format": "itf14", "content": "1540014128876", "x": 5.5, "y": 90.4, "width": 80, "height": 14}),
            Some("^B2N,"),
        ),
        (
            json!({"format": "code128", "content": "LP-2026-0419", "x": 5.2, "y": 107.6, "width": 60, "height": 14}),
            None,
        ),
        (
            json!({"format": "ean13", "content": "4006381333931", "x": 5.91, "y": 124.3, "width": 40, "height": 18}),
            None,
        ),
    ];
    let elements: Vec<Value> = barcodes
        .iter()
        .map(|(e, _)| {
            let mut e = e.clone();
            e["type"] = json!("barcode");
            e
        })
        .collect();
    // The middle of each symbol's bars, above its human-readable text.
    let bar_boxes: Vec<[f64; 4]> = elements
        .iter()
        .map(|e| {
            let (x, y) = (e["x"].as_f64().unwrap(), e["y"].as_f64().unwrap());
            let (w, h) = (e["width"].as_f64().unwrap(), e["height"].as_f64().unwrap());
            [x, y, x + w, y + h * 0.5]
        })
        .collect();
    let mut draw_jobs = Vec::new();
    let mut cases = Vec::new();
    for dpi in [203u32, 300] {
        let request = json!({"settings": {"print_dpi": dpi},
            "pages": [{"width": 100, "height": 150, "elements": elements}]});
        let [graphic, native] = graphic_and_native(dir.path(), &format!("linear-{dpi}"), &request);
        draw_jobs.extend([&graphic, &native].map(|zpl| zpl.draw_job(dpi)));
        let (graphic, native) = (graphic.text, native.text);
        for prefix in ["^BCN,", "^B3N,", "^B2N,"] {
            let expected = barcodes.iter().filter(|(_, c)| *c == Some(prefix)).count();
            assert_eq!(
                native.matches(prefix).count(),
                expected,
                "{prefix} at {dpi}: {native}"
            );
            assert!(!graphic.contains(prefix), "{graphic:.300}");
        }
        assert!(
            !native.contains("^BE") && !native.contains(">5"),
            "{native}"
        );
        assert!(
            native.len() < graphic.len(),
            "{} >= {}",
            native.len(),
            graphic.len()
        );
        cases.push((dpi, request));
    }
    draw(&Value::Array(draw_jobs), dir.path());
    for (dpi, request) in &cases {
        let drawn = |name: &str| {
            dir.path()
                .join(format!("linear-{dpi}-{name}-zebrash-1.png"))
        };
        let checks = json!([
            {"theirs": [drawn("native")], "ours": [drawn("graphic")], "dpi": dpi, "boxes": bar_boxes},
        ]);
        let file = dir.path().join(format!("linear-checks-{dpi}.json"));
        std::fs::write(&file, checks.to_string()).unwrap();
        let report = python_json("zplcheck.py", &[file.as_os_str()], "Pillow, zxing-cpp");
        let entry = &report[0];
        check_barcodes(
            request,
            &entry["decoded"],
            Path::new(&format!("native ZPL at {dpi} dpi")),
        );
        for ((element, _), rows) in barcodes.iter().zip(entry["box_rows"].as_array().unwrap()) {
            let bars = rows["ours"].as_array().unwrap();
            assert!(bars.len() > 20, "{element}: {rows}");
            assert_eq!(
                rows["theirs"], rows["ours"],
                "{element} at {dpi} dpi: the printer's bars (theirs) against the graphic's"
            );
        }
        let agreement = entry["sheets"][0]["agreement"].as_f64().unwrap();
        assert!(agreement >= 0.995, "{dpi} dpi: {agreement}");
    }
}

// ---------------------------------------------------------------- HTTP

/// Two sheets of 50 x 30 mm: a text on each.
fn two_labels() -> Value {
    let page = |text: &str| {
        json!({"width": 50, "height": 30, "elements": [
            {"type": "text", "x": 5, "y": 5, "content": text, "style": {"font_size": 14}}
        ]})
    };
    json!({"pages": [page("ONE"), page("TWO")]})
}

#[tokio::test(flavor = "multi_thread")]
async fn the_route_answers_zpl_by_accept_or_format_charges_it_once_and_refuses_what_it_cannot_make()
{
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(dir.path(), &[]);
    let base = &server.base;
    let (id, token) = new_token(base, 10, None).await;

    // Every name of ZPL, and `format=zpl` whatever Accept says: one label
    // per sheet at 203 dpi (50 mm = 400 dots), one unit each.
    for (query, accept) in [
        ("", Some("application/zpl")),
        ("", Some("application/x-zpl")),
        ("", Some("text/x-zpl")),
        ("?format=zpl", Some("application/pdf")),
        ("?format=ZPL", None),
    ] {
        let r = post(base, &token, query, accept, &two_labels()).await;
        assert_eq!(
            r.status,
            200,
            "{query} {accept:?}: {}",
            String::from_utf8_lossy(&r.bytes)
        );
        assert_eq!(r.header("content-type").as_deref(), Some("application/zpl"));
        assert_eq!(r.header("vary").as_deref(), Some("accept"));
        let zpl = String::from_utf8(r.bytes.clone()).unwrap();
        assert_eq!(label_sizes(&zpl), [(400, 240), (400, 240)], "{zpl:.300}");
    }
    await_balance(base, &id, 5, Duration::from_secs(30)).await;

    // A printer's dpi sizes the labels; one sheet on its own.
    let r = post(
        base,
        &token,
        "?format=zpl&dpi=300&sheet=2",
        None,
        &two_labels(),
    )
    .await;
    assert_eq!(r.status, 200);
    let zpl = String::from_utf8(r.bytes.clone()).unwrap();
    assert_eq!(label_sizes(&zpl), [(591, 354)]);
    await_balance(base, &id, 4, Duration::from_secs(30)).await;

    // Refusals, none charged: an Accept it cannot make at all, a dpi no
    // printer has, a print_dpi no printer has, a sheet past the end.
    let r = post(base, &token, "", Some("text/html"), &two_labels()).await;
    let body = r.assert_error(406, "API-007");
    let message = body["message"].as_str().unwrap();
    for produced in ["application/pdf", "image/png", "application/zpl"] {
        assert!(message.contains(produced), "{message}");
    }
    assert_eq!(r.header("vary").as_deref(), Some("accept"));
    post(base, &token, "?format=zpl&dpi=250", None, &two_labels())
        .await
        .assert_error(400, "API-006");
    let mut odd_printer = two_labels();
    odd_printer["settings"] = json!({"print_dpi": 150});
    let body = post(base, &token, "", Some("application/zpl"), &odd_printer)
        .await
        .assert_error(422, "API-002");
    assert_eq!(body["details"][0]["path"], "settings.print_dpi", "{body}");
    let body = post(base, &token, "?format=zpl&sheet=3", None, &two_labels())
        .await
        .assert_error(422, "API-002");
    assert_eq!(body["details"][0]["path"], "sheet", "{body}");
    // The refusals gave their units back.
    tokio::time::sleep(Duration::from_millis(500)).await;
    await_balance(base, &id, 4, Duration::from_secs(30)).await;

    // Native barcodes through the server's render workers: a QR Code of a
    // document without print_dpi is the printer's own ^BQ, one unit (21
    // modules in 20 mm: 7 dots each at 203 dpi; ZPL magnifies up to 10).
    let qr = json!({"pages": [{"width": 50, "height": 50, "elements": [
        {"type": "barcode", "format": "qr", "content": "NATIVE-1", "x": 5.3, "y": 5.7, "width": 20, "height": 20}
    ]}]});
    let graphic = post(base, &token, "?format=zpl", None, &qr).await;
    let native = post(base, &token, "?format=zpl&barcodes=native", None, &qr).await;
    assert_eq!((graphic.status, native.status), (200, 200));
    let native_zpl = String::from_utf8(native.bytes.clone()).unwrap();
    assert!(
        native_zpl.contains("^BQN,2,") && native_zpl.contains("^FDMA,NATIVE-1^FS"),
        "{native_zpl}"
    );
    assert!(!String::from_utf8_lossy(&graphic.bytes).contains("^BQ"));
    assert!(native.bytes.len() < graphic.bytes.len());
    post(base, &token, "?format=zpl&barcodes=vector", None, &qr)
        .await
        .assert_error(400, "API-006");
    await_balance(base, &id, 2, Duration::from_secs(30)).await;
}

// ---------------------------------------------------------------- print

#[test]
fn print_sends_the_labels_with_their_copies_to_the_printers_raw_port() {
    let dir = tempfile::tempdir().unwrap();
    let request = dir.path().join("labels.json");
    std::fs::write(&request, two_labels().to_string()).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let printer = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut received = Vec::new();
        stream.read_to_end(&mut received).unwrap();
        received
    });
    let out = run(labelpress(dir.path())
        .arg("print")
        .arg(&request)
        .args(["--printer", &format!("127.0.0.1:{port}"), "--copies", "3"])
        .arg("--no-system-fonts"));
    let received = String::from_utf8(printer.join().unwrap()).unwrap();
    // What `render -o X.zpl` writes, with ^PQ3 before each label's end.
    let file = dir.path().join("labels.zpl");
    run(labelpress(dir.path())
        .arg("render")
        .arg(&request)
        .arg("-o")
        .arg(&file)
        .arg("--no-system-fonts"));
    let rendered = std::fs::read_to_string(&file).unwrap();
    assert_eq!(received, rendered.replace("^XZ", "^PQ3\n^XZ"));
    assert_eq!(label_sizes(&received).len(), 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("127.0.0.1:{port}")), "{stderr}");
}

#[test]
fn print_to_a_printer_that_does_not_answer_exits_4_and_an_invalid_request_sends_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let request = dir.path().join("labels.json");
    std::fs::write(&request, two_labels().to_string()).unwrap();
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = labelpress(dir.path())
        .arg("print")
        .arg(&request)
        .args([
            "--printer",
            &format!("127.0.0.1:{closed}"),
            "--timeout",
            "2",
        ])
        .arg("--no-system-fonts")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("the printer at 127.0.0.1:{closed} did not answer")),
        "{stderr}"
    );

    // An invalid request: its API-002 body, exit 1, no connection made.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let invalid = dir.path().join("invalid.json");
    std::fs::write(&invalid, json!({"pages": []}).to_string()).unwrap();
    let out = labelpress(dir.path())
        .arg("print")
        .arg(&invalid)
        .args(["--printer", &format!("127.0.0.1:{port}")])
        .arg("--no-system-fonts")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("API-002"));
    assert!(listener.accept().is_err(), "nothing connected");
}
