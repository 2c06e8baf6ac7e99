//! An in-process `judge-server` on 127.0.0.1 (a free port), on a runtime thread of its own and
//! shut down when dropped: the one starter judge-server's tests and the server benches use.

use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use verdict_judge_server::{AppState, ServerConfig};
use verdict_scheduler::Judge;

/// A running in-process server.
#[derive(Debug)]
pub struct InProcessServer {
    addr: SocketAddr,
    shutdown: CancellationToken,
    thread: Option<std::thread::JoinHandle<anyhow::Result<()>>>,
}

impl InProcessServer {
    /// Starts `config` on `judge`, its `data_dir` as it is. Panics when the server does not
    /// start within 30 s (a test kit's set-up: the panic is the test's failure).
    pub fn start(config: ServerConfig, judge: Judge) -> InProcessServer {
        let shutdown = CancellationToken::new();
        let (tx, rx) = std::sync::mpsc::channel();
        let token = shutdown.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()?;
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                tx.send(listener.local_addr()?)?;
                let state = AppState::with_judge(config, judge)?;
                verdict_judge_server::serve(state, listener, token).await
            })
        });
        let addr = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(addr) => addr,
            Err(_) => match thread.join() {
                Ok(Err(err)) => panic!("the server did not start: {err:#}"),
                _ => panic!("the server did not start within 30 s"),
            },
        };
        InProcessServer {
            addr,
            shutdown,
            thread: Some(thread),
        }
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// A URL on this server (`path` from its `/`).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Starts the graceful shutdown (in-flight requests finish; new ones are refused).
    pub fn begin_shutdown(&self) {
        self.shutdown.cancel();
    }

    /// Shuts down and waits for the server to finish, at most `limit`: whether it did. Panics
    /// when the server itself failed.
    pub fn stop(mut self, limit: Duration) -> bool {
        self.shutdown.cancel();
        let Some(thread) = self.thread.take() else {
            return true;
        };
        let start = Instant::now();
        while !thread.is_finished() {
            if start.elapsed() > limit {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        match thread.join() {
            Ok(Ok(())) => true,
            Ok(Err(err)) => panic!("the server failed: {err:#}"),
            Err(_) => panic!("the server thread panicked"),
        }
    }
}

impl Drop for InProcessServer {
    fn drop(&mut self) {
        self.shutdown.cancel();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
