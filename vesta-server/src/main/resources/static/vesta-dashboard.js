// The dashboard of a Vesta server: it reads the server's own JSON endpoints (/vesta/status, /vesta/admin/leases,
// /vesta/segments, /vesta/expid/{id}) and loads nothing from elsewhere.
(function () {
  'use strict';

  const TOKEN_KEY = 'vesta.token';
  const $ = (id) => document.getElementById(id);

  function token() {
    return sessionStorage.getItem(TOKEN_KEY) || '';
  }

  async function getJson(path) {
    const headers = { Accept: 'application/json' };
    if (token()) {
      headers.Authorization = 'Bearer ' + token();
    }
    const response = await fetch(path, { headers, cache: 'no-store' });
    let body = null;
    try {
      body = await response.json();
    } catch (e) {
      body = null;
    }
    return { status: response.status, body };
  }

  function text(value) {
    return value === null || value === undefined ? '' : String(value);
  }

  function cell(row, value) {
    const td = document.createElement('td');
    td.textContent = text(value);
    row.appendChild(td);
  }

  function fields(dl, entries) {
    dl.replaceChildren();
    for (const [name, value] of entries) {
      const dt = document.createElement('dt');
      dt.textContent = name;
      const dd = document.createElement('dd');
      dd.textContent = text(value);
      dd.dataset.field = name;
      dl.append(dt, dd);
    }
  }

  function problem(answer) {
    if (answer.body && answer.body.detail) {
      return answer.body.detail;
    }
    return 'HTTP ' + answer.status;
  }

  async function refreshStatus() {
    const answer = await getJson('/vesta/status');
    const badge = $('status');
    if (answer.status !== 200) {
      badge.textContent = answer.status === 401 || answer.status === 403 ? 'token needed' : 'unreachable';
      badge.className = 'badge down';
      $('status-reason').hidden = false;
      $('status-reason').textContent = problem(answer);
      return;
    }
    const s = answer.body;
    badge.textContent = s.status;
    badge.className = 'badge ' + (s.status === 'UP' ? 'up' : 'down');
    $('status-reason').hidden = !s.reason;
    $('status-reason').textContent = text(s.reason);
    fields($('node-fields'), [
      ['machine IDs', s.machineIdFirst === s.machineIdLast ? s.machineIdFirst : s.machineIdFirst + '-' + s.machineIdLast],
      ['source', s.machineIdSource],
      ['type', s.type],
      ['sequencer', s.sequencer],
      ['epoch', s.epoch],
      ['time field ends', s.timeFieldEnd],
      ['time left', timeLeft(s.timeRemainingSeconds)],
      ['lease held until', s.leaseHeldUntil || 'for good'],
      ['last issued', s.lastIssuedTime],
      ['issued (REST / batches)', s.restIssued + ' / ' + s.centralServerIssued],
    ].concat(s.machineIdFallback ? [['fallback machine IDs', fallbackText(s.machineIdFallback)]] : []));
    $('time-warning').hidden = !s.timeFieldWarning;
    $('time-warning').textContent = text(s.timeFieldWarning);
    const onFallback = fallbackGenerators(s.machineIdFallback);
    $('fallback-warning').hidden = onFallback.length === 0;
    $('fallback-warning').textContent = onFallback.length === 0 ? '' : 'On the fallback machine ID '
      + blockText(s.machineIdFallback) + ' (' + onFallback.join(' and ') + '): the machine-ID store cannot give this'
      + ' server a leased machine ID. IDs are still issued; it goes back to a leased one once the store answers.';
    drawRate(s.perSecond, Date.parse(s.now) / 1000);
  }

  function blockText(b) {
    return b.first === b.last ? String(b.first) : b.first + '-' + b.last;
  }

  // The generators issuing under the fallback now: the two switch on their own checks.
  function fallbackGenerators(f) {
    return !f ? [] : [].concat(f.restActive ? ['REST'] : [], f.centralServerActive ? ['batches'] : []);
  }

  function fallbackText(f) {
    const active = fallbackGenerators(f);
    return blockText(f) + (active.length ? ', IN USE by ' + active.join(' and ') : ', not in use')
      + '; issued under it (REST / batches) ' + f.restIssued + ' / ' + f.centralServerIssued;
  }

  // Whole days, as the server's warning counts them, and years beside them once there are many.
  function timeLeft(seconds) {
    const days = Math.floor(seconds / 86400);
    return days >= 365 ? days + ' days (' + (days / 365.25).toFixed(1) + ' years)' : days + ' days';
  }

  function drawRate(samples, nowSecond) {
    const canvas = $('rate-chart');
    const ratio = window.devicePixelRatio || 1;
    const width = canvas.clientWidth || canvas.width;
    const height = canvas.clientHeight || canvas.height;
    canvas.width = width * ratio;
    canvas.height = height * ratio;
    const g = canvas.getContext('2d');
    g.scale(ratio, ratio);
    g.clearRect(0, 0, width, height);
    const left = 64;
    const bottom = height - 20;
    const span = 600;
    let highest = 0;
    for (const s of samples) {
      highest = Math.max(highest, s.rest, s.centralServer);
    }
    const max = niceMax(highest);
    const x = (second) => left + (width - left - 8) * (1 - (nowSecond - second) / span);
    const y = (value) => bottom - (bottom - 8) * value / max;
    g.strokeStyle = '#dfe3ea';
    g.fillStyle = '#6b7384';
    g.font = '11px system-ui, sans-serif';
    for (let i = 0; i <= 4; i++) {
      const value = max * i / 4;
      g.beginPath();
      g.moveTo(left, y(value));
      g.lineTo(width - 8, y(value));
      g.stroke();
      g.fillText(Math.round(value).toLocaleString(), 4, y(value) + 4);
    }
    for (let minutes = 10; minutes >= 0; minutes -= 2) {
      g.fillText(minutes === 0 ? 'now' : '-' + minutes + ' min', x(nowSecond - minutes * 60) - 14, height - 4);
    }
    const line = (key, color) => {
      g.strokeStyle = color;
      g.lineWidth = 2;
      g.beginPath();
      samples.forEach((s, i) => (i === 0 ? g.moveTo(x(s.second), y(s[key])) : g.lineTo(x(s.second), y(s[key]))));
      g.stroke();
    };
    line('rest', '#2f6fde');
    line('centralServer', '#e08a1e');
    const last = samples[samples.length - 1];
    $('rate-now').textContent = last ? ' · last second: ' + (last.rest + last.centralServer).toLocaleString() + ' IDs' : '';
  }

  // The top of the scale: 4, or the highest sample rounded up to 1, 2, 4, 5 or 10 times a power of ten, so the four
  // gridlines fall on round numbers.
  function niceMax(value) {
    if (value <= 4) {
      return 4;
    }
    const power = Math.pow(10, Math.floor(Math.log10(value)));
    for (const m of [1, 2, 4, 5, 10]) {
      if (m * power >= value) {
        return m * power;
      }
    }
    return 10 * power;
  }

  async function refreshLeases() {
    const answer = await getJson('/vesta/admin/leases');
    const body = $('lease-table').tBodies[0];
    if (answer.status !== 200) {
      body.replaceChildren();
      $('lease-store').textContent = '';
      $('lease-message').textContent = problem(answer);
      return;
    }
    const table = answer.body;
    $('lease-store').textContent = '(' + table.store + ', range ' + table.range + ')';
    const held = table.leases.filter((l) => l.state !== 'free');
    $('lease-message').textContent = held.length + ' of ' + table.leases.length + ' machine IDs leased, '
        + table.leases.filter((l) => l.live).length + ' live; the highlighted row is this node.';
    const rows = held.map((l) => {
      const row = document.createElement('tr');
      row.dataset.machineId = l.machineId;
      row.className = l.state + (l.self ? ' self' : '');
      cell(row, l.machineId + (l.self ? ' (this node)' : ''));
      cell(row, l.state);
      cell(row, l.owner);
      cell(row, l.leaseExpiry);
      cell(row, l.highWater);
      cell(row, l.generation);
      return row;
    });
    body.replaceChildren(...rows);
  }

  async function refreshSegments() {
    const answer = await getJson('/vesta/segments');
    const body = $('segment-table').tBodies[0];
    if (answer.status !== 200) {
      body.replaceChildren();
      $('segment-message').textContent = answer.status === 404 ? 'Segments are off on this server.' : problem(answer);
      return;
    }
    $('segment-message').textContent = answer.body.length === 0 ? 'No tag has been asked for yet.' : '';
    body.replaceChildren(...answer.body.map((v) => {
      const row = document.createElement('tr');
      row.dataset.bizTag = v.bizTag;
      cell(row, v.bizTag);
      cell(row, v.segmentStart + ' - ' + v.segmentEnd);
      cell(row, v.position);
      cell(row, v.segmentEnd - v.position);
      cell(row, v.step);
      cell(row, v.nextReady ? v.nextStart + ' - ' + v.nextEnd : (v.loading ? 'loading' : 'not loaded'));
      cell(row, v.loads + (v.failedLoads ? ' (' + v.failedLoads + ' failed)' : ''));
      cell(row, v.lastFailure);
      return row;
    }));
  }

  const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

  /** The ID (decimal, signed) in the digits of io.vesta.IdFormat, unsigned and zero-padded to its length. */
  function inDigits(decimal, digits, length) {
    let value = BigInt.asUintN(64, BigInt(decimal));
    const radix = BigInt(digits.length);
    let text = '';
    for (let i = 0; i < length; i++) {
      text = digits[Number(value % radix)] + text;
      value /= radix;
    }
    return text;
  }

  async function decode(event) {
    event.preventDefault();
    const id = $('decode-input').value.trim();
    $('decode-error').hidden = true;
    $('decode-result').replaceChildren();
    if (!id) {
      return;
    }
    // The form is chosen, not guessed: 13 digits are a decimal ID as well as a base-32 one.
    const format = $('decode-format').value;
    const answer = await getJson('/vesta/expid/' + encodeURIComponent(id)
        + (format === 'decimal' ? '' : '?format=' + encodeURIComponent(format)));
    if (answer.status !== 200) {
      $('decode-error').hidden = false;
      $('decode-error').textContent = problem(answer);
      return;
    }
    const d = answer.body;
    fields($('decode-result'), [
      ['id', d.idString], ['machine', d.machine], ['seq', d.seq], ['time', d.time], ['instant', d.instant],
      ['genMethod', d.genMethod], ['type', d.idType], ['version', d.version],
      ['base32', inDigits(d.idString, CROCKFORD, 13)], ['base62', inDigits(d.idString, BASE62, 11)],
    ]);
  }

  async function refresh() {
    await Promise.allSettled([refreshStatus(), refreshLeases(), refreshSegments()]);
  }

  $('decode-form').addEventListener('submit', decode);
  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $('token-input').value.trim());
    $('token-input').value = '';
    refresh();
  });
  refresh();
  setInterval(refresh, 2000);
})();
