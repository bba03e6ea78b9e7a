"""Every use of Streamlit's private API by the URL guard, in one place (Streamlit 1.67).

Streamlit has no public way to read the query string as the browser sent it, to read its
limits on a query string, or to change the value a URL-bound widget seeds from. Each function
here falls back to what the public API gives when Streamlit's internals are not what they were:
the guard then still works, a little later (a rerun) or with less to say.
"""
from __future__ import annotations

from dashboard.ui import url_values


def query_limits() -> tuple[int, int]:
    """(characters, parameters): the longest query string Streamlit reads, and the most parameters
    (``streamlit.runtime.state.query_params``); Streamlit 1.67's values when it does not say."""
    try:
        from streamlit.runtime.state.query_params import (
            CLIENT_STATE_QUERY_STRING_MAX_FIELDS,
            CLIENT_STATE_QUERY_STRING_MAX_LENGTH,
        )
    except ImportError:
        return url_values.QUERY_MAX_LENGTH, url_values.QUERY_MAX_FIELDS
    return CLIENT_STATE_QUERY_STRING_MAX_LENGTH, CLIENT_STATE_QUERY_STRING_MAX_FIELDS


def raw_query_string() -> str:
    """The query string of this run as the browser sent it, where Streamlit keeps it (its script
    run context); "" when it does not."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        return str(getattr(get_script_run_ctx(), "query_string", "") or "")
    except Exception:  # noqa: BLE001 - a Streamlit internals change: nothing to compare with
        return ""


def seed_url(key: str, value: str | list[str]) -> bool:
    """Make the widget bound to ``key`` seed from ``value`` instead of the URL's raw value, and show
    ``value`` in the address bar; False when Streamlit's query-param store is not what we expect.
    There is no public way to change the value a bound widget seeds from, and some raw values crash
    Streamlit's own seeding (an int number_input given ``inf`` raises an uncaught OverflowError)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        ctx = get_script_run_ctx()
        with ctx.session_state.query_params() as qp:
            values = value if isinstance(value, list) else [value]
            qp._initial_query_params[key] = values
            qp._query_params[key] = values if len(values) != 1 else values[0]
            qp._send_query_param_msg()
        return True
    except Exception:  # noqa: BLE001 - a Streamlit internals change: the caller falls back to a rerun
        return False
