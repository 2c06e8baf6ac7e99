//! Piston's API v2 (docs/compat.md) on a real server, with the requests its README documents:
//! the runtimes under Piston's names, a C++ program compiled once across calls, Piston's
//! stages and statuses, its 400 messages, keys and networks. (Real Piston clients from PyPI
//! drive it in `clients/python/tests/test_piston.py`.)

use crate::common::{A_PLUS_B_CPP, TestServer, api_keys, client, config, reply};
use serde_json::{Value, json};
use verdict_judge_server::{ApiAccess, PistonConfig, ServerConfig};

const KEY: &str = "piston-key-0123456789";

fn piston_config(networks: Vec<String>) -> ServerConfig {
    ServerConfig {
        piston: PistonConfig {
            access: ApiAccess {
                enabled: true,
                keys: api_keys(KEY, "bots"),
                networks,
                ..ApiAccess::default()
            },
            ..PistonConfig::default()
        },
        ..config()
    }
}

fn execute(server: &TestServer, key: Option<&str>, body: &Value) -> crate::common::Reply {
    let mut request = client()
        .post(server.url("/api/v2/execute"))
        .header("Content-Type", "application/json");
    if let Some(key) = key {
        request = request.header("Authorization", key);
    }
    reply(request.send(body.to_string()))
}

#[test]
fn piston_runtimes_and_execute_answer_as_piston_with_one_compile_across_calls() {
    let Some(server) = TestServer::start(piston_config(vec!["127.0.0.0/8".into()])) else {
        return;
    };
    let runtimes = reply(client().get(server.url("/api/v2/runtimes")).call());
    assert_eq!(runtimes.status, 200, "{}", runtimes.text);
    let runtimes = runtimes.json();
    let names: Vec<&str> = runtimes
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|r| r["language"].as_str())
        .collect();
    assert!(
        names.contains(&"python") && names.contains(&"c++"),
        "{names:?}"
    );
    let cpp = runtimes
        .as_array()
        .and_then(|list| list.iter().find(|r| r["language"] == "c++"))
        .expect("c++");
    assert_eq!(cpp["aliases"], json!(["cpp", "g++"]));
    assert_eq!(cpp["runtime"], "gcc");
    let version = cpp["version"].as_str().expect("version").to_string();

    let mut memory = Vec::new();
    for (stdin, sum) in [("1 2", "3\n"), ("40 2", "42\n")] {
        let answer = execute(
            &server,
            None,
            &json!({"language": "cpp", "version": "*", "files": [{"name": "main.cpp", "content": A_PLUS_B_CPP}],
                    "stdin": stdin, "args": [], "compile_timeout": 10000, "run_timeout": 3000,
                    "compile_memory_limit": -1, "run_memory_limit": -1}),
        );
        assert_eq!(answer.status, 200, "{}", answer.text);
        let answer = answer.json();
        assert_eq!(answer["language"], "c++");
        assert_eq!(answer["version"], version.as_str());
        assert_eq!(answer["run"]["stdout"], sum, "{answer}");
        assert_eq!(answer["run"]["output"], sum);
        assert_eq!(answer["run"]["code"], 0);
        assert!(answer["run"]["signal"].is_null());
        assert!(answer["run"]["status"].is_null());
        assert_eq!(answer["compile"]["code"], 0, "{answer}");
        memory.push(answer["run"]["memory"].as_u64().expect("memory"));
        assert!(answer["run"]["cpu_time"].is_number() && answer["run"]["wall_time"].is_number());
    }
    assert!(memory.iter().all(|m| *m > 0), "{memory:?}");

    // The public instance's prefix, a trailing slash, an alias and a version selector.
    let answer = reply(
        client()
            .post(server.url("/api/v2/piston/execute/"))
            .header("Content-Type", "application/json")
            .send(
                json!({"language": "py", "version": "3.x", "args": ["a", "b"],
                       "files": [{"content": "import sys\nprint(sys.argv[1:], input())"}], "stdin": "hi"})
                .to_string(),
            ),
    );
    assert_eq!(answer.status, 200, "{}", answer.text);
    let answer = answer.json();
    assert_eq!(answer["language"], "python");
    assert_eq!(answer["run"]["stdout"], "['a', 'b'] hi\n");
    assert!(
        answer.get("compile").is_none(),
        "python has no compile stage: {answer}"
    );
}

/// Piston's `typescript` (alias `ts`), `php` and `octave` (alias `matlab`) runtimes: listed
/// under Piston's names, a file without a name compiled by tsc (its compile stage) and run by
/// node; a type error is the compile stage's failure.
#[test]
fn piston_runs_typescript_php_and_octave_under_pistons_names_and_aliases() {
    use verdict_contracts::Language;
    let languages = [Language::Typescript, Language::Php, Language::Octave];
    if !crate::common::toolchains_installed(&languages) {
        return;
    }
    let Some(server) = TestServer::start(piston_config(vec!["127.0.0.0/8".into()])) else {
        return;
    };
    let runtimes = reply(client().get(server.url("/api/v2/runtimes")).call()).json();
    let runtime = |name: &str| {
        runtimes
            .as_array()
            .and_then(|list| list.iter().find(|r| r["language"] == name))
            .cloned()
            .unwrap_or_else(|| panic!("{name} in {runtimes}"))
    };
    assert!(
        runtime("typescript")["aliases"]
            .as_array()
            .is_some_and(|a| a.contains(&json!("ts")))
    );
    assert_eq!(runtime("octave")["aliases"], json!(["matlab", "m"]));
    assert_eq!(runtime("php")["aliases"], json!([]));

    let typescript = "declare const require: (name: string) => any;\nconst text: string = require('fs').readFileSync(0, 'utf8');\nconsole.log(text.trim().toUpperCase());\n";
    let programs = [
        ("ts", typescript),
        ("php", "<?php echo strtoupper(trim(fgets(STDIN))), \"\\n\";"),
        ("matlab", "disp(upper(input('', 's')));"),
    ];
    for (language, content) in programs {
        let answer = execute(
            &server,
            None,
            &json!({"language": language, "version": "*", "files": [{"content": content}], "stdin": "hi"}),
        );
        assert_eq!(answer.status, 200, "{language}: {}", answer.text);
        let answer = answer.json();
        assert_eq!(answer["run"]["stdout"], "HI\n", "{language}: {answer}");
        assert_eq!(answer["run"]["code"], 0, "{language}: {answer}");
        assert_eq!(
            answer.get("compile").is_some(),
            language == "ts",
            "only TypeScript compiles: {answer}"
        );
    }
    let type_error = execute(
        &server,
        None,
        &json!({"language": "typescript", "version": "*",
                "files": [{"name": "main.ts", "content": "let n: number = 'x';\n"}]}),
    )
    .json();
    assert_ne!(type_error["compile"]["code"], 0, "{type_error}");
    assert!(
        type_error["compile"]["output"]
            .as_str()
            .is_some_and(|o| o.contains("TS2322")),
        "{type_error}"
    );
}

