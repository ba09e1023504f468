//! The error codes of the render route (DECISIONS section 2) and their JSON body.
//! The CLI prints the same body, so `labelpress check` shows what the service answers.

use serde::Serialize;

use crate::engine::RenderError;
use crate::validate::{RequestError, Violation};

/// One error of the render route.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// API-001: the body is not JSON.
    InvalidJson(String),
    /// API-002: schema or rule violations.
    Validation(Vec<Violation>),
    /// API-501: the PDF could not be produced.
    Render(String),
}

/// `{"error": true, "code", "message", "req_id", "details"?}`.
#[derive(Debug, Serialize)]
pub struct ErrorBody {
    pub error: bool,
    pub code: &'static str,
    pub message: String,
    pub req_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Vec<Violation>>,
}

impl ApiError {
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::InvalidJson(_) => "API-001",
            ApiError::Validation(_) => "API-002",
            ApiError::Render(_) => "API-501",
        }
    }

    /// HTTP status of the code.
    pub fn status(&self) -> u16 {
        match self {
            ApiError::InvalidJson(_) => 400,
            ApiError::Validation(_) => 422,
            ApiError::Render(_) => 500,
        }
    }

    pub fn body(&self, req_id: &str) -> ErrorBody {
        let (message, details) = match self {
            ApiError::InvalidJson(m) | ApiError::Render(m) => (m.clone(), None),
            ApiError::Validation(v) => (
                RequestError::Invalid(v.clone()).to_string(),
                Some(v.clone()),
            ),
        };
        ErrorBody {
            error: true,
            code: self.code(),
            message,
            req_id: req_id.to_string(),
            details,
        }
    }
}

impl From<RequestError> for ApiError {
    fn from(e: RequestError) -> Self {
        match e {
            RequestError::Json { .. } => ApiError::InvalidJson(e.to_string()),
            RequestError::Invalid(v) => ApiError::Validation(v),
        }
    }
}

impl From<RenderError> for ApiError {
    fn from(e: RenderError) -> Self {
        match e {
            RenderError::Request(r) => r.into(),
            other => ApiError::Render(other.to_string()),
        }
    }
}
