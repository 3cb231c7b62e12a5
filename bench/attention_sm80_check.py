"""The sm_80 / sm_86 / sm_89 attention (sparcast-aot --ampere-attention:
cp.async rings, ldmatrix, mma.sync) checked and timed on the machine at
hand: its PTX, compiled for sm_80, is JIT-compiled by the driver (on an
H100 / H200 too).

Correctness: examples/target_attention.mlir (keys and values through a
shuffled index, uneven users, an odd count) and
examples/self_target_attention.mlir (a user's history attending to itself,
1024 query rows, and the candidates' target attention) and
bench/attention_sm80_suite.mlir (log-linear masks of 64- and 128-token
blocks, static and dynamic lengths) against fp32 SDPA, outputs
NaN-poisoned. Speed, in interleaved rounds of one run: against our
sm_90a kernel of the same example (issue 33's goal: at least 45 % of it),
a ratio that means what it says on Hopper only for this comparison.

    python3 bench/attention_sm80_check.py --artifacts bench/artifacts --out attention-sm80.json
"""
import os

import torch
import torch.nn.functional as F

import gemm_check as g
import sparcast
from attention_check import dense_mask, target_inputs
from lce_check import make_index


def sdpa(q, k, v):
    return F.scaled_dot_product_attention(q.float(), k.float(), v.float())


def record(rows, case, out, ref, peer=None):
    """Relative error against the fp32 reference within gemm_check's
    tolerance (bf16: or within 1.1x the error of SDPA in bf16, `peer`, as
    attention_check.py holds the Hopper kernels), every element finite."""
    err = g.rel_fro(out, ref)
    peer_err = g.rel_fro(peer, ref) if peer is not None else None
    ok = bool(torch.isfinite(out).all().item()) and (
        err <= g.TOLERANCE or (peer_err is not None and err <= 1.1 * peer_err))
    print("  %-58s rel_fro %.2e%s %s" % (
        case, err, "" if peer_err is None else " (SDPA bf16 %.2e)" % peer_err,
        "ok" if ok else "FAIL"), flush=True)
    rows.append({"case": case, "rel_fro": err, "peer_rel_fro": peer_err, "ok": ok})


def main():
    args, gen, header = g.setup()
    art = lambda name: sparcast.load(os.path.join(args.artifacts, name))
    target = art("target_attention_sm80").target_attention
    self_target = art("self_target_attention_sm80").self_target_attention
    results = dict(header, correctness=[], speed=[])
    f16 = torch.float16
    print("== correctness (sm_80 PTX, fp32 SDPA reference, NaN-poisoned outputs)")
    for users, B, shuffle in ((2, 130, False), (7, 33, True), (32, 2048, True)):
        q = g.uniform((B, 2, 64, 128), f16, gen)
        k = g.uniform((users, 2, 1024, 128), f16, gen)
        v = g.uniform((users, 2, 1024, 128), f16, gen)
        idx = make_index(users, B, gen, shuffle)
        out = torch.full_like(q, float("nan"))
        target(q, k, v, idx, out=[out])
        torch.cuda.synchronize()
        ref = sdpa(q, k[idx.long()], v[idx.long()])
        record(results["correctness"], "[sm_80] target attention users=%d B=%d%s"
                 % (users, B, " shuffled" if shuffle else ""), out, ref)
    users, B = 3, 50
    hq = g.uniform((users, 2, 1024, 128), f16, gen)
    k = g.uniform((users, 2, 1024, 128), f16, gen)
    v = g.uniform((users, 2, 1024, 128), f16, gen)
    q = g.uniform((B, 2, 64, 128), f16, gen)
    idx = make_index(users, B, gen, True)
    self_out = torch.full_like(hq, float("nan"))
    target_out = torch.full_like(q, float("nan"))
    self_target(hq, k, v, q, idx, out=[self_out, target_out])
    torch.cuda.synchronize()
    record(results["correctness"], "[sm_80] self-attention of 1024 rows", self_out,
             sdpa(hq, k, v))
    record(results["correctness"], "[sm_80] target attention beside it", target_out,
             sdpa(q, k[idx.long()], v[idx.long()]))

    suite = art("attention_sm80_suite")
    bf16 = torch.bfloat16
    for name, dtype, B, N, block, causal in (
            ("ll_n1024_b64_causal", bf16, 2, 1024, 64, True),
            ("ll_n1024_b128_causal", bf16, 2, 1024, 128, True),
            ("ll_n1000_b128_f16", f16, 2, 1000, 128, False),
            ("ll_dyn", bf16, 2, 1000, 128, False),
            ("ll_dyn", bf16, 1, 3000, 128, False)):
        q, k, v = (g.uniform((B, 2, N, 128), dtype, gen) for _ in range(3))
        m = dense_mask(N, block, causal)
        out = torch.full_like(q, float("nan"))
        getattr(suite, name)(q, k, v, out=[out])
        torch.cuda.synchronize()
        ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), attn_mask=m)
        peer = (F.scaled_dot_product_attention(q, k, v, attn_mask=m).float()
                if dtype == bf16 else None)
        record(results["correctness"], "[sm_80] %s B=%d N=%d" % (name, B, N), out, ref, peer)

    print("== speed: target attention S=1024 (median ms of interleaved rounds)")
    hopper = art("target_attention").target_attention
    # The same kernel with a K/V ring of three slots (--ampere-attention-stages
    # 3: 113 KB, one CTA an SM; the default has two), when built.
    three_slots = (art("target_attention_sm80_s3").target_attention
                   if os.path.isdir(os.path.join(args.artifacts, "target_attention_sm80_s3")) else None)
    flops = 4 * 2048 * 2 * 64 * 128 * 1024
    for shuffled in (False, True):
        idx, q, k, v = target_inputs(1024, gen, shuffled)
        out = torch.empty_like(q)
        if three_slots:
            out2 = torch.full_like(q, float("nan"))
            three_slots(q, k, v, idx, out=[out2])
            record(results["correctness"], "[sm_80, 3 slots] target attention S=1024%s" % (
                " shuffled" if shuffled else ""), out2[:128], sdpa(q[:128], k[idx[:128].long()], v[idx[:128].long()]))
        fns = {"sm80": lambda: target(q, k, v, idx, out=[out]),
               "sm90a": lambda: hopper(q, k, v, idx, out=[out])}
        if three_slots:
            fns["sm80_3slots"] = lambda: three_slots(q, k, v, idx, out=[out])
        ms = g.compare_ms(fns, rounds=10)
        row = {"case": "target attention S=1024%s" % (" shuffled" if shuffled else ""),
               "sm80_ms": ms["sm80"], "sm90a_ms": ms["sm90a"],
               "sm80_tflops": flops / ms["sm80"] / 1e9,
               "sm80_of_sm90a": ms["sm90a"] / ms["sm80"]}
        if three_slots:
            row["sm80_3slots_ms"] = ms["sm80_3slots"]
            row["sm80_3slots_of_sm90a"] = ms["sm90a"] / ms["sm80_3slots"]
        results["speed"].append(row)
        print("  %s: sm_80 %.4f ms (%.0f TFLOP/s), sm_90a %.4f ms: %.2f of it%s" % (
            row["case"], ms["sm80"], row["sm80_tflops"], ms["sm90a"], row["sm80_of_sm90a"],
            "; three slots %.4f ms: %.2f" % (ms["sm80_3slots"], row["sm80_3slots_of_sm90a"]) if three_slots else ""),
            flush=True)
    g.write_results(results, args.out)


if __name__ == "__main__":
    main()
