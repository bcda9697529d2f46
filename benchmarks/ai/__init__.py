"""The AI's measurements: the arena and its probes."""
