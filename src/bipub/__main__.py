import gc

# the collector's thresholds of a bipub process (cli.FEW_COLLECTIONS) before its first imports:
# click's and bipub's modules are long-lived objects, walked again by every early collection
gc.set_threshold(100_000, 50, 100)

from bipub.cli import run  # noqa: E402 - (after the thresholds)

run()
