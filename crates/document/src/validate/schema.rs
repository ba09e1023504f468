//! Schema errors, all of them: unknown fields, wrong types and missing
//! required fields, each with its path.
//!
//! serde stops at the first error. To find the next one, the offending value
//! is taken out of the JSON and the value deserialised again, until it
//! deserialises or nothing more can be taken out: a missing required field
//! (there is nothing to take out), a value inside an array (taking it out
//! would shift the indexes of the errors after it) or a value serde cannot
//! locate. A removed required field is not reported a second time as missing.
//! When what is left deserialises, it is returned with the errors, so the
//! value's own rules still run and report their violations too.
//! Each round costs one deserialisation of one element or of the request's
//! top level, and the rounds are bounded by the violation limit.

use std::sync::LazyLock;

use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_path_to_error::Segment;

/// One schema error; `path` is relative to the deserialised value (`""` for itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    pub path: String,
    pub message: String,
}

/// What deserialisation found: the value (without what had to be taken
/// out) when it could be read, and every schema error (at most the limit).
#[derive(Debug)]
pub struct Parsed<T> {
    pub value: Option<T>,
    pub errors: Vec<SchemaError>,
}

/// Deserialises `value`, finding every schema error (at most `limit`).
pub fn deserialize_all<T: DeserializeOwned>(value: &Value, limit: usize) -> Parsed<T> {
    let first = match serde_path_to_error::deserialize::<_, T>(value) {
        Ok(parsed) => {
            return Parsed {
                value: Some(parsed),
                errors: Vec::new(),
            }
        }
        Err(e) => e,
    };
    let failed = |errors| Parsed {
        value: None,
        errors,
    };
    let mut value = value.clone();
    let mut errors = Vec::new();
    let mut removed: Vec<Vec<Key>> = Vec::new();
    let mut error = first;
    loop {
        let message = serde_message(error.inner());
        let Some(mut at) = keys(error.path()) else {
            errors.push(SchemaError {
                path: display(&[]),
                message,
            });
            return failed(errors);
        };
        // serde names an unknown or missing field in its message; the path
        // stops at the object that has (or lacks) it.
        if let Some(field) = quoted_after(&message, "missing field `") {
            at.push(Key::Field(field));
            if !removed.contains(&at) {
                errors.push(SchemaError {
                    path: display(&at),
                    message,
                });
            }
            return failed(errors);
        }
        if let Some(field) = quoted_after(&message, "unknown field `") {
            if at.last() != Some(&Key::Field(field.clone())) {
                at.push(Key::Field(field));
            }
        }
        errors.push(SchemaError {
            path: display(&at),
            message,
        });
        if errors.len() >= limit || !remove(&mut value, &at) {
            return failed(errors);
        }
        removed.push(at);
        error = match serde_path_to_error::deserialize::<_, T>(&value) {
            Ok(rest) => {
                return Parsed {
                    value: Some(rest),
                    errors,
                }
            }
            Err(e) => e,
        };
    }
}

/// serde's message without the position serde_json appends (" at line 1
/// column 2"), which means nothing in a parsed value, and in the request's
/// own words: serde names what it expected by Rust type (`f64`, `struct
/// Hrt`, `enum TextAlign`), which a caller cannot know.
fn serde_message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let text = match text.find(" at line ") {
        Some(i) => &text[..i],
        None => &text,
    };
    in_document_words(text)
}

/// serde's phrases with Rust types in them, rewritten: "invalid type: X,
/// expected Y", "invalid value: X, expected Y", "invalid length N,
/// expected Y" and "data did not match any variant of untagged enum E".
/// Other messages (unknown and missing fields, unknown variants) already
/// speak of the document and stay.
fn in_document_words(message: &str) -> String {
    if let Some(name) = message.strip_prefix("data did not match any variant of untagged enum ") {
        return format!("expected {}", expected_words(&format!("enum {name}")));
    }
    let rewritable = ["invalid type: ", "invalid value: ", "invalid length "]
        .iter()
        .any(|p| message.starts_with(p));
    let Some(at) = message.rfind(", expected ").filter(|_| rewritable) else {
        return message.to_string();
    };
    let (found, expected) = (&message[..at], &message[at + ", expected ".len()..]);
    let found = found
        .replace(": map", ": an object")
        .replace(": sequence", ": an array")
        .replace(": floating point ", ": number ")
        .replace(": unit value", ": null");
    format!("{found}, expected {}", expected_words(expected))
}

