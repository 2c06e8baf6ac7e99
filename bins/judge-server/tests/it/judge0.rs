//! Judge0 CE's API (docs/compat.md) on a real server, with requests in the shapes Judge0's
//! API documents: languages and statuses, C++ and Python accepted with `wait=true`, Judge0's
//! statuses for wrong answers, compile errors, time limits, signals and exit codes, base64 and
//! `fields`, batches, `wait=false` then polling, tokens that outlive a restart, its 422 field
//! errors, keys, callbacks. (The `judge0` SDK from PyPI drives it in
//! `clients/python/tests/test_judge0.py`.)

use crate::common::{A_PLUS_B_CPP, Reply, TestServer, api_keys, client, config, poll_until, reply};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::time::Duration;
use verdict_judge_server::{ApiAccess, Judge0Config, ServerConfig};

const KEY: &str = "judge0-key-0123456789";
const ADMIN: &str = "judge0-admin-0123456789";

fn judge0_config(networks: Vec<String>) -> ServerConfig {
    ServerConfig {
        judge0: Judge0Config {
            access: ApiAccess {
                enabled: true,
                keys: api_keys(KEY, "course"),
                networks,
                ..ApiAccess::default()
            },
            ..Judge0Config::default()
        },
        max_body_kb: 512,
        ..config()
    }
}

fn call(server: &TestServer, method: &str, path: &str, body: Option<&Value>) -> Reply {
    match (method, body) {
        ("POST", Some(body)) => post_as(server, path, "application/json", &body.to_string()),
        ("DELETE", _) => reply(
            client()
                .delete(server.url(path))
                .header("X-Auth-Token", KEY)
                .call(),
        ),
        _ => get_with(server, path, "X-Auth-Token", KEY),
    }
}

/// POST `body`, of `content_type`, to `path` with the key.
fn post_as(server: &TestServer, path: &str, content_type: &str, body: &str) -> Reply {
    reply(
        client()
            .post(server.url(path))
            .header("X-Auth-Token", KEY)
            .header("Content-Type", content_type)
            .send(body),
    )
}

/// GET `path` with the header `name: value`.
fn get_with(server: &TestServer, path: &str, name: &str, value: &str) -> Reply {
    reply(client().get(server.url(path)).header(name, value).call())
}

/// POST `body` to `path` with the key.
fn post_json(server: &TestServer, path: &str, body: Value) -> Reply {
    call(server, "POST", path, Some(&body))
}

/// GET `path` with the key.
fn get_path(server: &TestServer, path: &str) -> Reply {
    call(server, "GET", path, None)
}

/// A submission of `source` in Judge0's language `language_id`.
fn program(source: &str, language_id: u32) -> Value {
    json!({"source_code": source, "language_id": language_id})
}

/// Creates a submission with `wait=false` (201): its token.
fn created_token(server: &TestServer, body: Value) -> String {
    let created = post_json(server, "/submissions", body);
    assert_eq!(created.status, 201, "{}", created.text);
    let token = created.json()["token"].as_str().expect("token").to_string();
    assert_eq!(created.json(), json!({"token": token}), "only the token");
    token
}

/// A server with Judge0's API on, its callbacks allowed to no network.
fn judge0_server() -> Option<TestServer> {
    TestServer::start(judge0_config(Vec::new()))
}

/// [`run`] with no query parameters beyond `wait=true`.
fn waited(server: &TestServer, body: Value) -> Value {
    run(server, "", body)
}

/// Runs `body` with `wait=true` and `query`: the answer (201).
fn run(server: &TestServer, query: &str, body: Value) -> Value {
    let answer = post_json(server, &format!("/submissions?wait=true{query}"), body);
    assert_eq!(answer.status, 201, "{}", answer.text);
    answer.json()
}

fn status_id(answer: &Value) -> u64 {
    answer["status"]["id"].as_u64().unwrap_or(0)
}

