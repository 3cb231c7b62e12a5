"""Sparcast: run compiled artifacts from Python.

Pure Python over the runtime's C API (ctypes); no build against torch.

    import sparcast
    m = sparcast.load("artifacts/gemm")          # a sparcast-aot output dir
    out = m.gemm_gather_add(w, e, user, idx)     # torch CUDA tensors
    out = m.gemm_gather_add(w, e, user, idx, stream=s, check_indices=True)

Results are allocated with the shapes the manifest gives (or passed with
out=[...]); every failure raises SparcastError with the runtime's message.
Intermediates live in a workspace the module keeps per CUDA stream (so calls
on several streams at once never share one), or in `workspace=` (a CUDA
tensor of at least `entry.workspace_bytes(*args)` bytes).
"""

import ctypes
import json
import os
import threading

__all__ = ["load", "Module", "SparcastError"]

_MAX_RANK = 8
_DTYPE_CODES = {"f32": 0, "f16": 1, "bf16": 2, "i32": 3, "u8": 4}
_RUN_CHECK_INDICES = 1


class SparcastError(RuntimeError):
    """A failure reported by the Sparcast runtime or by argument checks."""


class _Tensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int),
        ("rank", ctypes.c_int32),
        ("shape", ctypes.c_int64 * _MAX_RANK),
    ]


def _check(lib, status):
    """Raises the runtime's message for a failed C API call."""
    if status != 0:
        raise SparcastError(lib.scGetLastError().decode(errors="replace"))


def _find_library(explicit):
    candidates = []
    if explicit:
        candidates.append(explicit)
    if os.environ.get("SPARCAST_RUNTIME_LIB"):
        candidates.append(os.environ["SPARCAST_RUNTIME_LIB"])
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    for build in ("build-rt", "build"):
        candidates.append(os.path.join(root, build, "lib", "libsparcast_rt.so"))
        candidates.append(os.path.join(root, build, "runtime", "lib", "libsparcast_rt.so"))
    candidates.append("libsparcast_rt.so")
    for path in candidates:
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    raise SparcastError(
        "cannot load libsparcast_rt.so (set SPARCAST_RUNTIME_LIB); tried: "
        + ", ".join(candidates))


def _bind(lib):
    lib.scModuleLoad.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.scModuleLoad.restype = ctypes.c_int
    lib.scResultShape.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(_Tensor),
                                  ctypes.c_int32, ctypes.c_int32,
                                  ctypes.POINTER(ctypes.c_int32),
                                  ctypes.POINTER(ctypes.c_int64)]
    lib.scResultShape.restype = ctypes.c_int
    lib.scModuleDestroy.argtypes = [ctypes.c_void_p]
    lib.scModuleDestroy.restype = None
    lib.scRun.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(_Tensor),
                          ctypes.c_int32, ctypes.POINTER(_Tensor), ctypes.c_int32,
                          ctypes.c_void_p, ctypes.c_uint32]
    lib.scRun.restype = ctypes.c_int
    lib.scValidate.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(_Tensor),
                               ctypes.c_int32, ctypes.POINTER(_Tensor), ctypes.c_int32]
    lib.scValidate.restype = ctypes.c_int
    lib.scWorkspaceBytes.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(_Tensor),
                                     ctypes.c_int32, ctypes.POINTER(_Tensor), ctypes.c_int32,
                                     ctypes.POINTER(ctypes.c_uint64)]
    lib.scWorkspaceBytes.restype = ctypes.c_int
    lib.scRunWithWorkspace.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(_Tensor),
                                       ctypes.c_int32, ctypes.POINTER(_Tensor), ctypes.c_int32,
                                       ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p,
                                       ctypes.c_uint32]
    lib.scRunWithWorkspace.restype = ctypes.c_int
    lib.scSetTuning.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_char_p]
    lib.scSetTuning.restype = ctypes.c_int
    lib.scGetLastError.argtypes = []
    lib.scGetLastError.restype = ctypes.c_char_p
    return lib


def _torch():
    import torch  # imported lazily: the package itself does not need it
    return torch


_DTYPE_NAMES = None  # torch dtype -> manifest name, filled on first use


def _dtype_name(tensor):
    global _DTYPE_NAMES
    if _DTYPE_NAMES is None:
        torch = _torch()
        _DTYPE_NAMES = {torch.float32: "f32", torch.float16: "f16",
                        torch.bfloat16: "bf16", torch.int32: "i32",
                        torch.uint8: "u8"}
    name = _DTYPE_NAMES.get(tensor.dtype)
    if name is None:
        raise SparcastError("unsupported dtype %s" % tensor.dtype)
    return name


def _torch_dtype(name):
    torch = _torch()
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
            "i32": torch.int32}[name]


