"""The `capi` engine of spark/roadsnap_match.py: libroadsnap's C API (include/roadsnap.h) through ctypes, inside
`mapInArrow`, with no text between Spark and the engine.

One `Engine` per Python worker process (Spark reuses its Python workers, so every task after the first finds the map
open): the shared library and the compiled map are shipped once per executor with `SparkContext.addFile`, opened
with `rs_map_open`, and one `rs_matcher` matches every track of the process's tasks. A task's Arrow batches (fixes
sorted by track id, then time) are cut into tracks with Arrow compute; each track goes to `rs_matcher_match` as one
array of `rs_fix` (built with numpy, no Python loop per fix), its per-fix results come back as one array of
`rs_matched_fix` (read with numpy), and the sub-matches through `rs_match_get_sub_match`, `rs_match_get_edges` and
`rs_match_get_geometry` (a few calls per sub-match). The output batches are built column-wise (Arrow list and struct
arrays from numpy buffers) in the RESULT schema of the pipe engine.

The results are the pipe engine's (`roadsnap match --input ndjson`), value for value: the same usable fixes (the
stream's checks of latitude/longitude, time and the optional columns, with the same reasons for skipped rows), the
same rounding of lengths, durations, confidences, offsets and distances to 3 decimals (Swift's `rounded()`: half
away from zero), the edges' source ids as text (consecutive repeats collapsed), a lone matched point repeated in the WKT line. One difference: an
error names the track (`track "ID": ...`), where the pipe names the stream's line (`stdin:LINE (id "ID"): ...`).
"""

import ctypes
import math
import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

RS_OK = 0
RS_E_BUFFER_TOO_SMALL = 9  # checked against rs_status_name when the library is loaded
RS_MATCH_MATCHED = 1


class MatchOptions(ctypes.Structure):
    _fields_ = [("sigma", ctypes.c_double), ("estimate_sigma", ctypes.c_int32), ("max_candidates", ctypes.c_int32),
                ("beta", ctypes.c_double), ("radius", ctypes.c_double), ("max_gap", ctypes.c_double)]


class MatchInfo(ctypes.Structure):
    _fields_ = [("fix_count", ctypes.c_int64), ("matched_count", ctypes.c_int64),
                ("sub_match_count", ctypes.c_int64), ("sigma", ctypes.c_double)]


class SubMatchInfo(ctypes.Structure):
    _fields_ = [("first_fix", ctypes.c_int64), ("last_fix", ctypes.c_int64), ("matched_fix_count", ctypes.c_int64),
                ("edge_count", ctypes.c_int64), ("point_count", ctypes.c_int64), ("length", ctypes.c_double),
                ("duration", ctypes.c_double), ("confidence", ctypes.c_double)]


# rs_fix: 7 doubles; rs_matched_fix: int32 status, int32 forward, int64 sub_match, int64 edge, 5 doubles.
FIX_FIELDS = ("latitude", "longitude", "time", "course", "speed", "altitude", "accuracy")
MATCHED_FIX = np.dtype([("status", "<i4"), ("forward", "<i4"), ("sub_match", "<i8"), ("edge", "<i8"),
                        ("lat", "<f8"), ("lon", "<f8"), ("distance", "<f8"), ("offset", "<f8"), ("along", "<f8")])
assert MATCHED_FIX.itemsize == 64

MAX_FIX_TIME = 1e11  # Fix.maxTime: the stream skips a fix whose time is beyond it


def rounded3(v):
    """Swift's `(v * 1000).rounded() / 1000` (half away from zero) on a numpy array or a float."""
    t = np.asarray(v, dtype=np.float64) * 1000.0
    r = np.trunc(t)
    r = r + np.where(np.abs(t - r) >= 0.5, np.sign(t), 0.0)
    return r / 1000.0


