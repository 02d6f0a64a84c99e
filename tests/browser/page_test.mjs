// The page of `rag serve` in a real browser: Debian's headless Chromium, driven by playwright-core
// (fetched by scripts/setup.sh, pinned by integrity), against the real binary on loopback over a
// copy of the fixture repository indexed by two pipelines (bm25 and tfidf).
//   node tests/browser/page_test.mjs --rag build/release/rag --fixtures tests/fixtures \
//        --playwright .deps/playwright-core --out build/release/page-screenshots \
//        --warning-plugins build/release/tests/bad_plugins/throwing_retriever
// Asks a question, waits for the streamed answer, opens each [n] on the card of the right file
// with the span's own characters marked, copies a location, runs side by side, follows a shared
// link, works from the keyboard alone and at a phone's width, asks for a token when the server
// wants one, shows what the retriever warned of, and says so when the server is gone. Screenshots go to --out. Bounded: 180 s.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const options = {};
for (let i = 2; i < process.argv.length; i += 2) options[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
for (const name of ['rag', 'fixtures', 'playwright', 'out', 'warning-plugins'])
  if (!options[name]) throw new Error(`--${name} is required`);
const chromiumPath = process.env.RAG_CHROMIUM || '/usr/bin/chromium';
if (!fs.existsSync(chromiumPath)) throw new Error(`${chromiumPath} not found: run scripts/setup.sh (it installs chromium)`);
if (!fs.existsSync(options.playwright)) throw new Error(`${options.playwright} not found: run scripts/setup.sh (it fetches playwright-core)`);
const { chromium } = createRequire(import.meta.url)(path.resolve(options.playwright));

const deadline = setTimeout(() => {
  console.error('FAIL: the browser test took longer than 180 s');
  process.exit(1);
}, 180_000);

const QUESTION = 'How do I load quantized checkpoints?';
const PARTIAL_WARNING = 'shard 2 of 2 did not answer: results come from shard 1';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rag-page-'));
const servers = [];
let browser;

// --- the project under test -----------------------------------------------------------------

function rag(args, env = {}) {
  const run = spawnSync(path.resolve(options.rag), args, { cwd: work, env: { ...process.env, ...env }, encoding: 'utf8' });
  assert.equal(run.status, 0, `rag ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

// `rag serve --port 0 ARGS`; resolves with its address once it says where it listens.
function serve(args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(path.resolve(options.rag), ['serve', '--port', '0', ...args],
      { cwd: work, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    servers.push(child);
    let err = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text) => {
      err += text;
      const match = /^listening on (http:\/\/\S+)\n/.exec(err);
      if (match) resolve({ url: match[1], child });
    });
    child.on('exit', (code) => reject(new Error(`rag serve exited with ${code}: ${err}`)));
  });
}

function stop(server) {
  return new Promise((resolve) => {
    server.child.once('exit', resolve);
    server.child.kill('SIGTERM');
  });
}

async function answerOf(server, question, pipeline) {
  const response = await fetch(`${server.url}/api/answer`, {
    method: 'POST', body: JSON.stringify({ question, pipeline, k: 5 }),
  });
  assert.equal(response.status, 200);
  return response.json();
}

// --- what the page shows ----------------------------------------------------------------------

async function waitForAnswer(page, run = 'a') {
  await page.waitForFunction((id) => {
    const node = document.getElementById(`run-${id}`);
    return node && (node.querySelector('.timings').textContent || node.querySelector('.answer .error'));
  }, run, { timeout: 20_000 });
  const error = await page.locator(`#run-${run} .answer .error`).count();
  assert.equal(error, 0, `run ${run} failed: ${await page.locator(`#run-${run} .answer`).textContent()}`);
}

// Clicks every [n] of run `run`'s answer and checks that it opens the card of source n: the
// right file and lines, the span's own characters marked (and nothing else).
async function checkCitations(page, expected, run = 'a') {
  const cites = page.locator(`#answer-${run} a.cite`);
  const count = await cites.count();
  assert.ok(count > 0, 'the answer cites no source');
  for (let i = 0; i < count; ++i) {
    const number = Number(await cites.nth(i).textContent());
    const source = expected.sources.find((s) => s.number === number);
    assert.ok(source, `[${number}] is not a source`);
    assert.ok(source.cited, `[${number}] appears in the answer but the API does not mark it cited`);
    await cites.nth(i).click();
    const card = page.locator(`#${run}-source-${number}`);
    await card.locator('.code-lines mark').first().waitFor({ timeout: 10_000 });
    assert.equal(await card.locator('details').evaluate((d) => d.open), true);
    assert.equal(await card.locator('.location').textContent(),
      `${source.file_path}:${source.first_line}-${source.last_line}`);
    const marked = await card.locator('.code-lines mark').allTextContents();
    assert.equal(marked.join('\n'), source.text.replace(/\n$/, ''), `[${number}]'s marked characters are not its span`);
    const focused = await page.evaluate(() => document.activeElement.id);
    assert.equal(focused, `${run}-source-${number}`, `[${number}] did not move the focus to its card`);
  }
}

async function noHorizontalScroll(page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the window`);
}

// --- the checks ---------------------------------------------------------------------------

const checks = [];
const check = (name, body) => checks.push({ name, body });

let server;
let context;

check('a question asked through the form streams an answer whose [n] open the right cards', async () => {
  const page = await context.newPage();
  await page.goto(server.url);
  await page.locator('#pipeline option').first().waitFor({ state: 'attached' });
  assert.deepEqual(await page.locator('#pipeline option').evaluateAll((o) => o.map((x) => x.value)), ['bm25', 'tfidf']);
  await page.fill('#question', QUESTION);
  await page.click('#submit');
  await waitForAnswer(page);
  const expected = await answerOf(server, QUESTION, 'bm25');
  assert.equal(await page.locator('#run-a .source').count(), expected.sources.length);
  assert.match(await page.locator('#run-a .timings').textContent(), /retrieval .* ms · context .* · generation .* · total .*/);
  assert.match(await page.locator('#run-a .run-meta').textContent(), /language en/);
  // The streamed text is the whole answer, as the JSON route gives it.
  const shown = (await page.locator('#answer-a').innerText()).replace(/\s+/g, ' ').trim();
  const words = expected.answer.replace(/```\w*/g, '').replace(/`/g, '').replace(/\s+/g, ' ').trim();
  assert.equal(shown, words);
  await checkCitations(page, expected);
  assert.match(page.url(), /\?q=How\+do\+I\+load\+quantized\+checkpoints%3F&pipeline=bm25$/);
  await page.screenshot({ path: path.join(options.out, 'desktop.png'), fullPage: true });
  await page.close();
});

check('the copy button copies path:line', async () => {
  const page = await context.newPage();
  await page.goto(`${server.url}/?q=${encodeURIComponent(QUESTION)}`);
  await waitForAnswer(page);
  await page.locator('#a-source-1 button.copy').click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  const location = await page.locator('#a-source-1 .location').textContent();
  assert.equal(copied, location.replace(/-\d+$/, ''));
  await page.close();
});

check('side by side runs both pipelines and marks where their sources differ', async () => {
  const page = await context.newPage();
  await page.goto(server.url);
  await page.locator('#pipeline option').first().waitFor({ state: 'attached' });
  await page.fill('#question', 'where is the server started');
  await page.check('#side-by-side');
  await page.selectOption('#pipeline-b', 'tfidf');
  await page.click('#submit');
  await waitForAnswer(page, 'a');
  await waitForAnswer(page, 'b');
  assert.equal(await page.locator('#run-a .run-title').textContent(), 'bm25');
  assert.equal(await page.locator('#run-b .run-title').textContent(), 'tfidf');
  const [a, b] = await Promise.all([answerOf(server, 'where is the server started', 'bm25'),
    answerOf(server, 'where is the server started', 'tfidf')]);
  const overlaps = (x, y) => x.file_path === y.file_path &&
    x.first_character_index < y.last_character_index && y.first_character_index < x.last_character_index;
  for (const [run, mine, theirs, other] of [['a', a, b, 'tfidf'], ['b', b, a, 'bm25']]) {
    for (const source of mine.sources) {
      const badge = await page.locator(`#${run}-source-${source.number} .badge`).textContent();
      const match = theirs.sources.find((s) => overlaps(source, s));
      assert.equal(badge, match ? `also [${match.number}] in ${other}` : `only in ${run === 'a' ? 'bm25' : 'tfidf'}`);
    }
    const shared = mine.sources.filter((s) => theirs.sources.some((t) => overlaps(s, t))).length;
    assert.equal(await page.locator(`#run-${run} .comparison`).textContent(),
      `${shared} of ${mine.sources.length} sources also found by ${other}.`);
  }
  assert.match(page.url(), /compare=tfidf/);
  await page.screenshot({ path: path.join(options.out, 'desktop-side-by-side.png'), fullPage: true });
  await page.close();
});

