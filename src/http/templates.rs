//! Stored templates (docs/http-api.md, "Stored templates"):
//! `PUT`/`GET`/`DELETE /api/v1/templates/{name}` and `GET /api/v1/templates`,
//! each on the templates of the token's account ([`Identified`]), and
//! [`resolve`], which puts a stored template in place of its name in a
//! render, check or batch body before the engine reads it.
//!
//! Managing templates is authenticated like a render (401, 403, 502) but
//! reserves and charges nothing and leaves the token's render rate limit
//! alone. A name another account stored is, to this one, not there: 404,
//! never its content.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use serde_json::Value;
use tokio::time::Instant;

use super::check::check_turn;
use super::extract::{Identified, JsonBody};
use super::state::{AppState, RenderService};
use crate::api_error::ApiError;
use crate::credential::{now_ms, Owner};
use crate::templates::{Listed, Stored, TemplateError, TemplateName, Templates};
use labelpress_document::template::TEMPLATE_KEY;
use labelpress_document::validate::Violation;

/// The answer of `GET /api/v1/templates`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct TemplateList {
    /// The account's templates, by name.
    pub templates: Vec<Listed>,
}

fn name_of(raw: &str) -> Result<TemplateName, ApiError> {
    TemplateName::parse(raw).map_err(|why| ApiError::Validation(vec![Violation::at("name", why)]))
}

fn missing(name: &str) -> ApiError {
    ApiError::Missing(format!(
        "no stored template `{name}` in this token's account"
    ))
}

fn store_error(e: TemplateError, retry_after_s: u64) -> ApiError {
    match e {
        TemplateError::Full { .. } => {
            ApiError::Validation(vec![Violation::at("name", e.to_string())])
        }
        TemplateError::Unavailable(why) => {
            tracing::error!(error = %why, "template store");
            ApiError::Overloaded {
                message: "the template store is unavailable".into(),
                retry_after_s,
            }
        }
    }
}

/// `PUT /api/v1/templates/{name}`: checks the body as a template
/// ([`labelpress_document::engine::Engine::validate_template`], 422 with
/// paths from the template's root), then stores it for the account: 201
/// when the name is new, 200 when it replaced the account's own.
pub async fn put(
    State(node): State<AppState>,
    State(service): State<RenderService>,
    Identified(owner): Identified,
    Path(name): Path<String>,
    body: Result<JsonBody, ApiError>,
) -> Response {
    let retry_after_s = node.pool.retry_after_s();
    let answer = async {
        let name = name_of(&name)?;
        let JsonBody(body) = body?;
        // Checking lays the template out: bounded like a check, in one of
        // the check slots, so it never holds every render thread.
        let deadline = Instant::now() + node.pool.deadline();
        let _turn = check_turn(&node.checks, deadline)
            .await
            .map_err(|e| e.into_api(retry_after_s))?;
        let engine = service.engine.clone();
        let checked = body.clone();
        tokio::task::spawn_blocking(move || engine.validate_template(&checked))
            .await
            .map_err(|e| ApiError::Internal(format!("template check: {e}")))??;
        // The body parsed as JSON, so it is UTF-8.
        let text = String::from_utf8_lossy(&body);
        let max = node.config.limits.templates_per_account;
        let now = now_ms();
        let stored = service
            .templates
            .put(&owner, &name, &text, max, now)
            .await
            .map_err(|e| store_error(e, retry_after_s))?;
        let status = match stored {
            Stored::Created => StatusCode::CREATED,
            Stored::Replaced => StatusCode::OK,
        };
        let listed = Listed {
            name: name.as_str().to_string(),
            updated_at: now,
            bytes: body.len() as u64,
        };
        let mut response = (status, Json(listed)).into_response();
        if let Ok(location) = HeaderValue::from_str(&format!("/api/v1/templates/{}", name.as_str()))
        {
            response.headers_mut().insert(header::LOCATION, location);
        }
        Ok::<_, ApiError>(response)
    };
    answer.await.unwrap_or_else(IntoResponse::into_response)
}

/// `GET /api/v1/templates/{name}`: the template as stored.
pub async fn get(
    State(node): State<AppState>,
    State(service): State<RenderService>,
    Identified(owner): Identified,
    Path(name): Path<String>,
) -> Response {
    let answer = async {
        let name = name_of(&name)?;
        let template = service
            .templates
            .get(&owner, &name)
            .await
            .map_err(|e| store_error(e, node.pool.retry_after_s()))?
            .ok_or_else(|| missing(name.as_str()))?;
        Ok::<_, ApiError>(([(header::CONTENT_TYPE, "application/json")], template).into_response())
    };
    answer.await.unwrap_or_else(IntoResponse::into_response)
}

