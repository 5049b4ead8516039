"""GitHub's task lists in rendered Markdown: `- [x] done` and `- [ ] to do` become list items
with a checkbox (disabled: a reader cannot tick it; checked for `[x]`/`[X]`), as GitHub, MkDocs
Material and Hugo draw them, in GitHub's markup: the checkbox, then the item's text (screen readers
say "checkbox, checked, unavailable", then the text). Not inside a `<label>`: Pagefind leaves a
label's text out of the search index, and the items' words would not be found.

The marker is found by `bipub.text.markdown.task_marker`, which the drafter and QA read too: what
the page shows as a checkbox is what a DeepL draft keeps as it is and what QA compares. (Not
mdit_py_plugins' tasklists plugin: it cuts three characters off whatever token comes first, a
link's included, and gives ids from uuid4, which no two builds would share.)
"""

from __future__ import annotations

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from bipub.text.markdown import task_marker, ticked

CHECKBOX = '<input class="task-list-item-checkbox" type="checkbox" disabled{}>'


def task_lists(state: StateCore) -> None:
    """Core rule (after `inline`): each task item's marker → a checkbox; the item gets the class
    `task-list-item`, its list `contains-task-list`."""
    tokens = state.tokens
    lists: list[int] = []  # the open lists' token indexes, innermost last
    for i, tok in enumerate(tokens):
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            lists.append(i)
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif tok.type == "inline" and tok.children and lists:
            m = task_marker(tokens, i)
            if m is None:
                continue
            box = Token("html_inline", "", 0)
            box.content = CHECKBOX.format(" checked" if ticked(m) else "")
            first = tok.children[0]
            first.content = " " + first.content[m.end() :]
            tok.children.insert(0, box)
            tokens[i - 2].attrJoin("class", "task-list-item")
            if tokens[lists[-1]].attrGet("class") is None:
                tokens[lists[-1]].attrSet("class", "contains-task-list")


# Feeds: many feed readers strip form controls (<input>) from an entry's HTML, and a
# task item lost whether it is done; in feeds the checkbox is text. Only the exact markup above
# is ours: in a code block or an escaped text it is written with `&lt;` and not matched.
FEED_BOXES = {CHECKBOX.format(" checked"): "☑", CHECKBOX.format(""): "☐"}


def feed_boxes(html: str) -> str:
    """A rendered body for a feed entry: its task-list checkboxes as ☑ (done) and ☐ (to do)."""
    if "task-list-item-checkbox" not in html:
        return html
    for box, text in FEED_BOXES.items():
        html = html.replace(box, text)
    return html
