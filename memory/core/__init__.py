"""Pure-Python memory algorithms (activation, ranking, Pareto selection, packing, extraction).

Nothing here imports Django: dataclasses in, dataclasses out, so the algorithms can be unit-tested
and benchmarked without a database. ``memory/services.py`` maps models to these types and back.
"""
