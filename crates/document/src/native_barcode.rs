//! Printer-native barcodes: a placed barcode the printer can draw itself,
//! exactly where and as large as labelpress places it, written as the
//! printer's own command instead of dots in the graphic (sharper, and a
//! much smaller file).
//!
//! Invariants: a barcode goes native only when ZPL expresses it exactly:
//! - the document's `settings.print_dpi` is the label's dpi, so its modules
//!   are whole dots and its edges on the dot grid (`Fitted::on_dot_grid`);
//! - it is upright (a quarter turn stays a graphic: the printers' QR Code
//!   has no rotation), black on no background, and its content is
//!   printable ASCII (bytes the printer reads as the encoder did);
//! - it is a QR Code (`^BQ`, model 2, its error correction level and no
//!   other option) or a Data Matrix (`^BX`, ECC 200, its columns and rows
//!   given, so the printer picks the same size);
//! everything else stays a graphic, drawn as before. The lowering leaves a
//! native barcode's symbol out of the graphic (its box and anything else
//! on the sheet are drawn as usual).

use std::fmt::Write as _;

use crate::ir::{Barcode, Document};

/// How a QR Code's `^BQ` is offset: printers (and Labelary and Zebrash)
/// draw it the `^BY` height below its `^FO`; the command sets that height
/// to this and moves `^FO` up by it.
const QR_SHIFT_DOTS: i64 = 1;

/// Whether documents rendered as ZPL at `dpi` have this barcode drawn by
/// the printer (see the module's invariants). `doc` is the document it
/// belongs to.
pub fn is_native(doc: &Document, barcode: &Barcode, dpi: u32) -> bool {
    kind(doc, barcode, dpi).is_some()
}

/// The native command that draws `barcode`, whose box's top-left is `at`
/// (mm on the sheet), on a label of `dpi`; `None` when it stays a graphic.
pub fn command(doc: &Document, barcode: &Barcode, at: (f64, f64), dpi: u32) -> Option<String> {
    let kind = kind(doc, barcode, dpi)?;
    let spec = &barcode.spec;
    let fitted = &barcode.symbol;
    let dot = 25.4 / f64::from(dpi);
    let (x, y) = fitted.on_dot_grid((spec.width, spec.height), at, 0, dot);
    let dots = |mm: f64| (mm / dot).round() as i64;
    let (left, top) = (dots(at.0 + x), dots(at.1 + y));
    let module = dots(fitted.module);
    let mut out = String::new();
    match kind {
        Kind::Qr { ecl } => {
            if top < QR_SHIFT_DOTS {
                return None;
            }
            let _ = write!(
                out,
                "^BY{module},3,{QR_SHIFT_DOTS}^FO{left},{}^BQN,2,{module}^FD{ecl}A,{}^FS",
                top - QR_SHIFT_DOTS,
                spec.content
            );
        }
        Kind::DataMatrix { columns, rows } => {
            // The escape (FNC1 is `<escape>1`) must not occur in the content;
            // `~`, ZPL's default, starts a control command in the stream.
            let escape = ['`', '|', '{', '}']
                .into_iter()
                .find(|c| !spec.content.contains(*c))?;
            let _ = write!(
                out,
                "^FO{left},{top}^BXN,{module},200,{columns},{rows},6,{escape},1^FD{}^FS",
                spec.content
            );
        }
    }
    Some(out)
}

enum Kind {
    Qr { ecl: char },
    DataMatrix { columns: u64, rows: u64 },
}

fn kind(doc: &Document, barcode: &Barcode, dpi: u32) -> Option<Kind> {
    let spec = &barcode.spec;
    let print_dpi = doc.settings.print_dpi?;
    if (print_dpi - f64::from(dpi)).abs() > 1e-9 || spec.rotation.is_some_and(|r| r != 0.0) {
        return None;
    }
    let options = spec.options.clone().unwrap_or_default();
    let black = |c: &Option<String>| {
        c.as_deref().is_none_or(|c| {
            crate::style::Rgb::parse(c).is_some_and(|rgb| rgb == crate::style::Rgb::BLACK)
        })
    };
    if !black(&options.color) || options.background_color.is_some() {
        return None;
    }
    // Printable ASCII but for the command prefixes `^` and `~` (a field's
    // data ends at `^`; `~` starts a control command).
    let printable = |c: char| (' '..='~').contains(&c) && c != '^' && c != '~';
    if spec.content.is_empty() || !spec.content.chars().all(printable) {
        return None;
    }
    let fitted = &barcode.symbol;
    let module_dots = fitted.module * f64::from(dpi) / 25.4;
    if (module_dots - module_dots.round()).abs() > 1e-6 || module_dots.round() < 1.0 {
        return None;
    }
    let symbology = &options.symbology;
    match spec.format.as_str() {
        "qr" | "qrcode" => {
            let ecl = match symbology.iter().collect::<Vec<_>>().as_slice() {
                [] => 'M',
                [(key, value)] if key.as_str() == "ecl" => {
                    let letter = value.as_str()?.to_ascii_uppercase();
                    match letter.as_str() {
                        "L" | "M" | "Q" | "H" => letter.chars().next()?,
                        _ => return None,
                    }
                }
                _ => return None,
            };
            // ZPL magnification is 1 to 10 dots a module.
            (module_dots.round() <= 10.0).then_some(Kind::Qr { ecl })
        }
        "datamatrix" if symbology.is_empty() => Some(Kind::DataMatrix {
            columns: fitted.vector.width.round() as u64,
            rows: fitted.vector.height.round() as u64,
        }),
        _ => None,
    }
}
