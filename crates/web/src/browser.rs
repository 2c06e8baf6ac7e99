//! A real headless Chromium for tests, driven over WebDriver: [`Browser::start`] starts
//! Debian's `chromedriver` on a free loopback port, opens a session of `/usr/bin/chromium` with a
//! fresh profile and the flags this machine needs (no background networking, no sandbox as
//! root), and stops both when closed or dropped.

use fantoccini::ClientBuilder;
pub use fantoccini::{Client, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where Debian's `chromium` puts the browser.
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// Where Debian's `chromium-driver` puts the driver.
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Why the browser could not be used.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    /// chromedriver could not be started or did not listen.
    #[error("chromedriver: {0}")]
    Driver(String),
    /// The WebDriver session could not be opened.
    #[error("new session: {0}")]
    Session(#[from] fantoccini::error::NewSessionError),
    /// A WebDriver command failed.
    #[error("webdriver: {0}")]
    Command(#[from] fantoccini::error::CmdError),
    /// A file could not be written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
}

/// Why no browser test can run here, or `None` when Chromium and its driver are installed.
pub fn unavailable() -> Option<String> {
    for path in [CHROMIUM, CHROMEDRIVER] {
        if !Path::new(path).exists() {
            return Some(format!(
                "{path} is not installed (Debian packages chromium and chromium-driver; scripts/setup.sh --deps-only)"
            ));
        }
    }
    None
}

/// A headless Chromium session and the chromedriver behind it.
#[derive(Debug)]
pub struct Browser {
    client: Client,
    driver: Child,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts chromedriver and a headless Chromium whose page viewport is `width`×`height`.
    pub async fn start(width: u32, height: u32) -> Result<Browser, BrowserError> {
        let profile = tempfile::tempdir().map_err(|source| BrowserError::Io {
            path: std::env::temp_dir(),
            source,
        })?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| BrowserError::Driver(format!("no free port: {e}")))?
            .port();
        let mut driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| BrowserError::Driver(format!("cannot start {CHROMEDRIVER}: {e}")))?;
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                let _ = driver.kill();
                let _ = driver.wait();
                return Err(BrowserError::Driver(format!(
                    "not listening on port {port} after 20 s"
                )));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let args = [
            "--headless=new".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-gpu".to_owned(),
            "--disable-dev-shm-usage".to_owned(),
            "--disable-quic".to_owned(),
            "--no-first-run".to_owned(),
            "--disable-background-networking".to_owned(),
            "--disable-component-update".to_owned(),
            "--disable-sync".to_owned(),
            "--hide-scrollbars".to_owned(),
            format!("--window-size={width},{height}"),
            format!("--user-data-dir={}", profile.path().display()),
        ];
        let mut capabilities = serde_json::Map::new();
        capabilities.insert(
            "goog:chromeOptions".into(),
            json!({ "binary": CHROMIUM, "args": args }),
        );
        let session = ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await;
        let client = match session {
            Ok(client) => client,
            Err(err) => {
                let _ = driver.kill();
                let _ = driver.wait();
                return Err(err.into());
            }
        };
        let browser = Browser {
            client,
            driver,
            _profile: profile,
        };
        // `--window-size` counts the headless window's chrome: make the page's viewport the
        // size asked for (screenshots at 1280×800 are 1280×800, not 1280×657).
        browser.resize(width, height).await?;
        Ok(browser)
    }

    /// The WebDriver client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Resizes the window so that the page's viewport is `width`×`height` CSS pixels.
    pub async fn resize(&self, width: u32, height: u32) -> Result<(), BrowserError> {
        self.client().set_window_size(width, height).await?;
        // Headless windows may count browser chrome: correct by what the page sees.
        let inner = self
            .client()
            .execute("return [window.innerWidth, window.innerHeight];", vec![])
            .await?;
        let got = |i: usize| inner.get(i).and_then(Value::as_u64).unwrap_or(0) as u32;
        let (w, h) = (got(0), got(1));
        if (w, h) != (width, height) && w > 0 && h > 0 {
            self.client()
                .set_window_size(
                    width + width.saturating_sub(w),
                    height + height.saturating_sub(h),
                )
                .await?;
        }
        Ok(())
    }

    /// Whether the page is wider than the window (something overflows sideways).
    pub async fn overflows(&self) -> Result<bool, BrowserError> {
        let value = self
            .client()
            .execute(
                "return document.documentElement.scrollWidth > window.innerWidth + 1;",
                vec![],
            )
            .await?;
        Ok(value.as_bool().unwrap_or(true))
    }

    /// A PNG of the viewport, written to `path` (its directory is created).
    pub async fn screenshot(&self, path: &Path) -> Result<(), BrowserError> {
        let png = self.client().screenshot().await?;
        let io = |source| BrowserError::Io {
            path: path.to_owned(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        std::fs::write(path, png).map_err(io)
    }

    /// Ends the session, then the driver.
    pub async fn close(self) -> Result<(), BrowserError> {
        self.client.clone().close().await?;
        Ok(())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
