"""PyTorch's side of the convolution benchmarks (pkg/nn/conv_bench_test.go,
examples/cnn/bench_test.go): the same shapes and the same CNN epoch, timed
as medians of several runs.

    python3 scripts/bench_conv.py --threads 1
"""
import argparse
import os
import statistics
import time

ARGS = argparse.ArgumentParser()
ARGS.add_argument("--threads", type=int, default=1)
ARGS.add_argument("--runs", type=int, default=7)
# torch.set_num_threads does not reach OpenBLAS (the Linear layers' matmul
# in this build): its thread count is read from the environment at load.
os.environ["OPENBLAS_NUM_THREADS"] = str(ARGS.parse_known_args()[0].threads)
import torch  # noqa: E402
from torch import nn  # noqa: E402


def median_time(fn, runs, warmup=2):
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def conv_fwd_bwd(cin, cout, x):
    c = nn.Conv2d(cin, cout, 3)
    x = x.requires_grad_(True)

    def step():
        y = c(x)
        y.sum().backward()
    return step


def conv_fwd(cin, cout, x):
    c = nn.Conv2d(cin, cout, 3)

    def step():
        with torch.no_grad():
            c(x)
    return step


def cnn_epoch():
    # The network of examples/cnn on 1437 random 8x8 digits (the data do
    # not change the time), batches of 32, shuffled.
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(1, -1),
        nn.Dropout(0.25), nn.Linear(32, 10))
    x = torch.rand(1437, 1, 8, 8) * 16
    y = torch.randint(0, 10, (1437,))
    ds = torch.utils.data.TensorDataset(x, y)
    loader = torch.utils.data.DataLoader(ds, batch_size=32, shuffle=True,
                                         generator=torch.Generator().manual_seed(0))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    def epoch():
        total = 0.0
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.item() * yb.shape[0]
        return total
    return epoch


def main():
    args = ARGS.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    cases = [
        ("Conv2dMNIST (64x1x28x28 -> 32, fwd+bwd)", conv_fwd_bwd(1, 32, torch.randn(64, 1, 28, 28)), args.runs * 3),
        ("Conv2dForward (32x64x56x56 -> 64, fwd)", conv_fwd(64, 64, torch.randn(32, 64, 56, 56)), args.runs),
        ("Conv2dForwardBackward (32x64x56x56 -> 64)", conv_fwd_bwd(64, 64, torch.randn(32, 64, 56, 56)), args.runs),
        ("CNN epoch (examples/cnn)", cnn_epoch(), args.runs),
    ]
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    for name, fn, runs in cases:
        print(f"{name:45s} {median_time(fn, runs) * 1e3:10.2f} ms")


if __name__ == "__main__":
    main()
