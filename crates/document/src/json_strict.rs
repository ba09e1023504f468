//! JSON parsing that refuses duplicate object keys.
//!
//! `serde_json::Value` keeps the last of two equal keys, so
//! `{"count": 1, "count": 2}` reads as `{"count": 2}`: a proxy or a log that
//! reads the first one sees a different request than the service does. Every
//! JSON body the server accepts (the render route, `/v1/verify`, the admin
//! API) is parsed here instead, into the same [`Value`] serde_json builds, in
//! one pass: the duplicate check is the map lookup the insert does anyway.
//!
//! Everything else is serde_json's own: its syntax errors, its recursion
//! limit (128 levels), its check for trailing characters.

use std::fmt;

use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Number, Value};

/// Parses `bytes` as one JSON value. A duplicate key in any object is an
/// error like a syntax error (`duplicate key "count" at line 1 column 19`),
/// with the position just after the second occurrence of the key.
pub fn from_slice(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = Strict.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Builds a [`Value`] like serde_json's own visitor, refusing duplicate keys.
#[derive(Clone, Copy)]
struct Strict;

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Value;

    #[inline]
    fn deserialize<D: serde::Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    #[inline]
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    #[inline]
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    #[inline]
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    #[inline]
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // JSON text has no NaN or infinity; serde_json maps them to null too.
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    #[inline]
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    #[inline]
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    #[inline]
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    #[inline]
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    #[inline]
    fn visit_some<D: serde::Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        self.deserialize(de)
    }

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Strict)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            // Checked before the value is read, so the error's position
            // points at the duplicate key, not past its value.
            match object.entry(key) {
                Entry::Occupied(taken) => {
                    return Err(A::Error::custom(format_args!(
                        "duplicate key {:?}",
                        taken.key()
                    )));
                }
                Entry::Vacant(slot) => {
                    slot.insert(map.next_value_seed(Strict)?);
                }
            }
        }
        Ok(Value::Object(object))
    }
}

/// Whether a Content-Type is `application/json`, with at most a UTF-8
/// charset parameter: what every JSON body must be declared as (the render
/// routes and the admin API answer 415 otherwise).
pub fn is_json_media_type(content_type: &str) -> bool {
    let mut parts = content_type.split(';').map(str::trim);
    let essence = parts.next().unwrap_or_default();
    essence.eq_ignore_ascii_case("application/json")
        && parts.all(|p| match p.split_once('=') {
            Some((k, v)) if k.trim().eq_ignore_ascii_case("charset") => {
                let v = v.trim().trim_matches('"');
                v.eq_ignore_ascii_case("utf-8") || v.eq_ignore_ascii_case("utf8")
            }
            _ => p.is_empty(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_the_value_serde_json_builds() {
        let text =
            br#" {"a": [1, -2, 3.5, 1e300, "x\u00e9", true, null, {}], "b": {"c": {"d": []}},
                        "big": 18446744073709551615, "neg": -9223372036854775808} "#;
        let ours = from_slice(text).unwrap();
        let theirs: Value = serde_json::from_slice(text).unwrap();
        assert_eq!(ours, theirs);
    }

    #[test]
    fn a_duplicate_key_at_any_depth_is_an_error_with_its_position() {
        let e = from_slice(br#"{"count":1,"count":2}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"duplicate key "count" at line 1 column 18"#
        );
        assert_eq!((e.line(), e.column()), (1, 18));
        let nested = b"{\"pages\": [{\"size\": \"a6\",\n \"elements\": [], \"size\": \"a4\"}]}";
        let e = from_slice(nested).unwrap_err();
        assert!(e.to_string().starts_with(r#"duplicate key "size""#), "{e}");
        assert_eq!(e.line(), 2);
        // Keys equal after unescaping are the same key.
        assert!(from_slice(br#"{"a":1,"\u0061":2}"#).is_err());
        // Equal keys in different objects are fine.
        assert!(from_slice(br#"{"a":{"a":1},"b":{"a":2}}"#).is_ok());
    }

    /// The cost against serde_json's own parse, on a file named by
    /// `JSON_STRICT_BENCH` (e.g. a 2,000-row invoice from
    /// `gen_requests.py`): `cargo test --lib json_strict -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn cost_against_serde_json() {
        let Ok(path) = std::env::var("JSON_STRICT_BENCH") else {
            return;
        };
        let bytes = std::fs::read(path).unwrap();
        let time = |parse: &dyn Fn() -> Value| {
            let mut best = std::time::Duration::MAX;
            for _ in 0..30 {
                let started = std::time::Instant::now();
                std::hint::black_box(parse());
                best = best.min(started.elapsed());
            }
            best
        };
        let theirs = time(&|| serde_json::from_slice(&bytes).unwrap());
        let ours = time(&|| from_slice(&bytes).unwrap());
        println!(
            "{} bytes: serde_json {theirs:?}, strict {ours:?} ({:+.1}%)",
            bytes.len(),
            (ours.as_secs_f64() / theirs.as_secs_f64() - 1.0) * 100.0
        );
    }

    #[test]
    fn serde_json_errors_and_limits_stay_as_they_were() {
        for bad in [&b"{"[..], b"[1,]", b"{} x", b"", b"nul"] {
            let ours = from_slice(bad).unwrap_err().to_string();
            let theirs = serde_json::from_slice::<Value>(bad)
                .unwrap_err()
                .to_string();
            assert_eq!(ours, theirs, "{}", String::from_utf8_lossy(bad));
        }
        let deep = "[".repeat(200) + &"]".repeat(200);
        let e = from_slice(deep.as_bytes()).unwrap_err();
        assert!(e.to_string().contains("recursion limit"), "{e}");
    }
}
