//! `role = "frontend"`: HTTP in front of the broker. An accepted Submission is written to the
//! store, published to the request exchange with verdict-queue's [`FrontEnd`] and answered `202`
//! only after the broker confirmed it; every report the workers publish (for submissions any
//! front end accepted, or a platform published directly) feeds the store, from which `GET`, the
//! event stream and `POST /v1/judge` answer. Nothing is judged here: no sandbox is needed.

use crate::app::{count, method_not_allowed, not_found, timeout};
use crate::auth::{Auth, Caller};
use crate::config::ServerConfig;
use crate::error::ApiError;
use crate::host::Host;
use crate::state::open_store;
use crate::{listing, page, submissions};
use anyhow::Context;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware;
use axum::response::{IntoResponse, Json, Response};
use axum::routing::{get, post};
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use verdict_contracts::{Submission, parse_submission};
use verdict_queue::{Consumed, FrontEnd, Link, QueueMetrics, ReportSink};
use verdict_scheduler::CacheStats;
use verdict_submissions::{Entry, Metrics, Phase, Reject, Store};

/// What a front end's handlers share; cheap to clone.
#[derive(Debug, Clone)]
pub struct FrontState {
    inner: Arc<FrontShared>,
}

#[derive(Debug)]
struct FrontShared {
    config: ServerConfig,
    auth: Auth,
    store: Arc<Store>,
    metrics: Arc<Metrics>,
    queue: Arc<QueueMetrics>,
    link: Arc<Link>,
    front: Arc<FrontEnd>,
    stopping: CancellationToken,
}

impl FrontState {
    /// Opens the store (taking back the submissions in progress when the front end stopped)
    /// and sets up the link to the broker; [`serve_frontend`] connects it.
    fn new(mut config: ServerConfig, stopping: CancellationToken) -> anyhow::Result<FrontState> {
        config.check()?;
        let metrics = Arc::new(Metrics::default());
        let (store, unfinished) = open_store(&config)?;
        let store = Arc::new(store);
        // Those in progress when the front end stopped come back as their newest report said,
        // or queued as accepted; their reports keep coming from the broker (all of them when
        // `amqp.frontend_queue` is named), so nothing is judged here.
        drop(store.recover(unfinished, &metrics));
        if config.amqp.frontend_queue.is_empty() {
            config.amqp.frontend_queue = own_queue_name(&config.data_dir())?;
        }
        let sink: ReportSink = {
            let (store, metrics) = (store.clone(), metrics.clone());
            Arc::new(move |consumed| {
                let (store, metrics) = (store.clone(), metrics.clone());
                Box::pin(async move {
                    match consumed {
                        Consumed::Submission(body) => seen_published(&store, body).await,
                        Consumed::Report(mut report, routing_key) => {
                            // The home system publishes each report with its category as the
                            // routing key: the fallback for a report that could not name its own.
                            if report.category.is_empty() {
                                report.category = routing_key;
                            }
                            store.ingest(report, &metrics).await;
                        }
                    }
                })
            })
        };
        let queue = Arc::new(QueueMetrics::default());
        let link = Arc::new(Link::default());
        let front = Arc::new(FrontEnd::new(
            config.amqp.clone(),
            queue.clone(),
            link.clone(),
            sink,
        ));
        let auth = Auth::new(config.tokens.clone());
        if !auth.enabled() {
            tracing::warn!("no [[tokens]] configured: authentication is off");
        }
        tracing::info!(queue = %config.amqp.frontend_queue, "the front end's report queue");
        Ok(FrontState {
            inner: Arc::new(FrontShared {
                config,
                auth,
                store,
                metrics,
                queue,
                link,
                front,
                stopping,
            }),
        })
    }

    /// The 503 of a submission the broker did not take.
    fn unavailable(&self, why: &str) -> ApiError {
        self.inner.metrics.rejected(Reject::BrokerUnavailable);
        let secs = self.inner.config.amqp.reconnect_max_ms.div_ceil(1000);
        ApiError::Unavailable {
            message: format!(
                "the broker did not take the submission ({why}); it was not accepted: retry later"
            ),
            retry_after_secs: secs.clamp(1, 60),
        }
    }
}

