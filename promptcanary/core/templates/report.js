(function () {
  "use strict";
  // Sorting and filtering of the regression table. Reads data-* attributes and text only;
  // never writes HTML.
  var table = document.getElementById("regressions");
  if (table) {
    var body = table.tBodies[0];
    var heads = table.querySelectorAll("th[data-sort]");
    var sortRows = function (key, numeric, descending) {
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.getAttribute("data-" + key) || "";
        var y = b.getAttribute("data-" + key) || "";
        var r = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
        if (r === 0) { r = parseInt(a.getAttribute("data-rank"), 10) - parseInt(b.getAttribute("data-rank"), 10); return r; }
        return descending ? -r : r;
      });
      rows.forEach(function (row) { body.appendChild(row); });
      Array.prototype.forEach.call(heads, function (th) {
        th.setAttribute("aria-sort", th.getAttribute("data-sort") === key ? (descending ? "descending" : "ascending") : "none");
      });
      table.setAttribute("data-sorted-by", key + ":" + (descending ? "desc" : "asc"));
    };
    Array.prototype.forEach.call(heads, function (th) {
      var button = th.querySelector("button");
      button.addEventListener("click", function () {
        var descending = th.getAttribute("aria-sort") === "ascending";
        sortRows(th.getAttribute("data-sort"), th.hasAttribute("data-numeric"), descending);
      });
    });
    var search = document.getElementById("filter-text");
    var category = document.getElementById("filter-category");
    var applyFilter = function () {
      var needle = (search.value || "").toLowerCase();
      var cat = category.value;
      var shown = 0;
      Array.prototype.forEach.call(body.rows, function (row) {
        var ok = (!needle || row.textContent.toLowerCase().indexOf(needle) !== -1) &&
                 (!cat || row.getAttribute("data-category") === cat);
        row.hidden = !ok;
        if (ok) { shown += 1; }
      });
      document.getElementById("filter-count").textContent = shown + " shown";
    };
    search.addEventListener("input", applyFilter);
    category.addEventListener("change", applyFilter);
    // A link such as report.html#sort=probe:asc&filter=json opens the table sorted / filtered.
    var params = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var kv = part.split("=");
      if (kv.length === 2) { params[kv[0]] = decodeURIComponent(kv[1]); }
    });
    if (params.sort) {
      var spec = params.sort.split(":");
      var th = table.querySelector('th[data-sort="' + spec[0].replace(/[^a-z_]/g, "") + '"]');
      if (th) { sortRows(th.getAttribute("data-sort"), th.hasAttribute("data-numeric"), spec[1] === "desc"); }
    }
    if (params.filter) { search.value = params.filter; applyFilter(); }
  }
  document.documentElement.setAttribute("data-ready", "1");
})();
