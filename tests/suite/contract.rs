//! The property-based contract run: Schemathesis (tests/support/
//! requirements.txt) reads `/openapi.json` from a running `serve` and sends
//! what the document allows, and what it does not, to every operation. It
//! checks that no answer is a 5xx and that every status, content type,
//! header and body is documented; and that schema-valid requests are
//! accepted (positive data acceptance) except where a rule JSON Schema and
//! OpenAPI cannot say refuses some of them:
//!
//! - `POST /api/v1/label` (renderLabel) validates the document beyond its
//!   schema: text boxes are measured (a text wider than any sheet, a font
//!   family the node lacks, a glyph no font has), a table's cells must stay
//!   inside its columns and spans must not overlap, `keep_spans_together`
//!   must stay true with row spans, an element must lie inside the content
//!   box when a margin is set, a link target's page must exist, a header
//!   must be lower than the page, a stack block must fit a sheet, an image's
//!   data must decode, a barcode's content must encode in its box, and a
//!   PNG sheet must exist and stay under `limits.png_pixels`; a template's
//!   placeholders must name values of its data, and the filled document
//!   obeys all of the above.
//! - `POST /api/v1/batch` (renderBatch): every document as on renderLabel.
//! - `PUT /api/v1/templates/{name}` (putTemplate): the template is checked
//!   as renderLabel's document is (with any text in its placeholders).
//! - `GET /barcode/{symbology}/{content}` (barcodeSvg): what the content and
//!   the parameters may be depends on the value of `symbology`, which OpenAPI
//!   cannot tie them to; each symbology's own operation
//!   (`/barcode/code128/{content}`, ...) says it and is checked.
//! - Of those, PDF417, Aztec and MaxiCode: their parameters limit each other
//!   (`cols` x `rows` must hold the `ecl` codewords; `layers` must hold the
//!   `ecl` share; MaxiCode modes 2 and 3 need `postcode`, `country` and
//!   `service`).
//! - `/barcode/{symbology}/` and `/barcode/{symbology}` always answer 400:
//!   the content is missing.
//! - `GET /admin/api/usage` (tokenUsage): exactly one of `token` and
//!   `account`, and a range of at most `MAX_BUCKETS` buckets.
//!
//! The budget is bounded: a fixed number of examples per operation, a fixed
//! seed (the same cases every run) and a hard timeout.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::server::{self, ADMIN};
use crate::support::manifest_dir;

/// Operations whose schema-valid requests may be refused (see above).
const NO_POSITIVE_ACCEPTANCE: &[&str] = &[
    "renderLabel",
    "renderBatch",
    "putTemplate",
    "barcodeSvg",
    "barcodePdf417",
    "barcodeAztec",
    "barcodeMaxicode",
    "barcodeEmptyContent",
    "barcodeNoContent",
    "tokenUsage",
];

const CHECKS: &str = "not_a_server_error,status_code_conformance,content_type_conformance,\
response_headers_conformance,response_schema_conformance";

/// The whole run's limit; it takes about a minute on two cores.
const TIMEOUT: Duration = Duration::from_secs(300);

