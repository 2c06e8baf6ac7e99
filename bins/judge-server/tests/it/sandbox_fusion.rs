//! SandboxFusion's routes (docs/compat.md) on a real server: `/run_code` as verl and the
//! `sandbox-fusion` package call it, compiled once across calls, FastAPI's 422, the secret
//! path and the network gate. (The real Python clients drive it in `clients/python/tests`.)

use crate::common::{A_PLUS_B_CPP, TestServer, client, config, get, reply};
use serde_json::{Value, json};
use verdict_judge_server::{PathToken, SandboxFusionConfig};

const SECRET: &str = "verl-secret-0123456789";

fn sf_config(networks: Vec<String>) -> verdict_judge_server::ServerConfig {
    verdict_judge_server::ServerConfig {
        sandbox_fusion: SandboxFusionConfig {
            enabled: true,
            paths: vec![PathToken {
                token: SECRET.into(),
                category: "rl".into(),
            }],
            networks,
            ..SandboxFusionConfig::default()
        },
        ..config()
    }
}

fn run_code(server: &TestServer, path: &str, body: &Value) -> crate::common::Reply {
    reply(
        client()
            .post(server.url(path))
            .header("Content-Type", "application/json")
            .send(body.to_string()),
    )
}

#[test]
fn run_code_compiles_identical_sources_once_and_answers_as_sandboxfusion() {
    let Some(server) = TestServer::start(sf_config(vec!["127.0.0.0/8".into()])) else {
        return;
    };
    let path = format!("/sf/{SECRET}/run_code");
    let mut reused = Vec::new();
    for (stdin, sum) in [("1 2\n", "3\n"), ("40 2\n", "42\n")] {
        let body = json!({"code": A_PLUS_B_CPP, "language": "cpp", "stdin": stdin,
                          "compile_timeout": 10, "run_timeout": 10, "files": {}, "fetch_files": []});
        let answer = run_code(&server, &path, &body);
        assert_eq!(answer.status, 200, "{}", answer.text);
        let answer = answer.json();
        assert_eq!(answer["status"], "Success", "{answer}");
        assert_eq!(answer["message"], "");
        assert_eq!(answer["run_result"]["status"], "Finished");
        assert_eq!(answer["run_result"]["return_code"], 0);
        assert_eq!(answer["run_result"]["stdout"], sum);
        assert_eq!(answer["compile_result"]["status"], "Finished");
        assert_eq!(answer["compile_result"]["return_code"], 0);
        assert!(answer["run_result"]["execution_time"].is_number());
        assert_eq!(answer["run_result"]["verdict"]["status"], "Accepted");
        reused.push(answer["compile_result"]["verdict"]["build_reused"].clone());
    }
    assert_eq!(
        reused,
        [json!(false), json!(true)],
        "the second call reuses the build"
    );

    // The root route, let in by the loopback network; the same answer.
    let body = json!({"code": "import sys\nprint(sys.stdin.read().upper(), end='')", "language": "python", "stdin": "hi"});
    let answer = run_code(&server, "/run_code", &body).json();
    assert_eq!(answer["status"], "Success", "{answer}");
    assert_eq!(answer["run_result"]["stdout"], "HI");
    assert!(
        answer["compile_result"].is_null(),
        "python has no compile step: {answer}"
    );
    assert_eq!(get(&server.url("/v1/ping"), None).json(), json!("pong"));
    assert_eq!(
        get(&server.url(&format!("/sf/{SECRET}/v1/ping")), None).json(),
        json!("pong")
    );
}

