//! Where a [`RuntimeConfig`] comes from, lowest precedence first: the
//! built-in defaults, a `--config` TOML file, then `LABELPRESS_<SECTION>__<KEY>`
//! environment variables (docs/operations.md). All layers meet in one TOML
//! table that is deserialised once into the same `deny_unknown_fields`
//! types, so a variable is checked exactly as the same key in the file is.

use std::ffi::OsString;
use std::path::Path;

use serde::Deserialize as _;
use toml::{Table, Value};

use super::RuntimeConfig;

/// Prefix of every variable of this program. Only names with a double
/// underscore after it (`LABELPRESS_LIMITS__RENDER_QUEUE`) are
/// configuration keys; single-underscore ones (`LABELPRESS_CONFIG`,
/// `LABELPRESS_DATABASE_URL`) are command-line flags' twins and never are.
const PREFIX: &str = "LABELPRESS_";
const SEPARATOR: &str = "__";

/// Keys runtime-config publishes but nobody sets: catalogs of what this
/// build and node support (section, or section.key).
pub const READ_ONLY_KEYS: &[&str] = &[
    "page_sizes",
    "profiles",
    "barcodes",
    "ranges",
    "fonts.families",
];

/// Why no configuration could be built; the start stops (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The `--config` file (or TOML text) is unreadable or invalid.
    #[error("{origin}: {message}")]
    Toml { origin: String, message: String },
    /// A `LABELPRESS_<SECTION>__<KEY>` variable names no key or holds a bad value.
    #[error("{variable}: {message}")]
    Variable { variable: String, message: String },
}

impl RuntimeConfig {
    /// Reads TOML override text; fields it leaves out keep their defaults.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let table = parse_toml("TOML", text)?;
        let config = settings(table).map_err(|message| toml_error("TOML", message))?;
        config
            .check_consistency()
            .map_err(|e| toml_error("TOML", e.to_string()))?;
        Ok(config)
    }

    /// The built-in defaults, overridden by `file` (TOML) if given, then by
    /// the `LABELPRESS_<SECTION>__<KEY>` variables among `vars`.
    pub fn load(
        file: Option<&Path>,
        vars: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> Result<RuntimeConfig, ConfigError> {
        let mut table = match file {
            Some(path) => {
                let origin = path.display().to_string();
                let text = std::fs::read_to_string(path)
                    .map_err(|e| toml_error(&origin, e.to_string()))?;
                let table = parse_toml(&origin, &text)?;
                settings(table.clone()).map_err(|message| toml_error(&origin, message))?;
                table
            }
            None => Table::new(),
        };
        let template = template();
        let mut variables: Vec<(String, OsString)> = vars
            .into_iter()
            .filter_map(|(name, value)| Some((name.into_string().ok()?, value)))
            .filter(|(name, _)| is_config_variable(name))
            .collect();
        // Sorted, so that of several bad variables the same one is named each time.
        variables.sort();
        for (variable, value) in variables {
            let fail = |message: String| ConfigError::Variable {
                variable: variable.clone(),
                message,
            };
            let (section, key) = section_and_key(&variable);
            let template_value = lookup(&template, &section, &key).map_err(fail)?;
            let text = value
                .to_str()
                .ok_or_else(|| fail("the value is not UTF-8".into()))?;
            let typed =
                typed_value(template_value, text).map_err(|message| match super::ranges::RANGES
                    .iter()
                    .find(|k| k.section == section && k.key == key)
                {
                    Some(k) if message.ends_with("is out of range") => {
                        fail(format!("{message}: {}", k.range))
                    }
                    _ => fail(message),
                })?;
            let section_table = table
                .entry(section.clone())
                .or_insert_with(|| Value::Table(Table::new()));
            let Value::Table(section_table) = section_table else {
                return Err(fail(format!(
                    "`{section}` in the --config file is not a table"
                )));
            };
            section_table.insert(key, typed);
            // Checked as each variable is added, so an error names it.
            settings(table.clone()).map_err(fail)?;
        }
        let config = settings(table).map_err(|message| toml_error("configuration", message))?;
        config
            .check_consistency()
            .map_err(|e| toml_error("configuration", e.to_string()))?;
        Ok(config)
    }
}

/// Whether `name` is a configuration key's variable.
fn is_config_variable(name: &str) -> bool {
    name.strip_prefix(PREFIX)
        .is_some_and(|rest| rest.contains(SEPARATOR))
}

