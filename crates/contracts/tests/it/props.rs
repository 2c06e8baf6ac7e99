//! Property tests: generated wire values survive a trip through JSON text unchanged; parsing
//! and validating arbitrary requests never panics; paths print as they parse.

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Map, Value};
use verdict_contracts::{
    Asset, AssetKind, AtomicTask, CheckScript, CompareScript, DataPath, DependsCond, Evidence,
    GoogleTestFailureCase, GoogleTestReport, InputMapping, JudgeReport, JudgeStatus, JudgeTask,
    JudgeTaskResult, Language, MemoryError, MemoryReport, PathSegment, PriorityCount, Program,
    RequestError, RunError, RunMetrics, RunRecord, RunScript, RunStatus, ScenarioTask, Score,
    ScoreRecord, ScoreTarget, ScoreValue, SourceCode, StackFrame, StaticReport, StaticSummary,
    StepStatus, StepSummary, SubType, Submission, TaskMetadata, TaskReport, TaskType, TestDatum,
    Timestamp, TraceEvent, TraceLevel, Violation, parse_submission,
};

fn text() -> impl Strategy<Value = String> {
    "\\PC{0,10}"
}

fn name() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_./-]{0,12}"
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        text().prop_map(Value::from),
    ]
}

fn json_map() -> impl Strategy<Value = Map<String, Value>> {
    proptest::collection::btree_map(name(), json_leaf(), 0..3).prop_map(|m| m.into_iter().collect())
}

fn json_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        json_leaf(),
        vec(json_leaf(), 0..3).prop_map(Value::from),
        json_map().prop_map(Value::Object),
    ]
}

/// A float whose shortest decimal form parses back exactly.
fn decimal() -> impl Strategy<Value = f64> {
    (-10_000_000i64..10_000_000, 0i32..4).prop_map(|(n, k)| n as f64 / 10f64.powi(k))
}

fn timestamp() -> impl Strategy<Value = Timestamp> {
    (0i64..4_000_000_000, 0i32..1_000_000_000)
        .prop_map(|(s, ns)| Timestamp(jiff::Timestamp::new(s, ns).unwrap()))
}

fn asset() -> impl Strategy<Value = Asset> {
    (
        select(vec![AssetKind::Text, AssetKind::Remote, AssetKind::Local]),
        name(),
        option::of(text()),
        option::of(text()),
        option::of(text()),
    )
        .prop_map(|(kind, name, text, url, path)| Asset {
            kind,
            name,
            text,
            url,
            path,
        })
}

fn program() -> impl Strategy<Value = Program> {
    (
        select(Language::ALL.to_vec()),
        option::of(name()),
        vec(asset(), 0..3),
        vec(asset(), 0..2),
        option::of(vec(text(), 0..3)),
    )
        .prop_map(
            |(language, entry_point, source_files, assist_files, compile_command)| {
                Program::SourceCode(SourceCode {
                    language,
                    entry_point,
                    source_files,
                    assist_files,
                    compile_command,
                })
            },
        )
}

fn judge_task() -> impl Strategy<Value = JudgeTask> {
    let scripts = (
        select(vec![
            CheckScript::Compile,
            CheckScript::Standard,
            CheckScript::Static,
        ]),
        option::of(select(vec![
            RunScript::Standard,
            RunScript::Gtest,
            RunScript::Valgrind,
            RunScript::Interactive,
        ])),
        option::of(select(vec![
            CompareScript::DiffIgnSpace,
            CompareScript::DiffAll,
            CompareScript::Valgrind,
            CompareScript::Gtest,
            CompareScript::Custom,
            CompareScript::IcpcDefault,
        ])),
        any::<bool>(),
        option::of(-3i64..10),
        -3i64..8,
    );
    let limits = (
        option::of(select(vec![
            DependsCond::Accepted,
            DependsCond::NotTimeLimit,
            DependsCond::PartialCorrect,
        ])),
        option::of(any::<i64>()),
        any::<i64>(),
        option::of(any::<i64>()),
        option::of(-2i64..12),
        option::of(vec(text(), 0..3)),
    );
    (scripts, limits).prop_map(
        |(
            (check_script, run_script, compare_script, is_random, testcase_id, depends_on),
            (depends_cond, memory_limit, time_limit, file_limit, proc_limit, run_args),
        )| JudgeTask {
            check_script,
            run_script,
            compare_script,
            is_random,
            testcase_id,
            depends_on,
            depends_cond,
            memory_limit,
            time_limit,
            file_limit,
            proc_limit,
            run_args,
            validator_flags: None,
            passes: None,
            answer_file: None,
        },
    )
}

