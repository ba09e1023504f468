//! `POST /api/v1/batch` (docs/http-api.md, "Batches"): many documents in
//! one request, answered as one file. The checks run as on the render
//! route (auth, query, body); then the token must cover every document of
//! the batch before anything renders (403 API-102 otherwise, nothing
//! charged), one unit per document, of which those rendered are charged.

use axum::extract::State;
use axum::response::Response;

use super::batch_stream;
use super::extract::{Arrived, JsonBody, Wanted};
use super::render::{answer, finish, produce, Document};
use super::request_id::LogInfo;
use super::state::{AppState, RenderService};
use crate::api_error::ApiError;
use crate::auth::Reservation;
use crate::worker::Work;
use labelpress_document::engine::{BatchDocuments, Output};
use labelpress_document::warnings::CheckReport;

pub async fn batch(
    Arrived(started): Arrived,
    State(node): State<AppState>,
    State(service): State<RenderService>,
    reservation: Reservation,
    wanted: Result<Wanted, ApiError>,
    body: Result<JsonBody, ApiError>,
) -> Response {
    let info = LogInfo {
        token: Some(reservation.log_tag()),
        ..LogInfo::default()
    };
    let produced = async {
        let Wanted(output) = wanted?;
        let JsonBody(body) = body?;
        if let Some(e) = one_sheet(&output) {
            return Err(e);
        }
        let retry_after_s = node.pool.retry_after_s();
        let owner = reservation.owner();
        let body =
            super::templates::resolve(&service.templates, owner, body, retry_after_s).await?;
        let max = service.engine.config().limits.batch_documents;
        // Reading a body of up to `limits.body_bytes` is blocking work.
        let read = body.clone();
        let apart = batch_stream::renders_apart(&output);
        let (count, documents) = tokio::task::spawn_blocking(move || read_batch(&read, max, apart))
            .await
            .unwrap_or((1, None));
        let reservations = reserve(reservation, count).await?;
        if let Some(documents) = documents {
            let checked = batch_stream::check(&node, &service, started, &body, output).await;
            // A batch the check refuses, or could not check, is answered by
            // the job that renders it whole: its refusal is the same, and
            // nothing is rendered.
            if let Ok(report @ CheckReport { valid: true, .. }) = checked {
                let sheets = report.sheets;
                let response = batch_stream::answer(
                    node.clone(),
                    service,
                    documents,
                    reservations,
                    output,
                    &report,
                )
                .await?;
                return Ok(Answer::Streamed { response, sheets });
            }
        }
        let all: Vec<&Reservation> = reservations.iter().collect();
        produce(&node, service, &all, started, body, Work::Batch(output))
            .await
            .map(Answer::Whole)
    }
    .await;
    match produced {
        Ok(Answer::Streamed { response, sheets }) => finish(
            response,
            LogInfo {
                sheets: Some(sheets),
                ..info
            },
        ),
        Ok(Answer::Whole(document)) => answer(Ok(document), info),
        Err(e) => answer(Err(e), info),
    }
}

/// How a batch is answered: rendered whole as one file, or streamed
/// document by document ([`batch_stream`]).
enum Answer {
    Whole(Document),
    Streamed { response: Response, sheets: usize },
}

/// `?sheet=` picks one sheet of one document: a batch has no such thing.
fn one_sheet(output: &Output) -> Option<ApiError> {
    let sheet = match output {
        Output::Pdf => None,
        Output::Png(options) => options.sheet,
        Output::Zpl(options) => options.sheet,
    };
    sheet.map(|_| {
        ApiError::InvalidQuery(
            "?sheet= picks a sheet of one document; a batch answers every sheet of every document"
                .into(),
        )
    })
}

/// How many documents the batch body holds, to reserve a unit for each
/// (the length of its `documents` or `records` array), and, when `apart`
/// asks for them and the batch is not partial, those documents one by one.
/// A body that is not such a batch, or holds more than `max`, reserves
/// one: the engine refuses it before anything is charged.
fn read_batch(body: &[u8], max: usize, apart: bool) -> (usize, Option<BatchDocuments>) {
    match BatchDocuments::read(body) {
        Some(documents) if (1..=max).contains(&documents.len()) => {
            let count = documents.len();
            let apart = apart && !documents.partial();
            (count, apart.then_some(documents))
        }
        _ => (1, None),
    }
}

/// `count` reservations on the admitted one's token, or 403 API-102 (the
/// ones already taken are given back as they drop).
async fn reserve(first: Reservation, count: usize) -> Result<Vec<Reservation>, ApiError> {
    let mut reservations = Vec::with_capacity(count);
    for held in 1..count {
        match first.another().await {
            Ok(more) => reservations.push(more),
            Err(ApiError::Forbidden(_)) => {
                return Err(ApiError::Forbidden(format!(
                    "Quota Exceeded: the batch has {count} documents and the token's balance covers {held}; nothing was rendered"
                )))
            }
            Err(e) => return Err(e),
        }
    }
    reservations.insert(0, first);
    Ok(reservations)
}
