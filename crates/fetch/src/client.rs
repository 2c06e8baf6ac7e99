//! The guarded client: every connection, redirects included, goes to an address that was
//! resolved and checked once, by the resolver the HTTP client itself uses, so there is no
//! second lookup between the check and the connection (DNS rebinding).

use crate::address::refusal;
use crate::host::Host;
use crate::network::Network;
use std::fmt;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;
use ureq::http::Uri;
use ureq::unversioned::resolver::{ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

/// Which hosts and addresses may be reached.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Hosts the operator trusts. Empty: any host, as long as every address it resolves to is
    /// globally routable (or in `allow_networks`). Not empty: only these hosts, at whatever
    /// address they resolve to (naming a host is the operator's decision to trust it).
    pub allow_hosts: Vec<String>,
    /// Networks whose addresses may be reached even though they are not globally routable
    /// (e.g. a private test-data server at `10.1.2.0/24`).
    pub allow_networks: Vec<Network>,
    /// Redirects followed at most (each is checked like the first request).
    pub max_redirects: u32,
    /// Timeout of one request, from resolving to the last byte of the body.
    pub timeout: Duration,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            allow_hosts: Vec::new(),
            allow_networks: Vec::new(),
            max_redirects: 5,
            timeout: Duration::from_secs(30),
        }
    }
}

/// Looks names up (the system resolver by default; tests and special set-ups supply their own).
pub trait Dns: fmt::Debug + Send + Sync + 'static {
    /// Every address of `name`, with `port`.
    fn lookup(&self, name: &str, port: u16) -> std::io::Result<Vec<SocketAddr>>;
}

/// The system resolver (`getaddrinfo`).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemDns;

impl Dns for SystemDns {
    fn lookup(&self, name: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
        Ok((name, port).to_socket_addrs()?.collect())
    }
}

/// Why a request failed: the method, the URL asked for and what happened.
#[derive(Debug, thiserror::Error)]
#[error("{method} {url}: {kind}")]
pub struct FetchError {
    /// `GET`, `POST` or `PUT`.
    pub method: &'static str,
    /// The URL asked for (a redirect's target is named in `kind`).
    pub url: String,
    /// What happened.
    pub kind: FetchErrorKind,
}

/// What went wrong with a request.
#[derive(Debug, thiserror::Error)]
pub enum FetchErrorKind {
    /// The URL is not an absolute http(s) URL with a valid host.
    #[error("not a valid http(s) URL: {0}")]
    BadUrl(String),
    /// The policy refuses the host or one of its addresses.
    #[error("refused: {0}")]
    Refused(String),
    /// The name could not be resolved.
    #[error("cannot resolve {host}: {reason}")]
    Resolve {
        /// The name.
        host: String,
        /// The resolver's reason.
        reason: String,
    },
    /// The body is larger than the caller's cap.
    #[error("the response is larger than {0} bytes")]
    TooLarge(u64),
    /// The request took longer than its timeout.
    #[error("timed out after {0} ms")]
    Timeout(u128),
    /// More redirects than the policy allows.
    #[error("more than {0} redirects")]
    TooManyRedirects(u32),
    /// `get` received a status other than 2xx.
    #[error("HTTP {0}")]
    Status(u16),
    /// Any other transport failure (connection refused, TLS, protocol).
    #[error("{0}")]
    Transport(String),
}

/// A response: its status and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The body, within the caller's cap.
    pub body: Vec<u8>,
}

/// A refusal raised inside the resolver, carried through the HTTP client's error.
#[derive(Debug, thiserror::Error)]
enum Guarded {
    #[error("{0}")]
    Refused(String),
    #[error("{host}: {reason}")]
    Resolve { host: String, reason: String },
}

/// The address check, used by the HTTP client as its resolver.
#[derive(Debug)]
struct Guard {
    allow_hosts: Vec<Host>,
    allow_networks: Vec<Network>,
    dns: Arc<dyn Dns>,
}

