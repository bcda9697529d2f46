"""The AI levels: ``easy`` (a plain rule player) and ``normal`` (each game's own AI)."""
