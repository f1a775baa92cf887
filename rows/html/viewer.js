// SPDX-License-Identifier: GPL-2.0-or-later
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
	var state = { col: meta.sort, zoom: null, flameZoom: null, re: null,
		bad: null };
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

		if (n.merged)
			return '#d6d6d2';
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

	/* A row standing for rows too small to draw apart: their sums, and
	 * them as its rows (zoom into it to see them). */
	function mergedRow(parent, rows, what) {
		var n = 0;

		rows.forEach(function (r) { n += r.others || 1; });
		var m = { name: '[' + n + ' ' + what + ']', rows: rows,
			parent: parent, depth: parent.depth + 1, merged: true };

		cols.forEach(function (c) {
			m[c.key] = 0;
			rows.forEach(function (r) {
				m[c.key] += typeof r[c.key] === 'number' ? r[c.key] : 0;
			});
		});
		return m;
	}

	/* The least area, in square pixels, a treemap box is drawn with
	 * (20 x 20): smaller rows are one box together. */
	var MIN_AREA = 400;

	/* n's children with a value, largest first, those under MIN_AREA
	 * in a w x h box merged into one, with the "[N others]" row memsz
	 * folded the smallest into. */
	function boxRows(n, w, h) {
		var kids = (n.rows || []).filter(function (c) { return val(c) > 0; });
		var sum = 0, big = [], small = [];

		kids.sort(function (a, b) { return val(b) - val(a); });
		kids.forEach(function (c) { sum += val(c); });
		kids.forEach(function (c) {
			(c.others || val(c) / sum * w * h < MIN_AREA ? small :
				big).push(c);
		});
		if (small.length < 2)
			return kids;
		return big.concat([mergedRow(n, small, 'smaller rows')]);
	}

	/* Draw n's children into box (a positioned element) of w x h, and
	 * their children inside them while there is room. */
	function drawLevel(box, n, w, h, nest) {
		var kids = boxRows(n, w, h);
		var rects;

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
			if (nest > 0 && c.rows && c.rows.length && !c.merged &&
			    r.w > 40 && r.h > 36) {
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
		m.classList.toggle('bad', !!state.bad);
		if (state.bad)
			m.dataset.invalid = state.bad;
		else
			delete m.dataset.invalid;
		if (!state.re) {
			m.textContent = '';
			delete m.dataset.value;
			return;
		}
		var mv = matchedTotal(root);

		m.dataset.value = String(mv);
		m.textContent = (state.bad ? 'not a regular expression (' +
			state.bad + '), searched as plain text: ' : '') +
			'matching rows: ' + human(mv, c.count) + ' (' +
			(v ? (100 * mv / v).toFixed(1) : '0') + '%)';
	}

	/* Search for s, a regular expression; one that is not valid is
	 * said so, and searched for as plain text. */
	function setSearch(s) {
		state.re = null;
		state.bad = null;
		if (s) {
			try {
				state.re = new RegExp(s, 'i');
			} catch (e) {
				state.bad = String(e.message || e).replace(
					/^Invalid regular expression: /, '');
				state.re = new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g,
					'\\$&'), 'i');
			}
		}
		var box = document.getElementById('search');

		if (box)
			box.classList.toggle('bad', !!state.bad);
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

	/* The narrowest frame, in pixels, drawn on its own: narrower ones of
	 * a parent are one grey frame together (click it to see them). */
	var MIN_FRAME = 4;

	/* A frame standing for frames too narrow to draw apart. */
	function mergedFrame(parent, list) {
		var m = { name: '[' + list.length + ' narrower frames]', kids: {},
			list: list, parent: parent, v: {}, merged: true };

		cols.forEach(function (c) {
			m.v[c.key] = 0;
			list.forEach(function (f) { m.v[c.key] += f.v[c.key] || 0; });
		});
		return m;
	}

	/* The frames of the flame graph zoomed to z: [frame, x, width,
	 * level] for each frame to draw, in a box W pixels wide. */
	function layoutFlame(z, W) {
		var out = [], anc = [], a;

		function frame(f, x, w, level) {
			out.push([f, x, w, level]);
		}

		/* f's frames over [x, x+w) at level: f itself, unless it stands
		 * for narrower frames (they are laid out in its place), then
		 * its callees above it */
		function sub(f, x, w, level) {
			var tot = f.v[state.col] || 0;
			var wide = [], narrow = [];
			var up = f.merged ? level : level + 1;

			if (!f.merged)
				frame(f, x, w, level);
			if (!tot)
				return;
			f.list.forEach(function (c) {
				var cv = c.v[state.col] || 0;

				if (cv > 0)
					(w * cv / tot >= MIN_FRAME ? wide : narrow).push(c);
			});
			if (narrow.length === 1)
				wide.push(narrow.pop());
			wide.sort(function (p, q) {
				return p.name < q.name ? -1 : p.name > q.name ? 1 : 0;
			});
			if (narrow.length)
				wide.push(mergedFrame(f, narrow));
			wide.forEach(function (c) {
				var cw = w * (c.v[state.col] || 0) / tot;

				if (c.merged)
					frame(c, x, cw, up);
				else
					sub(c, x, cw, up);
				x += cw;
			});
		}
		/* the zoomed frame's ancestors full width, then its subtree */
		for (a = z; a; a = a.parent)
			if (!a.merged)
				anc.unshift(a);
		anc.slice(0, z.merged ? anc.length : -1).forEach(function (f, i) {
			frame(f, 0, W, i);
		});
		sub(z, 0, W, z.merged ? anc.length : anc.length - 1);
		return out;
	}

	/* The element of frame f, of w pixels at x, top pixels down. */
	function frameDiv(f, x, w, top, z) {
		var d = el('div', { 'class': f.merged ? 'fr merged' : 'fr' },
			f.name);

		d.style.left = x + 'px';
		d.style.width = w + 'px';
		d.style.top = top + 'px';
		if (!f.merged)
			d.style.background = 'hsl(' + (20 + (hash(f.name) % 40)) +
				',85%,' + (f.name.charAt(0) === '[' ? 80 : 62) + '%)';
		if (state.re)
			d.classList.add(state.re.test(f.name) ? 'hit' : 'nohit');
		d.addEventListener('mousemove', function (ev) {
			var s, p = [];
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
		return d;
	}

	function drawFlame() {
		var box = document.getElementById('flamebox');
		var z = state.flameZoom || flameRoot, H = 17, depth = 0;
		var frames = layoutFlame(z, box.clientWidth);

		box.textContent = '';
		frames.forEach(function (t) { depth = Math.max(depth, t[3] + 1); });
		box.style.height = (depth * H + 2) + 'px';
		/* root at the bottom: callers below their callees */
		frames.forEach(function (t) {
			box.appendChild(frameDiv(t[0], t[1], t[2],
				(depth - 1 - t[3]) * H, z));
		});
	}

	function hash(s) {
		var h = 0;

		for (var i = 0; i < s.length; i++)
			h = (h * 31 + s.charCodeAt(i)) | 0;
		return Math.abs(h);
	}

	/* ---- timeline (timeline.js) ---- */

	var drawTimeline = window.memszTimeline({
		meta: meta, svgEl: svgEl, el: el, human: human, showTip: showTip,
		hideTip: hideTip,
		/* the colour index of process pid: its treemap box's when the
		 * first key is pids ("PID name" rows), else n */
		pidIndex: function (pid, n) {
			var i;

			if (rep.keys[0] !== 'pids')
				return n;
			for (i = 0; i < root.rows.length; i++)
				if (root.rows[i].name.split(' ')[0] === String(pid))
					return i;
			return n;
		}
	});

	/* ---- the address: #col=KEY&q=REGEX ---- */

	function applyHash() {
		var col = state.col, q = '';
		var sel = document.getElementById('col');
		var search = document.getElementById('search');

		location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
			var i = kv.indexOf('=');
			var k = i < 0 ? kv : kv.slice(0, i);
			var v = i < 0 ? '' : kv.slice(i + 1);

			try {
				v = decodeURIComponent(v);
			} catch (e) {
				/* a malformed escape: take the text as it is */
			}
			if (k === 'col' && cols.some(function (c) {
				return c.key === v;
			}))
				col = v;
			else if (k === 'q')
				q = v;
		});
		if (col !== state.col)
			state.flameZoom = null;
		state.col = col;
		sel.value = col;
		search.value = q;
		setSearch(q);
	}

	/* Keep the address in step with the page, so that it can be shared
	 * (replaceState fires no hashchange). */
	function saveHash() {
		var h = '#col=' + encodeURIComponent(state.col);
		var q = document.getElementById('search').value;

		if (q)
			h += '&q=' + encodeURIComponent(q);
		try {
			history.replaceState(null, '', h);
		} catch (e) {
			/* some browsers refuse it on file:// pages: no matter */
		}
	}

	/* ---- page ---- */

	function redraw() {
		drawSummary();
		drawTreemap();
		if (flameRoot)
			drawFlame();
	}

	/* Everything, the timeline too (its width is the window's). */
	function redrawAll() {
		var ts = document.getElementById('timeline');

		redraw();
		if (ts)
			drawTimeline(ts);
	}

	/* The header: title, column switch, search box. */
	function buildHeader() {
		var hdr = el('header');
		var sel = el('select', { id: 'col' });
		var search = el('input', { id: 'search', type: 'search',
			placeholder: 'search labels (regular expression)' });
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
			saveHash();
			redraw();
		});
		lab = el('label', {}, 'column ');
		lab.appendChild(sel);
		hdr.appendChild(lab);
		hdr.appendChild(search);
		search.addEventListener('input', function () {
			saveHash();
			setSearch(search.value);
		});
		document.body.appendChild(hdr);
	}

	function build() {
		var mainEl = el('main');
		var sum = el('div', { id: 'summary' });

		buildHeader();
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

			ts.appendChild(el('h2', {}, 'Timeline: RSS the processes ' +
				'held at each moment, stacked (' + meta.snapshots.length +
				' snapshots)'));
			ts.appendChild(el('div', { 'class': 'hint' }, 'A process ' +
				'holds what its latest snapshot says, from its first ' +
				'snapshot until it exits; hover for each process.'));
			mainEl.appendChild(ts);
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
		window.addEventListener('resize', redrawAll);

		/* #col=pss&q=REGEX in the address selects a column and a search,
		 * when the page opens and whenever the address changes */
		applyHash();
		window.addEventListener('hashchange', applyHash);
		if (document.getElementById('timeline'))
			drawTimeline(document.getElementById('timeline'));
		document.body.dataset.ready = '1';
	}

	build();
})();
