//! ZPL output: every sheet as one ZPL II label (`^XA ... ^XZ`), in sheet
//! order, for thermal printers (Zebra and compatibles).
//!
//! Invariants:
//! - a label's dots are the sheet's pixmap at the label's dpi
//!   ([`Raster::pixmap`], the PNG output's own) thresholded by
//!   [`is_black`]: exactly the black pixels of a mono PNG at that dpi, so
//!   PDF, PNG and ZPL come from one compile and agree to the dot;
//! - `^PW` and `^LL` are that pixmap's width and height in dots, and the
//!   label home is `^LH0,0`;
//! - the dots are `^GFA` graphic fields in horizontal bands of at most
//!   [`MAX_FIELD_BYTES`] uncompressed bytes (the largest count `^GF` takes),
//!   each in the `:Z64:` form Zebra printers and Labelary read (zlib data,
//!   Base64, then a CRC-16/XMODEM of the Base64 text); a band without a
//!   black dot is left out;
//! - the dpi is one a ZPL printer has ([`DPIS`]), taken as given: 203 means
//!   203 dots per inch, as `?dpi=203` means for PNG.

use std::fmt::Write as _;
use std::io::Write as _;

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use super::raster::{is_black, Raster};
use crate::ir::Document;
use crate::validate::Violation;

/// The resolutions of ZPL printers: 6, 8, 12 and 24 dots per mm.
pub const DPIS: [u32; 4] = [152, 203, 300, 600];

/// The dpi of ZPL output when neither the request nor `settings.print_dpi`
/// names one: the most common thermal printer (8 dots per mm).
pub const DEFAULT_DPI: u32 = 203;

/// The most uncompressed bytes of one `^GF` field.
pub const MAX_FIELD_BYTES: usize = 99_999;

/// The media type of ZPL answers (`application/x-zpl` and `text/x-zpl` are
/// accepted as names for it).
pub const MEDIA_TYPE: &str = "application/zpl";

/// How a document is written as ZPL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZplOptions {
    /// Dots per inch; `None`: `settings.print_dpi`, else [`DEFAULT_DPI`].
    pub dpi: Option<u32>,
    /// One sheet (1-based); `None`: every sheet, one label each.
    pub sheet: Option<usize>,
    /// Copies of each label the printer prints (`^PQ`, written above 1).
    pub copies: u32,
    /// Barcodes the printer can draw exactly as placed are written as its
    /// own commands (`crate::native_barcode`), the rest as dots.
    #[serde(default)]
    pub native_barcodes: bool,
}

impl Default for ZplOptions {
    fn default() -> Self {
        ZplOptions {
            dpi: None,
            sheet: None,
            copies: 1,
            native_barcodes: false,
        }
    }
}

/// Why `dpi` is no ZPL resolution, or `None`.
pub fn dpi_problem(dpi: u32) -> Option<String> {
    (!DPIS.contains(&dpi)).then(|| {
        format!("ZPL printers print at 152, 203, 300 or 600 dpi (6, 8, 12 or 24 dots per mm), not {dpi}")
    })
}

/// The explicit dpi, else the document's `settings.print_dpi` (rounded to a
/// whole dpi), else [`DEFAULT_DPI`]; refused (API-002 at `dpi` or
/// `settings.print_dpi`) unless it is one of [`DPIS`].
pub fn resolve(dpi: Option<u32>, doc: &Document) -> Result<Raster, Violation> {
    let (dpi, path) = match (dpi, doc.settings.print_dpi) {
        (Some(dpi), _) => (dpi, "dpi"),
        (None, Some(dpi)) => (
            dpi.round().clamp(0.0, f64::from(u32::MAX)) as u32,
            "settings.print_dpi",
        ),
        (None, None) => (DEFAULT_DPI, "dpi"),
    };
    match dpi_problem(dpi) {
        Some(message) => Err(Violation {
            path: path.into(),
            message,
        }),
        None => Ok(Raster {
            dpi: f64::from(dpi),
            mono: true,
        }),
    }
}

/// A sheet as printer dots, one bit each, 1 for black (as `^GF` reads
/// them), rows padded to whole bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dots {
    pub width: usize,
    pub height: usize,
    pub row_bytes: usize,
    pub bits: Vec<u8>,
}

