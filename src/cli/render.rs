//! `labelpress render REQUEST [-o OUTPUT] [--emit-typst] [--format pdf|png|zpl]
//! [--dpi N] [--sheet N] [--mono]`: an offline render to a file or, for `-`,
//! to standard output. PNG output (docs/cli.md) writes one file per sheet;
//! ZPL one file with a label per sheet. Several REQUESTs, or `--template T
//! --records R.jsonl`, are one batch (`Engine::render_batch`) written to
//! `-o` as one file.

use std::path::{Path, PathBuf};

use super::output::{is_stdin, print_api_error, Destination};
use crate::exit::{Exit, Failure};
use labelpress_document::engine::Engine;
use labelpress_document::engine::{raster, Output, ZplOptions};

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    Pdf,
    Png,
    Zpl,
}

/// The flags that choose and shape the output.
#[derive(Debug, Clone, Default)]
pub struct PngArgs {
    pub format: Option<FormatArg>,
    pub dpi: Option<u32>,
    pub sheet: Option<usize>,
    pub mono: bool,
    /// ZPL: barcodes the printer can draw as placed are its own commands.
    pub native_barcodes: bool,
}

impl PngArgs {
    /// `--format`, else PNG or ZPL for an `-o` ending in `.png` or `.zpl`,
    /// else PDF; flags the format does not take are a mistake, not silently
    /// ignored.
    fn format(&self, output: Option<&Path>) -> Result<FormatArg, Failure> {
        let format = self.format.unwrap_or_else(|| {
            let extension = output.and_then(|o| o.extension());
            match extension {
                Some(e) if e.eq_ignore_ascii_case("png") => FormatArg::Png,
                Some(e) if e.eq_ignore_ascii_case("zpl") => FormatArg::Zpl,
                _ => FormatArg::Pdf,
            }
        });
        let refuse = |message: &str| Err(Failure::new(Exit::Usage, message));
        match format {
            FormatArg::Pdf if self.dpi.is_some() || self.sheet.is_some() || self.mono => refuse(
                "--dpi, --sheet and --mono shape PNG or ZPL output: add --format png|zpl or -o NAME.png|NAME.zpl",
            ),
            FormatArg::Zpl if self.mono => refuse("ZPL is always black and white: drop --mono"),
            FormatArg::Pdf | FormatArg::Png if self.native_barcodes => {
                refuse("--native-barcodes shapes ZPL output: add --format zpl or -o NAME.zpl")
            }
            _ => Ok(format),
        }
    }

