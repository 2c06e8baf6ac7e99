//! `GET /v1/openapi.json`: an OpenAPI 3.1 document built from the route table (`routes.rs`)
//! and the types of the bodies, so it cannot drift from what the server answers.
//!
//! OpenAPI 3.1 schemas are JSON Schema 2020-12, which is what schemars produces, so the
//! document reuses the contract's schemas (`verdict_contracts::schemas()`) as they are, and
//! each response body of the server's own is a struct deriving `JsonSchema`: every named schema
//! becomes `components/schemas/<Name>`, its `$defs` are hoisted beside it, and `#/$defs/X`
//! references become `#/components/schemas/X`. One source of truth (the serde types) without a
//! second derive (utoipa) on every wire type.

use crate::error::ErrorResponse;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};
use verdict_contracts::{AtomicTask, JudgeReport, ScenarioTask};

/// The schemas of the document, by name.
pub(crate) type Components = Map<String, Value>;

/// Puts a body's schema into the components (when it has a name) and gives what refers to it.
pub(crate) type SchemaFn = fn(&mut Components) -> Value;

/// What a response or request carries.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Content {
    /// Nothing the document describes.
    None,
    /// JSON with this schema.
    Json(SchemaFn),
    /// Text of this media type.
    Media(&'static str),
}

impl Content {
    fn to_value(self, components: &mut Components) -> Option<Value> {
        match self {
            Content::None => None,
            Content::Json(schema) => {
                Some(json!({"application/json": {"schema": schema(components)}}))
            }
            Content::Media(media) => Some(json!({media: {"schema": {"type": "string"}}})),
        }
    }
}

/// One parameter of an endpoint.
#[derive(Debug, Clone)]
pub(crate) struct Param {
    name: &'static str,
    location: &'static str,
    description: Option<&'static str>,
    schema: Value,
}

impl Param {
    /// A path segment (`{name}`).
    pub(crate) fn path(name: &'static str) -> Param {
        Param {
            name,
            location: "path",
            description: None,
            schema: json!({"type": "string"}),
        }
    }

    /// An optional query string parameter.
    pub(crate) fn query(name: &'static str, description: &'static str) -> Param {
        Param {
            name,
            location: "query",
            description: Some(description),
            schema: json!({"type": "string"}),
        }
    }

    /// An optional query string count of milliseconds (0 or more).
    pub(crate) fn millis(name: &'static str, description: &'static str) -> Param {
        Param {
            name,
            location: "query",
            description: Some(description),
            schema: json!({"type": "integer", "minimum": 0}),
        }
    }

    /// An optional request header.
    pub(crate) fn header(name: &'static str, description: &'static str) -> Param {
        Param {
            name,
            location: "header",
            description: Some(description),
            schema: json!({"type": "string", "minLength": 1, "maxLength": 200}),
        }
    }

    /// An optional query string count, 1 to `max`.
    pub(crate) fn limit(name: &'static str, default: u32, max: u32) -> Param {
        Param {
            name,
            location: "query",
            description: None,
            schema: json!({"type": "integer", "minimum": 1, "maximum": max, "default": default}),
        }
    }

    fn to_value(&self) -> Value {
        let mut value = json!({
            "name": self.name,
            "in": self.location,
            "required": self.location == "path",
            "schema": self.schema,
        });
        if let Some(description) = self.description {
            value["description"] = json!(description);
        }
        value
    }
}

/// One response of an endpoint.
#[derive(Debug, Clone)]
struct Reply {
    status: u16,
    description: &'static str,
    content: Content,
    headers: Vec<(&'static str, &'static str)>,
}

/// What the document says of an endpoint.
#[derive(Debug, Clone)]
pub(crate) struct Doc {
    id: &'static str,
    summary: &'static str,
    public: bool,
    params: Vec<Param>,
    body: Option<SchemaFn>,
    replies: Vec<Reply>,
    errors: Vec<u16>,
}

