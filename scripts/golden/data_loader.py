"""Golden data for pkg/data (loader_golden_test.go): the indices of
torch.randperm, torch.utils.data.random_split (lengths and fractions),
RandomSampler (with and without replacement, with an explicit generator
and with the default one after torch.manual_seed), WeightedRandomSampler
(torch.multinomial with and without replacement), and the batches of a
shuffling DataLoader over two epochs, after torch.manual_seed and with an
explicit generator, with the values the generator gives afterwards (to
check that the loader draws what PyTorch's draws).

Run with Debian's python3-torch (PyTorch 1.13): make golden.
Writes testdata/data_loader.json.
"""
import json
import os

import torch
from torch.utils.data import (DataLoader, RandomSampler, TensorDataset,
                              WeightedRandomSampler, random_split)

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "data_loader.json")


def gen(seed):
    return torch.Generator().manual_seed(seed)


def randperm():
    return [{"n": n, "seed": s, "perm": torch.randperm(n, generator=gen(s)).tolist()}
            for n in (0, 1, 2, 3, 10, 11, 100, 1000) for s in (0, 1, 42)]


def splits():
    out = []
    ds = TensorDataset(torch.arange(10))
    for lengths in ([3, 7], [5, 0, 5], [10], [1, 2, 3, 4]):
        parts = random_split(ds, lengths, generator=gen(42))
        out.append({"n": 10, "lengths": lengths, "seed": 42, "indices": [p.indices for p in parts]})
    ds = TensorDataset(torch.arange(11))
    for fractions in ([0.5, 0.5], [0.3, 0.3, 0.4], [0.1, 0.9]):
        parts = random_split(ds, fractions, generator=gen(7))
        out.append({"n": 11, "fractions": fractions, "seed": 7, "indices": [p.indices for p in parts]})
    return out


def random_sampler():
    out = []
    for n, replacement, num in ((10, False, None), (10, False, 25), (7, True, None), (10, True, 70), (5, True, 32)):
        s = RandomSampler(range(n), replacement=replacement, num_samples=num, generator=gen(3))
        epochs = [list(s), list(s)]
        torch.manual_seed(5)
        d = RandomSampler(range(n), replacement=replacement, num_samples=num)
        default = [list(d), list(d)]
        out.append({"n": n, "replacement": replacement, "num_samples": num or 0, "seed": 3,
                    "epochs": epochs, "manual_seed": 5, "default_epochs": default,
                    "after": torch.randint(0, 1000, (4,)).tolist()})
    return out


def weighted():
    out = []
    weights = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6, 0.0, 1.5]
    for num, replacement in ((8, False), (5, False), (1, True), (1, False), (20, True)):
        s = WeightedRandomSampler(weights, num, replacement=replacement, generator=gen(11))
        out.append({"weights": weights, "num_samples": num, "replacement": replacement, "seed": 11,
                    "epochs": [list(s), list(s)]})
    return out


def loader():
    out = []
    for n, batch, drop_last in ((10, 4, False), (10, 4, True), (23, 5, False)):
        ds = TensorDataset(torch.arange(n), torch.arange(n) * 10)
        torch.manual_seed(1)
        dl = DataLoader(ds, batch_size=batch, shuffle=True, drop_last=drop_last)
        default = [[b[0].tolist() for b in dl] for _ in range(2)]
        after = torch.randint(0, 1000, (4,)).tolist()
        g = gen(2)
        dl = DataLoader(ds, batch_size=batch, shuffle=True, drop_last=drop_last, generator=g)
        explicit = [[b[0].tolist() for b in dl] for _ in range(2)]
        out.append({"n": n, "batch_size": batch, "drop_last": drop_last, "manual_seed": 1,
                    "default_epochs": default, "after": after, "seed": 2, "epochs": explicit,
                    "generator_after": torch.randint(0, 1000, (4,), generator=g).tolist()})
    # Sequential: each epoch still draws a base seed from the default generator.
    torch.manual_seed(4)
    dl = DataLoader(TensorDataset(torch.arange(5)), batch_size=2)
    seq = [[b[0].tolist() for b in dl] for _ in range(2)]
    out.append({"n": 5, "batch_size": 2, "drop_last": False, "sequential": True, "manual_seed": 4,
                "default_epochs": seq, "after": torch.randint(0, 1000, (4,)).tolist()})
    return out


def main():
    data = {"randperm": randperm(), "random_split": splits(), "random_sampler": random_sampler(),
            "weighted": weighted(), "loader": loader()}
    with open(OUT, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
