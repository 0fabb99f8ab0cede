// Tokenizer::load on tokenizer files others write (a Hugging Face tokenizer.json, an OpenAI
// .tiktoken rank file), then counting with what it loaded: no crash, hang or undefined behaviour
// on any file; a tokenizer it accepts counts what it encodes (count() is encode()'s size) and is
// deterministic.
//
// The input's first byte chooses the file's name, which picks a .tiktoken file's split pattern:
// 0 "tokenizer.json", 1 "o200k_base.tiktoken", 2 "cl100k_base.tiktoken" (modulo 3). The rest is the
// file; it is also encoded, with a few fixed texts (scripts, digits, white space, special tokens).
#include "fuzzinput.h"
#include "tokenize/tokenizer.h"

namespace {

constexpr std::size_t kMaxEncoded = 2048; ///< of the file's own bytes: enough to reach its vocabulary

constexpr std::string_view kTexts[] = {
    "",
    "Hello, world! The quick brown fox jumps over the lazy dog.",
    "  leading and trailing spaces \t\n\n  ",
    "12345678901234567890 3.14159 -42 1e10",
    "naïve café, Ünïcödé ñ; Привет мир; 你好，世界; こんにちは; 안녕하세요; مرحبا",
    "emoji 👋🏽 🇩🇪 👨‍👩‍👧 and a lone \xC3 byte and \xED\xA0\x80 a surrogate",
    "<|endoftext|><s></s><|im_start|>user\nhi<|im_end|> <unk> <0x0A>",
    "don't won't I'm you're they'll we've he'd",
    "\xEF\xBB\xBFline\r\nline\rline\u2028",
};

void checkText(const tb::Tokenizer &t, std::string_view text)
{
    const std::vector<std::int32_t> ids = t.encode(text);
    if (t.count(text) != std::int64_t(ids.size()))
        tb::fuzz::violated("count() differs from the size of encode()");
    if (t.encode(text) != ids)
        tb::fuzz::violated("encode() gives different ids for the same text");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size < 1 || size > tb::fuzz::kMaxInput)
        return 0;
    static const std::filesystem::path paths[] = {tb::fuzz::scratchPath("tokenizer.json"),
                                                  tb::fuzz::scratchPath("o200k_base.tiktoken"),
                                                  tb::fuzz::scratchPath("cl100k_base.tiktoken")};
    const std::filesystem::path &path = paths[data[0] % 3];
    const std::string_view file = tb::fuzz::text(data + 1, size - 1);
    tb::fuzz::writeFile(path, file);
    QString error;
    const auto tokenizer = tb::Tokenizer::load(QString::fromStdString(path.string()), &error);
    if (!tokenizer) {
        if (error.isEmpty())
            tb::fuzz::violated("refused without saying why");
        return 0;
    }
    if (!tokenizer->exact() || tokenizer->description().isEmpty())
        tb::fuzz::violated("a loaded file's tokenizer is not exact or has no description");
    for (const std::string_view text : kTexts)
        checkText(*tokenizer, text);
    checkText(*tokenizer, file.substr(0, kMaxEncoded));
    return 0;
}
