"""Open for the class: one short link (and its QR code) to the lab page with this lesson, served by this
app as plain HTTP (dashboard/class_link); EM runs in each student's browser and the page follows what the
teacher shows here — the data set, the settings, the iteration and a pending E-step.

The teacher is the only writer: the class belongs to whoever holds its write key, kept in the session and
in the teacher's own page address (``?teacher=<class id>.<write key>``, the teacher key; never in a link
students get). A reload, another tab or another app process opens the page with it and takes the class
back (:func:`take_back`); pasting the key under "Take back a class" does the same on any computer.
On every run of the lesson view the state on screen is published when it differs from what the class
has (one small row in the shared store; nothing when nothing changed). A publish that fails is said in
the lesson's own part of the page, next to the controls, and retried every ``RETRY_S`` seconds until the
class has the teacher's state. While the page is open it touches the class every ``HEARTBEAT`` seconds:
a class whose teacher's page is gone tells its students so (dashboard/class_link/store.py, ``away``).
Opening a class needs the teacher key (dashboard/class_link/teacher_key.py), never any visitor's click.
Students only read.
"""
from __future__ import annotations

import json
import re
import time
from urllib.parse import parse_qs, urlsplit

import segno
import streamlit as st

from dashboard import class_link
from dashboard.class_link import store as class_store
from dashboard.class_link import teacher_key
from dashboard.data import datasets
from dashboard.data.store import ShareError, StoreUnavailable
from dashboard.lesson import session, sharing
from dashboard.lesson.panels import ask_class
from dashboard.serve import addresses
from dashboard.ui import controls, state
from dashboard.ui.controls import _
from nblab import export

#: what a student's page is told about the teacher's settings (the lab's URL keys; the data set is ``data``)
K_KEY = "class_key_typed"   # the share key typed above "Open for the class" (never in the URL)
K_OPEN = "class_open_btn"   # the "Open for the class" button
K_CLAIM = "class_claim_typed"   # the teacher key pasted under "Take back a class"
TEACH_PARAM = sharing.TEACHER_PARAM   # the teacher's own page address carries its class: ?teacher=<cid>.<write key>
RETRY_S = 3.0              # s between two tries of a publish that failed
HEARTBEAT = class_store.HEARTBEAT
_TOKEN_RE = re.compile(r"([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{20,64})")
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


def teacher_state(lr, t: int | None = None, question: dict | None = None, paused: bool = False) -> dict | None:
    """What the class follows: the data, the settings, the iteration on screen (``t``, default the
    lesson's), whether an E-step is pending, the teacher's current question (``{"id", "phase"}``, from
    "Ask the class") and whether the class is paused (docs/class_link.md). None when there is nothing to
    follow."""
    if lr is None or lr.run is None or lr.cfg is None:
        return None
    key = data_key(lr.cfg)
    if key is None:
        return None
    settings = export.lesson_settings(lr)
    out = {"data": key, "settings": {k: settings[k] for k in SETTING_KEYS if k in settings},
           "t": int(lr.t if t is None else t), "half": "e" if getattr(lr.run, "pending", None) is not None else None}
    lams = lam_history(lr.run)
    if lams is not None:
        out["lams"] = lams
    if question is not None:
        out["question"] = {"id": str(question["id"]), "phase": str(question["phase"])}
    if paused:
        out["paused"] = True
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
    """Which origin the link carries and why (dashboard/serve/addresses.py): the configured public URL, the
    page's own origin, or this computer's address on the network when the page was opened at localhost."""
    return addresses.class_link(st.context.url or "", pick=st.session_state.get(K_ADDR), gettext=_)


def class_url(cid: str) -> str:
    """The link students open: an origin they can reach (:func:`class_address`) + /class/<id>."""
    return class_address().url(cid)


def _address_note(where, link: addresses.Link) -> None:
    """Under the link: a choice when this computer has several addresses, and what the teacher must know."""
    if len(link.options) > 1 and where is not None:
        where.selectbox(_("Address students open"), [o.origin for o in link.options], key=K_ADDR,
                        format_func=lambda o: o + "  —  " + next(a.label for a in link.options if a.origin == o),
                        help=_("This computer is on several networks (Wi-Fi, cable, a hotspot): pick the one the "
                               "students' phones are on."))
    if link.note:
        (where or st).warning(link.note, icon=":material/wifi_off:" if not link.reachable else ":material/info:")


