//! What the report-page and terminal tests share: a headless Chromium (Debian's chromium and
//! chromium-driver) opening a report file, and a command's output as a person sees it on a
//! terminal.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use verdict_web::browser::{self, Browser, Client, Locator};

/// Skips (or fails in CI) when Chromium is not installed.
#[allow(clippy::print_stderr)]
pub fn browser_or_skip() -> bool {
    match browser::unavailable() {
        None => true,
        Some(reason) if std::env::var_os("CI").is_some() => panic!("{reason}"),
        Some(reason) => {
            eprintln!("skipped: {reason}");
            false
        }
    }
}

/// A headless Chromium (1280x800) showing the file at `path`.
pub async fn open_file(path: &Path) -> Browser {
    let browser = Browser::start(1280, 800).await.expect("browser");
    browser
        .client()
        .goto(&format!("file://{}", path.display()))
        .await
        .expect("open the file");
    browser
}

/// What `script` returns.
pub async fn eval(c: &Client, script: &str) -> Value {
    c.execute(script, vec![])
        .await
        .unwrap_or_else(|e| panic!("{script}: {e}"))
}

/// The element `css` selects in `c`'s page (a macro: fantoccini's element type is not named
/// by verdict-web).
macro_rules! element {
    ($c:expr, $css:expr) => {
        $c.find(Locator::Css($css))
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", $css))
    };
}

/// The text of the element `css` selects.
pub async fn text(c: &Client, css: &str) -> String {
    element!(c, css).text().await.expect("text")
}

/// Waits until an element `css` selects is there, at most `secs` seconds.
pub async fn appears(c: &Client, css: &str, secs: u64) {
    c.wait()
        .at_most(Duration::from_secs(secs))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css} does not appear: {e}"));
}

/// Types `keys` into the field `css` selects.
pub async fn type_into(c: &Client, css: &str, keys: &str) {
    let field = element!(c, css);
    field.send_keys(keys).await.expect("type");
}

/// Chooses the option `value` of the select `css` selects.
pub async fn select(c: &Client, css: &str, value: &str) {
    let select = element!(c, css);
    select.select_by_value(value).await.expect("choose");
}

/// Clicks the element `css` selects.
pub async fn click(c: &Client, css: &str) {
    element!(c, css).click().await.expect("click");
}

/// Where screenshots go: `VERDICT_SCREENSHOTS` (e.g. docs/img), else the target's tmp dir.
pub fn screenshot_path(name: &str) -> PathBuf {
    std::env::var_os("VERDICT_SCREENSHOTS")
        .map_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")), PathBuf::from)
        .join(name)
}

/// Takes a screenshot `name` of what the browser shows.
pub async fn screenshot(browser: &Browser, name: &str) {
    browser
        .screenshot(&screenshot_path(name))
        .await
        .unwrap_or_else(|e| panic!("screenshot {name}: {e}"));
}

/// Nothing overflows the page at 1280 px, nor at phone width (390x844), where the window stays.
pub async fn fits_desktop_and_phone(browser: &Browser) {
    assert!(
        !browser.overflows().await.expect("measure"),
        "overflows at 1280 px"
    );
    fits_phone(browser).await;
}

/// At phone width (390x844), where the window stays, nothing overflows the page.
pub async fn fits_phone(browser: &Browser) {
    browser.resize(390, 844).await.expect("phone width");
    assert!(
        !browser.overflows().await.expect("measure"),
        "overflows at phone width"
    );
}

/// Checks a long command's progress: `command(extra)` (a shell command line, with `extra`
/// arguments) shows `done/total` with a rate and time left when run on a terminal (util-linux's
/// `script` gives it one; its output is what a person sees), and `then` after it; no progress
/// with `--quiet` or when stderr is a pipe.
pub fn progress_only_on_a_terminal(command: impl Fn(&str) -> String, total: usize, then: &str) {
    let on_terminal = |extra: &str| {
        let output = Command::new("script")
            .args(["-qefc", &command(extra), "/dev/null"])
            .env_remove("NO_COLOR")
            .output()
            .expect("script runs");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let shown = on_terminal("");
    assert!(
        shown.contains(&format!("/{total} ")) && shown.contains(" eta "),
        "done / total, rate and time left on the terminal: {shown:?}"
    );
    assert!(shown.contains(then), "{then} follows: {shown:?}");
    let quiet = on_terminal("--quiet");
    assert!(!quiet.contains(" eta "), "--quiet: {quiet:?}");
    let piped = Command::new("sh")
        .args(["-c", &command("")])
        .output()
        .expect("the command runs");
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(piped.status.success(), "{stderr}");
    assert!(!stderr.contains(" eta "), "not a terminal: {stderr:?}");
}
