"""Sparse rows for cosine similarity (docs/sparse-similarity.md): the
packing of the runtime's C API (scCsrPack, scCsrPackCoo) on torch sparse
tensors and on CSR / COO arrays, never densified.

    rows = sparcast.csr_pack(torch_csr_or_coo)                  # torch
    rows = sparcast.csr_pack((indptr, indices, data), dim=D)     # scipy's arrays
    rows = sparcast.csr_pack(coo=(row, col, data), rows=R, dim=D)
    rows.row_ptr, rows.col_ids, rows.values   # sc.assemble_csr's operands
    rows.norms                                # each row's Euclidean norm
    head, coverage = sparcast.csr_head(queries, items, max_head=256)
    dense, tail = sparcast.csr_split(queries, head)  # head dense, tail packed
    by_dim = sparcast.csr_transpose(rows)        # D rows: the rows holding each dim

Column ids become one 32-bit word each, #sc.block_csr<block_size,
id_bits = 32 - offset_bits, offset_bits> (10-bit offsets in 1024-column
blocks by default); values fp32. Unsorted or repeated ids, ids outside
[0, D) and non-finite values are refused (a torch COO tensor is coalesced
first: its repeats mean a sum).
"""

import ctypes

from . import SparcastError, _check, _find_library, _torch


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
    i64 = ctypes.c_int64
    lib.scCsrChooseHead.argtypes = [ctypes.POINTER(_Shape), p, p, i64, ctypes.POINTER(_Shape),
                                    p, p, i64, i64, p, ctypes.POINTER(i64),
                                    ctypes.POINTER(ctypes.c_double)]
    lib.scCsrChooseHead.restype = ctypes.c_int
    lib.scCsrSplitHead.argtypes = [ctypes.POINTER(_Shape), p, p, p, i64, p, i64, p, p, p, p,
                                   ctypes.POINTER(i64)]
    lib.scCsrSplitHead.restype = ctypes.c_int
    lib.scCsrTranspose.argtypes = [ctypes.POINTER(_Shape), p, p, p, i64, p, p, p]
    lib.scCsrTranspose.restype = ctypes.c_int
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


def _arrays(x, dim, coo, rows):
    """(rows, dim, indptr, indices, values) as host int64 / float32 CSR
    arrays of any input csr_pack takes, sorted if it was COO (repeats are
    refused by the packing)."""
    torch = _torch()
    if coo is not None:
        if x is not None or rows is None or dim is None:
            raise SparcastError("csr_pack: coo= takes rows= and dim= and no x")
        r, c, v = (_host(coo[0], torch.int64), _host(coo[1], torch.int64),
                   _host(coo[2], torch.float32))
        if not r.numel() == c.numel() == v.numel():
            raise SparcastError("csr_pack: row, col and data differ in length")
        if r.numel() and (r.min() < 0 or r.max() >= rows):
            raise SparcastError("csr_pack: a row id outside [0, %d)" % rows)
        order = torch.argsort(r * int(dim) + c, stable=True) if r.numel() else r
        counts = torch.bincount(r, minlength=int(rows)) if r.numel() else torch.zeros(int(rows), dtype=torch.int64)
        indptr = torch.cat([torch.zeros(1, dtype=torch.int64), counts.cumsum(0)])
        return int(rows), int(dim), indptr, c[order], v[order]
    if isinstance(x, torch.Tensor) and x.layout == torch.sparse_csr:
        num_rows, dim = x.shape
        return (num_rows, dim, _host(x.crow_indices(), torch.int64),
                _host(x.col_indices(), torch.int64), _host(x.values(), torch.float32))
    if isinstance(x, torch.Tensor) and x.layout == torch.sparse_coo:
        if x.dim() != 2:
            raise SparcastError("csr_pack: a COO tensor of rows is 2-D, got %d-D" % x.dim())
        x = x.coalesce()
        return _arrays(None, x.shape[1], (x.indices()[0], x.indices()[1], x.values()),
                       x.shape[0])
    if hasattr(x, "indptr") and hasattr(x, "indices") and hasattr(x, "data"):
        num_rows, dim = x.shape
        return (num_rows, dim, _host(x.indptr, torch.int64), _host(x.indices, torch.int64),
                _host(x.data, torch.float32))
    if isinstance(x, tuple) and len(x) == 3:
        if dim is None:
            raise SparcastError("csr_pack: CSR arrays take dim=")
        p, i, v = (_host(x[0], torch.int64), _host(x[1], torch.int64),
                   _host(x[2], torch.float32))
        return p.numel() - 1, int(dim), p, i, v
    raise SparcastError("csr_pack: expected a torch sparse CSR or COO matrix, "
                        "CSR arrays (indptr, indices, data) or coo=(row, col, data)")


