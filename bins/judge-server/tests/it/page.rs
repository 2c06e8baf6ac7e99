//! What the page tests share: a headless Chromium (Debian's chromium and chromium-driver) on a
//! test server, signed in, and the steps a person takes there (sign in, paste a submission,
//! wait for the tasks to finish), with the reads and waits the tests make of the page.

use crate::common::TestServer;
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use verdict_judge_server::ServerConfig;
use verdict_web::browser::{self, Browser, Client, Locator};

/// Skips (or fails in CI) when Chromium is not installed.
#[allow(clippy::print_stdout)]
pub(crate) fn browser_or_skip() -> bool {
    match browser::unavailable() {
        None => true,
        Some(reason) if std::env::var_os("CI").is_some() => panic!("{reason}"),
        Some(reason) => {
            println!("skipped: {reason}");
            false
        }
    }
}

/// A server with `config` for a page test, or `None` (with `skipped:` printed) when Chromium or
/// the judge is missing here.
pub(crate) fn page_server(config: ServerConfig) -> Option<TestServer> {
    if !browser_or_skip() {
        return None;
    }
    TestServer::start(config)
}

/// A test server and a headless Chromium (1280x800) signed in to it.
pub(crate) struct SignedIn {
    /// The server the page is served by.
    pub server: TestServer,
    /// The browser showing the page.
    pub browser: Browser,
}

impl SignedIn {
    /// Starts a server with `config` and a browser signed in with `token`, or `None` when
    /// Chromium or the judge is missing here ([`page_server`]).
    pub async fn start(config: ServerConfig, token: &str) -> Option<SignedIn> {
        Some(SignedIn::open(page_server(config)?, token).await)
    }

    /// Starts a browser signed in to `server` with `token`.
    pub async fn open(server: TestServer, token: &str) -> SignedIn {
        let browser = signed_in_browser(&server.url(""), token).await;
        SignedIn { server, browser }
    }

    /// The WebDriver client of the browser.
    pub fn client(&self) -> &Client {
        self.browser.client()
    }

    /// A URL on the server.
    pub fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    /// Closes the browser (the server stops on drop).
    pub async fn close(self) {
        self.browser.close().await.expect("close");
    }
}

/// A headless Chromium (1280x800) signed in to the server at `base` with `token`.
pub(crate) async fn signed_in_browser(base: &str, token: &str) -> Browser {
    let browser = Browser::start(1280, 800).await.expect("browser");
    sign_in(browser.client(), base, token).await;
    browser
}

/// Opens `base`, signs in with `token` and waits for the submit form; the sign-in page shows no
/// navigation.
pub(crate) async fn sign_in(c: &Client, base: &str, token: &str) {
    c.goto(&format!("{base}/")).await.expect("open the page");
    asks_for_a_token(c).await;
    wait_for(
        c,
        "return getComputedStyle(document.getElementById('nav')).display === 'none';",
        5,
        "the navigation shows on the sign-in page",
    )
    .await;
    enter_token(c, token).await;
    wait_for(
        c,
        "return !!document.getElementById('submission');",
        10,
        "not signed in",
    )
    .await;
}

/// Waits (at most 10 s) until the page asks for a token.
async fn asks_for_a_token(c: &Client) {
    c.wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("#token"))
        .await
        .expect("the page asks for a token");
}

/// Types `token` into the sign-in form once it asks for one and sends it.
pub(crate) async fn enter_token(c: &Client, token: &str) {
    asks_for_a_token(c).await;
    let field = c.find(Locator::Css("#token")).await.expect("token field");
    field.clear().await.expect("clear");
    field.send_keys(token).await.expect("type");
    click(c, "#token-submit").await;
}

/// Pastes `submission` into the form (as a person pasting JSON) and sends it.
pub(crate) async fn submit_through_the_page(c: &Client, submission: &str) {
    c.execute(
        "document.getElementById('submission').value = arguments[0];",
        vec![Value::String(submission.to_owned())],
    )
    .await
    .expect("paste");
    send_the_form(c).await;
}

/// Sends the submit form and waits for the submission's view to open.
pub(crate) async fn send_the_form(c: &Client) {
    click(c, "#submit").await;
    wait_for(
        c,
        "return !!document.querySelector('#tasks');",
        30,
        "the submission view does not open",
    )
    .await;
}

