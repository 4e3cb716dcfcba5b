// pf-svg.mjs: drive pf-svg's SVG in headless Chromium the way a person
// would: click a frame, reset the zoom, Ctrl-F and type a regex into the
// prompt, toggle ignore-case, reload a URL that carries the view, and time
// click-zooms and an unzoom on a 30k-frame graph, checking that each one
// changed the view.
//
//   node tests/browser/pf-svg.mjs PF_SVG_BINARY CASE...
//   CASE: zoom | search | url | hover | timing
//
// One browser serves every case (each in a context of its own).  Prints
// "# case CASE" before each case's checks, one "ok"/"not ok" line per
// check, and exits 1 when any failed.
import { chromium } from "playwright-core";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [pfsvg, ...which] = process.argv.slice(2);
if (!pfsvg || which.length === 0) {
	console.error("usage: node pf-svg.mjs PF_SVG_BINARY zoom|search|url|hover|timing...");
	process.exit(2);
}
const CHROMIUM = process.env.PF_CHROMIUM || "/usr/bin/chromium";
const work = mkdtempSync(join(tmpdir(), "pf-svg-browser-"));
let failed = 0;

function check(cond, what, detail) {
	console.log(`${cond ? "ok" : "not ok"} - ${what}${cond ? "" : ": " + detail}`);
	if (!cond) failed++;
}

function render(folded, args = []) {
	const r = spawnSync(pfsvg, args, { input: folded, maxBuffer: 1 << 30 });
	if (r.status !== 0)
		throw new Error(`pf-svg exited ${r.status}: ${r.stderr}`);
	const path = join(work, `g${Math.random().toString(36).slice(2)}.svg`);
	writeFileSync(path, r.stdout);
	return path;
}

let browser = null;

async function withPage(fn) {
	browser ??= await chromium.launch({
		executablePath: CHROMIUM,
		headless: true,
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
			"--no-first-run", "--disable-background-networking",
			"--disable-component-update", "--disable-sync"],
	});
	const ctx = await browser.newContext();
	try {
		const page = await ctx.newPage();
		await fn(page);
	} finally {
		await ctx.close();
	}
}

// The frame <g> whose tooltip starts with "name (".
const frame = (page, name) =>
	page.locator("#frames > *").filter({ has: page.locator(`title:text-matches("^${name} \\\\(")`) }).first();

async function geom(page, name) {
	return frame(page, name).evaluate((g) => {
		const r = g.querySelector("rect"), b = r.getBoundingClientRect();
		const round = (v) => Math.round(v * 10) / 10;
		// On screen: the graph area is x 10 to 1190; the rest is clipped.
		const cx = Math.min(Math.max((b.left + b.right) / 2, 11), 1189);
		const hit = document.elementFromPoint(cx, (b.top + b.bottom) / 2);
		return {
			x: round(b.left), w: round(b.width),
			cls: g.getAttribute("class") || "",
			shown: b.right > 10.5 && b.left < 1189.5 && hit !== null && g.contains(hit),
			fill: r.getAttribute("fill"),
			label: g.querySelector("text").textContent,
		};
	});
}

// main (100) -> a (50) -> b (30), c (20); main -> d (50)
const SMALL = "main;a;b 30\nmain;a;c 20\nmain;d 50\n";

