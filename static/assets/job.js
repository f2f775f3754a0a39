// job.js keeps a report job's page live. The page names its event stream in
// the data-job-events attribute; each "progress" event carries the job's
// status as JSON, whose "text" object holds the display string of every
// element marked data-field="<name>". A "finished" event reloads the page,
// which then shows the outcome (and stops loading this script's stream).
// Text is set with textContent only: nothing from the server is parsed as
// HTML.
(function () {
  "use strict";

  var root = document.querySelector("[data-job-events]");
  if (!root || typeof window.EventSource !== "function") {
    return;
  }
  var url = root.getAttribute("data-job-events");
  if (!url) {
    return;
  }

  function apply(status) {
    var text = status.text || {};
    var fields = root.querySelectorAll("[data-field]");
    for (var i = 0; i < fields.length; i++) {
      var name = fields[i].getAttribute("data-field");
      if (Object.prototype.hasOwnProperty.call(text, name)) {
        fields[i].textContent = text[name];
      }
    }
    var bar = root.querySelector("progress[data-progress]");
    if (bar) {
      if (status.total > 0) {
        bar.max = status.total;
        bar.value = Math.min(Math.max(status.done, 0), status.total);
      } else {
        bar.removeAttribute("value");
      }
      if (typeof text.progress === "string") {
        bar.textContent = text.progress;
      }
    }
  }

  function parse(event) {
    try {
      return JSON.parse(event.data);
    } catch (e) {
      return null;
    }
  }

  var source = new EventSource(url);
  source.addEventListener("progress", function (event) {
    var status = parse(event);
    if (status) {
      apply(status);
    }
  });
  source.addEventListener("finished", function (event) {
    source.close();
    var status = parse(event);
    if (status) {
      apply(status);
    }
    window.location.reload();
  });
})();
