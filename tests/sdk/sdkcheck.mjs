// Runs the official OpenAI and Anthropic client libraries, unchanged, against a TokenBench
// simulator: chat and completions, the Responses API, Anthropic messages, streaming and not, and the SDKs' own stream
// accumulators, an image content part. Checks what each SDK parsed, then prints one JSON line per call for tst_simsdk,
// which compares them with the simulator's own record (GET /sim/requests).
//
//   node sdkcheck.mjs http://127.0.0.1:PORT/v1 MODEL
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

const [baseURL, model] = process.argv.slice(2);
if (!baseURL || !model) {
    console.error('usage: node sdkcheck.mjs BASE_URL MODEL');
    process.exit(2);
}
// No retries: a failure must show, not be papered over.
const openai = new OpenAI({ baseURL, apiKey: 'sim-key', maxRetries: 0, timeout: 60000 });
const anthropic = new Anthropic({ baseURL: baseURL.replace(/\/v1\/?$/, ''), apiKey: 'sim-key', maxRetries: 0, timeout: 60000 });

const prompt = 'Compare the three models by throughput, latency and token efficiency.';
const messages = [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: prompt }];
// Every generated token is one space-led word, so counting words counts tokens.
const tokens = (text) => (text ?? '').split(' ').filter((w) => w.length > 0).length;

function expect(call, condition, detail) {
    if (!condition)
        throw new Error(`${call}: ${detail}`);
}

function report(call, result) {
    const { id, content, reasoning = '', promptTokens, completionTokens } = result;
    expect(call, typeof id === 'string' && id.length > 0, `no response id (${id})`);
    expect(call, tokens(content) > 0, `no content (${JSON.stringify(content)})`);
    expect(call, completionTokens === tokens(content) + tokens(reasoning),
           `usage says ${completionTokens} completion tokens, the text has ${tokens(content)} + ${tokens(reasoning)} reasoning`);
    console.log(JSON.stringify({ call, id, promptTokens, completionTokens, contentTokens: tokens(content), reasoningTokens: tokens(reasoning) }));
}

const listed = await openai.models.list();
const ids = [];
for await (const m of listed)
    ids.push(m.id);
expect('models.list', ids.includes(model), `lists ${ids.join(', ')}`);
// The simulator's --models (LoRA adapters, for a --model mix) are listed beside it, and served.
expect('models.list', ids.includes('lora-a'), `lists ${ids.join(', ')}`);
{
    const r = await openai.chat.completions.create({ model: 'lora-a', messages, max_tokens: 20 });
    expect('chat lora-a', r.model === 'lora-a', `model ${r.model}`);
    report('chat lora-a', { id: r.id, content: r.choices[0].message.content,
                            reasoning: r.choices[0].message.reasoning_content,
                            promptTokens: r.usage.prompt_tokens, completionTokens: r.usage.completion_tokens });
}

