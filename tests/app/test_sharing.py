"""Sharing an upload with the class by one link, under streamlit.testing.

Every test runs against the default SQLite store and against a real PostgreSQL server
(tests/kit/pg.py). The store is emptied between tests; the per-process caches of
dashboard/lesson/sharing.py (the opened store, the parsed files) are cleared too, as a fresh
server process would have them.
"""
from __future__ import annotations

import time

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.data import store as S
from kit import ROOT
from kit.apptest import page_text, run

APP = str(ROOT / "dashboard" / "app.py")

CSV = (b"text,label\n"
       b"win cash now,spam\nfree prize inside,spam\ncheap pills cash,spam\nwin a free cruise,spam\n"
       b"meeting at noon,ham\nlunch tomorrow,ham\nproject notes attached,ham\nsee you at lunch,ham\n"
       b"claim your free cash,\nnotes from the meeting,\nprize cruise win,\nlunch meeting moved,\n"
       b"cash prize now,\nproject lunch,\n")
NAME = "class_mail.csv"
DEFAULT_DATASET = "sms_spam"  # the default lesson (dashboard/ui/controls.py DEFAULTS)


pytestmark = pytest.mark.slow


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path, monkeypatch):
    """Point the app at an empty store of each kind (and forget this process's cached store)."""
    from dashboard.lesson import sharing
    if request.param == "postgresql":
        url = request.getfixturevalue("pg_url")
        from kit.pg import drop_tables
        drop_tables(url)
        monkeypatch.setenv("NBLAB_STORE_URL", url)
    else:
        url = "sqlite:///" + str(tmp_path / "store" / "shares.sqlite3")
        monkeypatch.setenv("NBLAB_STORE_DIR", str(tmp_path / "store"))
        monkeypatch.delenv("NBLAB_STORE_URL", raising=False)
    for var in ("NBLAB_SHARES_PER_HOUR", "NBLAB_SHARE_TTL_DAYS", "NBLAB_STORE_MAX_MB", "NBLAB_SHARE_MAX_MB"):
        monkeypatch.delenv(var, raising=False)
    sharing._open.clear()
    sharing._parsed.clear()
    yield url
    sharing._open.clear()
    sharing._parsed.clear()


