//! Counters of the broker traffic, written as Prometheus text by [`QueueMetrics::render`].

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};

/// What a worker or front end counts.
#[derive(Debug, Default)]
pub struct QueueMetrics {
    /// Submissions delivered by the broker (redeliveries included).
    pub deliveries: AtomicU64,
    /// Deliveries the broker flagged as redelivered (a consumer died or disconnected holding them).
    pub redeliveries: AtomicU64,
    /// Deliveries acknowledged (after their final report was confirmed).
    pub acks: AtomicU64,
    /// Deliveries that were not a valid Submission (reported with `message`, then acked).
    pub invalid: AtomicU64,
    /// Reports published and confirmed by the broker.
    pub reports_published: AtomicU64,
    /// Publishes that failed (nack or lost connection).
    pub publish_failures: AtomicU64,
    /// Submissions a front end published to the request exchange.
    pub submissions_published: AtomicU64,
    /// Reports a front end consumed from its report queue.
    pub reports_consumed: AtomicU64,
    /// Batch units a worker was delivered (redeliveries included).
    pub units_delivered: AtomicU64,
    /// Batch units delivered flagged redelivered.
    pub units_redelivered: AtomicU64,
    /// Batch units judged, their result confirmed by the broker, and acked.
    pub units_judged: AtomicU64,
    /// Batch units acked without judging: their batch was cancelled, or the unit was unreadable.
    pub units_skipped: AtomicU64,
    /// Batch messages a front end published (announcements, units, cancels).
    pub batch_messages_published: AtomicU64,
    /// Batch messages a front end consumed (announcements, results, cancels).
    pub batch_messages_consumed: AtomicU64,
    /// Connections to the broker established (the first one included).
    pub connections: AtomicU64,
    /// Connections lost or attempts failed.
    pub connection_failures: AtomicU64,
}

impl QueueMetrics {
    /// Adds one to `counter`.
    pub fn inc(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Appends the counters and the `connected` gauge in the Prometheus text format.
    pub fn render(&self, connected: bool, out: &mut String) {
        let counters = [
            (
                "verdict_amqp_deliveries_total",
                "Submissions delivered by the broker, redeliveries included.",
                &self.deliveries,
            ),
            (
                "verdict_amqp_redeliveries_total",
                "Deliveries flagged redelivered (their first consumer died or disconnected).",
                &self.redeliveries,
            ),
            (
                "verdict_amqp_acks_total",
                "Deliveries acknowledged after their final report was confirmed.",
                &self.acks,
            ),
            (
                "verdict_amqp_invalid_total",
                "Deliveries that were not a valid Submission (reported with a message, acked).",
                &self.invalid,
            ),
            (
                "verdict_amqp_reports_published_total",
                "JudgeReports published and confirmed by the broker.",
                &self.reports_published,
            ),
            (
                "verdict_amqp_publish_failures_total",
                "Publishes refused by the broker or lost with the connection.",
                &self.publish_failures,
            ),
            (
                "verdict_amqp_submissions_published_total",
                "Submissions a front end published to the request exchange.",
                &self.submissions_published,
            ),
            (
                "verdict_amqp_reports_consumed_total",
                "JudgeReports a front end consumed.",
                &self.reports_consumed,
            ),
            (
                "verdict_amqp_batch_units_delivered_total",
                "Batch units (one candidate each) delivered to a worker, redeliveries included.",
                &self.units_delivered,
            ),
            (
                "verdict_amqp_batch_units_redelivered_total",
                "Batch units delivered flagged redelivered.",
                &self.units_redelivered,
            ),
            (
                "verdict_amqp_batch_units_judged_total",
                "Batch units judged, their result confirmed and acked.",
                &self.units_judged,
            ),
            (
                "verdict_amqp_batch_units_skipped_total",
                "Batch units acked unjudged (batch cancelled, or unreadable).",
                &self.units_skipped,
            ),
            (
                "verdict_amqp_batch_messages_published_total",
                "Batch messages a front end published (announcements, units, cancels).",
                &self.batch_messages_published,
            ),
            (
                "verdict_amqp_batch_messages_consumed_total",
                "Batch messages a front end consumed (announcements, results, cancels).",
                &self.batch_messages_consumed,
            ),
            (
                "verdict_amqp_connections_total",
                "Connections to the broker established.",
                &self.connections,
            ),
            (
                "verdict_amqp_connection_failures_total",
                "Connection attempts failed and connections lost.",
                &self.connection_failures,
            ),
        ];
        for (name, help, value) in counters {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {}",
                value.load(Ordering::Relaxed)
            );
        }
        let _ = writeln!(
            out,
            "# HELP verdict_amqp_connected Whether the broker is connected (1) or not (0).\n# TYPE verdict_amqp_connected gauge\nverdict_amqp_connected {}",
            u8::from(connected)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_render_as_prometheus_text() {
        let metrics = QueueMetrics::default();
        QueueMetrics::inc(&metrics.redeliveries);
        let mut out = String::new();
        metrics.render(true, &mut out);
        assert!(
            out.contains("\nverdict_amqp_redeliveries_total 1\n"),
            "{out}"
        );
        assert!(
            out.contains("# TYPE verdict_amqp_acks_total counter\nverdict_amqp_acks_total 0\n")
        );
        assert!(out.ends_with("verdict_amqp_connected 1\n"));
    }
}