fn submission() -> impl Strategy<Value = Submission> {
    let head = (
        select(vec![
            SubType::Programming,
            SubType::Output,
            SubType::Choice,
            SubType::ProgramBlankFilling,
        ]),
        text(),
        text(),
        text(),
        any::<i64>(),
    );
    let body = (
        vec(judge_task(), 0..6),
        vec(
            (vec(asset(), 0..3), vec(asset(), 0..2)).prop_map(|(inputs, outputs)| TestDatum {
                inputs,
                outputs,
                name: None,
            }),
            0..3,
        ),
        program(),
        option::of(program()),
        option::of(program()),
        option::of(program()),
    );
    (head, body).prop_map(
        |(
            (sub_type, category, prob_id, sub_id, updated_at),
            (judge_tasks, test_data, submission, standard, random, compare),
        )| Submission {
            sub_type,
            category,
            prob_id,
            sub_id,
            updated_at,
            judge_tasks,
            test_data,
            submission,
            standard,
            random,
            compare,
            compare_protocol: None,
        },
    )
}

fn gtest_report() -> impl Strategy<Value = GoogleTestReport> {
    (
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        vec(
            (text(), text(), text(), option::of(text())).prop_map(
                |(suite, case, message, param)| GoogleTestFailureCase {
                    suite,
                    case,
                    message,
                    param,
                },
            ),
            0..3,
        ),
    )
        .prop_map(
            |(total_cases, pass_cases, error_cases, disabled_cases, report)| GoogleTestReport {
                total_cases,
                pass_cases,
                error_cases,
                disabled_cases,
                report,
            },
        )
}

fn static_report() -> impl Strategy<Value = StaticReport> {
    let violation = (
        text(),
        text(),
        any::<u32>(),
        text(),
        text(),
        1u8..4,
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
    )
        .prop_map(
            |(
                path,
                rule,
                end_line,
                message,
                category,
                priority,
                end_column,
                start_line,
                start_column,
            )| {
                Violation {
                    path,
                    rule,
                    end_line,
                    message,
                    category,
                    priority,
                    end_column,
                    start_line,
                    start_column,
                }
            },
        );
    (
        text(),
        any::<u32>(),
        any::<u32>(),
        vec(
            (any::<u32>(), 1u8..4)
                .prop_map(|(number, priority)| PriorityCount { number, priority }),
            0..4,
        ),
        text(),
        any::<i64>(),
        vec(violation, 0..3),
        vec(json_value(), 0..2),
    )
        .prop_map(
            |(url, files, with_violations, counts, version, timestamp, violation, clang)| {
                StaticReport {
                    url,
                    summary: StaticSummary {
                        number_of_files: files,
                        number_of_files_with_violations: with_violations,
                        number_of_violations_with_priority: counts,
                    },
                    version,
                    timestamp,
                    violation,
                    clang_static_analyzer: clang,
                }
            },
        )
}

fn memory_report() -> impl Strategy<Value = MemoryReport> {
    let frame = (
        option::of(text()),
        option::of(text()),
        option::of(any::<u32>()),
        option::of(text()),
    )
        .prop_map(|(function, file, line, object)| StackFrame {
            function,
            file,
            line,
            object,
        });
    let error = (
        text(),
        text(),
        option::of(any::<u64>()),
        option::of(any::<u64>()),
        vec(frame, 0..3),
    )
        .prop_map(
            |(kind, what, bytes_leaked, blocks_leaked, stack)| MemoryError {
                kind,
                what,
                bytes_leaked,
                blocks_leaked,
                stack,
            },
        );
    (text(), any::<u32>(), vec(error, 0..3)).prop_map(|(tool, error_count, errors)| MemoryReport {
        tool,
        error_count,
        errors,
    })
}

