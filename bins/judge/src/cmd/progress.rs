//! The progress bar of long commands (`judge lab`, `judge eval`): on stderr, hidden when
//! stderr is not a terminal, with `NO_COLOR` or with `--quiet` (house style: data on stdout).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A bar of `len` steps: done / total, elapsed, rate and time left.
pub fn bar(len: u64, quiet: bool) -> ProgressBar {
    let hidden =
        quiet || !std::io::stderr().is_terminal() || std::env::var_os("NO_COLOR").is_some();
    if hidden {
        return ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {per_sec} eta {eta} {msg}",
    ) {
        bar.set_style(style);
    }
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}
