//! Validation warnings: what a valid document prints that is probably not
//! what its author meant. A warning never refuses a document and never
//! changes its PDF; `labelpress check` prints the warnings, the render route
//! counts them in `X-Labelpress-Warnings`, and `POST /api/v1/label/check`
//! lists them (docs/document-request.md, "Warnings").
//!
//! [`check`] reads a validated, laid-out document ([`LaidOut`]) and decides
//! nothing anew: the boxes validation measured (`layout::geometry::element_bounds`),
//! the lines it fitted (`FittedText`), the modules it fitted barcodes with
//! (`barcode::fit::Fitted`) and the sheets the flow put tables and stack
//! blocks on. It runs for every render (the header counts the warnings), so
//! it costs a few microseconds on a label and, since it stops at
//! [`MAX_WARNINGS`] and bounds the overlap test, stays linear in the
//! document's elements and table cells (benches/README.md).
//!
//! Covered: every element of the pages, of the header and footer (on each
//! page's sheet size) and of stack blocks (on the sheet the flow put them);
//! tables for the sheet edge (their width) and their cells for cut text;
//! barcodes' human-readable text for cut text.

mod barcode;
mod overlap;
mod sheet;
mod text;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ir::{Element, Page};
use crate::layout::display::Sheet;
use crate::layout::geometry::{Frame, Zone};
use crate::layout::{LaidOut, PieceKind, Sheets, TableLayout};
use crate::validate::RequestError;

/// The printer resolution the barcode warnings assume when
/// `settings.print_dpi` is not set: 203 dpi (8 dots per mm) is the common
/// resolution of thermal label printers, the coarsest a label is usually
/// printed at. Only the warnings use it: without `print_dpi`, nothing snaps.
pub const DEFAULT_PRINT_DPI: f64 = 203.0;

/// Most warnings reported for one document (as violations: `MAX_VIOLATIONS`);
/// checking stops there.
pub const MAX_WARNINGS: usize = 100;

/// What a warning is about. The codes are stable: clients may match on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum Code {
    /// An element lies entirely outside its sheet: nothing of it prints.
    #[serde(rename = "LP-W01")]
    OffSheet,
    /// An element reaches past a sheet edge: the part outside is cut.
    #[serde(rename = "LP-W02")]
    CutBySheetEdge,
    /// A barcode's modules (or bars) are narrower than one printer dot.
    #[serde(rename = "LP-W03")]
    ModuleBelowDot,
    /// A 1-D symbol's bars are shorter than a hand scanner needs.
    #[serde(rename = "LP-W04")]
    BarsTooShort,
    /// `text_overflow` `clip` or `ellipsis` cuts the text.
    #[serde(rename = "LP-W05")]
    TextCut,
    /// `shrink_to_fit` reached `min_font_size` and the text still does not fit.
    #[serde(rename = "LP-W06")]
    ShrunkAndStillTooLarge,
    /// Two text elements print over each other.
    #[serde(rename = "LP-W07")]
    TextOverlap,
    /// A plain document holds a `{{placeholder}}`: it prints as written,
    /// probably a template sent without `template` and `data`.
    #[serde(rename = "LP-W08")]
    UnfilledPlaceholder,
}

impl Code {
    pub const ALL: [Code; 8] = [
        Code::OffSheet,
        Code::CutBySheetEdge,
        Code::ModuleBelowDot,
        Code::BarsTooShort,
        Code::TextCut,
        Code::ShrunkAndStillTooLarge,
        Code::TextOverlap,
        Code::UnfilledPlaceholder,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Code::OffSheet => "LP-W01",
            Code::CutBySheetEdge => "LP-W02",
            Code::ModuleBelowDot => "LP-W03",
            Code::BarsTooShort => "LP-W04",
            Code::TextCut => "LP-W05",
            Code::ShrunkAndStillTooLarge => "LP-W06",
            Code::TextOverlap => "LP-W07",
            Code::UnfilledPlaceholder => "LP-W08",
        }
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One doubtful thing in a valid document, with the JSON path of the
/// element (or table cell) it is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Warning {
    /// Where, as in violations: `pages[0].elements[3]`.
    pub path: String,
    pub code: Code,
    pub message: String,
}

/// The warnings of a validated document, in document order (pages, then
/// header and footer; overlaps last), at most [`MAX_WARNINGS`].
pub fn check(laid: &LaidOut) -> Vec<Warning> {
    check_placed(laid, &laid.display_list())
}

