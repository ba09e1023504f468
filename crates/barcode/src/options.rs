//! Rendering and symbology options, parsed strictly from `key=value` pairs
//! (the barcode service's query string, the CLI's `--opt`).

use super::option_specs::{self as specs, Value};
use super::{BarcodeError, Symbology};

/// Output size caps: nothing a request asks for may allocate without bound.
pub const MAX_PIXELS: u32 = 10_000;
/// Decimals a forced `width`/`height` may have: the SVG writer prints
/// numbers with at most three, so a finer value could not be honoured.
pub const PIXEL_DECIMALS: usize = 3;
pub const MAX_MARGIN: u32 = 100;
pub const MAX_BEARER: u32 = 100;

/// A forced output size in pixels, kept in thousandths so that options
/// stay `Eq` and `Hash` (they key the ETag): 150.5 px is `Px(150_500)`.
/// Always greater than 0 and at most [`MAX_PIXELS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Px(u32);

impl Px {
    /// A plain positive decimal (`150`, `150.5`, `0.25`) of at most
    /// [`PIXEL_DECIMALS`] decimals, greater than 0 and at most
    /// [`MAX_PIXELS`]. No sign, exponent, `inf` or `nan`.
    pub fn parse(s: &str) -> Option<Px> {
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
        if int.is_empty() || int.len() > 5 || !digits(int) {
            return None;
        }
        if s.contains('.') && (frac.is_empty() || frac.len() > PIXEL_DECIMALS || !digits(frac)) {
            return None;
        }
        let whole: u32 = int.parse().ok()?;
        let mut thousandths = 0;
        for (i, b) in frac.bytes().enumerate() {
            thousandths += u32::from(b - b'0') * 10u32.pow(2 - i as u32);
        }
        let milli = whole.checked_mul(1000)?.checked_add(thousandths)?;
        (milli > 0 && milli <= MAX_PIXELS * 1000).then_some(Px(milli))
    }

    pub fn get(self) -> f64 {
        f64::from(self.0) / 1000.0
    }
}

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    pub const BLACK: Rgb = Rgb(0, 0, 0);
    pub const WHITE: Rgb = Rgb(255, 255, 255);

    /// `RRGGBB`, with or without a leading `#`.
    pub fn parse(s: &str) -> Option<Rgb> {
        let hex = s.strip_prefix('#').unwrap_or(s);
        if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
        Some(Rgb(byte(0)?, byte(2)?, byte(4)?))
    }

    /// `#rrggbb`.
    pub fn to_hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QrEcl {
    L,
    M,
    Q,
    H,
}

impl QrEcl {
    pub fn letter(self) -> &'static str {
        match self {
            QrEcl::L => "L",
            QrEcl::M => "M",
            QrEcl::Q => "Q",
            QrEcl::H => "H",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DmShape {
    Square,
    Rect,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bearer {
    TopBottom,
    TopOnly,
    BottomOnly,
}

impl Bearer {
    pub fn top(self) -> bool {
        matches!(self, Bearer::TopBottom | Bearer::TopOnly)
    }
    pub fn bottom(self) -> bool {
        matches!(self, Bearer::TopBottom | Bearer::BottomOnly)
    }
}

/// Every option of the barcode service. `Default` is the service's default.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Options {
    /// Forced output width / height in px (the SVG's attributes).
    pub width: Option<Px>,
    pub height: Option<Px>,
    /// Clockwise degrees: 0, 90, 180 or 270.
    pub rotate: u16,
    /// Quiet zone on every side, in modules.
    pub margin: u32,
    pub fg: Rgb,
    pub bg: Rgb,
    /// 1-D bearer bars: which ones, their thickness in modules (0 = the
    /// default of 2) and the light zone in modules kept on each side of the
    /// bars inside them (ITF-14's 10X).
    pub bearer: Option<Bearer>,
    pub thickness: u32,
    pub quiet: u32,
    pub qr_ecl: QrEcl,
    pub qr_version: Option<u8>,
    pub dm_shape: DmShape,
    pub pdf417_cols: Option<u8>,
    pub pdf417_rows: Option<u8>,
    pub pdf417_ecl: Option<u8>,
    pub pdf417_compact: bool,
    /// Minimum error-correction percentage.
    pub aztec_ecl: u8,
    /// Negative = compact symbol with that many layers (1-4), positive =
    /// full-range symbol (1-32).
    pub aztec_layers: Option<i8>,
    pub maxi_mode: u8,
    pub maxi_postcode: Option<String>,
    pub maxi_country: Option<u16>,
    pub maxi_service: Option<u16>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            width: None,
            height: None,
            rotate: 0,
            margin: 0,
            fg: Rgb::BLACK,
            bg: Rgb::WHITE,
            bearer: None,
            thickness: 0,
            quiet: 10,
            qr_ecl: QrEcl::M,
            qr_version: None,
            dm_shape: DmShape::Square,
            pdf417_cols: None,
            pdf417_rows: None,
            pdf417_ecl: None,
            pdf417_compact: false,
            aztec_ecl: 23,
            aztec_layers: None,
            maxi_mode: 4,
            maxi_postcode: None,
            maxi_country: None,
            maxi_service: None,
        }
    }
}

