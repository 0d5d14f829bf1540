import CloudSyncZlib

/// The export inside a zip that arrives as a stream (a pipe on standard input), read front to back
/// through the local file headers, since the central directory at the end cannot be reached first.
///
/// Deflated entries end themselves, which also covers entries written with data descriptors
/// (sizes 0 in the local header), as Apple's exports are.
final class StreamingZipSource: ExportByteSource {
    private(set) var info: ExportSourceInfo
    private let reader: FileReader
    private let inflater = Inflater()

    private static let localHeader: UInt32 = 0x0403_4B50
    private static let dataDescriptor: UInt32 = 0x0807_4B50

    init(reader: FileReader) throws {
        self.reader = reader
        info = ExportSourceInfo(inputName: reader.name)
    }

    func produce(_ emit: (ByteText) throws -> Void) throws {
        while true {
            let signature = try reader.peek(4)
            guard signature.count == 4, le32(signature, 0) == Self.localHeader else {
                // The central directory (or the end): no entry was the export.
                throw ConversionError.notAnExport(info.inputName,
                    "no file in the zip declares <HealthData> (\(info.otherEntries.count) files looked at)")
            }
            let header = try reader.read(exactly: 30, what: "a zip entry header")
            let flags = le16(header, 6), method = le16(header, 8)
            let crc = le32(header, 14)
            var compressedSize = Int64(le32(header, 18))
            let nameBytes = try reader.read(exactly: Int(le16(header, 26)), what: "a zip entry name")
            let extra = try reader.read(exactly: Int(le16(header, 28)), what: "a zip extra field")
            let path = String(decoding: nameBytes, as: UTF8.self)
            let zip64 = zip64Sizes(extra)
            if compressedSize == 0xFFFF_FFFF, let sizes = zip64 { compressedSize = sizes.compressed }
            let hasDescriptor = flags & 0x08 != 0
            guard method == 8 || (method == 0 && !hasDescriptor) else {
                throw ConversionError.damagedZip(info.inputName, entry: path,
                    "compression method \(method) cannot be read from a stream; give the zip as a file")
            }
            if !ExportSources.isCandidateEntry(path), !hasDescriptor {
                // Not the export and its size is known: skip its bytes unread, so that a deflate
                // bomb among the other files costs the time of its compressed size only.
                try reader.skip(compressedSize, what: "a zip entry")
                if !path.hasSuffix("/") { info.otherEntries.append(path) }
                continue
            }
            let isExport = try readEntry(path: path, method: method, size: compressedSize, emit: emit)
            var expectedCRC = crc
            if hasDescriptor { expectedCRC = try readDescriptor(zip64: zip64 != nil, path: path) }
            if isExport {
                guard inflater.crc == expectedCRC else {
                    throw ConversionError.damagedZip(info.inputName, entry: path, "CRC-32 mismatch")
                }
                info.entryName = path
                return
            }
            if !path.hasSuffix("/") { info.otherEntries.append(path) }
        }
    }

    /// Reads one entry's data. Emits it when it is the export; returns whether it was.
    private func readEntry(path: String, method: UInt16, size: Int64, emit: (ByteText) throws -> Void) throws -> Bool {
        // Undecided until the first `sniffLength` bytes are in; then either every byte goes to
        // `emit` (the export) or none does.
        enum State { case undecided, export, skip }
        var state: State = ExportSources.isCandidateEntry(path) ? .undecided : .skip
        var head: [UInt8] = []
        func decide() throws {
            let isExport = head.withUnsafeBufferPointer { ExportSources.declaresHealthData($0) }
            state = isExport ? .export : .skip
            if isExport { try head.withUnsafeBufferPointer { try emit($0) } }
            head = []
        }
        func handle(_ output: ByteText) throws {
            switch state {
            case .export: try emit(output)
            case .skip: return
            case .undecided:
                let taken = Swift.min(output.count, ExportSources.sniffLength - head.count)
                head.append(contentsOf: output.prefix(taken))
                guard head.count >= ExportSources.sniffLength else { return }
                try decide()
                if state == .export, taken < output.count { try emit(output.slice(taken..<output.count)) }
            }
        }
        inflater.reset()
        if method == 0 {
            var left = size
            while left > 0 {
                guard let chunk = try reader.next(limit: Int(Swift.min(left, 1 << 20))) else {
                    throw ConversionError.damagedZip(info.inputName, entry: path, "the zip ends inside this entry")
                }
                inflater.updateCRC(chunk)
                try handle(chunk)
                left -= Int64(chunk.count)
            }
        } else {
            try inflater.inflateAll(from: reader, entry: path, output: { try handle($0) })
        }
        if state == .undecided { try decide() }  // an entry shorter than the sniff length
        return state == .export
    }

    private func readDescriptor(zip64: Bool, path: String) throws -> UInt32 {
        let first = try reader.peek(4)
        if first.count == 4, le32(first, 0) == Self.dataDescriptor { _ = try reader.read(exactly: 4, what: "a data descriptor") }
        let fields = try reader.read(exactly: zip64 ? 20 : 12, what: "a data descriptor")
        return le32(fields, 0)
    }

    private func zip64Sizes(_ extra: [UInt8]) -> (uncompressed: Int64, compressed: Int64)? {
        var i = 0
        while i + 4 <= extra.count {
            let id = le16(extra, i), size = Int(le16(extra, i + 2))
            if id == 0x0001, size >= 16, i + 4 + 16 <= extra.count {
                return (Int64(le64(extra, i + 4)), Int64(le64(extra, i + 12)))
            }
            i += 4 + size
        }
        return nil
    }
}

func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
func le32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(le16(b, i)) | UInt32(le16(b, i + 2)) << 16 }
func le64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(le32(b, i)) | UInt64(le32(b, i + 4)) << 32 }

/// A raw-deflate inflater over zlib that also keeps the CRC-32 of what it produced.
final class Inflater {
    private(set) var crc: UInt32 = 0
    private let output = UnsafeMutablePointer<UInt8>.allocate(capacity: 256 << 10)
    private let outputCapacity = 256 << 10

    deinit { output.deallocate() }

    func reset() { crc = 0 }

    func updateCRC(_ bytes: ByteText) {
        crc = UInt32(crc32(uLong(crc), bytes.baseAddress, uInt(bytes.count)))
    }

    /// Inflates one deflate stream from `reader`, leaving the reader just after it.
    /// The stream must end within what `reader` holds: a reader that runs dry first is damage.
    func inflateAll(from reader: FileReader, entry: String, output handle: (ByteText) throws -> Void) throws {
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
