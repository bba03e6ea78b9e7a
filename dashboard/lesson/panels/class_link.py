"""Open for the class: one short link (and its QR code) to the lab page with this lesson, served by this
app as plain HTTP (dashboard/classroom); EM runs in each student's browser and the page follows what the
teacher shows here — the data set, the settings, the iteration and a pending E-step.

The teacher's session is the only writer: it holds the class's write key in its session state and, on
every run of the lesson view, publishes the state on screen when it differs from what it last published
(one small row in the shared store; nothing when nothing changed). Students only read.
"""
from __future__ import annotations

import json

import streamlit as st

from dashboard.classroom import addresses
from dashboard.data import sharing
from dashboard.data.store import ShareError
from dashboard.lesson import session
from dashboard.ui import controls, state

#: what a student's page is told about the teacher's settings (the lab's URL keys; the data set is ``data``)
K_KEY = "class_key_typed"   # the share key typed above "Open for the class" (never in the URL)
K_OPEN = "class_open_btn"   # the "Open for the class" button
SETTING_KEYS = ("model", "hidden", "lam", "init", "seed", "max_iter", "tol")


def data_key(cfg) -> str | None:
    """The class's name for the lesson's data: a shipped data set's name, the id of a shared data set,
    or None for an upload that is not shared yet (its file is in this session only)."""
    if cfg is None:
        return None
    if cfg.dataset == controls.SHARED:
        return state.get(state.SHARED_ID)
    if cfg.dataset == controls.UPLOAD:
        return None
    return str(cfg.dataset)


def teacher_state(lr, t: int | None = None) -> dict | None:
    """What the class follows: the data, the settings, the iteration on screen (``t``, default the
    lesson's) and whether an E-step is pending (docs/class_link.md). None when there is nothing to follow."""
    if lr is None or lr.run is None or lr.cfg is None:
        return None
    key = data_key(lr.cfg)
    if key is None:
        return None
    from nblab import export
    settings = export.lesson_settings(lr)
    out = {"data": key, "settings": {k: settings[k] for k in SETTING_KEYS if k in settings},
           "t": int(lr.t if t is None else t), "half": "e" if getattr(lr.run, "pending", None) is not None else None}
    lams = lam_history(lr.run)
    if lams is not None:
        out["lams"] = lams
    return out


def lam_history(run, limit: int = 64) -> list | None:
    """The run's λ history as change points, [[t, λ], ...]: θ_t and the iterations after it were computed with
    λ (until the next entry). A student who joins after a λ change mid-run replays it (nblab/js/follow.js),
    instead of running the whole lesson at today's λ. None when λ is one pseudo-count per feature or the run
    changed λ more than ``limit`` times (the page then runs at the settings' λ)."""
    out: list = []
    for t, snap in enumerate(run.history):
        lam = snap.smoothing
        if not isinstance(lam, (int, float)):
            try:
                lam = float(lam)
            except (TypeError, ValueError):
                return None
        lam = float(lam)
        if not out or out[-1][1] != lam:
            out.append([t, lam])
    return out if 0 < len(out) <= limit else None


K_ADDR = "class_addr"   # the address the teacher picked for the link, when this computer has several


def class_address() -> addresses.Link:
    """Which origin the link carries and why (dashboard/classroom/addresses.py): the configured public URL, the
    page's own origin, or this computer's address on the network when the page was opened at localhost."""
    return addresses.class_link(st.context.url or "", pick=st.session_state.get(K_ADDR))


def class_url(cid: str) -> str:
    """The link students open: an origin they can reach (:func:`class_address`) + /class/<id>."""
    return class_address().url(cid)


def _address_note(where, link: addresses.Link) -> None:
    """Under the link: a choice when this computer has several addresses, and what the teacher must know."""
    if len(link.options) > 1 and where is not None:
        where.selectbox("Address students open", [o.origin for o in link.options], key=K_ADDR,
                        format_func=lambda o: o + "  —  " + next(a.label for a in link.options if a.origin == o),
                        help="This computer is on several networks (Wi-Fi, cable, a hotspot): pick the one the "
                             "students' phones are on.")
    if link.note:
        (where or st).warning(link.note, icon=":material/wifi_off:" if not link.reachable else ":material/info:")


def qr_svg(url: str) -> str:
    """The link as a QR code, an SVG document (segno; medium error correction survives a projector's blur)."""
    import segno
    return segno.make(url, error="m").svg_inline(scale=8, border=4, dark="#111111", light="#ffffff",
                                                 title="QR code of the class link")


def _sent(st_: dict) -> str:
    return json.dumps(st_, sort_keys=True, separators=(",", ":"))


def publish() -> None:
    """Publish the lesson's state to the class this session leads, when it changed since the last time."""
    cls = state.get(state.CLASS_OPEN)
    if not cls:
        return
    now = teacher_state(session.lesson(), session.on_screen())
    if now is None:
        return
    text = _sent(now)
    if text == cls.get("sent"):
        return
    from dashboard import classroom
    try:
        v = classroom.publish(cls["cid"], cls["key"], now)
    except ShareError as e:   # a class error, or the store cannot answer now
        state.put(state.CLASS_ERROR, f"The class did not get this change: {e}")
        return
    state.put(state.CLASS_OPEN, {**cls, "sent": text, "v": v, "data": now["data"]})
    state.put(state.CLASS_ERROR, None)


