//! Extractors the handlers share: the authenticated [`Caller`], the request body as [`Text`]
//! and the `{sub_id}` of a path as [`SubIdPath`], each rejecting with the server's
//! [`ApiError`]; and, for the other sandboxes' APIs (Judge0, Jobe, Piston), what a request
//! carries to let its caller in ([`ApiCall`]), their routes refusing in their own shape
//! ([`Refused`]).
//! They need only the substates they read ([`Auth`], [`BodyLimit`]), so they work in every
//! role.
//!
//! Axum runs the parts extractors (the caller, the path) before the body extractor, so a
//! handler taking `caller: Caller, Text(text): Text` reads no byte of the body before the token
//! was checked.

use crate::auth::{Auth, Caller};
use crate::error::ApiError;
use crate::platforms::gate::ClientAddr;
use crate::state::{AppState, BodyLimit};
use axum::extract::{FromRef, FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use http_body_util::LengthLimitError;
use serde::Deserialize;
use std::convert::Infallible;

impl<S: Send + Sync> FromRequestParts<S> for Caller
where
    Auth: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Caller, ApiError> {
        Auth::from_ref(state).caller(&parts.headers)
    }
}

/// The request body as UTF-8 text, at most `max_body_kb`: 413 beyond it (at once when
/// `Content-Length` says so), 400 when it is not UTF-8 or cannot be read.
#[derive(Debug)]
pub struct Text(pub String);

impl<S: Send + Sync> FromRequest<S> for Text
where
    BodyLimit: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Text, ApiError> {
        let BodyLimit(limit) = BodyLimit::from_ref(state);
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        if declared.is_some_and(|n| n > limit as u64) {
            return Err(ApiError::PayloadTooLarge { limit });
        }
        let bytes = axum::body::to_bytes(request.into_body(), limit)
            .await
            .map_err(|err| {
                let err = err.into_inner();
                if err.downcast_ref::<LengthLimitError>().is_some() {
                    ApiError::PayloadTooLarge { limit }
                } else {
                    ApiError::bad_body(format!("body: cannot be read: {err}"))
                }
            })?;
        String::from_utf8(bytes.to_vec())
            .map(Text)
            .map_err(|e| ApiError::bad_body(format!("body: not UTF-8 ({e})")))
    }
}

/// The 400 of a part of the URL that cannot be read: `field`, and why (axum's rejection).
fn unreadable(field: &str, why: &str) -> ApiError {
    ApiError::BadRequest {
        field: field.into(),
        message: format!("{field}: {why}"),
    }
}

/// The `{sub_id}` segment of the path (400 naming `sub_id` when it cannot be decoded).
#[derive(Debug)]
pub struct SubIdPath(pub String);

impl<S: Send + Sync> FromRequestParts<S> for SubIdPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<SubIdPath, ApiError> {
        let Path(sub_id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|e| unreadable("sub_id", &e.body_text()))?;
        Ok(SubIdPath(sub_id))
    }
}

/// The `?category=` of a submission's URL: the category its `sub_id` belongs to, needed only
/// by a token bound to no category and only when the `sub_id` exists in several (400 naming
/// `category` when the query cannot be read).
#[derive(Debug, Default, Deserialize)]
pub struct CategoryQuery {
    /// The category asked for, if any.
    pub category: Option<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for CategoryQuery {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<CategoryQuery, ApiError> {
        let Query(query) = Query::<CategoryQuery>::from_request_parts(parts, state)
            .await
            .map_err(|e| unreadable("category", &e.body_text()))?;
        Ok(query)
    }
}

/// What a route of another sandbox's API reads of its request to let its caller in: the
/// state, the client's address and the headers (where the key is). It refuses nothing: the
/// route asks the API's gate after the body was read, so a body over the limit is `413`
/// before a missing key's refusal.
pub(crate) struct ApiCall {
    /// The server's state.
    pub state: AppState,
    /// The client's address, as its connection set it.
    pub client: Option<ClientAddr>,
    /// The request's headers.
    pub headers: HeaderMap,
}

impl FromRequestParts<AppState> for ApiCall {
    type Rejection = Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<ApiCall, Infallible> {
        Ok(ApiCall {
            state: state.clone(),
            client: parts.extensions.get::<ClientAddr>().copied(),
            headers: parts.headers.clone(),
        })
    }
}

/// The answer a route of another sandbox's API gives instead of its own: that API's error.
pub(crate) struct Refused(Box<Response>);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        *self.0
    }
}

impl From<Response> for Refused {
    fn from(response: Response) -> Refused {
        Refused(Box::new(response))
    }
}
