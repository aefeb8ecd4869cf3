"""The Streamlit dashboard: launcher, navigation, pages and the Plotly board.

Only this package imports Streamlit; the domain core stays UI-free. `board.py`
is pure (frames in, Plotly figures out) so pages and tests can share it.
"""
