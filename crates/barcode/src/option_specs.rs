//! The table of barcode options: for each option its name, the values it
//! takes and its default. It is the one description of them: the barcode
//! service's and a barcode element's option parsing ([`super::Options`])
//! reads ranges from it, and runtime-config publishes it as is, so the
//! published ranges are the enforced ones (docs/http-api.md, "Barcode service").

use serde::Serialize;

use super::options::{Px, Rgb, MAX_BEARER, MAX_MARGIN, MAX_PIXELS, PIXEL_DECIMALS};
use super::Symbology;

/// One option: how it is spelled, what it takes, what it is when absent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct OptionSpec {
    pub name: &'static str,
    /// Other spellings of the same option (`m` for `margin`).
    #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
    pub aliases: &'static [&'static str],
    #[serde(flatten)]
    pub kind: Kind,
    /// The value used when the option is absent; `null`: chosen from the
    /// content (the smallest symbol that holds it).
    pub default: DefaultValue,
    pub description: &'static str,
}

/// The values an option takes. Published with a `type` tag.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Kind {
    /// A plain decimal integer from `min` to `max`; 0 refused when `not_zero`.
    Integer { min: i64, max: i64, not_zero: bool },
    /// One of these integers, written exactly so.
    IntegerIn { values: &'static [i64] },
    /// One of these words (any case when `ignore_case`).
    Choice {
        values: &'static [&'static str],
        ignore_case: bool,
    },
    /// A size in pixels: greater than 0, at most `max`, at most `decimals`
    /// decimals.
    Pixels { max: u32, decimals: usize },
    /// An sRGB colour `RRGGBB` or `#RRGGBB`.
    Colour,
    /// `true`/`false` (or `1`/`0`).
    Boolean,
    /// 1 to `max_length` ASCII letters, digits or spaces.
    Alphanumeric { max_length: usize },
    /// Exactly `length` ASCII digits.
    Digits { length: usize },
}

/// An option's default as published.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum DefaultValue {
    /// Chosen from the content (published as `null`).
    Auto,
    Integer(i64),
    Text(&'static str),
    Boolean(bool),
}

/// An option's value, parsed and within its [`Kind`]'s bounds.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Integer(i64),
    /// The canonical spelling from [`Kind::Choice`]'s values.
    Choice(&'static str),
    Pixels(Px),
    Colour(Rgb),
    Boolean(bool),
    Text(String),
}

impl Kind {
    /// Parses `text` as this kind. The error is what was expected, for a
    /// message such as "expected an integer from 1 to 40".
    pub fn parse(&self, text: &str) -> Result<Value, String> {
        let expected = self.expected();
        match *self {
            Kind::Integer { min, max, not_zero } => {
                let n = plain_integer(text).ok_or_else(|| expected.clone())?;
                if n < min || n > max || (not_zero && n == 0) {
                    return Err(expected);
                }
                Ok(Value::Integer(n))
            }
            Kind::IntegerIn { values } => values
                .iter()
                .find(|v| v.to_string() == text)
                .map(|&v| Value::Integer(v))
                .ok_or(expected),
            Kind::Choice {
                values,
                ignore_case,
            } => values
                .iter()
                .find(|v| match ignore_case {
                    true => v.eq_ignore_ascii_case(text),
                    false => **v == text,
                })
                .map(|&v| Value::Choice(v))
                .ok_or(expected),
            Kind::Pixels { .. } => Px::parse(text).map(Value::Pixels).ok_or(expected),
            Kind::Colour => Rgb::parse(text).map(Value::Colour).ok_or(expected),
            Kind::Boolean => match text {
                "true" | "1" => Ok(Value::Boolean(true)),
                "false" | "0" => Ok(Value::Boolean(false)),
                _ => Err(expected),
            },
            Kind::Alphanumeric { max_length } => {
                let fits = !text.is_empty()
                    && text.len() <= max_length
                    && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b' ');
                fits.then(|| Value::Text(text.to_string())).ok_or(expected)
            }
            Kind::Digits { length } => {
                let fits = text.len() == length && text.bytes().all(|b| b.is_ascii_digit());
                fits.then(|| Value::Text(text.to_string())).ok_or(expected)
            }
        }
    }

    /// What a value of this kind looks like, in words.
    pub fn expected(&self) -> String {
        match *self {
            Kind::Integer {
                min,
                max,
                not_zero: false,
            } => format!("an integer from {min} to {max}"),
            Kind::Integer { min, max, .. } => format!("an integer from {min} to {max}, not 0"),
            Kind::IntegerIn { values } => {
                let words: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                one_of(&words)
            }
            Kind::Choice { values, .. } => {
                let words: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                one_of(&words)
            }
            Kind::Pixels { max, decimals } => format!(
                "a number of pixels greater than 0 and at most {max}, with up to {decimals} decimals (150 or 150.5)"
            ),
            Kind::Colour => "a colour RRGGBB or #RRGGBB".into(),
            Kind::Boolean => "true or false".into(),
            Kind::Alphanumeric { max_length } => {
                format!("1 to {max_length} letters, digits or spaces")
            }
            Kind::Digits { length } => format!("{length} digits"),
        }
    }
}

