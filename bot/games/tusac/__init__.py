"""Tứ Sắc: the engine, its sets and scoring, its normal AI."""