def qr_svg(url: str) -> str:
    """The link as a QR code, an SVG document (segno; medium error correction survives a projector's blur)."""
    return segno.make(url, error="m").svg_inline(scale=8, border=4, dark="#111111", light="#ffffff",
                                                 title="QR code of the class link")


def _sent(st_: dict) -> str:
    return json.dumps(st_, sort_keys=True, separators=(",", ":"))


# ---- the teacher key: the class id and its write key, the one thing that moves the class ------------------

def token(cls: dict) -> str:
    """The teacher key of the class this session leads."""
    return f"{cls['cid']}.{cls['key']}"


def parse_token(text) -> tuple[str, str] | None:
    """``(cid, write key)`` from a pasted teacher key, or from the teacher's page address that carries
    one (``…?teacher=<key>``); None for anything else."""
    t = str(text or "").strip()[:2000]
    if not t:
        return None
    if "=" in t or "?" in t:
        try:
            got = parse_qs(urlsplit(t).query).get(TEACH_PARAM) or parse_qs(t.lstrip("?")).get(TEACH_PARAM)
        except ValueError:
            got = None
        t = (got or [""])[-1].strip()
    m = _TOKEN_RE.fullmatch(t)
    return (m.group(1), m.group(2)) if m else None


def _keep_in_url(cls: dict) -> None:
    """The teacher's own page address carries the teacher key (a reload takes the class back)."""
    try:
        if st.query_params.get(TEACH_PARAM) != token(cls):
            st.query_params[TEACH_PARAM] = token(cls)
    except Exception:  # noqa: BLE001 - the address is a convenience: the key is also in the panel
        pass


def _drop_from_url() -> None:
    try:
        st.query_params.pop(TEACH_PARAM, None)
    except Exception:  # noqa: BLE001
        pass


def take_back(cid: str, key: str) -> bool:
    """Lead the class ``cid`` again in this session (its write key ``key``): the class's state is read
    from the store, and the lesson on screen is published on the next run. False (said) when it fails."""
    try:
        v, stored = class_link.claim(cid, key)
    except StoreUnavailable as e:
        state.put(state.CLASS_ERROR, _("Could not take the class back yet: {why} Reload the page in a moment.", why=e))
        return False
    except ShareError as e:
        state.put(state.CLASS_ERROR, _("Could not take the class back: {why}", why=e))
        return False
    # "sent" is what the class has; the lesson on screen differs (or not) and is published on the next run
    state.put(state.CLASS_OPEN, {"cid": cid, "key": key, "data": stored.get("data"), "v": v, "sent": None,
                                 "class_t": stored.get("t"), "touched": time.monotonic()})
    state.put(state.CLASS_ERROR, None)
    ask_class.restore(cid, stored)
    return True


def _from_url() -> None:
    """A new session of the teacher (a reload, another tab or app process): the page's address names the
    class; take it back once per session and key."""
    raw = st.query_params.get(TEACH_PARAM)
    if not raw or state.get(state.CLASS_OPEN):
        return
    tried = st.session_state.setdefault("class_claims_tried", set())
    if raw in tried:
        return
    got = parse_token(raw)
    if got is None:
        tried.add(raw)
        state.put(state.CLASS_ERROR, _("The teacher key in this page's address is not one (it may have been cut "
                                       "off): paste the key you kept under 'Take back a class'."))
        _drop_from_url()
        return
    try:
        v, stored = class_link.claim(*got)
    except StoreUnavailable as e:   # the store may well have the class: keep the key, try on the next run
        state.put(state.CLASS_ERROR, _("Could not take your class back yet: {why} It is tried again when the "
                                       "page reruns.", why=e))
        return
    except ShareError as e:
        tried.add(raw)
        state.put(state.CLASS_ERROR, _("Could not take the class back: {why}", why=e))
        _drop_from_url()
        return
    tried.add(raw)
    state.put(state.CLASS_OPEN, {"cid": got[0], "key": got[1], "data": stored.get("data"), "v": v, "sent": None,
                                 "class_t": stored.get("t"), "touched": time.monotonic()})
    state.put(state.CLASS_ERROR, None)
    ask_class.restore(got[0], stored)


