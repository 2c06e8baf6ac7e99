//! What a token bound to a category may reach beyond its own submissions: which
//! Agent Lab runners, which `local` asset files, and which category a Submission embedded in a
//! lab task may name. A token bound to no category (the operator's) may do everything.
//!
//! - **Lab runners.** A category token runs, by default, only the built-in judged task types
//!   (`function`, `script`, `cli`, `programming`: the submitted code runs in the sandbox, as a
//!   Submission's does). Runners from `[lab.runners]` (agents started as the server's user, HTTP
//!   agents) need the token's `lab_runners` to list them (`["*"]`: all).
//! - **Local assets.** A category token's Submissions read `local` assets only under
//!   `<local root>/<category>/` (each tenant's test data apart), unless the token has
//!   `shared_local_roots = true`. The path is resolved (links and `..` followed) before the check,
//!   as the judge resolves it before reading.
//! - **Submissions inside lab tasks.** A `programming` lab task judges the Submission in its
//!   `input`: for a category token it must carry the token's category and obey the local-asset
//!   rule, and a scenario may not build such an input from other steps' outputs (`input_map`),
//!   which could not be checked before it runs.

use crate::auth::Caller;
use crate::error::ApiError;
use crate::state::AppState;
use std::path::{Path, PathBuf};
use verdict_contracts::{Asset, AssetKind, AtomicTask, Submission, Valid, submission_from_value};
use verdict_lab::LabTask;

/// The `local` assets of a Submission, with the field naming each.
fn local_assets(submission: &Submission) -> Vec<(String, &Asset)> {
    fn push<'a>(found: &mut Vec<(String, &'a Asset)>, field: String, assets: &'a [Asset]) {
        for (i, asset) in assets.iter().enumerate() {
            if asset.kind == AssetKind::Local {
                found.push((format!("{field}[{i}].path"), asset));
            }
        }
    }
    let mut found = Vec::new();
    for (i, datum) in submission.test_data.iter().enumerate() {
        push(&mut found, format!("test_data[{i}].inputs"), &datum.inputs);
        push(
            &mut found,
            format!("test_data[{i}].outputs"),
            &datum.outputs,
        );
    }
    let programs = [
        ("submission", Some(&submission.submission)),
        ("standard", submission.standard.as_ref()),
        ("random", submission.random.as_ref()),
        ("compare", submission.compare.as_ref()),
    ];
    for (name, program) in programs {
        if let Some(program) = program {
            let source = program.source();
            push(
                &mut found,
                format!("{name}.source_files"),
                &source.source_files,
            );
            push(
                &mut found,
                format!("{name}.assist_files"),
                &source.assist_files,
            );
        }
    }
    found
}

/// Checks that every `local` asset of `submission` lies under `<root>/<category>/` for one of
/// `roots` (the judge's `local_roots`) when `caller` is bound to a category and does not share
/// the roots. Blocking (it resolves paths): call it on a blocking thread.
pub fn check_local_assets(
    caller: &Caller,
    roots: &[PathBuf],
    submission: &Submission,
) -> Result<(), ApiError> {
    let Some(category) = caller.category.as_deref() else {
        return Ok(());
    };
    if caller.shared_local_roots {
        return Ok(());
    }
    let allowed: Vec<PathBuf> = roots
        .iter()
        .filter_map(|root| root.join(category).canonicalize().ok())
        .collect();
    for (field, asset) in local_assets(submission) {
        let path = asset.path.as_deref().unwrap_or_default();
        let inside = Path::new(path)
            .canonicalize()
            .is_ok_and(|p| allowed.iter().any(|dir| p.starts_with(dir)));
        if !inside {
            return Err(ApiError::Forbidden {
                message: format!(
                    "{field}: this token reads local assets only under <local root>/{category}/ (not {path:?})"
                ),
                field,
            });
        }
    }
    Ok(())
}

/// [`check_local_assets`] on a blocking thread, for `state`'s local roots; gives the submission
/// back.
pub async fn allow_local_assets(
    state: &AppState,
    caller: &Caller,
    submission: Valid<Submission>,
) -> Result<Valid<Submission>, ApiError> {
    if caller.category.is_none() || caller.shared_local_roots {
        return Ok(submission);
    }
    let (caller, roots) = (caller.clone(), state.local_roots());
    tokio::task::spawn_blocking(move || {
        check_local_assets(&caller, &roots, &submission).map(|()| submission)
    })
    .await
    .map_err(|e| ApiError::Internal(format!("local asset check: {e}")))?
}

