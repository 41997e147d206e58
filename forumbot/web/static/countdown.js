// Deadlines: every element with data-deadline (an ISO time) shows the time to go, to the second. On the time
// zone page, a reader who has not chosen one yet gets the browser's own zone preselected.
(function () {
  "use strict";
  function left(deadline) {
    var seconds = Math.floor((Date.parse(deadline) - Date.now()) / 1000);
    if (!(seconds > 0)) { return "due now"; }
    var days = Math.floor(seconds / 86400), rest = seconds % 86400;
    function two(n) { return (n < 10 ? "0" : "") + n; }
    var text = two(Math.floor(rest / 3600)) + ":" + two(Math.floor(rest % 3600 / 60)) + ":" + two(rest % 60);
    return days ? days + "d " + text : text;
  }
  function tick() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-deadline]"), function (el) {
      el.textContent = left(el.dataset.deadline);
    });
  }
  if (document.querySelector("[data-deadline]")) { tick(); setInterval(tick, 1000); }
  var zone = document.getElementById("zone");
  if (zone && !zone.dataset.current && window.Intl) {
    var guess = Intl.DateTimeFormat().resolvedOptions().timeZone;
    Array.prototype.forEach.call(zone.options, function (o) { if (o.value === guess) { o.selected = true; } });
  }
})();
