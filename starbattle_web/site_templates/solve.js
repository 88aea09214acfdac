// The solver page (/solve, served by `starbattle web`): a pasted or painted board, drawn by the server's renderer
// (POST api/board), played with the day page's player (play.js); Check, Hint, Explain and Solve ask the server's
// API, which answers what the CLI's --json prints. The page's address keeps the board (?puzzle=...), and the player
// keeps the marks, so a reload finds both.
(function () {
  "use strict";
  var S = StarBattle;
  function $(id) { return document.getElementById(id); }
  var message = $("message"), current = null;

  function say(text, tone) {
    message.textContent = text;
    message.className = "message" + (tone ? " " + tone : "");
  }
  function sentence(text) { return text.charAt(0).toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? "" : "."); }

  // POST api/NAME with `body`; the answer's JSON, or an Error carrying the server's one line.
  function api(name, body) {
    return fetch("api/" + name, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body)
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) throw new Error(data.error || "the server answered " + response.status);
        return data;
      });
    }, function () { throw new Error("the server cannot be reached"); });
  }

  function rules(board) {
    var piece = board.piece, what = board.stars === 1 ? "one " + piece : board.stars + " " + piece + "s";
    return "Place " + what + " in every row, column and region; no two " + piece + "s touch, not even diagonally.";
  }

  // The board's own lines of its text picture (its id left out): the same board pasted in any form keeps its marks.
  function storageKey(board) {
    return "starbattle:solve:" + board.text.split("\n").filter(function (line) { return !/^id:/.test(line); }).join("|");
  }

  function backLink() {
    var back = new URLSearchParams(window.location.search).get("back");
    return back && /^\d{4}-\d{2}-\d{2}\/index\.html(#board-\d+)?$/.test(back) ? back : null;
  }

  function load(text) {
    if (!text.trim()) { say("Paste a board first, or paint one.", "bad"); return Promise.resolve(); }
    say("Reading the board…");
    return api("board", { puzzle: text }).then(show, function (error) { say(error.message, "bad"); });
  }

  function show(board) {
    if (current) current.player.stop();
    var holder = $("board");
    holder.innerHTML = board.svg;  // the project's renderer, from this server
    $("solver").hidden = false;
    $("walkthrough").replaceChildren();
    $("puzzle-input").value = board.text;
    var game = board.game === "queens" ? "Queens" : "Star Battle";
    $("board-title").textContent = game + " " + board.size + "×" + board.size;
    $("rules").textContent = rules(board);
    var state = { board: board, verify: null };
    state.player = new S.Player({
      svg: holder.querySelector("svg"),
      holder: holder,
      size: board.size,
      piece: board.piece,
      given_stars: board.given_stars,
      given_empty: board.given_empty,
      storageKey: storageKey(board),
      message: message,
      controls: { undo: $("undo"), redo: $("redo"), clear: $("clear"), timer: $("timer") },
      changed: function (player) {
        if (!player.done && state.verify && state.verify.unique && wrongCells(state).length === 0 &&
            player.placed() === state.verify.solution.length) {
          player.finish();
          say("Solved: every " + board.piece + " is in place.", "good");
        }
      }
    });
    current = state;
    var query = { puzzle: board.text }, back = backLink();
    if (back) query.back = back;
    window.history.replaceState(null, "", "?" + new URLSearchParams(query).toString());
    if (state.player.done) say("Solved: every " + board.piece + " is in place.", "good");
    else say(state.player.playing() ? "Your marks are as you left them." :
      "Tap a cell: once for a dot, twice for a " + board.piece + ", three times to clear it (or arrows and space).");
    verified(state).catch(function () { /* said again when Check asks */ });
  }

  // The board's count and solution, asked once.
  function verified(state) {
    if (state.verify) return Promise.resolve(state.verify);
    return api("verify", { puzzle: state.board.text }).then(function (answer) {
      state.verify = answer;
      return answer;
    });
  }

  function wrongCells(state) {
    var n = state.board.size, solution = new Array(n * n).fill(false), wrong = [];
    S.cellsOf(state.verify.solution, n).forEach(function (cell) { solution[cell] = true; });
    state.player.marks.forEach(function (mark, cell) {
      if ((mark === S.PIECE && !solution[cell]) || (mark === S.DOT && solution[cell])) wrong.push(cell);
    });
    return wrong;
  }

  // Run `action(state)` on the board shown, unless none is; an error is the message.
  function withBoard(action) {
    return function () {
      var state = current;
      if (!state) { say("Load a board first.", "bad"); return; }
      Promise.resolve(action(state)).catch(function (error) { say(error.message, "bad"); });
    };
  }

  $("check").addEventListener("click", withBoard(function (state) {
    return verified(state).then(function (answer) {
      var player = state.player, n = state.board.size, pieces = state.board.piece + "s";
      if (answer.count === 0) { player.redraw([]); say("This board has no solution.", "bad"); return; }
      if (!answer.unique) {
        player.redraw([]);
        say("This board has more than one solution (the count stopped at " + answer.count + "): logic alone " +
          "cannot settle it.", "bad");
        return;
      }
      var wrong = wrongCells(state);
      if (wrong.length) {
        player.redraw([["wrong", wrong]]);
        say("The board has one solution. " + S.plural(wrong.length, "mark") + " of yours contradict" +
          (wrong.length === 1 ? "s" : "") + " it: " + S.names(wrong, n) + ".", "bad");
      } else if (player.placed() === answer.solution.length) {
        player.redraw([]);
        player.finish();
        say("Solved: every " + state.board.piece + " is in place.", "good");
      } else {
        player.redraw([]);
        say("The board has one solution, and no mark of yours contradicts it: " + player.placed() + " of " +
          answer.solution.length + " " + pieces + " placed.", "good");
      }
    });
  }));

  $("hint").addEventListener("click", withBoard(function (state) {
    var player = state.player, n = state.board.size;
    say("Looking for the next step…");
    return api("hint", { puzzle: state.board.text, marks: player.own() }).then(function (answer) {
      if (answer.status === "step") {
        player.redraw([["hint", S.cellsOf(answer.stars, n).concat(S.cellsOf(answer.empties, n))]]);
        say("Hint, " + answer.technique + ": " + sentence(answer.sentence));
      } else if (answer.status === "wrong") {
        player.redraw([["wrong", S.cellsOf(answer.wrong.stars, n).concat(S.cellsOf(answer.wrong.empties, n))]]);
        say(sentence(answer.message), "bad");
      } else {
        player.redraw([]);
        say(sentence(answer.message), answer.status === "solved" ? "good" : "bad");
      }
    });
  }));

  $("explain").addEventListener("click", withBoard(function (state) {
    say("Working out the solve path…");
    return api("explain", { puzzle: state.board.text }).then(function (answer) {
      var holder = $("walkthrough"), head = document.createElement("h3");
      head.textContent = "The solve path: " + S.plural(answer.steps.length, "step") + ", difficulty " +
        answer.difficulty + (answer.solved ? " (" + answer.band + ")" : "");
      holder.replaceChildren(head, S.stepList(answer.steps));
      if (!answer.solved) {
        var stuck = document.createElement("p");
        stuck.textContent = "Stuck: no technique applies after the last step; " +
          S.plural(answer.open.length, "cell") + " are still open.";
        holder.appendChild(stuck);
      }
      S.drawWalkthrough(holder, state.player, answer.steps);
      say(answer.solved ? "The walkthrough is below the board." : "The grader got stuck: see below.",
        answer.solved ? "good" : "bad");
    });
  }));

  $("solve").addEventListener("click", withBoard(function (state) {
    say("Solving…");
    return api("solve", { puzzle: state.board.text }).then(function (answer) {
      var player = state.player, n = state.board.size;
      if (!answer.count) { say("This board has no solution.", "bad"); return; }
      var solution = new Array(n * n).fill(false);
      S.cellsOf(answer.solutions[0], n).forEach(function (cell) { solution[cell] = true; });
      player.done = true;
      player.pause();
      player.setAll(player.marks.map(function (mark, cell) {
        return solution[cell] ? S.PIECE : mark === S.DOT ? S.DOT : S.EMPTY;
      }), answer.count === 1 ? "The solution, the only one." :
        "One of at least " + answer.count + " solutions: logic alone cannot settle this board.");
    });
  }));

  $("load").addEventListener("click", function () { load($("puzzle-input").value); });

  // A picture of a board (chosen, dropped or pasted): the server reads it (POST api/from-image, what
  // `starbattle from-image` prints) and the board it read is loaded as if pasted.
  function fromPicture(file) {
    if (!file || !/^image\//.test(file.type)) return;
    var form = new FormData();
    form.append("image", file);
    say("Reading the picture\u2026");
    fetch("api/from-image", { method: "POST", body: form }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) throw new Error(data.error || "the server answered " + response.status);
        return data;
      });
    }, function () { throw new Error("the server cannot be reached"); }).then(function (board) {
      var text = JSON.stringify(board);
      $("puzzle-input").value = text;
      return load(text);
    }).catch(function (error) { say(error.message, "bad"); });
  }
  $("picture").addEventListener("change", function () { fromPicture(this.files[0]); this.value = ""; });
  var box = $("puzzle-input");
  box.addEventListener("dragover", function (event) { event.preventDefault(); });
  box.addEventListener("drop", function (event) {
    var files = event.dataTransfer && event.dataTransfer.files;
    if (files && files.length) { event.preventDefault(); fromPicture(files[0]); }
  });
  box.addEventListener("paste", function (event) {
    var items = (event.clipboardData && event.clipboardData.files) || [];
    if (items.length) { event.preventDefault(); fromPicture(items[0]); }
  });

  // --- painting a board ------------------------------------------------------------------------------------------

  var palette = JSON.parse($("palette").textContent), LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  var paint = { size: 0, regions: [], givens: [], brush: 0, down: false };
  var sizes = $("paint-size"), perUnit = $("paint-stars"), game = $("paint-game");
  for (var size = 4; size <= 17; size++) sizes.add(new Option(String(size), String(size), false, size === 8));

  function fillStars() {
    var n = Number(sizes.value), most = game.value === "queens" ? 1 : Math.max(1, Math.floor(n / 4));
    perUnit.replaceChildren();
    for (var k = 1; k <= most; k++) perUnit.add(new Option(String(k), String(k)));
  }
  sizes.addEventListener("change", fillStars);
  game.addEventListener("change", fillStars);
  fillStars();

  function brushes() {
    var holder = $("paint-brushes"), choices = [];
    for (var i = 0; i < paint.size; i++) choices.push({ value: i, label: LETTERS[i], colour: palette[i % palette.length] });
    var piece = game.value === "queens" ? "queen" : "star";
    choices.push({ value: "piece", label: "given " + piece }, { value: "dot", label: "given dot" },
      { value: "erase", label: "eraser" });
    holder.replaceChildren();
    choices.forEach(function (choice) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = choice.label;
      button.className = "brush" + (choice.value === paint.brush ? " chosen" : "");
      button.dataset.brush = String(choice.value);
      if (choice.colour) button.style.background = choice.colour;
      button.addEventListener("click", function () { paint.brush = choice.value; brushes(); });
      holder.appendChild(button);
    });
  }

  function drawPaint() {
    var n = paint.size, cell = 32, svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 " + n * cell + " " + n * cell);
    svg.setAttribute("class", "paint");
    for (var index = 0; index < n * n; index++) {
      var r = Math.floor(index / n), c = index % n, region = paint.regions[index];
      var rect = document.createElementNS(svg.namespaceURI, "rect");
      rect.setAttribute("x", c * cell);
      rect.setAttribute("y", r * cell);
      rect.setAttribute("width", cell);
      rect.setAttribute("height", cell);
      rect.setAttribute("class", "paint-cell");
      rect.setAttribute("fill", region < 0 ? "#fff" : palette[region % palette.length]);
      rect.dataset.r = r;
      rect.dataset.c = c;
      svg.appendChild(rect);
      var mark = paint.givens[index] === "piece" ? (game.value === "queens" ? "♛" : "★") :
        paint.givens[index] === "dot" ? "•" : region >= 0 ? LETTERS[region] : "";
      if (mark) {
        var text = document.createElementNS(svg.namespaceURI, "text");
        text.setAttribute("x", c * cell + cell / 2);
        text.setAttribute("y", r * cell + cell * 0.68);
        text.setAttribute("text-anchor", "middle");
        text.setAttribute("font-size", paint.givens[index] ? cell * 0.6 : cell * 0.4);
        text.textContent = mark;
        svg.appendChild(text);
      }
    }
    $("paint-grid").replaceChildren(svg);
  }

  function paintAt(x, y) {
    var target = document.elementFromPoint(x, y);
    if (!target || !target.classList || !target.classList.contains("paint-cell")) return;
    var index = Number(target.dataset.r) * paint.size + Number(target.dataset.c), brush = paint.brush;
    if (brush === "erase") { paint.regions[index] = -1; paint.givens[index] = null; }
    else if (brush === "piece" || brush === "dot") paint.givens[index] = paint.givens[index] === brush ? null : brush;
    else paint.regions[index] = brush;
    drawPaint();
  }

  function newGrid() {
    paint.size = Number(sizes.value);
    paint.regions = new Array(paint.size * paint.size).fill(-1);
    paint.givens = new Array(paint.size * paint.size).fill(null);
    paint.brush = 0;
    brushes();
    drawPaint();
  }
  $("paint-new").addEventListener("click", newGrid);
  var grid = $("paint-grid");
  grid.addEventListener("pointerdown", function (event) {
    paint.down = true;
    paintAt(event.clientX, event.clientY);
    event.preventDefault();
  });
  grid.addEventListener("pointermove", function (event) {
    if (paint.down && (paint.brush !== "piece" && paint.brush !== "dot")) paintAt(event.clientX, event.clientY);
  });
  window.addEventListener("pointerup", function () { paint.down = false; });
  $("paint").addEventListener("toggle", function () { if ($("paint").open && !paint.size) newGrid(); });

  $("paint-use").addEventListener("click", function () {
    var n = paint.size, rows = [], stars = [], empties = [];
    if (!n) { say("Pick N and start an empty grid first.", "bad"); return; }
    for (var index = 0; index < n * n; index++) {
      if (paint.regions[index] < 0) {
        say("R" + (Math.floor(index / n) + 1) + "C" + (index % n + 1) + " has no region yet: paint every cell.", "bad");
        return;
      }
      if (paint.givens[index] === "piece") stars.push([Math.floor(index / n), index % n]);
      if (paint.givens[index] === "dot") empties.push([Math.floor(index / n), index % n]);
    }
    for (var r = 0; r < n; r++) {
      rows.push(paint.regions.slice(r * n, (r + 1) * n).map(function (region) { return LETTERS[region]; }).join(""));
    }
    var board = { game: game.value, size: n, stars: Number(perUnit.value), regions: rows };
    if (stars.length) board.given_stars = stars;
    if (empties.length) board.given_empty = empties;
    load(JSON.stringify(board));
  });

  // --- the page's address: a board to load, and the day page to go back to ---------------------------------------

  var back = backLink();
  if (back) {
    $("back").href = back;
    $("back").textContent = "back to the board of " + back.slice(0, 10);
  }
  var asked = new URLSearchParams(window.location.search).get("puzzle");
  if (asked) {
    $("puzzle-input").value = asked;
    load(asked);
  }
})();
