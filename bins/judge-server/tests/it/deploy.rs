//! deploy/kubernetes: the manifests parse, their server configs are valid judge-server configs
//! of the right roles, they name the probes, the broker and the security contexts that
//! docs/deploy.md describes. (No cluster here: what `kubectl apply` would do is not run; the
//! worker's capabilities are the ones scripts/test-container.sh runs the image with.)

use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use verdict_judge_server::{Role, ServerConfig};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every document of every manifest, with the file it came from.
fn manifests() -> Vec<(String, Value)> {
    let dir = repo().join("deploy/kubernetes");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("deploy/kubernetes")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    let mut docs = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("manifest");
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for doc in yaml_serde::Deserializer::from_str(&text) {
            let v = Value::deserialize(doc).unwrap_or_else(|e| panic!("{name}: {e}"));
            docs.push((name.clone(), v));
        }
    }
    docs
}

fn find<'a>(docs: &'a [(String, Value)], kind: &str, name: &str) -> &'a Value {
    docs.iter()
        .map(|(_, v)| v)
        .find(|v| v["kind"] == kind && v["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name} in deploy/kubernetes"))
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn kubernetes_manifests_name_what_docs_deploy_md_says() {
    let docs = manifests();
    let doc_text = std::fs::read_to_string(repo().join("docs/deploy.md")).expect("docs/deploy.md");
    for (file, v) in &docs {
        assert!(
            v["apiVersion"].is_string()
                && v["kind"].is_string()
                && v["metadata"]["name"].is_string(),
            "{file}: a document without apiVersion, kind or metadata.name"
        );
        assert!(
            doc_text.contains(&format!("deploy/kubernetes/{file}")),
            "docs/deploy.md does not name deploy/kubernetes/{file}"
        );
    }
    let secret = find(&docs, "Secret", "verdict-config");
    let broker = find(&docs, "Service", "verdict-broker");
    find(&docs, "Deployment", "verdict-broker");
    let amqp_port = broker["spec"]["ports"][0]["port"]
        .as_u64()
        .expect("broker port");
    for (deployment, key, role) in [
        ("verdict-worker", "worker.toml", Role::Worker),
        ("verdict-frontend", "frontend.toml", Role::Frontend),
    ] {
        let toml = secret["stringData"][key]
            .as_str()
            .unwrap_or_else(|| panic!("no {key}"));
        let config = ServerConfig::from_toml(toml).unwrap_or_else(|e| panic!("{key}: {e}"));
        assert_eq!(config.role, role, "{key}");
        // The broker's Service, by name and port.
        assert!(
            config
                .amqp
                .uri
                .contains(&format!("@verdict-broker:{amqp_port}/")),
            "{key}: amqp.uri {} is not the broker's Service",
            config.amqp.uri
        );
        let d = find(&docs, "Deployment", deployment);
        let pod = &d["spec"]["template"]["spec"];
        let c = &pod["containers"][0];
        // The config is mounted where the image's command reads it.
        assert_eq!(
            strings(&c["args"]),
            ["judge-server", "--config", "/etc/verdict/server.toml"]
        );
        let mount = c["volumeMounts"]
            .as_array()
            .and_then(|m| {
                m.iter()
                    .find(|m| m["mountPath"] == "/etc/verdict/server.toml")
            })
            .unwrap_or_else(|| panic!("{deployment}: no server.toml mount"));
        assert_eq!(mount["subPath"], key, "{deployment}");
        // Probes on /v1/health at the port the config listens on.
        let port = c["ports"][0]["containerPort"]
            .as_u64()
            .expect("containerPort");
        assert_eq!(u64::from(config.listen.port()), port, "{deployment}");
        for probe in ["readinessProbe", "livenessProbe"] {
            assert_eq!(
                c[probe]["httpGet"]["path"], "/v1/health",
                "{deployment} {probe}"
            );
            assert_eq!(
                c[probe]["httpGet"]["port"], c["ports"][0]["name"],
                "{deployment} {probe}"
            );
        }
    }
    // The worker: not privileged; the capabilities and profiles docs/deploy.md explains.
    let worker = &find(&docs, "Deployment", "verdict-worker")["spec"]["template"]["spec"]["containers"]
        [0]["securityContext"];
    assert_ne!(worker["privileged"], true);
    assert_eq!(strings(&worker["capabilities"]["drop"]), ["ALL"]);
    let caps = strings(&worker["capabilities"]["add"]);
    for cap in ["SYS_ADMIN", "NET_ADMIN", "SETUID", "SETGID"] {
        assert!(caps.iter().any(|c| c == cap), "the worker lacks {cap}");
    }
    for cap in &caps {
        assert!(
            doc_text.contains(&format!("`CAP_{cap}`")),
            "docs/deploy.md does not explain the worker's {cap}"
        );
    }
    assert_eq!(worker["seccompProfile"]["type"], "Unconfined");
    // The front end: an ordinary user, nothing added, read-only root.
    let front = &find(&docs, "Deployment", "verdict-frontend")["spec"]["template"]["spec"];
    assert_eq!(front["securityContext"]["runAsNonRoot"], true);
    assert_ne!(front["securityContext"]["runAsUser"], 0);
    let fc = &front["containers"][0]["securityContext"];
    assert_eq!(strings(&fc["capabilities"]["drop"]), ["ALL"]);
    assert!(
        fc["capabilities"]["add"].is_null(),
        "the front end adds capabilities"
    );
    assert_eq!(fc["readOnlyRootFilesystem"], true);
    assert_eq!(fc["allowPrivilegeEscalation"], false);
}
