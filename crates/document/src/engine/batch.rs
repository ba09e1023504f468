//! Batches (`POST /api/v1/batch`, docs/http-api.md "Batches"): many
//! documents in one request, answered as one file.
//!
//! A batch body is `{"documents": [...]}` (each a DocumentRequest or a
//! template body) or `{"template": {...}, "records": [{...}, ...]}` (one
//! template filled once per record), with `"partial": true` to render the
//! valid documents when some are not.
//!
//! Every document is validated before anything is drawn. By default one
//! invalid document refuses the batch, every violation's path prefixed by
//! its place (`documents[3].pages[0]...`; `records[17]` with the template's
//! path in the message). With `partial`, the valid ones render and the
//! answer is a ZIP archive holding the output and `manifest.json`, which
//! names the documents left out and why.
//!
//! The output: a PDF is one compile of every document's sheets in order
//! (`lower::lower_batch`); ZPL is every document's labels in order; PNG is
//! a ZIP archive of `0001-1.png` (document, sheet), numbered by the
//! documents' places in the batch.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::raster::Raster;
use super::{archive, clock, refused, zpl, Engine, Format, Output, RenderError, Rendered};
use crate::layout::display::Sheet;
use crate::layout::LaidOut;
use crate::lower;
use crate::template::{self, Body};
use crate::validate::{self, RequestError, Violation, MAX_VIOLATIONS};
use crate::warnings::CheckReport;

/// The name of the manifest in a partial batch's archive.
pub const MANIFEST: &str = "manifest.json";

/// What a partial batch rendered and left out (`manifest.json`).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Manifest {
    /// Documents in the batch.
    pub documents: usize,
    /// The places (0-based) of the documents rendered, in order.
    pub rendered: Vec<usize>,
    /// The documents left out, with why.
    pub left_out: Vec<LeftOut>,
}

/// One document a partial batch left out.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct LeftOut {
    /// Its place (0-based) in `documents` or `records`.
    pub index: usize,
    /// Its violations, with paths into the batch body.
    pub violations: Vec<Violation>,
}

/// A batch body, read.
struct Batch {
    /// Each entry's body, with the prefix its findings' paths take.
    entries: Vec<Entry>,
    partial: bool,
    /// `documents` or `records`: where the documents' places are.
    field: &'static str,
}

struct Entry {
    body: Result<Body, RequestError>,
    /// `documents[3]` or `records[3]`.
    place: String,
    /// Records are data: their findings name the template's path in the
    /// message, at the record's path.
    record: bool,
}

impl Batch {
    fn read(value: Value, max: usize) -> Result<Batch, RequestError> {
        let invalid = |path: &str, message: String| RequestError::at(path, message);
        let Value::Object(mut root) = value else {
            return Err(invalid(
                "",
                "a batch is an object: {\"documents\": [...]} or {\"template\": {...}, \"records\": [...]}".into(),
            ));
        };
        let partial = match root.remove("partial") {
            None | Some(Value::Bool(false)) => false,
            Some(Value::Bool(true)) => true,
            Some(_) => return Err(invalid("partial", "expected true or false".into())),
        };
        let documents = root.remove("documents");
        let template = root.remove(template::TEMPLATE_KEY);
        let records = root.remove("records");
        if let Some(key) = root.keys().next() {
            return Err(invalid(
                key,
                format!("unknown field `{key}` of a batch: expected `documents`, or `template` and `records`, and `partial`"),
            ));
        }
        let (items, field) = match (documents, &template, records) {
            (Some(Value::Array(items)), None, None) => (items, "documents"),
            (Some(_), None, None) => {
                return Err(invalid(
                    "documents",
                    "expected an array of documents".into(),
                ))
            }
            (None, Some(_), Some(Value::Array(items))) => (items, "records"),
            (None, Some(_), Some(_)) => {
                return Err(invalid(
                    "records",
                    "expected an array of data objects".into(),
                ))
            }
            (None, Some(_), None) => {
                return Err(invalid(
                    "records",
                    "a batch with a template needs `records`, one data object per document".into(),
                ))
            }
            (None, None, Some(_)) => {
                return Err(invalid(
                    "template",
                    "a batch with `records` needs the `template` they fill".into(),
                ))
            }
            (None, None, None) => {
                return Err(invalid(
                    "",
                    "a batch has `documents`, or `template` and `records`".into(),
                ))
            }
            (Some(_), _, _) => {
                return Err(invalid(
                    "documents",
                    "a batch has `documents` or `template` with `records`, not both".into(),
                ))
            }
        };
        if items.is_empty() || items.len() > max {
            return Err(invalid(
                field,
                format!(
                    "a batch has 1 to {max} documents (limits.batch_documents); this one has {}",
                    items.len()
                ),
            ));
        }
        let template = template.map(|t| {
            let mut body = Map::new();
            body.insert(template::TEMPLATE_KEY.into(), t);
            body
        });
        let entries = items
            .into_iter()
            .enumerate()
            .map(|(i, item)| {
                let place = format!("{field}[{i}]");
                match &template {
                    None => Entry {
                        body: Body::classify(item),
                        place,
                        record: false,
                    },
                    Some(template) => {
                        let mut body = template.clone();
                        body.insert(template::DATA_KEY.into(), item);
                        Entry {
                            body: Body::classify(Value::Object(body)),
                            place,
                            record: true,
                        }
                    }
                }
            })
            .collect();
        Ok(Batch {
            entries,
            partial,
            field,
        })
    }
}

