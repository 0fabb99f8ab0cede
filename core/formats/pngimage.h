#pragma once

#include <QByteArray>
#include <QSize>

#include <optional>

namespace tb {

/// PNG files written and read without QtGui (core is GUI-free): synthetic request images
/// (--images) and the simulator's reading of an image's size.
///
/// A request's images are made while it waits to be sent, so most of their cost is paid once: an
/// instance compresses the rows every image of its size shares (from kOwnRows on) at the run's
/// start, and withOwnRows() draws only the first kOwnRows rows of each image, sent as stored
/// (uncompressed) deflate blocks before the shared rows' deflate data. Every image's pixels are
/// its own (a server's image cache, which keys on them, serves none), for the cost of 16 rows.
class PngImage
{
public:
    /// The largest side written or read: 4096 is the widest --image-size; a header past this is
    /// refused as a hostile one.
    static constexpr int kMaxSide = 16384;
    /// Rows drawn for each image: one row of colour blocks.
    static constexpr int kOwnRows = 16;

    /// Images of width × height whose rows from kOwnRows on are drawn from `sharedSeed`. A side
    /// outside 1..kMaxSide makes images that are empty.
    PngImage(int width, int height, quint64 sharedSeed);
    /// A W×H 8-bit RGB PNG (the same seed, the same bytes): blocks of 16×16 pixels of colours of
    /// their own, each channel's low four bits noise, every row filtered Sub, so that the shared
    /// rows compress (zlib level 1) to about 70% of their raw size, as a photograph's PNG does;
    /// its first kOwnRows rows drawn from `seed`. One IDAT chunk.
    QByteArray withOwnRows(quint64 seed) const;
    /// One image drawn wholly from `seed`.
    static QByteArray synthetic(int width, int height, quint64 seed);

    /// The size an IHDR chunk gives, when `bytes` begin with the PNG signature and a whole IHDR
    /// chunk whose CRC is right and whose sides are 1..kMaxSide; nullopt otherwise.
    static std::optional<QSize> headerSize(QByteArrayView bytes);
    /// The 33 bytes headerSize() reads: signature, then IHDR's length, type, 13 bytes and CRC.
    static constexpr qsizetype kHeaderBytes = 33;
    /// CRC-32 (ISO 3309, as PNG and zlib compute it) of `bytes`.
    static quint32 crc32(QByteArrayView bytes);
    /// Adler-32 (RFC 1950, zlib's stream check) of `bytes`, and of two parts joined.
    static quint32 adler32(QByteArrayView bytes);
    static quint32 adler32Combine(quint32 first, quint32 second, qint64 secondLength);

private:
    /// Rows [from, to) of an image `width` wide, each its filter byte and RGB bytes, into `out`.
    static void drawRows(char *out, int width, int from, int to, quint64 seed);

    int m_width = 0;
    int m_height = 0;
    int m_ownRows = 0;
    QByteArray m_sharedDeflate; ///< the shared rows' deflate data, without zlib's header and check
    quint32 m_sharedAdler = 1;
    qint64 m_sharedBytes = 0; ///< their raw bytes
};

} // namespace tb
