'use strict';
// The page of `rag serve`: asks POST /api/answer for Server-Sent Events, shows the sources as
// soon as they arrive and the answer as it streams, opens each [n] on its source's lines
// (GET /api/source), and runs one question on two pipelines side by side. Plain script, no
// dependencies, nothing fetched from another origin (docs/http-api.md is the contract).

const $ = (id) => document.getElementById(id);

const page = {
  token: sessionStorage.getItem('rag-token') || '',
  pipelines: [],
  controller: null,  // aborts the answers in flight
  runs: [],
};

class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

// --- the server -----------------------------------------------------------------------------

async function request(path, options = {}) {
  const headers = { ...(options.headers || {}) };
  if (page.token) headers.Authorization = `Bearer ${page.token}`;
  let response;
  try {
    response = await fetch(path, { ...options, headers });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new ApiError(`Cannot reach the server at ${location.origin}: is rag serve still running?`, 0);
  }
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try {
      message = (await response.json()).error || message;
    } catch (_) { /* a body that is not JSON: keep the status line */ }
    if (response.status === 401) askForToken();
    throw new ApiError(message, response.status);
  }
  return response;
}

// Server-Sent Events of a fetch response, as {event, data} with data parsed from JSON.
async function* serverSentEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) yield { event, data: JSON.parse(data.join('\n')) };
    }
  }
}

// --- small DOM helpers ----------------------------------------------------------------------

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function ms(value) {
  return `${value < 10 ? value.toFixed(2) : value.toFixed(0)} ms`;
}

function locationOf(source) {
  return `${source.file_path}:${source.first_line}-${source.last_line}`;
}

function setStatus(text, isError = false) {
  const status = $('status');
  status.textContent = text;
  status.classList.toggle('error', isError);
}

// --- the answer's text: paragraphs, code blocks, `code` and [n] citations --------------------

// Appends `text` to `parent` with `code` spans and [n] (or [n, m]) turned into links to sources.
function appendInline(parent, text, run) {
  for (const part of text.split(/(`[^`\n]+`|\[\d+(?:\s*,\s*\d+)*\])/)) {
    if (!part) continue;
    if (part.startsWith('`') && part.length > 2) {
      parent.append(element('code', '', part.slice(1, -1)));
    } else if (/^\[\d/.test(part)) {
      const numbers = part.slice(1, -1).split(',').map((n) => Number(n.trim()));
      if (!numbers.every((n) => run.source(n))) {
        parent.append(part);
        continue;
      }
      parent.append('[');
      numbers.forEach((n, i) => {
        if (i) parent.append(', ');
        const link = element('a', 'cite', String(n));
        link.href = `#${run.sourceId(n)}`;
        link.setAttribute('aria-label', `source ${n}: ${locationOf(run.source(n))}`);
        link.addEventListener('click', (event) => {
          event.preventDefault();
          run.openSource(n);
        });
        parent.append(link);
      });
      parent.append(']');
    } else {
      parent.append(part);
    }
  }
}

// Renders Markdown-like answer text: ``` fences (closed even while the stream has not closed
// them yet), paragraphs at blank lines, inline code and citations. Never HTML from the text.
// A Markdown table: a header row, then its delimiter row (| --- | :-: |).
function isTable(lines) {
  return lines.length >= 2 && lines[0].trim().startsWith('|') && /^\s*\|[\s|:-]*-[\s|:-]*$/.test(lines[1]);
}

function cells(line) {
  return line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
}

function table(lines, run) {
  const node = element('table');
  const head = element('tr');
  for (const c of cells(lines[0])) appendInline(head.appendChild(element('th')), c, run);
  node.append(element('thead'), element('tbody'));
  node.tHead.append(head);
  for (const line of lines.slice(2)) {
    const row = element('tr');
    for (const c of cells(line)) appendInline(row.appendChild(element('td')), c, run);
    node.tBodies[0].append(row);
  }
  return node;
}

function renderAnswer(container, text, run) {
  container.replaceChildren();
  let paragraph = [];
  let code = null;
  const flush = () => {
    if (isTable(paragraph)) container.append(table(paragraph, run));
    else if (paragraph.length) {
      const p = element('p');
      appendInline(p, paragraph.join('\n'), run);
      container.append(p);
    }
    paragraph = [];
  };
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) {
      if (code === null) {
        flush();
        code = [];
      } else {
        const pre = element('pre');
        pre.append(element('code', '', code.join('\n')));
        container.append(pre);
        code = null;
      }
    } else if (code !== null) {
      code.push(line);
    } else if (line.trim() === '') {
      flush();
    } else {
      paragraph.push(line);
    }
  }
  if (code !== null) {
    const pre = element('pre');
    pre.append(element('code', '', code.join('\n')));
    container.append(pre);
  }
  flush();
}