/// `error`'s violations at the place of a batch's document: under
/// `documents[3]`, or at `records[3]` with the template's path in the
/// message (a record is data: the path it breaks is the template's).
fn placed(place: &str, record: bool, error: RequestError) -> Vec<Violation> {
    let violations = match error {
        RequestError::Invalid(violations) => violations,
        json => vec![Violation::at("", json.to_string())],
    };
    violations
        .into_iter()
        .map(|v| match record && !v.path.is_empty() {
            true => Violation::at(place, format!("{}: {}", v.path, v.message)),
            false => v.under(place),
        })
        .collect()
}

/// A batch whose documents were all validated: the valid ones (with their
/// places) and, for a partial batch, the ones left out.
pub struct ValidBatch {
    documents: Vec<(usize, LaidOut)>,
    left_out: Vec<LeftOut>,
    /// Documents in the batch body.
    count: usize,
    partial: bool,
    /// `documents` or `records`.
    field: &'static str,
}

impl ValidBatch {
    /// The batch's check: its sheets, and every valid document's warnings
    /// with paths under its place (`documents[3].pages[0]...`).
    fn report(&self) -> CheckReport {
        let mut report = CheckReport {
            valid: true,
            sheets: 0,
            warnings: 0,
            details: Vec::new(),
        };
        for (index, laid) in &self.documents {
            let one = CheckReport::valid(laid, crate::warnings::check(laid))
                .under(&format!("{}[{index}]", self.field));
            report.sheets += one.sheets;
            report.warnings += one.warnings;
            report.details.extend(one.details);
        }
        report
    }
}

impl Engine {
    /// A batch body rendered as `output` asks (its `sheet` must be unset):
    /// one PDF, one ZPL stream or a ZIP archive of PNGs; with `partial`, a
    /// ZIP archive of that output and [`MANIFEST`]. `Rendered::documents`
    /// counts the documents rendered.
    pub fn render_batch(&self, body: &[u8], output: &Output) -> Result<Rendered, RenderError> {
        let batch = self.validate_batch(body, output)?;
        self.render_valid_batch(batch, output)
    }

    /// Reads a batch body and validates every document as `output` needs
    /// it: refused (API-001/002) as [`Engine::render_batch`] would, before
    /// anything is drawn.
    pub fn validate_batch(&self, body: &[u8], output: &Output) -> Result<ValidBatch, RequestError> {
        let limits = &self.config.limits;
        let batch = Batch::read(validate::parse_json(body)?, limits.batch_documents)?;
        let count = batch.entries.len();
        let mut valid: Vec<(usize, LaidOut)> = Vec::with_capacity(count);
        let mut left_out = Vec::new();
        let mut violations = Vec::new();
        for (
            index,
            Entry {
                body,
                place,
                record,
            },
        ) in batch.entries.into_iter().enumerate()
        {
            let laid = body
                .and_then(|body| self.validate_body_for(body, output))
                .map_err(|e| placed(&place, record, e));
            match laid {
                Ok(laid) => valid.push((index, laid)),
                Err(found) => {
                    if violations.len() < MAX_VIOLATIONS {
                        violations.extend(
                            found
                                .iter()
                                .take(MAX_VIOLATIONS - violations.len())
                                .cloned(),
                        );
                    }
                    left_out.push(LeftOut {
                        index,
                        violations: found,
                    });
                }
            }
            // Without `partial`, one invalid document already refuses the
            // batch; the rest are still read for their findings, up to
            // the most one answer lists.
            if !batch.partial && violations.len() >= MAX_VIOLATIONS {
                break;
            }
        }
        if (!batch.partial && !violations.is_empty()) || valid.is_empty() {
            return Err(RequestError::Invalid(violations));
        }
        let sheets: usize = valid.iter().map(|(_, laid)| laid.sheet_count()).sum();
        if sheets > limits.sheets {
            return Err(RequestError::at(
                "",
                format!(
                    "the batch's documents have {sheets} sheets together, more than limits.sheets ({}); send it as several batches",
                    limits.sheets
                ),
            ));
        }
        Ok(ValidBatch {
            documents: valid,
            left_out,
            count,
            partial: batch.partial,
            field: batch.field,
        })
    }