def csr_pack(x=None, dim=None, coo=None, rows=None, block_size=1024, offset_bits=10,
             library=None):
    """Packs sparse rows: `x` a torch sparse CSR or COO matrix, or a tuple
    (indptr, indices, data) of CSR arrays (with `dim`), or an object with
    those attributes and `shape` (scipy.sparse.csr_matrix); or `coo`, a
    tuple (row, col, data) in any order (with `rows` and `dim`). Returns a
    CsrRows on the host."""
    torch = _torch()
    lib = _library(library)
    num_rows, dim, p, i, v = _arrays(x, dim, coo, rows)
    if p.numel() != num_rows + 1 or i.numel() != v.numel():
        raise SparcastError("csr_pack: %d row pointers for %d rows, %d ids for %d values"
                            % (p.numel(), num_rows, i.numel(), v.numel()))
    shape = _Shape(int(num_rows), int(dim), int(block_size), int(offset_bits))
    nnz = v.numel()
    row_ptr = torch.empty(max(shape.rows, 0) + 1, dtype=torch.int32)
    col_ids = torch.empty(nnz, dtype=torch.int32)
    values = torch.empty(nnz, dtype=torch.float32)
    norms = torch.empty(max(shape.rows, 0), dtype=torch.float32)
    _check(lib, lib.scCsrPack(ctypes.byref(shape), p.data_ptr(), i.data_ptr(), v.data_ptr(),
                              nnz, row_ptr.data_ptr(), col_ids.data_ptr(), values.data_ptr(),
                              norms.data_ptr()))
    return CsrRows((shape.rows, shape.dim), block_size, offset_bits, row_ptr, col_ids,
                   values, norms)


def csr_head(queries, items, max_head=256, library=None):
    """The head of a similarity job (docs/sparse-similarity.md): the at
    most `max_head` dimensions carrying the most query x item products,
    most productive first (int64 tensor), and their share of all products.
    `queries` and `items` are what csr_pack takes as `x`."""
    return _choose_head(_arrays(queries, None, None, None), _arrays(items, None, None, None),
                        max_head, library)


def _choose_head(queries, items, max_head, library):
    """csr_head on the (rows, dim, indptr, indices, values) of _arrays."""
    torch = _torch()
    lib = _library(library)
    (qr, qd, qp, qi, _), (ir, idim, ip, ii, _) = queries, items
    qs, its = _Shape(qr, qd, 1024, 10), _Shape(ir, idim, 1024, 10)
    head = torch.empty(max(int(max_head), 0), dtype=torch.int64)
    count, coverage = ctypes.c_int64(), ctypes.c_double()
    _check(lib, lib.scCsrChooseHead(ctypes.byref(qs), qp.data_ptr(), qi.data_ptr(), qi.numel(),
                                    ctypes.byref(its), ip.data_ptr(), ii.data_ptr(), ii.numel(),
                                    int(max_head), head.data_ptr(), ctypes.byref(count),
                                    ctypes.byref(coverage)))
    return head[:count.value].clone(), coverage.value


