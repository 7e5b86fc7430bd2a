/* Shiftdesk's only script besides htmx: when htmx cannot reach the server, or the server answers
   with an error htmx does not swap (5xx), say so in the #messages live region. Uses the
   server's own message when the answer carries a #messages region, else a generic sentence.
   A form marked data-autosubmit (the hand-off of sign-out to the provider) is sent at once;
   without JavaScript its button does the same. */
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

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.querySelector("form[data-autosubmit]");
    if (form) {
      form.submit();
    }
  });
  document.addEventListener("htmx:sendError", function () {
    show(GENERIC);
  });
  document.addEventListener("htmx:responseError", function (event) {
    show(serverMessage(event.detail && event.detail.xhr) || GENERIC);
  });
})();
