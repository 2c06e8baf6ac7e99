//! Every endpoint, once: its method and path, the roles that serve it, whether the request
//! timeout applies, its handler, and what the OpenAPI document says of it. Each role's router
//! ([`router`]) and the document (`openapi.rs`) are built from this one table, so adding an
//! endpoint is its handler, one entry here and a test.

use crate::error::ApiError;
use crate::openapi::{Content, Doc, Param, json, lab_task};
use crate::role::Role;
use crate::state::AppState;
use crate::{batches, direct, info, listing, page, submissions};
use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::handler::Handler;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodFilter, MethodRouter, on};
use verdict_contracts::batch::{BatchRequest, BatchStatus};
use verdict_contracts::oracle::{OracleReport, TestSuite};
use verdict_contracts::{JudgeReport, Submission};

/// Served by every role.
const EVERY: &[Role] = &Role::ALL;
/// Served by the roles that accept submissions over HTTP.
const ACCEPTING: &[Role] = &[Role::Standalone, Role::Frontend];
/// Served only where everything is judged in the process.
const STANDALONE: &[Role] = &[Role::Standalone];

/// An HTTP method the server routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verb {
    /// `GET`.
    Get,
    /// `POST`.
    Post,
    /// `DELETE`.
    Delete,
}

impl Verb {
    /// Its name in the OpenAPI document.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "get",
            Verb::Post => "post",
            Verb::Delete => "delete",
        }
    }

    fn filter(self) -> MethodFilter {
        match self {
            Verb::Get => MethodFilter::GET,
            Verb::Post => MethodFilter::POST,
            Verb::Delete => MethodFilter::DELETE,
        }
    }
}

/// One endpoint.
pub(crate) struct Endpoint {
    /// Its method.
    pub verb: Verb,
    /// Its path, in axum's syntax (`{sub_id}`), which is also OpenAPI's.
    pub path: &'static str,
    /// The roles that serve it; the others answer 404 saying where to send it.
    pub roles: &'static [Role],
    /// Whether `request_timeout_ms` applies (not to requests that wait on a submission).
    pub timed: bool,
    /// Its handler.
    pub handler: MethodRouter<AppState>,
    /// What the document says of it.
    pub doc: Doc,
}

impl Endpoint {
    fn new<H, T>(verb: Verb, path: &'static str, handler: H, doc: Doc) -> Endpoint
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        Endpoint {
            verb,
            path,
            roles: EVERY,
            timed: true,
            handler: on(verb.filter(), handler),
            doc,
        }
    }

    fn serves(self, roles: &'static [Role]) -> Endpoint {
        Endpoint { roles, ..self }
    }

    fn untimed(self) -> Endpoint {
        Endpoint {
            timed: false,
            ..self
        }
    }
}

fn get<H: Handler<T, AppState>, T: 'static>(path: &'static str, handler: H, doc: Doc) -> Endpoint {
    Endpoint::new(Verb::Get, path, handler, doc)
}

fn post<H: Handler<T, AppState>, T: 'static>(path: &'static str, handler: H, doc: Doc) -> Endpoint {
    Endpoint::new(Verb::Post, path, handler, doc)
}

fn delete<H: Handler<T, AppState>, T: 'static>(
    path: &'static str,
    handler: H,
    doc: Doc,
) -> Endpoint {
    Endpoint::new(Verb::Delete, path, handler, doc)
}

/// The errors every request that submits work may meet.
const SUBMIT_ERRORS: &[u16] = &[400, 401, 403, 413, 429, 503, 504, 500];
/// The errors of the doors that judge directly.
const DIRECT_ERRORS: &[u16] = &[400, 401, 413, 429, 503, 504, 500];

/// The OpenAPI document of this server: every endpoint of every role (`x-roles` names the
/// roles that serve it).
pub fn openapi_document() -> serde_json::Value {
    let endpoints = endpoints();
    crate::openapi::document(endpoints.iter().map(|e| crate::openapi::Operation {
        path: e.path,
        verb: e.verb.as_str(),
        roles: e.roles.iter().map(|r| r.as_str()).collect(),
        doc: &e.doc,
    }))
}