def _on_claim() -> None:
    """Button callback: take back a class with the pasted teacher key."""
    got = parse_token(st.session_state.get(K_CLAIM))
    if got is None:
        state.put(state.CLASS_ERROR, _("That is not a teacher key: it is the class id, a dot and the write key, "
                                       "as the class panel showed it (or your page's address with ?teacher=)."))
        return
    if take_back(*got):
        st.session_state[K_CLAIM] = ""
        _keep_in_url(state.get(state.CLASS_OPEN))


# ---- publishing: every change, retried until the class has it ---------------------------------------------

def _try_publish(cls: dict, text: str) -> str | None:
    """Publish ``text`` (a teacher state) to the class; None when the class has it, else the message."""
    try:
        v = class_link.publish(cls["cid"], cls["key"], json.loads(text))
    except (class_link.ClassNotFound, class_link.ClassGone, class_link.WrongKey) as e:
        state.put(state.CLASS_OPEN, None)
        _drop_from_url()
        msg = _("The class is no longer on the server, so it stopped following: {why}", why=e)
        state.put(state.CLASS_ERROR, msg)    # the sidebar says it too, next to "Open for the class"
        return msg
    except ShareError as e:   # a class error, or the store cannot answer now: tried again
        state.put(state.CLASS_OPEN, {**cls, "pending": text, "failed_at": time.monotonic()})
        return str(e)
    now = json.loads(text)
    state.put(state.CLASS_OPEN, {**cls, "sent": text, "v": v, "data": now["data"], "class_t": now.get("t"),
                                 "pending": None, "failed_at": None, "touched": time.monotonic()})
    return None


def publish() -> None:
    """Publish the lesson's state to the class this session leads, when it differs from what the class has.
    Runs inside the lesson's own part of the page (what a Step reruns): a publish that failed is said here,
    next to the controls, and retried every RETRY_S seconds until the class has it."""
    _ensure_touched()
    cls = state.get(state.CLASS_OPEN)
    if not cls:
        return
    question, paused = ask_class.published()
    now = teacher_state(session.lesson(), session.on_screen(), question, paused)
    if now is None:
        return
    text = _sent(now)
    if text == cls.get("sent"):
        if cls.get("pending"):
            state.put(state.CLASS_OPEN, {**cls, "pending": None})
        state.put(state.CLASS_TROUBLE, None)
        return
    if cls.get("pending") and time.monotonic() - float(cls.get("failed_at") or 0.0) < RETRY_S:
        # the store failed a moment ago (frozen, locked): the Step is not held up by another try; the retry
        # fragment publishes this newest state on its next tick
        state.put(state.CLASS_OPEN, {**cls, "pending": text})
        st.session_state["class_retry_fresh"] = True
        _retry_panel()
        return
    err = _try_publish(cls, text)
    state.put(state.CLASS_TROUBLE, err)
    if err is not None:
        st.session_state["class_retry_fresh"] = True   # this run tried already: the fragment waits RETRY_S
        _retry_panel()


def _trouble_text(err: str) -> str:
    cls = state.get(state.CLASS_OPEN)
    if not cls:
        return err
    at = cls.get("class_t")
    if at is None:
        return _("Your class did not get this change: {why} It is tried again every {s} s until the class has it.",
                 why=err, s=format(RETRY_S, "g"))
    return _("Your class did not get this change: {why} It is tried again every {s} s until the class has it; "
             "your students still see iteration {t}.", why=err, s=format(RETRY_S, "g"), t=at)


@st.fragment(run_every=RETRY_S)
def _retry_panel() -> None:
    """While a publish is pending: the message, and another try every RETRY_S seconds (this fragment alone
    reruns: the lesson's charts stay as they are)."""
    cls = state.get(state.CLASS_OPEN)
    err = state.get(state.CLASS_TROUBLE)
    if cls and cls.get("pending") and not st.session_state.pop("class_retry_fresh", False):
        err = _try_publish(cls, cls["pending"])
        state.put(state.CLASS_TROUBLE, err)
        if err is None:
            st.success(_("Your class has your lesson again."), icon=":material/groups:")
            return
    if err:
        st.warning(_trouble_text(err) if state.get(state.CLASS_OPEN) else err, icon=":material/sync_problem:")


