"""The live-feed commands: serve the API, print a token, feed a simulated shoe."""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from roads_app.cli.args import host_name, port_number

DEFAULT_API_PORT = 8502  # same as roads_app.api.server.DEFAULT_API_PORT (kept import-free)
TOKEN_ENV = "ROADS_APP_TOKEN"
HOST_ENV = "ROADS_APP_HOST"  # = roads_app.ui.access.HOST_ENV: where the dashboard listens


@contextlib.contextmanager
def api_beside(data_dir: Path, port: int | None, host: str = "127.0.0.1") -> Iterator[None]:
    """The API in a child process for as long as the dashboard runs.

    ``port`` None is the default port, skipped with a note when it is taken (the
    dashboard matters more than its API, and a second dashboard must still start);
    a port the person asked for must be free; 0 starts no API.
    """
    if port == 0:
        yield
        return
    from roads_app.api.server import api_command
    from roads_app.errors import RoadsAppError
    from roads_app.serve import check_port, prepare_data_dir

    try:
        check_port(port or DEFAULT_API_PORT, host)
    except RoadsAppError:
        if port is not None:
            raise
        print(
            f"note: the API is not started: port {DEFAULT_API_PORT} is taken "
            "(--api-port N picks another)",
            file=sys.stderr,
        )
        yield
        return
    port = port or DEFAULT_API_PORT
    cmd = api_command(prepare_data_dir(data_dir), port, host)
    proc = subprocess.Popen(cmd)
    print(f"roads-app API on http://{host}:{port} (docs at /docs)", file=sys.stderr)
    try:
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _cmd_api(args: argparse.Namespace) -> int:
    from roads_app.api.server import serve
    from roads_app.serve import check_port, prepare_data_dir
    from roads_app.sim import warmup

    check_port(args.port, args.host)  # resolves the host too: one line, before uvicorn
    data = prepare_data_dir(Path(args.data))
    warmup.start_in_background()  # compiles what the cache lacks while it serves
    print(
        f"roads-app API on http://{args.host}:{args.port} (docs at /docs), data {data}",
        file=sys.stderr,
    )
    serve(data, args.port, args.host)
    return 0


def _cmd_token(args: argparse.Namespace) -> int:
    from roads_app.errors import RoadsAppError
    from roads_app.messages import Message
    from roads_app.store import tokens

    role = "screen" if args.screen else "viewer" if args.viewer else "operator"
    data = Path(args.data)
    if args.table is not None and not args.screen:
        raise RoadsAppError(Message("msg_table_needs_screen", option="--table", screen="--screen"))
    if args.revoke_all:
        n = tokens.revoke_all(data, role)
        print(f"revoked {n} {role} token{'s' if n != 1 else ''}", file=sys.stderr)
        return 0
    if args.screen:  # the key is the output's last word, for a script to take
        key = tokens.issue_screen(data, args.table)
        where = f"table {args.table}'s" if args.table else "any table's"
        print(f"screen key for {where} display and wall (read-only, kept as a hash): {key}")
        return 0
    print(tokens.issue(data, role, again=args.new))
    print(f"{role} token: only its hash is kept, so keep it now", file=sys.stderr)
    return 0


def _cmd_feed(args: argparse.Namespace) -> int:
    from roads_app.api.feeder import Fed, feed
    from roads_app.game.shoe import check_seed

    check_seed(args.seed)
    token = args.token or os.environ.get(TOKEN_ENV)

    def say(f: Fed) -> None:
        again = " (already in: retried answer)" if f.replayed else ""
        retries = f" after {f.attempts} attempts" if f.attempts > 1 else ""
        print(f"hand {f.hand}: version {f.version}{again}{retries}", file=sys.stderr)

    if args.table is not None:
        from roads_app.api.feeder import feed_table
        from roads_app.game.floor import check_table_code

        code = check_table_code(args.table)
        fed = feed_table(
            args.api,
            code,
            args.seed,
            args.every,
            token,
            shoes=args.shoes,
            limit=args.hands,
            on_hand=say,
        )
        print(f"fed {len(fed)} hands at table {code}")
        return 0
    fed = feed(args.api, args.shoe, args.seed, args.every, token, limit=args.hands, on_hand=say)
    print(f"fed {len(fed)} hands into shoe {args.shoe}")
    return 0


def _every(text: str) -> float:
    v = float(text)
    if not 0 <= v <= 3600:
        raise argparse.ArgumentTypeError(f"{text} is out of range: 0 to 3600 seconds")
    return v


def register(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("api", help="serve the live-feed HTTP API (docs at /docs)")
    s.add_argument(
        "--port", type=port_number, default=DEFAULT_API_PORT, help=f"({DEFAULT_API_PORT})"
    )
    s.add_argument(
        "--host",
        type=host_name,
        default="127.0.0.1",
        help="listen address (127.0.0.1); other addresses need tokens to read",
    )
    s.add_argument("--data", default="data", help="folder of the shoe database (data/)")
    s.set_defaults(func=_cmd_api)

    s = sub.add_parser("token", help="print the API token (created on first use)")
    s.add_argument("--data", default="data", help="folder of the shoe database (data/)")
    who = s.add_mutually_exclusive_group()
    who.add_argument("--viewer", action="store_true", help="a read-only token instead")
    who.add_argument(
        "--screen",
        action="store_true",
        help="a new screen key: the display and the wall only, read-only, kept until revoked",
    )
    s.add_argument(
        "--table", default=None, help="with --screen: the one floor table the key shows (CODE)"
    )
    s.add_argument(
        "--new",
        action="store_true",
        help="issue another token when one exists (old ones stay valid)",
    )
    s.add_argument("--revoke-all", action="store_true", help="invalidate every token of the role")
    s.set_defaults(func=_cmd_token)

    s = sub.add_parser("feed", help="deal a simulated shoe (or a table's shoes) into the API")
    which = s.add_mutually_exclusive_group(required=True)
    which.add_argument("--shoe", help="id of the shoe to feed")
    which.add_argument(
        "--table", help="code of a floor table: shoe after shoe, a shuffle between them"
    )
    s.add_argument(
        "--shoes", type=int, default=None, help="with --table: stop after this many shoes"
    )
    s.add_argument(
        "--simulate",
        action="store_true",
        required=True,
        help="deal the hands from a simulated shoe (the only source today)",
    )
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--every", type=_every, default=0.5, help="seconds between hands (0.5)")
    s.add_argument(
        "--hands", type=int, default=None, help="stop after this many hands (a shoe, with --table)"
    )
    s.add_argument(
        "--api",
        default=f"http://127.0.0.1:{DEFAULT_API_PORT}",
        help=f"the API's address (http://127.0.0.1:{DEFAULT_API_PORT})",
    )
    s.add_argument("--token", default=None, help=f"operator token (or ${TOKEN_ENV})")
    s.set_defaults(func=_cmd_feed)
