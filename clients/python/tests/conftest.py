"""A real judge-server for the tests: started once per session from the built binary
(``VERDICT_JUDGE_SERVER``, else ``target/debug/judge-server`` in the repository), on a free port
it logs, with a token; stopped with SIGTERM at the end."""

import json
import os
import pathlib
import signal
import subprocess
import tempfile
import threading
import urllib.request

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
TOKEN = "client-test-token"


def _binary():
    path = os.environ.get("VERDICT_JUDGE_SERVER") or str(REPO / "target" / "debug" / "judge-server")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no judge-server at {path}: run `cargo build -p verdict-judge-server` "
                    "or set VERDICT_JUDGE_SERVER")
    return path


class Server:
    def __init__(self, queue_capacity=256, extra=""):
        self.dir = tempfile.TemporaryDirectory(prefix="verdict-client-")
        root = pathlib.Path(self.dir.name)
        config = root / "server.toml"
        config.write_text(
            'listen = "127.0.0.1:0"\n'
            "workers = 2\n"
            f"queue_capacity = {queue_capacity}\n"
            f"data_dir = {json.dumps(str(root / 'data'))}\n"
            "[judge]\n"
            f"work_dir = {json.dumps(str(root / 'work'))}\n"
            f"cache_dir = {json.dumps(str(root / 'cache'))}\n"
            "[[tokens]]\n"
            f'token = "{TOKEN}"\n'
            + extra
        )
        self.process = subprocess.Popen([_binary(), "--config", str(config)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        env={**os.environ, "RUST_LOG": "info"})
        self.lines = []
        found = threading.Event()
        self.address = None

        def read():
            for raw in self.process.stderr:
                line = raw.decode("utf-8", "replace")
                self.lines.append(line)
                try:
                    fields = json.loads(line).get("fields", {})
                except ValueError:
                    continue
                if "address" in fields and self.address is None:
                    self.address = fields["address"]
                    found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(60):
            self.stop()
            pytest.fail("judge-server logged no address:\n" + "".join(self.lines))
        self.url = f"http://{self.address}"

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.dir.cleanup()


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
