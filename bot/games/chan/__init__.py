"""Chắn: the engine, its rules of combination and counting, its normal AI."""
