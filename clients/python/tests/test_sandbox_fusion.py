"""SandboxFusion's API on judge-server (docs/compat.md), driven by the real clients: the
``sandbox-fusion`` package from PyPI and verl's own ``check_correctness``, taken from the verl
wheel on PyPI by the test set-up (``VERDICT_VERL_SANDBOX_FUSION``: the path of its
``verl/utils/reward_score/sandbox_fusion/utils.py``; importing the ``verl`` package itself would
pull torch). A verl user changes one URL: these tests hold that."""

import base64
import importlib.util
import json
import os
import threading

import pytest
import requests
import sandbox_fusion
from sandbox_fusion import (RunCodeRequest, RunStatus, SubmitRequest, TestConfig, run_code,
                            submit)

from conftest import SANDBOX_FUSION_SECRET

APLUSB_CPP = """#include <iostream>
int main() { long long a, b; std::cin >> a >> b; std::cout << a + b << std::endl; }
"""
WRONG_CPP = """#include <iostream>
int main() { long long a, b; std::cin >> a >> b; std::cout << a - b << std::endl; }
"""
LOOP_CPP = "int main() { volatile unsigned long x = 0; for (;;) x++; }\n"
BROKEN_CPP = "int main() { return }\n"
TESTS = {"inputs": ["1 2\n", "3 4\n", "-5 5\n"], "outputs": ["3\n", "7\n", "0\n"]}


