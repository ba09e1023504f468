//! `POST /api/v1/label/check`: validates a DocumentRequest as the render
//! route would and answers what `labelpress check` says, as JSON
//! ([`CheckReport`](labelpress_document::warnings::CheckReport)): whether it renders, on how many sheets, and its
//! warnings, or its violations. Authenticated like the render route but
//! never charged: the unit authentication reserves goes back at once.
//! The same body checks (413, 415); a body that is not JSON or breaks a
//! rule is a 200 with `valid: false`, since saying so is this route's job.
//!
//! A check of a large document costs what its render's validation and
//! layout cost (seconds for a million table cells), so it is bounded like
//! a render and may never crowd renders out:
//! - it runs in a render thread's worker process, under the render
//!   deadline (503 past it, the worker stopped) and the worker's memory cap;
//! - at most [`Limits::check_slots`](labelpress_document::config::Limits::check_slots)
//!   checks run at once (one less than the render slots), so renders always
//!   keep a render thread; a check waits for its turn until its deadline;
//! - it counts against the token's rate limit like a render.

use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use tokio::sync::Semaphore;
use tokio::time::Instant;

use super::extract::{Arrived, JsonBody};
use super::pool::{PoolError, RenderPool};
use super::render::failure;
use super::request_id::LogInfo;
use super::state::{AppState, RenderService};
use crate::api_error::ApiError;
use crate::auth::Reservation;
use crate::worker::{RenderFailure, Renderer};
use labelpress_document::warnings::CheckReport;

pub async fn label_check(
    Arrived(started): Arrived,
    State(node): State<AppState>,
    State(service): State<RenderService>,
    reservation: Reservation,
    body: Result<JsonBody, ApiError>,
) -> Response {
    let mut info = LogInfo {
        token: Some(reservation.log_tag()),
        ..LogInfo::default()
    };
    let owner = reservation.owner().clone();
    // Never charged: the reserved unit goes back before anything else.
    drop(reservation);
    let answer = async {
        let JsonBody(body) = body?;
        let pool = &node.pool;
        let retry_after_s = pool.retry_after_s();
        let body =
            super::templates::resolve(&service.templates, &owner, body, retry_after_s).await?;
        let deadline = started + pool.deadline();
        let _turn = check_turn(&node.checks, deadline)
            .await
            .map_err(|e| e.into_api(retry_after_s))?;
        run_check(
            pool,
            service.renderer,
            started,
            move |renderer, deadline| renderer.check(&body, deadline),
        )
        .await
    };
    let mut response = match answer.await {
        Ok(report) => {
            info.sheets = Some(report.sheets);
            Json(report).into_response()
        }
        Err(e) => e.into_response(),
    };
    response.extensions_mut().insert(info);
    response
}

/// Runs `check` on a render thread (in its worker, see [`Renderer`]) with
/// the request's deadline: the report, or why there is none.
pub(super) async fn run_check(
    pool: &RenderPool,
    renderer: Renderer,
    started: Instant,
    check: impl FnOnce(&Renderer, std::time::Instant) -> Result<CheckReport, RenderFailure>
        + Send
        + 'static,
) -> Result<CheckReport, ApiError> {
    let retry_after_s = pool.retry_after_s();
    let deadline = (started + pool.deadline()).into_std();
    pool.run_with_reply(started, move |reply| {
        let report = check(&renderer, deadline);
        if reply.claim() {
            reply.send(report);
        }
    })
    .await
    .map_err(|e| e.into_api(retry_after_s))?
    .map_err(|e| failure(e, retry_after_s))
}

/// One of the check slots, waited for until `deadline`.
pub(super) async fn check_turn(
    checks: &Arc<Semaphore>,
    deadline: Instant,
) -> Result<tokio::sync::OwnedSemaphorePermit, PoolError> {
    match tokio::time::timeout_at(deadline, checks.clone().acquire_owned()).await {
        Ok(Ok(permit)) => Ok(permit),
        // The semaphore is never closed; a timeout is the deadline.
        _ => Err(PoolError::Deadline { started: false }),
    }
}
