//! One module per kind of task, each the glue between its plan item and the scripts crate:
//! fetch the build and the data from the [`SubmissionRun`], hand the run to the executor,
//! and let `verdict_scripts` say what the outcome means. `execute` turns a judge failure
//! into `System Error` with its reason.

mod answer;
mod compare;
mod compile;
mod gtest;
mod interactive;
mod random;
mod special;
mod standard;
mod static_check;
mod valgrind;

use crate::plan::{PlannedTask, TaskKind};
use crate::submission::SubmissionRun;
use verdict_contracts::{JudgeStatus, JudgeTaskResult};

/// Runs a planned task of the submission (blocking) and returns its result.
pub(crate) fn execute(run: &SubmissionRun, task: &PlannedTask) -> JudgeTaskResult {
    let index = task.index;
    let _task = verdict_scripts::timing::task_scope(index);
    let result = match &task.kind {
        TaskKind::Compile { plain, gtest } => compile::compile_task(run, *plain, *gtest),
        TaskKind::Standard(test) => standard::standard_task(run, index, test),
        TaskKind::Random(test, generator) => random::random_task(run, index, test, generator),
        TaskKind::Memory { data, args, limits } => {
            valgrind::memory_task(run, index, *data, args, *limits)
        }
        TaskKind::Gtest {
            datum,
            args,
            limits,
        } => gtest::gtest_task(run, index, *datum, args, *limits),
        TaskKind::Static { limits } => static_check::static_task(run, index, *limits),
        TaskKind::Interactive(test) => interactive::interactive_task(run, index, test),
        TaskKind::Answer(test) => answer::answer_task(run, index, test),
    };
    result.unwrap_or_else(|err| {
        tracing::warn!(sub_id = %run.sub_id(), task = index, "system error: {err}");
        JudgeTaskResult::with_status(JudgeStatus::SystemError, err.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::AssetFetcher;
    use crate::cache::ProblemCache;
    use crate::config::JudgeConfig;
    use crate::plan::JudgePlan;
    use crate::submission::JudgeShared;
    use std::sync::Arc;
    use verdict_contracts::{Submission, parse_submission};
    use verdict_scripts::exec::fake::{FakeExecutor, FakeRun};
    use verdict_scripts::{CancelToken, LanguageProfiles};

    /// A submission: compile, a random test, a standard test on datum 0 with diff-all.
    fn submission() -> Submission {
        let c = |text: &str| {
            serde_json::json!({"type": "source_code", "language": "c",
                "source_files": [{"type": "text", "name": "main.c", "text": text}]})
        };
        let text = serde_json::json!({
            "sub_type": "programming", "category": "unit", "prob_id": "p", "sub_id": "fake-1",
            "updated_at": 1,
            "judge_tasks": [
                {"check_script": "compile", "depends_on": -1, "time_limit": 10000},
                {"check_script": "standard", "run_script": "standard",
                 "compare_script": "diff-ign-space", "is_random": true, "testcase_id": -1,
                 "depends_on": 0, "depends_cond": "ACCEPTED", "time_limit": 1000},
                {"check_script": "standard", "run_script": "standard",
                 "compare_script": "diff-all", "testcase_id": 0, "depends_on": 0,
                 "depends_cond": "ACCEPTED", "time_limit": 1000, "run_args": ["--fast"]}
            ],
            "test_data": [{"inputs": [{"type": "text", "name": "testdata.in", "text": "2 2\n"}],
                           "outputs": [{"type": "text", "name": "testdata.out", "text": "4\n"}]}],
            "submission": c("int main(void) { return 0; }"),
            "standard": c("int main(void) { return 0; }"),
            "random": c("int main(void) { return 0; }")
        });
        parse_submission(&text.to_string())
            .expect("valid submission")
            .into_inner()
    }

    /// What the tasks of `submission()` share, on a fake executor answering with `runs`.
    fn shared_with(dir: &std::path::Path, runs: Vec<FakeRun>) -> (JudgeShared, Arc<FakeExecutor>) {
        let config = JudgeConfig {
            work_dir: dir.join("work"),
            cache_dir: dir.join("cache"),
            ..JudgeConfig::default()
        };
        std::fs::create_dir_all(&config.work_dir).expect("work dir");
        let fake = Arc::new(FakeExecutor::new(runs));
        let shared = JudgeShared {
            executor: fake.clone(),
            profiles: LanguageProfiles::builtin().expect("profiles"),
            cache: ProblemCache::open(&config.cache_dir, 1 << 30).expect("cache"),
            assets: AssetFetcher::new(&[], config.remote.clone()).expect("no local roots"),
            permits: crate::slots::Slots::new(1),
            work_root: config.work_dir.clone(),
            work_root_recreated: Default::default(),
            config,
        };
        (shared, fake)
    }

    #[test]
    fn prefilled_data_is_found_without_filling_or_looking_up_again() {
        let dir = tempfile::tempdir().expect("dir");
        let (shared, _) = shared_with(dir.path(), Vec::new());
        let run =
            SubmissionRun::new(Arc::new(shared), submission(), CancelToken::new()).expect("run");
        run.prefill_data(&[0]);
        let filled = run.datum_files(0).expect("datum 0");
        let stdin = filled.stdin.as_deref().expect("testdata.in is stdin");
        assert_eq!(std::fs::read_to_string(stdin).expect("input"), "2 2\n");
        let stats = run.cache_stats();
        assert_eq!(
            (stats.misses, stats.hits),
            (1, 0),
            "one fill, no second look-up"
        );
    }

    /// Runs the planned tasks in order, on a fake executor answering with `runs`.
    fn judge_with(runs: Vec<FakeRun>) -> (Vec<JudgeTaskResult>, Vec<Vec<String>>) {
        let dir = tempfile::tempdir().expect("dir");
        let (shared, fake) = shared_with(dir.path(), runs);
        let submission = submission();
        let plan = JudgePlan::new(&submission, &shared.config);
        let run =
            SubmissionRun::new(Arc::new(shared), submission, CancelToken::new()).expect("run");
        let results = plan.tasks.iter().map(|t| execute(&run, t)).collect();
        let commands = fake.commands.lock().expect("commands").clone();
        (results, commands)
    }

    #[test]
    fn tasks_run_through_the_executor_with_their_planned_data_and_args() {
        let (results, commands) = judge_with(vec![
            FakeRun::exited(0, "1 2\n"), // random, with the seed
            FakeRun::exited(0, "3\n"),   // standard on the random input
            FakeRun::exited(0, "3\n"),   // the submission on it: Accepted
            FakeRun::exited(0, "4 \n"),  // the submission on datum 0: diff-all says PE
        ]);
        let seed = crate::plan::random_seed("fake-1", 1);
        let statuses: Vec<_> = results.iter().map(|r| r.status).collect();
        assert_eq!(
            statuses,
            [
                JudgeStatus::Accepted,
                JudgeStatus::Accepted,
                JudgeStatus::PresentationError
            ],
            "{results:?}"
        );
        assert_eq!(
            results[1].error_log,
            format!("random input: seed {seed} (generator: ./main {seed})")
        );
        let seed = seed.to_string();
        assert_eq!(
            commands,
            [
                vec!["./main", seed.as_str()],
                vec!["./main"],
                vec!["./main"],
                vec!["./main", "--fast"],
            ]
        );
    }

    #[test]
    fn a_failing_generator_is_random_gen_error_with_its_seed() {
        let (results, _) = judge_with(vec![
            FakeRun::exited(1, ""),    // random fails
            FakeRun::exited(0, "4\n"), // the standard test still runs
        ]);
        assert_eq!(results[1].status, JudgeStatus::RandomGenError);
        let seed = crate::plan::random_seed("fake-1", 1);
        assert!(
            results[1].error_log.ends_with(&format!(
                "random input: seed {seed} (generator: ./main {seed})"
            )),
            "{}",
            results[1].error_log
        );
        assert_eq!(results[2].status, JudgeStatus::Accepted);
    }
    /// Answer tests of a program-output question (`sub_type: "output"`) whose files are its
    /// answers (nothing to compile or run).
    fn answers() -> Submission {
        let task = |datum: i64, file: &str, compare: &str| {
            serde_json::json!({"check_script": "standard", "run_script": "answer",
                "compare_script": compare, "testcase_id": datum, "answer_file": file,
                "depends_on": -1, "time_limit": 1000})
        };
        let mut limited = task(0, "big.txt", "diff-ign-space");
        limited["file_limit"] = serde_json::json!(1);
        let mut tolerant = task(1, "out/2.txt", "icpc-default");
        tolerant["validator_flags"] = serde_json::json!(["float_tolerance", "1e-6"]);
        let file = |name: &str, text: &str| serde_json::json!({"type": "text", "name": name, "text": text});
        let datum =
            |out: &str| serde_json::json!({"inputs": [], "outputs": [file("testdata.out", out)]});
        let text = serde_json::json!({
            "sub_type": "output", "category": "unit", "prob_id": "answers", "sub_id": "answers-1",
            "updated_at": 1,
            "judge_tasks": [task(0, "out/1.txt", "diff-ign-space"), tolerant,
                task(0, "missing.txt", "diff-ign-space"), limited, task(0, "wrong.txt", "diff-all")],
            "test_data": [datum("42\n"), datum("3.14159265\n")],
            "submission": {"type": "source_code", "language": "bash", "source_files": [
                file("out/1.txt", "42"), file("wrong.txt", "24\n")],
                "assist_files": [file("out/2.txt", "3.1415926\n"), file("big.txt", &"4".repeat(2000))]}
        });
        parse_submission(&text.to_string())
            .expect("valid submission")
            .into_inner()
    }

    #[test]
    fn answer_tests_compare_the_submitted_files_and_run_nothing() {
        let dir = tempfile::tempdir().expect("dir");
        let (shared, fake) = shared_with(dir.path(), Vec::new());
        let submission = answers();
        let plan = JudgePlan::new(&submission, &shared.config);
        let run =
            SubmissionRun::new(Arc::new(shared), submission, CancelToken::new()).expect("run");
        let results: Vec<_> = plan.tasks.iter().map(|t| execute(&run, t)).collect();
        let statuses: Vec<_> = results.iter().map(|r| r.status).collect();
        assert_eq!(
            statuses,
            [
                JudgeStatus::Accepted,
                JudgeStatus::Accepted,
                JudgeStatus::WrongAnswer,
                JudgeStatus::OutputLimitExceeded,
                JudgeStatus::WrongAnswer,
            ],
            "{results:?}"
        );
        assert_eq!(
            results[2].error_log,
            r#"no answer: the submission has no file named "missing.txt""#
        );
        assert!(
            results[3].error_log.contains("2000 bytes"),
            "{}",
            results[3].error_log
        );
        let diff = results[4].diff.as_deref().expect("a wrong answer's diff");
        assert!(format!("{diff:?}").contains("24"), "{diff:?}");
        assert!(fake.commands.lock().expect("commands").is_empty());
    }
}
