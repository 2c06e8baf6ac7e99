"""A real judge-server for the tests: started once per session from the built binary
(``VERDICT_JUDGE_SERVER``, else ``target/debug/judge-server`` in the repository), on a free port
it logs, with a token; stopped with SIGTERM at the end (scripts/judge_server_process.py)."""

import os
import pathlib
import sys
import urllib.request

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "scripts"))
from judge_server_process import JudgeServerProcess  # noqa: E402

TOKEN = "client-test-token"


def _binary():
    path = os.environ.get("VERDICT_JUDGE_SERVER") or str(REPO / "target" / "debug" / "judge-server")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no judge-server at {path}: run `cargo build -p verdict-judge-server` "
                    "or set VERDICT_JUDGE_SERVER")
    return path


class Server(JudgeServerProcess):
    """The judge-server of scripts/judge_server_process.py with two workers, a queue of
    ``queue_capacity`` and the test token, then the config lines ``extra``."""

    def __init__(self, queue_capacity=256, extra=""):
        try:
            super().__init__(_binary(), "verdict-client-",
                             head=f"workers = 2\nqueue_capacity = {queue_capacity}\n",
                             tail=f'[[tokens]]\ntoken = "{TOKEN}"\n' + extra)
        except RuntimeError as error:
            pytest.fail(str(error))


def _serving(**options):
    """A :class:`Server` with ``options`` for a fixture's session, stopped after it."""
    s = Server(**options)
    yield s
    s.stop()


def _compat_api(name, keys, field, secret, category, *settings):
    """The TOML that turns on the compatible API ``name`` with ``settings`` (lines) and one
    entry of its ``keys`` table binding ``secret`` (its ``field``) to ``category``."""
    lines = [f"[{name}]", "enabled = true", *settings, f"[[{name}.{keys}]]",
             f'{field} = "{secret}"', f'category = "{category}"']
    return "".join(line + "\n" for line in lines)


@pytest.fixture(scope="session")
def server():
    yield from _serving()


@pytest.fixture(scope="session")
def tight_server():
    """A server whose queue holds one job beside the two it runs: more concurrent oracle
    suites or batches are refused with 429 and Retry-After."""
    yield from _serving(queue_capacity=1)


SANDBOX_FUSION_SECRET = "verl-secret-path-0123456789"


@pytest.fixture(scope="session")
def sandbox_fusion_server():
    """A server with SandboxFusion's routes on: at the root for loopback clients, and under
    the secret path ``/sf/<secret>`` (docs/compat.md)."""
    yield from _serving(extra=_compat_api("sandbox_fusion", "paths", "token",
                                          SANDBOX_FUSION_SECRET, "rl", "max_wait_ms = 20000"))


PISTON_KEY = "piston-client-key-0123456789"


@pytest.fixture(scope="session")
def piston_server():
    """A server with Piston's API v2 on (docs/compat.md): loopback clients without a key, and
    one key (``Authorization``) for the category ``bots``."""
    yield from _serving(extra=_compat_api("piston", "keys", "key", PISTON_KEY, "bots"))



JUDGE0_KEY = "judge0-client-key-0123456789"


@pytest.fixture(scope="session")
def judge0_server():
    """A server with Judge0 CE's API on (docs/compat.md): callers need the key
    (``X-Auth-Token``, Judge0's AUTHN header), whatever their network."""
    s = Server(extra=_compat_api("judge0", "keys", "key", JUDGE0_KEY, "course", "networks = []"))
    # The server probes its toolchains' versions at start (a few seconds); the SDK's client
    # reads the languages with httpx's 5 s timeout, so the fixture waits for the probe.
    probe = urllib.request.Request(f"{s.url}/languages", headers={"X-Auth-Token": JUDGE0_KEY})
    urllib.request.urlopen(probe, timeout=120).read()
    yield s
    s.stop()
