#!/usr/bin/env bash
# The container suite, run by scripts/test.sh: deploy/Dockerfile is built with
# Debian's podman from a base made by mmdebstrap of Debian packages (no image registry), with
# the judge-server and judge binaries cargo already built copied in; then the image judges the
# examples without --privileged, as a standalone server (POST /v1/judge) and as a RabbitMQ
# worker behind a front end (a private broker on loopback, started here as the queue tests do).
# Any wrong report fails this script. docs/deploy.md says what each run flag is for.
#
#   VERDICT_CONTAINER_DIR      cache (the base's tarball, podman's storage; default: cargo's
#                              target dir/container)
#   VERDICT_CONTAINER_BIN_DIR  where judge and judge-server are (default: cargo's dev build)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
step() { echo "== container: $* ($((SECONDS - start)) s)"; }

target="$(bash scripts/target-dir.sh)"
dir="${VERDICT_CONTAINER_DIR:-$target/container}"
bin_dir="${VERDICT_CONTAINER_BIN_DIR:-}"
if [ -z "$bin_dir" ]; then
  # The binaries of the test run (no rebuild after `cargo test` and the client's build).
  cargo build --locked -p verdict-judge-server -p verdict-judge --bins
  bin_dir="$target/debug"
fi
mkdir -p "$dir"

# podman keeps its images and containers in the cache dir, its run-time state under /run.
runroot="/run/verdict-podman-$(printf '%s' "$dir" | sha256sum | cut -c1-12)"
# runc, not crun: crun refuses a hybrid v1 host whose cgroup2 mount has a controller.
podman=(podman --root "$dir/storage" --runroot "$runroot" --storage-driver overlay --runtime runc)

# ---- The base: Debian's packages, by mmdebstrap, cached by what went into it ---------------
# The host's release (the binaries need its glibc) and apt sources; the toolchains of the
# examples judged below.
. /etc/os-release
suite="$VERSION_CODENAME"
sources=()
for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
  [ -s "$f" ] && sources+=("$f")
done
packages="gcc,g++,python3"
key="$({ echo "$suite $packages"; cat "${sources[@]}" 2>/dev/null; } | sha256sum | cut -c1-12)"
base="localhost/verdict-base:$key"
if ! "${podman[@]}" image exists "$base"; then
  tarball="$dir/base-$key.tar"
  if [ ! -f "$tarball" ] || [ ! -s "$tarball" ]; then
    step "mmdebstrap $suite with $packages"
    # (-r: a directory left by an earlier, interrupted or mistaken run goes too.)
    rm -rf "$dir"/base-*.tar "$dir"/base-*.tar.part
    # --format: the output's name ends in .part, which mmdebstrap would read as a directory.
    mmdebstrap --variant=minbase --format=tar --include="$packages" --quiet "$suite" \
      "$tarball.part" "${sources[@]}"
    mv "$tarball.part" "$tarball"
  fi
  step "podman import the base"
  # Older bases go: one is enough.
  "${podman[@]}" images --format '{{.Repository}}:{{.Tag}}' | grep '^localhost/verdict-base:' |
    xargs -r "${podman[@]}" rmi -f >/dev/null 2>&1 || true
  "${podman[@]}" import --quiet "$tarball" "$base" >/dev/null
  rm -f "$tarball"
fi