/// Polls `GET /submissions/{token}` until it is neither In Queue nor Processing.
fn poll(server: &TestServer, token: &str, fields: &str) -> Value {
    poll_until(Duration::from_secs(120), Duration::from_millis(100), || {
        let answer = get_path(server, &format!("/submissions/{token}?fields={fields}"));
        assert_eq!(answer.status, 200, "{}", answer.text);
        let answer = answer.json();
        if matches!(status_id(&answer), 1 | 2) {
            Err(format!("still {answer}"))
        } else {
            Ok(answer)
        }
    })
}

#[test]
fn judge0_languages_statuses_about_and_config_answer_as_judge0() {
    let Some(server) = judge0_server() else {
        return;
    };
    let languages = get_path(&server, "/languages");
    assert_eq!(languages.status, 200, "{}", languages.text);
    let languages = languages.json();
    let ids: Vec<u64> = languages
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|l| l["id"].as_u64())
        .collect();
    for id in [52, 54, 71] {
        assert!(ids.contains(&id), "{id} in {languages}");
    }
    let python = get_path(&server, "/languages/71").json();
    assert!(
        python["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("Python (3.")),
        "{python}"
    );
    assert_eq!(python["source_file"], "script.py");
    assert!(python["compile_cmd"].is_null());
    assert_eq!(get_path(&server, "/languages/999").status, 404);
    let all = get_path(&server, "/languages/all").json();
    assert_eq!(all[0]["is_archived"], false);

    let statuses = get_path(&server, "/statuses").json();
    assert_eq!(statuses.as_array().map(Vec::len), Some(14));
    assert_eq!(
        statuses[10],
        json!({"id": 11, "description": "Runtime Error (NZEC)"})
    );
    assert_eq!(get_path(&server, "/about").json()["version"], "1.13.1");
    let config = get_path(&server, "/config_info").json();
    assert_eq!(config["cpu_time_limit"], 5.0);
    assert_eq!(config["max_submission_batch_size"], 20);
    assert_eq!(config["allow_enable_network"], false);
    let workers = get_path(&server, "/workers").json();
    assert_eq!(workers[0]["queue"], "1.13.1");
}

#[test]
fn judge0_runs_cpp_and_python_with_wait_and_compares_expected_output_as_judge0() {
    let Some(server) = judge0_server() else {
        return;
    };
    let cpp = waited(
        &server,
        json!({"source_code": A_PLUS_B_CPP, "language_id": 54, "stdin": "1 2", "expected_output": "3"}),
    );
    assert_eq!(status_id(&cpp), 3, "{cpp}");
    assert_eq!(cpp["status"]["description"], "Accepted");
    assert_eq!(cpp["stdout"], "3\n");
    let keys: Vec<&str> = cpp
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "stdout",
            "time",
            "memory",
            "stderr",
            "token",
            "compile_output",
            "message",
            "status"
        ],
        "Judge0's default fields in its serializer's order (its documented answer's)"
    );
    assert!(
        cpp["time"]
            .as_str()
            .is_some_and(|t| t.parse::<f64>().is_ok()),
        "{cpp}"
    );
    assert!(cpp["memory"].as_u64().is_some_and(|m| m > 0), "{cpp}");
    assert!(cpp["stderr"].is_null() && cpp["compile_output"].is_null() && cpp["message"].is_null());

    // The SDK's id for C++ (52) runs the same compiler; trailing white space is not compared.
    let same = waited(
        &server,
        json!({"source_code": A_PLUS_B_CPP, "language_id": 52, "stdin": "40 2\n", "expected_output": "42  \n\n\n"}),
    );
    assert_eq!(status_id(&same), 3, "{same}");

    let python = run(
        &server,
        "&fields=*",
        json!({"source_code": "print(int(input()) * 2)", "language_id": 71, "stdin": "21",
               "expected_output": "41"}),
    );
    assert_eq!(status_id(&python), 4, "{python}");
    assert_eq!(python["status"]["description"], "Wrong Answer");
    assert_eq!(python["stdout"], "42\n");
    assert_eq!(python["exit_code"], 0);
    assert_eq!(python["language"]["id"], 71);
    assert_eq!(python["cpu_time_limit"], "5.0");
    assert_eq!(python["memory_limit"], 128000);
    assert_eq!(python["number_of_runs"], 1);
    assert!(
        python["created_at"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z') && t.len() == 24),
        "{python}"
    );
    assert!(python["finished_at"].is_string());
    assert!(python["wall_time"].is_string());
    let leading = waited(
        &server,
        json!({"source_code": "print(' 1')", "language_id": 71, "expected_output": "1"}),
    );
    assert_eq!(
        status_id(&leading),
        4,
        "leading white space counts: {leading}"
    );
}