/// Codewords in one PDF417 symbol at most (ISO/IEC 15438): the length
/// descriptor, data, padding and error correction together.
pub const PDF417_MAX_CODEWORDS: u32 = 928;

impl Options {
    /// Strict parse: an unknown parameter, one that does not apply to
    /// `symbology`, a repeated one (`m` and `margin` count as one) or an
    /// out-of-range value is an error naming it. Names and ranges come from
    /// the option table ([`super::option_specs`]), which runtime-config
    /// publishes.
    pub fn from_pairs<'a>(
        symbology: Symbology,
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Options, BarcodeError> {
        let mut o = Options::default();
        let mut seen: Vec<&str> = Vec::new();
        for (key, value) in pairs {
            let spec = specs::find(specs::COMMON, key)
                .or_else(|| specs::find(specs::specific(symbology), key));
            let Some(spec) = spec else {
                if specs::known_anywhere(key) {
                    return Err(BarcodeError::NotApplicable {
                        param: key.to_string(),
                        symbology: symbology.name(),
                    });
                }
                return Err(BarcodeError::UnknownParameter(key.to_string()));
            };
            if seen.contains(&spec.name) {
                return Err(BarcodeError::DuplicateParameter(key.to_string()));
            }
            seen.push(spec.name);
            let parsed =
                spec.kind
                    .parse(value)
                    .map_err(|expected| BarcodeError::InvalidParameter {
                        param: key.to_string(),
                        value: value.to_string(),
                        expected,
                    })?;
            o.set(symbology, spec.name, parsed)?;
        }
        o.check_combination(symbology)?;
        Ok(o)
    }

    /// Stores a value the table's [`Kind`](specs::Kind) has checked: the
    /// bounds are the table's, so the casts below cannot truncate.
    fn set(&mut self, symbology: Symbology, name: &str, value: Value) -> Result<(), BarcodeError> {
        match (name, value) {
            ("width", Value::Pixels(px)) => self.width = Some(px),
            ("height", Value::Pixels(px)) => self.height = Some(px),
            ("rotate", Value::Integer(n)) => self.rotate = n as u16,
            ("margin", Value::Integer(n)) => self.margin = n as u32,
            ("fg", Value::Colour(c)) => self.fg = c,
            ("bg", Value::Colour(c)) => self.bg = c,
            ("bearer", Value::Choice(word)) => {
                self.bearer = Some(match word {
                    "top_only" => Bearer::TopOnly,
                    "bottom_only" => Bearer::BottomOnly,
                    _ => Bearer::TopBottom,
                })
            }
            ("thickness", Value::Integer(n)) => self.thickness = n as u32,
            ("quiet", Value::Integer(n)) => self.quiet = n as u32,
            ("ecl", Value::Choice(letter)) => {
                self.qr_ecl = match letter {
                    "L" => QrEcl::L,
                    "Q" => QrEcl::Q,
                    "H" => QrEcl::H,
                    _ => QrEcl::M,
                }
            }
            ("ecl", Value::Integer(n)) if symbology == Symbology::Pdf417 => {
                self.pdf417_ecl = Some(n as u8)
            }
            ("ecl", Value::Integer(n)) => self.aztec_ecl = n as u8,
            ("version", Value::Integer(n)) => self.qr_version = Some(n as u8),
            ("shape", Value::Choice(word)) => {
                self.dm_shape = match word {
                    "rect" => DmShape::Rect,
                    _ => DmShape::Square,
                }
            }
            ("cols", Value::Integer(n)) => self.pdf417_cols = Some(n as u8),
            ("rows", Value::Integer(n)) => self.pdf417_rows = Some(n as u8),
            ("compact", Value::Boolean(b)) => self.pdf417_compact = b,
            ("layers", Value::Integer(n)) => self.aztec_layers = Some(n as i8),
            ("mode", Value::Integer(n)) => self.maxi_mode = n as u8,
            ("postcode", Value::Text(t)) => self.maxi_postcode = Some(t),
            ("country", Value::Text(t)) => self.maxi_country = t.parse().ok(),
            ("service", Value::Text(t)) => self.maxi_service = t.parse().ok(),
            // A table entry without a field here: a programming error,
            // answered as an unknown parameter rather than a panic.
            _ => return Err(BarcodeError::UnknownParameter(name.to_string())),
        }
        Ok(())
    }