// --- one run: a question on one pipeline ------------------------------------------------------

class Run {
  constructor(pipeline, label) {
    this.pipeline = pipeline;
    this.label = label;  // 'a' or 'b': ids and the side-by-side marks
    this.sources = [];
    this.text = '';
    this.node = $('run-template').content.firstElementChild.cloneNode(true);
    this.node.id = `run-${label}`;
    this.node.querySelector('.run-title').textContent = pipeline;
    this.answer = this.node.querySelector('.answer');
    this.answer.id = `answer-${label}`;
  }

  source(number) {
    return this.sources.find((s) => s.number === number);
  }

  sourceId(number) {
    return `${this.label}-source-${number}`;
  }

  meta(text) {
    this.node.querySelector('.run-meta').textContent = text;
  }

  async ask(question, k, signal) {
    const started = performance.now();
    let firstEvent = null;
    this.answer.replaceChildren(element('p', 'pending', 'Searching…'));
    const response = await request('/api/answer', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify({ question, k, pipeline: this.pipeline }),
      signal,
    });
    for await (const { event, data } of serverSentEvents(response)) {
      if (firstEvent === null) firstEvent = performance.now() - started;
      if (event === 'sources') {
        this.showSources(data);
      } else if (event === 'delta') {
        this.text += data.text;
        renderAnswer(this.answer, this.text, this);
      } else if (event === 'done') {
        this.text = data.answer;
        renderAnswer(this.answer, this.text, this);
        this.markCited(data.cited || []);
        this.showAnswered(data.answered !== false);
        this.showWarnings(data.warnings || []);
        const t = data.timings;
        this.node.querySelector('.timings').textContent =
          `retrieval ${ms(t.retrieval_ms)} · context ${ms(t.context_ms)} · generation ${ms(t.generation_ms)}` +
          ` · total ${ms(t.total_ms)} on the server · first event after ${ms(firstEvent)} here`;
        return;
      } else if (event === 'error') {
        throw new ApiError(data.error, 500);
      }
    }
    throw new ApiError('the server closed the answer before it was done', 0);
  }

  // What the retriever said of its search (a shard of the index that did not answer): the
  // answer stands, but on part of the index.
  showWarnings(warnings) {
    const list = this.node.querySelector('.warnings');
    list.replaceChildren(...warnings.map((text) => element('li', null, `Warning: ${text}`)));
    list.hidden = warnings.length === 0;
  }

  // A declined answer says so itself, in the question's language; its sources are titled as the
  // closest found.
  showAnswered(answered) {
    this.answered = answered;
    this.node.classList.toggle('declined', !answered);
    if (!answered) this.node.querySelector('.sources-title').textContent = `Closest sources (${this.sources.length}), none cited`;
  }

  showSources(data) {
    this.sources = data.sources;
    this.meta(`language ${data.language} · index ${data.generation}`);
    // The answer is in the question's language, for a screen reader's voice too.
    if (/^[a-z]{2,3}$/.test(data.language)) this.answer.lang = data.language;
    this.answer.replaceChildren(element('p', 'pending', this.sources.length ? 'Writing the answer…' : 'No source found.'));
    const list = this.node.querySelector('.sources');
    list.replaceChildren(...this.sources.map((s) => this.card(s)));
    this.node.querySelector('.sources-title').textContent = `Sources (${this.sources.length})`;
    compareRuns();
  }

  card(source) {
    const item = element('li', 'source');
    item.id = this.sourceId(source.number);
    item.tabIndex = -1;
    item.dataset.number = source.number;
    const head = element('div', 'source-head');
    head.append(element('span', 'number', `[${source.number}]`));
    head.append(element('code', 'location', locationOf(source)));
    const copy = element('button', 'copy', 'Copy');
    copy.type = 'button';
    copy.setAttribute('aria-label', `Copy ${source.file_path}:${source.first_line}`);
    copy.addEventListener('click', () => copyText(`${source.file_path}:${source.first_line}`, copy));
    head.append(copy);
    item.append(head);
    const meta = element('p', 'source-meta');
    if (source.section) meta.append(element('span', 'section', source.section));
    meta.append(element('span', 'score', `score ${source.score.toFixed(2)}`));
    meta.append(element('span', 'badges'));
    item.append(meta);
    const details = element('details', 'lines');
    details.append(element('summary', '', `Lines ${source.first_line}–${source.last_line} in context`));
    details.addEventListener('toggle', () => {
      if (details.open) this.loadLines(source, details);
    });
    item.append(details);
    return item;
  }

  async loadLines(source, details) {
    if (details.dataset.loaded) return;
    details.dataset.loaded = 'loading';
    const params = new URLSearchParams({
      pipeline: this.pipeline, path: source.file_path,
      first: source.first_character_index, last: source.last_character_index, context: 3,
    });
    const view = element('div', 'code-view');
    details.append(view);
    try {
      const body = await (await request(`/api/source?${params}`)).json();
      view.append(linesTable(body));
      if (body.changed) view.append(element('p', 'note', 'The file changed since it was indexed: these are its lines now.'));
      details.dataset.loaded = 'yes';
    } catch (error) {
      view.append(element('p', 'error', error.message));
      delete details.dataset.loaded;
    }
  }

  openSource(number) {
    const item = $(this.sourceId(number));
    if (!item) return;
    const details = item.querySelector('details');
    details.open = true;
    this.loadLines(this.source(number), details);
    item.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    item.focus({ preventScroll: true });
    item.classList.remove('target');
    void item.offsetWidth;  // restarts the highlight's animation
    item.classList.add('target');
  }

  markCited(cited) {
    for (const item of this.node.querySelectorAll('.source')) {
      const isCited = cited.includes(Number(item.dataset.number));
      item.classList.toggle('cited', isCited);
      item.classList.toggle('uncited', !isCited);
    }
  }

  fail(error) {
    this.answer.replaceChildren(element('p', 'error', error.message));
  }
}

