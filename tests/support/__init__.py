"""Helpers shared by the tests and the benchmarks (never by the product)."""
