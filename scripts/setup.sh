#!/bin/sh
# setup.sh makes a fresh Debian or Ubuntu machine ready for `make test` and
# `make demo`: a C compiler (cgo), Go modules, and OpenBLAS (optional: the CPU
# backend falls back to gonum's BLAS without it). Run as root it installs what
# is missing with apt-get; otherwise it says what to install.
set -eu

missing=""
command -v gcc >/dev/null 2>&1 || missing="$missing gcc libc6-dev"
if ! ls /usr/lib/*/libopenblas.so.0 /usr/lib/libopenblas.so.0 >/dev/null 2>&1; then
	missing="$missing libopenblas0-pthread"
fi
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

command -v go >/dev/null 2>&1 || { echo "setup: Go 1.24 or newer is required" >&2; exit 1; }
go mod download
