//! Integration tests of verdict-packages: real public packages read and planned.

mod fetch;
mod kattis;
mod spec2025;
mod written;
