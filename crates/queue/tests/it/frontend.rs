//! Front ends: publish to the request exchange, and each sees every report, while the
//! platform's result queue still gets its own copy.

use crate::common::*;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use verdict_contracts::JudgeReport;
use verdict_queue::{Consumed, FrontEnd, Link, QueueMetrics, Worker};

fn front_end(
    config: &verdict_queue::AmqpConfig,
) -> (Arc<FrontEnd>, Arc<Mutex<Vec<JudgeReport>>>, Arc<Link>) {
    let seen = arc(Mutex::new(Vec::new()));
    let sink = {
        let seen = seen.clone();
        Arc::new(move |consumed| {
            if let Consumed::Report(report, _) = consumed {
                seen.lock().unwrap().push(report);
            }
            Box::pin(async {}) as futures::future::BoxFuture<'static, ()>
        })
    };
    let link = arc(Link::default());
    let front = arc(FrontEnd::new(
        config.clone(),
        arc(QueueMetrics::default()),
        link.clone(),
        sink,
    ));
    (front, seen, link)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_front_end_sees_every_report_and_the_platform_keeps_its_own() {
    let Some(node) = node() else { return };
    let config = config(&node.uri(), "frontends");
    let shutdown = CancellationToken::new();
    let (a, seen_a, link_a) = front_end(&config);
    let (b, seen_b, link_b) = front_end(&config);
    // A publish before the link is up is refused, not lost.
    assert!(matches!(
        a.publish_submission("c", "s", b"{}").await,
        Err(verdict_queue::Error::Disconnected(_))
    ));
    tokio::spawn(a.clone().run(shutdown.clone()));
    tokio::spawn(b.clone().run(shutdown.clone()));
    eventually("front ends connect", move || {
        link_a.is_up() && link_b.is_up()
    })
    .await;
    let mut platform = connect_platform(&config).await;
    let worker = arc(Worker::new(
        config.clone(),
        2,
        arc(Steps {
            step: Duration::from_millis(5),
            ..Steps::default()
        }),
        arc(QueueMetrics::default()),
        arc(Link::default()),
    ));
    tokio::spawn(worker.run(shutdown.clone()));
    a.publish_submission("oj", "via-a", submission_json("via-a", 2).as_bytes())
        .await
        .unwrap();
    b.publish_submission("oj", "via-b", submission_json("via-b", 2).as_bytes())
        .await
        .unwrap();
    for seen in [&seen_a, &seen_b] {
        let seen = seen.clone();
        eventually("both finals at each front end", move || {
            let seen = seen.lock().unwrap();
            ["via-a", "via-b"].iter().all(|id| {
                seen.iter()
                    .any(|r| r.sub_id == *id && verdict_queue::is_final(r))
            })
        })
        .await;
    }
    // The report after the first task plus the final one (published once), for each
    // submission, in the platform's queue too.
    let mut got = Vec::new();
    for _ in 0..4 {
        got.push(next_report(&mut platform).await.0.sub_id);
    }
    got.sort();
    assert_eq!(got, ["via-a", "via-a", "via-b", "via-b"]);
    shutdown.cancel();
}
