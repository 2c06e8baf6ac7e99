//! verdict-web: the pages people look at, as plain HTML, CSS and JavaScript embedded in the
//! binaries (no build step, no CDN, no external request).
//!
//! - [`asset`]: the judge-server page (`index.html` and the files it loads), served under the
//!   strict [`PAGE_CSP`].
//! - [`lab_report_html`]: the Agent Lab viewer as ONE self-contained HTML file (`judge view`);
//!   the server page renders its lab runs with the same script (`lab.js`).
//! - [`eval_report_html`]: the report of an evaluation (`judge eval --html`), one self-contained
//!   HTML file: pass@k, counts per result, problems and their samples, filterable.
//! - `browser` (feature): a headless-Chromium WebDriver session for tests.
//!
//! ```
//! use verdict_web::{LabData, asset, lab_report_html};
//! let page = asset("index.html").expect("the page is embedded");
//! assert_eq!(page.content_type, "text/html; charset=utf-8");
//! let html = lab_report_html(&LabData { title: "runs".into(), ..LabData::default() });
//! assert!(html.contains("Content-Security-Policy"));
//! ```

mod assets;
#[cfg(feature = "browser")]
pub mod browser;
mod eval;
mod report;

pub use assets::{Asset, PAGE_CSP, asset, example_names};
pub use eval::{
    EvalCount, EvalPassAtK, EvalProblem, EvalReport, EvalSample, EvalTest, eval_report_html,
    status_label,
};
pub use report::{LabData, lab_report_html};