/// `LABELPRESS_LIMITS__RENDER_QUEUE` is (`limits`, `render_queue`).
fn section_and_key(variable: &str) -> (String, String) {
    let rest = &variable[PREFIX.len()..];
    let (section, key) = rest.split_once(SEPARATOR).unwrap_or((rest, ""));
    (section.to_ascii_lowercase(), key.to_ascii_lowercase())
}

/// The built-in configuration as a TOML table: which keys exist, and the
/// type each takes.
fn template() -> Table {
    Table::try_from(RuntimeConfig::default()).unwrap_or_default()
}

/// The default value of `section.key`, or why that key cannot be set.
fn lookup<'t>(template: &'t Table, section: &str, key: &str) -> Result<&'t Value, String> {
    let dotted = format!("{section}.{key}");
    if READ_ONLY_KEYS.contains(&section) || READ_ONLY_KEYS.contains(&dotted.as_str()) {
        return Err(read_only(if READ_ONLY_KEYS.contains(&section) {
            section
        } else {
            &dotted
        }));
    }
    let Some(Value::Table(keys)) = template.get(section) else {
        let sections: Vec<&str> = template.keys().map(String::as_str).collect();
        return Err(format!(
            "unknown section `{section}`; the sections are {}",
            sections.join(", ")
        ));
    };
    keys.get(key).ok_or_else(|| {
        let closest = keys
            .keys()
            .map(|k| (strsim::jaro_winkler(k, key), k))
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .filter(|(score, _)| *score > 0.8);
        match closest {
            Some((_, k)) => format!("unknown key `{key}` in {section} (did you mean `{k}`?)"),
            None => format!("unknown key `{key}` in {section}"),
        }
    })
}

fn read_only(key: &str) -> String {
    format!("`{key}` is read-only: runtime-config publishes what this build and node support, it cannot be set")
}

