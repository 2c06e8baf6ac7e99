//! Jobe's REST API (docs/compat.md) on a real server, driven with the requests Moodle's
//! CodeRunner sends (its Jobe sandbox class: the URLs under `/jobe/index.php/restapi/`, the
//! run first without its files, the files put on a 404 and the run sent again, `X-API-KEY`),
//! and the outcomes, defaults and messages Jobe's own tests expect.

use crate::common::{TestServer, api_keys, client, config, reply};
use serde_json::{Value, json};
use verdict_judge_server::{ApiAccess, JobeConfig, ServerConfig};

const KEY: &str = "moodle-key-0123456789";
const API: &str = "/jobe/index.php/restapi";

fn jobe_config(networks: Vec<String>) -> ServerConfig {
    ServerConfig {
        jobe: JobeConfig {
            access: ApiAccess {
                enabled: true,
                keys: api_keys(KEY, "moodle"),
                networks,
                ..ApiAccess::default()
            },
            ..JobeConfig::default()
        },
        ..config()
    }
}

/// A request as CodeRunner's `http_request` sends it.
fn call(
    server: &TestServer,
    method: &str,
    resource: &str,
    body: Option<&Value>,
) -> crate::common::Reply {
    let url = server.url(&format!("{API}/{resource}"));
    let agent = client();
    let with_headers = |r: ureq::RequestBuilder<ureq::typestate::WithBody>| {
        r.header("User-Agent", "CodeRunner")
            .header("Content-Type", "application/json; charset=utf-8")
            .header("Accept", "application/json")
            .header("X-API-KEY", KEY)
    };
    match method {
        "GET" => reply(
            agent
                .get(&url)
                .header("Accept", "application/json")
                .header("X-API-KEY", KEY)
                .call(),
        ),
        "HEAD" => reply(agent.head(&url).header("X-API-KEY", KEY).call()),
        "PUT" => reply(
            with_headers(agent.put(&url)).send(body.map(Value::to_string).unwrap_or_default()),
        ),
        _ => reply(
            with_headers(agent.post(&url)).send(body.map(Value::to_string).unwrap_or_default()),
        ),
    }
}

fn run(server: &TestServer, spec: Value) -> crate::common::Reply {
    call(server, "POST", "runs", Some(&json!({"run_spec": spec})))
}

fn md5ish(text: &str) -> String {
    // CodeRunner names a file by the MD5 of its contents; any 8+ alphanumerics do.
    format!(
        "{:032x}",
        text.bytes().fold(0u128, |h, b| h
            .wrapping_mul(131)
            .wrapping_add(u128::from(b)))
    )
}

#[test]
fn jobe_runs_coderunners_requests_with_its_file_cache_round_trip() {
    let Some(server) = TestServer::start(jobe_config(Vec::new())) else {
        return;
    };
    let languages = call(&server, "GET", "languages", None);
    assert_eq!(languages.status, 200, "{}", languages.text);
    let ids: Vec<String> = languages
        .json()
        .as_array()
        .expect("a list")
        .iter()
        .map(|pair| pair[0].as_str().expect("[id, version]").to_string())
        .collect();
    for id in ["c", "cpp", "python3", "java", "nodejs"] {
        assert!(ids.iter().any(|i| i == id), "{id} in {ids:?}");
    }

    // CodeRunner: the run without the files first; 404 means put them and run again.
    let data = "The first file\nLine 2";
    let id = md5ish(data);
    let spec = json!({"language_id": "python3", "sourcecode": "print(open('file1').read())",
        "sourcefilename": "__tester__.python3", "input": "", "file_list": [[id, "file1"]]});
    let missing = run(&server, spec.clone());
    assert_eq!(missing.status, 404, "{}", missing.text);
    assert_eq!(
        missing.json(),
        json!("One or more of the specified files is missing/unavailable")
    );
    assert_eq!(
        call(&server, "HEAD", &format!("files/{id}"), None).status,
        404
    );
    // base64 of `data`.
    let put = call(
        &server,
        "PUT",
        &format!("files/{id}"),
        Some(&json!({"file_contents": "VGhlIGZpcnN0IGZpbGUKTGluZSAy"})),
    );
    assert_eq!(put.status, 204, "{}", put.text);
    assert_eq!(
        call(&server, "HEAD", &format!("files/{id}"), None).status,
        204
    );
    let answer = run(&server, spec);
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(
        answer.json(),
        json!({"run_id": null, "outcome": 15, "cmpinfo": "", "stdout": "The first file\nLine 2\n", "stderr": ""})
    );

    // A file written by the program is readable in the same run; stdin; Java's class from its
    // source; Python's interpreter arguments; runargs.
    let io = run(
        &server,
        json!({"language_id": "python3", "sourcefilename": "test.py", "input": "Line1\nLine2\n",
               "sourcecode": "with open('out.txt', 'w') as f:\n    f.write(input())\nprint(open('out.txt').read(), input())"}),
    );
    assert_eq!(io.json()["stdout"], "Line1 Line2\n", "{}", io.text);
    let java = run(
        &server,
        json!({"language_id": "java", "parameters": {"cputime": 10},
               "sourcecode": "public class Test {\n public static void main(String[] a) {\n  System.out.println(\"Un rôle délétère\");\n }\n}\n"}),
    );
    assert_eq!(java.json()["outcome"], 15, "{}", java.text);
    assert_eq!(java.json()["stdout"], "Un rôle délétère\n");
    let interpreter = run(
        &server,
        json!({"language_id": "python3", "sourcecode": "\n", "sourcefilename": "test.py",
               "parameters": {"interpreterargs": ["-c \"print(\\\"Blah\\\")\""]}}),
    );
    assert_eq!(
        interpreter.json()["stdout"],
        "Blah\n",
        "{}",
        interpreter.text
    );
    let args = run(
        &server,
        json!({"language_id": "python3", "sourcefilename": "test.py",
               "sourcecode": "import sys\nfor a in sys.argv[1:]:\n    print(a)",
               "parameters": {"runargs": ["Arg1", "Arg2"]}}),
    );
    assert_eq!(args.json()["stdout"], "Arg1\nArg2\n", "{}", args.text);
}

