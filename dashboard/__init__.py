"""Streamlit dashboard for the Naive Bayes + EM Lab (run from the repository root:
``python3 -m streamlit run dashboard/server.py``, the README's run command)."""
