//! MaxiCode through `anyd` (rxing cannot write it). Modes 2 and 3 carry the
//! structured carrier message (postcode, country, service) in the primary
//! message and the content as the secondary message.

use anyd::codes::maxicode::MaxiCodeEncoder;
use anyd::output::Encoding;
use anyd::traits::Encode;

use super::guard::guarded;
use super::linear::only;
use super::{check_len, maxi, BarcodeError, Options, Symbol};

const NAME: &str = "maxicode";
/// Mode 4's 93 data codewords: at most 93 characters of one code set, and
/// every character costs at least one codeword.
const MAX_CHARS: usize = 93;

pub(crate) fn encode(content: &str, options: &Options) -> Result<Symbol, BarcodeError> {
    // MaxiCode's code sets cover ISO 8859-1; there is no ECI support here.
    only(NAME, content, "ISO 8859-1 (Latin-1) characters", |c| {
        (c as u32) < 256
    })?;
    check_len(NAME, content, MAX_CHARS, "characters")?;
    let data: Vec<u8> = content.chars().map(|c| c as u8).collect();
    let mode = options.maxi_mode;
    let does_not_fit = |e: anyd::Error| BarcodeError::DoesNotFit {
        symbology: NAME,
        reason: e.to_string(),
    };
    guarded(NAME, || {
        let encoder = MaxiCodeEncoder::new();
        let symbol = match mode {
            2 | 3 => {
                let (Some(postcode), Some(country), Some(service)) = (
                    options.maxi_postcode.as_deref(),
                    options.maxi_country,
                    options.maxi_service,
                ) else {
                    return Err(BarcodeError::InvalidParameter {
                        param: "postcode".into(),
                        value: String::new(),
                        expected: "postcode, country and service with modes 2 and 3".into(),
                    });
                };
                encoder.build_structured(mode, postcode, country, service, &data)
            }
            _ => encoder.build_mode(&data, mode),
        }
        .map_err(does_not_fit)?;
        let Encoding::Matrix(grid) = encoder.encode(&symbol).map_err(does_not_fit)? else {
            return Err(BarcodeError::EncoderFailure { symbology: NAME });
        };
        let mut hexes = Vec::with_capacity(maxi::COLS * maxi::ROWS);
        for row in 0..maxi::ROWS {
            for col in 0..maxi::COLS {
                hexes.push(grid.get(col, row));
            }
        }
        Ok(Symbol::Maxi { hexes })
    })
}
