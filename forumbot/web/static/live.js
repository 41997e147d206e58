// The thread page: a permalink to a post on another page goes to that page; the last page shows new
// posts as they arrive (polling the forum's JSON every few seconds). Nothing else runs on the pages.
(function () {
  "use strict";
  var list = document.getElementById("posts");
  if (!list) { return; }
  var wanted = location.hash.match(/^#p(\d+)$/);
  if (wanted && !document.getElementById("p" + wanted[1])) {
    location.replace(list.dataset.postUrl + wanted[1]);
    return;
  }
  if (list.dataset.live !== "1") { return; }
  function poll() {
    fetch(list.dataset.feed + "&after=" + list.dataset.last, {credentials: "same-origin"})
      .then(function (response) { return response.ok ? response.json() : {posts: []}; })
      .then(function (data) {
        data.posts.forEach(function (post) {
          if (document.getElementById("p" + post.id)) { return; }
          var empty = list.querySelector(".empty");
          if (empty) { empty.remove(); }
          list.insertAdjacentHTML("beforeend", post.html);   // rendered and escaped by the server
          list.dataset.last = post.id;
        });
      })
      .catch(function () {})
      .then(function () { setTimeout(poll, 2000); });
  }
  setTimeout(poll, 2000);
})();
