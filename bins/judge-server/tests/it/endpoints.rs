//! Each endpoint over real HTTP.

use crate::common::*;
use serde_json::json;
use std::time::{Duration, Instant};

#[test]
fn health_openapi_and_unknown_paths() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let health = get(&server.url("/v1/health"), None);
    assert_eq!(health.status, 200);
    assert_eq!(health.json()["status"], "ok");
    assert_eq!(health.json()["accepting"], true);
    // The sandbox's level, as the runs' outcomes name it (full isolation where the suite
    // requires it: root on this host).
    let isolation = health.json()["isolation"].as_str().map(str::to_owned);
    assert!(isolation.is_some(), "{}", health.json());
    if verdict_testkit::required() {
        assert!(
            isolation.is_some_and(|l| l.starts_with("full-")),
            "{}",
            health.json()
        );
    }

    let doc = get(&server.url("/v1/openapi.json"), None);
    assert_eq!(doc.status, 200);
    let doc = doc.json();
    assert_eq!(doc["openapi"], "3.1.0");
    for path in [
        "/v1/judge",
        "/v1/submissions",
        "/v1/submissions/{sub_id}",
        "/v1/submissions/{sub_id}/events",
        "/v1/oracle",
        "/v1/lab/runs",
        "/v1/health",
        "/v1/languages",
        "/metrics",
    ] {
        assert!(doc["paths"][path].is_object(), "{path} is documented");
    }
    assert!(doc["components"]["schemas"]["Submission"]["properties"]["judge_tasks"].is_object());

    assert_matches_openapi(
        &server,
        "Health",
        &get(&server.url("/v1/health"), None).json(),
    );
    let missing = get(&server.url("/v1/nothing"), None);
    missing.assert_error(404, "not_found");
    assert_matches_openapi(&server, "Error", &missing.json());
    let wrong_method = get(&server.url("/v1/judge"), None);
    wrong_method.assert_error(405, "method_not_allowed");
}

#[test]
fn judge_waits_for_the_complete_report() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let body = a_plus_b("judge-1", "oj", A_PLUS_B).to_string();
    let reply = post(&server.url("/v1/judge"), None, &body);
    assert_eq!(reply.status, 200, "{}", reply.text);
    let report = reply.json();
    assert_eq!(report["sub_id"], "judge-1");
    assert_eq!(report["category"], "oj");
    assert_eq!(
        statuses(&report),
        ["Accepted", "Accepted", "Accepted"],
        "{report}"
    );
    assert_matches_openapi(&server, "JudgeReport", &report);

    // A wrong answer is a verdict, not an error.
    let wrong = a_plus_b("judge-2", "oj", "int main(){return 0;}").to_string();
    let reply = post(&server.url("/v1/judge"), None, &wrong);
    assert_eq!(reply.status, 200);
    assert_eq!(statuses(&reply.json())[1], "Wrong Answer");

    // Metrics saw the verdicts and the problem cache.
    let metrics = get(&server.url("/metrics"), None);
    assert_eq!(metrics.status, 200);
    // The second submission of the problem found the test data the first one materialised.
    let value = |name: &str| -> u64 {
        metrics
            .text
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    };
    let (hits, misses) = (
        value("verdict_problem_cache_hits_total "),
        value("verdict_problem_cache_misses_total "),
    );
    assert!(
        misses > 0 && hits >= misses,
        "cache hits {hits}, misses {misses}"
    );
    assert!(
        metrics
            .header("content-type")
            .unwrap()
            .starts_with("text/plain")
    );
    // (`verdict_running_tasks` and `verdict_queued_tasks` are the judge's run slots, which this
    // binary's servers share with tests running at the same time: `metrics::` checks them on a
    // server of its own.)
    for needle in [
        "verdict_queue_length 0",
        "verdict_started_tasks 0",
        "verdict_task_verdicts_total{status=\"Accepted\"} 4",
        "verdict_task_verdicts_total{status=\"Wrong Answer\"} 2",
        "verdict_task_run_time_seconds_count 6",
        "verdict_task_memory_bytes_bucket{le=\"+Inf\"} 6",
        "verdict_submissions_finished_total 2",
    ] {
        assert!(
            metrics.text.contains(needle),
            "{needle} in\n{}",
            metrics.text
        );
    }
}

