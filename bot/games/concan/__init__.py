"""Concan: the engine, its melds, the meld solver, the table's melds, its normal AI."""