check('a shared link runs its question on its pipeline as the page loads', async () => {
  const page = await context.newPage();
  await page.goto(`${server.url}/?q=${encodeURIComponent(QUESTION)}&pipeline=tfidf`);
  await waitForAnswer(page);
  assert.equal(await page.locator('#run-a .run-title').textContent(), 'tfidf');
  assert.equal(await page.inputValue('#question'), QUESTION);
  await checkCitations(page, await answerOf(server, QUESTION, 'tfidf'));
  await page.goto(`${server.url}/?q=x&pipeline=nope`);
  await page.waitForFunction(() => document.getElementById('status').textContent.includes("No pipeline named 'nope'"));
  await page.close();
});

check('a question the sources do not answer is said so, its closest sources listed, nothing cited', async () => {
  const page = await context.newPage();
  const question = 'Who painted the Sistine Chapel ceiling?';
  await page.goto(`${server.url}/?q=${encodeURIComponent(question)}&pipeline=bm25`);
  await waitForAnswer(page);
  const expected = await answerOf(server, question, 'bm25');
  assert.equal(expected.answered, false);
  await page.waitForFunction(() => document.getElementById('status').textContent === 'Declined: the sources do not answer this.');
  assert.match(await page.locator('#run-a .sources-title').textContent(), /^Closest sources \(\d+\), none cited$/);
  assert.equal(await page.locator('#run-a .source').count(), expected.sources.length);
  assert.equal(await page.locator('#answer-a a.cite').count(), 0);
  const said = (await page.locator('#answer-a').innerText()).match(/The sources do not answer this/g);
  assert.equal(said.length, 1, 'said once, by the answer itself');
  await page.screenshot({ path: path.join(options.out, 'desktop-declined.png'), fullPage: true });
  await page.close();
});

