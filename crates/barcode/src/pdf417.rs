//! PDF417 through rxing's `PDF417` encoder directly: the generic writer
//! rotates tall symbols and accepts out-of-spec sizes. Rows are 3 modules
//! tall (the specification's minimum row height).
//!
//! The symbol's shape (columns x rows) and the automatic error-correction
//! level are decided here and handed to rxing as exact values: given a
//! fixed shape larger than data, rxing pads it past the 928 codewords a
//! symbol can hold (and then indexes its codeword table out of bounds),
//! and it has no automatic level of its own.

use rxing::common::CharacterSet;
use rxing::pdf417::encoder::pdf_417_high_level_encoder::encodeHighLevel;
use rxing::pdf417::encoder::{Compaction, PDF417};

use super::guard::{guarded, rejected};
use super::{check_len, BarcodeError, Options, Symbol, PDF417_MAX_CODEWORDS};

const NAME: &str = "pdf417";
/// 928 codewords hold 2,710 digits at most.
const MAX_LEN: usize = 2710;
const ROW_HEIGHT: usize = 3;
const MIN_ROWS: u32 = 3;
const MAX_ROWS: u32 = 90;
const MAX_COLS: u32 = 30;
/// The lowest level the automatic choice goes down to when the
/// recommended one does not fit (it was the fixed default before).
const MIN_AUTO_ECL: u32 = 2;
/// Among the shapes that fit, the one whose width over height (in rxing's
/// proportions, kept so that shapes stay what they were) is nearest this.
const PREFERRED_ASPECT: f64 = 3.0;