/// Every endpoint, in the order the document lists them.
pub(crate) fn endpoints() -> Vec<Endpoint> {
    let invalid = (
        422,
        "The Submission breaks the contract: the contract's JudgeReport (results: [], message naming the field) plus the error object.",
        Content::Json(crate::openapi::invalid_submission),
    );
    let conflict = (
        409,
        "A submission with this sub_id is still queued or running.",
        Content::Json(crate::openapi::error),
    );
    let ambiguous = (
        409,
        "A token bound to no category asked for a sub_id that several categories hold, without ?category=.",
        Content::Json(crate::openapi::error),
    );
    let sub_id = || {
        vec![
            Param::path("sub_id"),
            Param::query(
                "category",
                "The submission's category: sub_ids are unique per category. Needed only by a token bound to no category, when the sub_id exists in several.",
            ),
        ]
    };
    vec![
        post(
            "/v1/judge",
            submissions::judge,
            Doc::new("judge", "Judge a Submission and wait for its JudgeReport.")
                .body(json::<Submission>)
                .ok(200, "The complete report.", json::<JudgeReport>)
                .reply(conflict)
                .reply(invalid)
                .errors(SUBMIT_ERRORS),
        )
        .serves(ACCEPTING)
        .untimed(),
        post(
            "/v1/submissions",
            submissions::submit,
            Doc::new("submit", "Queue a Submission; poll it or stream its events.")
                .body(json::<Submission>)
                .ok(202, "Queued.", json::<submissions::Accepted>)
                .header("Location", "Where to poll it (status_url).")
                .reply(conflict)
                .reply(invalid)
                .errors(SUBMIT_ERRORS),
        )
        .serves(ACCEPTING),
        get(
            "/v1/submissions",
            listing::list,
            Doc::new(
                "listSubmissions",
                "The recent submissions the caller may see (a category token: only its category), newest first.",
            )
            .param(Param::query("category", "Only this category."))
            .param(Param::query(
                "status",
                "queued, running, finished, or a task status (such as Wrong Answer): submissions with such a task.",
            ))
            .param(Param::limit("limit", 50, 500))
            .ok(200, "Newest first.", json::<listing::SubmissionList>)
            .errors(&[401, 422]),
        )
        .serves(ACCEPTING),
        get(
            "/v1/submissions/{sub_id}",
            submissions::status,
            Doc::new(
                "getSubmission",
                "The JudgeReport so far: unfinished tasks are Pending, Compiling or Running.",
            )
            .params(sub_id())
            .ok(
                200,
                "The report so far; the header Verdict-State says whether it is queued, running or finished, Verdict-Complete whether every task has its result.",
                json::<JudgeReport>,
            )
            .header("Verdict-Complete", "true or false.")
            .header("Verdict-State", "queued, running or finished.")
            .reply(ambiguous)
            .errors(&[401, 404]),
        )
        .serves(ACCEPTING),
        delete(
            "/v1/submissions/{sub_id}",
            submissions::cancel,
            Doc::new(
                "cancelSubmission",
                "Cancel a queued or running submission: no task of it starts after this, the boxes of the tasks running are killed at once (so its run permits and worker place come back then), and its final report (kept like any other: a restart does not judge it again) has the tasks not run or stopped as System Error with the error_log `cancelled: ...`. A finished one is answered as it is. On a front end the cancel reaches the worker judging it through the broker, and a queued one is never judged (503 when the broker does not take the cancel).",
            )
            .params(sub_id())
            .ok(
                200,
                "The report after the cancel: final (Verdict-Complete: true) unless the tasks running took over 10 s to stop.",
                json::<JudgeReport>,
            )
            .header("Verdict-Complete", "true or false.")
            .header("Verdict-State", "queued, running or finished.")
            .reply(ambiguous)
            .errors(&[401, 404, 503]),
        )
        .serves(ACCEPTING),
        get(
            "/v1/submissions/{sub_id}/plan",
            submissions::plan,
            Doc::new(
                "submissionPlan",
                "What a page needs to show the submission whole: its judge_tasks (kinds, limits, dependencies) and test_inputs (per test datum, each input's name, type and inline text, cut to 4096 characters with text_chars giving the whole count), kept as long as its report.",
            )
            .params(sub_id())
            .ok(200, "The plan.", json::<listing::SubmissionPlan>)
            .reply(ambiguous)
            .errors(&[401, 404]),
        )
        .serves(ACCEPTING),
        get(
            "/v1/submissions/{sub_id}/events",
            submissions::events,
            Doc::new(
                "submissionEvents",
                "Server-Sent Events: `task` ({index, result: JudgeTaskResult}) once per finished task in the order they finish, then `report` (the JudgeReport); the stream then ends.",
            )
            .params(sub_id())
            .ok_as(200, "An event stream.", Content::Media("text/event-stream"))
            .reply(ambiguous)
            .errors(&[401, 404, 429]),
        )
        .serves(ACCEPTING)
        .untimed(),
        post(
            "/v1/batches",
            batches::submit,
            Doc::new(
                "submitBatch",
                "Accept a batch (one problem, many candidates; docs/batches.md): on disk before the answer, queued with fair sharing between categories (on a front end: published to the workers, one unit per distinct candidate, confirmed before the answer). The same Idempotency-Key with the same body returns the batch already accepted; with another body, 409.",
            )
            .param(Param::header(
                "Idempotency-Key",
                "The batch's id (made by the server when absent).",
            ))
            .param(Param::millis(
                "wait",
                "Wait at most this many ms (and the request timeout) for the batch to finish.",
            ))
            .param(Param::query(
                "category",
                "The category to queue it under (default: a programming problem's, else `default`).",
            ))
            .body(json::<BatchRequest>)
            .ok(200, "Finished within `wait`.", json::<BatchStatus>)
            .ok(
                202,
                "Accepted (or accepted before under this key).",
                json::<BatchStatus>,
            )
            .header("Location", "Where to read it back.")
            .reply((
                409,
                "The Idempotency-Key names a batch with another body.",
                Content::Json(crate::openapi::error),
            ))
            .errors(&[422])
            .errors(SUBMIT_ERRORS),
        )
        .serves(ACCEPTING)
        .untimed(),
        get(
            "/v1/batches/{id}",
            batches::status,
            Doc::new(
                "getBatch",
                "A batch's snapshot: its state, the results so far, the summary once done.",
            )
            .param(Param::path("id"))
            .ok(200, "The snapshot.", json::<BatchStatus>)
            .errors(&[401, 404]),
        )
        .serves(ACCEPTING),
        delete(
            "/v1/batches/{id}",
            batches::cancel,
            Doc::new(
                "cancelBatch",
                "Cancel a batch: no candidate starts after this; running ones have their boxes killed at once and run no further test (their results carry an infra_error). On a front end the batch ends at once, with the results it has, at every front end.",
            )
            .param(Param::path("id"))
            .ok(200, "The snapshot after the cancel.", json::<BatchStatus>)
            .errors(&[401, 404, 503]),
        )
        .serves(ACCEPTING),
        get(
            "/v1/batches/{id}/events",
            batches::events,
            Doc::new(
                "batchEvents",
                "The batch's results as they finish (BatchEvent: `candidate` lines, then `summary`), as NDJSON, or as Server-Sent Events with Accept: text/event-stream; the stream then ends.",
            )
            .param(Param::path("id"))
            .ok_as(200, "An NDJSON stream of BatchEvent.", Content::Media("application/x-ndjson"))
            .errors(&[401, 404, 429]),
        )
        .serves(ACCEPTING)
        .untimed(),
        post(
            "/v1/oracle",
            direct::oracle,
            Doc::new(
                "oracle",
                "Run a Task Oracle suite and return its report (on a front end, judged on the workers as a batch of one candidate).",
            )
            .body(json::<TestSuite>)
            .ok(200, "The oracle report.", json::<OracleReport>)
            .errors(&[422])
            .errors(DIRECT_ERRORS),
        )
        .serves(ACCEPTING),
        post(
            "/v1/lab/runs",
            direct::lab_run,
            Doc::new(
                "labRun",
                "Run an Agent Lab task (AtomicTask, or ScenarioTask when it has steps) and return its RunRecord and ScoreRecords; a failed run is a record with status failed. A run whose request times out (504 at request_timeout_ms) stops with it: its boxes are killed and its slot and run permits come back.",
            )
            .body(lab_task)
            .ok(200, "The run and its scores.", json::<direct::LabRunResponse>)
            .errors(&[403, 422])
            .errors(DIRECT_ERRORS),
        )
        .serves(STANDALONE),
        get(
            "/v1/lab/runs",
            direct::lab_runs,
            Doc::new(
                "listLabRuns",
                "The server's lab runs (kept in its store across restarts, the newest 500) and their scores, oldest first; a category token sees only its category's.",
            )
            .ok(200, "The runs and their scores.", json::<crate::lab_runs::LabRunList>)
            .errors(&[401]),
        )
        .serves(STANDALONE),
        get(
            "/",
            page::index,
            Doc::new(
                "page",
                "The page: submissions, lab runs and the server's state, for people; no token needed to load it.",
            )
            .public()
            .ok_as(200, "HTML.", Content::Media("text/html")),
        )
        .serves(ACCEPTING),
        get(
            "/assets/{name}",
            page::asset,
            Doc::new(
                "pageAsset",
                "A script, the stylesheet or the bundled examples of the page; no token needed.",
            )
            .public()
            .param(Param::path("name"))
            .ok_as(200, "The asset.", Content::None)
            .errors(&[404]),
        )
        .serves(ACCEPTING),
        get(
            "/v1/health",
            info::health,
            Doc::new("health", "Liveness and load; no token needed.")
                .public()
                .ok(200, "Up.", json::<info::Health>),
        ),
        get(
            "/v1/languages",
            info::languages,
            Doc::new(
                "languages",
                "Which languages this judge can run, with versions (probed once, then cached).",
            )
            .ok(
                200,
                "One entry per language of the contract.",
                json::<Vec<info::LanguageStatus>>,
            )
            .errors(&[401]),
        )
        .serves(STANDALONE),
        get(
            "/metrics",
            info::metrics,
            Doc::new("metrics", "Prometheus metrics (text format 0.0.4): an operator's token (no category) reads the server's counters and every category's series; a category token reads only its own category's (verdict_category_submissions).")
                .ok_as(200, "Metrics.", Content::Media("text/plain"))
                .errors(&[401]),
        ),
        get(
            "/v1/openapi.json",
            info::openapi,
            Doc::new("openapi", "This document; no token needed.")
                .public()
                .ok_as(200, "OpenAPI 3.1.", Content::Media("application/json")),
        )
        .serves(ACCEPTING),
    ]
}

