"""A partial build's carrying over of the published files it does not rebuild (`build --only`,
`bipub serve`'s builds of the pages and of the other outputs: ~10,000 files at 5,000 posts a
language), many at once (write/output.py `OutputTree.carry_over` does one).

With the records of both trees trusted, a file whose spare copy is the published file (the same
inode: the last build did not change it) is in the staging folder already: it is only named in
the tree. Those are found in C loops over the names (no call per file); the others (changed by
the last build, not recorded) go through `carry_over`, which links them and says what it found.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import compress, filterfalse, repeat
from operator import eq, itemgetter

from bipub.write.output import OutputFile, OutputTree
from bipub.write.record import INODE_AT

_INODE = itemgetter(INODE_AT)  # (a recorded identity's inode bytes, taken in C)
# what every file carried over from the spare copy is named by (for a clash's message, which
# names the path itself): one object, not one per file
CARRIED = OutputFile(None, "previous build")


def carry_all(tree: OutputTree, paths: Iterable[str]) -> None:
    """`tree.carry_over` of each of `paths` (the published files this build does not make)."""
    wanted = list(filterfalse(tree.files.__contains__, paths))
    live, spare = tree.live, tree.spare
    there: list[str] = []
    if live is not None and spare is not None:
        recorded = live.files
        known = list(filter(recorded.__contains__, wanted))
        now = map(_INODE, map(recorded.__getitem__, known))
        was = map(_INODE, map(spare.files.get, known, repeat(b"")))
        there = list(compress(known, map(eq, now, was)))
        tree.files.update(dict.fromkeys(there, CARRIED))
        tree.kept.update(there)
    for rel in filterfalse(set(there).__contains__, wanted):
        tree.carry_over(rel, OutputFile(None, f"previous build ({rel})"))