/// "a, b or c".
fn one_of(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [only] => only.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A plain decimal integer: an optional `-`, at most 6 digits; no `+`,
/// exponent or spaces, so every accepted spelling is bounded.
fn plain_integer(text: &str) -> Option<i64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || digits.len() > 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

const fn integer(min: i64, max: i64) -> Kind {
    Kind::Integer {
        min,
        max,
        not_zero: false,
    }
}

const fn choice(values: &'static [&'static str]) -> Kind {
    Kind::Choice {
        values,
        ignore_case: false,
    }
}

const fn spec(
    name: &'static str,
    kind: Kind,
    default: DefaultValue,
    description: &'static str,
) -> OptionSpec {
    OptionSpec {
        name,
        aliases: &[],
        kind,
        default,
        description,
    }
}

/// Options of every symbology in the barcode service. A barcode element
/// sets size, margins and colours itself (`width`, `height`, `rotation`,
/// `options.quiet_zone`, `options.color`, ...), so it takes none of these.
pub const COMMON: &[OptionSpec] = &[
    spec(
        "width",
        Kind::Pixels {
            max: MAX_PIXELS,
            decimals: PIXEL_DECIMALS,
        },
        DefaultValue::Auto,
        "output width in px; absent: the symbol's natural size",
    ),
    spec(
        "height",
        Kind::Pixels {
            max: MAX_PIXELS,
            decimals: PIXEL_DECIMALS,
        },
        DefaultValue::Auto,
        "output height in px; absent: the symbol's natural size",
    ),
    spec(
        "rotate",
        Kind::IntegerIn {
            values: &[0, 90, 180, 270],
        },
        DefaultValue::Integer(0),
        "clockwise rotation in degrees",
    ),
    OptionSpec {
        name: "margin",
        aliases: &["m"],
        kind: integer(0, MAX_MARGIN as i64),
        default: DefaultValue::Integer(0),
        description: "quiet zone on every side, in modules",
    },
    spec(
        "fg",
        Kind::Colour,
        DefaultValue::Text("#000000"),
        "colour of bars and dark modules",
    ),
    spec(
        "bg",
        Kind::Colour,
        DefaultValue::Text("#ffffff"),
        "background colour",
    ),
];

const LINEAR: &[OptionSpec] = &[
    spec(
        "bearer",
        choice(&["top_bottom", "top_only", "bottom_only"]),
        DefaultValue::Auto,
        "bearer bars; absent: none",
    ),
    spec(
        "thickness",
        integer(0, MAX_BEARER as i64),
        DefaultValue::Integer(0),
        "bearer bar thickness in modules (0: 2 modules)",
    ),
    spec(
        "quiet",
        integer(0, MAX_MARGIN as i64),
        DefaultValue::Integer(10),
        "light modules between the bars and each bearer bar, and before and after the bars",
    ),
];

const QR: &[OptionSpec] = &[
    spec(
        "ecl",
        Kind::Choice {
            values: &["L", "M", "Q", "H"],
            ignore_case: true,
        },
        DefaultValue::Text("M"),
        "error correction level",
    ),
    spec(
        "version",
        integer(1, 40),
        DefaultValue::Auto,
        "symbol version (size); absent: the smallest that holds the content",
    ),
];

const DATAMATRIX: &[OptionSpec] = &[spec(
    "shape",
    choice(&["square", "rect"]),
    DefaultValue::Text("square"),
    "square or rectangular symbol",
)];

const PDF417: &[OptionSpec] = &[
    spec(
        "cols",
        integer(1, 30),
        DefaultValue::Auto,
        "data columns; cols x rows may not exceed 928 codewords",
    ),
    spec(
        "rows",
        integer(3, 90),
        DefaultValue::Auto,
        "rows; cols x rows may not exceed 928 codewords",
    ),
    spec(
        "ecl",
        integer(0, 8),
        DefaultValue::Auto,
        "error correction level; absent: chosen from the content's length",
    ),
    spec(
        "compact",
        Kind::Boolean,
        DefaultValue::Boolean(false),
        "compact PDF417 (no right row indicators)",
    ),
];