fn judge_report() -> impl Strategy<Value = JudgeReport> {
    let score =
        (1u32..1000).prop_flat_map(|d| (0..=d).prop_map(move |n| Score::new(n, d).unwrap()));
    let report = prop_oneof![
        gtest_report().prop_map(TaskReport::GoogleTest),
        static_report().prop_map(TaskReport::Static),
        memory_report().prop_map(TaskReport::Memory),
    ];
    let result = (
        select(JudgeStatus::ALL.to_vec()),
        score,
        any::<u64>(),
        any::<u64>(),
        option::of(report),
        text(),
    )
        .prop_map(
            |(status, score, run_time, memory_used, report, error_log)| JudgeTaskResult {
                status,
                score,
                run_time,
                memory_used,
                report,
                error_log,
                diff: None,
                validator_score: None,
            },
        );
    (
        text(),
        text(),
        text(),
        text(),
        vec(result, 0..4),
        option::of(text()),
    )
        .prop_map(
            |(sub_type, category, prob_id, sub_id, results, message)| JudgeReport {
                sub_type,
                category,
                prob_id,
                sub_id,
                results,
                message,
            },
        )
}

fn score_record() -> impl Strategy<Value = ScoreRecord> {
    let value = prop_oneof![
        any::<bool>().prop_map(ScoreValue::Bool),
        decimal().prop_map(ScoreValue::Number),
        text().prop_map(ScoreValue::Text),
    ];
    let target = prop_oneof![
        Just(ScoreTarget::Final),
        Just(ScoreTarget::Global),
        "\\PC{1,8}".prop_map(ScoreTarget::Step),
    ];
    let evidence = (
        option::of(text()),
        option::of(vec(text(), 0..3)),
        option::of(json_map()),
    )
        .prop_map(|(explanation, snippets, alignment)| Evidence {
            explanation,
            snippets,
            alignment,
        });
    (
        text(),
        text(),
        text(),
        value,
        target,
        option::of(evidence),
        text(),
        timestamp(),
    )
        .prop_map(
            |(id, run_id, metric, value, target, evidence, evaluator_id, created_at)| ScoreRecord {
                id,
                run_id,
                metric,
                value,
                target,
                evidence,
                evaluator_id,
                created_at,
            },
        )
}

fn run_record() -> impl Strategy<Value = RunRecord> {
    let trace = (
        timestamp(),
        select(vec![
            TraceLevel::Debug,
            TraceLevel::Info,
            TraceLevel::Warn,
            TraceLevel::Error,
        ]),
        option::of(text()),
        text(),
        option::of(json_value()),
    )
        .prop_map(|(timestamp, level, step, event, data)| TraceEvent {
            timestamp,
            level,
            step,
            event,
            data,
        });
    let step = (
        text(),
        text(),
        select(vec![
            StepStatus::Completed,
            StepStatus::Failed,
            StepStatus::Skipped,
        ]),
        decimal(),
        option::of(json_value()),
        option::of(text()),
    )
        .prop_map(
            |(step_id, step_name, status, latency, output, error)| StepSummary {
                step_id,
                step_name,
                status,
                latency,
                output,
                error,
            },
        );
    let error =
        (text(), option::of(text()), option::of(text())).prop_map(|(message, step, stack)| {
            RunError {
                message,
                step,
                stack,
            }
        });
    let metrics = (decimal(), option::of(any::<u64>()), option::of(decimal())).prop_map(
        |(latency, tokens, cost)| RunMetrics {
            latency,
            tokens,
            cost,
        },
    );
    let head = (
        text(),
        text(),
        select(vec![TaskType::Atomic, TaskType::Scenario]),
        select(vec![
            RunStatus::Pending,
            RunStatus::Running,
            RunStatus::Completed,
            RunStatus::Failed,
        ]),
        option::of(json_value()),
        option::of(error),
    );
    let tail = (
        metrics,
        vec(trace, 0..4),
        option::of(vec(step, 0..3)),
        timestamp(),
        option::of(timestamp()),
        (text(), text(), json_map()),
    );
    (head, tail).prop_map(
        |(
            (id, task_id, task_type, status, output, error),
            (metrics, trace, steps, started_at, completed_at, (runner_id, runner_version, config)),
        )| RunRecord {
            id,
            task_id,
            task_type,
            status,
            output,
            error,
            metrics,
            trace,
            steps,
            started_at,
            completed_at,
            provenance: verdict_contracts::Provenance {
                runner_id,
                runner_version,
                config,
            },
        },
    )
}

