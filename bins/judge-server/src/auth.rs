//! Bearer tokens: who is calling, and which category they may submit as.

use crate::config::TokenConfig;
use crate::error::ApiError;
use axum::http::{HeaderMap, header};

/// The tokens in force (none: authentication is off); cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct Auth {
    tokens: std::sync::Arc<[TokenConfig]>,
}

/// An authenticated caller.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Caller {
    /// The only category this caller may submit as and read; `None`: any.
    pub category: Option<String>,
    /// The lab task types it may run (`None`: its default, see [`Caller::may_run`]).
    pub lab_runners: Option<Vec<String>>,
    /// Whether its Submissions may read every local root, not only `<root>/<category>/`.
    pub shared_local_roots: bool,
    /// Which token it presented (its place in `[[tokens]]`); `None` when authentication is off
    /// (every caller is then one, for the per-token caps).
    pub token: Option<usize>,
}

impl Caller {
    /// Whether this caller may run lab tasks of `task_type`; `built_in` are the judged types
    /// that run in the sandbox (the default of a category token).
    pub fn may_run(&self, task_type: &str, built_in: &[&str]) -> bool {
        match &self.lab_runners {
            Some(list) => list.iter().any(|t| t == "*" || t == task_type),
            None => self.category.is_none() || built_in.contains(&task_type),
        }
    }

    /// Whether this caller may act for `category`.
    pub fn may_use(&self, category: &str) -> bool {
        self.category.as_deref().is_none_or(|own| own == category)
    }

    /// Refuses a submission whose `category` is not the caller's.
    pub fn check_category(&self, category: &str) -> Result<(), ApiError> {
        if self.may_use(category) {
            return Ok(());
        }
        Err(ApiError::Forbidden {
            field: "category".into(),
            message: format!(
                "category: this token may submit only as {:?}, not {category:?}",
                self.category.as_deref().unwrap_or_default()
            ),
        })
    }
}

impl Auth {
    /// The tokens from the configuration.
    pub fn new(tokens: Vec<TokenConfig>) -> Self {
        Auth {
            tokens: tokens.into(),
        }
    }

    /// Whether any token is configured.
    pub fn enabled(&self) -> bool {
        !self.tokens.is_empty()
    }

    /// The caller behind `headers`' `Authorization: Bearer <token>`.
    pub fn caller(&self, headers: &HeaderMap) -> Result<Caller, ApiError> {
        if !self.enabled() {
            return Ok(Caller::default());
        }
        let Some(value) = headers.get(header::AUTHORIZATION) else {
            return Err(ApiError::Unauthorized(
                "Authorization: missing; send `Authorization: Bearer <token>`".into(),
            ));
        };
        let presented = value
            .to_str()
            .ok()
            .and_then(|v| {
                let (scheme, token) = v.trim().split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
            })
            .ok_or_else(|| {
                ApiError::Unauthorized("Authorization: expected `Bearer <token>`".into())
            })?;
        // Compare with every token in constant time per token, so timing tells nothing.
        let mut found = None;
        for (i, token) in self.tokens.iter().enumerate() {
            if constant_time_eq(token.token.as_bytes(), presented.as_bytes()) && found.is_none() {
                found = Some((i, token));
            }
        }
        match found {
            Some((i, token)) => Ok(Caller {
                category: token.category.clone(),
                lab_runners: token.lab_runners.clone(),
                shared_local_roots: token.shared_local_roots,
                token: Some(i),
            }),
            None => Err(ApiError::Unauthorized(
                "Authorization: unknown bearer token".into(),
            )),
        }
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = a.len() ^ b.len();
    for (i, x) in a.iter().enumerate() {
        let y = b.get(i).copied().unwrap_or(0);
        diff |= usize::from(x ^ y);
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn auth() -> Auth {
        Auth::new(vec![
            TokenConfig {
                token: "admin".into(),
                ..TokenConfig::default()
            },
            TokenConfig {
                token: "oj-secret".into(),
                category: Some("oj".into()),
                ..TokenConfig::default()
            },
            TokenConfig {
                token: "agents".into(),
                category: Some("oj".into()),
                lab_runners: Some(vec!["intent".into()]),
                ..TokenConfig::default()
            },
        ])
    }

    fn headers(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn tokens_map_to_categories() {
        let auth = auth();
        assert_eq!(
            auth.caller(&headers("Bearer admin")).unwrap().category,
            None
        );
        let oj = auth.caller(&headers("bearer oj-secret")).unwrap();
        assert!(oj.may_use("oj"));
        assert!(!oj.may_use("other"));
        assert!(oj.check_category("other").is_err());
    }

    #[test]
    fn lab_runners_default_to_the_sandboxed_ones_for_a_category_token() {
        let auth = auth();
        let built_in = ["function", "programming"];
        let admin = auth.caller(&headers("Bearer admin")).unwrap();
        assert!(admin.may_run("intent", &built_in));
        let oj = auth.caller(&headers("Bearer oj-secret")).unwrap();
        assert!(oj.may_run("function", &built_in));
        assert!(!oj.may_run("intent", &built_in));
        let agents = auth.caller(&headers("Bearer agents")).unwrap();
        assert!(agents.may_run("intent", &built_in));
        assert!(
            !agents.may_run("function", &built_in),
            "an explicit list is the whole list"
        );
    }

    #[test]
    fn bad_credentials_are_refused() {
        let auth = auth();
        assert!(auth.caller(&HeaderMap::new()).is_err());
        assert!(auth.caller(&headers("Bearer admi")).is_err());
        assert!(auth.caller(&headers("Bearer adminn")).is_err());
        assert!(auth.caller(&headers("Basic admin")).is_err());
        assert!(Auth::default().caller(&HeaderMap::new()).is_ok());
    }
}