impl Guard {
    /// The checked addresses of `host:port`, or why they may not be reached.
    fn addresses(
        &self,
        host: &str,
        port: u16,
        timeout: Option<Duration>,
    ) -> Result<Vec<SocketAddr>, Guarded> {
        let parsed = Host::parse(host).map_err(Guarded::Refused)?;
        let named = self.allow_hosts.contains(&parsed);
        if !self.allow_hosts.is_empty() && !named {
            return Err(Guarded::Refused(format!(
                "host {parsed} is not in allow_hosts"
            )));
        }
        let addrs = match &parsed {
            Host::Ip(ip) => vec![SocketAddr::new(*ip, port)],
            Host::Name(name) => self.lookup(name, port, timeout)?,
        };
        if addrs.is_empty() {
            return Err(Guarded::Resolve {
                host: parsed.to_string(),
                reason: "no addresses".into(),
            });
        }
        if !named {
            for addr in &addrs {
                self.check(&parsed, addr.ip())?;
            }
        }
        Ok(addrs)
    }

    /// Refuses `ip` unless it is globally routable or in an allowed network.
    fn check(&self, host: &Host, ip: IpAddr) -> Result<(), Guarded> {
        if self.allow_networks.iter().any(|n| n.contains(ip)) {
            return Ok(());
        }
        let Some(why) = refusal(ip) else {
            return Ok(());
        };
        let subject = match host {
            Host::Ip(_) => format!("{ip} is"),
            Host::Name(name) => format!("{name} resolves to {ip},"),
        };
        Err(Guarded::Refused(format!(
            "{subject} {why}: only globally routable addresses are fetched unless the operator \
             allows the host (allow_hosts) or its network (allow_networks)"
        )))
    }

    /// Looks `name` up within `timeout`.
    fn lookup(
        &self,
        name: &str,
        port: u16,
        timeout: Option<Duration>,
    ) -> Result<Vec<SocketAddr>, Guarded> {
        let failed = |reason: String| Guarded::Resolve {
            host: name.to_owned(),
            reason,
        };
        let Some(timeout) = timeout else {
            return self
                .dns
                .lookup(name, port)
                .map_err(|e| failed(e.to_string()));
        };
        let (tx, rx) = mpsc::sync_channel(1);
        let dns = self.dns.clone();
        let owned = name.to_owned();
        std::thread::spawn(move || tx.send(dns.lookup(&owned, port)).ok());
        match rx.recv_timeout(timeout) {
            Ok(result) => result.map_err(|e| failed(e.to_string())),
            Err(_) => Err(failed(format!(
                "no answer within {} ms",
                timeout.as_millis()
            ))),
        }
    }
}

/// ureq's resolver hook: every connection's addresses come from the guard.
#[derive(Debug, Clone)]
struct GuardResolver(Arc<Guard>);

impl Resolver for GuardResolver {
    fn resolve(
        &self,
        uri: &Uri,
        _config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let host = uri
            .host()
            .ok_or_else(|| ureq::Error::BadUri(uri.to_string()))?;
        let port = uri
            .port_u16()
            .unwrap_or(if uri.scheme_str() == Some("https") {
                443
            } else {
                80
            });
        let limit = (!timeout.after.is_not_happening()).then(|| *timeout.after);
        let addrs = self
            .0
            .addresses(host, port, limit)
            .map_err(|e| ureq::Error::Other(Box::new(e)))?;
        let mut out = self.empty();
        for addr in addrs.into_iter().take(16) {
            out.push(addr);
        }
        Ok(out)
    }
}

/// An HTTP client that reaches only what its [`Policy`] allows.
#[derive(Debug, Clone)]
pub struct Fetcher {
    agent: ureq::Agent,
    timeout: Duration,
    max_redirects: u32,
}

impl Fetcher {
    /// A client with the system resolver.
    pub fn new(policy: Policy) -> Fetcher {
        Fetcher::with_dns(policy, Arc::new(SystemDns))
    }

