//! The OpenAPI 3.1 document of every route a node can serve, whatever its
//! `--services`: `GET /openapi.json` and `labelpress openapi`.
//!
//! Bodies are schemas generated from the types the handlers serialise and
//! deserialise (schemars, dialect 2020-12); error bodies are described per
//! service as they are: the render API's `{error: true, code, ...}` (codes
//! from [`ApiError`] itself), the barcode service's plain text, and the
//! verifier's `{error, message}`. docs/http-api.md and docs/admin-api.md
//! are the prose for the same routes.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use schemars::gen::SchemaGenerator;
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

use crate::api_error::{ApiError, ErrorBody};
use crate::verify::admin::{CreatedToken, NewToken};
use crate::verify::history::MAX_BUCKETS;
use crate::verify::http::views::{
    AccountView, Expiry, TokenDetail, TokenPage, TokenView, TopUp, UsageSeries,
};
use crate::verify::protocol::{Granted, Rejection, RejectionBody};
use crate::verify::record::{BannedAccount, MAX_ACCOUNT_LEN, MAX_BALANCE};
use crate::verify::search::{DEFAULT_LIMIT, MAX_LIMIT, STATUSES};
use crate::verify::service::MAX_IDEMPOTENCY_KEY;
use labelpress_barcode::option_specs::{find, specific, Kind, OptionSpec, COMMON};
use labelpress_barcode::Symbology;
use labelpress_document::model::{RawRequest, TemplateRequest};
use labelpress_document::request_schema::{self, DIALECT};

/// The document, serialised once: it depends on nothing but the binary.
pub fn bytes() -> &'static [u8] {
    static BYTES: LazyLock<Vec<u8>> =
        LazyLock::new(|| serde_json::to_vec(&document()).expect("a JSON value serialises"));
    &BYTES
}

/// The OpenAPI 3.1 document.
pub fn document() -> Value {
    let mut schemas = Schemas::new();
    let paths = json!({
        "/api/v1/label": {"post": render_label(&mut schemas)},
        "/api/v1/label/check": {"post": check_label(&mut schemas)},
        "/api/v1/batch": {"post": render_batch(&mut schemas)},
        "/api/v1/templates": {"get": list_templates(&mut schemas)},
        "/api/v1/templates/{name}": {
            "put": put_template(&mut schemas),
            "get": get_template(&mut schemas),
            "delete": delete_template(&mut schemas),
        },
        "/v1/doc/runtime-config": {"get": runtime_config(&mut schemas)},
        "/barcode/{symbology}/{content}": {"get": barcode()},
        "/barcode/{symbology}/": {"get": barcode_without_content("/barcode/{symbology}/")},
        "/barcode/{symbology}": {"get": barcode_without_content("/barcode/{symbology}")},
        "/v1/verify": {"post": verify(&mut schemas)},
        "/v1/leases": {"post": lease(&mut schemas, false)},
        "/v1/leases/return": {"post": lease(&mut schemas, true)},
        "/admin": {"get": dashboard()},
        "/admin/api/tokens": {
            "get": admin_list_tokens(&mut schemas),
            "post": admin_create_token(&mut schemas),
        },
        "/admin/api/tokens/{id}": {"get": admin_show_token(&mut schemas)},
        "/admin/api/tokens/{id}/topup": {"post": admin_change::<TopUp>(&mut schemas, "topup", "Adds `amount` units to the balance.")},
        "/admin/api/tokens/{id}/expiry": {"post": admin_change::<Expiry>(&mut schemas, "expiry", "Sets or clears (`null`) the expiry.")},
        "/admin/api/tokens/{id}/revoke": {"post": admin_revoke(&mut schemas)},
        "/admin/api/usage": {"get": admin_usage(&mut schemas)},
        "/admin/api/accounts/banned": {"get": admin_banned(&mut schemas)},
        "/admin/api/accounts/{account}/ban": {"post": admin_ban(&mut schemas, true)},
        "/admin/api/accounts/{account}/unban": {"post": admin_ban(&mut schemas, false)},
        "/healthz": {"get": healthz()},
        "/readyz": {"get": readyz()},
        "/metrics": {"get": metrics()},
        "/version": {"get": version()},
        "/openapi.json": {"get": openapi()},
    });
    let mut paths = paths;
    let by_path = paths.as_object_mut().expect("paths is an object");
    for (name, symbology) in named_symbologies() {
        by_path.insert(
            format!("/barcode/{name}/{{content}}"),
            json!({"get": barcode_of(name, symbology)}),
        );
    }
    json!({
        "openapi": "3.1.0",
        "jsonSchemaDialect": DIALECT,
        "info": {
            "title": "labelpress",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "JSON document descriptions to print-exact PDF, a barcode SVG service and a token verification service. A node serves the routes of the services it runs (`--services render,barcode,verify`); `/healthz`, `/readyz`, `/metrics`, `/version` and `/openapi.json` always. Any other path answers 404 and a known path with another method 405, both with the render API's JSON error body (code API-005). Every answer carries an `X-Request-Id` header; a connection beyond `limits.max_connections`, or opened while the server shuts down, gets 503 API-503 with `Retry-After`.",
            "license": {"name": "MIT OR Apache-2.0", "identifier": "MIT OR Apache-2.0"},
        },
        "tags": [
            {"name": "render", "description": "DocumentRequest to PDF."},
            {"name": "barcode", "description": "Barcode symbols as SVG."},
            {"name": "verify", "description": "Token verification."},
            {"name": "admin", "description": "Token administration (the admin token)."},
            {"name": "node", "description": "Probes, metrics and this document."},
        ],
        "paths": paths,
        "components": {
            "schemas": schemas.finish(),
            "securitySchemes": {
                "token": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A token created through the admin API (or the node's `--system-token`).",
                },
                "adminToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The verifier's admin token (`--admin-token`).",
                },
            },
            "headers": {
                "X-Request-Id": {
                    "description": "The request's id, also `req_id` in the render API's error bodies and in the request log: the caller's `X-Request-Id` when it is 1 to 128 characters of `A-Z a-z 0-9 . _ : -`, else a fresh UUID v4.",
                    "schema": crate::request_context::request_id_schema(),
                },
                "Vary": {
                    "description": "`accept`: the render route answers PDF or PNG by the request's `Accept` header.",
                    "schema": {"type": "string", "const": "accept"},
                },
                "Retry-After": {
                    "description": "Seconds to wait before retrying.",
                    "schema": {"type": "integer", "minimum": 1},
                },
                "WWW-Authenticate": {
                    "description": "`Bearer`.",
                    "schema": {"type": "string", "const": "Bearer"},
                },
            },
        },
    })
}

/// Component schemas, generated into `#/components/schemas/`.
struct Schemas(SchemaGenerator);

impl Schemas {
    fn new() -> Schemas {
        Schemas(SchemaGenerator::new(request_schema::settings(
            "#/components/schemas/",
        )))
    }

    /// A reference to `T`'s schema (or the schema itself, for a type
    /// schemars inlines), its definitions added to the components.
    fn of<T: JsonSchema>(&mut self) -> Value {
        serde_json::to_value(self.0.subschema_for::<T>()).expect("a schema serialises")
    }

    fn finish(mut self) -> Map<String, Value> {
        let mut definitions = self
            .0
            .take_definitions()
            .into_iter()
            .map(|(name, schema)| (name, serde_json::to_value(schema).expect("serialises")))
            .collect();
        request_schema::tighten(&mut definitions);
        tighten_admin(&mut definitions);
        definitions
    }
}

