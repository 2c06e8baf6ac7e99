//! SandboxFusion's own server (bytedance/SandboxFusion), started by the bench from a tree that
//! `scripts/bench-sandboxfusion.sh TREE` prepared, named by `VERDICT_SANDBOXFUSION=TREE`.
//!
//! Two modes, as its configs name them: `none` (`SANDBOX_CONFIG=local`: the program runs as a
//! plain child of the server, unsandboxed) and `lite` (`SANDBOX_CONFIG=ci`: overlayfs over `/`,
//! cgroups, a network namespace with NAT, chroot, all through `sudo`). `lite` leaves network
//! namespaces, NAT rules, cgroups and overlay mounts behind and turns on `ip_forward`: a
//! [`Server`] notes what was there before it started and removes what is new when dropped.
//!
//! The server runs with a clean environment and an empty `HOME` (root's `~/.bashrc` here runs
//! `pyenv init`, which each of its `bash -c` runs would source: /work/shared measured it).

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// SandboxFusion's isolation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `isolation: none` (its default config, `local`).
    None,
    /// `isolation: lite` (its `ci` config).
    Lite,
}

impl Mode {
    /// The name in the bench's table.
    pub fn name(self) -> &'static str {
        match self {
            Mode::None => "none",
            Mode::Lite => "lite",
        }
    }

    fn config(self) -> &'static str {
        match self {
            Mode::None => "local",
            Mode::Lite => "ci",
        }
    }
}

/// A running SandboxFusion server.
pub struct Server {
    child: Child,
    port: u16,
    _home: tempfile::TempDir,
    before: Option<HostState>,
}

