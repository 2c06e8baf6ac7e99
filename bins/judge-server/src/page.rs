//! The page for people (`GET /`, `GET /assets/{name}`): the files `verdict-web` embeds, served
//! with a strict Content-Security-Policy (only this origin's scripts, styles and requests; no
//! inline code, no frames). Loading the page needs no token: it holds no data, and every request
//! it makes carries the token the person enters (kept in the tab's sessionStorage).

use crate::error::ApiError;
use axum::body::Body;
use axum::extract::Path;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use std::borrow::Cow;

/// `GET /`: the page.
pub async fn index() -> Result<Response, ApiError> {
    serve("index.html")
}

/// `GET /assets/{name}`: a script, the stylesheet or the bundled examples.
pub async fn asset(Path(name): Path<String>) -> Result<Response, ApiError> {
    serve(&name)
}

fn serve(name: &str) -> Result<Response, ApiError> {
    let asset = verdict_web::asset(name)
        .ok_or_else(|| ApiError::NotFound(format!("path: no asset called {name:?}")))?;
    let body = match asset.body {
        Cow::Borrowed(bytes) => Body::from(bytes),
        Cow::Owned(bytes) => Body::from(bytes),
    };
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(asset.content_type),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(verdict_web::PAGE_CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}
