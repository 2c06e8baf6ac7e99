//! Building a [`ProgramRequest`]: what the Jobe, Piston, Judge0 and SandboxFusion requests
//! give differently (the sources, the limits, and whichever of input, files, arguments they
//! carry) set over one base, so each protocol names only what it has.

use crate::ProgramRequest;
use verdict_contracts::Language;
use verdict_scripts::{CompileLimits, RunLimits};

impl ProgramRequest {
    /// A program of `owner` in `language` from `sources` (the first is the main file),
    /// compiled within `compile` and run within `run`: no input, files, arguments or files
    /// read back, no syntax check as its compile step, the profile's own compiler and
    /// interpreter arguments. A protocol sets what its request gives beyond that.
    pub fn new(
        owner: &str,
        language: Language,
        sources: Vec<(String, Vec<u8>)>,
        compile: CompileLimits,
        run: RunLimits,
    ) -> ProgramRequest {
        ProgramRequest {
            owner: owner.to_string(),
            language,
            sources,
            files: Vec::new(),
            stdin: Vec::new(),
            args: Vec::new(),
            compile,
            run,
            fetch: Vec::new(),
            check_syntax: false,
            compile_args: Vec::new(),
            interpreter_args: Vec::new(),
            compile_files: Vec::new(),
        }
    }
}
