//! Judge0's fourteen statuses (its `app/enumerations/status.rb`) and its mapping of the signal
//! that ended a run to one of the Runtime Error kinds.

use serde::Serialize;

/// A Judge0 status: its id and its description, as `GET /statuses` lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Status {
    /// Judge0's id (1..=14).
    pub id: u8,
    /// Judge0's description (`Accepted`, `Runtime Error (SIGSEGV)`).
    pub description: &'static str,
}

/// 1: waiting for a run slot.
pub const IN_QUEUE: Status = Status::new(1, "In Queue");
/// 2: being compiled or run.
pub const PROCESSING: Status = Status::new(2, "Processing");
/// 3: ran cleanly (and matched `expected_output`, when there is one).
pub const ACCEPTED: Status = Status::new(3, "Accepted");
/// 4: ran cleanly and did not match `expected_output`.
pub const WRONG_ANSWER: Status = Status::new(4, "Wrong Answer");
/// 5: over its CPU or wall time.
pub const TIME_LIMIT_EXCEEDED: Status = Status::new(5, "Time Limit Exceeded");
/// 6: the compiler refused the source.
pub const COMPILATION_ERROR: Status = Status::new(6, "Compilation Error");
/// 7: killed by SIGSEGV.
pub const SIGSEGV: Status = Status::new(7, "Runtime Error (SIGSEGV)");
/// 8: killed by SIGXFSZ (wrote more than `max_file_size`).
pub const SIGXFSZ: Status = Status::new(8, "Runtime Error (SIGXFSZ)");
/// 9: killed by SIGFPE.
pub const SIGFPE: Status = Status::new(9, "Runtime Error (SIGFPE)");
/// 10: killed by SIGABRT.
pub const SIGABRT: Status = Status::new(10, "Runtime Error (SIGABRT)");
/// 11: exited with a non-zero code.
pub const NZEC: Status = Status::new(11, "Runtime Error (NZEC)");
/// 12: killed by another signal.
pub const OTHER: Status = Status::new(12, "Runtime Error (Other)");
/// 13: the judge itself failed.
pub const INTERNAL_ERROR: Status = Status::new(13, "Internal Error");
/// 14: the program could not be executed.
pub const EXEC_FORMAT_ERROR: Status = Status::new(14, "Exec Format Error");

/// Every status, in id order (`GET /statuses`).
pub const ALL: [Status; 14] = [
    IN_QUEUE,
    PROCESSING,
    ACCEPTED,
    WRONG_ANSWER,
    TIME_LIMIT_EXCEEDED,
    COMPILATION_ERROR,
    SIGSEGV,
    SIGXFSZ,
    SIGFPE,
    SIGABRT,
    NZEC,
    OTHER,
    INTERNAL_ERROR,
    EXEC_FORMAT_ERROR,
];

impl Status {
    const fn new(id: u8, description: &'static str) -> Status {
        Status { id, description }
    }

    /// The status of `id`, if Judge0 has one.
    pub fn by_id(id: u8) -> Option<Status> {
        ALL.iter().copied().find(|s| s.id == id)
    }

    /// The Runtime Error a signal stands for, as Judge0's
    /// `find_runtime_error_by_status_code` maps it: 11 SIGSEGV, 25 SIGXFSZ, 8 SIGFPE,
    /// 6 SIGABRT, any other signal Other.
    pub fn of_signal(signal: i32) -> Status {
        match signal {
            11 => SIGSEGV,
            25 => SIGXFSZ,
            8 => SIGFPE,
            6 => SIGABRT,
            _ => OTHER,
        }
    }

    /// Whether a submission with this status is still waiting or running.
    pub fn is_pending(self) -> bool {
        self.id == IN_QUEUE.id || self.id == PROCESSING.id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_judge0s_fourteen_in_id_order() {
        let ids: Vec<u8> = ALL.iter().map(|s| s.id).collect();
        assert_eq!(ids, (1..=14).collect::<Vec<u8>>());
        assert_eq!(
            Status::by_id(11).map(|s| s.description),
            Some("Runtime Error (NZEC)")
        );
    }

    #[test]
    fn signals_map_to_judge0s_runtime_error_kinds() {
        assert_eq!(Status::of_signal(11), SIGSEGV);
        assert_eq!(Status::of_signal(25), SIGXFSZ);
        assert_eq!(Status::of_signal(8), SIGFPE);
        assert_eq!(Status::of_signal(6), SIGABRT);
        assert_eq!(Status::of_signal(9), OTHER);
    }
}
