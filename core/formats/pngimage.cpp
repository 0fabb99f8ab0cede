#include "formats/pngimage.h"

#include <QtEndian>

#include <algorithm>
#include <array>
#include <vector>

namespace tb {

namespace {

constexpr char kPngSignature[] = "\x89PNG\r\n\x1a\n";
constexpr qsizetype kPngSignatureBytes = 8;
constexpr int kPngBlock = 16; ///< pixels a side of one colour block
constexpr quint32 kAdlerBase = 65521;

std::uint64_t pngMix(std::uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

const std::array<quint32, 256> &pngCrcTable()
{
    static const std::array<quint32, 256> table = [] {
        std::array<quint32, 256> t{};
        for (quint32 n = 0; n < 256; ++n) {
            quint32 c = n;
            for (int k = 0; k < 8; ++k)
                c = (c & 1) != 0 ? 0xEDB88320U ^ (c >> 1) : c >> 1;
            t[n] = c;
        }
        return t;
    }();
    return table;
}

void appendPngUint32(QByteArray &out, quint32 value)
{
    char bytes[4];
    qToBigEndian(value, bytes);
    out.append(bytes, 4);
}

/// Length, type, data and the CRC of type and data.
void appendPngChunk(QByteArray &out, const char *type, QByteArrayView data)
{
    appendPngUint32(out, quint32(data.size()));
    const qsizetype start = out.size();
    out.append(type, 4);
    out.append(data);
    appendPngUint32(out, PngImage::crc32(QByteArrayView(out).sliced(start)));
}

} // namespace

quint32 PngImage::crc32(QByteArrayView bytes)
{
    const auto &table = pngCrcTable();
    quint32 c = 0xFFFFFFFFU;
    for (const char b : bytes)
        c = table[(c ^ quint8(b)) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFU;
}

void PngImage::drawRows(char *out, int width, int from, int to, quint64 seed)
{
    const qsizetype row = 1 + qsizetype(width) * 3;
    const int blocksAcross = (width + kPngBlock - 1) / kPngBlock;
    std::vector<quint32> colours(static_cast<std::size_t>(blocksAcross));
    for (int y = from; y < to; ++y) {
        char *p = out + row * (y - from);
        // Filter type 1 (Sub): each byte less the one a pixel before, as encoders choose for
        // photographs; within a block only the noise is left, which deflate codes in about 5 bits.
        *p++ = 1;
        if (y == from || y % kPngBlock == 0) {
            for (int b = 0; b < blocksAcross; ++b)
                colours[std::size_t(b)] =
                    quint32(pngMix(seed ^ pngMix(std::uint64_t(y / kPngBlock) << 32 | quint32(b))));
        }
        std::uint64_t noise = pngMix(seed ^ pngMix(0x1A6E'0000'0000ULL + std::uint64_t(y)));
        std::array<quint8, 3> left{};
        for (int x = 0; x < width; ++x) {
            // One draw gives the noise of a few pixels: the image is made while a request waits.
            if (x % 5 == 0)
                noise = pngMix(noise);
            const quint32 colour = colours[std::size_t(x / kPngBlock)];
            const auto bits = quint32(noise >> (12 * (x % 5)));
            for (int c = 0; c < 3; ++c) {
                const auto value = quint8(((colour >> (8 * c)) & 0xF0) | ((bits >> (4 * c)) & 0x0F));
                *p++ = char(quint8(value - left[std::size_t(c)]));
                left[std::size_t(c)] = value;
            }
        }
    }
}

PngImage::PngImage(int width, int height, quint64 sharedSeed)
{
    if (width < 1 || height < 1 || width > kMaxSide || height > kMaxSide)
        return;
    m_width = width;
    m_height = height;
    m_ownRows = std::min(height, kOwnRows);
    if (m_ownRows == height)
        return;
    const qsizetype row = 1 + qsizetype(width) * 3;
    QByteArray raw(row * (height - m_ownRows), Qt::Uninitialized);
    drawRows(raw.data(), width, m_ownRows, height, sharedSeed);
    // qCompress writes a 4-byte length, then zlib's stream: a 2-byte header, the deflate data and
    // the Adler-32 of what was compressed.
    const QByteArray compressed = qCompress(raw, 1);
    if (compressed.size() <= 10)
        return;
    m_sharedDeflate = compressed.mid(6, compressed.size() - 10);
    m_sharedAdler = qFromBigEndian<quint32>(compressed.constData() + compressed.size() - 4);
    m_sharedBytes = raw.size();
}

QByteArray PngImage::withOwnRows(quint64 seed) const
{
    if (m_width == 0)
        return {};
    const qsizetype row = 1 + qsizetype(m_width) * 3;
    QByteArray own(row * m_ownRows, Qt::Uninitialized);
    drawRows(own.data(), m_width, 0, m_ownRows, seed);
    // zlib's stream by hand: the own rows as stored deflate blocks (at most 65535 bytes each,
    // byte-aligned), then the shared rows' deflate data as compressed once, which refers only to
    // itself; the Adler-32 of both joined.
    QByteArray zlib("\x78\x01", 2);
    zlib.reserve(own.size() + own.size() / 65535 * 5 + 16 + m_sharedDeflate.size());
    for (qsizetype at = 0; at < own.size(); at += 65535) {
        const auto length = quint16(std::min<qsizetype>(65535, own.size() - at));
        const bool final = at + length == own.size() && m_sharedDeflate.isEmpty();
        zlib.append(char(final ? 1 : 0));
        char lengths[4];
        qToLittleEndian(length, lengths);
        qToLittleEndian(quint16(~length), lengths + 2);
        zlib.append(lengths, 4);
        zlib.append(own.constData() + at, length);
    }
    zlib.append(m_sharedDeflate);
    appendPngUint32(zlib, adler32Combine(adler32(own), m_sharedAdler, m_sharedBytes));

    QByteArray header;
    appendPngUint32(header, quint32(m_width));
    appendPngUint32(header, quint32(m_height));
    header.append(char(8));    // bit depth
    header.append(char(2));    // colour type: RGB
    header.append(3, char(0)); // deflate, adaptive filtering, no interlace
    QByteArray png(kPngSignature, kPngSignatureBytes);
    png.reserve(zlib.size() + 64);
    appendPngChunk(png, "IHDR", header);
    appendPngChunk(png, "IDAT", zlib);
    appendPngChunk(png, "IEND", {});
    return png;
}

quint32 PngImage::adler32(QByteArrayView bytes)
{
    quint32 a = 1;
    quint32 b = 0;
    // 5552 bytes is the most before b can overflow 32 bits (zlib's NMAX).
    for (qsizetype at = 0; at < bytes.size(); at += 5552) {
        const qsizetype end = std::min<qsizetype>(bytes.size(), at + 5552);
        for (qsizetype i = at; i < end; ++i) {
            a += quint8(bytes[i]);
            b += a;
        }
        a %= kAdlerBase;
        b %= kAdlerBase;
    }
    return a | (b << 16);
}

quint32 PngImage::adler32Combine(quint32 first, quint32 second, qint64 secondLength)
{
    // zlib's adler32_combine: the second part's sums as if they had started from the first's.
    const auto remainder = quint64(secondLength % kAdlerBase);
    quint64 a = first & 0xFFFF;
    quint64 b = (remainder * a) % kAdlerBase;
    a += (second & 0xFFFF) + kAdlerBase - 1;
    b += (first >> 16) + (second >> 16) + kAdlerBase - remainder;
    if (a >= kAdlerBase)
        a -= kAdlerBase;
    if (a >= kAdlerBase)
        a -= kAdlerBase;
    if (b >= quint64(kAdlerBase) << 1)
        b -= quint64(kAdlerBase) << 1;
    if (b >= kAdlerBase)
        b -= kAdlerBase;
    return quint32(a | (b << 16));
}

QByteArray PngImage::synthetic(int width, int height, quint64 seed)
{
    return PngImage(width, height, seed).withOwnRows(seed);
}

std::optional<QSize> PngImage::headerSize(QByteArrayView bytes)
{
    if (bytes.size() < kHeaderBytes ||
        bytes.first(kPngSignatureBytes) != QByteArrayView(kPngSignature, kPngSignatureBytes))
        return std::nullopt;
    const char *ihdr = bytes.data() + kPngSignatureBytes;
    if (qFromBigEndian<quint32>(ihdr) != 13 || QByteArrayView(ihdr + 4, 4) != QByteArrayView("IHDR"))
        return std::nullopt;
    if (crc32(QByteArrayView(ihdr + 4, 17)) != qFromBigEndian<quint32>(ihdr + 21))
        return std::nullopt;
    const quint32 width = qFromBigEndian<quint32>(ihdr + 8);
    const quint32 height = qFromBigEndian<quint32>(ihdr + 12);
    if (width < 1 || height < 1 || width > quint32(kMaxSide) || height > quint32(kMaxSide))
        return std::nullopt;
    return QSize(int(width), int(height));
}

} // namespace tb
