//! PNG output: sheets of a compiled document rasterised by Typst's own
//! renderer (typst-render), at a printer's resolution, on white.
//!
//! Invariants:
//! - a sheet is one Typst page; its pixel size is the page size in inches
//!   times the dpi, rounded to the nearest pixel (what typst-render does);
//! - the PNG has no alpha channel: transparent areas are composited onto
//!   white, since a label is printed on white and printers read alpha badly;
//! - a mono PNG is 1-bit grey, every pixel black or white (a pixel darker
//!   than mid-grey is black), for direct thermal printers;
//! - the PNG records its resolution (pHYs, in pixels per metre), so that a
//!   printer driver or viewer prints it at its true size;
//! - the resolution and the pixel count are checked against the runtime
//!   configuration's limits before a pixel is allocated.

use serde::{Deserialize, Serialize};
use typst_layout::Page;

use crate::config::{Limits, RuntimeConfig};
use crate::ir::Document;
use crate::validate::Violation;

/// The lowest resolution PNG output takes (as `settings.print_dpi`).
pub const MIN_DPI: u32 = 72;

/// What a render produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Output {
    /// The whole document as one PDF.
    #[default]
    Pdf,
    /// One sheet as a PNG.
    Png(PngOptions),
    /// Every sheet (or one) as a ZPL label.
    Zpl(super::zpl::ZplOptions),
}

/// How one sheet is rasterised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PngOptions {
    /// Dots per inch; `None`: `settings.print_dpi`, else the runtime
    /// configuration's `defaults.png_dpi`.
    pub dpi: Option<u32>,
    /// 1-based sheet number; `None`: every sheet (a ZIP of them when the
    /// document has several).
    pub sheet: Option<usize>,
    /// Pure black and white.
    pub mono: bool,
}

impl Default for PngOptions {
    fn default() -> Self {
        PngOptions {
            dpi: None,
            sheet: None,
            mono: false,
        }
    }
}

/// What the bytes of a [`crate::engine::Rendered`] are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Format {
    Pdf,
    Png,
    Zpl,
    /// Several files: every sheet as PNG, or a batch's files
    /// ([`super::archive`]).
    Zip,
}

impl Format {
    pub fn media_type(self) -> &'static str {
        match self {
            Format::Pdf => "application/pdf",
            Format::Png => "image/png",
            Format::Zpl => super::zpl::MEDIA_TYPE,
            Format::Zip => super::archive::MEDIA_TYPE,
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Format::Pdf => "pdf",
            Format::Png => "png",
            Format::Zpl => "zpl",
            Format::Zip => "zip",
        }
    }
}

/// The resolution and colour of PNG output, resolved and checked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Raster {
    pub dpi: f64,
    pub mono: bool,
}

/// Why a dpi is refused, or `None`: the one range check of every dpi the
/// PNG output takes (query, CLI flag, `settings.print_dpi`).
pub fn dpi_problem(dpi: f64, limits: &Limits) -> Option<String> {
    let max = limits.png_dpi_max;
    (!(f64::from(MIN_DPI)..=f64::from(max)).contains(&dpi))
        .then(|| format!("PNG output takes {MIN_DPI} to {max} dpi (limits.png_dpi_max), not {dpi}"))
}

impl Raster {
    /// The explicit dpi, else the document's `settings.print_dpi`, else the
    /// configured default; refused (API-002 at `dpi` or
    /// `settings.print_dpi`) outside `MIN_DPI..=limits.png_dpi_max`.
    pub fn resolve(
        dpi: Option<u32>,
        mono: bool,
        doc: &Document,
        config: &RuntimeConfig,
    ) -> Result<Raster, Violation> {
        let (dpi, path) = match (dpi, doc.settings.print_dpi) {
            (Some(dpi), _) => (f64::from(dpi), "dpi"),
            (None, Some(dpi)) => (dpi, "settings.print_dpi"),
            (None, None) => (config.defaults.png_dpi, "defaults.png_dpi"),
        };
        match dpi_problem(dpi, &config.limits) {
            Some(message) => Err(Violation {
                path: path.into(),
                message,
            }),
            None => Ok(Raster { dpi, mono }),
        }
    }

    fn pixel_per_pt(&self) -> f64 {
        self.dpi / 72.0
    }

    /// Width and height in pixels of `page`, as typst-render sizes it.
    pub fn pixels(&self, page: &Page) -> (u64, u64) {
        let size = page.frame.size();
        let ppp = self.pixel_per_pt() as f32;
        let side = |pt: f64| (ppp * pt as f32).round().max(1.0) as u64;
        (side(size.x.to_pt()), side(size.y.to_pt()))
    }