def _ensure_touched(force: bool = False) -> None:
    """Tell the store the teacher's page is open (every HEARTBEAT seconds at most): its students are told
    when it is not. A failure is left to the next publish or touch to say."""
    cls = state.get(state.CLASS_OPEN)
    if not cls or (not force and time.monotonic() - float(cls.get("touched") or 0.0) < HEARTBEAT):
        return
    try:
        class_link.touch(cls["cid"], cls["key"])
    except (class_link.ClassNotFound, class_link.ClassGone, class_link.WrongKey) as e:
        state.put(state.CLASS_OPEN, None)
        state.put(state.CLASS_ERROR, _("The class is no longer on the server: {why}", why=e))
        _drop_from_url()
        return
    except ShareError:
        return
    state.put(state.CLASS_OPEN, {**cls, "touched": time.monotonic()})


@st.fragment(run_every=HEARTBEAT)
def _heartbeat() -> None:
    """While the teacher's page is open, even idle: the class hears from it every HEARTBEAT seconds."""
    _ensure_touched()


def _may_open() -> tuple[bool, str]:
    """Whether this session may open a class (it typed the teacher key) and the owner its quota counts."""
    owner = sharing._client_owner()
    try:
        key = teacher_key.teacher_key(sharing.share_key(), secrets_=class_store._secrets())
    except OSError as e:
        state.put(state.CLASS_ERROR, _("This server cannot keep its teacher key ({why}), so no class can be "
                                       "opened: its administrator sets NBLAB_SHARE_KEY.", why=e.strerror or e))
        return False, owner
    typed = str(st.session_state.get(K_KEY) or "")
    if not teacher_key.matches(typed, key):
        where = (_("its administrator gives it to teachers") if sharing.share_key() is not None
                 else _("the terminal that started the server shows it"))
        if not typed.strip():
            msg = _("Opening a class on this server needs its teacher key ({where}), and the key typed is missing.",
                    where=where)
        else:
            msg = _("Opening a class on this server needs its teacher key ({where}), and the key typed is not it.",
                    where=where)
        state.put(state.CLASS_ERROR, msg)
        return False, owner
    return True, "key:" + owner


def _on_open() -> None:
    """Button callback: open a class on the lesson as it is now (for whoever typed the teacher key)."""
    lr = session.lesson()
    if lr.cfg is not None and lr.cfg.dataset == controls.UPLOAD:
        state.put(state.CLASS_ERROR, _("Share this data set first (the button under the uploader): the class's "
                                       "browsers load it from this server."))
        return
    now = teacher_state(lr)
    if now is None:
        state.put(state.CLASS_ERROR, _("Start a run first; then the class can follow it."))
        return
    ok, owner = _may_open()
    if not ok:
        return
    try:
        cid, key = class_link.open_class(now["data"], now, owner=owner)
    except ShareError as e:
        state.put(state.CLASS_ERROR, _("Could not open the class: {why}", why=e))
        return
    cls = {"cid": cid, "key": key, "data": now["data"], "v": 1, "sent": _sent(now), "class_t": now["t"],
           "touched": time.monotonic()}
    state.put(state.CLASS_OPEN, cls)
    state.put(state.CLASS_ERROR, None)
    state.put(state.CLASS_TROUBLE, None)
    _keep_in_url(cls)
    st.session_state["class_show_qr"] = True


def _on_close() -> None:
    """Button callback: stop leading the class (the students' pages keep working on their own)."""
    cls = state.get(state.CLASS_OPEN)
    if cls:
        last = cls.get("pending") or cls.get("sent")
        try:   # the last state, marked closed: the students' pages say the class has ended
            if last:
                class_link.publish(cls["cid"], cls["key"], {**json.loads(last), "open": False})
            else:
                v, stored = class_link.claim(cls["cid"], cls["key"])
                class_link.publish(cls["cid"], cls["key"], {**stored, "open": False})
        except ShareError:
            pass   # the class expires on its own
    st.session_state[ask_class.K_QUESTION] = None   # Close ends the questions as it ends the class
    st.session_state[ask_class.K_PAUSED] = False
    state.put(state.CLASS_OPEN, None)
    state.put(state.CLASS_ERROR, None)
    state.put(state.CLASS_TROUBLE, None)
    _drop_from_url()