def _fill(c, tensor, role):
    """Writes `tensor` into the _Tensor struct `c`, checked first."""
    if not tensor.is_cuda:
        raise SparcastError("%s must be a CUDA tensor" % role)
    if not tensor.is_contiguous():
        raise SparcastError("%s must be contiguous" % role)
    shape = tensor.shape
    rank = len(shape)
    if rank > _MAX_RANK:
        raise SparcastError("%s has rank above %d" % (role, _MAX_RANK))
    c.data = tensor.data_ptr()
    c.dtype = _DTYPE_CODES[_dtype_name(tensor)]
    c.rank = rank
    c.shape[:rank] = shape


_RAW_STREAM = None  # torch._C._cuda_getCurrentRawStream, looked up once


def _current_stream_handle(tensor):
    """The current CUDA stream of `tensor`'s device, as a raw handle."""
    global _RAW_STREAM
    if _RAW_STREAM is None:
        _RAW_STREAM = getattr(_torch()._C, "_cuda_getCurrentRawStream", False)
    if _RAW_STREAM:
        return _RAW_STREAM(tensor.device.index)
    return _torch().cuda.current_stream(tensor.device).cuda_stream


class Entry:
    def __init__(self, module, spec):
        self._module = module
        self._spec = spec
        self.name = spec["name"]
        self._c_name = self.name.encode()
        # Workspace bytes by the call's shapes (the size depends on them
        # only): asked of the runtime once per shape.
        self._workspace_need = {}
        # The argument and result structs of a call, made once per thread
        # and refilled (ctypes releases the GIL in the C call: threads keep
        # their own).
        self._structs = threading.local()

    def result_shapes(self, *args):
        """Result shapes for these arguments: the runtime checks them and
        evaluates the manifest's dims (scResultShape)."""
        lib = self._module._lib
        c_args, _ = self._c_tensors(args, [])
        rank = ctypes.c_int32()
        shape = (ctypes.c_int64 * _MAX_RANK)()
        shapes = []
        for i in range(len(self._spec["results"])):
            if lib.scResultShape(self._module._handle, self._c_name, c_args, len(args),
                                 i, ctypes.byref(rank), shape) != 0:
                raise SparcastError(lib.scGetLastError().decode(errors="replace"))
            shapes.append(tuple(shape[:rank.value]))
        return shapes

    def _c_tensors(self, args, out):
        structs = self._structs
        if getattr(structs, "args", None) is None or len(structs.args) < len(args) \
                or len(structs.out) < len(out):
            structs.args = (_Tensor * max(1, len(args)))()
            structs.out = (_Tensor * max(1, len(out)))()
        for i, t in enumerate(args):
            _fill(structs.args[i], t, "argument %d" % i)
        for i, t in enumerate(out):
            _fill(structs.out[i], t, "result %d" % i)
        return structs.args, structs.out

    def _bytes(self, c_args, n_args, c_out, n_out):
        lib = self._module._lib
        size = ctypes.c_uint64()
        if lib.scWorkspaceBytes(self._module._handle, self._c_name, c_args, n_args,
                                c_out, n_out, ctypes.byref(size)) != 0:
            raise SparcastError(lib.scGetLastError().decode())
        return size.value

    def workspace_bytes(self, *args, out=None):
        """Bytes of workspace a call with these tensors needs (0: none)."""
        out = self._results(args, out)
        c_args, c_out = self._c_tensors(args, out)
        return self._bytes(c_args, len(args), c_out, len(out))

    def _results(self, args, out):
        if out is not None:
            return out
        torch = _torch()
        device = args[0].device if args else torch.device("cuda")
        out = []
        for shape, r in zip(self.result_shapes(*args), self._spec["results"]):
            out.append(torch.empty(shape, dtype=_torch_dtype(r["dtype"]), device=device))
        return out

    def __call__(self, *args, out=None, stream=None, check_indices=False, workspace=None):
        if len(args) != len(self._spec["args"]):
            raise SparcastError("entry '%s' takes %d tensors, got %d"
                                % (self.name, len(self._spec["args"]), len(args)))
        out = self._results(args, out)
        c_args, c_out = self._c_tensors(args, out)
        if stream is None:
            # The raw handle without building a Stream object (a few us a
            # call); the object only when a workspace is first made.
            handle = _current_stream_handle(args[0] if args else out[0])
        else:
            handle = stream.cuda_stream if hasattr(stream, "cuda_stream") else stream
        flags = _RUN_CHECK_INDICES if check_indices else 0
        ws_ptr, ws_bytes = None, 0
        if workspace is not None:
            if not workspace.is_cuda or not workspace.is_contiguous():
                raise SparcastError("workspace must be a contiguous CUDA tensor")
            ws_ptr, ws_bytes = workspace.data_ptr(), workspace.numel() * workspace.element_size()
        else:
            # The size is asked only here, where the package supplies the
            # workspace (the run checks a caller's itself).
            shapes = tuple(t.shape for t in args) + tuple(t.shape for t in out)
            need = self._workspace_need.get(shapes)
            if need is None:
                need = self._bytes(c_args, len(args), c_out, len(out))
                self._workspace_need[shapes] = need
            if need:
                device = out[0].device if out else _torch().device("cuda")
                ws = self._module._stream_workspace(handle, need, device, stream)
                ws_ptr, ws_bytes = ws.data_ptr(), ws.numel()
        status = self._module._lib.scRunWithWorkspace(
            self._module._handle, self._c_name, c_args, len(args), c_out,
            len(out), ctypes.c_void_p(ws_ptr), ws_bytes, ctypes.c_void_p(handle), flags)
        if status != 0:
            raise SparcastError(self._module._lib.scGetLastError().decode())
        return out[0] if len(out) == 1 else tuple(out)


