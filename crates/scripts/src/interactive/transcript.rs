//! A bounded transcript of an interactive exchange: the first and the last messages with their
//! timing, and counts of everything, whatever the two sides send.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::time::Duration;
use verdict_compare::escape_bytes;

/// Messages kept at the start and at the end of an exchange.
pub const KEPT: usize = 8;
/// Bytes of each kept message shown.
pub const SHOWN_BYTES: usize = 64;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From the interactor to the program (the program's stdin).
    ToProgram,
    /// From the program to the interactor (the program's stdout).
    ToInteractor,
}

/// One message: what one read of the relay got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Which way it went.
    pub direction: Direction,
    /// When the relay read it, since the exchange began.
    pub at: Duration,
    /// Its length in bytes.
    pub len: usize,
    /// Its first [`SHOWN_BYTES`] bytes.
    pub head: Vec<u8>,
}

/// The first and last [`KEPT`] messages and the totals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transcript {
    first: Vec<Message>,
    last: VecDeque<Message>,
    /// Messages in all.
    pub messages: u64,
    /// Bytes the program sent the interactor.
    pub program_bytes: u64,
    /// Bytes the interactor sent the program.
    pub interactor_bytes: u64,
}

impl Transcript {
    /// Records one message.
    pub fn record(&mut self, direction: Direction, at: Duration, bytes: &[u8]) {
        self.messages += 1;
        match direction {
            Direction::ToInteractor => self.program_bytes += bytes.len() as u64,
            Direction::ToProgram => self.interactor_bytes += bytes.len() as u64,
        }
        let message = Message {
            direction,
            at,
            len: bytes.len(),
            head: bytes[..bytes.len().min(SHOWN_BYTES)].to_vec(),
        };
        if self.first.len() < KEPT {
            self.first.push(message);
            return;
        }
        if self.last.len() == KEPT {
            self.last.pop_front();
        }
        self.last.push_back(message);
    }

    /// The kept messages, in order, with how many were left out between the two ends.
    pub fn kept(&self) -> (&[Message], u64, Vec<&Message>) {
        let left_out = self.messages - (self.first.len() + self.last.len()) as u64;
        (&self.first, left_out, self.last.iter().collect())
    }

    /// The transcript as text for `error_log` (at most ~3 KiB).
    pub fn render(&self) -> String {
        let mut out = format!(
            "transcript: {} messages; the program sent {} bytes, the interactor {}",
            self.messages, self.program_bytes, self.interactor_bytes
        );
        let line = |out: &mut String, m: &Message| {
            let arrow = match m.direction {
                Direction::ToProgram => "interactor -> program",
                Direction::ToInteractor => "program -> interactor",
            };
            let more = if m.len > m.head.len() {
                format!(" (+{} bytes)", m.len - m.head.len())
            } else {
                String::new()
            };
            let _ = write!(
                out,
                "\n  {:>9.3} ms  {arrow}  \"{}\"{more}",
                m.at.as_secs_f64() * 1000.0,
                escape_bytes(&m.head)
            );
        };
        let (first, left_out, last) = self.kept();
        for m in first {
            line(&mut out, m);
        }
        if left_out > 0 {
            let _ = write!(out, "\n  ... {left_out} more messages ...");
        }
        for m in last {
            line(&mut out, m);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_exchange_keeps_its_first_and_last_messages_and_counts_the_rest() {
        let mut t = Transcript::default();
        for i in 0..100u64 {
            let dir = if i % 2 == 0 {
                Direction::ToProgram
            } else {
                Direction::ToInteractor
            };
            t.record(
                dir,
                Duration::from_micros(i * 10),
                format!("{i}\n").as_bytes(),
            );
        }
        let (first, left_out, last) = t.kept();
        assert_eq!(first.len(), KEPT);
        assert_eq!(last.len(), KEPT);
        assert_eq!(left_out, 100 - 2 * KEPT as u64);
        assert_eq!(first[0].head, b"0\n");
        assert_eq!(last[KEPT - 1].head, b"99\n");
        let text = t.render();
        assert!(text.contains("100 messages"), "{text}");
        assert!(text.contains("... 84 more messages ..."), "{text}");
        assert!(text.contains("\"99\\n\""), "{text}");
        assert!(text.len() < 3 * 1024, "{}", text.len());
    }

    #[test]
    fn a_flood_shows_only_the_head_of_each_message() {
        let mut t = Transcript::default();
        t.record(Direction::ToInteractor, Duration::ZERO, &[b'x'; 65536]);
        assert_eq!(t.program_bytes, 65536);
        assert!(t.render().contains("(+65472 bytes)"), "{}", t.render());
    }
}
