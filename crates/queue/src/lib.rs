//! verdict-queue: verdict on RabbitMQ (AMQP 0.9.1, lapin), wire-compatible with the contract's
//! home system (VMatrixTeam/judge-system), design #20 and #21.
//!
//! - [`Worker`]: consumes Submissions from the durable request queue (manual acks, prefetch =
//!   its worker count), publishes the JudgeReport so far after every finished task and the final
//!   one, and acks only after the broker confirmed the final report. A worker that dies holding
//!   a submission loses nothing: the broker redelivers it.
//! - [`FrontEnd`]: publishes accepted Submissions to the request exchange and consumes every
//!   report (and a copy of every Submission) from a queue of its own bound to both exchanges.
//! - [`batch`]: batches over the broker: a front end publishes one unit per distinct candidate,
//!   workers judge them ([`Worker::with_units`]) and publish each result to every front end.
//! - [`cancels`]: a front end's cancel of a submission reaches every worker through a durable
//!   stream, also a worker that was not up when it was published.
//! - [`AmqpConfig`]: the `[amqp]` table; names default to the home system's example config.
//! - [`Link`] and [`QueueMetrics`]: what `/v1/health` and `/metrics` show.
//! - `testing::RabbitNode` (feature `testing`): a private broker node for tests and benches.
//!
//! Both roles reconnect with backoff when the broker is down or the connection is lost.
//!
//! ```
//! use verdict_queue::AmqpConfig;
//! let config = AmqpConfig::default();
//! assert_eq!(config.request.queue, "matrix-judge-request");
//! assert_eq!(config.report.exchange, "matrix-judge-result-exchange");
//! config.check().unwrap();
//! ```

pub mod batch;
mod broker;
mod cancel_sets;
pub mod cancels;
mod config;
mod error;
mod frontend;
mod link;
mod metrics;
#[cfg(feature = "testing")]
pub mod testing;
mod units;
mod worker;

pub use broker::redacted;
pub use config::{AmqpConfig, BatchRoute, Route};
pub use error::Error;
pub use frontend::{Consumed, FrontEnd, ReportSink, is_final};
pub use link::{Link, LinkStatus};
pub use metrics::QueueMetrics;
pub use worker::{Judging, Worker, read_submission};
