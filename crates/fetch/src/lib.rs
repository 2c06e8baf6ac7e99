//! verdict-fetch: the one HTTP client of verdict's services, guarded against server-side request
//! forgery. By default it reaches only globally routable addresses: a URL whose host is, spells
//! or resolves to a loopback, private, link-local, shared, multicast or otherwise special address
//! is refused before any connection, every redirect is checked again, and the connection goes to
//! the very addresses that were checked (see docs/server.md, "Remote fetches (SSRF)").
//!
//! ```
//! use verdict_fetch::{Fetcher, FetchErrorKind, Policy};
//! let fetcher = Fetcher::new(Policy::default());
//! let err = fetcher.get("http://0x7f000001:8080/secret", 1024).unwrap_err();
//! assert!(matches!(err.kind, FetchErrorKind::Refused(_)));
//! assert!(err.to_string().contains("127.0.0.1 is a loopback address"));
//! ```

mod address;
mod client;
mod host;
mod network;

pub use address::refusal;
pub use client::{Dns, FetchError, FetchErrorKind, Fetcher, Policy, Reply, SystemDns};
pub use host::Host;
pub use network::Network;
/// The URI type requests are made with (ureq's `http::Uri`).
pub use ureq::http::Uri;