def _split_arrays(x, head, dim, library):
    """csr_split's head and its tail as CSR arrays (indptr, indices,
    values), not packed."""
    torch = _torch()
    lib = _library(library)
    rows, dim, p, i, v = _arrays(x, dim, None, None)
    head = _host(head, torch.int64)
    shape = _Shape(int(rows), int(dim), 1024, 10)
    dense = torch.empty(rows, head.numel(), dtype=torch.float32)
    tail_ptr = torch.empty(rows + 1, dtype=torch.int64)
    tail_idx = torch.empty(i.numel(), dtype=torch.int64)
    tail_val = torch.empty(v.numel(), dtype=torch.float32)
    tail_nnz = ctypes.c_int64()
    _check(lib, lib.scCsrSplitHead(ctypes.byref(shape), p.data_ptr(), i.data_ptr(), v.data_ptr(),
                                   v.numel(), head.data_ptr(), head.numel(), dense.data_ptr(),
                                   tail_ptr.data_ptr(), tail_idx.data_ptr(), tail_val.data_ptr(),
                                   ctypes.byref(tail_nnz)))
    n = tail_nnz.value
    return dense, (tail_ptr, tail_idx[:n], tail_val[:n])


def csr_split(x, head, dim=None, block_size=1024, offset_bits=10, library=None):
    """Rows (what csr_pack takes as `x`) split at `head` (csr_head's
    columns): the head as a dense float32 [rows, len(head)] tensor and the
    tail as packed CsrRows (their norms: the tail's own)."""
    dim = dim if dim is not None else _arrays(x, None, None, None)[1]
    dense, tail = _split_arrays(x, head, dim, library)
    return dense, csr_pack(tail, dim=dim, block_size=block_size, offset_bits=offset_bits,
                           library=library)


def csr_transpose(x, dim=None, block_size=1024, offset_bits=10, library=None):
    """The transpose of rows (what csr_pack takes as `x`, or a CsrRows),
    packed: dim rows, row d listing the rows that hold dimension d in
    increasing order (sc.sparse_matmul's transpose_rhs form of the items)."""
    torch = _torch()
    lib = _library(library)
    if isinstance(x, CsrRows):
        x, dim = (x.row_ptr.to(torch.int64), x.columns(), x.values), x.shape[1]
    rows, dim, p, i, v = _arrays(x, dim, None, None)
    shape = _Shape(int(rows), int(dim), int(block_size), int(offset_bits))
    t_ptr = torch.empty(int(dim) + 1, dtype=torch.int64)
    t_idx = torch.empty(i.numel(), dtype=torch.int64)
    t_val = torch.empty(v.numel(), dtype=torch.float32)
    _check(lib, lib.scCsrTranspose(ctypes.byref(shape), p.data_ptr(), i.data_ptr(),
                                   v.data_ptr(), v.numel(), t_ptr.data_ptr(),
                                   t_idx.data_ptr(), t_val.data_ptr()))
    return csr_pack((t_ptr, t_idx, t_val), dim=rows, block_size=block_size,
                    offset_bits=offset_bits, library=library)


class SimilarityInputs:
    """What the compiled similarity entry (examples/similarity.mlir) takes,
    on the host: the heads, the tails, the inverse norms, and the inspector's
    head columns and their share of the pair products."""

    def __init__(self, args, head, coverage):
        self.args, self.head, self.coverage = args, head, coverage

    def to(self, device, non_blocking=False):
        args = [a.to(device, non_blocking=non_blocking) for a in self.args]
        return SimilarityInputs(args, self.head, self.coverage)

    def pin(self):
        return SimilarityInputs([a.pin_memory() for a in self.args], self.head, self.coverage)


def _padded(t, width):
    torch = _torch()
    out = torch.zeros(t.shape[0], width, dtype=torch.float32)
    out[:, :t.shape[1]] = t
    return out


