"""Piston's API v2 on judge-server (docs/compat.md), driven by real Piston clients from PyPI:
``piston-rspy`` (the Python bindings of piston_rs, listed in Piston's README) and
``aiopyston`` (Pyston, also listed there). A bot or an IDE changes its base URL: these tests
hold that."""

import asyncio

import piston_rspy
import requests
from pyston import File, PystonClient

from conftest import PISTON_KEY

APLUSB_CPP = """#include <iostream>
int main() { long long a, b; std::cin >> a >> b; std::cout << a + b << std::endl; }
"""


def base(server):
    return f"{server.url}/api/v2"


def test_piston_rspy_lists_runtimes_and_runs_python_and_cpp(piston_server):
    async def main():
        client = piston_rspy.Client.with_url(base(piston_server))
        runtimes = await client.fetch_runtimes()
        by_name = {r.language: r for r in runtimes}
        assert {"python", "c++", "java"} <= set(by_name), sorted(by_name)
        assert "py" in by_name["python"].aliases

        python = (piston_rspy.Executor()
                  .set_language("python")
                  .set_version("3.x")
                  .add_file(piston_rspy.File(name="main.py",
                                             content="import sys\nprint(input(), sys.argv[1:])"))
                  .set_stdin("hello")
                  .add_args(["a", "b"]))
        response = await client.execute(python)
        assert response.is_ok(), response
        assert response.language == "python"
        assert response.run.stdout == "hello ['a', 'b']\n"
        assert response.run.code == 0 and response.run.signal is None
        assert response.compile is None

        cpp = (piston_rspy.Executor()
               .set_language("cpp")
               .add_file(piston_rspy.File(name="main.cpp", content=APLUSB_CPP))
               .set_stdin("40 2"))
        response = await client.execute(cpp)
        assert response.run.stdout == "42\n", response.run
        assert response.compile is not None and response.compile.code == 0

        broken = (piston_rspy.Executor()
                  .set_language("c++")
                  .add_file(piston_rspy.File(content="int main() { return }")))
        response = await client.execute(broken)
        assert response.compile.code != 0
        assert response.run.code == response.compile.code, "the compile stands in for the run"
        assert "error" in response.compile.stderr

        killed = (piston_rspy.Executor()
                  .set_language("python")
                  .add_file(piston_rspy.File(content="while True: pass"))
                  .set_run_timeout(500))
        response = await client.execute(killed)
        assert response.run.signal == "SIGKILL" and response.run.code is None

        # The public instance's key header, with the key's own category.
        keyed = piston_rspy.Client.with_url_and_key(base(piston_server), PISTON_KEY)
        response = await keyed.execute(python)
        assert response.run.stdout == "hello ['a', 'b']\n"

    asyncio.run(main())


def test_pyston_runs_code_and_reads_pistons_errors(piston_server):
    async def main():
        client = PystonClient(base_url=base(piston_server) + "/")
        try:
            languages = await client.languages()
            assert {"python", "c++"} <= languages
            output = await client.execute("python", [File("print(input()[::-1])")], stdin="abc")
            assert output.run_stage.stdout == "cba\n"
            assert output.run_stage.code == 0
            output = await client.execute("cpp", [File(APLUSB_CPP, filename="a.cpp")],
                                          stdin="1 2")
            assert str(output) == "3\n"
            assert output.compile_stage.code == 0
            try:
                await client.execute("cobol", [File("DISPLAY 'x'.")])
            except Exception as error:  # pyston's ExecutionError carries Piston's message
                assert "cobol-* runtime is unknown" in str(error)
            else:
                raise AssertionError("an unknown language is refused")
        finally:
            await client.close_session()

    asyncio.run(main())


def test_pistons_documented_example_request_and_its_400s(piston_server):
    url = f"{base(piston_server)}/execute"
    answer = requests.post(url, json={
        "language": "js", "version": "*",
        "files": [{"name": "my_cool_code.js", "content": "console.log(process.argv.slice(2))"}],
        "stdin": "", "args": ["1", "2", "3"], "compile_timeout": 10000, "run_timeout": 3000,
        "compile_memory_limit": -1, "run_memory_limit": -1}, timeout=60)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["language"] == "javascript"
    assert body["run"]["stdout"] == "[ '1', '2', '3' ]\n"
    assert set(body["run"]) >= {"stdout", "stderr", "output", "code", "signal", "message",
                                "status", "cpu_time", "wall_time", "memory"}
    refused = requests.post(url, json={"language": "python", "version": "*", "files": [
        {"content": "print(1)"}], "run_memory_limit": "lots"}, timeout=60)
    assert refused.status_code == 400
    assert refused.json() == {"message": "If specified, run_memory_limit must be a number"}