impl Dots {
    /// The black dots of premultiplied RGBA pixels, `width` a row.
    pub fn from_rgba(rgba: &[u8], width: usize) -> Dots {
        let row_bytes = width.div_ceil(8);
        let height = if width == 0 {
            0
        } else {
            rgba.len() / 4 / width
        };
        let mut bits = vec![0u8; row_bytes * height];
        for (row, pixels) in bits
            .chunks_exact_mut(row_bytes.max(1))
            .zip(rgba.chunks_exact(width.max(1) * 4))
        {
            for (x, px) in pixels.chunks_exact(4).enumerate() {
                if is_black(px) {
                    row[x / 8] |= 0x80 >> (x % 8);
                }
            }
        }
        Dots {
            width,
            height,
            row_bytes,
            bits,
        }
    }

    /// Whether the dot at (`x`, `y`) is black.
    pub fn black(&self, x: usize, y: usize) -> bool {
        self.bits[y * self.row_bytes + x / 8] & (0x80 >> (x % 8)) != 0
    }
}

/// Appends one label (`^XA ... ^XZ`) printing `dots`, then the fields of
/// `native` (printer-native barcodes, one a line), `copies` times.
pub fn write_label(dots: &Dots, native: &[String], copies: u32, out: &mut String) {
    out.push_str("^XA\n");
    let _ = writeln!(out, "^PW{}", dots.width);
    let _ = writeln!(out, "^LL{}", dots.height);
    out.push_str("^LH0,0\n");
    if dots.row_bytes > 0 {
        let band_rows = (MAX_FIELD_BYTES / dots.row_bytes).max(1);
        for (band, rows) in dots.bits.chunks(band_rows * dots.row_bytes).enumerate() {
            if rows.iter().all(|&b| b == 0) {
                continue;
            }
            let _ = write!(out, "^FO0,{}", band * band_rows);
            graphic_field(rows, dots.row_bytes, out);
            out.push_str("^FS\n");
        }
    }
    for field in native {
        out.push_str(field);
        out.push('\n');
    }
    if copies > 1 {
        let _ = writeln!(out, "^PQ{copies}");
    }
    out.push_str("^XZ\n");
}

/// `^GFA,total,total,row_bytes,:Z64:data:crc` for whole rows of bits.
fn graphic_field(rows: &[u8], row_bytes: usize, out: &mut String) {
    let total = rows.len();
    let _ = write!(out, "^GFA,{total},{total},{row_bytes},");
    z64(rows, out);
}

