"""Pure Plotly figures of the roads; no Streamlit here."""