/// The admin API's rules JSON Schema can say, added to its bodies'
/// definitions (`crate::verify::admin` checks them).
fn tighten_admin(definitions: &mut Map<String, Value>) {
    let rules = [
        ("NewToken", "/properties/account", account_schema()),
        (
            "NewToken",
            "/properties/balance/maximum",
            json!(MAX_BALANCE),
        ),
        ("RateLimit", "/properties/per_second/minimum", json!(1)),
        ("RateLimit", "/properties/burst/minimum", json!(1)),
        ("TopUp", "/properties/amount/minimum", json!(1)),
        ("TopUp", "/properties/amount/maximum", json!(MAX_BALANCE)),
    ];
    for (definition, pointer, value) in rules {
        let target = definitions
            .get_mut(definition)
            .and_then(|d| {
                let (parent, key) = pointer.rsplit_once('/').expect("a pointer");
                d.pointer_mut(parent).map(|p| (p, key))
            })
            .unwrap_or_else(|| panic!("{definition}{pointer}"));
        target.0[target.1] = value;
    }
}

/// An account name: 1 to 128 bytes (at most 32 characters here, which are
/// at most 128 bytes in UTF-8), not all white space, no control characters.
fn account_schema() -> Value {
    json!({
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_ACCOUNT_LEN / 4,
        "pattern": "^[^\\x00-\\x1F\\x7F-\\x9F]*[^\\s\\x00-\\x1F\\x7F-\\x9F][^\\x00-\\x1F\\x7F-\\x9F]*$",
        "description": format!("1 to {MAX_ACCOUNT_LEN} bytes of UTF-8, not only white space, no control characters."),
    })
}

// ---------------------------------------------------------------- bodies

fn json_body(schema: Value) -> Value {
    json!({"application/json": {"schema": schema}})
}

fn header_ref(name: &str) -> Value {
    json!({"$ref": format!("#/components/headers/{name}")})
}

/// A response with `X-Request-Id` and the `extra` headers.
fn response(description: &str, content: Option<Value>, extra: &[&str]) -> Value {
    let mut headers = Map::new();
    for name in ["X-Request-Id"].iter().chain(extra) {
        headers.insert(name.to_string(), header_ref(name));
    }
    let mut r = json!({"description": description, "headers": headers});
    if let Some(content) = content {
        r["content"] = content;
    }
    r
}

/// One of every render API error, for their codes, statuses and headers.
fn api_errors() -> Vec<ApiError> {
    let retry_after_s = 1;
    vec![
        ApiError::InvalidJson(String::new()),
        ApiError::Validation(Vec::new()),
        ApiError::PayloadTooLarge { limit: 0 },
        ApiError::UnsupportedMediaType(String::new()),
        ApiError::NotFound,
        ApiError::MethodNotAllowed,
        ApiError::InvalidQuery(String::new()),
        ApiError::NotAcceptable(String::new()),
        ApiError::Unauthorized(String::new()),
        ApiError::Forbidden(String::new()),
        ApiError::RateLimited { retry_after_s },
        ApiError::Internal(String::new()),
        ApiError::Render(String::new()),
        ApiError::VerifierUnavailable { retry_after_s },
        ApiError::Overloaded {
            message: String::new(),
            retry_after_s,
        },
    ]
}

/// What each render API code means, for the response descriptions.
fn code_meaning(code: &str) -> &'static str {
    match code {
        "API-001" => "the body is not JSON",
        "API-002" => {
            "the request breaks the schema or a rule; `details` lists every violation with its path"
        }
        "API-003" => "the body is larger than `limits.body_bytes`",
        "API-004" => "the Content-Type is not `application/json`",
        "API-005" => {
            "no such route or method, or no stored template of that name in the token's account"
        }
        "API-006" => {
            "a query parameter (`format`, `dpi`, `sheet`, `mono`, `barcodes`) is not valid"
        }
        "API-007" => "`Accept` names only media types the route cannot produce",
        "API-101" => "Authorization is missing or not a bearer token",
        "API-102" => "the token was rejected (invalid, expired, exhausted, revoked or banned)",
        "API-103" => "a rate limit was hit",
        "API-500" => "internal failure",
        "API-501" => "the PDF could not be produced",
        "API-502" => "the token verifier is unreachable and the token is not cached",
        "API-503" => "the render queue is full or the render deadline passed",
        _ => "",
    }
}

/// The render API's error responses for `codes`, one per status: the
/// `ErrorBody` with `code` limited to the codes of that status, and the
/// headers those codes carry.
fn api_error_responses(schemas: &mut Schemas, codes: &[&str]) -> BTreeMap<String, Value> {
    let body = schemas.of::<ErrorBody>();
    let mut by_status: BTreeMap<u16, Vec<ApiError>> = BTreeMap::new();
    for error in api_errors()
        .into_iter()
        .filter(|e| codes.contains(&e.code()))
    {
        by_status.entry(error.status()).or_default().push(error);
    }
    by_status
        .into_iter()
        .map(|(status, errors)| {
            let codes: Vec<&str> = errors.iter().map(ApiError::code).collect();
            let description = errors
                .iter()
                .map(|e| format!("{}: {}", e.code(), code_meaning(e.code())))
                .collect::<Vec<_>>()
                .join("; ");
            let mut headers = Vec::new();
            if errors.iter().any(|e| e.retry_after().is_some()) {
                headers.push("Retry-After");
            }
            if status == 401 {
                headers.push("WWW-Authenticate");
            }
            // Only the render route's errors are built here; all its answers vary by Accept.
            headers.push("Vary");
            let schema = json!({
                "allOf": [body, {"properties": {"code": {"enum": codes}}}],
            });
            (
                status.to_string(),
                response(&description, Some(json_body(schema)), &headers),
            )
        })
        .collect()
}

/// The verifier's `{error, message}` body with `error` one of `errors`.
fn verifier_error(schemas: &mut Schemas, errors: &[&str]) -> Value {
    let body = schemas.of::<RejectionBody>();
    let schema = json!({"allOf": [body, {"properties": {"error": {"enum": errors}}}]});
    json_body(schema)
}

/// A binary body of one of `media_types` (the `Content-Type` says which):
/// `{"type": "string", "format": "binary"}` (OpenAPI 3.0's spelling, still
/// valid in 3.1), and the same under `application/octet-stream`, the one
/// binary media type code generators keep a body for (openapi-python-client
/// drops any other); the server never labels a body so, and a client
/// reading bytes needs no other.
fn binary_content(media_types: &[&str]) -> Value {
    let binary = json!({"schema": {"type": "string", "format": "binary"}});
    let mut content = Map::new();
    for media_type in media_types.iter().chain(&["application/octet-stream"]) {
        content.insert(media_type.to_string(), binary.clone());
    }
    Value::Object(content)
}

fn plain_text(example: &str) -> Value {
    json!({"text/plain; charset=utf-8": {"schema": {"type": "string"}, "example": example}})
}

fn path_param(name: &str, description: &str) -> Value {
    json!({"name": name, "in": "path", "required": true, "description": description, "schema": {"type": "string"}})
}

fn with_responses(mut operation: Value, responses: BTreeMap<String, Value>) -> Value {
    let all = operation["responses"]
        .as_object_mut()
        .expect("operations are written with their responses");
    all.extend(responses);
    operation
}

// ---------------------------------------------------------------- render

