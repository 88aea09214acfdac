// puzz.link's own renderer draws Star Battle boards for the picture tests and bench/bench_picture.py.
// Standard input: JSON Lines of {"url": "https://puzz.link/p?starbattle/...", "cell": PIXELS}.
// Standard output: one JSON array of SVG texts, in the same order.
"use strict";
const pzpr = require("pzpr");

const lines = require("fs").readFileSync(0, "utf8").split("\n").filter((line) => line.trim());
const pictures = lines.map((line) => {
  const { url, cell } = JSON.parse(line);
  const puzzle = new pzpr.Puzzle();
  puzzle.open(url);
  return puzzle.toBuffer("svg", 0, cell);
});
process.stdout.write(JSON.stringify(pictures));
