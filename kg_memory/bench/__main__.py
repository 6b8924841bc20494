"""``python -m kg_memory.bench --scale 1e4,1e5``: the bench command without the full CLI."""

import typer

from kg_memory.bench.command import bench_command

# The guard matters: each scale runs in a spawned child, which imports this module again.
if __name__ == "__main__":
    typer.run(bench_command)
