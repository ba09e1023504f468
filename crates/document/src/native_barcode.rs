//! Printer-native barcodes: a placed barcode the printer can draw itself,
//! exactly where and as large as labelpress places it, written as the
//! printer's own command instead of dots in the graphic (sharper, and a
//! much smaller file).
//!
//! Invariants: a barcode goes native only when ZPL expresses it exactly:
//! - the document's `settings.print_dpi` is the label's dpi, so its modules
//!   are whole dots and its edges on the dot grid (`Fitted::on_dot_grid`);
//! - it is upright (a quarter turn stays a graphic), black on no
//!   background; a QR Code's or 1-D symbol's module is 1 to 10 dots (what
//!   `^BQ` and `^BY` take);
//! - it is one of:
//!   - a Code 128 or GS1-128 (`^BC`, no mode), told the symbol characters
//!     the encoder chose (read back from its bars), so that the printer
//!     draws the same bars; forms on which ZPL renderers disagree stay a
//!     graphic (see [`code128_field_data`]);
//!   - a Code 39 (`^B3`, narrow:wide 1:2) or an Interleaved 2 of 5 or
//!     ITF-14 (`^B2`, 1:3), the ratios of our encoder, without bearer bars;
//!   - a QR Code (`^BQ`, model 2, its error correction level and no other
//!     option) or a Data Matrix (`^BX`, ECC 200, its columns and rows given,
//!     so the printer picks the same size), with printable ASCII content;
//! - everything else stays a graphic, drawn as before: EAN and UPC (the
//!   printer lengthens their guard bars below the box), Code 93, Codabar,
//!   MSI, PDF417, Aztec and MaxiCode (no independent renderer checks what a
//!   printer would draw for them).
//!
//! The lowering leaves a native barcode's symbol out of the graphic (its
//! box, its human-readable text and anything else on the sheet are drawn
//! as usual); [`is_native`] and [`command`] are one decision, so a symbol is
//! always drawn exactly once.

use std::fmt::Write as _;

use labelpress_barcode::code128;
use labelpress_barcode::vector::Vector;
use labelpress_barcode::Symbology;

use crate::ir::{Barcode, Document};

/// How a QR Code's `^BQ` is offset: printers (and Labelary and Zebrash)
/// draw it the `^BY` height below its `^FO`; the command sets that height
/// to this and moves `^FO` up by it.
const QR_SHIFT_DOTS: i64 = 1;

/// The widest module `^BY` and `^BQ` take, in dots.
const MAX_BY_MODULE: i64 = 10;

/// Whether documents rendered as ZPL at `dpi` have this barcode, whose
/// box's top-left is `at` (mm on the sheet), drawn by the printer.
pub fn is_native(doc: &Document, barcode: &Barcode, at: (f64, f64), dpi: u32) -> bool {
    command(doc, barcode, at, dpi).is_some()
}

/// The native command that draws `barcode`, whose box's top-left is `at`
/// (mm on the sheet), on a label of `dpi`; `None` when it stays a graphic.
pub fn command(doc: &Document, barcode: &Barcode, at: (f64, f64), dpi: u32) -> Option<String> {
    let module = plain_module_dots(doc, barcode, dpi)?;
    let spec = &barcode.spec;
    let fitted = &barcode.symbol;
    let dot = 25.4 / f64::from(dpi);
    let (x, y) = fitted.on_dot_grid((spec.width, spec.height), at, 0, dot);
    let dots = |mm: f64| (mm / dot).round() as i64;
    let (left, top) = (dots(at.0 + x), dots(at.1 + y));
    // The symbology's own options (`ecl`, `version`, ...).
    let own_options = spec.options.as_ref().map(|o| &o.symbology);
    let no_options = own_options.is_none_or(|s| s.is_empty());
    let mut out = String::new();
    match spec.format.parse::<Symbology>().ok()? {
        Symbology::Qr => {
            let ecl = qr_ecl(own_options.and_then(|s| s.get("ecl")), no_options)?;
            printable(&spec.content)?;
            if top < QR_SHIFT_DOTS || module > MAX_BY_MODULE {
                return None;
            }
            let _ = write!(
                out,
                "^BY{module},3,{QR_SHIFT_DOTS}^FO{left},{}^BQN,2,{module}^FD{ecl}A,{}^FS",
                top - QR_SHIFT_DOTS,
                spec.content
            );
        }
        Symbology::DataMatrix if no_options => {
            printable(&spec.content)?;
            // The escape (FNC1 is `<escape>1`) must not occur in the content;
            // `~`, ZPL's default, starts a control command in the stream.
            let escape = ['`', '|', '{', '}']
                .into_iter()
                .find(|c| !spec.content.contains(*c))?;
            let (columns, rows) = (fitted.vector.width.round(), fitted.vector.height.round());
            let _ = write!(
                out,
                "^FO{left},{top}^BXN,{module},200,{columns},{rows},6,{escape},1^FD{}^FS",
                spec.content
            );
        }
        linear => {
            let bars = bar_modules(&fitted.vector)?;
            if module > MAX_BY_MODULE {
                return None;
            }
            // Bars run from the box's top to the text (or the box's bottom).
            let height = dots(at.1 + fitted.text_top) - top;
            if height < 1 {
                return None;
            }
            let (ratio, field) = match linear {
                Symbology::Code128 | Symbology::Gs1_128 => {
                    let data = code128_field_data(&code128::symbol_characters(&bars)?)?;
                    ("3", format!("^BCN,{height},N,N,N,N^FD{data}^FS"))
                }
                Symbology::Code39 => ("2", format!("^B3N,N,{height},N,N^FD{}^FS", spec.content)),
                Symbology::Itf => ("3", format!("^B2N,{height},N,N,N^FD{}^FS", spec.content)),
                Symbology::Itf14 => {
                    let digits = match spec.content.len() {
                        13 => format!(
                            "{}{}",
                            spec.content,
                            labelpress_barcode::gs1_check_digit(&spec.content)?
                        ),
                        _ => spec.content.clone(),
                    };
                    ("3", format!("^B2N,{height},N,N,N^FD{digits}^FS"))
                }
                _ => return None,
            };
            let _ = write!(out, "^BY{module},{ratio},{height}^FO{left},{top}{field}");
        }
    }
    Some(out)
}

