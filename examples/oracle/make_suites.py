"""Regenerates the example suites from the deliverables beside them: python3 make_suites.py"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def source(d, name):
    with open(os.path.join(HERE, d, name), encoding="utf-8") as f:
        return {"type": "text", "name": name, "text": f.read()}


def write(d, suite):
    with open(os.path.join(HERE, d, "suite.json"), "w", encoding="utf-8") as f:
        json.dump(suite, f, ensure_ascii=False, indent=2)
        f.write("\n")


LINES = [
    "2026-02-07 13:20:11 | ERROR | auth | invalid token",
    "2026-02-07 13:20:12 | INFO | db | connected",
]
write("summarize_logs", {
    "deliverable_type": "function",
    "language": "python3",
    "entry_point": "summarize_logs",
    "source_files": [source("summarize_logs", "summarize_logs.py")],
    "timeout_ms": 2000,
    "test_cases": [
        {"name": "Basic summary", "input": [LINES, 10], "expected": {
            "total": 2, "by_level": {"ERROR": 1, "INFO": 1}, "malformed": 0,
            "last_errors": ["2026-02-07 13:20:11 auth: invalid token"]}},
        {"name": "Only the last error", "input": [LINES + ["2026-02-07 13:21:00 | ERROR | db | lost connection"], 1],
         "expected": {"total": 3, "by_level": {"ERROR": 2, "INFO": 1}, "malformed": 0,
                      "last_errors": ["2026-02-07 13:21:00 db: lost connection"]}},
        {"name": "Empty log", "input": [[], 10],
         "expected": {"total": 0, "by_level": {}, "malformed": 0, "last_errors": []}},
        {"name": "Malformed line", "input": [["not a log line"], 5],
         "expected": {"total": 1, "by_level": {}, "malformed": 1, "last_errors": []}},
    ],
})
write("receipt", {
    "deliverable_type": "script",
    "language": "python3",
    "entry_point": "receipt.py",
    "source_files": [source("receipt", "receipt.py")],
    "timeout_ms": 5000,
    "test_cases": [
        {"name": "Seed receipt", "input": {"stdin": "", "files": {"receipt.txt": "苹果 x2  7.50\nBANANA*1 3.2\n"}},
         "expected": {"stdout": "苹果 2 x 7.50 = 15.00\nBANANA 1 x 3.20 = 3.20\nTOTAL 18.20\n", "exit_code": 0}},
        {"name": "Empty receipt", "input": {"files": {"receipt.txt": ""}}, "expected": {"stdout": "TOTAL 0.00\n"}},
        {"name": "No receipt file", "input": {}, "expected": {"exit_code": 1, "stderr_contains": "FileNotFoundError"}},
    ],
})
write("csv_filter", {
    "deliverable_type": "cli",
    "language": "python3",
    "entry_point": "csv_filter.py",
    "source_files": [source("csv_filter", "csv_filter.py")],
    "timeout_ms": 5000,
    "test_cases": [
        {"name": "Seed filter", "input": {
            "argv": ["--in", "data.csv", "--out", "out.csv", "--col", "status", "--eq", "DONE"],
            "stdin": "", "files": {"data.csv": "id,status\n1,DONE\n2,TODO\n"}},
         "expected": {"stdout": "1 row(s) written to out.csv\n", "exit_code": 0, "files": {"out.csv": "id,status\n1,DONE\n"}}},
        {"name": "Unknown column", "input": {
            "argv": ["--in", "data.csv", "--out", "out.csv", "--col", "state", "--eq", "DONE"],
            "files": {"data.csv": "id,status\n1,DONE\n"}},
         "expected": {"exit_code": 3, "stderr": "csv_filter: no column 'state'\n"}},
        {"name": "Missing argument", "input": {"argv": ["--in", "data.csv"]},
         "expected": {"exit_code": 2, "stderr_contains": "required"}},
    ],
})
