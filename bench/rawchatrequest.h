#pragma once

// The bench programs' own minimal clients (bench_sim's, bench_readfloor's) send this by hand: a
// streamed chat completion of exactly max_tokens, whose prompt differs between streams from its
// first word on (no prefix-cache hits), as one HTTP/1.1 request to the simulator on 127.0.0.1.

#include <string>

inline std::string rawChatRequest(int stream, int words, int maxTokens)
{
    std::string prompt = "Stream " + std::to_string(stream) + " asks:";
    for (int w = 0; w < words; ++w)
        prompt += " word";
    const std::string body = R"({"model":"fast","stream":true,"ignore_eos":true,"max_tokens":)" +
                             std::to_string(maxTokens) + R"(,"messages":[{"role":"user","content":")" + prompt +
                             R"("}]})";
    return "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           "Content-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
}
