//! One spelling of each contract string: a fieldless wire enum is declared with its strings
//! written once, and serde's rename, the JSON Schema and `as_str` all come from that literal.

/// Declares a fieldless enum whose variants carry their contract string:
/// `Variant = "wire string"`. Generates `#[serde(rename = ...)]` on each variant, an `as_str`
/// returning the same literal (so the two can never disagree), `ALL` (every value in declaration
/// order, its length counted by the compiler) and `from_name`. Exported for the other closed
/// vocabularies of the workspace (a server's roles), so they are spelled once too.
#[macro_export]
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $( $(#[$vmeta])* #[serde(rename = $wire)] $variant, )+
        }

        impl $name {
            /// Every value, in the contract's order.
            pub const ALL: [$name; [$( $wire ),+].len()] = [$( $name::$variant ),+];

            /// The contract's string for this value (the one serde writes and reads).
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $wire, )+
                }
            }

            /// The value named by a contract string.
            pub fn from_name(name: &str) -> Option<$name> {
                $name::ALL.into_iter().find(|v| v.as_str() == name)
            }
        }
    };
}

/// Implements the wire form of a type written as one string: `Serialize` writes its `Display`,
/// `Deserialize` reads it with `FromStr` (the parse error is serde's message), and its JSON
/// Schema is a string schema named after the type with the given extra keywords
/// (`pattern`, `format`, `description`).
macro_rules! string_wire {
    ($name:ident, { $($schema:tt)* }) => {
        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <::std::borrow::Cow<'de, str> as ::serde::Deserialize>::deserialize(deserializer)?;
                text.parse().map_err(::serde::de::Error::custom)
            }
        }

        impl ::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_generator: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                ::schemars::json_schema!({ "type": "string", $($schema)* })
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use crate::{CheckScript, CompareScript, DependsCond, JudgeStatus, Language, RunScript};

    fn serde_string<T: serde::Serialize>(value: T) -> String {
        match serde_json::to_value(value) {
            Ok(serde_json::Value::String(s)) => s,
            other => panic!("not a string: {other:?}"),
        }
    }

    #[test]
    fn all_is_every_value_the_schema_allows_once() {
        let schema = serde_json::to_value(schemars::schema_for!(Language)).unwrap();
        let allowed: Vec<&str> = schema["enum"]
            .as_array()
            .expect("an enum")
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        let all: Vec<&str> = Language::ALL.iter().map(|l| l.as_str()).collect();
        assert_eq!(all, allowed);
        for language in Language::ALL {
            assert_eq!(Language::from_name(language.as_str()), Some(language));
        }
        assert_eq!(Language::from_name("cobol"), None);
        let statuses: Vec<&str> = JudgeStatus::ALL.iter().map(|s| s.as_str()).collect();
        assert!(statuses.contains(&"Partial Correct") && statuses.len() > 20);
    }

    #[test]
    fn output_scripts_are_listed_as_messages_name_them() {
        assert_eq!(
            CompareScript::output_scripts(" or "),
            r#""diff-ign-space", "diff-all", "icpc-default" or """#
        );
        assert!(!CompareScript::Gtest.compares_output());
    }

    #[test]
    fn as_str_is_what_serde_writes() {
        for s in JudgeStatus::ALL {
            assert_eq!(s.as_str(), serde_string(s));
        }
        for l in Language::ALL {
            assert_eq!(l.as_str(), serde_string(l));
        }
        assert_eq!(
            CompareScript::Custom.as_str(),
            serde_string(CompareScript::Custom)
        );
        assert_eq!(CompareScript::DiffIgnSpace.as_str(), "diff-ign-space");
        assert_eq!(
            RunScript::Valgrind.as_str(),
            serde_string(RunScript::Valgrind)
        );
        assert_eq!(
            CheckScript::Static.as_str(),
            serde_string(CheckScript::Static)
        );
        assert_eq!(DependsCond::NotTimeLimit.as_str(), "NOT_TIME_LIMIT");
        assert_eq!(JudgeStatus::PartialCorrect.as_str(), "Partial Correct");
    }
}
