/* Search that takes a paste.
 *
 * Material's search box hands every query to a web worker running Lunr. A pasted traceback then
 * fails in two ways: its quotes, colons, tildes and pluses are Lunr operators (so `model:0` is a
 * field query and the search returns nothing), and its words rank pages by how often they use
 * them, not by which entry answers the message.
 *
 * This wraps the worker that Material creates (it must load before Material's bundle):
 *   - a query is matched with the knowledge base's error signatures, the same expressions and
 *     scores `tfdist explain` uses (window.tfdistSignatures, generated from the error index by
 *     tfdist_kb.site.errors.search_script); an entry ID (TFD003) names its entry;
 *   - the entries found come first in the results, best first, as `tfdist explain` orders them;
 *   - what Lunr sees is the query with its operator characters made plain spaces;
 *   - entries whose search terms a short phrase contains (tfdist.matcher.match_terms) come next;
 *   - a result link highlights (Material's `?h=`) nothing on an entry the signatures named, nor on any
 *     page for a pasted text, and never a stop word, a word under 3 letters or one Chinese character;
 *   - the box searches however text arrives: Material listens to key events only, and a paste from
 *     a menu, an input method's commit or a dictation sends none;
 *   - the page's search index is downloaded when the reader turns to the search (the box focused or
 *     opened), or at once for a page opened to highlight words (`?h=`): not with every page, where
 *     parsing it and handing it to the worker kept a phone's main thread busy just after loading.
 * Text is normalised as tfdist.matcher.normalise does, and answers are ordered as tfdist.matcher.match
 * orders them (root cause first: see where()); tests check both agree on every recorded message and
 * every real paste.
 */
