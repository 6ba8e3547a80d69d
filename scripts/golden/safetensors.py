"""Safetensors files for pkg/safetensors's tests, written by hand from the
format's definition (8-byte little-endian header length, JSON header,
data) with values from PyTorch: one file with every dtype and metadata and
an 8-byte-aligned header, one whose header is not padded (unaligned data),
and the expected values as JSON.

Run with Debian's python3-torch (PyTorch 1.13): make golden.
Writes testdata/safetensors/*.
"""
import json
import os
import struct

import torch

DIR = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "safetensors")
NAMES = {torch.bool: "BOOL", torch.uint8: "U8", torch.int8: "I8", torch.int16: "I16", torch.int32: "I32",
         torch.int64: "I64", torch.float16: "F16", torch.bfloat16: "BF16", torch.float32: "F32", torch.float64: "F64"}


def raw(t):
    if t.dtype == torch.bool:
        return bytes(t.to(torch.uint8).reshape(-1).tolist())
    if t.dtype in (torch.float16, torch.bfloat16):
        return t.reshape(-1).view(torch.int16).numpy().tobytes()
    return t.reshape(-1).numpy().tobytes()


def write(path, tensors, metadata=None, pad=True, align=True):
    header, data = {}, b""
    if metadata:
        header["__metadata__"] = metadata
    order = list(tensors.items())
    if align:  # as the reference writer: larger elements first, so every tensor is aligned
        order.sort(key=lambda kv: (-kv[1].element_size(), kv[0]))
    for name, t in order:
        b = raw(t)
        header[name] = {"dtype": NAMES[t.dtype], "shape": list(t.shape), "data_offsets": [len(data), len(data) + len(b)]}
        data += b
    h = json.dumps(header).encode()
    if pad:
        h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)


def main():
    os.makedirs(DIR, exist_ok=True)
    torch.manual_seed(0)
    tensors = {
        "bool": torch.tensor([[True, False, True]]),
        "u8": torch.arange(6, dtype=torch.uint8).reshape(2, 3),
        "i8": torch.tensor([-128, 0, 127], dtype=torch.int8),
        "i16": torch.tensor([-300, 7], dtype=torch.int16),
        "i32": torch.tensor([[1, -2], [3, -4]], dtype=torch.int32),
        "i64": torch.tensor([2**40, -5]),
        "f16": torch.tensor([0.5, -1.25, 65504.0], dtype=torch.float16),
        "bf16": torch.tensor([1.5, -3.0e38], dtype=torch.bfloat16),
        "f32": torch.randn(3, 4),
        "f64": torch.randn(2, dtype=torch.float64),
        "scalar": torch.tensor(3.5),
        "empty": torch.zeros(0, 3),
    }
    write(os.path.join(DIR, "dtypes.safetensors"), tensors, {"format": "pt", "source": "scripts/golden/safetensors.py"})
    write(os.path.join(DIR, "unaligned.safetensors"), {"a": torch.arange(3, dtype=torch.int8), "b": torch.randn(5)}, pad=False, align=False)
    expect = {name: {"shape": list(t.shape), "data": t.double().reshape(-1).tolist() if t.dtype != torch.bool else t.reshape(-1).tolist()}
              for name, t in tensors.items()}
    with open(os.path.join(DIR, "dtypes.json"), "w") as f:
        json.dump(expect, f)
    print("wrote", os.path.normpath(DIR))


main()
