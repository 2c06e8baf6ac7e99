//! Server-side request forgery: what a URL can make the fetcher reach.

use crate::server::{Answer, Server};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use verdict_fetch::{Dns, FetchError, FetchErrorKind, Fetcher, Policy};

const SECRET: &str = "INTERNAL-SECRET-7f3a";

fn policy() -> Policy {
    Policy {
        timeout: Duration::from_secs(5),
        ..Policy::default()
    }
}

/// Asserts the fetch was refused by the guard and the secret appears nowhere.
fn assert_refused(result: Result<Vec<u8>, FetchError>, url: &str) -> String {
    let err = match result {
        Ok(body) => panic!("{url} was fetched: {:?}", String::from_utf8_lossy(&body)),
        Err(err) => err,
    };
    let text = err.to_string();
    assert!(
        matches!(
            err.kind,
            FetchErrorKind::Refused(_) | FetchErrorKind::BadUrl(_)
        ),
        "{url}: {text}"
    );
    assert!(!text.contains(SECRET), "{url}: {text}");
    text
}

/// Names resolved by a table (the rest fail), counting the lookups.
#[derive(Debug, Default)]
struct Table {
    answers: Vec<(String, Vec<IpAddr>)>,
    lookups: AtomicUsize,
}

impl Dns for Table {
    fn lookup(&self, name: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
        let n = self.lookups.fetch_add(1, Ordering::SeqCst);
        let matching: Vec<_> = self.answers.iter().filter(|(k, _)| k == name).collect();
        // Several entries for one name answer in turn (the last one for ever): a rebinding name.
        let (_, ips) = matching
            .get(n.min(matching.len().saturating_sub(1)))
            .ok_or_else(|| std::io::Error::other(format!("{name}: unknown")))?;
        Ok(ips.iter().map(|ip| SocketAddr::new(*ip, port)).collect())
    }
}

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

#[test]
fn every_spelling_of_a_loopback_address_is_refused_and_never_reached() {
    let server = Server::secret(SECRET);
    let v6 = std::net::TcpListener::bind("[::1]:0")
        .is_ok()
        .then(|| Server::start("::1", Answer::Body(SECRET.into())));
    let fetcher = Fetcher::new(policy());
    let port = server.port();
    let mut hosts = vec![
        "127.0.0.1".to_owned(),
        "2130706433".into(),
        "0x7f000001".into(),
        "0X7F000001".into(),
        "0177.0.0.1".into(),
        "0177.0.0.01".into(),
        "127.1".into(),
        "127.0.1".into(),
        "0x7f.1".into(),
        "127.0.0.1.".into(),
        "017700000001".into(),
        "localhost".into(),
        "LOCALHOST.".into(),
        "0.0.0.0".into(),
        "0".into(),
        "[::ffff:127.0.0.1]".into(),
        "[::ffff:7f00:1]".into(),
        "[::127.0.0.1]".into(),
        "[64:ff9b::7f00:1]".into(),
        "[::]".into(),
    ];
    hosts.push("[::1]".into());
    for host in &hosts {
        let url = format!("http://{host}:{port}/secret");
        let why = assert_refused(fetcher.get(&url, 1 << 20), &url);
        assert!(
            why.contains("refused") || why.contains("not a valid"),
            "{why}"
        );
    }
    if let Some(v6) = &v6 {
        let url = format!("http://[::1]:{}/secret", v6.port());
        let why = assert_refused(fetcher.get(&url, 1 << 20), &url);
        assert!(why.contains("::1 is a loopback address"), "{why}");
        assert_eq!(v6.hits(), 0);
    }
    assert_eq!(server.hits(), 0, "the secret server was reached");
    // The control: the same server, allowed by name, is reachable.
    let allowed = Fetcher::new(Policy {
        allow_hosts: vec!["127.0.0.1".into()],
        ..policy()
    });
    let body = allowed
        .get(&format!("http://127.0.0.1:{port}/secret"), 1 << 20)
        .unwrap();
    assert_eq!(body, SECRET.as_bytes());
    assert_eq!(server.hits(), 1);
}

#[test]
fn the_refusal_says_which_address_and_why() {
    let fetcher = Fetcher::new(policy());
    for (url, expected) in [
        (
            "http://169.254.169.254/latest/meta-data/",
            "169.254.169.254 is a link-local address",
        ),
        (
            "http://0xa9fea9fe/",
            "169.254.169.254 is a link-local address",
        ),
        ("http://10.0.0.1/", "10.0.0.1 is a private address"),
        (
            "http://100.64.1.1/",
            "100.64.1.1 is a shared (carrier-grade NAT) address",
        ),
        (
            "http://[fd00::1]/",
            "fd00::1 is a unique-local (private) address",
        ),
        ("http://[fe80::1]/", "fe80::1 is a link-local address"),
        ("http://224.0.0.1/", "224.0.0.1 is a multicast address"),
        ("http://255.255.255.255/", "the broadcast address"),
        ("http://192.0.2.1/", "192.0.2.1 is a documentation address"),
        (
            "http://[::ffff:192.168.0.1]/",
            "192.168.0.1 is a private address",
        ),
    ] {
        let why = assert_refused(fetcher.get(url, 1024), url);
        assert!(why.contains(expected), "{url}: {why}");
        assert!(
            why.contains("allow_hosts") && why.contains("allow_networks"),
            "{why}"
        );
    }
    for url in [
        "file:///etc/passwd",
        "ftp://example.com/x",
        "http://1.2.3.4.5/",
        "/relative",
    ] {
        let err = fetcher.get(url, 1024).unwrap_err();
        assert!(
            matches!(err.kind, FetchErrorKind::BadUrl(_)),
            "{url}: {err}"
        );
    }
}

