//! Accepting connections: at most `max_connections` at once, at most
//! `max_connections_per_address` of them from one client address, and a connection that has
//! not sent a complete request head within `header_timeout_ms`, whether it is new or idle
//! between two requests, is closed. Without them, slow or idle clients hold every descriptor
//! the process may open, `accept` fails with `EMFILE`, and every client, authenticated or not,
//! gets nothing; without the per-address cap one client holds every slot. A request being
//! answered (an event stream, a `/v1/judge` wait) is not a head being read: its connection
//! stays as long as its response.

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// How connections are bounded.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// Connections served at once; the next waits in the listen backlog.
    pub max_connections: usize,
    /// Connections served at once from one client address (an IPv6 client's /64); the next
    /// is answered 429 `busy` with `Retry-After` and closed at once, without being read.
    pub max_per_address: usize,
    /// Time for a request head to arrive, from the connection's start or the previous response.
    pub header_timeout: Duration,
}

/// The connections open by client address, for the per-address cap.
#[derive(Debug, Default)]
struct PerAddress(Mutex<HashMap<IpAddr, usize>>);

impl PerAddress {
    /// Counts a connection from `peer`, or `None` when `peer` holds `max` already.
    fn enter(self: &Arc<Self>, peer: IpAddr, max: usize) -> Option<AddressSlot> {
        let key = client_key(peer);
        let mut open = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let count = open.entry(key).or_insert(0);
        if *count >= max {
            return None;
        }
        *count += 1;
        Some(AddressSlot {
            table: self.clone(),
            key,
        })
    }
}

/// One connection counted against its address, until dropped.
struct AddressSlot {
    table: Arc<PerAddress>,
    key: IpAddr,
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut open = self.table.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = open.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.key);
            }
        }
    }
}

/// What one client is: its IPv4 address (an IPv4-mapped IPv6 one too), or its IPv6 /64 (the
/// least a host is given: one client has all of it).
fn client_key(peer: IpAddr) -> IpAddr {
    match peer {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// The answer to a connection over its address's cap: the house error shape, written without
/// reading the request (whatever it is), then the connection is closed.
fn over_address_cap(max: usize) -> Vec<u8> {
    let body = serde_json::json!({"error": {
        "code": "busy",
        "message": format!(
            "this client address has {max} connections open already \
             (max_connections_per_address); retry later"
        ),
    }})
    .to_string();
    format!(
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n\
         retry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
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
    let per_address = Arc::new(PerAddress::default());
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
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
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
        let Some(address_slot) = per_address.enter(peer.ip(), limits.max_per_address.max(1)) else {
            tracing::debug!(%peer, "connection refused: its address is at max_connections_per_address");
            // Written only if the socket takes it at once (it is new: its buffer is empty);
            // the refusal never waits on the client.
            let _ = stream.try_write(&over_address_cap(limits.max_per_address));
            drop(stream);
            continue;
        };
        // Each request carries its client's address (SandboxFusion's routes let networks in).
        let client = crate::platforms::gate::ClientAddr(peer.ip());
        let service = TowerToHyperService::new(tower::ServiceExt::map_request(
            app.clone(),
            move |mut request: axum::http::Request<_>| {
                request.extensions_mut().insert(client);
                request
            },
        ));
        let conn = builder
            .serve_connection(TokioIo::new(stream), service)
            .into_owned();
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            if let Err(err) = conn.await {
                tracing::debug!("connection ended: {err}");
            }
            drop(address_slot);
            drop(permit);
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_is_its_ipv4_address_or_its_ipv6_64() {
        let key = |s: &str| client_key(s.parse().expect("an address"));
        assert_eq!(key("192.0.2.7"), key("::ffff:192.0.2.7"));
        assert_ne!(key("192.0.2.7"), key("192.0.2.8"));
        assert_eq!(key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff::9"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
    }

    #[test]
    fn an_address_holds_at_most_its_cap_and_gets_a_place_back_when_one_closes() {
        let table = Arc::new(PerAddress::default());
        let (a, b): (IpAddr, IpAddr) = ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        let first = table.enter(a, 2).expect("a first");
        let _second = table.enter(a, 2).expect("a second");
        assert!(table.enter(a, 2).is_none(), "a third from the same address");
        assert!(
            table.enter(b, 2).is_some(),
            "another address is not held back"
        );
        drop(first);
        assert!(table.enter(a, 2).is_some(), "a place back after a close");
    }

    #[test]
    fn the_refusal_is_a_complete_429_in_the_house_error_shape() {
        let text = String::from_utf8(over_address_cap(8)).expect("utf-8");
        let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
        assert!(head.starts_with("HTTP/1.1 429 "), "{head}");
        assert!(
            head.contains(&format!("content-length: {}", body.len())),
            "{head}"
        );
        let json: serde_json::Value = serde_json::from_str(body).expect("JSON");
        assert_eq!(json["error"]["code"], "busy");
        assert!(
            json["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("max_connections_per_address"))
        );
    }
}
