"""Phỏm (Tá Lả): the engine, its melds and its normal AI."""