@pytest.fixture(scope="module")
def verl():
    path = os.environ.get("VERDICT_VERL_SANDBOX_FUSION")
    if not path or not os.path.isfile(path):
        pytest.fail("VERDICT_VERL_SANDBOX_FUSION must name verl's sandbox_fusion/utils.py "
                    "(scripts/test.sh extracts it from the verl wheel on PyPI)")
    spec = importlib.util.spec_from_file_location("verl_sandbox_fusion_utils", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def secret_url(server):
    return f"{server.url}/sf/{SANDBOX_FUSION_SECRET}"


def check(verl, url, in_outs, code, language, **kwargs):
    """verl's own call: one POST /run_code per test case."""
    results, metadata = verl.check_correctness(
        sandbox_fusion_url=f"{url}/run_code", in_outs=in_outs, generation=code, timeout=10,
        language=language, **kwargs)
    return results, metadata


def test_verls_check_correctness_scores_cpp_by_its_own_rules(sandbox_fusion_server, verl):
    url = secret_url(sandbox_fusion_server)
    assert check(verl, url, TESTS, APLUSB_CPP, "cpp")[0] == [True, True, True]
    assert check(verl, url, TESTS, WRONG_CPP, "cpp")[0] == [False, False, False]
    results, metadata = check(verl, url, TESTS, BROKEN_CPP, "cpp")
    assert results == [-4, -4, -4], metadata
    results, metadata = check(verl, url, {"inputs": ["1 2\n"], "outputs": ["3\n"]}, LOOP_CPP,
                              "cpp")
    assert results == [-3], metadata


def test_verls_function_wrapper_runs_python_and_exits_are_not_passes(sandbox_fusion_server,
                                                                     verl):
    url = sandbox_fusion_server.url  # the root route: loopback is let in by default
    in_outs = {"inputs": ["1\n2", "[1, 2]\n[3]"], "outputs": ["3", "[1, 2, 3]"],
               "fn_name": "add"}
    right = "def add(a, b):\n    return a + b\n"
    assert check(verl, url, in_outs, right, "python")[0] == [True, True]
    # verl compares what the wrapper printed: exiting early prints nothing, so it fails.
    for hack in ("import sys\nsys.exit(0)\n", "import os\nos._exit(0)\n"):
        assert check(verl, url, in_outs, hack, "python")[0] == [False, False]


def test_the_sandbox_fusion_package_reads_every_answer(sandbox_fusion_server):
    url = secret_url(sandbox_fusion_server)
    response = run_code(RunCodeRequest(code="import sys\nprint(sys.stdin.read()[::-1])",
                                       language="python", stdin="abc"), endpoint=url)
    assert response.status == RunStatus.Success
    assert response.run_result.stdout == "cba\n"
    assert response.run_result.return_code == 0

    # files in, fetch_files out
    files = {"data/in.txt": base64.b64encode(b"41").decode()}
    code = ("n = int(open('data/in.txt').read())\n"
            "open('out.txt', 'w').write(str(n + 1))\n")
    response = run_code(RunCodeRequest(code=code, language="python", files=files,
                                       fetch_files=["out.txt", "missing.txt"]), endpoint=url)
    assert response.status == RunStatus.Success, response
    assert base64.b64decode(response.files["out.txt"]) == b"42"
    assert "missing.txt" not in response.files

    response = run_code(RunCodeRequest(code=APLUSB_CPP, language="cpp", stdin="20 22"),
                        endpoint=url)
    assert response.compile_result.status.value == "Finished"
    assert response.run_result.stdout == "42\n"

    failed = run_code(RunCodeRequest(code="raise SystemExit(4)", language="python"),
                      endpoint=url)
    assert failed.status == RunStatus.Failed
    assert failed.run_result.return_code == 4

    # SandboxFusion's php runs as verdict's PHP.
    php = run_code(RunCodeRequest(code='<?php echo 6 * 7, "\\n";', language="php"), endpoint=url)
    assert php.status == RunStatus.Success, php
    assert php.run_result.stdout == "42\n"

    # A language SandboxFusion knows and verdict does not run: FastAPI's 422, naming it.
    answer = requests.post(f"{url}/run_code", json={"code": "SELECT 1;", "language": "sql"})
    assert answer.status_code == 422
    detail = answer.json()["detail"]
    assert detail[0]["loc"] == ["body", "language"] and "sql" in detail[0]["msg"]

    sandbox_fusion.set_endpoint(url)
    assert run_code(RunCodeRequest(code="print(2)", language="python")).run_result.stdout == "2\n"


def test_submit_with_provided_data_judges_the_record_and_fails_the_hacks(sandbox_fusion_server):
    url = secret_url(sandbox_fusion_server)
    record = {
        "task_id": "HumanEval/add", "entry_point": "add",
        "prompt": "def add(a, b):\n    \"\"\"Return a + b.\"\"\"\n",
        "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n",
    }

    def judged(completion):
        return submit(SubmitRequest(dataset="humaneval", id="add", completion=completion,
                                    config=TestConfig(provided_data=record)), endpoint=url)

    result = judged("    return a + b\n")
    assert result.accepted, result
    assert [t.passed for t in result.tests] == [True]
    for hack in ("    import sys; sys.exit(0)\n", "    import os; os._exit(0)\n",
                 "    print('All tests passed')\n    import os; os._exit(0)\n"):
        result = judged(hack)
        assert not result.accepted, (hack, result)

    answer = requests.post(f"{url}/submit", json={"dataset": "x", "id": 1, "completion": "",
                                                  "config": {}})
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["body", "config", "provided_data"]


def test_a_wrong_secret_is_not_found_and_many_clients_at_once_all_get_answers(
        sandbox_fusion_server):
    answer = requests.post(f"{sandbox_fusion_server.url}/sf/not-the-secret-0000000/run_code",
                           json={"code": "print(1)", "language": "python"})
    assert answer.status_code == 404
    assert answer.json() == {"detail": "Not Found"}

    url = secret_url(sandbox_fusion_server)
    outcomes = []

    def one(i):
        response = requests.post(f"{url}/run_code", timeout=120, json={
            "code": APLUSB_CPP, "language": "cpp", "stdin": f"{i} {i}\n"})
        outcomes.append((i, response.status_code, response.json()))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(outcomes) == 24
    for i, status, body in outcomes:
        assert status == 200, body
        assert body["run_result"]["stdout"] == f"{2 * i}\n", body
    reused = [b["compile_result"]["verdict"]["build_reused"] for _, _, b in outcomes]
    assert reused.count(False) <= 1, "identical sources compiled once across calls"