#[test]
fn submissions_are_queued_then_read() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let body = a_plus_b("queued-1", "oj", &sleepy_a_plus_b(1)).to_string();
    let accepted = post(&server.url("/v1/submissions"), None, &body);
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    assert_eq!(accepted.json()["sub_id"], "queued-1");
    assert_eq!(
        accepted.header("location"),
        Some("/v1/submissions/queued-1?category=oj")
    );

    let in_progress = ["Pending", "Compiling", "Running"];
    let start = Instant::now();
    let mut seen_unfinished = false;
    let report = loop {
        let reply = get(&server.url("/v1/submissions/queued-1"), None);
        assert_eq!(reply.status, 200);
        let report = reply.json();
        let statuses = statuses(&report);
        assert_eq!(statuses.len(), 3, "one result per task, always");
        if reply.header("verdict-complete") == Some("true") {
            break report;
        }
        assert!(
            statuses.iter().any(|s| in_progress.contains(&s.as_str())),
            "an unfinished report has an unfinished task: {statuses:?}"
        );
        seen_unfinished = true;
        assert!(start.elapsed() < Duration::from_secs(30), "judging ends");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        seen_unfinished,
        "the first read comes before a 1 s program ends"
    );
    assert_eq!(statuses(&report), ["Accepted", "Accepted", "Accepted"]);

    let garbled = get(&server.url("/v1/submissions/%FF%FE"), None);
    garbled.assert_refused(400, "sub_id");
    let bad_query = get(
        &server.url("/v1/submissions/queued-1?category=a&category=b"),
        None,
    );
    bad_query.assert_refused(400, "category");
    let unknown = get(&server.url("/v1/submissions/nope"), None);
    assert_eq!(unknown.status, 404);
    assert!(
        unknown.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("sub_id")
    );
}

#[test]
fn invalid_requests_name_the_field() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let mut bad = a_plus_b("bad-1", "oj", A_PLUS_B);
    bad["judge_tasks"][1]["testcase_id"] = json!(7);
    let field = "judge_tasks[1].testcase_id";
    // The contract's report: results [] and a message naming the field ...
    for body in refused_by_both(&server, &bad, field, field) {
        assert_eq!(body["sub_id"], "bad-1");
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .starts_with("judge_tasks[1].testcase_id: "),
            "{body}"
        );
        // ... plus the error object every error has.
        assert_eq!(body["error"]["code"], "invalid_submission");
        assert_matches_openapi(&server, "InvalidSubmission", &body);
    }

    let mut typo = a_plus_b("bad-2", "oj", A_PLUS_B);
    typo["judge_tasks"][0]["check_script"] = json!("compil");
    let reply = post(&server.url("/v1/judge"), None, &typo.to_string());
    reply.assert_refused(422, "judge_tasks[0].check_script");

    let reply = post(&server.url("/v1/judge"), None, "{not json");
    reply.assert_refused(400, "body");

    let reply = post(&server.url("/v1/judge"), None, "[1, 2]");
    reply.assert_refused(422, "request");

    let reply = post(
        &server.url("/v1/oracle"),
        None,
        r#"{"deliverable_type": "function"}"#,
    );
    assert_eq!(reply.status, 422, "{}", reply.text);
    assert!(reply.json()["error"]["field"].is_string(), "{}", reply.text);

    let reply = post(&server.url("/v1/lab/runs"), None, "{oops");
    reply.assert_refused(400, "body");
    let reply = post(
        &server.url("/v1/lab/runs"),
        None,
        r#"{"name": "no id", "type": "x"}"#,
    );
    reply.assert_refused(422, "id");
    let no_runner =
        json!({"id": "t1", "name": "n", "type": "intent", "input": "hi", "metadata": {}});
    let reply = post(&server.url("/v1/lab/runs"), None, &no_runner.to_string());
    reply.assert_refused(422, "type");
    // A scenario step's problem names the field from the task's top (the lab's check is typed,
    // not a message split at its first ": ").
    let bad_step = json!({"id": "s", "name": "n", "description": "d",
        "steps": [{"id": "a", "name": "a", "type": "function", "input": [1], "metadata": {},
                   "extensions": {"evaluators": ["nope"]}}],
        "metadata": {}});
    let reply = post(&server.url("/v1/lab/runs"), None, &bad_step.to_string());
    reply.assert_refused(422, "steps[0].extensions.evaluators");
}