impl Doc {
    /// An operation named `id`.
    pub(crate) fn new(id: &'static str, summary: &'static str) -> Doc {
        Doc {
            id,
            summary,
            public: false,
            params: Vec::new(),
            body: None,
            replies: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// Its one-line summary.
    #[cfg(test)]
    pub(crate) fn summary(&self) -> &'static str {
        self.summary
    }

    /// Whether it needs no token.
    #[cfg(test)]
    pub(crate) fn is_public(&self) -> bool {
        self.public
    }

    /// No token needed.
    pub(crate) fn public(self) -> Doc {
        Doc {
            public: true,
            ..self
        }
    }

    /// A parameter.
    pub(crate) fn param(mut self, param: Param) -> Doc {
        self.params.push(param);
        self
    }

    /// Parameters.
    pub(crate) fn params(mut self, params: Vec<Param>) -> Doc {
        self.params.extend(params);
        self
    }

    /// The JSON request body.
    pub(crate) fn body(self, schema: SchemaFn) -> Doc {
        Doc {
            body: Some(schema),
            ..self
        }
    }

    /// The success response, JSON.
    pub(crate) fn ok(self, status: u16, description: &'static str, schema: SchemaFn) -> Doc {
        self.ok_as(status, description, Content::Json(schema))
    }

    /// The success response.
    pub(crate) fn ok_as(self, status: u16, description: &'static str, content: Content) -> Doc {
        self.reply((status, description, content))
    }

    /// Another response of this endpoint's own.
    pub(crate) fn reply(
        mut self,
        (status, description, content): (u16, &'static str, Content),
    ) -> Doc {
        self.replies.push(Reply {
            status,
            description,
            content,
            headers: Vec::new(),
        });
        self
    }

    /// A header of the last response.
    pub(crate) fn header(mut self, name: &'static str, description: &'static str) -> Doc {
        if let Some(reply) = self.replies.last_mut() {
            reply.headers.push((name, description));
        }
        self
    }

    /// Errors described once for every endpoint (`components/responses`), by status.
    pub(crate) fn errors(mut self, statuses: &[u16]) -> Doc {
        self.errors.extend_from_slice(statuses);
        self
    }

    fn operation(&self, components: &mut Components) -> Value {
        let mut responses = Map::new();
        for reply in &self.replies {
            let mut value = json!({"description": reply.description});
            if let Some(content) = reply.content.to_value(components) {
                value["content"] = content;
            }
            if !reply.headers.is_empty() {
                let headers: Map<String, Value> = reply
                    .headers
                    .iter()
                    .map(|(name, description)| {
                        let header =
                            json!({"schema": {"type": "string"}, "description": description});
                        ((*name).to_owned(), header)
                    })
                    .collect();
                value["headers"] = Value::Object(headers);
            }
            responses.insert(reply.status.to_string(), value);
        }
        for status in &self.errors {
            let name = common_response(*status);
            responses
                .entry(status.to_string())
                .or_insert_with(|| json!({"$ref": format!("#/components/responses/{name}")}));
        }
        let mut operation = json!({
            "summary": self.summary,
            "operationId": self.id,
            "responses": responses,
        });
        if self.public {
            operation["security"] = json!([]);
        }
        if !self.params.is_empty() {
            operation["parameters"] = self.params.iter().map(Param::to_value).collect();
        }
        if let Some(body) = self.body {
            operation["requestBody"] = json!({"required": true, "content": {"application/json": {"schema": body(components)}}});
        }
        operation
    }
}

/// One operation of the document: its path, method, the roles that serve it and what it says.
pub(crate) struct Operation<'a> {
    /// The path, in OpenAPI's syntax (`{sub_id}`).
    pub path: &'a str,
    /// The method, lower case.
    pub verb: &'a str,
    /// The roles that serve it (`x-roles`).
    pub roles: Vec<&'a str>,
    /// Its description.
    pub doc: &'a Doc,
}

/// The OpenAPI document of a server with these operations (the route table's:
/// [`crate::routes::openapi_document`]).
pub(crate) fn document<'a>(operations: impl IntoIterator<Item = Operation<'a>>) -> Value {
    let mut components = Components::new();
    for (name, schema) in verdict_contracts::schemas() {
        add_schema(&mut components, name, schema.to_value());
    }
    error(&mut components);
    let mut paths = Map::new();
    for op in operations {
        let mut operation = op.doc.operation(&mut components);
        operation["x-roles"] = op.roles.into_iter().collect();
        let path = paths.entry(op.path.to_owned()).or_insert_with(|| json!({}));
        path[op.verb] = operation;
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "verdict judge-server",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The verdict judge over HTTP: programming submissions (JudgeReport), Task Oracle suites and Agent Lab runs. Every error is {\"error\": {\"code\", \"message\", \"field\"?}}."
        },
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "description": "A token from the server's config; a token bound to a category may submit only as that category."}
            },
            "responses": common_responses(),
        }
    })
}

/// The schema of `T`: a `$ref` to `components/schemas/<its name>` for a named type (put there
/// unless a schema of that name is there already: the contract's come first), the schema itself
/// for one inlined (`Vec<T>`), with its definitions hoisted either way.
pub(crate) fn json<T: JsonSchema>(components: &mut Components) -> Value {
    let schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if T::inline_schema() {
        return hoisted(components, schema);
    }
    let name = T::schema_name();
    if !components.contains_key(name.as_ref()) {
        add_schema(components, &name, schema);
    }
    reference(&name)
}

