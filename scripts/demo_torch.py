"""The training of cmd/demo in PyTorch, for comparing accuracy and time per
step on the same machine (2 threads): MLP 64-128-10, Adam lr 3e-3, batch 64."""
import gzip
import os
import time

import torch
from torch import nn

torch.set_num_threads(2)
torch.manual_seed(0)
path = os.path.join(os.path.dirname(__file__), "..", "internal", "digits", "digits.csv.gz")
rows = [list(map(float, line.split(","))) for line in gzip.open(path, "rt")]
data = torch.tensor(rows)
x, y = data[:, :64] / 16, data[:, 64].long()
perm = torch.randperm(len(y))
n_test = len(y) // 5
tx, ty, vx, vy = x[perm[n_test:]], y[perm[n_test:]], x[perm[:n_test]], y[perm[:n_test]]
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
steps, start = 0, time.perf_counter()
for epoch in range(30):
    order = torch.randperm(len(ty))
    for at in range(0, len(ty), 64):
        idx = order[at:at + 64]
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(tx[idx]), ty[idx])
        loss.backward()
        opt.step()
        loss.item()
        steps += 1
elapsed = time.perf_counter() - start
with torch.no_grad():
    acc = (model(vx).argmax(1) == vy).float().mean().item()
print(f"PyTorch {torch.__version__}: held-out accuracy {100 * acc:.1f}%; {steps} steps, {elapsed / steps * 1e6:.0f} us per step")
