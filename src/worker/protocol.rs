//! What the server and a render worker process say to each other over their
//! socket: length-prefixed frames, one request and one answer at a time.
//!
//! - once, server to worker: the [`Spec`] (JSON) the worker builds its engine from;
//! - once, worker to server: [`READY`] when the engine is loaded;
//! - per job, server to worker: a [`Job`] head (JSON: what to produce), then
//!   the request body as sent by the client;
//! - per job, worker to server: an [`Answer`] head (JSON), then for a PDF or
//!   PNG its bytes.
//!
//! Every frame is a little-endian `u64` length followed by that many bytes.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use labelpress_document::config::RuntimeConfig;
use labelpress_document::engine::fonts::FontOptions;
use labelpress_document::engine::{Engine, Format, Output, RenderError, Rendered};
use labelpress_document::validate::{RequestError, Violation};
use labelpress_document::warnings::CheckReport;

/// The one byte a worker sends once its engine is ready.
pub const READY: u8 = 0x52;

/// Longest frame either side accepts: far above any body or PDF the limits
/// allow, so only a broken peer reaches it.
const MAX_FRAME: u64 = 1 << 34;

/// Everything a worker needs to build the same engine as the server's.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Spec {
    pub config: RuntimeConfig,
    pub fonts: FontOptions,
    pub resources: Option<PathBuf>,
}

/// What a render makes of its body, wherever it runs (a worker process,
/// or the server's own render thread).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Work {
    /// One document (`POST /api/v1/label`), as `Output` asks.
    Document(Output),
    /// A batch body (`POST /api/v1/batch`): every document as one file.
    Batch(Output),
}

impl Work {
    /// Validates and renders `body`, with the time the render took: a
    /// document's without its validation, a batch's with it (a batch
    /// validates document by document as it goes).
    pub fn run(&self, engine: &Engine, body: &[u8]) -> Result<(Rendered, Duration), RenderError> {
        match self {
            Work::Document(output) => {
                let doc = engine.validate_for(body, output)?;
                let started = Instant::now();
                let rendered = engine.render_as(&doc, output)?;
                Ok((rendered, started.elapsed()))
            }
            Work::Batch(output) => {
                let started = Instant::now();
                let rendered = engine.render_batch(body, output)?;
                Ok((rendered, started.elapsed()))
            }
        }
    }

    /// Only the validation of [`Work::run`]: its refusal, if any.
    pub fn validate(&self, engine: &Engine, body: &[u8]) -> Result<(), RequestError> {
        match self {
            Work::Document(output) => engine.validate_for(body, output).map(drop),
            Work::Batch(output) => engine.validate_batch(body, output).map(drop),
        }
    }
}

/// What one job produces; the request body follows as the next frame.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Job {
    /// Validate, then render as asked: [`Answer::Document`] or a refusal.
    Render(Work),
    /// Validate only (`POST /api/v1/label/check`): [`Answer::Checked`].
    /// In the worker, so that the deadline and the memory cap bound it as
    /// they bound a render.
    Check,
    /// Validate a batch body for `Output` only: [`Answer::Checked`], the
    /// whole batch's report (a batch whose documents then render apart).
    CheckBatch(Output),
}

/// A worker's answer to one request, without the document's bytes.
#[derive(Debug, Serialize, Deserialize)]
pub enum Answer {
    /// The document (a PDF, or a PNG) follows as the next frame.
    Document {
        format: Format,
        sheets: usize,
        delivered_sheets: usize,
        file_name: Option<String>,
        /// Compile and export time, without validation.
        render_us: u64,
        /// Validation warnings (`X-Labelpress-Warnings`).
        warnings: usize,
        /// Documents rendered (a batch's; 1 otherwise): what is charged.
        documents: usize,
    },
    /// API-001.
    Json {
        line: usize,
        column: usize,
        reason: String,
    },
    /// API-002.
    Invalid(Vec<Violation>),
    /// API-501: valid, but no PDF came out.
    Failed(String),
    /// The answer to [`Job::Check`] and [`Job::CheckBatch`].
    Checked(CheckReport),
    /// An allocation failed at the worker's memory cap (MiB) while it
    /// worked on the job; the worker has exited ([`super::oom`]).
    OutOfMemory { cap_mb: u64 },
    /// The render panicked (an upstream bug); the worker exits after this
    /// answer, so that nothing a half-finished compile left behind serves
    /// the next request.
    Panicked(String),
}

