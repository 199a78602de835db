/* Search costs nothing until the reader uses the search box: its index (search/search_index.json,
   by far the largest file a page would fetch) and its worker script are fetched the first time.

   Material's bundle asks for the index with XMLHttpRequest and starts its search worker as soon
   as it runs. This file runs before the bundle. It holds that one request back until the search
   box is used (focused by a click, a tap on the search icon or a keyboard shortcut: Material
   focuses the box for each; or opened by a ?q= link), and it starts the worker only when the
   bundle first posts to it, which it does once the index has arrived. A query typed meanwhile is
   answered as soon as the index is in. */
(function () {
  "use strict";
  if (window.gamenightSearchOnDemand) return;
  window.gamenightSearchOnDemand = true;
  var INDEX = /\/search\/search_index\.json$/;
  var WORKER = /\/assets\/javascripts\/workers\/search\.[0-9a-f]+\.min\.js$/;
  var open = XMLHttpRequest.prototype.open;
  var send = XMLHttpRequest.prototype.send;
  var RealWorker = window.Worker;
  var held = new WeakSet();
  var waiting = [];
  var used = false;

  function path(url) { return new URL(String(url), document.baseURI).pathname; }

  function use() {
    if (used) return;
    used = true;
    waiting.splice(0).forEach(function (start) { start(); });
  }

  function inSearch(node) {
    return node instanceof Element && node.closest("[data-md-component=search], label[for=__search]") !== null;
  }

  document.addEventListener("focusin", function (event) { if (inSearch(event.target)) use(); }, true);
  document.addEventListener("pointerdown", function (event) { if (inSearch(event.target)) use(); }, true);

  XMLHttpRequest.prototype.open = function (method, url) {
    if (String(method).toUpperCase() === "GET" && INDEX.test(path(url))) held.add(this);
    return open.apply(this, arguments);
  };

  XMLHttpRequest.prototype.send = function () {
    if (used || !held.has(this)) return send.apply(this, arguments);
    var request = this, args = arguments;
    waiting.push(function () { send.apply(request, args); });
  };

  /** The search worker, started by its first message: its events are passed on as they come. */
  function LazyWorker(url, options) {
    var target = new EventTarget(), real = null;
    function start() {
      real = new RealWorker(url, options);
      ["message", "messageerror", "error"].forEach(function (type) {
        real.addEventListener(type, function (event) {
          target.dispatchEvent(type === "error" ? new ErrorEvent("error", { message: event.message })
            : new MessageEvent(type, { data: event.data }));
        });
      });
    }
    target.postMessage = function () {
      if (!real) start();
      return real.postMessage.apply(real, arguments);
    };
    target.terminate = function () { if (real) real.terminate(); };
    return target;
  }

  if (typeof RealWorker === "function") {
    window.Worker = function (url, options) {
      return WORKER.test(path(url)) ? LazyWorker(url, options) : new RealWorker(url, options);
    };
    window.Worker.prototype = RealWorker.prototype;
  }
})();
