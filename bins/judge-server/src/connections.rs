//! Accepting connections (issue 29.1): at most `max_connections` at once, and a connection that
//! has not sent a complete request head within `header_timeout_ms`, whether it is new or idle
//! between two requests, is closed. Without them, slow or idle clients hold every descriptor
//! the process may open, `accept` fails with `EMFILE`, and every client, authenticated or not,
//! gets nothing. A request being answered (an event stream, a `/v1/judge` wait) is not a head
//! being read: its connection stays as long as its response.

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// How connections are bounded.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// Connections served at once; the next waits in the listen backlog.
    pub max_connections: usize,
    /// Time for a request head to arrive, from the connection's start or the previous response.
    pub header_timeout: Duration,
}

/// The connections `configured` asks for, at most the process's open-file limit (raised to
/// its hard limit first) less 256 descriptors kept for everything else (the database, the
/// sandbox, log files, the broker): the cap, not `accept`, is what says no.
pub fn usable_connections(configured: usize) -> usize {
    let limit = rlimit::increase_nofile_limit(u64::MAX).unwrap_or(1024);
    let usable = usize::try_from(limit.saturating_sub(256)).unwrap_or(usize::MAX);
    let connections = configured.min(usable).max(1);
    if connections < configured {
        tracing::warn!(
            configured,
            open_file_limit = limit,
            "max_connections lowered to {connections} to stay under the open-file limit"
        );
    }
    connections
}

/// Serves `app` on `listener` until `shutdown` resolves, then lets open connections finish
/// their requests (a kept-alive connection is closed after its current response).
pub async fn serve_connections(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    // HTTP/1 only: the automatic version detection waits for a first byte with no timer at all,
    // so a connection that never speaks would be held for ever (the clients here speak HTTP/1.1).
    let mut builder = Builder::new(TokioExecutor::new()).http1_only();
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let builder = Arc::new(builder);
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = slots.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(err) => {
                    tracing::error!("accept error: {err}");
                    // Descriptors exhausted: wait for some to be freed rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let conn = builder
            .serve_connection(TokioIo::new(stream), service)
            .into_owned();
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            if let Err(err) = conn.await {
                tracing::debug!("connection ended: {err}");
            }
            drop(permit);
        });
    }
    drop(listener);
    graceful.shutdown().await;
}