/// `DELETE /api/v1/templates/{name}`: 204, or 404 when the account has no
/// template of that name.
pub async fn delete(
    State(node): State<AppState>,
    State(service): State<RenderService>,
    Identified(owner): Identified,
    Path(name): Path<String>,
) -> Response {
    let answer = async {
        let name = name_of(&name)?;
        let deleted = service
            .templates
            .delete(&owner, &name)
            .await
            .map_err(|e| store_error(e, node.pool.retry_after_s()))?;
        match deleted {
            true => Ok(StatusCode::NO_CONTENT.into_response()),
            false => Err(missing(name.as_str())),
        }
    };
    answer.await.unwrap_or_else(IntoResponse::into_response)
}

/// `GET /api/v1/templates`: the account's templates, by name.
pub async fn list(
    State(node): State<AppState>,
    State(service): State<RenderService>,
    Identified(owner): Identified,
) -> Response {
    match service.templates.list(&owner).await {
        Ok(templates) => Json(TemplateList { templates }).into_response(),
        Err(e) => store_error(e, node.pool.retry_after_s()).into_response(),
    }
}

/// `body` with every stored template it names put in place of the name:
/// a render or check body `{"template": "name", "data": ...}`, a batch's
/// `{"template": "name", "records": [...]}` or its `documents[i]` of that
/// shape. A name the owner has not stored is 404 API-005, naming where it
/// stands; a store that cannot answer is 503 with `retry_after_s`. A body
/// that names none (every plain document) is returned as it came, without
/// being parsed here; one that is not JSON is left to the engine to refuse.
pub async fn resolve(
    templates: &Templates,
    owner: &Owner,
    body: Bytes,
    retry_after_s: u64,
) -> Result<Bytes, ApiError> {
    if memchr::memmem::find(&body, b"\"template\"").is_none() {
        return Ok(body);
    }
    let parsing = body.clone();
    let parsed = tokio::task::spawn_blocking(move || serde_json::from_slice::<Value>(&parsing))
        .await
        .map_err(|e| ApiError::Internal(format!("reading the body: {e}")))?;
    let Ok(mut root) = parsed else {
        return Ok(body);
    };
    let slots = stored_names(&mut root);
    if slots.is_empty() {
        return Ok(body);
    }
    // A batch names one template many times: each is read once.
    let mut read: Vec<(String, Value)> = Vec::new();
    for (place, slot) in slots {
        let Value::String(name) = &*slot else {
            continue;
        };
        let template = match read.iter().find(|(known, _)| known == name) {
            Some((_, template)) => template.clone(),
            None => {
                let template = read_stored(templates, owner, name, &place, retry_after_s).await?;
                read.push((name.clone(), template.clone()));
                template
            }
        };
        *slot = template;
    }
    tokio::task::spawn_blocking(move || serde_json::to_vec(&root).map(Bytes::from))
        .await
        .map_err(|e| ApiError::Internal(format!("writing the body: {e}")))?
        .map_err(|e| ApiError::Internal(format!("writing the body: {e}")))
}

/// `owner`'s stored template `name`, which stands at `place` in a body.
async fn read_stored(
    templates: &Templates,
    owner: &Owner,
    name: &str,
    place: &str,
    retry_after_s: u64,
) -> Result<Value, ApiError> {
    let unknown = || {
        ApiError::Missing(format!(
            "{place}: no stored template `{name}` in this token's account"
        ))
    };
    let parsed_name = TemplateName::parse(name).map_err(|_| unknown())?;
    let stored = templates
        .get(owner, &parsed_name)
        .await
        .map_err(|e| store_error(e, retry_after_s))?
        .ok_or_else(unknown)?;
    serde_json::from_str(&stored)
        .map_err(|e| ApiError::Internal(format!("stored template `{name}`: {e}")))
}

/// Every `template` of a body that names a stored template, with where it
/// stands: the body's own (`template`) and each batch document's
/// (`documents[3].template`).
fn stored_names(root: &mut Value) -> Vec<(String, &mut Value)> {
    let Value::Object(map) = root else {
        return Vec::new();
    };
    let mut slots = Vec::new();
    for (key, value) in map.iter_mut() {
        match (key.as_str(), value) {
            (TEMPLATE_KEY, slot @ Value::String(_)) => slots.push((TEMPLATE_KEY.to_string(), slot)),
            ("documents", Value::Array(documents)) => {
                for (i, document) in documents.iter_mut().enumerate() {
                    if let Some(slot @ Value::String(_)) = document.get_mut(TEMPLATE_KEY) {
                        slots.push((format!("documents[{i}].{TEMPLATE_KEY}"), slot));
                    }
                }
            }
            _ => {}
        }
    }
    slots
}
