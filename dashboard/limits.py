"""What one classroom server accepts from a user: the dashboard's own limits.

The engine (nbcore) reads files of any size and keeps every term unless told otherwise;
the dashboard serves a whole class from one process, so it passes these caps to every
read of a user's file (uploads and shared files alike).
"""
MB = 1024 * 1024

#: Largest file a user may upload or open from a class link. Keep equal to
#: ``server.maxUploadSize`` in .streamlit/config.toml (a test checks it).
UPLOAD_MAX_BYTES = 5 * MB

#: Largest vocabulary kept from a user's text: the most frequent terms.
VOCABULARY_CAP = 20_000

