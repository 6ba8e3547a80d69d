"""Golden gradients of composite expressions (pkg/torch grads_golden_test.go):
an MLP with cross-entropy, softmax with a squared error, a chain that reuses
its inputs, views, in-place ops on tensors and on views, a layer norm,
attention, ties in max/amax, norms and clamps. Each case's Go twin applies
the same ops in the same order.

Run with Debian's python3-torch (PyTorch 1.13): make golden.
Writes testdata/grads.json.
"""
import json
import os

import torch
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "grads.json")
torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


def leaf(*shape):
    return torch.randn(*shape).requires_grad_(True)


def mlp_cross_entropy():
    x, w1, b1, w2, b2 = leaf(8, 5), leaf(5, 6), leaf(6), leaf(6, 3), leaf(3)
    target = torch.randint(0, 3, (8,))
    h = torch.relu(x @ w1 + b1)
    loss = F.cross_entropy(h @ w2 + b2, target)
    return [x, w1, b1, w2, b2], [target], loss


def softmax_squared_error():
    x, y = leaf(4, 5), leaf(4, 5)
    return [x, y], [], ((torch.softmax(x, 1) - y) ** 2).mean()


def reused_inputs():
    a, b = leaf(6), leaf(6)
    out = a * b + torch.exp(a) * a - b / (a * a + 1) + torch.tanh(a).pow(2) * torch.sigmoid(b)
    return [a, b], [], out.sum()


def views():
    x = leaf(3, 4)
    y = x.t().reshape(6, 2)[1:5:2] * x[0, :2]
    z = x.permute(1, 0).unsqueeze(0).expand(2, 4, 3).sum(0)
    w = x.narrow(1, 1, 2).transpose(0, 1).contiguous().view(-1)
    return [x], [], y.sum() + (z * z).sum() + (w * torch.arange(6.0)).sum() + x.select(1, 3).prod()


def inplace_ops():
    x, w = leaf(3, 4), leaf(4)
    h = x * 2
    h.add_(w)
    h.mul_(w)
    h[0].mul_(3)
    h[:, 1].zero_()
    h.sigmoid_()
    return [x, w], [], h.sum() + (h * h).sum()


def copy_into_views():
    x, s = leaf(3, 3), leaf(5)
    buf = torch.zeros(5, 3)
    buf[1:4].copy_(x)
    buf[:, 0].fill_(1)
    buf[:, 2].mul_(s)
    return [x, s], [], (buf * buf.flip(0)).sum()


def layer_norm():
    x, g, b = leaf(4, 6), leaf(6), leaf(6)
    mu = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    y = (x - mu) / torch.sqrt(var + 1e-5) * g + b
    return [x, g, b], [], y.pow(2).mean()


def attention():
    q, k, v = leaf(2, 3, 4), leaf(2, 3, 4), leaf(2, 3, 4)
    a = torch.softmax(q @ k.transpose(-1, -2) / 2, -1) @ v
    return [q, k, v], [], (a * a).sum()


def ties():
    x = torch.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]], requires_grad=True)
    return [x], [], x.amax(1).sum() + x.max(1).values.sum() + x.max() + x.amin(0).sum() + x.min()


def norms():
    x = leaf(3, 4)
    out = x.norm(2, 1).sum() + x.std(0).sum() + x.logsumexp(1).sum() + x.abs().sum() * 0.1 + x.var()
    return [x], [], out


def clamps():
    x, lo = leaf(3, 4), leaf(4)
    y = x.clamp(-0.5, 0.7) + torch.where(x > 0, x * x, -x) + x.masked_fill(x < -1, 0.5)
    y = y + torch.clamp(x, min=lo, max=lo + 1)
    return [x, lo], [], (y * torch.arange(12.0).view(3, 4)).sum()


def cat_gather_scatter():
    a, b = leaf(2, 3), leaf(2, 2)
    c = torch.cat([a, b], 1)
    idx = torch.tensor([[4, 0, 1], [2, 2, 3]])
    g = c.gather(1, idx)
    s = torch.zeros(2, 5).scatter_add(1, idx, g * g)
    t = torch.stack([a, a * 2], 0).sum(0)
    return [a, b], [idx], s.sum() + (t * c[:, :3]).sum() + c.index_select(1, torch.tensor([0, 0, 4])).pow(3).sum()


def sort_cumsum_matmul_1d():
    x, v = leaf(5), leaf(5)
    s, _ = x.sort()
    out = (s * torch.arange(5.0)).sum() + x.cumsum(0).dot(v) + x.cumprod(0).sum()
    m = leaf(5, 5)
    return [x, v, m], [], out + (v @ m @ x) + (m @ x).sum() + (v @ m).pow(2).sum()


CASES = [mlp_cross_entropy, softmax_squared_error, reused_inputs, views, inplace_ops, copy_into_views,
         layer_norm, attention, ties, norms, clamps, cat_gather_scatter, sort_cumsum_matmul_1d]


def enc(t):
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "data": t.detach().reshape(-1).tolist()}


def main():
    out = {"torch": torch.__version__, "cases": []}
    for case in CASES:
        inputs, others, loss = case()
        loss.backward()
        out["cases"].append({
            "name": case.__name__,
            "inputs": [enc(t) for t in inputs],
            "others": [enc(t) for t in others],
            "loss": loss.item(),
            "grads": [enc(t.grad) for t in inputs],
        })
    with open(OUT, "w") as f:
        json.dump(out, f)
    print("wrote", os.path.normpath(OUT))


main()
