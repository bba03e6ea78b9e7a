"""Pure helpers (no st.* here): chart specs of every iteration -> the compact payload the browser player holds.

The player draws the lesson's charts in the browser from the run's snapshots, so
dragging the iteration slider or playing needs no server round trip per frame.
What it holds, per chart:

* a **template**: one full plotly spec built by ``dashboard.charts`` (so the look
  is defined in one place, in Python);
* one **patch** per iteration: only the trace arrays and layout parts that differ
  from the template (the bars' values and names, a heatmap's z, …).

Numbers travel as 16-bit quantised typed arrays (base64 of little-endian uint16
between the array's own min and max; 65535 = missing), strings as indices into a
string table the player keeps. On the default lesson that is ~6× smaller than the
same numbers as JSON, and the error (≤ (max − min) / 131068) is far below what a
chart or a 3-decimal hover shows.
"""
from __future__ import annotations

import base64
import math
from typing import Any

import numpy as np

Q_MAX = 65534      # largest code of a finite value
Q_MISSING = 65535  # None / NaN / ±inf: plotly draws a gap

#: trace properties that may change from one iteration to the next
TRACE_KEYS = ("x", "y", "z", "customdata", "text")
#: layout properties compared as a whole (sent raw when they differ from the template)
LAYOUT_KEYS = ("title", "xaxis", "yaxis", "xaxis2", "yaxis2", "annotations", "shapes", "height")


def _is_number(v) -> bool:
    return v is None or (isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool))


def quantize(values) -> dict:
    """A 1-D or rectangular 2-D list of numbers (None allowed) -> {"q", "lo", "hi", "n"[, "shape"]}.

    Values are mapped linearly from [lo, hi] (their own finite min and max) to the
    codes 0 … 65534; a missing value gets 65535."""
    a = np.array(values, dtype=float)  # None -> nan
    shape = list(a.shape)
    flat = a.ravel()
    finite = np.isfinite(flat)
    lo = float(flat[finite].min()) if finite.any() else 0.0
    hi = float(flat[finite].max()) if finite.any() else 0.0
    if hi > lo:
        codes = np.rint((np.where(finite, flat, lo) - lo) * (Q_MAX / (hi - lo)))
    else:
        codes = np.zeros(flat.shape)
    codes = np.clip(codes, 0, Q_MAX).astype("<u2")
    codes[~finite] = Q_MISSING
    out = {"q": base64.b64encode(codes.tobytes()).decode("ascii"), "lo": lo, "hi": hi, "n": int(flat.size)}
    if len(shape) == 2:
        out["shape"] = shape
    return out


def dequantize(d: dict) -> np.ndarray:
    """Reference decoder (the player's JavaScript does the same): NaN where a value was missing."""
    codes = np.frombuffer(base64.b64decode(d["q"]), dtype="<u2")[: d["n"]]
    vals = d["lo"] + codes.astype(float) * ((d["hi"] - d["lo"]) / Q_MAX)
    vals[codes == Q_MISSING] = np.nan
    return vals.reshape(d["shape"]) if "shape" in d else vals


def max_error(d: dict) -> float:
    """Largest difference between a quantised value and the original."""
    return (d["hi"] - d["lo"]) / (2 * Q_MAX)


