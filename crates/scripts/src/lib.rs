//! verdict-scripts (being built).
