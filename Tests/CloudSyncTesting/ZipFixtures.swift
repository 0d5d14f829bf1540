public import Foundation
public import ZIPFoundation

/// Real zip files for the tests, written with ZIPFoundation.
public enum ZipFixtures {
    /// Writes a zip of `entries` (path → content), deflated, and returns its path.
    public static func make(_ entries: [(String, Data)], in directory: URL, name: String = "export.zip",
                     method: CompressionMethod = .deflate) throws -> String {
        let url = directory.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: url)
        let archive = try Archive(url: url, accessMode: .create)
        for (path, data) in entries {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: method) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return url.path
    }

    /// Offsets of every occurrence of a 4-byte signature.
    public static func offsets(of signature: [UInt8], in data: Data) -> [Int] {
        let bytes = [UInt8](data)
        guard bytes.count >= 4 else { return [] }
        return (0...(bytes.count - 4)).filter { Array(bytes[$0..<($0 + 4)]) == signature }
    }
}

/// The CRC-32 of zip and PNG (reflected polynomial 0xEDB88320), bit by bit: slow and obviously
/// right, independent of the zlib the code under test uses.
public func crc32(_ data: Data) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in data {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

/// A zip written byte by byte, so a test can say exactly what each header claims, including lies.
public struct RawZip {
    public struct Entry {
        public var path: String
        /// The entry's data as stored in the zip (already deflated when `method` is 8).
        public var data: Data
        public var method: UInt16 = 0
        public var crc32: UInt32? = nil
        public var uncompressedSize: UInt64? = nil

        public init(path: String, data: Data, method: UInt16 = 0, crc32: UInt32? = nil, uncompressedSize: UInt64? = nil) {
            self.path = path
            self.data = data
            self.method = method
            self.crc32 = crc32
            self.uncompressedSize = uncompressedSize
        }
    }
    public var entries: [Entry]
    /// Writes sizes and offsets in the zip64 extra field and adds the zip64 end records.
    public var zip64 = false

    public init(entries: [Entry], zip64: Bool = false) {
        self.entries = entries
        self.zip64 = zip64
    }

    public var bytes: Data {
        var out = Data(), directory = Data()
        for entry in entries {
            let offset = UInt64(out.count)
            let name = Data(entry.path.utf8)
            let crc = entry.crc32 ?? CloudSyncTesting.crc32(entry.data)
            let size = entry.uncompressedSize ?? UInt64(entry.data.count)
            out.le(UInt32(0x0403_4B50)); out.le(UInt16(zip64 ? 45 : 20)); out.le(UInt16(0)); out.le(entry.method)
            out.le(UInt32(0)); out.le(crc); out.le(UInt32(entry.data.count)); out.le(UInt32(truncatingIfNeeded: size))
            out.le(UInt16(name.count)); out.le(UInt16(0)); out.append(name); out.append(entry.data)

            var extra = Data()
            if zip64 { extra.le(UInt16(1)); extra.le(UInt16(24)); extra.le(size); extra.le(UInt64(entry.data.count)); extra.le(offset) }
            directory.le(UInt32(0x0201_4B50)); directory.le(UInt16(45)); directory.le(UInt16(zip64 ? 45 : 20))
            directory.le(UInt16(0)); directory.le(entry.method); directory.le(UInt32(0)); directory.le(crc)
            directory.le(zip64 ? UInt32.max : UInt32(entry.data.count)); directory.le(zip64 ? UInt32.max : UInt32(truncatingIfNeeded: size))
            directory.le(UInt16(name.count)); directory.le(UInt16(extra.count)); directory.le(UInt16(0))
            directory.le(UInt16(0)); directory.le(UInt16(0)); directory.le(UInt32(0))
            directory.le(zip64 ? UInt32.max : UInt32(offset)); directory.append(name); directory.append(extra)
        }
        let directoryOffset = UInt64(out.count)
        out.append(directory)
        if zip64 {
            let recordOffset = UInt64(out.count)
            out.le(UInt32(0x0606_4B50)); out.le(UInt64(44)); out.le(UInt16(45)); out.le(UInt16(45))
            out.le(UInt32(0)); out.le(UInt32(0)); out.le(UInt64(entries.count)); out.le(UInt64(entries.count))
            out.le(UInt64(directory.count)); out.le(directoryOffset)
            out.le(UInt32(0x0706_4B50)); out.le(UInt32(0)); out.le(recordOffset); out.le(UInt32(1))
        }
        out.le(UInt32(0x0605_4B50)); out.le(UInt16(0)); out.le(UInt16(0))
        out.le(zip64 ? UInt16.max : UInt16(entries.count)); out.le(zip64 ? UInt16.max : UInt16(entries.count))
        out.le(zip64 ? UInt32.max : UInt32(directory.count)); out.le(zip64 ? UInt32.max : UInt32(directoryOffset))
        out.le(UInt16(0))
        return out
    }
}

extension Data {
    /// Appends `value` little-endian, as zip headers hold numbers.
    public mutating func le<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