/// The atomic tasks a lab task runs, with the field naming each one's `type`.
fn atomic_tasks(task: &LabTask) -> Vec<(String, &AtomicTask)> {
    match task {
        LabTask::Atomic(atomic) => vec![("type".to_owned(), atomic)],
        LabTask::Scenario(scenario) => scenario
            .steps
            .iter()
            .enumerate()
            .map(|(i, step)| (format!("steps[{i}].type"), step))
            .collect(),
    }
}

/// Checks that `caller` may run every runner `task` needs, and that the Submissions a
/// `programming` task judges are its own category's; returns those Submissions (their local
/// assets still to be checked with [`check_local_assets`]).
pub fn check_lab_task(
    caller: &Caller,
    task: &LabTask,
    built_in: &[&str],
) -> Result<Vec<Valid<Submission>>, ApiError> {
    let Some(category) = caller.category.as_deref() else {
        return Ok(Vec::new());
    };
    let mut submissions = Vec::new();
    for (field, atomic) in atomic_tasks(task) {
        if !caller.may_run(&atomic.kind, built_in) {
            return Err(ApiError::Forbidden {
                message: format!(
                    "{field}: this token may not run {:?} tasks (its lab_runners do not list it)",
                    atomic.kind
                ),
                field,
            });
        }
        if atomic.kind != "programming" {
            continue;
        }
        let input_field = field.replace("type", "input");
        if let LabTask::Scenario(scenario) = task
            && scenario
                .input_map
                .get(&atomic.id)
                .is_some_and(|maps| !maps.is_empty())
        {
            return Err(ApiError::Forbidden {
                message: format!(
                    "input_map.{}: a token bound to a category may not build a programming step's Submission from other steps",
                    atomic.id
                ),
                field: format!("input_map.{}", atomic.id),
            });
        }
        // An input that is no Submission fails the run itself, naming the field.
        if let Ok(submission) = submission_from_value(&atomic.input) {
            if submission.category != category {
                return Err(ApiError::Forbidden {
                    message: format!(
                        "{input_field}.category: this token may judge only as {category:?}, not {:?}",
                        submission.category
                    ),
                    field: format!("{input_field}.category"),
                });
            }
            submissions.push(submission);
        }
    }
    Ok(submissions)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn submission_reading(path: &Path) -> Submission {
        let mut submission = verdict_contracts::parse_submission(
            r#"{"sub_type": "programming", "category": "alpha", "prob_id": "p", "sub_id": "s",
            "updated_at": 1,
            "judge_tasks": [{"check_script": "compile", "depends_on": -1, "time_limit": 1000}],
            "test_data": [{"inputs": [{"type": "text", "name": "testdata.in", "text": "1"}],
                           "outputs": [{"type": "text", "name": "testdata.out", "text": "1"}]}],
            "submission": {"type": "source_code", "language": "c",
              "source_files": [{"type": "text", "name": "main.c", "text": "int main(){}"}]}}"#,
        )
        .unwrap()
        .into_inner();
        let output = &mut submission.test_data[0].outputs[0];
        output.kind = AssetKind::Local;
        output.text = None;
        output.path = Some(path.to_string_lossy().into_owned());
        submission
    }

    #[test]
    fn a_category_token_reads_local_assets_only_under_its_category() {
        let root = tempfile::tempdir().unwrap();
        for category in ["alpha", "beta"] {
            std::fs::create_dir(root.path().join(category)).unwrap();
            std::fs::write(root.path().join(category).join("1.out"), "secret").unwrap();
        }
        std::os::unix::fs::symlink(
            root.path().join("beta/1.out"),
            root.path().join("alpha/link.out"),
        )
        .unwrap();
        let roots = [root.path().to_owned()];
        let alpha = Caller {
            category: Some("alpha".into()),
            ..Caller::default()
        };
        let check = |caller: &Caller, path: &Path| {
            check_local_assets(caller, &roots, &submission_reading(path))
        };
        assert!(check(&alpha, &root.path().join("alpha/1.out")).is_ok());
        for path in ["beta/1.out", "alpha/../beta/1.out", "alpha/link.out"] {
            let err = check(&alpha, &root.path().join(path)).unwrap_err();
            assert!(
                matches!(&err, ApiError::Forbidden { field, .. } if field == "test_data[0].outputs[0].path"),
                "{path}: {err:?}"
            );
        }
        let shared = Caller {
            shared_local_roots: true,
            ..alpha.clone()
        };
        assert!(check(&shared, &root.path().join("beta/1.out")).is_ok());
        assert!(check(&Caller::default(), &root.path().join("beta/1.out")).is_ok());
    }
}
