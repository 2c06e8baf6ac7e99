// verdict pages: boots the self-contained lab report written by `judge view`.
"use strict";
(function () {
  const root = document.getElementById("lab");
  const block = document.getElementById("lab-data");
  try {
    window.V.lab.render(root, JSON.parse(block.textContent));
  } catch (err) {
    window.V.replace(root, window.V.h("p", { class: "error-box" }, "Cannot show the runs: " + err));
  }
})();
