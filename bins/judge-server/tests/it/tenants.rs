//! Each token's category is a namespace: two tenants using the same `sub_id` neither see nor
//! replace each other's submissions, queued or finished; a token bound to no category names
//! the category when a `sub_id` is in several.

use crate::common::*;
use serde_json::json;
use std::time::Duration;
use verdict_judge_server::TokenConfig;

fn tenants() -> verdict_judge_server::ServerConfig {
    let mut config = config();
    config.workers = 1;
    config.tokens = ["admin", "alpha", "beta"]
        .into_iter()
        .map(|name| TokenConfig {
            token: format!("{name}-token"),
            category: (name != "admin").then(|| name.to_owned()),
            ..TokenConfig::default()
        })
        .collect();
    config
}

/// The report at `path` (read with `token`) once it is finished.
fn finished_report(server: &TestServer, path: &str, token: &str) -> serde_json::Value {
    let limit = Duration::from_secs(60);
    wait_finished(
        &server.url(path),
        Some(token),
        limit,
        Duration::from_millis(50),
    )
    .json()
}

const WRONG: &str = "#include <stdio.h>\nint main(){printf(\"0\\n\");return 0;}\n";

#[test]
fn two_categories_cannot_see_or_clobber_each_others_submissions() {
    let Some(server) = TestServer::start(tenants()) else {
        return;
    };
    let submit = |token: &str, sub_id: &str, category: &str, source: &str| {
        post(
            &server.url("/v1/submissions"),
            Some(token),
            &a_plus_b(sub_id, category, source).to_string(),
        )
    };
    // alpha's is in flight (the only worker sleeps on it): beta's same sub_id is no conflict,
    // and nothing in beta's answer tells it alpha used the id.
    let alpha = submit("alpha-token", "shared-1", "alpha", &sleepy_a_plus_b(1));
    assert_eq!(alpha.status, 202, "{}", alpha.text);
    let beta = submit("beta-token", "shared-1", "beta", WRONG);
    assert_eq!(beta.status, 202, "{}", beta.text);
    assert!(!beta.text.contains("alpha"), "{}", beta.text);
    // Each sees its own, whatever it asks for.
    let mine = get(&server.url("/v1/submissions/shared-1"), Some("beta-token"));
    assert_eq!(mine.status, 200);
    assert_eq!(mine.json()["category"], "beta");
    let theirs = get(
        &server.url("/v1/submissions/shared-1?category=alpha"),
        Some("beta-token"),
    );
    assert_eq!(theirs.status, 404, "{}", theirs.text);
    let (status, _) = read_events(
        &server.url("/v1/submissions/shared-1/events?category=alpha"),
        Some("beta-token"),
    );
    assert_eq!(status, 404);
    // An id only alpha used is "not found" for beta, queued or finished.
    let status_for_beta = || {
        let beta = get(
            &server.url("/v1/submissions/alpha-only"),
            Some("beta-token"),
        );
        beta.status
    };
    let only = submit("alpha-token", "alpha-only", "alpha", A_PLUS_B);
    assert_eq!(only.status, 202);
    assert_eq!(status_for_beta(), 404);

    let alpha_report = finished_report(&server, "/v1/submissions/shared-1", "alpha-token");
    assert_eq!(alpha_report["category"], "alpha");
    assert_eq!(
        statuses(&alpha_report),
        ["Accepted", "Accepted", "Accepted"]
    );
    let beta_report = finished_report(&server, "/v1/submissions/shared-1", "beta-token");
    assert_eq!(
        statuses(&beta_report),
        ["Accepted", "Wrong Answer", "Wrong Answer"]
    );
    finished_report(&server, "/v1/submissions/alpha-only", "alpha-token");
    assert_eq!(status_for_beta(), 404);

    // beta judges its shared-1 again: alpha's finished report stays as it was.
    let again = post(
        &server.url("/v1/judge"),
        Some("beta-token"),
        &a_plus_b("shared-1", "beta", WRONG).to_string(),
    );
    assert_eq!(again.status, 200, "{}", again.text);
    let alpha_after = get(&server.url("/v1/submissions/shared-1"), Some("alpha-token"));
    assert_eq!(alpha_after.json(), alpha_report);
    let (_, events) = read_events(
        &server.url("/v1/submissions/shared-1/events"),
        Some("alpha-token"),
    );
    assert_eq!(events.last().unwrap().data, alpha_report);

    // The admin token sees both, naming the category when the id is in two.
    let ambiguous = get(&server.url("/v1/submissions/shared-1"), Some("admin-token"));
    assert_eq!(ambiguous.status, 409, "{}", ambiguous.text);
    assert!(ambiguous.text.contains("alpha") && ambiguous.text.contains("beta"));
    let named = get(
        &server.url("/v1/submissions/shared-1?category=alpha"),
        Some("admin-token"),
    );
    assert_eq!(named.json(), alpha_report);
    let single = get(
        &server.url("/v1/submissions/alpha-only"),
        Some("admin-token"),
    );
    assert_eq!(single.status, 200);
    assert_eq!(single.json()["category"], "alpha");
}

