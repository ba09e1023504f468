//! Barcode engine: symbology encoders that produce a [`Symbol`], an SVG
//! renderer, a GS1 element-string parser and the parsed form of a barcode
//! image request. No HTTP: the server's route reads [`BarcodeRequest`].
//!
//! Encoders never draw and renderers never encode (see STYLE.md). Every
//! input is validated (character set, length, capacity bounds) before it
//! reaches a third-party encoder, whose calls also run under
//! `catch_unwind`: no request can panic or abort the process.

mod aztec;
pub mod code128;
mod datamatrix;
mod error;
pub mod fit;
pub mod gs1;
mod guard;
mod linear;
mod maxicode;
mod msi;
pub mod option_specs;
mod options;
mod pdf417;
mod qr;
mod qr_mask;
mod request;
pub mod svg;
mod symbol;
pub mod vector;

use std::fmt;
use std::str::FromStr;

pub use error::BarcodeError;
pub use options::{
    Bearer, DmShape, Options, Px, QrEcl, Rgb, MAX_BEARER, MAX_MARGIN, MAX_PIXELS,
    PDF417_MAX_CODEWORDS,
};
pub use request::{cli_svg, BarcodeRequest};
pub use symbol::{maxi, Run, Symbol};

/// The symbologies of the barcode service, by their path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Symbology {
    Code128,
    Ean13,
    Ean8,
    Upca,
    Upce,
    Code39,
    Code93,
    Codabar,
    Itf,
    Msi,
    Gs1_128,
    Itf14,
    Qr,
    Gs1Qr,
    DataMatrix,
    Gs1DataMatrix,
    Pdf417,
    Aztec,
    MaxiCode,
}

const ALL: &[Symbology] = &[
    Symbology::Code128,
    Symbology::Ean13,
    Symbology::Ean8,
    Symbology::Upca,
    Symbology::Upce,
    Symbology::Code39,
    Symbology::Code93,
    Symbology::Codabar,
    Symbology::Itf,
    Symbology::Msi,
    Symbology::Gs1_128,
    Symbology::Itf14,
    Symbology::Qr,
    Symbology::Gs1Qr,
    Symbology::DataMatrix,
    Symbology::Gs1DataMatrix,
    Symbology::Pdf417,
    Symbology::Aztec,
    Symbology::MaxiCode,
];

impl Symbology {
    /// Every symbology, in the order runtime-config lists them.
    pub fn all() -> &'static [Symbology] {
        ALL
    }

    /// The canonical path name (`qr` for QR Code; `qrcode` is accepted too).
    pub fn name(self) -> &'static str {
        match self {
            Symbology::Code128 => "code128",
            Symbology::Ean13 => "ean13",
            Symbology::Ean8 => "ean8",
            Symbology::Upca => "upca",
            Symbology::Upce => "upce",
            Symbology::Code39 => "code39",
            Symbology::Code93 => "code93",
            Symbology::Codabar => "codabar",
            Symbology::Itf => "itf",
            Symbology::Msi => "msi",
            Symbology::Gs1_128 => "gs1_128",
            Symbology::Itf14 => "itf14",
            Symbology::Qr => "qr",
            Symbology::Gs1Qr => "gs1_qr",
            Symbology::DataMatrix => "datamatrix",
            Symbology::Gs1DataMatrix => "gs1_datamatrix",
            Symbology::Pdf417 => "pdf417",
            Symbology::Aztec => "aztec",
            Symbology::MaxiCode => "maxicode",
        }
    }

    /// Other names the service accepts for it.
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            Symbology::Qr => &["qrcode"],
            _ => &[],
        }
    }

    pub fn is_linear(self) -> bool {
        matches!(
            self,
            Symbology::Code128
                | Symbology::Ean13
                | Symbology::Ean8
                | Symbology::Upca
                | Symbology::Upce
                | Symbology::Code39
                | Symbology::Code93
                | Symbology::Codabar
                | Symbology::Itf
                | Symbology::Msi
                | Symbology::Gs1_128
                | Symbology::Itf14
        )
    }

    /// Whether the content is a GS1 element string `(AI)value...`.
    pub fn is_gs1(self) -> bool {
        matches!(
            self,
            Symbology::Gs1_128 | Symbology::Gs1Qr | Symbology::Gs1DataMatrix
        )
    }
}

impl fmt::Display for Symbology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Symbology {
    type Err = BarcodeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.to_ascii_lowercase();
        ALL.iter()
            .copied()
            .find(|sym| sym.name() == lower || sym.aliases().contains(&lower.as_str()))
            .ok_or_else(|| BarcodeError::UnknownSymbology {
                name: s.chars().take(64).collect(),
                valid: ALL.iter().map(|s| s.name()).collect::<Vec<_>>().join(", "),
            })
    }
}

/// Encode `content` as `symbology`. Options that only affect drawing
/// (size, colours, rotation, margin, bearer bars) are ignored here.
pub fn encode(
    symbology: Symbology,
    content: &str,
    options: &Options,
) -> Result<Symbol, BarcodeError> {
    if content.is_empty() {
        return Err(BarcodeError::Empty);
    }
    match symbology {
        Symbology::Msi => msi::encode(content),
        Symbology::Gs1_128 => {
            let elements = gs1::parse(content)?;
            linear::encode_gs1_128(&elements)
        }
        s if s.is_linear() => linear::encode(s, content),
        Symbology::Qr => qr::encode(content, options, false),
        Symbology::Gs1Qr => {
            let elements = gs1::parse(content)?;
            qr::encode(&gs1::element_string(&elements), options, true)
        }
        Symbology::DataMatrix => datamatrix::encode(content, options, false),
        Symbology::Gs1DataMatrix => {
            let elements = gs1::parse(content)?;
            datamatrix::encode(&gs1::element_string(&elements), options, true)
        }
        Symbology::Pdf417 => pdf417::encode(content, options),
        Symbology::Aztec => aztec::encode(content, options),
        Symbology::MaxiCode => maxicode::encode(content, options),
        _ => unreachable!("every symbology is matched above"),
    }
}

/// The GS1 modulo-10 check digit of `digits` (the check digit's place
/// excluded): the last digit of a GTIN or an ITF-14. `None` unless every
/// character is an ASCII digit.
pub fn gs1_check_digit(digits: &str) -> Option<char> {
    digits
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| linear::gs1_check_digit(digits))
}

/// Encode and render to SVG in one step.
pub fn to_svg(
    symbology: Symbology,
    content: &str,
    options: &Options,
) -> Result<String, BarcodeError> {
    let symbol = encode(symbology, content, options)?;
    Ok(svg::render(&symbol, options))
}

/// Shared character-count check used by every encoder before its
/// third-party call, so that encode time stays bounded.
pub(crate) fn check_len(
    symbology: &'static str,
    content: &str,
    limit: usize,
    unit: &'static str,
) -> Result<(), BarcodeError> {
    let length = if unit == "bytes" {
        content.len()
    } else {
        content.chars().count()
    };
    if length > limit {
        return Err(BarcodeError::TooLong {
            symbology,
            length,
            limit,
            unit,
        });
    }
    Ok(())
}
