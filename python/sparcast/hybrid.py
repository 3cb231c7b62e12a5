"""Hybrid dense / 2:4 / zero tiles of a weight (docs/hybrid-tiles.md): the
inspector of the runtime's C API (scHybridPlan, scHybridPack,
scHybridUnpack) on torch tensors.

    packed = sparcast.hybrid_pack(w, tile=(64, 64))                # exact
    packed = sparcast.hybrid_pack(w, prune=True, dense_budget=0.3)  # PATCH-like
    packed.kinds, packed.error        # per tile: 0 zero, 1 dense, 2 2:4
    w2 = sparcast.hybrid_unpack(packed)

The work runs on the host: the weight is copied there and the packed
tensors are put back on its device.
"""

import ctypes

from . import SparcastError, _DTYPE_CODES, _check, _dtype_name, _find_library, _torch

TILE_ZERO, TILE_DENSE, TILE_SPARSE24 = 0, 1, 2


class _Shape(ctypes.Structure):
    _fields_ = [("rows", ctypes.c_int64), ("cols", ctypes.c_int64),
                ("tileRows", ctypes.c_int64), ("tileCols", ctypes.c_int64)]


_LIB = {}


def _library(explicit=None):
    """The runtime with the hybrid tiles' functions bound (once a path)."""
    lib = _LIB.get(explicit)
    if lib is not None:
        return lib
    lib = _find_library(explicit)
    p = ctypes.c_void_p
    lib.scHybridPlan.argtypes = [p, ctypes.c_int, ctypes.POINTER(_Shape), ctypes.c_int32,
                                 ctypes.c_double, p, p, ctypes.POINTER(ctypes.c_int64),
                                 ctypes.POINTER(ctypes.c_int64)]
    lib.scHybridPlan.restype = ctypes.c_int
    lib.scHybridPack.argtypes = [p, ctypes.c_int, ctypes.POINTER(_Shape), p, ctypes.c_int64,
                                 ctypes.c_int64, p, p, p, p]
    lib.scHybridPack.restype = ctypes.c_int
    lib.scHybridUnpack.argtypes = [ctypes.POINTER(_Shape), ctypes.c_int, p, p, ctypes.c_int64,
                                   ctypes.c_int64, p, p, p, p]
    lib.scHybridUnpack.restype = ctypes.c_int
    lib.scGetLastError.argtypes = []
    lib.scGetLastError.restype = ctypes.c_char_p
    _LIB[explicit] = lib
    return lib


class HybridWeight:
    """A weight packed in hybrid tiles. Tensors (on the weight's device):
    kinds (uint8 [grid rows, grid cols]: 0 zero, 1 dense, 2 2:4), slots
    (int32, a tile's index among the dense or the 2:4 tiles, -1 for zero),
    dense ([dense tiles, tile rows, tile cols]), sparse ([2:4 tiles, tile
    rows, tile cols / 2]: the two kept values of every four), meta (int32
    holding uint32 words [2:4 tiles, tile rows, tile cols / 32]) and error
    (float32 per tile: the relative Frobenius error of its packing)."""

    def __init__(self, shape, tile, dtype, kinds, slots, dense, sparse, meta, error):
        self.shape, self.tile, self.dtype = tuple(shape), tuple(tile), dtype
        self.kinds, self.slots = kinds, slots
        self.dense, self.sparse, self.meta, self.error = dense, sparse, meta, error

    def buffers(self):
        """The packed tensors in the order sc.assemble_hybrid takes them:
        kinds, slots, dense, sparse, meta."""
        return (self.kinds, self.slots, self.dense, self.sparse, self.meta)

    @property
    def num_dense(self):
        return self.dense.shape[0]

    @property
    def num_sparse(self):
        return self.sparse.shape[0]

    def _c_shape(self):
        return _Shape(self.shape[0], self.shape[1], self.tile[0], self.tile[1])


def _host_weight(weight):
    torch = _torch()
    if not isinstance(weight, torch.Tensor) or weight.dim() != 2:
        raise SparcastError("the weight must be a 2-D torch tensor")
    name = _dtype_name(weight)
    if name not in ("f16", "bf16"):
        raise SparcastError("hybrid tiles hold f16 or bf16 weights, got %s" % weight.dtype)
    return weight.detach().to("cpu").contiguous(), _DTYPE_CODES[name]


def hybrid_pack(weight, tile=(64, 64), prune=False, dense_budget=0.0, library=None):
    """Packs a rows x K weight (f16 or bf16, a torch tensor on any device)
    in `tile`-shaped tiles: all-zero tiles zero, tiles with at most two
    non-zeros in every four along K 2:4, the others dense; with `prune`,
    those are pruned to 2:4 by magnitude except the `dense_budget` fraction
    of all tiles that pruning would change most."""
    torch = _torch()
    lib = _library(library)
    host, code = _host_weight(weight)
    if len(tile) != 2 or tile[0] <= 0 or tile[1] <= 0:
        raise SparcastError("a tile is two positive sizes, got %s" % (tile,))
    shape = _Shape(host.shape[0], host.shape[1], tile[0], tile[1])
    grid = (host.shape[0] // tile[0], host.shape[1] // tile[1])
    kinds = torch.empty(grid, dtype=torch.uint8)
    error = torch.empty(grid, dtype=torch.float32)
    num_dense, num_sparse = ctypes.c_int64(), ctypes.c_int64()
    _check(lib, lib.scHybridPlan(host.data_ptr(), code, ctypes.byref(shape), int(bool(prune)),
                                 float(dense_budget), kinds.data_ptr(), error.data_ptr(),
                                 ctypes.byref(num_dense), ctypes.byref(num_sparse)))
    slots = torch.empty(grid, dtype=torch.int32)
    dense = torch.empty((num_dense.value, tile[0], tile[1]), dtype=host.dtype)
    sparse = torch.empty((num_sparse.value, tile[0], tile[1] // 2), dtype=host.dtype)
    meta = torch.empty((num_sparse.value, tile[0], tile[1] // 32), dtype=torch.int32)
    _check(lib, lib.scHybridPack(host.data_ptr(), code, ctypes.byref(shape), kinds.data_ptr(),
                                 num_dense, num_sparse, slots.data_ptr(), dense.data_ptr(),
                                 sparse.data_ptr(), meta.data_ptr()))
    device = weight.device
    return HybridWeight(host.shape, tile, host.dtype, kinds.to(device), slots.to(device),
                        dense.to(device), sparse.to(device), meta.to(device), error.to(device))


def hybrid_unpack(packed, library=None):
    """The dense weight of a HybridWeight (checked: kinds, slots, metadata),
    on the device of its tensors."""
    torch = _torch()
    lib = _library(library)
    host = {name: getattr(packed, name).detach().to("cpu").contiguous()
            for name in ("kinds", "slots", "dense", "sparse", "meta")}
    out = torch.empty(packed.shape, dtype=packed.dtype)
    shape = packed._c_shape()
    _check(lib, lib.scHybridUnpack(ctypes.byref(shape), _DTYPE_CODES[_dtype_name(out)],
                                   host["kinds"].data_ptr(), host["slots"].data_ptr(),
                                   packed.num_dense, packed.num_sparse,
                                   host["dense"].data_ptr(), host["sparse"].data_ptr(),
                                   host["meta"].data_ptr(), out.data_ptr()))
    return out.to(packed.kinds.device)
