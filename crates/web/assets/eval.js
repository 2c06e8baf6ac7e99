// verdict pages: filters the samples of the evaluation report written by `judge eval --html`
// by result and by text (the rows are in the page already; this only hides and counts them).
"use strict";
(function () {
  const status = document.getElementById("result-filter");
  const text = document.getElementById("text-filter");
  const count = document.getElementById("sample-count");
  const none = document.getElementById("no-samples");
  const rows = Array.from(document.querySelectorAll("#samples tr.sample-row"));
  const groups = Array.from(document.querySelectorAll("#samples tbody.problem"));
  if (!status || !text || !count) return;
  function apply() {
    const want = status.value;
    const needle = text.value.trim().toLowerCase();
    let shown = 0;
    for (const row of rows) {
      const hay = (row.getAttribute("data-text") || "").toLowerCase();
      const ok = (!want || row.getAttribute("data-status") === want) && (!needle || hay.includes(needle));
      row.hidden = !ok;
      if (ok) shown += 1;
    }
    for (const group of groups) {
      group.hidden = !group.querySelector("tr.sample-row:not([hidden])");
    }
    count.textContent = shown + " of " + rows.length + " samples";
    if (none) none.hidden = shown > 0;
  }
  status.addEventListener("change", apply);
  text.addEventListener("input", apply);
  apply();
})();
