//! `GET /v1/openapi.json`: an OpenAPI 3.1 document built from the contract's own schemas.
//!
//! OpenAPI 3.1 schemas are JSON Schema 2020-12, which is what `verdict_contracts::schemas()`
//! produces (schemars), so the document reuses them as they are: each top-level schema becomes
//! `components/schemas/<Name>`, its `$defs` are hoisted beside it, and `#/$defs/X` references
//! become `#/components/schemas/X`. That keeps one source of truth (the serde types) without a
//! second derive (utoipa) on every wire type.

use serde_json::{Map, Value, json};

/// The OpenAPI document of this server.
pub fn document() -> Value {
    let mut components = Map::new();
    for (name, schema) in verdict_contracts::schemas() {
        add_schema(&mut components, name, schema.to_value());
    }
    // The server's own schemas; none may shadow a contract schema (a test checks).
    components.insert("Error".into(), error_schema());
    components.insert("Accepted".into(), accepted_schema());
    components.insert("Health".into(), health_schema());
    components.insert("LanguageStatus".into(), language_schema());
    components.insert("LabRunResponse".into(), lab_response_schema());
    components.insert("InvalidSubmission".into(), invalid_submission_schema());

    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "verdict judge-server",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The verdict judge over HTTP: programming submissions (JudgeReport), Task Oracle suites and Agent Lab runs. Every error is {\"error\": {\"code\", \"message\", \"field\"?}}."
        },
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "security": [{"bearer": []}],
        "paths": paths(),
        "components": {
            "schemas": components,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "description": "A token from the server's config; a token bound to a category may submit only as that category."}
            },
            "responses": common_responses(),
        }
    })
}

fn reference(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

fn json_content(name: &str) -> Value {
    json!({"application/json": {"schema": reference(name)}})
}

fn error_response(description: &str) -> Value {
    json!({"description": description, "content": json_content("Error")})
}

fn common_responses() -> Value {
    json!({
        "BadRequest": error_response("The body is not JSON or not UTF-8."),
        "Unauthorized": error_response("No or an unknown bearer token."),
        "Forbidden": error_response("The token may not submit as this category."),
        "NotFound": error_response("No such path or submission."),
        "PayloadTooLarge": error_response("The body is larger than max_body_kb."),
        "Unprocessable": error_response("The JSON does not fit; the message names the field."),
        "TooManyRequests": {
            "description": "The queue (or the oracle/lab pool) is full.",
            "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait."}},
            "content": json_content("Error")
        },
        "ShuttingDown": {
            "description": "The server is shutting down (code shutting_down), or, on a front end (role = \"frontend\"), the broker did not take the submission (code unavailable, with Retry-After): nothing was accepted.",
            "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait (code unavailable)."}},
            "content": json_content("Error")
        },
        "Timeout": error_response("The request took longer than request_timeout_ms."),
        "Internal": error_response("The server failed; details are in its log."),
    })
}

fn responses(ok: Value, errors: &[(&str, &str)]) -> Value {
    let mut map = ok.as_object().cloned().unwrap_or_default();
    for (code, name) in errors {
        map.insert(
            (*code).into(),
            json!({"$ref": format!("#/components/responses/{name}")}),
        );
    }
    Value::Object(map)
}

/// `GET /v1/submissions`'s answer (`listing::List`).
fn submission_list() -> Value {
    json!({
        "type": "object", "required": ["submissions"],
        "properties": {"submissions": {"type": "array", "items": {
            "type": "object",
            "required": ["sub_id", "category", "prob_id", "state", "tasks", "finished_tasks", "score", "statuses", "age_ms"],
            "properties": {
                "sub_id": {"type": "string"},
                "category": {"type": "string"},
                "prob_id": {"type": "string"},
                "state": {"type": "string", "enum": ["queued", "running", "finished"]},
                "tasks": {"type": "integer", "minimum": 0},
                "finished_tasks": {"type": "integer", "minimum": 0},
                "score": {"type": "string", "description": "Σ numerators / Σ denominators of the finished tasks' scores."},
                "statuses": {"type": "object", "additionalProperties": {"type": "integer"}, "description": "How many tasks have each status."},
                "age_ms": {"type": "integer", "minimum": 0, "description": "Milliseconds since it was accepted."},
            },
        }}},
    })
}

