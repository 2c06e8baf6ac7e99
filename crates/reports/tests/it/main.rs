//! Parses every committed fixture (real tool output, see scripts/regen-report-fixtures.sh).