let chatPromptTokens;
{
    const r = await openai.chat.completions.create({ model, messages, max_tokens: 50 });
    const choice = r.choices[0];
    expect('chat', choice.finish_reason === 'stop' || choice.finish_reason === 'length', choice.finish_reason);
    chatPromptTokens = r.usage.prompt_tokens;
    report('chat', { id: r.id, content: choice.message.content, reasoning: choice.message.reasoning_content,
                     promptTokens: r.usage.prompt_tokens, completionTokens: r.usage.completion_tokens });
}
{
    // An image content part as the SDK types it (--images): a 1×1 PNG after the same text costs
    // the simulator's ⌈1/28⌉·⌈1/28⌉ + 2 = 3 tokens (docs/simulator.md "Images").
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const content = [{ type: 'text', text: prompt }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }];
    const r = await openai.chat.completions.create({ model, messages: [messages[0], { role: 'user', content }], max_tokens: 50 });
    expect('chat image', r.usage.prompt_tokens === chatPromptTokens + 3,
           `prompt_tokens ${r.usage.prompt_tokens}, the text alone ${chatPromptTokens}`);
    report('chat image', { id: r.id, content: r.choices[0].message.content, reasoning: r.choices[0].message.reasoning_content,
                           promptTokens: r.usage.prompt_tokens, completionTokens: r.usage.completion_tokens });
}
{
    const stream = await openai.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } });
    let id, content = '', reasoning = '', usage, finish, usageChunks = 0;
    for await (const chunk of stream) {
        id = chunk.id;
        if (chunk.usage) {
            usage = chunk.usage;
            ++usageChunks;
            expect('chat stream', chunk.choices.length === 0, 'the usage chunk must have no choices');
        }
        for (const c of chunk.choices) {
            content += c.delta?.content ?? '';
            reasoning += c.delta?.reasoning_content ?? '';
            finish = c.finish_reason ?? finish;
        }
    }
    expect('chat stream', usageChunks === 1 && finish === 'stop', `usage chunks ${usageChunks}, finish ${finish}`);
    expect('chat stream', usage.prompt_tokens_details.cached_tokens >= 0, 'no cached_tokens');
    report('chat stream', { id, content, reasoning, promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens });
}
{
    // The SDK's stream helper accumulates the deltas into a ChatCompletion itself. It keeps only
    // the last value of fields it does not know (reasoning_content), so reasoning is summed here.
    const runner = openai.chat.completions.stream({ model, messages, stream_options: { include_usage: true } });
    let reasoning = '';
    runner.on('chunk', (chunk) => {
        for (const c of chunk.choices)
            reasoning += c.delta?.reasoning_content ?? '';
    });
    const final = await runner.finalChatCompletion();
    report('chat stream helper', { id: final.id, content: final.choices[0].message.content, reasoning,
                                   promptTokens: final.usage.prompt_tokens, completionTokens: final.usage.completion_tokens });
}
{
    const r = await openai.completions.create({ model, prompt, max_tokens: 7 });
    expect('completions', r.choices[0].finish_reason === 'length', `finish ${r.choices[0].finish_reason} with max_tokens 7`);
    report('completions', { id: r.id, content: r.choices[0].text, promptTokens: r.usage.prompt_tokens,
                            completionTokens: r.usage.completion_tokens });
}
{
    const stream = await openai.completions.create({ model, prompt, stream: true, stream_options: { include_usage: true } });
    let id, content = '', usage;
    for await (const chunk of stream) {
        id = chunk.id;
        usage = chunk.usage ?? usage;
        for (const c of chunk.choices)
            content += c.text;
    }
    report('completions stream', { id, content, promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens });
}

{
    const r = await openai.responses.create({ model, instructions: 'You are terse.', input: prompt, max_output_tokens: 50 });
    expect('responses', r.object === 'response' && ['completed', 'incomplete'].includes(r.status), `${r.object} ${r.status}`);
    const content = r.output.filter((i) => i.type === 'message').flatMap((i) => i.content)
        .filter((c) => c.type === 'output_text').map((c) => c.text).join('');
    const reasoning = r.output.filter((i) => i.type === 'reasoning').flatMap((i) => i.summary).map((s) => s.text).join('');
    expect('responses', r.output_text === content, `the SDK's output_text ${JSON.stringify(r.output_text)}`);
    expect('responses', r.usage.input_tokens_details.cached_tokens >= 0, 'no cached_tokens');
    expect('responses', r.usage.output_tokens_details.reasoning_tokens === tokens(reasoning), 'reasoning_tokens');
    report('responses', { id: r.id, content, reasoning, promptTokens: r.usage.input_tokens, completionTokens: r.usage.output_tokens });
}
{
    const stream = await openai.responses.create({ model, input: [{ role: 'user', content: prompt }], stream: true });
    const types = new Set();
    let id, content = '', reasoning = '', usage, status, last = -1;
    for await (const event of stream) {
        types.add(event.type);
        expect('responses stream', event.sequence_number === last + 1, `sequence_number ${event.sequence_number} after ${last}`);
        last = event.sequence_number;
        if (event.type === 'response.created')
            id = event.response.id;
        else if (event.type === 'response.output_text.delta')
            content += event.delta;
        else if (event.type === 'response.reasoning_summary_text.delta')
            reasoning += event.delta;
        else if (event.type === 'response.output_text.done')
            expect('responses stream', event.text === content, 'output_text.done repeats the deltas');
        else if (event.type === 'response.completed' || event.type === 'response.incomplete') {
            usage = event.response.usage;
            status = event.response.status;
            expect('responses stream', event.response.id === id, 'one response id');
        }
    }
    for (const t of ['response.created', 'response.in_progress', 'response.output_item.added', 'response.output_text.delta', 'response.output_item.done'])
        expect('responses stream', types.has(t), `no ${t} event`);
    expect('responses stream', status === 'completed' || status === 'incomplete', `ended ${status}`);
    report('responses stream', { id, content, reasoning, promptTokens: usage.input_tokens, completionTokens: usage.output_tokens });
}