fn schemathesis_available() -> bool {
    Command::new("python3")
        .args(["-c", "import schemathesis"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_server_keeps_its_contract_under_property_based_testing() {
    if !schemathesis_available() {
        eprintln!(
            "SKIPPED the_server_keeps_its_contract_under_property_based_testing: \
             schemathesis is not importable (pip install -r tests/support/requirements.txt)"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let node = server::start(&dir.path().join("data"), &[]);
    // A token of an account the generated data will not ban (admin routes
    // run in the same pass), with units for every render and deduction.
    let created = server::admin(
        &node.base,
        reqwest::Method::POST,
        "/tokens",
        Some(json!({"account": "contract-run-account-27", "balance": 1_000_000_000u64, "expires_at": null})),
    )
    .await;
    let token = created["token"].as_str().unwrap();

    let config = format!(
        "[auth.openapi.token]\nbearer = \"{token}\"\n\n[auth.openapi.adminToken]\nbearer = \"{ADMIN}\"\n"
    );
    let config_path = dir.path().join("schemathesis.toml");
    std::fs::write(&config_path, config).unwrap();

    // Two passes: the operations that must accept every schema-valid
    // request, with that check; the others without it.
    let deadline = Instant::now() + TIMEOUT;
    let mut accepted = vec![
        "--checks".to_string(),
        format!("{CHECKS},positive_data_acceptance"),
    ];
    let mut others = vec!["--checks".to_string(), CHECKS.to_string()];
    for id in NO_POSITIVE_ACCEPTANCE {
        accepted.extend(["--exclude-operation-id".to_string(), id.to_string()]);
        others.extend(["--include-operation-id".to_string(), id.to_string()]);
    }
    let mut tested = 0;
    for filters in [accepted, others] {
        let out = schemathesis(dir.path(), &config_path, &node.base, &filters, deadline);
        tested += selected(&out);
    }
    // It ran every operation of the document (a run that tested nothing passes nothing).
    let document = labelpress::http::openapi::document();
    let operations: usize = document["paths"]
        .as_object()
        .unwrap()
        .values()
        .map(|item| item.as_object().unwrap().len())
        .sum();
    assert!(operations > 40, "{operations} operations");
    // Every operation but `GET /openapi.json`: Schemathesis leaves out the
    // operation that serves the document it was given by URL.
    assert_eq!(
        tested,
        operations - 1,
        "operations selected by the two passes"
    );
}

/// Runs Schemathesis with `args` against the node at `base`, asserting that
/// it passed before `deadline`; its report.
fn schemathesis(
    dir: &std::path::Path,
    config: &std::path::Path,
    base: &str,
    args: &[String],
    deadline: Instant,
) -> String {
    let mut child = Command::new("python3")
        .args(["-m", "schemathesis.cli", "--config-file"])
        .arg(config)
        .arg("--no-color")
        .arg("run")
        .arg(format!("{base}/openapi.json"))
        .args(["--url", base])
        .args(args)
        .args(["--max-examples", "15", "--seed", "27", "--workers", "2"])
        .args(["--phases", "examples,fuzzing"])
        .args(["--generation-database", "none", "--request-timeout", "30"])
        .args(["--suppress-health-check", "all"])
        .env(
            "SCHEMATHESIS_HOOKS",
            manifest_dir().join("tests/support/contract_hooks.py"),
        )
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read the output while the run goes on, so a full pipe cannot stall it.
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        let _ = stdout.read_to_string(&mut out);
        out
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let mut stderr = String::new();
    let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
    let out = reader.join().unwrap();
    let status = status.unwrap_or_else(|| {
        panic!("the contract run took longer than {TIMEOUT:?}:\n{out}\n{stderr}")
    });
    assert!(
        status.success(),
        "the contract run found failures ({status}):\n{}\n--- stderr (tail) ---\n{}",
        failures(&out),
        tail(&stderr, 4_000)
    );
    out
}

/// The failures section of a report (from its FAILURES banner on), cut to
/// a length a CI log shows whole: a long report is truncated in the middle,
/// which is where the failing case used to be.
fn failures(report: &str) -> &str {
    let start = report
        .find("FAILURES")
        .map_or(0, |i| report[..i].rfind('\n').map_or(0, |line| line + 1));
    let section = &report[start..];
    &section[..floor_char_boundary(section, 12_000)]
}

/// The last `max` bytes of `text` (at a character boundary).
fn tail(text: &str, max: usize) -> &str {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

fn floor_char_boundary(text: &str, max: usize) -> usize {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// The operations a report says were selected ("Selected: 35/43").
fn selected(report: &str) -> usize {
    report
        .lines()
        .find_map(|l| l.trim().strip_prefix("Selected: "))
        .and_then(|n| n.split('/').next()?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no count of tested operations in:\n{report}"))
}
