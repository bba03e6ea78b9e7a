"""Streamlit dashboard for the Naive Bayes + EM Lab (run: streamlit run dashboard/app.py)."""
