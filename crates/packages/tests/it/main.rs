//! Integration tests of verdict-packages: real public packages read and planned.

mod fetch;
mod kattis;
