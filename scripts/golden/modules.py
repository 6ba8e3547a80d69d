"""Golden data for pkg/nn's module system: the names and shapes of
named_parameters, named_buffers, state_dict and named_modules of nested
models, their repr, the repr of every activation module, load_state_dict's
error messages, and how train/eval propagate.

Run with Debian's python3-torch (PyTorch 1.13): make golden.
Writes testdata/modules.json.
"""
import json
import os

import torch
from torch import nn

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "modules.json")


class Residual(nn.Module):
    """A residual MLP block: a parameter of its own, two Linears, a buffer."""

    def __init__(self, dim):
        super().__init__()
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(2 * dim, dim, bias=False)
        self.drop = nn.Dropout(0.1)
        self.scale = nn.Parameter(torch.ones(dim))
        self.register_buffer("steps", torch.zeros((), dtype=torch.int64))


class Encoder(nn.Module):
    """Submodules, a ModuleList of custom blocks, and buffers."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.layers = nn.ModuleList([Residual(4), Residual(4)])
        self.norm = nn.LayerNorm(4)
        self.head = nn.Sequential(nn.Linear(4, 3), nn.Tanh())
        self.register_buffer("position", torch.zeros(6, 4))
        self.register_buffer("mask", torch.ones(6), persistent=False)


class WithParams(nn.Module):
    """A ParameterList and a ParameterDict beside a Linear."""

    def __init__(self):
        super().__init__()
        self.params = nn.ParameterList([nn.Parameter(torch.ones(3, 4)), nn.Parameter(torch.zeros(5, dtype=torch.float64)),
                                        nn.Parameter(torch.tensor(2.0))])
        self.table = nn.ParameterDict({"b": nn.Parameter(torch.ones(2, 3)), "a": nn.Parameter(torch.ones(4, dtype=torch.float64))})
        self.proj = nn.Linear(2, 2)


def models():
    torch.manual_seed(0)
    shared = nn.Linear(2, 2)
    return {
        "seq_of_seq": nn.Sequential(
            nn.Sequential(nn.Linear(4, 3), nn.ReLU()),
            nn.Sequential(nn.Linear(3, 2), nn.Dropout(0.25)),
            nn.LayerNorm(2),
        ),
        "module_list": nn.ModuleList([nn.Linear(2, 3), nn.ModuleList([nn.Linear(3, 3, bias=False)]), nn.SiLU()]),
        "module_dict": nn.ModuleDict({"proj": nn.Linear(2, 3), "embed": nn.Embedding(5, 2), "act": nn.LeakyReLU(0.2)}),
        "encoder": Encoder(),
        "shared": nn.Sequential(shared, nn.ReLU(), shared),
        "layer_norm_no_affine": nn.LayerNorm([2, 3], elementwise_affine=False),
        "with_params": WithParams(),
        "param_containers_nested": nn.ModuleList([nn.ParameterList([nn.Parameter(torch.ones(1))]),
                                                  nn.ParameterDict({"x": nn.Parameter(torch.ones(2, 2))}),
                                                  nn.ParameterList(), nn.ParameterDict()]),
        "sequential_pool_indices": nn.Sequential(nn.Conv2d(1, 2, 3), nn.MaxPool2d(2, return_indices=True),
                                                 nn.MaxPool1d(3, stride=2, return_indices=True)),
    }


def shapes(items):
    return [{"name": k, "shape": list(v.shape)} for k, v in items]


def describe(m):
    return {
        "parameters": shapes(m.named_parameters()),
        "buffers": shapes(m.named_buffers()),
        "state_dict": shapes(m.state_dict().items()),
        "modules": [k for k, _ in m.named_modules()],
        "children": [k for k, _ in m.named_children()],
        "repr": repr(m),
    }


def activations():
    mods = {
        "ReLU": nn.ReLU(), "GELU": nn.GELU(), "GELU_tanh": nn.GELU(approximate="tanh"), "SiLU": nn.SiLU(),
        "Sigmoid": nn.Sigmoid(), "Tanh": nn.Tanh(), "LeakyReLU": nn.LeakyReLU(), "LeakyReLU_0.2": nn.LeakyReLU(0.2),
        "ELU": nn.ELU(), "ELU_0.5": nn.ELU(0.5), "SELU": nn.SELU(), "CELU": nn.CELU(), "CELU_2": nn.CELU(2.0),
        "Hardtanh": nn.Hardtanh(), "Hardtanh_-2_3": nn.Hardtanh(-2.0, 3.0), "Hardswish": nn.Hardswish(),
        "Hardsigmoid": nn.Hardsigmoid(), "Mish": nn.Mish(), "Softplus": nn.Softplus(),
        "Softplus_2_10": nn.Softplus(2, 10), "Softplus_0.5_15.5": nn.Softplus(0.5, 15.5),
        "LogSigmoid": nn.LogSigmoid(), "Softsign": nn.Softsign(), "Identity": nn.Identity(), "Flatten": nn.Flatten(),
        "Flatten_0_1": nn.Flatten(0, 1), "Unflatten": nn.Unflatten(1, (2, 5)), "Softmax": nn.Softmax(dim=1),
        "LogSoftmax": nn.LogSoftmax(dim=-1), "Dropout": nn.Dropout(0.5), "Linear_nobias": nn.Linear(3, 2, bias=False),
        "LayerNorm_eps": nn.LayerNorm(5, eps=1e-3), "Embedding": nn.Embedding(7, 3),
    }
    torch.manual_seed(1)
    x = torch.randn(2, 10)
    out = []
    for name, m in mods.items():
        case = {"name": name, "repr": repr(m)}
        if name not in ("Dropout", "Linear_nobias", "LayerNorm_eps", "Embedding"):
            y = m(x)
            case["input"] = x.reshape(-1).tolist()
            case["output"] = y.reshape(-1).tolist()
            case["output_shape"] = list(y.shape)
        out.append(case)
    return out


def reprs():
    """The repr of every layer of pkg/nn, with its options: one table,
    which pkg/nn's TestReprsMatchPyTorch compares String() with."""
    mods = {
        "Linear": nn.Linear(4, 3), "Linear_nobias": nn.Linear(3, 2, bias=False),
        "Conv2d": nn.Conv2d(3, 8, 3),
        "Conv2d_options": nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0), dilation=2, groups=2, bias=False),
        "Conv2d_same_reflect": nn.Conv2d(3, 4, (2, 4), padding="same", padding_mode="reflect", dilation=(1, 2)),
        "Conv2d_same": nn.Conv2d(3, 4, 3, padding="same"),
        "Conv2d_valid_circular": nn.Conv2d(3, 4, 3, padding="valid", padding_mode="circular"),
        "Conv2d_replicate": nn.Conv2d(2, 4, 3, padding=1, padding_mode="replicate"),
        "Conv1d": nn.Conv1d(3, 2, 4, padding="same", bias=False),
        "Conv1d_circular": nn.Conv1d(3, 4, 3, stride=2, padding=2, padding_mode="circular"),
        "Conv1d_same_replicate": nn.Conv1d(2, 2, 4, padding="same", padding_mode="replicate", dilation=2),
        "ConvTranspose2d": nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, bias=False),
        "ConvTranspose2d_dilation": nn.ConvTranspose2d(4, 6, (2, 3), dilation=2),
        "ConvTranspose1d": nn.ConvTranspose1d(4, 6, 3),
        "MaxPool2d": nn.MaxPool2d(2),
        "MaxPool2d_options": nn.MaxPool2d((3, 2), stride=(2, 1), padding=1, dilation=2, ceil_mode=True),
        "MaxPool2d_indices": nn.MaxPool2d(2, return_indices=True),
        "MaxPool1d": nn.MaxPool1d(3),
        "MaxPool1d_indices": nn.MaxPool1d(3, stride=2, ceil_mode=True, return_indices=True),
        "AvgPool2d": nn.AvgPool2d(2), "AvgPool2d_options": nn.AvgPool2d((3, 2), stride=1, padding=(1, 0)),
        "AvgPool1d": nn.AvgPool1d(3, stride=2, padding=1),
        "AdaptiveAvgPool2d": nn.AdaptiveAvgPool2d((1, 1)), "AdaptiveAvgPool2d_int": nn.AdaptiveAvgPool2d(3),
        "AdaptiveMaxPool2d": nn.AdaptiveMaxPool2d((2, 3)),
        "BatchNorm1d": nn.BatchNorm1d(3), "BatchNorm2d": nn.BatchNorm2d(4, affine=False, track_running_stats=False),
        "BatchNorm2d_momentum": nn.BatchNorm2d(4, eps=1e-3, momentum=None),
        "InstanceNorm1d": nn.InstanceNorm1d(3),
        "InstanceNorm2d": nn.InstanceNorm2d(3, eps=1e-3, momentum=0.2, affine=True, track_running_stats=True),
        "GroupNorm": nn.GroupNorm(2, 4), "GroupNorm_options": nn.GroupNorm(2, 4, eps=1e-3, affine=False),
        "LayerNorm": nn.LayerNorm(4), "LayerNorm_options": nn.LayerNorm([2, 3], eps=1e-3, elementwise_affine=False),
        "Embedding": nn.Embedding(10, 3), "Embedding_options": nn.Embedding(10, 3, padding_idx=0, max_norm=1.0),
        "EmbeddingBag": nn.EmbeddingBag(4, 2), "EmbeddingBag_max": nn.EmbeddingBag(4, 2, mode="max"),
        "Dropout": nn.Dropout(0.25), "Dropout2d": nn.Dropout2d(0.5),
        "PReLU": nn.PReLU(), "PReLU_3": nn.PReLU(3), "GLU": nn.GLU(), "GLU_1": nn.GLU(dim=1),
        "Upsample": nn.Upsample(scale_factor=2, mode="bicubic", align_corners=True),
        "Upsample_size": nn.Upsample(size=(4, 5), mode="bilinear"), "Upsample_area": nn.Upsample(size=4, mode="area"),
        "ReLU": nn.ReLU(), "ReLU6": nn.ReLU6(), "GELU": nn.GELU(), "GELU_tanh": nn.GELU(approximate="tanh"), "SiLU": nn.SiLU(),
        "Sigmoid": nn.Sigmoid(), "Tanh": nn.Tanh(), "LeakyReLU": nn.LeakyReLU(0.2), "ELU": nn.ELU(0.5), "SELU": nn.SELU(),
        "CELU": nn.CELU(2.0), "Hardtanh": nn.Hardtanh(-2.0, 3.0), "Hardswish": nn.Hardswish(), "Hardsigmoid": nn.Hardsigmoid(),
        "Mish": nn.Mish(), "Softplus": nn.Softplus(2, 10), "LogSigmoid": nn.LogSigmoid(), "Softsign": nn.Softsign(),
        "Identity": nn.Identity(), "Flatten": nn.Flatten(), "Unflatten": nn.Unflatten(1, (2, 5)),
        "Softmax": nn.Softmax(dim=1), "LogSoftmax": nn.LogSoftmax(dim=-1),
        "ParameterList": nn.ParameterList([nn.Parameter(torch.ones(3, 4)), nn.Parameter(torch.ones(2, dtype=torch.float64))]),
        "ParameterDict": nn.ParameterDict({"w": nn.Parameter(torch.ones(3)), "b": nn.Parameter(torch.ones((), dtype=torch.float64))}),
        "Sequential": nn.Sequential(nn.Conv2d(1, 2, 3), nn.MaxPool2d(2, return_indices=True), nn.Flatten(),
                                    nn.Sequential(nn.Linear(8, 4), nn.ReLU())),
    }
    return [{"name": k, "repr": repr(m)} for k, m in mods.items()]