    /// A client looking names up with `dns`.
    pub fn with_dns(policy: Policy, dns: Arc<dyn Dns>) -> Fetcher {
        let guard = Arc::new(Guard {
            allow_hosts: policy
                .allow_hosts
                .iter()
                .map(|h| {
                    Host::parse(h.trim()).unwrap_or_else(|_| Host::Name(h.to_ascii_lowercase()))
                })
                .collect(),
            allow_networks: policy.allow_networks,
            dns,
        });
        let config = ureq::Agent::config_builder()
            // A proxy would resolve the target itself, past the guard.
            .proxy(None)
            .timeout_global(Some(policy.timeout))
            .max_redirects(policy.max_redirects)
            .max_redirects_will_error(true)
            .http_status_as_error(false)
            .user_agent(concat!("verdict/", env!("CARGO_PKG_VERSION")))
            .build();
        let agent =
            ureq::Agent::with_parts(config, DefaultConnector::default(), GuardResolver(guard));
        Fetcher {
            agent,
            timeout: policy.timeout,
            max_redirects: policy.max_redirects,
        }
    }

    /// The body of `url` (status 2xx only), at most `max_bytes` long.
    pub fn get(&self, url: &str, max_bytes: u64) -> Result<Vec<u8>, FetchError> {
        let fail = |kind| FetchError {
            method: "GET",
            url: url.to_owned(),
            kind,
        };
        self.precheck(url).map_err(fail)?;
        let response = self.agent.get(url).call();
        let reply = self.read(response, max_bytes, self.timeout).map_err(fail)?;
        if !(200..300).contains(&reply.status) {
            return Err(fail(FetchErrorKind::Status(reply.status)));
        }
        Ok(reply.body)
    }

    /// POSTs `body` to `url` with `headers`; the reply whatever its status, its body at most
    /// `max_bytes` long, within `timeout` (the policy's when `None`).
    pub fn post(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &[u8],
        max_bytes: u64,
        timeout: Option<Duration>,
    ) -> Result<Reply, FetchError> {
        self.send("POST", url, headers, body, max_bytes, timeout)
    }

    /// PUTs `body` to `url` with `headers` (a Judge0 callback), as [`Fetcher::post`] posts.
    pub fn put(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &[u8],
        max_bytes: u64,
        timeout: Option<Duration>,
    ) -> Result<Reply, FetchError> {
        self.send("PUT", url, headers, body, max_bytes, timeout)
    }

    fn send(
        &self,
        method: &'static str,
        url: &str,
        headers: &[(String, String)],
        body: &[u8],
        max_bytes: u64,
        timeout: Option<Duration>,
    ) -> Result<Reply, FetchError> {
        let fail = |kind| FetchError {
            method,
            url: url.to_owned(),
            kind,
        };
        self.precheck(url).map_err(fail)?;
        let timeout = timeout.unwrap_or(self.timeout);
        let request = if method == "PUT" {
            self.agent.put(url)
        } else {
            self.agent.post(url)
        };
        let mut request = request.config().timeout_global(Some(timeout)).build();
        for (name, value) in headers {
            request = request.header(name, value);
        }
        self.read(request.send(body), max_bytes, timeout)
            .map_err(fail)
    }

    /// Refuses a URL that is not http(s) or whose host is not valid, before any I/O.
    fn precheck(&self, url: &str) -> Result<(), FetchErrorKind> {
        let uri: Uri = url
            .parse()
            .map_err(|e| FetchErrorKind::BadUrl(format!("{e}")))?;
        if !matches!(uri.scheme_str(), Some("http" | "https")) {
            return Err(FetchErrorKind::BadUrl(
                "the scheme must be http or https".into(),
            ));
        }
        let host = uri
            .host()
            .ok_or_else(|| FetchErrorKind::BadUrl("no host".into()))?;
        Host::parse(host).map_err(FetchErrorKind::BadUrl)?;
        Ok(())
    }

    /// Reads a response's body within `max_bytes`, mapping the client's errors.
    fn read(
        &self,
        response: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
        max_bytes: u64,
        timeout: Duration,
    ) -> Result<Reply, FetchErrorKind> {
        let mut response = response.map_err(|e| self.kind(e, max_bytes, timeout))?;
        let status = response.status().as_u16();
        // ureq's limit refuses a read once the limit is reached, even at the end of the body.
        let body = response
            .body_mut()
            .with_config()
            .limit(max_bytes.saturating_add(1))
            .read_to_vec()
            .map_err(|e| self.kind(e, max_bytes, timeout))?;
        if body.len() as u64 > max_bytes {
            return Err(FetchErrorKind::TooLarge(max_bytes));
        }
        Ok(Reply { status, body })
    }