fn atomic_task() -> impl Strategy<Value = AtomicTask> {
    let metadata = (
        option::of(vec(text(), 0..3)),
        option::of(decimal()),
        option::of(any::<u64>()),
    )
        .prop_map(|(tags, priority, timeout)| TaskMetadata {
            tags,
            priority,
            timeout,
        });
    (
        ("[a-z0-9-]{1,6}", text(), text()),
        json_value(),
        option::of(json_value()),
        option::of(json_map()),
        metadata,
        option::of(json_map()),
    )
        .prop_map(
            |((id, name, kind), input, expected, context, metadata, extensions)| AtomicTask {
                id,
                name,
                kind,
                input,
                expected,
                context,
                metadata,
                extensions,
            },
        )
}

fn scenario_task() -> impl Strategy<Value = ScenarioTask> {
    // Sources and targets drawn from well-formed and malformed shapes alike.
    let from = prop_oneof![
        "step:[a-z0-9-]{0,6}(\\.output)?(\\.[a-z]{1,3}|\\[[0-9x]\\])?",
        "input:[a-z.\\[\\]0-9]{0,6}",
        "\\PC{0,8}",
    ];
    let to = prop_oneof!["input(\\.[a-z]{1,3}|\\[[0-9]\\])?", "\\PC{0,8}"];
    let mapping = (from, to).prop_map(|(from, to)| InputMapping { from, to });
    (
        text(),
        vec(atomic_task(), 0..4),
        proptest::collection::btree_map("[a-z0-9-]{1,6}", vec(mapping, 0..3), 0..3),
        json_map(),
    )
        .prop_map(|(id, steps, input_map, metadata)| ScenarioTask {
            id,
            name: "scenario".into(),
            description: String::new(),
            steps,
            input_map,
            metadata,
        })
}

/// `value` written as JSON text and read back equals itself, and writes the same JSON again.
fn assert_round_trip<T>(value: &T) -> Result<(), TestCaseError>
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let text = serde_json::to_string(value).unwrap();
    let back: T =
        serde_json::from_str(&text).map_err(|e| TestCaseError::fail(format!("{e} in {text}")))?;
    prop_assert_eq!(&back, value);
    prop_assert_eq!(serde_json::to_string(&back).unwrap(), text);
    Ok(())
}

/// A property test per `name: strategy` that the strategy's values round-trip
/// ([`assert_round_trip`]).
macro_rules! round_trips {
    ($($name:ident: $strategy:expr;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(128))]
            $(
                #[test]
                fn $name(value in $strategy) {
                    assert_round_trip(&value)?;
                }
            )*
        }
    };
}

round_trips! {
    submissions_round_trip: submission();
    judge_reports_round_trip: judge_report();
    score_records_round_trip: score_record();
    run_records_round_trip: run_record();
    atomic_tasks_round_trip: atomic_task();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn parsing_any_request_never_panics(s in submission()) {
        match parse_submission(&serde_json::to_string(&s).unwrap()) {
            Ok(parsed) => prop_assert_eq!(parsed.into_inner(), s),
            Err(RequestError::Invalid(invalid)) => {
                prop_assert!(!invalid.errors.is_empty());
                let report = invalid.into_report();
                prop_assert!(report.results.is_empty());
                prop_assert_eq!(report.sub_id, s.sub_id);
            }
            Err(other) => prop_assert!(false, "{other}"),
        }
    }

    #[test]
    fn scenario_tasks_round_trip_and_plan_without_panicking(t in scenario_task()) {
        assert_round_trip(&t)?;
        match t.plan() {
            Ok(plan) => {
                prop_assert_eq!(plan.inputs.len(), t.steps.len());
                for (i, mappings) in plan.inputs.iter().enumerate() {
                    for m in mappings {
                        if let verdict_contracts::ResolvedSource::Step { index, .. } = m.source {
                            prop_assert!(index < i, "step {} reads from step {}", i, index);
                        }
                    }
                }
            }
            Err(errors) => prop_assert!(!errors.is_empty()),
        }
    }

    #[test]
    fn data_paths_print_as_they_parse(
        segments in vec(prop_oneof![
            "[^.\\[\\]]{1,6}".prop_map(PathSegment::Key),
            (0usize..50).prop_map(PathSegment::Index),
        ], 0..5),
        new in json_leaf(),
    ) {
        let path = DataPath::from_segments(segments);
        let text = path.to_string();
        prop_assert_eq!(DataPath::parse(&text).unwrap(), path.clone(), "{}", text);
        let mut value = Value::Null;
        path.set(&mut value, new.clone()).unwrap();
        prop_assert_eq!(path.get(&value), Some(&new));
    }
}
