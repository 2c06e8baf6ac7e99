//! Other sandboxes' wire protocols over verdict's engine (docs/compat.md): a trainer or a
//! platform that already speaks bytedance/SandboxFusion's API changes one URL and is judged by
//! verdict's sandbox, with its limits, accounting and exact peaks.
//!
//! - [`program`]: one program compiled (once for identical sources, across calls, bounded and
//!   content-addressed) and run once in a fresh box, holding one of the judge's run slots.
//! - [`sandbox_fusion`]: SandboxFusion's `POST /run_code`: its request with its defaults, its
//!   statuses, and verdict's verdict beside them in fields its clients ignore.
//! - [`fastapi`]: the `422` a FastAPI server answers for a request that does not fit.
//! - [`piston`]: engineer-man/Piston's API v2 (`/api/v2/runtimes`, `/api/v2/execute`).
//! - [`jobe`]: trampgeek/Jobe's REST API as Moodle's CodeRunner calls it, and its file cache.
//! - [`judge0`]: Judge0 CE's submissions, statuses and language ids, and its replies.
//! - [`toolchains`]: the languages installed here with their versions, which each API's
//!   language list names its own way.
//!
//! No HTTP here: `judge-server` routes these (docs/server.md).
//!
//! ```
//! use verdict_compat::sandbox_fusion::{language, parse_run_code};
//! let request = parse_run_code(br#"{"code": "print(1)", "language": "python"}"#).unwrap();
//! assert_eq!(request.run_timeout, 10.0);
//! assert!(language("sql").is_err());
//! ```

mod error;
pub mod fastapi;
pub mod jobe;
pub mod judge0;
pub mod piston;
pub mod program;
mod request;
pub mod sandbox_fusion;
pub mod toolchains;

pub use error::CompatError;
pub use program::{ProgramOutcome, ProgramRequest, ProgramRunner, StepEnd, StepOutcome};
