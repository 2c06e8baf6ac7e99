//! Fair sharing of batch units between categories: each category's units wait in its lane, and
//! workers take from every lane, so a small batch queued after a large one of another category
//! is not judged after the whole large one.

use crate::common::*;
use futures::future::BoxFuture;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use verdict_contracts::OracleCaseStatus;
use verdict_contracts::batch::{CandidateResult, CandidateStatus};
use verdict_queue::batch::{UnitJudging, UnitMessage, lane_of};
use verdict_queue::{FrontEnd, Link, QueueMetrics, Worker};

/// A stand-in for the judge that notes the category of every unit it is given, in order, and
/// how many it judged at once at most, and takes `step` over each.
struct Recording {
    step: Duration,
    order: Mutex<Vec<String>>,
    running: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
}

impl UnitJudging for Recording {
    fn judge(
        &self,
        unit: UnitMessage,
        _cancel: CancellationToken,
    ) -> BoxFuture<'static, CandidateResult> {
        self.order.lock().unwrap().push(unit.category.clone());
        let step = self.step;
        let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        let running = self.running.clone();
        Box::pin(async move {
            tokio::time::sleep(step).await;
            running.fetch_sub(1, Ordering::SeqCst);
            let passed = CandidateStatus::Case(OracleCaseStatus::Passed);
            CandidateResult::new(unit.candidate.id, passed, true, 1, 1)
        })
    }
}

fn unit(batch: &str, category: &str, index: usize) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "batch": batch,
        "category": category,
        "index": index,
        "problem": {
            "kind": "suite",
            "deliverable_type": "function",
            "language": "python3",
            "entry_point": "f",
            "test_cases": [],
        },
        "options": {},
        "candidate": {"id": format!("c{index}"), "code": "def f(): pass"},
    }))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_batch_of_another_category_is_not_queued_behind_a_large_one() {
    let Some(node) = node() else { return };
    let mut config = config(&node.uri(), "lanes");
    config.batches.queue = "lanes-units".into();
    config.batches.exchange = "lanes-exchange".into();
    let (big, small) = ("tenant-big", "tenant-small");
    assert_ne!(
        lane_of(big, config.batches.lanes),
        lane_of(small, config.batches.lanes),
        "the test needs two lanes"
    );
    serde_json::from_slice::<UnitMessage>(&unit("b", big, 0)).expect("a unit");
    let link = arc(Link::default());
    let sink = Arc::new(|_| Box::pin(async {}) as BoxFuture<'static, ()>);
    let front = arc(FrontEnd::new(
        config.clone(),
        arc(QueueMetrics::default()),
        link.clone(),
        sink,
    ));
    let shutdown = CancellationToken::new();
    tokio::spawn(front.clone().run(shutdown.clone()));
    let up = link.clone();
    eventually("the front end connects", move || up.is_up()).await;

    // The large batch is queued whole before the small one, as two clients would send them.
    let large: Vec<(String, Vec<u8>)> = (0..40)
        .map(|i| (front.unit_key(big), unit("large", big, i)))
        .collect();
    front.publish_batch(&large).await.unwrap();
    let few: Vec<(String, Vec<u8>)> = (0..3)
        .map(|i| (front.unit_key(small), unit("small", small, i)))
        .collect();
    front.publish_batch(&few).await.unwrap();

    // One worker judging one unit at a time.
    let judge = arc(Recording {
        step: Duration::from_millis(20),
        order: Mutex::new(Vec::new()),
        running: arc(AtomicUsize::new(0)),
        most: arc(AtomicUsize::new(0)),
    });
    let worker_link = arc(Link::default());
    let worker = arc(Worker::new(
        config.clone(),
        1,
        arc(Steps::default()),
        arc(QueueMetrics::default()),
        worker_link.clone(),
    )
    .with_units(judge.clone()));
    tokio::spawn(worker.run(shutdown.clone()));
    let seen = judge.clone();
    eventually("the small batch is judged", move || {
        seen.order
            .lock()
            .unwrap()
            .iter()
            .filter(|c| *c == small)
            .count()
            == 3
    })
    .await;
    let order = judge.order.lock().unwrap().clone();
    shutdown.cancel();
    // In one queue the small batch would come after the 40 large units (seen: position 42).
    // With lanes, the worker holds one unit of each lane and judges them in the order they
    // came, and a lane gets its next unit only when its last one is acked: the lanes take
    // turns, so the small batch's units alternate with the large one's (once the worker has
    // subscribed to every lane, which a few large units may beat).
    let last_small = order.iter().rposition(|c| c == small).unwrap();
    assert!(last_small <= 12, "judged in this order: {order:?}");
    // It holds a unit of each lane, but judges no more at once than its prefetch count.
    assert_eq!(judge.most.load(Ordering::SeqCst), 1);
}
