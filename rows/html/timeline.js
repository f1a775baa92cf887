// SPDX-License-Identifier: GPL-2.0-or-later
/* memsz html viewer: the timeline, what the processes of the recording
 * held at each moment, by the rule of the text timeline: at time t a
 * process holds what its latest snapshot at or before t says, nothing
 * before its first snapshot and nothing from its exit on. Stacked step
 * areas (the largest processes apart, the rest one band), the TOTAL line,
 * a point per snapshot (the reported larger, in orange), axes with 1-2-5
 * ticks and a legend. viewer.js calls window.memszTimeline(ctx) with the
 * page's data and helpers and gets drawTimeline(section). */
window.memszTimeline = function (ctx) {
	'use strict';

	var meta = ctx.meta, svgEl = ctx.svgEl, el = ctx.el, human = ctx.human;
	/* processes drawn apart; the others are one band */
	var SHOWN = 8;

	/* A step of 1, 2 or 5 times a power of ten, about span / n. */
	function niceStep(span, n) {
		var raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw)));
		var f = raw / p;

		return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
	}

	/* Ticks for bytes up to vmax: 1-2-5 steps in the binary unit of
	 * vmax (KiB, MiB, ...), each {v, label}, the last at or above vmax. */
	function byteTicks(vmax, n) {
		var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], k = 0, unit = 1;
		var step, out = [], i;

		while (vmax / unit >= 1024 && k < u.length - 1) {
			unit *= 1024;
			k++;
		}
		step = niceStep(vmax / unit, n);
		for (i = 0; out.length < 30; i++) {
			out.push({ v: i * step * unit,
				label: +(i * step).toFixed(6) + ' ' + u[k] });
			if (i * step * unit >= vmax)
				break;
		}
		return out;
	}

	/* The processes, in order of their first snapshot, each with its
	 * snapshots sorted by time: [{pid, comm, cmdline, exit, snaps}]. */
	function processes() {
		var procs = {}, order = [];

		(meta.processes || []).forEach(function (p) {
			procs[p.pid] = { pid: p.pid, comm: p.comm, cmdline: p.cmdline,
				exit: p.exit_ns || 0, snaps: [] };
		});
		meta.snapshots.forEach(function (sn) {
			var p = procs[sn.pid];

			if (!p)
				p = procs[sn.pid] = { pid: sn.pid, comm: '', cmdline: '',
					exit: 0, snaps: [] };
			if (!p.snaps.length)
				order.push(p);
			p.snaps.push(sn);
		});
		order.forEach(function (p) {
			p.snaps.sort(function (x, y) { return x.time_ns - y.time_ns; });
		});
		return order;
	}

	/* The series: points at every snapshot's time and every exit up to
	 * the last snapshot; per process its value at each (p.v) and peak;
	 * the TOTAL at each. Returns { t0, t1, times, procs, total }. */
	function series() {
		var procs = processes(), times = [], seen = {};
		var t0 = Infinity, t1 = -Infinity, total;

		function addTime(t) {
			if (!seen[t]) {
				seen[t] = 1;
				times.push(t);
			}
		}
		procs.forEach(function (p) {
			p.snaps.forEach(function (sn) {
				addTime(sn.time_ns);
				t0 = Math.min(t0, sn.time_ns);
				t1 = Math.max(t1, sn.time_ns);
			});
		});
		procs.forEach(function (p) {
			if (p.exit && p.exit <= t1)
				addTime(p.exit);
		});
		times.sort(function (x, y) { return x - y; });
		total = times.map(function () { return 0; });
		procs.forEach(function (p) {
			var j = -1;

			p.peak = 0;
			p.v = times.map(function (t, i) {
				var v;

				while (j + 1 < p.snaps.length && p.snaps[j + 1].time_ns <= t)
					j++;
				v = j < 0 || (p.exit && t >= p.exit) ? 0 : p.snaps[j].rss;
				total[i] += v;
				p.peak = Math.max(p.peak, v);
				return v;
			});
		});
		/* times are told in seconds since the recording began, as the
		 * text timeline and the footer tell them */
		return { t0: t0, t1: t1 > t0 ? t1 : t0 + 1e9, times: times,
			procs: procs, total: total,
			origin: meta.start_ns && meta.start_ns <= t0 ?
				meta.start_ns : t0 };
	}

	/* The bands, bottom up: the SHOWN largest processes by peak, in
	 * their order, then one band of the others ({others: N, procs}),
	 * each with its values (v) and, once stacked, its top edge. */
	function bands(ser) {
		var shown = ser.procs.slice().sort(function (p, q) {
			return q.peak - p.peak;
		}).slice(0, SHOWN);
		var out = ser.procs.filter(function (p) {
			return shown.indexOf(p) >= 0;
		});
		var rest = ser.procs.filter(function (p) {
			return shown.indexOf(p) < 0;
		});

		out.forEach(function (p) { p.procs = [p]; });
		if (rest.length)
			out.push({ others: rest.length, procs: rest,
				v: ser.times.map(function (t, k) {
					var s = 0;

					rest.forEach(function (p) { s += p.v[k]; });
					return s;
				}) });
		return out;
	}

	/* The geometry of a W pixel wide plot of ser. */
	function geometry(ser, W) {
		var g = { W: W, H: 240, L: 74, R: 16, T: 12, B: 36,
			t0: ser.t0, t1: ser.t1, origin: ser.origin };

		g.yt = byteTicks(Math.max.apply(null, ser.total.concat([1])), 5);
		g.vmax = g.yt[g.yt.length - 1].v || 1;
		g.px = function (t) {
			return g.L + (g.W - g.L - g.R) * (t - g.t0) / (g.t1 - g.t0);
		};
		g.py = function (v) {
			return g.T + (g.H - g.T - g.B) * (1 - v / g.vmax);
		};
		return g;
	}

	/* Grid and y ticks (bytes), x ticks (seconds since the recording
	 * began, from the first snapshot on). */
	function axes(svg, g) {
		var xstep, x;

		g.yt.forEach(function (tk) {
			svg.appendChild(svgEl('line', { x1: g.L, y1: g.py(tk.v),
				x2: g.W - g.R, y2: g.py(tk.v),
				stroke: tk.v ? '#e4e4e0' : '#888' }));
			svg.appendChild(svgEl('text', { x: g.L - 6, y: g.py(tk.v) + 4,
				'text-anchor': 'end' }, tk.label));
		});
		svg.appendChild(svgEl('line', { x1: g.L, y1: g.T, x2: g.L,
			y2: g.H - g.B, stroke: '#888' }));
		xstep = niceStep((g.t1 - g.t0) / 1e9,
			Math.max(2, (g.W - g.L - g.R) / 90));
		x = Math.ceil((g.t0 - g.origin) / 1e9 / xstep - 1e-9) * xstep;
		for (; g.origin + x * 1e9 <= g.t1 + 1; x += xstep) {
			var px = g.px(g.origin + x * 1e9);

			svg.appendChild(svgEl('line', { x1: px, y1: g.H - g.B, x2: px,
				y2: g.H - g.B + 4, stroke: '#888' }));
			svg.appendChild(svgEl('text', { x: px, y: g.H - g.B + 16,
				'text-anchor': 'middle' }, +x.toFixed(6) + ' s'));
		}
	}

	/* Points of a step line through vals at times: each value holds
	 * until the next point; backwards when dir < 0. */
	function steps(g, times, vals, dir) {
		var pts = [], k;

		for (k = 0; k < times.length; k++) {
			var xa = g.px(times[k]).toFixed(1);
			var xb = g.px(k + 1 < times.length ? times[k + 1] : g.t1)
				.toFixed(1);
			var y = g.py(vals[k]).toFixed(1);

			pts.push(xa + ',' + y, xb + ',' + y);
		}
		return dir < 0 ? pts.reverse() : pts;
	}

	/* The bands stacked, and the TOTAL line on top (its points in
	 * data-times, data-values). */
	function areas(svg, g, ser, bs) {
		var base = ser.times.map(function () { return 0; });

		bs.forEach(function (b, n) {
			var top = base.map(function (v, k) { return v + b.v[k]; });

			b.colour = b.others ? '#b8b8b2' : 'hsl(' +
				((ctx.pidIndex(b.pid, n) * 67 + 200) % 360) + ',55%,62%)';
			svg.appendChild(svgEl('polygon', { fill: b.colour,
				points: steps(g, ser.times, top, 1).concat(
					steps(g, ser.times, base, -1)).join(' ') }));
			b.top = top;
			base = top;
		});
		svg.appendChild(svgEl('polyline', {
			points: steps(g, ser.times, ser.total, 1).join(' '),
			fill: 'none', stroke: '#24323f', 'stroke-width': 1.5,
			id: 'timeline-total', 'data-times': ser.times.join(','),
			'data-values': ser.total.join(',') }));
	}

	/* A point per snapshot on the top of its band. */
	function points(svg, g, ser, bs) {
		bs.forEach(function (b) {
			b.procs.forEach(function (p) {
				p.snaps.forEach(function (sn) {
					var k = ser.times.indexOf(sn.time_ns);
					var c = svgEl('circle', { cx: g.px(sn.time_ns),
						cy: g.py(b.top[k]), r: sn.chosen ? 5 : 2.5,
						fill: sn.chosen ? '#d9480f' : '#24323f' });

					c.appendChild(svgEl('title', {}, 'pid ' + p.pid + ' ' +
						p.comm + ' at ' + ((sn.time_ns - g.origin) / 1e9)
						.toFixed(3) + ' s: RSS ' + human(sn.rss) +
						(sn.chosen ? ' (reported)' : '')));
					svg.appendChild(c);
				});
			});
		});
	}

	/* Hovering the plot tells what each process held at that time. */
	function hover(svg, g, ser) {
		svg.addEventListener('mousemove', function (ev) {
			var r = svg.getBoundingClientRect();
			var t = g.t0 + (ev.clientX - r.left - g.L) /
				(g.W - g.L - g.R) * (g.t1 - g.t0);
			var k = -1, txt;

			while (k + 1 < ser.times.length && ser.times[k + 1] <= t)
				k++;
			ev.stopPropagation();
			if (k < 0) {
				ctx.hideTip();
				return;
			}
			txt = 'at ' + ((ser.times[k] - g.origin) / 1e9).toFixed(3) +
				' s: TOTAL ' + human(ser.total[k]);
			ser.procs.forEach(function (p) {
				if (p.v[k])
					txt += '\n  pid ' + p.pid + ' ' + p.comm + ': ' +
						human(p.v[k]);
			});
			ctx.showTip(ev, txt);
		});
	}

	/* A swatch and a name per band, with its peak. */
	function legend(ser, bs) {
		var box = el('div', { id: 'timeline-legend' });

		function item(colour, text, title, kind) {
			var it = el('span', { 'class': 'item' });
			var sw = el('span', { 'class': kind ? 'sw ' + kind : 'sw' });

			sw.style.background = colour;
			it.appendChild(sw);
			it.appendChild(document.createTextNode(text));
			if (title)
				it.title = title;
			box.appendChild(it);
		}
		item('#24323f', 'TOTAL (peak ' + human(Math.max.apply(null,
			ser.total)) + ')', 'the sum over the processes alive at ' +
			'that time', 'line');
		bs.forEach(function (b) {
			if (b.others)
				item(b.colour, b.others + ' other processes', '');
			else
				item(b.colour, b.pid + ' ' + (b.comm || '?') + ' (peak ' +
					human(b.peak) + ')', b.cmdline);
		});
		item('#d9480f', 'the reported snapshot', '', 'dot');
		return box;
	}

	/* Draw the timeline at the end of section sec, as wide as it is
	 * (again on a resize: the old one is replaced). */
	return function drawTimeline(sec) {
		var ser = series(), bs = bands(ser);
		var g = geometry(ser, Math.max(320, sec.clientWidth - 2));
		var svg = svgEl('svg', { width: g.W, height: g.H, id: 'timeline-svg',
			viewBox: '0 0 ' + g.W + ' ' + g.H });

		['timeline-svg', 'timeline-legend'].forEach(function (id) {
			var old = document.getElementById(id);

			if (old)
				old.parentNode.removeChild(old);
		});
		axes(svg, g);
		areas(svg, g, ser, bs);
		points(svg, g, ser, bs);
		hover(svg, g, ser);
		sec.appendChild(svg);
		sec.appendChild(legend(ser, bs));
	};
};
