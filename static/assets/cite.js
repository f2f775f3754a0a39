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
      return; // clicking the button collapses the selection: keep the offsets
    }
    var range = sel.getRangeAt(0);
    var first = passageOf(range.startContainer);
    var last = passageOf(range.endContainer);
    if (!first && !last) {
      return; // a selection outside the text, such as in the form
    }
    if (first !== last) {
      startField.value = "";
      endField.value = "";
      preview.textContent = "Select words within one passage: a citation points at one passage.";
      return;
    }
    startField.value = String(byteOffset(first, range.startContainer, range.startOffset));
    endField.value = String(byteOffset(first, range.endContainer, range.endOffset));
    preview.textContent = "Selected: \u201c" + range.toString().trim() + "\u201d";
  }

  document.addEventListener("selectionchange", update);
})();