    /// `page` drawn at this resolution, on a transparent background;
    /// refused (API-002 at `dpi`) when its pixels exceed
    /// `limits.png_pixels`, before anything is drawn. PNG and ZPL output
    /// both start from it, so they agree to the pixel.
    pub fn pixmap(
        &self,
        page: &Page,
        sheet: usize,
        limits: &Limits,
    ) -> Result<tiny_skia::Pixmap, Violation> {
        let (width, height) = self.pixels(page);
        if width.saturating_mul(height) > limits.png_pixels {
            return Err(Violation {
                path: "dpi".into(),
                message: format!(
                    "sheet {sheet} at {} dpi is {width} x {height} pixels, more than limits.png_pixels ({}); ask for a lower dpi",
                    self.dpi, limits.png_pixels
                ),
            });
        }
        let options = typst_render::RenderOptions {
            pixel_per_pt: typst::utils::Scalar::from(self.pixel_per_pt()),
            render_bleed: false,
        };
        Ok(typst_render::render(page, &options))
    }

    /// `page` as PNG bytes (refused as [`Raster::pixmap`] refuses).
    pub fn png(&self, page: &Page, sheet: usize, limits: &Limits) -> Result<Vec<u8>, Violation> {
        let pixmap = self.pixmap(page, sheet, limits)?;
        let (width, height) = (pixmap.width(), pixmap.height());
        let image = Image {
            width,
            height,
            pixels_per_metre: (self.dpi / 0.0254).round() as u32,
        };
        let encoded = if self.mono {
            image.encode(
                png::ColorType::Grayscale,
                png::BitDepth::One,
                pixmap.data(),
                mono_row,
            )
        } else {
            image.encode(
                png::ColorType::Rgb,
                png::BitDepth::Eight,
                pixmap.data(),
                rgb_row,
            )
        };
        Ok(encoded)
    }
}

/// One row of premultiplied RGBA composited onto white, as RGB: over white
/// a premultiplied channel `c` with alpha `a` becomes `c + (255 - a)`.
fn rgb_row(rgba: &[u8], out: &mut [u8]) {
    for (out, px) in out.chunks_exact_mut(3).zip(rgba.chunks_exact(4)) {
        let white = 255 - px[3];
        out[0] = px[0] + white;
        out[1] = px[1] + white;
        out[2] = px[2] + white;
    }
}

/// One row of premultiplied RGBA as 1-bit pixels (1 = white), padded to a
/// whole byte as PNG wants: a pixel whose luma on white is below mid-grey
/// is black.
fn mono_row(rgba: &[u8], out: &mut [u8]) {
    out.fill(0);
    for (x, px) in rgba.chunks_exact(4).enumerate() {
        if !is_black(px) {
            out[x / 8] |= 0x80 >> (x % 8);
        }
    }
}

/// Whether one premultiplied RGBA pixel prints black on a one-bit printer:
/// its luma on white (ITU-R BT.601) is below mid-grey. A threshold, never
/// dithering: a bar or a glyph stem stays one solid run of dots. Mono PNG
/// and ZPL output share it.
pub fn is_black(px: &[u8]) -> bool {
    let white = u32::from(255 - px[3]);
    // In thousandths.
    let luma = 299 * (u32::from(px[0]) + white)
        + 587 * (u32::from(px[1]) + white)
        + 114 * (u32::from(px[2]) + white);
    luma < 128 * 1000
}

/// The header facts of one PNG.
struct Image {
    width: u32,
    height: u32,
    pixels_per_metre: u32,
}

