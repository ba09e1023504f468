//! A batch whose documents render apart and stream (docs/http-api.md,
//! "Batches"): ZPL and PNG, all or nothing. Their output is one document's
//! after another, so each document is its own render job, up to one per
//! render slot at once, and the answer is sent document by document, in
//! order, as each is done: ZPL labels as they are, PNG sheets as the
//! entries of a ZIP archive written as it goes.
//!
//! The whole batch is checked first (one job, as a batch render would
//! validate it), so a refusal still comes before anything is rendered or
//! charged. The first document then renders alone: the answer's head
//! leaves once it is done, so a failure until then is an ordinary error
//! answer with nothing charged. Each document is charged as it is rendered,
//! one unit of the ones reserved for the batch. A document that fails after
//! the answer has started (a worker that died, a deadline, a refusal only
//! its render finds, such as `limits.zpl_bytes`) ends the answer early,
//! without its last chunk, so that the client sees an incomplete answer,
//! never a short one that looks whole; the documents already sent stay
//! charged, and those still rendering give their units back (a request's
//! reservation that drops uncharged is never charged).
//!
//! A PDF is one compile of every document (`lower_batch`), which measures
//! faster than documents apart and cannot be cut between documents; a
//! partial batch's archive ends with the manifest of what was left out.
//! Both render as one job ([`super::batch`]).

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use futures_util::stream::{self, Stream, StreamExt};
use tokio::time::Instant;

use super::render::{produce, Document, WARNINGS_HEADER};
use super::state::{AppState, RenderService};
use crate::api_error::ApiError;
use crate::auth::Reservation;
use crate::worker::Work;
use labelpress_document::engine::archive::{self, ZipStream};
use labelpress_document::engine::{BatchDocuments, Format, Output};
use labelpress_document::warnings::CheckReport;

/// How long a document of a streaming batch waits before it asks the full
/// render queue again.
const QUEUE_FULL_PAUSE: Duration = Duration::from_millis(20);

/// Whether a batch for `output` renders its documents apart: ZPL and PNG
/// (a partial batch never does: see the module doc).
pub fn renders_apart(output: &Output) -> bool {
    matches!(output, Output::Zpl(_) | Output::Png(_))
}

/// The batch's check, as the job that renders it whole would validate it;
/// `Err` when the check could not run (the pool full, the deadline, a
/// worker that died), which the whole-batch job then answers.
pub async fn check(
    node: &AppState,
    service: &RenderService,
    started: Instant,
    body: &Bytes,
    output: Output,
) -> Result<CheckReport, ApiError> {
    let body = body.clone();
    super::check::run_check(
        &node.pool,
        service.renderer.clone(),
        started,
        move |renderer, deadline| renderer.check_batch(&output, &body, deadline),
    )
    .await
}

/// The answer to a checked batch: a 200 whose body streams the documents
/// in order, each rendered (and charged to one of `reservations`, one per
/// document) as its turn comes; or the error of the first document when it
/// fails before anything is sent.
pub async fn answer(
    node: AppState,
    service: RenderService,
    documents: BatchDocuments,
    reservations: Vec<Reservation>,
    output: Output,
    report: &CheckReport,
) -> Result<Response, ApiError> {
    let format = match output {
        Output::Png(_) => Format::Zip,
        _ => Format::Zpl,
    };
    let slots = node.pool.slots();
    let documents = Arc::new(documents);
    let mut reservations = reservations.into_iter().enumerate();
    let Some((_, reservation)) = reservations.next() else {
        return Err(ApiError::Internal("a batch with no documents".into()));
    };
    // The first document renders alone, before the answer's head: a batch
    // refused by then (the queue full, a render refused) answers as a
    // render does, and no other document has been rendered or charged.
    let first = render_nth(&node, &service, &documents, output, 0, reservation).await?;
    let rest = Box::pin(
        stream::iter(reservations)
            .map(move |(index, reservation)| {
                let (node, service, documents) = (node.clone(), service.clone(), documents.clone());
                async move {
                    let document =
                        render_nth(&node, &service, &documents, output, index, reservation).await;
                    (index, document)
                }
            })
            .buffered(slots.max(1)),
    );
    let mut writer = PartWriter::new(format);
    let head = writer.part(0, first)?;
    let body = stream::once(async move { Ok(head) }).chain(parts(writer, rest));
    let mut response = Response::new(Body::from_stream(body));
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(format.media_type()),
    );
    headers.insert(WARNINGS_HEADER, HeaderValue::from(report.warnings));
    Ok(response)
}