impl Host for FrontState {
    fn config(&self) -> &ServerConfig {
        &self.inner.config
    }

    fn auth(&self) -> &Auth {
        &self.inner.auth
    }

    fn store(&self) -> &Store {
        &self.inner.store
    }

    fn metrics(&self) -> &Metrics {
        &self.inner.metrics
    }

    fn local_roots(&self) -> Vec<PathBuf> {
        self.inner.config.judge.local_roots.clone()
    }

    /// An entry in the store (409 for a key in flight), the request on disk, then the publish
    /// and its confirm; a publish that fails takes the submission back (503).
    async fn accept(
        &self,
        submission: Submission,
        request: String,
    ) -> Result<Arc<Entry>, ApiError> {
        let shared = &self.inner;
        if shared.stopping.is_cancelled() {
            shared.metrics.rejected(Reject::ShuttingDown);
            return Err(ApiError::ShuttingDown);
        }
        if !shared.link.is_up() {
            let why = shared.link.status().last_error;
            return Err(self.unavailable(&format!(
                "not connected: {}",
                why.as_deref().unwrap_or("connecting")
            )));
        }
        let (entry, previous) = shared
            .store
            .insert(&submission)
            .inspect_err(|_| shared.metrics.rejected(Reject::Conflict))?;
        // On its own task: a request dropped meanwhile (timeout, client gone) must not leave
        // the submission half-accepted; it ends published, or taken back.
        let handing = {
            let state = self.clone();
            let entry = entry.clone();
            tokio::spawn(async move {
                let shared = &state.inner;
                // On disk before it is published: its reports may come back at once.
                if let Err(err) = shared.store.persist(&entry, request.clone()).await {
                    shared.store.undo_insert(&entry, previous);
                    return Err(ApiError::from(err));
                }
                if let Err(err) = shared.front.publish_submission(request.as_bytes()).await {
                    tracing::warn!(sub_id = %entry.key.sub_id, error = %err, "publish failed");
                    shared.store.withdraw(&entry, previous).await;
                    return Err(state.unavailable(&err.to_string()));
                }
                Ok(())
            })
        };
        handing
            .await
            .map_err(|e| ApiError::Internal(format!("publishing: {e}")))??;
        shared
            .metrics
            .submissions_accepted
            .fetch_add(1, Ordering::Relaxed);
        Ok(entry)
    }
}

/// The name of this front end's report queue when `amqp.frontend_queue` does not give one:
/// made once and kept in `data_dir` (which one front end holds at a time), so the queue outlives
/// restarts and lost connections and the reports published meanwhile wait in it.
fn own_queue_name(data_dir: &std::path::Path) -> anyhow::Result<String> {
    let path = data_dir.join("frontend-queue");
    match std::fs::read_to_string(&path) {
        Ok(name) if !name.trim().is_empty() => return Ok(name.trim().to_owned()),
        Ok(_) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", path.display())),
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let name = format!("verdict-frontend-{:x}-{nanos:x}", std::process::id());
    std::fs::write(&path, &name).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(name)
}

/// A copy of a Submission published to the request exchange (by this front end, another one or
/// a platform): known here as queued from now on, unless it already is (this front end accepted
/// it) or is not a valid Submission (its worker reports that).
async fn seen_published(store: &Store, body: Vec<u8>) {
    let Ok(text) = String::from_utf8(body) else {
        return;
    };
    let Ok(submission) = parse_submission(&text) else {
        return;
    };
    if crate::ids::check_ids(&submission).is_empty() {
        store.note_published(&submission, text).await;
    }
}

/// The router of a front end: the submission endpoints, health, metrics, the document and the
/// page; the doors that judge here (`/v1/oracle`, `/v1/lab/runs`, `/v1/languages`) say where
/// to go instead.
fn router(state: FrontState) -> Router {
    let timed = Router::new()
        .route(
            "/v1/submissions",
            post(submissions::submit::<FrontState>).get(listing::list::<FrontState>),
        )
        .route(
            "/v1/submissions/{sub_id}",
            get(submissions::status::<FrontState>),
        )
        .route("/v1/oracle", post(judged_elsewhere))
        .route("/v1/lab/runs", post(judged_elsewhere).get(judged_elsewhere))
        .route("/v1/languages", get(judged_elsewhere))
        .route("/", get(page::index))
        .route("/assets/{name}", get(page::asset))
        .route("/v1/health", get(health))
        .route("/metrics", get(prometheus))
        .route("/v1/openapi.json", get(crate::info::openapi))
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            timeout::<FrontState>,
        ));
    let untimed = Router::new()
        .route("/v1/judge", post(submissions::judge::<FrontState>))
        .route(
            "/v1/submissions/{sub_id}/events",
            get(submissions::events::<FrontState>),
        );
    Router::new()
        .merge(timed)
        .merge(untimed)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(state.inner.config.max_body_bytes()))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            count::<FrontState>,
        ))
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(state)
}

