#pragma once

#include <QByteArray>
#include <QSize>

#include <optional>

namespace tb {

/// PNG files written and read without QtGui (core is GUI-free): synthetic request images
/// (--images) and the simulator's reading of an image's size.
class PngImage
{
public:
    /// The largest side written or read: 4096 is the widest --image-size; a header past this is
    /// refused as a hostile one.
    static constexpr int kMaxSide = 16384;

    /// A W×H 8-bit RGB PNG drawn from `seed` (the same seed, the same bytes): blocks of 16×16
    /// pixels of colours of their own, each channel's low four bits noise, so that the file is
    /// about two thirds of its raw size, as a photograph's PNG is, and no two seeds' images alike.
    /// One IDAT chunk (zlib at level 1: the image is made per request), every row filtered Sub.
    /// Empty when a side is outside 1..kMaxSide.
    static QByteArray synthetic(int width, int height, quint64 seed);
    /// The size an IHDR chunk gives, when `bytes` begin with the PNG signature and a whole IHDR
    /// chunk whose CRC is right and whose sides are 1..kMaxSide; nullopt otherwise.
    static std::optional<QSize> headerSize(QByteArrayView bytes);
    /// The 33 bytes headerSize() reads: signature, then IHDR's length, type, 13 bytes and CRC.
    static constexpr qsizetype kHeaderBytes = 33;
    /// CRC-32 (ISO 3309, as PNG and zlib compute it) of `bytes`.
    static quint32 crc32(QByteArrayView bytes);
};

} // namespace tb