/// The module in printer dots when the barcode meets the conditions every
/// native barcode shares (see the module's invariants).
fn plain_module_dots(doc: &Document, barcode: &Barcode, dpi: u32) -> Option<i64> {
    let spec = &barcode.spec;
    let print_dpi = doc.settings.print_dpi?;
    if (print_dpi - f64::from(dpi)).abs() > 1e-9 || spec.rotation.is_some_and(|r| r != 0.0) {
        return None;
    }
    let options = spec.options.as_ref();
    let black = options.and_then(|o| o.color.as_deref()).is_none_or(|c| {
        crate::style::Rgb::parse(c).is_some_and(|rgb| rgb == crate::style::Rgb::BLACK)
    });
    if !black || options.is_some_and(|o| o.background_color.is_some()) {
        return None;
    }
    let module_dots = barcode.symbol.module * f64::from(dpi) / 25.4;
    let rounded = module_dots.round();
    ((module_dots - rounded).abs() <= 1e-6 && rounded >= 1.0).then_some(rounded as i64)
}

/// Printable ASCII but for the command prefixes `^` and `~` (a field's
/// data ends at `^`; `~` starts a control command).
fn printable(content: &str) -> Option<()> {
    let ok = |c: char| (' '..='~').contains(&c) && c != '^' && c != '~';
    (!content.is_empty() && content.chars().all(ok)).then_some(())
}

/// A QR Code's error correction letter: `M` by default, else its `ecl`
/// when that is its only option.
fn qr_ecl(ecl: Option<&serde_json::Value>, no_options: bool) -> Option<char> {
    match ecl {
        None if no_options => Some('M'),
        Some(value) => {
            let letter = value.as_str()?.to_ascii_uppercase();
            matches!(letter.as_str(), "L" | "M" | "Q" | "H").then(|| letter.chars().next())?
        }
        None => None,
    }
}

/// A 1-D symbol's modules (dark or light, left to right) when its vector
/// is bars alone: every bar from the top to the same height, no bearer
/// bars, a whole number of modules across.
fn bar_modules(vector: &Vector) -> Option<Vec<bool>> {
    let width = vector.width.round();
    if (vector.width - width).abs() > 1e-9 || !vector.hexagons.is_empty() {
        return None;
    }
    let mut modules = vec![false; width as usize];
    for &[x, y, w, h] in &vector.rects {
        if y != 0.0 || (h - vector.height).abs() > 1e-9 {
            return None;
        }
        let (from, to) = (x.round() as usize, (x + w).round() as usize);
        modules.get_mut(from..to)?.fill(true);
    }
    Some(modules)
}