impl Image {
    /// The PNG of `data` (rows of `color` at `depth`). Encoding was most of
    /// a PNG's cost with the default adaptive filter (five filters tried on
    /// every row): a label is white runs and vertical bars, which the one
    /// `Up` filter turns into zeros, and the fast deflate level compresses
    /// those runs about as well as any.
    ///
    /// Rows are converted from the pixmap (`rgba`, premultiplied) by
    /// `convert` one at a time into one reused buffer and streamed to the
    /// encoder: no second full-size image is allocated.
    fn encode(
        &self,
        color: png::ColorType,
        depth: png::BitDepth,
        rgba: &[u8],
        convert: fn(&[u8], &mut [u8]),
    ) -> Vec<u8> {
        use std::io::Write;
        let width = self.width as usize;
        let row_bytes = match depth {
            png::BitDepth::One => width.div_ceil(8),
            _ => width * color.samples(),
        };
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
        encoder.set_color(color);
        encoder.set_depth(depth);
        encoder.set_compression(png::Compression::Fast);
        encoder.set_filter(png::Filter::Up);
        encoder.set_pixel_dims(Some(png::PixelDimensions {
            xppu: self.pixels_per_metre,
            yppu: self.pixels_per_metre,
            unit: png::Unit::Meter,
        }));
        // Writing into a Vec fails only on a size mismatch: every row has
        // the header's width and there are height of them.
        let mut writer = encoder.write_header().expect("PNG header into memory");
        let mut stream = writer
            .stream_writer_with_size(64 << 10)
            .expect("PNG stream into memory");
        let mut row = vec![0; row_bytes];
        for pixels in rgba.chunks_exact(width * 4) {
            convert(pixels, &mut row);
            stream.write_all(&row).expect("a PNG row into memory");
        }
        stream.finish().expect("PNG data into memory");
        writer.finish().expect("PNG end into memory");
        out
    }
}

/// The download name of a PNG: the PDF's name with `.png`, and the sheet
/// number when the document has more than one (`label-2.png`).
pub fn file_name(pdf_name: &str, sheet: usize, sheets: usize) -> String {
    let stem = stem(pdf_name);
    if sheets > 1 {
        format!("{stem}-{sheet}.png")
    } else {
        format!("{stem}.png")
    }
}

/// The PDF's download name without its `.pdf` (in any case: `X.PDF`), the
/// stem the PNG and ZPL names are built on.
pub fn stem(pdf_name: &str) -> &str {
    let cut = pdf_name.len().saturating_sub(4);
    match pdf_name.get(cut..) {
        Some(ext) if ext.eq_ignore_ascii_case(".pdf") => &pdf_name[..cut],
        _ => pdf_name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_png_takes_the_pdf_name_without_its_extension_in_any_case() {
        assert_eq!(file_name("label.pdf", 1, 1), "label.png");
        assert_eq!(file_name("X.PDF", 1, 1), "X.png");
        assert_eq!(file_name("Inv.Pdf", 2, 3), "Inv-2.png");
        assert_eq!(file_name("pdf", 1, 1), "pdf.png");
        assert_eq!(file_name("é.pdf", 1, 1), "é.png");
    }

    #[test]
    fn transparent_pixels_become_white_and_opaque_ones_keep_their_colour() {
        // transparent, opaque black, opaque red, half-transparent black (premultiplied)
        let rgba = [0, 0, 0, 0, 0, 0, 0, 255, 255, 0, 0, 255, 0, 0, 0, 128];
        let mut rgb = [0; 12];
        rgb_row(&rgba, &mut rgb);
        assert_eq!(rgb, [255, 255, 255, 0, 0, 0, 255, 0, 0, 127, 127, 127]);
    }

    #[test]
    fn mono_rows_are_padded_bits_with_one_for_white() {
        // 9 pixels wide, 1 row: black, then white x7, then black.
        let mut rgba = Vec::new();
        rgba.extend_from_slice(&[0, 0, 0, 255]);
        for _ in 0..7 {
            rgba.extend_from_slice(&[255, 255, 255, 255]);
        }
        rgba.extend_from_slice(&[0, 0, 0, 255]);
        let mut bits = [0xff; 2];
        mono_row(&rgba, &mut bits);
        assert_eq!(bits, [0b0111_1111, 0b0000_0000]);
        // Transparent is white; dark grey is black; light grey is white.
        let rgba = [0, 0, 0, 0, 100, 100, 100, 255, 200, 200, 200, 255];
        let mut bits = [0xff; 1];
        mono_row(&rgba, &mut bits);
        assert_eq!(bits, [0b1010_0000]);
    }

    #[test]
    fn dpi_outside_the_range_is_refused_with_the_limit() {
        let limits = Limits::default();
        assert!(dpi_problem(203.0, &limits).is_none());
        assert!(dpi_problem(f64::from(limits.png_dpi_max), &limits).is_none());
        let high = dpi_problem(f64::from(limits.png_dpi_max) + 1.0, &limits).unwrap();
        assert!(high.contains("limits.png_dpi_max"), "{high}");
        assert!(dpi_problem(71.0, &limits).is_some());
    }

    #[test]
    fn png_names_follow_the_pdf_name() {
        assert_eq!(file_name("order 4711.pdf", 1, 1), "order 4711.png");
        assert_eq!(file_name("order.pdf", 2, 3), "order-2.png");
    }
}
