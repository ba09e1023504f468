//! Validation: raw JSON in, a typed [`Document`] out, or every violation found.
//!
//! Each violation carries a path such as `pages[0].elements[3].x_anchor`.
//! Elements are parsed one by one so a broken element does not hide the
//! errors of the others.

mod barcode;
pub(crate) mod elements;
mod image;
mod schema;
mod settings;
mod table;

#[cfg(test)]
pub(crate) use self::image::test_images;
pub use self::image::{check_image, ImageError, ImageKind, LoadedImage, ResourceDir};
use crate::layout::geometry::{element_bounds, Frame, Zone};
pub use crate::layout::{FontCatalog, PT_MM};
pub use crate::rich_text::{parse_rich_text, Run};

use serde::Serialize;
use serde_json::Value;

use crate::config::{page_preset, RuntimeConfig};
use crate::ir::{Document, Element, Page, Section};
use crate::model::{PageMargin, RawRequest, RawSection, Settings};
use crate::profile::Profile;

/// Most violations reported for one request.
pub const MAX_VIOLATIONS: usize = 100;

/// One broken rule, with the JSON path of the offending value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Violation {
    pub path: String,
    pub message: String,
}

impl Violation {
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Violation {
        Violation {
            path: path.into(),
            message: message.into(),
        }
    }

    /// This violation of a document that sits at `place` in a larger body
    /// (`template`, `documents[3]`): its path from that body's root.
    pub fn under(self, place: &str) -> Violation {
        Violation {
            path: path_under(place, &self.path),
            ..self
        }
    }
}

/// `path` (empty for the whole document) of a document that sits at
/// `place` in a larger body, from that body's root: `documents[3].pages[0]`.
pub fn path_under(place: &str, path: &str) -> String {
    match path.is_empty() {
        true => place.to_string(),
        false => format!("{place}.{path}"),
    }
}

/// Why a request cannot be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// API-001: the body is not JSON.
    #[error("invalid JSON at line {line}, column {column}: {reason}")]
    Json {
        line: usize,
        column: usize,
        reason: String,
    },
    /// API-002: the JSON breaks the schema or a rule.
    #[error("{}", summary(.0))]
    Invalid(Vec<Violation>),
}

impl RequestError {
    /// API-002 with one violation.
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> RequestError {
        RequestError::Invalid(vec![Violation::at(path, message)])
    }
}

fn summary(violations: &[Violation]) -> String {
    match violations {
        [one] if one.path.is_empty() => one.message.clone(),
        [one] => format!("{}: {}", one.path, one.message),
        [first, ..] => format!(
            "{} violations; first {}: {}",
            violations.len(),
            first.path,
            first.message
        ),
        [] => "invalid request".into(),
    }
}

/// Everything from outside that validation consults.
pub struct Environment<'a> {
    pub config: &'a RuntimeConfig,
    pub fonts: &'a dyn FontCatalog,
    pub resources: Option<&'a ResourceDir>,
}

/// Parses and validates a request body.
pub fn validate_bytes(body: &[u8], env: &Environment) -> Result<Document, RequestError> {
    validate_value(parse_json(body)?, env)
}

/// A request body as JSON, or API-001 with the line and column; duplicate
/// keys are API-001 like a syntax error (crate::json_strict).
pub fn parse_json(body: &[u8]) -> Result<Value, RequestError> {
    crate::json_strict::from_slice(body).map_err(|e| RequestError::Json {
        line: e.line(),
        column: e.column(),
        reason: e.to_string(),
    })
}

/// Validates an already parsed JSON value.
pub fn validate_value(value: Value, env: &Environment) -> Result<Document, RequestError> {
    let invalid = |path: &str, message: String| RequestError::at(path, message);
    match &value {
        Value::Array(_) => {
            return Err(invalid(
                "",
                "arrays of label requests are no longer accepted; send one DocumentRequest object \
                 with a `pages` array"
                    .into(),
            ))
        }
        Value::Object(_) => {}
        _ => {
            return Err(invalid(
                "",
                "the request must be a JSON object (a DocumentRequest)".into(),
            ))
        }
    }
    // The element arrays are validated element by element; the top level is
    // deserialised without them, so finding all its errors copies little.
    let mut value = value;
    let detached = detach_elements(&mut value);
    let parsed = schema::deserialize_all::<RawRequest>(&value, MAX_VIOLATIONS);
    let schema_errors = parsed.errors.into_iter().map(|e| Violation {
        path: e.path,
        message: e.message,
    });
    let Some(mut raw) = parsed.value else {
        return Err(RequestError::Invalid(schema_errors.collect()));
    };
    detached.attach(&mut raw);
    let mut v = Validator::new(env, &raw);
    v.violations.extend(schema_errors);
    let document = v.document(raw);
    v.finish(document)
}

