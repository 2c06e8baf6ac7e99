//! What a `judge-server` process does (`role` in the config): judge on its own, judge from a
//! RabbitMQ queue, or take HTTP requests in front of that queue.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

verdict_contracts::wire_enum! {
    /// The process's role.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
    pub enum Role {
        /// HTTP in, judged here (the in-process queue); no broker.
        #[default]
        Standalone = "standalone",
        /// Submissions from the broker's request queue, reports to its report exchange; HTTP
        /// serves only `/v1/health` and `/metrics`.
        Worker = "worker",
        /// HTTP in, published to the broker's request exchange; `GET` and event streams served
        /// from the reports consumed from the report exchange. Judges nothing (no sandbox).
        Frontend = "frontend",
    }
}

impl Role {
    /// What a server of this role is called in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Role::Standalone => "standalone server",
            Role::Worker => "worker",
            Role::Frontend => "front end",
        }
    }
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
        let err = ServerConfig::from_toml("role = \"boss\"\n").unwrap_err();
        assert!(err.to_string().contains("role"), "{err}");
        let config = ServerConfig::from_toml("role = \"frontend\"\n").unwrap();
        assert_eq!(config.role, Role::Frontend);
        let err = ServerConfig::from_toml(
            "role = \"frontend\"\n[amqp.request]\nqueue = \"\"\nexchange = \"x\"\n",
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "amqp.request.queue: must not be empty");
        assert_eq!(ServerConfig::default().role, Role::Standalone);
    }
}
