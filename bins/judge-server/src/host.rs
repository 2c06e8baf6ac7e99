//! What the submission endpoints need from a server, whichever its role: the standalone server
//! ([`AppState`](crate::AppState)) judges what it accepts; a front end
//! ([`FrontState`](crate::frontend::FrontState)) publishes it to the broker. Both keep every
//! submission they know of in a [`Store`] and serve `GET` and the event stream from it.

use crate::auth::{Auth, Caller};
use crate::config::ServerConfig;
use crate::error::ApiError;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use verdict_contracts::Submission;
use verdict_submissions::{Entry, Metrics, Store};

/// A server that accepts Submissions and serves their progress.
pub trait Host: Clone + Send + Sync + 'static {
    /// The configuration in force.
    fn config(&self) -> &ServerConfig;
    /// The bearer tokens.
    fn auth(&self) -> &Auth;
    /// The submissions known here.
    fn store(&self) -> &Store;
    /// Counters and histograms.
    fn metrics(&self) -> &Metrics;
    /// The roots `local` assets are read from (checked for category tokens).
    fn local_roots(&self) -> Vec<PathBuf>;
    /// Accepts a valid Submission (`request` is its text): when this returns `Ok`, it is durable
    /// and on its way to being judged, and the entry follows its progress.
    fn accept(
        &self,
        submission: Submission,
        request: String,
    ) -> impl Future<Output = Result<Arc<Entry>, ApiError>> + Send;
}

/// Checks, on a blocking thread, that `caller` may read the `local` assets of `submission`
/// (the rules are in `src/access.rs`); gives the submission back.
pub async fn check_local_assets(
    host: &impl Host,
    caller: &Caller,
    submission: Submission,
) -> Result<Submission, ApiError> {
    if caller.category.is_none() || caller.shared_local_roots {
        return Ok(submission);
    }
    let (caller, roots) = (caller.clone(), host.local_roots());
    tokio::task::spawn_blocking(move || {
        crate::access::check_local_assets(&caller, &roots, &submission).map(|()| submission)
    })
    .await
    .map_err(|e| ApiError::Internal(format!("local asset check: {e}")))?
}
