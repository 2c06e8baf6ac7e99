"""A judge-server started by the benchmark scripts (bench-rl-step.py, bench-rl-compat.py): a
config of the caller's top lines and `[judge]` dirs under a fresh directory, the process, and its
address read from its JSON logs."""

import json
import os
import pathlib
import signal
import subprocess
import tempfile
import threading


class JudgeServerProcess:
    """judge-server listening on a free loopback port, with fresh data, work and cache dirs.

    `head` is the config's top-level lines (before `data_dir`), `tail` its sections after
    `[judge]`. Raises RuntimeError (with the log's end) if it logs no address within 60 s."""

    def __init__(self, binary, prefix, head="", tail="", kept_log_lines=400):
        self.dir = tempfile.TemporaryDirectory(prefix=prefix)
        root = pathlib.Path(self.dir.name)
        config = root / "server.toml"
        config.write_text(
            'listen = "127.0.0.1:0"\n'
            + head
            + f"data_dir = {json.dumps(str(root / 'data'))}\n"
            "[judge]\n"
            f"work_dir = {json.dumps(str(root / 'work'))}\n"
            f"cache_dir = {json.dumps(str(root / 'cache'))}\n"
            + tail)
        self.process = subprocess.Popen([binary, "--config", str(config)],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE,
                                        env={**os.environ, "RUST_LOG": "warn,judge_server=info"})
        self.log = []
        found = threading.Event()
        self.address = None

        def read():
            for raw in self.process.stderr:
                line = raw.decode("utf-8", "replace")
                if len(self.log) < kept_log_lines:
                    self.log.append(line)
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
            raise RuntimeError("judge-server logged no address:\n" + "".join(self.log[-20:]))
        self.url = f"http://{self.address}"

    def status_kb(self, field):
        """A `/proc/<pid>/status` figure in KiB (`VmRSS`, `VmHWM`); 0 when absent."""
        for line in pathlib.Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        return 0

    def stop(self):
        """SIGTERM, then SIGKILL after 60 s; the directory removed."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.dir.cleanup()
