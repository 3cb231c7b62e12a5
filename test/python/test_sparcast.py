"""The Python package without a GPU: loading an artifact through the
runtime, entry lookup, result shapes from the manifest's dims, workspace
sizes and the caller's workspace through the runtime, errors.

Run by ctest with SPARCAST_RUNTIME_LIB pointing at the built runtime.
"""

import contextlib
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import sparcast  # noqa: E402

MANIFEST = {
    "format": "sparcast-artifact-2",
    "modules": [{"name": "k", "ptx": "k.ptx"}],
    "entries": [{
        "name": "lce",
        "args": [{"name": "arg0", "dtype": "f16", "shape": [433, 2044]},
                 {"name": "arg1", "dtype": "f16", "shape": ["U", 1178, 256]},
                 {"name": "arg2", "dtype": "f16", "shape": ["B", 866, 256]},
                 {"name": "arg3", "dtype": "i32", "shape": ["B"], "index_into": "U"}],
        "results": [{"name": "result0", "dtype": "f16", "shape": ["B", 433, 256]}],
        "workspace": [{"name": "ws0", "dtype": "f32", "shape": ["U", 433, 256]}],
        "launches": [{"module": "k", "kernel": "gemm", "grid": [1, 4, "B"], "block": [256, 1, 1],
                      "smem": 0, "params": [{"kind": "memref", "tensor": "result0"}]}],
    }],
}


class Shaped:
    """Stands in for a tensor where only the shape matters."""

    def __init__(self, *shape):
        self.shape = shape


class Fake:
    """Stands in for a CUDA tensor (no torch here): a device address (never
    dereferenced: nothing is launched), a dtype code, a shape."""

    def __init__(self, ptr, code, *shape):
        self.ptr, self.code, self.shape = ptr, code, shape


F16, I32 = 1, 3


def _fake_fill(c, t, role):
    c.data, c.dtype, c.rank = t.ptr, t.code, len(t.shape)
    for i, size in enumerate(t.shape):
        c.shape[i] = size


@contextlib.contextmanager
def _fake_tensors():
    """While inside, the package takes Fake tensors (no torch here)."""
    saved = sparcast._fill
    sparcast._fill = _fake_fill
    try:
        yield
    finally:
        sparcast._fill = saved


def _lce_fakes():
    """Arguments and result of the manifest's entry: U = 15, B = 1024."""
    args = (Fake(0x10000, F16, 433, 2044), Fake(0x20000, F16, 15, 1178, 256),
            Fake(0x30000, F16, 1024, 866, 256), Fake(0x40000, I32, 1024))
    return args, [Fake(0x50000, F16, 1024, 433, 256)]


class PackageTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        with open(os.path.join(self.dir, "manifest.json"), "w") as f:
            json.dump(MANIFEST, f)
        with open(os.path.join(self.dir, "k.ptx"), "w") as f:
            f.write("// kernels")

    def test_entries_are_attributes(self):
        m = sparcast.load(self.dir)
        self.assertEqual(sorted(m.entries), ["lce"])
        self.assertEqual(m.lce.name, "lce")
        with self.assertRaises(AttributeError):
            m.nope

    def test_result_shapes_come_from_the_runtime(self):
        with _fake_tensors():
            m = sparcast.load(self.dir)
            args, _ = _lce_fakes()
            self.assertEqual(m.lce.result_shapes(*args), [(1024, 433, 256)])
            # Arguments the runtime refuses raise with its message.
            args = args[:3] + (Fake(0x40000, F16, 1024),)
            with self.assertRaises(sparcast.SparcastError) as err:
                m.lce.result_shapes(*args)
            self.assertIn("expected dtype i32", str(err.exception))

    def test_wrong_argument_count_raises(self):
        m = sparcast.load(self.dir)
        with self.assertRaises(sparcast.SparcastError) as err:
            m.lce(Shaped(1))
        self.assertIn("takes 4 tensors, got 1", str(err.exception))

    def test_workspace_bytes_come_from_the_runtime(self):
        with _fake_tensors():
            m = sparcast.load(self.dir)
            args, out = _lce_fakes()
            # ws0: f32 [U, 433, 256] with U = 15.
            self.assertEqual(m.lce.workspace_bytes(*args, out=out), 15 * 433 * 256 * 4)
            with self.assertRaises(sparcast.SparcastError) as err:
                m.lce.workspace_bytes(*args, out=[Fake(0x50000, F16, 1000, 433, 256)])
            self.assertIn("B = 1000 but an earlier tensor has B = 1024", str(err.exception))

    def test_threads_keep_their_own_argument_structs(self):
        # The package refills its ctypes structs on every call, one set per
        # thread: the C call releases the GIL, so two threads calling the
        # same entry must never see each other's tensors.
        import threading
        with _fake_tensors():
            m = sparcast.load(self.dir)
            failures = []

            def calls(users):
                args, out = _lce_fakes()
                args = (args[0], Fake(0x20000, F16, users, 1178, 256)) + args[2:]
                for _ in range(300):
                    got = m.lce.workspace_bytes(*args, out=out)
                    if got != users * 433 * 256 * 4:
                        failures.append((users, got))

            threads = [threading.Thread(target=calls, args=(u,)) for u in (3, 15, 40)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(failures, [])

    def test_run_passes_the_callers_workspace(self):
        # Through scRunWithWorkspace with stand-ins (no torch, no GPU): a
        # workspace smaller than the entry needs is refused before anything
        # is launched, with the runtime's message.
        class Bytes:
            is_cuda = True

            def __init__(self, ptr, n):
                self.ptr, self.n = ptr, n

            def is_contiguous(self):
                return True

            def data_ptr(self):
                return self.ptr

            def numel(self):
                return self.n

            def element_size(self):
                return 1

        with _fake_tensors():
            m = sparcast.load(self.dir)
            args, out = _lce_fakes()
            with self.assertRaises(sparcast.SparcastError) as err:
                m.lce(*args, out=out, stream=0, workspace=Bytes(0x60000, 4096))
            self.assertIn("needs a workspace of %d bytes, got 4096" % (15 * 433 * 256 * 4),
                          str(err.exception))
            with self.assertRaises(sparcast.SparcastError) as err:
                m.lce(*args, out=out, stream=0, workspace=Bytes(0x60010, 1 << 24))
            self.assertIn("256-byte aligned", str(err.exception))

    def test_workspace_size_is_asked_once_per_shape(self):
        # The package supplies the workspace (a stand-in here) and asks the
        # runtime for its size only for shapes it has not seen.
        class Workspace:
            def data_ptr(self):
                return 0x60000

            def numel(self):
                return 1 << 24

        with _fake_tensors():
            m = sparcast.load(self.dir)
            m._stream_workspace = lambda handle, need, device, stream: Workspace()
            asked = []
            entry = m.lce
            real_bytes = entry._bytes
            entry._bytes = lambda *a: asked.append(1) or real_bytes(*a)
            args, out = _lce_fakes()
            out[0].device = "cuda:0"
            for _ in range(3):
                # Every run reaches the launch, which fails without a GPU
                # (or a context) after the size was settled.
                with self.assertRaises(sparcast.SparcastError):
                    entry(*args, out=out, stream=0)
            self.assertEqual(len(asked), 1)
            small = (args[0], Fake(0x20000, F16, 7, 1178, 256)) + args[2:]
            with self.assertRaises(sparcast.SparcastError):
                entry(*small, out=out, stream=0)
            self.assertEqual(len(asked), 2)

    def test_bad_manifest_raises_the_runtime_message(self):
        bad = dict(MANIFEST, format="something-else")
        with open(os.path.join(self.dir, "manifest.json"), "w") as f:
            json.dump(bad, f)
        with self.assertRaises(sparcast.SparcastError) as err:
            sparcast.load(self.dir)
        self.assertIn("unsupported format", str(err.exception))

    def test_every_load_failure_raises_sparcast_error(self):
        path = os.path.join(self.dir, "manifest.json")
        cases = [
            (b"{\"format\": ", "unexpected end of input"),
            (b"[" * 100000 + b"]" * 100000, "nesting deeper than 64"),
            (b"\xff\xfe{}", "parse error"),
        ]
        for text, message in cases:
            with open(path, "wb") as f:
                f.write(text)
            with self.assertRaises(sparcast.SparcastError) as err:
                sparcast.load(self.dir)
            self.assertIn(message, str(err.exception))
        os.remove(path)
        with self.assertRaises(sparcast.SparcastError) as err:
            sparcast.load(self.dir)
        self.assertIn("cannot read", str(err.exception))
        with self.assertRaises(sparcast.SparcastError):
            sparcast.load(os.path.join(self.dir, "missing"))


    def test_tuning_is_set_without_a_gpu(self):
        # Mode and cache file are recorded (read at the first call that
        # looks there); nothing needs CUDA.
        cache = os.path.join(self.dir, "tune-cache.json")
        m = sparcast.load(self.dir, tune=True, tune_cache=cache)
        m.set_tuning(False)
        m.set_tuning(False, cache)
        self.assertFalse(os.path.exists(cache))


class TuneToolTest(unittest.TestCase):
    def test_dims_and_sizes(self):
        from sparcast import tune
        dims = tune.parse_dims("B=1000,U=15")
        self.assertEqual(dims, {"B": 1000, "U": 15})
        self.assertEqual(tune._size(433, dims), 433)
        self.assertEqual(tune._size("B", dims), 1000)
        self.assertEqual(tune._size("U*64", dims), 960)
        self.assertEqual(tune._size("B/64", dims), 16)
        with self.assertRaises(SystemExit):
            tune._size("L", dims)
        with self.assertRaises(SystemExit):
            tune.parse_dims("B=x")

if __name__ == "__main__":
    unittest.main()
