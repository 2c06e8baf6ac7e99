//! verdict-web's integration tests: the assets as a client fetches them.

mod assets;