const AZTEC: &[OptionSpec] = &[
    spec(
        "ecl",
        integer(0, 100),
        DefaultValue::Integer(23),
        "minimum error correction, in percent of the symbol",
    ),
    spec(
        "layers",
        Kind::Integer {
            min: -4,
            max: 32,
            not_zero: true,
        },
        DefaultValue::Auto,
        "1 to 32: full-range symbol with that many layers; -1 to -4: compact symbol",
    ),
];

const MAXICODE: &[OptionSpec] = &[
    spec(
        "mode",
        Kind::IntegerIn {
            values: &[2, 3, 4, 5],
        },
        DefaultValue::Integer(4),
        "2 and 3 carry a structured carrier message (postcode, country, service)",
    ),
    spec(
        "postcode",
        Kind::Alphanumeric { max_length: 9 },
        DefaultValue::Auto,
        "modes 2 and 3 only (required there): up to 9 digits (mode 2), up to 6 upper-case letters, digits or spaces (mode 3)",
    ),
    spec(
        "country",
        Kind::Digits { length: 3 },
        DefaultValue::Auto,
        "modes 2 and 3 only (required there): ISO 3166 numeric country code",
    ),
    spec(
        "service",
        Kind::Digits { length: 3 },
        DefaultValue::Auto,
        "modes 2 and 3 only (required there): class of service",
    ),
];

/// The options particular to `symbology` (beside [`COMMON`]); these are
/// also a barcode element's `options`.
pub fn specific(symbology: Symbology) -> &'static [OptionSpec] {
    use Symbology::*;
    match symbology {
        Qr | Gs1Qr => QR,
        DataMatrix | Gs1DataMatrix => DATAMATRIX,
        Pdf417 => PDF417,
        Aztec => AZTEC,
        MaxiCode => MAXICODE,
        s if s.is_linear() => LINEAR,
        _ => &[],
    }
}

/// The option of `table` spelled `key` (by name or alias).
pub fn find(table: &'static [OptionSpec], key: &str) -> Option<&'static OptionSpec> {
    table
        .iter()
        .find(|o| o.name == key || o.aliases.contains(&key))
}

/// Whether any symbology has an option spelled `key`.
pub fn known_anywhere(key: &str) -> bool {
    find(COMMON, key).is_some()
        || Symbology::all()
            .iter()
            .any(|s| find(specific(*s), key).is_some())
}

/// One symbology as runtime-config lists it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SymbologyInfo {
    pub name: &'static str,
    /// Other names the service accepts for it.
    #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
    pub aliases: &'static [&'static str],
    /// 1 for bars, 2 for matrix and stacked symbols.
    pub dimensions: u8,
    /// Content is a GS1 element string `(AI)value...`.
    pub gs1: bool,
    /// Its options, in the service's query and a barcode element's `options`.
    pub options: &'static [OptionSpec],
}

/// Every symbology with its options, and the options they all take in the
/// barcode service.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct BarcodeCatalog {
    /// Options of every symbology in the barcode service (not of a
    /// barcode element, which has its own fields for them).
    pub service_options: &'static [OptionSpec],
    pub symbologies: Vec<SymbologyInfo>,
}

impl BarcodeCatalog {
    pub fn new() -> BarcodeCatalog {
        let symbologies = Symbology::all()
            .iter()
            .map(|&s| SymbologyInfo {
                name: s.name(),
                aliases: s.aliases(),
                dimensions: if s.is_linear() { 1 } else { 2 },
                gs1: s.is_gs1(),
                options: specific(s),
            })
            .collect();
        BarcodeCatalog {
            service_options: COMMON,
            symbologies,
        }
    }
}

impl Default for BarcodeCatalog {
    fn default() -> Self {
        BarcodeCatalog::new()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BarcodeError, Options};
    use super::*;