fn paths() -> Value {
    let submit_errors: &[(&str, &str)] = &[
        ("400", "BadRequest"),
        ("401", "Unauthorized"),
        ("403", "Forbidden"),
        ("413", "PayloadTooLarge"),
        ("429", "TooManyRequests"),
        ("503", "ShuttingDown"),
        ("504", "Timeout"),
        ("500", "Internal"),
    ];
    let invalid = json!({"description": "The Submission breaks the contract: the contract's JudgeReport (results: [], message naming the field) plus the error object.", "content": json_content("InvalidSubmission")});
    let conflict = error_response("A submission with this sub_id is still queued or running.");
    let sub_id_param = json!([
        {"name": "sub_id", "in": "path", "required": true, "schema": {"type": "string"}},
        {"name": "category", "in": "query", "required": false, "schema": {"type": "string"},
         "description": "The submission's category: sub_ids are unique per category. Needed only by a token bound to no category, when the sub_id exists in several."},
    ]);
    let ambiguous = error_response(
        "A token bound to no category asked for a sub_id that several categories hold, without ?category=.",
    );
    json!({
        "/v1/judge": {"post": {
            "summary": "Judge a Submission and wait for its JudgeReport.",
            "operationId": "judge",
            "requestBody": {"required": true, "content": json_content("Submission")},
            "responses": responses(json!({
                "200": {"description": "The complete report.", "content": json_content("JudgeReport")},
                "409": conflict.clone(),
                "422": invalid.clone(),
            }), submit_errors),
        }},
        "/v1/submissions": {"post": {
            "summary": "Queue a Submission; poll it or stream its events.",
            "operationId": "submit",
            "requestBody": {"required": true, "content": json_content("Submission")},
            "responses": responses(json!({
                "202": {"description": "Queued.", "headers": {"Location": {"schema": {"type": "string"}}}, "content": json_content("Accepted")},
                "409": conflict,
                "422": invalid,
            }), submit_errors),
        }, "get": {
            "summary": "The recent submissions the caller may see (a category token: only its category), newest first.",
            "operationId": "listSubmissions",
            "parameters": [
                {"name": "category", "in": "query", "required": false, "schema": {"type": "string"}, "description": "Only this category."},
                {"name": "status", "in": "query", "required": false, "schema": {"type": "string"}, "description": "queued, running, finished, or a task status (such as Wrong Answer): submissions with such a task."},
                {"name": "limit", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50}},
            ],
            "responses": responses(json!({
                "200": {"description": "Newest first.", "content": {"application/json": {"schema": submission_list()}}},
                "422": {"$ref": "#/components/responses/Unprocessable"},
            }), &[("401", "Unauthorized")]),
        }},
        "/v1/submissions/{sub_id}": {"get": {
            "summary": "The JudgeReport so far: unfinished tasks are Pending, Compiling or Running.",
            "operationId": "getSubmission",
            "parameters": sub_id_param.clone(),
            "responses": responses(json!({
                "200": {"description": "The report so far; the header Verdict-State says whether it is queued, running or finished, Verdict-Complete whether every task has its result.",
                        "headers": {"Verdict-Complete": {"schema": {"type": "boolean"}},
                                    "Verdict-State": {"schema": {"type": "string", "enum": ["queued", "running", "finished"]}}},
                        "content": json_content("JudgeReport")},
                "409": ambiguous.clone(),
            }), &[("401", "Unauthorized"), ("404", "NotFound")]),
        }},
        "/v1/submissions/{sub_id}/events": {"get": {
            "summary": "Server-Sent Events: `task` ({index, result: JudgeTaskResult}) once per finished task in the order they finish, then `report` (the JudgeReport); the stream then ends.",
            "operationId": "submissionEvents",
            "parameters": sub_id_param,
            "responses": responses(json!({
                "200": {"description": "An event stream.", "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                "409": ambiguous,
            }), &[("401", "Unauthorized"), ("404", "NotFound")]),
        }},
        "/v1/oracle": {"post": {
            "summary": "Run a Task Oracle suite and return its report.",
            "operationId": "oracle",
            "requestBody": {"required": true, "content": json_content("TestSuite")},
            "responses": responses(json!({
                "200": {"description": "The oracle report.", "content": json_content("OracleReport")},
                "422": {"$ref": "#/components/responses/Unprocessable"},
            }), &[("400", "BadRequest"), ("401", "Unauthorized"), ("413", "PayloadTooLarge"), ("429", "TooManyRequests"), ("503", "ShuttingDown"), ("504", "Timeout"), ("500", "Internal")]),
        }},
        "/v1/lab/runs": {"post": {
            "summary": "Run an Agent Lab task (AtomicTask, or ScenarioTask when it has steps) and return its RunRecord and ScoreRecords; a failed run is a record with status failed.",
            "operationId": "labRun",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"oneOf": [reference("AtomicTask"), reference("ScenarioTask")]}}}},
            "responses": responses(json!({
                "200": {"description": "The run and its scores.", "content": json_content("LabRunResponse")},
                "422": {"$ref": "#/components/responses/Unprocessable"},
            }), &[("400", "BadRequest"), ("401", "Unauthorized"), ("403", "Forbidden"), ("413", "PayloadTooLarge"), ("429", "TooManyRequests"), ("503", "ShuttingDown"), ("504", "Timeout"), ("500", "Internal")]),
        }, "get": {
            "summary": "The server's recent lab runs (in memory, the newest 500) and their scores; a category token sees only its category's.",
            "operationId": "listLabRuns",
            "responses": responses(json!({
                "200": {"description": "The runs and their scores.", "content": {"application/json": {"schema": {
                    "type": "object", "required": ["runs", "scores"],
                    "properties": {"runs": {"type": "array", "items": reference("RunRecord")},
                                   "scores": {"type": "array", "items": reference("ScoreRecord")}},
                }}}},
            }), &[("401", "Unauthorized")]),
        }},
        "/": {"get": {
            "summary": "The page: submissions, lab runs and the server's state, for people; no token needed to load it.",
            "operationId": "page",
            "security": [],
            "responses": {"200": {"description": "HTML.", "content": {"text/html": {"schema": {"type": "string"}}}}},
        }},
        "/assets/{name}": {"get": {
            "summary": "A script, the stylesheet or the bundled examples of the page; no token needed.",
            "operationId": "pageAsset",
            "security": [],
            "parameters": [{"name": "name", "in": "path", "required": true, "schema": {"type": "string"}}],
            "responses": responses(json!({
                "200": {"description": "The asset."},
            }), &[("404", "NotFound")]),
        }},
        "/v1/health": {"get": {
            "summary": "Liveness and load; no token needed.",
            "operationId": "health",
            "security": [],
            "responses": {"200": {"description": "Up.", "content": json_content("Health")}},
        }},
        "/v1/languages": {"get": {
            "summary": "Which languages this judge can run, with versions (probed once, then cached).",
            "operationId": "languages",
            "responses": responses(json!({
                "200": {"description": "One entry per language of the contract.", "content": {"application/json": {"schema": {"type": "array", "items": reference("LanguageStatus")}}}},
            }), &[("401", "Unauthorized")]),
        }},
        "/metrics": {"get": {
            "summary": "Prometheus metrics (text format 0.0.4).",
            "operationId": "metrics",
            "responses": responses(json!({
                "200": {"description": "Metrics.", "content": {"text/plain": {"schema": {"type": "string"}}}},
            }), &[("401", "Unauthorized")]),
        }},
        "/v1/openapi.json": {"get": {
            "summary": "This document; no token needed.",
            "operationId": "openapi",
            "security": [],
            "responses": {"200": {"description": "OpenAPI 3.1.", "content": {"application/json": {"schema": {"type": "object"}}}}},
        }},
    })
}

