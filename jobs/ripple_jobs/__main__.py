"""python3 -m ripple_jobs campaign ... | report ... (what `ripple campaign` and `ripple report` run)."""
import sys


def main(argv):
    if argv and argv[0] == "campaign":
        from .campaign import main as command
    elif argv and argv[0] == "report":
        from .report import main as command
    else:
        print("usage: python3 -m ripple_jobs campaign|report ...", file=sys.stderr)
        return 2
    return command(argv[1:])


sys.exit(main(sys.argv[1:]))
