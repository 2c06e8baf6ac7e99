//! The judge's own failures, told apart from the candidate's (design #27): a `System Error`
//! task, a sandbox or I/O error of the oracle, a missing toolchain or interpreter. Each becomes
//! `infra_error`, which a trainer drops instead of scoring.

use verdict_contracts::batch::InfraError;
use verdict_contracts::{JudgeStatus, JudgeTaskResult, Language};
use verdict_oracle::{Interpreters, OracleError};
use verdict_scripts::toolchain::find_program;
use verdict_scripts::{LanguageProfiles, missing_programs, not_installed_message};

/// The first `System Error` among a program's task results: the host, the sandbox, the cache
/// or a fetch failed (retryable: another attempt, or another worker, may succeed).
pub(crate) fn infra_of_results(results: &[JudgeTaskResult]) -> Option<InfraError> {
    results
        .iter()
        .find(|r| r.status == JudgeStatus::SystemError)
        .map(|r| InfraError {
            message: r.error_log.clone(),
            retryable: true,
        })
}

/// An oracle error that is the judge's (the sandbox, its own files); `None` for a suite-shape
/// error, which is the candidate's (e.g. a function module with the wrong extension).
pub(crate) fn infra_of_oracle(err: &OracleError) -> Option<InfraError> {
    match err {
        OracleError::Suite(_) => None,
        OracleError::Sandbox(_) | OracleError::Io { .. } => Some(InfraError {
            message: err.to_string(),
            retryable: true,
        }),
    }
}

/// Why a programming candidate in `language` cannot be judged on this host, if it cannot: no
/// profile, or its toolchain is not installed (not retryable here).
pub(crate) fn toolchain_missing(
    profiles: &LanguageProfiles,
    language: Language,
) -> Option<InfraError> {
    let Some(profile) = profiles.get(language) else {
        return Some(InfraError {
            message: format!("language {language} has no profile on this judge"),
            retryable: false,
        });
    };
    let missing = missing_programs(profile);
    (!missing.is_empty()).then(|| InfraError {
        message: not_installed_message(language, profile, &missing),
        retryable: false,
    })
}

/// Why a suite candidate in `language` cannot be judged on this host, if it cannot: the
/// oracle's interpreter for it is not installed (not retryable here).
pub(crate) fn interpreter_missing(
    interpreters: &Interpreters,
    language: Language,
) -> Option<InfraError> {
    let program = interpreters.command(language)?.first()?;
    find_program(program).is_none().then(|| InfraError {
        message: format!("the {language} interpreter {program} is not installed on this judge"),
        retryable: false,
    })
}
