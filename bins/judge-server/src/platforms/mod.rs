//! Other sandboxes' APIs served by judge-server (docs/compat.md), below the state and the
//! routes: each one's config section and the service its routes share (`jobe.rs`, `piston.rs`,
//! `judge0.rs`, `sandbox_fusion.rs` here), and who may call them (`gate.rs`). The routes, which
//! take the state, are the files of the same names one level up; the state holds the services
//! and imports none of the routes.

pub mod gate;
pub mod jobe;
pub mod judge0;
pub mod piston;
pub mod sandbox_fusion;
