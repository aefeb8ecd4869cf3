"""A progress bar over shoes for the command line, that says when it is compiling first."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from roads_app.sim import kernel

Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` as shoes are done."""

PROGRESS_FROM = 20_000
"""Simulated runs of this many shoes or more show a progress bar on the command line."""


COMPILING = "compiling the engine, first run only"
"""What a progress bar says while the first run on an install compiles the engine."""


class ProgressBar:
    """A tqdm bar over shoes on ``stream`` (stderr) that says when it is compiling first.

    Call it as a `Progress`; ``progress(0, total)`` opens the bar. Until the first shoes
    are done it reads `COMPILING` when a run of ``total`` shoes compiles the engine first
    (`kernel.needs_compile`: a new install, a run too large for the interpreted
    engine), else ``starting_text``.
    """

    def __init__(
        self,
        stream: Any,
        label: str = "backtest",
        starting_text: str = "starting",
        engine: bool = True,
    ):
        self.stream = stream
        self.label = label
        self.engine = engine
        self.starting_text = starting_text
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        from tqdm import tqdm

        if self.bar is None:
            compiles = self.engine and kernel.needs_compile(total)
            self.bar = tqdm(
                total=total,
                file=self.stream,
                unit=" shoes",
                unit_scale=True,
                desc=COMPILING if compiles else self.starting_text,
                dynamic_ncols=True,
                mininterval=0.2,
            )
        if done > self.bar.n:
            if self.bar.n == 0:
                self.bar.set_description_str(self.label, refresh=False)
            self.bar.update(done - self.bar.n)
        if done >= total:
            self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def progress_bar(
    stream: Any, label: str = "backtest", starting_text: str = "starting", engine: bool = True
) -> Progress:
    """A `ProgressBar` on ``stream`` (``engine``: the run uses the compiled engine)."""
    return ProgressBar(stream, label, starting_text, engine)