/// Adds `schema` as `name`, hoisting its `$defs` (renamed `<name>.<def>` when another schema
/// already holds a different definition of that name).
fn add_schema(components: &mut Map<String, Value>, name: &str, mut schema: Value) {
    let defs = schema
        .as_object_mut()
        .and_then(|o| {
            o.remove("$schema");
            o.remove("$defs")
        })
        .and_then(|d| match d {
            Value::Object(map) => Some(map),
            _ => None,
        })
        .unwrap_or_default();
    let mut renames: Vec<(String, String)> = Vec::new();
    for (def_name, def) in &defs {
        let target = match components.get(def_name) {
            None => def_name.clone(),
            Some(existing) if *existing == rewrite_probe(def, &defs) => def_name.clone(),
            Some(_) => format!("{name}.{def_name}"),
        };
        renames.push((def_name.clone(), target));
    }
    let rename = |def: &str| -> String {
        renames
            .iter()
            .find(|(from, _)| from == def)
            .map_or_else(|| def.to_owned(), |(_, to)| to.clone())
    };
    for (def_name, mut def) in defs.clone() {
        rewrite_refs(&mut def, &rename);
        components.entry(rename(&def_name)).or_insert(def);
    }
    rewrite_refs(&mut schema, &rename);
    components.insert(name.to_owned(), schema);
}

