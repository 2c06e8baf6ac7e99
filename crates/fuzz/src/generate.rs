//! Structured generation: JSON values that mostly follow a wire type's JSON Schema (the same
//! schemas `judge schema` writes), so generated inputs get past the JSON parser and the field
//! checks and reach validation and planning; now and then a node breaks its schema on purpose.

use crate::rng::Rng;
use serde_json::{Map, Number, Value};

/// How deep generated values nest before only leaves are made.
const MAX_DEPTH: usize = 10;

/// A generator of values for one schema.
#[derive(Debug, Clone)]
pub struct SchemaGenerator {
    root: Value,
    /// One node in this many breaks its schema on purpose (per generated value: 0 means none).
    break_one_in: usize,
}

impl SchemaGenerator {
    /// A generator for `schema` (a JSON Schema 2020-12 document with `$defs`).
    pub fn new(schema: Value) -> SchemaGenerator {
        SchemaGenerator {
            root: schema,
            break_one_in: 0,
        }
    }

    /// One value, mostly valid for the schema: half of them follow it everywhere, the others
    /// break it at about one node in 25.
    pub fn generate(&self, rng: &mut Rng) -> Value {
        let generator = SchemaGenerator {
            root: Value::Null,
            break_one_in: if rng.one_in(2) { 0 } else { 25 },
        };
        generator.node_in(rng, &self.root, &self.root, 0)
    }

    fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
        let mut current = schema;
        for _ in 0..16 {
            let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
                return current;
            };
            let Some(pointer) = reference.strip_prefix('#') else {
                return current;
            };
            match root.pointer(pointer) {
                Some(target) => current = target,
                None => return current,
            }
        }
        current
    }

    fn node_in(&self, rng: &mut Rng, root: &Value, schema: &Value, depth: usize) -> Value {
        // `{"$ref": ..., "properties": ...}`: the referenced value plus the properties beside it
        // (how schemars writes an internally tagged enum's variant).
        if schema.get("$ref").is_some() && schema.get("properties").is_some() {
            let target = Self::resolve(root, schema);
            let mut value = self.node_in(rng, root, target, depth + 1);
            if let (Value::Object(map), Value::Object(extra)) =
                (&mut value, self.object(rng, root, schema, depth))
            {
                map.extend(extra);
            }
            return value;
        }
        let schema = Self::resolve(root, schema);
        if (self.break_one_in > 0 && rng.one_in(self.break_one_in)) || depth > MAX_DEPTH {
            return wrong_value(rng);
        }
        if let Some(value) = schema.get("const") {
            return value.clone();
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array)
            && !values.is_empty()
        {
            return rng.pick(values).clone();
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(branches) = schema.get(key).and_then(Value::as_array)
                && !branches.is_empty()
            {
                let branch = rng.pick(branches);
                return self.with_siblings(rng, root, schema, branch, depth);
            }
        }
        if let Some(all) = schema.get("allOf").and_then(Value::as_array)
            && let Some(first) = all.first()
        {
            return self.node_in(rng, root, first, depth + 1);
        }
        let ty = match schema.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(Value::Array(types)) if !types.is_empty() => {
                rng.pick(types).as_str().unwrap_or("null")
            }
            _ if schema.get("properties").is_some() => "object",
            _ => return wrong_value(rng),
        };
        match ty {
            "object" => self.object(rng, root, schema, depth),
            "array" => {
                let len = if rng.one_in(10) {
                    rng.below(40)
                } else {
                    rng.below(4)
                };
                let items = schema.get("items").cloned().unwrap_or(Value::Bool(true));
                Value::Array(
                    (0..len)
                        .map(|_| self.node_in(rng, root, &items, depth + 1))
                        .collect(),
                )
            }
            "string" => Value::String(string(rng, schema)),
            "integer" => integer(rng, schema),
            "number" => Number::from_f64(*rng.pick(&[0.0, 0.5, -1.5, 1e9, 3.25]))
                .map_or(Value::Null, Value::Number),
            "boolean" => Value::Bool(rng.one_in(2)),
            _ => Value::Null,
        }
    }

    /// A `oneOf` branch merged with the properties written beside the `oneOf`.
    fn with_siblings(
        &self,
        rng: &mut Rng,
        root: &Value,
        outer: &Value,
        branch: &Value,
        depth: usize,
    ) -> Value {
        let mut value = self.node_in(rng, root, branch, depth + 1);
        if outer.get("properties").is_some()
            && let (Value::Object(map), Value::Object(extra)) =
                (&mut value, self.object(rng, root, outer, depth))
        {
            for (k, v) in extra {
                map.entry(k).or_insert(v);
            }
        }
        value
    }

    fn object(&self, rng: &mut Rng, root: &Value, schema: &Value, depth: usize) -> Value {
        let mut map = Map::new();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (name, prop) in props {
                let wanted =
                    required.contains(&name.as_str()) && !(self.break_one_in > 0 && rng.one_in(30));
                if wanted || rng.one_in(2) {
                    map.insert(name.clone(), self.node_in(rng, root, prop, depth + 1));
                }
            }
        }
        if self.break_one_in > 0 && rng.one_in(15) {
            map.insert("unknown_field".into(), wrong_value(rng));
        }
        Value::Object(map)
    }
}

