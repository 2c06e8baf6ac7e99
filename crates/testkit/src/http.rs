//! The blocking HTTP client the tests and benches talk to a server with.

use std::time::Duration;

/// A blocking HTTP client (no proxy) that treats every status as a response and gives up on a
/// request after `limit`.
pub fn agent(limit: Duration) -> ureq::Agent {
    ureq::Agent::new_with_config(
        ureq::config::Config::builder()
            .http_status_as_error(false)
            .proxy(None)
            .timeout_global(Some(limit))
            .build(),
    )
}
