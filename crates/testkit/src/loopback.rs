//! A loopback HTTP/1.1 server for tests: one answer to every request, the connections it
//! accepted counted (an internal service a test must never reach, an agent that redirects).
//!
//! ```
//! use verdict_testkit::loopback::{Answer, LoopbackServer};
//!
//! let server = LoopbackServer::start("127.0.0.1", Answer::Body("secret".into()));
//! assert_eq!(server.hits(), 0);
//! assert_ne!(server.addr.port(), 0);
//! ```

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What the server answers to every request.
#[derive(Debug, Clone)]
pub enum Answer {
    /// 200 with this body.
    Body(String),
    /// 302 to this location.
    Redirect(String),
}

/// A running server; it stops with the test process.
#[derive(Debug)]
pub struct LoopbackServer {
    /// Where it listens.
    pub addr: SocketAddr,
    hits: Arc<AtomicUsize>,
}

impl LoopbackServer {
    /// Listens on `ip` (a loopback address) at a free port.
    pub fn start(ip: &str, answer: Answer) -> LoopbackServer {
        let listener = TcpListener::bind((ip, 0)).expect("bind a loopback port");
        let addr = listener.local_addr().expect("a bound address");
        let hits = Arc::new(AtomicUsize::new(0));
        let counter = hits.clone();
        let reply = match answer {
            Answer::Body(body) => format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ),
            Answer::Redirect(to) => format!(
                "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            ),
        };
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                counter.fetch_add(1, Ordering::SeqCst);
                let mut request = [0u8; 8192];
                let _ = stream.read(&mut request);
                let _ = stream.write_all(reply.as_bytes());
            }
        });
        LoopbackServer { addr, hits }
    }

    /// How many connections it has accepted.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}
