//! PDF417 through rxing's `PDF417` encoder directly: the generic writer
//! rotates tall symbols and accepts out-of-spec sizes. Rows are 3 modules
//! tall (the specification's minimum row height).

use rxing::common::CharacterSet;
use rxing::pdf417::encoder::PDF417;

use super::guard::{guarded, rejected};
use super::{check_len, BarcodeError, Options, Symbol};

const NAME: &str = "pdf417";
/// 928 codewords hold 2,710 digits at most.
const MAX_LEN: usize = 2710;
const ROW_HEIGHT: usize = 3;
/// rxing's default, the usual choice for short messages.
const DEFAULT_ECL: u32 = 2;

pub(crate) fn encode(content: &str, options: &Options) -> Result<Symbol, BarcodeError> {
    check_len(NAME, content, MAX_LEN, "characters")?;
    check_len(NAME, content, MAX_LEN, "bytes")?;
    let (min_cols, max_cols) = options
        .pdf417_cols
        .map_or((1, 30), |c| (u32::from(c), u32::from(c)));
    let (min_rows, max_rows) = options
        .pdf417_rows
        .map_or((3, 90), |r| (u32::from(r), u32::from(r)));
    let ecl = options.pdf417_ecl.map_or(DEFAULT_ECL, u32::from);
    let compact = options.pdf417_compact;
    guarded(NAME, || {
        let mut encoder = PDF417::with_compact_hint(compact);
        encoder.setDimensions(max_cols, min_cols, max_rows, min_rows);
        if !content.chars().all(|c| (c as u32) < 256) {
            encoder.setEncoding(Some(CharacterSet::UTF8));
        }
        encoder
            .generateBarcodeLogic(content, ecl)
            .map_err(|e| rejected(NAME, e))?;
        let matrix = encoder
            .getBarcodeMatrix()
            .as_ref()
            .ok_or(BarcodeError::EncoderFailure { symbology: NAME })?
            .getMatrix();
        // getMatrix lists rows bottom-up.
        let height = matrix.len();
        let width = matrix.first().map_or(0, Vec::len);
        let mut modules = Vec::with_capacity(width * height);
        for row in matrix.iter().rev() {
            modules.extend(row.iter().map(|&v| v == 1));
        }
        Ok(Symbol::Matrix {
            width,
            height,
            row_height: ROW_HEIGHT,
            modules,
        })
    })
}