def _swift(v):
    """A Double as Swift's description writes it (shortest round trip; `95.0`, `1e+20`, `nan`)."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(float(v))


class CAPIError(Exception):
    pass


class Engine:
    """libroadsnap with one open map and one matcher (one per Python worker process: see `Engine.get`)."""

    _cache = {}

    @classmethod
    def get(cls, lib_path, map_path, options):
        key = (lib_path, map_path, tuple(sorted(options.items())))
        engine = cls._cache.get(key)
        if engine is None:
            engine = cls._cache[key] = cls(lib_path, map_path, options)
        return engine

    def __init__(self, lib_path, map_path, options):
        lib = self.lib = ctypes.CDLL(lib_path)
        vp, sz, i64 = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int64
        for name, args in (("rs_map_open", [ctypes.c_char_p, ctypes.POINTER(vp)]),
                           ("rs_map_close", [vp]),
                           ("rs_matcher_create", [vp, ctypes.POINTER(MatchOptions), ctypes.POINTER(vp)]),
                           ("rs_matcher_destroy", [vp]),
                           ("rs_matcher_match", [vp, vp, sz, vp, ctypes.POINTER(vp)]),
                           ("rs_match_close", [vp]),
                           ("rs_match_get_info", [vp, ctypes.POINTER(MatchInfo)]),
                           ("rs_match_get_sub_match", [vp, sz, ctypes.POINTER(SubMatchInfo)]),
                           ("rs_match_get_edges", [vp, sz, vp, sz, ctypes.POINTER(sz)]),
                           ("rs_match_get_geometry", [vp, sz, vp, sz, ctypes.POINTER(sz)]),
                           ("rs_map_edge_source_id", [vp, i64, ctypes.c_char_p, sz, ctypes.POINTER(sz)])):
            f = getattr(lib, name)
            f.argtypes, f.restype = args, ctypes.c_int32
        lib.rs_last_error_message.argtypes, lib.rs_last_error_message.restype = [], ctypes.c_char_p
        lib.rs_status_name.argtypes, lib.rs_status_name.restype = [ctypes.c_int32], ctypes.c_char_p
        if lib.rs_status_name(RS_E_BUFFER_TOO_SMALL) != b"RS_E_BUFFER_TOO_SMALL":
            raise CAPIError(f"{lib_path}: status {RS_E_BUFFER_TOO_SMALL} is not RS_E_BUFFER_TOO_SMALL")
        self.map = vp()
        self._check(lib.rs_map_open(map_path.encode(), ctypes.byref(self.map)), "rs_map_open")
        o = MatchOptions()
        sigma = options.get("sigma")
        if sigma == "auto":
            o.estimate_sigma = 1
        elif sigma is not None:
            o.sigma = float(sigma)
        if options.get("beta") is not None:
            o.beta = float(options["beta"])
        if options.get("radius") is not None:
            o.radius = float(options["radius"])
        if options.get("candidates") is not None:
            o.max_candidates = int(options["candidates"])
        self.matcher = vp()
        self._check(lib.rs_matcher_create(self.map, ctypes.byref(o), ctypes.byref(self.matcher)),
                    "rs_matcher_create")
        self.source_ids = {}  # edge index -> source id text (the map is immutable)
        self._edges = np.empty(256, dtype=np.int64)
        self._points = np.empty(2 * 1024, dtype=np.float64)
        self._idbuf = ctypes.create_string_buffer(256)

    def _check(self, status, what):
        if status != RS_OK:
            raise CAPIError(f"{what}: {self.lib.rs_status_name(status).decode()}: "
                            f"{self.lib.rs_last_error_message().decode(errors='replace')}")

    def source_id(self, edge):
        s = self.source_ids.get(edge)
        if s is None:
            n = ctypes.c_size_t()
            st = self.lib.rs_map_edge_source_id(self.map, edge, self._idbuf, len(self._idbuf), ctypes.byref(n))
            if st == RS_E_BUFFER_TOO_SMALL:
                self._idbuf = ctypes.create_string_buffer(n.value + 1)
                st = self.lib.rs_map_edge_source_id(self.map, edge, self._idbuf, len(self._idbuf), ctypes.byref(n))
            self._check(st, f"rs_map_edge_source_id({edge})")
            s = self.source_ids[edge] = self._idbuf.value.decode()
        return s

    def _read(self, fn, match, k, buf, per_item):
        """rs_match_get_edges / _geometry into a reusable buffer grown on RS_E_BUFFER_TOO_SMALL; a copy."""
        n = ctypes.c_size_t()
        st = fn(match, k, buf.ctypes.data, len(buf) // per_item, ctypes.byref(n))
        if st == RS_E_BUFFER_TOO_SMALL:
            buf = np.empty(max(2 * len(buf), n.value * per_item), dtype=buf.dtype)
            st = fn(match, k, buf.ctypes.data, len(buf) // per_item, ctypes.byref(n))
        self._check(st, fn.__name__)
        return buf, buf[:n.value * per_item].copy()

    def match(self, fixes, rows):
        """Matches one track: `fixes` a C-contiguous (n, 7) float64 array of rs_fix (usable fixes only), `rows` their
        input rows. Returns (matched_count, sub-match tuples, rs_matched_fix array)."""
        lib = self.lib
        n = len(fixes)
        out = np.empty(n, dtype=MATCHED_FIX)
        match = ctypes.c_void_p()
        self._check(lib.rs_matcher_match(self.matcher, fixes.ctypes.data, n, out.ctypes.data, ctypes.byref(match)),
                    "rs_matcher_match")
        try:
            info = MatchInfo()
            self._check(lib.rs_match_get_info(match, ctypes.byref(info)), "rs_match_get_info")
            subs = []
            s = SubMatchInfo()
            for k in range(info.sub_match_count):
                self._check(lib.rs_match_get_sub_match(match, k, ctypes.byref(s)), "rs_match_get_sub_match")
                self._edges, edges = self._read(lib.rs_match_get_edges, match, k, self._edges, 1)
                self._points, pts = self._read(lib.rs_match_get_geometry, match, k, self._points, 2)
                if len(pts) == 2:  # a lone point: a line needs two (as the pipe writes it)
                    pts = np.concatenate([pts, pts])
                wkt = "LINESTRING (" + ", ".join(
                    f"{repr(float(pts[j + 1]))} {repr(float(pts[j]))}" for j in range(0, len(pts), 2)) + ")"
                duration = None if math.isnan(s.duration) else float(rounded3(s.duration))
                ids = []  # the edges' source ids, consecutive repeats collapsed (MapMatcher.edgeSourceIDs)
                for e in edges.tolist():
                    sid = self.source_id(e)
                    if not ids or ids[-1] != sid:
                        ids.append(sid)
                subs.append((k, ids, float(rounded3(s.length)), duration,
                             float(rounded3(s.confidence)), int(rows[s.first_fix]), int(rows[s.last_fix]),
                             int(s.matched_fix_count), wkt))
            return int(info.matched_count), subs, out
        finally:
            lib.rs_match_close(match)


def usable(n, t, lat, lon, optional):
    """The stream's checks (NDJSONTrackReader.makeFix, TrackBuilder.add) on one track's columns (float64 arrays,
    NaN for null): (boolean mask of usable rows, skipped [(row or None, reason)], the first skipped row's reason for a
    track with no usable fix)."""
    bad_ll = np.isnan(lat) | np.isnan(lon)
    bad_range = ~bad_ll & ((np.abs(lat) > 90) | (np.abs(lon) > 180))
    bad_opt = np.zeros(n, dtype=bool)
    for name, v in optional.items():
        present = ~np.isnan(v)  # a null value is no value
        if name == "speed" or name == "accuracy":
            bad_opt |= present & (np.isinf(v) | (v < 0))
        else:
            bad_opt |= present & np.isinf(v)
    bad_time = ~np.isnan(t) & (np.abs(t) > MAX_FIX_TIME)
    ok = ~(bad_ll | bad_range | bad_opt | bad_time)
    skipped = []
    if not ok.all():
        for r in np.flatnonzero(~ok):
            r = int(r)
            if bad_ll[r]:
                show = ["null" if math.isnan(x) else _swift(x) for x in (lat[r], lon[r])]
                skipped.append((r, f"lat, lon ({show[0]}, {show[1]}) are not numbers"))
            elif abs(lat[r]) > 90:
                skipped.append((r, f"latitude {_swift(lat[r])} out of range [-90, 90]"))
            elif abs(lon[r]) > 180:
                skipped.append((r, f"longitude {_swift(lon[r])} out of range [-180, 180]"))
            elif bad_opt[r]:
                for name, v in optional.items():
                    x = v[r]
                    if not math.isnan(x) and (math.isinf(x) or (name in ("speed", "accuracy") and x < 0)):
                        what = {"speed": "is not a speed", "accuracy": "is not a distance",
                                "course": "is not a bearing in degrees"}[name]
                        skipped.append((r, f"{name} {_swift(x)} {what}"))
                        break
            else:  # TrackBuilder.add: no "fix R:" prefix, so the stream writes no row
                skipped.append((None, f"time {_swift(t[r])} s is beyond ±1e11 s from 1970-01-01 (years -1200...5100)"))
    return ok, skipped


class Results:
    """Per-track results of one output batch, gathered column-wise, as a RecordBatch in the pipe engine's schema."""

    def __init__(self):
        self.track_id, self.status, self.error, self.fixes, self.matched = [], [], [], [], []
        self.subs, self.sub_offsets = [], [0]
        self.skipped, self.skip_offsets = [], [0]
        self.fix_parts, self.fix_offsets = [], [0]

    def __len__(self):
        return len(self.track_id)

    def add(self, tid, status, error, fixes, matched, subs, fix_part, skipped):
        self.track_id.append(tid)
        self.status.append(status)
        self.error.append(error)
        self.fixes.append(fixes)
        self.matched.append(matched)
        self.subs.extend(subs)
        self.sub_offsets.append(len(self.subs))
        self.skipped.extend(skipped)
        self.skip_offsets.append(len(self.skipped))
        n = 0 if fix_part is None else len(fix_part[0])
        if n:
            self.fix_parts.append(fix_part)
        self.fix_offsets.append(self.fix_offsets[-1] + n)

    def batch(self, schema):
        """The RecordBatch (Arrow schema of RESULT)."""
        f = {field.name: field.type for field in schema}
        sub_t, fix_t, skip_t = (f["sub_matches"].value_type, f["fix_results"].value_type, f["skipped"].value_type)
        sub_fields = [sub_t.field(i) for i in range(sub_t.num_fields)]
        if self.subs:
            cols = list(zip(*self.subs))
            subs = pa.StructArray.from_arrays([pa.array(list(c), type=fld.type) for c, fld in zip(cols, sub_fields)],
                                              fields=sub_fields)
        else:
            subs = pa.array([], type=sub_t)
        skips = pa.StructArray.from_arrays(
            [pa.array([s[0] for s in self.skipped], type=pa.int32()),
             pa.array([s[1] for s in self.skipped], type=pa.string())], fields=[skip_t.field(i) for i in range(skip_t.num_fields)])
        if self.fix_parts:
            parts = list(zip(*self.fix_parts))
            row = np.concatenate(parts[0]).astype(np.int32)
            edge = pa.concat_arrays(list(parts[1])).cast(pa.string())
            matched = np.concatenate(parts[2])
            sub = np.concatenate(parts[3]).astype(np.int32)
            nulls = ~matched
            fixes = pa.StructArray.from_arrays(
                [pa.array(row, type=pa.int32()), edge, pa.array(sub, type=pa.int32(), mask=nulls)]
                + [pa.array(np.concatenate(parts[k]), type=pa.float64(), mask=nulls) for k in (4, 5, 6, 7)],
                fields=[fix_t.field(i) for i in range(fix_t.num_fields)])
        else:
            fixes = pa.array([], type=fix_t)
        return pa.RecordBatch.from_arrays([
            pa.array(self.track_id, type=pa.string()), pa.array(self.status, type=pa.string()),
            pa.array(self.error, type=pa.string()), pa.array(self.fixes, type=pa.int32()),
            pa.array(self.matched, type=pa.int32()),
            pa.ListArray.from_arrays(pa.array(self.sub_offsets, type=pa.int32()), subs),
            pa.ListArray.from_arrays(pa.array(self.fix_offsets, type=pa.int32()), fixes),
            pa.ListArray.from_arrays(pa.array(self.skip_offsets, type=pa.int32()), skips),
        ], schema=schema)


