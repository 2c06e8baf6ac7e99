//! Availability under hostile clients: bounded connections and header time, operator
//! caps on what a request asks for. A real server on a real socket.

use crate::common::{
    A_PLUS_B, TestServer, a_plus_b, config, get, poll_until, post, quick_suite_json,
    refused_by_both,
};
use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Whether the server closed `stream` within `limit` (a read that ends or fails), as opposed
/// to still holding it open.
fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    stream
        .set_read_timeout(Some(limit))
        .expect("set a read timeout");
    let mut buf = [0u8; 512];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            // A 408 or the like before the close is fine: keep reading to the end.
            Ok(_) => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return false;
            }
            Err(_) => return true,
        }
    }
}

/// `n` connections to `server`.
fn connections(server: &TestServer, n: usize) -> Vec<TcpStream> {
    (0..n)
        .map(|_| TcpStream::connect(server.addr).expect("connect"))
        .collect()
}

#[test]
fn slow_and_idle_connections_are_closed_and_cannot_lock_out_other_clients() {
    let Some(server) = TestServer::start(verdict_judge_server::ServerConfig {
        max_connections: 4,
        header_timeout_ms: 700,
        ..config()
    }) else {
        return;
    };
    // Every connection slot taken: two that say nothing, two that send a header byte at a
    // time and never finish it.
    let mut idle = connections(&server, 2);
    let mut slow = connections(&server, 2);
    for s in &mut slow {
        s.write_all(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")
            .expect("a first header line");
    }
    let drip = {
        let mut slow: Vec<TcpStream> = slow.iter().map(|s| s.try_clone().expect("clone")).collect();
        std::thread::spawn(move || {
            for _ in 0..40 {
                for s in &mut slow {
                    // The server closing the connection ends the drip.
                    if s.write_all(b"X").is_err() {
                        return;
                    }
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    // An ordinary client is served: the hostile ones are dropped at the header timeout.
    let start = Instant::now();
    let reply = get(&server.url("/v1/health"), None);
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "served after {:?}",
        start.elapsed()
    );
    for (what, stream) in idle
        .iter_mut()
        .map(|s| ("idle", s))
        .chain(slow.iter_mut().map(|s| ("slow", s)))
    {
        assert!(
            closed_within(stream, Duration::from_secs(3)),
            "a {what} connection is still open"
        );
    }
    drip.join().expect("drip thread");
    // A kept-alive connection that goes idle after its answer is closed too.
    let mut kept = TcpStream::connect(server.addr).expect("connect");
    kept.write_all(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
        .expect("a request");
    assert!(
        closed_within(&mut kept, Duration::from_secs(3)),
        "an idle keep-alive connection is still open"
    );
}

#[test]
fn limits_over_the_operators_caps_are_refused_naming_the_field_and_the_cap() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let mut weeks = a_plus_b("caps-1", "oj", A_PLUS_B);
    weeks["judge_tasks"][1]["time_limit"] = json!(1_000_000_000);
    // The cap is named.
    refused_by_both(
        &server,
        &weeks,
        "judge_tasks[1].time_limit",
        "60000 ms (caps.time_limit_ms)",
    );
    let mut suite = quick_suite_json();
    suite["timeout_ms"] = json!(1_000_000_000u64);
    let reply = post(&server.url("/v1/oracle"), None, &suite.to_string());
    assert_eq!(reply.status, 422, "{}", reply.text);
    let body = reply.json();
    assert_eq!(body["error"]["field"], "timeout_ms", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("caps.suite_timeout_ms"),
        "{body}"
    );
    // Within the caps, the same submission is accepted.
    let fine = a_plus_b("caps-2", "oj", A_PLUS_B);
    let reply = post(&server.url("/v1/submissions"), None, &fine.to_string());
    assert_eq!(reply.status, 202, "{}", reply.text);
}

#[test]
fn a_removed_data_dir_is_refused_with_503_and_reported_in_health() {
    let data = tempfile::tempdir().expect("temp dir");
    let data_dir = data.path().join("data");
    let Some(server) = TestServer::start_keeping_data(verdict_judge_server::ServerConfig {
        data_dir: data_dir.clone(),
        ..config()
    }) else {
        return;
    };
    let health = get(&server.url("/v1/health"), None).json();
    assert_eq!(health["status"], "ok", "{health}");
    std::fs::remove_dir_all(&data_dir).expect("remove the data dir");
    let body = a_plus_b("gone-1", "oj", A_PLUS_B).to_string();
    let reply = post(&server.url("/v1/submissions"), None, &body);
    assert_eq!(
        reply.status, 503,
        "nothing is acknowledged into an unlinked database: {}",
        reply.text
    );
    assert!(reply.header("retry-after").is_some(), "{:?}", reply.headers);
    assert!(
        !reply.text.contains(&data_dir.display().to_string()),
        "no host path for the client: {}",
        reply.text
    );
    let health = get(&server.url("/v1/health"), None).json();
    assert_eq!(health["status"], "degraded", "{health}");
    assert_eq!(health["accepting"], false, "{health}");
    assert!(
        health["host_faults"][0]
            .as_str()
            .is_some_and(|f| f.contains("data dir")),
        "{health}"
    );
}

/// A file system mounted for one test on a fresh directory, unmounted (lazily) when dropped.
pub(crate) struct TestDisk {
    mount_point: tempfile::TempDir,
    _image_dir: Option<tempfile::TempDir>,
}

impl TestDisk {
    /// A tmpfs of `size` (`8m`), or `None` (`skipped:` printed) where none can be mounted;
    /// under `VERDICT_REQUIRE_SANDBOX=1` that is a failure.
    fn tmpfs(size: &str) -> Option<TestDisk> {
        let mount_point = tempfile::tempdir().expect("temp dir");
        let size = format!("size={size}");
        let mounted = quietly(
            "mount",
            &["-t", "tmpfs", "-o", &size, "tmpfs"],
            mount_point.path(),
        );
        TestDisk::made(mounted, "a tmpfs", mount_point, None)
    }

    /// An ext4 file system of 64 MiB on a loop device (which `fsfreeze` can freeze), as
    /// [`TestDisk::tmpfs`].
    pub(crate) fn ext4_loop() -> Option<TestDisk> {
        let (mount_point, image_dir) = (
            tempfile::tempdir().expect("temp dir"),
            tempfile::tempdir().expect("temp dir"),
        );
        let image = image_dir.path().join("disk.img");
        let made = std::fs::File::create(&image)
            .and_then(|f| f.set_len(64 << 20))
            .is_ok()
            && quietly("mkfs.ext4", &["-q", "-F"], &image)
            && quietly(
                "mount",
                &["-o", "loop", &image.to_string_lossy()],
                mount_point.path(),
            );
        TestDisk::made(made, "an ext4 loop device", mount_point, Some(image_dir))
    }

    fn made(
        made: bool,
        what: &str,
        mount_point: tempfile::TempDir,
        image_dir: Option<tempfile::TempDir>,
    ) -> Option<TestDisk> {
        if made {
            return Some(TestDisk {
                mount_point,
                _image_dir: image_dir,
            });
        }
        assert!(
            !verdict_testkit::required(),
            "VERDICT_REQUIRE_SANDBOX=1 but {what} cannot be mounted"
        );
        println!("skipped: cannot mount {what} here");
        None
    }

    /// Where it is mounted.
    pub(crate) fn path(&self) -> &std::path::Path {
        self.mount_point.path()
    }
}

impl Drop for TestDisk {
    fn drop(&mut self) {
        unmount_lazily(self.path());
    }
}

/// A file system frozen (`fsfreeze -f`: every write waits) until this is dropped.
pub(crate) struct Frozen<'a>(&'a std::path::Path);

impl<'a> Frozen<'a> {
    /// Freezes the file system mounted at `path`.
    pub(crate) fn freeze(path: &'a std::path::Path) -> Self {
        assert!(quietly("fsfreeze", &["-f"], path), "fsfreeze -f");
        Frozen(path)
    }
}

impl Drop for Frozen<'_> {
    fn drop(&mut self) {
        let _ = std::process::Command::new("fsfreeze")
            .arg("-u")
            .arg(self.0)
            .status();
    }
}

/// Unmounts (lazily) what is mounted on its path when dropped.
struct Unmount<'a>(&'a std::path::Path);

impl Drop for Unmount<'_> {
    fn drop(&mut self) {
        unmount_lazily(self.0);
    }
}

fn unmount_lazily(path: &std::path::Path) {
    let _ = std::process::Command::new("umount")
        .arg("-l")
        .arg(path)
        .status();
}

/// Runs `program args... last` with no output; whether it succeeded.
fn quietly(program: &str, args: &[&str], last: &std::path::Path) -> bool {
    std::process::Command::new(program)
        .args(args)
        .arg(last)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// POSTs `body` to `url` (a client giving up after 15 s), which must answer 503 with
/// `Retry-After` within 6 s, as a store on a frozen data disk does at `store_timeout_ms`; when
/// it was asked.
pub(crate) fn refused_at_store_timeout(url: &str, body: &str) -> Instant {
    let asked = Instant::now();
    let reply = crate::common::reply(
        crate::common::client_waiting(Duration::from_secs(15))
            .post(url)
            .header("Content-Type", "application/json")
            .send(body),
    );
    let took = asked.elapsed();
    assert_eq!(reply.status, 503, "after {took:?}: {}", reply.text);
    assert!(reply.header("retry-after").is_some(), "{:?}", reply.headers);
    assert!(took < Duration::from_secs(6), "answered after {took:?}");
    asked
}

/// The tests that fill a disk run one at a time: the submission store's test was seen to stay
/// at 503 after its disk was freed while another filled its own (left for the store's owner).
pub(crate) static FULL_DISKS: Mutex<()> = Mutex::new(());

/// A server whose data dir is on a fresh 8 MB tmpfs, with the disk tests' turn
/// ([`FULL_DISKS`]) held; `None` where no tmpfs can be mounted or the judge cannot run here.
fn server_on_a_small_disk() -> Option<(MutexGuard<'static, ()>, TestDisk, TestServer)> {
    let turn = FULL_DISKS.lock().unwrap_or_else(|e| e.into_inner());
    let disk = TestDisk::tmpfs("8m")?;
    let server = TestServer::start_keeping_data(verdict_judge_server::ServerConfig {
        data_dir: disk.path().join("data"),
        ..config()
    })?;
    Some((turn, disk, server))
}

/// Fills `disk` to its last byte with a file `filler`, kept open.
fn fill_to_the_last_byte(disk: &TestDisk) -> std::fs::File {
    let mut filler = std::fs::File::create(disk.path().join("filler")).expect("filler");
    while filler.write_all(&[0u8; 1 << 16]).is_ok() {}
    while filler.write_all(&[0u8; 512]).is_ok() {}
    filler
}

#[test]
fn a_full_data_disk_is_503_with_retry_after_never_500() {
    let Some((_one_at_a_time, disk, server)) = server_on_a_small_disk() else {
        return;
    };
    // Served: the server opened its data dir (the address is known before that).
    assert_eq!(get(&server.url("/v1/health"), None).status, 200);
    let filler = fill_to_the_last_byte(&disk);
    let body = a_plus_b("full-1", "oj", A_PLUS_B).to_string();
    let reply = post(&server.url("/v1/submissions"), None, &body);
    assert_eq!(reply.status, 503, "{}", reply.text);
    assert!(reply.header("retry-after").is_some(), "{:?}", reply.headers);
    drop(filler);
    std::fs::remove_file(disk.path().join("filler")).expect("free the disk");
    let reply = post(&server.url("/v1/submissions"), None, &body);
    assert_eq!(
        reply.status, 202,
        "accepted once there is room: {}",
        reply.text
    );
    drop(server);
}

#[test]
fn a_full_or_read_only_data_disk_refuses_a_batch_with_503_never_500() {
    let Some((_one_at_a_time, disk, server)) = server_on_a_small_disk() else {
        return;
    };
    let batch = |id: &str| {
        let body = json!({
            "problem": {"kind": "suite", "deliverable_type": "function", "language": "python3",
                        "entry_point": "f", "test_cases": [{"name": "a", "input": [], "expected": 1}]},
            "candidates": [{"id": "c", "code": "def f():\n    return 1\n"}]});
        crate::common::reply(
            crate::common::client()
                .post(server.url("/v1/batches"))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", id)
                .send(body.to_string()),
        )
    };
    let refused = |reply: crate::common::Reply| {
        assert_eq!(reply.status, 503, "{}", reply.text);
        assert!(reply.header("retry-after").is_some(), "{:?}", reply.headers);
        assert_eq!(
            reply.json()["error"]["code"],
            "unavailable",
            "{}",
            reply.text
        );
    };
    // Served: the server opened its data dir (the address is known before that).
    assert_eq!(get(&server.url("/v1/health"), None).status, 200);
    let filler = fill_to_the_last_byte(&disk);
    refused(batch("full-1"));
    drop(filler);
    std::fs::remove_file(disk.path().join("filler")).expect("free the disk");
    let accepted = batch("full-1");
    assert_eq!(
        accepted.status, 202,
        "accepted once there is room: {}",
        accepted.text
    );
    // Read-only: the batches' directory bound read-only over itself (the whole tmpfs cannot
    // be remounted read-only while the submission store holds its files open for writing).
    let batches = disk.path().join("data").join("batches");
    let dir = batches.to_str().expect("a UTF-8 path");
    let run = |args: &[&str]| {
        std::process::Command::new(args[0])
            .args(&args[1..])
            .status()
            .is_ok_and(|s| s.success())
    };
    assert!(
        run(&["mount", "--bind", dir, dir]),
        "bind the batches' directory"
    );
    let _unbind = Unmount(&batches);
    assert!(
        run(&["mount", "-o", "remount,bind,ro", dir]),
        "make it read-only"
    );
    refused(batch("ro-1"));
    assert!(run(&["umount", dir]), "make it writable again");
    let accepted = batch("ro-1");
    assert_eq!(
        accepted.status, 202,
        "accepted once writable: {}",
        accepted.text
    );
    drop(server);
}

/// A connection to `server` from the local address `from` (any of 127/8 on Linux).
fn connect_from(from: &str, server: std::net::SocketAddr) -> TcpStream {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
        socket
            .bind(format!("{from}:0").parse().expect("an address"))
            .expect("bind");
        let stream = socket.connect(server).await.expect("connect");
        let stream = stream.into_std().expect("a std stream");
        stream.set_nonblocking(false).expect("blocking");
        stream
    })
}

