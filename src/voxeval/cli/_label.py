"""``voxeval label``: judge replies in the browser; ``voxeval agreement``: how far people and judges agree."""

from __future__ import annotations

import argparse
import getpass
from pathlib import Path
from typing import Any

from voxeval.errors import InputError, Location


def register(commands: Any) -> None:
    """Add the ``label`` and ``agreement`` commands."""
    p = commands.add_parser(
        "label",
        description="Serve a local web app to label replies' dialogue acts (--task da) or rate their style 1-5 "
        "(--task style). Judgements are appended at once to ROOT/human/<task>/<labeller>.jsonl; reopening the "
        "printed URL resumes at the first unjudged item. The URL carries a random token required on every request, "
        "kept per run and labeller in ROOT/human/.<labeller>.token (0600), so a restarted server keeps the URL.",
    )
    p.add_argument("source", type=Path, help="a run directory, or a JSONL file of items (id, text, audio?, ...)")
    p.add_argument("--task", choices=("da", "style"), required=True)
    p.add_argument("--labeller", default=None, help="your name (a file name; default: the login name)")
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="seed of your item order, recorded in every saved row (default: the one your file records when you "
        "resume, else one derived from labeller and task); a seed other than your file's is refused. With --sample "
        "also the seed of the draw, unless --sample-seed is given",
    )
    p.add_argument(
        "--sample",
        type=int,
        default=None,
        metavar="N",
        help="run directories: draw a uniform random sample of N replies to label first, recorded with its seed and "
        "population in ROOT/human/<task>/sample.json (prediction-powered scores use only it; docs/labelling.md): N "
        "sample ids per dataset, labelled for every system, or N per dataset x system with --per-system. Without "
        "--sample a recorded sample is still served first",
    )
    p.add_argument("--per-system", action="store_true", help="--sample: draw N replies per system independently")
    p.add_argument(
        "--sample-seed",
        type=int,
        default=None,
        metavar="S",
        help="seed of the draw (default: --seed when given, else the recorded draw's, else a random one; recorded)",
    )
    p.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; share only on a trusted network)"
    )
    p.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    p.add_argument("--show-system", action="store_true", help="show the system's name (default: hidden, blind rating)")
    p.set_defaults(handler=_label)
    a = commands.add_parser(
        "agreement",
        description="Agreement between the labellers of a run directory (ROOT/human/), and of the annotator "
        "(annotations.jsonl, as the run annotated it) and the style judge (judgements.jsonl) with them, with 95% "
        "bootstrap intervals, a key (which direction is better), and the items left out and why.",
    )
    a.add_argument("run_dir", type=Path)
    a.add_argument("--task", choices=("da", "style"), default=None, help="default: every task with judgements")
    a.add_argument(
        "--json", type=Path, default=None, help="also write the figures here (default ROOT/human/agreement.json)"
    )
    a.add_argument(
        "--export",
        type=Path,
        default=None,
        metavar="OUT.jsonl",
        help="write the human labels as a dataset: da → gold rows for `voxeval annotator-check`; "
        "style → ratings for `voxeval report --human`",
    )
    a.add_argument("--labeller", default=None, help="--export --task da: whose labels (needed when several)")
    a.set_defaults(handler=_agreement)


def _root_and_items(source: Path, task: str) -> tuple[Path, list[Any]]:
    from voxeval.label import load_file_items, load_run_items

    if source.is_dir():
        return source, load_run_items(source, task)  # type: ignore[arg-type]
    if source.is_file():
        return source.parent, load_file_items(source)
    raise InputError(Location(str(source)), "not found: give a run directory or a JSONL file")


def _label(args: argparse.Namespace) -> int:
    from voxeval.label import Study, check_labeller
    from voxeval.label._server import LabelServer
    from voxeval.label._token import stored_token

    labeller = check_labeller(getpass.getuser() if args.labeller is None else args.labeller)
    root, items = _root_and_items(args.source, args.task)
    if not items:
        raise InputError(Location(str(args.source)), f"nothing to judge for --task {args.task}")
    first = _drawn(args, root, items)
    study = Study(root, items, args.task, labeller, seed=args.seed, first=first)
    token = stored_token(root, labeller)  # kept per run and labeller: an open tab survives a restart
    server = LabelServer((args.host, args.port), study, token=token, show_system=args.show_system)
    print(f"voxeval label: {len(items)} items, labeller {labeller}, order seed {study.seed}")
    if first:
        print(f"the {len(first)} drawn items come first ({root / 'human' / args.task / 'sample.json'})")
    print(f"judgements go to {study.path}")
    print(f"open {server.url}", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


def _drawn(args: argparse.Namespace, root: Path, items: list[Any]) -> frozenset[str]:
    """The keys of the run's drawn sample, drawing and recording it first when ``--sample`` asks for one."""
    import secrets

    from voxeval.label._sample import draw_sample, drawn_keys, read_draw, record_draw

    if args.sample is None:
        if args.per_system or args.sample_seed is not None:
            raise InputError(Location("--per-system/--sample-seed"), "only with --sample N")
        return drawn_keys(read_draw(root, args.task) if args.source.is_dir() else None, items)
    if not args.source.is_dir():
        raise InputError(Location(str(args.source)), "--sample draws from a run directory's replies, not a file")
    recorded = read_draw(root, args.task)
    seed = args.sample_seed if args.sample_seed is not None else args.seed
    if seed is None and recorded and (recorded.size, recorded.per_system) == (args.sample, args.per_system):
        seed = recorded.seed  # the same request again: resume the recorded draw
    seed = secrets.randbelow(2**32) if seed is None else seed
    if not 0 <= seed < 2**32:
        raise InputError(Location("--sample-seed"), f"must be an integer in [0, 2**32), got {seed}")
    draw, new = record_draw(root, draw_sample(items, args.task, args.sample, per_system=args.per_system, seed=seed))
    drawn = sum(len(s.sample) for s in draw.strata)
    print(f"{'drew' if new else 'using the recorded sample:'} {drawn} replies (seed {draw.seed})")
    return drawn_keys(draw, items)


def _agreement(args: argparse.Namespace) -> int:
    from voxeval.label._agreement import agreement_report
    from voxeval.label._export import export_labels, render_agreement

    if not (args.run_dir / "human").is_dir():
        raise InputError(Location(str(args.run_dir / "human")), "missing: no human judgements (run `voxeval label`)")
    tasks = [args.task] if args.task else ["da", "style"]
    report = agreement_report(args.run_dir, tasks)
    from voxeval.data import atomic_write_json

    out = args.json or args.run_dir / "human" / "agreement.json"
    atomic_write_json(out, report, root=None if args.json else args.run_dir)  # human/ may not be a link
    print(render_agreement(report))
    print(f"figures written to {out}")
    if args.export:
        n, no_act = export_labels(args.run_dir, args.task or "da", args.export, args.labeller)
        print(f"{n} rows exported to {args.export}")
        if no_act:
            print(f"{no_act} 'no act' labels not exported: a gold row needs at least one act (agreement counts them)")
    return 0