def _qr_dialog(url: str, link: addresses.Link | None = None) -> None:
    """The link's QR code in a dialog whose title is in the page's language (made at each opening)."""
    st.dialog(_("The class link"), width="large")(_qr_body)(url, link)


def _qr_body(url: str, link: addresses.Link | None = None) -> None:
    st.markdown(_("Students scan the code or type the link. Their browsers run the lesson and follow what you "
                  "show; any student can leave to explore and come back."))
    if link is not None:
        _address_note(None, link)
        if len(link.options) > 1:
            st.caption(_("This computer has other addresses too: pick another under the link in the sidebar."))
    st.image(qr_svg(url), width=420)
    st.code(url, language=None, wrap_lines=True)


def sidebar_panel() -> None:
    """In the sidebar: "Open for the class" (with the teacher key) and "Take back a class", then the link,
    its QR code, the teacher key to keep and "Close the class"."""
    _from_url()
    cls = state.get(state.CLASS_OPEN)
    if not cls:
        st.text_input(_("Teacher key (to open a class)"), type="password", key=K_KEY,
                      help=(_("Opening a class on this server is for teachers: its administrator gives them this "
                              "key.") if sharing.share_key() is not None else
                            _("Opening a class on this server is for teachers: the terminal that started the "
                              "server shows the key.")))
        st.button(_("Open for the class"), icon=":material/groups:", key=K_OPEN, on_click=_on_open,
                  help=_("A link and a QR code for your students: the lesson runs in their browsers and follows "
                         "the data, the settings and the iteration you show here. Nothing a student does reaches "
                         "the server."))
        with st.expander(_("Take back a class")):
            st.text_input(_("Your class's teacher key"), type="password", key=K_CLAIM,
                          help=_("The key the class panel showed when you opened the class (or your lesson page's "
                                 "address, which carries it)."))
            st.button(_("Lead this class again"), key="class_claim_btn", on_click=_on_claim)
    else:
        _keep_in_url(cls)
        link = class_address()
        url = link.url(cls["cid"])
        box = st.container(border=True)
        box.markdown(":material/groups: **" + _("Your class follows this lesson.") + "** " + _("Students open:"))
        box.code(url, language=None, wrap_lines=True)
        _address_note(box, link)
        # one button a row: side by side in the sidebar's width they cut their labels ("QR c…", "Close the…")
        show = box.button(_("QR code"), icon=":material/qr_code_2:", key="class_qr_btn", width="stretch")
        box.button(_("Close the class"), key="class_close_btn", on_click=_on_close, width="stretch",
                   help=_("Your students' pages stop following; what they have open keeps working."))
        with box.expander(_("Your teacher key (keep it, never show it)")):
            st.caption(_("It moves your class. This page's address carries it, so a reload keeps your class; on "
                         "another computer, paste it under 'Take back a class'."))
            st.code(token(cls), language=None, wrap_lines=True)
        if show or st.session_state.pop("class_show_qr", False):
            _qr_dialog(url, link)
        ask_class.show()   # predict, then reveal; Pause
        _heartbeat()
    cfg = session.lesson().cfg
    if cls and cfg is not None and not text_settings_travel(cfg):
        st.warning(_("Your text settings (words, n-grams, minimum count…) differ from this data set's own: the "
                     "class's pages use the data set's own settings, so their numbers will differ from yours. Set "
                     "them back (or share the file read your way) for the class to see your numbers."),
                   icon=":material/warning:")
    err = state.get(state.CLASS_ERROR)
    if err:
        st.error(err)


def text_settings_travel(cfg) -> bool:
    """Whether the class's pages read the data with the lesson's text settings: the class link carries a
    data set's own features (a shipped set's standard text settings, a shared file's stored ones)."""
    if getattr(cfg, "text", None) is None:
        return True
    return cfg.text == datasets.default_pipeline(cfg.dataset)
