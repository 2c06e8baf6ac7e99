//! Event-stream readers that never read: each costs its cursor, not a copy of the
//! stream, and the streams open at once are capped per submission and per token. A real
//! `judge-server` process, whose memory is read from `/proc`.

use crate::common::{
    Reply, ServerProcess, get, judge, poll_until, post, read_events, wait_finished,
};
use serde_json::json;
use std::time::Duration;

/// Checks `refused` is a stream refused with 429 naming the cap `cap`.
fn assert_capped(refused: &Reply, cap: &str) {
    assert_eq!(refused.status, 429, "{}", refused.text);
    assert!(refused.text.contains(cap), "{}", refused.text);
}

/// A submission of a compile task that fails and `tests` tests depending on it: a long stream
/// (each test ends `Dependency Not Satisfied`) judged in a second.
fn long_submission(sub_id: &str, tests: usize) -> String {
    let mut tasks = vec![json!({"check_script": "compile", "depends_on": -1, "time_limit": 10000})];
    tasks.extend((0..tests).map(|_| {
        json!({"check_script": "standard", "run_script": "standard", "compare_script": "diff-all",
               "testcase_id": 0, "depends_on": 0, "depends_cond": "ACCEPTED", "time_limit": 1000})
    }));
    json!({
        "sub_type": "programming", "category": "oj", "prob_id": "p", "sub_id": sub_id,
        "updated_at": 1, "judge_tasks": tasks,
        "test_data": [{"inputs": [{"type": "text", "name": "testdata.in", "text": "1\n"}],
                       "outputs": [{"type": "text", "name": "testdata.out", "text": "1\n"}]}],
        "submission": {"type": "source_code", "language": "c",
            "source_files": [{"type": "text", "name": "main.c", "text": "int main( { oops"}]}
    })
    .to_string()
}

/// Opens event streams that send their request and then never read (a 4 KiB receive buffer,
/// so the kernel holds little of what the server writes), on their own runtime.
struct StalledReaders {
    // (Dropped before their runtime.)
    sockets: Vec<tokio::net::TcpStream>,
    runtime: tokio::runtime::Runtime,
}

impl StalledReaders {
    fn new() -> Self {
        StalledReaders {
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime"),
            sockets: Vec::new(),
        }
    }

    /// Opens one on `path` with `token`; its status line once the server answered.
    fn open(&mut self, addr: &str, path: &str, token: &str) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let addr: std::net::SocketAddr = addr.parse().expect("an address");
        let (socket, status) = self.runtime.block_on(async {
            let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
            socket.set_recv_buffer_size(4096).expect("SO_RCVBUF");
            let mut stream = socket.connect(addr).await.expect("connects");
            let request = format!(
                "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\r\n"
            );
            stream.write_all(request.as_bytes()).await.expect("sends");
            // Only the status line's first bytes: the rest stays unread.
            let mut head = [0u8; 12];
            stream.read_exact(&mut head).await.expect("a status line");
            (stream, String::from_utf8_lossy(&head).into_owned())
        });
        self.sockets.push(socket);
        status
    }
}

#[test]
fn stalled_event_readers_hold_no_copy_of_the_stream_and_are_capped() {
    if judge().is_none() {
        return;
    }
    const TESTS: usize = 40_000;
    const STALLED: usize = 40;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("server.toml");
    std::fs::write(
        &path,
        format!(
            "listen = \"127.0.0.1:0\"\nworkers = 1\nmax_body_kb = 32768\n\
             max_streams_per_submission = {STALLED}\nmax_streams_per_token = {}\n\
             [caps]\ntasks = {}\n[judge]\nwork_dir = {:?}\ncache_dir = {:?}\n\
             [[tokens]]\ntoken = \"admin\"\n[[tokens]]\ntoken = \"other\"\n",
            STALLED + 5,
            TESTS + 1,
            dir.path().join("work"),
            dir.path().join("cache")
        ),
    )
    .expect("config");
    let server = ServerProcess::start(&path);
    let addr = server.base.trim_start_matches("http://").to_owned();
    // Accepted, then waited for: a 40,001-task report takes a while on a busy machine, longer
    // than one request's client timeout.
    let accepted = post(
        &server.url("/v1/submissions"),
        Some("admin"),
        &long_submission("long", TESTS),
    );
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    wait_finished(
        &server.url("/v1/submissions/long"),
        Some("admin"),
        Duration::from_secs(600),
        Duration::from_millis(500),
    );
    let events = "/v1/submissions/long/events";
    // One reader reads it all: every task, then the report (and the entry is in memory).
    let (status, all) = read_events(&server.url(events), Some("admin"));
    assert_eq!(status, 200);
    assert_eq!(all.len(), TESTS + 2, "every task and the report");
    let before = server.rss_kib();

    let mut stalled = StalledReaders::new();
    for _ in 0..STALLED {
        let status = stalled.open(&addr, events, "admin");
        assert!(status.ends_with("200"), "{status}");
    }
    // Time for the server to write what the sockets take and (before the fix) hold the rest.
    std::thread::sleep(Duration::from_secs(3));
    let grown_mib = server.rss_kib().saturating_sub(before) / 1024;
    // One copy of this stream is ~8 MiB: before the fix each stalled reader held one (+300 MiB
    // here); a cursor, a connection and hyper's write buffer are far less.
    assert!(
        grown_mib < 64,
        "{STALLED} stalled readers grew the server by {grown_mib} MiB"
    );

    // The caps: one more on this submission is refused naming its cap, whoever asks ...
    assert_capped(
        &get(&server.url(events), Some("other")),
        "max_streams_per_submission",
    );
    // ... and a token at its own cap is refused on any submission, another token is not.
    // (Its last 5 streams read a second long one: a stream that fits in the socket's and
    // hyper's buffers is written whole at once and ends, giving its place back.)
    for (sub_id, tests) in [("second", 10_000), ("small", 2)] {
        let judged = post(
            &server.url("/v1/judge"),
            Some("admin"),
            &long_submission(sub_id, tests),
        );
        assert_eq!(judged.status, 200, "{}", judged.text);
    }
    for _ in 0..5 {
        let status = stalled.open(&addr, "/v1/submissions/second/events", "admin");
        assert!(status.ends_with("200"), "{status}");
    }
    let small_events = "/v1/submissions/small/events";
    assert_capped(
        &get(&server.url(small_events), Some("admin")),
        "max_streams_per_token",
    );
    assert_eq!(
        read_events(&server.url(small_events), Some("other"))
            .1
            .len(),
        4
    );

    // Readers that go away give their places back.
    drop(stalled);
    let all = poll_until(
        Duration::from_secs(20),
        Duration::from_millis(200),
        || match read_events(&server.url(events), Some("other")) {
            (200, all) => Ok(all),
            (status, _) => Err(format!("the places of closed readers come back: {status}")),
        },
    );
    assert_eq!(all.len(), TESTS + 2);
}