/// The render route's query parameters: the output `format`, and the PNG's,
/// with the bounds of the default runtime configuration. (`Accept` is no
/// parameter: OpenAPI ignores one by that name; the 200's two media types
/// and the description say it.)
fn render_parameters() -> Value {
    let config = labelpress_document::config::RuntimeConfig::default();
    let (min, max) = (
        labelpress_document::engine::raster::MIN_DPI,
        config.limits.png_dpi_max,
    );
    let formats: Vec<&str> = crate::http::output::FORMATS
        .iter()
        .map(|(n, _)| *n)
        .collect();
    json!([
        {"name": "format", "in": "query", "required": false,
         "description": "`pdf`, `png` or `zpl` (ASCII case ignored): the output, whatever `Accept` says. Absent: chosen by `Accept`. Anything else: 400 API-006.",
         "schema": {"type": "string", "enum": formats}},
        {"name": "dpi", "in": "query", "required": false,
         "description": format!("PNG and ZPL: dots per inch, {min} to `limits.png_dpi_max`; for ZPL one of a printer's: 152, 203, 300 or 600. Default: the request's `settings.print_dpi`, else `defaults.png_dpi` ({}) for PNG and {} for ZPL. A sheet of more than `limits.png_pixels` ({}) pixels at this dpi, or ZPL of more than `limits.zpl_bytes` ({}) bytes, is refused (422 API-002, path `dpi`). Not a whole number, out of range or (ZPL) no printer's: 400 API-006.", config.defaults.png_dpi, labelpress_document::engine::zpl::DEFAULT_DPI, config.limits.png_pixels, config.limits.zpl_bytes),
         "schema": {"type": "integer", "minimum": min, "maximum": max}},
        {"name": "sheet", "in": "query", "required": false,
         "description": "PNG and ZPL: which sheet, from 1. Default: every sheet: ZPL has a label per sheet; PNG is the sheet itself for a document of one, a ZIP archive of `0001-1.png`, `0001-2.png`, ... for a document of several. Past the document's last sheet: 422 API-002 (path `sheet`); 0 or not a number: 400 API-006.",
         "schema": {"type": "integer", "minimum": 1, "maximum": u32::MAX}},
        {"name": "mono", "in": "query", "required": false,
         "description": "PNG only: `true` for a 1-bit black-and-white PNG (direct thermal printers); `false` (default) for RGB. `1` and `0` are taken too; anything else: 400 API-006.",
         "schema": {"type": "boolean", "default": false}},
        {"name": "barcodes", "in": "query", "required": false,
         "description": "ZPL only: `native` writes the barcodes the printer can draw exactly as placed (the document's `settings.print_dpi` equal to the label's dpi, upright, black on no background, no option but a QR Code's `ecl`: Code 128 and GS1-128 as `^BC` with labelpress's own subsets, Code 39 `^B3`, Interleaved 2 of 5 and ITF-14 `^B2`, QR Code `^BQ` and Data Matrix `^BX` with printable ASCII content) as its own commands, everything else as dots; `graphic` (default) writes every barcode as dots. ASCII case ignored; anything else: 400 API-006.",
         "schema": {"type": "string", "enum": ["native", "graphic"], "default": "graphic"}},
    ])
}

/// A render or check body: a DocumentRequest, or a template with its data.
fn document_or_template(schemas: &mut Schemas) -> Value {
    json!({"oneOf": [schemas.of::<RawRequest>(), schemas.of::<TemplateRequest>()]})
}

fn render_label(schemas: &mut Schemas) -> Value {
    let request = document_or_template(schemas);
    let operation = json!({
        "tags": ["render"],
        "operationId": "renderLabel",
        "summary": "Render a DocumentRequest to PDF, one sheet to PNG, or ZPL",
        "description": "Checks run in this order: authentication (401, 403, 429, 503 API-502), the query and `Accept` (400 API-006, 406 API-007), the body (413, 415, 400, 422), the render (422 API-002 for a sheet past the end, a PNG of too many pixels or a ZPL of too many bytes, 503 API-503 when the queue is full or the deadline passes, 500). Only a 200 is charged to the token, one unit for a PDF, a PNG or a ZPL. `?format=png` answers one sheet as PNG, `?format=zpl` ZPL (one label per sheet), `?format=pdf` the PDF, whatever `Accept` says. Without `format`, `Accept` picks: `image/png` one sheet as PNG; `application/zpl` (or `application/x-zpl`, `text/x-zpl`) ZPL; `application/pdf`, `*/*` or no `Accept` the PDF; with q-values the preferred wins (a tie: PDF, then PNG). An `Accept` that names only types the route cannot make is 406 API-007. The body must not repeat a key in any object. Every answer carries `Vary: accept`.",
        "security": [{"token": []}],
        "parameters": render_parameters(),
        "requestBody": {
            "required": true,
            "content": json_body(request),
        },
        "responses": {
            "200": {
                "description": "The PDF; or with `format=png` (or `Accept: image/png`) one sheet as PNG at the resolution asked (no alpha channel; 1-bit grey with `mono`; the resolution in its pHYs chunk), or without `sheet` for a document of several sheets a ZIP archive (`application/zip`) of every sheet as PNG (`0001-1.png`, `0001-2.png`, ...); or with `format=zpl` (or `Accept: application/zpl`) ZPL II, one `^XA`...`^XZ` label per sheet, each sheet's dots as the mono PNG at that dpi has them, in `^GFA` fields (`:Z64:`). With `settings.output.mode` `file`, `Content-Disposition: attachment` names it (a PNG's name ends in `.png`, with `-N` for sheet N of a document of several; an archive's in `.zip`; a ZPL's in `.zpl`).",
                "headers": {
                    "X-Request-Id": header_ref("X-Request-Id"),
                    "X-Labelpress-Warnings": {
                        "description": "How many validation warnings the document has (`0` too): what `POST /api/v1/label/check` lists. Warnings never change the PDF.",
                        "required": true,
                        "schema": {"type": "integer", "minimum": 0, "maximum": labelpress_document::warnings::MAX_WARNINGS},
                    },
                    "Vary": header_ref("Vary"),
                    "Content-Disposition": {
                        "description": "Only in `file` mode: `attachment; filename=\"...\"` (and `filename*` for non-ASCII names).",
                        "schema": {"type": "string"},
                    },
                },
                "content": binary_content(&["application/pdf", "image/png", labelpress_document::engine::zpl::MEDIA_TYPE, labelpress_document::engine::archive::MEDIA_TYPE]),
            },
        },
    });
    with_responses(operation, api_error_responses(schemas, &render_codes()))
}

/// The errors the render and batch routes answer: every API code (API-005
/// for a stored template the body names that the account does not have).
fn render_codes() -> Vec<&'static str> {
    api_errors().iter().map(ApiError::code).collect()
}

/// The errors of the stored-template routes: authentication, the body (on
/// `PUT`), the name (422 API-002), 404 API-005, the store (503 API-503).
fn template_codes() -> Vec<&'static str> {
    render_codes()
        .into_iter()
        .filter(|c| !matches!(*c, "API-006" | "API-007" | "API-501"))
        .collect()
}