// Structured output: the SDKs' request shapes for a JSON Schema, and the simulator's reply valid
// for it. The content is JSON, not words: only reasoning is counted by words.
const personSchema = { type: 'object', properties: { name: { type: 'string', maxLength: 8 }, age: { type: 'integer', minimum: 18, maximum: 20 } },
                       required: ['name', 'age'], additionalProperties: false };
function reportStructured(call, { id, content, reasoning = '', promptTokens, completionTokens }) {
    const person = JSON.parse(content);
    expect(call, Object.keys(person).sort().join() === 'age,name' && typeof person.name === 'string' && person.name.length <= 8
                 && Number.isInteger(person.age) && person.age >= 18 && person.age <= 20, `not valid for the schema: ${content}`);
    console.log(JSON.stringify({ call, id, promptTokens, completionTokens, reasoningTokens: tokens(reasoning) }));
}
{
    const stream = await openai.chat.completions.create({
        model, messages, stream: true, stream_options: { include_usage: true },
        response_format: { type: 'json_schema', json_schema: { name: 'person', schema: personSchema, strict: true } } });
    let id, content = '', reasoning = '', usage;
    for await (const chunk of stream) {
        id = chunk.id;
        usage = chunk.usage ?? usage;
        for (const c of chunk.choices) {
            content += c.delta?.content ?? '';
            reasoning += c.delta?.reasoning_content ?? '';
        }
    }
    reportStructured('chat json_schema stream', { id, content, reasoning, promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens });
}
{
    const r = await openai.responses.create({ model, input: prompt, max_output_tokens: 50,
                                              text: { format: { type: 'json_schema', name: 'person', schema: personSchema, strict: true } } });
    const reasoning = r.output.filter((i) => i.type === 'reasoning').flatMap((i) => i.summary).map((s) => s.text).join('');
    reportStructured('responses json_schema', { id: r.id, content: r.output_text, reasoning, promptTokens: r.usage.input_tokens,
                                                completionTokens: r.usage.output_tokens });
}

// Tool calling: the SDK's stream helper accumulates the call's fragments (by index) into the
// final message's tool_calls; the arguments are JSON valid for the tool's parameters.
{
    const weather = { type: 'object', properties: { city: { type: 'string', maxLength: 8 }, days: { type: 'integer', minimum: 1, maximum: 7 } },
                      required: ['city', 'days'], additionalProperties: false };
    const runner = openai.chat.completions.stream({ model, messages, stream_options: { include_usage: true }, tool_choice: 'required',
                                                    tools: [{ type: 'function', function: { name: 'get_weather', parameters: weather } }] });
    let reasoning = '';
    runner.on('chunk', (chunk) => {
        for (const c of chunk.choices)
            reasoning += c.delta?.reasoning_content ?? '';
    });
    const final = await runner.finalChatCompletion();
    const choice = final.choices[0];
    const calls = choice.message.tool_calls ?? [];
    expect('chat tools stream', choice.finish_reason === 'tool_calls' && calls.length === 1 && calls[0].function.name === 'get_weather'
                                && calls[0].id.startsWith('call_'), `finish ${choice.finish_reason}, calls ${JSON.stringify(calls)}`);
    const args = JSON.parse(calls[0].function.arguments);
    expect('chat tools stream', Object.keys(args).sort().join() === 'city,days' && typeof args.city === 'string' && args.city.length <= 8
                                && Number.isInteger(args.days) && args.days >= 1 && args.days <= 7, `not valid: ${calls[0].function.arguments}`);
    console.log(JSON.stringify({ call: 'chat tools stream', id: final.id, promptTokens: final.usage.prompt_tokens,
                                 completionTokens: final.usage.completion_tokens, reasoningTokens: tokens(reasoning) }));
}

