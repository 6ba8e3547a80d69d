#!/bin/sh
# setup.sh makes a fresh Debian or Ubuntu machine ready for `make test` and
# `make demo`: a C compiler (cgo), Go modules, and OpenBLAS (optional: the CPU
# backend falls back to gonum's BLAS without it). Run as root it installs what
# is missing with apt-get; otherwise it says what to install.
set -eu

# have_openblas succeeds when the dynamic loader can find libopenblas.so.0:
# in ldconfig's cache, or else (no ldconfig, or a stale cache) at one of the
# usual paths. The globs stay literal when nothing matches, and -e fails.
have_openblas() {
	for ldconfig in ldconfig /sbin/ldconfig /usr/sbin/ldconfig; do
		if command -v "$ldconfig" >/dev/null 2>&1; then
			if "$ldconfig" -p 2>/dev/null | grep -q 'libopenblas\.so\.0 '; then
				return 0
			fi
			break
		fi
	done
	for lib in /usr/lib/*/libopenblas.so.0 /lib/*/libopenblas.so.0 \
		/usr/lib/libopenblas.so.0 /usr/lib64/libopenblas.so.0 /usr/local/lib/libopenblas.so.0; do
		[ -e "$lib" ] && return 0
	done
	return 1
}

missing=""
command -v gcc >/dev/null 2>&1 || missing="$missing gcc libc6-dev"
have_openblas || missing="$missing libopenblas0-pthread"
if [ "${MINDTORCH_GOLDEN:-0}" = 1 ] && ! /usr/bin/python3 -c 'import torch' >/dev/null 2>&1; then
	missing="$missing python3-torch"
fi

if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "setup: installing$missing"
		DEBIAN_FRONTEND=noninteractive apt-get update -qq
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
	else
		echo "setup: please install:$missing (apt-get install$missing)" >&2
		case "$missing" in *gcc*) exit 1 ;; esac
	fi
fi

command -v go >/dev/null 2>&1 || { echo "setup: Go 1.26 or newer is required" >&2; exit 1; }
go mod download
