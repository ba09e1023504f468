//! `labelpress render REQUEST [-o OUTPUT] [--emit-typst] [--format pdf|png]
//! [--dpi N] [--sheet N] [--mono]`: an offline render to a file or, for `-`,
//! to standard output. PNG output (docs/cli.md) writes one file per sheet.

use std::path::{Path, PathBuf};

use super::output::{is_stdin, print_api_error, Destination};
use crate::exit::{Exit, Failure};
use labelpress_document::engine::raster;
use labelpress_document::engine::Engine;

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    Pdf,
    Png,
}

/// The flags of PNG output.
#[derive(Debug, Clone, Default)]
pub struct PngArgs {
    pub format: Option<FormatArg>,
    pub dpi: Option<u32>,
    pub sheet: Option<usize>,
    pub mono: bool,
}

impl PngArgs {
    /// `--format`, else PNG for an `-o` ending in `.png`; the PNG flags
    /// with a PDF are a mistake, not silently ignored.
    fn is_png(&self, output: Option<&Path>) -> Result<bool, Failure> {
        let png = match self.format {
            Some(format) => format == FormatArg::Png,
            None => output
                .and_then(|o| o.extension())
                .is_some_and(|e| e.eq_ignore_ascii_case("png")),
        };
        if !png && (self.dpi.is_some() || self.sheet.is_some() || self.mono) {
            return Err(Failure::new(
                Exit::Usage,
                "--dpi, --sheet and --mono shape PNG output: add --format png or -o NAME.png",
            ));
        }
        Ok(png)
    }
}

/// Where `--emit-typst` writes the source: `-o` when given, else standard
/// output.
fn typst_destination(output: Option<PathBuf>) -> Destination {
    output
        .map(Destination::given)
        .unwrap_or(Destination::Stdout)
}

/// Whether the document of this render goes to standard output; error
/// bodies then go to standard error, so standard output holds the document
/// or nothing.
pub fn document_on_stdout(request: &Path, output: Option<&Path>, emit_typst: bool) -> bool {
    if emit_typst {
        output.is_none_or(|o| o.as_os_str() == "-")
    } else {
        Destination::pdf_goes_to_stdout(request, output)
    }
}

pub fn run(
    engine: &Engine,
    request: &Path,
    body: &[u8],
    output: Option<PathBuf>,
    emit_typst: bool,
    png: &PngArgs,
) -> Result<Exit, Failure> {
    let errors_on_stderr = document_on_stdout(request, output.as_deref(), emit_typst);
    let is_png = !emit_typst && png.is_png(output.as_deref())?;
    let doc = match engine.validate(body) {
        Ok(doc) => doc,
        Err(e) => return Ok(print_api_error(e.into(), errors_on_stderr)),
    };
    if emit_typst {
        let lowered = engine.lower(&doc);
        typst_destination(output).write(lowered.source.as_bytes())?;
        return Ok(Exit::Success);
    }
    if is_png {
        return write_pngs(engine, &doc, request, output, png, errors_on_stderr);
    }
    let rendered = match engine.render(&doc) {
        Ok(r) => r,
        Err(e) => return Ok(print_api_error(e.into(), errors_on_stderr)),
    };
    let destination = Destination::for_pdf(request, output, rendered.file_name.as_deref());
    destination.write(&rendered.bytes)?;
    let warnings = match rendered.warnings {
        0 => String::new(),
        n => format!(", {n} warning(s) (`labelpress check` lists them)"),
    };
    eprintln!(
        "{}: {} sheet(s), {} bytes{warnings}",
        destination.describe(),
        rendered.sheets,
        rendered.bytes.len()
    );
    Ok(Exit::Success)
}