/// As [`check`], reading `placed`, the document's display list, which a
/// render builds once for its lowering and its warnings.
pub fn check_placed(laid: &LaidOut, placed: &[Sheet]) -> Vec<Warning> {
    let mut w = Collector {
        dpi: laid
            .document
            .settings
            .print_dpi
            .unwrap_or(DEFAULT_PRINT_DPI),
        dpi_given: laid.document.settings.print_dpi.is_some(),
        placeholders: !laid.document.from_template,
        out: Vec::new(),
    };
    let doc = &laid.document;
    for (i, (page, sheets)) in doc.pages.iter().zip(&laid.sheets).enumerate() {
        if w.full() {
            break;
        }
        w.page(i, page, sheets);
    }
    for (name, section, zone) in [
        ("header", &doc.header, Zone::Header),
        ("footer", &doc.footer, Zone::Footer),
    ] {
        if let Some(section) = section {
            w.section(name, section, zone, &doc.pages);
        }
    }
    if !w.full() {
        overlap::check(laid, placed, &mut w);
    }
    w.out
}

/// The answer of `POST /api/v1/label/check`: whether the document renders,
/// on how many sheets, and its warnings, or every violation when it is
/// invalid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckReport {
    /// True when the document renders (it may still have warnings).
    pub valid: bool,
    /// Sheets the document prints on (its pages and their continuation sheets); 0 when invalid.
    pub sheets: usize,
    /// How many warnings `details` lists (at most 100); 0 when invalid. The render route's `X-Labelpress-Warnings` says the same.
    pub warnings: usize,
    /// A valid document's warnings (`LP-W01`...), or an invalid one's violations (`API-001`, or `API-002` for each, up to 100).
    pub details: Vec<Finding>,
}

/// A warning, or a violation of an invalid document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Finding {
    /// JSON path of the value or element at fault (`pages[0].elements[3]`); empty for the whole body.
    pub path: String,
    /// `LP-W01` to `LP-W08` for a warning, `API-001` (not JSON) or `API-002` (a violation).
    #[schemars(schema_with = "finding_code")]
    pub code: String,
    pub message: String,
}

fn finding_code(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    let mut codes: Vec<serde_json::Value> = Code::ALL.iter().map(|c| c.as_str().into()).collect();
    codes.extend(["API-001".into(), "API-002".into()]);
    serde_json::from_value(serde_json::json!({"type": "string", "enum": codes}))
        .expect("a valid schema")
}

impl CheckReport {
    /// The report of a validation's outcome (warnings checked here).
    pub fn of(outcome: &Result<LaidOut, RequestError>) -> CheckReport {
        match outcome {
            Ok(laid) => CheckReport::valid(laid, check(laid)),
            Err(e) => CheckReport::refused(e),
        }
    }

    /// The report of a body refused: its API-001, or every violation.
    pub fn refused(error: &RequestError) -> CheckReport {
        match error {
            RequestError::Json { .. } => CheckReport::invalid(vec![Finding {
                path: String::new(),
                code: "API-001".into(),
                message: error.to_string(),
            }]),
            RequestError::Invalid(violations) => CheckReport::invalid(
                violations
                    .iter()
                    .map(|v| Finding {
                        path: v.path.clone(),
                        code: "API-002".into(),
                        message: v.message.clone(),
                    })
                    .collect(),
            ),
        }
    }

    pub fn valid(laid: &LaidOut, warnings: Vec<Warning>) -> CheckReport {
        CheckReport {
            valid: true,
            sheets: laid.sheet_count(),
            warnings: warnings.len(),
            details: warnings
                .into_iter()
                .map(|w| Finding {
                    path: w.path,
                    code: w.code.as_str().into(),
                    message: w.message,
                })
                .collect(),
        }
    }

    /// This report of a document that sits at `place` in a larger body (a
    /// batch's `documents[3]`): its findings' paths from that body's root.
    pub fn under(mut self, place: &str) -> CheckReport {
        for finding in &mut self.details {
            finding.path = crate::validate::path_under(place, &finding.path);
        }
        self
    }

    fn invalid(details: Vec<Finding>) -> CheckReport {
        CheckReport {
            valid: false,
            sheets: 0,
            warnings: 0,
            details,
        }
    }
}

/// An element's path, formatted only when it warns.
pub(crate) type Path<'a> = &'a dyn Fn() -> String;

/// The warnings found so far and what every check needs.
pub(crate) struct Collector {
    /// Printer resolution the barcode checks assume.
    dpi: f64,
    /// Whether `dpi` is the document's `settings.print_dpi`.
    dpi_given: bool,
    /// Whether a `{{placeholder}}` is worth a warning (LP-W08): not in a
    /// document filled from a template.
    placeholders: bool,
    out: Vec<Warning>,
}

