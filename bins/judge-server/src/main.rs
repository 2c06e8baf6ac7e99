//! `judge-server`: the judge over HTTP (see the judge-server issue; not built yet).

fn main() -> anyhow::Result<()> {
    anyhow::bail!("judge-server is not built yet")
}