/// Renders the PNG sheets and writes each to its destination.
fn write_pngs(
    engine: &Engine,
    doc: &labelpress_document::layout::LaidOut,
    request: &Path,
    output: Option<PathBuf>,
    png: &PngArgs,
    errors_on_stderr: bool,
) -> Result<Exit, Failure> {
    let (pngs, sheets) = match engine.render_pngs(doc, png.dpi, png.mono, png.sheet) {
        Ok(done) => done,
        Err(e) => return Ok(print_api_error(e.into(), errors_on_stderr)),
    };
    let numbers: Vec<usize> = match png.sheet {
        Some(sheet) => vec![sheet],
        None => (1..=pngs.len()).collect(),
    };
    let file_name = labelpress_document::pdf::output::file_name(
        &doc.document.settings,
        labelpress_document::engine::clock(),
    );
    let destinations = png_destinations(request, output, file_name.as_deref(), &numbers)?;
    for (destination, bytes) in destinations.iter().zip(&pngs) {
        destination.write(bytes)?;
    }
    for (destination, (sheet, bytes)) in destinations.iter().zip(numbers.iter().zip(&pngs)) {
        eprintln!(
            "{}: sheet {sheet} of {sheets}, {} bytes",
            destination.describe(),
            bytes.len()
        );
    }
    Ok(Exit::Success)
}

/// Where the PNGs of `sheets` go: the PDF's destination with `.png`; when
/// there are several, each file's name gets `-N` before `.png`. Standard
/// output takes one PNG only.
fn png_destinations(
    request: &Path,
    output: Option<PathBuf>,
    file_name: Option<&str>,
    sheets: &[usize],
) -> Result<Vec<Destination>, Failure> {
    let named = file_name.map(|name| raster::file_name(name, 1, 1));
    let base = match output {
        Some(path) => Destination::given(path),
        None if is_stdin(request) => Destination::Stdout,
        None => Destination::File(
            named
                .map(PathBuf::from)
                .unwrap_or_else(|| request.with_extension("png")),
        ),
    };
    match (base, sheets) {
        (base, [_]) => Ok(vec![base]),
        (Destination::Stdout, _) => Err(Failure::new(
            Exit::Usage,
            format!(
                "the document has {} sheets and standard output takes one PNG: add --sheet N",
                sheets.len()
            ),
        )),
        (Destination::File(path), _) => {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            let extension = path
                .extension()
                .map_or("png".into(), |e| e.to_string_lossy());
            Ok(sheets
                .iter()
                .map(|n| Destination::File(path.with_file_name(format!("{stem}-{n}.{extension}"))))
                .collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_destinations_number_the_sheets_only_when_there_are_several() {
        let req = Path::new("dir/req.json");
        let file = |p: &str| Destination::File(p.into());
        assert_eq!(
            png_destinations(req, Some("out.png".into()), None, &[1]).unwrap(),
            [file("out.png")]
        );
        assert_eq!(
            png_destinations(req, Some("o/out.png".into()), None, &[1, 2]).unwrap(),
            [file("o/out-1.png"), file("o/out-2.png")]
        );
        assert_eq!(
            png_destinations(req, None, None, &[2]).unwrap(),
            [file("dir/req.png")]
        );
        assert_eq!(
            png_destinations(req, None, Some("ship.pdf"), &[1, 2]).unwrap(),
            [file("ship-1.png"), file("ship-2.png")]
        );
        assert_eq!(
            png_destinations(req, Some("-".into()), None, &[3]).unwrap(),
            [Destination::Stdout]
        );
        let error = png_destinations(req, Some("-".into()), None, &[1, 2]).unwrap_err();
        assert_eq!(error.exit, Exit::Usage);
    }

    #[test]
    fn the_format_follows_the_flag_else_the_extension() {
        let args = PngArgs::default();
        assert!(args.is_png(Some(Path::new("a.PNG"))).unwrap());
        assert!(!args.is_png(Some(Path::new("a.pdf"))).unwrap());
        assert!(!args.is_png(None).unwrap());
        let png = PngArgs {
            format: Some(FormatArg::Png),
            ..PngArgs::default()
        };
        assert!(png.is_png(Some(Path::new("-"))).unwrap());
        let pdf_with_dpi = PngArgs {
            format: Some(FormatArg::Pdf),
            dpi: Some(300),
            ..PngArgs::default()
        };
        assert!(pdf_with_dpi.is_png(Some(Path::new("a.png"))).is_err());
    }
}
