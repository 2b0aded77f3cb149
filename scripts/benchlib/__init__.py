"""benchlib - the subcommands of scripts/bench (one module each) and what they share
(common.py).  Python 3 standard library only."""
