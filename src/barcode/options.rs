//! Rendering and symbology options, parsed strictly from `key=value` pairs
//! (the barcode service's query string, the CLI's `--opt`).

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

/// Parameters every symbology takes.
/// Parameters of every symbology (`m` is short for `margin`).
pub const COMMON: &[&str] = &["width", "height", "rotate", "margin", "m", "fg", "bg"];

/// The symbology-specific parameters of `s`.
pub fn parameters_of(s: Symbology) -> &'static [&'static str] {
    use Symbology::*;
    match s {
        Qr | Gs1Qr => &["ecl", "version"],
        DataMatrix | Gs1DataMatrix => &["shape"],
        Pdf417 => &["cols", "rows", "ecl", "compact"],
        Aztec => &["ecl", "layers"],
        MaxiCode => &["mode", "postcode", "country", "service"],
        _ if s.is_linear() => &["bearer", "thickness", "quiet"],
        _ => &[],
    }
}

impl Options {
    /// Strict parse: an unknown parameter, one that does not apply to
    /// `symbology`, a repeated one (`m` and `margin` count as one) or an
    /// out-of-range value is an error naming it.
    pub fn from_pairs<'a>(
        symbology: Symbology,
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Options, BarcodeError> {
        let mut o = Options::default();
        let mut seen: Vec<&str> = Vec::new();
        for (key, value) in pairs {
            let canonical = if key == "m" { "margin" } else { key };
            let known = COMMON.contains(&key)
                || Symbology::all()
                    .iter()
                    .any(|s| parameters_of(*s).contains(&key));
            if !known {
                return Err(BarcodeError::UnknownParameter(key.to_string()));
            }
            if !COMMON.contains(&key) && !parameters_of(symbology).contains(&key) {
                return Err(BarcodeError::NotApplicable {
                    param: key.to_string(),
                    symbology: symbology.name(),
                });
            }
            if seen.contains(&canonical) {
                return Err(BarcodeError::DuplicateParameter(key.to_string()));
            }
            seen.push(canonical);
            o.set(symbology, key, value)?;
        }
        o.check_combination(symbology)?;
        Ok(o)
    }

    fn set(&mut self, symbology: Symbology, key: &str, value: &str) -> Result<(), BarcodeError> {
        let bad = |expected: &str| BarcodeError::InvalidParameter {
            param: key.to_string(),
            value: value.to_string(),
            expected: expected.to_string(),
        };
        let int = |lo: i64, hi: i64| -> Result<i64, BarcodeError> {
            // Plain decimal integers only: no sign tricks, no exponent, bounded length.
            let digits = value.strip_prefix('-').unwrap_or(value);
            if digits.is_empty() || digits.len() > 6 || !digits.bytes().all(|b| b.is_ascii_digit())
            {
                return Err(bad(&format!("an integer from {lo} to {hi}")));
            }
            let n: i64 = value
                .parse()
                .map_err(|_| bad(&format!("an integer from {lo} to {hi}")))?;
            if n < lo || n > hi {
                return Err(bad(&format!("an integer from {lo} to {hi}")));
            }
            Ok(n)
        };
        match key {
            "width" | "height" => {
                let px = Px::parse(value).ok_or_else(|| {
                    bad(&format!(
                        "a number of pixels greater than 0 and at most {MAX_PIXELS}, with up to {PIXEL_DECIMALS} decimals (150 or 150.5)"
                    ))
                })?;
                if key == "width" {
                    self.width = Some(px);
                } else {
                    self.height = Some(px);
                }
            }
            "rotate" => {
                self.rotate = match value {
                    "0" => 0,
                    "90" => 90,
                    "180" => 180,
                    "270" => 270,
                    _ => return Err(bad("0, 90, 180 or 270")),
                }
            }
            "margin" | "m" => self.margin = int(0, MAX_MARGIN as i64)? as u32,
            "fg" => self.fg = Rgb::parse(value).ok_or_else(|| bad("a colour RRGGBB or #RRGGBB"))?,
            "bg" => self.bg = Rgb::parse(value).ok_or_else(|| bad("a colour RRGGBB or #RRGGBB"))?,
            "bearer" => {
                self.bearer = Some(match value {
                    "top_bottom" => Bearer::TopBottom,
                    "top_only" => Bearer::TopOnly,
                    "bottom_only" => Bearer::BottomOnly,
                    _ => return Err(bad("top_bottom, top_only or bottom_only")),
                })
            }
            "thickness" => self.thickness = int(0, MAX_BEARER as i64)? as u32,
            "quiet" => self.quiet = int(0, MAX_MARGIN as i64)? as u32,
            "ecl" => match symbology {
                Symbology::Pdf417 => self.pdf417_ecl = Some(int(0, 8)? as u8),
                Symbology::Aztec => self.aztec_ecl = int(0, 100)? as u8,
                _ => {
                    self.qr_ecl = match value {
                        "L" | "l" => QrEcl::L,
                        "M" | "m" => QrEcl::M,
                        "Q" | "q" => QrEcl::Q,
                        "H" | "h" => QrEcl::H,
                        _ => return Err(bad("L, M, Q or H")),
                    }
                }
            },
            "version" => self.qr_version = Some(int(1, 40)? as u8),
            "shape" => {
                self.dm_shape = match value {
                    "square" => DmShape::Square,
                    "rect" => DmShape::Rect,
                    _ => return Err(bad("square or rect")),
                }
            }
            "cols" => self.pdf417_cols = Some(int(1, 30)? as u8),
            "rows" => self.pdf417_rows = Some(int(3, 90)? as u8),
            "compact" => {
                self.pdf417_compact = match value {
                    "true" | "1" => true,
                    "false" | "0" => false,
                    _ => return Err(bad("true or false")),
                }
            }
            "layers" => {
                let n = int(-4, 32)?;
                if n == 0 {
                    return Err(bad("1 to 32 (full-range) or -1 to -4 (compact)"));
                }
                self.aztec_layers = Some(n as i8);
            }
            "mode" => {
                self.maxi_mode = match value {
                    "2" => 2,
                    "3" => 3,
                    "4" => 4,
                    "5" => 5,
                    // Mode 6 (reader programming) is not offered: the
                    // service's range is 2 to 5.
                    _ => return Err(bad("2, 3, 4 or 5")),
                }
            }
            "postcode" => {
                // Mode 2: up to 9 digits; mode 3: up to 6 characters of
                // MaxiCode Code Set A. Checked against the mode later.
                if value.is_empty()
                    || value.len() > 9
                    || !value
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b' ')
                {
                    return Err(bad("up to 9 digits (mode 2) or 6 letters/digits (mode 3)"));
                }
                self.maxi_postcode = Some(value.to_string());
            }
            "country" => {
                self.maxi_country = Some(three_digits(value).ok_or_else(|| bad("3 digits"))?)
            }
            "service" => {
                self.maxi_service = Some(three_digits(value).ok_or_else(|| bad("3 digits"))?)
            }
            _ => return Err(BarcodeError::UnknownParameter(key.to_string())),
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

fn three_digits(s: &str) -> Option<u16> {
    if s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit()) {
        s.parse().ok()
    } else {
        None
    }
}