pub(crate) fn encode(content: &str, options: &Options) -> Result<Symbol, BarcodeError> {
    check_len(NAME, content, MAX_LEN, "characters")?;
    check_len(NAME, content, MAX_LEN, "bytes")?;
    let encoding = if content.chars().all(|c| (c as u32) < 256) {
        None
    } else {
        Some(CharacterSet::UTF8)
    };
    let compact = options.pdf417_compact;
    guarded(NAME, || {
        let data = data_codewords(content, encoding)?;
        let plan = plan(data, options)?;
        let mut encoder = PDF417::with_compact_hint(compact);
        encoder.setDimensions(plan.cols, plan.cols, plan.rows, plan.rows);
        encoder.setEncoding(encoding);
        encoder
            .generateBarcodeLogic(content, plan.ecl)
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

/// Data codewords of `content` without the length descriptor: the same
/// high-level encoding (compaction and character set) rxing then performs.
fn data_codewords(content: &str, encoding: Option<CharacterSet>) -> Result<u32, BarcodeError> {
    let codewords = encodeHighLevel(content, Compaction::AUTO, encoding, false)
        .map_err(|e| rejected(NAME, e))?;
    Ok(codewords.chars().count() as u32)
}

/// The recommended minimum error-correction level for `data` data
/// codewords (ISO/IEC 15438, Annex E): 2 up to 40, 3 up to 160, 4 up to
/// 320, 5 above.
pub(crate) fn recommended_ecl(data: u32) -> u32 {
    match data {
        0..=40 => 2,
        41..=160 => 3,
        161..=320 => 4,
        _ => 5,
    }
}

/// Error-correction codewords of a level: 2^(level + 1).
fn ec_codewords(ecl: u32) -> u32 {
    2 << ecl
}

/// What rxing is asked to draw.
#[derive(Debug, PartialEq, Eq)]
struct Plan {
    ecl: u32,
    cols: u32,
    rows: u32,
}

/// The level and shape for `data` data codewords. A given `ecl` is kept;
/// the automatic one is the recommended level, lowered (not below 2)
/// while the data at that level fits no allowed shape.
fn plan(data: u32, options: &Options) -> Result<Plan, BarcodeError> {
    let (cols, rows) = (options.pdf417_cols, options.pdf417_rows);
    let (highest, lowest) = match options.pdf417_ecl {
        Some(ecl) => (u32::from(ecl), u32::from(ecl)),
        None => (recommended_ecl(data), MIN_AUTO_ECL),
    };
    for ecl in (lowest..=highest).rev() {
        if let Some((cols, rows)) = shape(needed(data, ecl), cols, rows) {
            return Ok(Plan { ecl, cols, rows });
        }
    }
    Err(does_not_fit(data, lowest, options))
}

/// Codewords a symbol needs: the length descriptor, the data and the
/// error correction.
fn needed(data: u32, ecl: u32) -> u32 {
    1 + data + ec_codewords(ecl)
}

/// The shape (columns, rows) for `needed` codewords within the requested
/// `cols`/`rows` and the symbol's limits (1-30 columns, 3-90 rows, at most
/// 928 codewords), nearest [`PREFERRED_ASPECT`]; `None` when none fits.
/// Free rows are the fewest that hold the codewords; what a shape holds
/// beyond them is padding.
fn shape(needed: u32, cols: Option<u8>, rows: Option<u8>) -> Option<(u32, u32)> {
    let columns = cols.map_or(1..=MAX_COLS, |c| u32::from(c)..=u32::from(c));
    let mut best: Option<((u32, u32), f64)> = None;
    for c in columns {
        let fewest = needed.div_ceil(c).max(MIN_ROWS);
        let r = match rows.map(u32::from) {
            Some(r) if r >= fewest => r,
            Some(_) => continue,
            None => fewest,
        };
        if r > MAX_ROWS || c * r > PDF417_MAX_CODEWORDS {
            continue;
        }
        let off = (aspect(c, r) - PREFERRED_ASPECT).abs();
        // Ties go to the wider shape, as rxing's own choice did.
        if best.is_none_or(|(_, b)| off <= b) {
            best = Some(((c, r), off));
        }
    }
    best.map(|(shape, _)| shape)
}

/// rxing's measure of a shape: 17 modules per column plus 69 for the start,
/// stop and row indicator patterns, at a 0.357 mm module and 2 mm rows.
fn aspect(cols: u32, rows: u32) -> f64 {
    f64::from(17 * cols + 69) * 0.357 / (f64::from(rows) * 2.0)
}

/// Why no shape holds the data, naming the parameters that decide it.
fn does_not_fit(data: u32, ecl: u32, options: &Options) -> BarcodeError {
    let total = needed(data, ecl);
    let level = match options.pdf417_ecl {
        Some(_) => format!("ecl={ecl}"),
        None => format!("the automatic ecl {ecl} (its lowest)"),
    };
    let what = format!(
        "the content needs {total} codewords ({data} data, 1 length, {} error correction at {level})",
        ec_codewords(ecl)
    );
    let given = match (options.pdf417_cols, options.pdf417_rows) {
        (Some(c), Some(r)) => Some(format!(
            "cols={c} and rows={r} hold {}",
            u32::from(c) * u32::from(r)
        )),
        (Some(c), None) => Some(format!(
            "cols={c} holds at most {}",
            u32::from(c) * MAX_ROWS.min(PDF417_MAX_CODEWORDS / u32::from(c))
        )),
        (None, Some(r)) => Some(format!(
            "rows={r} holds at most {}",
            u32::from(r) * MAX_COLS.min(PDF417_MAX_CODEWORDS / u32::from(r))
        )),
        (None, None) => None,
    };
    let reason = match given {
        _ if total > PDF417_MAX_CODEWORDS => format!(
            "{what}, more than the {PDF417_MAX_CODEWORDS} a symbol holds; lower ecl or shorten the content"
        ),
        Some(given) => format!("{what}, but {given}; raise cols or rows, or lower ecl"),
        None => format!("{what}, and no shape of 1-30 columns and 3-90 rows holds them"),
    };
    BarcodeError::DoesNotFit {
        symbology: NAME,
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(pairs: &[(&str, &str)]) -> Options {
        Options::from_pairs(super::super::Symbology::Pdf417, pairs.iter().copied()).unwrap()
    }

    #[test]
    fn the_automatic_level_follows_the_iso_recommendation() {
        let auto = options(&[]);
        for (data, ecl) in [
            (1, 2),
            (40, 2),
            (41, 3),
            (160, 3),
            (161, 4),
            (320, 4),
            (321, 5),
            (863, 5),
        ] {
            assert_eq!(plan(data, &auto).unwrap().ecl, ecl, "{data} data codewords");
        }
        // 864 data codewords and level 5's 64 exceed 928: one level lower fits.
        assert_eq!(plan(864, &auto).unwrap().ecl, 4);
        assert_eq!(plan(919, &auto).unwrap().ecl, 2);
        assert!(plan(920, &auto).is_err());
    }

    #[test]
    fn shapes_never_exceed_the_symbol_capacity() {
        for data in 1..=919 {
            let p = plan(data, &options(&[])).unwrap();
            assert!(p.cols * p.rows <= PDF417_MAX_CODEWORDS, "{data}: {p:?}");
            assert!(p.cols * p.rows >= needed(data, p.ecl), "{data}: {p:?}");
            assert!((MIN_ROWS..=MAX_ROWS).contains(&p.rows) && (1..=MAX_COLS).contains(&p.cols));
        }
    }

    #[test]
    fn a_fixed_shape_is_padded_within_the_capacity_or_refused_naming_it() {
        let fixed = options(&[("cols", "6"), ("rows", "10"), ("ecl", "2")]);
        assert_eq!(
            plan(3, &fixed).unwrap(),
            Plan {
                ecl: 2,
                cols: 6,
                rows: 10
            }
        );
        let err = plan(60, &fixed).unwrap_err().to_string();
        assert!(err.contains("cols=6 and rows=10 hold 60"), "{err}");
        assert!(err.contains("ecl=2"), "{err}");
        let tall = options(&[("rows", "90"), ("ecl", "8")]);
        let p = plan(5, &tall).unwrap();
        assert_eq!(
            (p.rows, p.cols * p.rows <= PDF417_MAX_CODEWORDS),
            (90, true)
        );
        let err = plan(500, &tall).unwrap_err().to_string();
        assert!(err.contains("more than the 928 a symbol holds"), "{err}");
    }
}
