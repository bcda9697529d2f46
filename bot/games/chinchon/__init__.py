"""Chinchón: the round, the match, melds, scoring and its normal AI."""
