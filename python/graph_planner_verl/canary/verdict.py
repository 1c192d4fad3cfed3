"""The canary's verdict from its held-out scores: the trained run's over the control's, against
the run-to-run spread (docs/training.md, "The learning canary")."""

from __future__ import annotations

import math
from dataclasses import dataclass

# The effect must be at least this many spreads to count as learning (issue 39's goal).
SPREADS = 3.0


@dataclass
class Verdict:
    learned: bool
    effect: float
    spread: float
    seeds: int
    line: str


def standard_error(trained: float, control: float, samples: int) -> float:
    """The standard error of one run's held-out difference: two shares of ``samples`` episodes each."""
    if samples <= 0:
        return math.inf
    variance = trained * (1 - trained) / samples + control * (1 - control) / samples
    return math.sqrt(max(variance, 0.0))


def verdict(trained: list[float], control: list[float], samples: int, before: float) -> Verdict:
    """``trained`` and ``control`` are each seed's held-out score after training (the share of
    held-out episodes resolved); ``samples`` the held-out episodes per score. The spread is the
    standard deviation of the effect over the seeds, never below one run's standard error, so two
    seeds that happen to agree cannot make a small effect look certain."""
    effects = [t - c for t, c in zip(trained, control)]
    seeds = len(effects)
    effect = sum(effects) / seeds
    over_seeds = math.sqrt(sum((e - effect) ** 2 for e in effects) / (seeds - 1)) if seeds > 1 else 0.0
    floor = max(standard_error(t, c, samples) for t, c in zip(trained, control))
    spread = max(over_seeds, floor)
    learned = effect > 0 and effect >= SPREADS * spread
    figures = f"held-out return {effect:+.3f} over the control (run-to-run spread ±{spread:.3f} over {seeds} seed{'s' if seeds != 1 else ''}; before training {before:.3f})"
    line = f"learned: {figures}" if learned else f"did not learn: {figures}, under {SPREADS:g}× the spread"
    return Verdict(learned=learned, effect=effect, spread=spread, seeds=seeds, line=line)
