// Draws a parking-probe figure (probe.Figure, embedded above as JSON) with
// uPlot, in the panels the PNG plot had: each outcome's latency by
// percentile with the park budget; answers per step by outcome; and the
// requests in flight next to what the router says it parks, against its
// lot.
//
// After each draw it writes in the root element's data-drawn which series of
// which panel were drawn with how many points, and any script error or
// Content-Security-Policy violation, so a test (or a curious user) can see
// that nothing was left out and nothing was fetched.
(function () {
  "use strict";
  var root = document.documentElement;
  var state = { panels: {}, violations: [], errors: [] };
  function publish() {
    root.setAttribute("data-drawn", JSON.stringify(state));
  }
  document.addEventListener("securitypolicyviolation", function (e) {
    state.violations.push(e.violatedDirective + " " + e.blockedURI);
    publish();
  });
  window.addEventListener("error", function (e) {
    state.errors.push(String(e.message));
    publish();
  });

  // The outcomes' colours, as the PNG plot had them; others take the
  // palette in order.
  var outcomeColours = {
    served: "#2ca02c",
    shed: "#ff7f0e",
    budget_exhausted: "#d62728",
    envoy_overflow: "#9467bd",
    transport_error: "#111111",
    client_timeout: "#8c564b"
  };
  var palette = ["#1f77b4", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5", "#c49c94"];
  var nextColour = 0;
  function colourOf(outcome) {
    if (!outcomeColours[outcome]) {
      outcomeColours[outcome] = palette[nextColour++ % palette.length];
    }
    return outcomeColours[outcome];
  }
  var inFlightColour = "#1f77b4", routerColour = "#d62728", ruleColour = "#555555";

  function fmtSeconds(v) {
    if (v == null) return "--";
    if (v === 0) return "0";
    var a = Math.abs(v);
    if (a >= 10) return +v.toFixed(1) + " s";
    if (a >= 1) return +v.toFixed(2) + " s";
    if (a >= 0.001) return +(v * 1e3).toPrecision(3) + " ms";
    return +(v * 1e6).toPrecision(3) + " µs";
  }
  function fmtStep(s) {
    if (s < 1) return Math.round(s * 1000) + "ms";
    return +s.toFixed(3) + "s";
  }
  function fmtCount(v) {
    if (v == null) return "--";
    if (Number.isInteger(v)) return v.toLocaleString("en");
    return v.toLocaleString("en", { maximumFractionDigits: 1 });
  }
  function fmtPercentile(x) {
    // x is 1/(1-p).
    if (x == null) return "--";
    var p = 100 * (1 - 1 / x);
    if (x <= 1) return "0%";
    var digits = Math.max(0, Math.ceil(Math.log10(x)) - 2);
    return p.toFixed(digits) + "%";
  }

  // align turns lines of {x, y} points into uPlot's columns: the union of
  // their x values, and each line's y there (null where it has no point).
  // A line with two points at one x keeps the later: the spectrum closes
  // on its maximum.
  function align(lines) {
    var seen = new Set();
    lines.forEach(function (l) { l.points.forEach(function (p) { seen.add(p.x); }); });
    var xs = Array.from(seen).sort(function (a, b) { return a - b; });
    var at = new Map(xs.map(function (x, i) { return [x, i]; }));
    var data = [xs];
    lines.forEach(function (l) {
      var ys = new Array(xs.length).fill(null);
      l.points.forEach(function (p) { ys[at.get(p.x)] = p.y; });
      data.push(ys);
    });
    return data;
  }

  function seriesOf(line, fmt) {
    var s = {
      label: line.label,
      stroke: line.colour,
      width: line.width || 2,
      spanGaps: true,
      points: { show: false },
      value: function (u, v) { return fmt(v); }
    };
    if (line.kind === "step") {
      // Each point starts its step and holds until the next.
      s.paths = uPlot.paths.stepped({ align: 1 });
    }
    if (line.kind === "scatter") {
      s.paths = function () { return null; };
      s.points = { show: true, size: 4, width: 0, fill: line.colour, stroke: line.colour };
    }
    if (line.kind === "dots") {
      // Samples alone: a line between two scrapes would claim values
      // nobody read, and could cross above the probe's own count.
      s.paths = function () { return null; };
      s.points = { show: true, size: 9, fill: line.colour, stroke: line.colour };
    }
    if (line.kind === "rule") {
      s.dash = [8, 4];
      s.width = 1.5;
    }
    return s;
  }

  var panels = [];
  function width() {
    return Math.max(600, Math.min(1500, root.clientWidth - 48));
  }

  // panel draws one chart. lines: {key, label, colour, kind, points};
  // marks: x values to draw as labelled vertical rules.
  function panel(id, title, note, lines, o) {
    lines = lines.filter(function (l) { return l.points.length > 0; });
    if (lines.length === 0) return;
    var box = document.createElement("section");
    box.className = "panel";
    box.id = id;
    var h = document.createElement("h2");
    h.textContent = title;
    box.appendChild(h);
    if (note) {
      var n = document.createElement("p");
      n.className = "note";
      n.textContent = note;
      box.appendChild(n);
    }
    document.getElementById("panels").appendChild(box);

    var drawn = {};
    state.panels[id] = drawn;
    var data = align(lines);
    var series = [{ label: o.xLabel, value: function (u, v) { return o.xFmt(v); } }];
    lines.forEach(function (l) { series.push(seriesOf(l, o.yFmt)); });
    var marks = o.marks || [];
    var opts = {
      width: width(),
      height: 300,
      series: series,
      scales: {
        x: { time: false, distr: o.xLog ? 3 : 1, log: 10, range: function () { return o.xRange; } },
        y: { range: function (u, min, max) { return [0, Math.max(o.yMin || 0, max || 0, 1) * 1.06]; } }
      },
      axes: [
        // Every split gets its label: uPlot's log axes would blank all
        // but the powers of ten.
        { label: o.xLabel, labelSize: 20, splits: o.xSplits, filter: function (u, vs) { return vs; },
          values: function (u, vs) { return vs.map(function (v) { return o.xFmt(v); }); } },
        { label: o.yLabel, labelSize: 20, size: 72, values: function (u, vs) { return vs.map(function (v) { return o.yFmt(v); }); } }
      ],
      legend: { live: true },
      cursor: o.sync ? { sync: { key: o.sync } } : {},
      hooks: {
        drawSeries: [function (u, si) {
          var s = u.series[si], ys = u.data[si];
          var i0 = 0, i1 = ys.length - 1;
          if (s.idxs) { i0 = s.idxs[0]; i1 = s.idxs[1]; }
          var pts = 0;
          for (var i = i0; i <= i1; i++) if (ys[i] != null) pts++;
          drawn[lines[si - 1].key] = { label: s.label, points: pts };
          publish();
        }],
        draw: [function (u) {
          var ctx = u.ctx;
          marks.forEach(function (m) {
            var x = Math.round(u.valToPos(m.x, "x", true));
            ctx.save();
            ctx.strokeStyle = ruleColour;
            ctx.lineWidth = 1.5 * uPlot.pxRatio;
            ctx.setLineDash([8 * uPlot.pxRatio, 4 * uPlot.pxRatio]);
            ctx.beginPath();
            ctx.moveTo(x, u.bbox.top);
            ctx.lineTo(x, u.bbox.top + u.bbox.height);
            ctx.stroke();
            ctx.setLineDash([]);
            ctx.fillStyle = ruleColour;
            ctx.font = (12 * uPlot.pxRatio) + "px sans-serif";
            // Below the top, so a line there (the lot) stays clear; right
            // of the rule (a burst has drained by then) unless that runs
            // off the chart.
            var right = x + ctx.measureText(m.label).width + 10 * uPlot.pxRatio < u.bbox.left + u.bbox.width;
            ctx.textAlign = right ? "left" : "right";
            ctx.fillText(m.label, x + (right ? 5 : -5) * uPlot.pxRatio, u.bbox.top + 28 * uPlot.pxRatio);
            ctx.restore();
          });
        }]
      }
    };
    var el = document.createElement("div");
    box.appendChild(el);
    panels.push(new uPlot(opts, data, el));
  }

  function xmaxOf(lines) {
    var m = 0;
    lines.forEach(function (l) { l.points.forEach(function (p) { m = Math.max(m, p.x); }); });
    return m;
  }
  function ymaxOf(lines) {
    var m = 0;
    lines.forEach(function (l) { l.points.forEach(function (p) { m = Math.max(m, p.y); }); });
    return m;
  }

  function draw(page) {
    var fig = page.figure;
    var step = fmtStep(fig.step_seconds);
    var budget = fig.budget_seconds || 0;
    var facts = [fig.mode];
    if (page.title.indexOf(fig.load) < 0) facts.push(fig.load);
    facts.push("answers per " + step);
    if (budget > 0) facts.push("park budget " + fmtSeconds(budget));
    if (page.lot > 0) facts.push("lot " + fmtCount(page.lot));
    if (fig.scale > 1) facts.push("answers estimated from kept samples: one stands for " + fmtCount(fig.scale) + " requests");
    document.getElementById("facts").textContent = facts.join(" · ");

    // Latency by percentile, HDR style: x is 1/(1-p) on a log scale, so
    // the tail gets room.
    var spectra = (fig.spectra || []).map(function (s) {
      return { key: "latency/" + s.outcome, label: s.outcome + " (" + fmtCount(s.count) + ")", colour: colourOf(s.outcome), kind: "line", points: s.points };
    });
    var sxmax = Math.max(10, xmaxOf(spectra));
    if (budget > 0 && spectra.length > 0) {
      spectra.push({ key: "budget", label: "park budget " + fmtSeconds(budget), colour: ruleColour, kind: "rule", points: [{ x: 1, y: budget }, { x: sxmax, y: budget }] });
    }
    panel("latency", "Latency by percentile, by outcome", "each outcome's latency at each percentile of its answers (log scale out to the tail)", spectra, {
      xLabel: "percentile", xLog: true, xRange: [1, sxmax], xFmt: fmtPercentile, yLabel: "latency", yFmt: fmtSeconds,
      yMin: budget * 1.1,
      xSplits: function (u) {
        var out = [1];
        if (sxmax >= 2) out.push(2);
        for (var x = 10; x <= sxmax * 1.0001; x *= 10) out.push(x);
        return out;
      }
    });

    // The time panels share their x axis, from the start of the run to its
    // end (in a burst, at least to where the parks run out).
    var answers = (fig.answers || []).map(function (s) {
      return { key: "answers/" + s.outcome, label: s.outcome, colour: colourOf(s.outcome), kind: "step", points: s.points };
    });
    var flightEach = fmtStep(fig.in_flight_step_seconds || fig.step_seconds);
    if (flightEach === "1s") flightEach = "second";
    var flight = [{ key: "in_flight", label: "in flight (probe, most in each " + flightEach + ")", colour: inFlightColour, kind: "step", width: 2, points: fig.in_flight || [] }];
    if ((fig.parking_active || []).length > 0) {
      flight.push({ key: "parking_active", label: "parked (router parking_active)", colour: routerColour, kind: "dots", points: fig.parking_active });
    }
    var latency = (page.latency || []).map(function (s) {
      return { key: "latency-time/" + s.outcome, label: s.outcome + " (" + fmtCount(s.count) + ")", colour: colourOf(s.outcome), kind: "scatter", points: s.points };
    });
    // The x axis ends where the run ended, or where the answer bin that
    // holds the end closes (at most one step later, so its last bin is
    // drawn whole); a budget longer than the run is not drawn past it.
    var txmax = Math.max(xmaxOf(answers), xmaxOf(flight), xmaxOf(latency), fig.end_seconds > 0 ? fig.end_seconds : 1);
    var marks = [];
    if (budget > 0 && fig.mode === "burst" && budget <= txmax) {
      marks.push({ x: budget, label: "park budget " + fmtSeconds(budget) + " after the burst" });
    }
    if (page.lot > 0) {
      flight.push({ key: "lot", label: "lot (router's most parked)", colour: ruleColour, kind: "rule", points: [{ x: 0, y: page.lot }, { x: txmax, y: page.lot }] });
    }
    if (budget > 0 && latency.length > 0) {
      latency.push({ key: "latency-time/budget", label: "park budget " + fmtSeconds(budget), colour: ruleColour, kind: "rule", points: [{ x: 0, y: budget }, { x: txmax, y: budget }] });
    }
    var perStep = "answers per " + step;
    var timeAxisL = function (v) { return v == null ? "--" : +v.toFixed(2) + " s"; };
    panel("latency-time", "Latency over time, by outcome", "each answer's latency at the time it arrived (answers kept as samples; a common outcome thinned evenly through the run)", latency, {
      xLabel: "time since start", xRange: [0, txmax], xFmt: timeAxisL, yLabel: "latency", yFmt: fmtSeconds, marks: marks, sync: "time",
      yMin: budget * 1.1
    });
    var timeAxis = function (v) { return v == null ? "--" : +v.toFixed(2) + " s"; };
    panel("answers", "Answers over time, by outcome", perStep + ", by the time each answer arrived" + (fig.scale > 1 ? " (estimated)" : ""), answers, {
      xLabel: "time since start", xRange: [0, txmax], xFmt: timeAxis, yLabel: perStep, yFmt: fmtCount, marks: marks, sync: "time"
    });
    panel("flight", "Requests in flight, and parked at the router", flightNote(fig, step, page), flight, {
      xLabel: "time since start", xRange: [0, txmax], xFmt: timeAxis, yLabel: "requests", yFmt: fmtCount, marks: marks, sync: "time",
      yMin: page.lot > 0 ? page.lot : 0
    });
    state.complete = true;
    publish();
  }

  function flightNote(fig, step, page) {
    var each = fmtStep(fig.in_flight_step_seconds || fig.step_seconds);
    if (each === "1s") each = "second";
    var s = "probe: the most requests in flight within each " + each + " (the report's in-flight peak is the highest)";
    if ((fig.parking_active || []).length > 0) s += "; router: parking_active at the time of each scrape (four a second; a report read back keeps each second's highest)";
    if (page.lot > 0) s += "; the lot: the most the router parks at once";
    return s;
  }

  window.addEventListener("resize", function () {
    panels.forEach(function (u) { u.setSize({ width: width(), height: 300 }); });
  });

  try {
    draw(JSON.parse(document.getElementById("plot-data").textContent));
  } catch (e) {
    state.errors.push(String(e && e.stack || e));
    var el = document.getElementById("error");
    el.textContent = "This plot could not be drawn: " + e;
    el.hidden = false;
    publish();
  }
})();
