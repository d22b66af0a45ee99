// The notify page's "Add channel" form: show only the chosen type's
// fields. Optional comfort: without it every field shows, each labelled
// with its types, and the hub uses only the chosen type's.
(function () {
  var select = document.getElementById("channel-type");
  if (!select) { return; }
  var fields = document.querySelectorAll("[data-types]");
  function update() {
    for (var i = 0; i < fields.length; i++) {
      var types = fields[i].getAttribute("data-types").split(" ");
      fields[i].hidden = types.indexOf(select.value) < 0;
    }
  }
  select.addEventListener("change", update);
  update();
})();
