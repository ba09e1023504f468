//! `labelpress render REQUEST [-o OUTPUT] [--emit-typst]`: an offline render
//! to a file or, for `-`, to standard output.

use std::path::{Path, PathBuf};

use super::exit::{Exit, Failure};
use super::output::{print_api_error, Destination};
use crate::engine::Engine;

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
) -> Result<Exit, Failure> {
    let errors_on_stderr = document_on_stdout(request, output.as_deref(), emit_typst);
    let doc = match engine.validate(body) {
        Ok(doc) => doc,
        Err(e) => return Ok(print_api_error(e.into(), errors_on_stderr)),
    };
    if emit_typst {
        let lowered = engine.lower(&doc);
        typst_destination(output).write(lowered.source.as_bytes())?;
        return Ok(Exit::Success);
    }
    let rendered = match engine.render(&doc) {
        Ok(r) => r,
        Err(e) => return Ok(print_api_error(e.into(), errors_on_stderr)),
    };
    let destination = Destination::for_pdf(request, output, rendered.file_name.as_deref());
    destination.write(&rendered.pdf)?;
    let warnings = match rendered.warnings {
        0 => String::new(),
        n => format!(", {n} warning(s) (`labelpress check` lists them)"),
    };
    eprintln!(
        "{}: {} sheet(s), {} bytes{warnings}",
        destination.describe(),
        rendered.sheets,
        rendered.pdf.len()
    );
    Ok(Exit::Success)
}