#[test]
fn lab_runs_a_task() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let task = json!({
        "id": "lab-add", "name": "add two numbers", "type": "function",
        "input": [1, 2], "expected": 3, "metadata": {},
        "extensions": {"deliverable": {
            "language": "python3", "entry_point": "add",
            "source_files": python_add_files()
        }}
    });
    let reply = post(&server.url("/v1/lab/runs"), None, &task.to_string());
    assert_eq!(reply.status, 200, "{}", reply.text);
    let body = reply.json();
    assert_eq!(body["run"]["taskId"], "lab-add", "{body}");
    assert_eq!(body["run"]["status"], "completed", "{body}");
    let scores = body["scores"].as_array().expect("scores");
    assert!(!scores.is_empty(), "{body}");
    assert!(
        body["evaluator_failures"].as_array().unwrap().is_empty(),
        "{body}"
    );
    assert_matches_openapi(&server, "LabRunResponse", &body);
}

#[test]
fn oracle_runs_a_suite() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let suite = json!({
        "deliverable_type": "function", "language": "python3", "entry_point": "add",
        "source_files": python_add_files(),
        "test_cases": [
            {"name": "small", "input": [1, 2], "expected": 3},
            {"name": "wrong", "input": [2, 2], "expected": 5}
        ]
    });
    let reply = post(&server.url("/v1/oracle"), None, &suite.to_string());
    if reply.status == 422 && reply.text.contains("python3") {
        println!(
            "skipped: python3 is not usable by the oracle here: {}",
            reply.text
        );
        return;
    }
    assert_eq!(reply.status, 200, "{}", reply.text);
    let report = reply.json();
    assert_eq!(report["results"][0]["status"], "passed", "{report}");
    assert_eq!(report["results"][1]["status"], "failed", "{report}");
    assert_matches_openapi(&server, "OracleReport", &report);
}

#[test]
fn languages_lists_every_language() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let reply = get(&server.url("/v1/languages"), None);
    assert_eq!(reply.status, 200, "{}", reply.text);
    let list = reply.json();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), verdict_contracts::Language::ALL.len());
    for entry in list {
        assert_matches_openapi(&server, "LanguageStatus", entry);
    }
    let c = list
        .iter()
        .find(|l| l["language"] == "c")
        .expect("c listed");
    assert_eq!(c["ready"], true, "{c}");
}

#[test]
fn sub_ids_that_cannot_be_read_back_are_refused_with_422() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let long = "x".repeat(verdict_judge_server::MAX_ID_BYTES + 1);
    for (sub_id, why) in [
        ("", "must not be empty"),
        (long.as_str(), "bytes long"),
        ("..", "URL path segment"),
        ("a\nb", "control characters"),
    ] {
        refused_by_both(&server, &a_plus_b(sub_id, "oj", A_PLUS_B), "sub_id", why);
    }
    // The longest allowed id, and one that needs escaping, are accepted and read back.
    let longest = "y".repeat(verdict_judge_server::MAX_ID_BYTES);
    for sub_id in [longest.as_str(), "a/b c?d%"] {
        let body = a_plus_b(sub_id, "oj", A_PLUS_B).to_string();
        let reply = post(&server.url("/v1/submissions"), None, &body);
        assert_eq!(reply.status, 202, "{}", reply.text);
        let status_url = reply.json()["status_url"].as_str().unwrap().to_owned();
        let read = get(&server.url(&status_url), None);
        assert_eq!(read.status, 200, "{status_url}: {}", read.text);
        assert_eq!(read.json()["sub_id"], sub_id);
    }
}