/// What serde's `expected` means, in words of the document.
fn expected_words(expected: &str) -> String {
    match expected {
        "f64" | "f32" => return "a number".into(),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => return "a whole number".into(),
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => {
            return "a whole number, at least 0".into()
        }
        "a sequence" => return "an array".into(),
        "a map" => return "an object".into(),
        "a borrowed string" => return "a string".into(),
        "option" => return "a value or null".into(),
        "unit" => return "null".into(),
        _ => {}
    }
    let type_name = [
        "internally tagged enum ",
        "adjacently tagged enum ",
        "struct variant ",
        "tuple variant ",
        "struct ",
        "enum ",
    ]
    .iter()
    .find_map(|prefix| expected.strip_prefix(prefix));
    match type_name {
        Some(name) => described(name.trim_end_matches(" with 1 element")),
        None => expected.to_string(),
    }
}

/// A type of the request by its Rust name, described from its schema
/// definition: the values of an enumeration, the tags of a tagged union,
/// the fields of an object.
fn described(rust_name: &str) -> String {
    static DEFINITIONS: LazyLock<Value> =
        LazyLock::new(|| crate::model::schema::document_request()["$defs"].clone());
    let name = match rust_name {
        "RawRequest" => "DocumentRequest",
        "RawPage" => "Page",
        "RawSection" => "Section",
        "RawBlock" => "Block",
        other => other,
    };
    match name {
        // Untagged unions: their forms in words.
        "FontWeight" => return "`normal`, `bold` or a whole number from 100 to 900".into(),
        "StrokeOrOff" => return "`false` or a stroke object".into(),
        _ => {}
    }
    let definition = &DEFINITIONS[name];
    if let Some(values) = definition["enum"].as_array() {
        let words: Vec<String> = values.iter().map(|v| format!("`{}`", plain(v))).collect();
        return format!("one of {}", or_list(&words));
    }
    if let Some(branches) = definition["oneOf"].as_array() {
        // A tagged union: each branch fixes its tag to one value.
        let mut tag = None;
        let mut values = Vec::new();
        for branch in branches {
            let Some(properties) = branch["properties"].as_object() else {
                continue;
            };
            for (key, schema) in properties {
                let fixed = schema["const"]
                    .as_str()
                    .or_else(|| schema["enum"].as_array().filter(|e| e.len() == 1)?[0].as_str());
                if let Some(value) = fixed {
                    tag = Some(key.clone());
                    values.push(format!("`{value}`"));
                }
            }
        }
        if let Some(tag) = tag {
            return format!("an object with `{tag}` {}", or_list(&values));
        }
    }
    match definition["properties"].as_object() {
        Some(fields) if !fields.is_empty() => {
            let names: Vec<String> = fields.keys().map(|k| format!("`{k}`")).collect();
            format!("an object (fields {})", names.join(", "))
        }
        _ => "an object".into(),
    }
}

fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// "a, b or c".
fn or_list(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [only] => only.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A step of a path into JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    Field(String),
    Index(usize),
}

/// The path as keys, when serde could locate every step.
fn keys(path: &serde_path_to_error::Path) -> Option<Vec<Key>> {
    path.iter()
        .map(|segment| match segment {
            Segment::Map { key } => Some(Key::Field(key.clone())),
            Segment::Seq { index } => Some(Key::Index(*index)),
            Segment::Enum { .. } | Segment::Unknown => None,
        })
        .collect()
}