/// Document `index` of the batch, rendered and charged to `reservation`;
/// after the first, a full render queue is asked again until the
/// document's deadline, rather than ending an answer already under way.
async fn render_nth(
    node: &AppState,
    service: &RenderService,
    documents: &Arc<BatchDocuments>,
    output: Output,
    index: usize,
    reservation: Reservation,
) -> Result<Document, ApiError> {
    let documents = documents.clone();
    let body = tokio::task::spawn_blocking(move || documents.body(index))
        .await
        .map_err(|_| ApiError::Internal("the batch's body task failed".into()))?;
    let work = Work::Document(output);
    render_document(
        node,
        service.clone(),
        reservation,
        body.into(),
        work,
        index > 0,
    )
    .await
}

/// One document of the batch, rendered and charged. When `patient`, a full
/// render queue is asked again until the document's deadline, rather than
/// ending an answer already under way.
async fn render_document(
    node: &AppState,
    service: RenderService,
    reservation: Reservation,
    body: Bytes,
    work: Work,
    patient: bool,
) -> Result<Document, ApiError> {
    let started = Instant::now();
    let give_up = started + node.pool.deadline();
    loop {
        let produced = produce(
            node,
            service.clone(),
            &[&reservation],
            started,
            body.clone(),
            work,
        )
        .await;
        match produced {
            Err(ApiError::Overloaded { .. })
                if patient && Instant::now() + QUEUE_FULL_PAUSE < give_up =>
            {
                tokio::time::sleep(QUEUE_FULL_PAUSE).await
            }
            produced => return produced,
        }
    }
}

/// The body after the first document: each document's bytes in turn, then
/// the archive's end; an error ends it (see the module doc).
fn parts(
    writer: PartWriter,
    documents: impl Stream<Item = (usize, Result<Document, ApiError>)> + Send + Unpin + 'static,
) -> impl Stream<Item = Result<Bytes, std::io::Error>> + Send {
    stream::unfold(Some((writer, documents)), |state| async move {
        let (mut writer, mut documents) = state?;
        match documents.next().await {
            Some((index, Ok(document))) => match writer.part(index, document) {
                Ok(bytes) => Some((Ok(bytes), Some((writer, documents)))),
                Err(e) => Some((Err(ended(index, e)), None)),
            },
            Some((index, Err(e))) => Some((Err(ended(index, e)), None)),
            None => writer.finish().map(|rest| (Ok(rest), None)),
        }
    })
}

/// Why a streaming answer ended early, logged (its client only sees the
/// answer cut off).
fn ended(index: usize, e: ApiError) -> std::io::Error {
    tracing::warn!(document = index, error = %e, "batch answer ended early");
    std::io::Error::other(format!("document {index} of the batch: {e}"))
}

/// Turns each document's output into its part of the answer.
struct PartWriter {
    /// The archive of a PNG batch.
    archive: Option<ZipStream>,
}

impl PartWriter {
    fn new(format: Format) -> PartWriter {
        PartWriter {
            archive: (format == Format::Zip).then(ZipStream::new),
        }
    }

    /// Document `index`'s (0-based) part: its ZPL, or its sheets as the
    /// archive's entries `0001-1.png`... (of a one-sheet PNG, or of the
    /// archive of every sheet its render answered).
    fn part(&mut self, index: usize, document: Document) -> Result<Bytes, ApiError> {
        let Some(archive) = &mut self.archive else {
            return Ok(document.bytes.into());
        };
        let sheets = match document.format {
            Format::Zip => archive::entries(&document.bytes).map_err(|e| {
                ApiError::Internal(format!("a document's PNG archive does not read back: {e}"))
            })?,
            _ => vec![document.bytes],
        };
        let mut out = Vec::new();
        for (sheet, png) in sheets.iter().enumerate() {
            out.extend(archive.add(&archive::sheet_name(index + 1, sheet + 1, "png"), png));
        }
        Ok(out.into())
    }

    /// The end of the answer: the archive's last entry and directory.
    fn finish(self) -> Option<Bytes> {
        self.archive.map(|archive| archive.finish().into())
    }
}
