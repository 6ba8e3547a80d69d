"""Golden data for pkg/nn and pkg/optim: layer initialisation from a seed,
loss values and gradients with their options, and a few optimizer steps of
each optimizer on a small MLP from fixed weights.

Run with Debian's python3-torch (PyTorch 1.13): make golden.
Writes testdata/nn.json.
"""
import json
import os

import torch
import torch.nn.functional as F
from torch import nn

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "nn.json")


def enc(t):
    t = t.detach()
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "data": t.reshape(-1).tolist()}


def init_cases():
    out = {}
    torch.manual_seed(0)
    lin = nn.Linear(5, 3)
    out["linear_5_3"] = [enc(lin.weight), enc(lin.bias)]
    torch.manual_seed(3)
    w = torch.empty(4, 6)
    nn.init.xavier_uniform_(w, gain=2.0)
    out["xavier_uniform_4_6_gain2"] = [enc(w)]
    torch.manual_seed(4)
    w = torch.empty(3, 2, 2)
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    out["kaiming_normal_3_2_2_fan_out_relu"] = [enc(w)]
    torch.manual_seed(5)
    emb = nn.Embedding(4, 3)
    out["embedding_4_3"] = [enc(emb.weight)]
    return out


def loss_cases():
    torch.manual_seed(1)
    logits = torch.randn(6, 4, dtype=torch.float64)
    logits3 = torch.randn(2, 3, 5, dtype=torch.float64)
    target = torch.tensor([0, 3, 1, -100, 2, 3])
    target3 = torch.tensor([[0, 1, 2, 2, 1], [1, 1, 0, 2, -100]])
    weight = torch.tensor([0.5, 2.0, 1.0, 1.5], dtype=torch.float64)
    probs = torch.softmax(torch.randn(6, 4, dtype=torch.float64), 1)
    x, y = torch.randn(3, 4, dtype=torch.float64), torch.randn(3, 4, dtype=torch.float64)
    p = torch.rand(3, 4, dtype=torch.float64) * 0.98 + 0.01
    b = (torch.rand(3, 4) > 0.5).double()
    pw = torch.tensor([1.0, 2.0, 0.5, 3.0], dtype=torch.float64)
    cases = [
        ("cross_entropy", lambda a: F.cross_entropy(a, target), logits, [target]),
        ("cross_entropy_weight_sum", lambda a: F.cross_entropy(a, target, weight=weight, reduction="sum"), logits, [target]),
        ("cross_entropy_weight_mean", lambda a: F.cross_entropy(a, target, weight=weight), logits, [target]),
        ("cross_entropy_smoothing", lambda a: F.cross_entropy(a, target, label_smoothing=0.2), logits, [target]),
        ("cross_entropy_smoothing_weight", lambda a: F.cross_entropy(a, target, weight=weight, label_smoothing=0.1), logits, [target]),
        ("cross_entropy_none", lambda a: F.cross_entropy(a, target, reduction="none"), logits, [target]),
        ("cross_entropy_3d", lambda a: F.cross_entropy(a, target3), logits3, [target3]),
        ("cross_entropy_probs", lambda a: F.cross_entropy(a, probs), logits, [probs]),
        ("cross_entropy_probs_smoothing", lambda a: F.cross_entropy(a, probs, label_smoothing=0.3), logits, [probs]),
        ("nll", lambda a: F.nll_loss(a.log_softmax(1), target), logits, [target]),
        ("mse", lambda a: F.mse_loss(a, y), x, [y]),
        ("mse_sum", lambda a: F.mse_loss(a, y, reduction="sum"), x, [y]),
        ("l1", lambda a: F.l1_loss(a, y), x, [y]),
        ("smooth_l1", lambda a: F.smooth_l1_loss(a, y, beta=0.5), x, [y]),
        ("huber", lambda a: F.huber_loss(a, y, delta=0.7), x, [y]),
        ("bce", lambda a: F.binary_cross_entropy(a, b), p, [b]),
        ("bce_with_logits", lambda a: F.binary_cross_entropy_with_logits(a, b), x, [b]),
        ("bce_with_logits_pos_weight", lambda a: F.binary_cross_entropy_with_logits(a, b, pos_weight=pw), x, [b, pw]),
    ]
    out = []
    for name, f, inp, others in cases:
        a = inp.clone().requires_grad_(True)
        loss = f(a)
        loss.sum().backward()
        out.append({"name": name, "input": enc(inp), "others": [enc(o) for o in others],
                    "loss": enc(loss), "grad": enc(a.grad)})
    return out


def optim_cases():
    torch.manual_seed(2)
    x = torch.randn(16, 4)
    y = torch.randint(0, 3, (16,))
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    start = {k: v.detach().clone() for k, v in model.state_dict().items()}
    configs = [
        ("sgd", lambda ps: torch.optim.SGD(ps, lr=0.1)),
        ("sgd_momentum_nesterov_wd", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3)),
        ("sgd_momentum_dampening", lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.5, dampening=0.1)),
        ("adam", lambda ps: torch.optim.Adam(ps, lr=1e-2)),
        ("adam_wd_amsgrad", lambda ps: torch.optim.Adam(ps, lr=1e-2, weight_decay=1e-3, amsgrad=True)),
        ("adamw", lambda ps: torch.optim.AdamW(ps, lr=1e-2)),
    ]
    out = {"x": enc(x), "y": enc(y), "start": {k: enc(v) for k, v in start.items()}, "runs": []}
    for name, make in configs:
        model.load_state_dict(start)
        opt = make(model.parameters())
        losses = []
        for _ in range(5):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        out["runs"].append({"name": name, "losses": losses,
                            "final": {k: enc(v) for k, v in model.state_dict().items()}})
    return out


def main():
    out = {"torch": torch.__version__, "init": init_cases(), "losses": loss_cases(), "optim": optim_cases()}
    with open(OUT, "w") as f:
        json.dump(out, f)
    print("wrote", os.path.normpath(OUT))


main()
