"""A post's parts of llms.txt and llms-full.txt are kept by what they are made of
(render/llms_parts.py post_key, with the translations of POST_LABELS): a UI string they show and
POST_LABELS does not list would leave the last build's part in place after a catalog edit."""

from __future__ import annotations

import ast
import inspect

from bipub.render import llms, llms_parts

PARTS = ("post_line", "full_post", "_state_note")


def _labels_used(function: str) -> set[str]:
    tree = ast.parse(inspect.getsource(getattr(llms, function)))
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_":
            [arg] = node.args
            assert isinstance(arg, ast.Constant), f"{function}: _() of a value not constant"
            used.add(arg.value)
    return used


def test_every_ui_string_of_a_posts_parts_is_in_its_key() -> None:
    used = set().union(*(_labels_used(f) for f in PARTS))
    assert used, "no _() call found: the functions were renamed?"
    assert used <= set(llms_parts.POST_LABELS), sorted(used - set(llms_parts.POST_LABELS))


def test_a_posts_parts_call_only_functions_whose_values_are_in_its_key() -> None:
    """The functions of llms.py a post's parts call: none reads the site beyond what
    post_key holds (a new one is looked at, and added here, before the parts use it)."""
    called = set()
    for function in PARTS:
        tree = ast.parse(inspect.getsource(getattr(llms, function)))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                called.add(node.func.id)
    known = {"_", "_link_text", "_one_line", "_state_note", "body_text", "format_iso", "tags_of"}
    assert called - {"slugify"} <= known, sorted(called - known)
