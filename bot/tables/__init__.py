"""The table framework shared by every game: lobby, seats, turns, timers, DMs, persistence."""
