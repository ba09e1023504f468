//! `POST /api/v1/batch` (docs/http-api.md, "Batches"): many documents in
//! one request, answered as one file. The checks run as on the render
//! route (auth, query, body); then the token must cover every document of
//! the batch before anything renders (403 API-102 otherwise, nothing
//! charged), one unit per document, of which those rendered are charged.

use axum::extract::State;
use axum::response::Response;
use serde::de::IgnoredAny;

use super::extract::{Arrived, JsonBody, Wanted};
use super::render::{answer, produce};
use super::request_id::LogInfo;
use super::state::{AppState, RenderService};
use crate::api_error::ApiError;
use crate::auth::Reservation;
use crate::worker::Work;
use labelpress_document::engine::Output;

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
        let counted = body.clone();
        let count = tokio::task::spawn_blocking(move || documents_in(&counted, max))
            .await
            .unwrap_or(1);
        let reservations = reserve(reservation, count).await?;
        let all: Vec<&Reservation> = reservations.iter().collect();
        produce(&node, service, &all, started, body, Work::Batch(output)).await
    }
    .await;
    answer(produced, info)
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

/// How many documents the batch body holds, to reserve a unit for each:
/// the length of its `documents` or `records` array. A body that is not
/// such an object, or holds more than `max`, reserves one: the engine
/// refuses it before anything is charged.
fn documents_in(body: &[u8], max: usize) -> usize {
    #[derive(serde::Deserialize)]
    struct Counted {
        documents: Option<Vec<IgnoredAny>>,
        records: Option<Vec<IgnoredAny>>,
    }
    match serde_json::from_slice::<Counted>(body) {
        Ok(Counted {
            documents: Some(items),
            ..
        })
        | Ok(Counted {
            records: Some(items),
            ..
        }) if (1..=max).contains(&items.len()) => items.len(),
        _ => 1,
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
