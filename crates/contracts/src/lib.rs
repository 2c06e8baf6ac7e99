//! verdict-contracts: every wire type of verdict (being built).

pub mod judge;
pub mod reports;
pub mod score;

pub use judge::*;
pub use reports::*;
pub use score::{Score, ScoreParseError};