class StringTable:
    """Strings the player knows, in the order it received them (each sent once)."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._index: dict[str, int] = {}

    def index(self, s: str) -> int:
        i = self._index.get(s)
        if i is None:
            i = self._index[s] = len(self.items)
            self.items.append(s)
        return i

    def __len__(self) -> int:
        return len(self.items)


def encode_array(v: Any, strings: StringTable) -> Any:
    """A trace array -> its compact form: quantised numbers ({"q": …}), string indices ({"s": […]}),
    or the value unchanged when it is neither (mixed lists, scalars, dicts)."""
    if not isinstance(v, (list, tuple)) or not v:
        return v
    if all(isinstance(e, (list, tuple)) for e in v):  # 2-D (heatmap z)
        n = len(v[0])
        if n and all(len(r) == n and all(_is_number(x) for x in r) for r in v):
            return quantize(v)
        return v
    if all(_is_number(e) for e in v):
        return quantize(v)
    if all(isinstance(e, str) for e in v):
        return {"s": [strings.index(e) for e in v]}
    return v


def decode_array(v: Any, strings: list[str]) -> Any:
    """Reference decoder of encode_array (for tests)."""
    if isinstance(v, dict) and "q" in v:
        a = dequantize(v)
        return [[None if math.isnan(x) else x for x in r] for r in a.tolist()] if a.ndim == 2 \
            else [None if math.isnan(x) else x for x in a.tolist()]
    if isinstance(v, dict) and "s" in v:
        return [strings[i] for i in v["s"]]
    return v


def signature(spec: dict) -> tuple:
    """What a patch cannot change: the traces (type, name, axes) and which layout keys exist."""
    traces = tuple((t.get("type"), str(t.get("name")), t.get("xaxis"), t.get("yaxis"), t.get("orientation"))
                   for t in spec["data"])
    return traces, tuple(sorted(spec["layout"]))


def make_patch(spec: dict, templates: list[dict], strings: StringTable) -> dict:
    """The frame of one iteration, relative to one of the chart's templates.

    {"tpl": template index, "d": [[trace index, key, encoded array], …], "l": {layout key: value}}
    holds only what differs. A spec whose traces match no template (e.g. iteration 0
    has no "previous iteration" marks) becomes a new template (appended to ``templates``)."""
    sig = signature(spec)
    for ti, template in enumerate(templates):
        if signature(template) == sig:
            break
    else:
        templates.append(spec)
        return {"tpl": len(templates) - 1}
    d = []
    for i, (tr, tt) in enumerate(zip(spec["data"], template["data"])):
        for k in TRACE_KEYS:
            if k in tr and tr[k] != tt.get(k):
                d.append([i, k, encode_array(tr[k], strings)])
    lay = {k: spec["layout"][k] for k in LAYOUT_KEYS
           if k in spec["layout"] and spec["layout"][k] != template["layout"].get(k)}
    out: dict = {"tpl": ti}
    if d:
        out["d"] = d
    if lay:
        out["l"] = lay
    return out


class ChartLog:
    """Frames of one or more charts of one run, built once per iteration and kept per session.

    ``builders`` maps a chart name to ``build(t) -> spec or None``. ``extend(n)``
    builds the frames of the iterations not built yet; ``payload(...)`` returns what a
    player that already holds some frames, strings and templates still needs."""

    def __init__(self, key, builders: dict) -> None:
        self.key = key
        self.builders = builders
        self.templates: dict[str, list[dict]] = {name: [] for name in builders}
        self.frames: list[dict] = []
        self.strings = StringTable()
        self.sources: list = []  # what each frame was built from (a snapshot), compared by identity

    @property
    def n_templates(self) -> int:
        return sum(len(v) for v in self.templates.values())

    def extend(self, n: int) -> None:
        for t in range(len(self.frames), n):
            frame = {}
            for name, build in self.builders.items():
                spec = build(t)
                if spec is not None:
                    frame[name] = make_patch(spec, self.templates[name], self.strings)
            self.frames.append(frame)

    def truncate(self, n: int) -> None:
        """Drop the frames from iteration n on (the run was rewound; templates and strings stay valid)."""
        del self.frames[n:]
        del self.sources[n:]

    def follow(self, sources: list) -> int:
        """Keep exactly the frames built from ``sources`` (one object per iteration, e.g. the run's
        snapshots): frames whose source is another object are dropped from the first such one on, and
        the missing ones are built. A frame built from the same snapshot is kept (the player holds it
        and does not redraw it), even when the run object around it changed (a Step that adopted a
        run computed ahead, a λ change, a rewind). Returns how many frames were kept: the player's
        frames from there on must be sent again."""
        keep = 0
        while keep < min(len(self.sources), len(sources)) and self.sources[keep] is sources[keep]:
            keep += 1
        self.truncate(keep)
        del self.frames[len(self.sources):]  # frames built without a source record
        self.extend(len(sources))
        self.sources.extend(sources[len(self.sources):])
        return keep

    def payload(self, sent_frames: int, sent_strings: int, sent_templates: int) -> dict:
        """Frames from ``sent_frames`` on, strings from ``sent_strings`` on, and all templates when
        the player holds none of the frames or fewer templates than there are now."""
        sent_frames = max(0, min(int(sent_frames), len(self.frames)))
        sent_strings = max(0, min(int(sent_strings), len(self.strings)))
        out = {"base": sent_frames, "frames": self.frames[sent_frames:],
               "sbase": sent_strings, "strs": self.strings.items[sent_strings:]}
        if sent_frames == 0 or sent_templates != self.n_templates:
            out["templates"] = self.templates
        return out