#[test]
fn run_code_reports_failures_as_sandboxfusion_and_verdicts_own_status_beside() {
    let Some(server) = TestServer::start(sf_config(Vec::new())) else {
        return;
    };
    let path = format!("/sf/{SECRET}/run_code");
    let cases = [
        (
            json!({"code": "int main(){ return }", "language": "cpp"}),
            "Failed",
            "compile",
        ),
        (
            json!({"code": "import sys\nsys.exit(3)", "language": "python"}),
            "Failed",
            "exit",
        ),
        (
            json!({"code": "while True: pass", "language": "python", "run_timeout": 0.5}),
            "Failed",
            "timeout",
        ),
        (
            json!({"code": "x = bytearray(400 << 20)\nprint(len(x))", "language": "python", "memory_limit_MB": 64}),
            "Failed",
            "memory",
        ),
    ];
    for (body, status, what) in cases {
        let answer = run_code(&server, &path, &body);
        assert_eq!(answer.status, 200, "{what}: {}", answer.text);
        let answer = answer.json();
        assert_eq!(answer["status"], status, "{what}: {answer}");
        match what {
            "compile" => {
                assert_eq!(answer["compile_result"]["status"], "Finished", "{answer}");
                assert_ne!(answer["compile_result"]["return_code"], 0, "{answer}");
                assert!(answer["run_result"].is_null(), "{answer}");
            }
            "exit" => assert_eq!(answer["run_result"]["return_code"], 3, "{answer}"),
            "timeout" => {
                assert_eq!(
                    answer["run_result"]["status"], "TimeLimitExceeded",
                    "{answer}"
                );
                assert_eq!(
                    answer["run_result"]["verdict"]["status"],
                    "Time Limit Exceeded"
                );
            }
            _ => {
                assert_ne!(answer["run_result"]["return_code"], 0, "{answer}");
                assert_eq!(
                    answer["run_result"]["verdict"]["status"], "Memory Limit Exceeded",
                    "{answer}"
                );
            }
        }
    }
}

#[test]
fn run_code_refuses_as_fastapi_and_lets_in_only_its_secret_paths_and_networks() {
    let Some(server) = TestServer::start(sf_config(Vec::new())) else {
        return;
    };
    let path = format!("/sf/{SECRET}/run_code");
    let refused = run_code(
        &server,
        &path,
        &json!({"language": "cobol", "run_timeout": "soon"}),
    );
    assert_eq!(refused.status, 422, "{}", refused.text);
    let locs: Vec<Value> = refused.json()["detail"]
        .as_array()
        .expect("detail")
        .iter()
        .map(|d| d["loc"].clone())
        .collect();
    assert!(locs.contains(&json!(["body", "code"])), "{locs:?}");
    assert!(locs.contains(&json!(["body", "language"])), "{locs:?}");
    assert!(locs.contains(&json!(["body", "run_timeout"])), "{locs:?}");
    let sql = run_code(
        &server,
        &path,
        &json!({"code": "SELECT 1", "language": "sql"}),
    );
    assert_eq!(sql.status, 422, "{}", sql.text);
    assert!(sql.text.contains("sql"), "{}", sql.text);

    let body = json!({"code": "print(1)", "language": "python"});
    let wrong = run_code(&server, "/sf/not-the-secret-at-all/run_code", &body);
    assert_eq!(wrong.status, 404);
    assert_eq!(wrong.json(), json!({"detail": "Not Found"}));
    // No network configured: the root route serves nobody, loopback included.
    assert_eq!(run_code(&server, "/run_code", &body).status, 404);
}

#[test]
fn run_code_is_off_unless_enabled() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let body = json!({"code": "print(1)", "language": "python"});
    assert_eq!(run_code(&server, "/run_code", &body).status, 404);
    assert_eq!(get(&server.url("/v1/ping"), None).status, 404);
}

