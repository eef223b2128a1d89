# Sourced by the Podman end-to-end tests (not a suite itself: no .sh)
# (container.sh, run_multinode_container.sh): Podman with an isolated
# storage in the test's temp folder and the settings docs/run.md gives for
# cgroup-v1 hosts (cgroupfs, runc, no default ulimits; runs add
# --pids-limit 0), and an image built here without a registry:
# busybox-static, the infbench binary and the shared libraries ldd lists,
# imported from a tarball. The caller defines skip() (one "skipped: <reason>"
# line) and $bin.
#   podman_start TMP IMAGE   checks the tools, exports CONTAINERS_CONF and
#                            CONTAINERS_STORAGE_CONF, builds and probes IMAGE,
#                            or calls skip
#   podman_stop TMP          removes every container and image of the
#                            isolated storage and unmounts it
pm() { podman "$@"; }

podman_stop() {
	pm rm -af -t 0 >/dev/null 2>&1
	pm rmi -af >/dev/null 2>&1
	# the overlay mounts of the isolated storage
	grep -o " $1/[^ ]*" /proc/mounts 2>/dev/null | sort -r | while read -r m; do umount "$m" 2>/dev/null; done
}

podman_start() {
	local tmp=$1 image=$2 busybox lib
	command -v podman >/dev/null || skip "podman is not installed (Debian's podman package; make deps)"
	command -v runc >/dev/null || skip "runc is not installed (Debian's runc package; make deps)"
	busybox=$(command -v busybox || true)
	[ -n "$busybox" ] && ldd "$busybox" >/dev/null 2>&1 && busybox=
	[ -n "$busybox" ] || skip "no static busybox (Debian's busybox-static package; make deps)"
	[ "$(id -u)" = 0 ] || skip "rootless podman is not set up here: the test runs podman as root"
	export CONTAINERS_CONF=$tmp/containers.conf CONTAINERS_STORAGE_CONF=$tmp/storage.conf
	cat >"$tmp/containers.conf" <<'CONF'
[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
CONF
	cat >"$tmp/storage.conf" <<CONF
[storage]
driver = "overlay"
runroot = "$tmp/run"
graphroot = "$tmp/graph"
CONF
	# the image: busybox, the binary, its libraries (the runner mounts the
	# binary itself at its host path; the image supplies what it links)
	mkdir -p "$tmp/rootfs/bin" "$tmp/rootfs/tmp" "$tmp/rootfs/usr/local/bin"
	cp "$busybox" "$tmp/rootfs/bin/busybox"
	ln -s busybox "$tmp/rootfs/bin/sh"
	cp "$bin" "$tmp/rootfs/usr/local/bin/infbench"
	for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
		mkdir -p "$tmp/rootfs$(dirname "$lib")"
		cp -L "$lib" "$tmp/rootfs$lib"
	done
	tar -C "$tmp/rootfs" -cf "$tmp/rootfs.tar" . || skip "cannot pack the root file system"
	if ! pm import "$tmp/rootfs.tar" "$image" >"$tmp/import.log" 2>&1; then
		skip "podman cannot import an image here: $(tail -n 1 "$tmp/import.log")"
	fi
	if ! pm run --rm --network host --pids-limit 0 "$image" /bin/busybox true >"$tmp/probe.log" 2>&1; then
		skip "podman cannot start a container here: $(tail -n 1 "$tmp/probe.log")"
	fi
}
