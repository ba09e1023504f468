//! Test helpers: render through the library, read the PDF back with PyMuPDF
//! (an independent reader, tests/support/pdfread.py), and assert in mm.

use std::path::PathBuf;
use std::process::Command;
use std::sync::LazyLock;

use labelpress::engine::fonts::FontOptions;
use labelpress::validate::{RequestError, ResourceDir, Violation};
use labelpress::Engine;
use serde_json::Value;

pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixtures() -> PathBuf {
    manifest_dir().join("tests/fixtures")
}

/// One engine for the whole suite: embedded fonts only, so results do not
/// depend on the machine's fonts; resources from tests/fixtures.
pub static ENGINE: LazyLock<Engine> = LazyLock::new(|| {
    let resources = ResourceDir::new(&fixtures()).expect("tests/fixtures exists");
    Engine::new(Default::default(), &FontOptions::EMBEDDED, Some(resources))
});

/// An engine with the system's fonts (the Noto families `.ci/run` installs):
/// for the scripts DejaVu Sans lacks.
pub static SYSTEM_FONTS_ENGINE: LazyLock<Engine> =
    LazyLock::new(|| Engine::new(Default::default(), &FontOptions::SYSTEM, None));

/// A PDF as PyMuPDF reads it.
pub struct Pdf {
    pub json: Value,
    pub bytes: Vec<u8>,
}

pub fn render(request: Value) -> Pdf {
    let bytes = render_bytes(request);
    read_pdf(bytes)
}

pub fn render_bytes(request: Value) -> Vec<u8> {
    let body = serde_json::to_vec(&request).unwrap();
    match ENGINE.render_bytes(&body) {
        Ok(r) => r.bytes,
        Err(e) => panic!("render failed: {e}\nrequest: {request}"),
    }
}

pub fn read_pdf(bytes: Vec<u8>) -> Pdf {
    Pdf {
        json: pdf_script("pdfread.py", "PyMuPDF", &bytes),
        bytes,
    }
}

/// pdfcheck.py's JSON for a PDF file.
pub fn pdfcheck(pdf: &[u8]) -> Value {
    pdf_script("pdfcheck.py", "pikepdf", pdf)
}

/// The JSON that `tests/support/{script}` prints for `pdf` (written to a
/// temporary file); `reader` is the Python package it needs.
fn pdf_script(script: &str, reader: &str, pdf: &[u8]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.pdf");
    std::fs::write(&path, pdf).unwrap();
    python_json(script, &[path.as_os_str()], reader)
}

/// The JSON that the Python script `tests/support/{script}` prints for
/// `args`; `reader` names the packages it needs, for the failure message.
pub fn python_json(script: &str, args: &[&std::ffi::OsStr], reader: &str) -> Value {
    let out = Command::new("python3")
        .arg(manifest_dir().join("tests/support").join(script))
        .args(args)
        .output()
        .expect("python3 must be installed (see .ci/run)");
    assert!(
        out.status.success(),
        "{script} failed (is {reader} installed? `pip install -r tests/support/requirements.txt`):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The violations of an invalid request.
pub fn violations(request: Value) -> Vec<Violation> {
    let body = serde_json::to_vec(&request).unwrap();
    match ENGINE.validate(&body) {
        Ok(_) => panic!("expected the request to be invalid: {request}"),
        Err(RequestError::Invalid(v)) => v,
        Err(e) => panic!("expected violations, got {e}"),
    }
}

/// Asserts that a violation at exactly `path` exists and its message contains `text`.
#[track_caller]
pub fn assert_violation(request: Value, path: &str, text: &str) {
    let found = violations(request);
    assert!(
        found
            .iter()
            .any(|v| v.path == path && v.message.contains(text)),
        "no violation at `{path}` containing `{text}`; got {found:#?}"
    );
}

#[track_caller]
pub fn approx(actual: f64, expected: f64, tolerance: f64, what: &str) {
    assert!(
        (actual - expected).abs() <= tolerance,
        "{what}: {actual} is not within {tolerance} of {expected}"
    );
}

impl Pdf {
    pub fn page_count(&self) -> usize {
        self.json["page_count"].as_u64().unwrap() as usize
    }

    pub fn page(&self, i: usize) -> &Value {
        &self.json["pages"][i]
    }

    pub fn spans(&self, page: usize) -> Vec<&Value> {
        self.page(page)["spans"]
            .as_array()
            .unwrap()
            .iter()
            .collect()
    }

    /// All text of a page joined in reading order.
    pub fn text(&self, page: usize) -> String {
        self.spans(page)
            .iter()
            .map(|s| s["text"].as_str().unwrap())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The first span containing `text`.
    #[track_caller]
    pub fn span(&self, page: usize, text: &str) -> &Value {
        let spans = self.spans(page);
        spans
            .iter()
            .find(|s| s["text"].as_str().unwrap().contains(text))
            .copied()
            .unwrap_or_else(|| {
                panic!(
                    "no span containing {text:?} on page {page}; spans: {:?}",
                    spans.iter().map(|s| &s["text"]).collect::<Vec<_>>()
                )
            })
    }

    pub fn drawings(&self, page: usize) -> Vec<&Value> {
        self.page(page)["drawings"]
            .as_array()
            .unwrap()
            .iter()
            .collect()
    }

    pub fn links(&self, page: usize) -> Vec<&Value> {
        self.page(page)["links"]
            .as_array()
            .unwrap()
            .iter()
            .collect()
    }

    /// Every drawn glyph of a page: `{char, gid, font}`.
    pub fn glyphs(&self, page: usize) -> Vec<&Value> {
        self.page(page)["glyphs"]
            .as_array()
            .unwrap()
            .iter()
            .collect()
    }

    pub fn images(&self, page: usize) -> Vec<&Value> {
        self.page(page)["images"]
            .as_array()
            .unwrap()
            .iter()
            .collect()
    }

    pub fn meta(&self, key: &str) -> &str {
        self.json["metadata"][key].as_str().unwrap_or("")
    }

    pub fn xmp(&self) -> &str {
        self.json["xmp"].as_str().unwrap_or("")
    }
}

pub fn f(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
}

/// A one-page request with these elements on a page of `w` x `h` mm.
pub fn page_with(w: f64, h: f64, elements: Value) -> Value {
    serde_json::json!({"pages": [{"width": w, "height": h, "elements": elements}]})
}

/// Copies the directory `from` into `to`, recursively.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}

/// Whether `needle` occurs in `haystack` (bytes: a PDF, a store's files).
pub fn contains_bytes(haystack: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(haystack, needle).is_some()
}
