/* memsz html viewer: a treemap of the report's rows, a column switch, a
 * label search, a flame graph for the callers key and a timeline of the
 * recording's snapshots. Plain DOM and SVG, no library: the page must open
 * offline from one file. The data is two JSON blocks written by memsz:
 * "memsz-report" (the json format's tree) and "memsz-meta". */
(function () {
	'use strict';

	var rep = JSON.parse(document.getElementById('memsz-report').textContent);
	var meta = JSON.parse(document.getElementById('memsz-meta').textContent);
	var cols = meta.columns;
	var state = { col: meta.sort, zoom: null, flameZoom: null, re: null };
	var tip;

	function el(tag, attrs, text) {
		var e = document.createElement(tag);
		var k;

		for (k in attrs || {})
			e.setAttribute(k, attrs[k]);
		if (text !== undefined)
			e.textContent = text;
		return e;
	}

	function svgEl(tag, attrs, text) {
		var e = document.createElementNS('http://www.w3.org/2000/svg', tag);
		var k;

		for (k in attrs || {})
			e.setAttribute(k, attrs[k]);
		if (text !== undefined)
			e.textContent = text;
		return e;
	}

	function colDef(key) {
		for (var i = 0; i < cols.length; i++)
			if (cols[i].key === key)
				return cols[i];
		return cols[0];
	}

	/* Bytes as memsz's table prints them: binary units. */
	function human(v, count) {
		var u = ['', 'Ki', 'Mi', 'Gi', 'Ti'];
		var i = 0;

		if (count)
			return String(v);
		while (Math.abs(v) >= 1024 && i < u.length - 1) {
			v /= 1024;
			i++;
		}
		return (i ? v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0) : String(
			Math.round(v * 100) / 100)) + u[i] + (i ? 'B' : ' B');
	}

	function val(n) {
		var v = n[state.col];

		return typeof v === 'number' ? v : 0;
	}

	/* The tree: rows with parent links and their key level. */
	var root = { name: 'TOTAL', rows: rep.rows, depth: 0, parent: null };
	(function link(n) {
		(n.rows || []).forEach(function (c) {
			c.parent = n;
			c.depth = n.depth + 1;
			link(c);
		});
	})(root);
	cols.forEach(function (c) {
		root[c.key] = rep.total[c.key];
	});
	state.zoom = root;

	function pathOf(n) {
		var p = [];

		for (; n && n.parent; n = n.parent)
			p.unshift(n.name);
		return p;
	}

	function matches(n) {
		return state.re && state.re.test(n.name);
	}

	/* n or a row under it matches the search */
	function subtreeMatches(n) {
		return matches(n) || (n.rows || []).some(subtreeMatches);
	}

	/* Hue by top-level row, lightness by depth. */
	function colour(n) {
		var top = n;
		var idx;

		while (top.parent && top.parent !== root)
			top = top.parent;
		idx = root.rows.indexOf(top);
		return 'hsl(' + ((idx * 67 + 200) % 360) + ',' +
			(top.name.charAt(0) === '[' ? 25 : 55) + '%,' +
			Math.min(88, 62 + 8 * (n.depth - 1)) + '%)';
	}

	function tipText(n) {
		var s = pathOf(n).join('\n  > ') + '\n';

		cols.forEach(function (c) {
			if (typeof n[c.key] === 'number')
				s += '\n' + c.header + ': ' + human(n[c.key], c.count) +
					(c.count ? '' : ' (' + n[c.key] + ' bytes)');
		});
		if (n.aliases)
			s += '\naliases: ' + n.aliases.join(', ');
		return s;
	}

	function showTip(ev, text) {
		tip.textContent = text;
		tip.style.display = 'block';
		tip.style.left = Math.min(ev.clientX + 14,
			window.innerWidth - tip.offsetWidth - 4) + 'px';
		tip.style.top = Math.min(ev.clientY + 14,
			window.innerHeight - tip.offsetHeight - 4) + 'px';
	}

	function hideTip() {
		tip.style.display = 'none';
	}

	/* Squarified treemap: rectangles for values (sorted, descending)
	 * filling [x, x+w) x [y, y+h), rows laid along the shorter side. */
	function squarify(values, x, y, w, h) {
		var out = [], total = 0, i = 0, n = values.length, scale;

		values.forEach(function (v) { total += v; });
		if (total <= 0 || w <= 0 || h <= 0)
			return out;
		scale = w * h / total;
		while (i < n) {
			var side = Math.min(w, h), row = [], sum = 0;
			var best = Infinity, lo = Infinity, hi = 0;

			while (i < n) {
				var a = values[i] * scale, s = sum + a;
				var nlo = Math.min(lo, a), nhi = Math.max(hi, a);
				var worst = Math.max(side * side * nhi / (s * s),
					s * s / (side * side * nlo));

				if (row.length && worst > best)
					break;
				row.push(a);
				sum = s;
				lo = nlo;
				hi = nhi;
				best = worst;
				i++;
			}
			var thick = sum / side, pos = 0;

			row.forEach(function (a) {
				var len = a / thick;

				if (w >= h)
					out.push({ x: x, y: y + pos, w: thick, h: len });
				else
					out.push({ x: x + pos, y: y, w: len, h: thick });
				pos += len;
			});
			if (w >= h) {
				x += thick;
				w -= thick;
			} else {
				y += thick;
				h -= thick;
			}
		}
		return out;
	}

	/* A box's label: a call stack by its innermost frame (the whole
	 * stack is in the tooltip and the flame graph). */
	function shortName(n) {
		var i = n.name.lastIndexOf(';');

		if (n.depth - 1 !== callersLevel || i < 0)
			return n.name;
		return '\u2026' + n.name.slice(i + 1);
	}

	/* Draw n's children into box (a positioned element) of w x h, and
	 * their children inside them while there is room. */
	function drawLevel(box, n, w, h, nest) {
		var kids = (n.rows || []).filter(function (c) { return val(c) > 0; });
		var rects;

		kids.sort(function (a, b) { return val(b) - val(a); });
		rects = squarify(kids.map(val), 0, 0, w, h);
		kids.forEach(function (c, i) {
			var r = rects[i];
			var d = el('div', { 'class': 'tm' });
			var lbl = el('div', { 'class': 'lbl' },
				shortName(c) + ' ' +
				human(val(c), colDef(state.col).count));

			if (!r || r.w < 1 || r.h < 1)
				return;
			d.style.left = r.x + 'px';
			d.style.top = r.y + 'px';
			d.style.width = r.w + 'px';
			d.style.height = r.h + 'px';
			d.style.background = colour(c);
			if (state.re)
				d.classList.add(matches(c) ? 'hit' :
					subtreeMatches(c) ? 'under' : 'nohit');
			d.appendChild(lbl);
			d.addEventListener('mousemove', function (ev) {
				ev.stopPropagation();
				showTip(ev, tipText(c));
			});
			d.addEventListener('click', function (ev) {
				ev.stopPropagation();
				zoomTo(c.rows && c.rows.length ? c : c.parent);
			});
			box.appendChild(d);
			if (nest > 0 && c.rows && c.rows.length && r.w > 40 &&
			    r.h > 36) {
				var inner = el('div', { 'class': 'tm-in' });

				inner.style.position = 'absolute';
				inner.style.left = '2px';
				inner.style.top = '16px';
				d.classList.add('group');
				d.appendChild(inner);
				drawLevel(inner, c, r.w - 6, r.h - 20, nest - 1);
			}
		});
	}

	function drawCrumbs() {
		var nav = document.getElementById('crumbs');
		var chain = [];
		var n;

		nav.textContent = '';
		for (n = state.zoom; n; n = n.parent)
			chain.unshift(n);
		chain.forEach(function (c, i) {
			if (i)
				nav.appendChild(el('span', { 'class': 'sep' }, '>'));
			if (c === state.zoom) {
				nav.appendChild(el('span', {}, c.name + ' (' +
					human(val(c), colDef(state.col).count) + ')'));
			} else {
				var a = el('a', {}, c.name);

				a.addEventListener('click', function () { zoomTo(c); });
				nav.appendChild(a);
			}
		});
	}

	function drawTreemap() {
		var box = document.getElementById('treemap');

		box.textContent = '';
		drawLevel(box, state.zoom, box.clientWidth, box.clientHeight, 2);
		drawCrumbs();
	}

	function zoomTo(n) {
		state.zoom = n || root;
		drawTreemap();
	}

	/* ---- search ---- */

	/* Sum of the rows that match, each counted once (not again under a
	 * matching parent). */
	function matchedTotal(n) {
		var s = 0;

		(n.rows || []).forEach(function (c) {
			s += matches(c) ? val(c) : matchedTotal(c);
		});
		return s;
	}

	function drawSummary() {
		var c = colDef(state.col);
		var t = document.getElementById('total');
		var m = document.getElementById('matched');
		var v = val(root);

		t.dataset.col = c.key;
		t.dataset.value = String(v);
		t.textContent = human(v, c.count);
		document.getElementById('total-col').textContent = c.header;
		document.getElementById('total-exact').textContent =
			c.count ? '' : '(' + v + ' bytes)';
		if (!state.re) {
			m.textContent = '';
			return;
		}
		var mv = matchedTotal(root);

		m.dataset.value = String(mv);
		m.textContent = 'matching rows: ' + human(mv, c.count) + ' (' +
			(v ? (100 * mv / v).toFixed(1) : '0') + '%)';
	}

	function setSearch(s) {
		state.re = null;
		if (s) {
			try {
				state.re = new RegExp(s, 'i');
			} catch (e) {
				state.re = new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g,
					'\\$&'), 'i');
			}
		}
		redraw();
	}

	/* ---- flame graph (callers) ---- */

	var callersLevel = rep.keys.indexOf('callers');
	var flameRoot = null;

	/* Stacks: every leaf row's key path, the callers level split into
	 * its frames (outermost first), merged into one tree of frames. */
	function buildFlame() {
		var fr = { name: 'all', kids: {}, list: [], parent: null, v: {} };

		function add(n, frames) {
			var cur = fr;
			var k;

			frames.forEach(function (f) {
				var next = cur.kids[f];

				if (!next) {
					next = { name: f, kids: {}, list: [], parent: cur,
						v: {} };
					cur.kids[f] = next;
					cur.list.push(next);
				}
				cur = next;
			});
			for (; cur; cur = cur.parent)
				for (k = 0; k < cols.length; k++)
					cur.v[cols[k].key] = (cur.v[cols[k].key] || 0) +
						(n[cols[k].key] || 0);
		}
		(function walk(n, frames) {
			if (!n.rows || !n.rows.length) {
				add(n, frames);
				return;
			}
			n.rows.forEach(function (c) {
				var f = c.depth - 1 === callersLevel ?
					c.name.split(';') : [c.name];

				walk(c, frames.concat(f));
			});
		})(root, []);
		return fr;
	}

	function flameDepth(f) {
		var d = 0;

		f.list.forEach(function (c) { d = Math.max(d, flameDepth(c)); });
		return d + 1;
	}

	function drawFlame() {
		var box = document.getElementById('flamebox');
		var W = box.clientWidth, H = 17;
		var z = state.flameZoom || flameRoot;
		var depth = flameDepth(flameRoot);
		var anc = [], a;

		box.textContent = '';
		box.style.height = (depth * H + 2) + 'px';
		for (a = z; a; a = a.parent)
			anc.unshift(a);

		function frame(f, x, w, level) {
			var d;

			if (w < 0.5)
				return;
			d = el('div', { 'class': 'fr' }, f.name);
			d.style.left = x + 'px';
			d.style.width = w + 'px';
			/* root at the bottom: callers below their callees */
			d.style.top = ((depth - 1 - level) * H) + 'px';
			d.style.background = 'hsl(' + (20 + (hash(f.name) % 40)) +
				',85%,' + (f.name.charAt(0) === '[' ? 80 : 62) + '%)';
			if (state.re)
				d.classList.add(state.re.test(f.name) ? 'hit' : 'nohit');
			d.addEventListener('mousemove', function (ev) {
				var s = f.name + '\n', p = [];
				var g;

				for (g = f; g && g.parent; g = g.parent)
					p.unshift(g.name);
				s = p.join('\n  > ') + '\n';
				cols.forEach(function (c) {
					s += '\n' + c.header + ': ' +
						human(f.v[c.key] || 0, c.count);
				});
				showTip(ev, s);
			});
			d.addEventListener('click', function () {
				state.flameZoom = f === z ? z.parent : f;
				drawFlame();
			});
			box.appendChild(d);
		}

		function sub(f, x, w, level) {
			var tot = f.v[state.col] || 0;

			frame(f, x, w, level);
			if (!tot)
				return;
			f.list.slice().sort(function (p, q) {
				return p.name < q.name ? -1 : p.name > q.name ? 1 : 0;
			}).forEach(function (c) {
				var cw = w * (c.v[state.col] || 0) / tot;

				if ((c.v[state.col] || 0) > 0)
					sub(c, x, cw, level + 1);
				x += cw;
			});
		}
		/* the zoomed frame's ancestors full width, then its subtree */
		anc.slice(0, -1).forEach(function (f, i) { frame(f, 0, W, i); });
		sub(z, 0, W, anc.length - 1);
	}

	function hash(s) {
		var h = 0;

		for (var i = 0; i < s.length; i++)
			h = (h * 31 + s.charCodeAt(i)) | 0;
		return Math.abs(h);
	}

	/* ---- timeline: each process's RSS at each snapshot ---- */

	function drawTimeline(sec) {
		var snaps = meta.snapshots;
		var W = 900, H = 220, L = 70, R = 20, T = 12, B = 34;
		var t0 = Infinity, t1 = -Infinity, vmax = 0;
		var pids = {};
		var svg = svgEl('svg', { width: W, height: H,
			viewBox: '0 0 ' + W + ' ' + H, id: 'timeline-svg' });

		snaps.forEach(function (s) {
			t0 = Math.min(t0, s.time_ns);
			t1 = Math.max(t1, s.time_ns);
			vmax = Math.max(vmax, s.rss);
			(pids[s.pid] = pids[s.pid] || []).push(s);
		});
		if (t1 === t0)
			t1 = t0 + 1;
		vmax = vmax || 1;

		function px(t) { return L + (W - L - R) * (t - t0) / (t1 - t0); }
		function py(v) { return T + (H - T - B) * (1 - v / vmax); }

		svg.appendChild(svgEl('line', { x1: L, y1: H - B, x2: W - R,
			y2: H - B, stroke: '#888' }));
		svg.appendChild(svgEl('line', { x1: L, y1: T, x2: L, y2: H - B,
			stroke: '#888' }));
		svg.appendChild(svgEl('text', { x: L - 6, y: T + 8,
			'text-anchor': 'end' }, human(vmax)));
		svg.appendChild(svgEl('text', { x: L - 6, y: H - B,
			'text-anchor': 'end' }, '0'));
		svg.appendChild(svgEl('text', { x: L, y: H - 10 }, '0 s'));
		svg.appendChild(svgEl('text', { x: W - R, y: H - 10,
			'text-anchor': 'end' }, ((t1 - t0) / 1e9).toFixed(2) + ' s'));
		Object.keys(pids).forEach(function (pid, i) {
			var hue = (i * 97 + 210) % 360;
			var pts = pids[pid].map(function (s) {
				return px(s.time_ns).toFixed(1) + ',' + py(s.rss).toFixed(1);
			}).join(' ');

			svg.appendChild(svgEl('polyline', { points: pts, fill: 'none',
				stroke: 'hsl(' + hue + ',60%,40%)', 'stroke-width': 2 }));
			pids[pid].forEach(function (s) {
				var c = svgEl('circle', { cx: px(s.time_ns), cy: py(s.rss),
					r: s.chosen ? 5 : 3,
					fill: s.chosen ? '#d9480f' : 'hsl(' + hue + ',60%,40%)' });

				c.appendChild(svgEl('title', {}, 'pid ' + pid + ' at ' +
					((s.time_ns - t0) / 1e9).toFixed(3) + ' s: RSS ' +
					human(s.rss) + (s.chosen ? ' (reported)' : '')));
				svg.appendChild(c);
			});
		});
		sec.appendChild(svg);
	}

	/* ---- page ---- */

	function redraw() {
		drawSummary();
		drawTreemap();
		if (flameRoot)
			drawFlame();
	}

	function build() {
		var hdr = el('header');
		var sel = el('select', { id: 'col' });
		var search = el('input', { id: 'search', type: 'search',
			placeholder: 'search labels (regular expression)' });
		var mainEl = el('main');
		var sum = el('div', { id: 'summary' });
		var lab;

		hdr.appendChild(el('h1', {}, 'memsz'));
		hdr.appendChild(el('span', { 'class': 'title' }, meta.title));
		cols.forEach(function (c) {
			var o = el('option', { value: c.key }, c.header);

			if (c.key === state.col)
				o.selected = true;
			sel.appendChild(o);
		});
		sel.addEventListener('change', function () {
			state.col = sel.value;
			state.flameZoom = null;
			redraw();
		});
		lab = el('label', {}, 'column ');
		lab.appendChild(sel);
		hdr.appendChild(lab);
		hdr.appendChild(search);
		search.addEventListener('input', function () {
			setSearch(search.value);
		});
		document.body.appendChild(hdr);

		sum.appendChild(el('span', { id: 'total-col' }));
		sum.appendChild(document.createTextNode(' total: '));
		sum.appendChild(el('b', { id: 'total' }));
		sum.appendChild(document.createTextNode(' '));
		sum.appendChild(el('span', { id: 'total-exact' }));
		sum.appendChild(document.createTextNode(' · keys: ' +
			(rep.keys.join(' > ') || '(none)')));
		sum.appendChild(el('span', { id: 'matched' }));
		mainEl.appendChild(sum);
		if (callersLevel >= 0) {
			var fs = el('section', { id: 'flame' });

			fs.appendChild(el('h2', {}, 'Flame graph: the call stacks ' +
				'that made pages resident (outermost at the bottom)'));
			fs.appendChild(el('div', { id: 'flamebox' }));
			fs.appendChild(el('div', { 'class': 'hint' }, 'Click a ' +
				'frame to zoom into it, again to zoom out.'));
			mainEl.appendChild(fs);
			flameRoot = buildFlame();
		}
		mainEl.appendChild(el('h2', {}, 'Treemap: ' +
			(rep.keys.join(' > ') || 'total')));
		mainEl.appendChild(el('nav', { id: 'crumbs' }));
		mainEl.appendChild(el('div', { id: 'treemap' }));
		mainEl.appendChild(el('div', { 'class': 'hint' }, 'Click a box ' +
			'to zoom into it, the path above to zoom out; hover for ' +
			'every column.'));
		if (meta.snapshots.length > 1) {
			var ts = el('section', { id: 'timeline' });

			ts.appendChild(el('h2', {}, 'Timeline: RSS of each process ' +
				'at each of the ' + meta.snapshots.length +
				' snapshots (the reported one larger, in orange)'));
			mainEl.appendChild(ts);
			drawTimeline(ts);
		}
		if (rep.notes && rep.notes.length) {
			var ns = el('section', { id: 'notes' });
			var ul = el('ul');

			ns.appendChild(el('h2', {}, 'Notes'));
			rep.notes.forEach(function (n) { ul.appendChild(el('li', {}, n)); });
			ns.appendChild(ul);
			mainEl.appendChild(ns);
		}
		document.body.appendChild(mainEl);
		tip = el('div', { id: 'tip' });
		document.body.appendChild(tip);
		document.addEventListener('mousemove', hideTip);
		window.addEventListener('resize', redraw);

		/* #col=pss&q=REGEX in the address selects a column and a search */
		location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
			var p = kv.split('=');
			var v = p[1] || '';

			try {
				v = decodeURIComponent(v);
			} catch (e) {
				/* a malformed escape: take the text as it is */
			}

			if (p[0] === 'col' && cols.some(function (c) {
				return c.key === v;
			})) {
				state.col = v;
				sel.value = v;
			} else if (p[0] === 'q') {
				search.value = v;
			}
		});
		setSearch(search.value);
		document.body.dataset.ready = '1';
	}

	build();
})();