/// The `elements` arrays of the pages, header and footer, taken out of the request.
struct DetachedElements {
    pages: Vec<Vec<Value>>,
    header: Vec<Value>,
    footer: Vec<Value>,
}

/// Takes every `elements` array (only arrays: anything else stays for the
/// schema to report) out of the request.
fn detach_elements(request: &mut Value) -> DetachedElements {
    fn take(holder: Option<&mut Value>) -> Vec<Value> {
        let Some(Value::Object(map)) = holder else {
            return Vec::new();
        };
        match map.get_mut("elements") {
            Some(Value::Array(items)) => std::mem::take(items),
            _ => Vec::new(),
        }
    }
    let pages = match request.get_mut("pages") {
        Some(Value::Array(pages)) => pages.iter_mut().map(|p| take(Some(p))).collect(),
        _ => Vec::new(),
    };
    DetachedElements {
        pages,
        header: take(request.get_mut("header")),
        footer: take(request.get_mut("footer")),
    }
}

impl DetachedElements {
    /// Puts the arrays back into the deserialised request (pages deserialise
    /// all or nothing, so their indexes match).
    fn attach(self, raw: &mut RawRequest) {
        for (page, elements) in raw.pages.iter_mut().zip(self.pages) {
            page.elements = elements;
        }
        if let Some(h) = &mut raw.header {
            h.elements = self.header;
        }
        if let Some(f) = &mut raw.footer {
            f.elements = self.footer;
        }
    }
}

pub(crate) struct Validator<'a> {
    pub env: &'a Environment<'a>,
    pub violations: Vec<Violation>,
    pub settings: Settings,
    pub page_count: usize,
    pub page_sizes: Vec<(f64, f64)>,
    pub profile: Option<Profile>,
    pub element_count: usize,
    pub text_chars: usize,
    pub table_cells: usize,
    /// Distinct images so far (hashes of their bytes) and the bytes of
    /// pixels they decode into.
    pub images_seen: std::collections::HashSet<u64>,
    pub images_decoded: u64,
    /// Height a flow may use on one sheet of the page being validated (mm).
    pub body_height: f64,
}

impl<'a> Validator<'a> {
    fn new(env: &'a Environment<'a>, raw: &RawRequest) -> Self {
        Self {
            env,
            violations: Vec::new(),
            settings: raw.settings.clone().unwrap_or_default(),
            page_count: raw.pages.len(),
            page_sizes: Vec::new(),
            profile: None,
            element_count: 0,
            text_chars: 0,
            table_cells: 0,
            images_seen: Default::default(),
            images_decoded: 0,
            body_height: 0.0,
        }
    }

