//! The embedded page assets and the bundled example submissions.

use std::borrow::Cow;
use std::sync::OnceLock;

mod generated {
    include!(concat!(env!("OUT_DIR"), "/examples.rs"));
}

/// The Content-Security-Policy the server sends with the page: only its own scripts, styles and
/// requests; no inline script or style, no frames, no plugins.
pub const PAGE_CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; \
     form-action 'none'; frame-ancestors 'none'";

/// One embedded file.
#[derive(Debug, Clone)]
pub struct Asset {
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its bytes.
    pub body: Cow<'static, [u8]>,
}

/// The files, by name (as the page refers to them under `/assets/`).
pub(crate) const FILES: &[(&str, &str)] = &[
    ("index.html", include_str!("../assets/index.html")),
    ("style.css", include_str!("../assets/style.css")),
    ("common.js", include_str!("../assets/common.js")),
    ("judge.js", include_str!("../assets/judge.js")),
    ("lab.js", include_str!("../assets/lab.js")),
    ("app.js", include_str!("../assets/app.js")),
    ("report.js", include_str!("../assets/report.js")),
];

/// The embedded file called `name` (`index.html`, `app.js`, `examples.json`, ...).
pub fn asset(name: &str) -> Option<Asset> {
    if name == "examples.json" {
        return Some(Asset {
            content_type: "application/json",
            body: Cow::Borrowed(examples_json().as_bytes()),
        });
    }
    let (_, text) = FILES.iter().find(|(file, _)| *file == name)?;
    let content_type = match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        _ => "application/octet-stream",
    };
    Some(Asset {
        content_type,
        body: Cow::Borrowed(text.as_bytes()),
    })
}

/// The text of the embedded file `name`, for the self-contained report.
pub(crate) fn text(name: &str) -> &'static str {
    FILES
        .iter()
        .find(|(file, _)| *file == name)
        .map_or("", |(_, text)| text)
}

/// The names of the bundled examples (`examples/judge/*.json`), sorted.
pub fn example_names() -> Vec<&'static str> {
    generated::EXAMPLES.iter().map(|(name, _)| *name).collect()
}

/// `[{"name", "submission"}]` of every bundled example, built once.
fn examples_json() -> &'static str {
    static JSON: OnceLock<String> = OnceLock::new();
    JSON.get_or_init(|| {
        let list: Vec<serde_json::Value> = generated::EXAMPLES
            .iter()
            .filter_map(|(name, text)| {
                let submission: serde_json::Value = serde_json::from_str(text).ok()?;
                Some(serde_json::json!({ "name": name, "submission": submission }))
            })
            .collect();
        serde_json::Value::Array(list).to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SVG_NS: &str = "http://www.w3.org/2000/svg";

    #[test]
    fn every_file_the_page_loads_is_embedded() {
        let index = text("index.html");
        for (name, _) in FILES.iter().filter(|(name, _)| *name != "index.html") {
            if *name == "report.js" {
                continue; // only the self-contained report runs it
            }
            assert!(
                index.contains(&format!("/assets/{name}")),
                "index.html does not load {name}"
            );
        }
    }

    #[test]
    fn the_page_has_no_inline_script_or_style() {
        let index = text("index.html");
        assert!(!index.contains("<style"), "inline <style> in index.html");
        assert!(
            !index.contains("style=\""),
            "inline style attribute in index.html"
        );
        for (start, _) in index.match_indices("<script") {
            let tag_end = index[start..]
                .find('>')
                .map_or(index.len(), |end| start + end);
            assert!(
                index[start..tag_end].contains("src="),
                "inline <script> in index.html"
            );
        }
        for (name, text) in FILES {
            let text = text.replace(SVG_NS, "");
            assert!(
                !text.contains("http://") && !text.contains("https://") && !text.contains("//cdn"),
                "{name} names an external address"
            );
        }
    }

    #[test]
    fn every_bundled_example_is_offered_and_parses() {
        let names = example_names();
        assert!(names.contains(&"wrong-answer") && names.contains(&"aplusb-c"));
        let list: Vec<serde_json::Value> =
            serde_json::from_str(examples_json()).expect("examples.json is JSON");
        assert_eq!(list.len(), names.len(), "an example is not JSON");
    }
}
