"""Exact return-to-player reports: every bet type of every game, computed over an 8-deck shoe."""
