"""`python -m starbattle_cli`: the `starbattle` command."""

from starbattle_cli.app import main

main()