/// 404 for what only a judging server serves.
async fn judged_elsewhere(request: Request) -> ApiError {
    ApiError::NotFound(format!(
        "path: {} is not served by a front end (role = \"frontend\"); send it to a standalone server",
        request.uri().path()
    ))
}

/// `GET /v1/health`: `ok` while connected to the broker (submissions are accepted), `degraded`
/// (with the broker's error) while not, `shutting_down` after SIGTERM.
async fn health(State(state): State<FrontState>) -> Json<serde_json::Value> {
    let shared = &state.inner;
    let broker = shared.link.status();
    let stopping = shared.stopping.is_cancelled();
    let status = if stopping {
        "shutting_down"
    } else if broker.connected {
        "ok"
    } else {
        "degraded"
    };
    let (mut queued, mut running) = (0, 0);
    for entry in shared.store.list() {
        match entry.phase() {
            Phase::Queued => queued += 1,
            Phase::Running => running += 1,
            Phase::Finished => {}
        }
    }
    Json(json!({
        "status": status,
        "role": "frontend",
        "version": env!("CARGO_PKG_VERSION"),
        "broker": broker,
        "queue_length": queued,
        "running_submissions": running,
        "accepting": broker.connected && !stopping,
    }))
}

/// `GET /metrics`: submissions and responses, and the broker traffic (submissions published,
/// reports consumed).
async fn prometheus(State(state): State<FrontState>, _caller: Caller) -> Response {
    let shared = &state.inner;
    let mut text = shared.metrics.render(CacheStats::default());
    shared.queue.render(shared.link.is_up(), &mut text);
    let mut response = text.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}

/// Runs a front end until `shutdown` fires: keeps the link to the broker (reconnecting while
/// it is away) and serves HTTP on `listener`. On shutdown it refuses new submissions, lets
/// requests in flight end (at most `shutdown_grace_ms`), then leaves the broker.
pub async fn serve_frontend(
    config: ServerConfig,
    listener: TcpListener,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let state = FrontState::new(config, shutdown.clone())?;
    let link_down = CancellationToken::new();
    let linking = tokio::spawn(state.inner.front.clone().run(link_down.clone()));
    let sweeper = verdict_submissions::spawn_sweeper(
        state.inner.store.clone(),
        state.inner.config.retention_secs,
        shutdown.clone(),
    );
    let grace = Duration::from_millis(state.inner.config.shutdown_grace_ms);
    let mut server = tokio::spawn(
        axum::serve(listener, router(state.clone()))
            .with_graceful_shutdown(shutdown.clone().cancelled_owned())
            .into_future(),
    );
    tokio::select! {
        result = &mut server => {
            link_down.cancel();
            sweeper.abort();
            return result.context("server task failed")?.context("server failed");
        }
        () = shutdown.cancelled() => {}
    }
    tracing::info!("shutting down: refusing new submissions");
    if tokio::time::timeout(grace, &mut server).await.is_err() {
        tracing::warn!(
            grace_ms = state.inner.config.shutdown_grace_ms,
            "shutdown grace period over; closing the requests still open"
        );
        server.abort();
    }
    link_down.cancel();
    let _ = linking.await;
    sweeper.abort();
    Ok(())
}
