// report.js turns a report page's sentence provenance into an evidence
// pane: on a wide screen the opened sentence's cited passage shows beside
// the report (style.css, body.evidence-pane) while the text stays in view,
// and one sentence is open at a time. Keys: "]" opens the next sentence's
// evidence, "[" the previous one, Escape closes it. Without this script
// each sentence still opens its evidence in place.
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

  document.addEventListener("keydown", function (e) {
    var t = e.target;
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