def _nonempty(rows):
    """row_ptr, col_ids, values of packed rows, with one unread entry when
    there is none (an entry's tensors have no zero-sized dims)."""
    torch = _torch()
    if rows.values.numel():
        return [rows.row_ptr, rows.col_ids, rows.values]
    return [rows.row_ptr, torch.zeros(1, dtype=torch.int32), torch.zeros(1, dtype=torch.float32)]


def _inverse_norms(norms):
    """1 / norm in fp64 rounded once to fp32 (at most FLT_MAX), 0 for an
    empty row: what the similarity entries take (csr::inverseNorm)."""
    torch = _torch()
    inverse = (1 / norms.double()).clamp(max=torch.finfo(torch.float32).max)
    return torch.where(norms > 0, inverse, torch.zeros_like(inverse)).float()


class _Inspector:
    """The inspector of a similarity (docs/sparse-similarity.md) over host
    CSR arrays: the head (at most `max_head` dims carrying the most pair
    products, its width padded to a multiple of 16 with zero columns), the
    queries split at it, and any range of items split at it with their
    tail by dimension."""

    def __init__(self, queries, items, max_head, library):
        self.library = library
        self.queries = _arrays(queries, None, None, None)
        self.items = _arrays(items, None, None, None)
        if self.queries[1] != self.items[1]:
            raise SparcastError("similarity: queries over D = %d, items over D = %d"
                                % (self.queries[1], self.items[1]))
        self.dim = self.queries[1]
        q = self.queries[2:]
        self.head, self.coverage = _choose_head(self.queries, self.items, max_head, library)
        self.width = max(16, (self.head.numel() + 15) // 16 * 16)
        head, tail = csr_split(q, self.head, dim=self.dim, library=library)
        norms = csr_pack(q, dim=self.dim, library=library).norms
        self.query_args = [_padded(head, self.width)], _nonempty(tail), [_inverse_norms(norms)]

    @property
    def num_items(self):
        return self.items[0]

    def inputs(self, start, stop):
        """The entry's arguments for items [start, stop)."""
        _, _, p, i, v = self.items
        a, b = int(p[start]), int(p[stop])
        rows = (p[start:stop + 1] - a, i[a:b], v[a:b])
        # The tail transposed from its arrays (no packing and decoding).
        head, tail = _split_arrays(rows, self.head, self.dim, self.library)
        by_dim = csr_transpose(tail, dim=self.dim, library=self.library)
        norms = csr_pack(rows, dim=self.dim, library=self.library).norms
        q_head, q_tail, q_inverse = self.query_args
        # The entry's argument order: heads, query tail, items by dim,
        # inverse norms.
        args = (q_head + [_padded(head, self.width)] + q_tail + _nonempty(by_dim) + q_inverse
                + [_inverse_norms(norms)])
        return SimilarityInputs(args, self.head, self.coverage)


class _Uploads:
    """Chunks' inputs copied to the device through pinned memory on a
    stream of their own, so that a chunk's copies overlap the kernels of
    the chunk before; `ready` makes the compute stream wait for them."""

    def __init__(self, device):
        torch = _torch()
        cuda = torch.device(device).type == "cuda"
        self.device = device
        self.stream = torch.cuda.Stream(device=device) if cuda else None

    def start(self, inputs):
        torch = _torch()
        if self.stream is None:
            return inputs.to(self.device).args, None
        pinned = inputs.pin()
        with torch.cuda.stream(self.stream):
            args = pinned.to(self.device, non_blocking=True).args
            done = torch.cuda.Event()
            done.record(self.stream)
        return args, done

    def ready(self, started):
        torch = _torch()
        args, done = started
        if done is not None:
            compute = torch.cuda.current_stream(self.device)
            compute.wait_event(done)
            # Allocated on the copy stream, used on the compute stream.
            for a in args:
                a.record_stream(compute)
        return args


def similarity_inputs(queries, items, max_head=16, library=None):
    """The inspector's output for the whole job: the entry's arguments
    (heads, query tail, items' tail by dimension, the full rows' inverse
    norms) as a SimilarityInputs on the host. `queries` and `items` are
    what csr_pack takes as `x`."""
    inspector = _Inspector(queries, items, max_head, library)
    return inspector.inputs(0, inspector.num_items)


def _chunk_items(num_queries, num_items, k):
    """Items a chunk: what fits in 40 % of the free GPU memory (the scores
    and, for the candidates, their workspace), a multiple of 128."""
    torch = _torch()
    free, _ = torch.cuda.mem_get_info()
    per_item = num_queries * 4 * 2
    return max(128, min(num_items, int(0.4 * free / per_item)) // 128 * 128)


def _merge_top_k(top_values, top_ids, values, ids, k):
    """The k largest of each row of both sets (values and their item ids)."""
    torch = _torch()
    if top_values is not None:
        values, ids = torch.cat([top_values, values], 1), torch.cat([top_ids, ids], 1)
    values, at = torch.topk(values, min(k, values.shape[1]), dim=1)
    return values, torch.gather(ids, 1, at)


def _chunk_top_k(scores, start, k):
    """The k largest of each row of a chunk's dense scores and their items."""
    torch = _torch()
    values, at = torch.topk(scores, min(k, scores.shape[1]), dim=1)
    return values, at + start


def _progress(show, done, chunks, items_done, items):
    """A bar on stderr after chunk `done` of `chunks`."""
    if show:
        import sys
        bar = "#" * (done * 40 // chunks)
        sys.stderr.write("\rsimilarity [%-40s] %d / %d items" % (bar, items_done, items))
        sys.stderr.flush()


def _pairs_above(module, args, above, capacity, start):
    """The chunk's pairs above the threshold `above` (one a query) as host
    COO in row-major order, selected in the kernel; None when some query
    has more than `capacity` of them (the caller computes the chunk
    densely)."""
    torch = _torch()
    counts, values, cols = module.cosine_candidates(*args, above)
    if bool((counts > capacity).any()):
        return None
    rows, slots = torch.nonzero(cols >= 0, as_tuple=True)
    c = cols[rows, slots].long()
    order = torch.argsort(rows * (int(c.max()) + 1 if c.numel() else 1) + c)
    return (rows[order].cpu(), (c[order] + start).cpu(), values[rows, slots][order].cpu())


def _candidate_slots(module):
    """The slots a query has in the artifact's cosine_candidates entry (the
    selection's capacity), or None without that entry."""
    entry = module.entries.get("cosine_candidates")
    return int(entry._spec["results"][1]["shape"][1]) if entry else None


def _candidate_chunks(items, k, capacity, size):
    """The (start, stop) chunks of a top-k through cosine_candidates: first
    as many items as half the slots (scored densely; through the candidates
    with no threshold every pair would come out, at most twice, so it could
    not overflow), then chunks of about
    seen * capacity / (4 k) items (about k * chunk / seen candidates a
    query, a quarter of the slots), at most `size`, in multiples of 128."""
    chunks, stop = [], min(items, capacity // 2)
    chunks.append((0, stop))
    while stop < items:
        grow = max(128, stop * capacity // (4 * k) // 128 * 128)
        chunks.append((stop, min(items, stop + min(size, grow))))
        stop = chunks[-1][1]
    return chunks


def _candidates_top_k(module, args, theta, start, k, capacity):
    """The k largest candidates of a chunk above `theta` (values, item ids;
    an empty slot's id -1) and the largest count of a query, or None when a
    query had more than its slots."""
    torch = _torch()
    counts, values, cols = module.cosine_candidates(*args, theta)
    most = int(counts.max())
    if most > capacity:
        return None
    # Slots past the largest count are empty in every row: ranked only up
    # to it (an emptied slot below it ranks last, -inf / -1).
    width = max(1, most)
    values, at = torch.topk(values[:, :width], min(k, width), dim=1)
    c = torch.gather(cols[:, :width], 1, at).long()
    return values, torch.where(c >= 0, c + start, c), most


def _top_k_by_candidates(module, inspector, k, size, device, show):
    """Top-k without writing the scores: the first (small) chunk densely,
    then each chunk's candidates above the k-th largest so far
    (cosine_candidates: the selection fused into the kernel), merged with
    the k so far (ties with the threshold are among them already). A chunk
    where some query has more candidates than slots is recomputed
    densely."""
    import sys
    torch = _torch()
    N = inspector.num_items
    capacity = _candidate_slots(module)
    chunks = _candidate_chunks(N, k, capacity, size)
    uploads = _Uploads(device)
    top_values = top_ids = None
    recomputed = 0

    def upload(c):
        if c >= len(chunks):
            return None
        return uploads.start(inspector.inputs(*chunks[c]))

    pending = upload(0)
    for c, (start, stop) in enumerate(chunks):
        args = uploads.ready(pending)
        # The first chunk densely (with no threshold every pair would be a
        # candidate: a query's whole count on one counter), the others above
        # the k-th largest so far.
        if c == 0:
            found = _chunk_top_k(module.cosine(*args), start, k)
        else:
            found = _candidates_top_k(module, args, top_values[:, -1].contiguous(), start, k,
                                      capacity)
            if found is not None:
                found = found[:2]  # without the largest count (the bench's)
        # The next chunk's inspector on the host while these kernels run
        # (the check below waits for them).
        pending = upload(c + 1)
        if found is None:
            recomputed += 1
            found = _chunk_top_k(module.cosine(*args), start, k)
        top_values, top_ids = _merge_top_k(top_values, top_ids, *found, k)
        _progress(show, c + 1, len(chunks), stop, N)
    if show:
        sys.stderr.write("\n")
    _top_k_by_candidates.recomputed = recomputed
    return top_values, top_ids


def _default_artifact(library):
    """The artifact of examples/similarity.mlir, compiled with sparcast-aot
    once per version of the file (a folder in the temp directory named by
    its hash)."""
    import hashlib
    import os
    import subprocess
    import tempfile
    from . import load
    from .compile import _find_aot
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    source = os.path.join(root, "examples", "similarity.mlir")
    if not os.path.isfile(source):
        raise SparcastError("similarity: no artifact given and %s not found" % source)
    with open(source, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    out = os.path.join(tempfile.gettempdir(), "sparcast-similarity-" + digest)
    if not os.path.isfile(os.path.join(out, "manifest.json")):
        staging = tempfile.mkdtemp(prefix="sparcast-similarity-")
        done = subprocess.run([_find_aot(None), source, "-o", staging],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SparcastError("similarity: sparcast-aot failed:\n" + done.stderr)
        try:
            os.replace(staging, out)
        except OSError:  # compiled by another process meanwhile
            pass
    return load(out, library)


def similarity(queries, items, k=None, threshold=None, chunk=None, artifact=None, out=None,
               callback=None, max_head=16, progress=None, device="cuda", library=None):
    """Exact fp32 cosines of every query row against every item row (0
    against a row with no entries), computed by the compiled entry `cosine`
    of `artifact` (a sparcast-aot output of examples/similarity.mlir, or a
    loaded Module; by default that file compiled once and kept in the temp
    directory) over chunks of `chunk` items (default: what fits in the
    free GPU memory), the inspector of the next chunk running on the host
    while the GPU computes this one. Returns
      - with `k`: the k largest cosines of each query and their item ids,
        ([M, k] float32, [M, k] int64) on the GPU, merged across chunks
        (with the artifact's `cosine_candidates` entry the chunks' scores
        are never written: only those above each query's k-th largest so
        far come out of the kernel);
      - with `threshold`: the pairs above it as COO on the host (rows,
        cols, values), row-major within a chunk (with `cosine_candidates`
        selected in the kernel, a chunk where a query has more than its
        slots computed densely);
      - with `callback`: None, callback(start, scores) called with each
        chunk's [M, n] scores on the GPU (items start .. start + n);
      - with `out` (an [M, N] float32 host tensor): `out`, filled chunk by
        chunk through pinned buffers;
      - else the [M, N] scores on the GPU.
    """
    import sys
    torch = _torch()
    from . import Module, load
    if artifact is None:
        module = _default_artifact(library)
    else:
        module = artifact if isinstance(artifact, Module) else load(artifact, library=library)
    inspector = _Inspector(queries, items, max_head, library)
    M, N = inspector.queries[0], inspector.num_items
    if k is not None and not 1 <= int(k) <= N:
        raise SparcastError("similarity: k must be in [1, %d], got %s" % (N, k))
    size = int(chunk) if chunk else _chunk_items(M, N, k)
    if size < 1:
        raise SparcastError("similarity: chunk must be >= 1, got %d" % size)
    capacity = _candidate_slots(module)
    if k is not None and threshold is None and capacity is not None:
        show = progress if progress is not None else sys.stderr.isatty()
        return _top_k_by_candidates(module, inspector, int(k), size, device, show)
    starts = list(range(0, N, size))
    show = progress if progress is not None else (len(starts) > 4 and sys.stderr.isatty())
    dense = k is None and threshold is None and callback is None and out is None
    result = torch.empty(M, N, device=device) if dense else None
    top_values = top_ids = None
    pairs = []
    staging = None
    # Pairs above a threshold: the selection fused into the kernel, the
    # threshold every query's, when the artifact has it.
    above = None
    recomputed = 0
    if threshold is not None and capacity is not None:
        above = torch.full((M,), float(threshold), device=device)
    uploads = _Uploads(device)
    pending = uploads.start(inspector.inputs(0, min(size, N)))
    for c, start in enumerate(starts):
        stop = min(start + size, N)
        args = uploads.ready(pending)
        # The next chunk's inputs on the copy stream during this one's kernels.
        if c + 1 < len(starts):
            pending = uploads.start(inspector.inputs(stop, min(stop + size, N)))
        if above is not None:
            found = _pairs_above(module, args, above, capacity, start)
            if found is not None:
                pairs.append(found)
                _progress(show, c + 1, len(starts), stop, N)
                continue
            recomputed += 1
        # One chunk writes the result in place; several are copied into
        # its columns (a column slice is not a row-major tensor).
        if dense and len(starts) == 1:
            scores = module.cosine(*args, out=[result])
        else:
            scores = module.cosine(*args)
        if dense and len(starts) > 1:
            result[:, start:stop] = scores
        elif k is not None:
            v, i = _chunk_top_k(scores, start, int(k))
            top_values, top_ids = (v, i) if top_values is None else \
                _merge_top_k(top_values, top_ids, v, i, int(k))
        elif threshold is not None:
            r, col = torch.nonzero(scores > float(threshold), as_tuple=True)
            pairs.append((r.cpu(), (col + start).cpu(), scores[r, col].cpu()))
        elif callback is not None:
            callback(start, scores)
        else:
            if staging is None or staging.shape[1] < stop - start:
                staging = torch.empty(M, stop - start, pin_memory=True)
            view = staging[:, :stop - start]
            view.copy_(scores, non_blocking=True)
            torch.cuda.current_stream().synchronize()
            out[:, start:stop] = view
        _progress(show, c + 1, len(starts), stop, N)
    if show:
        sys.stderr.write("\n")
    similarity.recomputed = recomputed
    if dense:
        return result
    if k is not None:
        return top_values, top_ids
    if threshold is not None:
        if not pairs:
            return (torch.zeros(0, dtype=torch.int64),) * 2 + (torch.zeros(0),)
        return tuple(torch.cat([p[j] for p in pairs]) for j in range(3))
    return out