    /// What [`Engine::validate_batch`] finds, as a check report: the
    /// refusal, or the valid documents' sheets and warnings (a partial
    /// batch's left-out documents are not in it).
    pub fn check_batch(&self, body: &[u8], output: &Output) -> CheckReport {
        match self.validate_batch(body, output) {
            Ok(batch) => batch.report(),
            Err(e) => CheckReport::refused(&e),
        }
    }

    fn render_valid_batch(
        &self,
        batch: ValidBatch,
        output: &Output,
    ) -> Result<Rendered, RenderError> {
        let valid = batch.documents;
        let sheets: usize = valid.iter().map(|(_, laid)| laid.sheet_count()).sum();
        // Each document's display list, built once for its output and its
        // warnings.
        let placed: Vec<Vec<Sheet>> = valid.iter().map(|(_, laid)| laid.display_list()).collect();
        let produced = self.render_documents(&valid, &placed, output)?;
        let (bytes, format) = match (produced, batch.partial) {
            (Produced::One(bytes, format), false) => (bytes, format),
            (Produced::Files(files), false) => (archive::zip(&files), Format::Zip),
            (produced, true) => {
                let mut files = match produced {
                    Produced::One(bytes, format) => {
                        vec![(format!("batch.{}", format.extension()), bytes)]
                    }
                    Produced::Files(files) => files,
                };
                let manifest = Manifest {
                    documents: batch.count,
                    rendered: valid.iter().map(|(index, _)| *index).collect(),
                    left_out: batch.left_out,
                };
                files.push((
                    MANIFEST.to_string(),
                    serde_json::to_vec_pretty(&manifest).unwrap_or_default(),
                ));
                (archive::zip(&files), Format::Zip)
            }
        };
        Ok(Rendered {
            bytes,
            format,
            sheets,
            delivered_sheets: sheets,
            documents: valid.len(),
            file_name: None,
            warnings: valid
                .iter()
                .zip(&placed)
                .map(|((_, laid), placed)| crate::warnings::check_placed(laid, placed).len())
                .sum(),
        })
    }

    /// The valid documents of a batch (with their places) as one output;
    /// `placed` holds their display lists, in the same order.
    fn render_documents(
        &self,
        docs: &[(usize, LaidOut)],
        placed: &[Vec<Sheet>],
        output: &Output,
    ) -> Result<Produced, RenderError> {
        let now = clock();
        Ok(match output {
            Output::Pdf => {
                let first = &docs[0].1.document;
                for (index, laid) in docs {
                    // Compared as parsed: `PDFA-2B` is `pdfa-2b`.
                    if laid.document.settings.profile != first.settings.profile {
                        return Err(refused(Violation {
                            path: format!("documents[{index}].settings.profile"),
                            message: "the documents of a batch PDF share one PDF profile: the first document's".into(),
                        }));
                    }
                }
                let all: Vec<(&LaidOut, &[Sheet])> = docs
                    .iter()
                    .zip(placed)
                    .map(|((_, laid), sheets)| (laid, sheets.as_slice()))
                    .collect();
                let lowered = lower::lower_batch(&all, &self.config, self.fonts.as_ref());
                let pdf = self.compile(lowered, &super::Export::of(first), now)?;
                Produced::One(pdf, Format::Pdf)
            }
            Output::Zpl(options) => {
                let options = zpl::ZplOptions {
                    sheet: None,
                    ..*options
                };
                let mut out = Vec::new();
                for ((_, laid), placed) in docs.iter().zip(placed) {
                    out.extend(self.render_zpl_at(laid, placed, &options, now)?.bytes);
                    if out.len() as u64 > self.config.limits.zpl_bytes {
                        return Err(refused(Violation {
                            path: "dpi".into(),
                            message: format!(
                                "the batch's ZPL is more than limits.zpl_bytes ({}); ask for a lower dpi or send smaller batches",
                                self.config.limits.zpl_bytes
                            ),
                        }));
                    }
                }
                Produced::One(out, Format::Zpl)
            }
            Output::Png(options) => {
                let mut entries = Vec::new();
                for ((index, laid), placed) in docs.iter().zip(placed) {
                    let raster =
                        Raster::resolve(options.dpi, options.mono, &laid.document, &self.config)
                            .map_err(refused)?;
                    let (pngs, _) = self.render_png_at(laid, placed, &raster, None, now)?;
                    entries.extend(pngs.into_iter().enumerate().map(|(sheet, png)| {
                        (archive::sheet_name(index + 1, sheet + 1, "png"), png)
                    }));
                }
                Produced::Files(entries)
            }
        })
    }
}