const cases = {
	async zoom() {
		const url = "file://" + render(SMALL);
		await withPage(async (page) => {
			await page.goto(url);
			const before = await geom(page, "a");
			check(before.w === 590 && before.x === 10, "frame a starts at half the width",
				JSON.stringify(before));
			await frame(page, "a").locator("rect").click();
			const a = await geom(page, "a"), b = await geom(page, "b"),
				c = await geom(page, "c"), d = await geom(page, "d"),
				main = await geom(page, "main");
			check(a.x === 10 && a.w === 1180, "a clicked frame fills the width", JSON.stringify(a));
			check(b.x === 10 && b.w === 708, "its child b scales to 30/50 of the width", JSON.stringify(b));
			check(c.x === 718 && c.w === 472, "its child c follows b", JSON.stringify(c));
			check(!d.shown && d.x >= 1190, "the sibling d hides (moved out of the clipped view)", JSON.stringify(d));
			check(main.shown && main.cls.includes("parent") && main.x <= 10 && main.x + main.w >= 1190,
				"the ancestor main stays, dimmed and full width", JSON.stringify(main));
			check(await page.locator("#unzoom").evaluate((e) => getComputedStyle(e).display !== "none"),
				"Reset Zoom appears", "hidden");
			check(/#z=2$/.test(page.url()), "the zoom is kept in the URL", page.url());
			await page.locator("#unzoom").click();
			const a2 = await geom(page, "a"), d2 = await geom(page, "d"), m2 = await geom(page, "main");
			check(a2.w === 590 && a2.x === 10, "reset restores a", JSON.stringify(a2));
			check(d2.shown && d2.w === 590 && d2.x === 600, "reset shows d again", JSON.stringify(d2));
			check(!m2.cls.includes("parent"), "reset undims main", JSON.stringify(m2));
			check(!page.url().includes("#"), "reset clears the URL state", page.url());
			// A dimmed ancestor zooms back out to itself.
			await frame(page, "b").locator("rect").click();
			await frame(page, "a").locator("rect").click();
			const b3 = await geom(page, "b"), a3 = await geom(page, "a");
			check(a3.w === 1180 && a3.shown && !a3.cls.includes("parent") && b3.w === 708,
				"clicking a dimmed ancestor zooms to it", JSON.stringify([a3, b3]));
		});
		// Coordinates are written rounded to 0.1 px; zoomed 92 times, a
		// neighbour's rounded edge would cover 4 px of the view's edge.
		let lines = [];
		for (let i = 0; i < 300; i++)
			lines.push(`main;s${i % 10};t${i % 100};u${i}_a;u${i}_b ${1 + (i % 7)}`);
		await withPage(async (page) => {
			await page.goto("file://" + render(lines.join("\n") + "\n"));
			await frame(page, "t13").locator("rect").click();
			const edges = await page.evaluate(() => {
				const who = (x, y) => {
					const e = document.elementFromPoint(x, y), g = e && e.closest("#frames > *");
					return g ? g.querySelector("title").textContent.split(" ")[0] : null;
				};
				const r = [...document.querySelectorAll("#frames > *")]
					.find((g) => g.querySelector("title").textContent.startsWith("t13 ("))
					.querySelector("rect").getBoundingClientRect();
				const y = (r.top + r.bottom) / 2;
				return [who(10.5, y), who(1189.5, y), who(1189.5, y - 16), who(1189.5, y - 32)];
			});
			check(edges.join(",") === "t13,t13,u213_a,u213_b",
				"no neighbour shows at the edges of a 92x zoom", edges.join(","));
		});
	},

	async search() {
		const url = "file://" + render(SMALL);
		await withPage(async (page) => {
			await page.goto(url);
			let asked = null;
			page.on("dialog", (dlg) => { asked = dlg.type(); dlg.accept(page._term); });
			const find = async (term, keys = "Control+f") => {
				page._term = term;
				await page.keyboard.press(keys);
				await page.waitForTimeout(50);
			};
			await find("^[bc]$");
			check(asked === "prompt", "Ctrl-F opens the search prompt", String(asked));
			const b = await geom(page, "b"), c = await geom(page, "c"), a = await geom(page, "a");
			check(b.fill === "rgb(230,0,230)" && c.fill === "rgb(230,0,230)",
				"matching frames are recoloured", JSON.stringify([b, c]));
			check(a.fill !== "rgb(230,0,230)", "a frame that does not match keeps its colour", a.fill);
			check(await page.locator("#matched").textContent() === "Matched: 50.0%",
				"Matched shows 50.0% for b and c", await page.locator("#matched").textContent());
			check(/#s=%5E%5Bbc%5D%24$/.test(page.url()), "the search is kept in the URL", page.url());
			await find("^(a|b)$", "F3");
			check(await page.locator("#matched").textContent() === "Matched: 50.0%",
				"F3 searches again; nested b inside a is not counted twice",
				await page.locator("#matched").textContent());
			check((await geom(page, "c")).fill !== "rgb(230,0,230)",
				"a new search restores frames that no longer match", (await geom(page, "c")).fill);
			await find("^D$");
			check(await page.locator("#matched").textContent() === "Matched: 0.0%",
				"the search is case-sensitive by default", await page.locator("#matched").textContent());
			await page.keyboard.press("Control+i");
			check(await page.locator("#matched").textContent() === "Matched: 50.0%",
				"Ctrl-I turns on ignore-case and re-runs the search",
				await page.locator("#matched").textContent());
			check(await page.locator("#ignorecase").evaluate((e) => e.classList.contains("show")),
				"the ic button shows it is on", "off");
			await page.locator("#search").click();
			check(await page.locator("#matched").textContent() === "" &&
				(await geom(page, "d")).fill !== "rgb(230,0,230)",
				"clicking Reset Search restores the colours", await page.locator("#matched").textContent());
		});
	},

	async url() {
		const path = render(SMALL);
		await withPage(async (page) => {
			await page.goto("file://" + path + "#z=2&s=%5Eb%24&i=1");
			const a = await geom(page, "a"), d = await geom(page, "d"), b = await geom(page, "b");
			check(a.w === 1180 && !d.shown, "a URL with z= opens zoomed", JSON.stringify([a, d]));
			check(b.fill === "rgb(230,0,230)", "a URL with s= opens with the search applied", b.fill);
			check(await page.locator("#matched").textContent() === "Matched: 30.0%",
				"Matched is relative to the whole graph", await page.locator("#matched").textContent());
			await page.goto("about:blank");
			await page.goto("file://" + path + "#z=999&s=%28");
			check((await geom(page, "d")).shown && await page.locator("#matched").textContent() === "Invalid regex",
				"a bad zoom index is ignored and a bad regex is reported",
				await page.locator("#matched").textContent());
		});
	},

	async hover() {
		const url = "file://" + render(SMALL, ["--nametype", "Fn<&>:"]);
		await withPage(async (page) => {
			await page.goto(url);
			await frame(page, "a").locator("rect").hover();
			const t = await page.locator("#details").textContent();
			check(t === "Fn<&>: a (50 samples, 50.00%)", "hovering shows the details line", t);
		});
	},

	async timing() {
		// 3,000 distinct chains of depth 10 under 10 and 100 shared frames:
		// 30,111 frames, each at least 0.39 px wide, so none is pruned.
		let lines = [];
		for (let i = 0; i < 3000; i++) {
			const chain = [];
			for (let j = 0; j < 10; j++) chain.push(`u${i}_${j}`);
			lines.push(`main;s${i % 10};t${i % 100};${chain.join(";")} 1`);
		}
		const url = "file://" + render(lines.join("\n") + "\n");
		await withPage(async (page) => {
			await page.goto(url);
			const n = await page.locator("#frames > *").count();
			check(n >= 30000, "the big graph has at least 30,000 frames", String(n));
			// Click frame name, then report the time to layout and to the
			// next frame, and what the click did: the frames group's
			// transform, where s3 and s4 are ([left, width]), and whether
			// Reset Zoom shows.
			const time = (name) => page.evaluate((nm) => new Promise((done) => {
				const byName = (x) => [...document.querySelectorAll("#frames > *")]
					.find((e) => e.querySelector("title").textContent.startsWith(x + " ("));
				const box = (x) => {
					const b = byName(x).querySelector("rect").getBoundingClientRect();
					return [Math.round(b.left * 10) / 10, Math.round(b.width * 10) / 10];
				};
				const g = byName(nm);
				const t0 = performance.now();
				g.querySelector("rect").dispatchEvent(new MouseEvent("click", { bubbles: true }));
				document.documentElement.getBoundingClientRect(); // style and layout now
				const sync = performance.now() - t0;
				requestAnimationFrame(() => setTimeout(() => done({
					sync, frame: performance.now() - t0,
					transform: document.getElementById("frames").getAttribute("transform"),
					s3: box("s3"), s4: box("s4"),
					unzoom: !document.getElementById("unzoom").classList.contains("hide"),
				}), 0));
			}), name);
			const steps = [
				["zoom to s3 (most frames hide)", "s3",
					(r) => r.transform !== null && r.s3.join() === "10,1180" && r.s4[0] >= 1190 && r.unzoom],
				["zoom to main (every frame moves)", "main",
					(r) => r.transform !== null && r.s3.join() === "364,118" && r.s4.join() === "482,118" && r.unzoom],
				["unzoom (click all)", "all",
					(r) => r.transform === null && r.s3.join() === "364,118" && !r.unzoom],
			];
			for (const [what, name, did] of steps) {
				const r = await time(name);
				console.log(`# click-zoom ${what} on ${n} frames: ${r.sync.toFixed(1)} ms to layout, ${r.frame.toFixed(1)} ms to the next frame`);
				check(Number.isFinite(r.sync) && Number.isFinite(r.frame) && r.sync >= 0 &&
					r.frame > 0 && r.sync <= r.frame,
					`${what}: the times were measured`, JSON.stringify(r));
				check(did(r), `${what}: the view changed`, JSON.stringify(r));
			}
		});
	},
};

for (const w of which) {
	if (!cases[w]) {
		console.error(`unknown case ${w}`);
		process.exit(2);
	}
}
try {
	for (const w of which) {
		console.log(`# case ${w}`);
		try {
			await cases[w]();
		} catch (e) {
			check(false, `case ${w} ran`, e.stack || String(e));
		}
	}
} finally {
	if (browser)
		await browser.close().catch(() => {});
	rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
