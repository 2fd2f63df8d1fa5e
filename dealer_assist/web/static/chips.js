/* Shift pages: add up the chip counts as the supervisor types them (the server counts
 * again; this is only what the supervisor sees while counting the rack). */
(function () {
  "use strict";
  document.querySelectorAll(".chip-counts").forEach(function (box) {
    const out = box.querySelector(".chip-total");
    const symbol = box.dataset.currency || "$";
    function update() {
      let cents = 0;
      let bad = false;
      box.querySelectorAll("input[data-chip]").forEach(function (input) {
        const t = input.value.trim().replace(/,/g, "");
        if (t === "") return;
        if (!/^\d+$/.test(t)) { bad = true; return; }
        cents += parseInt(t, 10) * parseInt(input.dataset.chip, 10);
      });
      out.textContent = bad ? "A count is a whole number of chips." : "Total " + symbol +
        (cents / 100).toLocaleString("en-US", {minimumFractionDigits: 2,
                                              maximumFractionDigits: 2});
    }
    box.addEventListener("input", update);
    update();
  });
})();
