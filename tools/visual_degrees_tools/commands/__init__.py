"""CLI subcommands, one module each. A module exposes `NAME`, `HELP`, `configure(parser)` and
`main(args, state_dir) -> int`; cli.py discovers them from `COMMANDS` below."""

COMMANDS = ("run", "show", "trace", "hunches", "doctor", "serve", "bench")
