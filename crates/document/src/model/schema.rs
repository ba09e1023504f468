//! The DocumentRequest's JSON Schema (dialect 2020-12, the one OpenAPI 3.1
//! uses), generated from the serde types of [`crate::model`].
//!
//! The model keeps elements as raw JSON, each parsed by its `type` in
//! [`crate::validate`], so the element unions are assembled here from the
//! element structs ([`ELEMENTS`]): each struct's schema gets a required
//! `type` property holding its name. The tag goes into the struct's own
//! schema because that schema refuses unknown fields
//! (`additionalProperties: false`): beside it in an `allOf`, `type` would be
//! an unknown field to the struct's schema and every element would fail.
//!
//! The schema admits a subset of what serde admits and nothing serde
//! refuses; what it cannot say (cross-field rules, ranges, fonts, sizes)
//! the validator still checks (docs/document-request.md).

use schemars::gen::{SchemaGenerator, SchemaSettings};
use schemars::schema::Schema;
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

use crate::model::*;
use labelpress_barcode::Symbology;

/// `$schema` of the standalone schema.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// One element type: its `type` name and its struct.
pub struct ElementKind {
    pub tag: &'static str,
    /// Also allowed in headers, footers and stack blocks (not tables or stacks).
    pub nested: bool,
    schema_name: fn() -> String,
    subschema: fn(&mut SchemaGenerator) -> Schema,
}

const fn kind<T: JsonSchema>(tag: &'static str, nested: bool) -> ElementKind {
    ElementKind {
        tag,
        nested,
        schema_name: T::schema_name,
        subschema: SchemaGenerator::subschema_for::<T>,
    }
}

/// Every element type, in the order of [`ELEMENT_TYPES`].
pub const ELEMENTS: &[ElementKind] = &[
    kind::<TextElement>("text", true),
    kind::<BarcodeElement>("barcode", true),
    kind::<LineElement>("line", true),
    kind::<RectElement>("rect", true),
    kind::<CircleElement>("circle", true),
    kind::<EllipseElement>("ellipse", true),
    kind::<PolygonElement>("polygon", true),
    kind::<LinkElement>("link", true),
    kind::<ImageElement>("image", true),
    kind::<TableElement>("table", false),
    kind::<StackElement>("stack", false),
];

/// A stack's children after the table.
const BLOCK: ElementKind = kind::<RawBlock>("block", false);

/// Generator settings: `$defs`-style definitions under `definitions_path`
/// (`#/$defs/` standalone, `#/components/schemas/` in the OpenAPI document).
pub fn settings(definitions_path: &str) -> SchemaSettings {
    let mut settings = SchemaSettings::draft2019_09();
    settings.definitions_path = definitions_path.to_string();
    settings.meta_schema = Some(DIALECT.to_string());
    settings
}

/// The standalone JSON Schema of a DocumentRequest: `labelpress openapi
/// --request-schema`, and what the tests validate fixtures against.
pub fn document_request() -> Value {
    let mut generator = SchemaGenerator::new(settings("#/$defs/"));
    // `{"$ref": "#/$defs/DocumentRequest"}`, completed into a root schema.
    let mut root =
        serde_json::to_value(generator.subschema_for::<RawRequest>()).expect("a schema serialises");
    root["$schema"] = json!(DIALECT);
    root["title"] = json!(RawRequest::schema_name());
    let mut definitions: Map<String, Value> = generator
        .take_definitions()
        .into_iter()
        .map(|(name, schema)| (name, serde_json::to_value(schema).expect("serialises")))
        .collect();
    tighten(&mut definitions);
    root["$defs"] = Value::Object(definitions);
    root
}