check('long questions: told when over the limit, kept out of an address too long to reload; Back clears', async () => {
  const page = await context.newPage();
  await page.goto(server.url);
  await page.locator('#pipeline option').first().waitFor({ state: 'attached' });
  // 2,100 Cyrillic letters (and 700 spaces) are 4,900 bytes, over the server's 4,096: said before
  // anything is sent.
  await page.fill('#question', 'Как '.repeat(700));
  await page.click('#submit');
  await page.waitForFunction(() => /too long: \d+ bytes in UTF-8, and the server takes 4096/.test(document.getElementById('status').textContent));
  assert.equal(await page.locator('.run').count(), 0);
  // 1,600 letters (3,500 bytes) are asked, but an address of them would pass 8,192 characters
  // (three a byte): left out of it.
  const long = `${QUESTION} ${'сервер '.repeat(270)}`;
  await page.fill('#question', long);
  await page.click('#submit');
  await waitForAnswer(page);
  assert.doesNotMatch(page.url(), /[?&]q=/);
  assert.match(page.url(), /pipeline=bm25/);
  await page.reload();
  await page.locator('#pipeline option').first().waitFor({ state: 'attached' });
  // A Russian question's answer is marked as Russian; Back to the start page shows nothing asked.
  await page.goto(server.url);
  await page.locator('#pipeline option').first().waitFor({ state: 'attached' });
  await page.fill('#question', 'Как загрузить квантованные контрольные точки?');
  await page.click('#submit');
  await waitForAnswer(page);
  assert.equal(await page.locator('#answer-a').getAttribute('lang'), 'ru');
  await page.goBack();
  await page.waitForFunction(() => document.querySelectorAll('.run').length === 0);
  assert.equal(await page.inputValue('#question'), '');
  assert.equal(await page.locator('#status').textContent(), '');
  await page.close();
});

