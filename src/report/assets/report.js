// gentable report: the search box of a page (no external assets, no network). Rows (and list entries) whose
// text does not contain the query are hidden; the text is compared after Unicode NFKC folding and lower-casing,
// so full-width and half-width letters and digits find each other. `#q=text` in the address fills the box
// (also when only the address's fragment changes).
(function () {
  "use strict";
  var box = document.getElementById("q");
  if (!box) return;
  var fold = function (s) { return s.normalize("NFKC").toLowerCase(); };
  var rows = Array.prototype.slice.call(document.querySelectorAll("[data-search]"));
  var texts = rows.map(function (r) { return fold(r.textContent); });
  var count = document.getElementById("count");
  function apply() {
    var q = fold(box.value.trim());
    var shown = 0;
    rows.forEach(function (r, i) {
      var hit = q === "" || texts[i].indexOf(q) >= 0;
      r.hidden = !hit;
      if (hit) shown++;
    });
    // The words are the page's (data-all, data-some: "{0} rows", "{0} of {1} rows match" in its language).
    if (count) {
      var words = q === "" ? count.getAttribute("data-all") : count.getAttribute("data-some");
      count.textContent = words.replace("{0}", q === "" ? rows.length : shown).replace("{1}", rows.length);
    }
  }
  function fromHash() {
    var m = /^#q=(.*)$/.exec(location.hash);
    if (m) box.value = decodeURIComponent(m[1]);
    apply();
  }
  box.addEventListener("input", apply);
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