/// A definition as it would look after rewriting with unchanged names (to compare with one
/// already hoisted).
fn rewrite_probe(def: &Value, _defs: &Map<String, Value>) -> Value {
    let mut def = def.clone();
    rewrite_refs(&mut def, &|d: &str| d.to_owned());
    def
}

fn rewrite_refs(value: &mut Value, rename: &dyn Fn(&str) -> String) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get_mut("$ref")
                && let Some(def) = target.strip_prefix("#/$defs/")
            {
                *target = format!("#/components/schemas/{}", rename(def));
            }
            for v in map.values_mut() {
                rewrite_refs(v, rename);
            }
        }
        Value::Array(items) => {
            for v in items {
                rewrite_refs(v, rename);
            }
        }
        _ => {}
    }
}

fn error_schema() -> Value {
    json!({
        "type": "object",
        "description": "Every error response.",
        "required": ["error"],
        "properties": {"error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string", "description": "Machine-readable: unauthorized, forbidden, not_found, bad_request, invalid_request, invalid_submission, conflict, payload_too_large, busy, shutting_down, timeout, internal."},
                "message": {"type": "string", "description": "What went wrong, naming the field."},
                "field": {"type": "string", "description": "The field at fault, when there is one."}
            }
        }}
    })
}

fn invalid_submission_schema() -> Value {
    json!({
        "description": "An invalid Submission: the contract's report (results: [], message naming the field) with the error object added.",
        "allOf": [reference("JudgeReport"), reference("Error")]
    })
}

fn accepted_schema() -> Value {
    json!({
        "type": "object",
        "required": ["sub_id", "status_url", "events_url"],
        "properties": {
            "sub_id": {"type": "string"},
            "status_url": {"type": "string"},
            "events_url": {"type": "string"}
        }
    })
}

fn health_schema() -> Value {
    json!({
        "type": "object",
        "required": ["status", "version", "queue_length", "running_submissions", "accepting"],
        "properties": {
            "status": {"type": "string", "enum": ["ok", "degraded", "shutting_down"], "description": "degraded: a front end or worker is not connected to its broker."},
            "role": {"type": "string", "enum": ["standalone", "worker", "frontend"], "description": "Absent on a standalone server."},
            "broker": {"type": "object", "description": "A front end's or worker's link to the broker.",
                       "required": ["connected"],
                       "properties": {"connected": {"type": "boolean"}, "last_error": {"type": "string"}}},
            "version": {"type": "string"},
            "queue_length": {"type": "integer"},
            "running_submissions": {"type": "integer"},
            "accepting": {"type": "boolean"}
        }
    })
}

fn language_schema() -> Value {
    json!({
        "type": "object",
        "required": ["language", "ready"],
        "properties": {
            "language": {"type": "string"},
            "ready": {"type": "boolean"},
            "version": {"type": "string"},
            "missing": {"type": "string", "description": "What is missing and how to install it."}
        }
    })
}