check('the page loads without a failed request or a console error', async () => {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`); });
  await page.goto(server.url);
  await page.locator('#pipeline option').first().waitFor({ state: 'attached' });
  await page.waitForLoadState('networkidle');
  assert.deepEqual(problems, []);
  await page.close();
});

check('a table in an answer is shown as a table, under its header', async () => {
  const page = await context.newPage();
  const question = 'Which backend supports prefix caching?';
  await page.goto(`${server.url}/?q=${encodeURIComponent(question)}&pipeline=bm25`);
  await waitForAnswer(page);
  assert.match((await answerOf(server, question, 'bm25')).answer, /\| Prefix caching \| no \| yes \|/);
  const table = page.locator('#answer-a table');
  assert.equal(await table.count(), 1);
  assert.deepEqual(await table.locator('th').allTextContents(), ['Feature', 'CPU backend', 'GPU backend']);
  assert.deepEqual(await table.locator('tbody tr').first().locator('td').allTextContents(), ['Prefix caching', 'no', 'yes']);
  assert.equal(await page.locator('#answer-a p', { hasText: '| Feature |' }).count(), 0);
  await page.close();
});

check('the keyboard alone asks and opens a source', async () => {
  const page = await context.newPage();
  await page.goto(server.url);
  await page.locator('#pipeline option').first().waitFor({ state: 'attached' });
  assert.equal(await page.evaluate(() => document.activeElement.id), 'question');
  await page.keyboard.type(QUESTION);
  await page.keyboard.press('Enter');
  await waitForAnswer(page);
  let onCite = false;
  for (let i = 0; i < 30 && !onCite; ++i) {
    await page.keyboard.press('Tab');
    onCite = await page.evaluate(() => document.activeElement.classList.contains('cite'));
  }
  assert.ok(onCite, 'Tab never reached a citation');
  const number = await page.evaluate(() => document.activeElement.textContent);
  await page.keyboard.press('Enter');
  await page.locator(`#a-source-${number} .code-lines mark`).first().waitFor({ timeout: 10_000 });
  // The card's lines open and close from the keyboard too.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  const summary = await page.evaluate(() => document.activeElement.tagName);
  assert.equal(summary, 'SUMMARY');
  await page.keyboard.press('Enter');
  assert.equal(await page.locator(`#a-source-${number} details`).evaluate((d) => d.open), false);
  await page.close();
});

check("at a phone's width nothing overflows, alone or side by side", async () => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const page = await phone.newPage();
  await page.goto(`${server.url}/?q=${encodeURIComponent(QUESTION)}`);
  await waitForAnswer(page);
  await page.locator('#answer-a a.cite').first().tap();
  await page.locator('#run-a .code-lines mark').first().waitFor({ timeout: 10_000 });
  await noHorizontalScroll(page);
  await page.screenshot({ path: path.join(options.out, 'phone.png'), fullPage: true });
  await page.goto(`${server.url}/?q=${encodeURIComponent(QUESTION)}&pipeline=bm25&compare=tfidf`);
  await waitForAnswer(page, 'b');
  await noHorizontalScroll(page);
  const [a, b] = await Promise.all([page.locator('#run-a').boundingBox(), page.locator('#run-b').boundingBox()]);
  assert.ok(b.y >= a.y + a.height, 'side by side should stack on a phone');
  await page.screenshot({ path: path.join(options.out, 'phone-side-by-side.png'), fullPage: true });
  await phone.close();
});

check('a server that wants a token: the page asks for it, then works', async () => {
  const guarded = await serve(['--pipeline', 'bm25.yaml', '--token-env', 'RAG_PAGE_TOKEN'], { RAG_PAGE_TOKEN: 's3cret' });
  const page = await context.newPage();
  await page.goto(`${guarded.url}/?q=${encodeURIComponent(QUESTION)}`);
  await page.locator('#token-row').waitFor({ state: 'visible' });
  assert.match(await page.locator('#status').textContent(), /token/i);
  await page.fill('#token', 'wrong');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('status').textContent.includes("not the server's"));
  await page.fill('#token', 's3cret');
  await page.click('#token-save');
  await waitForAnswer(page);
  await page.close();
  await stop(guarded);
});

check('what the retriever warns of (part of the index left out) is shown with the answer', async () => {
  const partial = await serve(['--pipeline', 'partial.yaml']);
  const page = await context.newPage();
  await page.goto(`${partial.url}/?q=${encodeURIComponent(QUESTION)}`);
  await waitForAnswer(page);
  assert.deepEqual(await page.locator('#run-a .warnings li').allTextContents(), [`Warning: ${PARTIAL_WARNING}`]);
  assert.equal(await page.locator('#run-a .warnings').isVisible(), true);
  // None for an answer without one.
  await page.goto(`${server.url}/?q=${encodeURIComponent(QUESTION)}`);
  await waitForAnswer(page);
  assert.equal(await page.locator('#run-a .warnings').isVisible(), false);
  await page.close();
  await stop(partial);
});

