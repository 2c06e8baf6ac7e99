//! `GET /v1/submissions`: the recent submissions the caller may see (a category token: only its
//! category), newest first, for the page's queue view. Query: `category`, `status` (`queued`,
//! `running`, `finished`, or a task status such as `Wrong Answer`: submissions with such a task),
//! `limit` (default 50, at most 500).

use crate::auth::Caller;
use crate::error::ApiError;
use crate::state::AppState;
use axum::Json;
use axum::extract::{Query, State};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use verdict_contracts::JudgeReport;

/// The query string.
#[derive(Debug, Default, Deserialize)]
pub struct ListQuery {
    /// Only this category.
    pub category: Option<String>,
    /// `queued`, `running`, `finished` or a task status.
    pub status: Option<String>,
    /// At most this many (default 50, at most 500).
    pub limit: Option<usize>,
}

/// `GET /v1/submissions/{sub_id}/plan`: what the page needs of the Submission.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SubmissionPlan {
    /// The Submission's judge tasks, as sent.
    pub judge_tasks: Vec<verdict_contracts::JudgeTask>,
    /// Per test datum, its input files.
    pub test_inputs: Vec<Vec<PlanInput>>,
    /// Per judge task, the limits it runs under when they are the judge's own (a compile task:
    /// `[compile]`; a static task: the analyser's `[special]` limits, its time at least the
    /// task's), as this server's configuration sets them; `null` for tasks that run under
    /// their own limits. Added when served (not stored).
    #[serde(default)]
    pub judge_limits: Vec<Option<OwnLimits>>,
}

/// Limits a compile or static task runs under (the judge's, not the task's).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct OwnLimits {
    /// CPU time in milliseconds.
    pub time_ms: u64,
    /// Wall-clock time in milliseconds.
    pub wall_ms: u64,
    /// Memory in KB.
    pub memory_kb: Option<u64>,
    /// Output in KB.
    pub output_kb: Option<u64>,
    /// Processes and threads.
    pub processes: Option<u64>,
}

/// One input file of a test datum.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PlanInput {
    /// Its name.
    pub name: Option<String>,
    /// `text`, `remote` or `local`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Its text, when inline (at most 4096 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The whole text's length in characters, when it was cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_chars: Option<u64>,
}

/// Where a submission is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SubmissionState {
    /// Accepted, waiting for a worker.
    Queued,
    /// Being judged.
    Running,
    /// Its final report is in.
    Finished,
}

impl SubmissionState {
    /// Its name (`queued`, `running`, `finished`).
    fn as_str(self) -> &'static str {
        match self {
            SubmissionState::Queued => "queued",
            SubmissionState::Running => "running",
            SubmissionState::Finished => "finished",
        }
    }
}

/// One submission in the list.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Summary {
    /// Its `sub_id`.
    pub sub_id: String,
    /// Its category.
    pub category: String,
    /// Its problem.
    pub prob_id: String,
    /// `queued`, `running` or `finished`.
    pub state: SubmissionState,
    /// How many tasks it has.
    pub tasks: usize,
    /// How many of them have finished.
    pub finished_tasks: usize,
    /// Σ numerators / Σ denominators of the finished tasks' scores.
    pub score: String,
    /// How many tasks have each status (`cancelled` for a cancelled task, whose report says
    /// System Error).
    pub statuses: BTreeMap<String, usize>,
    /// Milliseconds since it was accepted.
    pub age_ms: u64,
}

/// `GET /v1/submissions`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SubmissionList {
    /// Newest first.
    pub submissions: Vec<Summary>,
}

/// `GET /v1/submissions`.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<SubmissionList>, ApiError> {
    let Query(query) =
        query.map_err(|e| ApiError::invalid("query", format!("query: {}", e.body_text())))?;
    let limit = query.limit.unwrap_or(50).clamp(1, 500);
    let mut entries: Vec<_> = state
        .submissions()?
        .store
        .list()
        .into_iter()
        .filter(|entry| caller.may_use(&entry.key.category))
        .filter(|entry| {
            query
                .category
                .as_deref()
                .is_none_or(|c| c == entry.key.category)
        })
        .collect();
    entries.sort_by_key(|entry| std::cmp::Reverse(entry.accepted_at));
    let mut submissions = Vec::new();
    for entry in entries {
        let (report, finished) = entry.snapshot();
        let summary = summarise(&report, finished, entry.accepted_at.elapsed().as_millis());
        let wanted = match query.status.as_deref() {
            None | Some("") => true,
            Some(status @ ("queued" | "running" | "finished")) => summary.state.as_str() == status,
            Some(status) => summary.statuses.contains_key(status),
        };
        if wanted {
            submissions.push(summary);
            if submissions.len() == limit {
                break;
            }
        }
    }
    Ok(Json(SubmissionList { submissions }))
}

fn summarise(report: &JudgeReport, finished: bool, age_ms: u128) -> Summary {
    let mut statuses = BTreeMap::new();
    let (mut numerator, mut denominator, mut done) = (0u64, 0u64, 0usize);
    for result in &report.results {
        // A cancelled task is System Error on the wire; people read "cancelled" (docs/web.md).
        let status = if verdict_submissions::is_cancelled(result) {
            verdict_submissions::CANCELLED_LABEL
        } else {
            result.status.as_str()
        };
        *statuses.entry(status.to_owned()).or_insert(0) += 1;
        if !result.status.is_in_progress() {
            done += 1;
            numerator += u64::from(result.score.numerator);
            denominator += u64::from(result.score.denominator);
        }
    }
    let state = if finished {
        SubmissionState::Finished
    } else if done == 0
        && report
            .results
            .iter()
            .all(|r| r.status == verdict_contracts::JudgeStatus::Pending)
    {
        SubmissionState::Queued
    } else {
        SubmissionState::Running
    };
    Summary {
        sub_id: report.sub_id.clone(),
        category: report.category.clone(),
        prob_id: report.prob_id.clone(),
        state,
        tasks: report.results.len(),
        finished_tasks: done,
        score: format!("{numerator}/{denominator}"),
        statuses,
        age_ms: u64::try_from(age_ms).unwrap_or(u64::MAX),
    }
}
