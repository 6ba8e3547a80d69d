#!/bin/sh
# bench.sh runs the Go benchmarks and, when PyTorch is installed, the same
# operations in PyTorch on this machine, so that the ratios can be read side
# by side (absolute times on shared machines are noisy).
set -eu
cd "$(dirname "$0")/.."
go test -run XXX -bench . -benchmem ./pkg/torch/ | tee /tmp/mindtorch-bench.txt
if /usr/bin/python3 -c 'import torch' >/dev/null 2>&1; then
	/usr/bin/python3 scripts/bench_torch.py
else
	echo "bench: PyTorch not installed (MINDTORCH_GOLDEN=1 sh scripts/setup.sh installs it); Go numbers only"
fi