impl Collector {
    fn full(&self) -> bool {
        self.out.len() >= MAX_WARNINGS
    }

    fn push(&mut self, path: String, code: Code, message: String) {
        if !self.full() {
            self.out.push(Warning {
                path,
                code,
                message,
            });
        }
    }

    /// A page's elements on its first sheet, its tables, and its stacks'
    /// blocks on the sheets the flow put them.
    fn page(&mut self, i: usize, page: &Page, sheets: &Sheets) {
        let frame = Frame::body(page);
        let size = (page.width, page.height);
        for (j, element) in page.elements.iter().enumerate() {
            if self.full() {
                return;
            }
            let path = || format!("pages[{i}].elements[{j}]");
            match element {
                Element::Table(t) => {
                    if let Some(laid) = table_layout(sheets, j) {
                        self.table(&path(), &t.spec, laid, size);
                    }
                }
                Element::Stack(stack) => {
                    let tpath = format!("{}.children[0]", path());
                    if let Some(laid) = table_layout(sheets, j) {
                        self.table(&tpath, &stack.table.spec, laid, size);
                    }
                    for piece in sheets.pieces.iter().filter(|p| p.element == j) {
                        let PieceKind::Block { block, top } = piece.kind else {
                            continue;
                        };
                        let Some(elements) = stack.blocks.get(block) else {
                            continue;
                        };
                        let block_frame = frame.block(&stack.table.spec, top);
                        for (k, e) in elements.iter().enumerate() {
                            let epath =
                                || format!("{}.children[{}].elements[{k}]", path(), block + 1);
                            self.element(&epath, e, &block_frame, size, None);
                        }
                    }
                }
                _ => self.element(&path, element, &frame, size, None),
            }
        }
    }

    /// Header or footer elements: the sheet edges of every page size they
    /// print on (one warning per element, naming the first page), the rest once.
    fn section(&mut self, name: &str, section: &crate::ir::Section, zone: Zone, pages: &[Page]) {
        for (j, element) in section.elements.iter().enumerate() {
            if self.full() {
                return;
            }
            let path = || format!("{name}.elements[{j}]");
            self.intrinsic(&path, element);
            for (i, page) in pages.iter().enumerate() {
                let frame = Frame::section_on(page, zone, section.height);
                if self.sheet_edges(&path, element, &frame, (page.width, page.height), Some(i)) {
                    break;
                }
            }
        }
    }

    /// Every check of one placed element.
    fn element(
        &mut self,
        path: Path,
        element: &Element,
        frame: &Frame,
        sheet: (f64, f64),
        page: Option<usize>,
    ) {
        self.sheet_edges(path, element, frame, sheet, page);
        self.intrinsic(path, element);
    }

    /// The checks that do not depend on where the element is placed.
    fn intrinsic(&mut self, path: Path, element: &Element) {
        let printed = match element {
            Element::Text(t) => Some(("content", t.spec.content.as_str())),
            Element::Barcode(b) => Some(("content", b.spec.content.as_str())),
            _ => None,
        };
        if let Some((field, text)) = printed.filter(|_| self.placeholders) {
            if let Some(placeholder) = crate::template::placeholder_in(text) {
                self.push(
                    format!("{}.{field}", path()),
                    Code::UnfilledPlaceholder,
                    format!(
                        "`{placeholder}` prints as written: to fill it from data, send {{\"template\": <this document>, \"data\": {{...}}}} (docs/document-request.md, \"Templates\")"
                    ),
                );
            }
        }
        match element {
            Element::Barcode(b) => {
                self.barcode(path, b);
                if let Some((style, fitted)) = &b.text {
                    let width = Some(b.spec.width);
                    self.text_fit(&|| format!("{}.hrt", path()), style, fitted, width, None);
                }
            }
            Element::Text(t) => {
                self.text_fit(path, &t.style, &t.fitted, t.style.width, t.style.height)
            }
            _ => {}
        }
    }

    /// A table's width against the sheet, and its cells' text.
    fn table(
        &mut self,
        path: &str,
        spec: &crate::model::TableElement,
        laid: &TableLayout,
        sheet: (f64, f64),
    ) {
        self.table_edges(path, laid, sheet.0);
        self.cells(path, spec, laid);
    }
}

/// The layout of the table (or stack's table) `element` from the sheets'
/// pieces (every piece of one table shares it).
fn table_layout(sheets: &Sheets, element: usize) -> Option<&TableLayout> {
    sheets.pieces.iter().find_map(|p| match &p.kind {
        PieceKind::Table { table, .. } if p.element == element => Some(&**table),
        _ => None,
    })
}

/// A length for messages: two decimals at most, no trailing zeros.
fn mm(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests;