/// Judge0's ids 68 (PHP), 74 (TypeScript) and 66 (Octave) run verdict's languages: listed
/// with the installed version, A+B Accepted against `expected_output`, and TypeScript's type
/// error a Compilation Error with tsc's message.
#[test]
fn judge0_runs_php_typescript_and_octave_by_judge0s_ids() {
    use verdict_contracts::Language;
    let languages = [Language::Php, Language::Typescript, Language::Octave];
    if !crate::common::toolchains_installed(&languages) {
        return;
    }
    let Some(server) = judge0_server() else {
        return;
    };
    for (id, name, source_file, compiled) in [
        (68, "PHP (", "script.php", false),
        (74, "TypeScript (", "script.ts", true),
        (66, "Octave (", "script.m", false),
    ] {
        let language = get_path(&server, &format!("/languages/{id}")).json();
        assert!(
            language["name"]
                .as_str()
                .is_some_and(|n| n.starts_with(name)),
            "{language}"
        );
        assert_eq!(language["source_file"], source_file, "{language}");
        assert_eq!(!language["compile_cmd"].is_null(), compiled, "{language}");
    }
    let sources = [
        (
            68,
            "<?php\n[$a, $b] = array_map('intval', explode(' ', trim(fgets(STDIN))));\necho $a + $b, \"\\n\";\n",
        ),
        (
            74,
            "declare const require: (name: string) => any;\nconst [a, b]: number[] = require('fs').readFileSync(0, 'utf8').trim().split(' ').map(Number);\nconsole.log(a + b);\n",
        ),
        (66, "x = scanf('%d', 2);\nprintf('%d\\n', x(1) + x(2));\n"),
    ];
    for (id, source) in sources {
        let answer = waited(
            &server,
            json!({"source_code": source, "language_id": id, "stdin": "40 2", "expected_output": "42"}),
        );
        assert_eq!(status_id(&answer), 3, "{id}: {answer}");
        assert_eq!(answer["stdout"], "42\n", "{id}: {answer}");
    }
    let type_error = waited(
        &server,
        program("const n: number = 'forty-two';\nconsole.log(n);\n", 74),
    );
    assert_eq!(status_id(&type_error), 6, "{type_error}");
    assert!(
        type_error["compile_output"]
            .as_str()
            .is_some_and(|o| o.contains("TS2322")),
        "{type_error}"
    );
}

