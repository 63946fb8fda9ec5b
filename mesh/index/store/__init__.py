"""The index on disk: the SQLite schema and its snapshots, and the trigram planner of the text index."""
