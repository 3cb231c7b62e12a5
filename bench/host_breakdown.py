"""Where a call's host time goes: the Python package's preparation (result
and argument structs, stream, workspace) and the runtime's C call
(validation, tensor maps, launches), for target attention (S = 1024) and
the LCE at the reference shapes. Each part timed over many calls without
synchronizing (the GPU queue absorbs the kernels); writes a JSON (--out).

  python3 bench/host_breakdown.py --artifacts bench/artifacts --out host.json
"""
import argparse, ctypes, json, os, statistics, sys, time
import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparcast  # noqa: E402
from host_overhead import reference_inputs  # noqa: E402


def per_call_us(fn, n=200, reps=5):
    ts = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(n):
            fn()
        ts.append((time.perf_counter() - t) / n * 1e6)
        torch.cuda.synchronize()
    return statistics.median(ts)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--artifacts", default="bench/artifacts")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    (q, k, v, idx, o), (w, eu, ec, ix, out) = reference_inputs()
    ta = sparcast.load(os.path.join(args.artifacts, "target_attention")).target_attention
    lce = sparcast.load(os.path.join(args.artifacts, "lce")).lce
    rows = []
    for name, entry, tensors, result in (("target attention S=1024", ta, (q, k, v, idx), o),
                                         ("LCE", lce, (w, eu, ec, ix), out)):
        entry(*tensors, out=[result]); torch.cuda.synchronize()
        full = per_call_us(lambda: entry(*tensors, out=[result]))
        # The package's preparation alone: what __call__ does before the C call.
        def prepare():
            outs = entry._results(tensors, [result])
            entry._c_tensors(tensors, outs)
            sparcast._current_stream_handle(tensors[0])
        prep = per_call_us(prepare)
        # The C call alone, with the structs built once.
        outs = [result]
        c_args, c_out = entry._c_tensors(tensors, outs)
        handle = sparcast._current_stream_handle(tensors[0])
        lib, mod = entry._module._lib, entry._module._handle
        need = entry._bytes(c_args, len(tensors), c_out, 1)
        ws = entry._module._stream_workspace(handle, need, result.device, None) if need else None
        ws_ptr, ws_bytes = (ws.data_ptr(), ws.numel()) if ws is not None else (None, 0)
        c_name = entry._c_name
        run = lambda: lib.scRunWithWorkspace(mod, c_name, c_args, len(tensors), c_out, 1,
                                             ctypes.c_void_p(ws_ptr), ws_bytes, ctypes.c_void_p(handle), 0)
        c_call = per_call_us(run)
        validate = per_call_us(lambda: lib.scValidate(mod, c_name, c_args, len(tensors), c_out, 1))
        row = {"case": name, "call_us": full, "python_prepare_us": prep, "c_run_us": c_call,
               "c_validate_us": validate}
        rows.append(row)
        print(json.dumps(row), flush=True)
    json.dump({"gpu": torch.cuda.get_device_name(), "rows": rows}, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