/// The rules of the validator that JSON Schema can say, added to the
/// definitions serde's types give (`definitions` holds them by name, as
/// `$defs` or as OpenAPI components): ranges, enumerations and patterns,
/// from the tables and limits the validator reads (the runtime
/// configuration's defaults: a node configured otherwise publishes its own
/// limits at `/v1/doc/runtime-config`), and which fields go together. Rules
/// it cannot say are in the fields' descriptions (docs/document-request.md).
pub fn tighten(definitions: &mut Map<String, Value>) {
    let limits = crate::config::Limits::default();
    let coordinate_mm = limits.coordinate_mm;
    // `Validator::coordinate`, `positive` and `non_negative`.
    let coordinate = json!({"minimum": -coordinate_mm, "maximum": coordinate_mm});
    let positive = json!({"exclusiveMinimum": 0, "maximum": coordinate_mm});
    let non_negative = json!({"minimum": 0, "maximum": coordinate_mm});
    let colour = json!({"pattern": "^#(?:[0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$"});
    let opacity = json!({"minimum": 0, "maximum": 1});
    let rotation = json!({"enum": [0, 90, 180, 270]});
    let font_size = json!({"exclusiveMinimum": 0, "maximum": 1000});
    let stroke_mm = json!({"minimum": 0, "maximum": 1000});
    let span = json!({"minimum": 1});
    let page_sizes: Vec<&str> = crate::config::PAGE_PRESETS.iter().map(|p| p.name).collect();
    let mut formats: Vec<&str> = Symbology::all().iter().map(|s| s.name()).collect();
    formats.extend(Symbology::all().iter().flat_map(|s| s.aliases()));
    let placed = [
        "TextElement",
        "BarcodeElement",
        "RectElement",
        "LinkElement",
        "ImageElement",
    ];
    let mut rules: Vec<(&str, &str, Value)> = vec![
        ("DocumentRequest", "pages", json!({"minItems": 1})),
        (
            "Page",
            "size",
            json!({"enum": page_sizes, "description": "A named size, matched ignoring ASCII case (`runtime-config` `page_sizes`); excludes `width`/`height`."}),
        ),
        (
            "Page",
            "width",
            json!({"exclusiveMinimum": 0, "maximum": limits.page_side_mm}),
        ),
        (
            "Page",
            "height",
            json!({"exclusiveMinimum": 0, "maximum": limits.page_side_mm}),
        ),
        ("PageMargin", "top", non_negative.clone()),
        ("PageMargin", "right", non_negative.clone()),
        ("PageMargin", "bottom", non_negative.clone()),
        ("PageMargin", "left", non_negative.clone()),
        ("Section", "height", json!({"minimum": 0})),
        (
            "Settings",
            "print_dpi",
            json!({"minimum": 72, "maximum": 4800}),
        ),
        (
            "Settings",
            "profile",
            json!({"enum": crate::profile::Profile::names(), "description": "A PDF profile to conform to (PDF/A, PDF/UA), matched ignoring ASCII case (`runtime-config` `profiles`)."}),
        ),
        ("ShapeDefaults", "corner_radius", non_negative.clone()),
        ("TextStyle", "font_size", font_size.clone()),
        ("TextStyle", "min_font_size", font_size),
        ("TextStyle", "color", colour.clone()),
        (
            "TextStyle",
            "line_height",
            json!({"exclusiveMinimum": 0, "maximum": 10}),
        ),
        ("TextStyle", "width", positive.clone()),
        ("TextStyle", "height", positive.clone()),
        (
            "TextStyle",
            "font_family",
            json!({"description": "Font family: one of `runtime-config` `fonts.families` (what this node has installed)."}),
        ),
        ("StrokeStyle", "color", colour.clone()),
        ("StrokeStyle", "width", stroke_mm.clone()),
        ("StrokeStyle", "opacity", opacity.clone()),
        (
            "StrokeStyle",
            "miter_limit",
            json!({"minimum": 1, "maximum": 100}),
        ),
        (
            "Dash",
            "pattern",
            json!({"minItems": 1, "maxItems": 64, "items": {"type": "number", "minimum": 0, "maximum": 1000}, "description": "Dash and gap lengths in mm, alternating, not all 0; only with preset `custom`, which needs it."}),
        ),
        ("Dash", "phase", coordinate.clone()),
        ("Compound", "gap", stroke_mm),
        ("FillStyle", "color", colour.clone()),
        ("FillStyle", "opacity", opacity),
        ("MarkerStyle", "size", positive.clone()),
        ("LinkSpec", "padding", non_negative.clone()),
        ("LinkElement", "padding", non_negative.clone()),
        ("LinkBorder", "width", non_negative.clone()),
        ("LinkBorder", "color", colour.clone()),
        (
            "LinkTarget",
            "page",
            json!({"minimum": 1, "description": "The request page, counted from 1, at most the number of pages."}),
        ),
        (
            "LinkTarget",
            "x",
            json!({"minimum": 0, "description": "mm from the page's left edge, at most the page's width."}),
        ),
        (
            "LinkTarget",
            "y",
            json!({"minimum": 0, "description": "mm from the page's top edge, at most the page's height."}),
        ),
        ("XAnchor", "offset", coordinate.clone()),
        (
            "BarcodeElement",
            "format",
            json!({"enum": formats, "description": "Symbology, matched ignoring ASCII case (`runtime-config` `barcodes`)."}),
        ),
        ("BarcodeOptions", "quiet_zone", non_negative.clone()),
        ("BarcodeOptions", "bar_width", positive.clone()),
        ("BarcodeOptions", "color", colour.clone()),
        ("BarcodeOptions", "background_color", colour),
        ("LineElement", "x1", coordinate.clone()),
        ("LineElement", "y1", coordinate.clone()),
        ("LineElement", "x2", coordinate.clone()),
        ("LineElement", "y2", coordinate.clone()),
        ("RectElement", "corner_radius", non_negative.clone()),
        ("CircleElement", "cx", coordinate.clone()),
        ("CircleElement", "cy", coordinate.clone()),
        ("CircleElement", "r", positive.clone()),
        ("EllipseElement", "cx", coordinate.clone()),
        ("EllipseElement", "cy", coordinate.clone()),
        ("EllipseElement", "rx", positive.clone()),
        ("EllipseElement", "ry", positive.clone()),
        ("EllipseElement", "rotation", rotation.clone()),
        ("Point", "x", coordinate.clone()),
        ("Point", "y", coordinate.clone()),
        (
            "PolygonElement",
            "points",
            json!({"minItems": crate::config::POLYGON_POINTS.start(), "maxItems": crate::config::POLYGON_POINTS.end()}),
        ),
        (
            "ImageElement",
            "format",
            json!({"enum": crate::config::IMAGE_FORMATS}),
        ),
        ("TableElement", "x", coordinate.clone()),
        ("TableElement", "y", coordinate.clone()),
        ("TableElement", "width", positive.clone()),
        (
            "TableElement",
            "columns",
            json!({"minItems": 1, "description": "The columns, left to right: at least one."}),
        ),
        ("ComplexCell", "row_span", span.clone()),
        ("ComplexCell", "col_span", span.clone()),
        ("TableHeaderCell", "row_span", span.clone()),
        ("TableHeaderCell", "col_span", span),
        ("CellPadding", "x", non_negative.clone()),
        ("CellPadding", "y", non_negative.clone()),
        ("TableCellStyle", "content_offset_x", coordinate.clone()),
        ("TableCellStyle", "content_offset_y", coordinate.clone()),
        (
            "TablePaginationConfig",
            "row_min_height",
            non_negative.clone(),
        ),
        (
            "TablePaginationConfig",
            "header_min_height",
            non_negative.clone(),
        ),
        ("StackElement", "gap", non_negative),
    ];
    for element in placed {
        rules.push((element, "y", coordinate.clone()));
        rules.push((element, "x", coordinate.clone()));
        if element != "TextElement" {
            rules.push((element, "width", positive.clone()));
            rules.push((element, "height", positive.clone()));
        }
        if element != "LinkElement" {
            rules.push((element, "rotation", rotation.clone()));
        }
    }
    for (definition, property, rule) in rules {
        let Some(schema) = definitions.get_mut(definition) else {
            panic!("no definition {definition}");
        };
        assert!(
            constrain(schema, property, &rule),
            "{definition} has no property {property}"
        );
    }
    // A font weight: `normal`, `bold` or a whole number from 100 to 900.
    if let Some(weight) = definitions.get_mut("FontWeight") {
        weight["anyOf"] = json!([
            {"type": "integer", "minimum": 100, "maximum": 900},
            {"type": "string", "enum": ["normal", "bold"]},
        ]);
    }
    // A border or grid line: `false` (none) or a stroke; `true` is no value.
    if let Some(branches) = definitions
        .get_mut("StrokeOrOff")
        .and_then(|s| s.get_mut("anyOf"))
        .and_then(Value::as_array_mut)
    {
        for branch in branches {
            if branch["type"] == "boolean" {
                *branch = json!({"const": false});
            }
        }
    }
    // Fields that go together, as `if`/`then`/`else` (a null counts as
    // absent, as serde reads it): JSON Schema validators apply them, and
    // code generators, which would make a union type of an object's
    // `anyOf`, leave them alone.
    // A page's size: `size`, or both `width` and `height`.
    if let Some(page) = definitions.get_mut("Page") {
        page["if"] = json!({"required": ["size"], "properties": {"size": {"type": "string"}}});
        page["then"] =
            json!({"properties": {"width": {"type": "null"}, "height": {"type": "null"}}});
        page["else"] = json!({"required": ["width", "height"], "properties": {"width": {"type": "number"}, "height": {"type": "number"}}});
    }
    // `x` or `x_anchor`, exactly one.
    for element in placed {
        if let Some(schema) = definitions.get_mut(element) {
            schema["if"] = json!({"required": ["x"], "properties": {"x": {"type": "number"}}});
            schema["then"] = json!({"properties": {"x_anchor": {"type": "null"}}});
            schema["else"] =
                json!({"required": ["x_anchor"], "properties": {"x_anchor": {"type": "object"}}});
        }
    }
    // `rows` of a table are checked against its columns (keys, spans that
    // fit and do not overlap) by the validator.
    if let Some(rows) = definitions
        .get_mut("TableElement")
        .and_then(|t| t.pointer_mut("/properties/rows/description"))
    {
        *rows = json!("The body rows, top to bottom: objects keyed by column key (keys of no column are refused). A value is the cell's text (string, number, boolean or null) or a cell object (spans, style, link); a cell's spans must stay inside the table and not cover another cell, and `pagination.keep_spans_together` must stay true when cells use `row_span`.");
    }
}