class Module:
    """A loaded artifact directory; entries are attributes."""

    def __init__(self, directory, library=None):
        self.directory = directory
        self._lib = _bind(_find_library(library))
        # The runtime checks the folder first (a regular manifest under its
        # size cap, strict JSON, every kernel file inside the folder): what
        # it refuses raises with its message.
        handle = ctypes.c_void_p()
        if self._lib.scModuleLoad(os.fsencode(directory), ctypes.byref(handle)) != 0:
            raise SparcastError(self._lib.scGetLastError().decode(errors="replace"))
        self._handle = handle
        path = os.path.join(directory, "manifest.json")
        try:
            with open(path, "rb") as f:
                self.manifest = json.loads(f.read().decode("utf-8"))
            self.entries = {e["name"]: Entry(self, e) for e in self.manifest["entries"]}
        except (OSError, ValueError, RecursionError, KeyError, TypeError) as e:
            # The file changed since the runtime read it.
            raise SparcastError("%s: %s" % (path, e)) from e
        # (device, stream handle) -> uint8 CUDA tensor, grown as needed.
        self._workspaces = {}

    def _stream_workspace(self, handle, need, device, stream):
        """The workspace of calls on this stream: one per stream, so that
        calls on several streams at once never share intermediates (the
        runtime's own workspace is one per module)."""
        key = (device, handle)
        ws = self._workspaces.get(key)
        if ws is None or ws.numel() < need:
            torch = _torch()
            if stream is None:  # the current stream, whose handle this is
                stream = torch.cuda.current_stream(device)
            # 256-byte alignment holds: the caching allocator aligns to 512.
            ws = torch.empty(need, dtype=torch.uint8, device=device)
            if hasattr(stream, "cuda_stream"):
                # Freed only after this stream's work is done with it.
                ws.record_stream(stream)
            self._workspaces[key] = ws
        return ws

    def set_tuning(self, tune, cache=None):
        """How a dispatch's alternatives (one GEMM compiled for several
        schedules) are chosen: by the tuning cache `cache` (a file path,
        or None) where it has the call's shape bucket, else by the
        compiler's conditions; with `tune`, a bucket not cached is measured
        on its first call and the fastest cached (scSetTuning)."""
        path = os.fsencode(cache) if cache is not None else None
        if self._lib.scSetTuning(self._handle, 1 if tune else 0, path) != 0:
            raise SparcastError(self._lib.scGetLastError().decode(errors="replace"))

    def __getattr__(self, name):
        entries = self.__dict__.get("entries", {})
        if name in entries:
            return entries[name]
        raise AttributeError("artifact has no entry '%s'" % name)

    def __del__(self):
        lib = self.__dict__.get("_lib")
        handle = self.__dict__.get("_handle")
        if lib is not None and handle:
            lib.scModuleDestroy(handle)


def load(directory, library=None, tune=False, tune_cache=None):
    """Loads a sparcast-aot artifact directory; `tune` and `tune_cache` as
    Module.set_tuning (the environment's SPARCAST_TUNE and
    SPARCAST_TUNE_CACHE otherwise)."""
    module = Module(directory, library)
    if tune or tune_cache is not None:
        module.set_tuning(tune, tune_cache)
    return module


from .hybrid import HybridWeight, hybrid_pack, hybrid_unpack  # noqa: E402,F401
from .similarity import (CsrRows, csr_head, csr_pack, csr_split, csr_transpose,  # noqa: E402,F401
                         similarity, similarity_inputs)
from .compile import CompiledModule, compile, load_compiled  # noqa: E402,F401
