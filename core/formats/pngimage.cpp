#include "formats/pngimage.h"

#include <QtEndian>

#include <array>
#include <vector>

namespace tb {

namespace {

constexpr char kPngSignature[] = "\x89PNG\r\n\x1a\n";
constexpr qsizetype kPngSignatureBytes = 8;
constexpr int kPngBlock = 16; ///< pixels a side of one colour block

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

QByteArray PngImage::synthetic(int width, int height, quint64 seed)
{
    if (width < 1 || height < 1 || width > kMaxSide || height > kMaxSide)
        return {};
    // Rows of filter type 0 (none) and RGB bytes.
    const qsizetype row = 1 + qsizetype(width) * 3;
    QByteArray raw(row * height, Qt::Uninitialized);
    const int blocksAcross = (width + kPngBlock - 1) / kPngBlock;
    std::vector<quint32> colours(static_cast<std::size_t>(blocksAcross));
    std::uint64_t noise = pngMix(seed ^ 0x1A6E'0000ULL);
    for (int y = 0; y < height; ++y) {
        char *p = raw.data() + row * y;
        // Filter type 1 (Sub): each byte less the one a pixel before, as encoders choose for
        // photographs; within a block only the noise is left, which deflate codes in about 5 bits.
        *p++ = 1;
        if (y % kPngBlock == 0) {
            for (int b = 0; b < blocksAcross; ++b)
                colours[std::size_t(b)] =
                    quint32(pngMix(seed ^ pngMix(std::uint64_t(y / kPngBlock) << 32 | quint32(b))));
        }
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
    // qCompress writes zlib's stream after a 4-byte length of its own.
    const QByteArray compressed = qCompress(raw, 1);
    if (compressed.size() <= 4)
        return {};
    QByteArray header;
    appendPngUint32(header, quint32(width));
    appendPngUint32(header, quint32(height));
    header.append(char(8));    // bit depth
    header.append(char(2));    // colour type: RGB
    header.append(3, char(0)); // deflate, adaptive filtering, no interlace
    QByteArray png(kPngSignature, kPngSignatureBytes);
    png.reserve(compressed.size() + 64);
    appendPngChunk(png, "IHDR", header);
    appendPngChunk(png, "IDAT", QByteArrayView(compressed).sliced(4));
    appendPngChunk(png, "IEND", {});
    return png;
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