/// Adds `rule` to every schema of `property` in `schema` (its own
/// properties and those of its `oneOf`/`anyOf`/`allOf` branches, not
/// following references); an `enum` keeps `null` when the property takes
/// it. False when there is no such property.
fn constrain(schema: &mut Value, property: &str, rule: &Value) -> bool {
    let mut found = false;
    if let Some(target) = schema.pointer_mut(&format!("/properties/{property}")) {
        let nullable = target["type"]
            .as_array()
            .is_some_and(|t| t.contains(&json!("null")))
            || target["anyOf"]
                .as_array()
                .is_some_and(|a| a.contains(&json!({"type": "null"})));
        for (key, value) in rule.as_object().expect("a rule is an object") {
            let mut value = value.clone();
            if key == "enum" && nullable {
                value.as_array_mut().expect("an enum").push(Value::Null);
            }
            target[key] = value;
        }
        found = true;
    }
    for keyword in ["oneOf", "anyOf", "allOf"] {
        if let Some(branches) = schema.get_mut(keyword).and_then(Value::as_array_mut) {
            for branch in branches {
                found |= constrain(branch, property, rule);
            }
        }
    }
    found
}

/// `pages[].elements`: every element type.
pub fn page_elements(generator: &mut SchemaGenerator) -> Schema {
    let union = union(
        generator,
        "PageElement",
        "An element of a page, chosen by its `type`.",
        |_| true,
    );
    array_of(union)
}

