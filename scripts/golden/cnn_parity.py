"""Golden data for examples/cnn's parity test: the example's CNN on the UCI
digits (internal/digits/digits.csv.gz), trained by PyTorch for 30 steps of SGD
with momentum (under a StepLR schedule) and, from the same start, 30 steps
of Adam, on 30 fixed batches.

The model is examples/cnn's: Conv2d(1, 16, 3, padding=1), BatchNorm2d(16),
ReLU, MaxPool2d(2), Conv2d(16, 32, 3, padding=1), ReLU,
AdaptiveAvgPool2d(1), Flatten, Dropout, Linear(32, 10). BatchNorm trains
(batch statistics); Dropout is put in evaluation mode so that no random
mask separates the two libraries.

testdata/cnn_parity.safetensors holds the initial state dict (keys as the
Go model's StateDict keys, float32) and the batches under "inputs"
[steps, batch, 1, 8, 8] (float32) and "targets" [steps, batch] (int64),
written by hand from the format's definition (no safetensors package).
testdata/cnn_parity.json holds the hyperparameters and PyTorch's loss at
every step for each optimizer, computed in float32 and, from the same
values cast, in float64.

Run with Debian's python3-torch (PyTorch 1.13):
    /usr/bin/python3 scripts/golden/cnn_parity.py
"""
import csv
import gzip
import json
import os
import struct

import torch
from torch import nn

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
DIGITS = os.path.join(ROOT, "internal", "digits", "digits.csv.gz")
OUT = os.path.join(ROOT, "testdata", "cnn_parity")

STEPS = 30
BATCH = 16
SGD = {"lr": 0.05, "momentum": 0.9, "step_size": 10, "gamma": 0.5}
ADAM = {"lr": 0.003}
NAMES = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64"}


def model():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Dropout(0.25), nn.Linear(32, 10))


def digits(n):
    xs, ys = [], []
    with gzip.open(DIGITS, "rt") as f:
        for row in csv.reader(f):
            xs.append([float(v) / 16 for v in row[:64]])
            ys.append(int(row[64]))
            if len(ys) == n:
                break
    return torch.tensor(xs, dtype=torch.float32), torch.tensor(ys, dtype=torch.int64)


def train(init, inputs, targets, dtype, which):
    m = model().to(dtype)
    m.load_state_dict({k: (v.to(dtype) if v.is_floating_point() else v) for k, v in init.items()})
    m.train()
    m[8].eval()
    sched = None
    if which == "sgd":
        opt = torch.optim.SGD(m.parameters(), lr=SGD["lr"], momentum=SGD["momentum"])
        sched = torch.optim.lr_scheduler.StepLR(opt, SGD["step_size"], gamma=SGD["gamma"])
    else:
        opt = torch.optim.Adam(m.parameters(), lr=ADAM["lr"])
    losses = []
    for x, y in zip(inputs.to(dtype), targets):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()
        losses.append(loss.item())
    return losses


def write(path, tensors, metadata):
    header, data = {"__metadata__": metadata}, b""
    for name, t in sorted(tensors.items(), key=lambda kv: (-kv[1].element_size(), kv[0])):
        b = t.contiguous().reshape(-1).numpy().tobytes()
        header[name] = {"dtype": NAMES[t.dtype], "shape": list(t.shape), "data_offsets": [len(data), len(data) + len(b)]}
        data += b
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)


def main():
    torch.manual_seed(0)
    init = {k: v.detach().clone() for k, v in model().state_dict().items()}
    x, y = digits(STEPS * BATCH)
    inputs = x.reshape(STEPS, BATCH, 1, 8, 8)
    targets = y.reshape(STEPS, BATCH)
    golden = {
        "steps": STEPS, "batch": BATCH, "sgd_settings": SGD, "adam_settings": ADAM,
        "torch": torch.__version__,
        "float32": {"sgd": train(init, inputs, targets, torch.float32, "sgd"),
                    "adam": train(init, inputs, targets, torch.float32, "adam")},
        "float64": {"sgd": train(init, inputs, targets, torch.float64, "sgd"),
                    "adam": train(init, inputs, targets, torch.float64, "adam")},
    }
    tensors = dict(init)
    tensors["inputs"], tensors["targets"] = inputs, targets
    write(OUT + ".safetensors", tensors, {"source": "scripts/golden/cnn_parity.py", "torch": torch.__version__})
    with open(OUT + ".json", "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")
    print("wrote", os.path.normpath(OUT) + ".{safetensors,json}")


main()