#[test]
fn a_category_token_runs_only_sandboxed_lab_runners_and_judges_only_as_itself() {
    let mut config =
        verdict_judge_server::ServerConfig::from_toml("[lab.runners.echo]\ncommand = [\"cat\"]\n")
            .unwrap();
    let base = tenants();
    config.tokens = base.tokens;
    config.workers = base.workers;
    let Some(server) = TestServer::start(config) else {
        return;
    };
    let echo =
        json!({"id": "e1", "name": "echo", "type": "echo", "input": {"q": 1}, "metadata": {}});
    let refused = post(
        &server.url("/v1/lab/runs"),
        Some("alpha-token"),
        &echo.to_string(),
    );
    refused.assert_refused(403, "type");
    let admin = post(
        &server.url("/v1/lab/runs"),
        Some("admin-token"),
        &echo.to_string(),
    );
    assert_eq!(admin.status, 200, "{}", admin.text);

    // A programming task judges a Submission: only of the token's own category.
    let judged = |category: &str| {
        json!({"id": "p1", "name": "judge", "type": "programming", "metadata": {},
               "input": a_plus_b("lab-1", category, A_PLUS_B)})
        .to_string()
    };
    let other = post(
        &server.url("/v1/lab/runs"),
        Some("alpha-token"),
        &judged("beta"),
    );
    other.assert_refused(403, "input.category");
    let own = post(
        &server.url("/v1/lab/runs"),
        Some("alpha-token"),
        &judged("alpha"),
    );
    assert_eq!(own.status, 200, "{}", own.text);
    assert_eq!(own.json()["run"]["status"], "completed", "{}", own.text);

    // In a scenario, each step is checked, and a programming step's input may not be built
    // from other steps' outputs (it could then name any category).
    let scenario = json!({"id": "s1", "name": "chain", "description": "", "metadata": {},
        "steps": [
            {"id": "a", "name": "a", "type": "function", "input": [1, 2], "metadata": {}},
            {"id": "b", "name": "b", "type": "programming", "input": {}, "metadata": {}}
        ],
        "input_map": {"b": [{"from": "step:a.output", "to": "input.category"}]}});
    let mapped = post(
        &server.url("/v1/lab/runs"),
        Some("alpha-token"),
        &scenario.to_string(),
    );
    mapped.assert_refused(403, "input_map.b");
}

/// `/metrics` for a category token holds its own category's series only: not
/// the server-wide counters, not another tenant's submissions; the operator's token reads
/// both, every category's series included.
#[test]
fn a_category_token_reads_only_its_own_categorys_metrics() {
    let Some(server) = TestServer::start(tenants()) else {
        return;
    };
    for (token, category) in [("alpha-token", "alpha"), ("beta-token", "beta")] {
        let reply = post(
            &server.url("/v1/submissions"),
            Some(token),
            &a_plus_b(&format!("{category}-m"), category, A_PLUS_B).to_string(),
        );
        assert_eq!(reply.status, 202, "{}", reply.text);
        finished_report(&server, &format!("/v1/submissions/{category}-m"), token);
    }
    let alpha = get(&server.url("/metrics"), Some("alpha-token"));
    assert_eq!(alpha.status, 200);
    assert!(
        alpha
            .text
            .contains("verdict_category_submissions{category=\"alpha\",phase=\"finished\"} 1"),
        "{}",
        alpha.text
    );
    assert!(!alpha.text.contains("beta"), "{}", alpha.text);
    assert!(
        !alpha.text.contains("verdict_queue_length"),
        "{}",
        alpha.text
    );
    assert!(
        !alpha.text.contains("verdict_submissions_accepted_total"),
        "{}",
        alpha.text
    );
    let admin = get(&server.url("/metrics"), Some("admin-token")).text;
    for wanted in [
        "verdict_submissions_accepted_total 2",
        "verdict_category_submissions{category=\"alpha\",phase=\"finished\"} 1",
        "verdict_category_submissions{category=\"beta\",phase=\"finished\"} 1",
    ] {
        assert!(admin.contains(wanted), "{wanted} in {admin}");
    }
}