/// `text` as a TOML value of the same type as `template`. A list is
/// comma-separated (`Noto Sans,Noto Sans CJK JP`), blanks around items
/// ignored.
fn typed_value(template: &Value, text: &str) -> Result<Value, String> {
    let trimmed = text.trim();
    match template {
        Value::String(_) => Ok(Value::String(text.to_string())),
        Value::Integer(_) => match trimmed.parse::<i64>() {
            Ok(n) => Ok(Value::Integer(n)),
            // A whole number, only too large for any setting (2^64 - 1).
            Err(_) if trimmed.parse::<i128>().is_ok() || is_digits(trimmed) => {
                Err(format!("`{text}` is out of range"))
            }
            Err(_) => Err(format!("`{text}` is not an integer")),
        },
        Value::Float(_) => match trimmed.parse::<f64>() {
            Ok(n) if n.is_finite() => Ok(Value::Float(n)),
            _ => Err(format!("`{text}` is not a number")),
        },
        Value::Boolean(_) => match trimmed {
            "true" | "1" => Ok(Value::Boolean(true)),
            "false" | "0" => Ok(Value::Boolean(false)),
            _ => Err(format!("`{text}` is not true or false")),
        },
        Value::Array(_) if trimmed.is_empty() => Ok(Value::Array(Vec::new())),
        Value::Array(_) => trimmed
            .split(',')
            .map(|item| match item.trim() {
                "" => Err("an empty item in a comma-separated list".to_string()),
                item => Ok(Value::String(item.to_string())),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        _ => Err("this key cannot be set from the environment".into()),
    }
}

/// An optional sign and at least one ASCII digit, nothing else.
fn is_digits(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Parses TOML text and refuses the read-only keys in it.
fn parse_toml(origin: &str, text: &str) -> Result<Table, ConfigError> {
    let table: Table = text
        .parse()
        .map_err(|e: toml::de::Error| toml_error(origin, e.to_string()))?;
    for &key in READ_ONLY_KEYS {
        let present = match key.split_once('.') {
            Some((section, inner)) => table
                .get(section)
                .and_then(Value::as_table)
                .is_some_and(|t| t.contains_key(inner)),
            None => table.contains_key(key),
        };
        if present {
            return Err(toml_error(origin, read_only(key)));
        }
    }
    Ok(table)
}

/// The settings a table holds, on the built-in defaults; the error on one line.
fn settings(table: Table) -> Result<RuntimeConfig, String> {
    let table_cells_set = table
        .get("limits")
        .and_then(Value::as_table)
        .is_some_and(|limits| limits.contains_key("table_cells"));
    let mut config = RuntimeConfig::deserialize(table).map_err(|e| one_line(&e.to_string()))?;
    if !table_cells_set {
        config.limits.table_cells =
            super::Limits::table_cells_within(config.limits.render_memory_cap_mb());
    }
    config.check_each_key().map_err(|e| e.to_string())?;
    Ok(config)
}

fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

fn toml_error(origin: &str, message: String) -> ConfigError {
    ConfigError::Toml {
        origin: origin.to_string(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .collect()
    }

    fn load(file: Option<&str>, pairs: &[(&str, &str)]) -> Result<RuntimeConfig, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        if let Some(text) = file {
            std::fs::write(&path, text).unwrap();
        }
        RuntimeConfig::load(file.map(|_| path.as_path()), vars(pairs))
    }

    #[test]
    fn variables_override_each_type_of_key() {
        let config = load(
            None,
            &[
                ("LABELPRESS_LIMITS__RENDER_QUEUE", "8"),
                ("LABELPRESS_LIMITS__PAGE_SIDE_MM", "1000"),
                ("LABELPRESS_LIMITS__RENDER_ISOLATION", "thread"),
                ("LABELPRESS_DEFAULTS__TEXT_COLOR", "#333333"),
                ("LABELPRESS_DEFAULTS__FONT_SIZE", "12.5"),
                ("LABELPRESS_FONTS__FALLBACK", "Noto Sans, DejaVu Sans"),
            ],
        )
        .unwrap();
        assert_eq!(config.limits.render_queue, 8);
        assert_eq!(config.limits.page_side_mm, 1000.0);
        assert_eq!(
            config.limits.render_isolation,
            super::super::Isolation::Thread
        );
        assert_eq!(config.defaults.text_color, "#333333");
        assert_eq!(config.defaults.font_size, 12.5);
        assert_eq!(config.fonts.fallback, ["Noto Sans", "DejaVu Sans"]);
        // Untouched keys keep their defaults.
        assert_eq!(config.limits.sheets, 2_000);
    }

    /// Issue 28 item 2: `table_cells` follows the memory a render has.
    #[test]
    fn table_cells_left_out_follow_the_render_memory_cap() {
        let cells = |pairs: &[(&str, &str)]| load(None, pairs).unwrap().limits.table_cells;
        assert_eq!(cells(&[]), 4096 * 40);
        assert_eq!(RuntimeConfig::default().limits.table_cells, 4096 * 40);
        assert_eq!(
            cells(&[("LABELPRESS_LIMITS__RENDER_WORKER_MEMORY_MB", "8192")]),
            8192 * 40
        );
        assert_eq!(
            cells(&[("LABELPRESS_LIMITS__RENDER_WORKER_MEMORY_MB", "0")]),
            1_000_000
        );
        assert_eq!(
            cells(&[("LABELPRESS_LIMITS__RENDER_WORKER_MEMORY_MB", "1048576")]),
            1_000_000
        );
        assert_eq!(
            cells(&[("LABELPRESS_LIMITS__RENDER_ISOLATION", "thread")]),
            1_000_000
        );
        let file = "[limits]\nrender_worker_memory_mb = 2048\n";
        assert_eq!(load(Some(file), &[]).unwrap().limits.table_cells, 2048 * 40);
        // Set explicitly: kept when the cap holds it, refused when not.
        assert_eq!(cells(&[("LABELPRESS_LIMITS__TABLE_CELLS", "100")]), 100);
        let refused = load(None, &[("LABELPRESS_LIMITS__TABLE_CELLS", "1000000")])
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("limits.table_cells = 1000000")
                && refused.contains("render_worker_memory_mb holds = 163840"),
            "{refused}"
        );
        let file = "[limits]\ntable_cells = 500000\nrender_worker_memory_mb = 16384\n";
        assert_eq!(load(Some(file), &[]).unwrap().limits.table_cells, 500_000);
    }

    #[test]
    fn the_environment_overrides_the_file_which_overrides_the_defaults() {
        let file = "[limits]\nrender_queue = 4\nsheets = 10\n";
        let config = load(Some(file), &[("LABELPRESS_LIMITS__RENDER_QUEUE", "8")]).unwrap();
        assert_eq!(config.limits.render_queue, 8);
        assert_eq!(config.limits.sheets, 10);
        assert_eq!(config.limits.elements, 100_000);
    }

    #[test]
    fn flag_twins_and_other_variables_are_not_configuration() {
        let config = load(
            None,
            &[
                ("LABELPRESS_CONFIG", "/nonexistent.toml"),
                ("LABELPRESS_DATABASE_URL", "postgres://x"),
                ("LABELPRESS_RESOURCES", "/tmp"),
                ("LABELPRESS_NO_SYSTEM_FONTS", "1"),
                ("PATH", "/bin"),
                ("OTHER__LIMITS__RENDER_QUEUE", "1"),
            ],
        )
        .unwrap();
        assert_eq!(config, RuntimeConfig::default());
    }

    #[test]
    fn bad_variables_are_refused_naming_the_variable() {
        let cases = [
            (
                "LABELPRESS_LIMITS__RENDER_QUEU",
                "8",
                "unknown key `render_queu` in limits (did you mean `render_queue`?)",
            ),
            (
                "LABELPRESS_LIMIT__RENDER_QUEUE",
                "8",
                "unknown section `limit`",
            ),
            (
                "LABELPRESS_LIMITS__RENDER_QUEUE",
                "eight",
                "`eight` is not an integer",
            ),
            ("LABELPRESS_LIMITS__RENDER_QUEUE", "-1", "render_queue"),
            (
                "LABELPRESS_LIMITS__PAGE_SIDE_MM",
                "inf",
                "`inf` is not a number",
            ),
            (
                "LABELPRESS_LIMITS__RENDER_THREAD_NICE",
                "20",
                "a nice increment is 0 to 19",
            ),
            ("LABELPRESS_LIMITS__RENDER_ISOLATION", "fork", "fork"),
            (
                "LABELPRESS_FONTS__FALLBACK",
                "Noto Sans,,DejaVu Sans",
                "empty item",
            ),
            (
                "LABELPRESS_FONTS__FAMILIES",
                "DejaVu Sans",
                "`fonts.families` is read-only",
            ),
            (
                "LABELPRESS_PAGE_SIZES__A4",
                "1",
                "`page_sizes` is read-only",
            ),
            ("LABELPRESS_BARCODES__QR", "1", "`barcodes` is read-only"),
        ];
        for (variable, value, expected) in cases {
            let error = load(None, &[(variable, value)]).unwrap_err();
            let message = error.to_string();
            assert!(
                matches!(&error, ConfigError::Variable { variable: v, .. } if v == variable),
                "{variable}={value}: {message}"
            );
            assert!(message.starts_with(&format!("{variable}: ")), "{message}");
            assert!(message.contains(expected), "{variable}={value}: {message}");
            assert!(!message.contains('\n'), "one line: {message}");
        }
    }

    /// Issue 28's hostile configuration: values that aborted the start,
    /// made every request fail, or were silently replaced. Each stops the
    /// start naming the variable, the key, its value and its range.
    #[test]
    fn values_outside_their_ranges_are_refused_naming_the_range() {
        let cases = [
            ("LIMITS__RENDER_CONCURRENCY", "100000", "0 to 128"),
            ("LIMITS__RENDER_CONCURRENCY", "2000", "0 to 128"),
            ("LIMITS__RENDER_WORKER_MEMORY_MB", "1", "1024 to"),
            (
                "LIMITS__RENDER_WORKER_MEMORY_MB",
                "400",
                "or 0 to turn it off",
            ),
            ("LIMITS__RENDER_WORKER_MEMORY_MB", "600", "1024 to"),
            ("LIMITS__RENDER_DEADLINE_MS", "0", "100 to"),
            ("LIMITS__BODY_BYTES", "0", "1024 to"),
            ("LIMITS__PNG_DPI_MAX", "0", "72 to"),
            ("LIMITS__PNG_DPI_MAX", "71", "72 to"),
            ("DEFAULTS__PNG_DPI", "0", "72 to"),
            ("LIMITS__PAGE_SIDE_MM", "-1", "1 to 5080"),
            ("LIMITS__PAGE_SIDE_MM", "1e308", "1 to 5080"),
            ("DEFAULTS__FONT_SIZE", "1e308", "1 to 1000"),
            ("DEFAULTS__FONT_SIZE", "-1", "1 to 1000"),
            ("DEFAULTS__FONT_SIZE", "0", "1 to 1000"),
            ("LIMITS__BARCODE_MODULE_MIN_MM", "-1", "0.001 to 1"),
            ("LIMITS__RATE_LIMIT_PER_SECOND", "0", "1 to"),
            ("LIMITS__RATE_LIMIT_BURST", "0", "1 to"),
            ("LIMITS__MAX_CONNECTIONS", "0", "1 to"),
            ("LIMITS__LEDGER_CONNECTIONS", "0", "1 to 1000"),
            ("LIMITS__VERIFY_TIMEOUT_MS", "0", "100 to"),
            ("LIMITS__BARCODE_QUEUE", "0", "1 to"),
            (
                "LIMITS__BODY_BYTES",
                "18446744073709551615",
                "out of range: 1024 to",
            ),
        ];
        for (name, value, range) in cases {
            let variable = format!("LABELPRESS_{name}");
            let error = load(None, &[(&variable, value)]).unwrap_err();
            let message = error.to_string();
            assert!(
                matches!(&error, ConfigError::Variable { variable: v, .. } if *v == variable),
                "{variable}={value}: {message}"
            );
            let key = name.to_ascii_lowercase().replace("__", ".");
            assert!(
                message.contains(&key) || message.contains(value),
                "{variable}={value} names the key or value: {message}"
            );
            assert!(message.contains("out of range"), "{message}");
            assert!(message.contains(range), "{variable}={value}: {message}");
        }
        for colour in ["red", "#12", "", "#GGGGGG"] {
            let message = load(None, &[("LABELPRESS_DEFAULTS__TEXT_COLOR", colour)])
                .unwrap_err()
                .to_string();
            assert!(message.contains("not a colour"), "{colour:?}: {message}");
        }
    }

    #[test]
    fn the_file_is_held_to_the_same_ranges_and_rules() {
        let message = load(
            Some(
                "[limits]
render_deadline_ms = 0
",
            ),
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            message.contains("limits.render_deadline_ms = 0 is out of range: 100 to 3600000"),
            "{message}"
        );
        let message = RuntimeConfig::from_toml(
            "[defaults]
font_size = -1.0
",
        )
        .unwrap_err()
        .to_string();
        assert!(message.contains("defaults.font_size = -1"), "{message}");
        // A rule across keys is checked once every layer is in: the file's
        // dpi cap and the variable's default dpi together.
        let message = load(
            Some(
                "[limits]
png_dpi_max = 300
",
            ),
            &[("LABELPRESS_DEFAULTS__PNG_DPI", "600")],
        )
        .unwrap_err()
        .to_string();
        assert!(
            message.contains("defaults.png_dpi = 600 is above limits.png_dpi_max = 300"),
            "{message}"
        );
        let both = load(
            None,
            &[
                ("LABELPRESS_DEFAULTS__PNG_DPI", "1500"),
                ("LABELPRESS_LIMITS__PNG_DPI_MAX", "2400"),
            ],
        )
        .unwrap();
        assert_eq!(both.defaults.png_dpi, 1500.0);
    }

    #[test]
    fn read_only_keys_in_the_file_are_refused() {
        for (text, key) in [
            ("[[page_sizes]]\nname = \"a3\"\n", "page_sizes"),
            ("profiles = []\n", "profiles"),
            ("[barcodes]\nx = 1\n", "barcodes"),
            ("[fonts]\nfamilies = [\"X\"]\n", "fonts.families"),
        ] {
            let message = load(Some(text), &[]).unwrap_err().to_string();
            assert!(
                message.contains(&format!("`{key}` is read-only")),
                "{text}: {message}"
            );
            let message = RuntimeConfig::from_toml(text).unwrap_err().to_string();
            assert!(message.contains("read-only"), "{message}");
        }
    }

    /// Every settable key of the published configuration can be set from
    /// the environment (its default, written back as text, round-trips).
    #[test]
    fn every_key_can_be_set_from_the_environment() {
        let template = template();
        let mut set = Vec::new();
        for (section, keys) in &template {
            let Value::Table(keys) = keys else { continue };
            for (key, value) in keys {
                let text = match value {
                    Value::Array(items) => items
                        .iter()
                        .map(|i| i.as_str().unwrap().to_string())
                        .collect::<Vec<_>>()
                        .join(","),
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                set.push((
                    format!(
                        "LABELPRESS_{}__{}",
                        section.to_uppercase(),
                        key.to_uppercase()
                    ),
                    text,
                ));
            }
        }
        assert!(set.len() > 50, "{} keys", set.len());
        let pairs: Vec<(&str, &str)> = set.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(load(None, &pairs).unwrap(), RuntimeConfig::default());
    }
}