    /// Our reading of one of the client's errors.
    fn kind(&self, err: ureq::Error, max_bytes: u64, timeout: Duration) -> FetchErrorKind {
        match err {
            ureq::Error::Other(inner) => match inner.downcast::<Guarded>() {
                Ok(guarded) => match *guarded {
                    Guarded::Refused(why) => FetchErrorKind::Refused(why),
                    Guarded::Resolve { host, reason } => FetchErrorKind::Resolve { host, reason },
                },
                Err(other) => FetchErrorKind::Transport(other.to_string()),
            },
            ureq::Error::Timeout(_) => FetchErrorKind::Timeout(timeout.as_millis()),
            ureq::Error::TooManyRedirects => FetchErrorKind::TooManyRedirects(self.max_redirects),
            ureq::Error::BodyExceedsLimit(_) => FetchErrorKind::TooLarge(max_bytes),
            ureq::Error::HostNotFound => FetchErrorKind::Resolve {
                host: String::new(),
                reason: "host not found".into(),
            },
            other => FetchErrorKind::Transport(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Fixed(Vec<IpAddr>);

    impl Dns for Fixed {
        fn lookup(&self, _name: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
            Ok(self.0.iter().map(|ip| SocketAddr::new(*ip, port)).collect())
        }
    }

    fn guard(allow_hosts: &[&str], allow_networks: &[&str], dns: Vec<IpAddr>) -> Guard {
        Guard {
            allow_hosts: allow_hosts
                .iter()
                .map(|h| Host::parse(h).unwrap())
                .collect(),
            allow_networks: allow_networks.iter().map(|n| n.parse().unwrap()).collect(),
            dns: Arc::new(Fixed(dns)),
        }
    }

    fn ips(list: &[&str]) -> Vec<IpAddr> {
        list.iter().map(|s| s.parse().unwrap()).collect()
    }

    #[test]
    fn every_address_of_a_name_must_pass() {
        let g = guard(&[], &[], ips(&["93.184.216.34", "10.0.0.1"]));
        let err = g.addresses("data.example", 80, None).unwrap_err();
        assert!(
            err.to_string()
                .contains("data.example resolves to 10.0.0.1, a private address"),
            "{err}"
        );
        let g = guard(&[], &[], ips(&["93.184.216.34"]));
        assert_eq!(g.addresses("data.example", 80, None).unwrap().len(), 1);
    }

    #[test]
    fn allowed_networks_and_hosts_pass_their_private_addresses() {
        let g = guard(&[], &["10.1.0.0/16"], ips(&["10.1.2.3"]));
        assert!(g.addresses("data.internal", 80, None).is_ok());
        assert!(g.addresses("10.1.9.9", 80, None).is_ok());
        assert!(g.addresses("10.2.0.1", 80, None).is_err());
        let g = guard(&["Data.Internal", "127.0.0.1"], &[], ips(&["10.9.9.9"]));
        assert!(g.addresses("data.internal.", 80, None).is_ok());
        assert!(
            g.addresses("0x7f000001", 80, None).is_ok(),
            "the same address"
        );
        let err = g.addresses("other.example", 80, None).unwrap_err();
        assert!(err.to_string().contains("not in allow_hosts"), "{err}");
    }

    #[test]
    fn a_slow_resolver_is_cut_off_by_the_timeout() {
        #[derive(Debug)]
        struct Slow;
        impl Dns for Slow {
            fn lookup(&self, _: &str, _: u16) -> std::io::Result<Vec<SocketAddr>> {
                std::thread::sleep(Duration::from_secs(5));
                Ok(Vec::new())
            }
        }
        let g = Guard {
            allow_hosts: Vec::new(),
            allow_networks: Vec::new(),
            dns: Arc::new(Slow),
        };
        let err = g
            .addresses("slow.example", 80, Some(Duration::from_millis(50)))
            .unwrap_err();
        assert!(err.to_string().contains("no answer within 50 ms"), "{err}");
    }
}
