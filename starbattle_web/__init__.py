"""`starbattle web`: the published site, the solver page and the JSON API on one port (server.py), the engine's work
in worker processes (work.py). docs/web.md says how to run it."""
