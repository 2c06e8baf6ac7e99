//! The caps on open event streams: per submission (or batch) and per token, so readers that
//! never read cannot pile up (each holds a connection and its cursor, nothing more).

use crate::auth::Caller;
use crate::error::ApiError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The event streams open now, by what they read and by token.
#[derive(Debug, Default)]
pub struct Streams {
    open: Mutex<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    by_subject: HashMap<String, usize>,
    by_token: HashMap<Option<usize>, usize>,
}

/// One open stream, counted until dropped (when its response body ends or its client goes).
#[derive(Debug)]
pub struct StreamSlot {
    streams: Arc<Streams>,
    subject: String,
    token: Option<usize>,
}

impl Streams {
    /// Counts a stream of `subject` (a submission's or batch's key) opened by `caller`, or
    /// refuses it with 429 naming the cap it would pass.
    pub fn open(
        self: &Arc<Self>,
        subject: String,
        caller: &Caller,
        per_subject: usize,
        per_token: usize,
    ) -> Result<StreamSlot, ApiError> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let busy = |message: String| ApiError::Busy {
            message,
            retry_after_secs: 5,
        };
        if open.by_subject.get(&subject).copied().unwrap_or(0) >= per_subject {
            return Err(busy(format!(
                "{per_subject} event streams are open on this one already \
                 (max_streams_per_submission); retry later"
            )));
        }
        if open.by_token.get(&caller.token).copied().unwrap_or(0) >= per_token {
            return Err(busy(format!(
                "this token has {per_token} event streams open already \
                 (max_streams_per_token); close one or retry later"
            )));
        }
        *open.by_subject.entry(subject.clone()).or_default() += 1;
        *open.by_token.entry(caller.token).or_default() += 1;
        Ok(StreamSlot {
            streams: self.clone(),
            subject,
            token: caller.token,
        })
    }

    /// Streams open now (all subjects).
    pub fn count(&self) -> usize {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.by_token.values().sum()
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self.streams.open.lock().unwrap_or_else(|e| e.into_inner());
        let Counts {
            by_subject,
            by_token,
        } = &mut *open;
        if let Some(n) = by_subject.get_mut(&self.subject) {
            *n -= 1;
            if *n == 0 {
                by_subject.remove(&self.subject);
            }
        }
        if let Some(n) = by_token.get_mut(&self.token) {
            *n -= 1;
            if *n == 0 {
                by_token.remove(&self.token);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_capped_per_subject_and_per_token_and_freed_on_drop() {
        let streams = Arc::new(Streams::default());
        let alice = Caller {
            token: Some(0),
            ..Caller::default()
        };
        let bob = Caller {
            token: Some(1),
            ..Caller::default()
        };
        let a1 = streams.open("s1".into(), &alice, 2, 3).unwrap();
        let _a2 = streams.open("s1".into(), &alice, 2, 3).unwrap();
        let err = streams.open("s1".into(), &bob, 2, 3).unwrap_err();
        assert!(
            format!("{err:?}").contains("max_streams_per_submission"),
            "{err:?}"
        );
        let _a3 = streams.open("s2".into(), &alice, 2, 3).unwrap();
        let err = streams.open("s3".into(), &alice, 2, 3).unwrap_err();
        assert!(
            format!("{err:?}").contains("max_streams_per_token"),
            "{err:?}"
        );
        assert!(streams.open("s3".into(), &bob, 2, 3).is_ok());
        drop(a1);
        assert!(streams.open("s1".into(), &bob, 2, 3).is_ok());
        // (The slots opened in the asserts are dropped at once: a2 and a3 are left.)
        assert_eq!(streams.count(), 2);
    }
}
