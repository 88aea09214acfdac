"""The generator: solution-first Star Battle and Queens boards (reference 000's pipeline, as plain functions).

    generate(slot, seed, budget_seconds) -> Generation   one accepted board for a slot, with the run's counters

Stages (each a plain function returning what it made, or why it rejected): layout sampling and region growth
(stages.py, growth.py), uniqueness repair (repair.py), grading and easy hunting (stages.py), the fun and looks
gates (looks.py), hill-climb tuning (tuning.py), similarity (similarity.py).
"""

from .board import REASONS, STAGES, Board, Counters, Generation
from .config import BANDS, GeneratorConfig, Slot
from .growth import Growth, group_stars, grow_queens_regions, grow_starbattle_regions
from .looks import looks_features, looks_score
from .record import GENERATOR_VERSION, BoardRecord, board_record, board_to_json, record_from_json
from .repair import Move, Repair, apply_move, boundary_moves, choose_repair_move, impostor_moves, impostors, repair
from .run import candidate_seed, generate
from .similarity import near_duplicate, star_overlap
from .tuning import Tuning, tune

__all__ = [
    "BANDS",
    "GENERATOR_VERSION",
    "REASONS",
    "STAGES",
    "Board",
    "BoardRecord",
    "Counters",
    "Generation",
    "GeneratorConfig",
    "Growth",
    "Move",
    "Repair",
    "Slot",
    "Tuning",
    "apply_move",
    "board_record",
    "board_to_json",
    "boundary_moves",
    "candidate_seed",
    "choose_repair_move",
    "generate",
    "group_stars",
    "grow_queens_regions",
    "grow_starbattle_regions",
    "impostor_moves",
    "impostors",
    "looks_features",
    "looks_score",
    "near_duplicate",
    "record_from_json",
    "repair",
    "star_overlap",
    "tune",
]
