package import CloudSyncModel
import CCRC32
import CloudSyncZlib

package func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
package func le32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(le16(b, i)) | UInt32(le16(b, i + 2)) << 16 }
package func le64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(le32(b, i)) | UInt64(le32(b, i + 4)) << 32 }

/// A raw-deflate inflater over zlib that also keeps the CRC-32 of what it produced.
package final class Inflater {
    package private(set) var crc: UInt32 = 0

    package init() {}
    private let output = UnsafeMutablePointer<UInt8>.allocate(capacity: 256 << 10)
    private let outputCapacity = 256 << 10

    deinit { output.deallocate() }

    package func reset() { crc = 0 }

    package func updateCRC(_ bytes: ByteText) {
        guard let base = bytes.baseAddress else { return }
        crc = cloudsync_crc32(crc, base, bytes.count)
    }

    /// Inflates one deflate stream from `reader`, leaving the reader just after it.
    /// The stream must end within what `reader` holds: a reader that runs dry first is damage.
    package func inflateAll(from reader: FileReader, entry: String, output handle: (ByteText) throws -> Void) throws {
        var stream = z_stream()
        guard cloudsync_inflate_init_raw(&stream) == Z_OK else {
            throw ConversionError.damagedZip(reader.name, entry: entry, "zlib cannot start")
        }
        defer { inflateEnd(&stream) }
        while true {
            guard let input = try reader.peekAvailable() else {
                throw ConversionError.damagedZip(reader.name, entry: entry, "the zip ends inside this entry")
            }
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            var status: Int32 = Z_OK
            repeat {
                stream.next_out = output
                stream.avail_out = uInt(outputCapacity)
                status = inflate(&stream, Z_NO_FLUSH)
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    let why = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                    throw ConversionError.damagedZip(reader.name, entry: entry, "corrupted deflate data: \(why)")
                }
                let produced = outputCapacity - Int(stream.avail_out)
                if produced > 0 {
                    let bytes = ByteText(start: output, count: produced)
                    updateCRC(bytes)
                    try handle(bytes)
                }
            } while stream.avail_out == 0 && status != Z_STREAM_END
            reader.consume(input.count - Int(stream.avail_in))
            if status == Z_STREAM_END { return }
        }
    }
}