/// Everything `stream` answers until it closes (or `limit` passes).
fn read_all_within(stream: &mut TcpStream, limit: Duration) -> String {
    stream.set_read_timeout(Some(limit)).expect("read timeout");
    let mut got = Vec::new();
    let _ = stream.read_to_end(&mut got);
    String::from_utf8_lossy(&got).into_owned()
}

/// One client address cannot take every connection: beyond
/// `max_connections_per_address` its next connection is answered 429 in the house error shape
/// and closed at once, while another address is served, and a closed connection gives its
/// address a place back. Before, the cap was global only: one address's idle connections held
/// every slot until `header_timeout_ms`, and its extra ones waited in the backlog.
#[test]
fn one_client_address_cannot_hold_every_connection() {
    let Some(server) = TestServer::start(verdict_judge_server::ServerConfig {
        max_connections: 16,
        max_connections_per_address: 3,
        header_timeout_ms: 10_000,
        ..config()
    }) else {
        return;
    };
    let mut idle = connections(&server, 3);
    let start = Instant::now();
    let mut fourth = TcpStream::connect(server.addr).expect("connect");
    let refused = read_all_within(&mut fourth, Duration::from_secs(3));
    assert!(
        refused.starts_with("HTTP/1.1 429 "),
        "after {:?}: {refused:?}",
        start.elapsed()
    );
    let (head, body) = refused.split_once("\r\n\r\n").expect("a head and a body");
    assert!(
        head.to_ascii_lowercase().contains("retry-after: 1"),
        "{head}"
    );
    let body: serde_json::Value = serde_json::from_str(body).expect("a JSON body");
    assert_eq!(body["error"]["code"], "busy", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("max_connections_per_address")),
        "{body}"
    );
    // Another address is served meanwhile.
    let mut other = connect_from("127.0.0.2", server.addr);
    other
        .write_all(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .expect("a request");
    let answer = read_all_within(&mut other, Duration::from_secs(5));
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer:?}");
    // A closed connection gives its address a place back.
    drop(idle.pop());
    std::thread::sleep(Duration::from_millis(300));
    let reply = get(&server.url("/v1/health"), None);
    assert_eq!(reply.status, 200, "{}", reply.text);
}

