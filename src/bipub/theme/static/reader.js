/* bipub default theme: what a reader expects, added over a page that works without it
 * (issue 19). Served at /assets/reader.js.
 *  - a Copy button on every code block;
 *  - the light/dark toggle: the OS setting until the reader chooses; the choice is kept in
 *    localStorage ("bipub-theme") and applied at once (this file is loaded in <head>);
 *  - on a post, the language switcher goes to the heading the reader is at (scrolled to, else
 *    the one the address names), in the other language's text (its headings pair by position:
 *    render/section_map.py);
 *  - on 404.html (one file for every missing URL, both languages): the language of the missing
 *    URL first (/en/… → English), and its search forms filled with the words of the URL's last
 *    segment (/en/blog/continous-batching/ → "continous batching"). */
(function () {
  "use strict";
  var root = document.documentElement;
  /* loaded in <head> without `defer`: the reader's choice applies before the page is drawn */
  try {
    var chosen = localStorage.getItem("bipub-theme");
    if (chosen === "light" || chosen === "dark") root.dataset.theme = chosen;
  } catch (e) { /* storage refused: the OS setting applies */ }

  function osDark() {
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  }
  function current() {
    return root.dataset.theme || (osDark() ? "dark" : "light");
  }

  function setupToggle() {
    var button = document.querySelector(".theme-toggle");
    if (!button) return;
    var label = button.querySelector(".visually-hidden");
    function show() {
      var next = current() === "dark" ? "light" : "dark";
      var text = button.dataset[next] || next;
      button.setAttribute("aria-label", text);
      button.title = text;
      if (label) label.textContent = text;
      button.setAttribute("aria-pressed", root.dataset.theme ? "true" : "false");
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      var next = current() === "dark" ? "light" : "dark";
      root.dataset.theme = next;
      try { localStorage.setItem("bipub-theme", next); } catch (e) { /* private mode: this page only */ }
      show();
    });
    show();
  }

  function setupCopy() {
    var body = document.body;
    var copy = body.dataset.copy || "Copy";
    var copied = body.dataset.copied || "Copied";
    if (!navigator.clipboard) return; /* http:// other than localhost: no clipboard API */
    document.querySelectorAll(".prose pre").forEach(function (pre) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy-button";
      button.textContent = copy;
      button.addEventListener("click", function () {
        var code = pre.querySelector("code") || pre;
        /* textContent: the code as written (innerText adds a line around a highlighted line,
           a block: site.css .hll) */
        navigator.clipboard.writeText(code.textContent.replace(/\n$/, "")).then(function () {
          button.textContent = copied;
          setTimeout(function () { button.textContent = copy; }, 1500);
        }, function () {
          button.textContent = copy + " ✗";
        });
      });
      var box = document.createElement("div"); /* the button stays put when the code scrolls */
      box.className = "has-copy";
      pre.parentNode.insertBefore(box, pre);
      box.appendChild(pre);
      box.appendChild(button);
    });
  }

  function wordsOf(path) {
    var segments = path.split("/").filter(function (s) { return s && s !== "index.html"; });
    var last = segments.length > 1 ? segments[segments.length - 1] : "";
    try { last = decodeURIComponent(last); } catch (e) { /* malformed: as it is */ }
    return last.replace(/\.html?$/, "").replace(/[-_+.]+/g, " ").trim();
  }

  function setupNotFound() {
    var main = document.querySelector(".page--404 .error-page");
    if (!main) return;
    var path = location.pathname;
    var blocks = main.querySelectorAll(".error-page__block");
    var first = blocks[0];
    blocks.forEach(function (block) {
      var home = block.querySelector("a[hreflang]");
      if (!home || block === first) return;
      if (path.indexOf(new URL(home.href, location.href).pathname) !== 0) return;
      var code = block.getAttribute("lang");
      first.parentNode.insertBefore(block, first);
      var title = main.querySelector('.error-page__title-line[lang="' + code + '"]');
      if (title) title.parentNode.insertBefore(title, title.parentNode.firstElementChild);
      root.lang = code;
    });
    var words = wordsOf(path);
    if (!words) return;
    main.querySelectorAll('.error-page__search input[name="q"]').forEach(function (input) {
      if (!input.value) input.value = words;
    });
  }

  /* the index of the last heading the reader has scrolled to (its top in the upper quarter of
     the window or above it), -1 above the first; null if a heading is not on the page */
  function headingAt(ids) {
    var at = -1;
    for (var i = 0; i < ids.length; i++) {
      var heading = document.getElementById(ids[i]);
      if (!heading) return null;
      if (heading.getBoundingClientRect().top > window.innerHeight / 4) break;
      at = i;
    }
    return at;
  }

  function setupSwitchPlace() {
    var article = document.querySelector("article[data-sections]");
    if (!article) return;
    var sections;
    try { sections = JSON.parse(article.getAttribute("data-sections")); } catch (e) { return; }
    if (!sections || !sections.ids || !sections.to) return;
    document.querySelectorAll(".lang-switch a[hreflang]").forEach(function (link) {
      var theirs = sections.to[link.getAttribute("hreflang")];
      if (!theirs || theirs.length !== sections.ids.length) return;
      var page = link.getAttribute("href").split("#")[0];
      function aim() { /* (before the browser follows, opens or copies the link) */
        var at = headingAt(sections.ids);
        if (at === -1) { /* above the first heading (the header is at the page's top): the
                            heading the address names, if any (a contents or shared link) */
          var named = "";
          try { named = decodeURIComponent(location.hash.slice(1)); } catch (e) { /* as none */ }
          at = named ? sections.ids.indexOf(named) : -1;
        }
        link.setAttribute("href", at === null || at < 0 ? page : page + "#" + encodeURIComponent(theirs[at]));
      }
      link.addEventListener("click", aim);
      link.addEventListener("auxclick", aim);
      link.addEventListener("contextmenu", aim);
    });
  }

  function start() {
    setupToggle();
    setupCopy();
    setupSwitchPlace();
    setupNotFound();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
