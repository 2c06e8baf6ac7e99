//! verdict-scheduler (being built).