/// `header.elements`, `footer.elements` and a stack block's `elements`:
/// no tables or stacks (the validator refuses them there).
pub fn section_elements(generator: &mut SchemaGenerator) -> Schema {
    let union = union(
        generator,
        "NestedElement",
        "An element of a header, footer or stack block, chosen by its `type`: any but `table` and `stack`.",
        |k| k.nested,
    );
    array_of(union)
}

/// A stack's `children`: a table, then at least one block.
pub fn stack_children(generator: &mut SchemaGenerator) -> Schema {
    let table = ELEMENTS
        .iter()
        .find(|k| k.tag == "table")
        .map(|k| tagged(generator, k));
    let block = tagged(generator, &BLOCK);
    from_json(json!({
        "type": "array",
        "description": "A table, then one or more blocks.",
        "minItems": 2,
        "prefixItems": [table],
        "items": block,
    }))
}

/// A barcode element's `options` (or null): the common fields of
/// [`BarcodeOptions`], and the symbology's own options flattened beside
/// them. serde collects the latter into a map schemars cannot see into, so
/// they are described on the definition here: any other key, with a string,
/// number or boolean value (which keys a symbology takes, the barcode check
/// decides).
pub fn barcode_options(generator: &mut SchemaGenerator) -> Schema {
    let reference = generator.subschema_for::<BarcodeOptions>();
    let name = BarcodeOptions::schema_name();
    if let Some(Schema::Object(definition)) = generator.definitions_mut().get_mut(&name) {
        definition.metadata().description = Some(
            "Rendering options, and the symbology's own with the barcode service's names and values: `ecl` and `version` (QR), `shape` (Data Matrix), `cols`, `rows`, `ecl` and `compact` (PDF417), `ecl` and `layers` (Aztec), `mode`, `postcode`, `country` and `service` (MaxiCode), `bearer`, `thickness` and `quiet` (linear symbols). Keys of other symbologies are refused.".into(),
        );
        definition.object().additional_properties = Some(Box::new(from_json(
            json!({"type": ["string", "number", "boolean"]}),
        )));
    }
    from_json(json!({"anyOf": [reference, {"type": "null"}]}))
}