impl Server {
    /// Starts the server of `tree` in `mode` and waits until it answers `/v1/ping`.
    pub fn start(tree: &Path, mode: Mode) -> Result<Server, String> {
        let python = tree.join(".verdict-conda/envs/sandbox/bin/python");
        if !python.exists() {
            return Err(format!(
                "{} is missing: run scripts/bench-sandboxfusion.sh {}",
                python.display(),
                tree.display()
            ));
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("a free port: {e}"))?
            .port();
        let home = tempfile::tempdir().map_err(|e| format!("a HOME: {e}"))?;
        let log = std::fs::File::create(home.path().join("server.log"))
            .map_err(|e| format!("the server's log: {e}"))?;
        let before = (mode == Mode::Lite).then(HostState::read);
        let child = Command::new(&python)
            .args([
                "-m",
                "uvicorn",
                "sandbox.server.server:app",
                "--host",
                "127.0.0.1",
            ])
            .args(["--port", &port.to_string(), "--log-level", "warning"])
            .current_dir(tree)
            .env_clear()
            .env(
                "PATH",
                "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            )
            .env("HOME", home.path())
            .env("SANDBOX_CONFIG", mode.config())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("start {}: {e}", python.display()))?;
        let mut server = Server {
            child,
            port,
            _home: home,
            before,
        };
        let until = Instant::now() + Duration::from_secs(180);
        loop {
            if request(port, "GET", "/v1/ping", None).is_ok() {
                return Ok(server);
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                let log = std::fs::read_to_string(server._home.path().join("server.log"))
                    .unwrap_or_default();
                return Err(format!("the server exited ({status}): {}", tail(&log)));
            }
            if Instant::now() > until {
                return Err("the server did not answer /v1/ping within 180 s".into());
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// `POST /run_code`; the response, or why there is none.
    pub fn run_code(&self, body: &Value) -> Result<Value, String> {
        let text = request(self.port, "POST", "/run_code", Some(&body.to_string()))?;
        serde_json::from_str(&text).map_err(|e| format!("not JSON ({e}): {}", tail(&text)))
    }

    /// Runs python `code` with `stdin` within `timeout`: whether it ran to exit 0, and its stdout.
    pub fn python(&self, code: &str, stdin: &str, timeout: Duration) -> (bool, String) {
        self.run(json!({"code": code, "language": "python", "stdin": stdin,
                        "run_timeout": timeout.as_secs_f64()}))
    }

    /// Compiles and runs C++ `code` on `stdin` (one call: compiled again for each), as verl does.
    pub fn cpp(&self, code: &str, stdin: &str, timeout: Duration) -> (bool, String) {
        self.run(json!({"code": code, "language": "cpp", "stdin": stdin,
                        "compile_timeout": 10.0, "run_timeout": timeout.as_secs_f64()}))
    }

    fn run(&self, body: Value) -> (bool, String) {
        match self.run_code(&body) {
            Ok(v) => (
                v["status"] == "Success",
                v["run_result"]["stdout"].as_str().unwrap_or("").to_owned(),
            ),
            Err(_) => (false, String::new()),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(before) = &self.before {
            before.restore();
        }
    }
}

/// What `lite` changes on the host: network namespaces, NAT rules, cgroups, overlay mounts
/// under `/tmp`, `ip_forward`.
struct HostState {
    netns: Vec<String>,
    nat: Vec<String>,
    cgroups: Vec<PathBuf>,
    ip_forward: String,
}

const CGROUP_DIRS: [&str; 2] = ["/sys/fs/cgroup/memory", "/sys/fs/cgroup/cpu"];

impl HostState {
    fn read() -> HostState {
        HostState {
            netns: netns(),
            nat: nat_rules(),
            cgroups: sandbox_cgroups(),
            ip_forward: std::fs::read_to_string("/proc/sys/net/ipv4/ip_forward")
                .unwrap_or_default(),
        }
    }

    /// Removes what `lite` left since `self` was read and restores `ip_forward`.
    fn restore(&self) {
        let mut mounts: Vec<String> = std::fs::read_to_string("/proc/mounts")
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.split(' ').nth(1))
            .filter(|m| m.starts_with("/tmp/overlay_"))
            .map(str::to_owned)
            .collect();
        mounts.sort_by_key(|m| std::cmp::Reverse(m.len()));
        for m in &mounts {
            quiet("umount", &["-l", m]);
        }
        if let Ok(dirs) = std::fs::read_dir("/tmp") {
            for d in dirs.flatten() {
                if d.file_name().to_string_lossy().starts_with("overlay_") {
                    let _ = std::fs::remove_dir_all(d.path());
                }
            }
        }
        for ns in netns().into_iter().filter(|n| !self.netns.contains(n)) {
            quiet("ip", &["netns", "delete", &ns]);
        }
        for rule in nat_rules().into_iter().filter(|r| !self.nat.contains(r)) {
            // `-A POSTROUTING ...` as listed; deleted as `-D POSTROUTING ...`.
            let mut args = vec!["-w", "-t", "nat", "-D"];
            args.extend(rule.split_whitespace().skip(1));
            quiet("iptables", &args);
        }
        for cg in sandbox_cgroups()
            .into_iter()
            .filter(|c| !self.cgroups.contains(c))
        {
            if let Ok(tasks) = std::fs::read_to_string(cg.join("tasks")) {
                for pid in tasks.lines() {
                    quiet("kill", &["-9", pid]);
                }
            }
            let _ = std::fs::remove_dir(&cg);
        }
        if !self.ip_forward.is_empty() {
            let _ = std::fs::write("/proc/sys/net/ipv4/ip_forward", &self.ip_forward);
        }
    }
}

fn netns() -> Vec<String> {
    output("ip", &["netns", "list"])
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

fn nat_rules() -> Vec<String> {
    output("iptables", &["-w", "-t", "nat", "-S", "POSTROUTING"])
        .lines()
        .filter(|l| l.starts_with("-A "))
        .map(str::to_owned)
        .collect()
}

fn sandbox_cgroups() -> Vec<PathBuf> {
    CGROUP_DIRS
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flat_map(|d| d.flatten())
        .filter(|e| e.file_name().to_string_lossy().starts_with("sandbox_"))
        .map(|e| e.path())
        .collect()
}

fn output(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .stderr(Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

fn quiet(program: &str, args: &[&str]) {
    let _ = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// One HTTP/1.1 exchange with `Connection: close`; the body of a `200`.
fn request(port: u16, method: &str, path: &str, body: Option<&str>) -> Result<String, String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    let body = body.unwrap_or("");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body.as_bytes()))
        .map_err(|e| e.to_string())?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).map_err(|e| e.to_string())?;
    let answer = String::from_utf8_lossy(&answer);
    let (head, body) = answer
        .split_once("\r\n\r\n")
        .ok_or_else(|| "no HTTP answer".to_owned())?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(format!(
            "{}: {}",
            head.lines().next().unwrap_or(""),
            tail(body)
        ));
    }
    Ok(body.to_owned())
}

fn tail(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars[chars.len().saturating_sub(600)..].iter().collect()
}
