"""The class colours stay apart for colour-blind readers.

Each palette colour is put through Machado, Oliveira & Fernandes (2009)'s simulation of protanopia,
deuteranopia and tritanopia (severity 1.0, applied to linear RGB), and every pair of the first K
colours must then still differ by a CIEDE2000 ΔE of at least ``MIN_DE``, for K up to the largest number
of classes of a shipped data set. Pure Python (numpy); no browser."""
from __future__ import annotations

import numpy as np
import pytest

from dashboard.charts import theme

# Machado et al. 2009, Table 1, severity 1.0 (linear RGB)
CVD = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
}
#: CIEDE2000 difference every pair must keep (about 10: two colours a reader tells apart at a glance in
#: a legend line or bar; 2.3 is merely "just noticeable")
MIN_DE = 10.0
#: the shipped data sets with the most classes (digits, udhr_langid) have 10
K_MAX = 10


def _hex_rgb(h: str) -> np.ndarray:
    h = h.lstrip("#")
    return np.array([int(h[i:i + 2], 16) for i in (0, 2, 4)], dtype=float) / 255.0


def _to_linear(c):
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(lin: np.ndarray) -> np.ndarray:
    """CIE L*a*b* (D65) of a linear sRGB colour."""
    m = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                  [0.0193339, 0.1191920, 0.9503041]])
    xyz = m @ np.clip(lin, 0, 1) / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def ciede2000(lab1, lab2) -> float:
    """Sharma, Wu & Dalal (2005)'s CIEDE2000 colour difference."""
    L1, a1, b1 = lab1
    L2, a2, b2 = lab2
    C1, C2 = np.hypot(a1, b1), np.hypot(a2, b2)
    Cb = (C1 + C2) / 2
    G = 0.5 * (1 - np.sqrt(Cb ** 7 / (Cb ** 7 + 25 ** 7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dLp, dCp = L2 - L1, C2p - C1p
    if C1p * C2p == 0:
        dhp = 0.0
    elif abs(h2p - h1p) <= 180:
        dhp = h2p - h1p
    else:
        dhp = h2p - h1p - 360 if h2p > h1p else h2p - h1p + 360
    dHp = 2 * np.sqrt(C1p * C2p) * np.sin(np.radians(dhp / 2))
    Lbp, Cbp = (L1 + L2) / 2, (C1p + C2p) / 2
    if C1p * C2p == 0:
        hbp = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hbp = (h1p + h2p) / 2
    else:
        hbp = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    T = (1 - 0.17 * np.cos(np.radians(hbp - 30)) + 0.24 * np.cos(np.radians(2 * hbp))
         + 0.32 * np.cos(np.radians(3 * hbp + 6)) - 0.20 * np.cos(np.radians(4 * hbp - 63)))
    dtheta = 30 * np.exp(-(((hbp - 275) / 25) ** 2))
    Rc = 2 * np.sqrt(Cbp ** 7 / (Cbp ** 7 + 25 ** 7))
    Sl = 1 + 0.015 * (Lbp - 50) ** 2 / np.sqrt(20 + (Lbp - 50) ** 2)
    Sc, Sh = 1 + 0.045 * Cbp, 1 + 0.015 * Cbp * T
    Rt = -np.sin(np.radians(2 * dtheta)) * Rc
    return float(np.sqrt((dLp / Sl) ** 2 + (dCp / Sc) ** 2 + (dHp / Sh) ** 2 + Rt * (dCp / Sc) * (dHp / Sh)))


def test_ciede2000_matches_sharma_reference_pairs():
    # pairs 1, 7 and 17 of Sharma, Wu & Dalal's test data (ΔE00 2.0425, 0.0, 27.1492)
    assert ciede2000((50, 2.6772, -79.7751), (50, 0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)
    assert ciede2000((50, 0, 0), (50, -1, 2)) == pytest.approx(2.3669, abs=1e-4)
    assert ciede2000((50, 2.5, 0), (73, 25, -18)) == pytest.approx(27.1492, abs=1e-4)


def _closest_pair(colours: list[str], matrix) -> tuple[float, str, str]:
    labs = [_lab(np.asarray(matrix) @ _to_linear(_hex_rgb(c))) for c in colours]
    best = (np.inf, "", "")
    for i in range(len(colours)):
        for j in range(i + 1, len(colours)):
            d = ciede2000(labs[i], labs[j])
            if d < best[0]:
                best = (d, colours[i], colours[j])
    return best


def test_palette_covers_the_shipped_data_sets():
    assert len(theme.CLASS_COLORS) >= K_MAX
    assert len(set(c.lower() for c in theme.CLASS_COLORS[:K_MAX])) == K_MAX


@pytest.mark.parametrize("vision", ["normal", *CVD])
@pytest.mark.parametrize("k", range(2, K_MAX + 1))
def test_class_colours_stay_apart(vision, k):
    matrix = np.eye(3) if vision == "normal" else CVD[vision]
    d, a, b = _closest_pair(theme.CLASS_COLORS[:k], matrix)
    print(f"{vision:13s} K={k:2d}: closest pair {a} / {b}, ΔE00 {d:.1f}")
    assert d >= MIN_DE, f"{vision}, {k} classes: {a} and {b} differ by ΔE00 {d:.1f} < {MIN_DE}"
