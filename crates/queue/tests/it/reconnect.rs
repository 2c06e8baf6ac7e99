//! Broker down at start, broker restarts: workers reconnect with backoff and lose nothing.

use crate::common::*;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use verdict_queue::{Link, QueueMetrics, Worker};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_survives_a_broker_down_at_start_and_a_restart() {
    let Some(mut node) = own_node() else { return };
    let config = config(&node.uri(), "restart");
    node.stop();
    let metrics = arc(QueueMetrics::default());
    let link = arc(Link::default());
    let worker = arc(Worker::new(
        config.clone(),
        1,
        arc(Steps {
            step: Duration::from_millis(5),
            ..Steps::default()
        }),
        metrics.clone(),
        link.clone(),
    ));
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(worker.run(shutdown.clone()));
    {
        let metrics = metrics.clone();
        eventually("failed attempts", move || {
            count(&metrics.connection_failures) >= 2
        })
        .await;
    }
    let status = link.status();
    assert!(!status.connected);
    assert!(status.last_error.is_some_and(|e| e.contains("connecting")));

    tokio::task::block_in_place(|| node.restart()).unwrap();
    {
        let link = link.clone();
        eventually("the worker connects", move || link.is_up()).await;
    }
    let mut platform = connect_platform(&config).await;
    assert_one_task_accepted(&mut platform, "before-restart").await;

    // The broker restarts under a connected worker: it reconnects to the durable queues.
    drop(platform);
    tokio::task::block_in_place(|| node.restart()).unwrap();
    let mut platform = connect_platform(&config).await;
    assert_one_task_accepted(&mut platform, "after-restart").await;
    assert!(link.is_up());
    assert!(count(&metrics.connections) >= 2);
    shutdown.cancel();
    task.await.unwrap();
}
