"""Chiếu: rummy-style card games for Discord."""
