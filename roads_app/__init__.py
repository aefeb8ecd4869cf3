"""roads-app: baccarat roads, bets and exact odds over one Polars rounds frame.

The domain core (cards, drawing, shoe, rounds, roads, rules, settlement, odds,
simulation) never imports Streamlit; the dashboard lives in `roads_app.ui`.
"""

__version__ = "0.1.0"