def _on_open() -> None:
    """Button callback: open a class on the lesson as it is now."""
    lr = session.lesson()
    if lr.cfg is not None and lr.cfg.dataset == controls.UPLOAD:
        state.put(state.CLASS_ERROR, "Share this data set first (the button under the uploader): the class's "
                                     "browsers load it from this server.")
        return
    now = teacher_state(lr)
    if now is None:
        state.put(state.CLASS_ERROR, "Start a run first; then the class can follow it.")
        return
    owner = sharing._client_owner()
    server_key = sharing.share_key()
    if server_key is not None:   # on a server with a share key, opening a class is for teachers, as sharing is
        import hmac
        typed = str(st.session_state.get(K_KEY) or "")
        if not hmac.compare_digest(typed.encode(), server_key.encode()):
            state.put(state.CLASS_ERROR, "Opening a class on this server needs its share key (the server's "
                                         "administrator gives it to teachers), and the key typed is "
                                         + ("missing." if not typed else "not it."))
            return
        owner = "key:" + owner
    from dashboard import classroom
    try:
        cid, key = classroom.open_class(now["data"], now, owner=owner)
    except ShareError as e:
        state.put(state.CLASS_ERROR, f"Could not open the class: {e}")
        return
    state.put(state.CLASS_OPEN, {"cid": cid, "key": key, "data": now["data"], "v": 1, "sent": _sent(now)})
    state.put(state.CLASS_ERROR, None)
    st.session_state["class_show_qr"] = True


def _on_close() -> None:
    """Button callback: stop leading the class (the students' pages keep working on their own)."""
    cls = state.get(state.CLASS_OPEN)
    if cls and cls.get("sent"):
        from dashboard import classroom
        try:   # the last state, marked closed: the students' pages say the class has ended
            classroom.publish(cls["cid"], cls["key"], {**json.loads(cls["sent"]), "open": False})
        except ShareError:
            pass   # the class expires on its own
    state.put(state.CLASS_OPEN, None)
    state.put(state.CLASS_ERROR, None)


@st.dialog("The class link", width="large")
def _qr_dialog(url: str, link: addresses.Link | None = None) -> None:
    st.markdown("Students scan the code or type the link. Their browsers run the lesson and follow what you "
                "show; any student can leave to explore and come back.")
    if link is not None:
        _address_note(None, link)
        if len(link.options) > 1:
            st.caption("This computer has other addresses too: pick another under the link in the sidebar.")
    st.image(qr_svg(url), width=420)
    st.code(url, language=None, wrap_lines=True)


def sidebar_panel() -> None:
    """In the sidebar: "Open for the class", then the link, its QR code and "Close the class"."""
    cls = state.get(state.CLASS_OPEN)
    if not cls:
        if sharing.share_key() is not None:
            st.text_input("Share key (to open a class)", type="password", key=K_KEY,
                          help="Opening a class on this server is for teachers: its administrator gives them this key.")
        st.button("Open for the class", icon=":material/groups:", key=K_OPEN, on_click=_on_open,
                  help="A link and a QR code for your students: the lesson runs in their browsers and follows "
                       "the data, the settings and the iteration you show here. Nothing a student does reaches "
                       "the server.")
    else:
        link = class_address()
        url = link.url(cls["cid"])
        box = st.container(border=True)
        box.markdown(":material/groups: **Your class follows this lesson.** Students open:")
        box.code(url, language=None, wrap_lines=True)
        _address_note(box, link)
        c1, c2 = box.columns(2)
        show = c1.button("QR code", icon=":material/qr_code_2:", key="class_qr_btn")
        c2.button("Close the class", key="class_close_btn", on_click=_on_close,
                  help="Your students' pages stop following; what they have open keeps working.")
        if show or st.session_state.pop("class_show_qr", False):
            _qr_dialog(url, link)
    cfg = session.lesson().cfg
    if cls and cfg is not None and not text_settings_travel(cfg):
        st.warning("Your text settings (words, n-grams, minimum count…) differ from this data set's own: the class's "
                   "pages use the data set's own settings, so their numbers will differ from yours. Set them back "
                   "(or share the file read your way) for the class to see your numbers.",
                   icon=":material/warning:")
    err = state.get(state.CLASS_ERROR)
    if err:
        st.error(err)


def text_settings_travel(cfg) -> bool:
    """Whether the class's pages read the data with the lesson's text settings: the class link carries a
    data set's own features (a shipped set's standard text settings, a shared file's stored ones)."""
    if getattr(cfg, "text", None) is None:
        return True
    from dashboard.data import datasets
    return cfg.text == datasets.default_pipeline(cfg.dataset)