impl Answer {
    /// The head of a render's outcome (the PDF, if any, is sent after it).
    pub fn of(outcome: &Result<(Rendered, Duration), RenderError>) -> Answer {
        match outcome {
            Ok((rendered, took)) => Answer::Document {
                format: rendered.format,
                sheets: rendered.sheets,
                delivered_sheets: rendered.delivered_sheets,
                file_name: rendered.file_name.clone(),
                render_us: took.as_micros() as u64,
                warnings: rendered.warnings,
                documents: rendered.documents,
            },
            Err(RenderError::Request(RequestError::Json {
                line,
                column,
                reason,
            })) => Answer::Json {
                line: *line,
                column: *column,
                reason: reason.clone(),
            },
            Err(RenderError::Request(RequestError::Invalid(violations))) => {
                Answer::Invalid(violations.clone())
            }
            Err(RenderError::Compile(message)) => Answer::Failed(message.clone()),
        }
    }

    /// The outcome again, with the bytes that followed a [`Answer::Document`].
    pub fn into_outcome(self, bytes: Vec<u8>) -> Result<(Rendered, Duration), RenderError> {
        match self {
            Answer::Document {
                format,
                sheets,
                delivered_sheets,
                file_name,
                render_us,
                warnings,
                documents,
            } => Ok((
                Rendered {
                    bytes,
                    format,
                    sheets,
                    delivered_sheets,
                    documents,
                    file_name,
                    warnings,
                },
                Duration::from_micros(render_us),
            )),
            Answer::Json {
                line,
                column,
                reason,
            } => Err(RenderError::Request(RequestError::Json {
                line,
                column,
                reason,
            })),
            Answer::Invalid(violations) => {
                Err(RenderError::Request(RequestError::Invalid(violations)))
            }
            Answer::Failed(message) | Answer::Panicked(message) => {
                Err(RenderError::Compile(message))
            }
            Answer::OutOfMemory { cap_mb } => Err(RenderError::Compile(format!(
                "the render worker ran out of its {cap_mb} MiB memory cap"
            ))),
            Answer::Checked(_) => Err(RenderError::Compile(
                "the render worker answered a render with a check report".into(),
            )),
        }
    }
}

/// Writes one frame with one write where it fits a small buffer (a socket
/// write is a system call, and the peer wakes for each).
pub fn write_frame(out: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    write_frames(out, &[bytes])
}

/// Writes frames back to back, with one write when together they fit a
/// small buffer: a job's head and body, or an answer's head and document,
/// then reach the peer as one message and wake it once.
pub fn write_frames(out: &mut impl Write, frames: &[&[u8]]) -> io::Result<()> {
    let total: usize = frames.iter().map(|f| 8 + f.len()).sum();
    if total <= 64 << 10 {
        let mut joined = Vec::with_capacity(total);
        for frame in frames {
            joined.extend_from_slice(&(frame.len() as u64).to_le_bytes());
            joined.extend_from_slice(frame);
        }
        out.write_all(&joined)
    } else {
        for frame in frames {
            out.write_all(&(frame.len() as u64).to_le_bytes())?;
            out.write_all(frame)?;
        }
        Ok(())
    }
}

/// A JSON head and the bytes that follow it (a [`Job`] and its request
/// body, an [`Answer::Document`] and its document), as [`write_frames`].
pub fn write_head_and_bytes(
    out: &mut impl Write,
    head: &impl Serialize,
    bytes: &[u8],
) -> io::Result<()> {
    let head = serde_json::to_vec(head).map_err(io::Error::other)?;
    write_frames(out, &[&head, bytes])
}

