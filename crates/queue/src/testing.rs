//! A private RabbitMQ node for tests and benches (feature `testing`): Debian's `rabbitmq-server`
//! started on free loopback ports with its own data, log and cookie directory and node name, no
//! system service involved. A watcher stops it (and its `epmd`) when the process that started it
//! exits, even by `kill -9`, so a node shared through a `static` never outlives its test binary.
//! [`Platform`] plays a platform written for the home system, with a plain AMQP client.

use crate::config::AmqpConfig;
use futures::StreamExt;
use lapin::options::{
    BasicAckOptions, BasicConsumeOptions, BasicPublishOptions, QueueDeclareOptions,
};
use lapin::types::FieldTable;
use lapin::{BasicProperties, Connection, ConnectionProperties, Consumer};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SERVER: &str = "/usr/lib/rabbitmq/bin/rabbitmq-server";

/// A running private RabbitMQ node.
#[derive(Debug)]
pub struct RabbitNode {
    dir: tempfile::TempDir,
    name: String,
    port: u16,
    dist_port: u16,
    epmd_port: u16,
    child: Option<Child>,
}

/// Why a node could not be started (`NotInstalled`: tests print `skipped:`).
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// `rabbitmq-server` is not installed (`scripts/setup.sh --deps-only` installs it).
    #[error("rabbitmq-server is not installed ({SERVER}); run scripts/setup.sh --deps-only")]
    NotInstalled,
    /// It did not come up; the message has the end of its log.
    #[error("rabbitmq-server did not start: {0}")]
    Start(String),
}

fn free_port() -> Result<u16, NodeError> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| NodeError::Start(format!("no free port: {e}")))
}

impl RabbitNode {
    /// Whether the broker is installed here.
    pub fn installed() -> bool {
        Path::new(SERVER).exists()
    }

    /// Starts a node and waits until it accepts AMQP connections.
    pub fn start() -> Result<RabbitNode, NodeError> {
        if !Self::installed() {
            return Err(NodeError::NotInstalled);
        }
        let dir = tempfile::Builder::new()
            .prefix("verdict-rabbit-")
            .tempdir()
            .map_err(|e| NodeError::Start(format!("temp dir: {e}")))?;
        for sub in ["mnesia", "log"] {
            std::fs::create_dir_all(dir.path().join(sub))
                .map_err(|e| NodeError::Start(format!("{sub} dir: {e}")))?;
        }
        std::fs::write(dir.path().join("enabled_plugins"), "[].\n")
            .and_then(|()| std::fs::write(dir.path().join("rabbitmq.conf"), ""))
            .map_err(|e| NodeError::Start(format!("config: {e}")))?;
        let mut node = RabbitNode {
            name: format!("verdict-{}-{}@localhost", std::process::id(), free_port()?),
            port: free_port()?,
            dist_port: free_port()?,
            epmd_port: free_port()?,
            dir,
            child: None,
        };
        node.launch()?;
        node.watch_parent()?;
        Ok(node)
    }

    fn env(&self, command: &mut Command) {
        let base = self.dir.path();
        command
            .env("HOME", base)
            .env("RABBITMQ_NODENAME", &self.name)
            .env("RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1")
            .env("RABBITMQ_NODE_PORT", self.port.to_string())
            .env("RABBITMQ_DIST_PORT", self.dist_port.to_string())
            .env("ERL_EPMD_PORT", self.epmd_port.to_string())
            .env("ERL_EPMD_ADDRESS", "127.0.0.1")
            .env("RABBITMQ_MNESIA_BASE", base.join("mnesia"))
            .env("RABBITMQ_LOG_BASE", base.join("log"))
            .env("RABBITMQ_PID_FILE", base.join("pid"))
            .env(
                "RABBITMQ_ENABLED_PLUGINS_FILE",
                base.join("enabled_plugins"),
            )
            .env("RABBITMQ_CONFIG_FILE", base.join("rabbitmq.conf"))
            .env(
                "RABBITMQ_ADVANCED_CONFIG_FILE",
                base.join("advanced.config"),
            )
            .env("RABBITMQ_CONF_ENV_FILE", base.join("rabbitmq-env.conf"));
    }

