//! Aztec Code through rxing's encoder (bare matrix, no margin).

use rxing::aztec::encoder::aztec_encoder;
use rxing::common::CharacterSet;

use super::guard::{guarded, rejected};
use super::{check_len, BarcodeError, Options, Symbol};

const NAME: &str = "aztec";
/// 32 layers hold 3,832 digits at most.
const MAX_LEN: usize = 3832;

pub(crate) fn encode(content: &str, options: &Options) -> Result<Symbol, BarcodeError> {
    check_len(NAME, content, MAX_LEN, "characters")?;
    check_len(NAME, content, MAX_LEN, "bytes")?;
    // rxing: 0 = choose the size; negative = compact with that many layers.
    let layers = options.aztec_layers.map_or(0, i32::from);
    let ecl = u32::from(options.aztec_ecl);
    guarded(NAME, || {
        let code = if content.chars().all(|c| (c as u32) < 256) {
            aztec_encoder::encode(content, ecl, layers)
        } else {
            aztec_encoder::encode_with_charset(content, ecl, layers, CharacterSet::UTF8)
        }
        .map_err(|e| rejected(NAME, e))?;
        let matrix = code.getMatrix();
        let (w, h) = (matrix.getWidth(), matrix.getHeight());
        let mut modules = Vec::with_capacity((w * h) as usize);
        for y in 0..h {
            for x in 0..w {
                modules.push(matrix.get(x, y));
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
