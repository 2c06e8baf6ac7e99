//! Connecting, declaring the home system's topology, and publishing with confirms.

use crate::config::{AmqpConfig, Route};
use crate::error::Error;
use crate::link::Link;
use crate::metrics::QueueMetrics;
use lapin::options::{
    BasicConsumeOptions, BasicPublishOptions, ConfirmSelectOptions, ExchangeDeclareOptions,
    QueueBindOptions, QueueDeclareOptions,
};
use lapin::types::FieldTable;
use lapin::{
    BasicProperties, Channel, Connection, ConnectionProperties, Consumer, ExchangeKind,
    PublisherConfirm,
};
use tokio_util::sync::CancellationToken;

/// The URI without its password, for logs and errors.
pub fn redacted(uri: &str) -> String {
    match (uri.find("://"), uri.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &uri[scheme + 3..at];
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{}{user}:***{}", &uri[..scheme + 3], &uri[at..])
        }
        _ => uri.to_owned(),
    }
}

/// Opens a connection named `name` (the broker's management UI shows it).
pub async fn connect(config: &AmqpConfig, name: &str) -> Result<Connection, Error> {
    let properties = ConnectionProperties::default().with_connection_name(name.into());
    Connection::connect(&config.uri, properties)
        .await
        .map_err(Error::amqp(format!(
            "connecting to {}",
            redacted(&config.uri)
        )))
}

/// Connects as `name` and opens a channel with the request and report routes declared on it.
pub async fn open_routes(config: &AmqpConfig, name: &str) -> Result<(Connection, Channel), Error> {
    let connection = connect(config, name).await?;
    let channel = connection
        .create_channel()
        .await
        .map_err(Error::amqp("opening a channel"))?;
    declare(&channel, &config.request, "amqp.request").await?;
    declare(&channel, &config.report, "amqp.report").await?;
    Ok((connection, channel))
}

/// A channel whose publishes the broker confirms.
pub async fn confirming_channel(connection: &Connection) -> Result<Channel, Error> {
    let channel = connection
        .create_channel()
        .await
        .map_err(Error::amqp("opening a channel"))?;
    channel
        .confirm_select(ConfirmSelectOptions::default())
        .await
        .map_err(Error::amqp("enabling publisher confirms"))?;
    Ok(channel)
}

/// Declares `route` as the home system does: a durable exchange of its type, a durable,
/// non-exclusive, non-auto-delete queue (when named) bound with the routing key.
pub async fn declare(channel: &Channel, route: &Route, key: &str) -> Result<(), Error> {
    let kind = route.kind(key)?;
    declare_exchange(channel, &route.exchange, kind).await?;
    if route.queue.is_empty() {
        return Ok(());
    }
    channel
        .queue_declare(
            route.queue.as_str().into(),
            QueueDeclareOptions::durable(),
            FieldTable::default(),
        )
        .await
        .map_err(Error::amqp(format!("declaring queue {:?}", route.queue)))?;
    channel
        .queue_bind(
            route.queue.as_str().into(),
            route.exchange.as_str().into(),
            route.routing_key.as_str().into(),
            QueueBindOptions::default(),
            FieldTable::default(),
        )
        .await
        .map_err(Error::amqp(format!(
            "binding queue {:?} to exchange {:?}",
            route.queue, route.exchange
        )))
}

/// Declares the durable exchange `name` of `kind`.
pub(crate) async fn declare_exchange(
    channel: &Channel,
    name: &str,
    kind: ExchangeKind,
) -> Result<(), Error> {
    channel
        .exchange_declare(
            name.into(),
            kind,
            ExchangeDeclareOptions {
                durable: true,
                ..ExchangeDeclareOptions::default()
            },
            FieldTable::default(),
        )
        .await
        .map_err(Error::amqp(format!("declaring exchange {name:?}")))
}

/// Consumes from `queue`, each delivery acked by hand.
pub(crate) async fn consume(channel: &Channel, queue: &str) -> Result<Consumer, Error> {
    channel
        .basic_consume(
            queue.into(),
            "".into(),
            BasicConsumeOptions::default(),
            FieldTable::default(),
        )
        .await
        .map_err(Error::amqp(format!("consuming from queue {queue:?}")))
}

