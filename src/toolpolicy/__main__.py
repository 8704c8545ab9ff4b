"""`python -m toolpolicy` runs the `policy` command."""

from .cli import main

main()
