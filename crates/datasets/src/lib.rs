//! Public code-generation datasets read exactly as they are published, and their samples judged
//! in verdict's sandbox (`judge eval`, design #26 and #27, docs/datasets.md).
//!
//! A reader per format turns each record into a [`Problem`]: assertion scripts (HumanEval,
//! MBPP, HumanEval+), function calls (LiveCodeBench functional, APPS/TACO with `fn_name`,
//! `verification_info`'s `function_call`; MBPP+'s inputs against its reference solution, see
//! [`resolve_reference`]) or stdin/stdout tests (LiveCodeBench stdin,
//! APPS/TACO, CodeContests, `verification_info`'s `stdin_stdout`), or programs in the record's
//! own language (HumanEval-X, MultiPL-E, MBXP, `verification_info` in C++, Rust or
//! JavaScript: [`program`], built once per sample with verdict's language profiles, a nonce
//! harness deciding what passed). A test whose record is
//! ambiguous is `invalid_test_format` naming the record and the field; nothing is guessed.
//! [`evaluate`] judges a problem's samples as one batch (`verdict_scheduler::BatchJudge`), each
//! in a box of its own; values are compared outside the box.
//!
//! ```
//! use verdict_datasets::{Format, Tests, jsonl::parse_records};
//! let text = concat!(
//!     r#"{"task_id": "HumanEval/0", "prompt": "def f():\n", "entry_point": "f", "#,
//!     r#""canonical_solution": "    return 1\n", "test": "def check(c):\n    assert c() == 1\n"}"#,
//! );
//! let records = parse_records("HumanEval.jsonl".as_ref(), text)?;
//! let format = Format::detect(&records[0]).unwrap();
//! let problem = format.read("HumanEval.jsonl".as_ref(), 0, &records[0])?;
//! assert!(matches!(problem.tests, Tests::Assertion(_)));
//! # Ok::<(), verdict_datasets::Error>(())
//! ```

mod apps;
pub mod batch;
mod cases;
mod codecontests;
mod dataset;
mod error;
mod eval;
mod format;
mod humaneval;
mod humaneval_x;
pub mod jsonl;
mod livecodebench;
mod mbpp;
mod mbxp;
mod multiple;
mod problem;
pub mod program;
mod read;
mod result;
mod runs;
pub mod samples;
mod verification;

pub use batch::{DatasetBatchJudge, JudgeableBatch};
pub use dataset::Dataset;
pub use error::Error;
pub use eval::{EvalOptions, evaluate, resolve_reference};
pub use format::Format;
pub use jsonl::read_records;
pub use livecodebench::decode_private_test_cases;
pub use problem::{
    AssertionTests, CallStyle, Case, FunctionCase, FunctionTests, HumanEvalXTest, InvalidCase,
    Limits, MbxpTest, MultiPleTest, Problem, ProgramKind, ProgramTests, ReferenceTests, StdioCase,
    StdioTests, Tests, UnsupportedTests,
};
pub use result::{SampleResult, SampleStatus, TestOutcome};
pub use samples::{Sample, SampleCode};
pub use verdict_contracts::batch::InfraError;
