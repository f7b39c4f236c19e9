"""`promptcanary merge`: join the partial runs of a sharded run (``run --shard i/n``) into one."""

from __future__ import annotations

from pathlib import Path

from promptcanary.commands.common import say, write_text
from promptcanary.errors import EXIT_OK


def merge_command(*, parts: list[Path], output: Path) -> int:
    """Check the parts make one run (same suite, model and settings; every slice and every
    prompt exactly once), then write the merged run to ``output``."""
    from promptcanary import pipeline
    from promptcanary.files import check_destinations

    check_destinations({"--output": output}, {})
    run = pipeline.merge_parts(parts)
    write_text(output, run.model_dump_json(indent=2))
    usage = run.usage
    say(
        f"Merged {len(parts)} part(s) → {output}: {len(run.prompts)} prompts, "
        f"{usage.requests} requests ({usage.errors} errored)"
        + (f"; stopped early: {run.aborted}" if run.aborted else "")
    )
    return EXIT_OK