/// An inline schema with its `$defs` hoisted into `components`.
fn hoisted(components: &mut Components, schema: Value) -> Value {
    const INLINE: &str = "__inline";
    add_schema(components, INLINE, schema);
    untitled(&components.remove(INLINE).unwrap_or_default())
}

fn reference(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// `Error`: the body of every error response.
pub(crate) fn error(components: &mut Components) -> Value {
    json::<ErrorResponse>(components)
}

/// `InvalidSubmission`: an invalid Submission's 422, the contract's report with the error object.
pub(crate) fn invalid_submission(components: &mut Components) -> Value {
    let parts = [json::<JudgeReport>(components), error(components)];
    components.entry("InvalidSubmission").or_insert_with(|| {
        json!({
            "description": "An invalid Submission: the contract's report (results: [], message naming the field) with the error object added.",
            "allOf": parts,
        })
    });
    reference("InvalidSubmission")
}

/// An Agent Lab task: an AtomicTask, or a ScenarioTask (which has `steps`).
pub(crate) fn lab_task(components: &mut Components) -> Value {
    json!({"oneOf": [json::<AtomicTask>(components), json::<ScenarioTask>(components)]})
}

/// The name of the response every endpoint shares for `status`.
fn common_response(status: u16) -> &'static str {
    match status {
        400 => "BadRequest",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "NotFound",
        413 => "PayloadTooLarge",
        422 => "Unprocessable",
        429 => "TooManyRequests",
        503 => "ShuttingDown",
        504 => "Timeout",
        _ => "Internal",
    }
}

fn error_response(description: &str) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": reference("Error")}}})
}

fn common_responses() -> Value {
    json!({
        "BadRequest": error_response("The body is not JSON or not UTF-8."),
        "Unauthorized": error_response("No or an unknown bearer token."),
        "Forbidden": error_response("The token may not submit as this category."),
        "NotFound": error_response("No such path or submission, or a path this role does not serve."),
        "PayloadTooLarge": error_response("The body is larger than max_body_kb."),
        "Unprocessable": error_response("The JSON does not fit; the message names the field."),
        "TooManyRequests": {
            "description": "The queue (or the oracle/lab pool) is full, an oracle suite would wait longer than max_queue_wait_ms for a place, or, for an event stream, max_streams_per_submission or max_streams_per_token streams are open (the message names the cap).",
            "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait."}},
            "content": {"application/json": {"schema": reference("Error")}}
        },
        "ShuttingDown": {
            "description": "The server is shutting down (code shutting_down), or, on a front end (role = \"frontend\"), the broker did not take the submission or the cancel (code unavailable, with Retry-After): nothing was accepted or cancelled.",
            "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait (code unavailable)."}},
            "content": {"application/json": {"schema": reference("Error")}}
        },
        "Timeout": error_response("The request took longer than request_timeout_ms."),
        "Internal": error_response("The server failed; details are in its log."),
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
            Some(existing) if untitled(existing) == untitled(&rewrite_probe(def, &defs)) => {
                def_name.clone()
            }
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

/// A schema without its `title` (a root schema has one, the same type as a definition has not).
fn untitled(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(object) = schema.as_object_mut() {
        object.remove("title");
    }
    schema
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

    #[test]
    fn every_endpoint_is_documented_with_the_roles_that_serve_it() {
        let doc = crate::routes::openapi_document();
        let endpoints = crate::routes::endpoints();
        assert!(endpoints.len() >= 14);
        for endpoint in endpoints {
            let operation = &doc["paths"][endpoint.path][endpoint.verb.as_str()];
            assert!(
                operation.is_object(),
                "{} {}",
                endpoint.verb.as_str(),
                endpoint.path
            );
            let roles: Vec<&str> = endpoint.roles.iter().map(|r| r.as_str()).collect();
            assert_eq!(operation["x-roles"], json!(roles));
            let responses = operation["responses"].as_object().unwrap();
            assert!(responses.keys().any(|code| code.starts_with('2')));
        }
    }

    #[test]
    fn health_requires_what_every_role_answers() {
        let doc = crate::routes::openapi_document();
        let required = &doc["components"]["schemas"]["Health"]["required"];
        for field in [
            "status",
            "version",
            "queue_length",
            "running_submissions",
            "accepting",
        ] {
            assert!(
                required.as_array().unwrap().contains(&json!(field)),
                "{field}: {required}"
            );
        }
    }

    #[test]
    fn every_reference_resolves() {
        let doc = crate::routes::openapi_document();
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
        let doc = crate::routes::openapi_document();
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
        let doc = crate::routes::openapi_document();
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