/// A batch body's documents one by one, each as the body of a single
/// render (`POST /api/v1/label`): the document or template body as sent,
/// or the batch's template with one record as its `data`. For a server that
/// renders the documents of a batch apart. Read without validating: the
/// engine validates the batch ([`Engine::validate_batch`]) before any of
/// these bodies renders. Holds the documents' JSON text as sent, so its
/// memory is about the body's.
pub struct BatchDocuments {
    /// The documents, or the records.
    documents: Vec<Box<RawValue>>,
    /// Set when `documents` are records.
    template: Option<Box<RawValue>>,
    partial: bool,
}

impl BatchDocuments {
    /// The documents of `body`, or `None` when it is no batch, or one the
    /// engine refuses for its shape (see `Batch::read`).
    pub fn read(body: &[u8]) -> Option<BatchDocuments> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Sent {
            documents: Option<Vec<Box<RawValue>>>,
            template: Option<Box<RawValue>>,
            records: Option<Vec<Box<RawValue>>>,
            #[serde(default)]
            partial: bool,
        }
        let sent: Sent = serde_json::from_slice(body).ok()?;
        let (documents, template) = match (sent.documents, sent.template, sent.records) {
            (Some(documents), None, None) => (documents, None),
            (None, Some(template), Some(records)) => (records, Some(template)),
            _ => return None,
        };
        Some(BatchDocuments {
            documents,
            template,
            partial: sent.partial,
        })
    }

    pub fn len(&self) -> usize {
        self.documents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }

    /// Whether the batch asks for `partial`.
    pub fn partial(&self) -> bool {
        self.partial
    }

    /// The body of document `index` (0-based), made when it is asked for,
    /// so that a template is not copied for every record at once.
    pub fn body(&self, index: usize) -> Vec<u8> {
        let item = self.documents[index].get();
        match &self.template {
            None => item.as_bytes().to_vec(),
            Some(template) => format!(
                "{{\"{}\":{},\"{}\":{}}}",
                template::TEMPLATE_KEY,
                template.get(),
                template::DATA_KEY,
                item
            )
            .into_bytes(),
        }
    }
}

/// A batch's output before it is answered: one file, or several (PNGs).
enum Produced {
    One(Vec<u8>, Format),
    Files(Vec<(String, Vec<u8>)>),
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(body: Value) -> Option<BatchDocuments> {
        BatchDocuments::read(&serde_json::to_vec(&body).unwrap())
    }

    fn bodies(documents: &BatchDocuments) -> Vec<Value> {
        (0..documents.len())
            .map(|i| serde_json::from_slice(&documents.body(i)).unwrap())
            .collect()
    }

    #[test]
    fn a_batch_of_documents_gives_each_document_as_sent() {
        let one = json!({"pages": [{"size": "a6", "elements": []}]});
        let two = json!({"template": {"pages": []}, "data": {"a": "{{b}}"}});
        let documents = read(json!({"documents": [one, two]})).unwrap();
        assert!(!documents.partial());
        assert_eq!(bodies(&documents), [one, two]);
        // The text as sent, escapes and all.
        let sent = br#"{"documents": [{"pages": [], "x": "\u0041\n1.50"}], "partial": true}"#;
        let documents = BatchDocuments::read(sent).unwrap();
        assert!(documents.partial());
        assert_eq!(documents.body(0), br#"{"pages": [], "x": "\u0041\n1.50"}"#);
    }

    #[test]
    fn a_template_with_records_gives_the_template_filled_with_each_record() {
        let template = json!({"pages": [{"size": "a6", "elements": [
            {"type": "text", "x": 1, "y": 1, "content": "{{name}}"}]}]});
        let records = [json!({"name": "Ada"}), json!({"name": "\"}, {"})];
        let documents = read(json!({"template": template, "records": records})).unwrap();
        let expected: Vec<Value> = records
            .iter()
            .map(|r| json!({ template::TEMPLATE_KEY: template, template::DATA_KEY: r }))
            .collect();
        assert_eq!(bodies(&documents), expected);
    }

    #[test]
    fn a_body_of_another_shape_is_no_batch_to_split() {
        for body in [
            json!([]),
            json!({"documents": {}}),
            json!({"records": [{}]}),
            json!({"template": {}, "documents": [{}]}),
            json!({"documents": [{}], "records": [{}]}),
            json!({"documents": [{}], "extra": 1}),
            json!({"documents": [{}], "partial": "yes"}),
        ] {
            assert!(read(body.clone()).is_none(), "{body}");
        }
    }
}