/// `a.b[0].c`, the form of every violation path.
fn display(keys: &[Key]) -> String {
    let mut out = String::new();
    for key in keys {
        match key {
            Key::Field(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Key::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The text between `prefix` and the next backtick.
fn quoted_after(message: &str, prefix: &str) -> Option<String> {
    let rest = &message[message.find(prefix)? + prefix.len()..];
    Some(rest[..rest.find('`')?].to_string())
}

/// Takes the value at `path` out of its object. Values in arrays stay: taking
/// one out would move the ones after it to other indexes.
fn remove(value: &mut Value, path: &[Key]) -> bool {
    let Some((Key::Field(last), parents)) = path.split_last() else {
        return false;
    };
    let mut at = value;
    for key in parents {
        at = match (key, at) {
            (Key::Field(name), Value::Object(map)) => match map.get_mut(name) {
                Some(v) => v,
                None => return false,
            },
            (Key::Index(i), Value::Array(items)) => match items.get_mut(*i) {
                Some(v) => v,
                None => return false,
            },
            _ => return false,
        };
    }
    at.as_object_mut()
        .and_then(|map| map.remove(last))
        .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        size: f64,
        #[serde(default)]
        name: Option<String>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Outer {
        x: f64,
        #[serde(default)]
        style: Option<Inner>,
        #[serde(default)]
        list: Vec<Inner>,
    }

    fn paths(value: Value) -> Vec<String> {
        deserialize_all::<Outer>(&value, 100)
            .errors
            .into_iter()
            .map(|e| e.path)
            .collect()
    }

    #[test]
    fn a_valid_value_deserialises() {
        let parsed = deserialize_all::<Outer>(&json!({"x": 1, "style": {"size": 2}}), 100);
        assert!(parsed.errors.is_empty());
        assert_eq!(parsed.value.unwrap().x, 1.0);
    }

    #[test]
    fn what_is_left_after_the_errors_is_returned_with_them() {
        let parsed = deserialize_all::<Outer>(&json!({"x": 4, "y": 1}), 100);
        assert_eq!(parsed.errors.len(), 1);
        assert_eq!(parsed.value.unwrap().x, 4.0);
    }

    #[test]
    fn unknown_fields_and_wrong_types_are_all_reported() {
        assert_eq!(
            paths(json!({"x": 1, "style": {"size": 2, "colour": 1, "name": 3}, "extra": true})),
            // serde_json's map keeps keys sorted: errors come in key order.
            ["extra", "style.colour", "style.name"]
        );
    }

    #[test]
    fn a_missing_field_is_reported_after_the_others() {
        let errors = deserialize_all::<Outer>(&json!({"xx": 1}), 100).errors;
        assert_eq!(errors[0].path, "xx");
        assert!(errors[0].message.contains("unknown field `xx`"));
        assert_eq!(errors[1].path, "x");
        assert!(errors[1].message.contains("missing field `x`"));
        assert_eq!(errors.len(), 2);
    }

    #[test]
    fn a_wrong_required_value_is_not_also_missing() {
        let errors = deserialize_all::<Outer>(&json!({"x": "one"}), 100).errors;
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].path, "x");
        assert!(errors[0].message.contains("invalid type"));
    }

    #[test]
    fn errors_inside_array_items_keep_their_index() {
        assert_eq!(
            paths(json!({"x": 1, "list": [{"size": 1}, {"size": 1, "bad": 0, "name": 2}]})),
            ["list[1].bad", "list[1].name"]
        );
    }

    #[test]
    fn a_wrong_array_item_ends_the_search() {
        assert_eq!(
            paths(json!({"x": 1, "list": [7, {"size": 1}], "yy": 1})),
            ["list[0]"]
        );
    }

    #[test]
    fn messages_name_no_rust_types() {
        let cases = [
            (
                json!({"x": "one"}),
                "invalid type: string \"one\", expected a number",
            ),
            (
                json!({"x": 1, "style": 3}),
                "invalid type: integer `3`, expected an object",
            ),
            (
                json!({"x": 1, "list": {}}),
                "invalid type: an object, expected an array",
            ),
        ];
        for (value, message) in cases {
            let errors = deserialize_all::<Outer>(&value, 100).errors;
            assert_eq!(errors[0].message, message, "{value}");
        }
        let rewritten = [
            ("invalid type: map, expected f64", "invalid type: an object, expected a number"),
            ("invalid type: floating point `1.5`, expected i64", "invalid type: number `1.5`, expected a whole number"),
            ("invalid value: integer `-1`, expected u32", "invalid value: integer `-1`, expected a whole number, at least 0"),
            ("invalid type: integer `1`, expected enum TextAlign", "invalid type: integer `1`, expected one of `left`, `center`, `right` or `justify`"),
            ("invalid type: string \"x\", expected internally tagged enum LinkTarget", "invalid type: string \"x\", expected an object with `type` `url` or `page`"),
            ("data did not match any variant of untagged enum FontWeight", "expected `normal`, `bold` or a whole number from 100 to 900"),
            ("invalid type: sequence, expected struct RawPage", "invalid type: an array, expected an object (fields `elements`, `height`, `margin`, `size`, `width`)"),
            ("unknown field `colour`", "unknown field `colour`"),
        ];
        for (serde, words) in rewritten {
            assert_eq!(in_document_words(serde), words);
        }
    }

    #[test]
    fn the_limit_bounds_the_rounds() {
        let mut object = serde_json::Map::new();
        object.insert("x".into(), json!(1));
        for i in 0..500 {
            object.insert(format!("f{i}"), json!(i));
        }
        let errors = deserialize_all::<Outer>(&Value::Object(object), 100).errors;
        assert_eq!(errors.len(), 100);
    }
}
