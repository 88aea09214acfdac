// The player behind every board of the site: the day page's boards (from the JSON in #play-data, no network, no
// library) and the solver page's (solve.js, which asks the server's API). A click or tap cycles a cell empty -> dot
// -> piece -> empty; the keyboard moves a cursor (arrows) and marks (space cycles, "." or "x" a dot, "*", "s" or "q"
// the piece, Backspace clears); undo and redo (buttons, Ctrl+Z, Ctrl+Y or Ctrl+Shift+Z); a timer that runs while
// the player plays and pauses while the page is hidden; the marks and the time kept per board in localStorage, so a
// reload finds the board as it was left. The pieces are the renderer's own shape (the board's data-piece-path):
// stars, or crowns on Queens boards, where every sentence says queen.
var StarBattle = (function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var EMPTY = 0, DOT = 1, PIECE = 2;

  function cellName(cell, n) { return "R" + (Math.floor(cell / n) + 1) + "C" + (cell % n + 1); }
  function cellsOf(pairs, n) { return (pairs || []).map(function (rc) { return rc[0] * n + rc[1]; }); }
  function pairsOf(cells, n) { return cells.map(function (cell) { return [Math.floor(cell / n), cell % n]; }); }
  function plural(count, word) { return count + " " + word + (count === 1 ? "" : "s"); }
  function names(cells, n) { return cells.map(function (cell) { return cellName(cell, n); }).join(", "); }

  function cellRects(svg, n) {
    var rects = new Array(n * n);
    svg.querySelectorAll("rect.cell").forEach(function (rect) {
      rects[Number(rect.dataset.r) * n + Number(rect.dataset.c)] = rect;
    });
    return rects;
  }

  function box(rect) {
    var x = Number(rect.getAttribute("x")), y = Number(rect.getAttribute("y"));
    var w = Number(rect.getAttribute("width")), h = Number(rect.getAttribute("height"));
    return { x: x, y: y, w: w, h: h, cx: x + w / 2, cy: y + h / 2 };
  }

  function layer(svg, name) {
    var old = svg.querySelector("g." + name);
    if (old) old.remove();
    var g = document.createElementNS(SVG, "g");
    g.setAttribute("class", name);
    svg.appendChild(g);
    return g;
  }

  function pieceClass(svg) { return svg.dataset.piece === "queen" ? "piece crown" : "piece star"; }

  // Draw `marks` (EMPTY, DOT or PIECE per cell) on top of the renderer's board, skipping the cells whose mark the
  // renderer drew already (the puzzle's givens).
  function drawMarks(svg, rects, n, marks, givens) {
    var g = layer(svg, "play-marks"), shape = svg.dataset.piecePath, kind = pieceClass(svg);
    marks.forEach(function (mark, cell) {
      if (mark === EMPTY || givens[cell]) return;
      var b = box(rects[cell]), element;
      if (mark === PIECE) {
        element = document.createElementNS(SVG, "path");
        element.setAttribute("d", shape);
        element.setAttribute("transform", "translate(" + b.cx + " " + b.cy + ") scale(" + (b.w * 0.36) + ")");
        element.setAttribute("class", kind);
      } else {
        element = document.createElementNS(SVG, "circle");
        element.setAttribute("cx", b.cx);
        element.setAttribute("cy", b.cy);
        element.setAttribute("r", b.w * 0.09);
        element.setAttribute("class", "dot");
      }
      element.dataset.r = Math.floor(cell / n);
      element.dataset.c = cell % n;
      g.appendChild(element);
    });
    g.dataset.pieces = marks.filter(function (m) { return m === PIECE; }).length;
  }

  var GROUPS = ["hint", "wrong", "new-star", "new-empty"];
  var GROUP_CELLS = GROUPS.map(function (name) { return "rect.cell." + name; }).join(", ");

  // Point at cells: `groups` is a list of [name, cells]. Each cell's own rect takes the group's name as a class
  // (rect.cell.hint), and an outline named "<name>-outline" is drawn over it, above the region walls.
  function drawHighlight(svg, rects, n, groups) {
    svg.querySelectorAll(GROUP_CELLS).forEach(function (rect) { rect.classList.remove.apply(rect.classList, GROUPS); });
    var g = layer(svg, "play-highlight");
    groups.forEach(function (group) {
      group[1].forEach(function (cell) {
        var b = box(rects[cell]), outline = document.createElementNS(SVG, "rect");
        rects[cell].classList.add(group[0]);
        outline.setAttribute("x", b.x + 2);
        outline.setAttribute("y", b.y + 2);
        outline.setAttribute("width", b.w - 4);
        outline.setAttribute("height", b.h - 4);
        outline.setAttribute("class", group[0] + "-outline");
        outline.dataset.r = Math.floor(cell / n);
        outline.dataset.c = cell % n;
        g.appendChild(outline);
      });
    });
  }

  function drawCursor(svg, rects, n, cell) {
    var g = layer(svg, "play-cursor");
    if (cell === null) return;
    var b = box(rects[cell]), outline = document.createElementNS(SVG, "rect");
    outline.setAttribute("x", b.x + 1);
    outline.setAttribute("y", b.y + 1);
    outline.setAttribute("width", b.w - 2);
    outline.setAttribute("height", b.h - 2);
    outline.setAttribute("class", "cursor");
    outline.dataset.r = Math.floor(cell / n);
    outline.dataset.c = cell % n;
    g.appendChild(outline);
  }

  function formatTime(seconds) {
    var s = Math.floor(seconds), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, rest = s % 60;
    return (h ? h + ":" + (m < 10 ? "0" : "") : "") + m + ":" + (rest < 10 ? "0" : "") + rest;
  }

  function readStore(key) {
    try { return JSON.parse(window.localStorage.getItem(key) || "null"); } catch (error) { return null; }
  }
  function writeStore(key, value) {
    try { window.localStorage.setItem(key, JSON.stringify(value)); } catch (error) { /* private mode: not kept */ }
  }

  // One playable board. `options`: svg (the renderer's picture), size, piece ("star" or "queen"), given_stars,
  // given_empty, storageKey, controls (name -> element or null: undo, redo, clear, timer), message (element),
  // holder (the focusable element around the picture), changed (called after every change of the marks).
  function Player(options) {
    var self = this, n = options.size, svg = options.svg;
    this.n = n;
    this.svg = svg;
    this.piece = options.piece;
    this.rects = cellRects(svg, n);
    this.givens = new Array(n * n).fill(false);
    this.start = new Array(n * n).fill(EMPTY);
    cellsOf(options.given_stars, n).forEach(function (cell) { self.start[cell] = PIECE; self.givens[cell] = true; });
    cellsOf(options.given_empty, n).forEach(function (cell) { self.start[cell] = DOT; self.givens[cell] = true; });
    this.marks = this.start.slice();
    this.past = [];
    this.future = [];
    this.groups = [];
    this.cursor = null;
    this.key = options.storageKey;
    this.message = options.message;
    this.controls = options.controls || {};
    this.changed = options.changed || function () {};
    this.seconds = 0;
    this.done = false;
    this.running = false;
    this.tick = null;

    var kept = this.key ? readStore(this.key) : null;
    if (kept && typeof kept.marks === "string" && kept.marks.length === n * n) {
      this.marks = kept.marks.split("").map(function (ch, cell) {
        return self.givens[cell] ? self.start[cell] : Math.min(PIECE, Math.max(EMPTY, Number(ch) || 0));
      });
      this.seconds = Number(kept.seconds) || 0;
      this.done = Boolean(kept.done);
    }

    this.listeners = [];
    this.listen(svg, "click", function (event) {
      var rect = event.target.closest("rect.cell");
      if (!rect) return;
      var cell = Number(rect.dataset.r) * n + Number(rect.dataset.c);
      self.cursor = cell;
      self.set(cell, (self.marks[cell] + 1) % 3);
    });
    var holder = options.holder;
    if (holder) {
      holder.setAttribute("tabindex", "0");
      this.listen(holder, "keydown", function (event) { self.onKey(event); });
      this.listen(holder, "focus", function () { if (self.cursor === null) self.cursor = 0; self.redraw(); });
      this.listen(holder, "blur", function () { drawCursor(svg, self.rects, n, null); });
    }
    this.listen(this.controls.undo, "click", function () { self.undo(); });
    this.listen(this.controls.redo, "click", function () { self.redo(); });
    this.listen(this.controls.clear, "click", function () {  // a fresh start: the clock too
      self.pause();
      self.done = false;
      self.seconds = 0;
      self.setAll(self.start.slice(), "");
      self.showTime();
    });
    this.listen(document, "visibilitychange", function () {
      if (document.hidden) self.pause(); else if (self.playing()) self.resume();
    });
    this.listen(window, "pagehide", function () { self.save(); });
    this.redraw();
    this.showTime();
  }

  Player.prototype.listen = function (target, type, handler) {
    if (!target) return;
    target.addEventListener(type, handler);
    this.listeners.push([target, type, handler]);
  };
  // Let go of the page (the solver page's next board takes over its buttons): the time is saved first.
  Player.prototype.stop = function () {
    this.pause();
    this.save();
    this.listeners.forEach(function (listener) { listener[0].removeEventListener(listener[1], listener[2]); });
    this.listeners = [];
  };
  Player.prototype.pieces = function () { return this.piece + "s"; };
  Player.prototype.say = function (text, tone) {
    this.message.textContent = text;
    this.message.className = "message" + (tone ? " " + tone : "");
  };
  Player.prototype.redraw = function (groups) {
    if (groups !== undefined) this.groups = groups;
    drawMarks(this.svg, this.rects, this.n, this.marks, this.givens);
    drawHighlight(this.svg, this.rects, this.n, this.groups);
    var focused = document.activeElement && document.activeElement.contains(this.svg);
    drawCursor(this.svg, this.rects, this.n, focused ? this.cursor : null);
    if (this.controls.undo) this.controls.undo.disabled = !this.past.length;
    if (this.controls.redo) this.controls.redo.disabled = !this.future.length;
  };
  // The marks of the player's own (givens left out), as the API's "marks" reads them.
  Player.prototype.own = function () {
    var stars = [], empties = [], self = this;
    this.marks.forEach(function (mark, cell) {
      if (self.givens[cell]) return;
      if (mark === PIECE) stars.push(cell);
      else if (mark === DOT) empties.push(cell);
    });
    return { stars: pairsOf(stars, this.n), empties: pairsOf(empties, this.n) };
  };
  Player.prototype.placed = function () {
    return this.marks.filter(function (m) { return m === PIECE; }).length;
  };
  Player.prototype.set = function (cell, mark) {
    if (this.givens[cell] || this.marks[cell] === mark) { this.redraw(); return; }
    var next = this.marks.slice();
    next[cell] = mark;
    this.setAll(next);
  };
  // Replace the marks as one step of the history (a click, a reveal, a clear); `message` replaces the message.
  Player.prototype.setAll = function (next, message) {
    this.past.push(this.marks);
    if (this.past.length > 500) this.past.shift();
    this.future = [];
    this.marks = next;
    this.afterChange(message);
  };
  Player.prototype.undo = function () {
    if (!this.past.length) return;
    this.future.push(this.marks);
    this.marks = this.past.pop();
    this.afterChange("");
  };
  Player.prototype.redo = function () {
    if (!this.future.length) return;
    this.past.push(this.marks);
    this.marks = this.future.pop();
    this.afterChange("");
  };
  Player.prototype.afterChange = function (message) {
    this.groups = [];
    if (this.playing() && !document.hidden) this.resume();
    this.redraw();
    if (message !== undefined) this.say(message);
    this.changed(this);
    this.save();
  };
  Player.prototype.finish = function () {
    this.done = true;
    this.pause();
    this.save();
  };
  Player.prototype.playing = function () {
    var self = this;
    return !this.done && this.marks.some(function (mark, cell) { return !self.givens[cell] && mark !== EMPTY; });
  };
  Player.prototype.resume = function () {
    if (this.running || this.done) return;
    var self = this;
    this.running = true;
    this.since = Date.now();
    this.tick = window.setInterval(function () { self.showTime(); }, 1000);
    this.showTime();
  };
  Player.prototype.pause = function () {
    if (!this.running) return;
    this.seconds += (Date.now() - this.since) / 1000;
    this.running = false;
    window.clearInterval(this.tick);
    this.showTime();
    this.save();
  };
  Player.prototype.elapsed = function () {
    return this.seconds + (this.running ? (Date.now() - this.since) / 1000 : 0);
  };
  Player.prototype.showTime = function () {
    var timer = this.controls.timer;
    if (!timer) return;
    timer.textContent = formatTime(this.elapsed());
    timer.dataset.seconds = String(Math.floor(this.elapsed()));
    timer.classList.toggle("paused", !this.running);
  };
  Player.prototype.save = function () {
    if (this.key) writeStore(this.key, { marks: this.marks.join(""), seconds: this.elapsed(), done: this.done });
  };
  // The keyboard: arrows move the cursor, marks as the header says, undo and redo.
  Player.prototype.onKey = function (event) {
    var n = this.n, cell = this.cursor === null ? 0 : this.cursor, r = Math.floor(cell / n), c = cell % n;
    var key = event.key, ctrl = event.ctrlKey || event.metaKey;
    if (ctrl && (key === "z" || key === "Z")) { if (event.shiftKey) this.redo(); else this.undo(); }
    else if (ctrl && (key === "y" || key === "Y")) this.redo();
    else if (ctrl || event.altKey) return;
    else if (key === "ArrowUp") this.cursor = Math.max(0, r - 1) * n + c;
    else if (key === "ArrowDown") this.cursor = Math.min(n - 1, r + 1) * n + c;
    else if (key === "ArrowLeft") this.cursor = r * n + Math.max(0, c - 1);
    else if (key === "ArrowRight") this.cursor = r * n + Math.min(n - 1, c + 1);
    else if (key === " " || key === "Enter") this.set(cell, (this.marks[cell] + 1) % 3);
    else if (key === "." || key === "x" || key === "X") this.set(cell, DOT);
    else if (key === "*" || key === "s" || key === "S" || key === "q" || key === "Q") this.set(cell, PIECE);
    else if (key === "Backspace" || key === "Delete" || key === "0") this.set(cell, EMPTY);
    else return;
    event.preventDefault();
    this.redraw();
  };

  // --- the walkthrough: the grader's steps, each with a picture of the board before it ----------------------------

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // The list of steps as the day page's server-side markup has it (flows/site.py), for a walkthrough the page got
  // from the API.
  function stepList(steps) {
    var list = element("ol", "steps");
    steps.forEach(function (step, i) {
      var item = element("li", "step"), words = element("div", "words"), head = element("p");
      item.dataset.step = String(i);
      item.appendChild(element("div", "pic"));
      head.appendChild(element("span", "n", step.n + "."));
      head.appendChild(document.createTextNode(" "));
      head.appendChild(element("span", "technique", step.technique));
      head.appendChild(document.createTextNode(" "));
      head.appendChild(element("span", "cost", "(" + step.code + ", cost " + step.cost + ", total " + step.total + ")"));
      words.appendChild(head);
      words.appendChild(element("p", "", step.sentence + "."));
      if (step.chain && step.chain.length) {
        var chain = element("ol", "chain");
        chain.setAttribute("aria-label", "the chain, link by link");
        step.chain.forEach(function (link, j) {
          var linkItem = element("li", "link"), words2 = element("p");
          linkItem.dataset.link = String(j);
          linkItem.appendChild(element("div", "pic"));
          words2.appendChild(element("span", "n", (j + 1) + "."));
          words2.appendChild(document.createTextNode(" "));
          words2.appendChild(element("span", "code", link.code || ""));
          words2.appendChild(document.createTextNode(" " + link.sentence + "."));
          linkItem.appendChild(words2);
          chain.appendChild(linkItem);
        });
        words.appendChild(chain);
      }
      item.appendChild(words);
      list.appendChild(item);
    });
    return list;
  }

  // A small copy of the board showing `marks`, with `groups` outlined, put into `holder`.
  function picture(holder, base, n, marks, givens, groups) {
    var copy = base.cloneNode(true);
    copy.querySelectorAll("[id]").forEach(function (node) { node.removeAttribute("id"); });
    copy.removeAttribute("id");
    var title = copy.querySelector("title");
    if (title) title.remove();
    var rects = cellRects(copy, n);
    drawMarks(copy, rects, n, marks, givens);
    drawHighlight(copy, rects, n, groups);
    holder.replaceChildren(copy);
  }

  function apply(marks, record, n) {
    cellsOf(record.stars, n).forEach(function (cell) { marks[cell] = PIECE; });
    cellsOf(record.empties, n).forEach(function (cell) { marks[cell] = DOT; });
  }

  // Every step of `container`'s list: the board before it, with the cells it decides outlined (pieces red, empty
  // cells blue); a hypothetical's chain link by link, each on the board as the chain has left it.
  function drawWalkthrough(container, player, steps) {
    var n = player.n, marks = player.start.slice(), base = player.svg.cloneNode(true);
    base.querySelectorAll("g.play-marks, g.play-highlight, g.play-cursor").forEach(function (g) { g.remove(); });
    base.querySelectorAll(GROUP_CELLS).forEach(function (rect) { rect.classList.remove.apply(rect.classList, GROUPS); });
    container.querySelectorAll("li.step").forEach(function (item) {
      var step = steps[Number(item.dataset.step)];
      picture(item.querySelector(":scope > .pic"), base, n, marks, player.givens,
        [["new-star", cellsOf(step.stars, n)], ["new-empty", cellsOf(step.empties, n)]]);
      var chainMarks = marks.slice();
      item.querySelectorAll("li.link").forEach(function (linkItem) {
        var link = step.chain[Number(linkItem.dataset.link)];
        picture(linkItem.querySelector(".pic"), base, n, chainMarks, player.givens,
          [["new-star", cellsOf(link.stars, n)], ["new-empty", cellsOf(link.empties, n)]]);
        apply(chainMarks, link, n);
      });
      apply(marks, step, n);
    });
  }

  // --- the day page: every board checked against its stored solution, hinted from its stored solve path ----------

  function dayBoard(section, board, date) {
    var n = board.size, solution = new Array(n * n).fill(false);
    cellsOf(board.solution, n).forEach(function (cell) { solution[cell] = true; });
    var total = board.solution.length;
    function button(name) { return section.querySelector("button." + name); }
    var player = new Player({
      svg: section.querySelector(".play svg"),
      holder: section.querySelector(".play"),
      size: n,
      piece: board.piece,
      given_stars: board.given_stars,
      given_empty: board.given_empty,
      storageKey: "starbattle:" + date + ":" + section.dataset.slot,
      message: section.querySelector(".message"),
      controls: { undo: button("undo"), redo: button("redo"), clear: button("clear"), timer: section.querySelector(".timer") },
      changed: function () { if (!player.done && solved()) solvedNow(); }
    });
    var pieces = player.pieces();

    function wrongCells() {
      var wrong = [];
      player.marks.forEach(function (mark, cell) {
        if ((mark === PIECE && !solution[cell]) || (mark === DOT && solution[cell])) wrong.push(cell);
      });
      return wrong;
    }
    function solved() { return player.placed() === total && wrongCells().length === 0; }
    function solvedNow() {
      player.finish();
      player.say("Solved: every " + board.piece + " is in place.", "good");
    }
    function wrongMessage(wrong) {
      return plural(wrong.length, "mark") + " contradict" + (wrong.length === 1 ? "s" : "") + " the solution: " +
        names(wrong, n) + ".";
    }

    button("check").addEventListener("click", function () {
      var wrong = wrongCells();
      if (wrong.length) {
        player.redraw([["wrong", wrong]]);
        player.say(wrongMessage(wrong), "bad");
      } else {
        player.redraw([]);
        if (solved()) solvedNow();
        else player.say("No mistakes so far: " + player.placed() + " of " + total + " " + pieces + " placed.", "good");
      }
    });
    button("hint").addEventListener("click", function () {
      var wrong = wrongCells();
      if (wrong.length) {
        player.redraw([["wrong", wrong]]);
        player.say("No step follows from a wrong mark. " + wrongMessage(wrong), "bad");
        return;
      }
      if (solved()) { player.redraw([]); solvedNow(); return; }
      // The first step of the stored path whose pieces are not all placed or whose empty cells are not all dotted.
      for (var i = 0; i < board.steps.length; i++) {
        var step = board.steps[i], stars = cellsOf(step.stars, n), empties = cellsOf(step.empties, n);
        var made = stars.every(function (c) { return player.marks[c] === PIECE; }) &&
          empties.every(function (c) { return player.marks[c] === DOT; });
        if (!made) {
          player.redraw([["hint", stars.concat(empties)]]);
          player.say("Step " + step.n + " of " + board.steps.length + ", " + step.technique + ": " + step.sentence + ".");
          section.dataset.hintStep = String(i);
          return;
        }
      }
      player.redraw([]);
      player.say("Every step of the solve path is on the board.");
    });
    button("reveal").addEventListener("click", function () {
      player.done = true;
      player.pause();
      player.setAll(player.marks.map(function (mark, cell) {
        return solution[cell] ? PIECE : mark === DOT ? DOT : EMPTY;
      }), "The solution: " + total + " " + pieces + ".");
    });

    if (player.done) player.say("Solved: every " + board.piece + " is in place.", "good");
    else if (player.playing()) player.say("Your marks are as you left them.");

    var details = section.querySelector("details.walkthrough");
    details.addEventListener("toggle", function () {
      if (details.open && !details.dataset.drawn) {
        drawWalkthrough(details, player, board.steps);
        details.dataset.drawn = "yes";
      }
    });
  }

  var data = document.getElementById("play-data");
  if (data) {
    var boards = JSON.parse(data.textContent), date = document.body.dataset.date;
    document.querySelectorAll("section.board").forEach(function (section) {
      dayBoard(section, boards[Number(section.dataset.board)], date);
    });
  }

  return {
    EMPTY: EMPTY, DOT: DOT, PIECE: PIECE, Player: Player, cellsOf: cellsOf, names: names, plural: plural,
    formatTime: formatTime, stepList: stepList, drawWalkthrough: drawWalkthrough
  };
})();
