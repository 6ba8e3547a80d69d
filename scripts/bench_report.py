"""Writes docs/BENCHMARKS.md (to stdout) from the output directory of
scripts/bench.sh: per thread count, every Go benchmark beside its PyTorch
twin, with the best and worst time of each across rounds, the ratio of the
best times and the range of the per-round ratios, whether both sides
computed the same result (checksums within 1e-3), the machine, and its
limits measured by scripts/bench_limits.c.

Usage: bench_report.py OUTPUT_DIR THREADS...
"""
import os
import re
import sys

# Go benchmarks timed against a PyTorch benchmark of another name.
SAME_AS = {"PointwiseReleased/": "Pointwise/", "AddBroadcast1024Released": "AddBroadcast1024",
           "Chain/pipeline/": "Chain/eager/", "ChainSoftmax/pipeline/": "ChainSoftmax/eager/"}
LINE = re.compile(r"(?:Benchmark|PyTorch|Limit)(\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(.*)")
METRIC = re.compile(r"([\d.]+) (p50-ns|p99-ns|GB/s|GFLOP/s)")


def read(path):
    """Times (lists in round order), extra metrics and checksums of a file."""
    times, metrics, sums = {}, {}, {}
    if not os.path.exists(path):
        return times, metrics, sums
    for line in open(path):
        if line.startswith("checksum "):
            _, name, v = line.split()
            sums[name] = float(v)
            continue
        m = LINE.match(line)
        if not m:
            continue
        name = m.group(1)
        times.setdefault(name, []).append(float(m.group(2)))
        for v, unit in METRIC.findall(m.group(3)):
            metrics.setdefault((name, unit), []).append(float(v))
    return times, metrics, sums


def twin(name):
    """The PyTorch benchmark a Go benchmark is timed against, and the case
    whose checksum it shares."""
    for mode, suffix in (("/gc", ""), ("/released", ""), ("/tidy", ""), ("/into", "/out")):
        if name.endswith(mode):
            base = name[: -len(mode)]
            return base + suffix, base
    for k, v in SAME_AS.items():
        name = name.replace(k, v)
    return name, None


def fmt_ns(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def check(go_sums, torch_sums, case):
    if case is None:
        return ""
    g, t = go_sums.get("Benchmark" + case), torch_sums.get("Benchmark" + case)
    if g is None or t is None:
        return "-"
    return "ok" if abs(g - t) <= 1e-3 * max(abs(g), abs(t), 1e-30) else f"**differs** ({g:.6g} vs {t:.6g})"


def table(d, threads):
    go, go_m, go_sums = read(os.path.join(d, f"go-{threads}.txt"))
    torch, torch_m, torch_sums = read(os.path.join(d, f"torch-{threads}.txt"))
    rows = [f"### {threads} thread{'s' if threads != '1' else ''}", "",
            "| benchmark | Go best | Go worst | PyTorch best | PyTorch worst | Go/PyTorch | per round | same result |",
            "|---|---:|---:|---:|---:|---:|---:|---|"]
    for name, ts in go.items():
        ref, case = twin(name)
        series = [(name, ts, torch.get(ref))]
        for unit in ("p50-ns", "p99-ns"):
            if (name, unit) in go_m:
                series.append((f"{name} {unit[:3]}", go_m[(name, unit)], torch_m.get((ref, unit))))
        for label, g, t in series:
            if t:
                per = [a / b for a, b in zip(g, t)]
                ratio, rng = f"**{min(g) / min(t):.2f}x**", f"{min(per):.2f}-{max(per):.2f}x"
                tb, tw = fmt_ns(min(t)), fmt_ns(max(t))
            else:
                ratio = rng = tb = tw = "-"
            rows.append(f"| {label} | {fmt_ns(min(g))} | {fmt_ns(max(g))} | {tb} | {tw} | {ratio} | {rng} | "
                        f"{check(go_sums, torch_sums, case) if label == name else ''} |")
    return rows


def limits(d, thread_counts):
    rows = ["| limit | threads | time | rate |", "|---|---:|---:|---:|"]
    for t in thread_counts:
        p = os.path.join(d, f"limits-{t}.txt")
        if not os.path.exists(p):
            continue
        for line in open(p):
            m = LINE.match(line)
            if m:
                rate = METRIC.search(m.group(3))
                rows.append(f"| {m.group(1)} | {t} | {fmt_ns(float(m.group(2)))} | "
                            f"{rate.group(1) + ' ' + rate.group(2) if rate else ''} |")
    return rows if len(rows) > 2 else ["(no C compiler found: limits not measured)"]


def main():
    d, thread_counts = sys.argv[1], sys.argv[2:] or ["1", "2"]
    machine = open(os.path.join(d, "machine.txt")).read().strip().splitlines()
    out = ["# Benchmarks", "",
           "Written by `make bench` (scripts/bench.sh, then scripts/bench_report.py); do not edit by hand.", "",
           "MindTorch for Go beside PyTorch 1.13 on the same machine, Go and PyTorch alternating in rounds. "
           "*Go best* and *Go worst* are the best and worst time per op across rounds (likewise for PyTorch); "
           "*Go/PyTorch* is the ratio of the best times (below 1 is faster than PyTorch), *per round* the range "
           "of the ratios of times taken in the same round. *same result* compares the checksum "
           "(sum of magnitudes) of one result per case computed by each side, within 1e-3.", "",
           "Modes of the cases of internal/benchsuite: `gc` leaves every result to the garbage collector "
           "(Go code as usually written, nothing released by hand), `released` calls `Release` on each tensor "
           "as soon as it is dead (what PyTorch does when the last reference goes), `tidy` runs each step inside `torch.Tidy`, which "
           "releases what the step made (TensorFlow.js's tf.tidy), `into` writes into one tensor with `torch.Into` "
           "(PyTorch's `out=`, timed against `out=`). The older benchmarks of pkg/torch: `Pointwise` leaves "
           "results to the collector, `PointwiseReleased` releases them, `PointwiseOut` writes with `Into`.", "",
           "## Reproduce", "", "```sh",
           "make bench                       # PyTorch too when installed (MINDTORCH_GOLDEN=1 sh scripts/setup.sh)",
           "MINDTORCH_BENCH_ROUNDS=5 make bench",
           "MINDTORCH_BENCH_THREADS=1 MINDTORCH_BENCH='Add|Train' sh scripts/bench.sh  # a selection; report in $TMPDIR",
           "MINDTORCH_BENCH_QUICK=1 sh scripts/bench.sh   # smoke test", "```", "",
           "## Machine", ""]
    out += [f"- {line}" for line in machine]
    out += ["", "## Limits of the machine", "",
            "scripts/bench_limits.c: a triad a = b + 3c over 16M floats (192 MiB moved) and OpenBLAS's "
            "sgemm on 2048x2048 called directly: no library can beat these.", ""]
    out += limits(d, thread_counts)
    for t in thread_counts:
        out += [""] + table(d, t)
    print("\n".join(out))


if __name__ == "__main__":
    main()