/// The router of `state`'s role: the endpoints it serves, a 404 saying where to go for those it
/// does not, the body limit, the request timeout, fallbacks and response counting.
pub(crate) fn router(state: AppState) -> Router {
    let role = state.role();
    let (mut timed, mut untimed) = (Router::new(), Router::new());
    for endpoint in endpoints() {
        let handler = if endpoint.roles.contains(&role) {
            endpoint.handler
        } else {
            on(endpoint.verb.filter(), not_served)
        };
        if endpoint.timed {
            timed = timed.route(endpoint.path, handler);
        } else {
            untimed = untimed.route(endpoint.path, handler);
        }
    }
    let timed = timed.route_layer(middleware::from_fn_with_state(state.clone(), timeout));
    // Another tool's protocol (docs/compat.md): its own errors, its own wait bound (504).
    Router::new()
        .merge(timed)
        .merge(untimed)
        .merge(crate::sandbox_fusion::router())
        .merge(crate::piston::router())
        .merge(crate::jobe::router())
        .merge(crate::judge0::router())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::Extension(info::OpenApiDocument(std::sync::Arc::new(
            openapi_document(),
        ))))
        .layer(DefaultBodyLimit::max(state.config.max_body_bytes()))
        .layer(middleware::from_fn_with_state(state.clone(), count))
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(state)
}