def load_errors():
    out = []

    def attempt(name, sd, strict=True):
        m = Encoder()
        case = {"name": name, "strict": strict, "keys": shapes(sd.items())}
        try:
            res = m.load_state_dict(sd, strict=strict)
            case["missing"] = list(res.missing_keys)
            case["unexpected"] = list(res.unexpected_keys)
        except RuntimeError as e:
            case["error"] = str(e)
        out.append(case)

    good = Encoder().state_dict()
    sd = dict(good)
    del sd["norm.bias"]
    del sd["layers.1.fc1.weight"]
    attempt("missing", sd)
    sd = dict(good)
    sd["extra"] = torch.ones(1)
    sd["layers.0.extra"] = torch.ones(1)
    sd["layers.5.fc1.weight"] = torch.ones(1)
    sd["mask"] = torch.ones(6)
    attempt("unexpected", sd)
    sd = dict(good)
    sd["embed.weight"] = torch.ones(3, 4)
    sd["layers.0.steps"] = torch.ones(2)
    attempt("size_mismatch", sd)
    sd = dict(good)
    del sd["head.0.bias"]
    sd["extra"] = torch.ones(1)
    sd["norm.weight"] = torch.ones(5)
    attempt("all_three", sd)
    sd = dict(good)
    del sd["head.0.bias"]
    sd["extra"] = torch.ones(1)
    attempt("non_strict", sd, strict=False)
    sd = dict(good)
    sd["norm.weight"] = torch.ones(5)
    sd["extra"] = torch.ones(1)
    attempt("non_strict_size_mismatch", sd, strict=False)
    attempt("good", dict(good))
    return out


def training():
    m = Encoder()
    steps = []

    def record(op):
        steps.append({"op": op, "training": [[k, mod.training] for k, mod in m.named_modules()]})

    record("new")
    m.eval()
    record("eval")
    m.layers[1].train()
    record("train layers.1")
    m.train()
    record("train")
    m.head.train(False)
    record("head.train(False)")
    return steps


def main():
    out = {
        "torch": torch.__version__,
        "models": {k: describe(m) for k, m in models().items()},
        "activations": activations(),
        "reprs": reprs(),
        "load": load_errors(),
        "training": training(),
    }
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1)
    print("wrote", os.path.normpath(OUT))


main()
