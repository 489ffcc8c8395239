"""HLV Lens engine: pure numpy/pandas analyses of human label variation.

Modules (one per concept): ``io`` (data layer), ``soft_metrics``, ``agreement``, ``balance``,
``certainty``, ``perspectivist``, ``review``, ``training``, ``samples``.
No module imports streamlit.
"""

__version__ = "0.1.0"