# ---- The image ----------------------------------------------------------------------------
image="localhost/verdict-test:$$"
work="$(mktemp -d)"
containers=()
rabbit_pid=""
cleanup() {
  set +e
  for c in "${containers[@]}"; do "${podman[@]}" rm -f -t 5 "$c" >/dev/null 2>&1; done
  "${podman[@]}" rmi -f "$image" >/dev/null 2>&1
  "${podman[@]}" image prune -f >/dev/null 2>&1
  if [ -n "$rabbit_pid" ]; then
    kill -- "-$rabbit_pid" 2>/dev/null
    ERL_EPMD_PORT="$epmd_port" epmd -kill >/dev/null 2>&1
  fi
  rm -rf "$work"
}
trap cleanup EXIT
step "build deploy/Dockerfile"
# build-image.sh runs one program as the builder (never split into words: the storage path may
# hold spaces): podman with this suite's options, in a wrapper.
{
  echo '#!/usr/bin/env bash'
  printf 'exec'
  printf ' %q' "${podman[@]}"
  printf ' "$@"\n'
} > "$work/podman"
chmod +x "$work/podman"
VERDICT_BUILDER="$work/podman" bash deploy/build-image.sh --bin-dir "$bin_dir" --tag "$image" \
  -- --quiet --build-arg BASE="$base" --build-arg LANGS= >/dev/null

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# What a judging container gets: the capabilities of deploy/kubernetes/worker.yaml (read from it,
# so the manifest is what was run here), seccomp off for clone3 and the new mount API (the boxes
# get verdict's own filter); not --privileged. docs/deploy.md says what each is for.
caps="$(sed -n 's/^ *add: *\[\(.*\)\] *$/\1/p' deploy/kubernetes/worker.yaml | tr -d ' ')"
[ -n "$caps" ] || { echo "FAILED: no capabilities in deploy/kubernetes/worker.yaml"; exit 1; }
judging=(--cap-drop ALL --cap-add "$caps" --security-opt seccomp=unconfined)
# The front end as deploy/kubernetes/frontend.yaml runs it: an ordinary user, no capability,
# a read-only root, its data_dir a volume of its own.
fronting=(--cap-drop ALL --user 65534:65534 --read-only --tmpfs /var/lib/verdict:rw,mode=1777)
# The host's network: the broker and the servers listen on its loopback. Limits no higher than
# this host lets root set (podman's default open files may exceed them).
limits=(--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit nproc=4096:4096)
run_container() { # name config [podman run args...] (the rest after the image)
  local name="$1" config="$2"
  shift 2
  containers+=("$name")
  "${podman[@]}" run -d --name "$name" --network host "${limits[@]}" \
    -v "$config:/etc/verdict/server.toml:ro" "$@" "$image" >/dev/null
}
wait_health() { # port container: until GET /v1/health says ok (60 s)
  local deadline=$((SECONDS + 60))
  until curl -sf "http://127.0.0.1:$1/v1/health" | grep -q '"status":"ok"'; do
    if [ $SECONDS -ge $deadline ] || [ "$("${podman[@]}" inspect -f '{{.State.Running}}' "$2")" != true ]; then
      echo "FAILED: $2 never became healthy on port $1:"
      "${podman[@]}" logs "$2" 2>&1 | tail -20
      return 1
    fi
    sleep 0.2
  done
}
fail=0
judge_examples() { # port names...: POST each example, compare its statuses with .expected
  local port="$1" name got want
  shift
  for name in "$@"; do
    got="$(curl -sS -H 'Authorization: Bearer container-test' -H 'Content-Type: application/json' \
      --data-binary "@examples/judge/$name.json" "http://127.0.0.1:$port/v1/judge" |
      python3 -c 'import json, sys; print("\n".join(r["status"] for r in json.load(sys.stdin)["results"]))' \
      2>&1)" || true
    want="$(cat "examples/judge/$name.expected")"
    if [ "$got" = "$want" ]; then
      echo "ok   $name"
    else
      echo "FAILED $name: got [$(echo $got)] want [$(echo $want)]"
      fail=1
    fi
  done
}
token_config() {
  printf '[[tokens]]\ntoken = "container-test"\n'
}