/// `^BC` field data (no mode) that makes the printer draw exactly these
/// symbol characters (start code first, check and stop left to the
/// printer): subsets A and C as pairs of digits, subset B as characters,
/// `>` invocations for start codes, switches and FNC1.
///
/// `None` (the barcode stays a graphic) for forms on which ZPL renderers
/// disagree with the printers' manual: a switch into subset C inside the
/// symbol (Zebrash draws `>5` as another character), SHIFT, FNC2 to FNC4,
/// and a subset B character that directly follows an invocation at the end
/// of the data (Zebrash drops it).
pub fn code128_field_data(characters: &[u8]) -> Option<String> {
    use code128::{CODE_A, CODE_B, FNC1, START_A, START_B, START_C};
    #[derive(Clone, Copy, PartialEq)]
    enum Set {
        A,
        B,
        C,
    }
    let (start, data) = characters.split_first()?;
    let (mut set, mut out) = match *start {
        START_A => (Set::A, String::from(">9")),
        START_B => (Set::B, String::from(">:")),
        START_C => (Set::C, String::from(">;")),
        _ => return None,
    };
    // Subset B characters written since the last invocation or pair.
    let mut trailing_b = 0;
    for &c in data {
        let invocation = match (set, c) {
            (_, FNC1) => ">8",
            (Set::A | Set::C, CODE_B) => {
                set = Set::B;
                ">6"
            }
            (Set::B | Set::C, CODE_A) => {
                set = Set::A;
                ">7"
            }
            (Set::C, 0..=99) | (Set::A, 0..=95) => {
                let _ = write!(out, "{c:02}");
                trailing_b = 0;
                continue;
            }
            // Subset B characters only an invocation writes: `>`, `^`, `~`, DEL.
            (Set::B, 30) => ">0",
            (Set::B, 62) => "><",
            (Set::B, 94) => ">=",
            (Set::B, 95) => ">1",
            (Set::B, 0..=93) => {
                out.push(char::from(c + 32));
                trailing_b += 1;
                continue;
            }
            // SHIFT, FNC2 to FNC4, CODE C inside the symbol.
            _ => return None,
        };
        out.push_str(invocation);
        trailing_b = 0;
    }
    (trailing_b != 1).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::code128_field_data;
    use labelpress_barcode::code128::{
        CODE_A, CODE_B, CODE_C, FNC1, SHIFT, START_A, START_B, START_C,
    };

    #[test]
    fn writes_each_subset_as_zpl_expects_it() {
        // B: characters; `>`, `^`, `~` as invocations.
        assert_eq!(
            code128_field_data(&[START_B, 33, 34, 30, 62, 94, 33, 34]).as_deref(),
            Some(">:AB>0><>=AB")
        );
        // C: pairs of digits, FNC1, then a switch to B.
        assert_eq!(
            code128_field_data(&[START_C, FNC1, 1, 99, CODE_B, 33, 34]).as_deref(),
            Some(">;>80199>6AB")
        );
        // A: pairs of digits (the character's value), a switch to B.
        assert_eq!(
            code128_field_data(&[START_A, 33, 64, CODE_B, 65, 66]).as_deref(),
            Some(">93364>6ab")
        );
        assert_eq!(
            code128_field_data(&[START_B, 33, CODE_A, 64, 65]).as_deref(),
            Some(">:A>76465")
        );
    }

    /// Content cannot end the field or start a command: `^` and `~` (and
    /// `>`, which starts an invocation) are written as invocations.
    #[test]
    fn content_cannot_inject_zpl_commands() {
        let symbol = labelpress_barcode::encode(
            labelpress_barcode::Symbology::Code128,
            "A^XZ^XA~JA>BC",
            &Default::default(),
        )
        .unwrap();
        let labelpress_barcode::Symbol::Linear { bars } = symbol else {
            unreachable!()
        };
        let characters = labelpress_barcode::code128::symbol_characters(&bars).unwrap();
        let data = code128_field_data(&characters).unwrap();
        assert_eq!(data, ">:A><XZ><XA>=JA>0BC");
        assert!(!data.contains(['^', '~']));
    }

    #[test]
    fn leaves_forms_renderers_disagree_on_to_the_graphic() {
        // A switch into C inside the symbol, SHIFT, FNC4.
        assert_eq!(code128_field_data(&[START_B, 33, 34, CODE_C, 12, 34]), None);
        assert_eq!(code128_field_data(&[START_B, 33, SHIFT, 65, 34]), None);
        assert_eq!(code128_field_data(&[START_B, 33, CODE_B, 34]), None);
        // One subset B character after an invocation, at the end.
        assert_eq!(code128_field_data(&[START_B, 33]), None);
        assert_eq!(code128_field_data(&[START_C, 12, CODE_B, 33]), None);
        assert_eq!(
            code128_field_data(&[START_C, 12, CODE_B, 33, 34]).as_deref(),
            Some(">;12>6AB")
        );
        // Not a start code.
        assert_eq!(code128_field_data(&[33, 34]), None);
        assert_eq!(code128_field_data(&[]), None);
    }
}
