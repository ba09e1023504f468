//! Data Matrix (ECC 200) from rxing's building blocks. rxing's writer
//! ignores the shape hint in 0.9.3 and its default high-level encoder is
//! superlinear, so this drives the minimal ("compact") encoder, the symbol
//! lookup, Reed-Solomon and module placement directly, and lays out the
//! finder patterns itself.

use rxing::common::CharacterSet;
use rxing::datamatrix::encoder::{
    error_correction, minimal_encoder, DefaultPlacement, SymbolInfoLookup, SymbolShapeHint,
};

use super::guard::{guarded, rejected};
use super::{check_len, BarcodeError, DmShape, Options, Symbol};

/// 144x144 holds 3,116 digits at most.
const MAX_LEN: usize = 3116;

pub(crate) fn encode(content: &str, options: &Options, gs1: bool) -> Result<Symbol, BarcodeError> {
    let name = if gs1 { "gs1_datamatrix" } else { "datamatrix" };
    check_len(name, content, MAX_LEN, "characters")?;
    check_len(name, content, MAX_LEN, "bytes")?;
    let shape = match options.dm_shape {
        DmShape::Square => SymbolShapeHint::FORCE_SQUARE,
        DmShape::Rect => SymbolShapeHint::FORCE_RECTANGLE,
    };
    // Latin-1 text needs no ECI; anything else is encoded as UTF-8 with one.
    let charset = if content.chars().all(|c| (c as u32) < 256) {
        None
    } else {
        Some(CharacterSet::UTF8)
    };
    // With GS1, the minimal encoder writes a leading FNC1 and turns each GS
    // (ASCII 29) into FNC1.
    let fnc1 = gs1.then_some('\u{1d}');
    guarded(name, || {
        let encoded = minimal_encoder::encodeHighLevelWithDetails(content, charset, fnc1, shape)
            .map_err(|e| rejected(name, e))?;
        let info = SymbolInfoLookup::new()
            .lookup_with_shape(encoded.chars().count() as u32, shape)
            .map_err(|e| rejected(name, e))?
            .ok_or_else(|| BarcodeError::DoesNotFit {
                symbology: name,
                reason: "no symbol size holds the data".into(),
            })?;
        let codewords =
            error_correction::encodeECC200(&encoded, info).map_err(|e| rejected(name, e))?;
        let data_w = info.getSymbolDataWidth().map_err(|e| rejected(name, e))? as usize;
        let data_h = info.getSymbolDataHeight().map_err(|e| rejected(name, e))? as usize;
        let mut placement = DefaultPlacement::new(codewords, data_w, data_h);
        placement.place().map_err(|e| rejected(name, e))?;
        let width = info.getSymbolWidth().map_err(|e| rejected(name, e))? as usize;
        let height = info.getSymbolHeight().map_err(|e| rejected(name, e))? as usize;
        // Region size = data region + its 2-module finder/timing frame.
        let regions_x = width / region_size(data_w, width);
        let regions_y = height / region_size(data_h, height);
        let region_w = data_w / regions_x;
        let region_h = data_h / regions_y;
        Ok(Symbol::Matrix {
            width,
            height,
            row_height: 1,
            modules: layout(&placement, width, height, region_w, region_h),
        })
    })
}

/// Outer size of one data region (data + 2) given the data extent and the
/// symbol extent along one axis.
fn region_size(data: usize, symbol: usize) -> usize {
    // symbol = regions * (data / regions + 2)  =>  regions = (symbol - data) / 2
    let regions = ((symbol - data) / 2).max(1);
    symbol / regions
}

/// Put the placed data bits into regions, each framed by a solid L (left,
/// bottom) and alternating timing patterns (top, right).
fn layout(p: &DefaultPlacement, width: usize, height: usize, rw: usize, rh: usize) -> Vec<bool> {
    let mut m = vec![false; width * height];
    for y in 0..height {
        let (ry, iy) = (y / (rh + 2), y % (rh + 2));
        for x in 0..width {
            let (rx, ix) = (x / (rw + 2), x % (rw + 2));
            m[y * width + x] = if ix == 0 || iy == rh + 1 {
                true
            } else if iy == 0 {
                ix % 2 == 0
            } else if ix == rw + 1 {
                iy % 2 == 1
            } else {
                p.getBit(rx * rw + ix - 1, ry * rh + iy - 1)
            };
        }
    }
    m
}
