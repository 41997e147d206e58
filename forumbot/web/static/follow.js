// Live refresh beyond the threads (live.js): a conversation shows new private messages as they arrive; the
// host console's game page reloads when the game has moved on (a new post read, a phase, a correction
// applied), unless the host is typing in one of its forms, when it says so instead.
(function () {
  "use strict";
  var every = 3000;
  var list = document.getElementById("messages");
  if (list && list.dataset.feed) {
    var poll = function () {
      fetch(list.dataset.feed + "&after=" + list.dataset.last, {credentials: "same-origin"})
        .then(function (response) { return response.ok ? response.json() : {messages: []}; })
        .then(function (data) {
          var anchor = document.getElementById("last");
          data.messages.forEach(function (m) {
            if (document.getElementById("m" + m.id)) { return; }
            var empty = list.querySelector(".empty");
            if (empty) { empty.remove(); }
            anchor.insertAdjacentHTML("beforebegin", m.html);   // rendered and escaped by the server
            list.dataset.last = m.id;
          });
        })
        .catch(function () {})
        .then(function () { setTimeout(poll, every); });
    };
    setTimeout(poll, every);
  }
  var page = document.getElementById("console-live");
  if (page && page.dataset.feed) {
    var typing = function () {
      return Array.prototype.some.call(document.querySelectorAll("main input:not([type=hidden]), main textarea"),
        function (el) { return el === document.activeElement || (el.type !== "checkbox" && el.value && el.defaultValue !== el.value); });
    };
    var check = function () {
      fetch(page.dataset.feed, {credentials: "same-origin"})
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (data) {
          if (!data || data.version === page.dataset.version) { return; }
          if (typing()) {
            page.textContent = "The game has moved on: reload the page when you have sent your form.";
            page.hidden = false;
            return;
          }
          location.reload();
        })
        .catch(function () {})
        .then(function () { setTimeout(check, every); });
    };
    setTimeout(check, every);
  }
})();