#[test]
fn judge0_statuses_for_compile_errors_time_limits_signals_and_exit_codes() {
    let Some(server) = judge0_server() else {
        return;
    };
    let failed = waited(&server, program("int main(){ return }", 54));
    assert_eq!(status_id(&failed), 6, "{failed}");
    assert_eq!(failed["status"]["description"], "Compilation Error");
    assert!(
        failed["compile_output"]
            .as_str()
            .is_some_and(|o| o.contains("error")),
        "{failed}"
    );
    assert!(failed["stdout"].is_null() && failed["time"].is_null());

    let tle = waited(
        &server,
        json!({"source_code": "while True: pass", "language_id": 71, "cpu_time_limit": 1,
               "cpu_extra_time": 0.5, "wall_time_limit": 5}),
    );
    assert_eq!(status_id(&tle), 5, "{tle}");
    assert_eq!(tle["status"]["description"], "Time Limit Exceeded");

    let cases = [
        (
            "#include <cstdio>\nint main(){ volatile int *p = 0; *p = 1; puts(\"no\"); }",
            7,
            11,
        ),
        (
            "#include <cstdio>\nint main(){ volatile int a = 7, z = 0; printf(\"%d\", a / z); }",
            9,
            8,
        ),
        ("#include <cstdlib>\nint main(){ abort(); }", 10, 6),
    ];
    for (source, status, signal) in cases {
        let answer = run(
            &server,
            "&fields=status,exit_signal,exit_code,message",
            json!({"source_code": source, "language_id": 54}),
        );
        assert_eq!(status_id(&answer), status, "{source}: {answer}");
        assert_eq!(answer["exit_signal"], signal, "{answer}");
        assert_eq!(
            answer["message"],
            format!("Caught fatal signal {signal}"),
            "{answer}"
        );
    }
    let nzec = run(
        &server,
        "&fields=*",
        json!({"source_code": "import sys\nprint('out')\nprint('err', file=sys.stderr)\nsys.exit(3)",
               "language_id": 71}),
    );
    assert_eq!(status_id(&nzec), 11, "{nzec}");
    assert_eq!(nzec["exit_code"], 3);
    assert_eq!(nzec["message"], "Exited with error status 3");
    assert_eq!(
        (nzec["stdout"].clone(), nzec["stderr"].clone()),
        (json!("out\n"), json!("err\n"))
    );
    let flood = waited(
        &server,
        json!({"source_code": "import sys\nsys.stdout.write('x' * 4000000)", "language_id": 71,
               "max_file_size": 64}),
    );
    assert_eq!(status_id(&flood), 8, "over max_file_size: {flood}");
}

