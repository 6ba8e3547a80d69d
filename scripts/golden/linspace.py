"""Golden values of torch.linspace on the CPU for testdata/linspace.json.

PyTorch's CPU kernel (RangeFactoriesKernel.cpp) writes vectors of
Vectorized<T>::size() elements with its own rounding, so the cases cover
lengths around the vector and chunk boundaries and every dtype. Run with
/usr/bin/python3 (python3-torch 1.13) from the repository root.
"""
import json
import os

import torch

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "linspace.json")

RANGES = [(0.1, 7.3), (-5.5, 3.25), (0.3, 0.9), (100.0, -3.3), (-1e5, 2.5e4), (3.0, 3.0), (-3.7, 9.2)]
SIZES = [2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 100]
DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "int32": torch.int32, "int64": torch.int64, "uint8": torch.uint8}

cases = []
for name, dt in DTYPES.items():
    for start, end in RANGES:
        if name == "uint8" and (start < 0 or end < 0 or end > 255):
            continue
        if name in ("float16", "bfloat16") and max(abs(start), abs(end)) > 6e4:
            continue
        for n in SIZES:
            v = torch.linspace(start, end, n, dtype=dt).to(torch.float64).tolist()
            if name != "float64":  # float32 and narrower: nine digits tell every value apart
                v = [float("%.9g" % x) for x in v]
            cases.append({"dtype": name, "start": start, "end": end, "steps": n, "values": v})

with open(OUT, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, separators=(",", ":"))
print("wrote", OUT, len(cases), "cases")
