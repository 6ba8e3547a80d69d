#!/bin/sh
# bench.sh runs the benchmarks of `make bench`: pkg/torch's Go benchmarks
# and internal/benchsuite's cases (each left to the garbage collector,
# released, and written with Into), and, when PyTorch is installed, their
# twins in scripts/bench_torch.py and scripts/bench_suite_torch.py, Go and
# PyTorch alternating in rounds, on 1 and on 2 threads. It measures the
# machine's limits (scripts/bench_limits.c: a memory triad and OpenBLAS's
# sgemm called directly) and writes docs/BENCHMARKS.md with
# scripts/bench_report.py, which also checks that both sides computed the
# same results.
#
# Environment:
#   MINDTORCH_BENCH_ROUNDS   rounds per thread count (default 3)
#   MINDTORCH_BENCH_THREADS  thread counts (default "1 2"; GOMAXPROCS for Go,
#                            torch.set_num_threads and OPENBLAS_NUM_THREADS)
#   MINDTORCH_BENCH          a pattern selecting cases by name without
#                            "Benchmark" (default all)
#   MINDTORCH_BENCH_QUICK=1  a smoke test: one round, a few iterations per
#                            case; the report goes to the output directory,
#                            not docs/
#   MINDTORCH_BENCH_OUT      output directory (default $TMPDIR/mindtorch-bench)
set -eu
cd "$(dirname "$0")/.."
quick=${MINDTORCH_BENCH_QUICK:-0}
rounds=${MINDTORCH_BENCH_ROUNDS:-3}
benchtime=1s
if [ "$quick" = 1 ]; then
	rounds=1
	benchtime=3x
fi
threads=${MINDTORCH_BENCH_THREADS:-1 2}
pattern=${MINDTORCH_BENCH:-.}
# Go matches the pattern against names that begin with "Benchmark".
gopattern=$(printf '%s' "$pattern" | sed 's/^\^/^Benchmark/')
out=${MINDTORCH_BENCH_OUT:-${TMPDIR:-/tmp}/mindtorch-bench}
mkdir -p "$out"
rm -f "$out"/go-*.txt "$out"/torch-*.txt "$out"/limits-*.txt
go test -c -o "$out/torch.test" ./pkg/torch
go test -c -o "$out/suite.test" ./internal/benchsuite
torch=no
if /usr/bin/python3 -c 'import torch' >/dev/null 2>&1; then
	torch=yes
else
	echo "bench: PyTorch not installed (MINDTORCH_GOLDEN=1 sh scripts/setup.sh installs it); Go numbers only"
fi
limits=no
if cc -O2 -march=native -pthread -o "$out/limits" scripts/bench_limits.c -ldl 2>/dev/null ||
	cc -O2 -pthread -o "$out/limits" scripts/bench_limits.c -ldl 2>/dev/null; then
	limits=yes
fi
{
	echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)"
	echo "cores: $(nproc)"
	echo "os: $(uname -sr)"
	echo "go: $(go version)"
	echo "blas: $(ldconfig -p 2>/dev/null | grep -m 1 'libopenblas.so.0' | sed 's/.*=> //')"
	if [ "$torch" = yes ]; then
		/usr/bin/python3 -c 'import torch; c = torch.__config__.show(); print("pytorch:", torch.__version__); print("pytorch blas:", ([l.split("=", 1)[1] for l in c.split(",") if "BLAS_INFO" in l] or ["?"])[0].strip())'
	fi
} >"$out/machine.txt"
for t in $threads; do
	if [ "$limits" = yes ]; then
		"$out/limits" "$t" | tee "$out/limits-$t.txt"
	fi
	i=1
	while [ "$i" -le "$rounds" ]; do
		echo "bench: $t thread(s), round $i of $rounds"
		for bin in torch suite; do
			GOMAXPROCS=$t "$out/$bin.test" -test.run XXX -test.bench "$gopattern" -test.benchtime "$benchtime" -test.benchmem |
				tee -a "$out/go-$t.txt"
		done
		if [ "$torch" = yes ]; then
			for py in bench_torch.py bench_suite_torch.py; do
				MINDTORCH_BENCH_THREADS=$t MINDTORCH_BENCH="$pattern" /usr/bin/python3 "scripts/$py" |
					tee -a "$out/torch-$t.txt"
			done
		fi
		i=$((i + 1))
	done
done
report=docs/BENCHMARKS.md
if [ "$quick" = 1 ] || [ "$pattern" != . ] || [ "$torch" = no ]; then
	report=$out/BENCHMARKS.md
fi
if command -v python3 >/dev/null 2>&1; then
	python3 scripts/bench_report.py "$out" $threads >"$report"
	echo "bench: report written to $report"
fi
