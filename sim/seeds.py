"""The recorded seeds: ``seeds/recorded.txt``, one ``SEED DIGEST [steps=N] [off=KIND,...]`` a line."""

from __future__ import annotations

from pathlib import Path
from typing import Final

import attrs

from .scenario import GENERATOR_VERSION

__all__ = ["DEFAULT_SEEDS", "TRANSCRIPTS", "Recorded", "read_seeds", "write_seeds"]

SEEDS_DIR: Final = Path(__file__).resolve().parent.parent / "seeds"
DEFAULT_SEEDS: Final = SEEDS_DIR / "recorded.txt"
TRANSCRIPTS: Final = SEEDS_DIR / "transcripts"


@attrs.frozen
class Recorded:
    seed: int
    digest: str
    steps: int | None = None
    off: tuple[str, ...] = ()

    def line(self) -> str:
        extra = ""
        if self.steps is not None:
            extra += f" steps={self.steps}"
        if self.off:
            extra += f" off={','.join(self.off)}"
        return f"{self.seed} {self.digest}{extra}"


def read_seeds(path: Path) -> tuple[dict[str, str], list[Recorded]]:
    header: dict[str, str] = {}
    entries: list[Recorded] = []
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            words = line[1:].split()
            if len(words) == 2 and words[0] == "generator":  # older files also named a Python: not a pin
                header[words[0]] = words[1]
            continue
        fields = line.split()
        try:
            seed, digest = int(fields[0]), fields[1]
            options = dict(field.split("=", 1) for field in fields[2:])
        except (ValueError, IndexError) as exc:
            raise ValueError(f"{path}:{number}: expected `SEED DIGEST [steps=N] [off=KINDS]`: {raw!r}") from exc
        steps = int(options["steps"]) if "steps" in options else None
        off = tuple(kind for kind in options.get("off", "").split(",") if kind and kind != "-")
        entries.append(Recorded(seed, digest, steps, off))
    return header, entries


def write_seeds(path: Path, entries: list[Recorded]) -> None:
    lines = [
        "# mesh-mcp simulator: recorded seeds and the sha256 of each in-memory transcript.",
        "# CI replays every one against the core in memory and the real binary over a pipe: any",
        "# difference fails. Regenerate deliberately with `python -m sim record` after a change that",
        "# is meant to change answers; fuzz finds carry steps= and off= and are kept by record.",
        f"# generator {GENERATOR_VERSION}",
    ]
    lines += [entry.line() for entry in entries]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
