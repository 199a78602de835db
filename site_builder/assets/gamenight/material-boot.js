/* Material for MkDocs needs these helpers before its bundle runs. Its own copy is an inline
   script, which gamenight's Content-Security-Policy blocks, so the site serves them as a file.
   The scope is the site root: this file lives at <root>/assets/gamenight/. */
(function () {
  "use strict";
  var scope = new URL("../../", document.currentScript.src);
  window.__md_scope = scope;
  window.__md_hash = function (text) {
    return Array.from(text).reduce(function (hash, ch) { return (hash << 5) - hash + ch.charCodeAt(0); }, 0);
  };
  window.__md_get = function (key, storage, base) {
    var store = storage || localStorage;
    var where = base || window.__md_scope;
    return JSON.parse(store.getItem(where.pathname + "." + key));
  };
  window.__md_set = function (key, value, storage, base) {
    var store = storage || localStorage;
    var where = base || window.__md_scope;
    try {
      store.setItem(where.pathname + "." + key, JSON.stringify(value));
    } catch (err) {
      /* storage may be full or disabled: the preference is simply not kept */
    }
  };
})();
