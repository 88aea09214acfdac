"""The pure engine: puzzles, formats, the solution counter, layouts, the step grader and the generator.

No Prefect, no database, no YAML reading, no printing: the CLI and the flows do those.
"""

from .counter import CountResult, count_solutions
from .puzzle import (
    GAMES,
    Cells,
    InputError,
    Puzzle,
    PuzzleError,
    cell_name,
    cells_to_coords,
    coords_to_cells,
    is_connected,
    is_solution,
    iter_cells,
    layouts_exist,
    region_name,
    solution_problems,
)

__all__ = [
    "GAMES",
    "Cells",
    "CountResult",
    "InputError",
    "Puzzle",
    "PuzzleError",
    "cell_name",
    "cells_to_coords",
    "coords_to_cells",
    "count_solutions",
    "is_connected",
    "is_solution",
    "iter_cells",
    "layouts_exist",
    "region_name",
    "solution_problems",
]