/// A table cell's text: a scalar.
pub fn cell_value(_: &mut SchemaGenerator) -> Schema {
    from_json(json!({
        "description": "The cell text: a string, number, boolean or null.",
        "type": ["string", "number", "boolean", "null"],
    }))
}

/// The definition `name`: one of the element kinds `admit`s, chosen by `type`.
fn union(
    generator: &mut SchemaGenerator,
    name: &str,
    description: &str,
    admit: impl Fn(&ElementKind) -> bool,
) -> Schema {
    let reference = Schema::new_ref(format!("{}{name}", generator.settings().definitions_path));
    if generator.definitions().contains_key(name) {
        return reference;
    }
    let variants: Vec<Schema> = ELEMENTS
        .iter()
        .filter(|k| admit(k))
        .map(|k| tagged(generator, k))
        .collect();
    let union = from_json(json!({
        "description": description,
        "type": "object",
        "required": ["type"],
        "oneOf": variants,
    }));
    generator.definitions_mut().insert(name.to_string(), union);
    reference
}

/// The element struct's schema (a reference), its definition given the
/// required `type` tag; a table's also its `rows`, which the validator
/// takes out before the struct is deserialised.
fn tagged(generator: &mut SchemaGenerator, kind: &ElementKind) -> Schema {
    let reference = (kind.subschema)(generator);
    let cell = (kind.tag == "table").then(|| generator.subschema_for::<ComplexCell>());
    let name = (kind.schema_name)();
    if let Some(Schema::Object(definition)) = generator.definitions_mut().get_mut(&name) {
        let object = definition.object();
        object.properties.insert(
            "type".into(),
            from_json(json!({"const": kind.tag, "description": "The element type."})),
        );
        object.required.insert("type".into());
        if let Some(cell) = cell {
            object.properties.insert("rows".into(), rows(cell));
            object.required.insert("rows".into());
        }
    }
    reference
}

/// A table's `rows`: objects keyed by column key, each value a scalar or a
/// cell object.
fn rows(cell: Schema) -> Schema {
    from_json(json!({
        "type": "array",
        "description": "The body rows, top to bottom: objects keyed by column key. A value is the cell's text (string, number, boolean or null) or a cell object (spans, style, link).",
        "items": {
            "type": "object",
            "additionalProperties": {
                "anyOf": [{"type": ["string", "number", "boolean", "null"]}, cell],
            },
        },
    }))
}

fn array_of(items: Schema) -> Schema {
    from_json(json!({"type": "array", "items": items}))
}

/// A schema written as JSON; schemars keeps keywords it has no field for
/// (`prefixItems`, `const`) as extensions.
fn from_json(value: Value) -> Schema {
    serde_json::from_value(value).expect("a JSON object is a schema")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_element_table_names_every_element_type_in_order() {
        let tags: Vec<&str> = ELEMENTS.iter().map(|k| k.tag).collect();
        assert_eq!(tags, ELEMENT_TYPES);
    }

    #[test]
    fn every_element_definition_requires_its_tag_and_refuses_unknown_fields() {
        let schema = document_request();
        let defs = schema["$defs"].as_object().unwrap();
        for kind in ELEMENTS.iter().chain([&BLOCK]) {
            let def = &defs[&(kind.schema_name)()];
            assert_eq!(def["properties"]["type"]["const"], kind.tag);
            assert!(def["required"].as_array().unwrap().contains(&json!("type")));
            assert_eq!(def["additionalProperties"], false, "{}", kind.tag);
        }
        let options = &defs["BarcodeOptions"]["additionalProperties"]["type"];
        assert_eq!(options, &json!(["string", "number", "boolean"]));
        let page = &defs["PageElement"]["oneOf"];
        assert_eq!(page.as_array().unwrap().len(), ELEMENTS.len());
        let nested = &defs["NestedElement"]["oneOf"];
        assert_eq!(nested.as_array().unwrap().len(), ELEMENTS.len() - 2);
        assert_eq!(schema["$ref"], "#/$defs/DocumentRequest");
    }
}