(function () {
  "use strict";

  /* Material asks for search/search_index.json (XMLHttpRequest) as soon as its bundle runs; the
     request is sent when the search is wanted. (The offline build loads search_index.js as a
     script instead, at once.) */
  var Request = window.XMLHttpRequest, waiting = [], searching = /[?&]h=[^&#]/.test(location.search);
  function want() {
    if (searching) return;
    searching = true;
    waiting.splice(0).forEach(function (send) { send(); });
  }
  if (Request) {
    var open = Request.prototype.open, send = Request.prototype.send;
    Request.prototype.open = function (method, url) {
      this.tfdistIndex = /\/search\/search_index\.json(?:[?#]|$)/.test(String(url));
      return open.apply(this, arguments);
    };
    Request.prototype.send = function () {
      var request = this, args = arguments;
      if (!request.tfdistIndex || searching) return send.apply(request, args);
      waiting.push(function () { send.apply(request, args); });
    };
    document.addEventListener("focusin", function (event) {  /* the box (Material's / s f keys focus it too) */
      if (event.target && event.target.matches && event.target.matches("[data-md-component=search-query]")) want();
    }, true);
    document.addEventListener("change", function (event) {  /* the search opened (its toggle, on a phone) */
      if (event.target && event.target.id === "__search") want();
    }, true);
  }

  var Base = window.Worker;
  var data = window.tfdistSignatures;
  if (!Base || !data) return;

  var SETUP = 0, QUERY = 2, RESULT = 3;
  var ID = /^\s*(TFD\d{3})\s*$/i;

  /* tfdist.matcher.normalise */
  function normalise(text) {
    return text
      .replace(/\r\n?/g, "\n")
      .replace(/\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1b[@-Z\\-_]/g, "")
      .replace(/^[ \t]*(?:>[ \t]?)+/gm, "")
      .replace(/^E(?:[ \t]{2,}|[ \t]*$)/gm, "")
      .replace(/\\[ \t]*\n[ \t]*/g, "")
      .replace(/[\u2018\u2019]/g, "'")
      .replace(/[\u201c\u201d]/g, '"')
      .replace(/\s+/g, " ")
      .trim();
  }

  var pathOf = {};
  data.entries.forEach(function (entry) { pathOf[entry.id] = entry.path; });
  var compiled = data.entries.map(function (entry) {
    return {
      id: entry.id, path: entry.path,
      signatures: entry.signatures.map(function (pair) {
        var expression = null;
        try { expression = new RegExp(pair[0], "i"); } catch (error) { /* matches nothing */ }
        return { expression: expression, score: pair[1] };
      })
    };
  });

  /* tfdist.matcher._markers and where: a match in a warning or log line ranks after one in an
     error, one in a later exception of a chain after one in an earlier (the root cause) */
  var LOG = /\b[IW] ?tensorflow\/\S+:\d+\]|\b[IW]\d{4} [\d:.]+ +\d+ \S+:\d+\]|\b(?:WARNING|INFO):tensorflow:|\b[A-Z]\w*Warning:/g;
  var ERROR = /\b[A-Z]\w*(?:Error|Exception|Exit)\b:|Traceback \(most recent call last\)|OP_REQUIRES failed at|Error reported to Coordinator:|\b[EF] ?tensorflow\/\S+:\d+\]|\b[EF]\d{4} [\d:.]+ +\d+ \S+:\d+\]/g;
  var CHAIN = /During handling of the above exception, another exception occurred|The above exception was the direct cause of the following exception/g;
  function starts(expression, text, log) {
    var out = [], found;
    expression.lastIndex = 0;
    while ((found = expression.exec(text))) {
      out.push([found.index, log]);
      if (found[0] === "") expression.lastIndex++;
    }
    return out;
  }
  function markers(text) {
    var marks = starts(LOG, text, 1).concat(starts(ERROR, text, 0));
    marks.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    return { marks: marks, chain: starts(CHAIN, text, 0).map(function (m) { return m[0]; }) };
  }
  function where(position, found) {
    var log = 0, chain = 0;
    for (var i = 0; i < found.marks.length && found.marks[i][0] <= position; i++) log = found.marks[i][1];
    found.chain.forEach(function (start) { if (start < position) chain++; });
    return [log, chain];
  }
  function before(a, b) { return a[0] - b[0] || a[1] - b[1]; }

  /* tfdist.matcher.explain: [{id, path, score}] root cause first, then best first */
  function explain(query) {
    var id = ID.exec(query);
    if (id) {
      var wanted = id[1].toUpperCase();
      return compiled.filter(function (e) { return e.id === wanted; })
        .map(function (e) { return { id: e.id, path: e.path, score: 1000 }; });
    }
    var text = normalise(query.slice(-data.max_text));
    if (!text) return [];
    var found = [];
    compiled.forEach(function (entry) {
      var counted = [], at = [];
      entry.signatures.forEach(function (s) {
        var hit = s.expression && s.score > 0 ? s.expression.exec(text) : null;
        if (hit) { counted.push(s.score); at.push(hit.index); }
      });
      if (counted.length)
        found.push({ id: entry.id, path: entry.path, at: at,
                     score: Math.max.apply(null, counted) + counted.length - 1 });
    });
    var marks = found.length > 1 ? markers(text) : { marks: [], chain: [] };
    found.forEach(function (hit) {
      hit.where = hit.at.map(function (p) { return where(p, marks); }).sort(before)[0];
      delete hit.at;
    });
    found.sort(function (a, b) {
      return before(a.where, b.where) || b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    });
    return found.concat(byTerms(text, found.map(function (f) { return f.id; })));
  }

  /* tfdist.matcher.match_terms: a short phrase with no error, traceback or log marker is matched with
     each entry's search terms (case-folded; a Latin term as whole words); longest term first */
  function isPhrase(text) {
    LOG.lastIndex = 0; ERROR.lastIndex = 0;
    var phrase = text.length > 0 && text.length <= data.term_text && !LOG.test(text) && !ERROR.test(text);
    LOG.lastIndex = 0; ERROR.lastIndex = 0;
    return phrase;
  }
  var termExpressions = {};
  function term(t) {
    if (!(t in termExpressions)) {
      var folded = normalise(t).toLowerCase();
      var escaped = folded.replace(/[.*+?^${}()|[\]\\\/]/g, "\\$&");
      termExpressions[t] = folded ? new RegExp((/^[0-9a-z_]/.test(folded) ? "(?<![0-9a-z_])" : "") + escaped
                                               + (/[0-9a-z_]$/.test(folded) ? "(?![0-9a-z_])" : "")) : null;
    }
    return termExpressions[t];
  }
  function byTerms(text, exclude) {
    if (!isPhrase(text)) return [];
    var folded = text.toLowerCase(), found = [];
    data.entries.forEach(function (entry) {
      if (exclude.indexOf(entry.id) >= 0) return;
      var best = 0;
      (entry.terms || []).forEach(function (t) {
        var e = term(t);
        if (e && e.test(folded)) best = Math.max(best, normalise(t).length);
      });
      if (best) found.push({ id: entry.id, path: pathOf[entry.id], score: best, where: [0, 0], byTerm: true });
    });
    return found.sort(function (a, b) { return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0); });
  }

  /* What Lunr gets: no operators, at most 40 words, taken from the end (a message is there) */
  function plain(query) {
    var words = query.replace(/[+\-~^:*"'`()\[\]{}<>=,;|\\]/g, " ").split(/\s+/)
      .filter(function (w) { return w && !/^[.\/]+$/.test(w); });
    return words.slice(-40).join(" ");
  }

  function page(location) { return location.split("#")[0]; }

  /* Lunr finds nothing at all when one word of a query is in no document's index entry: a Chinese
     page's index holds few English words, so an English message with "to" in it found nothing there.
     The words of the language's documents (split as the index splits them, with its `separator`,
     lower-cased, trimmed of what is not a letter or digit), less Lunr's English stop words (which the
     index leaves out), are collected once; a query's words that none has are left out of what Lunr
     sees (the last of a few words typed is kept if it begins one: Lunr completes it as the reader
     types; the last of a message that ends without a space or a punctuation mark was cut short, and is
     left out), unless that would leave nothing. The words are collected a few documents at a time
     while the page is idle (the whole index in one go is a long task on a phone's main thread); a
     query that comes before they all are collects the rest first */
  var TRIM = /^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu;
  var LUNR_STOP = new Set(("a able about across after all almost also am among an and any are as at be because been " +
    "but by can cannot could dear did do does either else ever every for from get got had has have he her hers " +
    "him his how however i if in into is it its just least let like likely may me might most must my neither " +
    "no nor not of off often on only or other our own rather said say says she should since so some than that " +
    "the their them then there these they this tis to too twas us wants was we were what when where which " +
    "while who whom why will with would yet you your").split(" "));
  var later = window.requestIdleCallback
    ? function (next) { window.requestIdleCallback(next, { timeout: 2000 }); }
    : function (next) { setTimeout(next, 0); };
  function vocabulary(setup) {  /* a function: the whole vocabulary, collected by then */
    var words = new Set(), docs = setup.docs || [], done = 0;
    var separator = new RegExp((setup.config && setup.config.separator) || "[\\s\\-]+");
    function add(doc) {
      (String(doc.title || "") + " " + String(doc.text || "")).replace(/<[^>]*>/g, " ").toLowerCase()
        .split(separator).forEach(function (word) {
          word = word.replace(TRIM, "");
          if (word && !LUNR_STOP.has(word)) words.add(word);
        });
    }
    later(function some() {
      for (var until = Date.now() + 8; done < docs.length && Date.now() < until;) add(docs[done++]);
      if (done < docs.length) later(some);
    });
    return function () {
      while (done < docs.length) add(docs[done++]);
      return words;
    };
  }
  function known(lunr, vocab, query) {
    if (!vocab) return lunr;
    var all = lunr.split(" ").map(function (word) { return word.replace(TRIM, ""); })  /* as indexed: `call.` is `call` */
      .filter(Boolean);
    var message = all.length > 8, cut = message && !/[\s.!?:;,)\]}'"`]$/.test(query);
    var kept = all.filter(function (word, i) {
      var bare = word.toLowerCase();
      if (i === all.length - 1 && cut) return false;  /* a message cut short ends in part of a word */
      if (vocab.has(bare)) return true;
      if (i !== all.length - 1 || message) return false;
      for (var w of vocab) if (w.lastIndexOf(bare, 0) === 0) return true;  /* a few words typed: Lunr completes the last one */
      return false;
    });
    return kept.length ? kept.join(" ") : lunr;
  }

  /* Each language has its own index (tfdist_kb.site.search_index), its locations relative to the
     language's root, which is the page's Material `base`: an entry's path is the same in every one */

  /* A page's words, as a reader sees them: tags removed, entities decoded, spaces collapsed */
  var texts = {};
  function words(doc) {
    if (!(doc.location in texts))
      texts[doc.location] = (doc.title + " " + doc.text).replace(/<[^>]*>/g, " ")
        .replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"')
        .replace(/&#0?39;/g, "'").replace(/&amp;/g, "&").replace(/\s+/g, " ").toLowerCase();
    return texts[doc.location];
  }

  /* Lunr ranks by words; a page that holds the pasted message word for word comes first */
  function verbatim(groups, query, docs) {
    var phrase = normalise(query).toLowerCase();
    if (phrase.length < 16 || !docs) return groups;
    var byLocation = {};
    docs.forEach(function (d) { byLocation[d.location] = d; });
    function holds(group) {
      return group.some(function (item) {
        var doc = byLocation[item.location];
        return doc && words(doc).indexOf(phrase) >= 0;
      });
    }
    var yes = groups.filter(holds);
    return yes.concat(groups.filter(function (g) { return yes.indexOf(g) < 0; }));
  }

  /* Each result's `terms` become its link's `?h=` (what its page highlights, wherever the term
     occurs, inside words too) and its "Missing:" list. Kept (keep: else none): no stop word (Lunr's,
     LUNR_STOP above), no word under 3 letters, no single Chinese character */
  function useful(term) {
    return term.length > 2 ? !LUNR_STOP.has(term) : term.length === 2 && /[\u3400-\u9fff]/.test(term);
  }
  function highlight(group, keep) {
    return group.map(function (item) {
      var terms = {};
      Object.keys(keep ? item.terms || {} : {}).forEach(function (t) { if (useful(t)) terms[t] = item.terms[t]; });
      return Object.assign({}, item, { terms: terms });
    });
  }

  function rerank(result, query, docs) {
    if (!result) return result;
    var groups = (result.items || []).filter(function (g) { return g.length; });
    groups = verbatim(groups, query, docs);
    var found = explain(query);
    var message = plain(query).split(" ").length > 8;  /* a message, not a few words typed */
    var first = found.map(function (hit) {
      var path = hit.path;
      var own = groups.filter(function (g) { return page(g[0].location) === path; })[0];
      if (own) return highlight(own, hit.byTerm === true && !message);  /* a term: the words typed */
      var doc = (docs || []).filter(function (d) { return d.location === path; })[0];
      return doc ? [Object.assign({}, doc, { score: hit.score, terms: {} })] : null;
    }).filter(Boolean);
    var paths = first.map(function (g) { return page(g[0].location); });
    var rest = groups.filter(function (g) { return paths.indexOf(page(g[0].location)) < 0; })
      .map(function (g) { return highlight(g, !message); });
    return Object.assign({}, result, { items: first.concat(rest) });
  }

  /* A paste keeps its line breaks here: the search box turns them into spaces, and a line wrapped
     with a backslash (`tensorf\` + `low`) is joined only where the break is known */
  var pasted = null;
  document.addEventListener("paste", function (event) {
    var target = event.target;
    if (target && target.classList && target.classList.contains("md-search__input") && event.clipboardData)
      pasted = event.clipboardData.getData("text");
  }, true);
  function original(query) {
    if (!pasted) return query;
    var flat = pasted.replace(/\r\n|\r|\n/g, " ");
    var at = query.indexOf(flat);
    return at < 0 ? query : query.slice(0, at) + pasted + query.slice(at + flat.length);
  }

  /* Material searches on `keyup` only: any other change to the box is passed on as one */
  function changed(event) {
    var box = event.target;
    if (!event.isComposing && box && box.classList && box.classList.contains("md-search__input"))
      box.dispatchEvent(new KeyboardEvent("keyup"));
  }
  document.addEventListener("input", changed, true);
  document.addEventListener("compositionend", changed, true);

  /* Lunr of the Chinese index (its zh and en pipelines together) fails on some words that the index
     holds (`tf.data`, `tf.Variable`: "Invalid query" in the worker, and no result at all). A query
     of several words that comes back empty is asked again in parts, each half in turn, until one
     finds something (at most about twice as many queries as words), and a dotted word alone as its
     parts (`tf.data` as `tf data`); a newer query drops the rest */
  function Worker(url, options) {
    var worker = new Base(url, options);
    var docs = null, vocab = null, query = "";
    var generation = 0, posted = [], untried = [];
    var post = worker.postMessage.bind(worker);
    worker.postMessage = function (message) {
      if (message && message.type === SETUP && message.data) {
        docs = message.data.docs;
        vocab = vocabulary(message.data);
      }
      if (message && message.type === QUERY && typeof message.data === "string") {
        query = original(message.data);
        var lunr = ID.test(query) ? query.trim() : known(plain(query), vocab && vocab(), query);
        generation += 1;
        untried = [];
        posted.push({ generation: generation, words: lunr.split(" ") });
        message = { type: QUERY, data: lunr };
      }
      return post.apply(null, [message].concat([].slice.call(arguments, 1)));
    };
    function retry(words) {
      if (words.length > 1) {
        var half = Math.ceil(words.length / 2);
        untried.unshift(words.slice(0, half), words.slice(half));
      } else if (words.length === 1 && words[0].indexOf(".") > 0) {  /* one dotted word: its parts */
        var parts = words[0].split(".").filter(Boolean);
        if (parts.length > 1) untried.unshift(parts);
      }
      var next = untried.shift();
      if (!next) return false;
      posted.push({ generation: generation, words: next });
      post({ type: QUERY, data: next.join(" ") });
      return true;
    }
    var listen = worker.addEventListener.bind(worker);
    worker.addEventListener = function (type, listener, more) {
      if (type !== "message") return listen(type, listener, more);
      return listen(type, function (event) {
        var message = event.data;
        if (!message || message.type !== RESULT) return listener.call(this, event);
        var asked = posted.shift();
        if (asked && asked.generation !== generation) return;  /* an answer to an older query */
        var items = message.data && message.data.items;
        if (asked && !(items && items.length) && retry(asked.words)) return;
        return listener.call(this, { data: { type: RESULT, data: rerank(message.data, query, docs) } });
      }, more);
    };
    return worker;
  }
  Worker.prototype = Base.prototype;
  window.Worker = Worker;
  window.tfdistExplain = explain; /* for tests: the browser's answer for a text */
  window.tfdistNormalise = normalise;
})();
