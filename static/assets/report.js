// report.js turns a report page's sentence provenance into an evidence
// pane: on a wide screen the opened sentence's cited passage shows beside
// the report (style.css, body.evidence-pane) while the text stays in view,
// and one sentence is open at a time. Keys: "]" opens the next sentence's
// evidence, "[" the previous one, Escape closes it (and a citation's
// preview). A citation's preview, which the style sheet shows below its
// sentence, opens above it when there is no room below.
// Without this script each sentence still opens its evidence in place,
// and the previews still show.
(function () {
  "use strict";

  var sentences = Array.prototype.slice.call(document.querySelectorAll("details.sentence"));
  if (sentences.length === 0) {
    return;
  }
  var body = document.body;

  function openOnly(d) {
    sentences.forEach(function (other) {
      if (other !== d && other.open) {
        other.open = false;
      }
    });
  }

  function refresh() {
    var any = sentences.some(function (d) { return d.open; });
    body.classList.toggle("evidence-pane", any);
  }

  sentences.forEach(function (d) {
    d.addEventListener("toggle", function () {
      if (d.open) {
        openOnly(d);
      }
      refresh();
    });
  });
  refresh();

  function current() {
    for (var i = 0; i < sentences.length; i++) {
      if (sentences[i].open) {
        return i;
      }
    }
    return -1;
  }

  function go(i) {
    if (i < 0 || i >= sentences.length) {
      return;
    }
    var d = sentences[i];
    // Close the others first: their inline parts fold before the opened
    // sentence is scrolled to.
    openOnly(d);
    d.open = true;
    refresh();
    var summary = d.querySelector("summary");
    if (summary) {
      summary.focus({ preventScroll: true });
    }
    (summary || d).scrollIntoView({ block: "nearest" });
  }

  // A citation's preview shows below its sentence unless the window has
  // no room for it there and more above.
  function placePreview(wrap) {
    wrap.classList.remove("preview-above", "preview-dismissed");
    requestAnimationFrame(function () {
      var p = wrap.querySelector(".ref-preview");
      var s = wrap.closest("summary");
      if (!p || !s || getComputedStyle(p).display === "none") {
        return;
      }
      var box = s.getBoundingClientRect();
      var below = window.innerHeight - box.bottom;
      if (p.getBoundingClientRect().bottom > window.innerHeight && box.top > below) {
        wrap.classList.add("preview-above");
      }
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll(".cite-ref-wrap"), function (wrap) {
    wrap.addEventListener("mouseenter", function () { placePreview(wrap); });
    wrap.addEventListener("focusin", function () { placePreview(wrap); });
  });

  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (e.key === "Escape" && t && t.classList && t.classList.contains("cite-ref")) {
      // Escape hides the preview of the focused citation.
      t.parentNode.classList.add("preview-dismissed");
      e.preventDefault();
      return;
    }
    if (e.altKey || e.ctrlKey || e.metaKey || (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)))) {
      return;
    }
    var i = current();
    if (e.key === "]") {
      go(i + 1);
      e.preventDefault();
    } else if (e.key === "[") {
      go(i < 0 ? sentences.length - 1 : i - 1);
      e.preventDefault();
    } else if (e.key === "Escape" && i >= 0) {
      sentences[i].open = false;
      var summary = sentences[i].querySelector("summary");
      if (summary) {
        summary.focus();
      }
    }
  });
})();
