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
/// column 2"), which means nothing in a parsed value.
fn serde_message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.find(" at line ") {
        Some(i) => text[..i].to_string(),
        None => text,
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
