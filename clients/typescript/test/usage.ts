// Compiles only if the generated types describe the wire as the docs write it.
import type { OracleReport, Submission, TestSuite } from "../src/index.js";

export const suite: TestSuite = {
  deliverable_type: "function",
  language: "python3",
  entry_point: "add",
  source_files: [{ type: "text", name: "add.py", text: "def add(a, b): return a + b" }],
  test_cases: [{ name: "one", input: [1, 2], expected: 3 }],
};

export function passed(report: OracleReport): number {
  return report.summary.passed;
}

export function language(submission: Submission): string {
  return submission.submission.language;
}
