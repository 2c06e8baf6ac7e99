#!/usr/bin/env bash
# Runs a command on a real cgroup-v2 host made on the spot: a qemu guest (emulated CPU, `-accel
# tcg`) booting Debian's own kernel, with this machine's root filesystem shared read-only over
# 9p, tmpfs on /tmp, /var/tmp and /run, and cgroup2 mounted on /sys/fs/cgroup. The command runs
# as root in the current directory, its output (stdout and stderr, merged) comes back on this
# terminal and its exit status is this script's. Why and how: docs/sandbox.md ("cgroup v2 on a
# v1 host").
#
#   scripts/cgroup2-vm.sh CMD [ARGS...]
#
# Environment:
#   CGROUP2_VM_MEM      guest memory (default 3G)
#   CGROUP2_VM_CPUS     guest CPUs (default 2)
#   CGROUP2_VM_TIMEOUT  seconds before the guest is stopped (default 3000; exit status 124)
#   CGROUP2_VM_CACHE    where the initramfs and each run's exchange directory live
#                       (default cgroup2-vm/ in cargo's target dir; visible to the guest)
#   CGROUP2_VM_KEEP     colon-separated directories the guest must still see although they
#                       lie under /tmp, /var/tmp or /run (the current directory and the cache
#                       are always kept: a checkout under /tmp works)
#   CGROUP2_VM_ENV      space-separated names of variables passed into the guest besides
#                       PATH, HOME, CI, CARGO_TERM_COLOR and VERDICT_* (whose values must not
#                       contain a newline)
#
# Installs qemu-system-x86, linux-image-amd64 and busybox-static when missing (apt, idempotent);
# the initramfs (busybox, the virtio and 9p modules, an init) is built once per kernel version.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -eq 0 ]; then
  echo "usage: $0 CMD [ARGS...]" >&2
  exit 2
fi

# 1. Packages.
missing=""
for pkg in qemu-system-x86 linux-image-amd64 busybox-static; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
  echo "== cgroup2-vm: installing:$missing" >&2
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq -o DPkg::Lock::Timeout=600
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq -o DPkg::Lock::Timeout=600 \
    --no-install-recommends $missing >/dev/null
fi

# 2. The kernel linux-image-amd64 points at.
kver="$(dpkg-query -W -f='${Depends}' linux-image-amd64 | grep -o 'linux-image-[^ ,]*' | head -1)"
kver="${kver#linux-image-}"
kernel="/boot/vmlinuz-$kver"
moddir="/lib/modules/$kver"
if [ ! -r "$kernel" ] || [ ! -f "$moddir/modules.dep" ]; then
  echo "cgroup2-vm: no kernel $kver at $kernel / $moddir" >&2
  exit 2
fi

if [ -z "${CGROUP2_VM_CACHE:-}" ]; then
  # cargo's target dir (CARGO_TARGET_DIR, a config's build.target-dir, or target/ here).
  target="$(bash "$repo/scripts/target-dir.sh" 2>/dev/null)" ||
    target="${CARGO_TARGET_DIR:-$repo/target}"
fi
cache="${CGROUP2_VM_CACHE:-$target/cgroup2-vm}"
mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"

# 3. The initramfs, once per kernel and version of this init (its hash is in the name).
init_script='#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /newroot
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t devtmpfs dev /dev
for m in $(cat /modules.order); do insmod "/modules/$m" || echo "cgroup2-vm: insmod $m failed"; done
o=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o "$o,ro,cache=loose" hostroot /newroot || { echo "cgroup2-vm: cannot mount the host root"; poweroff -f; }
mkdir -p /xchg
mount -t 9p -o "$o" xchg /xchg
# The directories to keep (one per line, parents first) are set aside before the tmpfs
# mounts below would hide them, and put back on top of those.
i=0
while IFS= read -r p; do
  i=$((i + 1))
  if [ -d "/newroot$p" ]; then mkdir -p "/keep/$i" && mount -o bind "/newroot$p" "/keep/$i"; fi
done < /xchg/keep
mount -t proc proc /newroot/proc
mount -t sysfs sys /newroot/sys
mount -t devtmpfs dev /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts devpts /newroot/dev/pts
mount -t tmpfs tmpfs /newroot/dev/shm
for d in /tmp /var/tmp /run; do mount -t tmpfs -o mode=1777 tmpfs "/newroot$d"; done
i=0
while IFS= read -r p; do
  i=$((i + 1))
  if [ -d "/keep/$i" ]; then mkdir -p "/newroot$p" && mount -o bind "/keep/$i" "/newroot$p"; fi
