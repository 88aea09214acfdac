"""The human-technique grader: a step solver that never guesses, difficulty bands, the experience (fun) score
and narrated walkthroughs, for Star Battle and Queens.

    grade(puzzle) -> Grade          solve step by step with the cheapest technique that makes progress
    capped_solve(puzzle, max_cost)  the same with cheap techniques only (completion proves uniqueness)
    walkthrough_text / _json        the solve path, narrated
"""

from .chains import broken_rule
from .config import BandCutoffs, ExperienceConfig, GradingConfig
from .experience import Experience
from .geometry import Geometry, State
from .solver import Grade, capped_solve, grade, next_step
from .step import Deduction, Link, Step
from .table import QUEENS_TECHNIQUES, SOLVER_VERSION, STARBATTLE_TECHNIQUES, Technique, solver_version, techniques_for
from .walkthrough import walkthrough_json, walkthrough_text

__all__ = [
    "QUEENS_TECHNIQUES",
    "SOLVER_VERSION",
    "STARBATTLE_TECHNIQUES",
    "BandCutoffs",
    "Deduction",
    "Experience",
    "ExperienceConfig",
    "Geometry",
    "Grade",
    "GradingConfig",
    "Link",
    "State",
    "Step",
    "Technique",
    "broken_rule",
    "capped_solve",
    "grade",
    "next_step",
    "solver_version",
    "techniques_for",
    "walkthrough_json",
    "walkthrough_text",
]