// The lines of /api/source, numbered, with the span's own characters marked.
function linesTable(body) {
  const { first_character_index: first, last_character_index: last } = body.span;
  const table = element('div', 'code-lines');
  for (const line of body.lines) {
    const row = element('div', 'line');
    row.append(element('span', 'line-number', String(line.number)));
    const chars = Array.from(line.text);  // code points, as the offsets count
    const from = Math.max(0, first - line.first_character_index);
    const to = Math.min(chars.length, last - line.first_character_index);
    const inSpan = line.number >= body.span.first_line && line.number <= body.span.last_line;
    row.classList.toggle('in-span', inSpan);
    const code = element('code');
    if (inSpan && to >= from) {  // an empty line of the span gets an empty mark: the marks are the span, line by line
      code.append(chars.slice(0, from).join(''));
      code.append(element('mark', '', chars.slice(from, to).join('')));
      code.append(chars.slice(to).join(''));
    } else {
      code.textContent = line.text;
    }
    row.append(code);
    table.append(row);
  }
  return table;
}

async function copyText(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch (_) {
    // No clipboard (an address that is not a secure context): select the text for Ctrl+C.
    window.prompt('Copy this:', text);
  }
  setTimeout(() => { button.textContent = 'Copy'; }, 1500);
}

// Side by side: each source is marked as also found by the other pipeline (same file, spans
// that overlap) or only by its own.
function compareRuns() {
  if (page.runs.length !== 2) return;
  const [a, b] = page.runs;
  if (!a.sources.length || !b.sources.length) return;
  const overlaps = (x, y) => x.file_path === y.file_path &&
    x.first_character_index < y.last_character_index && y.first_character_index < x.last_character_index;
  for (const [run, other] of [[a, b], [b, a]]) {
    let shared = 0;
    for (const source of run.sources) {
      const match = other.sources.find((s) => overlaps(source, s));
      const item = $(run.sourceId(source.number));
      item.classList.toggle('differs', !match);
      const badges = item.querySelector('.badges');
      badges.replaceChildren(match
        ? element('span', 'badge same', `also [${match.number}] in ${other.pipeline}`)
        : element('span', 'badge only', `only in ${run.pipeline}`));
      if (match) shared += 1;
    }
    const note = run.node.querySelector('.comparison');
    note.hidden = false;
    note.textContent = `${shared} of ${run.sources.length} sources also found by ${other.pipeline}.`;
  }
}

// --- the form ----------------------------------------------------------------------------

function fillPipelines(list) {
  page.pipelines = list;
  for (const select of [$('pipeline'), $('pipeline-b')]) {
    const chosen = select.value;
    select.replaceChildren(...list.map((p) => {
      const option = element('option', '', p.index.state === 'current' ? p.name : `${p.name} (index stale)`);
      option.value = p.name;
      option.title = p.description || '';
      return option;
    }));
    if (list.some((p) => p.name === chosen)) select.value = chosen;
  }
  if (list.length > 1 && $('pipeline-b').value === $('pipeline').value) $('pipeline-b').value = list[1].name;
  $('side-by-side').disabled = list.length < 2;
}

async function loadPipelines() {
  const body = await (await request('/api/pipelines')).json();
  fillPipelines(body.pipelines);
}

function askForToken() {
  $('token-row').hidden = false;
  $('token').focus();
}

