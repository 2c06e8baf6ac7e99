//! Judge requests for tests and benches, built instead of written out as JSON by hand.
//!
//! ```
//! use verdict_testkit::submission::{A_PLUS_B_TESTS, SubmissionJson};
//!
//! let request = SubmissionJson::a_plus_b("s1")
//!     .category("alice")
//!     .tests(A_PLUS_B_TESTS)
//!     .limit("memory_limit", 65536)
//!     .build();
//! assert_eq!(request["judge_tasks"].as_array().map(Vec::len), Some(3));
//! assert_eq!(request["judge_tasks"][2]["testcase_id"], 1);
//! assert_eq!(request["test_data"][1]["outputs"][0]["text"], "42\n");
//! ```

use serde_json::{Map, Value, json};

/// A+B in C: reads two integers, prints their sum; exits 1 when it cannot read them.
pub const A_PLUS_B_C: &str = "#include <stdio.h>\nint main(){int a,b;if(scanf(\"%d%d\",&a,&b)!=2)return 1;printf(\"%d\\n\",a+b);return 0;}\n";

/// Two A+B tests, `(input, expected output)`.
pub const A_PLUS_B_TESTS: [(&str, &str); 2] = [("1 2\n", "3\n"), ("40 2\n", "42\n")];

/// A programming judge request being built: a compile task, then standard tasks on its test
/// data, each depending on the compile's acceptance.
#[derive(Debug, Clone)]
pub struct SubmissionJson {
    category: String,
    prob_id: String,
    sub_id: String,
    language: String,
    file_name: String,
    source: String,
    tests: Vec<(String, String)>,
    runs: Option<usize>,
    limits: Map<String, Value>,
}

impl SubmissionJson {
    /// [`A_PLUS_B_C`] as `sub_id` of problem `a-plus-b` in category `bench`, no tests yet, each
    /// standard task limited to 2 s.
    pub fn a_plus_b(sub_id: impl Into<String>) -> Self {
        let mut limits = Map::new();
        limits.insert("time_limit".into(), json!(2000));
        SubmissionJson {
            category: "bench".into(),
            prob_id: "a-plus-b".into(),
            sub_id: sub_id.into(),
            language: "c".into(),
            file_name: "main.c".into(),
            source: A_PLUS_B_C.into(),
            tests: Vec::new(),
            runs: None,
            limits,
        }
    }

    /// The request's `category`.
    pub fn category(mut self, category: impl Into<String>) -> Self {
        self.category = category.into();
        self
    }

    /// The program's source, in the same language and file.
    pub fn source(mut self, source: impl Into<String>) -> Self {
        self.source = source.into();
        self
    }

    /// The program: its language (the contract's spelling), file name and source.
    pub fn program(
        mut self,
        language: impl Into<String>,
        file_name: impl Into<String>,
        source: impl Into<String>,
    ) -> Self {
        self.language = language.into();
        self.file_name = file_name.into();
        self.source = source.into();
        self
    }

    /// One more test: a datum of `input` and expected `output`, and a standard task on it.
    pub fn test(mut self, input: impl Into<String>, output: impl Into<String>) -> Self {
        self.tests.push((input.into(), output.into()));
        self
    }

    /// More tests, as [`SubmissionJson::test`] each.
    pub fn tests<I: Into<String>, O: Into<String>>(
        mut self,
        tests: impl IntoIterator<Item = (I, O)>,
    ) -> Self {
        self.tests
            .extend(tests.into_iter().map(|(i, o)| (i.into(), o.into())));
        self
    }

    /// `runs` standard tasks instead of one per test, the k-th on test k modulo their number.
    pub fn runs(mut self, runs: usize) -> Self {
        self.runs = Some(runs);
        self
    }

    /// Sets `key` (`time_limit`, `memory_limit`, `proc_limit`, ...) on every standard task.
    pub fn limit(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.limits.insert(key.into(), value.into());
        self
    }

    /// The request as JSON.
    pub fn build(&self) -> Value {
        let text = |name: &str, text: &str| json!({"type": "text", "name": name, "text": text});
        let mut tasks =
            vec![json!({"check_script": "compile", "depends_on": -1, "time_limit": 10000})];
        let data = self.tests.len().max(1);
        tasks.extend((0..self.runs.unwrap_or(self.tests.len())).map(|k| {
            let mut task = json!({"check_script": "standard", "run_script": "standard",
                "compare_script": "diff-ign-space", "testcase_id": k % data, "depends_on": 0,
                "depends_cond": "ACCEPTED"});
            if let Value::Object(fields) = &mut task {
                fields.extend(self.limits.clone());
            }
            task
        }));
        let test_data: Vec<Value> = self
            .tests
            .iter()
            .map(|(input, output)| {
                json!({"inputs": [text("testdata.in", input)],
                       "outputs": [text("testdata.out", output)]})
            })
            .collect();
        json!({
            "sub_type": "programming", "category": self.category, "prob_id": self.prob_id,
            "sub_id": self.sub_id, "updated_at": 1_700_000_000,
            "judge_tasks": tasks,
            "test_data": test_data,
            "submission": {"type": "source_code", "language": self.language,
                "source_files": [text(&self.file_name, &self.source)]}
        })
    }

    /// The request as JSON text.
    pub fn text(&self) -> String {
        self.build().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_cycle_over_the_tests_and_every_standard_task_gets_the_limits() {
        let request = SubmissionJson::a_plus_b("s")
            .test("1 2\n", "3\n")
            .runs(3)
            .limit("time_limit", 1000)
            .limit("proc_limit", 4)
            .build();
        let tasks = request["judge_tasks"].as_array().expect("tasks");
        assert_eq!(tasks.len(), 4);
        assert_eq!(tasks[0]["time_limit"], 10000);
        for task in &tasks[1..] {
            assert_eq!(
                (
                    &task["testcase_id"],
                    &task["time_limit"],
                    &task["proc_limit"]
                ),
                (&json!(0), &json!(1000), &json!(4))
            );
        }
        assert_eq!(request["test_data"].as_array().map(Vec::len), Some(1));
    }

    #[test]
    fn a_built_request_is_a_valid_submission() {
        let text = SubmissionJson::a_plus_b("s")
            .tests(A_PLUS_B_TESTS)
            .limit("memory_limit", 65536)
            .text();
        let submission = verdict_contracts::parse_submission(&text).expect("valid");
        assert_eq!(submission.judge_tasks.len(), 3);
        assert_eq!(submission.test_data.len(), 2);
    }
}
