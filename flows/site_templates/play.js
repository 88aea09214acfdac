// The daily page's boards, playable without a server: a click cycles a cell empty -> dot -> star -> empty; Check
// names the marks that contradict the solution; Hint points at the first step of the stored solve path the player
// has not made yet (its cells outlined, its sentence shown); Reveal places the solution's stars. The walkthrough's
// pictures are copies of the board drawn on first opening. Everything comes from the JSON in #play-data: no
// network, no library.
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var EMPTY = 0, DOT = 1, STAR = 2;
  var boards = JSON.parse(document.getElementById("play-data").textContent);

  function cellName(cell, n) { return "R" + (Math.floor(cell / n) + 1) + "C" + (cell % n + 1); }
  function cellsOf(pairs, n) { return pairs.map(function (rc) { return rc[0] * n + rc[1]; }); }
  function plural(count, word) { return count + " " + word + (count === 1 ? "" : "s"); }

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

  function starPath(cx, cy, radius) {
    var points = [];
    for (var i = 0; i < 10; i++) {
      var r = i % 2 === 0 ? radius : radius * 0.45, a = -Math.PI / 2 + i * Math.PI / 5;
      points.push((cx + r * Math.cos(a)).toFixed(2) + "," + (cy + r * Math.sin(a)).toFixed(2));
    }
    return "M" + points.join("L") + "Z";
  }

  function layer(svg, name) {
    var old = svg.querySelector("g." + name);
    if (old) old.remove();
    var g = document.createElementNS(SVG, "g");
    g.setAttribute("class", name);
    svg.appendChild(g);
    return g;
  }

  // Draw `marks` (one of EMPTY, DOT, STAR per cell) on top of the renderer's board, skipping the cells whose mark
  // the renderer drew already (the puzzle's givens).
  function drawMarks(svg, rects, n, marks, givens) {
    var g = layer(svg, "play-marks");
    marks.forEach(function (mark, cell) {
      if (mark === EMPTY || givens[cell]) return;
      var b = box(rects[cell]), shape;
      if (mark === STAR) {
        shape = document.createElementNS(SVG, "path");
        shape.setAttribute("d", starPath(b.cx, b.cy, b.w * 0.36));
        shape.setAttribute("class", "star");
      } else {
        shape = document.createElementNS(SVG, "circle");
        shape.setAttribute("cx", b.cx);
        shape.setAttribute("cy", b.cy);
        shape.setAttribute("r", b.w * 0.09);
        shape.setAttribute("class", "dot");
      }
      shape.dataset.r = Math.floor(cell / n);
      shape.dataset.c = cell % n;
      g.appendChild(shape);
    });
    g.dataset.stars = marks.filter(function (m) { return m === STAR; }).length;
  }

  // Outline cells: `groups` is a list of [class, cells].
  function drawHighlight(svg, rects, n, groups) {
    var g = layer(svg, "play-highlight");
    groups.forEach(function (group) {
      group[1].forEach(function (cell) {
        var b = box(rects[cell]), rect = document.createElementNS(SVG, "rect");
        rect.setAttribute("x", b.x + 2);
        rect.setAttribute("y", b.y + 2);
        rect.setAttribute("width", b.w - 4);
        rect.setAttribute("height", b.h - 4);
        rect.setAttribute("class", group[0]);
        rect.dataset.r = Math.floor(cell / n);
        rect.dataset.c = cell % n;
        g.appendChild(rect);
      });
    });
  }

  function setupBoard(section, board) {
    var n = board.size, svg = section.querySelector(".play svg"), rects = cellRects(svg, n);
    var solution = new Array(n * n).fill(false), givens = new Array(n * n).fill(false);
    cellsOf(board.solution, n).forEach(function (cell) { solution[cell] = true; });
    var start = new Array(n * n).fill(EMPTY);
    cellsOf(board.given_stars, n).forEach(function (cell) { start[cell] = STAR; givens[cell] = true; });
    cellsOf(board.given_empty, n).forEach(function (cell) { start[cell] = DOT; givens[cell] = true; });
    var marks = start.slice(), message = section.querySelector(".message");
    var totalStars = board.solution.length;

    function say(text, tone) {
      message.textContent = text;
      message.className = "message" + (tone ? " " + tone : "");
    }
    function redraw(groups) {
      drawMarks(svg, rects, n, marks, givens);
      drawHighlight(svg, rects, n, groups || []);
    }
    function wrongCells() {
      var wrong = [];
      marks.forEach(function (mark, cell) {
        if ((mark === STAR && !solution[cell]) || (mark === DOT && solution[cell])) wrong.push(cell);
      });
      return wrong;
    }
    function placedStars() { return marks.filter(function (m) { return m === STAR; }).length; }
    function solved() { return placedStars() === totalStars && wrongCells().length === 0; }
    function wrongMessage(wrong) {
      return plural(wrong.length, "mark") + " contradict" + (wrong.length === 1 ? "s" : "") + " the solution: " +
        wrong.map(function (cell) { return cellName(cell, n); }).join(", ") + ".";
    }

    svg.addEventListener("click", function (event) {
      var rect = event.target.closest("rect.cell");
      if (!rect) return;
      var cell = Number(rect.dataset.r) * n + Number(rect.dataset.c);
      if (givens[cell]) return;
      marks[cell] = (marks[cell] + 1) % 3;
      redraw();
      if (solved()) say("Solved: every star is in place.", "good");
      else say("");
    });
    section.querySelector("button.check").addEventListener("click", function () {
      var wrong = wrongCells();
      if (wrong.length) {
        redraw([["wrong", wrong]]);
        say(wrongMessage(wrong), "bad");
      } else {
        redraw();
        say(solved() ? "Solved: every star is in place." :
          "No mistakes so far: " + placedStars() + " of " + totalStars + " stars placed.", "good");
      }
    });
    section.querySelector("button.hint").addEventListener("click", function () {
      var wrong = wrongCells();
      if (wrong.length) {
        redraw([["wrong", wrong]]);
        say("No step follows from a wrong mark. " + wrongMessage(wrong), "bad");
        return;
      }
      if (solved()) { redraw(); say("Solved: every star is in place.", "good"); return; }
      // The first step of the stored path whose stars are not all starred or whose empty cells are not all dotted.
      for (var i = 0; i < board.steps.length; i++) {
        var step = board.steps[i], stars = cellsOf(step.stars, n), empties = cellsOf(step.empties, n);
        var made = stars.every(function (c) { return marks[c] === STAR; }) &&
          empties.every(function (c) { return marks[c] === DOT; });
        if (!made) {
          redraw([["hint", stars.concat(empties)]]);
          say("Step " + step.n + " of " + board.steps.length + ", " + step.technique + ": " + step.sentence + ".");
          section.dataset.hintStep = String(i);
          return;
        }
      }
      redraw();
      say("Every step of the solve path is on the board.");
    });
    section.querySelector("button.reveal").addEventListener("click", function () {
      marks = marks.map(function (mark, cell) { return solution[cell] ? STAR : mark === DOT ? DOT : EMPTY; });
      redraw();
      say("The solution: " + totalStars + " stars.");
    });
    section.querySelector("button.clear").addEventListener("click", function () {
      marks = start.slice();
      redraw();
      say("");
    });
    redraw();

    var details = section.querySelector("details.walkthrough");
    details.addEventListener("toggle", function () {
      if (details.open && !details.dataset.drawn) {
        drawWalkthrough(details, svg, board, start, givens);
        details.dataset.drawn = "yes";
      }
    });
  }

  // A small copy of the board showing `marks`, with `groups` outlined, put into `holder`.
  function picture(holder, base, n, marks, givens, groups) {
    var copy = base.cloneNode(true);
    copy.querySelectorAll("[id]").forEach(function (element) { element.removeAttribute("id"); });
    copy.removeAttribute("id");
    var title = copy.querySelector("title");
    if (title) title.remove();
    var rects = cellRects(copy, n);
    drawMarks(copy, rects, n, marks, givens);
    drawHighlight(copy, rects, n, groups);
    holder.replaceChildren(copy);
  }

  function apply(marks, record, n) {
    cellsOf(record.stars, n).forEach(function (cell) { marks[cell] = STAR; });
    cellsOf(record.empties, n).forEach(function (cell) { marks[cell] = DOT; });
  }

  // Every step: the board before it, with the cells it decides outlined (stars orange, empty cells blue); a
  // hypothetical's chain link by link, each on the board as the chain has left it.
  function drawWalkthrough(details, base, board, start, givens) {
    var n = board.size, marks = start.slice(), base0 = base.cloneNode(true);
    base0.querySelectorAll("g.play-marks, g.play-highlight").forEach(function (g) { g.remove(); });
    details.querySelectorAll("li.step").forEach(function (item) {
      var step = board.steps[Number(item.dataset.step)];
      picture(item.querySelector(":scope > .pic"), base0, n, marks, givens,
        [["new-star", cellsOf(step.stars, n)], ["new-empty", cellsOf(step.empties, n)]]);
      var links = item.querySelectorAll("li.link"), chainMarks = marks.slice();
      links.forEach(function (linkItem) {
        var link = step.chain[Number(linkItem.dataset.link)];
        picture(linkItem.querySelector(".pic"), base0, n, chainMarks, givens,
          [["new-star", cellsOf(link.stars || [], n)], ["new-empty", cellsOf(link.empties || [], n)]]);
        apply(chainMarks, { stars: link.stars || [], empties: link.empties || [] }, n);
      });
      apply(marks, step, n);
    });
  }

  document.querySelectorAll("section.board").forEach(function (section) {
    setupBoard(section, boards[Number(section.dataset.board)]);
  });
})();
