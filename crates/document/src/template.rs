//! Templates: a DocumentRequest whose strings hold `{{placeholders}}`,
//! filled from a `data` object into a plain DocumentRequest before
//! validation (docs/document-request.md, "Templates").
//!
//! A request body `{"template": {...}, "data": {...}}` is a template; any
//! other body is a plain document, whose `{{` prints as written. Filling
//! is text substitution only: a placeholder names a value in `data` by a
//! path (`order.recipient.city`, `items[0].sku`), and the value's text
//! replaces it. Nothing is evaluated, nothing is read from files or the
//! network, and the filled strings go through validation and lowering like
//! any string of a hand-written document (which escapes them for Typst).
//!
//! A table of a template may take its body rows from an array of the data:
//! `"rows_from": "items"` with a `"row"` object, which is filled once per
//! item, in order, into the table's `rows`. Inside the row, a placeholder
//! is looked up in the item first and then in the whole data (as Mustache
//! sections look up their context stack), so `{{sku}}` is the item's and
//! `{{currency}}` may be the document's.
//!
//! Invariant: a filled document is bounded as a hand-written one is. Its
//! strings (and the cells generated for `rows_from`) together stay within
//! `limits.body_bytes`, and a `rows_from` table within `limits.table_cells`,
//! checked before anything is generated, so a small template with a value
//! repeated many times cannot grow without limit.

use serde_json::{Map, Value};

use crate::config::Limits;
use crate::validate::{RequestError, Violation, MAX_VIOLATIONS};

/// The key of a request body that makes it a template.
pub const TEMPLATE_KEY: &str = "template";
/// The key of a template body that holds its values.
pub const DATA_KEY: &str = "data";

/// Bytes a generated table cell costs the size budget besides its text
/// (its key and JSON structure in a hand-written document).
const CELL_OVERHEAD: usize = 16;

/// A request body, told apart before validation.
pub enum Body {
    /// A DocumentRequest, validated as it is.
    Plain(Value),
    /// A template with its data, filled into a DocumentRequest first; its
    /// findings' paths start with `template.`.
    Template { template: Value, data: Value },
}

impl Body {
    /// A template when `value` is an object with a `template` key (a
    /// DocumentRequest has none); otherwise the value as it is. A template
    /// body with other keys, a `template` that is not an object or `data`
    /// that is not an object is refused here.
    pub fn classify(value: Value) -> Result<Body, RequestError> {
        let Value::Object(mut root) = value else {
            return Ok(Body::Plain(value));
        };
        if !root.contains_key(TEMPLATE_KEY) {
            return Ok(Body::Plain(Value::Object(root)));
        }
        let mut violations = Vec::new();
        for key in root.keys() {
            if key != TEMPLATE_KEY && key != DATA_KEY {
                violations.push(Violation::at(
                    key,
                    format!(
                        "unknown field `{key}` of a template body: expected `template` and `data`"
                    ),
                ));
            }
        }
        let template = root.remove(TEMPLATE_KEY).unwrap_or(Value::Null);
        let data = root
            .remove(DATA_KEY)
            .unwrap_or_else(|| Value::Object(Map::new()));
        match &template {
            Value::Object(_) => {}
            Value::String(name) => violations.push(Violation::at(
                TEMPLATE_KEY,
                format!(
                    "`{name}` names a stored template, which only the HTTP service keeps (PUT /api/v1/templates/{name}); here, send the template itself (a DocumentRequest object)"
                ),
            )),
            _ => violations.push(Violation::at(
                TEMPLATE_KEY,
                "must be a DocumentRequest object whose strings may hold {{placeholders}}",
            )),
        }
        if !data.is_object() {
            violations.push(Violation::at(
                DATA_KEY,
                "must be an object of the values the placeholders name",
            ));
        }
        if violations.is_empty() {
            Ok(Body::Template { template, data })
        } else {
            Err(RequestError::Invalid(violations))
        }
    }