/// Opens the queue from the navigation and waits for it to list one submission.
pub(crate) async fn open_the_queue_of_one(c: &Client) {
    click(c, "nav a[href=\"#/queue\"]").await;
    wait_for(
        c,
        "return document.querySelectorAll('#queue-table tbody tr').length === 1;",
        10,
        "the queue does not list the submission",
    )
    .await;
}

/// [`submit_through_the_page`] and [`until_finished`].
pub(crate) async fn judge_through_the_page(c: &Client, submission: &str, tasks: usize, secs: u64) {
    submit_through_the_page(c, submission).await;
    until_finished(c, tasks, secs).await;
}

/// Waits until every one of `tasks` task rows shows a final status and the view is no longer
/// live, at most `secs` seconds.
pub(crate) async fn until_finished(c: &Client, tasks: usize, secs: u64) {
    let script = format!(
        "const rows = [...document.querySelectorAll('tr.task-row')];
         return rows.length === {tasks} && rows.every(r => !['Pending', 'Running', 'Compiling'].includes(r.dataset.status))
             && document.getElementById('live').hidden;"
    );
    assert!(
        until(c, &script, Duration::from_secs(secs)).await,
        "not every task finished: {}",
        text(c, "main").await
    );
}

/// Polls `script` (returning a boolean) until it is true, at most `limit`.
pub(crate) async fn until(c: &Client, script: &str, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if c.execute(script, vec![])
            .await
            .ok()
            .and_then(|v| v.as_bool())
            == Some(true)
        {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// [`until`] `script` is true within `secs` seconds, or fails saying `what` with the text of
/// the page's `main`.
pub(crate) async fn wait_for(c: &Client, script: &str, secs: u64, what: &str) {
    if !until(c, script, Duration::from_secs(secs)).await {
        panic!("{what}: {}", text(c, "main").await);
    }
}

/// What `script` returns.
pub(crate) async fn eval(c: &Client, script: &str) -> Value {
    c.execute(script, vec![])
        .await
        .unwrap_or_else(|e| panic!("{script}: {e}"))
}

/// The strings of `list`, a JSON array (what a script returned).
pub(crate) fn strings(list: &Value) -> Vec<&str> {
    let items = list
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"));
    items.iter().filter_map(Value::as_str).collect()
}

/// The text of the element `css` selects.
pub(crate) async fn text(c: &Client, css: &str) -> String {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .text()
        .await
        .expect("text")
}

/// The text of the element `css` selects, which must contain `want`.
pub(crate) async fn text_containing(c: &Client, css: &str, want: &str) -> String {
    let text = text(c, css).await;
    assert!(text.contains(want), "{css} does not say {want:?}: {text}");
    text
}

/// Clicks the element `css` selects.
pub(crate) async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("click {css}: {e}"));
}

/// Scrolls the page to its top.
pub(crate) async fn scroll_top(c: &Client) {
    eval(c, "window.scrollTo(0, 0);").await;
}

/// Where screenshots go: `VERDICT_SCREENSHOTS` (e.g. docs/img), else the target's tmp dir.
pub(crate) fn screenshot_path(name: &str) -> PathBuf {
    std::env::var_os("VERDICT_SCREENSHOTS")
        .map_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")), PathBuf::from)
        .join(name)
}

/// Takes a screenshot `name` of what the browser shows.
pub(crate) async fn screenshot(browser: &Browser, name: &str) {
    browser
        .screenshot(&screenshot_path(name))
        .await
        .unwrap_or_else(|e| panic!("screenshot {name}: {e}"));
}

/// The same screen at phone width (390x844): nothing overflows, a screenshot `name` is taken,
/// then the window is 1280x800 again. `top` scrolls to the top first.
pub(crate) async fn phone_screenshot(browser: &Browser, name: &str, top: bool) {
    browser.resize(390, 844).await.expect("phone width");
    if top {
        scroll_top(browser.client()).await;
    }
    assert!(
        !browser.overflows().await.expect("measure"),
        "{name}: the page overflows at 390 px"
    );
    screenshot(browser, name).await;
    browser.resize(1280, 800).await.expect("desktop");
}
