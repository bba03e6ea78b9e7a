"""The worker process's Streamlit log, kept quiet (dashboard/serve/offload.py).

The worker runs module-level functions of the app (reading an upload, the event-model advice) outside any
Streamlit session, by design: no script run, no runtime. Streamlit then logs, for every cached function or
session-state read those modules touch, "missing ScriptRunContext! This warning can be ignored when running
in bare mode", "No runtime found, using MemoryCacheStorageManager" and "Session state does not function
when running a script without `streamlit run`" — about 26 lines in the server's terminal per upload, none of
them a problem. Importing this module (first in the forkserver's preload, and in each worker) drops those
loggers' records below ERROR, in the worker only; the server's own log is untouched.
"""
from __future__ import annotations

import logging

from streamlit.logger import get_logger

#: Streamlit's loggers that speak of a missing session, a thing the worker never has
SESSIONLESS = ("streamlit.runtime.scriptrunner_utils.script_run_context", "streamlit.runtime.caching.cache_data_api",
               "streamlit.runtime.state.session_state_proxy")


def _below_error(record: logging.LogRecord) -> bool:
    return record.levelno >= logging.ERROR


def quiet() -> None:
    """Keep only errors from :data:`SESSIONLESS` (a filter: Streamlit resetting a logger's level keeps it)."""
    for name in SESSIONLESS:
        log = get_logger(name)
        if _below_error not in log.filters:
            log.addFilter(_below_error)


quiet()