fn template_name_parameter() -> Value {
    json!({"name": "name", "in": "path", "required": true,
           "description": "The template's name: 1 to 64 characters of `A-Za-z0-9._-`, starting with a letter or digit (anything else: 422 API-002 at `name`).",
           "schema": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"}})
}

/// A stored-template operation: authenticated with a token, never charged.
fn template_operation(
    schemas: &mut Schemas,
    id: &str,
    summary: &str,
    description: &str,
    parameters: Vec<Value>,
    responses: Value,
) -> Value {
    let operation = json!({
        "tags": ["render"],
        "operationId": id,
        "summary": summary,
        "description": format!("{description} Templates belong to the account of the token that stored them (a token whose verifier does not name its account: to that token); another account's template of the same name is not visible (404). Authenticated as `POST /api/v1/label` (401, 403, 429, 503 API-502), never charged, and not counted against the token's render rate limit."),
        "security": [{"token": []}],
        "parameters": parameters,
        "responses": responses,
    });
    with_responses(operation, api_error_responses(schemas, &template_codes()))
}

fn put_template(schemas: &mut Schemas) -> Value {
    let listed = schemas.of::<crate::templates::Listed>();
    let mut operation = template_operation(
        schemas,
        "putTemplate",
        "Store a template under a name",
        "The body is the template itself: a DocumentRequest whose strings may hold `{{placeholders}}` (and tables `rows_from`/`row`), as `TemplateRequest.template`. It is checked before it is stored: a placeholder must be a path, and the document must validate with any text in its placeholders (422 API-002 with paths from the template's root, such as `pages[0].elements[2].x`). An account stores up to `limits.templates_per_account` templates, each within `limits.body_bytes`. Then render it with `{\"template\": \"NAME\", \"data\": {...}}` on `POST /api/v1/label`, the check route or in a batch.",
        vec![template_name_parameter()],
        json!({
            "201": response("Stored under a new name; `Location` is its URL.", Some(json_body(listed.clone())), &[]),
            "200": response("Replaced the account's template of that name.", Some(json_body(listed)), &[]),
        }),
    );
    operation["requestBody"] = json!({
        "required": true,
        "content": json_body(schemas.of::<RawRequest>()),
    });
    operation
}

fn get_template(schemas: &mut Schemas) -> Value {
    template_operation(
        schemas,
        "getTemplate",
        "A stored template, as it was stored",
        "The JSON body of the `PUT` that stored it.",
        vec![template_name_parameter()],
        json!({"200": response("The template.", Some(json_body(json!({"type": "object"}))), &[])}),
    )
}

fn delete_template(schemas: &mut Schemas) -> Value {
    template_operation(
        schemas,
        "deleteTemplate",
        "Delete a stored template",
        "Renders that name it afterwards are 404.",
        vec![template_name_parameter()],
        json!({"204": response("Deleted.", None, &[])}),
    )
}

fn list_templates(schemas: &mut Schemas) -> Value {
    let list = schemas.of::<crate::http::templates::TemplateList>();
    template_operation(
        schemas,
        "listTemplates",
        "The account's stored templates",
        "Names, sizes and when each was stored, ordered by name.",
        vec![],
        json!({"200": response("The account's templates.", Some(json_body(list)), &[])}),
    )
}

fn render_batch(schemas: &mut Schemas) -> Value {
    let max = labelpress_document::config::RuntimeConfig::default()
        .limits
        .batch_documents;
    let partial = json!({"type": "boolean", "default": false,
        "description": "`true`: render the valid documents when some are not, and answer a ZIP archive of the output (`batch.pdf`, `batch.zpl`, or the PNGs) and `manifest.json`, which names the documents left out and their violations. `false`: one invalid document refuses the batch (422)."});
    let request = json!({"oneOf": [
        {"type": "object", "title": "Documents",
         "required": ["documents"],
         "properties": {
            "documents": {"type": "array", "minItems": 1, "maxItems": max,
                          "description": "The documents, in order: each a DocumentRequest or a template with its data.",
                          "items": document_or_template(schemas)},
            "partial": partial.clone()},
         "additionalProperties": false},
        {"type": "object", "title": "TemplateRecords",
         "required": ["template", "records"],
         "properties": {
            "template": {"oneOf": [
                {"type": "object", "description": "A DocumentRequest whose strings may hold `{{placeholders}}` (see `TemplateRequest`), filled once per record."},
                {"type": "string", "description": "The name of a template the account stored (`PUT /api/v1/templates/{name}`)."}]},
            "records": {"type": "array", "minItems": 1, "maxItems": max,
                        "description": "One data object per document, in order.",
                        "items": {"type": "object"}},
            "partial": partial},
         "additionalProperties": false},
    ]});
    let parameters: Vec<Value> = render_parameters()
        .as_array()
        .expect("a list")
        .iter()
        .filter(|p| p["name"] != "sheet")
        .cloned()
        .collect();
    let operation = json!({
        "tags": ["render"],
        "operationId": "renderBatch",
        "summary": "Render many documents into one PDF, one ZPL stream, or a ZIP archive of PNGs",
        "description": format!("Up to `limits.batch_documents` ({max}) documents: `documents` (each a DocumentRequest or a template with data), or one `template` filled once per entry of `records`. Checks run as on `POST /api/v1/label`; then the token must cover one unit per document before anything renders (403 API-102 otherwise). One unit is charged per document rendered; refusals cost nothing. Every document is validated first: by default one invalid document refuses the batch with 422, every violation's path prefixed by its place (`documents[3].pages[0]...`; a record's at `records[17]`, with the template's path in the message). The output, as `Accept` or `?format=` choose: one PDF of every document's sheets in order (the first document's metadata and PDF profile, which all must share), one ZPL stream of every document's labels, or for PNG a ZIP archive of `0001-1.png` (document, sheet), numbered by place in the batch. ZPL and PNG (without `partial`) render document by document across the render slots and stream in order (no Content-Length); a document that fails after the answer began ends it incomplete. `?sheet=` is 400 API-006."),
        "security": [{"token": []}],
        "parameters": parameters,
        "requestBody": {
            "required": true,
            "content": json_body(request),
        },
        "responses": {
            "200": {
                "description": "The batch as one file: PDF, ZPL, or (PNG, or any format with `partial`) a ZIP archive.",
                "headers": {
                    "X-Request-Id": header_ref("X-Request-Id"),
                    "X-Labelpress-Warnings": {
                        "description": "How many validation warnings the rendered documents have together.",
                        "required": true,
                        "schema": {"type": "integer", "minimum": 0},
                    },
                    "Vary": header_ref("Vary"),
                },
                "content": binary_content(&["application/pdf", labelpress_document::engine::zpl::MEDIA_TYPE, labelpress_document::engine::archive::MEDIA_TYPE]),
            },
        },
    });
    with_responses(operation, api_error_responses(schemas, &render_codes()))
}

fn check_label(schemas: &mut Schemas) -> Value {
    let request = document_or_template(schemas);
    let operation = json!({
        "tags": ["render"],
        "operationId": "checkLabel",
        "summary": "Validate a DocumentRequest and list its warnings",
        "description": "Validates the body as `POST /api/v1/label` would, renders nothing and is never charged (a token whose balance is used up is still refused, 403). Authentication, rate limits and the body's size and media type are checked as on the render route; validation waits in the render queue (503 API-503 when it is full or the deadline passes). A valid document answers `valid: true` with its sheets and warnings (codes `LP-W01`...`LP-W08`, docs/document-request.md); a body that is not JSON or breaks a rule answers 200 too, `valid: false` with the violations in `details` (code `API-001` or `API-002`, as the render route's 400 and 422 list them). A stored template the body names (`{\"template\": \"NAME\"}`) that the token's account has not stored is 404 API-005, as on the render route.",
        "security": [{"token": []}],
        "requestBody": {
            "required": true,
            "content": json_body(request),
        },
        "responses": {
            "200": response(
                "The verdict: the document's sheets and warnings, or its violations.",
                Some(json_body(schemas.of::<labelpress_document::warnings::CheckReport>())),
                &[],
            ),
        },
    });
    let codes: Vec<&str> = api_errors()
        .iter()
        .map(ApiError::code)
        .filter(|c| !matches!(*c, "API-001" | "API-002" | "API-007" | "API-501"))
        .collect();
    with_responses(operation, api_error_responses(schemas, &codes))
}

fn runtime_config(schemas: &mut Schemas) -> Value {
    json!({
        "tags": ["render"],
        "operationId": "runtimeConfig",
        "summary": "The defaults and limits the renderer uses",
        "description": "Served by nodes running the render service. Conditional with `If-None-Match`.",
        "parameters": [{
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "description": "An ETag of an earlier answer (or `*`): 304 when it matches.",
            "schema": {"type": "string"},
        }],
        "responses": {
            "200": {
                "description": "The runtime configuration.",
                "headers": {"X-Request-Id": header_ref("X-Request-Id"), "ETag": {"description": "Strong validator of the configuration.", "schema": {"type": "string"}}},
                "content": json_body(schemas.of::<labelpress_document::config::Published>()),
            },
            "304": {
                "description": "Unchanged since the ETag given.",
                "headers": {"X-Request-Id": header_ref("X-Request-Id"), "ETag": {"description": "The configuration's ETag.", "schema": {"type": "string"}}},
            },
        },
    })
}

// ---------------------------------------------------------------- barcode

/// The JSON Schema of an option's values: the spellings [`Kind::parse`]
/// accepts, or a subset of them where a schema's form is narrower (a
/// number of pixels without leading zeros), never more.
fn option_schema(kind: &Kind) -> Value {
    match *kind {
        Kind::Integer { min, max, not_zero } => {
            let mut schema = json!({"type": "integer", "minimum": min, "maximum": max});
            if not_zero {
                schema["not"] = json!({"const": 0});
            }
            schema
        }
        Kind::IntegerIn { values } => json!({"type": "integer", "enum": values}),
        Kind::Choice { values, .. } => json!({"type": "string", "enum": values}),
        Kind::Pixels { max, decimals } => {
            json!({"type": "string", "pattern": pixels_pattern(max, decimals)})
        }
        Kind::Colour => json!({"type": "string", "pattern": "^#?[0-9A-Fa-f]{6}$"}),
        Kind::Boolean => json!({"type": "boolean"}),
        Kind::Alphanumeric { max_length } => {
            json!({"type": "string", "pattern": format!("^[A-Za-z0-9 ]{{1,{max_length}}}$")})
        }
        Kind::Digits { length } => {
            json!({"type": "string", "pattern": format!("^[0-9]{{{length}}}$")})
        }
    }
}

/// A decimal greater than 0 and at most `max`, with at most `decimals`
/// decimals, without leading zeros: `150`, `150.5`, `0.25`, `max`.
/// Numbers below `max` with fewer digits than it, and `max` itself: all of
/// them when `max` is a power of ten (as `MAX_PIXELS` is).
fn pixels_pattern(max: u32, decimals: usize) -> String {
    let shorter = max.to_string().len() - 1;
    let fraction = format!("(?:\\.[0-9]{{1,{decimals}}})?");
    format!(
        "^(?:[1-9][0-9]{{0,{}}}{fraction}|0\\.[0-9]{{0,{}}}[1-9]|{max}(?:\\.0{{1,{decimals}}})?)$",
        shorter - 1,
        decimals - 1
    )
}

/// One query parameter per option spelling of `specs`.
fn option_parameters<'a>(
    specs: impl Iterator<Item = &'a OptionSpec>,
    describe: impl Fn(&OptionSpec) -> String,
) -> Vec<Value> {
    let mut params = Vec::new();
    for spec in specs {
        // An alias (`m` for `margin`) is not a parameter of its own: both
        // given is a 400 (the option given twice), which OpenAPI cannot say
        // of two parameters.
        let mut description = describe(spec);
        if !spec.aliases.is_empty() {
            let aliases: Vec<String> = spec.aliases.iter().map(|a| format!("`{a}`")).collect();
            description.push_str(&format!(
                " Also spelled {} (one of the spellings only).",
                aliases.join(", ")
            ));
        }
        params.push(query_param(
            spec.name,
            &description,
            option_schema(&spec.kind),
        ));
    }
    params
}

fn describe_option(spec: &OptionSpec) -> String {
    format!("{}: {}.", spec.description, spec.kind.expected())
}

/// The query parameters of `/barcode/{symbology}/{content}`: the common
/// options, then each symbology-specific one (an option two symbologies
/// spell alike with different values, such as `ecl`, takes either).
fn barcode_parameters() -> Vec<Value> {
    let mut params = option_parameters(COMMON.iter(), describe_option);
    let mut names: Vec<&str> = Vec::new();
    for s in Symbology::all() {
        for spec in specific(*s) {
            if !names.contains(&spec.name) {
                names.push(spec.name);
            }
        }
    }
    for name in names {
        let mut schemas: Vec<Value> = Vec::new();
        let mut lines: Vec<String> = Vec::new();
        for s in Symbology::all() {
            let Some(spec) = find(specific(*s), name) else {
                continue;
            };
            let schema = option_schema(&spec.kind);
            let line = describe_option(spec);
            match lines.iter().position(|l| *l == line) {
                Some(_) => {}
                None => {
                    schemas.push(schema);
                    lines.push(line);
                }
            }
        }
        let takers: Vec<&str> = Symbology::all()
            .iter()
            .filter(|t| find(specific(**t), name).is_some())
            .map(|t| t.name())
            .collect();
        let schema = match schemas.len() {
            1 => schemas.remove(0),
            _ => json!({"anyOf": schemas}),
        };
        let description = format!(
            "Only for {}. {} (`/barcode/<symbology>/{{content}}` gives each symbology's own.)",
            takers.join(", "),
            lines.join(" Or: ")
        );
        params.push(query_param(name, &description, schema));
    }
    params
}

/// Every name the service accepts for a symbology: names, then aliases.
fn symbology_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = Symbology::all().iter().map(|s| s.name()).collect();
    names.extend(Symbology::all().iter().flat_map(|s| s.aliases()));
    names
}

