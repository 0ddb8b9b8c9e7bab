"""Croupier's rules core: pure, exact game engines for live-dealer card tables.

Nothing in this package imports AWS code except :mod:`croupier.app` (the functions' code: storage,
the bus, the workflow) and :mod:`croupier.local` (the local stack). The engines, the shoe, money
arithmetic, transcripts and replay are plain Python.
"""

__version__ = "0.1.0"
