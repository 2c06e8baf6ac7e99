//! The Agent Lab viewer as one self-contained HTML file: the shared stylesheet and scripts
//! inlined, the records embedded as a JSON data block, and a Content-Security-Policy that allows
//! exactly those inline blocks (by hash) and nothing from anywhere else.

use crate::assets::text;
use base64::Engine;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// What the viewer shows.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LabData {
    /// The page title (e.g. the runs file's name).
    pub title: String,
    /// RunRecords, as read (camelCase, the contract's fields).
    pub runs: Vec<Value>,
    /// ScoreRecords, as read.
    pub scores: Vec<Value>,
    /// Notes shown above the table (lines skipped while reading, ...).
    pub notes: Vec<String>,
}

/// The scripts the report runs, in order.
const SCRIPTS: [&str; 3] = ["common.js", "lab.js", "report.js"];

/// One self-contained HTML document showing `data` (opens from disk, makes no request).
pub fn lab_report_html(data: &LabData) -> String {
    let css = text("style.css");
    let scripts: Vec<&str> = SCRIPTS.iter().map(|name| text(name)).collect();
    let script_hashes: Vec<String> = scripts.iter().map(|s| csp_hash(s)).collect();
    let csp = format!(
        "default-src 'none'; script-src {}; style-src {}; img-src data:; base-uri 'none'; form-action 'none'",
        script_hashes.join(" "),
        csp_hash(css)
    );
    // `<` never appears raw in the data block, so no `</script>` can end it early.
    let json = serde_json::to_string(data)
        .unwrap_or_else(|_| "{}".into())
        .replace('<', "\\u003c");
    let mut html = String::with_capacity(json.len() + 64 * 1024);
    html.push_str("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    html.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    html.push_str(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n"
    ));
    html.push_str(&format!(
        "<title>{} · verdict lab</title>\n<style>{css}</style>\n</head>\n",
        escape(&data.title)
    ));
    html.push_str("<body class=\"standalone\">\n<header class=\"top\"><span class=\"brand\">verdict lab</span></header>\n");
    html.push_str(
        "<main id=\"lab\" class=\"main\"><p>Loading… (this report needs JavaScript)</p></main>\n",
    );
    html.push_str("<script type=\"application/json\" id=\"lab-data\">");
    html.push_str(&json);
    html.push_str("</script>\n");
    for script in scripts {
        html.push_str("<script>");
        html.push_str(script);
        html.push_str("</script>\n");
    }
    html.push_str("</body>\n</html>\n");
    html
}

/// `'sha256-<base64>'` of `text`, as a CSP source.
pub(crate) fn csp_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// `text` safe inside HTML text.
pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hostile_record_text_cannot_close_the_data_block() {
        let data = LabData {
            title: "<b>x</b>".into(),
            runs: vec![json!({"id": "r1", "output": "</script><script>alert(1)</script>"})],
            ..LabData::default()
        };
        let html = lab_report_html(&data);
        assert_eq!(html.matches("</script>").count(), 1 + SCRIPTS.len());
        assert!(html.contains("<title>&lt;b&gt;x&lt;/b&gt; · verdict lab</title>"));
        let start = html.find("id=\"lab-data\">").expect("data block") + "id=\"lab-data\">".len();
        let end = start + html[start..].find("</script>").expect("end of data");
        let back: Value = serde_json::from_str(&html[start..end]).expect("the block is JSON");
        assert_eq!(
            back["runs"][0]["output"],
            "</script><script>alert(1)</script>"
        );
    }

    #[test]
    fn the_policy_allows_exactly_the_inlined_blocks() {
        let html = lab_report_html(&LabData::default());
        for name in SCRIPTS {
            assert!(html.contains(&format!("<script>{}</script>", text(name))));
            assert!(
                html.contains(&csp_hash(text(name))),
                "{name} not allowed by the CSP"
            );
        }
        assert!(html.contains(&csp_hash(text("style.css"))));
        assert!(html.contains("default-src 'none'"));
    }

    #[test]
    fn csp_hash_is_the_standard_sha256_source() {
        // echo -n abc | openssl dgst -sha256 -binary | base64
        assert_eq!(
            csp_hash("abc"),
            "'sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0='"
        );
    }
}
