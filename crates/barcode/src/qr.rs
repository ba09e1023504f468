//! QR Code, taking the bare module matrix (no quiet zone, no scaling: the
//! renderer does both).
//!
//! Plain QR goes through `qrcodegen`: rxing's encoder spent about 0.5 ms per
//! label symbol (allocating Reed-Solomon polynomials and mask candidates), a
//! tenth of a whole label render. GS1 QR stays with rxing, which writes the
//! FNC1 mode indicator that qrcodegen has no segment for. Both choose the
//! smallest version for the requested level and the mask of lowest penalty.

use qrcodegen::{Mask, QrCode, QrCodeEcc, QrSegment, Version};
use rxing::qrcode::common::ErrorCorrectionLevel;
use rxing::qrcode::encoder::qrcode_encoder;
use rxing::{EncodeHintValue, EncodeHints};

use super::guard::{guarded, rejected};
use super::{check_len, BarcodeError, Options, QrEcl, Symbol};

/// Version 40-L holds 7,089 digits; nothing longer can fit. (Never use
/// rxing's QrCompact: its minimal encoder takes seconds on long input.)
const MAX_CHARS: usize = 7089;

/// ECI assignment number of UTF-8.
const ECI_UTF8: u32 = 26;

pub(crate) fn encode(content: &str, options: &Options, gs1: bool) -> Result<Symbol, BarcodeError> {
    let name = if gs1 { "gs1_qr" } else { "qr" };
    check_len(name, content, MAX_CHARS, "characters")?;
    check_len(name, content, MAX_CHARS, "bytes")?;
    if gs1 {
        encode_gs1(content, options)
    } else {
        encode_plain(content, options)
    }
}

/// One segment in the densest single mode for the whole content, as rxing
/// chose it: numeric, alphanumeric, else bytes in ISO 8859-1 when every
/// character has one, else UTF-8 announced by an ECI.
fn segments(content: &str) -> Vec<QrSegment> {
    if QrSegment::is_numeric(content) {
        vec![QrSegment::make_numeric(content)]
    } else if QrSegment::is_alphanumeric(content) {
        vec![QrSegment::make_alphanumeric(content)]
    } else if content.chars().all(|c| (c as u32) < 0x100) {
        let latin1: Vec<u8> = content.chars().map(|c| c as u8).collect();
        vec![QrSegment::make_bytes(&latin1)]
    } else {
        vec![
            QrSegment::make_eci(ECI_UTF8),
            QrSegment::make_bytes(content.as_bytes()),
        ]
    }
}

fn encode_plain(content: &str, options: &Options) -> Result<Symbol, BarcodeError> {
    let ecl = match options.qr_ecl {
        QrEcl::L => QrCodeEcc::Low,
        QrEcl::M => QrCodeEcc::Medium,
        QrEcl::Q => QrCodeEcc::Quartile,
        QrEcl::H => QrCodeEcc::High,
    };
    // `version` is validated to 1..=40 with the other options.
    let (min, max) = match options.qr_version {
        Some(v) => (v, v),
        None => (1, 40),
    };
    // The requested level, never silently raised. Mask 0 here; the mask of
    // lowest penalty is chosen from it (`qr_mask`), as qrcodegen would.
    let code = QrCode::encode_segments_advanced(
        &segments(content),
        ecl,
        Version::new(min),
        Version::new(max),
        Some(Mask::new(0)),
        false,
    )
    .map_err(|e| BarcodeError::DoesNotFit {
        symbology: "qr",
        reason: match e {
            qrcodegen::DataTooLong::DataOverCapacity(needed, capacity) => format!(
                "it needs {needed} data bits; version {max} at level {:?} holds {capacity}",
                options.qr_ecl
            ),
            qrcodegen::DataTooLong::SegmentTooLong => {
                format!("the content is too long for version {max}")
            }
        },
    })?;
    let size = code.size() as usize;
    Ok(Symbol::Matrix {
        width: size,
        height: size,
        row_height: 1,
        modules: super::qr_mask::with_best_mask(&code),
    })
}