    /// Rules that involve more than one parameter.
    fn check_combination(&self, symbology: Symbology) -> Result<(), BarcodeError> {
        match symbology {
            Symbology::Pdf417 => self.check_pdf417_shape(),
            Symbology::MaxiCode => self.check_maxicode_fields(),
            _ => Ok(()),
        }
    }

    /// A PDF417 symbol holds at most [`PDF417_MAX_CODEWORDS`] codewords
    /// (ISO/IEC 15438), so `cols` x `rows` given together may not exceed
    /// it, whatever the content: 30 x 90 would be 2,700.
    fn check_pdf417_shape(&self) -> Result<(), BarcodeError> {
        if let (Some(cols), Some(rows)) = (self.pdf417_cols, self.pdf417_rows) {
            let max_rows = PDF417_MAX_CODEWORDS / u32::from(cols);
            if u32::from(cols) * u32::from(rows) > PDF417_MAX_CODEWORDS {
                return Err(BarcodeError::InvalidParameter {
                    param: "rows".into(),
                    value: rows.to_string(),
                    expected: format!(
                        "at most {max_rows} with cols={cols}: cols x rows may not exceed the {PDF417_MAX_CODEWORDS} codewords a PDF417 symbol holds"
                    ),
                });
            }
        }
        Ok(())
    }

    fn check_maxicode_fields(&self) -> Result<(), BarcodeError> {
        let structured = matches!(self.maxi_mode, 2 | 3);
        let fields = [
            ("postcode", self.maxi_postcode.is_some()),
            ("country", self.maxi_country.is_some()),
            ("service", self.maxi_service.is_some()),
        ];
        for (name, given) in fields {
            if structured && !given {
                return Err(BarcodeError::InvalidParameter {
                    param: name.to_string(),
                    value: String::new(),
                    expected: format!(
                        "a value: MaxiCode mode {} requires postcode, country and service",
                        self.maxi_mode
                    ),
                });
            }
            if !structured && given {
                return Err(BarcodeError::NotApplicable {
                    param: name.to_string(),
                    symbology: "maxicode modes 4 and 5 (only modes 2 and 3 carry it)",
                });
            }
        }
        if let Some(pc) = &self.maxi_postcode {
            let ok = match self.maxi_mode {
                2 => pc.bytes().all(|b| b.is_ascii_digit()),
                _ => {
                    pc.len() <= 6
                        && pc
                            .bytes()
                            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b' ')
                }
            };
            if !ok {
                return Err(BarcodeError::InvalidParameter {
                    param: "postcode".into(),
                    value: pc.clone(),
                    expected: if self.maxi_mode == 2 {
                        "up to 9 digits in mode 2".into()
                    } else {
                        "up to 6 upper-case letters, digits or spaces in mode 3".into()
                    },
                });
            }
        }
        Ok(())
    }
}
