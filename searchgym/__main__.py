"""``python -m searchgym ARGS``: the ``searchgym`` command itself (the same CLI, for an environment
whose scripts folder is not on PATH)."""

from searchgym.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
