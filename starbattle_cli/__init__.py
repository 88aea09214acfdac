"""The `starbattle` command line: engine commands (verify, solve, layouts, grade, explain, generate) and the
pipeline commands (daily, backfill, serve, ui, show, export, stats)."""
