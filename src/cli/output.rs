//! Where the CLI's results go: a file, or standard output for `-`.
//!
//! Invariant: when a document goes to standard output, nothing else is
//! written there (summaries and error bodies go to standard error), so
//! `labelpress render - < req.json > out.pdf` leaves a PDF or nothing usable.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::api_error::ApiError;
use crate::exit::{Exit, Failure};

/// The destination of a rendered PDF or emitted Typst source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    Stdout,
    File(PathBuf),
}

impl Destination {
    /// `-o PATH` as given: `-` is standard output.
    pub fn given(path: PathBuf) -> Destination {
        if path.as_os_str() == "-" {
            Destination::Stdout
        } else {
            Destination::File(path)
        }
    }

    /// Where `render REQUEST [-o OUTPUT]` writes its PDF (or ZPL): `-o` when
    /// given; standard output when the request came from standard input
    /// (there is no file name to derive from); else `file_name` (from the
    /// request's `settings.output.file_name`), else the request's path with
    /// `extension`.
    pub fn for_document(
        request: &Path,
        output: Option<PathBuf>,
        file_name: Option<&str>,
        extension: &str,
    ) -> Destination {
        match output {
            Some(path) => Destination::given(path),
            None if is_stdin(request) => Destination::Stdout,
            None => Destination::File(
                file_name
                    .map(PathBuf::from)
                    .unwrap_or_else(|| request.with_extension(extension)),
            ),
        }
    }

    /// Whether a render of `request` with `-o output` goes to standard
    /// output, known before rendering (`settings.output.file_name` only
    /// matters for a file destination).
    pub fn pdf_goes_to_stdout(request: &Path, output: Option<&Path>) -> bool {
        match output {
            Some(path) => path.as_os_str() == "-",
            None => is_stdin(request),
        }
    }

    /// How messages name the destination.
    pub fn describe(&self) -> String {
        match self {
            Destination::Stdout => "standard output".into(),
            Destination::File(path) => path.display().to_string(),
        }
    }

    /// Writes `bytes` whole. A closed pipe on standard output (the reader
    /// stopped, `| head -c 100`) ends quietly, as `out` does; any other
    /// failure names the destination.
    pub fn write(&self, bytes: &[u8]) -> Result<(), Failure> {
        let failed = |e: std::io::Error| {
            Failure::new(
                Exit::Usage,
                format!("cannot write {}: {e}", self.describe()),
            )
        };
        match self {
            Destination::File(path) => std::fs::write(path, bytes).map_err(failed),
            Destination::Stdout => match write_stdout(bytes) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(failed(e)),
                _ => Ok(()),
            },
        }
    }
}

pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(bytes)?;
    stdout.flush()
}

/// Prints the error body the service would answer for `error`, as JSON:
/// on standard output, or standard error when standard output carries the
/// document. Returns the exit for it (a refusal, or a failure of ours).
pub fn print_api_error(error: ApiError, on_stderr: bool) -> Exit {
    let body = error.body(&uuid::Uuid::new_v4().to_string());
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(&body).unwrap_or_default()
    );
    if on_stderr {
        eprint!("{text}");
    } else {
        out(&text);
    }
    Exit::for_api_status(error.status())
}

/// Writes text to standard output; a closed pipe (`labelpress fonts | head`)
/// ends the output quietly instead of panicking as `print!` does.
pub fn out(text: &str) {
    let _ = write_stdout(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dash_is_standard_output() {
        let req = Path::new("dir/req.json");
        assert_eq!(
            Destination::for_document(req, Some("-".into()), Some("x.pdf"), "pdf"),
            Destination::Stdout
        );
        assert_eq!(
            Destination::for_document(Path::new("-"), None, None, "pdf"),
            Destination::Stdout
        );
        assert_eq!(
            Destination::for_document(Path::new("-"), Some("o.pdf".into()), None, "pdf"),
            Destination::File("o.pdf".into())
        );
        assert!(Destination::pdf_goes_to_stdout(Path::new("-"), None));
        assert!(Destination::pdf_goes_to_stdout(req, Some(Path::new("-"))));
        assert!(!Destination::pdf_goes_to_stdout(req, None));
    }

    #[test]
    fn a_file_request_names_its_pdf_after_the_request_or_its_file_name() {
        let req = Path::new("dir/req.json");
        assert_eq!(
            Destination::for_document(req, None, None, "pdf"),
            Destination::File("dir/req.pdf".into())
        );
        assert_eq!(
            Destination::for_document(req, None, Some("invoice.pdf"), "pdf"),
            Destination::File("invoice.pdf".into())
        );
        assert_eq!(
            Destination::for_document(req, None, None, "zpl"),
            Destination::File("dir/req.zpl".into())
        );
    }
}