/// Answers 504 when a request takes longer than `request_timeout_ms`.
async fn timeout(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let limit = state.config.request_timeout();
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError::Timeout(format!(
            "the request took longer than request_timeout_ms ({} ms)",
            limit.as_millis()
        ))
        .into_response(),
    }
}

/// Counts each response by status.
async fn count(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    state.metrics.response(response.status().as_u16());
    response
}

/// The fallback: 404 naming the path.
async fn not_found(request: Request) -> ApiError {
    ApiError::NotFound(format!("path: no endpoint at {}", request.uri().path()))
}

/// 405.
async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}

/// 404 for a door this role does not serve, saying where to send it.
async fn not_served(State(state): State<AppState>, request: Request) -> ApiError {
    let path = request.uri().path();
    let role = state.role();
    let elsewhere = endpoints()
        .iter()
        .find(|e| e.path == path || path_matches(e.path, path))
        .map_or(STANDALONE, |e| e.roles);
    let to = if elsewhere == STANDALONE {
        "a standalone server"
    } else {
        "a standalone server or a front end"
    };
    ApiError::NotFound(format!(
        "path: {path} is not served by a {} (role = {:?}); send it to {to}",
        role.describe(),
        role.as_str()
    ))
}

/// Whether `path` matches the template `template` (`{name}` matches one segment).
fn path_matches(template: &str, path: &str) -> bool {
    let (mut t, mut p) = (template.split('/'), path.split('/'));
    loop {
        match (t.next(), p.next()) {
            (None, None) => return true,
            (Some(t), Some(p)) if t == p || (t.starts_with('{') && !p.is_empty()) => {}
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_has_one_timeout_and_one_handler_per_method() {
        let endpoints = endpoints();
        for (i, a) in endpoints.iter().enumerate() {
            for b in &endpoints[i + 1..] {
                if a.path == b.path {
                    assert_ne!(a.verb, b.verb, "{} routed twice", a.path);
                    assert_eq!(a.timed, b.timed, "{}: one timeout per path", a.path);
                }
            }
        }
    }

    /// The endpoint table of `bins/judge-server/README.md`, rendered from [`endpoints`].
    fn endpoint_table() -> String {
        let mut table = String::from(
            "| method | path | roles | token | what it does |\n|---|---|---|---|---|\n",
        );
        for e in endpoints() {
            let roles: Vec<&str> = e.roles.iter().map(|r| r.as_str()).collect();
            let token = if e.doc.is_public() { "no" } else { "yes" };
            table.push_str(&format!(
                "| {} | `{}` | {} | {token} | {} |\n",
                e.verb.as_str().to_uppercase(),
                e.path,
                roles.join(", "),
                e.doc.summary()
            ));
        }
        table
    }

    /// The README's endpoint table is generated from the route table, so the documentation of
    /// the endpoints cannot drift from what is served. `VERDICT_BLESS=1` rewrites it.
    #[test]
    fn the_readme_endpoint_table_is_the_route_table() {
        const BEGIN: &str = "<!-- endpoints: generated from src/routes.rs -->\n";
        const END: &str = "<!-- end of endpoints -->";
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
        let readme = std::fs::read_to_string(path).expect("README.md");
        let start = readme
            .find(BEGIN)
            .expect("the README marks its endpoint table")
            + BEGIN.len();
        let end = start + readme[start..].find(END).expect("the table's end marker");
        let table = endpoint_table();
        if readme[start..end] != table {
            if std::env::var_os("VERDICT_BLESS").is_some() {
                let updated = format!("{}{table}{}", &readme[..start], &readme[end..]);
                std::fs::write(path, updated).expect("write README.md");
            } else {
                panic!(
                    "bins/judge-server/README.md's endpoint table differs from src/routes.rs; \
                     run this test with VERDICT_BLESS=1 to rewrite it:\n{table}"
                );
            }
        }
    }

    #[test]
    fn templates_match_their_paths() {
        assert!(path_matches(
            "/v1/submissions/{sub_id}",
            "/v1/submissions/a"
        ));
        assert!(!path_matches(
            "/v1/submissions/{sub_id}",
            "/v1/submissions/a/events"
        ));
        assert!(path_matches("/v1/oracle", "/v1/oracle"));
        assert!(!path_matches("/v1/oracle", "/v1/oracles"));
    }
}