fn symbology_param() -> Value {
    json!({
        "name": "symbology",
        "in": "path",
        "required": true,
        "description": "The symbology (ASCII case ignored); `qrcode` is `qr`.",
        "schema": {"type": "string", "enum": symbology_names()},
    })
}

/// Content `symbology` always encodes whatever its parameters: a subset
/// of what it takes (docs/http-api.md, "Barcode service"), with its rules in words. `None`:
/// no such subset exists because parameters limit each other (PDF417's
/// `cols` x `rows` must hold the `ecl` codewords, an Aztec `layers` count
/// must hold the `ecl` share, MaxiCode modes 2 and 3 need `postcode`,
/// `country` and `service`), so only the length is bounded.
fn barcode_content(symbology: Symbology) -> (Value, String) {
    use Symbology::*;
    let printable = |n: usize| format!("^[\\x20-\\x7E]{{1,{n}}}$");
    let (pattern, words): (Option<String>, &str) = match symbology {
        Code128 => (Some(printable(80)), "ASCII characters 0-127, up to 80."),
        Code93 => (Some(printable(40)), "ASCII characters 0-127, up to 80 symbol characters (characters outside Code 39's set take two)."),
        Code39 => (Some("^[0-9A-Z\\-. $/+%]{1,80}$".into()), "0-9, A-Z and - . space $ / + %, up to 80."),
        Ean13 => (Some("^[0-9]{12}$".into()), "12 digits, or 13 with a valid check digit."),
        Ean8 => (Some("^[0-9]{7}$".into()), "7 digits, or 8 with a valid check digit."),
        Upca => (Some("^[0-9]{11}$".into()), "11 digits, or 12 with a valid check digit."),
        Itf14 => (Some("^[0-9]{13}$".into()), "13 digits, or 14 with a valid check digit."),
        Upce => (Some("^[01][0-9]{6}$".into()), "7 digits starting with 0 or 1, or 8 with a valid check digit."),
        Codabar => (Some("^[0-9$:/.+\\-]{1,78}$".into()), "0-9 and - $ : / . +, optionally framed by start and stop characters A-D, up to 80 characters."),
        Itf => (Some("^(?:[0-9]{2}){1,40}$".into()), "An even number of digits, up to 80."),
        Msi => (Some("^[0-9]{1,64}$".into()), "1 to 64 digits."),
        Gs1_128 => (Some("^\\(10\\)[0-9A-Z]{1,20}$".into()), "A GS1 element string `(AI)value...` of known AIs with valid values, up to 48 data characters; the pattern admits a batch number `(10)`."),
        Gs1DataMatrix => (Some("^\\(10\\)[0-9A-Z]{1,20}$".into()), "A GS1 element string `(AI)value...` of known AIs with valid values; the pattern admits a batch number `(10)`."),
        Gs1Qr => (Some("^\\(10\\)[0-9A-Z]{1,4}$".into()), "A GS1 element string `(AI)value...` of known AIs with valid values, as long as the chosen `version` and `ecl` hold; the pattern admits a short batch number `(10)`, which every version holds."),
        Qr => (Some(printable(7)), "Any text, as long as the chosen `version` and `ecl` hold (7089 digits at most); the pattern admits what version 1 at `ecl=H` holds."),
        DataMatrix => (Some(printable(40)), "Any text, as long as the largest symbol of the chosen `shape` holds; the pattern admits what the largest rectangular one holds."),
        Pdf417 | Aztec | MaxiCode => (None, "Any text the symbol holds with the parameters given: they limit each other (PDF417's `cols` x `rows` must hold the data and the `ecl` codewords; Aztec's `layers` the data and the `ecl` share; MaxiCode modes 2 and 3 need `postcode`, `country` and `service`)."),
    };
    let schema = match pattern {
        Some(p) => json!({"type": "string", "pattern": p}),
        None => json!({"type": "string", "minLength": 1}),
    };
    (schema, words.to_string())
}