def match_track(engine, tid, columns, optional_names, per_fix, results):
    """Matches one track (its columns: numpy float64 arrays t, lat, lon, then the optional ones) into `results`."""
    t, lat, lon = columns[0], columns[1], columns[2]
    n = len(lat)
    optional = dict(zip(optional_names, columns[3:]))
    t = np.where(np.abs(t) > 1e11, t / 1000.0, t)  # TrackTime.fromEpochNumber: milliseconds by magnitude
    ok, skipped = usable(n, t, lat, lon, optional)
    rows = np.flatnonzero(ok)
    if len(rows) == 0:
        reason = "no usable fix"
        if skipped:
            first = skipped[0]
            reason += f"; {'' if first[0] is None else f'fix {first[0]}: '}{first[1]}"
            if len(skipped) > 1:
                reason += f" (and {len(skipped) - 1} more unusable rows)"
        results.add(tid, "error", f'track "{tid}": {reason}', None, None, [], None, [])
        return
    fixes = np.full((len(rows), 7), np.nan)
    fixes[:, 0], fixes[:, 1], fixes[:, 2] = lat[rows], lon[rows], t[rows]
    for name, v in optional.items():
        v = v[rows]
        if name == "course":
            v = np.fmod(v, 360.0)
            v = np.where(v < 0, v + 360.0, v)
        fixes[:, FIX_FIELDS.index(name)] = v
    try:
        matched, subs, out = engine.match(fixes, rows)
    except CAPIError as e:
        results.add(tid, "error", f'track "{tid}": {e}', None, None, [], None, skipped)
        return
    part = None
    if per_fix:
        is_matched = out["status"] == RS_MATCH_MATCHED
        edges = out["edge"]
        uniq, inverse = np.unique(edges[is_matched], return_inverse=True)
        names = pa.array([engine.source_id(int(e)) for e in uniq], type=pa.string())
        idx = np.zeros(len(rows), dtype=np.int64)
        idx[is_matched] = inverse
        edge_col = names.take(pa.array(idx, mask=~is_matched)) if len(uniq) else pa.nulls(len(rows), pa.string())
        part = (rows, edge_col, is_matched, out["sub_match"], rounded3(out["offset"]), rounded3(out["distance"]),
                out["lat"].copy(), out["lon"].copy())
    results.add(tid, "ok", None, len(rows), matched, subs, part, skipped)


