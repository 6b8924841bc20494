"""``python -m kg_memory.cli``: the same as the ``kg-memory`` command."""

from kg_memory.cli import main

main()