/// Reconnects with backoff after a session with the broker ended, keeping the link's state.
pub(crate) struct Reconnect<'a> {
    config: &'a AmqpConfig,
    metrics: &'a QueueMetrics,
    link: &'a Link,
    /// Sessions that failed in a row (a session resets it once connected).
    pub(crate) attempt: u32,
}

impl<'a> Reconnect<'a> {
    /// No failed session yet.
    pub(crate) fn new(config: &'a AmqpConfig, metrics: &'a QueueMetrics, link: &'a Link) -> Self {
        Reconnect {
            config,
            metrics,
            link,
            attempt: 0,
        }
    }

    /// Whether to start another session after one `ended`: not after a clean end nor once
    /// `shutdown` fires; after a failure it records it and waits the backoff first.
    pub(crate) async fn again(
        &mut self,
        ended: Result<(), Error>,
        shutdown: &CancellationToken,
    ) -> bool {
        let Err(err) = ended else {
            return false;
        };
        QueueMetrics::inc(&self.metrics.connection_failures);
        self.link.down(&err.to_string());
        tracing::warn!(error = %err, attempt = self.attempt, "broker unavailable; reconnecting");
        let wait = self.config.backoff(self.attempt);
        self.attempt = self.attempt.saturating_add(1);
        tokio::select! {
            () = shutdown.cancelled() => false,
            () = tokio::time::sleep(wait) => true,
        }
    }
}

/// Publishes a persistent JSON message and waits for the broker's confirm.
pub async fn publish(
    channel: &Channel,
    exchange: &str,
    routing_key: &str,
    body: &[u8],
) -> Result<(), Error> {
    publish_with(channel, exchange, routing_key, body, None).await
}

/// [`publish`] with these message headers.
pub async fn publish_with(
    channel: &Channel,
    exchange: &str,
    routing_key: &str,
    body: &[u8],
    headers: Option<lapin::types::FieldTable>,
) -> Result<(), Error> {
    let confirm = start_publish_with(channel, exchange, routing_key, body, headers).await?;
    confirmed(confirm, exchange).await
}

/// Publishes a persistent JSON message; the confirm is awaited with [`confirmed`].
pub async fn start_publish(
    channel: &Channel,
    exchange: &str,
    routing_key: &str,
    body: &[u8],
) -> Result<PublisherConfirm, Error> {
    start_publish_with(channel, exchange, routing_key, body, None).await
}

/// [`start_publish`] with these message headers.
pub async fn start_publish_with(
    channel: &Channel,
    exchange: &str,
    routing_key: &str,
    body: &[u8],
    headers: Option<lapin::types::FieldTable>,
) -> Result<PublisherConfirm, Error> {
    let mut properties = BasicProperties::default()
        .with_content_type("application/json".into())
        .with_delivery_mode(2);
    if let Some(headers) = headers {
        properties = properties.with_headers(headers);
    }
    channel
        .basic_publish(
            exchange.into(),
            routing_key.into(),
            BasicPublishOptions::default(),
            body,
            properties,
        )
        .await
        .map_err(Error::amqp(format!("publishing to exchange {exchange:?}")))
}

/// Waits for a publish's confirm; a nack is an error.
pub async fn confirmed(confirm: PublisherConfirm, exchange: &str) -> Result<(), Error> {
    let confirm = confirm.await.map_err(Error::amqp(format!(
        "waiting for the confirm of a publish to {exchange:?}"
    )))?;
    if confirm.is_nack() {
        return Err(Error::Nacked {
            exchange: exchange.to_owned(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_stay_out_of_logs() {
        assert_eq!(
            redacted("amqp://matrix:password@192.168.1.1:5672"),
            "amqp://matrix:***@192.168.1.1:5672"
        );
        assert_eq!(redacted("amqp://127.0.0.1:5672"), "amqp://127.0.0.1:5672");
    }
}
