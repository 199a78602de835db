/* Opens the content tab a link points at (Material's inline version is blocked by the
   Content-Security-Policy). */
(function () {
  "use strict";
  var target = document.getElementById(location.hash.slice(1));
  if (target && target.name) target.checked = target.name.indexOf("__tabbed_") === 0;
})();
