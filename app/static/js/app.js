/* Shiftdesk's only script besides htmx: when htmx cannot reach the server, or the server answers
   with an error htmx does not swap (5xx), say so in the #messages live region. Uses the
   server's own message when the answer carries a #messages region, else a generic sentence.
   A form marked data-autosubmit (the hand-off of sign-out to the provider) is sent at once;
   without JavaScript its button does the same. The clock's timers (<time datetime="PT…"
   data-ticking>) count on from the length the server gave, every second, and the "as of" note
   beside them (for pages without JavaScript) is hidden; panels swapped in by htmx are found on
   the next tick. A form's <progress data-upload-progress> shows, and fills, while htmx sends
   its file (htmx:xhr:progress; never going back, as the answer's own download reports too).
   The header's menus of an administrator close one another, and on Escape or a click away. */
(function () {
  "use strict";

  var GENERIC = "Could not reach the server. Check your connection, then try again.";

  function show(text) {
    var region = document.getElementById("messages");
    if (!region) {
      return;
    }
    var message = document.createElement("p");
    message.className = "message message-error";
    message.textContent = text;
    region.replaceChildren(message);
  }

  function serverMessage(xhr) {
    if (!xhr || !xhr.responseText) {
      return "";
    }
    var page = new DOMParser().parseFromString(xhr.responseText, "text/html");
    var region = page.getElementById("messages");
    return region ? region.textContent.trim().replace(/\s+/g, " ") : "";
  }

  var DURATION = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?$/;

  function seconds(text) {
    var parts = DURATION.exec(text || "");
    if (!parts) {
      return null;
    }
    return (Number(parts[1] || 0) * 3600) + (Number(parts[2] || 0) * 60) + Number(parts[3] || 0);
  }

  function words(total) {
    var h = Math.floor(total / 3600);
    var m = Math.floor((total % 3600) / 60);
    var s = total % 60;
    return (h ? h + "h " : "") + m + "m " + (s < 10 ? "0" : "") + s + "s";
  }

  function tick() {
    var now = Date.now();
    document.querySelectorAll("time[data-ticking]").forEach(function (timer) {
      if (!timer.dataset.seenAt) {
        var base = seconds(timer.getAttribute("datetime"));
        if (base === null) {
          return;
        }
        timer.dataset.base = String(base);
        timer.dataset.seenAt = String(now);
      }
      var total = Number(timer.dataset.base) +
        Math.floor((now - Number(timer.dataset.seenAt)) / 1000);
      timer.textContent = words(total);
      timer.setAttribute("datetime", "PT" + total + "S");
    });
    document.querySelectorAll("[data-as-of]").forEach(function (note) {
      note.hidden = true;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    tick();
    window.setInterval(tick, 1000);
    var form = document.querySelector("form[data-autosubmit]");
    if (form) {
      form.submit();
    }
  });
  // The header's menus (details[data-nav-group]): one open at a time; Escape or a click
  // outside closes them, Escape returning focus to the menu's summary.
  function closeMenus(except) {
    document.querySelectorAll("details[data-nav-group][open]").forEach(function (menu) {
      if (menu !== except) {
        menu.open = false;
      }
    });
  }
  document.addEventListener("toggle", function (event) {
    var menu = event.target;
    if (menu.matches && menu.matches("details[data-nav-group]") && menu.open) {
      closeMenus(menu);
    }
  }, true);
  document.addEventListener("click", function (event) {
    if (!event.target.closest || !event.target.closest("details[data-nav-group]")) {
      closeMenus(null);
    }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") {
      return;
    }
    var open = event.target.closest ? event.target.closest("details[data-nav-group][open]") : null;
    closeMenus(null);
    if (open) {
      open.querySelector("summary").focus();
    }
  });
  document.addEventListener("htmx:sendError", function () {
    show(GENERIC);
  });
  document.addEventListener("htmx:xhr:progress", function (event) {
    var form = event.target && event.target.closest ? event.target.closest("form") : null;
    var bar = form ? form.querySelector("progress[data-upload-progress]") : null;
    var detail = event.detail || {};
    if (!bar || !detail.lengthComputable || !detail.total) {
      return;
    }
    bar.hidden = false;
    bar.value = Math.max(Number(bar.value) || 0, Math.round(100 * detail.loaded / detail.total));
  });
  document.addEventListener("htmx:responseError", function (event) {
    show(serverMessage(event.detail && event.detail.xhr) || GENERIC);
  });
})();
