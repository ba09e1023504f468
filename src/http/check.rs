//! `POST /api/v1/label/check`: validates a DocumentRequest as the render
//! route would and answers what `labelpress check` says, as JSON
//! ([`CheckReport`]): whether it renders, on how many sheets, and its
//! warnings, or its violations. Authenticated like the render route but
//! never charged: the unit authentication reserves goes back at once.
//! The same body checks (413, 415); a body that is not JSON or breaks a
//! rule is a 200 with `valid: false`, since saying so is this route's job.
//! Validation runs on a render thread (the render pool's queue and
//! deadline apply, 503 past them), in this process: no worker is needed,
//! nothing is compiled.

use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use tokio::time::Instant;

use super::render::{client_address, read_body};
use super::request_id::LogInfo;
use super::state::AppState;
use crate::api_error::ApiError;
use crate::warnings::CheckReport;

pub async fn label_check(State(state): State<AppState>, request: Request) -> Response {
    let started = Instant::now();
    let (Some(engine), Some(auth)) = (state.engine.clone(), state.auth.clone()) else {
        return ApiError::NotFound.into_response();
    };
    let grant = match auth
        .authenticate(request.headers(), client_address(&request))
        .await
    {
        Ok(grant) => grant,
        Err(e) => return e.into_response(),
    };
    // Never charged: the reserved unit goes back before anything else.
    auth.refund(&grant);
    let mut info = LogInfo {
        token: Some(grant.log_tag()),
        ..LogInfo::default()
    };
    let answer = async {
        let body = read_body(&state, request).await?;
        let pool = &state.pool;
        pool.run_with_reply(started, move |reply| {
            let report = CheckReport::of(&engine.validate(&body));
            if reply.claim() {
                reply.send(report);
            }
        })
        .await
        .map_err(|e| e.into_api(pool.retry_after_s()))
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