    /// The DocumentRequest object settings are read from and written to:
    /// the body's own, or its template's.
    pub fn document_mut(&mut self) -> &mut Value {
        match self {
            Body::Plain(document) => document,
            Body::Template { template, .. } => template,
        }
    }
}

/// Fills every placeholder of `template` from `data` (an object): the
/// DocumentRequest to validate, or every placeholder that has no text
/// value, with its path under `template`.
pub fn fill(mut template: Value, data: &Value, limits: &Limits) -> Result<Value, RequestError> {
    let mut filler = Filler::new(Values::Data(data), limits);
    let mut path = String::from(TEMPLATE_KEY);
    filler.value(&mut template, &Scope::Root, &mut path);
    if filler.violations.is_empty() {
        Ok(template)
    } else {
        Err(RequestError::Invalid(filler.violations))
    }
}

/// What a placeholder is filled with when a template is checked without
/// data: short, so that no layout rule (a text too wide, a table too
/// long) is broken by a value the template does not know yet.
const PROBE_TEXT: &str = "0";

/// A template filled without data, to check it before it is stored: every
/// placeholder holds [`PROBE_TEXT`] and every `rows_from` table one row.
/// The findings of validating `filled` that concern the template itself
/// (not a value it will be given) are [`Probe::own_findings`].
pub struct Probe {
    pub filled: Value,
    /// Paths (from the template's root) of the strings that held a
    /// placeholder: what they hold is not known until data comes.
    holed: Vec<String>,
    /// Paths of the `rows_from` tables, whose one probe row is `rows[0]`
    /// in the filled document and `row` in the template.
    generated: Vec<String>,
}

/// Fills `template` for checking ([`Probe`]); a placeholder that is not a
/// path, an unclosed `{{` or a malformed `rows_from` is refused at its path
/// from the template's root.
pub fn probe(mut template: Value, limits: &Limits) -> Result<Probe, RequestError> {
    let mut filler = Filler::new(Values::Probe, limits);
    let mut path = String::new();
    filler.value(&mut template, &Scope::Root, &mut path);
    let from_root = |path: String| path.strip_prefix('.').map(str::to_string).unwrap_or(path);
    if !filler.violations.is_empty() {
        return Err(RequestError::Invalid(
            filler
                .violations
                .into_iter()
                .map(|v| Violation::at(from_root(v.path), v.message))
                .collect(),
        ));
    }
    Ok(Probe {
        filled: template,
        holed: filler.holed.into_iter().map(from_root).collect(),
        generated: filler.generated.into_iter().map(from_root).collect(),
    })
}

impl Probe {
    /// The findings of validating [`Probe::filled`] that hold whatever the
    /// data will be, at their paths in the template: those under a string
    /// with a placeholder are dropped (the probe text stood there), and a
    /// `rows_from` table's `rows[0]` is its `row`.
    pub fn own_findings(&self, violations: Vec<Violation>) -> Vec<Violation> {
        violations
            .into_iter()
            .map(|v| {
                let path = self.template_path(&v.path);
                Violation { path, ..v }
            })
            .filter(|v| !self.holed.iter().any(|holed| within(&v.path, holed)))
            .collect()
    }

    fn template_path(&self, path: &str) -> String {
        for table in &self.generated {
            let row = format!("{table}.rows[0]");
            if within(path, &row) {
                return format!("{table}.row{}", &path[row.len()..]);
            }
        }
        path.to_string()
    }
}

/// Whether `path` is `place` or a path inside it.
fn within(path: &str, place: &str) -> bool {
    path.strip_prefix(place)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

/// `error`'s paths as paths of the template body: under `template`.
pub fn under_template(error: RequestError) -> RequestError {
    match error {
        RequestError::Invalid(violations) => RequestError::Invalid(
            violations
                .into_iter()
                .map(|v| v.under(TEMPLATE_KEY))
                .collect(),
        ),
        json => json,
    }
}

/// The first `{{path}}` in `text` that filling would read as a
/// placeholder (warning LP-W08 looks for them in plain documents).
pub fn placeholder_in(text: &str) -> Option<&str> {
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let after = &rest[open + 2..];
        let close = after.find("}}")?;
        if parse_path(after[..close].trim()).is_ok() {
            return Some(&rest[open..open + 2 + close + 2]);
        }
        rest = after;
    }
    None
}

