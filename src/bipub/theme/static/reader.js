/* bipub default theme: what a reader expects, added over a page that works without it
 * (issue 19). Served at /assets/reader.js.
 *  - a Copy button on every code block;
 *  - the light/dark toggle: the OS setting until the reader chooses; the choice is kept in
 *    localStorage ("bipub-theme") and applied at once (this file is loaded in <head>);
 *  - on a post or page, the language switcher goes to the heading at the reader's place (the one
 *    scrolled to, else the one the address names) in the other language's text;
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

  /* the headings of the page's text, in order (none where a page shows two texts: the
     side-by-side view) */
  function headingsOf() {
    var texts = document.querySelectorAll(".prose");
    if (texts.length !== 1) return [];
    return Array.prototype.slice.call(
      texts[0].querySelectorAll("h1[id], h2[id], h3[id], h4[id], h5[id], h6[id]"));
  }

  /* the index of the last heading the reader has scrolled to (its top in the upper quarter of
     the window or above it), else of the heading the address names (a contents or shared
     link: the header, with the switcher, is at the page's top); -1: neither */
  function placeOf(headings) {
    var at = -1;
    for (var i = 0; i < headings.length; i++) {
      if (headings[i].getBoundingClientRect().top > window.innerHeight / 4) break;
      at = i;
    }
    if (at >= 0) return at;
    var named = "";
    try { named = decodeURIComponent(location.hash.slice(1)); } catch (e) { /* none */ }
    for (var j = 0; named && j < headings.length; j++) if (headings[j].id === named) return j;
    return -1;
  }

  /* The language switcher keeps the reader's place: its link to the other language's page
     says the place as "#section-N-of-M" (the N-th of M headings); that page goes to its own
     N-th heading if it has M (headings pair by position, as a post's sections do:
     translate/anchors.py), else to its top, and the address then names the heading itself. */
  var PLACE = /^#section-(\d+)-of-(\d+)$/;

  function setupSwitchPlace() {
    var headings = headingsOf();
    var asked = PLACE.exec(location.hash);
    if (asked && !document.getElementById(location.hash.slice(1))) {
      var n = Number(asked[1]), total = Number(asked[2]);
      var target = total === headings.length && n >= 1 ? headings[n - 1] : null;
      history.replaceState(history.state, "",
        target ? "#" + target.id : location.pathname + location.search);
      if (target) target.scrollIntoView();
    }
    if (!headings.length) return;
    document.querySelectorAll(".lang-switch a[rel~=alternate][hreflang]").forEach(function (link) {
      var page = link.getAttribute("href").split("#")[0];
      function aim() { /* (before the browser follows, opens or copies the link) */
        var at = placeOf(headings);
        link.setAttribute("href",
          at < 0 ? page : page + "#section-" + (at + 1) + "-of-" + headings.length);
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
