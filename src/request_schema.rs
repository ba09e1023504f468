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
use serde_json::{json, Value};

use crate::model::*;

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
    root["$defs"] = json!(generator.take_definitions());
    root
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