pub fn read_frame(input: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut len = [0; 8];
    input.read_exact(&mut len)?;
    let len = u64::from_le_bytes(len);
    if len > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a frame of {len} bytes"),
        ));
    }
    let mut bytes = vec![0; len as usize];
    input.read_exact(&mut bytes)?;
    Ok(bytes)
}

pub fn write_json(out: &mut impl Write, value: &impl Serialize) -> io::Result<()> {
    let bytes = serde_json::to_vec(value).map_err(io::Error::other)?;
    write_frame(out, &bytes)
}

pub fn read_json<T: for<'de> Deserialize<'de>>(input: &mut impl Read) -> io::Result<T> {
    let bytes = read_frame(input)?;
    serde_json::from_slice(&bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_outcome_survives_the_trip_through_an_answer() {
        let pdf = Ok((
            Rendered {
                bytes: b"%PDF-1.7".to_vec(),
                format: Format::Pdf,
                sheets: 3,
                delivered_sheets: 3,
                documents: 1,
                file_name: Some("x.pdf".into()),
                warnings: 2,
            },
            Duration::from_micros(1234),
        ));
        let violations = vec![Violation {
            path: "pages[0].size".into(),
            message: "unknown size".into(),
        }];
        let png = Ok((
            Rendered {
                bytes: b"\x89PNG".to_vec(),
                format: Format::Png,
                sheets: 2,
                delivered_sheets: 1,
                documents: 1,
                file_name: None,
                warnings: 0,
            },
            Duration::from_micros(99),
        ));
        let zpl = Ok((
            Rendered {
                bytes: b"^XA^XZ".to_vec(),
                format: Format::Zpl,
                sheets: 4,
                delivered_sheets: 4,
                documents: 1,
                file_name: Some("x.zpl".into()),
                warnings: 1,
            },
            Duration::from_micros(7),
        ));
        let cases: Vec<Result<(Rendered, Duration), RenderError>> = vec![
            pdf,
            png,
            zpl,
            Err(RenderError::Request(RequestError::Json {
                line: 1,
                column: 7,
                reason: "eof".into(),
            })),
            Err(RenderError::Request(RequestError::Invalid(violations))),
            Err(RenderError::Compile("boom".into())),
        ];
        for case in cases {
            let mut wire = Vec::new();
            write_json(&mut wire, &Answer::of(&case)).unwrap();
            let head: Answer = read_json(&mut wire.as_slice()).unwrap();
            let bytes = case
                .as_ref()
                .map(|(r, _)| r.bytes.clone())
                .unwrap_or_default();
            let again = head.into_outcome(bytes);
            assert_eq!(format!("{again:?}"), format!("{case:?}"));
        }
    }

    #[test]
    fn a_job_head_carries_the_output_options() {
        use labelpress_document::engine::PngOptions;
        let output = Output::Png(PngOptions {
            dpi: Some(300),
            sheet: Some(2),
            mono: true,
        });
        let mut wire = Vec::new();
        let zpl = Output::Zpl(labelpress_document::engine::ZplOptions {
            dpi: Some(600),
            sheet: Some(3),
            copies: 2,
            native_barcodes: true,
        });
        write_json(&mut wire, &Job::Render(Work::Document(output))).unwrap();
        write_json(&mut wire, &Job::Render(Work::Batch(zpl))).unwrap();
        write_json(&mut wire, &Job::Check).unwrap();
        let mut reader = wire.as_slice();
        let again: Job = read_json(&mut reader).unwrap();
        assert!(
            matches!(again, Job::Render(Work::Document(o)) if o == output),
            "{again:?}"
        );
        let again: Job = read_json(&mut reader).unwrap();
        assert!(
            matches!(again, Job::Render(Work::Batch(o)) if o == zpl),
            "{again:?}"
        );
        let check: Job = read_json(&mut reader).unwrap();
        assert!(matches!(check, Job::Check), "{check:?}");
    }

    #[test]
    fn a_frame_longer_than_any_request_is_refused_before_allocating() {
        let mut wire = (MAX_FRAME + 1).to_le_bytes().to_vec();
        wire.extend_from_slice(b"xx");
        let error = read_frame(&mut wire.as_slice()).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
    }
}
