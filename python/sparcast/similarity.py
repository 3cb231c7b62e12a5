"""Sparse rows for cosine similarity (docs/sparse-similarity.md): the
packing of the runtime's C API (scCsrPack, scCsrPackCoo) on torch sparse
tensors and on CSR / COO arrays, never densified.

    rows = sparcast.csr_pack(torch_csr_or_coo)                  # torch
    rows = sparcast.csr_pack((indptr, indices, data), dim=D)     # scipy's arrays
    rows = sparcast.csr_pack(coo=(row, col, data), rows=R, dim=D)
    rows.row_ptr, rows.col_ids, rows.values   # sc.assemble_csr's operands
    rows.norms                                # each row's Euclidean norm

Column ids become one 32-bit word each, #sc.block_csr<block_size,
id_bits = 32 - offset_bits, offset_bits> (10-bit offsets in 1024-column
blocks by default); values fp32. Unsorted or repeated ids, ids outside
[0, D) and non-finite values are refused (a torch COO tensor is coalesced
first: its repeats mean a sum).
"""

import ctypes

from . import SparcastError, _find_library, _torch


class _Shape(ctypes.Structure):
    _fields_ = [("rows", ctypes.c_int64), ("dim", ctypes.c_int64),
                ("blockSize", ctypes.c_int64), ("offsetBits", ctypes.c_int32)]


_LIB = {}


def _library(explicit=None):
    lib = _LIB.get(explicit)
    if lib is not None:
        return lib
    lib = _find_library(explicit)
    p = ctypes.c_void_p
    for name in ("scCsrPack", "scCsrPackCoo"):
        fn = getattr(lib, name)
        fn.argtypes = [ctypes.POINTER(_Shape), p, p, p, ctypes.c_int64, p, p, p, p]
        fn.restype = ctypes.c_int
    lib.scGetLastError.argtypes = []
    lib.scGetLastError.restype = ctypes.c_char_p
    _LIB[explicit] = lib
    return lib


class CsrRows:
    """Sparse rows packed for sc.assemble_csr. Tensors: row_ptr (int32,
    rows + 1), col_ids (int32 holding the uint32 words, nnz), values
    (float32, nnz), norms (float32, rows; 0 for an empty row)."""

    def __init__(self, shape, block_size, offset_bits, row_ptr, col_ids, values, norms):
        self.shape, self.block_size, self.offset_bits = tuple(shape), block_size, offset_bits
        self.row_ptr, self.col_ids, self.values, self.norms = row_ptr, col_ids, values, norms

    @property
    def layout(self):
        """The #sc.block_csr attribute of these rows, as MLIR text."""
        return "#sc.block_csr<block_size = %d, id_bits = %d, offset_bits = %d>" % (
            self.block_size, 32 - self.offset_bits, self.offset_bits)

    def buffers(self):
        """row_ptr, col_ids, values: the operands of sc.assemble_csr."""
        return (self.row_ptr, self.col_ids, self.values)

    def columns(self):
        """The column id of each stored value (int64), decoded from its word."""
        words = self.col_ids.to(_torch().int64) & 0xFFFFFFFF
        return (words >> self.offset_bits) * self.block_size + (words & ((1 << self.offset_bits) - 1))

    def to(self, device):
        t = [x.to(device) for x in (self.row_ptr, self.col_ids, self.values, self.norms)]
        return CsrRows(self.shape, self.block_size, self.offset_bits, *t)


def _host(x, dtype):
    torch = _torch()
    return torch.as_tensor(x).detach().to("cpu", dtype).contiguous()


def csr_pack(x=None, dim=None, coo=None, rows=None, block_size=1024, offset_bits=10,
             library=None):
    """Packs sparse rows: `x` a torch sparse CSR or COO matrix, or a tuple
    (indptr, indices, data) of CSR arrays (with `dim`), or an object with
    those attributes and `shape` (scipy.sparse.csr_matrix); or `coo`, a
    tuple (row, col, data) in any order (with `rows` and `dim`). Returns a
    CsrRows on the host."""
    torch = _torch()
    lib = _library(library)
    coo_arrays = None
    if coo is not None:
        if x is not None or rows is None or dim is None:
            raise SparcastError("csr_pack: coo= takes rows= and dim= and no x")
        coo_arrays = coo
        num_rows = int(rows)
    elif isinstance(x, torch.Tensor) and x.layout == torch.sparse_csr:
        num_rows, dim = x.shape
        indptr, indices, data = x.crow_indices(), x.col_indices(), x.values()
    elif isinstance(x, torch.Tensor) and x.layout == torch.sparse_coo:
        if x.dim() != 2:
            raise SparcastError("csr_pack: a COO tensor of rows is 2-D, got %d-D" % x.dim())
        x = x.coalesce()
        num_rows, dim = x.shape
        coo_arrays = (x.indices()[0], x.indices()[1], x.values())
    elif hasattr(x, "indptr") and hasattr(x, "indices") and hasattr(x, "data"):
        num_rows, dim = x.shape
        indptr, indices, data = x.indptr, x.indices, x.data
    elif isinstance(x, tuple) and len(x) == 3:
        if dim is None:
            raise SparcastError("csr_pack: CSR arrays take dim=")
        indptr, indices, data = x
        num_rows = len(indptr) - 1
    else:
        raise SparcastError("csr_pack: expected a torch sparse CSR or COO matrix, "
                            "CSR arrays (indptr, indices, data) or coo=(row, col, data)")
    shape = _Shape(int(num_rows), int(dim), int(block_size), int(offset_bits))
    if coo_arrays is not None:
        r, c, v = (_host(coo_arrays[0], torch.int64), _host(coo_arrays[1], torch.int64),
                   _host(coo_arrays[2], torch.float32))
        if not r.numel() == c.numel() == v.numel():
            raise SparcastError("csr_pack: row, col and data differ in length")
        nnz, fn, args = v.numel(), lib.scCsrPackCoo, (r, c, v)
    else:
        p, i, v = (_host(indptr, torch.int64), _host(indices, torch.int64),
                   _host(data, torch.float32))
        if p.numel() != shape.rows + 1 or i.numel() != v.numel():
            raise SparcastError("csr_pack: %d row pointers for %d rows, %d ids for %d values"
                                % (p.numel(), shape.rows, i.numel(), v.numel()))
        nnz, fn, args = v.numel(), lib.scCsrPack, (p, i, v)
    row_ptr = torch.empty(max(shape.rows, 0) + 1, dtype=torch.int32)
    col_ids = torch.empty(nnz, dtype=torch.int32)
    values = torch.empty(nnz, dtype=torch.float32)
    norms = torch.empty(max(shape.rows, 0), dtype=torch.float32)
    status = fn(ctypes.byref(shape), *(a.data_ptr() for a in args), nnz, row_ptr.data_ptr(),
                col_ids.data_ptr(), values.data_ptr(), norms.data_ptr())
    if status != 0:
        raise SparcastError(lib.scGetLastError().decode(errors="replace"))
    return CsrRows((shape.rows, shape.dim), block_size, offset_bits, row_ptr, col_ids,
                   values, norms)
