//! [`LabConfig`]: the lab's configuration file (TOML), unknown keys rejected.
//!
//! ```toml
//! # A runner per task type; "*" runs every other type.
//! [runners.intent]
//! command = ["python3", "agent/agent.py"]   # the `command` runner
//! timeout_ms = 30000                        # when a task has no metadata.timeout
//! cwd = "."                                 # relative to this file; default: this file's dir
//! env = { MODEL = "small" }
//! config = { model = "small" }              # passed to the runner, kept in provenance.config
//! send_expected = false                     # the agent never sees `expected` unless true
//!
//! [runners.search]
//! url = "http://127.0.0.1:8080/agent"       # the `http` runner
//!
//! [evaluators]                              # evaluator ids per task type ("*": the others)
//! intent = ["subset", "latency"]
//!
//! [subset.numbers]                          # the subset evaluator's number rules
//! confidence = "min"
//! ```

use crate::command::CommandRunner;
use crate::evaluators::{SubsetConfig, SubsetEvaluator};
use crate::http::HttpRunner;
use crate::registry::Registry;
use crate::traits::LabError;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The lab's configuration.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LabConfig {
    /// Runners by task type (`"*"`: the fallback).
    pub runners: BTreeMap<String, RunnerConfig>,
    /// Evaluator ids by task type (`"*"`: the others).
    pub evaluators: BTreeMap<String, Vec<String>>,
    /// The subset evaluator's number rules.
    pub subset: SubsetConfig,
}

/// One runner: `command` (an agent program) or `url` (an agent endpoint).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunnerConfig {
    /// The agent program and its arguments.
    pub command: Option<Vec<String>>,
    /// The agent endpoint.
    pub url: Option<String>,
    /// The agent's working directory (relative to the config file).
    pub cwd: Option<PathBuf>,
    /// Extra environment variables of the agent.
    pub env: BTreeMap<String, String>,
    /// Extra HTTP headers (never recorded).
    pub headers: BTreeMap<String, String>,
    /// Timeout of a task without `metadata.timeout`, in ms.
    pub timeout_ms: Option<u64>,
    /// Passed to the runner's `execute` and recorded in `provenance.config`.
    pub config: Option<Value>,
    /// Whether the agent receives the task's `expected` (default: no).
    pub send_expected: bool,
}

impl LabConfig {
    /// A config from TOML text; unknown keys are errors naming the key.
    pub fn from_toml(text: &str) -> Result<LabConfig, toml::de::Error> {
        toml::from_str(text)
    }

    /// Adds this config's runners, evaluator lists and subset rules to `registry`; relative
    /// paths are resolved against `base_dir` (the config file's directory).
    pub fn apply(&self, registry: &mut Registry, base_dir: &Path) -> Result<(), LabError> {
        for (task_type, rc) in &self.runners {
            let at = format!("runners.{task_type}");
            let config = rc.config.clone().unwrap_or(Value::Null);
            let runner: Arc<dyn crate::Runner> = match (&rc.command, &rc.url) {
                (Some(command), None) => {
                    let mut r = CommandRunner::new(task_type.clone(), command.clone())
                        .map_err(|e| LabError::InvalidConfig(format!("{at}.{e}")))?
                        .cwd(base_dir.join(rc.cwd.as_deref().unwrap_or(Path::new("."))))
                        .send_expected(rc.send_expected);
                    for (k, v) in &rc.env {
                        r = r.env(k, v);
                    }
                    if let Some(ms) = rc.timeout_ms {
                        r = r.default_timeout_ms(ms);
                    }
                    Arc::new(r)
                }
                (None, Some(url)) => {
                    let mut r = HttpRunner::new(task_type.clone(), url.clone())
                        .map_err(|e| LabError::InvalidConfig(format!("{at}.{e}")))?
                        .send_expected(rc.send_expected);
                    for (k, v) in &rc.headers {
                        r = r.header(k, v);
                    }
                    if let Some(ms) = rc.timeout_ms {
                        r = r.default_timeout_ms(ms);
                    }
                    Arc::new(r)
                }
                _ => {
                    return Err(LabError::InvalidConfig(format!(
                        "{at}: give exactly one of `command` (an agent program) or `url` (an agent endpoint)"
                    )));
                }
            };
            if task_type == "*" {
                registry.set_fallback(runner, config);
            } else {
                registry.register_runner_for(task_type.clone(), runner, config);
            }
        }
        registry.register_evaluator(Arc::new(SubsetEvaluator::new(self.subset.clone())));
        for (task_type, ids) in &self.evaluators {
            for id in ids {
                if registry.evaluator(id).is_none() {
                    return Err(LabError::InvalidConfig(format!(
                        "evaluators.{task_type}: no evaluator {id:?} (known: {})",
                        registry.evaluator_ids().join(", ")
                    )));
                }
            }
            registry.set_evaluators_for(task_type.clone(), ids.clone());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_builds_runners_and_rejects_mistakes() {
        let config = LabConfig::from_toml(
            "[runners.intent]\ncommand = [\"python3\", \"agent.py\"]\n[runners.\"*\"]\nurl = \"http://127.0.0.1:1/\"\n[subset.numbers]\nconfidence = \"min\"\n",
        )
        .unwrap();
        let mut registry = Registry::new();
        config.apply(&mut registry, Path::new("/tmp")).unwrap();
        assert_eq!(registry.runner("intent").unwrap().id(), "command");
        assert_eq!(registry.runner("anything").unwrap().id(), "http");

        let err = LabConfig::from_toml("[runners.intent]\ncomand = []\n").unwrap_err();
        assert!(err.to_string().contains("comand"), "{err}");
        let both =
            LabConfig::from_toml("[runners.x]\ncommand = [\"a\"]\nurl = \"http://a\"\n").unwrap();
        let err = both
            .apply(&mut Registry::new(), Path::new("."))
            .unwrap_err();
        assert!(
            err.to_string().contains("runners.x: give exactly one"),
            "{err}"
        );
        let unknown = LabConfig::from_toml("[evaluators]\nintent = [\"bleu\"]\n").unwrap();
        let err = unknown
            .apply(&mut Registry::new(), Path::new("."))
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("evaluators.intent: no evaluator \"bleu\""),
            "{err}"
        );
    }
}
