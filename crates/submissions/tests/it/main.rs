//! The submissions store against databases it did not make itself.

mod migration;
