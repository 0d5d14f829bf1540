import CloudSyncZlib
import Foundation

/// The smallest PNG writer that serves a QR code: 8-bit greyscale, one zlib stream.
enum PNGWriter {
    static func greyscale(width: Int, height: Int, scanlines: [UInt8]) -> Data {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header.append(contentsOf: [8, 0, 0, 0, 0])  // bit depth 8, greyscale, deflate, no filter, no interlace
        png.appendChunk("IHDR", header)
        var compressedSize = compressBound(uLong(scanlines.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedSize))
        _ = compress2(&compressed, &compressedSize, scanlines, uLong(scanlines.count), 9)
        png.appendChunk("IDAT", Data(compressed.prefix(Int(compressedSize))))
        png.appendChunk("IEND", Data())
        return png
    }
}

extension Data {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }

    mutating func appendChunk(_ type: String, _ payload: Data) {
        appendBigEndian(UInt32(payload.count))
        let typed = Data(type.utf8) + payload
        append(typed)
        let crc = typed.withUnsafeBytes { crc32(0, $0.bindMemory(to: UInt8.self).baseAddress, uInt($0.count)) }
        appendBigEndian(UInt32(crc))
    }
}
