//! A tiny HTTP/1.1 server on a loopback address, counting the connections it accepts.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What the server answers to every request.
#[derive(Debug, Clone)]
pub enum Answer {
    /// 200 with this body.
    Body(Vec<u8>),
    /// 302 to this location.
    Redirect(String),
}

/// A running server; it stops with the test process.
#[derive(Debug)]
pub struct Server {
    /// Where it listens.
    pub addr: SocketAddr,
    hits: Arc<AtomicUsize>,
}

impl Server {
    /// Listens on `ip` (a loopback address) at a free port.
    pub fn start(ip: &str, answer: Answer) -> Server {
        Server::start_at(ip, 0, answer)
    }

    /// Listens on `ip:port` (port 0: a free one).
    pub fn start_at(ip: &str, port: u16, answer: Answer) -> Server {
        let listener = TcpListener::bind((ip, port)).expect("bind a loopback port");
        let addr = listener.local_addr().unwrap();
        let hits = Arc::new(AtomicUsize::new(0));
        let counter = hits.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                counter.fetch_add(1, Ordering::SeqCst);
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request);
                let (head, body) = match &answer {
                    Answer::Body(body) => (
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        ),
                        body.clone(),
                    ),
                    Answer::Redirect(to) => (
                        format!(
                            "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                        ),
                        Vec::new(),
                    ),
                };
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body);
            }
        });
        Server { addr, hits }
    }

    /// A server holding a secret on 127.0.0.1.
    pub fn secret(secret: &str) -> Server {
        Server::start("127.0.0.1", Answer::Body(secret.as_bytes().to_vec()))
    }

    /// How many connections it accepted.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }
}
