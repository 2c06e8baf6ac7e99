//! verdict-packages: problem packages read into verdict's plan.
//!
//! Codeforces Polygon packages (`problem.xml`) are read by [`polygon::load`] into the same
//! [`Problem`]; [`polygon::load_any`] reads either.
//!
//! A package (the ICPC / Kattis problem package format: legacy, 2023-07, 2025-09) is read once
//! into a [`Problem`] ([`kattis::load`]): its kind, limits, test groups with their settings,
//! validators and reference submissions. [`plan::submission`] turns a problem and a program
//! into a `Submission` (the wire format, so a package can go to `judge run`, `judge-server`,
//! the queue and the page), and [`grade`] turns a judged report back into the package's
//! verdict and score (the format's default grader: groups, aggregation, ranges).
//! What cannot be supported is refused at load ([`PackageError::Unsupported`], naming the
//! file and key), never judged wrongly. docs/packages.md gives the mapping table by table.
//!
//! ```no_run
//! # fn main() -> Result<(), verdict_packages::PackageError> {
//! let problem = verdict_packages::kattis::load(std::path::Path::new("hello"))?;
//! for reference in &problem.submissions {
//!     if let Ok(program) = &reference.program {
//!         let submission = verdict_packages::plan::submission(&problem, program, &reference.name, 1000)?;
//!         println!("{}", serde_json::to_string(&submission).unwrap_or_default());
//!     }
//! }
//! # Ok(())
//! # }
//! ```

mod error;
pub mod grade;
pub mod kattis;
pub mod plan;
pub mod polygon;
pub mod problem;
pub mod timing;

pub use error::PackageError;
pub use problem::{
    Case, CaseConfig, Expected, Group, GroupScoring, Item, Kind, Problem, Reference, Runnable,
    ScoreAggregation, Settings, SpecScoring, TimeLimitUse, ValidatorArgs,
};