fn string(rng: &mut Rng, schema: &Value) -> String {
    let formatted: &[&str] = match schema.get("format").and_then(Value::as_str) {
        Some("date-time") => &[
            "2026-11-23T10:00:00Z",
            "2026-11-23T10:00:00.123+08:00",
            "1970-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
        ],
        Some("uri") => &[
            "http://127.0.0.1:1/x",
            "https://example.invalid/a",
            "file:///etc/passwd",
        ],
        _ => &[],
    };
    if !formatted.is_empty() && !rng.one_in(5) {
        return rng.pick(formatted).to_string();
    }
    rng.pick(&[
        "",
        "a",
        "0",
        "main",
        "a.txt",
        "../x",
        "/abs",
        "1/1",
        "3/2",
        "0/0",
        "x\u{0}y",
        "é",
        "input.a[0]",
        "input.a[100000000]",
        "output",
        "diff-all",
        "Accepted",
        "  spaced  ",
        "c",
        "cpp",
        "python3",
        "gtest",
        "valgrind",
        "static",
    ])
    .to_string()
}

fn integer(rng: &mut Rng, schema: &Value) -> Value {
    let min = schema.get("minimum").and_then(Value::as_i64);
    let max = schema.get("maximum").and_then(Value::as_i64);
    let candidates = [
        0i64,
        1,
        2,
        -1,
        7,
        1000,
        65536,
        i64::from(u32::MAX),
        i64::MAX,
        min.unwrap_or(0),
        max.unwrap_or(3),
    ];
    let mut value = *rng.pick(&candidates);
    if !rng.one_in(10) {
        if let Some(min) = min {
            value = value.max(min);
        }
        if let Some(max) = max {
            value = value.min(max);
        }
    }
    Value::Number(value.into())
}

/// A value of a random kind, to break a schema on purpose.
fn wrong_value(rng: &mut Rng) -> Value {
    match rng.below(6) {
        0 => Value::Null,
        1 => Value::Bool(true),
        2 => Value::Number((-1i64).into()),
        3 => Value::String("\u{0}".into()),
        4 => Value::Array(vec![Value::Null]),
        _ => Value::Object(Map::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_submissions_reach_the_semantic_checks() {
        let (_, schema) = verdict_contracts::schemas()
            .into_iter()
            .find(|(name, _)| *name == "Submission")
            .expect("Submission schema");
        let generator = SchemaGenerator::new(schema.as_value().clone());
        let mut rng = Rng::new(11);
        let shape_errors = [
            "invalid type",
            "required field is missing",
            "unknown variant",
        ];
        let mut deep = 0;
        for _ in 0..300 {
            let text = generator.generate(&mut rng).to_string();
            match verdict_contracts::parse_submission(&text) {
                Ok(_) => deep += 1,
                Err(e) if !shape_errors.iter().any(|s| e.to_string().contains(s)) => deep += 1,
                Err(_) => {}
            }
        }
        // Most values have the Submission's shape and so reach validation (indexes,
        // dependencies, asset names), where the interesting bugs are.
        assert!(deep > 100, "only {deep} of 300 got past the JSON shape");
    }
}
