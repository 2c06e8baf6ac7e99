//! The crate's one error type.

/// What went wrong talking to the broker, or in the `[amqp]` config.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A config value out of range (`key` is its full name, such as `amqp.uri`).
    #[error("{key}: {message}")]
    Config {
        /// The key at fault.
        key: String,
        /// What is wrong with it.
        message: String,
    },
    /// The broker refused an operation or the connection failed.
    #[error("{doing}: {source}")]
    Amqp {
        /// What was being done (`connecting to amqp://127.0.0.1:5672`, `declaring queue x`).
        doing: String,
        /// lapin's error.
        #[source]
        source: lapin::Error,
    },
    /// The broker answered a publish with a negative confirm.
    #[error("the broker refused (nack) a message published to exchange {exchange:?}")]
    Nacked {
        /// The exchange published to.
        exchange: String,
    },
    /// There is no connection to the broker right now.
    #[error("not connected to the broker: {0}")]
    Disconnected(String),
    /// The connection ended (the broker closed it or went away).
    #[error("the connection to the broker was lost: {0}")]
    Lost(String),
}

impl Error {
    /// Wraps a lapin error with what was being done.
    pub fn amqp(doing: impl Into<String>) -> impl FnOnce(lapin::Error) -> Error {
        let doing = doing.into();
        move |source| Error::Amqp { doing, source }
    }
}
