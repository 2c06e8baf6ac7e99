//! The judge's executor, made once from its configuration: the one place the scheduler names
//! the sandbox. Everything after `Judge::new` (the tasks, batches, the Task Oracle, and the
//! lab, datasets and server above) runs through `verdict_scripts::Executor`.

use crate::config::JudgeConfig;
use crate::error::JudgeError;
use std::path::PathBuf;
use std::sync::Arc;
use verdict_sandbox::{Sandbox, SandboxConfig};
use verdict_scripts::{Executor, timing};

/// The executor `config` asks for (the sandbox) and this judge's own work root under
/// `config.work_dir` (its sandbox instance's dir, created: see `JudgeShared::work_root`).
pub(crate) fn open(config: &JudgeConfig) -> Result<(Arc<dyn Executor>, PathBuf), JudgeError> {
    let sandbox_config = SandboxConfig {
        require_isolation: config.require_isolation,
        global_output_cap: config.global_output_cap_kb.saturating_mul(1024),
        ..SandboxConfig::default()
    };
    let sandbox_new = timing::phase("sandbox.new");
    let sandbox = Sandbox::new(sandbox_config)?;
    sandbox_new.end();
    std::fs::create_dir_all(&config.work_dir)
        .map_err(|e| JudgeError::io("create", &config.work_dir, e))?;
    let work_root = sandbox.instance().work_root(&config.work_dir)?;
    Ok((Arc::new(sandbox), work_root))
}
