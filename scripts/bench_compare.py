"""Reads Go benchmark output and bench_torch.py output (several rounds of
each, interleaved) and prints, per benchmark, the best time of each side
and their ratio. The best of several interleaved rounds is the figure least
disturbed by the noise of a shared machine.

Usage: bench_compare.py GO_OUTPUT TORCH_OUTPUT
"""
import re
import sys

# Go benchmarks timed against a PyTorch benchmark of another name: a
# released result is what PyTorch does for every result.
SAME_AS = {"PointwiseReleased/": "Pointwise/", "AddBroadcast1024Released": "AddBroadcast1024"}
# A chain run in a pipeline is timed against PyTorch's eager chain.
SAME_AS.update({"ChainReleased/": "Chain/", "Chain/pipeline/": "Chain/eager/"})


def best(path, pattern):
    out = {}
    for line in open(path):
        m = re.match(pattern, line)
        if m:
            name, ns = m.group(1), float(m.group(2))
            out[name] = min(ns, out.get(name, ns))
    return out


def main():
    go = best(sys.argv[1], r"Benchmark(\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op")
    torch = best(sys.argv[2], r"PyTorch(\S+)\s+\d+\s+([\d.]+) ns/op")
    print(f"{'benchmark':40} {'Go':>12} {'PyTorch':>12} {'Go/PyTorch':>10}")
    for name, ns in go.items():
        ref = name
        for k, v in SAME_AS.items():
            ref = ref.replace(k, v)
        t = torch.get(ref)
        ratio = f"{ns / t:10.2f}" if t else f"{'-':>10}"
        ts = f"{t:12.0f}" if t else f"{'-':>12}"
        print(f"{name:40} {ns:12.0f} {ts} {ratio}")


if __name__ == "__main__":
    main()