def _float_column(col):
    if pa.types.is_timestamp(col.type):
        col = col.cast(pa.int64()).cast(pa.float64())  # not reached: match_fixes casts times to double
    return np.asarray(col.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)


def match_batches(batches, lib_name, map_name, options, optional_names, per_fix, schema):
    """mapInArrow body: the task's batches (columns _id, _t, _lat, _lon, then the optional ones; rows sorted by
    _id, then _t) to RESULT batches. A track may span batches: its pieces are joined before it is matched."""
    from pyspark import SparkFiles
    engine = Engine.get(SparkFiles.get(lib_name), SparkFiles.get(map_name), options)
    pending, pending_id = [], None

    def flush(results):
        cols = [np.concatenate([_float_column(p.column(k)) for p in pending])
                for k in range(1, pending[0].num_columns)]
        match_track(engine, pending_id, cols, optional_names, per_fix, results)

    for batch in batches:
        if batch.num_rows == 0:
            continue
        results = Results()
        ids = pc.fill_null(batch.column(0).cast(pa.string()), "None")
        n = batch.num_rows
        if n > 1:
            change = pc.not_equal(ids.slice(1), ids.slice(0, n - 1)).to_numpy(zero_copy_only=False)
            starts = np.concatenate([[0], np.flatnonzero(change) + 1, [n]])
        else:
            starts = np.array([0, n])
        for j in range(len(starts) - 1):
            s, e = int(starts[j]), int(starts[j + 1])
            tid = ids[s].as_py()
            piece = batch.slice(s, e - s)
            if pending and tid == pending_id:
                pending.append(piece)
            else:
                if pending:
                    flush(results)
                pending, pending_id = [piece], tid
        if len(results):
            yield results.batch(schema)
    if pending:
        results = Results()
        flush(results)
        yield results.batch(schema)
