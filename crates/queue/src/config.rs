//! The `[amqp]` table: the broker's address and the names of the exchanges, queues and routing
//! keys, defaulting to the home system's example (`config/example/forth.json` of judge-system).

use crate::error::Error;
use lapin::ExchangeKind;
use serde::Deserialize;
use std::time::Duration;

/// Where the broker is and how submissions and reports travel through it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AmqpConfig {
    /// The broker, as an AMQP URI (`amqp://user:password@host:5672/vhost`).
    pub uri: String,
    /// Where Submissions arrive: the home system's `submissionQueue`.
    pub request: Route,
    /// Where JudgeReports go: the home system's `reportQueue`.
    pub report: Route,
    /// Where batches travel (docs/batches.md): verdict's own exchange and work queue, apart
    /// from the home system's so that its platforms never see them.
    pub batches: BatchRoute,
    /// A front end's own report queue, bound to the report exchange with `#` so that it sees every
    /// report without taking them from `report.queue`. Empty: a server-named exclusive queue
    /// that lives as long as the connection. A name: a durable queue that keeps the reports
    /// arriving while the front end is down, deleted by the broker after
    /// `frontend_queue_expires_secs` without a consumer.
    pub frontend_queue: String,
    /// How long an unused named `frontend_queue` outlives its front end.
    pub frontend_queue_expires_secs: u64,
    /// The first wait before reconnecting after the broker was lost (doubled up to the maximum).
    pub reconnect_min_ms: u64,
    /// The longest wait between two reconnection attempts.
    pub reconnect_max_ms: u64,
}

/// An exchange, a queue bound to it and the binding's routing key (one of the home system's
/// `submissionQueue` / `reportQueue` objects).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Route {
    /// The durable queue (empty: declare none; messages go only to queues others bind).
    pub queue: String,
    /// The durable exchange.
    pub exchange: String,
    /// `topic`, `direct`, `fanout` or `headers`.
    #[serde(default = "topic")]
    pub exchange_type: String,
    /// The key the queue is bound with; for requests, also the key a front end publishes with.
    #[serde(default)]
    pub routing_key: String,
}

/// The most lanes a batch route may have (each is a queue every worker consumes from).
pub const MAX_LANES: u16 = 256;

/// The batches' topic exchange and the durable queue of their units (one candidate each), from
/// which every worker takes.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchRoute {
    /// The durable queue of units, bound with `batch.unit`; its lanes are `<queue>.<lane>`.
    pub queue: String,
    /// The durable topic exchange of units, announcements, results and cancels.
    pub exchange: String,
    /// How many lanes units wait in: a category's units go to lane `hash(category) % lanes`,
    /// and a worker takes from every lane in turn (docs/batches.md, "Fair sharing").
    #[serde(default = "default_lanes")]
    pub lanes: u16,
}

/// The default number of lanes.
fn default_lanes() -> u16 {
    64
}

fn topic() -> String {
    "topic".into()
}

impl Default for AmqpConfig {
    fn default() -> Self {
        AmqpConfig {
            uri: "amqp://guest:guest@127.0.0.1:5672/%2f".into(),
            request: Route {
                queue: "matrix-judge-request".into(),
                exchange: "matrix-judge-request-exchange".into(),
                exchange_type: topic(),
                routing_key: String::new(),
            },
            report: Route {
                queue: "matrix-judge-result".into(),
                exchange: "matrix-judge-result-exchange".into(),
                exchange_type: topic(),
                // The home system publishes each report with the submission's category as the
                // routing key; its example binds with "", which on a topic exchange matches only
                // the empty key. "#" delivers every category's reports to the result queue.
                routing_key: "#".into(),
            },
            batches: BatchRoute {
                queue: "verdict-batch-units".into(),
                exchange: "verdict-batch-exchange".into(),
                lanes: default_lanes(),
            },
            frontend_queue: String::new(),
            frontend_queue_expires_secs: 86_400,
            reconnect_min_ms: 200,
            reconnect_max_ms: 10_000,
        }
    }
}

