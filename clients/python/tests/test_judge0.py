"""Judge0 CE's API on judge-server (docs/compat.md), driven by Judge0's official Python SDK
(``judge0`` on PyPI) as a self-hosted CE client: its ``Client`` with the server's URL and the
``X-Auth-Token`` header, then ``judge0.run``, ``async_run`` + ``wait``, test cases (batches),
files. An app that uses the SDK changes its endpoint: these tests hold that."""

import judge0
import pytest
import requests

from conftest import JUDGE0_KEY

APLUSB_CPP = """#include <iostream>
int main() { long long a, b; std::cin >> a >> b; std::cout << a + b << std::endl; }
"""


@pytest.fixture(scope="module")
def client(judge0_server):
    return judge0.Client(endpoint=judge0_server.url, headers={"X-Auth-Token": JUDGE0_KEY})


def test_the_sdk_client_reads_languages_statuses_and_config(client):
    assert client.version == "1.13.1"
    ids = {language.id for language in client.languages}
    assert {52, 54, 71} <= ids, sorted(ids)
    assert client.is_language_supported(judge0.PYTHON)
    assert client.is_language_supported(judge0.CPP)
    assert client.get_language(71).name.startswith("Python (3.")
    assert len(client.get_statuses()) == 14
    assert client.config.max_submission_batch_size == 20
    assert client.config.allow_enable_network is False


def test_the_sdk_refuses_a_wrong_key(judge0_server):
    with pytest.raises(RuntimeError, match="Authentication failed"):
        judge0.Client(endpoint=judge0_server.url, headers={"X-Auth-Token": "wrong-key-0123456789"})
    answer = requests.get(f"{judge0_server.url}/languages", timeout=30)
    assert answer.status_code == 401


def test_judge0_run_runs_python_and_cpp(client):
    python = judge0.run(client=client, source_code="print('hello, verdict')",
                        language=judge0.PYTHON)
    assert python.status == judge0.Status.ACCEPTED, python
    assert python.stdout == "hello, verdict\n"
    assert python.token is not None and python.time is not None and python.memory > 0

    cpp = judge0.run(client=client, source_code=APLUSB_CPP, language=judge0.CPP, stdin="40 2",
                     expected_output="42")
    assert cpp.status == judge0.Status.ACCEPTED, cpp
    assert cpp.stdout == "42\n"


def test_test_cases_go_as_a_batch_and_get_judge0s_verdicts(client):
    results = judge0.run(client=client, source_code=APLUSB_CPP, language=judge0.CPP,
                         test_cases=[("1 2", "3"), ("2 2", "5"), judge0.TestCase("7 8", "15\n")])
    assert [r.status for r in results] == [
        judge0.Status.ACCEPTED, judge0.Status.WRONG_ANSWER, judge0.Status.ACCEPTED]
    assert [r.stdout for r in results] == ["3\n", "4\n", "15\n"]


def test_async_run_then_wait_and_the_error_statuses(client):
    submissions = [
        judge0.Submission(source_code="import time\ntime.sleep(0.5)\nprint('later')",
                          language=judge0.PYTHON),
        judge0.Submission(source_code="int main() { return }", language=judge0.CPP),
        judge0.Submission(source_code="import sys\nsys.exit(4)", language=judge0.PYTHON),
        judge0.Submission(source_code="while True: pass", language=judge0.PYTHON,
                          cpu_time_limit=1, wall_time_limit=3),
    ]
    created = judge0.async_run(client=client, submissions=submissions)
    assert all(s.token is not None for s in created)
    done = judge0.wait(client=client, submissions=created)
    later, broken, exited, looping = done
    assert later.status == judge0.Status.ACCEPTED and later.stdout == "later\n"
    assert broken.status == judge0.Status.COMPILATION_ERROR
    assert "error" in broken.compile_output
    assert exited.status == judge0.Status.RUNTIME_ERROR_NZEC and exited.exit_code == 4
    assert looping.status == judge0.Status.TIME_LIMIT_EXCEEDED


def test_additional_files_reach_the_program(client):
    files = judge0.Filesystem(content=[judge0.File(name="data.txt", content="21")])
    result = judge0.run(client=client, language=judge0.PYTHON, additional_files=files,
                        source_code="print(int(open('data.txt').read()) * 2)")
    assert result.status == judge0.Status.ACCEPTED, result
    assert result.stdout == "42\n"


@pytest.mark.parametrize("language, source_code", [
    (judge0.PHP, "<?php\n[$a, $b] = array_map('intval', explode(' ', trim(fgets(STDIN))));\n"
                 "echo $a + $b, \"\\n\";\n"),
    (judge0.TYPESCRIPT, "declare const require: (name: string) => any;\n"
                        "const [a, b]: number[] = require('fs').readFileSync(0, 'utf8')"
                        ".trim().split(' ').map(Number);\nconsole.log(a + b);\n"),
    (judge0.OCTAVE, "x = scanf('%d', 2);\nprintf('%d\\n', x(1) + x(2));\n"),
])
def test_the_sdks_php_typescript_and_octave_run_by_their_judge0_ids(client, language,
                                                                    source_code):
    assert client.is_language_supported(language), sorted(l.id for l in client.languages)
    result = judge0.run(client=client, source_code=source_code, language=language,
                        stdin="40 2", expected_output="42")
    assert result.status == judge0.Status.ACCEPTED, result
    assert result.stdout == "42\n"
