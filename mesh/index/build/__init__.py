"""Building the index: the workspace model (services, areas, external services), the walk, the
parse workers, refresh and resolution, the watcher and the server's live index."""