done < /xchg/keep
mount -t cgroup2 none /newroot/sys/fs/cgroup
mkdir -p /newroot/run/cgroup2-vm
mount -o move /xchg /newroot/run/cgroup2-vm
stty -F /dev/console -onlcr 2>/dev/null
# switch_root, not chroot: a chrooted process may not make a user namespace (EPERM), and the
# suite runs a rootless judge.
exec switch_root /newroot /bin/sh /run/cgroup2-vm/stage2.sh
'
stamp="$(printf '%s' "$init_script" | md5sum | cut -c1-12)"
initrd="$cache/initramfs-$kver-$stamp.cpio.gz"
if [ ! -f "$initrd" ]; then
  echo "== cgroup2-vm: building $initrd" >&2
  build="$(mktemp -d "$cache/initramfs.XXXXXX")"
  mkdir -p "$build/bin" "$build/modules"
  cp /bin/busybox "$build/bin/busybox"
  # The modules for 9p over virtio-pci, each after the ones it needs (from modules.dep).
  declare -A seen=()
  order=()
  add() {
    local m="$1" dep
    [ -n "${seen[$m]:-}" ] && return 0
    seen[$m]=1
    for dep in $(grep "^$m:" "$moddir/modules.dep" | cut -d: -f2); do add "$dep"; done
    order+=("$m")
  }
  for want in virtio_pci 9pnet_virtio 9p; do
    add "$(grep -oE "^[^:]*/$want\.ko[^:]*" "$moddir/modules.dep")"
  done
  : > "$build/modules.order"
  for m in "${order[@]}"; do
    cp "$moddir/$m" "$build/modules/"
    basename "$m" >> "$build/modules.order"
  done
  printf '%s' "$init_script" > "$build/init"
  chmod 755 "$build/init"
  (cd "$build" && find . | cpio -o -H newc --quiet | gzip -1) > "$initrd.tmp"
  mv "$initrd.tmp" "$initrd"
  rm -rf "$build"
  # Older initramfs images of this script are stale.
  find "$cache" -maxdepth 1 -name 'initramfs-*.cpio.gz' ! -name "$(basename "$initrd")" -delete
fi

# 4. This run's exchange directory: the command in, the directories to keep, the exit status out.
xchg="$(mktemp -d "$cache/run.XXXXXX")"
trap 'rm -rf "$xchg"' EXIT
{
  printf '%s\n' "$PWD" "$cache"
  IFS=: read -r -a extra <<<"${CGROUP2_VM_KEEP:-}"
  for d in "${extra[@]}"; do
    if [ -d "$d" ]; then (cd "$d" && pwd); fi
  done
} | grep -E '^/(tmp|var/tmp|run)/' | LC_ALL=C sort -u > "$xchg/keep" || true
{
  echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
  for v in HOME CI CARGO_TERM_COLOR ${CGROUP2_VM_ENV:-} $(compgen -e | grep '^VERDICT_' || true); do
    if [ -n "${!v+x}" ]; then printf 'export %s=%q\n' "$v" "${!v}"; fi
  done
  printf 'cd %q || exit 125\n' "$PWD"
  printf 'exec'
  printf ' %q' "$@"
  printf '\n'
} > "$xchg/cmd.sh"
# What the guest's pid 1 runs in the new root: the command, then its exit status out.
cat > "$xchg/stage2.sh" <<'EOF2'
/bin/sh /run/cgroup2-vm/cmd.sh
echo "$?" > /run/cgroup2-vm/rc
echo 0 > /proc/sys/kernel/printk
sync
/bin/busybox poweroff -f
EOF2

set +e
timeout --foreground "${CGROUP2_VM_TIMEOUT:-3000}" qemu-system-x86_64 \
  -accel tcg,thread=multi -cpu max -smp "${CGROUP2_VM_CPUS:-2}" -m "${CGROUP2_VM_MEM:-3G}" \
  -kernel "$kernel" -initrd "$initrd" \
  -append "console=ttyS0 quiet loglevel=1 panic=-1 rdinit=/init" \
  -display none -monitor none -serial stdio -no-reboot \
  -nic none \
  -fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
  -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
  -fsdev local,id=xchg,path="${xchg//,/,,}",security_model=none \
  -device virtio-9p-pci,fsdev=xchg,mount_tag=xchg \
  </dev/null
qemu=$?
set -e
if [ "$qemu" = 124 ]; then
  echo "cgroup2-vm: the guest was stopped after ${CGROUP2_VM_TIMEOUT:-3000} s" >&2
  exit 124
fi
if [ ! -f "$xchg/rc" ]; then
  echo "cgroup2-vm: the guest ended without an exit status (qemu exit $qemu)" >&2
  exit 125
fi
exit "$(cat "$xchg/rc")"
