"""`python -m radeid ...`: the same command line as the `radeid` script.

The guard matters: worker processes started with "spawn" import this module under another name,
and must not start a second command line.
"""

from radeid.cli import app

if __name__ == "__main__":
    app(prog_name="radeid")
