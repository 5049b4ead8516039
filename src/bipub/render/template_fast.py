"""The fast path of bipub's templates, on the verified Jinja2 and MarkupSafe versions only
(render/upstream.py; `FAST_TEMPLATES`): a faster `escape` for the compiled templates
(`fast_escape`, through `FastEscapeTemplate`), a Context whose `call` takes fewer steps
(`FastCallContext`), and pages whose contexts let go of their variables once rendered
(`render_released`, with `SiteEnvironment`). Each relies on how Jinja and MarkupSafe work
inside; on any other version render/templates.py uses stock Jinja: the same pages, slower.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping, MutableMapping
from threading import get_ident
from types import BuiltinFunctionType, FunctionType, MethodType
from typing import Any, Final

import jinja2
import jinja2.compiler
import jinja2.nodes
from markupsafe import Markup
from markupsafe import escape as stock_escape

from bipub.render import upstream

FAST_TEMPLATES: Final = upstream.fast_templates()  # (fast_escape: verified versions only)
if FAST_TEMPLATES:  # private to MarkupSafe: imported on the verified version only
    from markupsafe import _escape_inner  # type: ignore[attr-defined]
_new_str = str.__new__


def fast_escape(value: Any, /) -> Markup:
    """MarkupSafe's `escape`, the same result without its Python-level `Markup.__new__` for the
    two types nearly every `{{ … }}` prints: a `str` (escaped, then made a Markup as
    `Markup.__new__` makes one of a `str`: `str.__new__(Markup, text)`) and a `Markup` (its
    `__html__` is itself: the same text back). Anything else goes to `escape` itself."""
    kind = type(value)
    if kind is str:
        return _new_str(Markup, _escape_inner(value))
    if kind is Markup:
        return value  # type: ignore[no-any-return]
    return stock_escape(value)


def output_escape(value: Any, /) -> str:
    """What the compiled templates escape each `{{ … }}` with: `fast_escape`'s text, as a
    plain `str` for a `str` (MarkupSafe's `_escape_inner` gives back the string itself when it
    has nothing to escape: no copy made). Jinja compiles `escape(…)` only for what an output
    node prints (`CodeGenerator._output_child_pre`), and what it prints is only ever joined
    into the page, a block or a macro's result (which Jinja makes Markup itself): so whether
    each piece is a `Markup` or a `str` changes nothing but the copies made. An `int` (a page
    number, a count) is its `str`: digits and a minus sign, nothing `escape` would change."""
    kind = type(value)
    if kind is str:
        return _escape_inner(value)
    if kind is Markup:
        return value  # type: ignore[no-any-return]
    if kind is int:
        return str(value)
    return stock_escape(value)


class FastEscapeTemplate(jinja2.Template):
    """A template whose compiled code escapes with `output_escape`: the code Jinja compiles
    (`from jinja2.runtime import … escape …`) calls the module-level name `escape` for every
    autoescaped `{{ … }}` (~150 a page); Jinja's `_from_namespace` gets that module's namespace
    once it has run (from source or from the bytecode cache), before any render."""

    @classmethod
    def _from_namespace(
        cls,
        environment: jinja2.Environment,
        namespace: MutableMapping[str, Any],
        globals: MutableMapping[str, Any],
    ) -> jinja2.Template:
        if namespace.get("escape") is stock_escape:
            namespace["escape"] = output_escape
        return super()._from_namespace(environment, namespace, globals)

    def new_context(
        self,
        vars: dict[str, Any] | None = None,
        shared: bool = False,
        locals: Mapping[str, Any] | None = None,
    ) -> jinja2.runtime.Context:
        environment = self.environment
        # (Jinja's `new_context` given the template's globals as one dict: the same keys and
        # values as its ChainMap over the environment's, read without ChainMap's Python-level
        # lookups, key by key, when the page's context copies them)
        context = jinja2.runtime.new_context(
            environment, self.name, self.blocks, vars, shared, _flat(self.globals), locals
        )
        if isinstance(environment, SiteEnvironment):
            made = environment.page_contexts
            if made is not None and environment.page_thread == get_ident():
                made.append(context)
        return context

    def make_module(
        self,
        vars: dict[str, Any] | None = None,
        shared: bool = False,
        locals: Mapping[str, Any] | None = None,
    ) -> jinja2.environment.TemplateModule:
        environment = self.environment
        if shared or not isinstance(environment, SiteEnvironment):
            return super().make_module(vars, shared, locals)
        # a module of the template alone (`{% import %}` without context): Jinja keeps it for
        # every later page (`_get_default_module`), so nothing made for it is released
        made = environment.page_contexts
        environment.page_contexts = None
        try:
            return super().make_module(vars, shared, locals)
        finally:
            environment.page_contexts = made

    def _get_default_module(
        self, ctx: jinja2.runtime.Context | None = None
    ) -> jinja2.environment.TemplateModule:
        # Jinja's, but the globals the importing page has and this template has not found
        # with a set of this template's (`ctx.globals_keys - self.globals.keys()` asks the
        # ChainMap key by key, in Python: ~30 µs for every `{% from … import … %}` a page makes)
        if ctx is not None and not self.environment.is_async:
            keys = ctx.globals_keys - set(self.globals)
            if keys:
                return self.make_module({k: ctx.parent[k] for k in keys})
            ctx = None
        return super()._get_default_module(ctx)


def _flat(globals: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """A template's globals (a ChainMap of its own over the environment's) as one dict with
    the same keys in the same order and the same values; any other mapping as it is."""
    if type(globals) is not ChainMap:
        return globals
    flat: dict[str, Any] = {}
    for mapping in reversed(globals.maps):
        flat.update(mapping)
    return flat


class SiteEnvironment(jinja2.Environment):
    """bipub's environment: Jinja's, and the contexts made while a page renders
    (`render_released`)."""

    page_contexts: list[jinja2.runtime.Context] | None = None
    page_thread: int = 0


def releases_pages(env: jinja2.Environment) -> bool:
    """`render_released` frees what a page of `env` made by reference counting alone (its
    templates record their contexts: the verified Jinja)."""
    return isinstance(env, SiteEnvironment) and issubclass(env.template_class, FastEscapeTemplate)


def render_released(template: jinja2.Template, variables: dict[str, Any]) -> str:
    """`template.render(variables)`, and then every context the page made (its own, those of
    the templates it imported or included with its context) let go of its variables at once.

    Jinja makes reference cycles on every page: a macro that calls anything (`_()` …) closes
    over the context of the template it is defined in, and that context's variables hold the
    macro (`{% from "partials/site_nav.html" import site_nav with context %}`: a new context,
    holding the page's whole `page`, `post`, `site`, each time). Only Python's cyclic garbage
    collector would free them, ~40 objects a page, and each collection of a build's thousands
    of pages walked ~100,000 of them (0.3–0.6 s at 1,000 posts a language); with the
    variables cleared, reference counting frees a page as soon as its HTML is joined.

    Only on the verified Jinja (`FAST_TEMPLATES`: the templates are `FastEscapeTemplate`s,
    which record the contexts they make); a context that outlives the page (a module imported
    without context, kept by Jinja for every page) is never recorded. Not nested: a render
    inside a page's render (a card, the footer) is released with the page."""
    environment = template.environment
    if not isinstance(environment, SiteEnvironment) or environment.page_contexts is not None:
        return template.render(variables)
    made: list[jinja2.runtime.Context] = []
    environment.page_contexts = made
    environment.page_thread = get_ident()
    try:
        return template.render(variables)
    finally:
        environment.page_contexts = None
        for context in made:
            context.vars.clear()


_PASS_EVAL_CONTEXT = jinja2.utils._PassArg.eval_context
# callables whose `__call__` is a method-wrapper (no attributes): what they ask to be passed is
# their own `jinja_pass_arg` (a bound method's is its function's; a builtin's, none)
_PLAIN_CALLABLES = frozenset({FunctionType, MethodType, BuiltinFunctionType})
# a Macro's `__call__` (the class's function, which a bound method reads attributes from) asks
# for nothing to be passed: then what a macro object asks for is only its own attribute
_MACRO_PASS = getattr(jinja2.runtime.Macro.__call__, "jinja_pass_arg", None)
_MACRO_PLAIN = _MACRO_PASS is None


class FastCallContext(jinja2.runtime.Context):
    """A context whose `call` (the compiled code's every `f(…)`: ~40 a page, `_()` most of them)
    takes the stock steps in fewer operations for plain functions and macros.

    Stock `Context.call` first asks `obj.__call__` for `jinja_pass_arg`, which a function's
    `__call__` (a method-wrapper, no attributes) never has, nor those of methods and builtins
    (`{{ ld.update(…) }}`); then `obj` itself. So for these types what is passed first is
    `obj.jinja_pass_arg`, if any: nothing, or the evaluation context (`pass_eval_context`,
    bipub's `_()`), done here. A macro's `__call__` (a bound method of `Macro.__call__`) has
    the one of `Macro.__call__` (`_MACRO_PASS`: the evaluation context on Jinja 3.1, which
    stock `call` then passes; none on older versions: `_MACRO_PLAIN`, then its own as for a
    function). A function that wants the context or the environment, and any other callable,
    go to the stock `call`."""

    @jinja2.utils.internalcode
    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        if __debug__:
            __traceback_hide__ = True  # noqa: F841 - (Jinja's tracebacks skip this frame)
        kind = type(__obj)
        if kind is jinja2.runtime.Macro and _MACRO_PASS is _PASS_EVAL_CONTEXT:
            # (Jinja 3.1: `Macro.__call__` is `pass_eval_context`, so stock passes eval_ctx)
            if kwargs:
                kwargs.pop("_block_vars", None)
                kwargs.pop("_loop_vars", None)
            try:
                return __obj(__self.eval_ctx, *args, **kwargs)
            except StopIteration:
                return __self.environment.undefined(
                    "value was undefined because a callable raised a StopIteration exception"
                )
        if kind in _PLAIN_CALLABLES or (kind is jinja2.runtime.Macro and _MACRO_PLAIN):
            pass_arg = getattr(__obj, "jinja_pass_arg", None)
            if pass_arg is None or pass_arg is _PASS_EVAL_CONTEXT:
                if kwargs:
                    kwargs.pop("_block_vars", None)
                    kwargs.pop("_loop_vars", None)
                if pass_arg is not None:
                    args = (__self.eval_ctx, *args)
                try:
                    return __obj(*args, **kwargs)
                except StopIteration:
                    return __self.environment.undefined(
                        "value was undefined because a callable raised a StopIteration exception"
                    )
        return super().call(__obj, *args, **kwargs)


class JoinedOutputGenerator(jinja2.compiler.CodeGenerator):
    """Jinja's code generator, but an output node of several pieces in a page's own code (its
    root and blocks: where Jinja yields each piece, `{{ … }}` or text, one by one) yields them
    joined, `yield ''.join((a, b, …))`, as Jinja's own code does where it gathers output into
    a list (macros, `{% set %}` blocks: `buf.extend((a, b, …))`, joined at the end).

    A page yields ~260 pieces, each passed up through the generators of its blocks and the
    templates it extends (three levels on a post page) before `render` joins them: ~40 µs a
    page, a quarter of that joined here. The pieces are the same strings, made in the same
    order with the same code, each on a line of its own (the same template lines in a
    traceback); `render` joins every yield, so the page is the same text. Only on the verified
    Jinja (`visit_Output` below is Jinja 3.1's with that one branch changed)."""

    def visit_Output(self, node: jinja2.nodes.Output, frame: jinja2.compiler.Frame) -> None:
        if frame.buffer is not None:  # (gathered into a list already: Jinja's own code)
            super().visit_Output(node, frame)
            return
        if frame.require_output_check:
            if self.has_known_extends:
                return
            self.writeline("if parent_template is None:")
            self.indent()
        finalize = self._make_finalize()
        body: list[list[Any] | jinja2.nodes.Expr] = []
        for child in node.nodes:
            try:
                if not (finalize.const or isinstance(child, jinja2.nodes.TemplateData)):
                    raise jinja2.nodes.Impossible()
                const = self._output_child_to_const(child, frame, finalize)
            except (jinja2.nodes.Impossible, Exception):
                body.append(child)
                continue
            if body and isinstance(body[-1], list):
                body[-1].append(const)
            else:
                body.append([const])
        joined = len(body) > 1
        if joined:
            self.writeline("yield ''.join((")
            self.indent()
        for item in body:
            if isinstance(item, list):
                value = self._output_const_repr(item)
                self.writeline(value + "," if joined else "yield " + value)
            else:
                if joined:
                    self.newline(item)
                else:
                    self.writeline("yield ", item)
                self._output_child_pre(item, frame, finalize)
                self.visit(item, frame)
                self._output_child_post(item, frame, finalize)
                if joined:
                    self.write(",")
        if joined:
            self.outdent()
            self.writeline("))")
        if frame.require_output_check:
            self.outdent()