/// Where placeholders are looked up: the data, or one item of a
/// `rows_from` array (then the data).
enum Scope<'a> {
    Root,
    Item {
        item: &'a Value,
        /// The item's place in the data, for messages: `items[3]`.
        at: String,
    },
}

/// Where placeholders take their values from.
#[derive(Clone, Copy)]
enum Values<'a> {
    /// A request's `data` object.
    Data(&'a Value),
    /// Nowhere: every placeholder is [`PROBE_TEXT`] ([`probe`]).
    Probe,
}

struct Filler<'a> {
    values: Values<'a>,
    /// Bytes the filled document's strings may still take.
    budget: usize,
    over_budget: bool,
    table_cells: usize,
    violations: Vec<Violation>,
    /// Probing only: the strings that held a placeholder.
    holed: Vec<String>,
    /// Probing only: the `rows_from` tables.
    generated: Vec<String>,
}

impl<'a> Filler<'a> {
    fn new(values: Values<'a>, limits: &Limits) -> Filler<'a> {
        Filler {
            values,
            budget: limits.body_bytes,
            over_budget: false,
            table_cells: limits.table_cells,
            violations: Vec::new(),
            holed: Vec::new(),
            generated: Vec::new(),
        }
    }

    fn full(&self) -> bool {
        self.violations.len() >= MAX_VIOLATIONS
    }

    /// [`Filler::refuse`] for a `rows_from` that makes no rows.
    fn refused(&mut self, path: &str, message: String) -> Option<Vec<Value>> {
        self.refuse(path, message);
        None
    }

    fn refuse(&mut self, path: &str, message: String) {
        if !self.full() {
            self.violations.push(Violation::at(path, message));
        }
    }

    /// Takes `bytes` from the size budget; false (and one violation) once it
    /// runs out.
    fn spend(&mut self, bytes: usize, path: &str) -> bool {
        if self.over_budget {
            return false;
        }
        match self.budget.checked_sub(bytes) {
            Some(left) => {
                self.budget = left;
                true
            }
            None => {
                self.over_budget = true;
                self.refuse(
                    path,
                    "the filled template is larger than limits.body_bytes, the most a document written out by hand may be".into(),
                );
                false
            }
        }
    }

    /// Nothing more is filled: enough findings, or the budget is spent.
    fn stopped(&self) -> bool {
        self.full() || self.over_budget
    }

    fn value(&mut self, value: &mut Value, scope: &Scope, path: &mut String) {
        if self.stopped() {
            return;
        }
        match value {
            Value::String(text) => {
                if let Some(filled) = self.text(text, scope, path) {
                    *text = filled;
                }
                let len = text.len();
                self.spend(len, path);
            }
            Value::Array(items) => {
                let len = path.len();
                for (i, item) in items.iter_mut().enumerate() {
                    path.push_str(&format!("[{i}]"));
                    self.value(item, scope, path);
                    path.truncate(len);
                }
            }
            Value::Object(map) => {
                // Generated rows are filled already: they join the table
                // after its own strings are filled, so no value is read
                // as a template twice.
                let rows = if map.contains_key("rows_from") {
                    self.rows_from(map, path)
                } else {
                    None
                };
                let len = path.len();
                for (key, item) in map.iter_mut() {
                    path.push('.');
                    path.push_str(key);
                    self.value(item, scope, path);
                    path.truncate(len);
                }
                if let Some(rows) = rows {
                    map.insert("rows".into(), Value::Array(rows));
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// Takes a table's `rows_from` and `row` out and returns the `rows`
    /// they make (`None` when refused).
    fn rows_from(&mut self, table: &mut Map<String, Value>, path: &str) -> Option<Vec<Value>> {
        let from = table.remove("rows_from");
        let row = table.remove("row");
        let at = |field: &str| format!("{path}.{field}");
        let source = match &from {
            Some(Value::String(source)) => source.trim().to_string(),
            _ => return self.refused(
                &at("rows_from"),
                "must name an array of the data, as a placeholder does (`items`, `order.lines`)"
                    .into(),
            ),
        };
        if table.contains_key("rows") {
            return self.refused(
                &at("rows_from"),
                "a table takes its rows from `rows` or from `rows_from`, not both".into(),
            );
        }
        let Some(Value::Object(row)) = row else {
            return self.refused(
                &at("row"),
                "`rows_from` needs `row`: an object of the row's cells, keyed by column key, whose strings may hold {{placeholders}} of each item".into(),
            );
        };
        let segments = match parse_path(&source) {
            Ok(segments) => segments,
            Err(why) => return self.refused(&at("rows_from"), format!("`{source}` {why}")),
        };
        let probe_item = [Value::Null];
        let items: &[Value] = match self.values {
            Values::Probe => {
                self.generated.push(path.to_string());
                &probe_item
            }
            Values::Data(root) => match lookup(root, &segments) {
                Err(missing) => {
                    return self.refused(
                        &at("rows_from"),
                        format!("the data has no `{source}`: {missing}"),
                    )
                }
                Ok(Value::Array(items)) => items,
                Ok(other) => {
                    return self.refused(
                        &at("rows_from"),
                        format!("`{source}` is {} in the data, not an array", kind(other)),
                    )
                }
            },
        };
        let cells = items.len().saturating_mul(row.len().max(1));
        if cells > self.table_cells {
            return self.refused(
                &at("rows_from"),
                format!(
                    "`{source}` makes {} rows of {} cells, more than limits.table_cells ({})",
                    items.len(),
                    row.len(),
                    self.table_cells
                ),
            );
        }
        let mut rows = Vec::with_capacity(items.len());
        let mut row_path = at("row");
        for (i, item) in items.iter().enumerate() {
            if !self.spend(row.len().max(1) * CELL_OVERHEAD, &row_path) {
                return None;
            }
            let scope = Scope::Item {
                item,
                at: format!("{source}[{i}]"),
            };
            let mut filled = Value::Object(row.clone());
            let before = self.violations.len();
            self.value(&mut filled, &scope, &mut row_path);
            // One item's findings stand for the rest: the same row template
            // would repeat them for every item.
            if self.violations.len() > before || self.stopped() {
                return None;
            }
            rows.push(filled);
        }
        Some(rows)
    }

    /// `text` with its placeholders filled, or `None` when it has none (and
    /// no escaped `{{`).
    fn text(&mut self, text: &str, scope: &Scope, path: &str) -> Option<String> {
        if !text.contains("{{") {
            return None;
        }
        let mut held = false;
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(open) = rest.find("{{") {
            if rest[..open].ends_with('\\') {
                // `\{{` is a literal `{{`.
                out.push_str(&rest[..open - 1]);
                out.push_str("{{");
                rest = &rest[open + 2..];
                continue;
            }
            out.push_str(&rest[..open]);
            let after = &rest[open + 2..];
            let Some(close) = after.find("}}") else {
                self.refuse(
                    path,
                    "`{{` opens a placeholder that is not closed with `}}`; write `\\{{` for a literal `{{`".into(),
                );
                return None;
            };
            let name = after[..close].trim();
            match self.placeholder(name, scope) {
                // The budget is checked as the text grows, so one string
                // repeating a large value never becomes that large.
                Ok(value) if out.len() + value.len() > self.budget => {
                    self.spend(out.len() + value.len(), path);
                    return None;
                }
                Ok(value) => {
                    out.push_str(&value);
                    held = true;
                }
                Err(why) => {
                    self.refuse(path, format!("placeholder {{{{{name}}}}}: {why}"));
                    return None;
                }
            }
            rest = &after[close + 2..];
        }
        out.push_str(rest);
        if held && matches!(self.values, Values::Probe) {
            self.holed.push(path.to_string());
        }
        Some(out)
    }

    /// The text of the value `name` names in `scope`.
    fn placeholder(&self, name: &str, scope: &Scope) -> Result<String, String> {
        let segments = parse_path(name)?;
        let Values::Data(root) = self.values else {
            return Ok(PROBE_TEXT.to_string());
        };
        let found = match scope {
            Scope::Root => lookup(root, &segments)
                .map_err(|missing| format!("the data has no value for it ({missing})")),
            Scope::Item { item, at } => {
                let own = matches!(
                    (item, &segments[0]),
                    (Value::Object(map), Segment::Key(key)) if map.contains_key(*key)
                );
                if own {
                    lookup(item, &segments).map_err(|missing| format!("{at}: {missing}"))
                } else {
                    lookup(root, &segments)
                        .map_err(|_| format!("neither {at} nor the data has a value for it"))
                }
            }
        }?;
        as_text(found)
    }
}

/// One step of a placeholder's path.
#[derive(Debug, PartialEq)]
enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

/// `order.lines[2].sku` as its steps; a name is any run of characters but
/// `.`, `[`, `]`, `{`, `}` and white space.
fn parse_path(name: &str) -> Result<Vec<Segment<'_>>, String> {
    let bad = || {
        format!(
            "is not a placeholder: write a path into the data such as `name`, `order.city` or `items[0].sku` (`\\{{{{` for a literal `{{{{`)"
        )
    };
    let is_name_char = |c: char| !matches!(c, '.' | '[' | ']' | '{' | '}') && !c.is_whitespace();
    let mut segments = Vec::new();
    let mut rest = name;
    let mut first = true;
    while !rest.is_empty() || first {
        if !first {
            if let Some(after) = rest.strip_prefix('.') {
                rest = after;
            } else if let Some(after) = rest.strip_prefix('[') {
                let close = after.find(']').ok_or_else(bad)?;
                let index = after[..close].parse::<usize>().map_err(|_| bad())?;
                segments.push(Segment::Index(index));
                rest = &after[close + 1..];
                continue;
            } else {
                return Err(bad());
            }
        }
        let end = rest.find(|c| !is_name_char(c)).unwrap_or(rest.len());
        if end == 0 {
            return Err(bad());
        }
        segments.push(Segment::Key(&rest[..end]));
        rest = &rest[end..];
        first = false;
    }
    Ok(segments)
}

/// The value at `segments` in `data`, or which step has nothing.
fn lookup<'v>(data: &'v Value, segments: &[Segment]) -> Result<&'v Value, String> {
    let mut here = data;
    let mut walked = String::new();
    for segment in segments {
        let next = match (segment, here) {
            (Segment::Key(key), Value::Object(map)) => map.get(*key),
            (Segment::Index(i), Value::Array(items)) => items.get(*i),
            _ => None,
        };
        let Some(next) = next else {
            let step = match segment {
                Segment::Key(key) => format!("no key `{key}`"),
                Segment::Index(i) => format!("no item [{i}]"),
            };
            let owner = if walked.is_empty() {
                "the data".to_string()
            } else {
                format!("`{walked}` ({})", kind(here))
            };
            return Err(format!("{owner} has {step}"));
        };
        match segment {
            Segment::Key(key) if walked.is_empty() => walked.push_str(key),
            Segment::Key(key) => {
                walked.push('.');
                walked.push_str(key);
            }
            Segment::Index(i) => walked.push_str(&format!("[{i}]")),
        }
        here = next;
    }
    Ok(here)
}

/// A value's text: strings as they are, numbers as JSON writes them,
/// `true`/`false`. `null`, objects and arrays are not text.
fn as_text(value: &Value) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(format!(
            "the value is {}, not text (a string, number or boolean)",
            kind(other)
        )),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests;