    fn launch(&mut self) -> Result<(), NodeError> {
        let out = std::fs::File::create(self.dir.path().join("server.out"))
            .map_err(|e| NodeError::Start(format!("log file: {e}")))?;
        let err = out
            .try_clone()
            .map_err(|e| NodeError::Start(format!("log file: {e}")))?;
        let mut command = Command::new(SERVER);
        self.env(&mut command);
        command
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err));
        let child = command
            .spawn()
            .map_err(|e| NodeError::Start(format!("{SERVER}: {e}")))?;
        self.child = Some(child);
        self.wait_ready()
    }

    /// Polls the AMQP port (the listener opens last, when the node is ready).
    fn wait_ready(&mut self) -> Result<(), NodeError> {
        let deadline = Instant::now() + Duration::from_secs(180);
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        loop {
            if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
                return Ok(());
            }
            if let Some(child) = &mut self.child
                && let Ok(Some(status)) = child.try_wait()
            {
                return Err(NodeError::Start(format!(
                    "exited {status}: {}",
                    self.log_tail()
                )));
            }
            if Instant::now() > deadline {
                return Err(NodeError::Start(format!(
                    "not ready in 180 s: {}",
                    self.log_tail()
                )));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(self.dir.path().join("server.out")).unwrap_or_default();
        let start = text.len().saturating_sub(2000);
        text.get(start..).unwrap_or("").to_owned()
    }

    fn pid_file(&self) -> PathBuf {
        self.dir.path().join("pid")
    }

    /// Stops the node when this process exits, however it exits.
    fn watch_parent(&self) -> Result<(), NodeError> {
        let script = format!(
            "tail --pid={parent} -f /dev/null; kill $(cat '{pid}') 2>/dev/null; sleep 3; \
             ERL_EPMD_PORT={epmd} epmd -kill >/dev/null 2>&1; rm -rf '{dir}'",
            parent = std::process::id(),
            pid = self.pid_file().display(),
            epmd = self.epmd_port,
            dir = self.dir.path().display(),
        );
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map(drop)
            .map_err(|e| NodeError::Start(format!("watcher: {e}")))
    }

    /// The AMQP port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The AMQP URI (the default `guest` user, allowed from loopback).
    pub fn uri(&self) -> String {
        format!("amqp://guest:guest@127.0.0.1:{}/%2f", self.port)
    }

    /// Stops the node (SIGTERM to the Erlang VM, a clean shutdown) and waits for it to exit.
    pub fn stop(&mut self) {
        if let Ok(pid) = std::fs::read_to_string(self.pid_file()) {
            let _ = Command::new("kill").arg(pid.trim()).status();
        }
        if let Some(mut child) = self.child.take() {
            let deadline = Instant::now() + Duration::from_secs(60);
            while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        // The Erlang VM may outlive the script by a moment: wait for the port to close.
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect_timeout(&address, Duration::from_millis(100)).is_ok()
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops and starts the node again on the same port with the same data (durable queues and
    /// persistent messages survive).
    pub fn restart(&mut self) -> Result<(), NodeError> {
        self.stop();
        self.launch()
    }
}

impl Drop for RabbitNode {
    fn drop(&mut self) {
        self.stop();
        let _ = Command::new("epmd")
            .arg("-kill")
            .env("ERL_EPMD_PORT", self.epmd_port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// A platform written for the home system: publishes Submissions to the request exchange and
/// reads JudgeReports from the result queue, with a plain AMQP client.
pub struct Platform {
    connection: Connection,
    config: AmqpConfig,
    reports: Consumer,
}

impl std::fmt::Debug for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Platform").finish_non_exhaustive()
    }
}

impl Platform {
    /// Connects and starts reading the result queue (declaring it, durable, as the home system
    /// does; a worker binds it to the report exchange).
    pub async fn connect(config: &AmqpConfig) -> Result<Platform, lapin::Error> {
        let connection = Connection::connect(&config.uri, ConnectionProperties::default()).await?;
        let channel = connection.create_channel().await?;
        channel
            .queue_declare(
                config.report.queue.as_str().into(),
                QueueDeclareOptions::durable(),
                FieldTable::default(),
            )
            .await?;
        let reports = channel
            .basic_consume(
                config.report.queue.as_str().into(),
                "platform".into(),
                BasicConsumeOptions::default(),
                FieldTable::default(),
            )
            .await?;
        Ok(Platform {
            connection,
            config: config.clone(),
            reports,
        })
    }

    /// Publishes `body` to the request exchange with the request routing key.
    pub async fn publish(&self, body: &str) -> Result<(), lapin::Error> {
        let channel = self.connection.create_channel().await?;
        channel
            .basic_publish(
                self.config.request.exchange.as_str().into(),
                self.config.request.routing_key.as_str().into(),
                BasicPublishOptions::default(),
                body.as_bytes(),
                BasicProperties::default().with_delivery_mode(2),
            )
            .await?;
        channel.close(200, "published".into()).await
    }

    /// The next report and its routing key (acked), or `None` after `wait`.
    pub async fn next_report(
        &mut self,
        wait: Duration,
    ) -> Option<(verdict_contracts::JudgeReport, String)> {
        let delivery = tokio::time::timeout(wait, self.reports.next())
            .await
            .ok()??
            .ok()?;
        delivery.acker.ack(BasicAckOptions::default()).await.ok()?;
        let report = serde_json::from_slice(&delivery.data).ok()?;
        Some((report, delivery.routing_key.to_string()))
    }
}
