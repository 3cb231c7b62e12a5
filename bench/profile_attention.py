"""The attention kernels once each for Nsight Compute, in this order:
target attention at the reference shapes (B = 2048, 32 users, S = 1024,
f16), log-linear attention N = 16384 (B = 4, H = 16, bf16, blocks of 128).

    ncu --section SpeedOfLight -k regex:attention python3 bench/profile_attention.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparcast  # noqa: E402
from lce_check import make_index  # noqa: E402

art = os.environ.get("ARTIFACTS", "bench/artifacts")
gen = torch.Generator(device="cuda")
gen.manual_seed(0)
u = lambda shape, t: (torch.rand(shape, generator=gen, device="cuda") - 0.5).to(t)
f16, bf16 = torch.float16, torch.bfloat16
B, users = 2048, 32
q, k, v = u((B, 2, 64, 128), f16), u((users, 2, 1024, 128), f16), u((users, 2, 1024, 128), f16)
idx = make_index(users, B, gen, False)
o = torch.empty((B, 2, 64, 128), dtype=f16, device="cuda")
sparcast.load(os.path.join(art, "target_attention")).target_attention(q, k, v, idx, out=[o])
q, k, v = (u((4, 16, 16384, 128), bf16) for _ in range(3))
o = torch.empty((4, 16, 16384, 128), dtype=bf16, device="cuda")
sparcast.load(os.path.join(art, "loglinear_attention")).loglinear_attention(q, k, v, out=[o])
torch.cuda.synchronize()