const anthropicMessages = [{ role: 'user', content: [{ type: 'text', text: prompt }] }];
const textOf = (blocks, type, field) => blocks.filter((b) => b.type === type).map((b) => b[field]).join('');
{
    const m = await anthropic.messages.create({ model, max_tokens: 100, system: 'You are terse.', messages: anthropicMessages });
    expect('messages', m.type === 'message' && m.stop_reason === 'end_turn', `${m.type} ${m.stop_reason}`);
    report('messages', { id: m.id, content: textOf(m.content, 'text', 'text'), reasoning: textOf(m.content, 'thinking', 'thinking'),
                         promptTokens: m.usage.input_tokens + m.usage.cache_read_input_tokens, completionTokens: m.usage.output_tokens });
}
{
    // The SDK's MessageStream assembles the message from the events (message_start, content
    // blocks, message_delta with usage, message_stop).
    const stream = anthropic.messages.stream({ model, max_tokens: 100, system: 'You are terse.', messages: anthropicMessages });
    let textEvents = 0;
    stream.on('text', () => ++textEvents);
    const m = await stream.finalMessage();
    expect('messages stream', textEvents > 0, 'no text events');
    report('messages stream', { id: m.id, content: textOf(m.content, 'text', 'text'), reasoning: textOf(m.content, 'thinking', 'thinking'),
                                promptTokens: m.usage.input_tokens + m.usage.cache_read_input_tokens, completionTokens: m.usage.output_tokens });
}
{
    const stream = await anthropic.messages.create({ model, max_tokens: 5, messages: anthropicMessages, stream: true });
    const types = new Set();
    let id, content = '', reasoning = '', inputTokens = 0, outputTokens = 0, stop;
    for await (const event of stream) {
        types.add(event.type);
        if (event.type === 'message_start') {
            id = event.message.id;
            inputTokens = event.message.usage.input_tokens + (event.message.usage.cache_read_input_tokens ?? 0);
        } else if (event.type === 'content_block_delta') {
            content += event.delta.text ?? '';
            reasoning += event.delta.thinking ?? '';
        } else if (event.type === 'message_delta') {
            outputTokens = event.usage.output_tokens;
            stop = event.delta.stop_reason;
        }
    }
    for (const t of ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'])
        expect('messages raw stream', types.has(t), `no ${t} event`);
    expect('messages raw stream', stop === 'max_tokens', `stop_reason ${stop} with max_tokens 5`);
    report('messages raw stream', { id, content, reasoning, promptTokens: inputTokens, completionTokens: outputTokens });
}

// Embeddings: the SDK asks for base64 unless told (and decodes the float32 bytes itself), or
// takes floats; a batch gets one vector per input, in order. The response has no id: the
// simulator's x-request-id header names its record.
for (const [call, encoding] of [['embeddings', undefined], ['embeddings float', 'float']]) {
    const input = encoding ? [prompt, 'Second input.', 'Third input.'] : prompt;
    const inputs = Array.isArray(input) ? input.length : 1;
    const { data: r, response } = await openai.embeddings
        .create({ model, input, ...(encoding ? { encoding_format: encoding } : {}) })
        .withResponse();
    expect(call, r.data.length === inputs, `${r.data.length} vectors for ${inputs} inputs`);
    r.data.forEach((e, i) => {
        expect(call, e.index === i, `vector ${i} has index ${e.index}`);
        expect(call, e.embedding.length === 8 && Array.from(e.embedding).every(Number.isFinite),
               `vector ${i}: ${JSON.stringify(Array.from(e.embedding))}`);
    });
    expect(call, r.usage.total_tokens === r.usage.prompt_tokens, `usage ${JSON.stringify(r.usage)}`);
    console.log(JSON.stringify({ call, id: response.headers.get('x-request-id'), promptTokens: r.usage.prompt_tokens,
                                 completionTokens: 0, reasoningTokens: 0 }));
}

// A bad request surfaces as the SDK's typed error with the server's message.
try {
    await openai.chat.completions.create({ model: 'no-such-model', messages });
    expect('unknown model', false, 'no error');
} catch (error) {
    // With --models set, OpenAI's own 404 body, word for word.
    expect('unknown model', error instanceof OpenAI.NotFoundError && error.code === 'model_not_found' &&
           /The model `no-such-model` does not exist\./.test(error.message), String(error));
}
try {
    await anthropic.messages.create({ model, max_tokens: -1, messages: anthropicMessages });
    expect('negative max_tokens', false, 'no error');
} catch (error) {
    expect('negative max_tokens', error instanceof Anthropic.BadRequestError && /max_tokens/.test(error.message), String(error));
}
console.log(JSON.stringify({ done: true }));