#[test]
fn jobe_outcomes_are_jobes_for_compile_errors_runtime_errors_and_limits() {
    let Some(server) = TestServer::start(jobe_config(Vec::new())) else {
        return;
    };
    let source = |language: &str, code: &str| json!({"language_id": language, "sourcecode": code});
    let limited = |code: &str, cputime: u32| json!({"language_id": "c", "sourcecode": code, "parameters": {"cputime": cputime}});
    // (the run, its outcome)
    let cases = [
        (source("python3", "print(\"Hello world!\"\n"), 11),
        (source("python3", "data = [1, 2]\nprint(data[2])\n"), 12),
        (
            source("python3", "import sys\nprint('x')\nsys.exit(4)\n"),
            15,
        ),
        (source("nodejs", "s = 'Hello world!\nconsole.log(s)\n"), 12),
        (
            source(
                "c",
                "#include <stdio.h>\nint main() {\n    printf(\"Hello\\n\")\n}\n",
            ),
            11,
        ),
        (source("c", "int main() { int unused; return 0; }\n"), 11),
        (
            source(
                "c",
                "#include <stdio.h>\nint main() { char *s = NULL; printf(\"%c\", *s); }\n",
            ),
            12,
        ),
        (limited("int main() { while(1) {}; }\n", 1), 13),
        (
            limited(
                "#include <stdio.h>\nint main() { while(1) { printf(\"Hello\"); }; }\n",
                2,
            ),
            13,
        ),
        (
            source(
                "cpp",
                "#include <iostream>\nint main() { std::cout << \"hi\\n\"; }\n",
            ),
            15,
        ),
    ];
    for (spec, outcome) in cases {
        let answer = run(&server, spec.clone());
        assert_eq!(answer.status, 200, "{spec}: {}", answer.text);
        assert_eq!(answer.json()["outcome"], outcome, "{spec}: {}", answer.text);
        if outcome == 11 {
            assert_ne!(answer.json()["cmpinfo"], "", "{}", answer.text);
        }
    }
    let binary = run(
        &server,
        json!({"language_id": "c", "sourcecode": "#include <stdio.h>\nint main() {\n    printf(\"Hello world\\n\\01\\006\\300\\311\\n\");\n}\n"}),
    );
    assert_eq!(
        binary.json()["stdout"],
        "Hello world\n\\x01\\x06\\xc0\\xc9\n",
        "{}",
        binary.text
    );
}

