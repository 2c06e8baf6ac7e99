//! verdict-reports (being built).
