//! What a `judge-server` process does (`role` in the config): judge on its own, or judge from a
//! RabbitMQ queue.

use serde::Deserialize;

/// The process's role.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// HTTP in, judged here (the in-process queue); no broker.
    #[default]
    Standalone,
    /// Submissions from the broker's request queue, reports to its report exchange; HTTP serves
    /// only `/v1/health` and `/metrics`.
    Worker,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ServerConfig;

    #[test]
    fn the_role_and_the_amqp_table_are_read_and_checked() {
        let config = ServerConfig::from_toml(
            "role = \"worker\"\n[amqp]\nuri = \"amqp://u:p@broker:5672/%2f\"\n[amqp.request]\nqueue = \"q\"\nexchange = \"x\"\n",
        )
        .unwrap();
        assert_eq!(config.role, Role::Worker);
        assert_eq!(config.amqp.request.queue, "q");
        assert_eq!(config.amqp.request.exchange_type, "topic");
        assert_eq!(config.amqp.report.queue, "matrix-judge-result");
        let err = ServerConfig::from_toml("role = \"worker\"\n[amqp]\nuri = \"http://broker\"\n")
            .unwrap_err();
        assert!(err.to_string().starts_with("amqp.uri: "), "{err}");
        let err = ServerConfig::from_toml("[amqp]\nprefetch = 3\n").unwrap_err();
        assert!(err.to_string().contains("prefetch"), "{err}");
        assert!(ServerConfig::from_toml("role = \"boss\"\n").is_err());
        assert_eq!(ServerConfig::default().role, Role::Standalone);
    }
}