def new_app(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    return run(at)


def upload(at: AppTest, name: str = NAME, data: bytes = CSV) -> AppTest:
    at.file_uploader(key="uploader").upload(name, data, "text/csv")
    return run(at)


def share(at: AppTest) -> str:
    """Press "Share this data set"; returns the id now in the URL."""
    at.button(key="share_upload").click()
    run(at)
    sid = at.query_params.get("data")
    assert sid and S.valid_id(sid), (at.query_params, page_text(at)[-2000:])
    return sid


def steps(at: AppTest, n: int) -> AppTest:
    for _ in range(n):
        at.button(key="step").click()
        run(at)
    return at


def numbers(at: AppTest):
    r = at.session_state["lesson"].run
    return [(s.alpha.copy(), np.asarray(s.beta).copy(), s.objective) for s in r.history]


def same_numbers(a, b) -> None:
    assert len(a) == len(b)
    for (al, be, ob), (al2, be2, ob2) in zip(a, b):
        np.testing.assert_array_equal(al, al2)
        np.testing.assert_array_equal(be, be2)
        assert ob == ob2


def messages(at: AppTest) -> str:
    return " ".join(e.value for e in list(at.warning) + list(at.error) + list(at.info) + list(at.success))


def store_of(url):
    return S.open_store(url)


# ---- the classroom flow ---------------------------------------------------------------------

def test_link_gives_a_new_session_the_same_data_and_the_same_numbers(store_url):
    teacher = upload(new_app(hidden="50"))
    assert at_dataset(teacher) == "upload"
    steps(teacher, 3)
    on_upload = numbers(teacher)
    prep_upload = teacher.session_state["lesson"].prep

    sid = share(teacher)
    assert at_dataset(teacher) == "shared"
    same_numbers(numbers(teacher), on_upload)      # sharing kept the teacher's run (same data)
    assert teacher.query_params.get("dataset") == f"{NAME} (shared)"   # the bound widget's label
    link = dict(teacher.query_params)

    student = new_app(**link)                      # a new session opening the link
    assert at_dataset(student) == "shared"
    assert NAME in page_text(student)
    prep = student.session_state["lesson"].prep
    np.testing.assert_array_equal(np.asarray(prep.X.todense() if hasattr(prep.X, "todense") else prep.X),
                                  np.asarray(prep_upload.X.todense() if hasattr(prep_upload.X, "todense")
                                             else prep_upload.X))
    assert prep.feature_names == prep_upload.feature_names and prep.class_names == prep_upload.class_names
    np.testing.assert_array_equal(prep.y_obs, prep_upload.y_obs)
    # the link names the teacher's iteration (t=3): the student's run is recomputed to it, and
    # has the numbers of the teacher's three steps on the upload itself
    assert link.get("t") == "3"
    same_numbers(numbers(student), on_upload)

    # the teacher's session (now on the shared copy) agrees too
    teacher.button(key="reset").click()
    run(teacher)
    steps(teacher, 3)
    same_numbers(numbers(teacher), on_upload)
    assert S.open_store(store_url).lookup(sid).name == NAME


def at_dataset(at: AppTest) -> str:
    return at.selectbox(key="dataset").value


def test_reload_and_other_views_keep_the_shared_data(store_url):
    teacher = upload(new_app())
    sid = share(teacher)
    student = new_app(dataset="shared", data=sid)
    # another view: the data id stays in the URL and the view offers (and picks) the shared set
    student.switch_page("views/inspector.py")
    run(student)
    assert student.query_params.get("data") == sid
    assert f"{NAME} (shared)" in student.selectbox(key="insp_dataset").options
    assert student.selectbox(key="insp_dataset").value == "shared"
    # "reload": a new session with the URL the page has now
    reloaded = new_app(**dict(student.query_params))
    assert reloaded.query_params.get("data") == sid
    back = new_app(dataset="shared", data=sid)
    assert at_dataset(back) == "shared" and NAME in page_text(back)


def test_unshared_upload_stays_private_and_nothing_is_stored(store_url):
    a = upload(new_app())
    assert at_dataset(a) == "upload"
    b = new_app(dataset="upload")
    assert at_dataset(b) == DEFAULT_DATASET
    assert NAME not in page_text(b)
    assert store_of(store_url).usage() == (0, 0)


def test_share_button_states_the_limits(store_url):
    a = upload(new_app())
    help_text = a.button(key="share_upload").proto.help
    assert "5 MB each" in help_text and "30 days" in help_text and "10 shares per hour" in help_text
    share(a)
    text = page_text(a)
    assert "Delete link" in text and "delete=" in text


# ---- links that do not open ----------------------------------------------------------------

@pytest.mark.parametrize("bad,expect", [
    ("A" * 24, "No shared data set has this link's id"),
    ("../../etc/passwd", "not valid"),
    ("abc", "not valid"),
    ("x" * 20_000, "not valid"),
    ("'; DROP TABLE nblab_shares; --", "not valid"),
])
def test_unknown_or_malformed_id_gives_a_message_and_the_default_lesson(store_url, bad, expect):
    at = new_app(dataset="shared", data=bad)
    assert expect in messages(at)
    assert at_dataset(at) == DEFAULT_DATASET
    assert "data" not in at.query_params
    assert at.session_state["lesson"].run is not None        # the default lesson runs
    steps(at, 1)


def test_expired_id_gives_a_message(store_url):
    old = S.open_store(store_url, clock=lambda: time.time() - 31 * 86400)
    sid = old.put(NAME, CSV, {}, owner="t").id
    at = new_app(dataset="shared", data=sid)
    assert "not opened for 30 days" in messages(at)
    assert at_dataset(at) == DEFAULT_DATASET


def test_link_without_an_id_gives_a_message():
    at = new_app(dataset="shared")
    assert "carries no data id" in messages(at)
    assert at_dataset(at) == DEFAULT_DATASET


def test_stored_file_is_revalidated_like_an_upload(store_url):
    sid = store_of(store_url).put("notes.csv", b"label,x\n1,2\n1,3\n", {}, owner="t").id  # one class only
    at = new_app(dataset="shared", data=sid)
    assert "can no longer be read" in messages(at) and "only one class" in messages(at)
    assert at_dataset(at) == DEFAULT_DATASET


# ---- delete link ----------------------------------------------------------------------------

def test_delete_link_asks_then_deletes(store_url):
    st_ = store_of(store_url)
    r = st_.put(NAME, CSV, {}, owner="t")
    at = new_app(data=r.id, delete=r.delete_secret)
    assert "Delete a shared data set?" in page_text(at)
    assert any(NAME in t.value for t in at.text)          # which file, as plain text
    assert st_.lookup(r.id).id == r.id                 # opening the link alone deletes nothing
    at.button(key="delete_confirm").click()
    run(at)
    assert "was deleted" in messages(at)
    with pytest.raises(S.Gone):
        st_.lookup(r.id)
    again = new_app(dataset="shared", data=r.id)
    assert "deleted it" in messages(again)


def test_wrong_delete_secret_does_nothing(store_url):
    st_ = store_of(store_url)
    r = st_.put(NAME, CSV, {}, owner="t")
    at = new_app(data=r.id, delete="W" * 32)
    at.button(key="delete_confirm").click()
    run(at)
    assert "Nothing was deleted" in messages(at)
    assert st_.read(r.id) == CSV
    ok = new_app(dataset="shared", data=r.id)
    assert at_dataset(ok) == "shared"


def test_keep_it_keeps_and_opens_the_data(store_url):
    r = store_of(store_url).put(NAME, CSV, {}, owner="t")
    at = new_app(dataset="shared", data=r.id, delete=r.delete_secret)
    at.button(key="delete_cancel").click()
    run(at)
    assert "delete" not in at.query_params
    assert at_dataset(at) == "shared"


# ---- limits and failures --------------------------------------------------------------------

def test_rate_limit_is_a_message_and_the_upload_stays(store_url, monkeypatch):
    monkeypatch.setenv("NBLAB_SHARES_PER_HOUR", "1")
    from dashboard.lesson import sharing
    sharing._open.clear()
    at = upload(new_app())
    share(at)
    upload(at, "second.csv", CSV.replace(b"lunch", b"dinner"))
    assert at_dataset(at) == "upload"
    at.button(key="share_upload").click()
    run(at)
    assert "the limit is 1" in messages(at)
    assert at_dataset(at) == "upload"                 # the upload is still the data set
    steps(at, 1)


def test_store_unavailable_is_a_message(tmp_path, monkeypatch):
    from dashboard.lesson import sharing
    (tmp_path / "file").write_text("not a directory")
    monkeypatch.setenv("NBLAB_STORE_DIR", str(tmp_path / "file"))
    monkeypatch.delenv("NBLAB_STORE_URL", raising=False)
    sharing._open.clear()
    at = upload(new_app())
    at.button(key="share_upload").click()
    run(at)
    assert "Could not share" in messages(at) and "cannot be used" in messages(at)
    assert str(tmp_path) not in messages(at)                 # never a server path on the page
    assert at_dataset(at) == "upload"
    b = new_app(dataset="shared", data="A" * 24)             # a fresh process opening a class link
    assert "cannot be used" in messages(b)
    assert str(tmp_path) not in page_text(b) and "not a directory" not in page_text(b)


def test_shared_file_is_parsed_once_per_process(store_url):
    from dashboard.lesson import sharing
    sid = store_of(store_url).put(NAME, CSV, {}, owner="t").id
    before = sharing.parse_count()
    for _ in range(3):
        new_app(dataset="shared", data=sid)
    assert sharing.parse_count() - before == 1


def test_a_hostile_file_name_is_only_ever_plain_text(store_url):
    name = "**bold** <img src=x onerror=alert(1)> :red[y] $x$ [a](javascript:alert(1)).csv"
    sid = store_of(store_url).put(name, CSV, {}, owner="t").id
    at = new_app(dataset="shared", data=sid)
    assert at_dataset(at) == "shared"
    assert any(name in t.value for t in at.text)                    # st.text: plain text
    for el in list(at.markdown) + list(at.caption) + list(at.warning) + list(at.error) + list(at.info):
        assert name not in el.value and "<img" not in el.value      # never markdown / HTML


def test_delete_link_of_a_share_that_is_gone_says_so(store_url):
    st_ = store_of(store_url)
    r = st_.put(NAME, CSV, {}, owner="t")
    assert st_.delete(r.id, r.delete_secret)
    at = new_app(data=r.id, delete=r.delete_secret)
    assert "Nothing to delete" in messages(at) and "deleted it" in messages(at)
    assert "delete_confirm" not in [b.key for b in at.button]
    at.button(key="delete_close").click()
    run(at)
    assert "delete" not in at.query_params and "data" not in at.query_params


# ---- quotas per client and for the whole store ----------------------------------------------

def _from_address(monkeypatch, ip):
    """Every session of this test connects from ``ip`` (what Streamlit reports as st.context.ip_address)."""
    import streamlit as st
    monkeypatch.setattr(type(st.context), "ip_address", property(lambda self: ip), raising=False)


def _own_session_ids(monkeypatch):
    """Give each AppTest its own session id, as each websocket of a real server has (AppTest
    runs every app under the one id "test session id")."""
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner
    init = ScriptRunner.__init__

    def patched(self, session_id, main_script_path, session_state, *a, **kw):
        if session_id == "test session id":
            session_id = f"apptest-{id(session_state)}"
        init(self, session_id, main_script_path, session_state, *a, **kw)
    monkeypatch.setattr(ScriptRunner, "__init__", patched)


def test_share_quota_is_per_client_address_not_per_session(store_url, monkeypatch):
    monkeypatch.setenv("NBLAB_SHARES_PER_HOUR", "1")
    from dashboard.lesson import sharing
    sharing._open.clear()
    _own_session_ids(monkeypatch)
    _from_address(monkeypatch, "198.51.100.23")
    share(upload(new_app()))                                   # the one share of the hour
    again = upload(new_app(), "second.csv", CSV.replace(b"lunch", b"dinner"))   # a new session, same computer
    again.button(key="share_upload").click()
    run(again)
    assert "the limit is 1" in messages(again)
    assert "data" not in again.query_params and store_of(store_url).usage()[0] == 1
    _from_address(monkeypatch, "192.0.2.200")                  # another computer has its own quota
    share(upload(new_app()))
    assert store_of(store_url).usage()[0] == 2


def test_without_an_address_every_session_is_one_client(store_url, monkeypatch):
    # no address (localhost, a proxy that does not forward it): new sessions are not new quotas
    monkeypatch.setenv("NBLAB_SHARES_PER_HOUR", "1")
    from dashboard.lesson import sharing
    sharing._open.clear()
    _own_session_ids(monkeypatch)
    _from_address(monkeypatch, None)
    share(upload(new_app()))
    again = upload(new_app(), "second.csv", CSV.replace(b"lunch", b"dinner"))
    again.button(key="share_upload").click()
    run(again)
    assert "the limit is 1" in messages(again) and store_of(store_url).usage()[0] == 1


def test_with_a_share_key_only_its_holder_shares_and_a_class_cannot_use_up_the_teachers_quota(store_url,
                                                                                                monkeypatch):
    # the operator sets a key; students behind the school's one address cannot share at all, so the
    # teacher (same address) still can
    monkeypatch.setenv("NBLAB_SHARES_PER_HOUR", "2")
    monkeypatch.setenv("NBLAB_SHARE_KEY", "k3y-for-teachers-only")
    from dashboard.lesson import sharing
    sharing._open.clear()
    _own_session_ids(monkeypatch)
    _from_address(monkeypatch, "198.51.100.7")
    for typed in (None, "guess", "k3y-for-teachers-only "):
        pupil = upload(new_app())
        if typed is not None:
            pupil.text_input(key=sharing.K_SHARE_KEY).set_value(typed)
        pupil.button(key="share_upload").click()
        run(pupil)
        assert "needs its share key" in messages(pupil) and "data" not in pupil.query_params
    assert store_of(store_url).usage()[0] == 0
    teacher = upload(new_app())
    teacher.text_input(key=sharing.K_SHARE_KEY).set_value("k3y-for-teachers-only")
    share(teacher)
    assert store_of(store_url).usage()[0] == 1
    assert "k3y" not in " ".join(f"{k}={v}" for k, v in teacher.query_params.items())


def test_ipv6_clients_count_by_their_64_network(monkeypatch):
    from dashboard.lesson import sharing
    _from_address(monkeypatch, "2001:db8:1:2::10")
    a = sharing._client_owner()
    _from_address(monkeypatch, "2001:db8:1:2:ffff:1:2:3")        # same /64: the same client
    assert sharing._client_owner() == a
    _from_address(monkeypatch, "2001:db8:1:3::10")               # another /64
    assert sharing._client_owner() != a
    _from_address(monkeypatch, "192.0.2.9")
    v4 = sharing._client_owner()
    _from_address(monkeypatch, "::ffff:192.0.2.9")                # the same IPv4 client, written as IPv6
    assert sharing._client_owner() == v4 != a
    for none in (None, "", "not an address"):                    # no usable address: one client
        _from_address(monkeypatch, none)
        assert sharing._client_owner() == "address:unknown"


def test_a_full_store_refuses_a_new_share_and_keeps_the_one_students_opened(store_url, monkeypatch):
    # NBLAB_STORE_MAX_MB=0.001 is 1048 bytes: two files of 395 bytes fit, a third does not
    data = CSV + b"extra lunch notes,\n" * 5
    assert 2 * len(data) <= int(0.001 * 1024 * 1024) < 3 * len(data)
    monkeypatch.setenv("NBLAB_STORE_MAX_MB", "0.001")
    from dashboard.lesson import sharing
    sharing._open.clear()
    teacher = share(upload(new_app(), NAME, data))
    assert at_dataset(new_app(dataset="shared", data=teacher)) == "shared"      # a student opened it
    share(upload(new_app(), "other.csv", data.replace(b"cash", b"cask")))
    flood = upload(new_app(), "flood.csv", data.replace(b"win", b"won"))
    flood.button(key="share_upload").click()
    run(flood)
    assert "Could not share" in messages(flood) and "full" in messages(flood)
    assert at_dataset(flood) == "upload"
    assert store_of(store_url).usage() == (2, 2 * len(data))
    student = new_app(dataset="shared", data=teacher)                 # the teacher's link still opens
    assert at_dataset(student) == "shared" and "no longer on the server" not in messages(student)


def test_share_button_states_the_new_limits(store_url):
    a = upload(new_app())
    help_text = a.button(key="share_upload").proto.help
    assert "10 shares per hour from one computer" in help_text and "100 per hour on this server" in help_text
    assert "never one made in the last 24 hours" in help_text


# ---- store faults: messages for the class, details for the log --------------------------------

def test_corrupt_store_says_damaged_without_retry_or_path(tmp_path, monkeypatch, caplog):
    import logging

    from dashboard.lesson import sharing
    store_dir = tmp_path / "secret-server-dir"
    store_dir.mkdir()
    (store_dir / "shares.sqlite3").write_bytes(bytes(range(256)) * 32)    # not an SQLite file
    monkeypatch.setenv("NBLAB_STORE_DIR", str(store_dir))
    monkeypatch.delenv("NBLAB_STORE_URL", raising=False)
    sharing._open.clear()
    with caplog.at_level(logging.ERROR, logger="dashboard.data.store"):
        at = new_app(dataset="shared", data="A" * 24)
    text = messages(at)
    assert "damaged" in text and "administrator" in text
    assert "try again" not in text.lower() and "minute" not in text
    assert str(tmp_path) not in page_text(at) and "secret-server-dir" not in page_text(at)
    assert at_dataset(at) == DEFAULT_DATASET
    assert any("secret-server-dir" in r.getMessage() for r in caplog.records)   # the log names the file


def test_a_failed_class_link_shows_one_notice_only(store_url):
    for query in ({"dataset": "shared", "data": "A" * 24},              # unknown id
                  {"dataset": "shared", "data": "abc"},                 # malformed id
                  {"dataset": f"{NAME} (shared)", "data": "B" * 24},    # the label the widget writes
                  {"dataset": "shared"}):                               # no id at all
        at = new_app(**query)
        assert "shared data set" in messages(at) or "data id" in messages(at)
        text = page_text(at)
        assert "is not a data set here" not in text and "could not use" not in text, query
        assert at_dataset(at) == DEFAULT_DATASET
        assert "dataset" not in at.query_params or at.query_params["dataset"] == DEFAULT_DATASET


def test_sharing_keeps_the_teacher_s_run_and_text_settings_for_the_class(store_url):
    """The teacher changed min df to 2 and stepped once; sharing must not restart the run, and the
    students get the features the teacher's run uses (same vocabulary, same numbers)."""
    teacher = upload(new_app(hidden="50"))
    teacher.number_input(key="min_df").set_value(2)
    run(teacher)
    steps(teacher, 1)
    prep_t = teacher.session_state["lesson"].prep
    assert prep_t.ds.pipeline.min_df == 2
    # by hand: the words found in at least 2 of the 14 messages
    from collections import Counter
    rows = CSV.decode().splitlines()[1:]
    df = Counter(w for r in rows for w in set(r.rsplit(",", 1)[0].split()))
    assert sorted(prep_t.feature_names) == sorted(w for w, n in df.items() if n >= 2)
    before = numbers(teacher)

    share(teacher)
    assert teacher.session_state["lesson"].run.current.iteration == 1        # not restarted at t = 0
    same_numbers(numbers(teacher), before)
    assert teacher.number_input(key="min_df").value == 2

    student = new_app(**dict(teacher.query_params))      # the link names t=1: recomputed to it
    assert student.number_input(key="min_df").value == 2
    assert student.session_state["lesson"].prep.feature_names == prep_t.feature_names
    same_numbers(numbers(student), before)
