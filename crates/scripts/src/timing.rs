//! Per-phase timings of a judging: each phase is one `tracing` event at TRACE level
//! with target [`TARGET`] and the fields `phase` (its name), `task` (the task's index, -1
//! outside a task) and `us` (microseconds). Nothing is measured unless a subscriber wants that
//! target (`VERDICT_LOG=verdict::timing=trace` for `judge`, or a bench's own layer): when off, a
//! phase costs one check of tracing's cached interest and no clock read.

use std::cell::Cell;
use std::time::{Duration, Instant};

/// The target of the timing events.
pub const TARGET: &str = "verdict::timing";

thread_local! {
    /// The task whose phases this thread is timing (set by [`task_scope`]).
    static TASK: Cell<i64> = const { Cell::new(-1) };
}

/// Whether timings are wanted (a subscriber enables [`TARGET`] at TRACE level).
pub fn enabled() -> bool {
    tracing::enabled!(target: "verdict::timing", tracing::Level::TRACE)
}

/// Records that `phase` took `elapsed` (on the current thread's task).
pub fn record(phase: &'static str, elapsed: Duration) {
    let task = TASK.with(Cell::get);
    tracing::trace!(target: "verdict::timing", phase, task, us = elapsed.as_micros() as u64);
}

/// A phase being timed: recorded when dropped, if timings were wanted when it started.
#[derive(Debug)]
#[must_use = "a phase is recorded when it is dropped"]
pub struct Phase {
    name: &'static str,
    started: Option<Instant>,
}

impl Phase {
    /// Ends the phase now (the same as dropping it).
    pub fn end(self) {}
}

impl Drop for Phase {
    fn drop(&mut self) {
        if let Some(started) = self.started {
            record(self.name, started.elapsed());
        }
    }
}

/// Starts timing `name`; the clock is read only when timings are wanted.
pub fn phase(name: &'static str) -> Phase {
    Phase {
        name,
        started: enabled().then(Instant::now),
    }
}

/// While alive, the phases recorded on this thread belong to task `index`.
#[derive(Debug)]
#[must_use = "the task is the thread's only while the scope lives"]
pub struct TaskScope {
    previous: i64,
}

impl Drop for TaskScope {
    fn drop(&mut self) {
        let previous = self.previous;
        TASK.with(|t| t.set(previous));
    }
}

/// Marks the phases recorded on this thread as task `index`'s until the scope is dropped.
pub fn task_scope(index: usize) -> TaskScope {
    let index = i64::try_from(index).unwrap_or(i64::MAX);
    TaskScope {
        previous: TASK.with(|t| t.replace(index)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use tracing::field::{Field, Visit};

    /// Collects (phase, task) of every timing event.
    #[derive(Clone, Default)]
    struct Collect(Arc<Mutex<Vec<(String, i64)>>>);

    struct Fields(String, i64);
    impl Visit for Fields {
        fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
        fn record_str(&mut self, field: &Field, value: &str) {
            if field.name() == "phase" {
                self.0 = value.to_owned();
            }
        }
        fn record_i64(&mut self, field: &Field, value: i64) {
            if field.name() == "task" {
                self.1 = value;
            }
        }
    }

    impl tracing::Subscriber for Collect {
        fn enabled(&self, meta: &tracing::Metadata<'_>) -> bool {
            meta.target() == TARGET
        }
        fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
            tracing::span::Id::from_u64(1)
        }
        fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
        fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
        fn event(&self, event: &tracing::Event<'_>) {
            let mut fields = Fields(String::new(), 0);
            event.record(&mut fields);
            self.0.lock().expect("lock").push((fields.0, fields.1));
        }
        fn enter(&self, _: &tracing::span::Id) {}
        fn exit(&self, _: &tracing::span::Id) {}
    }

    #[test]
    fn phases_are_recorded_with_their_task_only_when_wanted() {
        // No subscriber: nothing is measured.
        assert!(!enabled());
        assert!(phase("off").started.is_none());
        let collect = Collect::default();
        tracing::subscriber::with_default(collect.clone(), || {
            assert!(enabled());
            phase("outside").end();
            {
                let _task = task_scope(3);
                phase("inside").end();
            }
            phase("after").end();
        });
        let seen = collect.0.lock().expect("lock").clone();
        assert_eq!(
            seen,
            [
                ("outside".to_owned(), -1),
                ("inside".to_owned(), 3),
                ("after".to_owned(), -1)
            ]
        );
    }
}
