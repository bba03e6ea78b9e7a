"""nblab: the lesson core — the lesson as one page whose EM runs in the browser.

The lab's data (:mod:`nblab.data`), its JavaScript (``nblab/js/``: the engine, checked against nbcore,
and the page's modules), the page itself (:mod:`nblab.page`), the offline file and the notebook widget.
``nblab`` imports nbcore, numpy and the standard library only: never Streamlit or ``dashboard``
(see ``docs/lab.md``).
"""