    /// Every option of `symbology`, common ones first.
    fn all_of(symbology: Symbology) -> impl Iterator<Item = &'static OptionSpec> {
        COMMON.iter().chain(specific(symbology))
    }

    /// The published bounds of every integer option are the enforced
    /// ones: both ends accepted, one past either end refused, naming them.
    #[test]
    fn integer_options_accept_their_bounds_and_refuse_one_past_them() {
        for &symbology in Symbology::all() {
            for spec in all_of(symbology) {
                let Kind::Integer { min, max, not_zero } = spec.kind else {
                    continue;
                };
                for inside in [min, max] {
                    let text = inside.to_string();
                    let parsed = Options::from_pairs(symbology, [(spec.name, text.as_str())]);
                    assert!(
                        parsed.is_ok(),
                        "{symbology} {}={inside}: {parsed:?}",
                        spec.name
                    );
                }
                let mut outside = vec![min - 1, max + 1];
                if not_zero {
                    outside.push(0);
                }
                for value in outside {
                    let text = value.to_string();
                    match Options::from_pairs(symbology, [(spec.name, text.as_str())]) {
                        Err(BarcodeError::InvalidParameter {
                            param, expected, ..
                        }) => {
                            assert_eq!(param, spec.name);
                            assert!(
                                expected.contains(&format!("from {min} to {max}")),
                                "{expected}"
                            );
                        }
                        other => panic!("{symbology} {}={value}: {other:?}", spec.name),
                    }
                }
            }
        }
    }

    /// Every published default is the value an absent option has: setting
    /// it explicitly changes nothing.
    #[test]
    fn published_defaults_are_the_defaults_in_force() {
        let mut checked = 0;
        for &symbology in Symbology::all() {
            for spec in all_of(symbology) {
                let text = match spec.default {
                    DefaultValue::Auto => continue,
                    DefaultValue::Integer(n) => n.to_string(),
                    DefaultValue::Text(t) => t.to_string(),
                    DefaultValue::Boolean(b) => b.to_string(),
                };
                let parsed = Options::from_pairs(symbology, [(spec.name, text.as_str())])
                    .unwrap_or_else(|e| panic!("{symbology} {}={text}: {e}", spec.name));
                assert_eq!(
                    parsed,
                    Options::default(),
                    "{symbology} {}={text}",
                    spec.name
                );
                checked += 1;
            }
        }
        assert!(checked > 50, "{checked}");
    }

    /// A non-default value of every option reaches the options (no table
    /// entry without a field behind it).
    #[test]
    fn every_option_sets_a_field() {
        for &symbology in Symbology::all() {
            for spec in all_of(symbology) {
                let text = match spec.kind {
                    Kind::Integer { max, .. } => max.to_string(),
                    Kind::IntegerIn { values } => values[values.len() - 1].to_string(),
                    Kind::Choice { values, .. } => values[values.len() - 1].to_string(),
                    Kind::Pixels { .. } => "7".into(),
                    Kind::Colour => "123456".into(),
                    Kind::Boolean => "true".into(),
                    // Postcode, country and service need mode 2 or 3.
                    Kind::Alphanumeric { .. } | Kind::Digits { .. } => continue,
                };
                let parsed = Options::from_pairs(symbology, [(spec.name, text.as_str())])
                    .unwrap_or_else(|e| panic!("{symbology} {}={text}: {e}", spec.name));
                assert_ne!(
                    parsed,
                    Options::default(),
                    "{symbology} {}={text}",
                    spec.name
                );
            }
        }
        let maxi = Options::from_pairs(
            Symbology::MaxiCode,
            [
                ("mode", "2"),
                ("postcode", "12345"),
                ("country", "840"),
                ("service", "001"),
            ],
        )
        .unwrap();
        assert_eq!(
            (
                maxi.maxi_postcode.as_deref(),
                maxi.maxi_country,
                maxi.maxi_service
            ),
            (Some("12345"), Some(840), Some(1))
        );
    }

    #[test]
    fn the_catalogue_lists_every_symbology_with_its_table() {
        let catalog = serde_json::to_value(BarcodeCatalog::new()).unwrap();
        let symbologies = catalog["symbologies"].as_array().unwrap();
        assert_eq!(symbologies.len(), Symbology::all().len());
        let qr = &symbologies.iter().find(|s| s["name"] == "qr").unwrap();
        assert_eq!(qr["aliases"], serde_json::json!(["qrcode"]));
        assert_eq!(qr["dimensions"], 2);
        assert_eq!(
            qr["options"][1],
            serde_json::json!({"name": "version", "type": "integer", "min": 1, "max": 40,
                "not_zero": false, "default": null,
                "description": "symbol version (size); absent: the smallest that holds the content"})
        );
        assert_eq!(
            catalog["service_options"][3]["aliases"],
            serde_json::json!(["m"])
        );
    }
}
