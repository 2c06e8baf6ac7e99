//! verdict-scripts (being built).

pub mod compare;

pub use compare::{
    BuiltinComparator, ComparatorExit, ComparatorProtocol, CompareError, CompareOutcome,
    CompareVerdict,
};