function readForm() {
  const k = Math.min(20, Math.max(1, Number($('k').value) || 5));
  const pipelines = [$('pipeline').value];
  if ($('side-by-side').checked && $('pipeline-b').value) pipelines.push($('pipeline-b').value);
  return { question: $('question').value.trim(), k, pipelines };
}

// The address says what is asked, so that a link runs it again; a question too long for an
// address the server takes (8,192 characters, and each byte of non-ASCII text is three) is left
// out of it.
function remember({ question, k, pipelines }) {
  const params = new URLSearchParams({ q: question, pipeline: pipelines[0] });
  if (pipelines[1]) params.set('compare', pipelines[1]);
  if (k !== 5) params.set('k', k);
  if (`${location.pathname}?${params}`.length > 8000) params.delete('q');
  const address = `${location.pathname}?${params}`;
  if (address !== `${location.pathname}${location.search}`) history.pushState(null, '', address);
}

// The server's limit on a question (RequestLimits::max_query_bytes): bytes of UTF-8, so that
// a question in Cyrillic reaches it at about 2,000 letters.
const kMaxQuestionBytes = 4096;

async function ask(query) {
  if (!query.question) {
    setStatus('Type a question first.', true);
    $('question').focus();
    return;
  }
  const bytes = new TextEncoder().encode(query.question).length;
  if (bytes > kMaxQuestionBytes) {
    setStatus(`The question is too long: ${bytes} bytes in UTF-8, and the server takes ${kMaxQuestionBytes}. Shorten it.`, true);
    $('question').focus();
    return;
  }
  page.controller?.abort();
  const controller = new AbortController();
  page.controller = controller;
  const runs = query.pipelines.map((p, i) => new Run(p, i ? 'b' : 'a'));
  page.runs = runs;
  const main = $('runs');
  main.querySelectorAll('.run').forEach((node) => node.remove());
  main.classList.toggle('side-by-side', runs.length === 2);
  for (const run of runs) main.append(run.node);
  $('submit').disabled = true;
  $('stop').hidden = false;
  setStatus(`Asking ${query.pipelines.join(' and ')}…`);
  const outcomes = await Promise.allSettled(runs.map((run) => run.ask(query.question, query.k, controller.signal)));
  if (page.controller !== controller) return;  // a newer question took over
  page.controller = null;
  $('submit').disabled = false;
  $('stop').hidden = true;
  const failures = outcomes.filter((o) => o.status === 'rejected');
  outcomes.forEach((o, i) => {
    if (o.status === 'rejected') runs[i].fail(o.reason.name === 'AbortError' ? new Error('Stopped.') : o.reason);
  });
  if (failures.some((f) => f.reason.name === 'AbortError')) setStatus('Stopped.');
  else if (failures.length) setStatus(`Error: ${failures[0].reason.message}`, true);
  else if (runs.length === 2) setStatus('Both answers are in.');
  else setStatus(runs[0].answered ? 'Answered.' : 'Declined: the sources do not answer this.');
}

function applyAddress() {
  const params = new URLSearchParams(location.search);
  $('question').value = params.get('q') || '';
  if (!params.get('q')) {  // back at the start: nothing asked, nothing shown
    page.controller?.abort();
    $('runs').querySelectorAll('.run').forEach((node) => node.remove());
    setStatus('');
  }
  const known = (name) => page.pipelines.some((p) => p.name === name);
  if (known(params.get('pipeline'))) $('pipeline').value = params.get('pipeline');
  if (known(params.get('compare'))) {
    $('side-by-side').checked = true;
    $('pipeline-b').value = params.get('compare');
  }
  $('pipeline-b').disabled = !$('side-by-side').checked;
  if (params.get('k')) $('k').value = params.get('k');
  if (params.get('pipeline') && !known(params.get('pipeline')))
    setStatus(`No pipeline named '${params.get('pipeline')}' is served here.`, true);
  else if ($('question').value.trim()) ask(readForm());
}

async function start() {
  $('ask').addEventListener('submit', (event) => {
    event.preventDefault();
    const query = readForm();
    if (query.question) remember(query);
    ask(query);
  });
  $('stop').addEventListener('click', () => page.controller?.abort());
  $('side-by-side').addEventListener('change', () => {
    $('pipeline-b').disabled = !$('side-by-side').checked;
  });
  $('token-save').addEventListener('click', async () => {
    page.token = $('token').value;
    sessionStorage.setItem('rag-token', page.token);
    $('token-row').hidden = true;
    await loadAndApply();
  });
  $('token').addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      $('token-save').click();
    }
  });
  window.addEventListener('popstate', applyAddress);
  await loadAndApply();
}

async function loadAndApply() {
  try {
    setStatus('Loading the pipelines…');
    await loadPipelines();
    setStatus('');
    applyAddress();
  } catch (error) {
    setStatus(`Error: ${error.message}`, true);
  }
}

start();
