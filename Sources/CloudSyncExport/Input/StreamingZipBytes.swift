import CloudSyncArchive
import CloudSyncModel

/// The export inside a zip that arrives as a stream (a pipe on standard input), read front to back
/// through the local file headers, since the central directory at the end cannot be reached first.
///
/// Deflated entries end themselves, which also covers entries written with data descriptors
/// (sizes 0 in the local header), as Apple's exports are.
final class StreamingZipBytes: ExportBytes {
    private(set) var info: ExportBytesInfo
    private let reader: FileReader
    private let inflater = Inflater()

    private static let localHeader: UInt32 = 0x0403_4B50
    private static let dataDescriptor: UInt32 = 0x0807_4B50

    /// Reads the other entries wanted (routes, ECGs) as they stream past, before or after the
    /// export; nil stops at the end of the export, as a metrics-only conversion wants.
    private let streamed: DecodedEntries?

    init(reader: FileReader, streamed: DecodedEntries? = nil) throws {
        self.reader = reader
        self.streamed = streamed
        info = ExportBytesInfo(inputName: reader.name)
    }

    func produce(_ emit: (ByteText) throws -> Void) throws {
        while true {
            let signature = try reader.peek(4)
            guard signature.count == 4, le32(signature, 0) == Self.localHeader else {
                // The central directory (or the end): the export was found before, or in no entry.
                if info.entryName != nil { return }
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
            if let decoded = streamed?.decoder(for: path) {
                try readData(path: path, method: method, size: compressedSize) { decoded.decoder.consume($0) }
                var expectedCRC = crc
                if hasDescriptor { expectedCRC = try readDescriptor(zip64: zip64 != nil, path: path) }
                if inflater.crc != expectedCRC { decoded.decoder.fail("CRC-32 mismatch") }
                try streamed!.finished(decoded)
                info.otherEntries.append(path)
                continue
            }
            if info.entryName != nil || !ExportInputs.isCandidateEntry(path), !hasDescriptor {
                // Not the export and its size is known: skip its bytes unread, so that a deflate
                // bomb among the other files costs the time of its compressed size only.
                try reader.skip(compressedSize, what: "a zip entry")
                if !path.hasSuffix("/") { info.otherEntries.append(path) }
                continue
            }
            let isExport: Bool
            if info.entryName == nil {
                isExport = try readEntry(path: path, method: method, size: compressedSize, emit: emit)
            } else {
                // After the export, an entry nobody wants whose size is not stated: read to its end.
                try readData(path: path, method: method, size: compressedSize) { _ in }
                isExport = false
            }
            var expectedCRC = crc
            if hasDescriptor { expectedCRC = try readDescriptor(zip64: zip64 != nil, path: path) }
            if isExport {
                guard inflater.crc == expectedCRC else {
                    throw ConversionError.damagedZip(info.inputName, entry: path, "CRC-32 mismatch")
                }
                info.entryName = path
                // A metrics-only run stops here; a whole-archive run reads the entries after it.
                if streamed == nil { return }
                continue
            }
            if !path.hasSuffix("/") { info.otherEntries.append(path) }
        }
    }

    /// Reads one entry's data. Emits it when it is the export; returns whether it was.
    private func readEntry(path: String, method: UInt16, size: Int64, emit: (ByteText) throws -> Void) throws -> Bool {
        // Undecided until the first `sniffLength` bytes are in; then either every byte goes to
        // `emit` (the export) or none does.
        enum State { case undecided, export, skip }
        var state: State = ExportInputs.isCandidateEntry(path) ? .undecided : .skip
        var head: [UInt8] = []
        func decide() throws {
            let isExport = head.withUnsafeBufferPointer { ExportInputs.declaresHealthData($0) }
            state = isExport ? .export : .skip
            if isExport { try head.withUnsafeBufferPointer { try emit($0) } }
            head = []
        }
        func handle(_ output: ByteText) throws {
            switch state {
            case .export: try emit(output)
            case .skip: return
            case .undecided:
                let taken = Swift.min(output.count, ExportInputs.sniffLength - head.count)
                head.append(contentsOf: output.prefix(taken))
                guard head.count >= ExportInputs.sniffLength else { return }
                try decide()
                if state == .export, taken < output.count { try emit(output.slice(taken..<output.count)) }
            }
        }
        try readData(path: path, method: method, size: size, handle)
        if state == .undecided { try decide() }  // an entry shorter than the sniff length
        return state == .export
    }

    /// Reads one entry's data (stored or deflated) into `handle`, keeping its CRC in `inflater`.
    private func readData(path: String, method: UInt16, size: Int64, _ handle: (ByteText) throws -> Void) throws {
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