fn encode_gs1(content: &str, options: &Options) -> Result<Symbol, BarcodeError> {
    let name = "gs1_qr";
    let ecl = match options.qr_ecl {
        QrEcl::L => ErrorCorrectionLevel::L,
        QrEcl::M => ErrorCorrectionLevel::M,
        QrEcl::Q => ErrorCorrectionLevel::Q,
        QrEcl::H => ErrorCorrectionLevel::H,
    };
    let mut hints = EncodeHints::default().with(EncodeHintValue::Gs1Format(true));
    if let Some(v) = options.qr_version {
        hints = hints.with(EncodeHintValue::QrVersion(v.to_string()));
    }
    let content = gs1_percent_escaped(content, true);
    guarded(name, || {
        let code = qrcode_encoder::encode_with_hints(&content, ecl, &hints)
            .map_err(|e| rejected(name, e))?;
        let matrix = code
            .getMatrix()
            .as_ref()
            .ok_or(BarcodeError::EncoderFailure { symbology: name })?;
        let (w, h) = (matrix.getWidth(), matrix.getHeight());
        let mut modules = Vec::with_capacity((w * h) as usize);
        for y in 0..h {
            for x in 0..w {
                modules.push(matrix.get(x, y) == 1);
            }
        }
        Ok(Symbol::Matrix {
            width: w as usize,
            height: h as usize,
            row_height: 1,
            modules,
        })
    })
}

/// In a GS1 QR Code, alphanumeric mode reads `%` as the FNC1 separator and
/// `%%` as a literal percent sign. rxing picks alphanumeric mode for such
/// content but does not escape, so a data `%` would decode as a separator:
/// double it here. (Content with a separator (GS) is byte mode, where `%`
/// is literal.)
fn gs1_percent_escaped(content: &str, gs1: bool) -> std::borrow::Cow<'_, str> {
    const ALNUM: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:";
    if gs1 && content.contains('%') && content.chars().all(|c| ALNUM.contains(c)) {
        content.replace('%', "%%").into()
    } else {
        content.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(content: &str, pairs: &[(&str, &str)]) -> (usize, Vec<bool>) {
        let options =
            Options::from_pairs(super::super::Symbology::Qr, pairs.iter().copied()).unwrap();
        match encode(content, &options, false).unwrap() {
            Symbol::Matrix { width, modules, .. } => (width, modules),
            other => panic!("not a matrix: {other:?}"),
        }
    }

    /// The error correction level written in the symbol's format information
    /// (the copy around the top-left finder), unmasked.
    fn level(size: usize, modules: &[bool]) -> char {
        let at = |x: usize, y: usize| modules[y * size + x] as u16;
        let mut bits = 0u16;
        for x in [0, 1, 2, 3, 4, 5, 7, 8] {
            bits = (bits << 1) | at(x, 8);
        }
        for y in [7, 5, 4, 3, 2, 1, 0] {
            bits = (bits << 1) | at(8, y);
        }
        match (bits ^ 0b101010000010010) >> 13 {
            0b01 => 'L',
            0b00 => 'M',
            0b11 => 'Q',
            _ => 'H',
        }
    }

    #[test]
    fn smallest_version_at_the_requested_level_never_raised() {
        // 41 digits fill version 1 (21 modules) at level L exactly; 42 need version 2.
        let (size, modules) = matrix(&"7".repeat(41), &[("ecl", "L")]);
        assert_eq!((size, level(size, &modules)), (21, 'L'));
        let (size, modules) = matrix(&"7".repeat(42), &[("ecl", "L")]);
        assert_eq!((size, level(size, &modules)), (25, 'L'));
        // One byte would fit level H in version 1 too: the level stays as asked.
        let (size, modules) = matrix("x", &[("ecl", "L")]);
        assert_eq!((size, level(size, &modules)), (21, 'L'));
        let (size, modules) = matrix("x", &[("ecl", "Q")]);
        assert_eq!((size, level(size, &modules)), (21, 'Q'));
    }

    #[test]
    fn version_option_forces_the_size() {
        let (size, modules) = matrix("ecl H", &[("ecl", "H"), ("version", "7")]);
        assert_eq!(size, 45);
        assert_eq!(level(size, &modules), 'H');
        let options = Options::from_pairs(super::super::Symbology::Qr, [("version", "1")]).unwrap();
        let err = encode(&"x".repeat(100), &options, false)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("data does not fit qr: it needs"), "{err}");
    }
}