    fn zpl(&self) -> ZplOptions {
        ZplOptions {
            dpi: self.dpi,
            sheet: self.sheet,
            copies: 1,
            native_barcodes: self.native_barcodes,
        }
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
    let format = if emit_typst {
        FormatArg::Pdf
    } else {
        png.format(output.as_deref())?
    };
    let validated = match format {
        FormatArg::Zpl => engine.validate_for(body, &Output::Zpl(png.zpl())),
        _ => engine.validate(body),
    };
    let doc = match validated {
        Ok(doc) => doc,
        Err(e) => return Ok(print_api_error(e.into(), errors_on_stderr)),
    };
    if emit_typst {
        let lowered = engine.lower(&doc);
        typst_destination(output).write(lowered.source.as_bytes())?;
        return Ok(Exit::Success);
    }
    let rendered = match format {
        FormatArg::Png => return write_pngs(engine, &doc, request, output, png, errors_on_stderr),
        FormatArg::Zpl => engine.render_as(&doc, &Output::Zpl(png.zpl())),
        FormatArg::Pdf => engine.render(&doc),
    };
    let rendered = match rendered {
        Ok(r) => r,
        Err(e) => return Ok(print_api_error(e.into(), errors_on_stderr)),
    };
    let destination = Destination::for_document(
        request,
        output,
        rendered.file_name.as_deref(),
        rendered.format.extension(),
    );
    destination.write(&rendered.bytes)?;
    let warnings = match rendered.warnings {
        0 => String::new(),
        n => format!(", {n} warning(s) (`labelpress check` lists them)"),
    };
    eprintln!(
        "{}: {} sheet(s), {} bytes{warnings}",
        destination.describe(),
        rendered.delivered_sheets,
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
        &doc.document.settings.delivery,
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
        let format = |args: &PngArgs, o: Option<&str>| args.format(o.map(Path::new)).unwrap();
        assert_eq!(format(&args, Some("a.PNG")), FormatArg::Png);
        assert_eq!(format(&args, Some("a.zpl")), FormatArg::Zpl);
        assert_eq!(format(&args, Some("a.pdf")), FormatArg::Pdf);
        assert_eq!(format(&args, None), FormatArg::Pdf);
        let png = PngArgs {
            format: Some(FormatArg::Png),
            ..PngArgs::default()
        };
        assert_eq!(format(&png, Some("-")), FormatArg::Png);
        let pdf_with_dpi = PngArgs {
            format: Some(FormatArg::Pdf),
            dpi: Some(300),
            ..PngArgs::default()
        };
        assert!(pdf_with_dpi.format(Some(Path::new("a.png"))).is_err());
        let zpl_with_dpi = PngArgs {
            dpi: Some(300),
            sheet: Some(2),
            ..PngArgs::default()
        };
        assert_eq!(format(&zpl_with_dpi, Some("a.zpl")), FormatArg::Zpl);
        let zpl_mono = PngArgs {
            mono: true,
            ..PngArgs::default()
        };
        assert!(zpl_mono.format(Some(Path::new("a.zpl"))).is_err());
    }
}

/// A batch body of several request files: `{"documents": [...]}`, each
/// file's JSON as it is (a file that is not JSON is named).
pub fn documents_batch(paths: &[PathBuf], bodies: &[Vec<u8>]) -> Result<Vec<u8>, Failure> {
    let mut documents = Vec::with_capacity(bodies.len());
    for (path, body) in paths.iter().zip(bodies) {
        let value: serde_json::Value = serde_json::from_slice(body)
            .map_err(|e| Failure::new(Exit::Usage, format!("{}: not JSON: {e}", path.display())))?;
        documents.push(value);
    }
    Ok(serde_json::to_vec(&serde_json::json!({ "documents": documents })).unwrap_or_default())
}

/// A batch body of a template and JSON Lines records (blank lines skipped):
/// `{"template": ..., "records": [...]}`. A line that is not JSON is named
/// by its number.
pub fn template_batch(template: &[u8], records: &[u8]) -> Result<Vec<u8>, Failure> {
    let template: serde_json::Value = serde_json::from_slice(template)
        .map_err(|e| Failure::new(Exit::Usage, format!("--template: not JSON: {e}")))?;
    // A template file may be a template body (`{"template", "data"}`) too:
    // its template is what the records fill.
    let template = match template {
        serde_json::Value::Object(mut body) if body.contains_key("template") => {
            body.remove("template").unwrap_or_default()
        }
        other => other,
    };
    let text = String::from_utf8_lossy(records);
    let mut parsed = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record: serde_json::Value = serde_json::from_str(line).map_err(|e| {
            Failure::new(
                Exit::Usage,
                format!("--records line {}: not JSON: {e}", i + 1),
            )
        })?;
        parsed.push(record);
    }
    Ok(
        serde_json::to_vec(&serde_json::json!({ "template": template, "records": parsed }))
            .unwrap_or_default(),
    )
}

/// Renders a batch body into `-o` (required: a batch has no request file
/// to be named after) as one file: PDF, ZPL, or a ZIP of PNGs.
pub fn run_batch(
    engine: &Engine,
    body: &[u8],
    output: Option<PathBuf>,
    emit_typst: bool,
    png: &PngArgs,
) -> Result<Exit, Failure> {
    let refuse = |message: &str| Err(Failure::new(Exit::Usage, message));
    if emit_typst {
        return refuse("--emit-typst writes one document's source: give one REQUEST");
    }
    if png.sheet.is_some() {
        return refuse("--sheet picks a sheet of one document; a batch writes every sheet");
    }
    let Some(output) = output else {
        return refuse("a batch is written to one file: add -o NAME.pdf, NAME.zpl or NAME.zip");
    };
    let zip = output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("zip"));
    let format = match (png.format, zip) {
        (None, true) => FormatArg::Png,
        _ => png.format(Some(&output))?,
    };
    let output_format = match format {
        FormatArg::Pdf => Output::Pdf,
        FormatArg::Png => Output::Png(labelpress_document::engine::PngOptions {
            dpi: png.dpi,
            sheet: None,
            mono: png.mono,
        }),
        FormatArg::Zpl => Output::Zpl(png.zpl()),
    };
    let to_stdout = output.as_os_str() == "-";
    let rendered = match engine.render_batch(body, &output_format) {
        Ok(r) => r,
        Err(e) => return Ok(print_api_error(e.into(), to_stdout)),
    };
    let destination = Destination::given(output);
    destination.write(&rendered.bytes)?;
    eprintln!(
        "{}: {} document(s), {} sheet(s), {} bytes",
        destination.describe(),
        rendered.documents,
        rendered.delivered_sheets,
        rendered.bytes.len()
    );
    Ok(Exit::Success)
}
