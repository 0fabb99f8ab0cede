// An HTTP/2 OpenAI-style SSE server on 127.0.0.1 for tst_http2: h2c (prior knowledge) or h2 over
// TLS (ALPN). Prints "port N" once listening, then "stats <peak concurrent streams> <sessions>"
// after every response, so the test sees what reached the wire.
import http2 from 'node:http2';
import fs from 'node:fs';

const [mode, cert, key] = process.argv.slice(2);
const server = mode === 'tls'
    ? http2.createSecureServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key), allowHTTP1: true })
    : http2.createServer();
let streams = 0, peak = 0, sessions = 0;
server.on('session', () => { ++sessions; });
server.on('stream', (stream, headers) => {
    let body = '';
    stream.on('data', (d) => { body += d; });
    stream.on('end', () => {
        ++streams;
        peak = Math.max(peak, streams);
        const id = 'h2-' + Math.random().toString(36).slice(2);
        stream.respond({ ':status': 200, 'content-type': 'text/event-stream' });
        const chunk = (o) => stream.write('data: ' + JSON.stringify(o) + '\n\n');
        let n = 0;
        const tick = setInterval(() => {
            if (n < 4) {
                chunk({ id, choices: [{ index: 0, delta: { content: ' t' + n } }] });
                ++n;
                return;
            }
            clearInterval(tick);
            chunk({ id, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
                    usage: { prompt_tokens: 3, completion_tokens: 4 } });
            stream.end('data: [DONE]\n\n');
            --streams;
            console.log(`stats ${peak} ${sessions}`);
        }, 50);
    });
});
server.listen(0, '127.0.0.1', () => console.log(`port ${server.address().port}`));
