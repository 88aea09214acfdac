"""The step solver: apply the cheapest technique that makes progress, then start again from the cheapest.

`grade` is the one grading entry point (the CLI, the generator, tuning and the pipeline all call it). It solves
the board's canonical form (canonical.py), so the path, the difficulty, the band and the fun score are the same
for every rotation, reflection and region lettering of a board; the steps are read back onto the player's board
(cells, row, column and region names in the player's own letters).

It never guesses and never assumes the solution is unique: every step is a deduction from the rules and the marks
so far. It ends solved (every cell decided, the stars a solution) or stuck (no technique applies, or the marks
contradict the rules, which happens only on a board with no solution). With `max_cost`, only techniques up to that
cost are used (the capped solver): when it completes, every placement was forced, so the solution is unique.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..puzzle import Cells, Puzzle, is_solution
from .canonical import View, canonical_form
from .chains import broken_rule, build_chain
from .config import GradingConfig
from .experience import Experience, experience
from .geometry import Geometry, State
from .step import Link, Step
from .table import QUEENS_TIER_WEIGHTS, SOLVER_VERSION, Technique, techniques_for


@dataclass(frozen=True)
class Grade:
    """The outcome of a solve: the path, its difficulty and band, its experience score, the final marks."""

    game: str
    solved: bool
    steps: tuple[Step, ...]
    difficulty: int
    band: str
    hardest: Step | None
    climax: float  # position of the hardest step, 0 (first) .. 1 (last)
    experience: Experience
    version: str
    stars: Cells
    empty: Cells
    open: Cells  # cells still undecided (non-zero only when stuck)
    contradiction: str | None  # why the marks broke the rules, on a board with no solution
    max_cost: int | None

    @property
    def hardest_position(self) -> int | None:
        """1-based number of the hardest step."""
        return None if self.hardest is None else self.steps.index(self.hardest) + 1


def grade(
    puzzle: Puzzle,
    config: GradingConfig | None = None,
    *,
    max_cost: int | None = None,
    max_difficulty: int | None = None,
    techniques: tuple[Technique, ...] | None = None,
    chains: bool = True,
) -> Grade:
    """Solve the puzzle step by step and grade the path (see the module docstring); `techniques` replaces the
    game's built-in table (tests and experiments). Every hypothetical step carries the chain a player can follow
    (chains.py; `chains=False` skips them: no number changes, only the narration). With `max_difficulty`, a step is
    taken only while the sum stays below it: a solve that finishes is the full grade step for step (the table is
    cheapest first, so the full solve's step is always the first affordable one), and a board whose full difficulty
    reaches it ends stuck, without paying for the dear steps that would carry it there.

    >>> from starbattle_core.formats import puzzle_from_json
    >>> board = puzzle_from_json({"size": 5, "stars": 1, "regions": ["AAABC", "AAABC", "AADBC", "AEDBC", "AEEBB"]})
    >>> result = grade(board)
    >>> result.solved, result.band
    (True, 'easy')
    >>> result.difficulty == sum(step.cost for step in result.steps)
    True
    >>> result.steps[0].technique, result.steps[0].units
    ('attack from a pair', ('region D',))

    With a cost cap it stops where only dearer techniques would go on (here: at once):

    >>> capped = grade(board, max_cost=1)
    >>> capped.solved, len(capped.steps)
    (False, 0)
    """
    config = config or GradingConfig()
    table = [
        t
        for t in (techniques if techniques is not None else techniques_for(puzzle.game))
        if max_cost is None or t.cost <= max_cost
    ]
    canonical, view = canonical_form(puzzle)
    geometry = Geometry(canonical, view)
    state = geometry.initial_state()
    steps: list[Step] = []
    problem = broken_rule(geometry, state)
    difficulty = 0
    while problem is None and geometry.open_cells(state):
        room = table if max_difficulty is None else [t for t in table if difficulty + t.cost < max_difficulty]
        step = next_step(geometry, state, room, chains=chains)
        if step is None:
            break
        steps.append(step)
        difficulty += step.cost
        state = State(state.stars | step.stars, state.empty | step.empties)
        geometry.recall.forget_states()
        problem = broken_rule(geometry, state)
    return _grade(puzzle, view, geometry, state, tuple(steps), problem, config, max_cost)


def capped_solve(puzzle: Puzzle, max_cost: int, config: GradingConfig | None = None) -> Grade:
    """Solve with the techniques costing at most `max_cost` only."""
    return grade(puzzle, config, max_cost=max_cost)


def next_step(geometry: Geometry, state: State, table: list[Technique], *, chains: bool = False) -> Step | None:
    """The cheapest technique's first deduction that decides at least one open cell (a hint), or None; with
    `chains`, a hypothetical step carries the chain a player can follow (chains.py)."""
    open_cells = geometry.open_cells(state)
    for technique in table:
        found = technique.apply(geometry, state)
        if found is None:
            continue
        stars, empties = found.stars & open_cells, found.empties & open_cells
        if not stars | empties:
            raise RuntimeError(f"technique {technique.code} reported a step that decides nothing")
        chain: tuple[Link, ...] = ()
        sentence = found.sentence
        if chains and found.trials:
            chain, sentence = build_chain(geometry, state, found, technique.cost, table)
        return Step(technique.name, technique.code, technique.cost, stars, empties, found.units, sentence, chain)
    return None


def on_player_board(step: Step, view: View) -> Step:
    """A step found on the canonical board, in the player's cells (its sentence already names them)."""
    chain = tuple(
        replace(link, stars=view.to_player(link.stars), empties=view.to_player(link.empties)) for link in step.chain
    )
    return replace(step, stars=view.to_player(step.stars), empties=view.to_player(step.empties), chain=chain)


def _grade(
    puzzle: Puzzle,
    view: View,
    geometry: Geometry,
    state: State,
    steps: tuple[Step, ...],
    problem: str | None,
    config: GradingConfig,
    max_cost: int | None,
) -> Grade:
    open_cells = view.to_player(geometry.open_cells(state))
    stars, empty = view.to_player(state.stars), view.to_player(state.empty)
    steps = tuple(on_player_board(step, view) for step in steps)
    solved = problem is None and not open_cells and is_solution(puzzle, stars)
    difficulty = sum(s.cost for s in steps)
    hardest = max(steps, key=lambda s: s.cost) if steps else None  # max keeps the first of equals
    queens = puzzle.game == "queens"
    if queens:
        band = _queens_band(steps, difficulty, config)
        quick = config.experience.queens_quick_cost
    else:
        band = config.band(difficulty, puzzle.size)
        quick = config.experience.quick_cost
    scored = experience(steps, config.experience, quick, puzzle.game)
    return Grade(
        game=puzzle.game,
        solved=solved,
        steps=steps,
        difficulty=difficulty,
        band=band,
        hardest=hardest,
        climax=scored.climax,
        experience=scored,
        version=SOLVER_VERSION,
        stars=stars,
        empty=empty,
        open=open_cells,
        contradiction=problem,
        max_cost=max_cost,
    )


def _queens_band(steps: tuple[Step, ...], difficulty: int, config: GradingConfig) -> str:
    top = max((s.cost for s in steps), default=0)
    if top >= QUEENS_TIER_WEIGHTS[4]:
        return "hard"
    if top <= QUEENS_TIER_WEIGHTS[2] and difficulty < config.queens_easy_below:
        return "easy"
    return "medium"
