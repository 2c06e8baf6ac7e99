//! Remote assets through the whole pipeline: an internal server holding a secret is never
//! reached and its secret never appears in a report, unless the operator allows it.

use crate::common::{judge_with, runtime};
use serde_json::json;
use verdict_contracts::{JudgeReport, JudgeStatus, parse_submission};
use verdict_scheduler::{JudgeConfig, RemoteConfig};
use verdict_testkit::loopback::{Answer, LoopbackServer};

const SECRET: &str = "INTERNAL-SECRET-19";

/// A loopback server answering every request with the secret.
fn secret_server() -> LoopbackServer {
    LoopbackServer::start("127.0.0.1", Answer::Body(SECRET.into()))
}

/// A python3 a+b submission whose expected outputs are remote assets at `urls`.
fn submission(sub_id: &str, urls: &[String]) -> verdict_contracts::Submission {
    let mut tasks = vec![json!({
        "check_script": "compile", "run_script": null, "compare_script": null,
        "is_random": false, "testcase_id": -1, "depends_on": -1, "depends_cond": null,
        "time_limit": 10000
    })];
    let mut data = Vec::new();
    for (i, url) in urls.iter().enumerate() {
        tasks.push(json!({
            "check_script": "standard", "run_script": "standard",
            "compare_script": "diff-all", "is_random": false, "testcase_id": i,
            "depends_on": 0, "depends_cond": "ACCEPTED", "memory_limit": 65536,
            "time_limit": 2000, "file_limit": 1024, "proc_limit": 5
        }));
        data.push(json!({
            "inputs": [{"type": "text", "name": "testdata.in", "text": "1 2\n"}],
            "outputs": [{"type": "remote", "name": "testdata.out", "url": url}]
        }));
    }
    let submission = json!({
        "sub_type": "programming", "category": "ssrf", "prob_id": sub_id, "sub_id": sub_id,
        "updated_at": 1, "judge_tasks": tasks, "test_data": data,
        "submission": {"type": "source_code", "language": "python3", "assist_files": [],
            "source_files": [{"type": "text", "name": "main.py",
                "text": "a, b = map(int, input().split())\nprint(a + b)\n"}]}
    });
    parse_submission(&submission.to_string())
        .expect("valid submission")
        .into_inner()
}

fn judge_remote(remote: RemoteConfig, sub_id: &str, urls: &[String]) -> Option<JudgeReport> {
    let (judge, _dir) = judge_with(|dirs| JudgeConfig { remote, ..dirs })?;
    Some(runtime().block_on(judge.judge(submission(sub_id, urls))))
}

#[test]
fn a_remote_asset_inside_the_judge_network_never_reaches_a_report() {
    let secret = secret_server();
    let port = secret.addr.port();
    let urls: Vec<String> = [
        "127.0.0.1",
        "0x7f000001",
        "2130706433",
        "0177.0.0.1",
        "127.1",
        "localhost",
        "[::1]",
        "[::ffff:127.0.0.1]",
    ]
    .iter()
    .map(|host| format!("http://{host}:{port}/expected"))
    .collect();
    let Some(report) = judge_remote(RemoteConfig::default(), "ssrf-refused", &urls) else {
        return;
    };
    let text = serde_json::to_string(&report).unwrap();
    assert!(!text.contains(SECRET), "the secret leaked: {text}");
    assert_eq!(report.results.len(), urls.len() + 1);
    for (i, result) in report.results.iter().enumerate().skip(1) {
        assert_eq!(result.status, JudgeStatus::SystemError, "{text}");
        assert!(
            result
                .error_log
                .contains(&format!("test_data[{}].outputs[0]: url: GET", i - 1))
                && result.error_log.contains("refused"),
            "{}",
            result.error_log
        );
    }
    assert_eq!(secret.hits(), 0, "the internal server was reached");
}

#[test]
fn an_allowed_internal_host_is_fetched() {
    let secret = secret_server();
    let port = secret.addr.port();
    let remote = RemoteConfig {
        allow_hosts: vec!["127.0.0.1".into()],
        ..RemoteConfig::default()
    };
    let urls = [format!("http://127.0.0.1:{port}/expected")];
    let Some(report) = judge_remote(remote, "ssrf-allowed", &urls) else {
        return;
    };
    // The operator's own server is reached and its content compared (a wrong answer here).
    assert_eq!(
        report.results[1].status,
        JudgeStatus::WrongAnswer,
        "{report:?}"
    );
    assert_eq!(secret.hits(), 1);
}
