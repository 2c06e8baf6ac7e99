#!/bin/sh
# Entry point of deploy/Dockerfile. A container that is not privileged gets its cgroups mounted
# read-only; with CAP_SYS_ADMIN this makes them writable, so the sandbox can make its run
# cgroups below the container's own (docs/deploy.md):
# - cgroup v2 (--cgroupns=private): /sys/fs/cgroup is the container's cgroup; the judge moves
#   itself into a leaf and makes the run cgroups beside it.
# - cgroup v1: /sys/fs/cgroup/<controller> are binds of the container's own cgroup in each
#   hierarchy; the judge makes `verdict/` in memory, pids and cpuacct.
# Without CAP_SYS_ADMIN (a front end, which judges nothing) it changes nothing.
set -eu
cg=/sys/fs/cgroup
if [ "$(stat -f -c %T $cg)" = cgroup2fs ]; then
  if ! [ -w $cg/cgroup.procs ]; then
    mount -o remount,rw $cg 2>/dev/null || echo "entrypoint: $cg is read-only" >&2
  fi
else
  for c in memory pids cpuacct; do
    [ -d "$cg/$c" ] && ! [ -w "$cg/$c/cgroup.procs" ] || continue
    mount -o remount,bind,rw "$cg/$c" 2>/dev/null || echo "entrypoint: $cg/$c is read-only" >&2
  done
fi
# The judge's dirs (root's; a front end running as an ordinary user has its data_dir mounted).
if [ "$(id -u)" = 0 ]; then
  mkdir -p /run/verdict /var/lib/verdict/work /var/cache/verdict
fi
exec "$@"
