// An independent HTTP/2 client for tst_simh2: node's http2 module against the simulator by prior
// knowledge (h2c). One session opens STREAMS streaming chat requests at once; the first CANCEL of
// them are reset (RST_STREAM CANCEL) after their first event. Prints one JSON line:
// {"ok", "events", "cancelled", "statuses", "errors", "maxConcurrentStreams", "arrivals"}, where arrivals
// maps each completed response's x-request-id to when its headers and its end arrived, in ns of
// CLOCK_MONOTONIC (the simulator's steady_clock), as strings.
//   node h2client.mjs PORT STREAMS [CANCEL]
import http2 from 'node:http2';

const [port, streamsArg, cancelArg] = process.argv.slice(2);
const streams = Number(streamsArg);
const cancel = Number(cancelArg || 0);
const session = http2.connect(`http://127.0.0.1:${port}`, { peerMaxConcurrentStreams: 100000 });
const result = { ok: 0, events: 0, cancelled: 0, statuses: {}, errors: [], maxConcurrentStreams: null, arrivals: {} };
session.on('remoteSettings', (s) => { result.maxConcurrentStreams = s.maxConcurrentStreams; });
session.on('error', (e) => { result.errors.push('session: ' + e.message); });

const one = (i) => new Promise((resolve) => {
    const req = session.request({ ':method': 'POST', ':path': '/v1/chat/completions',
                                  'content-type': 'application/json' });
    let text = '';
    let status = 0;
    let reset = false;
    let headersNs = 0n;
    let id = '';
    req.on('response', (h) => {
        headersNs = process.hrtime.bigint();
        id = h['x-request-id'] || '';
        status = h[':status']; result.statuses[status] = (result.statuses[status] || 0) + 1; });
    req.setEncoding('utf8');
    req.on('data', (d) => {
        text += d;
        if (i < cancel && !reset) {
            reset = true;
            req.close(http2.constants.NGHTTP2_CANCEL);
        }
    });
    req.on('end', () => { if (id && !reset) result.arrivals[id] = [String(headersNs), String(process.hrtime.bigint())]; });
    req.on('close', () => {
        if (reset) {
            ++result.cancelled;
        } else if (status === 200 && text.trimEnd().endsWith('data: [DONE]')) {
            ++result.ok;
            result.events += text.split('\n\n').filter((e) => e.startsWith('data: ')).length;
        } else if (status !== 200) {
            // An answer that is not a stream (the test reads the statuses)
        } else {
            result.errors.push(`stream ${i}: incomplete (${text.length} bytes, rst ${req.rstCode})`);
        }
        resolve();
    });
    req.on('error', (e) => { result.errors.push(`stream ${i}: ${e.message}`); });
    req.end(JSON.stringify({ model: 'default', stream: true,
                             messages: [{ role: 'user', content: 'hello ' + i }] }));
});

await Promise.all(Array.from({ length: streams }, (_, i) => one(i)));
session.close();
console.log(JSON.stringify(result));