/// A frozen data disk (`fsfreeze` of an ext4 on a loop device: every write waits until it
/// thaws) answers an accept with 503 and `Retry-After` at `store_timeout_ms`, health says so,
/// and the commit that ends after the thaw is taken back: the client that heard 503 can send
/// the same `sub_id` again and gets 202, not 409. Before, the accept waited as long as the
/// disk did (to the request's 504) and then went through anyway.
#[test]
fn a_frozen_data_disk_is_503_at_store_timeout_and_its_late_commit_is_taken_back() {
    let _one_at_a_time = FULL_DISKS.lock().unwrap_or_else(|e| e.into_inner());
    let Some(disk) = TestDisk::ext4_loop() else {
        return;
    };
    let disk = disk.path();
    let Some(server) = TestServer::start_keeping_data(verdict_judge_server::ServerConfig {
        data_dir: disk.join("data"),
        store_timeout_ms: 1_500,
        ..config()
    }) else {
        return;
    };
    let health = get(&server.url("/v1/health"), None).json();
    assert_eq!(health["status"], "ok", "{health}");
    assert!(
        health["store"]["free_bytes"]
            .as_u64()
            .is_some_and(|b| b > 0),
        "{health}"
    );
    // Frozen, and thawed whatever happens (before the server stops: declared after it).
    let thaw = Frozen::freeze(disk);
    let body = a_plus_b("frozen-1", "oj", A_PLUS_B).to_string();
    let asked = refused_at_store_timeout(&server.url("/v1/submissions"), &body);
    // Health: the store's operation waits past store_timeout_ms.
    let health = loop {
        let health = get(&server.url("/v1/health"), None).json();
        if health["status"] == "degraded" || asked.elapsed() > Duration::from_secs(10) {
            break health;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(health["status"], "degraded", "{health}");
    assert_eq!(health["accepting"], false, "{health}");
    assert!(
        health["store"]["waiting_ms"]
            .as_u64()
            .is_some_and(|ms| ms >= 1_500),
        "{health}"
    );
    assert!(
        health["host_faults"][0]
            .as_str()
            .is_some_and(|f| f.contains("data disk")),
        "{health}"
    );
    drop(thaw);
    // The late commit is taken back: nothing of frozen-1 stays, and sending it again is 202.
    poll_until(
        Duration::from_secs(20),
        Duration::from_millis(100),
        || match get(&server.url("/v1/submissions/frozen-1"), None).status {
            404 => Ok(()),
            status => Err(format!("frozen-1 is still there ({status}) after the thaw")),
        },
    );
    let again = post(&server.url("/v1/submissions"), None, &body);
    assert_eq!(again.status, 202, "{}", again.text);
    let health = get(&server.url("/v1/health"), None).json();
    assert_eq!(health["status"], "ok", "{health}");
    drop(server);
}