fn barcode_responses() -> Value {
    let cache_headers = json!({
        "X-Request-Id": header_ref("X-Request-Id"),
        "ETag": {"description": "Strong validator over everything the SVG depends on.", "schema": {"type": "string"}},
        "Cache-Control": {"description": "`public, max-age=31536000, immutable`: the SVG is a pure function of the URL.", "schema": {"type": "string"}},
    });
    json!({
        "200": {
            "description": "The symbol.",
            "headers": cache_headers,
            "content": binary_content(&["image/svg+xml"]),
        },
        "304": {"description": "Unchanged since the ETag given.", "headers": cache_headers},
        "400": response("The request is invalid (symbology, content, a parameter); the body says why, in plain text.", Some(plain_text("unknown symbology 'nope'")), &[]),
        "500": response("The encoder failed.", Some(plain_text("internal encoder failure")), &[]),
        "503": response("Every encode slot is busy and the queue full.", Some(plain_text("the barcode service is busy")), &["Retry-After"]),
    })
}

fn if_none_match() -> Value {
    json!({
        "name": "If-None-Match",
        "in": "header",
        "required": false,
        "description": "An ETag of an earlier answer: 304 when it matches.",
        "schema": {"type": "string"},
    })
}

const CONTENT_SEGMENT: &str =
    "One percent-decoded path segment: a `/` is sent as `%2F`, a `%` as `%25`; `+` is a plus sign.";

fn barcode() -> Value {
    let mut parameters = vec![
        symbology_param(),
        json!({
            "name": "content",
            "in": "path",
            "required": true,
            "description": format!("The data to encode. {CONTENT_SEGMENT} What a symbology takes: its own operation `/barcode/<symbology>/{{content}}`."),
            "schema": {"type": "string", "minLength": 1},
        }),
        if_none_match(),
    ];
    parameters.extend(barcode_parameters());
    json!({
        "tags": ["barcode"],
        "operationId": "barcodeSvg",
        "summary": "A barcode symbol as SVG",
        "description": "Each parameter at most once; unknown parameters, and parameters of another symbology, are refused. This operation takes every symbology; the content and parameters of one are those of its own operation (`GET /barcode/qr/{content}`, ...), which OpenAPI cannot tie to the value of `symbology` here.",
        "parameters": parameters,
        "responses": barcode_responses(),
    })
}

/// `/barcode/<name>/{content}`: the same route with the symbology fixed,
/// so that its content and exactly its parameters can be described.
fn barcode_of(name: &str, symbology: Symbology) -> Value {
    let (content, words) = barcode_content(symbology);
    let mut parameters = vec![
        json!({
            "name": "content",
            "in": "path",
            "required": true,
            "description": format!("The data to encode: {words} {CONTENT_SEGMENT}"),
            "schema": content,
        }),
        if_none_match(),
    ];
    parameters.extend(option_parameters(
        COMMON.iter().chain(specific(symbology)),
        describe_option,
    ));
    let id: String = name
        .split('_')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or(String::new(), |c| {
                c.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect();
    json!({
        "tags": ["barcode"],
        "operationId": format!("barcode{id}"),
        "summary": format!("A {} symbol as SVG", symbology.name()),
        "description": "`GET /barcode/{symbology}/{content}` with this symbology: its parameters, each at most once; any other is refused.",
        "parameters": parameters,
        "responses": barcode_responses(),
    })
}

/// Every `(name, symbology)` the service accepts in the path.
fn named_symbologies() -> Vec<(&'static str, Symbology)> {
    let mut named: Vec<(&str, Symbology)> =
        Symbology::all().iter().map(|s| (s.name(), *s)).collect();
    for s in Symbology::all() {
        named.extend(s.aliases().iter().map(|a| (*a, *s)));
    }
    named
}

/// `/barcode/{symbology}/` and `/barcode/{symbology}`: the content is
/// missing, always a 400 (after the symbology and parameters are checked).
fn barcode_without_content(path: &str) -> Value {
    json!({
        "tags": ["barcode"],
        "operationId": if path.ends_with('/') { "barcodeEmptyContent" } else { "barcodeNoContent" },
        "summary": "Without content: always 400",
        "description": "Answers the barcode service's plain-text 400 (rather than a JSON 404): an unknown symbology or parameter is named first, then the missing content.",
        "parameters": [symbology_param()],
        "responses": {
            "400": response("Unknown symbology, bad parameter, or the content is empty.", Some(plain_text("the content is empty")), &[]),
        },
    })
}

// ---------------------------------------------------------------- verify

/// `POST /v1/leases` (`give_back`: `/v1/leases/return`), the quota lease
/// extension (docs/leases.md): `/v1/verify`'s answers and body, no query
/// parameter, the key required; a return the ledger cannot match to its
/// lease is 409.
fn lease(schemas: &mut Schemas, give_back: bool) -> Value {
    let mut op = verify(schemas);
    let key = op["parameters"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["name"] == "Idempotency-Key"))
        .cloned()
        .unwrap_or_default();
    op["parameters"] = json!([Value::Object(
        key.as_object()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .chain([
                ("required".to_string(), json!(true)),
                (
                    "description".to_string(),
                    json!(if give_back {
                        "The key the lease was taken under."
                    } else {
                        "The lease's key (1 to 255 visible ASCII characters): the same key within 24 h answers the first lease again, deducted once; its return names it."
                    }),
                ),
            ])
            .collect()
    )]);
    if give_back {
        op["operationId"] = json!("returnLease");
        op["summary"] = json!("Give a quota lease's unused units back");
        op["description"] = json!("Gives `count` unused units of the lease taken under the same `Idempotency-Key` back to the token's balance, once (a retry answers the first answer), on any token that exists, revoked or not (the units were paid for).");
        op["responses"]["200"]["description"] =
            json!("Given back: `returned` units (the answer carries the balance after).");
        op["responses"]["409"] = response(
            "No lease of this token under this key within 24 h, or a count above the units it leased or unlike its first return's; nothing given back.",
            Some(verifier_error(schemas, &["Conflict"])),
            &[],
        );
    } else {
        op["operationId"] = json!("takeLease");
        op["summary"] = json!("Take a quota lease");
        op["description"] = json!("Deducts up to `count` units as one block a render node spends on its own: at most a quarter of the balance (at least one) and what the token's rate limit allows now. The answer carries `leased` (0 with `retry_after_ms` when the rate limit allows none now: nothing deducted) and the token's `account`.");
        op["responses"]["200"]["description"] =
            json!("Leased: `leased` units deducted (0 with `retry_after_ms`: none now).");
    }
    op
}

fn verify(schemas: &mut Schemas) -> Value {
    let mut by_status: BTreeMap<u16, Vec<&str>> = BTreeMap::new();
    for r in Rejection::ALL {
        by_status.entry(r.status()).or_default().push(r.error());
    }
    let mut responses = BTreeMap::new();
    responses.insert(
        "200".to_string(),
        json!({
            "description": "Granted: `count` units were deducted (none with `dry_run`); with `uncharged`, recorded as uncharged renders (`uncharged`: the token's new total).",
            "headers": {"X-Request-Id": header_ref("X-Request-Id"), "Cache-Control": {"description": "`no-store`.", "schema": {"type": "string"}}},
            "content": json_body(schemas.of::<Granted>()),
        }),
    );
    for (status, errors) in by_status {
        let description = match status {
            400 => "The body, a query parameter or the Idempotency-Key is invalid.",
            401 => "No bearer token.",
            _ => "The token is refused; nothing was deducted.",
        };
        let headers: &[&str] = if status == 401 {
            &["WWW-Authenticate"]
        } else {
            &[]
        };
        let content = verifier_error(schemas, &errors);
        responses.insert(
            status.to_string(),
            response(description, Some(content), headers),
        );
    }
    for (status, error, description, headers) in [
        (
            429,
            "Too Many Requests",
            "Too many failed authentications from this address.",
            &["Retry-After"][..],
        ),
        (
            500,
            "Internal Server Error",
            "The answer could not be recorded; retry.",
            &[],
        ),
        (
            503,
            "Service Unavailable",
            "The ledger is unavailable; nothing was deducted.",
            &["Retry-After"],
        ),
    ] {
        let content = verifier_error(schemas, &[error]);
        responses.insert(
            status.to_string(),
            response(description, Some(content), headers),
        );
    }
    json!({
        "tags": ["verify"],
        "operationId": "verifyToken",
        "summary": "Check a token and deduct units",
        "security": [{"token": []}],
        "parameters": [
            {"name": "dry_run", "in": "query", "required": false, "description": "`true`: check only, deduct nothing (`1` and `0` are taken too).", "schema": {"type": "boolean", "default": false}},
            {"name": "uncharged", "in": "query", "required": false, "description": "`true`: record `count` renders a render node delivered but the verifier refused to charge at report time (revoked, banned, expired, over the balance) on the token, whatever its status; deducts nothing, and the answer carries the token's `uncharged` total. Only an unknown token is refused. Not with `dry_run` (400). `1` and `0` are taken too.", "schema": {"type": "boolean", "default": false}},
            {"name": "Idempotency-Key", "in": "header", "required": false, "description": "1 to 255 visible ASCII characters: the same key within 24 h answers the first answer again, deducted once. The same key with another `count` is a 400 (a rule of the ledger's state, not of this request alone).", "schema": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_IDEMPOTENCY_KEY,
                "pattern": format!("^[\\x21-\\x7E]{{1,{MAX_IDEMPOTENCY_KEY}}}$"),
            }},
        ],
        "requestBody": {
            "required": false,
            "description": "Empty, or `{\"count\": n}` (n >= 1; 1 when absent). Other keys are ignored.",
            "content": json_body(json!({
                "type": "object",
                "properties": {"count": {"type": "integer", "minimum": 1, "maximum": u64::MAX, "default": 1}},
            })),
        },
        "responses": responses,
    })
}