fn lab_response_schema() -> Value {
    json!({
        "type": "object",
        "required": ["run", "scores", "evaluator_failures"],
        "properties": {
            "run": reference("RunRecord"),
            "scores": {"type": "array", "items": reference("ScoreRecord")},
            "evaluator_failures": {"type": "array", "description": "Evaluators that could not score the run.", "items": {
                "type": "object",
                "required": ["task_id", "message"],
                "properties": {
                    "task_id": {"type": "string"},
                    "evaluator_id": {"type": ["string", "null"]},
                    "message": {"type": "string"}
                }
            }}
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(r)) = map.get("$ref") {
                    out.push(r.clone());
                }
                map.values().for_each(|v| refs(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }

    /// `(path, method)` of every `.route("path", handlers)` in a router's source.
    fn routes_in(source: &str) -> Vec<(String, String)> {
        let mut routes = Vec::new();
        for piece in source.split(".route(").skip(1) {
            // The call's arguments: up to the parenthesis that closes `.route(`.
            let mut depth = 1;
            let end = piece
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        _ => {}
                    }
                    depth == 0
                })
                .map_or(piece.len(), |(at, _)| at);
            let Some(rest) = piece[..end].trim_start().strip_prefix('"') else {
                continue;
            };
            let Some((path, handlers)) = rest.split_once('"') else {
                continue;
            };
            for method in ["get", "post", "put", "delete", "patch"] {
                let called = handlers
                    .match_indices(&format!("{method}("))
                    .any(|(at, _)| {
                        let before = handlers[..at].chars().next_back();
                        before.is_none_or(|c| !c.is_alphanumeric() && c != '_')
                    });
                if called {
                    routes.push((path.to_owned(), method.to_owned()));
                }
            }
        }
        routes
    }

    #[test]
    fn every_route_of_every_role_is_documented() {
        let doc = document();
        let mut routes = routes_in(include_str!("app.rs"));
        routes.extend(routes_in(include_str!("frontend.rs")));
        routes.extend(routes_in(include_str!("worker.rs")));
        assert!(routes.len() >= 14, "{routes:?}");
        assert!(routes.contains(&("/v1/lab/runs".into(), "get".into())));
        for (path, method) in routes {
            assert!(
                doc["paths"][&path][&method].is_object(),
                "{method} {path} is routed but not in the OpenAPI document"
            );
        }
    }

    #[test]
    fn every_reference_resolves() {
        let doc = document();
        let mut all = Vec::new();
        refs(&doc, &mut all);
        assert!(all.len() > 20);
        for r in all {
            let pointer = r.strip_prefix('#').expect("a local reference");
            assert!(doc.pointer(pointer).is_some(), "{r} does not resolve");
        }
    }

    /// A validator for `components/schemas/<name>` inside the document (refs resolved there).
    fn validator(doc: &Value, name: &str) -> jsonschema::Validator {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$ref": format!("#/components/schemas/{name}"),
            "components": doc["components"],
        });
        jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    #[test]
    fn hoisted_schemas_still_validate_the_contract_fixtures() {
        let doc = document();
        let fixtures = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../crates/contracts/tests/fixtures"
        );
        for (name, file) in [
            ("Submission", "submission_full.json"),
            ("JudgeReport", "judge_report_full.json"),
            ("JudgeReport", "judge_report_invalid.json"),
            ("InvalidSubmission", "judge_report_invalid.json"),
        ] {
            let text = std::fs::read_to_string(format!("{fixtures}/{file}")).unwrap();
            let mut instance: Value = serde_json::from_str(&text).unwrap();
            if name == "InvalidSubmission" {
                instance["error"] =
                    json!({"code": "invalid_submission", "message": "m", "field": "f"});
            }
            let validator = validator(&doc, name);
            let errors: Vec<String> = validator
                .iter_errors(&instance)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{file} as {name}: {errors:?}");
        }
        // And they still refuse what the contract refuses.
        let bad = json!({"sub_type": "programming"});
        assert!(!validator(&doc, "JudgeReport").is_valid(&bad));
        for name in doc["components"]["schemas"].as_object().unwrap().keys() {
            validator(&doc, name);
        }
    }

    #[test]
    fn contract_schemas_are_reused() {
        let doc = document();
        let mut own = Map::new();
        for (name, schema) in verdict_contracts::schemas() {
            add_schema(&mut own, name, schema.to_value());
        }
        for (name, schema) in &own {
            assert_eq!(
                &doc["components"]["schemas"][name], schema,
                "{name} is the contract's"
            );
        }
        let schemas = &doc["components"]["schemas"];
        for (name, _) in verdict_contracts::schemas() {
            assert!(schemas.get(name).is_some(), "{name} missing");
        }
        assert!(schemas["JudgeReport"]["properties"]["results"].is_object());
    }
}
