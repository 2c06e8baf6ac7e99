//! The guard against real loopback servers: a server holding a secret is never reached, by any
//! spelling of its address, by a name that resolves to it, or through a redirect.

mod server;
mod ssrf;