// ---------------------------------------------------------------- admin

fn dashboard() -> Value {
    json!({
        "tags": ["admin"],
        "operationId": "adminDashboard",
        "summary": "The admin dashboard (HTML)",
        "description": "A page that asks for the admin token and drives the admin API from the browser.",
        "responses": {
            "200": {
                "description": "The dashboard.",
                "headers": {"X-Request-Id": header_ref("X-Request-Id")},
                "content": {"text/html; charset=utf-8": {"schema": {"type": "string"}}},
            },
        },
    })
}

/// The admin API's errors: `statuses` beyond those every admin route has
/// (400 for a repeated query parameter, 401, 403, 429, 500, 503).
fn admin_errors(schemas: &mut Schemas, statuses: &[u16]) -> BTreeMap<String, Value> {
    let mut all = vec![400, 401, 403, 429, 500, 503];
    all.extend_from_slice(statuses);
    all.sort_unstable();
    all.dedup();
    all.into_iter()
        .map(|status| {
            let (description, headers): (&str, &[&str]) = match status {
                400 => ("A query parameter given twice, unknown or out of range, a body that is not JSON (or repeats a key), or a bad path segment.", &[]),
                401 => ("No admin token.", &["WWW-Authenticate"]),
                403 => ("The admin token is wrong.", &[]),
                404 => ("No token with this id.", &[]),
                422 => ("The body or value breaks a rule (the message says which).", &[]),
                429 => ("Too many failed authentications from this address.", &["Retry-After"]),
                500 => ("The token store failed; retry.", &[]),
                _ => ("The ledger is unavailable; retry.", &[]),
            };
            let reason = axum::http::StatusCode::from_u16(status)
                .ok()
                .and_then(|s| s.canonical_reason())
                .unwrap_or("Error");
            let content = verifier_error(schemas, &[reason]);
            (
                status.to_string(),
                response(description, Some(content), headers),
            )
        })
        .collect()
}

fn admin_operation(
    schemas: &mut Schemas,
    id: &str,
    summary: &str,
    parameters: Vec<Value>,
    request: Option<Value>,
    ok: (u16, &str, Value),
    errors: &[u16],
) -> Value {
    let (status, description, schema) = ok;
    let mut operation = json!({
        "tags": ["admin"],
        "operationId": id,
        "summary": summary,
        "security": [{"adminToken": []}],
        "parameters": parameters,
        "responses": {status.to_string(): response(description, Some(json_body(schema)), &[])},
    });
    if let Some(schema) = request {
        operation["requestBody"] = json!({"required": true, "content": json_body(schema)});
    }
    with_responses(operation, admin_errors(schemas, errors))
}

fn token_id() -> Value {
    path_param("id", "The token's id (not its secret).")
}

fn query_param(name: &str, description: &str, schema: Value) -> Value {
    json!({"name": name, "in": "query", "required": false, "description": description, "schema": schema})
}

