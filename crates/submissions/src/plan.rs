//! What a page needs of a Submission to show it whole, kept after the request is dropped: its
//! judge tasks (kinds, limits, dependencies) and its tests' inline inputs (cut to a few KiB).

use serde_json::{Value, json};

/// The most of one inline input kept, in characters.
const INPUT_CHARS: usize = 4096;

/// The plan of a request text (`{"judge_tasks": [...], "test_inputs": [[{name, type, text}]]}`),
/// or `None` when it is not a Submission's JSON.
pub fn plan_of(request: &str) -> Option<String> {
    let submission: Value = serde_json::from_str(request).ok()?;
    let tasks = submission.get("judge_tasks")?.clone();
    let inputs: Vec<Value> = submission
        .get("test_data")
        .and_then(Value::as_array)
        .map(|data| {
            data.iter()
                .map(|datum| {
                    let files = datum.get("inputs").and_then(Value::as_array);
                    Value::Array(files.into_iter().flatten().map(input).collect())
                })
                .collect()
        })
        .unwrap_or_default();
    Some(json!({ "judge_tasks": tasks, "test_inputs": inputs }).to_string())
}

/// One input asset: its name and kind, and its text when inline (cut, with how much was cut).
fn input(asset: &Value) -> Value {
    let mut kept = json!({
        "name": asset.get("name").cloned().unwrap_or(Value::Null),
        "type": asset.get("type").cloned().unwrap_or(Value::Null),
    });
    if let Some(text) = asset.get("text").and_then(Value::as_str) {
        let count = text.chars().count();
        let cut: String = text.chars().take(INPUT_CHARS).collect();
        kept["text"] = Value::String(cut);
        if count > INPUT_CHARS {
            kept["text_chars"] = json!(count);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_keeps_tasks_and_cut_inputs_and_drops_the_rest() {
        let long = "9".repeat(INPUT_CHARS + 10);
        let request = json!({
            "judge_tasks": [{"check_script": "compile", "time_limit": 1000}],
            "test_data": [{"inputs": [{"type": "text", "name": "testdata.in", "text": long}],
                           "outputs": [{"type": "text", "name": "testdata.out", "text": "secret"}]}],
            "submission": {"source_files": [{"text": "int main(){}"}]}
        });
        let plan: Value =
            serde_json::from_str(&plan_of(&request.to_string()).expect("a plan")).expect("JSON");
        assert_eq!(plan["judge_tasks"][0]["time_limit"], 1000);
        let input = &plan["test_inputs"][0][0];
        assert_eq!(input["name"], "testdata.in");
        assert_eq!(input["text"].as_str().map(str::len), Some(INPUT_CHARS));
        assert_eq!(input["text_chars"], INPUT_CHARS + 10);
        let text = plan.to_string();
        assert!(
            !text.contains("secret") && !text.contains("int main"),
            "{text}"
        );
        assert_eq!(plan_of("not json"), None);
    }
}