#[test]
fn a_public_looking_name_that_resolves_inside_is_refused() {
    let server = Server::secret(SECRET);
    let dns = Arc::new(Table {
        answers: vec![
            ("inside.example".into(), vec![ip("127.0.0.1")]),
            (
                "mixed.example".into(),
                vec![ip("93.184.216.34"), ip("127.0.0.1")],
            ),
        ],
        ..Table::default()
    });
    let fetcher = Fetcher::with_dns(policy(), dns);
    for name in ["inside.example", "mixed.example"] {
        let url = format!("http://{name}:{}/secret", server.port());
        let why = assert_refused(fetcher.get(&url, 1024), &url);
        assert!(
            why.contains(&format!("{name} resolves to 127.0.0.1, a loopback address")),
            "{why}"
        );
    }
    assert_eq!(server.hits(), 0);
}

#[test]
fn a_name_rebound_after_the_check_is_never_connected_at_its_new_address() {
    // The secret listens on 127.0.0.1:P; a benign server plays the public host on
    // 127.0.0.2:P (allowed). The name first resolves to the benign address, then (rebinding)
    // to the secret's: a fetch that looked the name up twice would connect to the secret.
    let secret = Server::secret(SECRET);
    let benign = Server::start_at("127.0.0.2", secret.port(), Answer::Body(b"public".to_vec()));
    let dns = Arc::new(Table {
        answers: vec![
            ("rebind.example".into(), vec![ip("127.0.0.2")]),
            ("rebind.example".into(), vec![ip("127.0.0.1")]),
        ],
        ..Table::default()
    });
    let fetcher = Fetcher::with_dns(
        Policy {
            allow_networks: vec!["127.0.0.2/32".parse().unwrap()],
            ..policy()
        },
        dns.clone(),
    );
    let url = format!("http://rebind.example:{}/data", secret.port());
    assert_eq!(fetcher.get(&url, 1024).unwrap(), b"public");
    assert_eq!(
        dns.lookups.load(Ordering::SeqCst),
        1,
        "one lookup per connection"
    );
    assert_eq!(benign.hits(), 1);
    let why = assert_refused(fetcher.get(&url, 1024), &url);
    assert!(
        why.contains("rebind.example resolves to 127.0.0.1"),
        "{why}"
    );
    assert_eq!(dns.lookups.load(Ordering::SeqCst), 2);
    assert_eq!(secret.hits(), 0);
}

#[test]
fn redirects_are_checked_again_and_never_reach_inside() {
    let secret = Server::secret(SECRET);
    let port = secret.port();
    for target in [
        format!("http://127.0.0.1:{port}/secret"),
        format!("http://0x7f000001:{port}/secret"),
        format!("http://localhost:{port}/secret"),
        format!("http://[::ffff:127.0.0.1]:{port}/secret"),
    ] {
        let hop = Server::start("127.0.0.2", Answer::Redirect(target.clone()));
        let start = format!("http://127.0.0.2:{}/start", hop.port());
        // Allowed by network: the redirect's target is checked by address.
        let by_network = Fetcher::new(Policy {
            allow_networks: vec!["127.0.0.2/32".parse().unwrap()],
            ..policy()
        });
        let why = assert_refused(by_network.get(&start, 1024), &target);
        assert!(why.contains("127.0.0.1"), "{target}: {why}");
        // Allowed by name: the redirect's target is not that name.
        let by_name = Fetcher::new(Policy {
            allow_hosts: vec!["127.0.0.2".into()],
            ..policy()
        });
        let why = assert_refused(by_name.get(&start, 1024), &target);
        assert!(why.contains("not in allow_hosts"), "{target}: {why}");
        assert_eq!(hop.hits(), 2, "the allowed first hop was asked");
    }
    assert_eq!(secret.hits(), 0);
}

#[test]
fn redirects_are_limited_in_number() {
    let hop = Server::start("127.0.0.2", Answer::Redirect("/again".into()));
    let fetcher = Fetcher::new(Policy {
        allow_networks: vec!["127.0.0.2/32".parse().unwrap()],
        max_redirects: 3,
        ..policy()
    });
    let err = fetcher
        .get(&format!("http://127.0.0.2:{}/", hop.port()), 1024)
        .unwrap_err();
    assert!(
        matches!(err.kind, FetchErrorKind::TooManyRedirects(3)),
        "{err}"
    );
    assert_eq!(hop.hits(), 4);
}

#[test]
fn bodies_over_the_cap_are_refused() {
    let server = Server::start("127.0.0.1", Answer::Body(vec![b'x'; 3000]));
    let fetcher = Fetcher::new(Policy {
        allow_hosts: vec!["127.0.0.1".into()],
        ..policy()
    });
    let url = format!("http://127.0.0.1:{}/", server.port());
    let err = fetcher.get(&url, 2048).unwrap_err();
    assert!(matches!(err.kind, FetchErrorKind::TooLarge(2048)), "{err}");
    assert_eq!(fetcher.get(&url, 3000).unwrap().len(), 3000);
}