fn admin_list_tokens(schemas: &mut Schemas) -> Value {
    let list = json!({
        "oneOf": [
            {"type": "array", "items": schemas.of::<TokenView>(), "description": "Without query parameters: every token."},
            schemas.of::<TokenPage>(),
        ],
    });
    admin_operation(
        schemas,
        "listTokens",
        "Every token, or one page of a search (never their secrets)",
        vec![
            query_param("q", "Part of the id or of the account (ASCII case ignored).", json!({"type": "string", "maxLength": 128})),
            query_param("account", "The account, exactly.", json!({"type": "string"})),
            query_param("status", "Only tokens with this status now.", json!({"enum": STATUSES})),
            query_param("limit", "Page size.", json!({"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT})),
            query_param("offset", "Matches to skip (`next` of the previous page).", json!({"type": "integer", "minimum": 0, "default": 0})),
        ],
        None,
        (
            200,
            "Without query parameters, every token as an array (oldest first); with any, one page `{items, total, next}`.",
            list,
        ),
        &[],
    )
}

fn admin_usage(schemas: &mut Schemas) -> Value {
    let series = schemas.of::<UsageSeries>();
    let time = json!({"type": "string", "description": "RFC 3339, a date (its start, UTC) or Unix milliseconds."});
    admin_operation(
        schemas,
        "tokenUsage",
        "Usage over time of a token or an account, per UTC hour or day",
        vec![
            query_param("token", "A token id (exactly one of token and account).", json!({"type": "string"})),
            query_param("account", "An account (exactly one of token and account).", account_schema()),
            query_param("bucket", "Bucket size.", json!({"enum": ["hour", "day"], "default": "hour"})),
            query_param("from", "Start, rounded down to its bucket; default: 23 hours or 29 days before the current bucket.", time.clone()),
            query_param("to", "End (exclusive), rounded up to a bucket boundary; default: the end of the current bucket.", time),
        ],
        None,
        (
            200,
            &format!("Every bucket of the range, oldest first, empty ones at zero (at most {MAX_BUCKETS})."),
            series,
        ),
        &[404],
    )
}

fn admin_banned(schemas: &mut Schemas) -> Value {
    let list = json!({"type": "array", "items": schemas.of::<BannedAccount>()});
    admin_operation(
        schemas,
        "bannedAccounts",
        "The banned accounts, by name",
        vec![],
        None,
        (200, "The banned accounts.", list),
        &[],
    )
}

fn admin_create_token(schemas: &mut Schemas) -> Value {
    let request = schemas.of::<NewToken>();
    let created = schemas.of::<CreatedToken>();
    admin_operation(
        schemas,
        "createToken",
        "Create a token",
        vec![],
        Some(request),
        (
            201,
            "The new token: the only time its secret (`token`) is shown.",
            created,
        ),
        &[422],
    )
}

fn admin_show_token(schemas: &mut Schemas) -> Value {
    let detail = schemas.of::<TokenDetail>();
    admin_operation(
        schemas,
        "showToken",
        "A token and its recent deductions",
        vec![token_id()],
        None,
        (200, "The token.", detail),
        &[404],
    )
}

fn admin_change<T: JsonSchema>(schemas: &mut Schemas, what: &str, summary: &str) -> Value {
    let request = schemas.of::<T>();
    let view = schemas.of::<TokenView>();
    admin_operation(
        schemas,
        &format!("{what}Token"),
        summary,
        vec![token_id()],
        Some(request),
        (200, "The token after the change.", view),
        &[404, 422],
    )
}

fn admin_revoke(schemas: &mut Schemas) -> Value {
    let view = schemas.of::<TokenView>();
    admin_operation(
        schemas,
        "revokeToken",
        "Revoke a token (final)",
        vec![token_id()],
        None,
        (200, "The revoked token.", view),
        &[404, 422],
    )
}

fn admin_ban(schemas: &mut Schemas, banned: bool) -> Value {
    let view = schemas.of::<AccountView>();
    let (id, summary) = if banned {
        (
            "banAccount",
            "Ban an account: every token of it is refused (accounts without tokens too)",
        )
    } else {
        ("unbanAccount", "Lift an account's ban")
    };
    admin_operation(
        schemas,
        id,
        summary,
        vec![
            json!({"name": "account", "in": "path", "required": true, "description": "The account name.", "schema": account_schema()}),
        ],
        None,
        (200, "The account's ban state.", view),
        &[422],
    )
}

// ---------------------------------------------------------------- node

fn healthz() -> Value {
    json!({
        "tags": ["node"],
        "operationId": "healthz",
        "summary": "Liveness",
        "responses": {"200": response("The process answers.", Some(json!({"text/plain; charset=utf-8": {"schema": {"type": "string", "const": "ok"}}})), &[])},
    })
}

fn readyz() -> Value {
    let body = json!({
        "type": "object",
        "required": ["ready", "verifier", "verifier_reachable"],
        "properties": {
            "ready": {"type": "boolean", "description": "False once shutdown has begun."},
            "verifier": {"enum": ["none", "in-process", "remote"], "description": "Where the render route's tokens are verified."},
            "verifier_reachable": {"type": ["boolean", "null"], "description": "The remote verifier's last known state; null without the render service."},
        },
    });
    json!({
        "tags": ["node"],
        "operationId": "readyz",
        "summary": "Readiness",
        "description": "A remote verifier being down does not make the node unready: cached tokens keep rendering.",
        "responses": {
            "200": response("Ready.", Some(json_body(body.clone())), &[]),
            "503": response("Shutting down.", Some(json_body(body)), &[]),
        },
    })
}

fn metrics() -> Value {
    json!({
        "tags": ["node"],
        "operationId": "metrics",
        "summary": "Prometheus metrics",
        "responses": {"200": response("Metrics in the Prometheus text format.", Some(json!({"text/plain; version=0.0.4": {"schema": {"type": "string"}}})), &[])},
    })
}

fn version() -> Value {
    json!({
        "tags": ["node"],
        "operationId": "version",
        "summary": "The running build",
        "responses": {"200": response("Name and version of the binary.", Some(json_body(json!({
            "type": "object",
            "required": ["name", "version"],
            "properties": {
                "name": {"const": "labelpress"},
                "version": {"type": "string", "description": "The crate version, e.g. `0.1.0`."},
            },
        }))), &[])},
    })
}

fn openapi() -> Value {
    json!({
        "tags": ["node"],
        "operationId": "openapi",
        "summary": "This document",
        "responses": {"200": response("The OpenAPI 3.1 document.", Some(json_body(json!({"type": "object"}))), &[])},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_render_api_code_is_listed_once_with_a_meaning() {
        let codes: Vec<&str> = api_errors().iter().map(ApiError::code).collect();
        for code in &codes {
            assert!(!code_meaning(code).is_empty(), "{code}");
        }
        let mut distinct = codes.clone();
        distinct.dedup();
        // API-005 is both 404 and 405.
        assert_eq!(distinct.len(), 14);
    }

    #[test]
    fn the_render_route_documents_each_error_status_with_its_codes() {
        let doc = document();
        let responses = &doc["paths"]["/api/v1/label"]["post"]["responses"];
        let code_enum = |status: &str| {
            responses[status]["content"]["application/json"]["schema"]["allOf"][1]["properties"]
                ["code"]["enum"]
                .clone()
        };
        assert_eq!(code_enum("422"), json!(["API-002"]));
        assert_eq!(code_enum("503"), json!(["API-502", "API-503"]));
        assert_eq!(code_enum("500"), json!(["API-500", "API-501"]));
        assert!(responses["503"]["headers"]["Retry-After"].is_object());
        assert!(responses["401"]["headers"]["WWW-Authenticate"].is_object());
        // A stored template the body names that the account does not have.
        assert_eq!(code_enum("404"), json!(["API-005"]));
        assert_eq!(code_enum("400"), json!(["API-001", "API-006"]));
        assert!(responses["200"]["content"]["image/png"].is_object());
        assert!(responses["200"]["content"]["application/zpl"].is_object());
        assert_eq!(code_enum("406"), json!(["API-007"]));
        assert!(responses["200"]["headers"]["Vary"].is_object());
        let params = doc["paths"]["/api/v1/label"]["post"]["parameters"]
            .as_array()
            .unwrap();
        let names: Vec<&str> = params.iter().map(|p| p["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["format", "dpi", "sheet", "mono", "barcodes"]);
        let limits = labelpress_document::config::Limits::default();
        assert_eq!(params[1]["schema"]["maximum"], limits.png_dpi_max);
        assert_eq!(params[3]["schema"]["type"], "boolean");
    }

    #[test]
    fn the_served_bytes_are_the_document() {
        let parsed: Value = serde_json::from_slice(bytes()).unwrap();
        assert_eq!(parsed, document());
    }
}
