"""``python -m mesh.index.build._worker_main FD ROOT BUDGET_S``: one parse worker process (see ``_pool``)."""

from ._pool import worker_main

if __name__ == "__main__":
    worker_main()
