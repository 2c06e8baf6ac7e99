//! Integration tests of verdict-compare: the comparators against other tools' own test cases.

mod default_validator;
