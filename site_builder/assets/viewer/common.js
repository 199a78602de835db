/* gamenight replay pages: helpers shared by the replay list and the replay viewer.
 *
 * Replay text only ever reaches the page as text nodes (el() below); links are built with
 * URL / URLSearchParams from ids that match the replay format's slug pattern.
 */
(function () {
  "use strict";
  if (window.gamenightReplays) return; // Material re-runs page scripts on instant navigation

  var SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,159}$/;
  var DATA_VERSION = 2;
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

  /** Fetch a JSON data file of the site (relative to the page), plain or gzip-compressed (a name
      ending in .gz); checks its version (`version`, by default the viewer data's). */
  function fetchJSON(relative, signal, version) {
    var url = new URL(relative, window.location.href);
    var text = /\.gz$/.test(url.pathname)
      ? fetchBytes(url, signal, false).then(shardText)
      : fetch(url, { signal: signal, credentials: "same-origin" }).then(function (response) {
        if (!response.ok) throw new Error(response.status === 404 ? "not found" : "HTTP " + response.status);
        return response.text();
      });
    return text.then(function (body) {
      var data = JSON.parse(body);
      if (!data || data.v !== (version === undefined ? DATA_VERSION : version)) throw new Error("data of an unknown version");
      return data;
    });
  }

  // -- packed replay data ---------------------------------------------------------------------
  // A game's data and its model exchanges sit in gzip shards of many games (site_builder/viewer/shards.py):
  // the shard is shardHash(id) modulo the bucket count of the manifest (data/index.json). A
  // shard's text is lines "<id>\t<json>"; only the wanted game's line is parsed.
  var manifests = {}; // manifest URL -> promise of the manifest

  /** FNV-1a (32 bits) over the id's UTF-8 bytes (ids are ASCII slugs), then murmur3's finaliser. */
  function shardHash(id) {
    var h = 0x811c9dc5;
    for (var i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  }

  function fetchBytes(url, signal, fresh) {
    return fetch(url, { signal: signal, credentials: "same-origin", cache: fresh ? "no-cache" : "default" })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status === 404 ? "not found" : "HTTP " + response.status);
        return response.arrayBuffer();
      });
  }

  /** The text of a shard: gunzipped in the browser, unless a server already undid the gzip. */
  function shardText(buffer) {
    var bytes = new Uint8Array(buffer);
    if (bytes.length > 1 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      return new Response(stream).text();
    }
    return Promise.resolve(new TextDecoder().decode(bytes));
  }

  /** The JSON text of a game's line in a shard, or null. */
  function lineOf(text, id) {
    var start = ("\n" + text).indexOf("\n" + id + "\t"); // where the line starts in text
    if (start < 0) return null;
    var end = text.indexOf("\n", start);
    return text.slice(start + id.length + 1, end < 0 ? text.length : end);
  }

  /**
   * A game's viewer data (kind "data") or its model exchanges (kind "calls"). `folders` holds the
   * data and calls folders relative to the page (the page root's data-data and data-calls).
   * A game missing from its shard makes one more try with a fresh manifest: a browser may hold
   * the manifest of an older build whose bucket counts have since changed.
   */
  function fetchReplay(folders, kind, id, signal) {
    if (!SLUG.test(id)) return Promise.reject(new Error("not a replay id"));
    var manifestUrl = new URL(folders.data + "index.json", window.location.href).href;
    function attempt(fresh) {
      if (fresh || !manifests[manifestUrl]) {
        manifests[manifestUrl] = fetchBytes(manifestUrl, signal, fresh).then(function (buffer) {
          var manifest = JSON.parse(new TextDecoder().decode(buffer));
          if (!manifest || manifest.v !== DATA_VERSION) throw new Error("data of an unknown version");
          return manifest;
        });
        manifests[manifestUrl].catch(function () { delete manifests[manifestUrl]; });
      }
      return manifests[manifestUrl].then(function (manifest) {
        var buckets = kind === "calls" ? manifest.calls : manifest.data;
        var name = (shardHash(id) % buckets).toString(16) + ".jsonl.gz";
        return fetchBytes(new URL(folders[kind] + name, window.location.href), signal, fresh)
          .catch(function (error) { if (error.message === "not found") return new ArrayBuffer(0); throw error; });
      }).then(shardText).then(function (text) {
        var line = lineOf(text, id);
        if (line === null) {
          if (!fresh) return attempt(true);
          throw new Error("not found");
        }
        var data = JSON.parse(line);
        if (!data || data.v !== DATA_VERSION) throw new Error("data of an unknown version");
        return data;
      });
    }
    return attempt(false);
  }

  /** Fit the page's tables to their box (fit.js): through site.js on the theme's pages, directly on
      the viewer's light page, which loads fit.js but not site.js. */
  var refitOnResize = false;
  function fitTables() {
    if (window.gamenight) { window.gamenight.fitTables(); return; }
    if (!window.gamenightFit) return;
    window.gamenightFit.fitAll(document.querySelectorAll("article table.gn-table"));
    if (!refitOnResize) {
      refitOnResize = true;
      var timer = null;
      window.addEventListener("resize", function () { clearTimeout(timer); timer = setTimeout(fitTables, 100); });
    }
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
    SLUG: SLUG, el: el, fill: fill, link: link, fetchJSON: fetchJSON,
    shardHash: shardHash, fetchReplay: fetchReplay,
    words: words, onEachPage: onEachPage, fitTables: fitTables
  };
  window.gamenightReplays = api;
  (window.gamenightReplaysWaiting || []).splice(0).forEach(function (install) { install(api); });
})();
