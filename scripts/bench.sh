#!/bin/sh
# bench.sh runs the Go benchmarks of pkg/torch and, when PyTorch is
# installed, the same operations in PyTorch, in interleaved rounds
# (MINDTORCH_BENCH_ROUNDS, default 3), and prints the best time of each and
# their ratio. Ratios of interleaved runs are what to read on a shared
# machine; absolute times are noisy.
# MINDTORCH_BENCH selects Go benchmarks (a -test.bench pattern, default all).
# MINDTORCH_BENCH_THREADS=n runs both sides on n threads (GOMAXPROCS for Go,
# torch.set_num_threads for PyTorch); the default is every core.
set -eu
cd "$(dirname "$0")/.."
if [ -n "${MINDTORCH_BENCH_THREADS:-}" ]; then
	export GOMAXPROCS="$MINDTORCH_BENCH_THREADS"
fi
rounds=${MINDTORCH_BENCH_ROUNDS:-3}
pattern=${MINDTORCH_BENCH:-.}
out=${TMPDIR:-/tmp}/mindtorch-bench
mkdir -p "$out"
go test -c -o "$out/torch.test" ./pkg/torch
: >"$out/go.txt"
: >"$out/torch.txt"
torch=no
if /usr/bin/python3 -c 'import torch' >/dev/null 2>&1; then
	torch=yes
else
	echo "bench: PyTorch not installed (MINDTORCH_GOLDEN=1 sh scripts/setup.sh installs it); Go numbers only"
fi
i=1
while [ "$i" -le "$rounds" ]; do
	echo "bench: round $i of $rounds"
	"$out/torch.test" -test.run XXX -test.bench "$pattern" -test.benchmem | tee -a "$out/go.txt"
	if [ "$torch" = yes ]; then
		/usr/bin/python3 scripts/bench_torch.py | tee -a "$out/torch.txt"
	fi
	i=$((i + 1))
done
echo
if [ "$torch" = yes ]; then
	/usr/bin/python3 scripts/bench_compare.py "$out/go.txt" "$out/torch.txt"
fi
