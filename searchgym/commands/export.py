"""``searchgym export``: a suite's split as a training framework's dataset files.

``--format verl`` writes verl's multi-turn tool-calling dataset (``<split>.parquet``), its tool
config (``tool_config.yaml``) and its agent loop config (``agent_loop.yaml``) into ``--out``: rows
whose tools play the task in searchgym's env during the rollout, so the reward is the env's and the
test split's answers are never written (:mod:`searchgym.integrations.verl_dataset`). Nothing is
written over: an existing ``<split>.parquet`` is refused, and so is a YAML file other than this
export's (the splits of a suite share them), a symbolic link in the place of any of them, a
folder holding another suite's splits (one folder holds one suite's dataset), and a folder holding
other files than an export's: another command's (a run, a comparison, a recipe) or the user's own
(:mod:`searchgym.harness.out_folders`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from searchgym.commands import check_seed
from searchgym.fileio import not_a_folder

FORMATS = ("verl",)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", required=True, choices=FORMATS, help="the framework whose files to write")
    parser.add_argument("--suite", required=True, help="a single-agent text suite id, e.g. searchqa-text-v2")
    parser.add_argument("--split", default="train", choices=("train", "dev", "test"), help="the split to export")
    parser.add_argument("--out", required=True, help="folder to write the files into: a new or empty one, or an "
                        "earlier export's (an existing <split>.parquet is refused, never replaced)")
    parser.add_argument("--seed", type=int, default=0, help="the seed each task's env is reset with")


def check_targets(out: Path, names: tuple[str, ...]) -> None:
    """Refuse, before anything is written, a folder where ``out`` or one of its files belongs.
    Why: each file is written atomically but one after the other, so a folder named
    ``tool_config.yaml`` in ``--out`` failed the export only after ``<split>.parquet`` had been
    written (or had replaced the one there): a failed export left half a dataset."""
    what = not_a_folder(out) if out.exists() else None  # a broken link: export_verl names it with its target
    if what is not None:  # before: the OS's "File exists (out)", exit status 1 where usage errors have 2
        raise ValueError(f"--out {out} is {what}, not a folder; choose a new folder (or an earlier export's "
                         "folder) for --out")
    for name in names:  # a link, even to a folder, is refused as a link (verl_dataset._refuse_link)
        if (out / name).is_dir() and not (out / name).is_symlink():  # before: the OS's "Is a directory", exit 1
            raise ValueError(f"{out / name} is a folder where the export writes a file; move it away or export "
                             "into another folder (--out)")


def run(args: argparse.Namespace) -> int:
    check_seed(args)
    if not args.out.strip():  # before: --out '' wrote into the current folder
        raise ValueError("--out is empty; give the folder to write the files into")
    check_targets(Path(args.out), (f"{args.split}.parquet", "tool_config.yaml", "agent_loop.yaml"))
    from searchgym.integrations.verl_dataset import export_verl

    written = export_verl(args.suite, args.split, args.out, seed=args.seed)
    print(f"wrote {written['data']}, {written['tool_config']} and {written['agent_loop_config']}; train with "
          f"verl's tool agent loop (verl 0.7 or later): "
          f"actor_rollout_ref.rollout.multi_turn.tool_config_path={written['tool_config']} "
          f"actor_rollout_ref.rollout.agent.agent_loop_config_path={written['agent_loop_config']} "
          f"reward.custom_reward_function.path=pkg://searchgym.integrations.verl_reward "
          f"reward.custom_reward_function.name=compute_score")
    return 0