/// `:Z64:` + Base64 of the zlib data + `:` + CRC-16/XMODEM (four hex digits)
/// of the Base64 text.
fn z64(data: &[u8], out: &mut String) {
    let mut zlib = flate2::write::ZlibEncoder::new(
        Vec::with_capacity(data.len() / 8),
        flate2::Compression::fast(),
    );
    // Writing into a Vec cannot fail.
    zlib.write_all(data).expect("zlib into memory");
    let compressed = zlib.finish().expect("zlib into memory");
    out.push_str(":Z64:");
    let start = out.len();
    base64::engine::general_purpose::STANDARD.encode_string(&compressed, out);
    let crc = crc::Crc::<u16>::new(&crc::CRC_16_XMODEM).checksum(&out.as_bytes()[start..]);
    let _ = write!(out, ":{crc:04X}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    /// The fields of every `^GFA` in `zpl`: (y, total, row_bytes, data).
    fn fields(zpl: &str) -> Vec<(usize, usize, usize, Vec<u8>)> {
        zpl.split("^FO0,")
            .skip(1)
            .map(|field| {
                let (y, rest) = field.split_once("^GFA,").unwrap();
                let rest = rest.split("^FS").next().unwrap();
                let parts: Vec<&str> = rest.splitn(4, ',').collect();
                let (total, count, row_bytes) = (parts[0], parts[1], parts[2]);
                assert_eq!(total, count);
                let body = parts[3].strip_prefix(":Z64:").unwrap();
                let (b64, crc) = body.rsplit_once(':').unwrap();
                let expected = crc::Crc::<u16>::new(&crc::CRC_16_XMODEM).checksum(b64.as_bytes());
                assert_eq!(crc, format!("{expected:04X}"));
                let zlib = base64::engine::general_purpose::STANDARD
                    .decode(b64)
                    .unwrap();
                let mut data = Vec::new();
                flate2::read::ZlibDecoder::new(&zlib[..])
                    .read_to_end(&mut data)
                    .unwrap();
                assert_eq!(data.len(), total.parse::<usize>().unwrap());
                (
                    y.parse().unwrap(),
                    data.len(),
                    row_bytes.parse().unwrap(),
                    data,
                )
            })
            .collect()
    }

    fn pixel(black: bool) -> [u8; 4] {
        if black {
            [0, 0, 0, 255]
        } else {
            [0, 0, 0, 0]
        }
    }

    #[test]
    fn dots_are_the_black_pixels_rows_padded_to_bytes() {
        // 10 x 2: a black first and last column, and a black second row.
        let mut rgba = Vec::new();
        for y in 0..2 {
            for x in 0..10 {
                rgba.extend(pixel(y == 1 || x == 0 || x == 9));
            }
        }
        let dots = Dots::from_rgba(&rgba, 10);
        assert_eq!((dots.width, dots.height, dots.row_bytes), (10, 2, 2));
        assert_eq!(dots.bits, [0b1000_0000, 0b0100_0000, 0xff, 0b1100_0000]);
        assert!(dots.black(9, 0) && !dots.black(8, 0) && dots.black(4, 1));
    }

    #[test]
    fn a_label_has_its_size_and_its_dots_in_checked_z64_fields() {
        let width = 20;
        let height = 3;
        let mut rgba = Vec::new();
        for y in 0..height {
            for x in 0..width {
                rgba.extend(pixel(y == 2 && x % 3 == 0));
            }
        }
        let dots = Dots::from_rgba(&rgba, width);
        let mut zpl = String::new();
        write_label(&dots, &[], 1, &mut zpl);
        assert!(zpl.starts_with("^XA\n^PW20\n^LL3\n^LH0,0\n"), "{zpl}");
        assert!(zpl.ends_with("^XZ\n") && !zpl.contains("^PQ"), "{zpl}");
        let fields = fields(&zpl);
        assert_eq!(fields.len(), 1);
        let (y, total, row_bytes, data) = &fields[0];
        assert_eq!((*y, *total, *row_bytes), (0, 9, 3));
        assert_eq!(data, &dots.bits);
    }

    #[test]
    fn large_sheets_are_split_into_bands_and_blank_bands_are_left_out() {
        // 800 dots wide (100 bytes a row): 999 rows a band.
        let width = 800;
        let height = 2_500;
        let mut rgba = vec![0u8; width * height * 4];
        // Black dots in the first band and the third, none in the second.
        for (x, y) in [(0, 0), (799, 998), (5, 2_400)] {
            rgba[(y * width + x) * 4 + 3] = 255;
        }
        let dots = Dots::from_rgba(&rgba, width);
        let mut zpl = String::new();
        write_label(&dots, &[], 3, &mut zpl);
        let fields = fields(&zpl);
        let ys: Vec<usize> = fields.iter().map(|f| f.0).collect();
        assert_eq!(ys, [0, 1_998]);
        assert!(fields
            .iter()
            .all(|f| f.1 <= MAX_FIELD_BYTES && f.1 % 100 == 0));
        // Each field holds its band's rows, exactly.
        for (y, _, row_bytes, data) in &fields {
            assert_eq!(
                data[..],
                dots.bits[y * row_bytes..y * row_bytes + data.len()]
            );
        }
        assert!(zpl.contains("^PQ3\n^XZ"), "{zpl}");
    }

    #[test]
    fn only_printer_resolutions_are_taken() {
        for dpi in DPIS {
            assert!(dpi_problem(dpi).is_none());
        }
        for dpi in [72, 150, 204, 1200] {
            let problem = dpi_problem(dpi).unwrap();
            assert!(problem.contains("152, 203, 300 or 600"), "{problem}");
        }
    }
}