#[test]
fn a_python_program_runs_as_a_cold_interpreter_runs_it_whether_served_warm_or_not() {
    let Some(server) = TestServer::start(sf_config(vec!["127.0.0.0/8".into()])) else {
        return;
    };
    let call = |code: &str| {
        run_code(
            &server,
            "/run_code",
            &json!({"code": code, "language": "python", "stdin": "5\n"}),
        )
        .json()
    };
    let argv = call("import sys\nprint(sys.argv, __name__, __file__, input())\nsys.exit(3)");
    assert_eq!(
        argv["run_result"]["stdout"], "['main.py'] __main__ main.py 5\n",
        "{argv}"
    );
    assert_eq!(argv["run_result"]["return_code"], 3);
    let raised = call("print('partial')\ndef f():\n    raise ValueError('x')\nf()");
    assert_eq!(raised["status"], "Failed");
    assert_eq!(raised["run_result"]["return_code"], 1, "{raised}");
    assert_eq!(
        raised["run_result"]["stdout"], "partial\n",
        "stdout is flushed"
    );
    let stderr = raised["run_result"]["stderr"].as_str().unwrap_or_default();
    assert!(
        stderr.starts_with("Traceback (most recent call last):\n  File \"main.py\", line 4"),
        "{stderr}"
    );
    assert!(
        stderr.ends_with("ValueError: x\n") && !stderr.contains(".verdict"),
        "{stderr}"
    );
    let syntax = call("print(1\n");
    let stderr = syntax["run_result"]["stderr"].as_str().unwrap_or_default();
    assert!(
        stderr.contains("SyntaxError") && !stderr.contains(".verdict"),
        "{stderr}"
    );
}

#[test]
fn a_looping_run_does_not_hold_the_only_core_from_other_calls() {
    // One judge slot: a compile takes it; runs share it, timed by the wall clock as
    // SandboxFusion times them (docs/compat.md).
    let Some(server) = TestServer::start_with_judge_config(sf_config(Vec::new()), |judge| {
        verdict_scheduler::JudgeConfig {
            parallelism: 1,
            ..judge
        }
    }) else {
        return;
    };
    let path = format!("/sf/{SECRET}/run_code");
    let looping = json!({"code": "while True: pass", "language": "python", "run_timeout": 5});
    let (looped, quick) = std::thread::scope(|scope| {
        let first = scope.spawn(|| {
            let answer = run_code(&server, &path, &looping);
            (answer, std::time::Instant::now())
        });
        std::thread::sleep(std::time::Duration::from_millis(800));
        let quick = run_code(
            &server,
            &path,
            &json!({"code": "print(1)", "language": "python", "run_timeout": 5}),
        );
        let quick_done = std::time::Instant::now();
        (first.join().expect("first call"), (quick, quick_done))
    });
    assert_eq!(quick.0.status, 200, "{}", quick.0.text);
    assert_eq!(quick.0.json()["run_result"]["stdout"], "1\n");
    assert_eq!(looped.0.json()["run_result"]["status"], "TimeLimitExceeded");
    assert!(
        quick.1 < looped.1,
        "the quick call waited for the looping one's slot"
    );
}

#[test]
fn a_category_at_its_quota_is_answered_504_with_retry_after_after_the_bounded_wait() {
    let mut config = sf_config(Vec::new());
    config.quotas.insert("rl".into(), 1);
    config.sandbox_fusion.max_wait_ms = 300;
    let Some(server) = TestServer::start(config) else {
        return;
    };
    let path = format!("/sf/{SECRET}/run_code");
    let slow = json!({"code": "import time\ntime.sleep(3)\nprint('done')", "language": "python"});
    let busy = std::thread::scope(|scope| {
        let first = scope.spawn(|| run_code(&server, &path, &slow));
        std::thread::sleep(std::time::Duration::from_millis(800));
        let second = run_code(
            &server,
            &path,
            &json!({"code": "print(1)", "language": "python"}),
        );
        let first = first.join().expect("first call");
        assert_eq!(first.status, 200, "{}", first.text);
        assert_eq!(first.json()["run_result"]["stdout"], "done\n");
        second
    });
    assert_eq!(busy.status, 504, "{}", busy.text);
    assert!(busy.header("retry-after").is_some(), "{}", busy.text);
    assert!(
        busy.json()["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("quota")
    );
}