impl Route {
    /// The exchange kind, or an error naming `key` (`amqp.request.exchange_type`).
    pub fn kind(&self, key: &str) -> Result<ExchangeKind, Error> {
        match self.exchange_type.as_str() {
            "topic" => Ok(ExchangeKind::Topic),
            "direct" => Ok(ExchangeKind::Direct),
            "fanout" => Ok(ExchangeKind::Fanout),
            "headers" => Ok(ExchangeKind::Headers),
            other => Err(Error::Config {
                key: format!("{key}.exchange_type"),
                message: format!(
                    "unknown exchange type {other:?}, expected topic, direct, fanout or headers"
                ),
            }),
        }
    }
}

impl AmqpConfig {
    /// Checks what serde cannot, naming the key at fault (under `amqp.`).
    pub fn check(&self) -> Result<(), Error> {
        let bad = |key: &str, message: &str| {
            Err(Error::Config {
                key: format!("amqp.{key}"),
                message: message.into(),
            })
        };
        if !(self.uri.starts_with("amqp://") || self.uri.starts_with("amqps://")) {
            return bad("uri", "must start with amqp:// (or amqps://)");
        }
        if self.uri.starts_with("amqps://") {
            return bad(
                "uri",
                "amqps:// is not built in; put a TLS proxy (stunnel) in front",
            );
        }
        for (name, route) in [("request", &self.request), ("report", &self.report)] {
            route.kind(&format!("amqp.{name}"))?;
            if route.exchange.is_empty() {
                return bad(&format!("{name}.exchange"), "must not be empty");
            }
        }
        if self.batches.queue.is_empty() {
            return bad("batches.queue", "must not be empty");
        }
        if self.batches.exchange.is_empty() {
            return bad("batches.exchange", "must not be empty");
        }
        if !(1..=MAX_LANES).contains(&self.batches.lanes) {
            return bad("batches.lanes", &format!("must be 1 to {MAX_LANES}"));
        }
        if self.request.queue.is_empty() {
            return bad("request.queue", "must not be empty");
        }
        if self.reconnect_min_ms == 0 || self.reconnect_max_ms < self.reconnect_min_ms {
            return bad(
                "reconnect_max_ms",
                "need 1 <= reconnect_min_ms <= reconnect_max_ms",
            );
        }
        Ok(())
    }

    /// The wait before reconnection attempt `attempt` (0-based): doubling, capped.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let ms = self
            .reconnect_min_ms
            .saturating_mul(1u64 << attempt.min(20))
            .min(self.reconnect_max_ms);
        Duration::from_millis(ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_home_systems_example_names() {
        let config = AmqpConfig::default();
        assert_eq!(config.request.queue, "matrix-judge-request");
        assert_eq!(config.request.exchange, "matrix-judge-request-exchange");
        assert_eq!(config.request.routing_key, "");
        assert_eq!(config.report.queue, "matrix-judge-result");
        assert_eq!(config.report.exchange, "matrix-judge-result-exchange");
        assert_eq!(config.request.exchange_type, "topic");
        config.check().unwrap();
    }

    #[test]
    fn bad_values_name_their_key() {
        let config = AmqpConfig {
            report: Route {
                exchange_type: "toppic".into(),
                ..AmqpConfig::default().report
            },
            ..AmqpConfig::default()
        };
        let err = config.check().unwrap_err().to_string();
        assert!(err.starts_with("amqp.report.exchange_type: "), "{err}");
        let config = AmqpConfig {
            uri: "http://x".into(),
            ..AmqpConfig::default()
        };
        assert!(
            config
                .check()
                .unwrap_err()
                .to_string()
                .starts_with("amqp.uri")
        );
    }

    #[test]
    fn the_batches_names_are_checked_too() {
        let mut config = AmqpConfig::default();
        assert_eq!(config.batches.queue, "verdict-batch-units");
        config.batches.exchange.clear();
        let err = config.check().unwrap_err().to_string();
        assert_eq!(err, "amqp.batches.exchange: must not be empty");
        let mut config = AmqpConfig::default();
        assert_eq!(config.batches.lanes, 64);
        config.batches.lanes = 0;
        let err = config.check().unwrap_err().to_string();
        assert_eq!(err, "amqp.batches.lanes: must be 1 to 256");
    }

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let config = AmqpConfig::default();
        assert_eq!(config.backoff(0), Duration::from_millis(200));
        assert_eq!(config.backoff(1), Duration::from_millis(400));
        assert_eq!(config.backoff(30), Duration::from_millis(10_000));
    }
}
