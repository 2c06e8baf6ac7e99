//! verdict-contracts (being built).