/// PHP and Octave as Jobe's own test suite (`testsubmit.py`) sends them: PHP's `php -l` is its
/// compile (a syntax error is 11), text outside `<?php ?>` is output; Octave reads stdin, a
/// script may define functions, and its syntax error is a runtime error (12).
#[test]
fn jobe_runs_php_and_octave_as_jobes_own_test_suite_sends_them() {
    use verdict_contracts::Language;
    if !crate::common::toolchains_installed(&[Language::Php, Language::Octave]) {
        return;
    }
    let Some(server) = TestServer::start(jobe_config(Vec::new())) else {
        return;
    };
    let languages = call(&server, "GET", "languages", None).json();
    for id in ["php", "octave"] {
        assert!(
            languages
                .as_array()
                .is_some_and(|l| l.iter().any(|pair| pair[0] == id)),
            "{id} in {languages}"
        );
    }
    let page = |php: &str| {
        format!("<!DOCTYPE html>\n<html>\n<body>\n<p><?php {php} ?></p>\n</body>\n</html>\n")
    };
    let php = run(
        &server,
        json!({"language_id": "php", "sourcecode": page("echo \"A paragraph\";"),
               "sourcefilename": "test.php", "parameters": {"cputime": 15}}),
    );
    assert_eq!(
        (php.json()["outcome"].clone(), php.json()["stdout"].clone()),
        (
            json!(15),
            json!(page("").replace("<?php  ?>", "A paragraph"))
        ),
        "{}",
        php.text
    );
    let broken = run(
        &server,
        json!({"language_id": "php", "sourcecode": page("echo \"A paragraph';"),
               "sourcefilename": "test.php", "parameters": {"cputime": 15}}),
    );
    assert_eq!(broken.json()["outcome"], 11, "{}", broken.text);
    assert_ne!(broken.json()["cmpinfo"], "", "{}", broken.text);

    let octave = |sourcecode: &str, input: &str| {
        run(
            &server,
            json!({"language_id": "octave", "sourcecode": sourcecode, "input": input,
                   "sourcefilename": "jobe_test.m", "parameters": {"memorylimit": 200000}}),
        )
        .json()
    };
    // Functions in a script, and lines read from stdin: both run (outcome 15).
    for (sourcecode, input, stdout) in [
        (
            "_blah_ = 0;\nfunction sq = sqr(n)\n    sq = n * n;\nend\n\nfprintf('%d\\n%d\\n%d\\n', sqr(-3), sqr(11), sqr(0));\n",
            "",
            "9\n121\n0\n",
        ),
        (
            "fprintf('%s\\n%s\\n', input('', 's'), input('', 's'));\n",
            "Line1\nLine2\n",
            "Line1\nLine2\n",
        ),
    ] {
        let ran = octave(sourcecode, input);
        assert_eq!(
            (ran["outcome"].clone(), ran["stdout"].clone()),
            (json!(15), json!(stdout)),
            "{ran}"
        );
    }
    let invalid = octave("s = \"hi there';\n", "");
    assert_eq!(invalid["outcome"], 12, "{invalid}");
}

#[test]
fn jobe_refuses_with_its_messages_and_lets_in_keys_and_networks_only() {
    let Some(server) = TestServer::start(jobe_config(Vec::new())) else {
        return;
    };
    let cases = [
        (
            json!({"language_id": "nosuchlanguage", "sourcecode": "x"}),
            "Language 'nosuchlanguage' is not known",
        ),
        (
            json!({"sourcecode": "x"}),
            "run_spec is missing the required attribute 'language_id'",
        ),
        (
            json!({"language_id": "python3"}),
            "run_spec is missing the required attribute 'sourcecode'",
        ),
        (
            json!({"language_id": "c", "sourcecode": "x", "parameters": {"cputime": 151}}),
            "cputime exceeds maximum allowed on this Jobe server (120 secs)",
        ),
    ];
    for (spec, message) in cases {
        let answer = run(&server, spec.clone());
        assert_eq!(answer.status, 400, "{spec}: {}", answer.text);
        assert_eq!(answer.json(), json!(message));
    }
    let overload = run(
        &server,
        json!({"language_id": "python3", "sourcecode": "!** TESTING OVERLOAD EXCEPTION **!"}),
    );
    assert_eq!(overload.json()["outcome"], 21, "{}", overload.text);
    let bad_put = call(
        &server,
        "PUT",
        "files/abcdefgh12",
        Some(&json!({"file_contents": "%%%"})),
    );
    assert_eq!(bad_put.status, 400);
    assert_eq!(
        bad_put.json(),
        json!("put: contents of file abcdefgh12 are not valid base-64")
    );

    // No network configured: a caller needs a key.
    let url = server.url(&format!("{API}/languages"));
    let missing = reply(client().get(&url).call());
    assert_eq!(
        (missing.status, missing.text.as_str()),
        (403, "Missing API key")
    );
    let unknown = reply(client().get(&url).header("X-API-KEY", "nope").call());
    assert_eq!(
        (unknown.status, unknown.text.as_str()),
        (403, "Unknown API key")
    );
}

#[test]
fn jobe_routes_are_off_unless_enabled() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let answer = reply(client().get(server.url(&format!("{API}/languages"))).call());
    assert_eq!(answer.status, 404);
}
