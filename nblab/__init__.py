"""nblab: the lesson core — the lesson as one page whose EM runs in the browser.

The lab's data (:mod:`nblab.data`), its JavaScript (``nblab/js/``: the engine, checked against nbcore,
and the page's modules), the page itself (:mod:`nblab.page`), the offline file and the notebook widget.
``nblab`` imports nbcore, numpy and the standard library only: never Streamlit or ``dashboard``
(see ``docs/lab.md``).
"""

#: the lesson as one offline file (export_lesson) and in a notebook (show), imported on first use
_LAZY = {"export_lesson": ("nblab.export", "export_lesson"), "show": ("nblab.widget", "show"),
         "write_lab": ("nblab.page", "write_lab"), "lab_data": ("nblab.data", "lab_data")}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'nblab' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_LAZY))
