#!/bin/sh
# Entry point of deploy/Dockerfile. Docker mounts the container's cgroup2 tree read-only unless
# the container is privileged; with CAP_SYS_ADMIN it can be made writable here. The container's
# cgroup namespace (--cgroupns=private) is then the judge's delegated subtree: it moves itself
# into a leaf and makes the run cgroups beside it (docs/deploy.md).
set -eu
if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] && ! [ -w /sys/fs/cgroup/cgroup.procs ]; then
  mount -o remount,rw /sys/fs/cgroup || echo "entrypoint: /sys/fs/cgroup is read-only" >&2
fi
mkdir -p /run/verdict /var/lib/verdict/work /var/cache/verdict
exec "$@"
