// secmgr dashboard: small conveniences only; every page works without this file.
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("input.select-all").forEach(function (box) {
    box.addEventListener("change", function () {
      var form = box.closest("form");
      if (!form) return;
      form.querySelectorAll('input[type="checkbox"][name="ids"]').forEach(function (item) {
        item.checked = box.checked;
      });
    });
  });
});
