"""Sub-commands of the ``searchgym`` CLI, one module each (see ``searchgym.cli.COMMANDS``)."""
