"""How the parse pool hands out files: each language's to one worker, so that its queries are
compiled once (INV-INDEX-12), what it says of the compilations still ahead (INV-FIRST-4), and how
long it waits for a worker before it takes it as hung (INV-INDEX-4).

The dispatch is tested on its own (``_Queues.next_for`` with workers that are only bookkeeping):
which worker runs which file is timing, never output, so no real process is needed to see it.
"""

from __future__ import annotations

from mesh.index.build._pool import (
    COMPILE_S,
    DEPTH,
    GRACE_S,
    START_GRACE_S,
    STEAL_MIN,
    WORKER_START_S,
    ParsePool,
    _Queues,
    _Worker,
    compile_key,
)
from mesh.index.build._work import Task


def tasks(**counts: int) -> list[Task]:
    """``counts``: suffix (without the dot) -> how many files; interleaved as a walk would list them."""
    out = []
    for i in range(max(counts.values())):
        for suffix, count in counts.items():
            if i < count:
                out.append(Task(f"dir{i}/file.{suffix}"))
    return out


def feed(queue: _Queues, workers: list[_Worker]) -> None:
    """The pool's first feeding: each worker up to DEPTH, in turn."""
    for worker in workers:
        while len(worker.outstanding) < DEPTH and (task := queue.next_for(worker, workers)) is not None:
            worker.outstanding.append(task)


def answer_all(worker: _Worker) -> None:
    """The worker answers every file it holds (so it has compiled their languages)."""
    while worker.outstanding:
        language = compile_key(worker.outstanding.popleft().path)
        if language is not None:
            worker.languages[language] = True
    worker.answered = True


def languages(worker: _Worker) -> set[str | None]:
    return {compile_key(task.path) for task in worker.outstanding}


def test_inv_index_12_each_language_goes_to_one_worker_the_costliest_first() -> None:
    """INV-INDEX-12: the fixture's mix on two workers: no language is handed to both, the first
    worker takes C# (the costliest to compile), the second TypeScript, each filling up with files
    of no grammar."""
    queue = _Queues(tasks(cs=5, ts=6, py=7, rs=8, md=10, proto=6))
    first, second = _Worker(None, None), _Worker(None, None)
    feed(queue, [first, second])
    assert languages(first) == {"csharp", None}
    assert languages(second) == {"typescript", None}
    # one compilation ahead at a time: the second claims no other language before it answered one
    assert list(second.languages) == ["typescript"]
    seen: dict[str, set[int]] = {}
    for _ in range(20):  # until every file is handed out, answering as a fast worker would
        for number, worker in enumerate((first, second)):
            for task in worker.outstanding:
                if (language := compile_key(task.path)) is not None:
                    seen.setdefault(language, set()).add(number)
            answer_all(worker)
            feed(queue, [worker])
    assert not queue
    assert all(len(workers) == 1 for workers in seen.values()), seen
    assert set(seen) == {"csharp", "typescript", "python", "rust"}


def test_inv_index_12_an_idle_worker_shares_a_language_only_with_many_files_left() -> None:
    """INV-INDEX-12: a tree of one language keeps both workers busy (the second takes its files
    once more than STEAL_MIN are left); a few files stay with the worker that compiled them."""
    many = _Queues(tasks(py=DEPTH + STEAL_MIN + 1))
    first, second = _Worker(None, None), _Worker(None, None)
    feed(many, [first, second])
    assert languages(first) == languages(second) == {"python"}
    few = _Queues(tasks(py=DEPTH + STEAL_MIN))
    first, second = _Worker(None, None), _Worker(None, None)
    feed(few, [first, second])
    assert languages(first) == {"python"} and not second.outstanding


def test_inv_index_12_files_put_back_are_taken_by_a_worker_when_no_other_works() -> None:
    """INV-INDEX-12: a replaced worker's files of a language another (idle) worker holds are not
    left waiting: the fresh worker takes them, since nobody else would."""
    queue = _Queues(tasks(py=3))
    holder = _Worker(None, None)
    feed(queue, [holder])
    answer_all(holder)  # python is the holder's, and it is idle now
    queue.put_back([Task("late/a.py"), Task("late/b.py")])  # files of a worker that died
    fresh = _Worker(None, None)
    feed(queue, [fresh])
    assert [task.path for task in fresh.outstanding] == ["late/a.py", "late/b.py"]


def test_inv_first_4_the_pool_estimates_the_compilations_ahead() -> None:
    """INV-FIRST-4: before its workers start, a run of C# and Python files on two workers is a
    worker's start-up plus both compilations spread over the two; files of no grammar cost none."""
    pool = ParsePool(root=__import__("pathlib").Path("/nonexistent"), workers=2)
    estimate = pool.warmup_s(tasks(cs=3, py=3, md=4))
    assert estimate == WORKER_START_S + (COMPILE_S["csharp"] + COMPILE_S["python"]) / 2
    assert pool.warmup_s(tasks(md=4, proto=2)) == WORKER_START_S


def test_inv_index_4_a_worker_compiling_a_language_is_not_taken_as_hung() -> None:
    """INV-INDEX-4: a worker past its start-up whose next file is of a language it has not compiled
    yet gets the start grace again (the compilation runs before the file's budget, and under a heavy
    load it took over the budget and grace: C# files of real workspaces were recorded as failed);
    once that language answered, only the budget and grace are left."""
    queue = _Queues(tasks(py=2, cs=2))
    worker = _Worker(None, None)
    assert worker.limit_s(5.0) == 5.0 + GRACE_S + START_GRACE_S  # a fresh worker
    feed(queue, [worker])
    assert compile_key(worker.outstanding[0].path) == "csharp"
    worker.answered = True  # past its start-up, C# not answered yet: still compiling
    assert worker.limit_s(5.0) == 5.0 + GRACE_S + START_GRACE_S
    answer_all(worker)
    worker.outstanding.extend([Task("x/late.cs"), Task("x/late.md")])
    assert worker.limit_s(5.0) == 5.0 + GRACE_S  # its C# compiled: a parse, budget and grace
    worker.outstanding.clear()
    worker.outstanding.append(Task("x/new.py"))
    worker.languages["python"] = False  # handed, not answered yet
    assert worker.limit_s(5.0) == 5.0 + GRACE_S + START_GRACE_S