# ---- Standalone ---------------------------------------------------------------------------
step "standalone judge-server"
port="$(free_port)"
cat > "$work/standalone.toml" <<EOF
listen = "127.0.0.1:$port"
workers = 2
[judge]
work_dir = "/var/lib/verdict/work"
cache_dir = "/var/cache/verdict"
require_isolation = true
$(token_config)
EOF
run_container verdict-standalone-$$ "$work/standalone.toml" "${judging[@]}"
wait_health "$port" verdict-standalone-$$
level="$("${podman[@]}" exec verdict-standalone-$$ judge sandbox -- /bin/true |
  sed -n 's/.*"isolation": *"\([^"]*\)".*/\1/p')"
echo "isolation in the container: $level"
case "$level" in full-*|rootless-cgroup-v2) ;; *) echo "FAILED: not isolated"; fail=1 ;; esac
judge_examples "$port" aplusb-c aplusb-cpp aplusb-python3 wrong-answer compilation-error \
  runtime-error time-limit-busy memory-limit output-limit fork-bomb hostile-files \
  hostile-network hostile-kill-all

# ---- A worker on RabbitMQ, behind a front end ---------------------------------------------
step "RabbitMQ worker and front end"
rabbit="$work/rabbit"
mkdir -p "$rabbit/mnesia" "$rabbit/log"
echo '[].' > "$rabbit/enabled_plugins"
: > "$rabbit/rabbitmq.conf"
amqp_port="$(free_port)" dist_port="$(free_port)" epmd_port="$(free_port)"
# Its own session: the whole node (and nothing else) is killed at the end.
HOME="$rabbit" RABBITMQ_NODENAME="verdict-ctr-$$@localhost" RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 \
  RABBITMQ_NODE_PORT="$amqp_port" RABBITMQ_DIST_PORT="$dist_port" ERL_EPMD_PORT="$epmd_port" \
  ERL_EPMD_ADDRESS=127.0.0.1 RABBITMQ_MNESIA_BASE="$rabbit/mnesia" RABBITMQ_LOG_BASE="$rabbit/log" \
  RABBITMQ_PID_FILE="$rabbit/pid" RABBITMQ_ENABLED_PLUGINS_FILE="$rabbit/enabled_plugins" \
  RABBITMQ_CONFIG_FILE="$rabbit/rabbitmq.conf" RABBITMQ_ADVANCED_CONFIG_FILE="$rabbit/advanced.config" \
  RABBITMQ_CONF_ENV_FILE="$rabbit/rabbitmq-env.conf" \
  setsid /usr/lib/rabbitmq/bin/rabbitmq-server >"$rabbit/server.out" 2>&1 &
rabbit_pid=$!
# (A loaded machine: 90 s was seen too short with its two cores at load 16.)
deadline=$((SECONDS + 240))
until python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' \
  "$amqp_port" 2>/dev/null; do
  if [ $SECONDS -ge $deadline ] || ! kill -0 "$rabbit_pid" 2>/dev/null; then
    echo "FAILED: rabbitmq-server did not start:"
    tail -20 "$rabbit/server.out"
    exit 1
  fi
  sleep 0.2
done
amqp="amqp://guest:guest@127.0.0.1:$amqp_port/%2f"
worker_port="$(free_port)" front_port="$(free_port)"
cat > "$work/worker.toml" <<EOF
role = "worker"
listen = "127.0.0.1:$worker_port"
workers = 2
[judge]
work_dir = "/var/lib/verdict/work"
cache_dir = "/var/cache/verdict"
require_isolation = true
[amqp]
uri = "$amqp"
$(token_config)
EOF
cat > "$work/frontend.toml" <<EOF
role = "frontend"
listen = "127.0.0.1:$front_port"
data_dir = "/var/lib/verdict/front"
[amqp]
uri = "$amqp"
$(token_config)
EOF
run_container verdict-worker-$$ "$work/worker.toml" "${judging[@]}"
run_container verdict-front-$$ "$work/frontend.toml" "${fronting[@]}"
wait_health "$worker_port" verdict-worker-$$
wait_health "$front_port" verdict-front-$$
judge_examples "$front_port" aplusb-c aplusb-python3 memory-limit hostile-network fork-bomb

step "done"
exit "$fail"
