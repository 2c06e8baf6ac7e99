//! `role = "frontend"`: HTTP in front of the broker. An accepted Submission is written to the
//! store, published to the request exchange with verdict-queue's [`FrontEnd`] and answered `202`
//! only after the broker confirmed it; every report the workers publish (for submissions any
//! front end accepted, or a platform published directly) feeds the store, from which `GET`, the
//! event stream and `POST /v1/judge` answer. Batches go the same way ([`Relay`]): kept on disk,
//! cut into units for the workers, their results consumed by every front end. Nothing is judged
//! here: no sandbox is needed.

use crate::config::ServerConfig;
use crate::dispatch::Dispatch;
use crate::state::{AppState, Broker, Shared, Submissions, open_store};
use anyhow::Context;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use verdict_contracts::parse_submission;
use verdict_oracle::OracleOptions;
use verdict_queue::{Consumed, FrontEnd, ReportSink};
use verdict_submissions::batches::Relay;
use verdict_submissions::{Metrics, Store};

/// Opens the store (taking back the submissions in progress when the front end stopped) and
/// sets up the link to the broker; the caller runs the link ([`FrontEnd::run`]).
fn front_end(
    mut config: ServerConfig,
    stopping: CancellationToken,
) -> anyhow::Result<(AppState, Arc<FrontEnd>)> {
    config.check()?;
    let metrics = Arc::new(Metrics::default());
    let (store, unfinished) = open_store(&config)?;
    let store = Arc::new(store);
    // Those in progress when the front end stopped come back as their newest report said, or
    // queued as accepted; their reports keep coming from the broker (all of them when
    // `amqp.frontend_queue` is named), so nothing is judged here.
    drop(store.recover(unfinished, &metrics));
    if config.amqp.frontend_queue.is_empty() {
        config.amqp.frontend_queue = own_queue_name(&config.data_dir())?;
    }
    // Batches: kept in data_dir/batches, judged by the workers (docs/batches.md).
    let oracle = OracleOptions {
        default_timeout_ms: config.oracle_default_timeout_ms,
        ..OracleOptions::default()
    };
    let (batches_dir, limits) = config.batches();
    let relay = Relay::open(batches_dir, oracle, limits).context("cannot open the batches")?;
    let sink: ReportSink = {
        let (store, metrics, relay) = (store.clone(), metrics.clone(), relay.clone());
        Arc::new(move |consumed| {
            let (store, metrics, relay) = (store.clone(), metrics.clone(), relay.clone());
            Box::pin(async move {
                match consumed {
                    Consumed::Batch(message) => relay.ingest(message).await,
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
    let broker = Broker::default();
    let front = Arc::new(FrontEnd::new(
        config.amqp.clone(),
        broker.queue.clone(),
        broker.link.clone(),
        sink,
    ));
    relay.connect(front.clone());
    tracing::info!(queue = %config.amqp.frontend_queue, "the front end's report queue");
    let state = AppState::assemble(Shared {
        submissions: Some(Submissions {
            store,
            dispatch: Dispatch::Relayed {
                front: front.clone(),
                relay,
            },
        }),
        broker: Some(broker),
        ..Shared::new(config, metrics, stopping)
    });
    Ok((state, front))
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
    if verdict_submissions::check_ids(&submission).is_empty() {
        store.note_published(&submission, text).await;
    }
}

/// Runs a front end until `shutdown` fires: keeps the link to the broker (reconnecting while
/// it is away) and serves HTTP on `listener`. On shutdown it refuses new submissions, lets
/// requests in flight end (at most `shutdown_grace_ms`), then leaves the broker.
pub async fn serve_frontend(
    config: ServerConfig,
    listener: TcpListener,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let (state, front) = front_end(config, shutdown.clone())?;
    let link_down = CancellationToken::new();
    let linking = tokio::spawn(front.run(link_down.clone()));
    let served = crate::serve::run(state, listener, shutdown, None).await;
    link_down.cancel();
    let _ = linking.await;
    served
}