check('a generator that fails and a server that is gone are said so, in words', async () => {
  const doomed = await serve(['--pipeline', 'bm25.yaml', '--pipeline', 'offline.yaml']);
  const page = await context.newPage();
  // The offline pipeline's model server does not exist: its sources come, then the error.
  await page.goto(`${doomed.url}/?q=${encodeURIComponent(QUESTION)}&pipeline=offline`);
  await page.locator('#run-a .answer .error').waitFor({ timeout: 20_000 });
  assert.match(await page.locator('#run-a .answer .error').textContent(), /cannot reach the OpenAI-compatible server/);
  assert.ok(await page.locator('#run-a .source').count() > 0, 'the sources should stay when the generator fails');
  assert.match(await page.locator('#status').textContent(), /^Error: .*cannot reach/);
  await stop(doomed);
  await page.fill('#question', QUESTION);
  await page.click('#submit');
  await page.waitForFunction(() => /Cannot reach/.test(document.getElementById('status').textContent));
  assert.match(await page.locator('#status').textContent(), /Cannot reach the server at http:\/\/127\.0\.0\.1:\d+: is rag serve still running\?/);
  assert.equal(await page.locator('#status').evaluate((s) => s.classList.contains('error')), true);
  assert.equal(await page.locator('#submit').isDisabled(), false);
  await page.close();
});

// --- running them ---------------------------------------------------------------------------

async function main() {
  fs.mkdirSync(options.out, { recursive: true });
  fs.cpSync(path.join(options.fixtures, 'repo'), path.join(work, 'repo'), { recursive: true });
  fs.writeFileSync(path.join(work, 'repo', 'features.md'), `# Feature support

Which features each backend supports:

| Feature | CPU backend | GPU backend |
| --- | --- | --- |
| Prefix caching | no | yes |
| Speculative decoding | no | yes |
`);
  const pipeline = (retriever) => `name: ${retriever}
corpus:
  root: repo
chunkers:
  - {plugin: python, files: "**/*.py", options: {max_chunk_size: 400}}
  - {plugin: markdown, files: "**/*.md", options: {max_chunk_size: 400}}
  - {plugin: text, files: "**", options: {max_chunk_size: 400}}
retriever:
  plugin: ${retriever}
index: index-${retriever}
${retriever === 'tfidf' ? 'context: {score_knee: 0}  # cosines are not BM25 scores\n' : ''}`;
  for (const retriever of ['bm25', 'tfidf']) {
    fs.writeFileSync(path.join(work, `${retriever}.yaml`), pipeline(retriever));
    rag(['index', '--pipeline', `${retriever}.yaml`]);
  }
  // bm25's chunks and index, answered by a model server that is not there.
  fs.writeFileSync(path.join(work, 'offline.yaml'), pipeline('bm25').replace('name: bm25', 'name: offline') +
    "generator: {plugin: openai, options: {model: m, base_url: 'http://127.0.0.1:9/v1', timeout: 5}}\n");
  // Over the same chunks, a retriever that warns at each search as one missing a shard would.
  fs.writeFileSync(path.join(work, 'partial.yaml'), pipeline('bm25')
    .replace('name: bm25', 'name: partial').replace('index: index-bm25', 'index: index-partial')
    .replace('plugin: bm25', `plugin: throwing_retriever\n  options: {warn: '${PARTIAL_WARNING}'}`) +
    `plugin_paths: ['${path.resolve(options['warning-plugins'])}']\n`);
  rag(['index', '--pipeline', 'partial.yaml']);
  server = await serve(['--pipeline', 'bm25.yaml', '--pipeline', 'tfidf.yaml']);
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  let failed = 0;
  for (const { name, body } of checks) {
    try {
      await body();
      console.log(`ok - ${name}`);
    } catch (error) {
      failed += 1;
      console.log(`not ok - ${name}\n  ${String(error.stack || error).split('\n').join('\n  ')}`);
    }
  }
  console.log(`${checks.length - failed} of ${checks.length} page checks passed; screenshots in ${options.out}`);
  return failed;
}

let status = 1;
try {
  status = (await main()) ? 1 : 0;
} catch (error) {
  console.error(`FAIL: ${error.stack || error}`);
} finally {
  await browser?.close();
  for (const child of servers) if (child.exitCode === null) child.kill('SIGKILL');
  fs.rmSync(work, { recursive: true, force: true });
  clearTimeout(deadline);
}
process.exit(status);
