//! QR Code through rxing's encoder, taking the bare module matrix (no quiet
//! zone, no scaling: the renderer does both).

use rxing::qrcode::common::ErrorCorrectionLevel;
use rxing::qrcode::encoder::qrcode_encoder;
use rxing::{EncodeHintValue, EncodeHints};

use super::guard::{guarded, rejected};
use super::{check_len, BarcodeError, Options, QrEcl, Symbol};

/// Version 40-L holds 7,089 digits; nothing longer can fit. (Never use
/// rxing's QrCompact: its minimal encoder takes seconds on long input.)
const MAX_CHARS: usize = 7089;

pub(crate) fn encode(content: &str, options: &Options, gs1: bool) -> Result<Symbol, BarcodeError> {
    let name = if gs1 { "gs1_qr" } else { "qr" };
    check_len(name, content, MAX_CHARS, "characters")?;
    check_len(name, content, MAX_CHARS, "bytes")?;
    let ecl = match options.qr_ecl {
        QrEcl::L => ErrorCorrectionLevel::L,
        QrEcl::M => ErrorCorrectionLevel::M,
        QrEcl::Q => ErrorCorrectionLevel::Q,
        QrEcl::H => ErrorCorrectionLevel::H,
    };
    let mut hints = EncodeHints::default();
    if let Some(v) = options.qr_version {
        hints = hints.with(EncodeHintValue::QrVersion(v.to_string()));
    }
    if gs1 {
        hints = hints.with(EncodeHintValue::Gs1Format(true));
    }
    let content = gs1_percent_escaped(content, gs1);
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