    pub fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        if self.violations.len() < MAX_VIOLATIONS {
            self.violations.push(Violation {
                path: path.into(),
                message: message.into(),
            });
        }
    }

    fn finish(self, document: Document) -> Result<Document, RequestError> {
        if self.violations.is_empty() {
            Ok(document)
        } else {
            Err(RequestError::Invalid(self.violations))
        }
    }

    /// The validated document (its flow is laid out onto sheets by
    /// `crate::paginate`, which runs on it next).
    fn document(&mut self, raw: RawRequest) -> Document {
        self.settings_rules();
        let limits = &self.env.config.limits;
        if raw.pages.is_empty() {
            self.push("pages", "at least one page is required");
        }
        if raw.pages.len() > limits.sheets {
            self.push(
                "pages",
                format!("at most {} pages are allowed", limits.sheets),
            );
        }
        // Page sizes first: links to pages and sections are checked against them.
        self.page_sizes = raw
            .pages
            .iter()
            .enumerate()
            .map(|(i, p)| self.page_size(i, p.size.as_deref(), p.width, p.height))
            .collect();

        let header = raw.header.map(|s| self.section("header", s, Zone::Header));
        let footer = raw.footer.map(|s| self.section("footer", s, Zone::Footer));
        let sections_height =
            header.as_ref().map_or(0.0, |s| s.height) + footer.as_ref().map_or(0.0, |s| s.height);

        let default_margin = self.settings.page_margin;
        // Page sizes `settings.page_margin` was already found too large for
        // (one violation per size, not one per page).
        let mut settings_margin_sizes = Vec::new();
        let mut pages = Vec::with_capacity(raw.pages.len());
        for (i, raw_page) in raw.pages.into_iter().enumerate() {
            let path = format!("pages[{i}]");
            let (width, height) = self.page_sizes[i];
            match (&raw_page.margin, &default_margin) {
                (Some(m), _) => {
                    self.margin_values(&format!("{path}.margin"), m);
                    self.margin_fits(&format!("{path}.margin"), m, i, None);
                }
                (None, Some(m)) => self.margin_fits(
                    "settings.page_margin",
                    m,
                    i,
                    Some(&mut settings_margin_sizes),
                ),
                (None, None) => {}
            }
            let margin = raw_page.margin.or(default_margin);
            if sections_height >= height && height > 0.0 {
                self.push(
                    format!("{path}.height"),
                    format!("header and footer ({sections_height} mm together) leave no body on a {height} mm page"),
                );
            }
            let mut page = Page {
                width,
                height,
                margin,
                elements: Vec::new(),
            };
            let frame = Frame::body(&page);
            let content = page.content_box();
            let header_h = header.as_ref().map_or(0.0, |s| s.height);
            let footer_h = footer.as_ref().map_or(0.0, |s| s.height);
            self.body_height = content.bottom().min(height - footer_h) - content.y.max(header_h);
            page.elements = self.elements(&format!("{path}.elements"), raw_page.elements, &frame);
            pages.push(page);
        }
        if self.element_count > limits.elements {
            self.push(
                "pages",
                format!(
                    "the document has {} elements; at most {} are allowed",
                    self.element_count, limits.elements
                ),
            );
        }
        if self.text_chars > limits.text_chars {
            self.push(
                "pages",
                format!(
                    "the document has {} characters of text; at most {} are allowed",
                    self.text_chars, limits.text_chars
                ),
            );
        }
        if self.table_cells > limits.table_cells {
            self.push(
                "pages",
                format!(
                    "the document has {} table cells; at most {} are allowed",
                    self.table_cells, limits.table_cells
                ),
            );
        }
        Document {
            settings: self.resolved_settings(),
            pages,
            header,
            footer,
            from_template: false,
        }
    }

    fn page_size(
        &mut self,
        i: usize,
        size: Option<&str>,
        width: Option<f64>,
        height: Option<f64>,
    ) -> (f64, f64) {
        let path = format!("pages[{i}]");
        let max = self.env.config.limits.page_side_mm;
        match (size, width, height) {
            (Some(name), None, None) => match page_preset(name) {
                Some(dims) => dims,
                None => {
                    let names: Vec<_> =
                        crate::config::PAGE_PRESETS.iter().map(|p| p.name).collect();
                    self.push(
                        format!("{path}.size"),
                        format!(
                            "unknown size `{name}`; expected one of {}",
                            names.join(", ")
                        ),
                    );
                    (0.0, 0.0)
                }
            },
            (Some(_), _, _) => {
                let field = if width.is_some() { "width" } else { "height" };
                self.push(
                    format!("{path}.{field}"),
                    "`size` and `width`/`height` are mutually exclusive",
                );
                (0.0, 0.0)
            }
            (None, Some(w), Some(h)) => {
                let mut ok = true;
                for (field, v) in [("width", w), ("height", h)] {
                    if !(v > 0.0 && v <= max) {
                        self.push(
                            format!("{path}.{field}"),
                            format!("must be greater than 0 and at most {max} mm"),
                        );
                        ok = false;
                    }
                }
                if ok {
                    (w, h)
                } else {
                    (0.0, 0.0)
                }
            }
            (None, Some(_), None) => {
                self.push(format!("{path}.height"), "`width` needs `height`");
                (0.0, 0.0)
            }
            (None, None, Some(_)) => {
                self.push(format!("{path}.width"), "`height` needs `width`");
                (0.0, 0.0)
            }
            (None, None, None) => {
                self.push(
                    format!("{path}.size"),
                    "a page needs `size` or `width` and `height`",
                );
                (0.0, 0.0)
            }
        }
    }

    fn margin_values(&mut self, path: &str, m: &PageMargin) {
        for (field, v) in [
            ("top", m.top),
            ("right", m.right),
            ("bottom", m.bottom),
            ("left", m.left),
        ] {
            self.non_negative(&format!("{path}.{field}"), v);
        }
    }

    /// A margin must leave a content box of positive width and height on
    /// page `i` (a negative or empty one has nowhere to put the body).
    /// `seen` collects the sizes already reported for a margin shared by
    /// many pages (`settings.page_margin`), so each size is named once.
    fn margin_fits(
        &mut self,
        path: &str,
        m: &PageMargin,
        i: usize,
        mut seen: Option<&mut Vec<(&'static str, u64)>>,
    ) {
        let (width, height) = self.page_sizes[i];
        if !(width > 0.0 && height > 0.0) {
            // The size itself is refused.
            return;
        }
        let checks = [
            ("left", "right", m.left, m.right, width, "width"),
            ("top", "bottom", m.top, m.bottom, height, "height"),
        ];
        for (first, second, a, b, side, what) in checks {
            if !(a + b >= side) {
                continue;
            }
            if let Some(seen) = seen.as_deref_mut() {
                let key = (first, side.to_bits());
                if seen.contains(&key) {
                    continue;
                }
                seen.push(key);
            }
            self.push(
                format!("{path}.{first}"),
                format!(
                    "{first} {a} mm and {second} {b} mm leave no content {what} on pages[{i}] ({width} x {height} mm)"
                ),
            );
        }
    }

    fn section(&mut self, name: &str, raw: RawSection, zone: Zone) -> Section {
        let min_height = self
            .page_sizes
            .iter()
            .map(|s| s.1)
            .filter(|h| *h > 0.0)
            .fold(f64::INFINITY, f64::min);
        if !(raw.height >= 0.0) || (min_height.is_finite() && raw.height >= min_height) {
            self.push(
                format!("{name}.height"),
                "must be at least 0 and less than the page height",
            );
        }
        let width = self.page_sizes.iter().map(|s| s.0).fold(0.0, f64::max);
        let frame = Frame::section(width, zone);
        let elements = self.elements(&format!("{name}.elements"), raw.elements, &frame);
        Section {
            height: raw.height,
            elements,
        }
    }

    pub(crate) fn elements(&mut self, path: &str, raw: Vec<Value>, frame: &Frame) -> Vec<Element> {
        let mut out = Vec::with_capacity(raw.len());
        for (i, value) in raw.into_iter().enumerate() {
            self.element_count += 1;
            if let Some(e) = self.element(&format!("{path}[{i}]"), value, frame) {
                out.push(e);
            }
        }
        out
    }

    pub(crate) fn non_negative(&mut self, path: &str, v: f64) {
        if !(v >= 0.0) || v > self.env.config.limits.coordinate_mm {
            self.push(
                path,
                format!(
                    "must be between 0 and {}",
                    self.env.config.limits.coordinate_mm
                ),
            );
        }
    }

    pub(crate) fn positive(&mut self, path: &str, v: f64) {
        if !(v > 0.0) || v > self.env.config.limits.coordinate_mm {
            self.push(
                path,
                format!(
                    "must be greater than 0 and at most {}",
                    self.env.config.limits.coordinate_mm
                ),
            );
        }
    }

    pub(crate) fn coordinate(&mut self, path: &str, v: f64) {
        if v.abs() > self.env.config.limits.coordinate_mm {
            self.push(
                path,
                format!(
                    "must be between -{0} and {0}",
                    self.env.config.limits.coordinate_mm
                ),
            );
        }
    }

    pub(crate) fn colour(&mut self, path: &str, c: &str) {
        if crate::style::Rgb::parse(c).is_none() {
            self.push(path, format!("`{c}` is not a colour; use #RRGGBB or #RGB"));
        }
    }

    pub(crate) fn opacity(&mut self, path: &str, v: f64) {
        if !(0.0..=1.0).contains(&v) {
            self.push(path, "must be between 0 and 1");
        } else if v < 1.0 && self.profile.is_some_and(|p| p.forbids_transparency()) {
            self.push(path, "PDF/A-1 does not allow transparency");
        }
    }
}
