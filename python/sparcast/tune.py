"""Pre-tunes an artifact's dispatches over a list of dims and writes the
tuning cache that ships beside it (sparcast-tune).

    python3 -m sparcast.tune ARTIFACT --cache ARTIFACT/tune-cache.json \\
        --entry lce --dims B=1024,U=16 --dims B=4096,U=256

For each --dims, every entry asked for (all by default) is called once on
random inputs of those dims (index arguments in range), on the GPU, with
tuning on: each dispatch's alternatives are measured at the call's shape
bucket and the fastest written to the cache. Later processes load the
artifact with that cache (sparcast.load(..., tune_cache=...) or
SPARCAST_TUNE_CACHE) and skip the measurement.
"""
import argparse
import sys
import time

import sparcast


def _size(dim, dims):
    """A manifest dim (an int, "B", "B*4", "B/64" ...) for `dims`."""
    if isinstance(dim, int):
        return dim
    symbol, factor, divisor = dim, 1, 1
    if "/" in symbol:
        symbol, d = symbol.split("/", 1)
        divisor = int(d)
    if "*" in symbol:
        symbol, f = symbol.split("*", 1)
        factor = int(f)
    if symbol not in dims:
        raise SystemExit("sparcast-tune: no value for dim %s (pass --dims %s=...)"
                         % (symbol, symbol))
    return -(-dims[symbol] * factor // divisor)


def random_inputs(entry_spec, dims, gen):
    """Random CUDA tensors for the entry's arguments at `dims`."""
    import torch
    dtypes = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
              "i32": torch.int32, "u8": torch.uint8}
    out = []
    for arg in entry_spec["args"]:
        shape = [_size(d, dims) for d in arg["shape"]]
        dtype = dtypes[arg["dtype"]]
        if "index_into" in arg:
            high = max(1, dims.get(arg["index_into"], 1))
            t = torch.randint(0, high, shape, generator=gen, dtype=torch.int32)
        elif dtype in (torch.int32, torch.uint8):
            t = torch.zeros(shape, dtype=dtype)
        else:
            t = torch.randn(shape, generator=gen).to(dtype)
        out.append(t.cuda())
    return out


def parse_dims(text):
    dims = {}
    for item in text.split(","):
        name, _, value = item.partition("=")
        if not name or not value.isdigit():
            raise SystemExit("sparcast-tune: --dims wants NAME=INT,..., got %r" % text)
        dims[name] = int(value)
    return dims


def main(argv=None):
    p = argparse.ArgumentParser(prog="sparcast-tune", description=__doc__.splitlines()[0])
    p.add_argument("artifact")
    p.add_argument("--cache", required=True, help="the tuning cache file to write")
    p.add_argument("--entry", action="append", default=[],
                   help="an entry to tune (default: every entry)")
    p.add_argument("--dims", action="append", required=True,
                   help="dims of one call, NAME=INT,... (repeatable)")
    args = p.parse_args(argv)
    import torch
    module = sparcast.load(args.artifact, tune=True, tune_cache=args.cache)
    names = args.entry or list(module.entries)
    gen = torch.Generator().manual_seed(0)
    for text in args.dims:
        dims = parse_dims(text)
        for name in names:
            entry = module.entries.get(name)
            if entry is None:
                raise SystemExit("sparcast-tune: the artifact has no entry %r" % name)
            inputs = random_inputs(entry._spec, dims, gen)
            start = time.perf_counter()
            entry(*inputs)
            torch.cuda.synchronize()
            print("%s at %s: %.1f ms (tuned and cached)"
                  % (name, text, 1000 * (time.perf_counter() - start)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
