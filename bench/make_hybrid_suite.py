"""Writes bench/hybrid_suite.mlir, the hybrid-tiled GEMMs bench/hybrid_check.py
runs: y = x W^T with W in TILE-shaped dense / 2:4 / zero tiles (the packing
of sparcast.hybrid_pack), small odd shapes for correctness (one with a bias
+ ReLU epilogue, one at 300 tokens: a 128-row band of two consumers) and
(N, K) = (11008, 4096), (4096, 11008), (8192, 8192) at M = 1, 16, 2048, 8192 in
f16 and bf16 for the timings.

    python3 bench/make_hybrid_suite.py > bench/hybrid_suite.mlir
    python3 bench/make_hybrid_suite.py --tile 64x128   # 64-row tiles
    python3 bench/make_hybrid_suite.py --constant      # a constant weight
"""
import argparse

TILE = (128, 128)
SHAPES = [(11008, 4096), (4096, 11008), (8192, 8192)]
TOKENS = [1, 16, 2048, 8192]


def gemm(name, n, k, m, dtype, bias=False):
    gr, gc = n // TILE[0], k // TILE[1]
    layout = '#sc.hybrid_tiles<tile = [%d, %d], grid = [%d, %d], kinds = "">' % (
        TILE[0], TILE[1], gr, gc)
    w = "tensor<%dx%dx%s, %s>" % (n, k, dtype, layout)
    bufs = ["tensor<%dx%dxi8>" % (gr, gc), "tensor<%dx%dxi32>" % (gr, gc),
            "tensor<?x%dx%dx%s>" % (TILE[0], TILE[1], dtype),
            "tensor<?x%dx%dx%s>" % (TILE[0], TILE[1] // 2, dtype),
            "tensor<?x%dx%dxi32>" % (TILE[0], TILE[1] // 32)]
    x = "tensor<?x%dx%dx%s>" % (m, k, dtype)
    y = "tensor<?x%dx%dx%s>" % (m, n, dtype)
    names = ["%kinds", "%slots", "%dense", "%sparse", "%meta"]
    args = ", ".join("%s: %s" % a for a in zip(names, bufs)) + ", %x: " + x
    if bias:
        args += ", %%bias: tensor<%dxf32>" % n
    out = ["func.func @%s(%s) -> %s {" % (name, args, y),
           "  %%w = sc.assemble_hybrid %s : %s -> %s" % (", ".join(names), ", ".join(bufs), w)]
    if bias:
        out += ["  %%y = sc.batch_matmul %%x, %%w epilogue_ins(%%bias : tensor<%dxf32>) "
                "{transpose_rhs} : %s, %s -> %s {" % (n, x, w, y),
                "  ^bb0(%%acc: f32, %%b: index, %%i: index, %%j: index, %%bs: tensor<%dxf32>):" % n,
                "    %%v = tensor.extract %%bs[%%j] : tensor<%dxf32>" % n,
                "    %a = arith.addf %acc, %v : f32",
                "    %z = arith.constant 0.0 : f32",
                "    %r = arith.maximumf %a, %z : f32",
                "    %%o = arith.truncf %%r : f32 to %s" % dtype,
                "    sc.yield %%o : %s" % dtype,
                "  }"]
    else:
        out.append("  %%y = sc.batch_matmul %%x, %%w {transpose_rhs} : %s, %s -> %s" % (x, w, y))
    out += ["  return %%y : %s" % y, "}", ""]
    return "\n".join(out)


def constant_weight(n, k, seed=7):
    """An n x k f16 weight with tiles of every kind (in TILE tiles: zero,
    2:4, one value of four, dense, in turns), exact in f16, the same on
    every machine (random.Random)."""
    import random
    rng = random.Random(seed)
    w = [[0.0] * k for _ in range(n)]
    for r in range(n):
        for c in range(k):
            kind = (r // TILE[0] + c // TILE[1]) % 4
            pos = c % 4
            keep = (kind == 3 or (kind == 1 and pos in (r % 3, 3)) or
                    (kind == 2 and pos == (r + c // 4) % 4))
            w[r][c] = rng.randint(-64, 64) / 64.0 if keep else 0.0
    return w


def constant_gemm(name, n, k, m):
    """y = x W^T with W a constant (constant_weight) in the entry: what
    sparcast-aot --hybrid-weights packs at compile time."""
    import struct
    w = constant_weight(n, k)
    raw = b"".join(struct.pack("<e", v) for row in w for v in row)
    x = "tensor<?x%dx%dxf16>" % (m, k)
    y = "tensor<?x%dx%dxf16>" % (m, n)
    return "\n".join([
        "func.func @%s(%%x: %s) -> %s {" % (name, x, y),
        '  %%w = arith.constant dense<"0x%s"> : tensor<%dx%dxf16>' % (raw.hex().upper(), n, k),
        "  %%y = sc.batch_matmul %%x, %%w {transpose_rhs} : %s, tensor<%dx%dxf16> -> %s" % (x, n, k, y),
        "  return %%y : %s" % y, "}", ""])


def main():
    global TILE
    parser = argparse.ArgumentParser()
    parser.add_argument("--tile", default="%dx%d" % TILE)
    parser.add_argument("--constant", action="store_true",
                        help="the constant-weight GEMM only (--hybrid-weights)")
    parser.add_argument("--constant-shape", default="512x1024x37",
                        help="its N x K x M")
    args = parser.parse_args()
    TILE = tuple(int(v) for v in args.tile.split("x"))
    if args.constant:
        n, k, m = (int(v) for v in args.constant_shape.split("x"))
        print(constant_gemm("const_f16", n, k, m))
        return
    print("// The hybrid-tiled GEMMs of bench/hybrid_check.py (written by")
    print("// bench/make_hybrid_suite.py: edit that, not this).")
    print()
    print(gemm("check_f16", 256, 512, 19, "f16"))
    print(gemm("check_bf16_bias_relu", 384, 384, 5, "bf16", bias=True))
    print(gemm("check_f16_m300", 256, 256, 300, "f16"))
    for n, k in SHAPES:
        for m in TOKENS:
            for dtype in ("f16", "bf16"):
                print(gemm("linear_%dx%d_m%d_%s" % (n, k, m, dtype), n, k, m, dtype))


if __name__ == "__main__":
    main()