#[test]
fn judge0_base64_fields_arguments_options_files_and_runs() {
    let Some(server) = judge0_server() else {
        return;
    };
    // base64 in and out, as Ruby's encode64 writes it; raw bytes that are not UTF-8.
    let source = "import sys\nsys.stdout.buffer.write(bytes([104, 105, 255]))";
    let encoded = |text: &str| {
        use std::fmt::Write as _;
        let table = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let bytes = text.as_bytes();
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let n = chunk.iter().fold(0u32, |acc, b| (acc << 8) | u32::from(*b))
                << (8 * (3 - chunk.len()));
            for i in 0..4 {
                if i <= chunk.len() {
                    let _ = write!(out, "{}", table[(n >> (18 - 6 * i) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    };
    let answer = run(
        &server,
        "&base64_encoded=true",
        json!({"source_code": encoded(source), "language_id": 71}),
    );
    assert_eq!(status_id(&answer), 3, "{answer}");
    assert_eq!(answer["stdout"], "aGn/\n");
    let token = answer["token"].as_str().expect("token").to_string();
    let raw = get_path(&server, &format!("/submissions/{token}"));
    assert_eq!(raw.status, 400, "{}", raw.text);
    assert!(
        raw.json()["error"]
            .as_str()
            .is_some_and(|e| e.contains("base64_encoded=true"))
    );
    let fields = get_path(
        &server,
        &format!("/submissions/{token}?base64_encoded=true&fields=stdout,status_id,language_id"),
    )
    .json();
    assert_eq!(
        fields,
        json!({"language_id": 71, "stdout": "aGn/\n", "status_id": 3})
    );
    let bad = get_path(&server, &format!("/submissions/{token}?fields=stdout,nope"));
    assert_eq!(
        (bad.status, bad.json()),
        (400, json!({"error": "invalid fields: [nope]"}))
    );

    // Arguments split as bash splits them; compiler options; a zip of files; runs averaged.
    let args = waited(
        &server,
        json!({"source_code": "import sys\nprint(sys.argv[1:], open('data/in.txt').read())",
               "language_id": 71, "command_line_arguments": "a 'b c'",
               "additional_files": encoded_zip(), "number_of_runs": 3}),
    );
    assert_eq!(status_id(&args), 3, "{args}");
    assert_eq!(args["stdout"], "['a', 'b c'] 42\n\n");
    let options = waited(
        &server,
        json!({"source_code": "#include <cstdio>\nint main(){ printf(\"%d\\n\", X); }",
               "language_id": 54, "compiler_options": "-DX=7"}),
    );
    assert_eq!(options["stdout"], "7\n", "{options}");
}

/// A zip holding `data/in.txt` = `42\n` (deflated), base64: written once by Python's
/// `zipfile` and pasted, so the test needs no zip writer.
fn encoded_zip() -> String {
    "UEsDBBQAAAAIAFJWfV0xKYbRBQAAAAMAAAALAAAAZGF0YS9pbi50eHQzMeICAFBLAQIUAxQAAAAIAFJWfV0xKYbRBQAAAAMAAAALAAAAAAAAAAAAAACAAQAAAABkYXRhL2luLnR4dFBLBQYAAAAAAQABADkAAAAuAAAAAAA="
        .into()
}

#[test]
fn judge0_batches_and_wait_false_submissions_are_polled_by_token() {
    let Some(server) = judge0_server() else {
        return;
    };
    let token = created_token(
        &server,
        program("import time\ntime.sleep(1)\nprint('late')", 71),
    );
    let early = get_path(&server, &format!("/submissions/{token}")).json();
    assert!(
        matches!(status_id(&early), 1 | 2),
        "waiting or running first: {early}"
    );
    let done = poll(&server, &token, "stdout,status");
    assert_eq!(
        (status_id(&done), done["stdout"].clone()),
        (3, json!("late\n"))
    );

    let batch = post_json(
        &server,
        "/submissions/batch",
        json!({"submissions": [
            {"source_code": "print(1)", "language_id": 71},
            {"source_code": "print(2)", "language_id": 999},
            {"source_code": A_PLUS_B_CPP, "language_id": 54, "stdin": "2 3"},
        ]}),
    );
    assert_eq!(batch.status, 201, "{}", batch.text);
    let batch = batch.json();
    assert_eq!(
        batch[1],
        json!({"language_id": ["language with id 999 doesn't exist"]})
    );
    let tokens = [
        batch[0]["token"].as_str().expect("token"),
        "00000000-0000-4000-8000-000000000000",
        batch[2]["token"].as_str().expect("token"),
    ];
    for token in [tokens[0], tokens[2]] {
        poll(&server, token, "status");
    }
    let shown = get_path(
        &server,
        &format!(
            "/submissions/batch?tokens={}&fields=token,stdout,status_id",
            tokens.join(",")
        ),
    );
    assert_eq!(shown.status, 200, "{}", shown.text);
    let shown = shown.json();
    assert_eq!(shown["submissions"][0]["stdout"], "1\n");
    assert!(shown["submissions"][1].is_null());
    assert_eq!(shown["submissions"][2]["stdout"], "5\n");
    let empty = post_json(&server, "/submissions/batch", json!({"submissions": []}));
    assert_eq!(
        (empty.status, empty.json()),
        (
            400,
            json!({"error": "there should be at least one submission in a batch"})
        )
    );
    let all_bad = post_json(
        &server,
        "/submissions/batch",
        json!({"submissions": [{"language_id": 71}]}),
    );
    assert_eq!(all_bad.status, 422, "{}", all_bad.text);
}

#[test]
fn judge0_refuses_bad_fields_with_422_unknown_tokens_with_404_and_callers_without_a_key() {
    let Some(server) = judge0_server() else {
        return;
    };
    let bad = post_json(
        &server,
        "/submissions?wait=true",
        json!({"source_code": "print(1)", "language_id": 999, "cpu_time_limit": 100,
                     "memory_limit": 10, "enable_network": true}),
    );
    assert_eq!(bad.status, 422, "{}", bad.text);
    assert_eq!(
        bad.json(),
        json!({
            "cpu_time_limit": ["must be less than or equal to 15.0"],
            "enable_network": ["enabling network is not allowed"],
            "language_id": ["language with id 999 doesn't exist"],
            "memory_limit": ["must be greater than or equal to 2048"],
        })
    );
    let blank = post_json(&server, "/submissions", json!({"language_id": 71}));
    assert_eq!(
        (blank.status, blank.json()),
        (422, json!({"source_code": ["can't be blank"]}))
    );
    let garbage = post_as(&server, "/submissions", "application/json", "{not json");
    assert_eq!(garbage.status, 400, "{}", garbage.text);
    let missing = get_path(&server, "/submissions/no-such-token");
    assert_eq!(missing.status, 404, "{}", missing.text);
    assert!(missing.json()["error"].is_string());
    // Listing and deleting need Judge0's AUTHZ token, and none is configured: 403.
    let delete = call(&server, "DELETE", "/submissions/no-such-token", None);
    assert_eq!(delete.status, 403, "{}", delete.text);
    assert_eq!(get_path(&server, "/submissions").status, 403);

    // No key from outside the networks, or a wrong one: 401.
    let anonymous = reply(client().get(server.url("/languages")).call());
    assert_eq!(anonymous.status, 401);
    let wrong = get_with(&server, "/statuses", "X-Auth-Token", "wrong-key-0123456789");
    assert_eq!(wrong.status, 401);
    let by_query = reply(
        client()
            .get(server.url(&format!("/statuses?X-Auth-Token={KEY}")))
            .call(),
    );
    assert_eq!(by_query.status, 200, "the key as a query parameter");
}

#[test]
fn judge0_tokens_outlive_a_restart_and_waiting_submissions_run_after_it() {
    let data = tempfile::tempdir().expect("temp dir");
    let cfg = ServerConfig {
        data_dir: data.path().to_owned(),
        ..judge0_config(Vec::new())
    };
    let Some(server) = TestServer::start_keeping_data(cfg.clone()) else {
        return;
    };
    let finished = waited(&server, program("print('kept')", 71));
    let finished = finished["token"].as_str().expect("token").to_string();
    let waiting = created_token(
        &server,
        program("import time\ntime.sleep(3)\nprint('after')", 71),
    );
    std::thread::sleep(Duration::from_millis(300));
    assert!(server.stop(Duration::from_secs(60)), "the server stops");

    let server = TestServer::start_keeping_data(cfg).expect("the server starts again");
    let kept = get_path(&server, &format!("/submissions/{finished}"));
    assert_eq!(kept.status, 200, "{}", kept.text);
    assert_eq!(kept.json()["stdout"], "kept\n");
    let after = poll(&server, &waiting, "stdout,status");
    assert_eq!(after["stdout"], "after\n", "{after}");
}

#[test]
fn judge0_callbacks_are_put_to_allowed_networks_only() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let mut head = String::new();
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let _ = reader
                .get_mut()
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            let _ = tx.send((head, String::from_utf8_lossy(&body).into_owned()));
        }
    });
    let url = format!("http://127.0.0.1:{port}/done");
    let mut cfg = judge0_config(Vec::new());
    cfg.judge0.callback_allow_networks = vec!["127.0.0.0/8".parse().expect("network")];
    let Some(server) = TestServer::start(cfg) else {
        return;
    };
    let token = created_token(
        &server,
        json!({"source_code": "print('called')", "language_id": 71, "callback_url": url}),
    );
    let (head, body) = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("a callback");
    assert!(head.starts_with("PUT /done "), "{head}");
    let body: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(body["token"], token.as_str());
    assert_eq!(body["status"]["id"], 3);
    assert_eq!(
        body["stdout"], "Y2FsbGVkCg==\n",
        "base64, as Judge0 sends it"
    );
    drop(server);

    // Without the network allowed, loopback is refused (the SSRF rules of remote assets).
    let Some(server) = judge0_server() else {
        return;
    };
    let refused = waited(
        &server,
        json!({"source_code": "print(1)", "language_id": 71, "callback_url": url}),
    );
    assert_eq!(status_id(&refused), 3);
    assert!(
        rx.recv_timeout(Duration::from_secs(3)).is_err(),
        "no callback to a loopback address"
    );
}

#[test]
fn judge0_lists_and_deletes_for_its_authz_token_reads_forms_and_query_parameters_and_bounds_its_queue()
 {
    let mut cfg = judge0_config(Vec::new());
    cfg.judge0.enable_submission_delete = true;
    cfg.judge0.authz_keys = vec![ADMIN.into()];
    cfg.judge0.limits.max_queue_size = 1;
    let Some(server) = TestServer::start(cfg) else {
        return;
    };
    let token = created_token(
        &server,
        program("import time\ntime.sleep(1.5)\nprint('slow')", 71),
    );
    let full = post_json(&server, "/submissions", program("print(1)", 71));
    assert_eq!(
        (full.status, full.json()),
        (503, json!({"error": "queue is full"}))
    );
    let admin = |method: &str, path: &str| {
        let url = server.url(path);
        let request = match method {
            "DELETE" => client().delete(&url),
            _ => client().get(&url),
        };
        reply(
            request
                .header("X-Auth-Token", KEY)
                .header("X-Auth-User", ADMIN)
                .call(),
        )
    };
    let not_admin = call(&server, "DELETE", &format!("/submissions/{token}"), None);
    assert_eq!(not_admin.status, 403, "without the AUTHZ token");
    let early = admin("DELETE", &format!("/submissions/{token}"));
    assert_eq!(early.status, 400, "{}", early.text);
    assert!(
        early.json()["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("submission cannot be deleted because its status is ")),
        "{}",
        early.text
    );
    poll(&server, &token, "status");
    let listed = admin("GET", "/submissions?per_page=1&fields=token,stdout");
    assert_eq!(listed.status, 200, "{}", listed.text);
    assert_eq!(
        listed.json(),
        json!({"submissions": [{"stdout": "slow\n", "token": token}],
               "meta": {"current_page": 1, "next_page": null, "prev_page": null,
                        "total_pages": 1, "total_count": 1}})
    );
    assert_eq!(
        admin("GET", "/submissions?page=0").json(),
        json!({"error": "invalid page: 0"})
    );
    let deleted = admin("DELETE", &format!("/submissions/{token}"));
    assert_eq!(deleted.status, 200, "{}", deleted.text);
    assert_eq!(deleted.json()["stdout"], "c2xvdwo=\n", "answered in base64");
    assert_eq!(
        get_path(&server, &format!("/submissions/{token}")).status,
        404
    );

    let form = post_as(
        &server,
        "/submissions?wait=true",
        "application/x-www-form-urlencoded",
        "language_id=71&source_code=print%28input%28%29%29&stdin=form",
    );
    assert_eq!(form.status, 201, "{}", form.text);
    assert_eq!(form.json()["stdout"], "form\n");
    let query = reply(
        client()
            .post(server.url("/submissions?wait=true&language_id=71&source_code=print(5)"))
            .header("X-Auth-Token", KEY)
            .send_empty(),
    );
    assert_eq!(query.status, 201, "{}", query.text);
    assert_eq!(query.json()["stdout"], "5\n");
}

#[test]
fn judge0_keys_come_in_the_configured_header_as_judge0s_authn_header() {
    let mut cfg = judge0_config(Vec::new());
    cfg.judge0.auth_header = "X-RapidAPI-Key".into();
    let Some(server) = TestServer::start(cfg) else {
        return;
    };
    let rapid = get_with(&server, "/statuses", "X-RapidAPI-Key", KEY);
    assert_eq!(rapid.status, 200, "{}", rapid.text);
    let other = get_with(&server, "/statuses", "X-Auth-Token", KEY);
    assert_eq!(other.status, 401);
}
