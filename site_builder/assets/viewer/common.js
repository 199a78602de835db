/* gamenight replay pages: helpers shared by the replay list and the replay viewer.
 *
 * Replay text only ever reaches the page as text nodes (el() below); links are built with
 * URL / URLSearchParams from ids that match the replay format's slug pattern.
 */
(function () {
  "use strict";
  if (window.gamenightReplays) return; // Material re-runs page scripts on instant navigation

  var SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,159}$/;
  var DATA_VERSION = 1;
  // Attributes el() may set; never event handlers, href or src (see link()).
  var SAFE_ATTRIBUTES =
    /^(class|id|type|title|role|scope|colspan|value|hidden|disabled|selected|open|tabindex|lang|dir|aria-[a-z]+|data-[a-z-]+)$/;

  /** An element with properties and children; strings become text nodes, never markup. */
  function el(tag, props) {
    var node = document.createElement(tag);
    var attributes = props || {};
    Object.keys(attributes).forEach(function (name) {
      var value = attributes[name];
      if (value === null || value === undefined || value === false) return;
      if (name === "text") node.textContent = String(value);
      else if (name === "on") Object.keys(value).forEach(function (event) { node.addEventListener(event, value[event]); });
      else if (SAFE_ATTRIBUTES.test(name)) node.setAttribute(name, value === true ? "" : String(value));
      else throw new Error("el(): attribute " + name + " is not allowed");
    });
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }

  function append(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) child.forEach(function (c) { append(node, c); });
    else if (child instanceof Node) node.appendChild(child);
    else node.appendChild(document.createTextNode(String(child)));
  }

  /** Remove every child of `node`, then append `children`. */
  function fill(node) {
    node.replaceChildren();
    for (var i = 1; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }

  /** A same-site link: `base` relative to the page, `params` as a query string. */
  function link(base, params, props) {
    var url = new URL(base, window.location.href);
    if (url.origin !== window.location.origin) throw new Error("link(): not a link within the site");
    url.search = new URLSearchParams(params || {}).toString();
    var a = el("a", props || {});
    a.href = url.pathname + url.search;
    for (var i = 3; i < arguments.length; i++) append(a, arguments[i]);
    return a;
  }

  /** The data file name of a replay id: capitals escaped as ~x, as the builder writes them. */
  function dataName(id) {
    if (!SLUG.test(id)) throw new Error("not a replay id");
    return id.replace(/[A-Z]/g, function (c) { return "~" + c.toLowerCase(); });
  }

  /** Fetch a JSON data file of the site (relative to the page); checks the data version. */
  function fetchJSON(relative, signal) {
    var url = new URL(relative, window.location.href);
    return fetch(url, { signal: signal, credentials: "same-origin" }).then(function (response) {
      if (!response.ok) throw new Error(response.status === 404 ? "not found" : "HTTP " + response.status);
      return response.json();
    }).then(function (data) {
      if (!data || data.v !== DATA_VERSION) throw new Error("data of an unknown version");
      return data;
    });
  }

  /** "non_chameleon" -> "non-chameleon", "fellow_mason" -> "fellow mason". */
  function words(name, joiner) {
    return String(name).replace(/_/g, joiner === undefined ? " " : joiner);
  }

  // -- page lifecycle -------------------------------------------------------------------------
  // Material's instant navigation swaps the page content without reloading scripts and
  // announces every page through its `document$` observable. Each feature registers a
  // selector and a start function; start(root) runs once per page whose content has the root
  // and returns a stop function, called when the visitor leaves that page.
  var features = [];

  function onEachPage(selector, start) {
    features.push({ selector: selector, start: start, root: null, stop: null });
    whenMaterialReady(refresh);
  }

  function refresh() {
    features.forEach(function (feature) {
      var root = document.querySelector(feature.selector);
      if (root && root === feature.root) return; // already running on this page
      if (feature.stop) feature.stop();
      feature.root = root;
      feature.stop = null;
      if (root) feature.stop = feature.start(root) || null;
    });
  }

  var subscribed = false;
  function whenMaterialReady(callback) {
    if (subscribed) { callback(); return; }
    var attach = function () {
      if (subscribed) { callback(); return; }
      subscribed = true;
      if (window.document$ && typeof window.document$.subscribe === "function") {
        window.document$.subscribe(function () { refresh(); });
      } else {
        callback();
      }
    };
    // On a full load these scripts run before Material's bundle, which defines document$.
    if (window.document$ || document.readyState !== "loading") attach();
    else document.addEventListener("DOMContentLoaded", attach, { once: true });
  }

  var api = {
    SLUG: SLUG, el: el, fill: fill, link: link, dataName: dataName, fetchJSON: fetchJSON,
    words: words, onEachPage: onEachPage
  };
  window.gamenightReplays = api;
  (window.gamenightReplaysWaiting || []).splice(0).forEach(function (install) { install(api); });
})();
