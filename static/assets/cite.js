// cite.js fills in the "cite this selection" form of a document page: when
// the reader selects words of one passage, it writes the selection's byte
// offsets into the document's UTF-8 text into the form's start and end
// fields and shows the selected words. Each passage element carries its
// start offset in data-start; the offset of a point inside it is that plus
// the UTF-8 length of the passage text before the point. The server reads
// the words from the stored text, so nothing here is trusted beyond the
// two numbers. Text is shown with textContent only.
(function () {
  "use strict";

  var form = document.querySelector("[data-cite-form]");
  if (!form || typeof window.TextEncoder !== "function" || !window.getSelection) {
    return;
  }
  var startField = form.querySelector("[data-cite-start]");
  var endField = form.querySelector("[data-cite-end]");
  var preview = form.querySelector("[data-cite-preview]");
  var encoder = new TextEncoder();

  // The button beside the selection. Pressing it must not collapse the
  // selection before the click, hence the mousedown handler.
  var floatButton = document.createElement("button");
  floatButton.type = "button";
  floatButton.className = "cite-float";
  floatButton.textContent = "Cite this selection";
  floatButton.setAttribute("data-testid", "cite-float");
  floatButton.hidden = true;
  floatButton.addEventListener("mousedown", function (e) { e.preventDefault(); });
  floatButton.addEventListener("click", function () {
    if (startField.value === "" || endField.value === "") {
      return;
    }
    if (typeof form.requestSubmit === "function") {
      form.requestSubmit();
    } else {
      form.submit();
    }
  });
  document.body.appendChild(floatButton);

  function placeButton(range) {
    var rects = range.getClientRects();
    var rect = rects.length ? rects[rects.length - 1] : range.getBoundingClientRect();
    floatButton.hidden = false;
    var width = floatButton.offsetWidth;
    var left = Math.min(rect.right + window.scrollX + 4, window.scrollX + document.documentElement.clientWidth - width - 8);
    floatButton.style.left = Math.max(window.scrollX + 8, left) + "px";
    floatButton.style.top = (rect.bottom + window.scrollY + 6) + "px";
  }

  function passageOf(node) {
    var el = node && node.nodeType === 1 ? node : node && node.parentElement;
    return el ? el.closest(".passage-text[data-start]") : null;
  }

  function byteOffset(passage, node, offset) {
    var r = document.createRange();
    r.setStart(passage, 0);
    r.setEnd(node, offset);
    var start = parseInt(passage.getAttribute("data-start"), 10) || 0;
    return start + encoder.encode(r.toString()).length;
  }

  function update() {
    var sel = window.getSelection();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) {
      floatButton.hidden = true;
      return; // clicking the form's button collapses the selection: keep the offsets
    }
    var range = sel.getRangeAt(0);
    var first = passageOf(range.startContainer);
    var last = passageOf(range.endContainer);
    if (!first && !last) {
      floatButton.hidden = true;
      return; // a selection outside the text, such as in the form
    }
    if (first !== last) {
      startField.value = "";
      endField.value = "";
      preview.textContent = "Select words within one passage: a citation points at one passage.";
      floatButton.hidden = true;
      return;
    }
    startField.value = String(byteOffset(first, range.startContainer, range.startOffset));
    endField.value = String(byteOffset(first, range.endContainer, range.endOffset));
    preview.textContent = "Selected: \u201c" + range.toString().trim() + "\u201d";
    placeButton(range);
  }

  document.addEventListener("selectionchange", update);
})();