#[test]
fn piston_stages_report_compile_errors_exits_signals_and_limits_as_isolate_does() {
    let Some(server) = TestServer::start(piston_config(Vec::new())) else {
        return;
    };
    let run = |language: &str, code: &str, extra: Value| {
        let mut body = json!({"language": language, "version": "*", "files": [{"content": code}]});
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        let answer = execute(&server, Some(KEY), &body);
        assert_eq!(answer.status, 200, "{}", answer.text);
        answer.json()
    };
    let failed = run("c++", "int main(){ return }", json!({}));
    assert_ne!(failed["compile"]["code"], 0, "{failed}");
    assert_eq!(
        failed["run"], failed["compile"],
        "the compile stands in for the run"
    );
    assert!(
        !failed["compile"]["stderr"]
            .as_str()
            .unwrap_or("")
            .is_empty()
    );

    let exit = run(
        "python",
        "import sys\nprint('x', file=sys.stderr)\nsys.exit(3)",
        json!({}),
    );
    assert_eq!(exit["run"]["code"], 3, "{exit}");
    assert_eq!(exit["run"]["status"], "RE");
    assert_eq!(exit["run"]["message"], "Exited with error status 3");
    assert_eq!(exit["run"]["stderr"], "x\n");

    let segv = run(
        "c",
        "int main(){ volatile int *p = 0; return *p; }",
        json!({}),
    );
    assert_eq!(segv["run"]["signal"], "SIGSEGV", "{segv}");
    assert!(segv["run"]["code"].is_null());
    assert_eq!(segv["run"]["status"], "SG");

    let slow = run(
        "python",
        "while True: pass",
        json!({"run_timeout": 500, "run_cpu_time": 500}),
    );
    assert_eq!(slow["run"]["status"], "TO", "{slow}");
    assert_eq!(slow["run"]["signal"], "SIGKILL");

    let flood = run("python", "while True: print('Piston is secure')", json!({}));
    assert_eq!(flood["run"]["status"], "OL", "{flood}");
    assert!(flood["run"]["stdout"].as_str().unwrap_or("").len() <= 1024);

    let hungry = run(
        "python",
        "x = bytearray(300 << 20)\nprint(len(x))",
        json!({"run_memory_limit": 64_000_000}),
    );
    assert_eq!(hungry["run"]["signal"], "SIGKILL", "{hungry}");
    assert!(hungry["run"]["code"].is_null());
}

#[test]
fn piston_refuses_with_its_messages_and_lets_in_keys_and_networks_only() {
    let Some(server) = TestServer::start(piston_config(Vec::new())) else {
        return;
    };
    let cases = [
        (
            json!({"version": "*", "files": []}),
            "language is required as a string",
        ),
        (
            json!({"language": "python", "version": "*", "files": "print(1)"}),
            "files is required as an array",
        ),
        (
            json!({"language": "cobol", "version": "*", "files": [{"content": ""}]}),
            "cobol-* runtime is unknown",
        ),
        (
            json!({"language": "python", "version": "*", "files": [{"content": ""}], "run_timeout": 999999}),
            "run_timeout cannot exceed the configured limit of 3000",
        ),
    ];
    for (body, text) in cases {
        let answer = execute(&server, Some(KEY), &body);
        assert_eq!(answer.status, 400, "{body}: {}", answer.text);
        assert_eq!(answer.json(), json!({"message": text}));
    }
    let not_json = reply(
        client()
            .post(server.url("/api/v2/execute"))
            .header("Authorization", KEY)
            .header("Content-Type", "text/plain")
            .send("{}"),
    );
    assert_eq!(not_json.status, 415);
    assert_eq!(
        not_json.json(),
        json!({"message": "requests must be of type application/json"})
    );
    let body = json!({"language": "python", "version": "*", "files": [{"content": "print(1)"}]});
    // No network configured: a caller without a key is refused, loopback included.
    assert_eq!(execute(&server, None, &body).status, 401);
    assert_eq!(
        execute(&server, Some("not-the-key-at-all"), &body).status,
        401
    );
    assert_eq!(execute(&server, Some(KEY), &body).status, 200);
}

#[test]
fn piston_routes_are_off_unless_enabled() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let body = json!({"language": "python", "version": "*", "files": [{"content": "print(1)"}]});
    assert_eq!(execute(&server, None, &body).status, 404);
    assert_eq!(
        reply(client().get(server.url("/api/v2/runtimes")).call()).status,
        404
    );
}
