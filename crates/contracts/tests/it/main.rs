//! verdict-contracts' integration tests: the seeds' examples, the committed schemas, the full
//! request example and property tests of round trips.

mod fixtures;
mod props;
mod round_trip;
mod schemas;
mod submission;
